// Hand-written misuse of the Ascend C / ACL subset: each mode must stop the simulation with a
// "pypto-sim error" naming the problem (tests/test_backend_sim.py runs every mode).
#include <cstdio>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "kernel_operator.h"
#include "pypto_sim/launch.h"

using namespace AscendC;

static std::string g_mode;

extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
  GlobalTensor<float> xg, yg;
  xg.SetGlobalBuffer((__gm__ float*)x, 256);
  yg.SetGlobalBuffer((__gm__ float*)y, 256);
  const std::string& m = g_mode;
  TPipe pipe;
  TQue<TPosition::VECIN, 1> qin;
  TQue<TPosition::VECOUT, 1> qout;
  TBuf<TPosition::VECCALC> tbuf;
  if (m == "ub_overflow") {
    pipe.InitBuffer(qin, 1, 100 * 1024);
    pipe.InitBuffer(qout, 1, 100 * 1024);
  }
  pipe.InitBuffer(qin, 1, 1024);
  pipe.InitBuffer(qout, 1, 1024);
  pipe.InitBuffer(tbuf, 1024);
  LocalTensor<float> a = qin.AllocTensor<float>();
  DataCopy(a, xg, 256);
  if (m == "compute_before_deque") {
    LocalTensor<float> t = tbuf.Get<float>();
    Exp(t, a, 256);
  }
  if (m == "alloc_exhausted") {
    LocalTensor<float> again = qin.AllocTensor<float>();
  }
  if (m == "dequeue_empty") {
    LocalTensor<float> nothing = qout.DeQue<float>();
  }
  qin.EnQue(a);
  if (m == "use_while_enqueued") {
    LocalTensor<float> t = tbuf.Get<float>();
    Exp(t, a, 256);
  }
  a = qin.DeQue<float>();
  LocalTensor<float> b = qout.AllocTensor<float>();
  if (m == "misaligned") Exp(b, a[3], 64);
  if (m == "count_overflow") Exp(b, a, 512);
  if (m == "pipe_v_raw" || m == "pipe_v_war" || m == "pipe_v_waw" || m == "pipe_v_ok") {
    LocalTensor<float> t = tbuf.Get<float>();
    Exp(t, a, 256);
    if (m != "pipe_v_raw") PipeBarrier<PIPE_V>();
    Abs(b, t, 128);  // reads what Exp wrote (RAW without the barrier)
    Abs(b[128], t[128], 128);  // disjoint from the Abs before: no barrier needed
    if (m == "pipe_v_war") Relu(t[64], a, 64);  // writes bytes the first Abs read
    if (m == "pipe_v_waw") Relu(b[64], a, 64);  // writes bytes the first Abs wrote
    PipeBarrier<PIPE_V>();
    std::printf("pipe_v ok\n");
  }
  Exp(b, a, 256);
  PipeBarrier<PIPE_V>();
  if (m == "getvalue_without_sync") (void)b.GetValue(0);
  if (m == "wait_without_set") WaitFlag<HardEvent::V_S>(EVENT_ID1);
  if (m == "event_ids_exhausted")
    for (int k = 0; k < 9; ++k) (void)pipe.AllocEventID<HardEvent::MTE3_MTE2>();
  if (m == "release_foreign_event_id") pipe.ReleaseEventID<HardEvent::MTE3_MTE2>(pipe.FetchEventID<HardEvent::MTE3_MTE2>());
  if (m == "release_with_flag_set") {
    TEventID id = pipe.AllocEventID<HardEvent::MTE3_MTE2>();
    SetFlag<HardEvent::MTE3_MTE2>(id);
    pipe.ReleaseEventID<HardEvent::MTE3_MTE2>(id);
  }
  if (m == "event_id_not_released") (void)pipe.AllocEventID<HardEvent::MTE3_MTE2>();
  if (m == "event_ids_ok") {
    // reserved ids are not lent; a released one is available again
    TEventID a = pipe.AllocEventID<HardEvent::MTE3_MTE2>();
    TEventID f = pipe.FetchEventID(HardEvent::MTE3_MTE2);
    if (f == a) std::printf("fetch lent a reserved id\n");
    SetFlag<HardEvent::MTE3_MTE2>(f);
    WaitFlag<HardEvent::MTE3_MTE2>(f);
    pipe.ReleaseEventID<HardEvent::MTE3_MTE2>(a);
    if (pipe.FetchEventID<HardEvent::MTE3_MTE2>() != a) std::printf("released id not reused\n");
    std::printf("event ids ok\n");
  }
  if (m == "repeat_limit") WholeReduceSum(b, a, 64, 300, 1, 1, 8);
  if (m == "mask_limit") WholeReduceMax(b, a, 65, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
  if (m == "brcb_misaligned") Brcb(b, a[3], 1, BrcbRepeatParams(1, 8));
  if (m == "brcb_repeat_limit") Brcb(b, a, 256, BrcbRepeatParams(1, 8));
  if (m == "brcb_overflow") Brcb(b, a, 5, BrcbRepeatParams(1, 8));  // 5 x 8 blocks = 320 floats > 256
  if (m == "brcb_in_place") Brcb(b, b[32], 1, BrcbRepeatParams(1, 8));  // reads [32, 40), writes [0, 64)
  if (m == "brcb_row_sub_ok") {
    // rows of 16 floats: row r of b = row r of a - a[r] (Brcb block r holds a[r])
    LocalTensor<float> blocks = tbuf.Get<float>();
    Brcb(blocks, a, 2, BrcbRepeatParams(1, 8));
    PipeBarrier<PIPE_V>();
    Sub(b, a, blocks, 16, 16, BinaryRepeatParams(1, 1, 0, 2, 2, 1));
    bool good = true;
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t c = 0; c < 16; ++c) good = good && b.sim_ptr()[r * 16 + c] == a.sim_ptr()[r * 16 + c] - a.sim_ptr()[r];
    std::printf("brcb %s\n", good ? "ok" : "wrong");
  }
  qin.FreeTensor(a);
  if (m == "use_after_free") Exp(b, a, 256);
  if (m == "copy_out_without_queue") DataCopy(yg, b, 256);
  qout.EnQue(b);
  b = qout.DeQue<float>();
  if (m == "copy_not_whole_blocks") DataCopy(yg, b, 5);
  if (m == "gm_out_of_bounds") DataCopy(yg[128], b, 256);
  DataCopy(yg, b, 256);
  if (m != "leak") qout.FreeTensor(b);
}

