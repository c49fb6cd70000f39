// Hand-written Ascend C sample-style kernel (pypto-xdsl calibration, tests/test_perf_model.py):
// row-wise kernels over an f32 [rows, COLS] matrix, split evenly over the launch's blocks, each
// block looping over tiles of TILE_ROWS rows with double-buffered TQue hand-offs.
//
//   OP 0  softmax:   y = exp(x - max(x)) * (1 / sum(exp(x - max(x))))
//   OP 1  rmsnorm:   y = x * (1 / sqrt(mean(x^2) + 1e-6))
//   OP 2  layernorm: y = (x - mean(x)) * (1 / sqrt(mean((x - mean(x))^2) + 1e-5))
//
// Row reductions are halving trees of level-0 Max/Add over 256-byte column chunks (all rows of
// the tile in one instruction, one repeat per row) finished by one WholeReduceMax/Sum; row
// values are broadcast with Brcb and applied with level-0 Sub/Mul (source-1 block stride 0);
// a row-wise divide is one Reciprocal of the row values and Muls. COLS is a power of two
// multiple of 64, at most 2040 / 8 * 8 floats apart per row (level-0 repeat strides are 8-bit).
//
// For the benchmarks' what-if estimates: SERIAL_FOLD 1 folds the column chunks one after another
// (copy the first chunk, then one dependent Max/Add per further chunk, a barrier each, as the
// generated kernels do today); DIV_BROADCAST 1 divides by the broadcast row values (level-0 Div)
// instead of Reciprocal + Mul; PREFETCH 1 copies the next tile in before computing this one
// (what ascendc-prefetch-copy-in makes of the generated loops) instead of the sample's
// copy-in / compute / copy-out order.
#include "kernel_operator.h"

#ifndef OP
#define OP 0
#endif
#ifndef COLS
#define COLS 1024
#endif
#ifndef TILE_ROWS
#define TILE_ROWS 8
#endif
#ifndef BUFFER_NUM
#define BUFFER_NUM 2
#endif
#ifndef SERIAL_FOLD
#define SERIAL_FOLD 0
#endif
#ifndef DIV_BROADCAST
#define DIV_BROADCAST 0
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif

using namespace AscendC;

