// RUN: pypto-opt %s -p convert-pypto-to-ascendc | filecheck %s
// RUN: pypto-opt %s -p convert-pypto-to-ascendc --print-op-generic | pypto-opt | filecheck %s
// The kernel becomes an ascendc.kernel of the same name: tensor parameters are GM_ADDR
// with a GlobalTensor each (named for the C++ they print as), tiles local tensors in one
// buffer each, declared first (queues of depth 1: ascendc-plan-buffers decides depths and
// sharing). A GM window is an `ascendc.at` of its parameter at the window's offset (the
// slice and the load offsets folded); copies take the form the layout needs (a padded copy
// here: 96 of 100 columns). `subs` adds the negated scalar, `divs` divides by a duplicated
// scalar (exact). Loaded tiles are freed after their last use, the stored one after its
// copy-out. No synchronisation yet. The call becomes an ascendc.launch on its blocks.

pypto.func incore @k(%x: !pypto.tensor<[64, 100], f32>, %s: f32, out %y: !pypto.tensor<[64, 96], f32>) -> !pypto.tensor<[64, 96], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %i = %c0 to %c64 step %c8 iter_args(%acc = %y) -> (!pypto.tensor<[64, 96], f32>) {
    %xs = pypto.tensor.slice %x[%i, %c0] : !pypto.tensor<[64, 100], f32> -> !pypto.tensor<[8, 100], f32>
    %t = pypto.tile.load %xs[%c0, %c1] : !pypto.tensor<[8, 100], f32> -> !pypto.tile<[8, 96], f32, vec>
    %a = pypto.tile.subs %t, %s : !pypto.tile<[8, 96], f32, vec>, f32
    %d = pypto.tile.divs %a, %s : !pypto.tile<[8, 96], f32, vec>, f32
    %w = pypto.tile.store %d, %acc[%i, %c0] : !pypto.tile<[8, 96], f32, vec>, !pypto.tensor<[64, 96], f32>
    scf.yield %w : !pypto.tensor<[64, 96], f32>
  }
  pypto.return %r : !pypto.tensor<[64, 96], f32>
}
pypto.func orchestration @main(%x: !pypto.tensor<[64, 100], f32>, %s: f32, out %y: !pypto.tensor<[64, 96], f32>) -> !pypto.tensor<[64, 96], f32> {
  %r = pypto.call @k(%x, %s, %y) {pypto.block_dim = 2 : i64} : (!pypto.tensor<[64, 100], f32>, f32, !pypto.tensor<[64, 96], f32>) -> !pypto.tensor<[64, 96], f32>
  pypto.return %r : !pypto.tensor<[64, 96], f32>
}

// CHECK-LABEL: ascendc.kernel vector @k(%x: !ascendc.gm_addr, %s: f32, %y: !ascendc.gm_addr)
// CHECK-SAME: attributes {arg_names = ["x", "s", "y"], results = [#ascendc.result<param 2>]}
// CHECK-NEXT: %x_gm = ascendc.global_tensor "x_gm" %x size 6400 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
// CHECK-NEXT: %y_gm = ascendc.global_tensor "y_gm" %y size 6144
// CHECK-NEXT: %pipe = ascendc.tpipe "pipe"
// CHECK-NEXT: %inQ_t = ascendc.tque "inQ_t" {values = ["%t !pypto.tile<[8, 96], f32, vec>"]} : !ascendc.queue<VECIN, 1>
// CHECK-NEXT: %buf_a = ascendc.tbuf "buf_a" {values = ["%a !pypto.tile<[8, 96], f32, vec>"]} : !ascendc.buffer<VECCALC>
// CHECK-NEXT: %outQ_d = ascendc.tque "outQ_d" {values = ["%d !pypto.tile<[8, 96], f32, vec>"]} : !ascendc.queue<VECOUT, 1>
// CHECK-NEXT: ascendc.init_buffer %pipe, %inQ_t num 1 len 3072
// CHECK-NEXT: ascendc.init_buffer %pipe, %buf_a len 3072
// CHECK-NEXT: ascendc.init_buffer %pipe, %outQ_d num 1 len 3072
// CHECK: scf.for %i = %c0 to %c64 step %c8 {
// CHECK-NEXT: %t = ascendc.alloc_tensor "t" %inQ_t : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: %[[X:.*]] = ascendc.at %x_gm[%i * 100 + 1] : !ascendc.gm_tensor<f32>, index
// CHECK-NEXT: ascendc.data_copy_pad %t, %[[X]] ext(8, 384, 16, 0, 0) pad(false, 0, 0, 0)
// CHECK-NEXT: %a = ascendc.get_buf "a" %buf_a
// CHECK-NEXT: %[[NEG:.*]] = ascendc.unary_minus %s : f32
// CHECK-NEXT: ascendc.adds %a, %t, %[[NEG]] count 768
// CHECK-NEXT: ascendc.free_tensor %inQ_t, %t
// CHECK-NEXT: %d = ascendc.alloc_tensor "d" %outQ_d
// CHECK-NEXT: ascendc.duplicate %d, %s count 768
// CHECK-NEXT: ascendc.div %d, %a, %d count 768
// CHECK-NEXT: %[[Y:.*]] = ascendc.at %y_gm[%i * 96]
// CHECK-NEXT: ascendc.data_copy %[[Y]], %d count 768
// CHECK-NEXT: ascendc.free_tensor %outQ_d, %d
// CHECK-NEXT: }
// CHECK-NEXT: ascendc.return
// CHECK-NOT: ascendc.enque
// CHECK-LABEL: pypto.func orchestration @main
// CHECK-NEXT: %r = ascendc.launch @k blocks 2 (%x, %s, %y) : (!pypto.tensor<[64, 100], f32>, f32, !pypto.tensor<[64, 96], f32>) -> !pypto.tensor<[64, 96], f32>
