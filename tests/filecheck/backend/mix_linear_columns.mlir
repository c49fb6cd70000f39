// RUN: pypto-opt %s -t ascendc | filecheck %s
// mix_linear.mlir's group with `split(left_right)` (pl.split(pl.SplitMode.LEFT_RIGHT)): the
// vector member is split between the two AIVs by columns. Each copies its 32 of the 64
// columns of the ring slot (a strided copy: 64 rows of 32 floats, the slot's row length
// apart), and of the bias row, and stores them into its columns of y.

builtin.module {
  pypto.func aic @linear_aic(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) {
    %c0 = arith.constant 0 : index
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
    %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, right>
    %acc = pypto.tile.matmul %al, %br : !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 64], f16, right>
    pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[64, 64], f32, acc>
    pypto.return
  }
  pypto.func aiv @linear_aiv(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    %c0 = arith.constant 0 : index
    %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[64, 64], f32, vec>
    %bt = pypto.tile.load %bias[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
    %s = pypto.tile.col_expand_add %v, %bt : !pypto.tile<[64, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
    %r = pypto.tile.relu %s : !pypto.tile<[64, 64], f32, vec>
    %y2 = pypto.tile.store %r, %y[%c0, %c0] : !pypto.tile<[64, 64], f32, vec>, !pypto.tensor<[64, 64], f32>
    pypto.return %y2 : !pypto.tensor<[64, 64], f32>
  }
  pypto.func group @linear(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> attributes {split = #pypto<split left_right>} {
    pypto.call @linear_aic(%a, %b, %bias, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>, !pypto.tensor<[64, 64], f32>) -> ()
    %y2 = pypto.call @linear_aiv(%a, %b, %bias, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
    pypto.return %y2 : !pypto.tensor<[64, 64], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, %bias: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    %r = pypto.call @linear(%a, %b, %bias, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
    pypto.return %r : !pypto.tensor<[64, 64], f32>
  }
}

// CHECK:      // Ascend C MIX kernel for group @linear (one AIC and two AIVs per block)
// CHECK:      __aicore__ inline void linear_aiv(
// CHECK:        TQue<TPosition::VECIN, 1> inQ_v;  // %v !pypto.tile<[64, 32], f32, vec>
// CHECK-NEXT:   TQue<TPosition::VECIN, 1> inQ_bt;  // %bt !pypto.tile<[1, 32], f32, vec>
// CHECK:        CrossCoreWaitFlag<2, PIPE_S>(0);
// CHECK-NEXT:   const int64_t [[COL:v_[0-9]+]] = AscendC::GetSubBlockIdx() * 32;
// CHECK-NEXT:   LocalTensor<float> v = {{.*}}.AllocTensor<float>();
// CHECK-NEXT:   DataCopy(v, c2v_ring_gm[[[COL]]], DataCopyParams(64, 4, 4, 0));
// CHECK:        DataCopy(bt, bias_gm[[[COL]]], 32);
// CHECK:        DataCopy(y_gm[[[COL]]], r, DataCopyParams(64, 4, 0, 4));
// CHECK:      KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
