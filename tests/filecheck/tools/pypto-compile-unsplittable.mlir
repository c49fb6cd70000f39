// RUN: not pypto-compile %s -o %t 2>&1 | filecheck %s
// RUN: not pypto-compile %s -p pypto-default -o %t 2>&1 | filecheck %s --check-prefix=WARNED
// RUN: not pypto-opt %s -p 'pypto-default{strict-mixed=true}' 2>&1 | filecheck %s --check-prefix=STRICT

// A mixed kernel expand-mixed-kernel cannot split (the cube fills a tile with a scalar the
// vector core read) gets one diagnostic from pypto-compile: the pass's reason, as an error
// (its default pipeline is pypto-default{strict-mixed=true}). With plain pypto-default the
// pass warns and the backend's error repeats the reason.

builtin.module {
  pypto.func incore @scalar(%a: !pypto.tensor<[16, 16], f32>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    %x = pypto.tile.read %t[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>
    %f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>
    %o2 = pypto.tile.store %f, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %o = pypto.tensor.create : !pypto.tensor<[16, 16], f32>
    %r = pypto.call @scalar(%a, %o) : (!pypto.tensor<[16, 16], f32>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
    pypto.return %r : !pypto.tensor<[16, 16], f32>
  }
}

// CHECK-NOT: warning
// CHECK:     pypto-compile-unsplittable.mlir:11:3: error: expand-mixed-kernel: cannot split @scalar into an aic and an aiv kernel: 'pypto.tile.full' runs on the cube (AIC) core but uses %x, which the vector (AIV) core computes; only tiles cross (tile.move); at `%f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>`
// CHECK-NOT: error

// WARNED:      warning: expand-mixed-kernel: @scalar mixes cube and vector ops but stays incore: 'pypto.tile.full' runs on the cube (AIC) core
// WARNED-NEXT: pypto-compile-unsplittable.mlir:11:3: error: ascendc: cannot lower @scalar: it mixes cube and vector ops and expand-mixed-kernel cannot split it: 'pypto.tile.full' runs on the cube (AIC) core but uses %x, which the vector (AIV) core computes; only tiles cross (tile.move); at `%f = pypto.tile.full %x : f32 -> !pypto.tile<[16, 16], f32, acc>`

// STRICT: expand-mixed-kernel: cannot split @scalar into an aic and an aiv kernel: 'pypto.tile.full' runs on the cube (AIC) core
