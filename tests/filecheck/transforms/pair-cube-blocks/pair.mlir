// RUN: pypto-opt %s -p pair-cube-blocks --split-input-file | filecheck %s

// Three 128-column blocks of C[32, 384] = A[32, 256] @ B[256, 384], stored as f16: the first
// two advance together (one K loop carrying both accumulators, A's window and its move to L0A
// once per K step for both), the last K step peeled so that the first block's store comes
// before the second block's last matmul; the third block stays in the original loop, from 256.

pypto.func aic @three(%a: !pypto.tensor<[32, 256], f16>, %b: !pypto.tensor<[256, 384], f16>, out %c: !pypto.tensor<[32, 384], f16>) -> !pypto.tensor<[32, 384], f16> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %panel = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 256], f16> -> !pypto.tile<[32, 256], f16, mat>
  %r = scf.for %n = %c0 to %c384 step %c128 iter_args(%cn = %c) -> (!pypto.tensor<[32, 384], f16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 128], f32, acc>
    %sum = scf.for %k = %c0 to %c256 step %c128 iter_args(%part = %acc) -> (!pypto.tile<[32, 128], f32, acc>) {
      %am = pypto.tile.slice %panel[%c0, %k] : !pypto.tile<[32, 256], f16, mat> -> !pypto.tile<[32, 128], f16, mat>
      %bm = pypto.tile.load %b[%k, %n] : !pypto.tensor<[256, 384], f16> -> !pypto.tile<[128, 128], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[32, 128], f16, mat> -> !pypto.tile<[32, 128], f16, left>
      %br = pypto.tile.move %bm : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, right>
      %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[32, 128], f32, acc>, !pypto.tile<[32, 128], f16, left>, !pypto.tile<[128, 128], f16, right>
      scf.yield %next : !pypto.tile<[32, 128], f32, acc>
    }
    %half = pypto.tile.cast %sum : !pypto.tile<[32, 128], f32, acc> -> !pypto.tile<[32, 128], f16, acc>
    %w = pypto.tile.store %half, %cn[%c0, %n] : !pypto.tile<[32, 128], f16, acc>, !pypto.tensor<[32, 384], f16>
    scf.yield %w : !pypto.tensor<[32, 384], f16>
  }
  pypto.return %r : !pypto.tensor<[32, 384], f16>
}

