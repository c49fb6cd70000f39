// RUN: pypto-opt %s --split-input-file -p expand-mixed-kernel 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: pypto-opt %s --split-input-file -p expand-mixed-kernel 2>/dev/null | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'expand-mixed-kernel{strict=true}' --verify-diagnostics | filecheck %s --check-prefix=STRICT

// Mixed kernels that cannot be split stay incore, with one warning per kernel naming the
// obstacle, why it blocks the split and the op as the IR spells it (the Ascend C backend then
// refuses the kernel); with strict=true the pass fails instead. One case per obstacle.

builtin.module {
  pypto.func incore @scalar(%a: !pypto.tensor<[16, 16], f32>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
    %f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>
    %o2 = pypto.tile.store %f, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
}

// WARN: warning: expand-mixed-kernel: @scalar mixes cube and vector ops but stays incore: 'pypto.tile.full' runs on the cube (AIC) core but uses %x, which the vector (AIV) core computes; only tiles cross (tile.move); at `%f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>`
// CHECK: pypto.func incore @scalar(
// STRICT: expand-mixed-kernel: cannot split @scalar into an aic and an aiv kernel: 'pypto.tile.full' runs on the cube (AIC) core but uses %x, which the vector (AIV) core computes; only tiles cross (tile.move); at `%f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>`

// -----

builtin.module {
  pypto.func incore @bound(%a: !pypto.tensor<[16, 16], f32>, %m: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
    %n = arith.fptosi %x : f32 to i64
    %ni = arith.index_cast %n : i64 to index
    scf.for %i = %c0 to %ni step %c1 {
      %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
      %v = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    }
    pypto.return %o : !pypto.tensor<[16, 16], f32>
  }
}

// WARN: warning: expand-mixed-kernel: @bound mixes cube and vector ops but stays incore: 'scf.for' holds ops of both cores, but its trip count is computed on the vector (AIV) core only: both cores must be able to compute it; at `scf.for %i = %c0 to %ni step %c1 { ... }`
// CHECK: pypto.func incore @bound(
// STRICT: expand-mixed-kernel: cannot split @bound into an aic and an aiv kernel: 'scf.for' holds ops of both cores, but its trip count is computed on the vector (AIV) core only

// -----

builtin.module {
  pypto.func incore @tensor_level(%a: !pypto.tensor<[8, 8], f32>, out %o: !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32> {
    %c0 = arith.constant 0 : index
    %p = pypto.tensor.matmul %a, %a : !pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 8], f32> -> !pypto.tensor<[8, 8], f32>
    %r = pypto.tensor.relu %p : !pypto.tensor<[8, 8], f32>
    %o2 = pypto.tensor.assemble %r into %o[%c0, %c0] : !pypto.tensor<[8, 8], f32> into !pypto.tensor<[8, 8], f32>
    pypto.return %o2 : !pypto.tensor<[8, 8], f32>
  }
}

// WARN: warning: expand-mixed-kernel: @tensor_level mixes cube and vector ops but stays incore: 'pypto.tensor.relu' runs on the vector (AIV) core but uses %p, which the cube (AIC) core computes (tensor-level compute crosses cores only through a tensor in global memory: convert-tensor-to-tile did not lower it); at `%r = pypto.tensor.relu %p : !pypto.tensor<[8, 8], f32>`
// CHECK: pypto.func incore @tensor_level(

// -----

builtin.module {
  pypto.func incore @loop_workspace(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      %ws = pypto.tensor.create : !pypto.tensor<[16, 16], f32>
      %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
      %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
      %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
      %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
      %ws2 = pypto.tile.store %acc, %ws[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
      %t = pypto.tile.load %ws2[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
      %o2 = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
    }
    pypto.return %o : !pypto.tensor<[16, 16], f32>
  }
}

// WARN: warning: expand-mixed-kernel: @loop_workspace mixes cube and vector ops but stays incore: a workspace (pypto.tensor.create) made inside a loop or branch is used by both cores; create it at the kernel's top level; at `%ws = pypto.tensor.create : !pypto.tensor<[16, 16], f32>`
// CHECK: pypto.func incore @loop_workspace(

// -----

builtin.module {
  pypto.func incore @while(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.while (%i = %c0) : (index) -> index {
      %go = arith.cmpi slt, %i, %n : index
      scf.condition(%go) %i : index
    } do {
    ^bb0(%j: index):
      %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
      %v = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
      %k = arith.addi %j, %c1 : index
      scf.yield %k : index
    }
    pypto.return
  }
}

// WARN: warning: expand-mixed-kernel: @while mixes cube and vector ops but stays incore: an scf.while holds ops of both cores: only scf.for loops and scf.if branches are split; at `%r = scf.while (%i = %c0) : (index) -> index { ... }`

// -----

builtin.module {
  pypto.func @helper(%a: !pypto.tensor<[16, 16], f32>) {
    pypto.return
  }
  pypto.func incore @calls(%a: !pypto.tensor<[16, 16], f32>, %m: !pypto.tensor<[16, 16], f16>) {
    %c0 = arith.constant 0 : index
    pypto.call @helper(%a) : (!pypto.tensor<[16, 16], f32>) -> ()
    %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %v = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    pypto.return
  }
  pypto.func incore @call_alone(%a: !pypto.tensor<[16, 16], f32>) {
    pypto.call @helper(%a) : (!pypto.tensor<[16, 16], f32>) -> ()
    pypto.return
  }
}

// WARN: warning: expand-mixed-kernel: @calls mixes cube and vector ops but stays incore: 'pypto.call' inside a kernel: calls cannot be given one core; at `pypto.call @helper(%a) : (!pypto.tensor<[16, 16], f32>) -> ()`
// WARN-NOT: @call_alone
// CHECK: pypto.func incore @calls(
// CHECK: pypto.func aiv @call_alone(

// -----

builtin.module {
  pypto.func incore @combine(%a: !pypto.tensor<[16, 16], f32>, %m: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
    %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %y = pypto.tile.read %mm[%c0, %c0] : !pypto.tile<[16, 16], f16, mat>
    %y32 = arith.extf %y : f16 to f32
    %s = arith.addf %x, %y32 : f32
    %u = pypto.tile.adds %t, %s : !pypto.tile<[16, 16], f32, vec>, f32
    %o2 = pypto.tile.store %u, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
}

// WARN: warning: expand-mixed-kernel: @combine mixes cube and vector ops but stays incore: 'arith.addf' combines %x, computed on the vector (AIV) core, with %y32, computed on the cube (AIC) core; only tiles cross between the cores (tile.move); at `%s = arith.addf %x, %y32 : f32`
// CHECK: pypto.func incore @combine(
// STRICT: expand-mixed-kernel: cannot split @combine into an aic and an aiv kernel: 'arith.addf' combines %x

// -----

builtin.module {
  pypto.func incore @condition(%a: !pypto.tensor<[16, 16], f32>, %m: !pypto.tensor<[16, 16], f16>) {
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    scf.if %p {
      %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
      %v = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    }
    pypto.return
  }
}

// WARN: warning: expand-mixed-kernel: @condition mixes cube and vector ops but stays incore: 'scf.if' holds ops of both cores, but its condition is computed on the vector (AIV) core only: both cores must be able to compute it; at `scf.if %p { ... }`
// CHECK: pypto.func incore @condition(

// -----

builtin.module {
  pypto.func incore @carried(%a: !pypto.tensor<[16, 16], f32>, %m: !pypto.tensor<[16, 16], f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (f32) {
      %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, mat>
      %y = pypto.tile.read %mm[%c0, %c0] : !pypto.tile<[16, 16], f32, mat>
      scf.yield %y : f32
    }
    pypto.return
  }
}

// WARN: warning: expand-mixed-kernel: @carried mixes cube and vector ops but stays incore: 'scf.for' carries %acc (value #0), which starts on the vector (AIV) core and is updated on the cube (AIC) core: a carried scalar stays on one core (only tiles cross, through tile.move); at `%r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (f32) { ... }`
// CHECK: pypto.func incore @carried(

// -----

builtin.module {
  pypto.func incore @branches(%a: !pypto.tensor<[16, 16], f32>, %m: !pypto.tensor<[16, 16], f32>, %c: i1) {
    %c0 = arith.constant 0 : index
    %r = scf.if %c -> (f32) {
      %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
      %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
      scf.yield %x : f32
    } else {
      %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, mat>
      %y = pypto.tile.read %mm[%c0, %c0] : !pypto.tile<[16, 16], f32, mat>
      scf.yield %y : f32
    }
    pypto.return
  }
}

// WARN: warning: expand-mixed-kernel: @branches mixes cube and vector ops but stays incore: 'scf.if' carries %r (value #0), which comes from the vector (AIV) core in one branch and from the cube (AIC) core in another: a carried scalar stays on one core (only tiles cross, through tile.move); at `%r = scf.if %c -> (f32) { ... }`
// CHECK: pypto.func incore @branches(

// -----

builtin.module {
  pypto.func incore @sized(%a: !pypto.tensor<[16, 16], f16>, %n: index, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %n2 = arith.addi %n, %n : index
    %ws = pypto.tensor.create(%n2) : !pypto.tensor<[?, 16], f32>
    %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    %ws2 = pypto.tile.store %acc, %ws[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[?, 16], f32>
    %t = pypto.tile.load %ws2[%c0, %c0] : !pypto.tensor<[?, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    %o2 = pypto.tile.store %t, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
}

// WARN: warning: expand-mixed-kernel: @sized mixes cube and vector ops but stays incore: a workspace both cores use has a size computed in the kernel; the group can only size it from its parameters; at `%ws = pypto.tensor.create(%n2) : !pypto.tensor<[?, 16], f32>`
// CHECK: pypto.func incore @sized(

// -----

builtin.module {
  pypto.func incore @lanes(%a: !pypto.tensor<[16, 16], f16>, %b: !pypto.tensor<[16, 16], f32>) {
    %c0 = arith.constant 0 : index
    %v = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    pypto.split_aiv up_down (%lane : index) {
      %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    }
    pypto.return
  }
}

// WARN: warning: expand-mixed-kernel: @lanes mixes cube and vector ops but stays incore: a pypto.split_aiv region holds cube ops (its lanes are the AIV cores); at `pypto.split_aiv up_down (%lane: index) { ... }`
// CHECK: pypto.func incore @lanes(

// -----

builtin.module {
  pypto.func incore @neither(%a: !pypto.tensor<[16, 16], f32>, %m: !pypto.tensor<[16, 16], f16>, %buf: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %buf[%c0] : memref<4xf32>
    %mm = pypto.tile.load %m[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %v = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    pypto.return
  }
}

// WARN: warning: expand-mixed-kernel: @neither mixes cube and vector ops but stays incore: 'memref.store' writes memory but belongs to neither core (it would run twice); at `memref.store %one, %buf[%c0] : memref<4xf32>`
// CHECK: pypto.func incore @neither(

// -----

builtin.module {
  pypto.func incore @from_bias(%a: !pypto.tensor<[1, 16], f32>, out %o: !pypto.tensor<[1, 16], f32>) -> !pypto.tensor<[1, 16], f32> {
    %c0 = arith.constant 0 : index
    %b = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[1, 16], f32> -> !pypto.tile<[1, 16], f32, bias>
    %v = pypto.tile.move %b : !pypto.tile<[1, 16], f32, bias> -> !pypto.tile<[1, 16], f32, vec>
    %o2 = pypto.tile.store %v, %o[%c0, %c0] : !pypto.tile<[1, 16], f32, vec>, !pypto.tensor<[1, 16], f32>
    pypto.return %o2 : !pypto.tensor<[1, 16], f32>
  }
}

// A c2v ring pushes from L0C or L1 only (found by make fuzz: the pushed bias tile failed the
// cross_core verifier instead of the kernel staying incore).
// WARN: warning: expand-mixed-kernel: @from_bias mixes cube and vector ops but stays incore: 'pypto.tile.move' moves a 'bias' tile to the vector core: only 'acc' and 'mat' tiles cross from the cube core; at `%v = pypto.tile.move %b
// CHECK: pypto.func incore @from_bias(
// STRICT: expand-mixed-kernel: cannot split @from_bias into an aic and an aiv kernel: 'pypto.tile.move' moves a 'bias' tile to the vector core
