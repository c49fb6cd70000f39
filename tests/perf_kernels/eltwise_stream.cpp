// Hand-written Ascend C sample-style kernel (pypto-xdsl calibration, tests/test_perf_model.py):
// a streaming element-wise kernel over f32 vectors, split evenly over the launch's blocks, each
// block looping over tiles of TILE_LENGTH elements: CopyIn (MTE2) -> Compute (V) -> CopyOut
// (MTE3) through TQue hand-offs, with BUFFER_NUM buffers per queue (2 = double buffering).
//
//   OP 0  add:   z = x + y
//   OP 1  chain: z = relu(x * y + w)          (the fused element-wise chain of the benchmarks)
//   OP 2  gelu:  z = x - x / (1 + exp(2 * c0 * (x + c1 * x^3)))   (tanh approximation)
//
// SYNC_ALL 1 puts PipeBarrier<PIPE_ALL>() after every copy and instruction, the way the
// getting-started sample serialises its stages ("a barrier per instruction").
// `totalLength` elements per launch; every block gets totalLength / GetBlockNum() of them.
#include "kernel_operator.h"

#ifndef OP
#define OP 0
#endif
#ifndef TILE_LENGTH
#define TILE_LENGTH 8192
#endif
#ifndef BUFFER_NUM
#define BUFFER_NUM 2
#endif
#ifndef SYNC_ALL
#define SYNC_ALL 0
#endif

using namespace AscendC;

namespace {

constexpr int32_t kInputs = OP == 1 ? 3 : (OP == 0 ? 2 : 1);

__aicore__ inline void SyncAll() {
#if SYNC_ALL
  PipeBarrier<PIPE_ALL>();
#endif
}

class KernelEltwise {
 public:
  __aicore__ inline KernelEltwise() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR z, int64_t totalLength) {
    blockLength_ = totalLength / GetBlockNum();
    const int64_t offset = blockLength_ * GetBlockIdx();
    xGm_.SetGlobalBuffer((__gm__ float*)x + offset, blockLength_);
    if (kInputs > 1) yGm_.SetGlobalBuffer((__gm__ float*)y + offset, blockLength_);
    if (kInputs > 2) wGm_.SetGlobalBuffer((__gm__ float*)w + offset, blockLength_);
    zGm_.SetGlobalBuffer((__gm__ float*)z + offset, blockLength_);
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, TILE_LENGTH * sizeof(float));
    if (kInputs > 1) pipe_.InitBuffer(inQueueY_, BUFFER_NUM, TILE_LENGTH * sizeof(float));
    if (kInputs > 2) pipe_.InitBuffer(inQueueW_, BUFFER_NUM, TILE_LENGTH * sizeof(float));
    pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, TILE_LENGTH * sizeof(float));
    if (OP == 2) pipe_.InitBuffer(tmpBuf_, TILE_LENGTH * sizeof(float));
  }
  __aicore__ inline void Process() {
    const int64_t tiles = blockLength_ / TILE_LENGTH;
    for (int64_t i = 0; i < tiles; ++i) {
      CopyIn(i);
      Compute();
      CopyOut(i);
    }
  }

 private:
  __aicore__ inline void CopyIn(int64_t i) {
    LocalTensor<float> x = inQueueX_.AllocTensor<float>();
    DataCopy(x, xGm_[i * TILE_LENGTH], TILE_LENGTH);
    SyncAll();
    inQueueX_.EnQue(x);
    if (kInputs > 1) {
      LocalTensor<float> y = inQueueY_.AllocTensor<float>();
      DataCopy(y, yGm_[i * TILE_LENGTH], TILE_LENGTH);
      SyncAll();
      inQueueY_.EnQue(y);
    }
    if (kInputs > 2) {
      LocalTensor<float> w = inQueueW_.AllocTensor<float>();
      DataCopy(w, wGm_[i * TILE_LENGTH], TILE_LENGTH);
      SyncAll();
      inQueueW_.EnQue(w);
    }
  }
  __aicore__ inline void Compute() {
    LocalTensor<float> x = inQueueX_.DeQue<float>();
    LocalTensor<float> z = outQueueZ_.AllocTensor<float>();
#if OP == 0
    LocalTensor<float> y = inQueueY_.DeQue<float>();
    Add(z, x, y, TILE_LENGTH);
    SyncAll();
    inQueueY_.FreeTensor(y);
#elif OP == 1
    LocalTensor<float> y = inQueueY_.DeQue<float>();
    LocalTensor<float> w = inQueueW_.DeQue<float>();
    Mul(z, x, y, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    SyncAll();
    Add(z, z, w, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    SyncAll();
    Relu(z, z, TILE_LENGTH);
    SyncAll();
    inQueueY_.FreeTensor(y);
    inQueueW_.FreeTensor(w);
#else
    // gelu(x) ~= x - x / (1 + exp(2 u)), u = sqrt(2 / pi) * (x + 0.044715 x^3)
    LocalTensor<float> t = tmpBuf_.Get<float>();
    PipeBarrier<PIPE_V>();  // t is still read by the previous tile's Sub
    Mul(t, x, x, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    Mul(t, t, x, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    Muls(t, t, 0.044715f, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    Add(t, t, x, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    Muls(t, t, 1.5957691216057308f, TILE_LENGTH);  // 2 * sqrt(2 / pi)
    PipeBarrier<PIPE_V>();
    Exp(t, t, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    Adds(t, t, 1.0f, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    Div(t, x, t, TILE_LENGTH);
    PipeBarrier<PIPE_V>();
    Sub(z, x, t, TILE_LENGTH);
    SyncAll();
#endif
    outQueueZ_.EnQue(z);
    inQueueX_.FreeTensor(x);
  }
  __aicore__ inline void CopyOut(int64_t i) {
    LocalTensor<float> z = outQueueZ_.DeQue<float>();
    DataCopy(zGm_[i * TILE_LENGTH], z, TILE_LENGTH);
    SyncAll();
    outQueueZ_.FreeTensor(z);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_, inQueueW_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQueueZ_;
  TBuf<TPosition::VECCALC> tmpBuf_;
  GlobalTensor<float> xGm_, yGm_, wGm_, zGm_;
  int64_t blockLength_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void eltwise_stream(GM_ADDR x, GM_ADDR y, GM_ADDR w, GM_ADDR z, int64_t totalLength) {
  KernelEltwise op;
  op.Init(x, y, w, z, totalLength);
  op.Process();
}