// CHECK-LABEL: pypto.func aic @three
// CHECK:         %panel = pypto.tile.load %a
// CHECK:         %[[PAIRS:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CN:.*]] = %c) -> (!pypto.tensor<[32, 384], f16>) {
// CHECK:           %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK:           %[[ACC0:.*]] = pypto.tile.full
// CHECK:           %[[ACC1:.*]] = pypto.tile.full
// CHECK:           %[[K_UB:.*]] = arith.constant 128 : index
// CHECK:           %[[SUM0:.*]], %[[SUM1:.*]] = scf.for %[[K:.*]] = %c0{{.*}} to %[[K_UB]] step %c128{{.*}} iter_args(%[[P0:.*]] = %[[ACC0]], %[[P1:.*]] = %[[ACC1]])
// The second block's B columns start where the first's end: one [128, 256] load, a window
// of each half.
// CHECK-NEXT:        %[[AM:.*]] = pypto.tile.slice %panel[%{{.*}}, %[[K]]]
// CHECK-NEXT:        %[[BPAIR:.*]] = pypto.tile.load %b[%[[K]], %[[J]]] : !pypto.tensor<[256, 384], f16> -> !pypto.tile<[128, 256], f16, mat>
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[HALF:.*]] = arith.constant 128 : index
// CHECK-NEXT:        %[[BM0:.*]] = pypto.tile.slice %[[BPAIR]][%[[ZERO]], %[[ZERO]]] : !pypto.tile<[128, 256], f16, mat> -> !pypto.tile<[128, 128], f16, mat>
// CHECK-NEXT:        %[[BM1:.*]] = pypto.tile.slice %[[BPAIR]][%[[ZERO]], %[[HALF]]] : !pypto.tile<[128, 256], f16, mat> -> !pypto.tile<[128, 128], f16, mat>
// CHECK-NEXT:        %[[AL:.*]] = pypto.tile.move %[[AM]]
// CHECK-NEXT:        %[[BR0:.*]] = pypto.tile.move %[[BM0]]
// CHECK-NEXT:        %[[N0:.*]] = pypto.tile.matmul_acc %[[P0]], %[[AL]], %[[BR0]]
// CHECK-NEXT:        %[[BR1:.*]] = pypto.tile.move %[[BM1]]
// CHECK-NEXT:        %[[N1:.*]] = pypto.tile.matmul_acc %[[P1]], %[[AL]], %[[BR1]]
// CHECK-NEXT:        scf.yield %[[N0]], %[[N1]]
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 128 : index
// CHECK-NEXT:      %[[AM_L:.*]] = pypto.tile.slice %panel[%{{.*}}, %[[LAST]]]
// CHECK-NEXT:      %[[BM0_L:.*]] = pypto.tile.load %b[%[[LAST]], %[[J]]]
// CHECK-NEXT:      %[[AL_L:.*]] = pypto.tile.move %[[AM_L]]
// CHECK-NEXT:      %[[BR0_L:.*]] = pypto.tile.move %[[BM0_L]]
// CHECK-NEXT:      %[[S0:.*]] = pypto.tile.matmul_acc %[[SUM0]], %[[AL_L]], %[[BR0_L]]
// CHECK-NEXT:      %[[H0:.*]] = pypto.tile.cast %[[S0]]
// CHECK-NEXT:      %[[W0:.*]] = pypto.tile.store %[[H0]], %[[CN]][%{{.*}}, %[[J]]]
// CHECK-NEXT:      %[[BM1_L:.*]] = pypto.tile.load %b[%[[LAST]], %[[J1]]]
// CHECK-NEXT:      %[[BR1_L:.*]] = pypto.tile.move %[[BM1_L]]
// CHECK-NEXT:      %[[S1:.*]] = pypto.tile.matmul_acc %[[SUM1]], %[[AL_L]], %[[BR1_L]]
// CHECK-NEXT:      %[[H1:.*]] = pypto.tile.cast %[[S1]]
// CHECK-NEXT:      %[[W1:.*]] = pypto.tile.store %[[H1]], %[[W0]][%{{.*}}, %[[J1]]]
// CHECK-NEXT:      scf.yield %[[W1]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[REST_LB:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %r = scf.for %{{.*}} = %[[REST_LB]] to %c384 step %c128 iter_args(%cn = %[[PAIRS]])
// CHECK:           pypto.tile.matmul_acc %part
// CHECK:         pypto.return %r

// -----

// Two blocks: one pair, no loop left for an odd block.

pypto.func aic @two(%a: !pypto.tensor<[32, 256], f16>, %b: !pypto.tensor<[256, 256], f16>, out %c: !pypto.tensor<[32, 256], f16>) -> !pypto.tensor<[32, 256], f16> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %r = scf.for %n = %c0 to %c256 step %c128 iter_args(%cn = %c) -> (!pypto.tensor<[32, 256], f16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 128], f32, acc>
    %sum = scf.for %k = %c0 to %c256 step %c128 iter_args(%part = %acc) -> (!pypto.tile<[32, 128], f32, acc>) {
      %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[32, 256], f16> -> !pypto.tile<[32, 128], f16, mat>
      %bm = pypto.tile.load %b[%k, %n] : !pypto.tensor<[256, 256], f16> -> !pypto.tile<[128, 128], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[32, 128], f16, mat> -> !pypto.tile<[32, 128], f16, left>
      %br = pypto.tile.move %bm : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, right>
      %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[32, 128], f32, acc>, !pypto.tile<[32, 128], f16, left>, !pypto.tile<[128, 128], f16, right>
      scf.yield %next : !pypto.tile<[32, 128], f32, acc>
    }
    %half = pypto.tile.cast %sum : !pypto.tile<[32, 128], f32, acc> -> !pypto.tile<[32, 128], f16, acc>
    %w = pypto.tile.store %half, %cn[%c0, %n] : !pypto.tile<[32, 128], f16, acc>, !pypto.tensor<[32, 256], f16>
    scf.yield %w : !pypto.tensor<[32, 256], f16>
  }
  pypto.return %r : !pypto.tensor<[32, 256], f16>
}