// Cube path: C[16, 16] = A[16, 16] @ A[16, 16] through L1, L0A/L0B and L0C.
extern "C" __global__ __aicore__ void kc(GM_ADDR a, GM_ADDR cout) {
  GlobalTensor<half> ag;
  GlobalTensor<float> cg;
  ag.SetGlobalBuffer((__gm__ half*)a, 256);
  cg.SetGlobalBuffer((__gm__ float*)cout, 256);
  const std::string& m = g_mode;
  TPipe pipe;
  TQue<TPosition::A1, 1> qa1;
  TQue<TPosition::B1, 1> qb1;
  TQue<TPosition::A2, 1> qa2;
  TQue<TPosition::B2, 1> qb2;
  TQue<TPosition::CO1, 1> qc;
  if (m == "cube_l0a_overflow") pipe.InitBuffer(qa2, 1, 70000);
  pipe.InitBuffer(qa1, 1, 512);
  pipe.InitBuffer(qb1, 1, 512);
  pipe.InitBuffer(qa2, 1, 512);
  pipe.InitBuffer(qb2, 1, 512);
  pipe.InitBuffer(qc, 1, 1024);
  if (m == "cube_f32_iftranspose") {
    TQue<TPosition::A1, 1> qf1;
    TQue<TPosition::B2, 1> qf2;
    pipe.InitBuffer(qf1, 1, 512);
    pipe.InitBuffer(qf2, 1, 512);
    LocalTensor<float> f1 = qf1.AllocTensor<float>();
    LocalTensor<float> f2 = qf2.AllocTensor<float>();
    LoadData2DParams tp;
    tp.ifTranspose = true;
    LoadData(f2, f1, tp);
  }
  Nd2NzParams nz;
  nz.nValue = 16;
  nz.dValue = 16;
  nz.srcDValue = 16;
  nz.dstNzC0Stride = 16;
  LocalTensor<half> a1 = qa1.AllocTensor<half>();
  // a resident panel's chunk is synchronised by SetFlag/WaitFlag<MTE2_MTE1> instead of the
  // queue: the flag must come after the copy it publishes
  const bool flagged = m == "cube_flagged_copy_ok" || m == "cube_flag_before_copy";
  auto mte2_to_mte1 = [&pipe] {
    TEventID e = pipe.FetchEventID<HardEvent::MTE2_MTE1>();
    SetFlag<HardEvent::MTE2_MTE1>(e);
    WaitFlag<HardEvent::MTE2_MTE1>(e);
  };
  if (m == "cube_flag_before_copy") mte2_to_mte1();
  DataCopy(a1, ag, nz);
  LoadData2DParams lp;
  if (m == "cube_loaddata_before_deque") {
    LocalTensor<half> early = qa2.AllocTensor<half>();
    LoadData(early, a1, lp);
  }
  if (m == "cube_load3d_before_deque") {
    LocalTensor<half> early = qa2.AllocTensor<half>();
    LoadData3DParamsV2<half> p3;
    p3.l1H = 1;
    p3.l1W = 16;
    p3.channelSize = 16;
    p3.kExtension = 16;
    p3.mExtension = 16;
    LoadData(early, a1, p3);
  }
  if (m == "cube_flagged_copy_ok") mte2_to_mte1();
  if (!flagged) {
    qa1.EnQue(a1);
    a1 = qa1.DeQue<half>();
  }
  LocalTensor<half> b1 = qb1.AllocTensor<half>();
  DataCopy(b1, ag, nz);
  qb1.EnQue(b1);
  b1 = qb1.DeQue<half>();
  LocalTensor<half> a2 = qa2.AllocTensor<half>();
  LocalTensor<half> b2 = qb2.AllocTensor<half>();
  if (m.rfind("cube_load3d", 0) == 0) {
    // the [16, 16] tiles as feature maps of 16 positions by 16 channels: one LoadData each
    LoadData3DParamsV2<half> p3;
    p3.l1H = 1;
    p3.l1W = 16;
    p3.channelSize = 16;
    p3.kExtension = m == "cube_load3d_partial_fractal" ? 8 : 16;
    p3.mExtension = m == "cube_load3d_outside" ? 32 : 16;
    if (m == "cube_load3d_filter") p3.filterW = 2;
    if (m == "cube_load3d_l0a_transpose") p3.enTranspose = true;
    if (m == "cube_load3d_misaligned") {
      TQue<TPosition::A2, 1> qw;
      pipe.InitBuffer(qw, 1, 1024);
      LocalTensor<half> wide = qw.AllocTensor<half>();
      LoadData(wide[16], a1, p3);
    }
    LoadData(a2, a1, p3);
    p3.enTranspose = true;  // as the devkit's sample sets it for L0B, where it has no effect
    LoadData(b2, b1, p3);
  } else {
    LoadData(a2, a1, lp);
    lp.ifTranspose = true;
    LoadData(b2, b1, lp);
  }
  MmadParams mm;
  mm.m = 16;
  mm.n = 16;
  mm.k = m == "cube_bad_k" ? 8 : 16;
  LocalTensor<float> c = qc.AllocTensor<float>();
  if (m == "cube_mmad_before_deque") Mmad(c, a2, b2, mm);
  qa2.EnQue(a2);
  a2 = qa2.DeQue<half>();
  qb2.EnQue(b2);
  b2 = qb2.DeQue<half>();
  if (m == "cube_bias_init_true" || m == "cube_bias_before_deque") {
    TQue<TPosition::C1, 1> qr1;
    TQue<TPosition::C2, 1> qbt;
    pipe.InitBuffer(qr1, 1, 64);
    pipe.InitBuffer(qbt, 1, 64);
    LocalTensor<float> r1 = qr1.AllocTensor<float>();
    DataCopy(r1, cg, 16);
    qr1.EnQue(r1);
    r1 = qr1.DeQue<float>();
    LocalTensor<float> bt = qbt.AllocTensor<float>();
    DataCopy(bt, r1, 16);
    if (m == "cube_bias_init_true") {
      qbt.EnQue(bt);
      bt = qbt.DeQue<float>();
    }
    mm.cmatrixInitVal = m == "cube_bias_init_true";
    Mmad(c, a2, b2, bt, mm);
  }
  if (m == "cube_cmatrix_source_without_bias") mm.cmatrixSource = true;
  Mmad(c, a2, b2, mm);
  FixpipeParamsV220 fp;
  fp.nSize = 16;
  fp.mSize = 16;
  fp.srcStride = 16;
  fp.dstStride = 16;
  if (m == "cube_fixpipe_without_queue") Fixpipe(cg, c, fp);
  qc.EnQue(c);
  c = qc.DeQue<float>();
  if (m == "cube_atomic_type_mismatch") SetAtomicAdd<int32_t>();
  if (m == "cube_atomic_left_on") SetAtomicAdd<float>();
  Fixpipe(cg, c, fp);
  qc.FreeTensor(c);
  qa1.FreeTensor(a1);
  qb1.FreeTensor(b1);
  qa2.FreeTensor(a2);
  qb2.FreeTensor(b2);
}

