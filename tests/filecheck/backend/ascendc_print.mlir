// RUN: pypto-opt %s -t ascendc | filecheck %s
// The kernel printer on a hand-written ascendc kernel that is already planned and
// synchronised: one op -> one C++ statement or declaration, expressions (ascendc.at,
// scalar_cast, unary_minus, get_block_idx, constants) where they are used, names as the
// IR declares them. No planning or synchronisation is added.

ascendc.kernel vector @vec(%x: !ascendc.gm_addr, %s: f32, %z: !ascendc.gm_addr, %workspace: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 2>], workspace = 1024 : i64, memory_plan = {UB = {capacity = 196608 : i64, used = 32768 : i64}}, sync = "explicit"} {
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
  ascendc.return
}


// CHECK-LABEL: // ===== file: kernels/vec.cpp =====
// CHECK-NEXT: // Ascend C kernel for @vec, generated by pypto-xdsl. Do not edit.
// CHECK-NEXT: // Unified Buffer plan: 32768 of 196608 bytes.
// CHECK-NEXT: #include "kernel_operator.h"
// CHECK: using namespace AscendC;
// CHECK: extern "C" __global__ __aicore__ void vec(GM_ADDR x, float s, GM_ADDR z, GM_ADDR workspace) {
// CHECK-NEXT: GlobalTensor<float> x_gm;
// CHECK-NEXT: x_gm.SetGlobalBuffer((__gm__ float*)x, 2048);
// CHECK-NEXT: GlobalTensor<float> z_gm;
// CHECK-NEXT: z_gm.SetGlobalBuffer((__gm__ float*)z, 2048);
// CHECK-NEXT: // Kernel-local GM tensors: 1024 bytes of workspace per block, this block's part.
// CHECK-NEXT: GM_ADDR block_ws = workspace + AscendC::GetBlockIdx() * 1024;
// CHECK-NEXT: GlobalTensor<float> m_gm;  // %m !pypto.tensor<[16], f32>
// CHECK-NEXT: m_gm.SetGlobalBuffer((__gm__ float*)(block_ws), 16);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::VECIN, 2> inQ_a;  // %a !pypto.tile<[16, 128], f32, vec>
// CHECK-NEXT: TQue<TPosition::VECOUT, 1> outQ_b;
// CHECK-NEXT: TBuf<TPosition::VECCALC> calcBuf0;  // %c, %d (disjoint live ranges)
// CHECK-NEXT: pipe.InitBuffer(inQ_a, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(outQ_b, 1, 8192);
// CHECK-NEXT: pipe.InitBuffer(calcBuf0, 8192);
// CHECK: for (int64_t i = 0; i < 64; i += 16) {
// CHECK-NEXT: LocalTensor<float> a = inQ_a.AllocTensor<float>();
// CHECK-NEXT: DataCopy(a, x_gm[i * 128], 2048);
// CHECK-NEXT: inQ_a.EnQue(a);
// CHECK-NEXT: a = inQ_a.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> c = calcBuf0.Get<float>();
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Exp(c, a, 2048);
// CHECK-NEXT: Muls(c, c, 1.0f, 64, 16, UnaryRepeatParams(1, 1, 8, 16));
// CHECK-NEXT: Adds(c, c, -s, 2048);
// CHECK-NEXT: Sub(c, c, a[64], 64, 16, BinaryRepeatParams(1, 1, 0, 16, 16, 1));
// CHECK-NEXT: inQ_a.FreeTensor(a);
// CHECK-NEXT: LocalTensor<float> b = outQ_b.AllocTensor<float>();
// CHECK-NEXT: WholeReduceMax(b, c, 64, 16, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
// CHECK-NEXT: WholeReduceSum(b, c, 64, 16, 1, 1, 8);
// CHECK-NEXT: Brcb(c, b, 2, BrcbRepeatParams(1, 8));
// CHECK-NEXT: Duplicate(b, s, 2048);
// CHECK-NEXT: Cast(b, c, RoundMode::CAST_RINT, 2048);
// CHECK-NEXT: outQ_b.EnQue(b);
// CHECK-NEXT: b = outQ_b.DeQue<float>();
// CHECK-NEXT: DataCopy(z_gm[i * 128 + 4], b, DataCopyParams(16, 16, 0, 0));
// CHECK-NEXT: DataCopyPad(m_gm, b, DataCopyExtParams(1, 64, 0, 0, 0));
// CHECK-NEXT: outQ_b.FreeTensor(b);
// CHECK-NEXT: TEventID e = pipe.FetchEventID<HardEvent::MTE3_MTE2>();
// CHECK-NEXT: SetFlag<HardEvent::MTE3_MTE2>(e);
// CHECK-NEXT: WaitFlag<HardEvent::MTE3_MTE2>(e);
// CHECK-NEXT: TEventID f = pipe.AllocEventID<HardEvent::MTE3_MTE2>();
// CHECK-NEXT: SetFlag<HardEvent::MTE3_MTE2>(f);
// CHECK-NEXT: WaitFlag<HardEvent::MTE3_MTE2>(f);
// CHECK-NEXT: pipe.ReleaseEventID<HardEvent::MTE3_MTE2>(f);
// CHECK-NEXT: }
// CHECK-NEXT: }