// CHECK-LABEL: pypto.func aic @two
// CHECK:         %[[PAIR:.*]] = scf.for
// A's tile of a K step is loaded once for both blocks
// CHECK:           scf.for %k = {{.*}} iter_args(%part = %acc, %part_1 = %acc_1)
// CHECK-NEXT:        pypto.tile.load %a[%c0, %k]
// CHECK-NEXT:        pypto.tile.load %b[%k, %n] : {{.*}} -> !pypto.tile<[128, 256], f16, mat>
// CHECK-NOT:         pypto.tile.load
// CHECK:             scf.yield
// CHECK:           pypto.tile.store
// CHECK:           pypto.tile.store
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %[[PAIR]]

// -----

// 352 columns in blocks of 128: three blocks, the last 96 wide (its valid width computed from
// %n): the pair takes columns 0..255 and the original loop the ragged block from 256. The K
// loop runs 0..300 in steps of 128: the peeled steps are the ones at 128 and 256 (the last
// one's load is the user's, as before).

pypto.func aic @ragged(%a: !pypto.tensor<[32, 384], f16>, %b: !pypto.tensor<[384, 352], f16>, out %c: !pypto.tensor<[32, 352], f16>) -> !pypto.tensor<[32, 352], f16> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c32 = arith.constant 32 : index
  %c300 = arith.constant 300 : index
  %c352 = arith.constant 352 : index
  %r = scf.for %n = %c0 to %c352 step %c128 iter_args(%cn = %c) -> (!pypto.tensor<[32, 352], f16>) {
    %left = arith.subi %c352, %n : index
    %w = arith.minsi %left, %c128 : index
    %zero = arith.constant 0.000000e+00 : f32
    %acc = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 128], f32, acc>
    %sum = scf.for %k = %c0 to %c300 step %c128 iter_args(%part = %acc) -> (!pypto.tile<[32, 128], f32, acc>) {
      %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[32, 384], f16> -> !pypto.tile<[32, 128], f16, mat>
      %bm = pypto.tile.load %b[%k, %n] valid[%c128, %w] : !pypto.tensor<[384, 352], f16> -> !pypto.tile<[128, 128], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[32, 128], f16, mat> -> !pypto.tile<[32, 128], f16, left>
      %br = pypto.tile.move %bm : !pypto.tile<[128, 128], f16, mat> -> !pypto.tile<[128, 128], f16, right>
      %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[32, 128], f32, acc>, !pypto.tile<[32, 128], f16, left>, !pypto.tile<[128, 128], f16, right>
      scf.yield %next : !pypto.tile<[32, 128], f32, acc>
    }
    %valid = pypto.tile.set_validshape %sum, %c32, %w : !pypto.tile<[32, 128], f32, acc>, index, index
    %half = pypto.tile.cast %valid : !pypto.tile<[32, 128], f32, acc> -> !pypto.tile<[32, 128], f16, acc>
    %s = pypto.tile.store %half, %cn[%c0, %n] : !pypto.tile<[32, 128], f16, acc>, !pypto.tensor<[32, 352], f16>
    scf.yield %s : !pypto.tensor<[32, 352], f16>
  }
  pypto.return %r : !pypto.tensor<[32, 352], f16>
}

