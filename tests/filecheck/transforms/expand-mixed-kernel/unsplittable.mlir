// RUN: pypto-opt %s --split-input-file -p expand-mixed-kernel 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: pypto-opt %s --split-input-file -p expand-mixed-kernel 2>/dev/null | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'expand-mixed-kernel{strict=true}' --verify-diagnostics | filecheck %s --check-prefix=STRICT

// Mixed kernels that cannot be split stay incore, with a warning naming the reason (the
// Ascend C backend then refuses them); with strict=true the pass fails instead.

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

// WARN: warning: expand-mixed-kernel: @scalar mixes cube and vector ops but stays incore: 'pypto.tile.full' runs on the cube (AIC) core but uses %x, which the vector (AIV) core computes; only tiles cross (tile.move)
// CHECK: pypto.func incore @scalar(
// STRICT: expand-mixed-kernel: @scalar mixes cube and vector ops but stays incore: 'pypto.tile.full' runs on the cube (AIC) core but uses %x

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

// WARN: warning: expand-mixed-kernel: @bound mixes cube and vector ops but stays incore: 'scf.for' holds ops of both cores, but its trip count is computed on the vector (AIV) core only: both cores must be able to compute it
// CHECK: pypto.func incore @bound(
// STRICT: @bound mixes cube and vector ops but stays incore: 'scf.for' holds ops of both cores

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

// WARN: warning: expand-mixed-kernel: @tensor_level mixes cube and vector ops but stays incore: 'pypto.tensor.relu' runs on the vector (AIV) core but uses %p, which the cube (AIC) core computes (tensor-level compute crosses cores only through a tensor in global memory: convert-tensor-to-tile did not lower it)
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

// WARN: warning: expand-mixed-kernel: @loop_workspace mixes cube and vector ops but stays incore: a workspace (pypto.tensor.create) made inside a loop or branch is used by both cores; create it at the kernel's top level
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

// WARN: warning: expand-mixed-kernel: @while mixes cube and vector ops but stays incore: an scf.while holds ops of both cores: only scf.for loops and scf.if branches are split

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

// WARN: warning: expand-mixed-kernel: @calls mixes cube and vector ops but stays incore: 'pypto.call' inside a kernel: calls cannot be given one core
// WARN-NOT: @call_alone
// CHECK: pypto.func incore @calls(
// CHECK: pypto.func aiv @call_alone(
