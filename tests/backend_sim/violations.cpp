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
  Exp(b, a, 256);
  if (m == "getvalue_without_sync") (void)b.GetValue(0);
  if (m == "wait_without_set") WaitFlag<HardEvent::V_S>(EVENT_ID1);
  if (m == "repeat_limit") WholeReduceSum(b, a, 64, 300, 1, 1, 8);
  if (m == "mask_limit") WholeReduceMax(b, a, 65, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
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

inline uint32_t aclrtlaunch_k(uint32_t blockDim, aclrtStream stream, void* x, void* y) {
  return pypto_sim::launch("k", blockDim, stream, [&] {
    k(static_cast<uint8_t*>(pypto_sim::device_arg("k", "x", x)), static_cast<uint8_t*>(pypto_sim::device_arg("k", "y", y)));
  });
}

int main(int argc, char** argv) {
  g_mode = argc > 1 ? argv[1] : "ok";
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
  if (ACLRT_LAUNCH_KERNEL(k)(2, stream, x, y) != 0) return 1;
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