inline uint32_t aclrtlaunch_k(uint32_t blockDim, aclrtStream stream, void* x, void* y) {
  return pypto_sim::launch("k", blockDim, stream, [&] {
    k(static_cast<uint8_t*>(pypto_sim::device_arg("k", "x", x)), static_cast<uint8_t*>(pypto_sim::device_arg("k", "y", y)));
  });
}

static int run_cube() {
  half a[256];
  float c[256];
  for (int i = 0; i < 256; ++i) a[i] = static_cast<half>((i % 16 == i / 16) ? 1.0f : 0.0f);  // identity
  a[1] = static_cast<half>(2.0f);
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  void *da = nullptr, *dc = nullptr;
  aclrtMalloc(&da, sizeof(a), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&dc, sizeof(c), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(da, sizeof(a), a, sizeof(a), ACL_MEMCPY_HOST_TO_DEVICE);
  pypto_sim::launch("kc", 1, stream, [&] { kc(static_cast<uint8_t*>(da), static_cast<uint8_t*>(dc)); });
  aclrtMemcpy(c, sizeof(c), dc, sizeof(c), ACL_MEMCPY_DEVICE_TO_HOST);
  aclrtFree(da);
  aclrtFree(dc);
  aclFinalize();
  // (I + 2 e01)^2 = I + 4 e01
  std::printf("ok %.1f %.1f %.1f\n", c[0], c[1], c[17]);
  return 0;
}

int main(int argc, char** argv) {
  g_mode = argc > 1 ? argv[1] : "ok";
  if (g_mode.rfind("cube_", 0) == 0) return run_cube();
  float host[256];
  for (int i = 0; i < 256; ++i) host[i] = 0.01f * i;
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  void *x = nullptr, *y = nullptr;
  aclrtMalloc(&x, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(x, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE);
  if (g_mode == "host_pointer_arg") {
    ACLRT_LAUNCH_KERNEL(k)(1, stream, host, y);
  }
  if (g_mode == "memcpy_overflow") {
    float big[512] = {};
    aclrtMemcpy(x, sizeof(big), big, sizeof(big), ACL_MEMCPY_HOST_TO_DEVICE);
  }
  // one block: k writes all of y, so two blocks would race on it (the simulation reports that)
  if (ACLRT_LAUNCH_KERNEL(k)(1, stream, x, y) != 0) return 1;
  aclrtSynchronizeStream(stream);
  aclrtMemcpy(host, sizeof(host), y, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST);
  if (g_mode != "finalize_with_leak") {
    aclrtFree(x);
    aclrtFree(y);
  }
  if (g_mode == "double_free") aclrtFree(x);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  std::printf("ok %.6f\n", host[100]);
  return 0;
}
