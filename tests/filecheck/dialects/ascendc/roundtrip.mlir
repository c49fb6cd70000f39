// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// A vector kernel using every declaration, local tensor, copy, vector and sync op.
ascendc.kernel vector @vec(%x: !ascendc.gm_addr, %s: f32, %z: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 2>], workspace = 1024 : i64} {
  %x_gm = ascendc.global_tensor "x_gm" %x size 2048 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %z_gm = ascendc.global_tensor "z_gm" %z size 2048 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %block_ws = ascendc.block_workspace "block_ws" %workspace bytes 1024 : !ascendc.gm_addr
  %m_gm = ascendc.global_tensor "m_gm" %block_ws offset 0 size 16 {comment = "%m !pypto.tensor<[16], f32>"} : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ_a = ascendc.tque "inQ_a" {values = ["%a !pypto.tile<[16, 128], f32, vec>"]} : !ascendc.queue<VECIN, 2>
  %outQ_b = ascendc.tque "outQ_b" : !ascendc.queue<VECOUT, 1>
  %calcBuf0 = ascendc.tbuf "calcBuf0" {values = ["%c", "%d"]} : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %inQ_a num 2 len 8192 : !ascendc.pipe, !ascendc.queue<VECIN, 2>
  ascendc.init_buffer %pipe, %outQ_b num 1 len 8192 : !ascendc.pipe, !ascendc.queue<VECOUT, 1>
  ascendc.init_buffer %pipe, %calcBuf0 len 8192 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.000000e+00 : f32
  scf.for %i = %c0 to %c64 step %c16 {
    %a = ascendc.alloc_tensor "a" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
    %src = ascendc.at %x_gm[%i * 128] : !ascendc.gm_tensor<f32>, index
    ascendc.data_copy %a, %src count 2048 : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
    ascendc.enque %inQ_a, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
    %a2 = ascendc.deque %inQ_a, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
    %c = ascendc.get_buf "c" %calcBuf0 : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
    ascendc.pipe_barrier PIPE_V
    ascendc.exp %c, %a2 count 2048 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
    ascendc.muls %c, %c, %one mask 64 repeat 16 params(1, 1, 8, 16) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
    %neg = ascendc.unary_minus %s : f32
    ascendc.adds %c, %c, %neg count 2048 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
    %a64 = ascendc.at %a2[64] : !ascendc.local_tensor<f32, VECIN>
    ascendc.sub %c, %c, %a64 mask 64 repeat 16 params(1, 1, 0, 16, 16, 1) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
    ascendc.free_tensor %inQ_a, %a2 : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
    %b = ascendc.alloc_tensor "b" %outQ_b : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
    ascendc.whole_reduce_max %b, %c mask 64 repeat 16 strides(1, 1, 8) order ORDER_ONLY_VALUE : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
    ascendc.whole_reduce_min %b, %c mask 64 repeat 16 strides(1, 1, 8) order ORDER_ONLY_VALUE : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
    ascendc.whole_reduce_sum %b, %c mask 64 repeat 16 strides(1, 1, 8) : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
    ascendc.brcb %c, %b repeat 2 params(1, 8) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECOUT>
    ascendc.duplicate %b, %s count 2048 : !ascendc.local_tensor<f32, VECOUT>, f32
    ascendc.cast %b, %c round CAST_RINT count 2048 : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
    ascendc.enque %outQ_b, %b : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
    %b2 = ascendc.deque %outQ_b, %b : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
    %dst = ascendc.at %z_gm[%i * 128 + 4] : !ascendc.gm_tensor<f32>, index
    ascendc.data_copy %dst, %b2 params(16, 16, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
    ascendc.data_copy_pad %m_gm, %b2 ext(1, 64, 0, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
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
  %group_idx = ascendc.get_block_idx task_ratio 2
  %lane = ascendc.get_sub_block_idx
  ascendc.return
}

// CHECK: builtin.module {
// CHECK-NEXT: ascendc.kernel vector @vec(%x: !ascendc.gm_addr, %s: f32, %z: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 2>], workspace = 1024 : i64} {
// CHECK-NEXT: %x_gm = ascendc.global_tensor "x_gm" %x size 2048 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
// CHECK-NEXT: %z_gm = ascendc.global_tensor "z_gm" %z size 2048 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
// CHECK-NEXT: %block_ws = ascendc.block_workspace "block_ws" %workspace bytes 1024 : !ascendc.gm_addr
// CHECK-NEXT: %m_gm = ascendc.global_tensor "m_gm" %block_ws offset 0 size 16 {comment = "%m !pypto.tensor<[16], f32>"} : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
// CHECK-NEXT: %pipe = ascendc.tpipe "pipe"
// CHECK-NEXT: %inQ_a = ascendc.tque "inQ_a" {values = ["%a !pypto.tile<[16, 128], f32, vec>"]} : !ascendc.queue<VECIN, 2>
// CHECK-NEXT: %outQ_b = ascendc.tque "outQ_b" : !ascendc.queue<VECOUT, 1>
// CHECK-NEXT: %calcBuf0 = ascendc.tbuf "calcBuf0" {values = ["%c", "%d"]} : !ascendc.buffer<VECCALC>
// CHECK-NEXT: ascendc.init_buffer %pipe, %inQ_a num 2 len 8192 : !ascendc.pipe, !ascendc.queue<VECIN, 2>
// CHECK-NEXT: ascendc.init_buffer %pipe, %outQ_b num 1 len 8192 : !ascendc.pipe, !ascendc.queue<VECOUT, 1>
// CHECK-NEXT: ascendc.init_buffer %pipe, %calcBuf0 len 8192 : !ascendc.pipe, !ascendc.buffer<VECCALC>
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: scf.for %i = %c0 to %c64 step %c16 {
// CHECK-NEXT: %a = ascendc.alloc_tensor "a" %inQ_a : !ascendc.queue<VECIN, 2> -> !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: %src = ascendc.at %x_gm[%i * 128] : !ascendc.gm_tensor<f32>, index
// CHECK-NEXT: ascendc.data_copy %a, %src count 2048 : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
// CHECK-NEXT: ascendc.enque %inQ_a, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: %a2 = ascendc.deque %inQ_a, %a : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: %c = ascendc.get_buf "c" %calcBuf0 : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: ascendc.exp %c, %a2 count 2048 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.muls %c, %c, %one mask 64 repeat 16 params(1, 1, 8, 16) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
// CHECK-NEXT: %neg = ascendc.unary_minus %s : f32
// CHECK-NEXT: ascendc.adds %c, %c, %neg count 2048 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
// CHECK-NEXT: %a64 = ascendc.at %a2[64] : !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.sub %c, %c, %a64 mask 64 repeat 16 params(1, 1, 0, 16, 16, 1) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.free_tensor %inQ_a, %a2 : !ascendc.queue<VECIN, 2>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: %b = ascendc.alloc_tensor "b" %outQ_b : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
// CHECK-NEXT: ascendc.whole_reduce_max %b, %c mask 64 repeat 16 strides(1, 1, 8) order ORDER_ONLY_VALUE : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.whole_reduce_min %b, %c mask 64 repeat 16 strides(1, 1, 8) order ORDER_ONLY_VALUE : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.whole_reduce_sum %b, %c mask 64 repeat 16 strides(1, 1, 8) : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.brcb %c, %b repeat 2 params(1, 8) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECOUT>
// CHECK-NEXT: ascendc.duplicate %b, %s count 2048 : !ascendc.local_tensor<f32, VECOUT>, f32
// CHECK-NEXT: ascendc.cast %b, %c round CAST_RINT count 2048 : !ascendc.local_tensor<f32, VECOUT>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.enque %outQ_b, %b : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
// CHECK-NEXT: %b2 = ascendc.deque %outQ_b, %b : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
// CHECK-NEXT: %dst = ascendc.at %z_gm[%i * 128 + 4] : !ascendc.gm_tensor<f32>, index
// CHECK-NEXT: ascendc.data_copy %dst, %b2 params(16, 16, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
// CHECK-NEXT: ascendc.data_copy_pad %m_gm, %b2 ext(1, 64, 0, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>
// CHECK-NEXT: ascendc.free_tensor %outQ_b, %b2 : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
// CHECK-NEXT: %e = ascendc.fetch_event_id "e" MTE3_MTE2 %pipe : !ascendc.pipe
// CHECK-NEXT: ascendc.set_flag MTE3_MTE2 %e : !ascendc.event<MTE3_MTE2>
// CHECK-NEXT: ascendc.wait_flag MTE3_MTE2 %e : !ascendc.event<MTE3_MTE2>
// CHECK-NEXT: %f = ascendc.alloc_event_id "f" MTE3_MTE2 %pipe : !ascendc.pipe
// CHECK-NEXT: ascendc.set_flag MTE3_MTE2 %f : !ascendc.event<MTE3_MTE2>
// CHECK-NEXT: ascendc.wait_flag MTE3_MTE2 %f : !ascendc.event<MTE3_MTE2>
// CHECK-NEXT: ascendc.release_event_id MTE3_MTE2 %pipe, %f : !ascendc.pipe, !ascendc.event<MTE3_MTE2>
// CHECK-NEXT: }
// CHECK-NEXT: %idx = ascendc.get_block_idx
// CHECK-NEXT: %num = ascendc.get_block_num
// CHECK-NEXT: %group_idx = ascendc.get_block_idx task_ratio 2
// CHECK-NEXT: %lane = ascendc.get_sub_block_idx
// CHECK-NEXT: ascendc.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-GENERIC: "ascendc.kernel"() <{sym_name = "vec", kind = #ascendc<kind vector>, results = [#ascendc.result<param 2>], workspace = 1024 : i64}> ({
// CHECK-GENERIC: %src = "ascendc.at"(%x_gm, %i) <{terms = [0 : i64, 128 : i64]}> : (!ascendc.gm_tensor<f32>, index) -> !ascendc.gm_tensor<f32>
// CHECK-GENERIC: %a64 = "ascendc.at"(%a2) <{terms = [-1 : i64, 64 : i64]}> : (!ascendc.local_tensor<f32, VECIN>) -> !ascendc.local_tensor<f32, VECIN>
// CHECK-GENERIC: %dst = "ascendc.at"(%z_gm, %i) <{terms = [0 : i64, 128 : i64, -1 : i64, 4 : i64]}> : (!ascendc.gm_tensor<f32>, index) -> !ascendc.gm_tensor<f32>

// -----

// A cube kernel (parameter structs, LoadData, Mmad, Fixpipe) and its launches from host code,
// one of them a task with dependencies.
ascendc.kernel cube @mm(%a: !ascendc.gm_addr, %c: !ascendc.gm_addr) attributes {arg_names = ["a", "c"], results = [#ascendc.result<param 1>]} {
  %a_gm = ascendc.global_tensor "a_gm" %a size 256 : !ascendc.gm_addr -> !ascendc.gm_tensor<f16>
  %c_gm = ascendc.global_tensor "c_gm" %c size 256 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  ascendc.init_buffer %pipe, %qA1 num 1 len 512 : !ascendc.pipe, !ascendc.queue<A1, 1>
  ascendc.init_buffer %pipe, %qA2 num 1 len 512 : !ascendc.pipe, !ascendc.queue<A2, 1>
  ascendc.init_buffer %pipe, %qB2 num 1 len 512 : !ascendc.pipe, !ascendc.queue<B2, 1>
  ascendc.init_buffer %pipe, %qCO1 num 1 len 1024 : !ascendc.pipe, !ascendc.queue<CO1, 1>
  %am = ascendc.alloc_tensor "am" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %nd = ascendc.params "nd" Nd2NzParams(ndNum = 1, nValue = 16, dValue = 16, srcNdMatrixStride = 0, srcDValue = 16, dstNzC0Stride = 16, dstNzNStride = 1, dstNzMatrixStride = 0)
  ascendc.data_copy %am, %a_gm, %nd : !ascendc.local_tensor<f16, A1>, !ascendc.gm_tensor<f16>, !ascendc.struct<Nd2NzParams>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %br = ascendc.alloc_tensor "br" %qB2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<f16, B2>
  %ld = ascendc.params "ld" LoadData2DParams(repeatTimes = 1, srcStride = 1, ifTranspose = false)
  ascendc.load_data %al, %am, %ld : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData2DParams>
  ascendc.free_tensor %qA1, %am : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  %acc = ascendc.alloc_tensor "acc" %qCO1 : !ascendc.queue<CO1, 1> -> !ascendc.local_tensor<f32, CO1>
  %mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = true)
  ascendc.mmad %acc, %al, %br, %mp : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, B2>, !ascendc.struct<MmadParams>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.free_tensor %qB2, %br : !ascendc.queue<B2, 1>, !ascendc.local_tensor<f16, B2>
  %fp = ascendc.params "fp" FixpipeParamsV220(nSize = 16, mSize = 16, srcStride = 16, dstStride = 16, ndNum = 1)
  %fq = ascendc.params "fq" FixpipeParamsV220(nSize = 16, mSize = 16, srcStride = 16, dstStride = 16, quantPre = F322F16, reluEn = true, ndNum = 1)
  ascendc.fixpipe %c_gm, %acc, %fp : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, CO1>, !ascendc.struct<FixpipeParamsV220>
  ascendc.free_tensor %qCO1, %acc : !ascendc.queue<CO1, 1>, !ascendc.local_tensor<f32, CO1>
  ascendc.return
}
pypto.func orchestration @main(%a: !pypto.tensor<[16, 16], f16>, out %c: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %r = ascendc.launch @mm blocks 1 (%a, %c) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
  %r2, %t = ascendc.launch @mm blocks 2 (%a, %r) task : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> (!pypto.tensor<[16, 16], f32>, !pypto.task_id)
  %r3, %t2 = ascendc.launch @mm blocks 1 (%a, %r2) deps(%t) task : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> (!pypto.tensor<[16, 16], f32>, !pypto.task_id)
  pypto.return %r3 : !pypto.tensor<[16, 16], f32>
}

// CHECK: builtin.module {
// CHECK-NEXT: ascendc.kernel cube @mm(%a: !ascendc.gm_addr, %c: !ascendc.gm_addr) attributes {arg_names = ["a", "c"], results = [#ascendc.result<param 1>]} {
// CHECK-NEXT: %a_gm = ascendc.global_tensor "a_gm" %a size 256 : !ascendc.gm_addr -> !ascendc.gm_tensor<f16>
// CHECK-NEXT: %c_gm = ascendc.global_tensor "c_gm" %c size 256 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
// CHECK-NEXT: %pipe = ascendc.tpipe "pipe"
// CHECK-NEXT: %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
// CHECK-NEXT: %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
// CHECK-NEXT: %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
// CHECK-NEXT: %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
// CHECK-NEXT: ascendc.init_buffer %pipe, %qA1 num 1 len 512 : !ascendc.pipe, !ascendc.queue<A1, 1>
// CHECK-NEXT: ascendc.init_buffer %pipe, %qA2 num 1 len 512 : !ascendc.pipe, !ascendc.queue<A2, 1>
// CHECK-NEXT: ascendc.init_buffer %pipe, %qB2 num 1 len 512 : !ascendc.pipe, !ascendc.queue<B2, 1>
// CHECK-NEXT: ascendc.init_buffer %pipe, %qCO1 num 1 len 1024 : !ascendc.pipe, !ascendc.queue<CO1, 1>
// CHECK-NEXT: %am = ascendc.alloc_tensor "am" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
// CHECK-NEXT: %nd = ascendc.params "nd" Nd2NzParams(ndNum = 1, nValue = 16, dValue = 16, srcNdMatrixStride = 0, srcDValue = 16, dstNzC0Stride = 16, dstNzNStride = 1, dstNzMatrixStride = 0)
// CHECK-NEXT: ascendc.data_copy %am, %a_gm, %nd : !ascendc.local_tensor<f16, A1>, !ascendc.gm_tensor<f16>, !ascendc.struct<Nd2NzParams>
// CHECK-NEXT: %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
// CHECK-NEXT: %br = ascendc.alloc_tensor "br" %qB2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<f16, B2>
// CHECK-NEXT: %ld = ascendc.params "ld" LoadData2DParams(repeatTimes = 1, srcStride = 1, ifTranspose = false)
// CHECK-NEXT: ascendc.load_data %al, %am, %ld : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData2DParams>
// CHECK-NEXT: ascendc.free_tensor %qA1, %am : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
// CHECK-NEXT: %acc = ascendc.alloc_tensor "acc" %qCO1 : !ascendc.queue<CO1, 1> -> !ascendc.local_tensor<f32, CO1>
// CHECK-NEXT: %mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = true)
// CHECK-NEXT: ascendc.mmad %acc, %al, %br, %mp : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, B2>, !ascendc.struct<MmadParams>
// CHECK-NEXT: ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
// CHECK-NEXT: ascendc.free_tensor %qB2, %br : !ascendc.queue<B2, 1>, !ascendc.local_tensor<f16, B2>
// CHECK-NEXT: %fp = ascendc.params "fp" FixpipeParamsV220(nSize = 16, mSize = 16, srcStride = 16, dstStride = 16, ndNum = 1)
// CHECK-NEXT: %fq = ascendc.params "fq" FixpipeParamsV220(nSize = 16, mSize = 16, srcStride = 16, dstStride = 16, quantPre = F322F16, reluEn = true, ndNum = 1)
// CHECK-NEXT: ascendc.fixpipe %c_gm, %acc, %fp : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, CO1>, !ascendc.struct<FixpipeParamsV220>
// CHECK-NEXT: ascendc.free_tensor %qCO1, %acc : !ascendc.queue<CO1, 1>, !ascendc.local_tensor<f32, CO1>
// CHECK-NEXT: ascendc.return
// CHECK-NEXT: }
// CHECK-NEXT: pypto.func orchestration @main(%a: !pypto.tensor<[16, 16], f16>, out %c: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
// CHECK-NEXT: %r = ascendc.launch @mm blocks 1 (%a, %c) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
// CHECK-NEXT: %r2, %t = ascendc.launch @mm blocks 2 (%a, %r) task : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> (!pypto.tensor<[16, 16], f32>, !pypto.task_id)
// CHECK-NEXT: %r3, %t2 = ascendc.launch @mm blocks 1 (%a, %r2) deps(%t) task : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> (!pypto.tensor<[16, 16], f32>, !pypto.task_id)
// CHECK-NEXT: pypto.return %r3 : !pypto.tensor<[16, 16], f32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-GENERIC: "ascendc.kernel"() <{sym_name = "mm", kind = #ascendc<kind cube>, arg_names = ["a", "c"], results = [#ascendc.result<param 1>]}> ({
// CHECK-GENERIC: %nd = "ascendc.params"() <{name = "nd", fields = ["ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcDValue", "dstNzC0Stride", "dstNzNStride", "dstNzMatrixStride"], static_values = array<i64: 1, 16, 16, 0, 16, 16, 1, 0>}> : () -> !ascendc.struct<Nd2NzParams>
// CHECK-GENERIC: %ld = "ascendc.params"() <{name = "ld", fields = ["repeatTimes", "srcStride", "ifTranspose"], static_values = array<i64: 1, 1, 0>}> : () -> !ascendc.struct<LoadData2DParams>
// CHECK-GENERIC: %mp = "ascendc.params"() <{name = "mp", fields = ["m", "n", "k", "cmatrixInitVal"], static_values = array<i64: 16, 16, 16, 1>}> : () -> !ascendc.struct<MmadParams>

// -----

// The remaining vector instructions, the scalar cast and the padded copy-in.
ascendc.kernel vector @more(%x: !ascendc.gm_addr, %n: i64) attributes {arg_names = ["x", "n"]} {
  %x_gm = ascendc.global_tensor "x_gm" %x size 100 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %mbuf = ascendc.tbuf "mbuf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %inQ num 1 len 512 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %buf len 512 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %mbuf len 64 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  %a = ascendc.alloc_tensor "a" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy_pad %a, %x_gm ext(1, 400, 0, 0, 0) pad(false, 0, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  %d = ascendc.get_buf "d" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
  %m = ascendc.get_buf "m" %mbuf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
  %s = ascendc.scalar_cast %n : i64 -> f32
  ascendc.add %d, %a, %a count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>, !ascendc.local_tensor<f32, VECIN>
  ascendc.mul %d, %d, %a count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
  ascendc.div %d, %d, %a count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
  ascendc.max %d, %d, %a mask 64 repeat 2 params(1, 1, 1, 8, 8, 8) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
  ascendc.min %d, %d, %a count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
  ascendc.ln %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.sqrt %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.abs %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.relu %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.reciprocal %d, %d mask 64 repeat 2 params(1, 1, 8, 8) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.rsqrt %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
  ascendc.maxs %d, %d, %s count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
  ascendc.mins %d, %d, %s count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
  ascendc.select %d, %m, %d, %a mode VSEL_TENSOR_TENSOR_MODE count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
  ascendc.free_tensor %inQ, %a : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: builtin.module {
// CHECK-NEXT: ascendc.kernel vector @more(%x: !ascendc.gm_addr, %n: i64) attributes {arg_names = ["x", "n"]} {
// CHECK-NEXT: %x_gm = ascendc.global_tensor "x_gm" %x size 100 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
// CHECK-NEXT: %pipe = ascendc.tpipe "pipe"
// CHECK-NEXT: %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
// CHECK-NEXT: %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
// CHECK-NEXT: %mbuf = ascendc.tbuf "mbuf" : !ascendc.buffer<VECCALC>
// CHECK-NEXT: ascendc.init_buffer %pipe, %inQ num 1 len 512 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
// CHECK-NEXT: ascendc.init_buffer %pipe, %buf len 512 : !ascendc.pipe, !ascendc.buffer<VECCALC>
// CHECK-NEXT: ascendc.init_buffer %pipe, %mbuf len 64 : !ascendc.pipe, !ascendc.buffer<VECCALC>
// CHECK-NEXT: %a = ascendc.alloc_tensor "a" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.data_copy_pad %a, %x_gm ext(1, 400, 0, 0, 0) pad(false, 0, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
// CHECK-NEXT: %d = ascendc.get_buf "d" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: %m = ascendc.get_buf "m" %mbuf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<ui8, VECCALC>
// CHECK-NEXT: %s = ascendc.scalar_cast %n : i64 -> f32
// CHECK-NEXT: ascendc.add %d, %a, %a count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.mul %d, %d, %a count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.div %d, %d, %a count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.max %d, %d, %a mask 64 repeat 2 params(1, 1, 1, 8, 8, 8) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.min %d, %d, %a count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.ln %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.sqrt %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.abs %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.relu %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.reciprocal %d, %d mask 64 repeat 2 params(1, 1, 8, 8) : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.rsqrt %d, %d count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>
// CHECK-NEXT: ascendc.maxs %d, %d, %s count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
// CHECK-NEXT: ascendc.mins %d, %d, %s count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, f32
// CHECK-NEXT: ascendc.select %d, %m, %d, %a mode VSEL_TENSOR_TENSOR_MODE count 128 : !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.free_tensor %inQ, %a : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
// CHECK-NEXT: ascendc.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-GENERIC: "ascendc.data_copy_pad"(%a, %x_gm) <{ext = [1 : i64, 400 : i64, 0 : i64, 0 : i64, 0 : i64], pad = [false, 0 : i64, 0 : i64, 0 : i64]}> : (!ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>) -> ()
// CHECK-GENERIC: %s = "ascendc.scalar_cast"(%n) : (i64) -> f32
// CHECK-GENERIC: "ascendc.select"(%d, %m, %d, %a) <{mode = #ascendc<selmode VSEL_TENSOR_TENSOR_MODE>, count = 128 : i64}> : (!ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<ui8, VECCALC>, !ascendc.local_tensor<f32, VECCALC>, !ascendc.local_tensor<f32, VECIN>) -> ()

// -----

// Run-time row counts: a GM buffer of `%N * 128` elements (the kernel's dimension parameter)
// and padded copies of a partial tile whose blockCount is a run-time value bounded by ext[0].
ascendc.kernel vector @rows(%x: !ascendc.gm_addr, %N: index) attributes {arg_names = ["x", "N"]} {
  %x_gm = ascendc.global_tensor "x_gm" %x, %N size 128 : !ascendc.gm_addr, index -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %q num 1 len 4096 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy_pad %t, %x_gm, %N ext(8, 512, 0, 0, 0) pad(false, 0, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>, index
  ascendc.data_copy_pad %x_gm, %t, %N ext(8, 512, 0, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECIN>, index
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: ascendc.kernel vector @rows(%x: !ascendc.gm_addr, %N: index) attributes {arg_names = ["x", "N"]} {
// CHECK-NEXT: %x_gm = ascendc.global_tensor "x_gm" %x, %N size 128 : !ascendc.gm_addr, index -> !ascendc.gm_tensor<f32>
// CHECK: ascendc.data_copy_pad %t, %x_gm, %N ext(8, 512, 0, 0, 0) pad(false, 0, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>, index
// CHECK-NEXT: ascendc.data_copy_pad %x_gm, %t, %N ext(8, 512, 0, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECIN>, index
// CHECK-GENERIC: %x_gm = "ascendc.global_tensor"(%x, %N) <{name = "x_gm", size = 128 : i64}> : (!ascendc.gm_addr, index) -> !ascendc.gm_tensor<f32>
// CHECK-GENERIC: "ascendc.data_copy_pad"(%t, %x_gm, %N) <{ext = [8 : i64, 512 : i64, 0 : i64, 0 : i64, 0 : i64], pad = [false, 0 : i64, 0 : i64, 0 : i64]}> : (!ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>, index) -> ()

// The f32 cube path: LoadDataWithTranspose (LoadData2dTransposeParams) fills L0B, float x float -> float.
ascendc.kernel cube @mmf(%b: !ascendc.gm_addr) attributes {arg_names = ["b"]} {
  %pipe = ascendc.tpipe "pipe"
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB1 = ascendc.tque "qB1" : !ascendc.queue<B1, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %bm = ascendc.alloc_tensor "bm" %qB1 : !ascendc.queue<B1, 1> -> !ascendc.local_tensor<f32, B1>
  %br = ascendc.alloc_tensor "br" %qB2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<f32, B2>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f32, A2>
  %lt = ascendc.params "lt" LoadData2dTransposeParams(repeatTimes = 1, srcStride = 1, dstGap = 0, dstFracGap = 0)
  ascendc.load_data_with_transpose %br, %bm, %lt : !ascendc.local_tensor<f32, B2>, !ascendc.local_tensor<f32, B1>, !ascendc.struct<LoadData2dTransposeParams>
  %acc = ascendc.alloc_tensor "acc" %qCO1 : !ascendc.queue<CO1, 1> -> !ascendc.local_tensor<f32, CO1>
  %mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = true)
  ascendc.mmad %acc, %al, %br, %mp : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f32, A2>, !ascendc.local_tensor<f32, B2>, !ascendc.struct<MmadParams>
  ascendc.free_tensor %qB1, %bm : !ascendc.queue<B1, 1>, !ascendc.local_tensor<f32, B1>
  ascendc.free_tensor %qB2, %br : !ascendc.queue<B2, 1>, !ascendc.local_tensor<f32, B2>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f32, A2>
  ascendc.free_tensor %qCO1, %acc : !ascendc.queue<CO1, 1>, !ascendc.local_tensor<f32, CO1>
  ascendc.return
}

// CHECK-LABEL: ascendc.kernel cube @mmf
// CHECK: %lt = ascendc.params "lt" LoadData2dTransposeParams(repeatTimes = 1, srcStride = 1, dstGap = 0, dstFracGap = 0)
// CHECK-NEXT: ascendc.load_data_with_transpose %br, %bm, %lt : !ascendc.local_tensor<f32, B2>, !ascendc.local_tensor<f32, B1>, !ascendc.struct<LoadData2dTransposeParams>
// CHECK: ascendc.mmad %acc, %al, %br, %mp : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f32, A2>, !ascendc.local_tensor<f32, B2>, !ascendc.struct<MmadParams>

// -----

// LoadData with LoadData3DParamsV2<T>: one instruction per operand, L1 -> L0A and L1 -> L0B
// (which it transposes); the struct type carries its template argument.
ascendc.kernel cube @mm3d(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %qB1 = ascendc.tque "qB1" : !ascendc.queue<B1, 1>
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %am = ascendc.alloc_tensor "am" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %bm = ascendc.alloc_tensor "bm" %qB1 : !ascendc.queue<B1, 1> -> !ascendc.local_tensor<f32, B1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %br = ascendc.alloc_tensor "br" %qB2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<f32, B2>
  %la = ascendc.params "la" LoadData3DParamsV2<f16>(l1H = 1, l1W = 128, channelSize = 64, kExtension = 64, mExtension = 128)
  ascendc.load_data_3d_v2 %al, %am, %la : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData3DParamsV2, f16>
  %lb = ascendc.params "lb" LoadData3DParamsV2<f32>(l1H = 1, l1W = 32, channelSize = 48, kExtension = 48, mExtension = 32, mStartPt = 0, enTranspose = true)
  ascendc.load_data_3d_v2 %br, %bm, %lb : !ascendc.local_tensor<f32, B2>, !ascendc.local_tensor<f32, B1>, !ascendc.struct<LoadData3DParamsV2, f32>
  ascendc.free_tensor %qA1, %am : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  ascendc.free_tensor %qB1, %bm : !ascendc.queue<B1, 1>, !ascendc.local_tensor<f32, B1>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.free_tensor %qB2, %br : !ascendc.queue<B2, 1>, !ascendc.local_tensor<f32, B2>
  ascendc.return
}

// CHECK-LABEL: ascendc.kernel cube @mm3d
// CHECK: %la = ascendc.params "la" LoadData3DParamsV2<f16>(l1H = 1, l1W = 128, channelSize = 64, kExtension = 64, mExtension = 128)
// CHECK-NEXT: ascendc.load_data_3d_v2 %al, %am, %la : !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData3DParamsV2, f16>
// CHECK-NEXT: %lb = ascendc.params "lb" LoadData3DParamsV2<f32>(l1H = 1, l1W = 32, channelSize = 48, kExtension = 48, mExtension = 32, mStartPt = 0, enTranspose = true)
// CHECK-NEXT: ascendc.load_data_3d_v2 %br, %bm, %lb : !ascendc.local_tensor<f32, B2>, !ascendc.local_tensor<f32, B1>, !ascendc.struct<LoadData3DParamsV2, f32>
// CHECK-GENERIC: %la = "ascendc.params"() <{name = "la", fields = ["l1H", "l1W", "channelSize", "kExtension", "mExtension"], static_values = array<i64: 1, 128, 64, 64, 128>}> : () -> !ascendc.struct<LoadData3DParamsV2, f16>
// CHECK-GENERIC-NEXT: "ascendc.load_data_3d_v2"(%al, %am, %la) : (!ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, A1>, !ascendc.struct<LoadData3DParamsV2, f16>) -> ()
// CHECK-GENERIC-NEXT: %lb = "ascendc.params"() <{name = "lb", fields = ["l1H", "l1W", "channelSize", "kExtension", "mExtension", "mStartPt", "enTranspose"], static_values = array<i64: 1, 32, 48, 48, 32, 0, 1>}> : () -> !ascendc.struct<LoadData3DParamsV2, f32>

// -----

// The bias-table Mmad: a C2 row as its fourth operand.
ascendc.kernel cube @mmbias(%x: !ascendc.gm_addr) {
  %pipe = ascendc.tpipe "pipe"
  %qA2 = ascendc.tque "qA2" : !ascendc.queue<A2, 1>
  %qB2 = ascendc.tque "qB2" : !ascendc.queue<B2, 1>
  %qC2 = ascendc.tque "qC2" : !ascendc.queue<C2, 1>
  %qCO1 = ascendc.tque "qCO1" : !ascendc.queue<CO1, 1>
  %al = ascendc.alloc_tensor "al" %qA2 : !ascendc.queue<A2, 1> -> !ascendc.local_tensor<f16, A2>
  %br = ascendc.alloc_tensor "br" %qB2 : !ascendc.queue<B2, 1> -> !ascendc.local_tensor<f16, B2>
  %bt = ascendc.alloc_tensor "bt" %qC2 : !ascendc.queue<C2, 1> -> !ascendc.local_tensor<f32, C2>
  %acc = ascendc.alloc_tensor "acc" %qCO1 : !ascendc.queue<CO1, 1> -> !ascendc.local_tensor<f32, CO1>
  %mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = false)
  ascendc.mmad %acc, %al, %br, %bt, %mp : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, B2>, !ascendc.local_tensor<f32, C2>, !ascendc.struct<MmadParams>
  ascendc.free_tensor %qA2, %al : !ascendc.queue<A2, 1>, !ascendc.local_tensor<f16, A2>
  ascendc.free_tensor %qB2, %br : !ascendc.queue<B2, 1>, !ascendc.local_tensor<f16, B2>
  ascendc.free_tensor %qC2, %bt : !ascendc.queue<C2, 1>, !ascendc.local_tensor<f32, C2>
  ascendc.free_tensor %qCO1, %acc : !ascendc.queue<CO1, 1>, !ascendc.local_tensor<f32, CO1>
  ascendc.return
}

// CHECK-LABEL: ascendc.kernel cube @mmbias
// CHECK: ascendc.mmad %acc, %al, %br, %bt, %mp : !ascendc.local_tensor<f32, CO1>, !ascendc.local_tensor<f16, A2>, !ascendc.local_tensor<f16, B2>, !ascendc.local_tensor<f32, C2>, !ascendc.struct<MmadParams>

// -----

// Atomic add into global memory around a copy out (split-K partials).
ascendc.kernel cube @atomic(%x: !ascendc.gm_addr) {
  ascendc.set_atomic_add f32
  ascendc.set_atomic_none
  ascendc.return
}

// CHECK-LABEL: ascendc.kernel cube @atomic
// CHECK-NEXT: ascendc.set_atomic_add f32
// CHECK-NEXT: ascendc.set_atomic_none

// -----

// A partial tile's run-time copy and fills: DataCopyPad with run-time fields (their ext values
// the bounds), Duplicate with a run-time count and the level-0 form with a run-time mask and repeat.
ascendc.kernel vector @partial(%x: !ascendc.gm_addr, %rows: index, %cols: index, %len: index, %pad: index) attributes {arg_names = ["x", "rows", "cols", "len", "pad"]} {
  %x_gm = ascendc.global_tensor "x_gm" %x size 4096 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %inQ num 1 len 16384 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %inQ : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  %ninf = arith.constant 0xFF800000 : f32
  ascendc.data_copy_pad %t, %x_gm, %rows, %len, %pad, %ninf ext(64, 256, 0, 0, 0) pad(true, 0, 0, 0) {runtime_fields = ["blockCount", "blockLen", "rightPadding", "paddingValue"]} : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>, index, index, index, f32
  ascendc.duplicate %t, %ninf, %cols, %rows params(1, 8) : !ascendc.local_tensor<f32, VECIN>, f32, index, index
  ascendc.duplicate %t, %ninf, %len : !ascendc.local_tensor<f32, VECIN>, f32, index
  ascendc.free_tensor %inQ, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: ascendc.data_copy_pad %t, %x_gm, %rows, %len, %pad, %ninf ext(64, 256, 0, 0, 0) pad(true, 0, 0, 0) {runtime_fields = ["blockCount", "blockLen", "rightPadding", "paddingValue"]} : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>, index, index, index, f32
// CHECK-NEXT: ascendc.duplicate %t, %ninf, %cols, %rows params(1, 8) : !ascendc.local_tensor<f32, VECIN>, f32, index, index
// CHECK-NEXT: ascendc.duplicate %t, %ninf, %len : !ascendc.local_tensor<f32, VECIN>, f32, index
// CHECK-GENERIC: "ascendc.data_copy_pad"(%t, %x_gm, %rows, %len, %pad, %ninf) <{ext = [64 : i64, 256 : i64, 0 : i64, 0 : i64, 0 : i64], pad = [true, 0 : i64, 0 : i64, 0 : i64], runtime_fields = ["blockCount", "blockLen", "rightPadding", "paddingValue"]}>
// CHECK-GENERIC: "ascendc.duplicate"(%t, %ninf, %cols, %rows) <{params = [1 : i64, 8 : i64]}>

// -----

// Run-time fields of a parameter struct: operands, printed in the struct's declaration order
// among the static ones, their types after the fields. Generically, `fields` names every field
// and `static_values` marks a run-time one with -2^63 (MLIR's kDynamic): the next operand.
ascendc.kernel cube @runtime_fields(%n: i64) {
  %c0 = arith.constant 0 : i64
  %first = arith.cmpi eq, %n, %c0 : i64
  %mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = %first) : i1
  %nd = ascendc.params "nd" Nd2NzParams(ndNum = 1, nValue = %n, dValue = 16) : i64
  ascendc.return
}

// CHECK-LABEL: ascendc.kernel cube @runtime_fields
// CHECK: %mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = 16, cmatrixInitVal = %first) : i1
// CHECK-NEXT: %nd = ascendc.params "nd" Nd2NzParams(ndNum = 1, nValue = %n, dValue = 16) : i64
// CHECK-GENERIC: %mp = "ascendc.params"(%first) <{name = "mp", fields = ["m", "n", "k", "cmatrixInitVal"], static_values = array<i64: 16, 16, 16, -9223372036854775808>}> : (i1) -> !ascendc.struct<MmadParams>
// CHECK-GENERIC-NEXT: %nd = "ascendc.params"(%n) <{name = "nd", fields = ["ndNum", "nValue", "dValue"], static_values = array<i64: 1, -9223372036854775808, 16>}> : (i64) -> !ascendc.struct<Nd2NzParams>
