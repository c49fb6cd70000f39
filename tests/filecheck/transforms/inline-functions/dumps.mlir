// RUN: pypto-opt %s -p inline-functions | filecheck %s

// A call's dump selection (`pl.dump_tag`) follows into the spliced body: scopes whose body
// reads a dumped value, and calls/submits whose arguments use one, get it added to their
// `dumps` (existing entries first, no duplicates). A dumped tensor is followed through
// write-through results that alias it (`assemble`, `store`). Nested inline calls receive the
// selection too and pass it on when they are spliced. Unconsumed selections are dropped.
builtin.module {
  pypto.func incore @k(%t: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
    pypto.return %t : !pypto.tensor<[16], f32>
  }
  pypto.func inline @leaf(%y: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
    %s, %tid = pypto.submit @k(%y) : (!pypto.tensor<[16], f32>) -> (!pypto.tensor<[16], f32>)
    pypto.return %s : !pypto.tensor<[16], f32>
  }
  pypto.func inline @helper(%x: !pypto.tensor<[16], f32>, %o: !pypto.tensor<[16], f32>, %other: !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32> {
    %c0 = arith.constant 0 : index
    %r = pypto.incore_scope -> (!pypto.tensor<[16], f32>) {
      %e = pypto.tensor.exp %x : !pypto.tensor<[16], f32>
      pypto.yield %e : !pypto.tensor<[16], f32>
    }
    %w = pypto.tensor.assemble %r into %o[%c0] : !pypto.tensor<[16], f32> into !pypto.tensor<[16], f32>
    %c1 = pypto.call @k(%w) dumps(%other : !pypto.tensor<[16], f32>) : (!pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32>
    %c2 = pypto.call @k(%other) : (!pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32>
    %c3 = pypto.call @leaf(%x) : (!pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32>
    pypto.return %c3 : !pypto.tensor<[16], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[16], f32>, %b: !pypto.tensor<[16], f32>, %c: !pypto.tensor<[16], f32>) {
    %r = pypto.call @helper(%a, %b, %c) dumps(%a, %b : !pypto.tensor<[16], f32>, !pypto.tensor<[16], f32>) : (!pypto.tensor<[16], f32>, !pypto.tensor<[16], f32>, !pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32>
    pypto.return
  }
}
// CHECK:      %r_inline0 = pypto.incore_scope dumps(%a : !pypto.tensor<[16], f32>) -> (!pypto.tensor<[16], f32>) {
// CHECK:      %w_inline0 = pypto.tensor.assemble %r_inline0 into %b[%c0_inline0]
// CHECK-NEXT: %c1_inline0 = pypto.call @k(%w_inline0) dumps(%c, %w_inline0 : !pypto.tensor<[16], f32>, !pypto.tensor<[16], f32>)
// CHECK-NEXT: %c2_inline0 = pypto.call @k(%c) : (!pypto.tensor<[16], f32>) -> !pypto.tensor<[16], f32>
// CHECK-NEXT: %s_inline1, %tid_inline1 = pypto.submit @k(%a) dumps(%a : !pypto.tensor<[16], f32>)
// CHECK-NEXT: pypto.return