// CHECK-LABEL: pypto.func aic @ragged
// CHECK:         %c352 = arith.constant 352 : index
// CHECK-NEXT:    %[[LB:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[UB:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[PAIRS:.*]] = scf.for %n = %[[LB]] to %[[UB]] step %[[STEP]]
// CHECK:           %[[W0:.*]] = arith.minsi
// CHECK:           %[[W1:.*]] = arith.minsi
// CHECK:           %[[K_UB:.*]] = arith.constant 128 : index
// CHECK-NEXT:      scf.for %k = %c0 to %[[K_UB]] step %c128
// The pair's B tiles in one load whose valid width is the first's 128 and the second's own;
// each half keeps its block's valid width.
// CHECK:             %[[WIDTH:.*]] = arith.addi %{{.*}}, %[[W1]] : index
// CHECK-NEXT:        %[[BPAIR:.*]] = pypto.tile.load %b[%k, %n] valid[%c128, %[[WIDTH]]] : {{.*}} -> !pypto.tile<[128, 256], f16, mat>
// CHECK:             %[[BM0:.*]] = pypto.tile.slice %[[BPAIR]]
// CHECK-NEXT:        pypto.tile.set_validshape %[[BM0]], %c128, %[[W0]]
// CHECK-NEXT:        %[[BM1:.*]] = pypto.tile.slice %[[BPAIR]]
// CHECK-NEXT:        pypto.tile.set_validshape %[[BM1]], %c128, %[[W1]]
// The last two K steps (128 and 256) block by block: the first block's two matmuls and store,
// then the second block's two on the same A tiles.
// CHECK:           %[[K1:.*]] = arith.constant 128 : index
// CHECK-NEXT:      %[[A1:.*]] = pypto.tile.load %a[%c0, %[[K1]]]
// CHECK:           %[[K2:.*]] = arith.constant 256 : index
// CHECK-NEXT:      %[[A2:.*]] = pypto.tile.load %a[%c0, %[[K2]]]
// CHECK:           %[[AL2:.*]] = pypto.tile.move %[[A2]]
// CHECK:           pypto.tile.store %{{.*}}, %{{.*}}[%c0, %n]
// CHECK-NOT:       pypto.tile.load %a
// CHECK:           pypto.tile.load %b[%[[K1]], %n_second]
// CHECK:           pypto.tile.load %b[%[[K2]], %n_second]
// CHECK:           pypto.tile.matmul_acc %{{.*}}, %[[AL2]],
// CHECK:           pypto.tile.store %{{.*}}, %{{.*}}[%c0, %n_second]
// CHECK:         %[[REST:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %r = scf.for %{{.*}} = %[[REST]] to %c352 step %c128 iter_args(%cn = %[[PAIRS]])

// -----

// Left alone: an f32 product (its longer Fixpipe would keep both L0C buffers busy past the
// pair), a loop that loads what it stores, and a function that is not `aic`.

pypto.func aic @f32_product(%a: !pypto.tensor<[32, 128], f16>, %b: !pypto.tensor<[128, 256], f16>, out %c: !pypto.tensor<[32, 256], f32>) -> !pypto.tensor<[32, 256], f32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %r = scf.for %n = %c0 to %c256 step %c128 iter_args(%cn = %c) -> (!pypto.tensor<[32, 256], f32>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 128], f32, acc>
    %sum = scf.for %k = %c0 to %c128 step %c64 iter_args(%part = %acc) -> (!pypto.tile<[32, 128], f32, acc>) {
      %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[32, 128], f16> -> !pypto.tile<[32, 64], f16, mat>
      %bm = pypto.tile.load %b[%k, %n] : !pypto.tensor<[128, 256], f16> -> !pypto.tile<[64, 128], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
      %br = pypto.tile.move %bm : !pypto.tile<[64, 128], f16, mat> -> !pypto.tile<[64, 128], f16, right>
      %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[32, 128], f32, acc>, !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 128], f16, right>
      scf.yield %next : !pypto.tile<[32, 128], f32, acc>
    }
    %w = pypto.tile.store %sum, %cn[%c0, %n] : !pypto.tile<[32, 128], f32, acc>, !pypto.tensor<[32, 256], f32>
    scf.yield %w : !pypto.tensor<[32, 256], f32>
  }
  pypto.return %r : !pypto.tensor<[32, 256], f32>
}

