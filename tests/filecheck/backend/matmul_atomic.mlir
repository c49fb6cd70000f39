// RUN: pypto-opt %s -t ascendc | filecheck %s
// Split-K: each of the 2 blocks multiplies one 64-wide K slice and adds its partial product into
// C with an atomic store of the accumulator: SetAtomicAdd<float>() before the Fixpipe,
// SetAtomicNone() after it. C is zeroed by a vector kernel first.

pypto.func aiv @zero(out %c: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %z = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 32], f32, vec>
  %w = pypto.tile.store %z, %c[%c0, %c0] : !pypto.tile<[32, 32], f32, vec>, !pypto.tensor<[32, 32], f32>
  pypto.return %w : !pypto.tensor<[32, 32], f32>
}

pypto.func aic @split_k(%a: !pypto.tensor<[32, 128], f32>, %b: !pypto.tensor<[128, 32], f32>, out %c: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %blk = pypto.tile.get_block_idx : index
  %k = arith.muli %blk, %c64 : index
  %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[32, 128], f32> -> !pypto.tile<[32, 64], f32, mat>
  %bm = pypto.tile.load %b[%k, %c0] : !pypto.tensor<[128, 32], f32> -> !pypto.tile<[64, 32], f32, mat>
  %al = pypto.tile.move %am : !pypto.tile<[32, 64], f32, mat> -> !pypto.tile<[32, 64], f32, left>
  %br = pypto.tile.move %bm : !pypto.tile<[64, 32], f32, mat> -> !pypto.tile<[64, 32], f32, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[32, 64], f32, left>, !pypto.tile<[64, 32], f32, right> -> !pypto.tile<[32, 32], f32, acc>
  %w = pypto.tile.atomic_store %acc, %c[%c0, %c0] atomic(add) : !pypto.tile<[32, 32], f32, acc>, !pypto.tensor<[32, 32], f32>
  pypto.return %w : !pypto.tensor<[32, 32], f32>
}

pypto.func orchestration @main(%a: !pypto.tensor<[32, 128], f32>, %b: !pypto.tensor<[128, 32], f32>, out %c: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
  %z = pypto.call @zero(%c) : (!pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32>
  %r = pypto.call @split_k(%a, %b, %z) {pypto.block_dim = 2 : i64} : (!pypto.tensor<[32, 128], f32>, !pypto.tensor<[128, 32], f32>, !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32>
  pypto.return %r : !pypto.tensor<[32, 32], f32>
}

// CHECK-LABEL: // ===== file: kernels/split_k.cpp =====
// CHECK:      Mmad(acc, al, br, acc_mmad);
// CHECK-NOT:  Fixpipe(
// CHECK:      SetAtomicAdd<float>();
// CHECK:      FixpipeParamsV220 acc_fixpipe;
// CHECK:      Fixpipe(c_gm, acc, acc_fixpipe);
// CHECK-NEXT: qCO1_acc.FreeTensor(acc);
// CHECK-NEXT: SetAtomicNone();
