// Hand-written Ascend C sample-style MIX kernel (pypto-xdsl calibration, tests/test_perf_model.py,
// benchmarks/bench_kernels.py): flash attention O = softmax(Q Kt * scale) V for f16 Q [S, D],
// Kt [D, S], V [S, D] and f32 O [S, D], one BQ-row query block per core group (block), with an
// online softmax over BK-column key blocks (KERNEL_TYPE_MIX_AIC_1_1).
//
//   AIC: S_j = Q_i Kt_j (L1 -> L0A/L0B -> Mmad -> Fixpipe into the scores ring in GM), then,
//        once the AIV has sent P_j (the p ring), PV_j = P_j V_j into the pv ring.
//   AIV: m' = max(m, rowmax(S_j)); P_j = exp(S_j - m'); a = exp(m - m'); l = a l + rowsum(P_j);
//        P_j (f16) into the p ring; o = a o + PV_j; at the end O_i = o / l.
//
// Each ring has SLOTS slots in the block's part of the GM workspace and two cross-core flags
// (mode 2): FULL (producer -> consumer, one per slot written) and FREE (consumer -> producer,
// one per slot read; the consumer frees every slot first, the producer waits for all of them at
// the end, so every flag counter is 0 when the kernel returns).
//
// `scale` is 1/sqrt(HEAD_DIM). `pipelined` (a run-time argument) chooses the order of both cores:
// 0 is the program order of the generated kernel (AIC: S_j, then PV_j once P_j is there; AIV:
// softmax of S_j, then the update with PV_j), so the two cores take turns; 1 software-pipelines
// both loops by one key block (AIC: S_{j+1} before PV_j; AIV: the softmax of S_{j+1} before the
// update with PV_j), so the cube computes while the vector core works and the other way round.
#include "kernel_operator.h"

#ifndef SEQ
#define SEQ 512
#endif
#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef BQ
#define BQ 64
#endif
#ifndef BK
#define BK 64
#endif
#ifndef SLOTS
#define SLOTS 2
#endif

using namespace AscendC;

