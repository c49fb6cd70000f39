// RUN: pypto-opt %s --split-input-file -p expand-mixed-kernel,verify-expand-mixed-kernel | filecheck %s

// Data crossing through global memory: the cube stores the product into a workspace the
// kernel created and the vector loads it back (what convert-tensor-to-tile makes of a
// tensor-level matmul with an epilogue). The workspace moves to the group, both parts take
// it as an inout parameter, and a flag orders the store before the load.

builtin.module {
  pypto.func incore @mm_relu(%a: !pypto.tensor<[32, 32], f16>, out %o: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
    %c0 = arith.constant 0 : index
    %ws = pypto.tensor.create : !pypto.tensor<[32, 32], f32>
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 32], f16> -> !pypto.tile<[32, 32], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, left>
    %ar = pypto.tile.move %am : !pypto.tile<[32, 32], f16, mat> -> !pypto.tile<[32, 32], f16, right>
    %acc = pypto.tile.matmul %al, %ar : !pypto.tile<[32, 32], f16, left>, !pypto.tile<[32, 32], f16, right>
    %ws2 = pypto.tile.store %acc, %ws[%c0, %c0] : !pypto.tile<[32, 32], f32, acc>, !pypto.tensor<[32, 32], f32>
    %t = pypto.tile.load %ws2[%c0, %c0] : !pypto.tensor<[32, 32], f32> -> !pypto.tile<[32, 32], f32, vec>
    %r = pypto.tile.relu %t : !pypto.tile<[32, 32], f32, vec>
    %o2 = pypto.tile.store %r, %o[%c0, %c0] : !pypto.tile<[32, 32], f32, vec>, !pypto.tensor<[32, 32], f32>
    pypto.return %o2 : !pypto.tensor<[32, 32], f32>
  }
}

// CHECK-LABEL: pypto.func aic @mm_relu_aic(%a: !pypto.tensor<[32, 32], f16>, out %o: !pypto.tensor<[32, 32], f32>, inout %ws: !pypto.tensor<[32, 32], f32>) {
// CHECK:         %ws2 = pypto.tile.store %acc, %ws[%c0, %c0] : !pypto.tile<[32, 32], f32, acc>, !pypto.tensor<[32, 32], f32>
// CHECK-NEXT:    pypto.cross_core.set_flag to aiv
// CHECK-NEXT:    pypto.return
// CHECK-LABEL: pypto.func aiv @mm_relu_aiv(%a: !pypto.tensor<[32, 32], f16>, out %o: !pypto.tensor<[32, 32], f32>, inout %ws: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    pypto.cross_core.wait_flag from aic
// CHECK-NEXT:    %t = pypto.tile.load %ws[%c0, %c0] : !pypto.tensor<[32, 32], f32> -> !pypto.tile<[32, 32], f32, vec>
// CHECK-LABEL: pypto.func group @mm_relu(%a: !pypto.tensor<[32, 32], f16>, out %o: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
// CHECK-NEXT:    %ws = pypto.tensor.create : !pypto.tensor<[32, 32], f32>
// CHECK-NEXT:    pypto.call @mm_relu_aic(%a, %o, %ws) : (!pypto.tensor<[32, 32], f16>, !pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 32], f32>) -> ()
// CHECK-NEXT:    %o2 = pypto.call @mm_relu_aiv(%a, %o, %ws) : (!pypto.tensor<[32, 32], f16>, !pypto.tensor<[32, 32], f32>, !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32>
// CHECK-NEXT:    pypto.return %o2 : !pypto.tensor<[32, 32], f32>

// -----

// In a loop, one workspace is rewritten every iteration: the vector's load must wait for the
// cube's store (c2v flag), and the cube's next store for the vector's load (v2c flag, set
// and waited for at the top of every iteration: in the first one it orders nothing, and both
// parts still run it equally often). The row written to %o is disjoint per iteration, so it
// needs no flag; nor does %a, which nothing writes.