namespace {

constexpr int32_t kChunk = 64;                    // floats per 256-byte repeat
constexpr int32_t kRowBlocks = COLS / 8;          // 32-byte blocks per row
constexpr int32_t kHalf = COLS > kChunk ? COLS / 2 : kChunk;
constexpr int32_t kTile = TILE_ROWS * COLS;
constexpr int32_t kRowVals = (TILE_ROWS + 7) / 8 * 8;  // one float per row, whole blocks

class KernelRows {
 public:
  __aicore__ inline KernelRows() {}
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, int64_t totalRows) {
    blockRows_ = totalRows / GetBlockNum();
    const int64_t offset = blockRows_ * GetBlockIdx() * COLS;
    xGm_.SetGlobalBuffer((__gm__ float*)x + offset, blockRows_ * COLS);
    yGm_.SetGlobalBuffer((__gm__ float*)y + offset, blockRows_ * COLS);
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, kTile * sizeof(float));
    pipe_.InitBuffer(outQueueY_, BUFFER_NUM, kTile * sizeof(float));
    pipe_.InitBuffer(workBuf_, TILE_ROWS * kHalf * sizeof(float));
    pipe_.InitBuffer(rowBuf_, kRowVals * sizeof(float));
    pipe_.InitBuffer(brcbBuf_, kRowVals * 8 * sizeof(float));
    if (OP == 2) pipe_.InitBuffer(tmpBuf_, kTile * sizeof(float));
  }
  __aicore__ inline void Process() {
    if (PREFETCH && blockRows_ > 0) CopyIn(0);
    for (int64_t r = 0; r < blockRows_; r += TILE_ROWS) {
      if (!PREFETCH) CopyIn(r);
      else if (r + TILE_ROWS < blockRows_) CopyIn(r + TILE_ROWS);
      Compute();
      LocalTensor<float> y = outQueueY_.DeQue<float>();
      DataCopy(yGm_[r * COLS], y, kTile);
      outQueueY_.FreeTensor(y);
    }
  }

 private:
  __aicore__ inline void CopyIn(int64_t r) {
    LocalTensor<float> x = inQueueX_.AllocTensor<float>();
    DataCopy(x, xGm_[r * COLS], kTile);
    inQueueX_.EnQue(x);
  }
  // dst[r] = reduce(src[r, 0:COLS]) for the tile's rows; src is left unchanged.
  template <bool kMax>
  __aicore__ inline void RowReduce(const LocalTensor<float>& dst, const LocalTensor<float>& src) {
    LocalTensor<float> work = workBuf_.Get<float>();
    if (COLS == kChunk) {
      Reduce<kMax>(dst, src, kRowBlocks);
      return;
    }
    if (SERIAL_FOLD) {
      Muls(work, src, 1.0f, kChunk, TILE_ROWS, UnaryRepeatParams(1, 1, kHalf / 8, kRowBlocks));
      for (int32_t c = kChunk; c < COLS; c += kChunk) {
        PipeBarrier<PIPE_V>();
        Fold<kMax>(work, work, src[c], BinaryRepeatParams(1, 1, 1, kHalf / 8, kHalf / 8, kRowBlocks));
      }
      PipeBarrier<PIPE_V>();
      Reduce<kMax>(dst, work, kHalf / 8);
      return;
    }
    for (int32_t c = 0; c < kHalf; c += kChunk)
      Fold<kMax>(work[c], src[c], src[kHalf + c], BinaryRepeatParams(1, 1, 1, kHalf / 8, kRowBlocks, kRowBlocks));
    PipeBarrier<PIPE_V>();
    for (int32_t w = kHalf / 2; w >= kChunk; w /= 2) {
      for (int32_t c = 0; c < w; c += kChunk)
        Fold<kMax>(work[c], work[c], work[w + c], BinaryRepeatParams(1, 1, 1, kHalf / 8, kHalf / 8, kHalf / 8));
      PipeBarrier<PIPE_V>();
    }
    Reduce<kMax>(dst, work, kHalf / 8);
  }
  template <bool kMax>
  __aicore__ inline void Fold(const LocalTensor<float>& d, const LocalTensor<float>& a, const LocalTensor<float>& b,
                              const BinaryRepeatParams& p) {
    if (kMax) Max(d, a, b, kChunk, TILE_ROWS, p);
    else Add(d, a, b, kChunk, TILE_ROWS, p);
  }
  template <bool kMax>
  __aicore__ inline void Reduce(const LocalTensor<float>& dst, const LocalTensor<float>& src, int32_t rowStride) {
    if (kMax) WholeReduceMax(dst, src, kChunk, TILE_ROWS, 1, 1, rowStride, ReduceOrder::ORDER_ONLY_VALUE);
    else WholeReduceSum(dst, src, kChunk, TILE_ROWS, 1, 1, rowStride);
  }
  // dst[r, :] = src[r, :] (op) vals[r]
  enum Apply { kSub, kMul, kDiv };
  __aicore__ inline void RowApply(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                  const LocalTensor<float>& vals, Apply op) {
    LocalTensor<float> bc = brcbBuf_.Get<float>();
    Brcb(bc, vals, kRowVals / 8, BrcbRepeatParams(1, 8));
    PipeBarrier<PIPE_V>();
    const BinaryRepeatParams p(1, 1, 0, kRowBlocks, kRowBlocks, 1);
    for (int32_t c = 0; c < COLS; c += kChunk) {
      if (op == kMul) Mul(dst[c], src[c], bc, kChunk, TILE_ROWS, p);
      else if (op == kDiv) Div(dst[c], src[c], bc, kChunk, TILE_ROWS, p);
      else Sub(dst[c], src[c], bc, kChunk, TILE_ROWS, p);
    }
  }
  // dst[r, :] = src[r, :] / vals[r]
  __aicore__ inline void RowDivide(const LocalTensor<float>& dst, const LocalTensor<float>& src,
                                   const LocalTensor<float>& vals) {
    if (DIV_BROADCAST) {
      RowApply(dst, src, vals, kDiv);
      return;
    }
    Reciprocal(vals, vals, TILE_ROWS);
    PipeBarrier<PIPE_V>();
    RowApply(dst, src, vals, kMul);
  }
  // vals = sqrt(vals / COLS + eps)
  __aicore__ inline void Rms(const LocalTensor<float>& vals, float eps) {
    Muls(vals, vals, 1.0f / COLS, TILE_ROWS);
    PipeBarrier<PIPE_V>();
    Adds(vals, vals, eps, TILE_ROWS);
    PipeBarrier<PIPE_V>();
    Sqrt(vals, vals, TILE_ROWS);
    PipeBarrier<PIPE_V>();
  }
  __aicore__ inline void Compute() {
    LocalTensor<float> x = inQueueX_.DeQue<float>();
    LocalTensor<float> y = outQueueY_.AllocTensor<float>();
    LocalTensor<float> vals = rowBuf_.Get<float>();
    PipeBarrier<PIPE_V>();  // the scratch buffers are reused from the previous tile
#if OP == 0
    RowReduce<true>(vals, x);
    PipeBarrier<PIPE_V>();
    RowApply(y, x, vals, kSub);
    PipeBarrier<PIPE_V>();
    Exp(y, y, kTile);
    PipeBarrier<PIPE_V>();
    RowReduce<false>(vals, y);
    PipeBarrier<PIPE_V>();
    RowDivide(y, y, vals);
#elif OP == 1
    Mul(y, x, x, kTile);
    PipeBarrier<PIPE_V>();
    RowReduce<false>(vals, y);
    PipeBarrier<PIPE_V>();
    Rms(vals, 1e-6f);
    RowDivide(y, x, vals);
#else
    LocalTensor<float> sq = tmpBuf_.Get<float>();
    RowReduce<false>(vals, x);
    PipeBarrier<PIPE_V>();
    Muls(vals, vals, 1.0f / COLS, TILE_ROWS);
    PipeBarrier<PIPE_V>();
    RowApply(y, x, vals, kSub);
    PipeBarrier<PIPE_V>();
    Mul(sq, y, y, kTile);
    PipeBarrier<PIPE_V>();
    RowReduce<false>(vals, sq);
    PipeBarrier<PIPE_V>();
    Rms(vals, 1e-5f);
    RowDivide(y, y, vals);
#endif
    outQueueY_.EnQue(y);
    inQueueX_.FreeTensor(x);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQueueX_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQueueY_;
  TBuf<TPosition::VECCALC> workBuf_, rowBuf_, brcbBuf_, tmpBuf_;
  GlobalTensor<float> xGm_, yGm_;
  int64_t blockRows_ = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void rows(GM_ADDR x, GM_ADDR y, int64_t totalRows) {
  KernelRows op;
  op.Init(x, y, totalRows);
  op.Process();
}
