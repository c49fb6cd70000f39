// RUN: pypto-opt %s -p convert-pypto-to-ascendc | filecheck %s

// The two members of a MIX kernel share each block's part of the launch workspace: the
// group's ring is at one offset in both, and a tensor only one member creates (the cube's
// staged product %tmp, the AIVs' exchanged %partials) has bytes no tensor of the other member
// uses. Both members and the launch declare the same per-block size.

// CHECK:      ascendc.kernel cube @chain_aic({{.*}}workspace = 49664 : i64, group = "chain"}
// CHECK:        ascendc.block_workspace "block_ws" %workspace bytes 49664 :
// CHECK-NEXT:   ascendc.global_tensor "c2v_ring_gm" %block_ws offset 0 size 8192 {comment = "%c2v_ring !pypto.tensor<[128, 64], f32>, workspace bytes [0, 32768)"}
// CHECK-NEXT:   ascendc.global_tensor "tmp_gm" %block_ws offset 32768 size 4096 {comment = "%tmp !pypto.tensor<[64, 64], f32>, workspace bytes [32768, 49152)"}
// CHECK:      ascendc.kernel vector @chain_aiv({{.*}}workspace = 49664 : i64, group = "chain"}
// CHECK:        ascendc.block_workspace "block_ws" %workspace bytes 49664 task_ratio 2 :
// CHECK-NEXT:   ascendc.global_tensor "c2v_ring_gm" %block_ws offset 0 size 8192
// CHECK-NEXT:   ascendc.global_tensor "partials_gm" %block_ws offset 49152 size 128 {comment = "%partials !pypto.tensor<[2, 64], f32>, workspace bytes [49152, 49664)"}
// CHECK:      ascendc.kernel mix @chain({{.*}}workspace = 49664 : i64, sync = "explicit", task_ratio = 2 : i64}

builtin.module {
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 256], f16>, %c: !pypto.tensor<[64, 64], f32>, out %colsum: !pypto.tensor<[1, 256], f32>) -> !pypto.tensor<[1, 256], f32> {
    %colsum_1 = pypto.call @chain(%colsum, %a, %b, %c) : (!pypto.tensor<[1, 256], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 256], f16>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[1, 256], f32>
    pypto.return %colsum_1 : !pypto.tensor<[1, 256], f32>
  }
  pypto.func aic @chain_aic(out %colsum: !pypto.tensor<[1, 256], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 256], f16>, %c: !pypto.tensor<[64, 64], f32>) attributes {split = #pypto<split up_down>} {
    %tmp = pypto.tensor.create : !pypto.tensor<[64, 64], f32>
    %0 = arith.constant 4 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    %tmp_1 = scf.for %n = %1 to %0 step %2 iter_args(%tmp_2 = %tmp) -> (!pypto.tensor<[64, 64], f32>) {
      %3 = arith.constant 0 : index
      %am = pypto.tile.load %a[%3, %3] : !pypto.tensor<[64, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
      %4 = arith.constant 64 : index
      %5 = arith.muli %n, %4 : index
      %bm = pypto.tile.load %b[%3, %5] : !pypto.tensor<[64, 256], f16> -> !pypto.tile<[64, 64], f16, mat>
      %6 = pypto.tile.move %am : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
      %7 = pypto.tile.move %bm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
      %acc = pypto.tile.matmul %6, %7 : !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
      %tmp_3 = pypto.tile.store %acc, %tmp_2[%3, %3] : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[64, 64], f32>
      %tm = pypto.tile.load %tmp_3[%3, %3] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, mat>
      %cm = pypto.tile.load %c[%3, %3] : !pypto.tensor<[64, 64], f32> -> !pypto.tile<[64, 64], f32, mat>
      %8 = pypto.tile.move %tm : !pypto.tile<[64, 64], f32, mat> -> !pypto.tile<[64, 64], f32, left>
      %9 = pypto.tile.move %cm : !pypto.tile<[64, 64], f32, mat> -> !pypto.tile<[64, 64], f32, right>
      %acc2 = pypto.tile.matmul %8, %9 : !pypto.tile<[64, 64], f32, left>, !pypto.tile<[64, 64], f32, right>
      pypto.cross_core.push %acc2 to aiv slots(2) : !pypto.tile<[64, 64], f32, acc>
      scf.yield %tmp_3 : !pypto.tensor<[64, 64], f32>
    }
    pypto.return
  }
  pypto.func aiv @chain_aiv(out %colsum: !pypto.tensor<[1, 256], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 256], f16>, %c: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[1, 256], f32> attributes {split = #pypto<split up_down>} {
    %0 = arith.constant 4 : index
    %1 = arith.constant 0 : index
    %2 = arith.constant 1 : index
    %colsum_1 = scf.for %n = %1 to %0 step %2 iter_args(%colsum_2 = %colsum) -> (!pypto.tensor<[1, 256], f32>) {
      %3 = arith.constant 0 : index
      %4 = arith.constant 64 : index
      %5 = arith.muli %n, %4 : index
      %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[64, 64], f32, vec>
      %6 = pypto.tile.col_sum %v : !pypto.tile<[64, 64], f32, vec>
      %colsum_3 = pypto.tile.store %6, %colsum_2[%3, %5] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 256], f32>
      scf.yield %colsum_3 : !pypto.tensor<[1, 256], f32>
    }
    pypto.return %colsum : !pypto.tensor<[1, 256], f32>
  }
  pypto.func group @chain(out %colsum: !pypto.tensor<[1, 256], f32>, %a: !pypto.tensor<[64, 64], f16>, %b: !pypto.tensor<[64, 256], f16>, %c: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[1, 256], f32> attributes {split = #pypto<split up_down>} {
    pypto.call @chain_aic(%colsum, %a, %b, %c) : (!pypto.tensor<[1, 256], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 256], f16>, !pypto.tensor<[64, 64], f32>) -> ()
    %colsum_1 = pypto.call @chain_aiv(%colsum, %a, %b, %c) : (!pypto.tensor<[1, 256], f32>, !pypto.tensor<[64, 64], f16>, !pypto.tensor<[64, 256], f16>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[1, 256], f32>
    pypto.return %colsum_1 : !pypto.tensor<[1, 256], f32>
  }
}
