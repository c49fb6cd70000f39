// RUN: pypto-opt %s -p pypto-default | filecheck %s

// inline-functions runs first in the default pipeline: the helper is spliced before
// outline-incore-scopes looks at the orchestration function, so the scope that came from
// the helper is outlined like one written at the call site.
// The default pipeline ends with expand-mixed-kernel, which makes the vector-only kernels aiv.
builtin.module {
  pypto.func inline @helper(%x: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
    %r = pypto.incore_scope -> (!pypto.tensor<[16], f32>) {
      %y = pypto.tensor.add %x, %x : !pypto.tensor<[16], f32>
      pypto.yield %y : !pypto.tensor<[16], f32>
    }
    pypto.return %r : !pypto.tensor<[16], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
    %z = pypto.call @helper(%a) : (!pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32>
    pypto.return %z : !pypto.tensor<[16], f32>
  }
}
// CHECK-NOT:  pypto.func inline
// CHECK-NOT:  @helper
// CHECK:      pypto.func orchestration @main(%a: !pypto.tensor<[16], f32>)
// CHECK-NEXT:   %r_inline0 = pypto.call @[[K:[a-z_0-9]+]](%a)
// CHECK-NOT:  pypto.incore_scope
// CHECK:      pypto.func aiv @[[K]](
// CHECK-NEXT:   %y_inline0 = pypto.tensor.create
// CHECK:        %y_inline0_tile = pypto.tile.add
// CHECK-NOT:  @helper
