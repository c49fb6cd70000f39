// RUN: pypto-opt %s -p split-vector-member | filecheck %s
// RUN: pypto-opt %s -p split-vector-member 2>&1 >/dev/null | filecheck %s --check-prefix=QUIET --allow-empty

// An f32 column sum in a group whose scope did not ask for a split: the default row split
// would need an exchange of partial results (cross_split_reduction.mlir), which costs more
// than the halving saves, so the member stays on one AIV (task_ratio = 1), unchanged, and
// the pass says nothing (it warns only where the scope asked for the split).

builtin.module {
  pypto.func aic @colsum_aic(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[1, 64], f32>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) {
    %c0 = arith.constant 0 : index
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
    %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, right>
    %acc = pypto.tile.matmul %al, %br : !pypto.tile<[64, 32], f16, left>, !pypto.tile<[32, 64], f16, right>
    %0 = arith.constant 0 : index
    %1 = arith.constant 0 : index
    pypto.cross_core.wait_flag from aiv id(1)
    %2 = pypto.tile.store %acc, %c2v_ring[%0, %1] : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[128, 64], f32>
    pypto.cross_core.set_flag to aiv id(0)
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.cross_core.wait_flag from aiv id(1)
    pypto.return
  }
  pypto.func aiv @colsum_aiv(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[1, 64], f32>, inout %c2v_ring: !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
    pypto.cross_core.set_flag to aic id(1)
    pypto.cross_core.set_flag to aic id(1)
    %c0 = arith.constant 0 : index
    %0 = arith.constant 0 : index
    %1 = arith.constant 0 : index
    pypto.cross_core.wait_flag from aic id(0)
    %v = pypto.tile.load %c2v_ring[%0, %1] : !pypto.tensor<[128, 64], f32> -> !pypto.tile<[64, 64], f32, vec>
    pypto.cross_core.set_flag to aic id(1)
    %s = pypto.tile.col_sum %v : !pypto.tile<[64, 64], f32, vec>
    %y2 = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 64], f32>
    pypto.return %y2 : !pypto.tensor<[1, 64], f32>
  }
  pypto.func group @colsum(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
    %c2v_ring = pypto.tensor.create : !pypto.tensor<[128, 64], f32>
    pypto.call @colsum_aic(%a, %b, %y, %c2v_ring) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>, !pypto.tensor<[128, 64], f32>) -> ()
    %y2 = pypto.call @colsum_aiv(%a, %b, %y, %c2v_ring) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>, !pypto.tensor<[128, 64], f32>) -> !pypto.tensor<[1, 64], f32>
    pypto.return %y2 : !pypto.tensor<[1, 64], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 32], f16>, %b: !pypto.tensor<[32, 64], f16>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
    %r = pypto.call @colsum(%a, %b, %y) : (!pypto.tensor<[64, 32], f16>, !pypto.tensor<[32, 64], f16>, !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32>
    pypto.return %r : !pypto.tensor<[1, 64], f32>
  }
}


// WARN: warning: split-vector-member: group @colsum asks for split(up_down), but its vector member runs on one AIV (KERNEL_TYPE_MIX_AIC_1_1): 'pypto.tile.col_sum' reduces across the split dimension in f16: two partial results rounded to it would not add up to the whole reduction
// CHECK:      pypto.func aiv @colsum_aiv(
// CHECK-NOT:    get_subblock_idx
// CHECK-NOT:    among aiv
// CHECK:        pypto.tile.col_sum %{{.*}} : !pypto.tile<[64, 64], f32, vec>
// CHECK:      pypto.func group @colsum({{.*}} attributes {task_ratio = 1 : i64} {

// QUIET-NOT: warning