// CHECK-LABEL: pypto.func aic @f32_product
// CHECK:         scf.for %n =
// CHECK:           scf.for %k = {{.*}} iter_args(%part = %acc)
// CHECK-NOT:       iter_args
// CHECK:         pypto.return

pypto.func aic @loads_what_it_stores(%a: !pypto.tensor<[32, 128], f16>, %b: !pypto.tensor<[128, 256], f16>, inout %c: !pypto.tensor<[128, 256], f16>) -> !pypto.tensor<[128, 256], f16> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %r = scf.for %n = %c0 to %c256 step %c128 iter_args(%cn = %c) -> (!pypto.tensor<[128, 256], f16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 128], f32, acc>
    %sum = scf.for %k = %c0 to %c128 step %c64 iter_args(%part = %acc) -> (!pypto.tile<[32, 128], f32, acc>) {
      %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[32, 128], f16> -> !pypto.tile<[32, 64], f16, mat>
      %bm = pypto.tile.load %c[%k, %n] : !pypto.tensor<[128, 256], f16> -> !pypto.tile<[64, 128], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
      %br = pypto.tile.move %bm : !pypto.tile<[64, 128], f16, mat> -> !pypto.tile<[64, 128], f16, right>
      %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[32, 128], f32, acc>, !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 128], f16, right>
      scf.yield %next : !pypto.tile<[32, 128], f32, acc>
    }
    %half = pypto.tile.cast %sum : !pypto.tile<[32, 128], f32, acc> -> !pypto.tile<[32, 128], f16, acc>
    %w = pypto.tile.store %half, %cn[%c0, %n] : !pypto.tile<[32, 128], f16, acc>, !pypto.tensor<[128, 256], f16>
    scf.yield %w : !pypto.tensor<[128, 256], f16>
  }
  pypto.return %r : !pypto.tensor<[128, 256], f16>
}

// CHECK-LABEL: pypto.func aic @loads_what_it_stores
// CHECK:         scf.for %n =
// CHECK:           scf.for %k = {{.*}} iter_args(%part = %acc)
// CHECK-NOT:       iter_args
// CHECK:         pypto.return

pypto.func incore @not_aic(%a: !pypto.tensor<[32, 128], f16>, %b: !pypto.tensor<[128, 256], f16>, out %c: !pypto.tensor<[32, 256], f16>) -> !pypto.tensor<[32, 256], f16> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %r = scf.for %n = %c0 to %c256 step %c128 iter_args(%cn = %c) -> (!pypto.tensor<[32, 256], f16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 128], f32, acc>
    %sum = scf.for %k = %c0 to %c128 step %c64 iter_args(%part = %acc) -> (!pypto.tile<[32, 128], f32, acc>) {
      %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[32, 128], f16> -> !pypto.tile<[32, 64], f16, mat>
      %bm = pypto.tile.load %b[%k, %n] : !pypto.tensor<[128, 256], f16> -> !pypto.tile<[64, 128], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
      %br = pypto.tile.move %bm : !pypto.tile<[64, 128], f16, mat> -> !pypto.tile<[64, 128], f16, right>
      %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[32, 128], f32, acc>, !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 128], f16, right>
      scf.yield %next : !pypto.tile<[32, 128], f32, acc>
    }
    %half = pypto.tile.cast %sum : !pypto.tile<[32, 128], f32, acc> -> !pypto.tile<[32, 128], f16, acc>
    %w = pypto.tile.store %half, %cn[%c0, %n] : !pypto.tile<[32, 128], f16, acc>, !pypto.tensor<[32, 256], f16>
    scf.yield %w : !pypto.tensor<[32, 256], f16>
  }
  pypto.return %r : !pypto.tensor<[32, 256], f16>
}

// CHECK-LABEL: pypto.func incore @not_aic
// CHECK:         scf.for %n =
// CHECK:           scf.for %k = {{.*}} iter_args(%part = %acc)
// CHECK-NOT:       iter_args
// CHECK:         pypto.return
