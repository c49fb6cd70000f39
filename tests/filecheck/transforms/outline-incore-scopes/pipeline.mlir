// RUN: pypto-opt %s -p pypto-default | filecheck %s
// RUN: pypto-opt %s -p pypto-default | pypto-opt | filecheck %s
// RUN: pypto-opt %s -p pypto-default | filecheck %s --check-prefix=GONE
// GONE checks the whole output: the helper (printed first if it survived) and every scope are gone.
// GONE-NOT: pypto.func inline
// GONE-NOT: pypto.incore_scope

// pypto-default: inline-functions splices the helper (and its named scope) at both call
// sites, then outline-incore-scopes outlines each copy: the second copy of the hint
// "fused" collides in-function and becomes fused_0. The written buffers become out
// parameters returned as themselves.
// The default pipeline ends with expand-mixed-kernel, which makes the vector-only kernels aiv.

builtin.module {
  pypto.func inline @helper(%a: !pypto.tensor<[8], f32>, out %o: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %r = pypto.incore_scope name("fused") -> (!pypto.tensor<[8], f32>) {
      %c0 = arith.constant 0 : index
      %t = pypto.tile.load %a[%c0] : !pypto.tensor<[8], f32> -> !pypto.tile<[8], f32, vec>
      %e = pypto.tile.exp %t : !pypto.tile<[8], f32, vec>
      %s = pypto.tile.store %e, %o[%c0] : !pypto.tile<[8], f32, vec>, !pypto.tensor<[8], f32>
      pypto.yield %s : !pypto.tensor<[8], f32>
    }
    pypto.return %r : !pypto.tensor<[8], f32>
  }
  pypto.func @main(%x: !pypto.tensor<[8], f32>, out %y: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %tmp = pypto.tensor.create : !pypto.tensor<[8], f32>
    %a = pypto.call @helper(%x, %tmp) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
    %b = pypto.call @helper(%a, %y) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
    pypto.return %b : !pypto.tensor<[8], f32>
  }
}

// CHECK:       pypto.func orchestration @main(%x: !pypto.tensor<[8], f32>, out %y: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK-NEXT:    %tmp = pypto.tensor.create
// CHECK-NEXT:    %[[A:.*]] = pypto.call @fused(%x, %tmp)
// CHECK-NEXT:    %[[B:.*]] = pypto.call @fused_0(%[[A]], %y)
// CHECK-NEXT:    pypto.return %[[B]]
// CHECK-NEXT:  }
// CHECK-NEXT:  pypto.func aiv @fused(%x: !pypto.tensor<[8], f32>, out %tmp: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK:         pypto.return %tmp
// CHECK:       pypto.func aiv @fused_0(%{{.*}}: !pypto.tensor<[8], f32>, out %y: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
// CHECK:         pypto.return %y