builtin.module {
  pypto.func incore @rows(%a: !pypto.tensor<[64, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>) -> !pypto.tensor<[64, 16], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %ws = pypto.tensor.create : !pypto.tensor<[16, 16], f32>
    %o_end = scf.for %i = %c0 to %c4 step %c1 iter_args(%o_i = %o) -> (!pypto.tensor<[64, 16], f32>) {
      %row = arith.muli %i, %c16 : index
      %am = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[64, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
      %ar = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
      %acc = pypto.tile.matmul %al, %ar : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
      %ws2 = pypto.tile.store %acc, %ws[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
      %t = pypto.tile.load %ws2[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
      %e = pypto.tile.exp %t : !pypto.tile<[16, 16], f32, vec>
      %o_next = pypto.tile.store %e, %o_i[%row, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[64, 16], f32>
      scf.yield %o_next : !pypto.tensor<[64, 16], f32>
    }
    pypto.return %o_end : !pypto.tensor<[64, 16], f32>
  }
}

// CHECK-LABEL: pypto.func aic @rows_aic(
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %row = arith.muli %i, %c16 : index
// CHECK-NEXT:      %am = pypto.tile.load %a[%row, %c0]
// CHECK:           %acc = pypto.tile.matmul %al, %ar
// CHECK-NEXT:      pypto.cross_core.wait_flag from aiv
// CHECK-NEXT:      %ws2 = pypto.tile.store %acc, %ws[%c0, %c0]
// CHECK-NEXT:      pypto.cross_core.set_flag to aiv
// CHECK-NEXT:    }
// CHECK-LABEL: pypto.func aiv @rows_aiv(
// CHECK:         %o_end = scf.for %i = %c0 to %c4 step %c1 iter_args(%o_i = %o) -> (!pypto.tensor<[64, 16], f32>) {
// CHECK-NEXT:      %row = arith.muli %i, %c16 : index
// CHECK-NEXT:      pypto.cross_core.set_flag to aic
// CHECK-NEXT:      pypto.cross_core.wait_flag from aic
// CHECK-NEXT:      %t = pypto.tile.load %ws[%c0, %c0]
// CHECK-NEXT:      %e = pypto.tile.exp %t
// CHECK-NEXT:      %o_next = pypto.tile.store %e, %o_i[%row, %c0]
// CHECK-NEXT:      scf.yield %o_next
// CHECK-LABEL: pypto.func group @rows(
// CHECK-NEXT:    %ws = pypto.tensor.create : !pypto.tensor<[16, 16], f32>

// -----

// The other direction: the vector writes a tensor the cube then reads (a v2c flag), and a
// parameter both only read needs none.

builtin.module {
  pypto.func incore @v2c(%a: !pypto.tensor<[16, 16], f32>, %w: !pypto.tensor<[16, 16], f16>, inout %tmp: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %x = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
    %h = pypto.tile.cast %x : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
    %tmp2 = pypto.tile.store %h, %tmp[%c0, %c0] : !pypto.tile<[16, 16], f16, vec>, !pypto.tensor<[16, 16], f16>
    %hm = pypto.tile.load %tmp2[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %wm = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %hl = pypto.tile.move %hm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %wr = pypto.tile.move %wm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %acc = pypto.tile.matmul %hl, %wr : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    %o2 = pypto.tile.store %acc, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[16, 16], f32>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
}

// CHECK-LABEL: pypto.func aic @v2c_aic(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    pypto.cross_core.wait_flag from aiv
// CHECK-NEXT:    %hm = pypto.tile.load %tmp[%c0, %c0]
// CHECK-NEXT:    %wm = pypto.tile.load %w[%c0, %c0]
// CHECK-NOT:     flag
// CHECK:         pypto.return
// CHECK-LABEL: pypto.func aiv @v2c_aiv(
// CHECK:         %tmp2 = pypto.tile.store %h, %tmp[%c0, %c0]
// CHECK-NEXT:    pypto.cross_core.set_flag to aic
// CHECK-NEXT:    pypto.return %o : !pypto.tensor<[16, 16], f32>