namespace {

constexpr int32_t kBlocksK = SEQ / BK;
constexpr uint32_t kScoreElems = BQ * BK, kPvElems = BQ * HEAD_DIM;
// The block's workspace: the three rings, one after another.
constexpr uint32_t kScoresRingBytes = SLOTS * kScoreElems * sizeof(float);
constexpr uint32_t kPRingBytes = SLOTS * kScoreElems * sizeof(half);
constexpr uint32_t kPvRingBytes = SLOTS * kPvElems * sizeof(float);
constexpr uint32_t kWorkspaceBytes = kScoresRingBytes + kPRingBytes + kPvRingBytes;
// Cross-core flag ids (mode 2, 0-10: 11-14 are SyncAll's).
constexpr uint8_t kRowBlocks = BK * sizeof(float) / 32, kAccBlocks = HEAD_DIM * sizeof(float) / 32;  // repeat strides
constexpr uint16_t kScoresFull = 1, kScoresFree = 2, kPFull = 3, kPFree = 4, kPvFull = 5, kPvFree = 6;

struct Rings {
  GlobalTensor<float> scores, pv;
  GlobalTensor<half> p;
  __aicore__ inline void Init(GM_ADDR workspace) {
    GM_ADDR ws = workspace + GetBlockIdx() * kWorkspaceBytes;
    scores.SetGlobalBuffer((__gm__ float*)ws, SLOTS * kScoreElems);
    p.SetGlobalBuffer((__gm__ half*)(ws + kScoresRingBytes), SLOTS * kScoreElems);
    pv.SetGlobalBuffer((__gm__ float*)(ws + kScoresRingBytes + kPRingBytes), SLOTS * kPvElems);
  }
};

class AttentionCube {
 public:
  __aicore__ inline void Init(GM_ADDR q, GM_ADDR kt, GM_ADDR v, GM_ADDR workspace, int64_t pipelined) {
    qGm_.SetGlobalBuffer((__gm__ half*)q, SEQ * HEAD_DIM);
    ktGm_.SetGlobalBuffer((__gm__ half*)kt, HEAD_DIM * SEQ);
    vGm_.SetGlobalBuffer((__gm__ half*)v, SEQ * HEAD_DIM);
    rings_.Init(workspace);
    pipelined_ = pipelined != 0;
    pipe_.InitBuffer(qQ1_, 1, BQ * HEAD_DIM * sizeof(half));
    pipe_.InitBuffer(qQ2_, 1, BQ * HEAD_DIM * sizeof(half));
    pipe_.InitBuffer(qK1_, 2, HEAD_DIM * BK * sizeof(half));
    pipe_.InitBuffer(qK2_, 2, HEAD_DIM * BK * sizeof(half));
    pipe_.InitBuffer(qS_, 2, kScoreElems * sizeof(float));
    pipe_.InitBuffer(qP1_, 2, kScoreElems * sizeof(half));
    pipe_.InitBuffer(qP2_, 2, kScoreElems * sizeof(half));
    pipe_.InitBuffer(qV1_, 2, BK * HEAD_DIM * sizeof(half));
    pipe_.InitBuffer(qV2_, 2, BK * HEAD_DIM * sizeof(half));
    pipe_.InitBuffer(qPv_, 2, kPvElems * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (int32_t s = 0; s < SLOTS; ++s) CrossCoreSetFlag<2, PIPE_MTE2>(kPFree);  // every p slot is free
    LoadQ();
    LocalTensor<half> q2 = qQ2_.DeQue<half>();
    if (pipelined_) Scores(q2, 0);
    for (int32_t j = 0; j < kBlocksK; ++j) {
      if (!pipelined_) Scores(q2, j);
      else if (j + 1 < kBlocksK) Scores(q2, j + 1);
      Pv(j);
    }
    qQ2_.FreeTensor(q2);
    for (int32_t s = 0; s < SLOTS; ++s) CrossCoreWaitFlag<2, PIPE_S>(kScoresFree);
    for (int32_t s = 0; s < SLOTS; ++s) CrossCoreWaitFlag<2, PIPE_S>(kPvFree);
  }

 private:
  __aicore__ inline void LoadQ() {
    LocalTensor<half> q1 = qQ1_.AllocTensor<half>();
    Nd2NzParams nd;
    nd.ndNum = 1;
    nd.nValue = BQ;
    nd.dValue = HEAD_DIM;
    nd.srcNdMatrixStride = 0;
    nd.srcDValue = HEAD_DIM;
    nd.dstNzC0Stride = BQ;
    nd.dstNzNStride = 1;
    nd.dstNzMatrixStride = 0;
    DataCopy(q1, qGm_[GetBlockIdx() * BQ * HEAD_DIM], nd);
    qQ1_.EnQue(q1);
    q1 = qQ1_.DeQue<half>();
    LocalTensor<half> q2 = qQ2_.AllocTensor<half>();
    LoadData2DParams ld;
    ld.repeatTimes = HEAD_DIM / 16;
    ld.srcStride = BQ / 16;
    ld.ifTranspose = false;
    for (int32_t blk = 0; blk < BQ / 16; ++blk) LoadData(q2[blk * (HEAD_DIM / 16) * 256], q1[blk * 256], ld);
    qQ2_.EnQue(q2);
    qQ1_.FreeTensor(q1);
  }
  // S_j = Q Kt_j into scores slot j % SLOTS.
  __aicore__ inline void Scores(const LocalTensor<half>& q2, int32_t j) {
    LocalTensor<half> k1 = qK1_.AllocTensor<half>();
    Nd2NzParams nd;
    nd.ndNum = 1;
    nd.nValue = HEAD_DIM;
    nd.dValue = BK;
    nd.srcNdMatrixStride = 0;
    nd.srcDValue = SEQ;
    nd.dstNzC0Stride = HEAD_DIM;
    nd.dstNzNStride = 1;
    nd.dstNzMatrixStride = 0;
    DataCopy(k1, ktGm_[j * BK], nd);
    qK1_.EnQue(k1);
    k1 = qK1_.DeQue<half>();
    LocalTensor<half> k2 = qK2_.AllocTensor<half>();
    LoadData2DParams ld;
    ld.repeatTimes = BK / 16;
    ld.srcStride = HEAD_DIM / 16;
    ld.ifTranspose = true;
    for (int32_t blk = 0; blk < HEAD_DIM / 16; ++blk) LoadData(k2[blk * (BK / 16) * 256], k1[blk * 256], ld);
    qK2_.EnQue(k2);
    qK1_.FreeTensor(k1);
    k2 = qK2_.DeQue<half>();
    LocalTensor<float> s = qS_.AllocTensor<float>();
    MmadParams mm;
    mm.m = BQ;
    mm.n = BK;
    mm.k = HEAD_DIM;
    mm.cmatrixInitVal = true;
    Mmad(s, q2, k2, mm);
    qK2_.FreeTensor(k2);
    qS_.EnQue(s);
    s = qS_.DeQue<float>();
    CrossCoreWaitFlag<2, PIPE_S>(kScoresFree);
    FixpipeParamsV220 fx;
    fx.nSize = BK;
    fx.mSize = BQ;
    fx.srcStride = BQ;
    fx.dstStride = BK;
    fx.ndNum = 1;
    Fixpipe(rings_.scores[(j % SLOTS) * kScoreElems], s, fx);
    CrossCoreSetFlag<2, PIPE_FIX>(kScoresFull);
    qS_.FreeTensor(s);
  }
  // PV_j = P_j V_j (P_j from p slot j % SLOTS) into pv slot j % SLOTS.
  __aicore__ inline void Pv(int32_t j) {
    LocalTensor<half> v1 = qV1_.AllocTensor<half>();
    Nd2NzParams nv;
    nv.ndNum = 1;
    nv.nValue = BK;
    nv.dValue = HEAD_DIM;
    nv.srcNdMatrixStride = 0;
    nv.srcDValue = HEAD_DIM;
    nv.dstNzC0Stride = BK;
    nv.dstNzNStride = 1;
    nv.dstNzMatrixStride = 0;
    DataCopy(v1, vGm_[j * BK * HEAD_DIM], nv);
    qV1_.EnQue(v1);
    CrossCoreWaitFlag<2, PIPE_S>(kPFull);
    LocalTensor<half> p1 = qP1_.AllocTensor<half>();
    Nd2NzParams np;
    np.ndNum = 1;
    np.nValue = BQ;
    np.dValue = BK;
    np.srcNdMatrixStride = 0;
    np.srcDValue = BK;
    np.dstNzC0Stride = BQ;
    np.dstNzNStride = 1;
    np.dstNzMatrixStride = 0;
    DataCopy(p1, rings_.p[(j % SLOTS) * kScoreElems], np);
    CrossCoreSetFlag<2, PIPE_MTE2>(kPFree);
    qP1_.EnQue(p1);
    p1 = qP1_.DeQue<half>();
    LocalTensor<half> p2 = qP2_.AllocTensor<half>();
    LoadData2DParams lp;
    lp.repeatTimes = BK / 16;
    lp.srcStride = BQ / 16;
    lp.ifTranspose = false;
    for (int32_t blk = 0; blk < BQ / 16; ++blk) LoadData(p2[blk * (BK / 16) * 256], p1[blk * 256], lp);
    qP2_.EnQue(p2);
    qP1_.FreeTensor(p1);
    v1 = qV1_.DeQue<half>();
    LocalTensor<half> v2 = qV2_.AllocTensor<half>();
    LoadData2DParams lv;
    lv.repeatTimes = HEAD_DIM / 16;
    lv.srcStride = BK / 16;
    lv.ifTranspose = true;
    for (int32_t blk = 0; blk < BK / 16; ++blk) LoadData(v2[blk * (HEAD_DIM / 16) * 256], v1[blk * 256], lv);
    qV2_.EnQue(v2);
    qV1_.FreeTensor(v1);
    p2 = qP2_.DeQue<half>();
    v2 = qV2_.DeQue<half>();
    LocalTensor<float> o = qPv_.AllocTensor<float>();
    MmadParams mm;
    mm.m = BQ;
    mm.n = HEAD_DIM;
    mm.k = BK;
    mm.cmatrixInitVal = true;
    Mmad(o, p2, v2, mm);
    qP2_.FreeTensor(p2);
    qV2_.FreeTensor(v2);
    qPv_.EnQue(o);
    o = qPv_.DeQue<float>();
    CrossCoreWaitFlag<2, PIPE_S>(kPvFree);
    FixpipeParamsV220 fx;
    fx.nSize = HEAD_DIM;
    fx.mSize = BQ;
    fx.srcStride = BQ;
    fx.dstStride = HEAD_DIM;
    fx.ndNum = 1;
    Fixpipe(rings_.pv[(j % SLOTS) * kPvElems], o, fx);
    CrossCoreSetFlag<2, PIPE_FIX>(kPvFull);
    qPv_.FreeTensor(o);
  }

  TPipe pipe_;
  TQue<TPosition::A1, 1> qQ1_;
  TQue<TPosition::A2, 1> qQ2_;
  TQue<TPosition::B1, 2> qK1_;
  TQue<TPosition::B2, 2> qK2_;
  TQue<TPosition::CO1, 2> qS_;
  TQue<TPosition::A1, 2> qP1_;
  TQue<TPosition::A2, 2> qP2_;
  TQue<TPosition::B1, 2> qV1_;
  TQue<TPosition::B2, 2> qV2_;
  TQue<TPosition::CO1, 2> qPv_;
  GlobalTensor<half> qGm_, ktGm_, vGm_;
  Rings rings_;
  bool pipelined_ = true;
};

class AttentionVector {
 public:
  __aicore__ inline void Init(GM_ADDR o, GM_ADDR workspace, int64_t pipelined, float scale) {
    oGm_.SetGlobalBuffer((__gm__ float*)o, SEQ * HEAD_DIM);
    rings_.Init(workspace);
    pipelined_ = pipelined != 0;
    scale_ = scale;
    pipe_.InitBuffer(inS_, 2, kScoreElems * sizeof(float));
    pipe_.InitBuffer(outP_, 2, kScoreElems * sizeof(half));
    pipe_.InitBuffer(inPv_, 1, kPvElems * sizeof(float));
    pipe_.InitBuffer(outO_, 1, kPvElems * sizeof(float));
    pipe_.InitBuffer(probBuf_, kScoreElems * sizeof(float));
    pipe_.InitBuffer(accBuf_, kPvElems * sizeof(float));
    pipe_.InitBuffer(bcastBuf_, BQ * 8 * sizeof(float));
    pipe_.InitBuffer(rowBuf_, 7 * BQ * sizeof(float));
  }
  __aicore__ inline void Process() {
    for (int32_t s = 0; s < SLOTS; ++s) CrossCoreSetFlag<2, PIPE_MTE2>(kScoresFree);
    for (int32_t s = 0; s < SLOTS; ++s) CrossCoreSetFlag<2, PIPE_MTE2>(kPvFree);
    LocalTensor<float> rows = rowBuf_.Get<float>();
    m_[0] = rows;  // running max and the rescale factor of each key block: ping-pong by block parity
    m_[1] = rows[BQ];
    alpha_[0] = rows[2 * BQ];
    alpha_[1] = rows[3 * BQ];
    l_ = rows[4 * BQ];
    rowMax_ = rows[5 * BQ];
    rowSum_ = rows[6 * BQ];
    acc_ = accBuf_.Get<float>();
    prob_ = probBuf_.Get<float>();
    bcast_ = bcastBuf_.Get<float>();
    Duplicate(m_[0], -1e30f, BQ);
    Duplicate(l_, 0.0f, BQ);
    Duplicate(acc_, 0.0f, kPvElems);
    PipeBarrier<PIPE_V>();
    if (pipelined_) Softmax(0);
    for (int32_t j = 0; j < kBlocksK; ++j) {
      if (!pipelined_) Softmax(j);
      else if (j + 1 < kBlocksK) Softmax(j + 1);  // P_{j+1} is on its way while the cube computes PV_j
      Accumulate(j);
    }
    PipeBarrier<PIPE_V>();
    Brcb(bcast_, l_, BQ / 8, BrcbRepeatParams(1, 8));
    PipeBarrier<PIPE_V>();
    LocalTensor<float> out = outO_.AllocTensor<float>();
    for (int32_t c = 0; c < HEAD_DIM; c += 64)
      Div(out[c], acc_[c], bcast_, 64, BQ, BinaryRepeatParams(1, 1, 0, kAccBlocks, kAccBlocks, 1));
    outO_.EnQue(out);
    out = outO_.DeQue<float>();
    DataCopy(oGm_[GetBlockIdx() * BQ * HEAD_DIM], out, kPvElems);
    outO_.FreeTensor(out);
    for (int32_t s = 0; s < SLOTS; ++s) CrossCoreWaitFlag<2, PIPE_S>(kPFree);
  }

