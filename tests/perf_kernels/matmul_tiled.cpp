// Hand-written Ascend C sample-style kernel (pypto-xdsl calibration, tests/test_perf_model.py):
// C[M, N] (f32) = A[M, K] (f16) x B[K, N] (f16) on the cube core, tiled BM x BN per output tile
// (tiles dealt to the launch's blocks in turn) and BK along K, with every stage double
// buffered: GM -> L1 (MTE2, Nd2Nz DataCopy), L1 -> L0A/L0B (MTE1, one LoadData with
// LoadData3DParamsV2 per operand, as the devkit's matmul_basic_api_high_performance sample), Mmad into L0C (M,
// accumulating along K), L0C -> GM (FIX, Fixpipe) overlapping the next tile's Mmads when
// C_BUFFER_NUM is 2 (BM x BN f32 tiles of at most 64 KiB). OUT_F16=1: C is f16, the Fixpipe
// converts on its way out (quantPre = QuantMode_t::F322F16, as the devkit's
// matmul_basic_api_high_performance sample writes its half output).
#include "kernel_operator.h"

#ifndef M_SIZE
#define M_SIZE 1024
#endif
#ifndef N_SIZE
#define N_SIZE 1024
#endif
#ifndef K_SIZE
#define K_SIZE 1024
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 128
#endif
#ifndef BUFFER_NUM
#define BUFFER_NUM 2
#endif
#ifndef OUT_F16
#define OUT_F16 0
#endif
#ifndef C_BUFFER_NUM
#define C_BUFFER_NUM BUFFER_NUM
#endif

using namespace AscendC;

namespace {

#if OUT_F16
using OutT = half;
#else
using OutT = float;
#endif

class KernelMatmul {
 public:
  __aicore__ inline KernelMatmul() {}
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    aGm_.SetGlobalBuffer((__gm__ half*)a, M_SIZE * K_SIZE);
    bGm_.SetGlobalBuffer((__gm__ half*)b, K_SIZE * N_SIZE);
    cGm_.SetGlobalBuffer((__gm__ OutT*)c, M_SIZE * N_SIZE);
    pipe_.InitBuffer(qA1_, BUFFER_NUM, BM * BK * sizeof(half));
    pipe_.InitBuffer(qB1_, BUFFER_NUM, BK * BN * sizeof(half));
    pipe_.InitBuffer(qA2_, BUFFER_NUM, BM * BK * sizeof(half));
    pipe_.InitBuffer(qB2_, BUFFER_NUM, BK * BN * sizeof(half));
    pipe_.InitBuffer(qCO1_, C_BUFFER_NUM, BM * BN * sizeof(float));
  }
  __aicore__ inline void Process() {
    constexpr int32_t tilesN = N_SIZE / BN;
    constexpr int32_t tiles = (M_SIZE / BM) * tilesN;
    for (int32_t t = GetBlockIdx(); t < tiles; t += GetBlockNum()) {
      const int32_t m0 = t / tilesN * BM, n0 = t % tilesN * BN;
      LocalTensor<float> c = qCO1_.AllocTensor<float>();
      for (int32_t k0 = 0; k0 < K_SIZE; k0 += BK) {
        CopyIn(m0, n0, k0);
        SplitA();
        SplitB();
        Compute(c, k0 == 0);
      }
      qCO1_.EnQue(c);
      CopyOut(m0, n0);
    }
  }

 private:
  __aicore__ inline void CopyIn(int32_t m0, int32_t n0, int32_t k0) {
    LocalTensor<half> a1 = qA1_.AllocTensor<half>();
    Nd2NzParams pa;
    pa.ndNum = 1;
    pa.nValue = BM;
    pa.dValue = BK;
    pa.srcNdMatrixStride = 0;
    pa.srcDValue = K_SIZE;
    pa.dstNzC0Stride = BM;
    pa.dstNzNStride = 1;
    pa.dstNzMatrixStride = 0;
    DataCopy(a1, aGm_[m0 * K_SIZE + k0], pa);
    qA1_.EnQue(a1);
    LocalTensor<half> b1 = qB1_.AllocTensor<half>();
    Nd2NzParams pb;
    pb.ndNum = 1;
    pb.nValue = BK;
    pb.dValue = BN;
    pb.srcNdMatrixStride = 0;
    pb.srcDValue = N_SIZE;
    pb.dstNzC0Stride = BK;
    pb.dstNzNStride = 1;
    pb.dstNzMatrixStride = 0;
    DataCopy(b1, bGm_[k0 * N_SIZE + n0], pb);
    qB1_.EnQue(b1);
  }
  __aicore__ inline void SplitA() {
    LocalTensor<half> a1 = qA1_.DeQue<half>();
    LocalTensor<half> a2 = qA2_.AllocTensor<half>();
    LoadData3DParamsV2<half> p;  // the whole BM x BK slice in one instruction, as the devkit's sample loads it
    p.l1H = 1;
    p.l1W = BM;
    p.channelSize = BK;
    p.kExtension = BK;
    p.mExtension = BM;
    p.mStartPt = 0;
    p.kStartPt = 0;
    LoadData(a2, a1, p);
    qA2_.EnQue(a2);
    qA1_.FreeTensor(a1);
  }
  __aicore__ inline void SplitB() {
    LocalTensor<half> b1 = qB1_.DeQue<half>();
    LocalTensor<half> b2 = qB2_.AllocTensor<half>();
    LoadData3DParamsV2<half> p;  // BK positions by BN channels, transposed into L0B (the sample's B)
    p.l1H = 1;
    p.l1W = BK;
    p.channelSize = BN;
    p.kExtension = BN;
    p.mExtension = BK;
    p.mStartPt = 0;
    p.kStartPt = 0;
    p.enTranspose = true;
    LoadData(b2, b1, p);
    qB2_.EnQue(b2);
    qB1_.FreeTensor(b1);
  }
  __aicore__ inline void Compute(const LocalTensor<float>& c, bool first) {
    LocalTensor<half> a2 = qA2_.DeQue<half>();
    LocalTensor<half> b2 = qB2_.DeQue<half>();
    MmadParams p;
    p.m = BM;
    p.n = BN;
    p.k = BK;
    p.cmatrixInitVal = first;
    Mmad(c, a2, b2, p);
    qA2_.FreeTensor(a2);
    qB2_.FreeTensor(b2);
  }
  __aicore__ inline void CopyOut(int32_t m0, int32_t n0) {
    LocalTensor<float> c = qCO1_.DeQue<float>();
    FixpipeParamsV220 p;
    p.nSize = BN;
    p.mSize = BM;
    p.srcStride = BM;
    p.dstStride = N_SIZE;
    p.ndNum = 1;
#if OUT_F16
    p.quantPre = QuantMode_t::F322F16;
#endif
    Fixpipe(cGm_[m0 * N_SIZE + n0], c, p);
    qCO1_.FreeTensor(c);
  }

  TPipe pipe_;
  TQue<TPosition::A1, BUFFER_NUM> qA1_;
  TQue<TPosition::B1, BUFFER_NUM> qB1_;
  TQue<TPosition::A2, BUFFER_NUM> qA2_;
  TQue<TPosition::B2, BUFFER_NUM> qB2_;
  TQue<TPosition::CO1, C_BUFFER_NUM> qCO1_;
  GlobalTensor<half> aGm_, bGm_;
  GlobalTensor<OutT> cGm_;
};

}  // namespace

extern "C" __global__ __aicore__ void matmul_tiled(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
  KernelMatmul op;
  op.Init(a, b, c);
  op.Process();
}
