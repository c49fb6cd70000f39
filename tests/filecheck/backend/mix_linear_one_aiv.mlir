// RUN: pypto-opt %s -t ascendc | filecheck %s
// RUN: pypto-opt %s -t ascendc 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// A MIX kernel whose vector member cannot be split over the two AIVs of a core group: its
// epilogue sums the product's columns in f16 (a reduction across the rows a split would
// halve, whose f16 partial sums would not add up to the whole sum; an f32 sum is split), so
// it runs on one AIV (KERNEL_TYPE_MIX_AIC_1_1, GetBlockIdx() and whole tiles, as before).
// The scope asked for split(up_down): the backend says why it is not honoured.

builtin.module {
  pypto.func aic @colsum_aic(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[1, 64], f32>) attributes {split = #pypto<split up_down>} {
    %c0 = arith.constant 0 : index
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
    %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, right>
    %acc = pypto.tile.matmul %al, %br : !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 64], f16, right>
    pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[64, 64], f32, acc>
    pypto.return
  }
  pypto.func aiv @colsum_aiv(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> attributes {split = #pypto<split up_down>} {
    %c0 = arith.constant 0 : index
    %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[64, 64], f32, vec>
    %h = pypto.tile.cast %v : !pypto.tile<[64, 64], f32, vec> -> !pypto.tile<[64, 64], f16, vec>
    %s16 = pypto.tile.col_sum %h : !pypto.tile<[64, 64], f16, vec> -> !pypto.tile<[1, 64], f16, vec>
    %s = pypto.tile.cast %s16 : !pypto.tile<[1, 64], f16, vec> -> !pypto.tile<[1, 64], f32, vec>
    %y2 = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 64], f32>
    pypto.return %y2 : !pypto.tensor<[1, 64], f32>
  }
  pypto.func group @colsum(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> attributes {split = #pypto<split up_down>} {
    pypto.call @colsum_aic(%a, %b, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>) -> ()
    %y2 = pypto.call @colsum_aiv(%a, %b, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32>
    pypto.return %y2 : !pypto.tensor<[1, 64], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
    %r = pypto.call @colsum(%a, %b, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32>
    pypto.return %r : !pypto.tensor<[1, 64], f32>
  }
}

// WARN:       warning: split-vector-member: group @colsum asks for split(up_down), but its vector member runs on one AIV (KERNEL_TYPE_MIX_AIC_1_1): 'pypto.tile.col_sum' reduces across the split dimension in f16
// CHECK:      // Ascend C MIX kernel for group @colsum (one AIC and one AIV per block)
// CHECK:      __aicore__ inline void colsum_aiv(
// CHECK:        GM_ADDR block_ws = workspace + AscendC::GetBlockIdx() * 32768;
// CHECK-NOT:    GetSubBlockIdx
// CHECK:        DataCopy(v, c2v_ring_gm, 4096);
// CHECK:      KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
// CHECK:      return pypto_sim::launch_mix("colsum", blockDim, stream, [&] {
// CHECK:        }, 1);