 private:
  // S_j from the scores ring -> m, l, alpha_j and P_j (f16) into the p ring.
  __aicore__ inline void Softmax(int32_t j) {
    const LocalTensor<float>& mOld = m_[j % 2];
    const LocalTensor<float>& mNew = m_[(j + 1) % 2];
    const LocalTensor<float>& alpha = alpha_[j % 2];
    CrossCoreWaitFlag<2, PIPE_S>(kScoresFull);
    LocalTensor<float> s = inS_.AllocTensor<float>();
    DataCopy(s, rings_.scores[(j % SLOTS) * kScoreElems], kScoreElems);
    CrossCoreSetFlag<2, PIPE_MTE2>(kScoresFree);
    inS_.EnQue(s);
    s = inS_.DeQue<float>();
    Muls(s, s, scale_, kScoreElems);
    PipeBarrier<PIPE_V>();
    WholeReduceMax(rowMax_, s, BK, BQ, 1, 1, kRowBlocks, ReduceOrder::ORDER_ONLY_VALUE);
    PipeBarrier<PIPE_V>();
    Max(mNew, mOld, rowMax_, BQ);
    PipeBarrier<PIPE_V>();
    Brcb(bcast_, mNew, BQ / 8, BrcbRepeatParams(1, 8));
    Sub(alpha, mOld, mNew, BQ);
    PipeBarrier<PIPE_V>();
    Sub(prob_, s, bcast_, BK, BQ, BinaryRepeatParams(1, 1, 0, kRowBlocks, kRowBlocks, 1));
    Exp(alpha, alpha, BQ);
    PipeBarrier<PIPE_V>();
    inS_.FreeTensor(s);
    Exp(prob_, prob_, kScoreElems);
    Mul(l_, l_, alpha, BQ);
    PipeBarrier<PIPE_V>();
    WholeReduceSum(rowSum_, prob_, BK, BQ, 1, 1, kRowBlocks);
    LocalTensor<half> p = outP_.AllocTensor<half>();
    Cast(p, prob_, RoundMode::CAST_NONE, kScoreElems);
    outP_.EnQue(p);  // P_j leaves as soon as it is cast
    PipeBarrier<PIPE_V>();
    Add(l_, l_, rowSum_, BQ);
    p = outP_.DeQue<half>();
    CrossCoreWaitFlag<2, PIPE_S>(kPFree);
    DataCopy(rings_.p[(j % SLOTS) * kScoreElems], p, kScoreElems);
    CrossCoreSetFlag<2, PIPE_MTE3>(kPFull);
    outP_.FreeTensor(p);
  }
  // o = alpha_j o + PV_j (PV_j from the pv ring).
  __aicore__ inline void Accumulate(int32_t j) {
    PipeBarrier<PIPE_V>();
    Brcb(bcast_, alpha_[j % 2], BQ / 8, BrcbRepeatParams(1, 8));
    PipeBarrier<PIPE_V>();
    for (int32_t c = 0; c < HEAD_DIM; c += 64)  // 64 columns per level-0 instruction
      Mul(acc_[c], acc_[c], bcast_, 64, BQ, BinaryRepeatParams(1, 1, 0, kAccBlocks, kAccBlocks, 1));
    CrossCoreWaitFlag<2, PIPE_S>(kPvFull);
    LocalTensor<float> pv = inPv_.AllocTensor<float>();
    DataCopy(pv, rings_.pv[(j % SLOTS) * kPvElems], kPvElems);
    CrossCoreSetFlag<2, PIPE_MTE2>(kPvFree);
    inPv_.EnQue(pv);
    pv = inPv_.DeQue<float>();
    PipeBarrier<PIPE_V>();
    Add(acc_, acc_, pv, kPvElems);
    inPv_.FreeTensor(pv);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, 2> inS_;
  TQue<TPosition::VECOUT, 2> outP_;
  TQue<TPosition::VECIN, 1> inPv_;
  TQue<TPosition::VECOUT, 1> outO_;
  TBuf<TPosition::VECCALC> probBuf_, accBuf_, bcastBuf_, rowBuf_;
  LocalTensor<float> m_[2], alpha_[2], l_, rowMax_, rowSum_, acc_, prob_, bcast_;
  GlobalTensor<float> oGm_;
  Rings rings_;
  bool pipelined_ = true;
  float scale_ = 1.0f;
};

}  // namespace

extern "C" __global__ __aicore__ void attention_mix(GM_ADDR q, GM_ADDR kt, GM_ADDR v, GM_ADDR o, GM_ADDR workspace,
                                                    int64_t pipelined, float scale) {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_1);
  if ASCEND_IS_AIC {
    AttentionCube op;
    op.Init(q, kt, v, workspace, pipelined);
    op.Process();
  }
  if ASCEND_IS_AIV {
    AttentionVector op;
    op.Init(o, workspace, pipelined, scale);
    op.Process();
  }
}
