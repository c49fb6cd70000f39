// LoadData with LoadData3DParamsV2 in the simulation: C = A' x B' where A' and B' are the
// windows one LoadData 3D v2 each moves from the L1 NZ copies of A [32, 64] and B [64, 48]
// into L0A and L0B (tests/test_sim_load3d.py compares C with numpy and checks the MTE1 time).
//   mode 0: the whole tiles (l1H = 1, l1W = rows, channelSize = columns)
//   mode 1: A[16:32, 16:48] and B[16:48, 16:48] (mStartPt, kStartPt), C[16, 32]
//   mode 2: the whole tiles as feature maps of several rows (A: 2 x 16 positions, B: 4 x 16)
// ELEM_F32=1: float operands (C0 = 8), else half.
#include "kernel_operator.h"

#ifndef ELEM_F32
#define ELEM_F32 0
#endif

using namespace AscendC;

#if ELEM_F32
using T = float;
#else
using T = half;
#endif

namespace {
constexpr uint16_t M = 32, K = 64, N = 48;
}

extern "C" __global__ __aicore__ void load3d_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c, int64_t mode) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
  GlobalTensor<T> aGm, bGm;
  GlobalTensor<float> cGm;
  aGm.SetGlobalBuffer((__gm__ T*)a, M * K);
  bGm.SetGlobalBuffer((__gm__ T*)b, K * N);
  cGm.SetGlobalBuffer((__gm__ float*)c, M * N);
  TPipe pipe;
  TQue<TPosition::A1, 1> qA1;
  TQue<TPosition::B1, 1> qB1;
  TQue<TPosition::A2, 1> qA2;
  TQue<TPosition::B2, 1> qB2;
  TQue<TPosition::CO1, 1> qCO1;
  pipe.InitBuffer(qA1, 1, M * K * sizeof(T));
  pipe.InitBuffer(qB1, 1, K * N * sizeof(T));
  pipe.InitBuffer(qA2, 1, M * K * sizeof(T));
  pipe.InitBuffer(qB2, 1, K * N * sizeof(T));
  pipe.InitBuffer(qCO1, 1, M * N * sizeof(float));

  LocalTensor<T> a1 = qA1.AllocTensor<T>();
  Nd2NzParams na;
  na.ndNum = 1;
  na.nValue = M;
  na.dValue = K;
  na.srcNdMatrixStride = 0;
  na.srcDValue = K;
  na.dstNzC0Stride = M;
  na.dstNzNStride = 1;
  na.dstNzMatrixStride = 0;
  DataCopy(a1, aGm, na);
  qA1.EnQue(a1);
  LocalTensor<T> b1 = qB1.AllocTensor<T>();
  Nd2NzParams nb;
  nb.ndNum = 1;
  nb.nValue = K;
  nb.dValue = N;
  nb.srcNdMatrixStride = 0;
  nb.srcDValue = N;
  nb.dstNzC0Stride = K;
  nb.dstNzNStride = 1;
  nb.dstNzMatrixStride = 0;
  DataCopy(b1, bGm, nb);
  qB1.EnQue(b1);

  const uint16_t m = mode == 1 ? 16 : M, k = mode == 1 ? 32 : K, n = mode == 1 ? 32 : N;
  LocalTensor<T> a2 = qA2.AllocTensor<T>();
  a1 = qA1.DeQue<T>();
  LoadData3DParamsV2<T> la;
  la.l1H = mode == 2 ? 2 : 1;
  la.l1W = M / la.l1H;
  la.channelSize = K;
  la.kExtension = k;
  la.mExtension = m;
  la.kStartPt = mode == 1 ? 16 : 0;
  la.mStartPt = mode == 1 ? 16 : 0;
  LoadData(a2, a1, la);
  qA2.EnQue(a2);
  qA1.FreeTensor(a1);
  LocalTensor<T> b2 = qB2.AllocTensor<T>();
  b1 = qB1.DeQue<T>();
  LoadData3DParamsV2<T> lb;
  lb.l1H = mode == 2 ? 4 : 1;
  lb.l1W = K / lb.l1H;
  lb.channelSize = N;
  lb.kExtension = n;
  lb.mExtension = k;
  lb.kStartPt = mode == 1 ? 16 : 0;
  lb.mStartPt = mode == 1 ? 16 : 0;
  lb.enTranspose = true;
  LoadData(b2, b1, lb);
  qB2.EnQue(b2);
  qB1.FreeTensor(b1);

  LocalTensor<float> acc = qCO1.AllocTensor<float>();
  a2 = qA2.DeQue<T>();
  b2 = qB2.DeQue<T>();
  MmadParams mp;
  mp.m = m;
  mp.n = n;
  mp.k = k;
  mp.cmatrixInitVal = true;
  Mmad(acc, a2, b2, mp);
  qA2.FreeTensor(a2);
  qB2.FreeTensor(b2);
  qCO1.EnQue(acc);
  acc = qCO1.DeQue<float>();
  FixpipeParamsV220 fp;
  fp.nSize = n;
  fp.mSize = m;
  fp.srcStride = m;
  fp.dstStride = N;
  fp.ndNum = 1;
  Fixpipe(cGm, acc, fp);
  qCO1.FreeTensor(acc);
}
