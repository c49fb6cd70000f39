// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// A vector kernel using every declaration, local tensor, copy, vector and sync op.
ascendc.kernel vector @vec(%x: !ascendc.gm_addr, %s: f32, %z: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 2>], workspace = 1024 : i64} {
  %x_gm = ascendc.global_tensor "x_gm" %x size 2048 : !ascendc.gm_addr -> !ascendc.global_tensor<f32>
  %z_gm = ascendc.global_tensor "z_gm" %z size 2048 : !ascendc.gm_addr -> !ascendc.global_tensor<f32>
  %block_ws = ascendc.block_workspace "block_ws" %workspace bytes 1024 : !ascendc.gm_addr
  %m_gm = ascendc.global_tensor "m_gm" %block_ws offset 0 size 16 {comment = "%m !pypto.tensor<[16], f32>"} : !ascendc.gm_addr -> !ascendc.global_tensor<f32>
  %pipe = ascendc.pipe "pipe"
  %inQ_a = ascendc.tque "inQ_a" {values = ["%a !pypto.tile<[16, 128], f32, vec>"]} : !ascendc.queue<VECIN, 2>
  %outQ_b = ascendc.tque "outQ_b" : !ascendc.queue<VECOUT, 1>
  %calcBuf0 = ascendc.tbuf "calcBuf0" {values = ["%c", "%d"]} : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %inQ_a num 2 len 8192 : !ascendc.pipe, !ascendc.queue<VECIN, 2>
  ascendc.init_buffer %pipe, %outQ_b num 1 len 8192 : !ascendc.pipe, !ascendc.queue<VECOUT, 1>
  ascendc.init_buffer %pipe, %calcBuf0 len 8192 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %c64 step %c16 {
    %a = ascendc.alloc_tensor "a" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
    %src = ascendc.at %x_gm[%i * 128] : !ascendc.global_tensor<f32>, index
    ascendc.data_copy %a, %src count 2048 : !ascendc.local_tensor<f32, VECIN>, !ascendc.global_tensor<f32>
    ascendc.enque %inQ_a, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
    %a2 = ascendc.deque %inQ_a, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
    %c = ascendc.get_buf "c" %calcBuf0 : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
    ascendc.pipe_barrier PIPE_V
    ascendc.exp %c, %a2 count 2048 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
    ascendc.muls %c, %c, %one mask 64 repeat 16 params(1, 1, 8, 16) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, i32
    %neg = ascendc.unary_minus %s : f32
    ascendc.adds %c, %c, %neg count 2048 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
    %a64 = ascendc.at %a2[64] : !ascendc.local_tensor<f32, VECIN>
    ascendc.sub %c, %c, %a64 mask 64 repeat 16 params(1, 1, 0, 16, 16, 1) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
    ascendc.free_tensor %inQ_a, %a2 : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
    %b = ascendc.alloc_tensor "b" %outQ_b : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
    ascendc.whole_reduce_max %b, %c mask 64 repeat 16 strides(1, 1, 8) order ORDER_ONLY_VALUE : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
    ascendc.whole_reduce_sum %b, %c mask 64 repeat 16 strides(1, 1, 8) : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
    ascendc.brcb %c, %b repeat 2 params(1, 8) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECOUT>
    ascendc.duplicate %b, %s count 2048 : !ascendc.local_tensor<f32, VECOUT>, f32
    ascendc.cast %b, %c round CAST_NONE count 2048 : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
    ascendc.enque %outQ_b, %b : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
    %b2 = ascendc.deque %outQ_b, %b : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
    %dst = ascendc.at %z_gm[%i * 128 + 4] : !ascendc.global_tensor<f32>, index
    ascendc.data_copy %dst, %b2 params(16, 16, 0, 0) : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
    ascendc.data_copy_pad %m_gm, %b2 ext(1, 64, 0, 0, 0) : !ascendc.global_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
    ascendc.free_tensor %outQ_b, %b2 : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
    %e = ascendc.fetch_event_id "e" MTE3_MTE2 %pipe : !ascendc.pipe
    ascendc.set_flag MTE3_MTE2 %e : !ascendc.event<MTE3_MTE2>
    ascendc.wait_flag MTE3_MTE2 %e : !ascendc.event<MTE3_MTE2>
    %f = ascendc.alloc_event_id "f" MTE3_MTE2 %pipe : !ascendc.pipe
    ascendc.set_flag MTE3_MTE2 %f : !ascendc.event<MTE3_MTE2>
    ascendc.wait_flag MTE3_MTE2 %f : !ascendc.event<MTE3_MTE2>
    ascendc.release_event_id MTE3_MTE2 %pipe, %f : !ascendc.pipe, !ascendc.event<MTE3_MTE2>
  }
  %idx = ascendc.get_block_idx
  %num = ascendc.get_block_num
  ascendc.return
}
