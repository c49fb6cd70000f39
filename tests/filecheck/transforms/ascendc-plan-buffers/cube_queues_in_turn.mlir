// RUN: pypto-opt %s -p pair-cube-blocks,convert-pypto-to-ascendc,ascendc-plan-buffers | filecheck %s
// Cube queues of one type used in turn share one queue: after pair-cube-blocks the pair's K
// loop, its peeled last step and the odd block's loop each have their own L1, L0A, L0B and L0C
// tiles, used one after the other. The L0A tile of the three (%al, its peeled copy, the odd
// block's) is one double-buffered queue; the pair's two accumulators are live together, outside
// any loop of their own: one CO1 queue of two buffers (the bytes of two queues of one), whose
// buffers the odd block's accumulator then takes; the pair's merged B tile and the other B tiles
// one B1 queue (sized for the larger).

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

// CHECK-LABEL: ascendc.kernel cube @three
// CHECK-SAME:    L0A = {capacity = 65536 : i64, used = 16384 : i64}
// CHECK-SAME:    L0C = {capacity = 131072 : i64, used = 32768 : i64}
// CHECK:         %qCO1_acc = ascendc.tque "qCO1_acc" {{.*}} : !ascendc.queue<CO1, 2>
// CHECK-NEXT:    %qB1_bm_pair = ascendc.tque "qB1_bm_pair" {{.*}} : !ascendc.queue<B1, 4>
// CHECK-NEXT:    %qA2_al = ascendc.tque "qA2_al" {{.*}} : !ascendc.queue<A2, 2>
// CHECK-NEXT:    %qB2_br = ascendc.tque "qB2_br" {{.*}} : !ascendc.queue<B2, 2>
// CHECK-NOT:     ascendc.tque
// CHECK:         ascendc.init_buffer %pipe, %qCO1_acc num 2 len 16384
// CHECK-NEXT:    ascendc.init_buffer %pipe, %qB1_bm_pair num 4 len 65536
// the three L0A tiles: one queue, allocated in the pair's K loop, its peeled step, the odd block
// CHECK:         scf.for
// CHECK:           ascendc.alloc_tensor "al" %qA2_al
// CHECK:         ascendc.alloc_tensor "al_1" %qA2_al
// CHECK:         ascendc.alloc_tensor "acc_2" %qCO1_acc
// CHECK:           ascendc.alloc_tensor "al_2" %qA2_al

// Three K steps: pair-cube-blocks peels the last two block by block, so the pair's peeled L0A
// tiles (%al_1 of step 128, %al_2 of step 256) are live together, each read by both blocks'
// matmuls. They join the pair's L0A queue, which keeps two buffers (never fewer than the
// tensors live at once: one queue of two rather than two queues of one).

pypto.func aic @peeled_two(%a: !pypto.tensor<[32, 384], f16>, %b: !pypto.tensor<[384, 256], f16>, out %c: !pypto.tensor<[32, 256], f16>) -> !pypto.tensor<[32, 256], f16> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c384 = arith.constant 384 : index
  %r = scf.for %n = %c0 to %c256 step %c128 iter_args(%cn = %c) -> (!pypto.tensor<[32, 256], f16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc = pypto.tile.full %zero : f32 -> !pypto.tile<[32, 128], f32, acc>
    %sum = scf.for %k = %c0 to %c384 step %c128 iter_args(%part = %acc) -> (!pypto.tile<[32, 128], f32, acc>) {
      %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[32, 384], f16> -> !pypto.tile<[32, 128], f16, mat>
      %bm = pypto.tile.load %b[%k, %n] : !pypto.tensor<[384, 256], f16> -> !pypto.tile<[128, 128], f16, mat>
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

// CHECK-LABEL: ascendc.kernel cube @peeled_two
// CHECK:         %qA2_al = ascendc.tque "qA2_al" {{.*}} : !ascendc.queue<A2, 2>
// CHECK-NOT:     queue<A2
// CHECK:         ascendc.init_buffer %pipe, %qA2_al num 2 len 8192
// CHECK:         scf.for %k
// CHECK:           ascendc.alloc_tensor "al" %qA2_al
// CHECK:         %al_1 = ascendc.alloc_tensor "al_1" %qA2_al
// CHECK:         %al_2 = ascendc.alloc_tensor "al_2" %qA2_al
// CHECK:         ascendc.mmad
// CHECK:         ascendc.free_tensor %qA2_al, %al_1
// CHECK:         ascendc.free_tensor %qA2_al, %al_2
