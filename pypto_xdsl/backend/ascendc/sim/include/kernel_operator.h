// pypto-xdsl CPU SIMULATION of the Ascend C kernel API subset (see pypto_sim/core.h).
// Not the real "kernel_operator.h": only what the pypto-xdsl kernel printer emits, with checks.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "pypto_sim/core.h"
#include "pypto_sim/cost.h"

#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR uint8_t*

#if defined(__FLT16_MAX__)
using half = _Float16;
#endif

// bfloat16_t: the upper 16 bits of a float (conversion from float rounds to nearest even, as the
// host's parameter files do); arithmetic goes through float.
struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  bfloat16_t(float f) {  // NOLINT: implicit, as the devkit's type converts
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((u >> 16) | 0x40u);  // a quiet NaN stays a NaN
    } else {
      bits = static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
  }
  operator float() const {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

namespace AscendC {

using pypto_sim::fail;
using pypto_sim::Slot;
using pypto_sim::SlotState;

enum class TPosition : uint8_t {
  GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM,
  TSCM, C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;

// src_dst, in the devkit's order (impl/basic_api/kernel_event.h)
enum class HardEvent : uint8_t {
  MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3, MTE1_V,
  MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX,
  FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
enum pipe_t : uint8_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX };
using TEventID = int8_t;  // as in the devkit; ids come from TPipe::AllocEventID/FetchEventID
enum event_t : int32_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

inline int64_t GetBlockIdx() { return pypto_sim::launch_state().block_idx; }
inline int64_t GetBlockNum() { return pypto_sim::launch_state().block_num; }

// ------------------------------------------------------------------ flags

namespace detail {
constexpr int kEvents = static_cast<int>(HardEvent::MAX);
inline const char* event_name(HardEvent e) {
  static const char* names[] = {
      "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3", "M_V", "V_M", "V_V",
      "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1", "M_FIX", "FIX_M", "MTE3_MTE2", "MTE2_MTE3",
      "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3",
      "MTE1_FIX", "FIX_MTE1", "FIX_FIX"};
  return names[static_cast<int>(e)];
}
inline int& pending_flags(HardEvent e, int32_t id) {
  static thread_local int table[kEvents][8] = {};
  if (id < 0 || id > 7) fail("event id %d out of range [0, 7]", id);
  return table[static_cast<int>(e)][id];
}
// fill_counter() at each pending SetFlag (WaitFlag<MTE2_*> publishes it as fills_synced()).
inline uint64_t& flagged_fills(HardEvent e, int32_t id) {
  static thread_local uint64_t table[kEvents][8] = {};
  return table[static_cast<int>(e)][id];
}
inline bool from_mte2(HardEvent e) { return std::strncmp(event_name(e), "MTE2_", 5) == 0; }
// Event ids reserved with TPipe::AllocEventID (per HardEvent, 8 ids).
inline bool& allocated_event(HardEvent e, int32_t id) {
  static thread_local bool table[kEvents][8] = {};
  return table[static_cast<int>(e)][id];
}
}  // namespace detail

template <HardEvent event>
inline void SetFlag(int32_t eventID) {
  int& n = detail::pending_flags(event, eventID);
  if (n != 0) fail("SetFlag<HardEvent::%s>(%d) while that flag is already set", detail::event_name(event), eventID);
  n = 1;
  detail::flagged_fills(event, eventID) = pypto_sim::fill_counter();
  pypto_sim::cost::set_flag(detail::event_name(event), eventID);
}

template <HardEvent event>
inline void WaitFlag(int32_t eventID) {
  int& n = detail::pending_flags(event, eventID);
  if (n == 0) fail("WaitFlag<HardEvent::%s>(%d) without a matching SetFlag (deadlock on hardware)", detail::event_name(event), eventID);
  n = 0;
  if (event == HardEvent::V_S) ++pypto_sim::vs_epoch();
  if (detail::from_mte2(event))
    pypto_sim::fills_synced() = std::max(pypto_sim::fills_synced(), detail::flagged_fills(event, eventID));
  pypto_sim::cost::wait_flag(detail::event_name(event), eventID);
}

// PIPE_V ordering: vector instructions may overlap, so one that reads or writes UB bytes an
// earlier one wrote (or writes bytes an earlier one read) needs PipeBarrier<PIPE_V> (or
// PIPE_ALL) in between. The simulation keeps the UB byte ranges the vector pipe accessed since
// the last barrier and fails on a conflicting access. A queue operation (AllocTensor, EnQue,
// DeQue, FreeTensor) hands its buffer to another pipe and back through flags, which orders the
// vector pipe too: it forgets the accesses to that buffer.
namespace detail {
struct VState {
  std::vector<uint8_t> flags;  // per 32-byte UB block: 1 read, 2 written since the last barrier
  std::vector<const char*> reader, writer;
  std::vector<uint32_t> dirty;
  std::vector<std::pair<uint32_t, bool>> current;  // (block, write) of the instruction being checked
  const char* current_what = nullptr;
  VState() {
    const uint32_t n = pypto_sim::mem_info(pypto_sim::Mem::UB).capacity / pypto_sim::kBlockBytes;
    flags.assign(n, 0);
    reader.assign(n, nullptr);
    writer.assign(n, nullptr);
  }
};
inline VState& v_state() {
  static thread_local VState v;
  return v;
}
// One operand of a vector instruction: the UB blocks it touches; [lo, hi) for messages.
inline void v_blocks(const char* what, const char* owner, uint32_t lo, uint32_t hi, bool write,
                     const std::vector<uint32_t>& blocks) {
  VState& v = v_state();
  for (uint32_t b : blocks) {
    if (b >= v.flags.size()) continue;
    const uint8_t f = v.flags[b];
    if ((f & 2) || (write && (f & 1)))
      fail("%s %s UB bytes [%u, %u) of buffer '%s' that an earlier %s %s, with no PipeBarrier<PIPE_V> in between "
           "(missing PIPE_V synchronisation)", what, write ? "writes" : "reads", lo, hi, owner,
           (f & 2) ? v.writer[b] : v.reader[b], (f & 2) ? "wrote" : "read");
    v.current.push_back({b, write});
  }
  v.current_what = what;
}
inline void v_access(const char* what, const char* owner, uint32_t lo, uint32_t hi, bool write) {
  std::vector<uint32_t> blocks;
  for (uint32_t b = lo / pypto_sim::kBlockBytes; b * pypto_sim::kBlockBytes < hi; ++b) blocks.push_back(b);
  v_blocks(what, owner, lo, hi, write, blocks);
}
inline void v_commit() {
  VState& v = v_state();
  const char* what = v.current_what;
  for (const auto& [b, write] : v.current) {
    if (v.flags[b] == 0) v.dirty.push_back(b);
    v.flags[b] |= write ? 2 : 1;
    (write ? v.writer : v.reader)[b] = what;
  }
  v.current.clear();
}
inline void v_barrier() {
  VState& v = v_state();
  for (uint32_t b : v.dirty) v.flags[b] = 0;
  v.dirty.clear();
  v.current.clear();
}
inline void v_forget(const Slot& s) {
  if (s.mem != pypto_sim::Mem::UB) return;
  VState& v = v_state();
  for (uint32_t b = s.addr / pypto_sim::kBlockBytes; b * pypto_sim::kBlockBytes < s.addr + s.bytes && b < v.flags.size(); ++b)
    v.flags[b] = 0;
}
}  // namespace detail

template <pipe_t pipe>
inline void PipeBarrier() {
  if (pipe == PIPE_ALL) ++pypto_sim::vs_epoch();
  if (pipe == PIPE_V || pipe == PIPE_ALL) detail::v_barrier();
  pypto_sim::cost::barrier(pipe);
}

// ------------------------------------------------------------------ tensors

template <typename T>
class GlobalTensor {
 public:
  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    if (buffer == nullptr) fail("SetGlobalBuffer with a null pointer");
    ptr_ = buffer;
    size_ = bufferSize;
    declared_ = bufferSize;
    if (pypto_sim::launch_state().kernel == nullptr ||
        pypto_sim::device_range(buffer, static_cast<size_t>(bufferSize) * sizeof(T)))
      return;
    // Inside a launch every GM buffer is device memory. One that starts in an allocation but
    // reaches past its end (a fixed-size view of a ragged tail: PyPTO's `pl.slice(block_table,
    // [64], [b * n])` near the end) is only an error where an access reaches past it, as on the
    // device; one that starts in none (a kernel-local tensor past a too small workspace) is an error.
    const size_t inside = pypto_sim::device_bytes_from(buffer) / sizeof(T);
    if (inside == 0)
      fail("SetGlobalBuffer(%p, %llu elements = %llu bytes) is not inside one device allocation (argument or "
           "workspace too small for the kernel)",
           static_cast<const void*>(buffer), (unsigned long long)bufferSize,
           (unsigned long long)(bufferSize * sizeof(T)));
    size_ = inside;
  }
  GlobalTensor operator[](uint64_t offset) const {
    if (offset > size_) fail("GlobalTensor offset %llu is past its %llu elements", (unsigned long long)offset, (unsigned long long)size_);
    GlobalTensor t;
    t.ptr_ = ptr_ + offset;
    t.size_ = size_ - offset;
    t.declared_ = declared_ > offset ? declared_ - offset : 0;
    return t;
  }
  T GetValue(uint64_t i) const {
    check(i, 1, "GetValue");
    const T v = ptr_[i];
    if (pypto_sim::comm::contains(ptr_ + i, sizeof(T))) pypto_sim::comm::poll(ptr_ + i, static_cast<int32_t>(v));
    return v;
  }
  void SetValue(uint64_t i, T v) {
    check(i, 1, "SetValue", true);
    if (pypto_sim::comm::contains(ptr_ + i, sizeof(T))) {
      pypto_sim::comm::Lock lock;  // a window: other ranks read and write it at the same time
      ptr_[i] = v;
      return;
    }
    ptr_[i] = v;
  }
  // simulation helpers
  T* sim_ptr() const { return ptr_; }
  // elements [first, first + count) are in bounds; logged as read or written (an atomic add
  // under SetAtomicAdd) for the check between the blocks of a launch (pypto_sim::gm_spans)
  void check(uint64_t first, uint64_t count, const char* what, bool writes = false) const {
    if (ptr_ == nullptr) fail("%s on a GlobalTensor without SetGlobalBuffer", what);
    if (first + count > size_) {
      if (declared_ > size_)
        fail("%s touches GM elements [%llu, %llu) of a GlobalTensor of %llu elements whose device allocation ends "
             "after %llu", what, (unsigned long long)first, (unsigned long long)(first + count),
             (unsigned long long)declared_, (unsigned long long)size_);
      fail("%s touches GM elements [%llu, %llu) of a GlobalTensor with %llu elements", what,
           (unsigned long long)first, (unsigned long long)(first + count), (unsigned long long)size_);
    }
    const pypto_sim::GmAccess kind = !writes ? pypto_sim::GmAccess::Read
                                     : pypto_sim::launch_state().atomic_add != nullptr ? pypto_sim::GmAccess::Atomic
                                                                                       : pypto_sim::GmAccess::Write;
    pypto_sim::log_gm_access(ptr_ + first, count * sizeof(T), kind, what);
    if (std::strcmp(what, "GetValue") != 0 && pypto_sim::comm::contains(ptr_ + first, count * sizeof(T)))
      pypto_sim::comm::running();
  }

 private:
  uint64_t declared_ = 0;  // the SetGlobalBuffer size (size_: what of it is device memory)
  T* ptr_ = nullptr;
  uint64_t size_ = 0;
};

template <typename T>
class LocalTensor {
 public:
  LocalTensor() = default;
  LocalTensor(T* p, uint32_t size, Slot* slot) : ptr_(p), size_(size), slot_(slot), gen_(slot ? slot->gen : 0) {}
  LocalTensor operator[](uint32_t offset) const {
    if (offset > size_) fail("LocalTensor offset %u is past its %u elements", offset, size_);
    LocalTensor t = *this;
    t.ptr_ = ptr_ + offset;
    t.size_ = size_ - offset;
    return t;
  }
  uint32_t GetSize() const { return size_; }
  // The same bytes seen as U elements (ReinterpretCast): the size in bytes is kept.
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    LocalTensor<U> t;
    t.ptr_ = reinterpret_cast<U*>(ptr_);
    t.size_ = static_cast<uint32_t>((uint64_t)size_ * sizeof(T) / sizeof(U));
    t.slot_ = slot_;
    t.gen_ = gen_;
    return t;
  }
  T GetValue(uint32_t i) const {
    check_live("GetValue");
    if (i >= size_) fail("GetValue(%u) on a LocalTensor of %u elements", i, size_);
    if (slot_->v_write_epoch >= pypto_sim::vs_epoch())
      fail("GetValue reads buffer '%s' written by the vector pipe without SetFlag/WaitFlag<HardEvent::V_S>", slot_->owner);
    pypto_sim::cost::scalar_ub();
    return ptr_[i];
  }
  void SetValue(uint32_t i, T v) const {
    check_live("SetValue");
    if (i >= size_) fail("SetValue(%u) on a LocalTensor of %u elements", i, size_);
    pypto_sim::cost::scalar_ub();
    ptr_[i] = v;
  }

  // ---- simulation helpers
  T* sim_ptr() const { return ptr_; }
  Slot* sim_slot() const { return slot_; }
  uint32_t sim_gen() const { return gen_; }
  void check_live(const char* what) const {
    if (ptr_ == nullptr || slot_ == nullptr) fail("%s on an unallocated LocalTensor", what);
    if (slot_->gen != gen_ || slot_->state == SlotState::Free)
      fail("%s uses buffer '%s' after FreeTensor", what, slot_->owner);
    if (slot_->state == SlotState::Enqueued)
      fail("%s uses buffer '%s' while it is enqueued (DeQue it first)", what, slot_->owner);
  }
  // UB access (a vector instruction, or an MTE copy with `vector` false): live, 32-byte
  // aligned, in bounds, and ordered after conflicting vector accesses (PIPE_V).
  void check_vec(const char* what, uint64_t elems, bool reads, bool vector = true) const {
    check_live(what);
    if (slot_->mem != pypto_sim::Mem::UB)
      fail("%s: operand in buffer '%s' is in %s; vector instructions work on the Unified Buffer", what, slot_->owner,
           pypto_sim::mem_info(slot_->mem).name);
    const uint32_t at = pypto_sim::mem_offset(slot_->mem, ptr_);
    if (at % pypto_sim::kBlockBytes != 0)
      fail("%s: operand in buffer '%s' at UB byte %u is not 32-byte aligned", what, slot_->owner, at);
    if (elems > size_) fail("%s: %llu elements exceed the operand's %u elements (buffer '%s')", what,
                            (unsigned long long)elems, size_, slot_->owner);
    if (reads && slot_->dma_in && slot_->state == SlotState::Allocated)
      fail("%s reads buffer '%s' loaded by DataCopy before EnQue/DeQue (missing MTE2->V synchronisation)", what, slot_->owner);
    if (vector) detail::v_access(what, slot_->owner, at, at + static_cast<uint32_t>(elems * sizeof(T)), !reads);
  }
  // A level-0 operand (`repeat` repeats `repStride` blocks apart, each `mask` elements in blocks
  // `blk` apart): the same checks, on the blocks it touches.
  void check_vec_l0(const char* what, uint64_t mask, uint8_t repeat, uint32_t blk, uint32_t repStride, bool reads) const {
    constexpr uint32_t per = pypto_sim::kBlockBytes / sizeof(T);
    const uint64_t extent = (uint64_t)(repeat - 1) * repStride * per + (uint64_t)((mask - 1) / per) * blk * per + (mask - 1) % per + 1;
    check_vec(what, extent, reads, false);
    const uint32_t at = pypto_sim::mem_offset(slot_->mem, ptr_);
    std::vector<uint32_t> blocks;
    for (uint32_t r = 0; r < repeat; ++r)
      for (uint32_t k = 0; k < (mask + per - 1) / per; ++k) blocks.push_back(at / pypto_sim::kBlockBytes + r * repStride + k * blk);
    detail::v_blocks(what, slot_->owner, at, at + static_cast<uint32_t>(extent * sizeof(T)), !reads, blocks);
  }
  // The end of a vector instruction (every one marks its destination).
  void mark_v_write() const {
    slot_->v_write_epoch = pypto_sim::vs_epoch();
    detail::v_commit();
  }

 private:
  template <typename U>
  friend class LocalTensor;
  T* ptr_ = nullptr;
  uint32_t size_ = 0;
  Slot* slot_ = nullptr;
  uint32_t gen_ = 0;
};

// ------------------------------------------------------------------ TPipe / TQue / TBuf

class TPipe;

namespace detail {
struct BufferBase {
  BufferBase() = default;
  BufferBase(const BufferBase&) = delete;
  BufferBase& operator=(const BufferBase&) = delete;
  ~BufferBase();
  void check_released() const {
    for (const Slot& s : slots)
      if (s.state != SlotState::Free && s.state != SlotState::Calc)
        fail("kernel ended with buffer '%s' still allocated or enqueued (missing FreeTensor)", s.owner);
  }
  std::vector<Slot> slots;
  TPipe* pipe = nullptr;
};
}  // namespace detail

namespace detail {
// The pipes that fill and read a queue's buffers (the flags of EnQue/DeQue and FreeTensor/AllocTensor).
constexpr int que_producer(TPosition p) {
  return p == TPosition::VECIN || p == TPosition::A1 || p == TPosition::B1 ? pypto_sim::cost::MTE2
         : p == TPosition::VECOUT                                          ? pypto_sim::cost::V
         : p == TPosition::CO1                                             ? pypto_sim::cost::M
                                                                           : pypto_sim::cost::MTE1;
}
constexpr int que_consumer(TPosition p) {
  return p == TPosition::VECIN                           ? pypto_sim::cost::V
         : p == TPosition::VECOUT                        ? pypto_sim::cost::MTE3
         : p == TPosition::A1 || p == TPosition::B1      ? pypto_sim::cost::MTE1
         : p == TPosition::CO1                           ? pypto_sim::cost::FIX
                                                         : pypto_sim::cost::M;
}
}  // namespace detail

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public detail::BufferBase {
  static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::A1 || pos == TPosition::A2 ||
                    pos == TPosition::B1 || pos == TPosition::B2 || pos == TPosition::C1 || pos == TPosition::C2 ||
                    pos == TPosition::CO1,
                "the simulation supports VECIN/VECOUT/A1/A2/B1/B2/C1/C2/CO1 queues");

 public:
  template <typename T>
  LocalTensor<T> AllocTensor() {
    if (slots.empty()) fail("AllocTensor on a queue that was never given buffers by TPipe::InitBuffer");
    // buffers are handed out in turn (ping, pong, ping, ...), as the real TQue does
    for (size_t k = 0; k < slots.size(); ++k) {
      Slot& s = slots[(cursor_ + k) % slots.size()];
      if (s.state == SlotState::Free) {
        cursor_ = (cursor_ + k + 1) % slots.size();
        s.state = SlotState::Allocated;
        s.v_write_epoch = 0;
        s.fill_seq = 0;
        detail::v_forget(s);
        pypto_sim::cost::que_alloc(&s, detail::que_producer(pos));
        return LocalTensor<T>(reinterpret_cast<T*>(pypto_sim::mem_base(s.mem) + s.addr), s.bytes / sizeof(T), &s);
      }
    }
    fail("AllocTensor on queue '%s': all %zu buffers are in use (missing FreeTensor?)", slots[0].owner, slots.size());
  }
  template <typename T>
  bool EnQue(const LocalTensor<T>& t) {
    Slot* s = own(t, "EnQue");
    if (s->state == SlotState::Enqueued) fail("EnQue of a buffer of queue '%s' that is already enqueued", s->owner);
    if (static_cast<int32_t>(fifo_.size()) >= depth) fail("EnQue on queue '%s' beyond its depth %d", s->owner, depth);
    s->state = SlotState::Enqueued;
    detail::v_forget(*s);
    fifo_.push_back(s);
    pypto_sim::cost::que_enque(s, detail::que_producer(pos));
    return true;
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    if (fifo_.empty()) fail("DeQue on empty queue '%s' (no matching EnQue; the hardware would hang)", slots.empty() ? "?" : slots[0].owner);
    Slot* s = fifo_.front();
    fifo_.erase(fifo_.begin());
    s->state = SlotState::Dequeued;
    detail::v_forget(*s);
    pypto_sim::cost::que_deque(s, detail::que_consumer(pos));
    return LocalTensor<T>(reinterpret_cast<T*>(pypto_sim::mem_base(s->mem) + s->addr), s->bytes / sizeof(T), s);
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& t) {
    Slot* s = own(t, "FreeTensor");
    if (s->state == SlotState::Enqueued) fail("FreeTensor of a buffer of queue '%s' that is still enqueued", s->owner);
    s->state = SlotState::Free;
    detail::v_forget(*s);
    ++s->gen;
    pypto_sim::cost::que_free(s, detail::que_consumer(pos));
  }

 private:
  template <typename T>
  Slot* own(const LocalTensor<T>& t, const char* what) {
    Slot* s = t.sim_slot();
    bool mine = false;
    for (Slot& x : slots) mine = mine || (&x == s);
    if (!mine) fail("%s of a tensor that does not belong to queue '%s'", what, slots.empty() ? "?" : slots[0].owner);
    if (s->state == SlotState::Free || s->gen != t.sim_gen()) fail("%s of a buffer of queue '%s' that is not allocated", what, s->owner);
    return s;
  }
  std::vector<Slot*> fifo_;
  size_t cursor_ = 0;
};

template <TPosition pos = TPosition::VECCALC>
class TBuf : public detail::BufferBase {
  static_assert(pos == TPosition::VECCALC, "the simulation supports TBuf<TPosition::VECCALC>");

 public:
  template <typename T>
  LocalTensor<T> Get() {
    if (slots.empty()) fail("TBuf::Get on a buffer that was never given memory by TPipe::InitBuffer");
    return LocalTensor<T>(reinterpret_cast<T*>(pypto_sim::mem_base(slots[0].mem) + slots[0].addr), slots[0].bytes / sizeof(T), &slots[0]);
  }
};

class TPipe {
 public:
  TPipe() {
    if (pypto_sim::pipe_live()) fail("a second TPipe was created while another one is live");
    pypto_sim::pipe_live() = true;
    detail::v_barrier();
  }
  ~TPipe() {
    for (const auto& e : allocated_events_)
      fail("event id %d of HardEvent::%s was reserved with AllocEventID and never released", e.second,
           detail::event_name(e.first));
    for (detail::BufferBase* b : buffers_) {
      b->check_released();
      b->slots.clear();
      b->pipe = nullptr;
    }
    pypto_sim::pipe_live() = false;
  }
  void sim_detach(detail::BufferBase* b) {
    for (size_t i = 0; i < buffers_.size(); ++i)
      if (buffers_[i] == b) { buffers_.erase(buffers_.begin() + i); return; }
  }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  template <TPosition pos, int32_t depth, auto mask>
  bool InitBuffer(TQue<pos, depth, mask>& que, uint8_t num, uint32_t len) {
    if (num == 0 || num > depth) fail("InitBuffer(queue, num=%u, ...) with a queue of depth %d", num, depth);
    using pypto_sim::Mem;
    Mem mem = Mem::UB;
    const char* kind = "VECOUT queue";
    switch (pos) {
      case TPosition::VECIN: kind = "VECIN queue"; break;
      case TPosition::A1: mem = Mem::L1; kind = "A1 queue"; break;
      case TPosition::B1: mem = Mem::L1; kind = "B1 queue"; break;
      case TPosition::C1: mem = Mem::L1; kind = "C1 queue"; break;
      case TPosition::C2: mem = Mem::BT; kind = "C2 queue"; break;
      case TPosition::A2: mem = Mem::L0A; kind = "A2 queue"; break;
      case TPosition::B2: mem = Mem::L0B; kind = "B2 queue"; break;
      case TPosition::CO1: mem = Mem::L0C; kind = "CO1 queue"; break;
      default: break;
    }
    const bool dma_in = pos != TPosition::VECOUT && pos != TPosition::CO1;
    return init(que, num, len, dma_in, SlotState::Free, kind, mem);
  }
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    return init(buf, 1, len, false, SlotState::Calc, "VECCALC TBuf", pypto_sim::Mem::UB);
  }

  void Reset() { fail("TPipe::Reset is not supported by the simulation"); }

  // Event ids (SetFlag/WaitFlag): AllocEventID reserves one until ReleaseEventID;
  // FetchEventID lends one that nobody reserved, without reserving it.
  template <HardEvent evt>
  TEventID AllocEventID() {
    for (int32_t id = 0; id < 8; ++id) {
      if (!detail::allocated_event(evt, id) && detail::pending_flags(evt, id) == 0) {
        detail::allocated_event(evt, id) = true;
        allocated_events_.push_back({evt, id});
        return static_cast<TEventID>(id);
      }
    }
    fail("AllocEventID<HardEvent::%s>: all 8 event ids are in use (release them with ReleaseEventID)",
         detail::event_name(evt));
    return 0;
  }
  template <HardEvent evt>
  void ReleaseEventID(TEventID id) {
    if (id < 0 || id > 7 || !detail::allocated_event(evt, id))
      fail("ReleaseEventID<HardEvent::%s>(%d) of an id AllocEventID did not return", detail::event_name(evt), id);
    if (detail::pending_flags(evt, id) != 0)
      fail("ReleaseEventID<HardEvent::%s>(%d) while its flag is set and not waited for", detail::event_name(evt), id);
    detail::allocated_event(evt, id) = false;
    for (size_t i = 0; i < allocated_events_.size(); ++i)
      if (allocated_events_[i].first == evt && allocated_events_[i].second == id) {
        allocated_events_.erase(allocated_events_.begin() + i);
        break;
      }
  }
  template <HardEvent evt>
  TEventID FetchEventID() { return FetchEventID(evt); }
  TEventID FetchEventID(HardEvent evt) {
    for (int32_t id = 0; id < 8; ++id)
      if (!detail::allocated_event(evt, id)) return static_cast<TEventID>(id);
    fail("FetchEventID(HardEvent::%s): every event id is reserved by AllocEventID", detail::event_name(evt));
    return 0;
  }

 private:
  bool init(detail::BufferBase& b, uint8_t num, uint32_t len, bool dma_in, SlotState st, const char* kind,
            pypto_sim::Mem mem) {
    if (!b.slots.empty()) fail("InitBuffer called twice on the same queue/buffer");
    if (len == 0) fail("InitBuffer with 0 bytes");
    const pypto_sim::MemInfo& info = pypto_sim::mem_info(mem);
    uint32_t& used_ = used[static_cast<int>(mem)];
    used_ = (used_ + info.align - 1) / info.align * info.align;
    uint32_t aligned = (len + info.align - 1) / info.align * info.align;
    if (static_cast<uint64_t>(used_) + static_cast<uint64_t>(aligned) * num > info.capacity)
      fail("InitBuffer of %u x %u bytes exceeds the %s: %u of %u bytes already used", num, aligned, info.name, used_,
           info.capacity);
    b.slots.resize(num);
    for (uint8_t i = 0; i < num; ++i) {
      Slot& s = b.slots[i];
      s.addr = used_;
      s.bytes = aligned;
      s.state = st;
      s.dma_in = dma_in;
      s.mem = mem;
      std::snprintf(s.name, sizeof(s.name), "%s #%u slot %u (%s bytes [%u, %u))", kind, count_, i,
                    mem == pypto_sim::Mem::UB ? "UB" : info.name, used_, used_ + aligned);
      s.owner = s.name;
      used_ += aligned;
    }
    pypto_sim::cost::mem_used(static_cast<int>(mem), used_);
    ++count_;
    b.pipe = this;
    buffers_.push_back(&b);
    return true;
  }

 public:
  // Simulation helper.
  uint32_t sim_used_bytes() const { return used[0]; }

 private:
  uint32_t used[static_cast<int>(pypto_sim::Mem::Count)] = {};
  uint32_t count_ = 0;
  std::vector<detail::BufferBase*> buffers_;
  std::vector<std::pair<HardEvent, int32_t>> allocated_events_;
};

namespace detail {
inline BufferBase::~BufferBase() {
  if (pipe != nullptr) {
    check_released();
    pipe->sim_detach(this);
  }
}
}  // namespace detail

// ------------------------------------------------------------------ data movement

struct DataCopyParams {
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;   // in 32-byte blocks
  uint16_t srcStride = 0;  // in 32-byte blocks
  uint16_t dstStride = 0;  // in 32-byte blocks
  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t src, uint16_t dst) : blockCount(count), blockLen(len), srcStride(src), dstStride(dst) {}
};

struct DataCopyExtParams {
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;   // in bytes
  uint32_t srcStride = 0;  // GM side in bytes, UB side in 32-byte blocks
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t src, uint32_t dst, uint32_t r) : blockCount(count), blockLen(len), srcStride(src), dstStride(dst), rsv(r) {}
};

template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = 0;
  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool pad, uint8_t l, uint8_t r, T v) : isPad(pad), leftPadding(l), rightPadding(r), paddingValue(v) {}
};

namespace detail {
template <typename T>
void check_count_bytes(const char* what, uint64_t count) {
  if (count == 0) fail("%s with 0 elements", what);
  if ((count * sizeof(T)) % pypto_sim::kBlockBytes != 0)
    fail("%s of %llu elements (%llu bytes) is not a whole number of 32-byte blocks: use DataCopyPad", what,
         (unsigned long long)count, (unsigned long long)(count * sizeof(T)));
}
template <typename T>
void check_copy_in_dst(const LocalTensor<T>& dst, uint64_t elems) {
  dst.check_vec("DataCopy GM->UB", elems, false, false);
}
template <typename T>
void check_copy_out_src(const LocalTensor<T>& src, uint64_t elems) {
  src.check_vec("DataCopy UB->GM", elems, false, false);
  Slot* s = src.sim_slot();
  if (s->state == SlotState::Calc) fail("DataCopy UB->GM from TBuf '%s': needs a VECOUT queue (EnQue/DeQue) for V->MTE3 synchronisation", s->owner);
  if (s->state != SlotState::Dequeued)
    fail("DataCopy UB->GM from buffer '%s' that was not EnQue'd and DeQue'd (missing V->MTE3 synchronisation)", s->owner);
}
}  // namespace detail

namespace detail {
template <typename T>
void check_local(const LocalTensor<T>& t, const char* what, pypto_sim::Mem mem, uint64_t elems, bool reads);
}

// GM -> UB, count form (GM -> L1 when the destination is an L1 tensor: A1/B1/C1, on MTE2)
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
  if (dst.sim_slot() != nullptr && dst.sim_slot()->mem == pypto_sim::Mem::L1) {
    detail::check_count_bytes<T>("DataCopy GM->L1", count);
    detail::check_local(dst, "DataCopy GM->L1", pypto_sim::Mem::L1, count, false);
    src.check(0, count, "DataCopy GM->L1");
    std::memcpy(dst.sim_ptr(), src.sim_ptr(), count * sizeof(T));
    pypto_sim::cost::gm_transfer(pypto_sim::cost::MTE2, src.sim_ptr(), 1, count * sizeof(T), 0, true, true);
    return;
  }
  detail::check_count_bytes<T>("DataCopy GM->UB", count);
  detail::check_copy_in_dst(dst, count);
  src.check(0, count, "DataCopy GM->UB");
  std::memcpy(dst.sim_ptr(), src.sim_ptr(), count * sizeof(T));
  pypto_sim::cost::gm_transfer(pypto_sim::cost::MTE2, src.sim_ptr(), 1, count * sizeof(T), 0, true);
}

// ------------------------------------------------------------------ atomic add into GM
namespace detail {
template <typename T>
const void* type_tag() {
  static const char tag = 0;
  return &tag;
}
// n elements into global memory: overwritten, or added under SetAtomicAdd<T>
template <typename T>
void gm_write_local(T* dst, const T* src, uint64_t n, const char* what) {
  const pypto_sim::LaunchState& s = pypto_sim::launch_state();
  if (s.atomic_add == nullptr) {
    std::memcpy(dst, src, n * sizeof(T));
    return;
  }
  if (s.atomic_add != type_tag<T>())
    fail("%s copies %u-byte elements under SetAtomicAdd of another element type (%u-byte)", what, (unsigned)sizeof(T), s.atomic_bytes);
  for (uint64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(dst[i] + src[i]);
}
// A write into a window of the communication domain holds its lock: another rank may add
// to the same elements at the same time (pypto_sim/comm.h).
template <typename T>
void gm_write(T* dst, const T* src, uint64_t n, const char* what) {
  if (n > 0 && pypto_sim::comm::contains(dst, n * sizeof(T))) {
    pypto_sim::comm::Lock lock;
    gm_write_local(dst, src, n, what);
    return;
  }
  gm_write_local(dst, src, n, what);
}
}  // namespace detail

template <typename T>
void SetAtomicAdd() {
  static_assert(std::is_same<T, float>::value || std::is_same<T, int32_t>::value || std::is_same<T, int16_t>::value ||
                    std::is_same<T, int8_t>::value || sizeof(T) == 2,
                "SetAtomicAdd exists for float, half, bfloat16_t, int32_t, int16_t and int8_t (dav-c220)");
  pypto_sim::launch_state().atomic_add = detail::type_tag<T>();
  pypto_sim::launch_state().atomic_bytes = sizeof(T);
}
inline void SetAtomicNone() {
  pypto_sim::launch_state().atomic_add = nullptr;
  pypto_sim::launch_state().atomic_bytes = 0;
}

// The scalar data cache in front of GM: the simulation has none (scalar GM accesses are
// coherent with the copies); the call is checked for its types only.
enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {
  (void)dst;
}

// UB -> GM, count form
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  detail::check_count_bytes<T>("DataCopy UB->GM", count);
  detail::check_copy_out_src(src, count);
  dst.check(0, count, "DataCopy UB->GM", true);
  detail::gm_write(dst.sim_ptr(), src.sim_ptr(), count, "DataCopy UB->GM");
  pypto_sim::cost::gm_transfer(pypto_sim::cost::MTE3, dst.sim_ptr(), 1, count * sizeof(T), 0, false);
}

// UB -> UB (vector pipe), count form; L1 (C1) -> bias table (C2) on MTE1, in 64-byte blocks
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  const bool to_bt = dst.sim_slot() != nullptr && dst.sim_slot()->mem == pypto_sim::Mem::BT;
  if (to_bt || (src.sim_slot() != nullptr && src.sim_slot()->mem == pypto_sim::Mem::L1)) {
    if (!to_bt) fail("DataCopy from L1 (local to local): the simulation supports L1 -> bias table (C1 -> C2) only");
    if (count == 0 || (count * sizeof(T)) % 64 != 0)
      fail("DataCopy L1->BT of %u elements: the bias table is written in 64-byte blocks", count);
    detail::check_local(src, "DataCopy L1->BT", pypto_sim::Mem::L1, count, true);
    detail::check_local(dst, "DataCopy L1->BT", pypto_sim::Mem::BT, count, false);
    std::memcpy(dst.sim_ptr(), src.sim_ptr(), count * sizeof(T));
    pypto_sim::cost::mte1_load((uint64_t)count * sizeof(T), false);
    return;
  }
  detail::check_count_bytes<T>("DataCopy UB->UB", count);
  src.check_vec("DataCopy UB->UB", count, true);
  dst.check_vec("DataCopy UB->UB", count, false);
  std::memmove(dst.sim_ptr(), src.sim_ptr(), count * sizeof(T));
  dst.mark_v_write();
  pypto_sim::cost::vector_count("DataCopy UB->UB", sizeof(T), count);
}

// L1 (C1) half -> bias table (C2) float, converting on MTE1 (the devkit's DataCopy<T, U> for
// L1ToBiasTable, isEnableConv): blockLen counts 64-byte blocks of the half source
template <typename T, typename U,
          typename std::enable_if<std::is_same<T, float>::value && std::is_same<U, half>::value, bool>::type = true>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p) {
  if (dst.sim_slot() == nullptr || dst.sim_slot()->mem != pypto_sim::Mem::BT)
    fail("DataCopy half -> float between local tensors: the simulation supports L1 -> bias table (C1 -> C2) only");
  if (p.blockCount != 1 || p.blockLen == 0 || p.srcStride != 0 || p.dstStride != 0)
    fail("DataCopy L1->BT (half -> float) with blockCount=%u blockLen=%u srcStride=%u dstStride=%u: the simulation "
         "supports one contiguous run", p.blockCount, p.blockLen, p.srcStride, p.dstStride);
  const uint32_t count = p.blockLen * 64u / sizeof(U);
  detail::check_local(src, "DataCopy L1->BT", pypto_sim::Mem::L1, count, true);
  detail::check_local(dst, "DataCopy L1->BT", pypto_sim::Mem::BT, count, false);
  for (uint32_t i = 0; i < count; ++i) dst.sim_ptr()[i] = static_cast<float>(src.sim_ptr()[i]);
  pypto_sim::cost::mte1_load((uint64_t)count * sizeof(U), false);
}

// GM -> UB, strided blocks
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  constexpr uint32_t per = pypto_sim::kBlockBytes / sizeof(T);
  if (p.blockCount == 0 || p.blockLen == 0) fail("DataCopy GM->UB with blockCount=%u blockLen=%u", p.blockCount, p.blockLen);
  uint64_t dst_elems = (uint64_t)((p.blockCount - 1) * (p.blockLen + p.dstStride) + p.blockLen) * per;
  detail::check_copy_in_dst(dst, dst_elems);
  for (uint32_t i = 0; i < p.blockCount; ++i) {
    uint64_t s = (uint64_t)i * (p.blockLen + p.srcStride) * per, d = (uint64_t)i * (p.blockLen + p.dstStride) * per;
    src.check(s, (uint64_t)p.blockLen * per, "DataCopy GM->UB");
    std::memcpy(dst.sim_ptr() + d, src.sim_ptr() + s, (size_t)p.blockLen * pypto_sim::kBlockBytes);
  }
  pypto_sim::cost::gm_transfer(pypto_sim::cost::MTE2, src.sim_ptr(), p.blockCount, p.blockLen * 32ull, (p.blockLen + p.srcStride) * 32ull, true);
}

// UB -> GM, strided blocks
template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  constexpr uint32_t per = pypto_sim::kBlockBytes / sizeof(T);
  if (p.blockCount == 0 || p.blockLen == 0) fail("DataCopy UB->GM with blockCount=%u blockLen=%u", p.blockCount, p.blockLen);
  uint64_t src_elems = (uint64_t)((p.blockCount - 1) * (p.blockLen + p.srcStride) + p.blockLen) * per;
  detail::check_copy_out_src(src, src_elems);
  for (uint32_t i = 0; i < p.blockCount; ++i) {
    uint64_t s = (uint64_t)i * (p.blockLen + p.srcStride) * per, d = (uint64_t)i * (p.blockLen + p.dstStride) * per;
    dst.check(d, (uint64_t)p.blockLen * per, "DataCopy UB->GM", true);
    detail::gm_write(dst.sim_ptr() + d, src.sim_ptr() + s, (uint64_t)p.blockLen * per, "DataCopy UB->GM");
  }
  pypto_sim::cost::gm_transfer(pypto_sim::cost::MTE3, dst.sim_ptr(), p.blockCount, p.blockLen * 32ull, (p.blockLen + p.dstStride) * 32ull, false);
}

// GM -> UB, byte-granular rows; each row lands at a 32-byte aligned UB address, followed by
// its right padding and the dummy bytes up to the next 32-byte boundary: with isPad (and a
// padding) both hold paddingValue; with no padding the dummy repeats the row's first element
// (the devkit's description of DataCopyPadExtParams). Left padding is not modelled.
template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad) {
  if (p.blockCount == 0 || p.blockLen == 0) fail("DataCopyPad GM->UB with blockCount=%u blockLen=%u", p.blockCount, p.blockLen);
  if (p.blockLen % sizeof(T) != 0 || p.srcStride % sizeof(T) != 0) fail("DataCopyPad GM->UB: blockLen/srcStride not a multiple of the element size");
  if (pad.leftPadding != 0) fail("DataCopyPad with leftPadding=%u is not supported by the simulation", pad.leftPadding);
  if (pad.rightPadding * sizeof(T) > pypto_sim::kBlockBytes)
    fail("DataCopyPad: rightPadding of %u elements is more than 32 bytes", pad.rightPadding);
  const uint64_t data_elems = p.blockLen / sizeof(T);
  const uint64_t padded_bytes = p.blockLen + pad.rightPadding * sizeof(T);
  const uint64_t row_blocks = (padded_bytes + pypto_sim::kBlockBytes - 1) / pypto_sim::kBlockBytes;
  const uint64_t row_elems = row_blocks * pypto_sim::kBlockBytes / sizeof(T);
  uint32_t row_ub = (uint32_t)row_blocks + p.dstStride;  // in blocks
  uint64_t dst_bytes = (uint64_t)(p.blockCount - 1) * row_ub * pypto_sim::kBlockBytes + row_blocks * pypto_sim::kBlockBytes;
  detail::check_copy_in_dst(dst, (dst_bytes + sizeof(T) - 1) / sizeof(T));
  for (uint32_t i = 0; i < p.blockCount; ++i) {
    uint64_t s = (uint64_t)i * (p.blockLen + p.srcStride) / sizeof(T);
    src.check(s, data_elems, "DataCopyPad GM->UB");
    T* row = reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(dst.sim_ptr()) + (uint64_t)i * row_ub * pypto_sim::kBlockBytes);
    std::memcpy(row, src.sim_ptr() + s, p.blockLen);
    if (pad.rightPadding != 0) {
      if (pad.isPad)
        for (uint64_t e = data_elems; e < row_elems; ++e) row[e] = pad.paddingValue;
    } else {
      for (uint64_t e = data_elems; e < row_elems; ++e) row[e] = row[0];
    }
  }
  pypto_sim::cost::gm_transfer(pypto_sim::cost::MTE2, src.sim_ptr(), p.blockCount, p.blockLen, (uint64_t)p.blockLen + p.srcStride, true);
}

// UB -> GM, byte-granular rows read from 32-byte aligned UB rows.
template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
  if (p.blockCount == 0 || p.blockLen == 0) fail("DataCopyPad UB->GM with blockCount=%u blockLen=%u", p.blockCount, p.blockLen);
  if (p.blockLen % sizeof(T) != 0 || p.dstStride % sizeof(T) != 0) fail("DataCopyPad UB->GM: blockLen/dstStride not a multiple of the element size");
  uint32_t row_ub = (p.blockLen + pypto_sim::kBlockBytes - 1) / pypto_sim::kBlockBytes + p.srcStride;
  uint64_t src_bytes = (uint64_t)(p.blockCount - 1) * row_ub * pypto_sim::kBlockBytes + p.blockLen;
  detail::check_copy_out_src(src, (src_bytes + sizeof(T) - 1) / sizeof(T));
  for (uint32_t i = 0; i < p.blockCount; ++i) {
    uint64_t d = (uint64_t)i * (p.blockLen + p.dstStride) / sizeof(T);
    dst.check(d, p.blockLen / sizeof(T), "DataCopyPad UB->GM", true);
    detail::gm_write(dst.sim_ptr() + d, reinterpret_cast<const T*>(reinterpret_cast<const uint8_t*>(src.sim_ptr()) + (uint64_t)i * row_ub * pypto_sim::kBlockBytes),
                     p.blockLen / sizeof(T), "DataCopyPad UB->GM");
  }
  pypto_sim::cost::gm_transfer(pypto_sim::cost::MTE3, dst.sim_ptr(), p.blockCount, p.blockLen, (uint64_t)p.blockLen + p.dstStride, false);
}

// ------------------------------------------------------------------ vector compute (level 2)

namespace detail {
template <typename T>
constexpr bool half_or_float() {
  return std::is_same<T, float>::value || (sizeof(T) == 2 && !std::is_integral<T>::value && !std::is_same<T, bfloat16_t>::value);
}
template <typename T>
constexpr bool half_float_or_int32() {
  return half_or_float<T>() || std::is_same<T, int32_t>::value;
}
template <typename T>
constexpr bool arith_type() {
  return half_or_float<T>() || std::is_same<T, int16_t>::value || std::is_same<T, int32_t>::value;
}
template <typename T>
void check_count(const char* what, int32_t count) {
  if (count <= 0) fail("%s with count %d", what, count);
}
template <typename T, typename F>
void binary(const char* what, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, int32_t count, F f) {
  check_count<T>(what, count);
  a.check_vec(what, count, true);
  b.check_vec(what, count, true);
  dst.check_vec(what, count, false);
  T* d = dst.sim_ptr();
  const T* x = a.sim_ptr();
  const T* y = b.sim_ptr();
  for (int32_t i = 0; i < count; ++i) d[i] = f(x[i], y[i]);
  dst.mark_v_write();
  pypto_sim::cost::vector_count(what, sizeof(T), count);
}
template <typename T, typename F>
void unary(const char* what, const LocalTensor<T>& dst, const LocalTensor<T>& a, int32_t count, F f) {
  check_count<T>(what, count);
  a.check_vec(what, count, true);
  dst.check_vec(what, count, false);
  T* d = dst.sim_ptr();
  const T* x = a.sim_ptr();
  for (int32_t i = 0; i < count; ++i) d[i] = f(x[i]);
  dst.mark_v_write();
  pypto_sim::cost::vector_count(what, sizeof(T), count);
}
}  // namespace detail

#define PYPTO_SIM_BINARY(NAME, TYPES, EXPR)                                                                      \
  template <typename T>                                                                                          \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count) { \
    static_assert(detail::TYPES<T>(), #NAME " does not exist for this element type (dav-c220)");               \
    detail::binary(#NAME, dst, src0, src1, count, [](T a, T b) -> T { return EXPR; });                          \
  }
PYPTO_SIM_BINARY(Add, arith_type, a + b)
PYPTO_SIM_BINARY(Sub, arith_type, a - b)
PYPTO_SIM_BINARY(Mul, arith_type, a * b)
PYPTO_SIM_BINARY(Div, half_or_float, a / b)
PYPTO_SIM_BINARY(Max, arith_type, a > b ? a : b)
PYPTO_SIM_BINARY(Min, arith_type, a < b ? a : b)
#undef PYPTO_SIM_BINARY

#define PYPTO_SIM_SCALAR(NAME, EXPR)                                                                       \
  template <typename T>                                                                                    \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count) { \
    static_assert(detail::arith_type<T>(), #NAME " does not exist for this element type (dav-c220)");    \
    const T s = scalarValue;                                                                               \
    detail::unary(#NAME, dst, src, count, [s](T a) -> T { return EXPR; });                                 \
  }
PYPTO_SIM_SCALAR(Adds, a + s)
PYPTO_SIM_SCALAR(Muls, a * s)
PYPTO_SIM_SCALAR(Maxs, a > s ? a : s)
PYPTO_SIM_SCALAR(Mins, a < s ? a : s)
#undef PYPTO_SIM_SCALAR

// The element types each instruction exists for on dav-c220 (the devkit's SupportType checks):
// a kernel the real headers reject does not compile here either.
#define PYPTO_SIM_UNARY(NAME, TYPES, EXPR)                                                    \
  template <typename T>                                                                       \
  void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {    \
    static_assert(detail::TYPES<T>(), #NAME " does not exist for this element type (dav-c220)"); \
    detail::unary(#NAME, dst, src, count, [](T a) -> T { return EXPR; });                     \
  }
PYPTO_SIM_UNARY(Exp, half_or_float, static_cast<T>(std::exp(static_cast<float>(a))))
PYPTO_SIM_UNARY(Ln, half_or_float, static_cast<T>(std::log(static_cast<float>(a))))
PYPTO_SIM_UNARY(Sqrt, half_or_float, static_cast<T>(std::sqrt(static_cast<float>(a))))
PYPTO_SIM_UNARY(Rsqrt, half_or_float, static_cast<T>(1.0f / std::sqrt(static_cast<float>(a))))
PYPTO_SIM_UNARY(Abs, half_or_float, a < T(0) ? T(-a) : a)
PYPTO_SIM_UNARY(Relu, half_float_or_int32, a > T(0) ? a : T(0))
PYPTO_SIM_UNARY(Reciprocal, half_or_float, static_cast<T>(1.0f / static_cast<float>(a)))
#undef PYPTO_SIM_UNARY

// The devkit's special values of an element type (kernel_operator_limits_intf.h).
template <typename T>
struct NumericLimits {
  static constexpr T Max() { return std::numeric_limits<T>::max(); }
  static constexpr T Lowest() { return std::numeric_limits<T>::lowest(); }
  static constexpr T Infinity() { return static_cast<T>(std::numeric_limits<float>::infinity()); }
  static constexpr T NegativeInfinity() { return static_cast<T>(-std::numeric_limits<float>::infinity()); }
  static constexpr T QuietNaN() { return static_cast<T>(std::numeric_limits<float>::quiet_NaN()); }
};

template <typename T>
void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count) {
  detail::check_count<T>("Duplicate", count);
  dst.check_vec("Duplicate", count, false);
  for (int32_t i = 0; i < count; ++i) dst.sim_ptr()[i] = scalarValue;
  dst.mark_v_write();
  pypto_sim::cost::vector_count("Duplicate", sizeof(T), count);
}

namespace detail {
// The representable neighbour of float `y` above (`up`) or below it, on its bit pattern (a
// 2-byte float: half; sign-magnitude, so one step of the magnitude away from or towards zero).
template <typename D>
D float_step(D y, bool up) {
  using Bits = typename std::conditional<sizeof(D) == 2, uint16_t, uint32_t>::type;
  const Bits sign = static_cast<Bits>(Bits(1) << (sizeof(D) * 8 - 1));
  Bits bits;
  std::memcpy(&bits, &y, sizeof(D));
  const Bits magnitude = bits & static_cast<Bits>(~sign);
  Bits out;
  if (magnitude == 0) out = up ? Bits(1) : static_cast<Bits>(sign | 1);
  else if (((bits & sign) != 0) != up) out = static_cast<Bits>(bits + 1);  // away from zero
  else out = static_cast<Bits>(bits - 1);
  D r;
  std::memcpy(&r, &out, sizeof(D));
  return r;
}

// A conversion of the exact value `x` to float type D under a RoundMode: the nearest value
// (ties to even) for CAST_NONE/CAST_RINT; otherwise, when inexact, the neighbour below (FLOOR),
// above (CEIL), towards zero (TRUNC), the nearest with ties away from zero (ROUND), or the one
// whose last mantissa bit is odd (ODD). Overflow follows IEEE: FLOOR of a large positive value
// is the largest finite value.
template <typename D>
D round_to_float(double x, RoundMode mode) {
  const D nearest = static_cast<D>(x);
  const double y = static_cast<double>(nearest);
  if (mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT || y == x || !std::isfinite(x)) return nearest;
  const D lo = y > x ? float_step(nearest, false) : nearest;
  const D hi = y < x ? float_step(nearest, true) : nearest;
  switch (mode) {
    case RoundMode::CAST_FLOOR: return lo;
    case RoundMode::CAST_CEIL: return hi;
    case RoundMode::CAST_TRUNC: return x > 0 ? lo : hi;
    case RoundMode::CAST_ROUND:
      return (x - static_cast<double>(lo)) == (static_cast<double>(hi) - x) ? (x > 0 ? hi : lo) : nearest;
    case RoundMode::CAST_ODD: {
      using Bits = typename std::conditional<sizeof(D) == 2, uint16_t, uint32_t>::type;
      Bits bits;
      std::memcpy(&bits, &lo, sizeof(D));
      return (bits & 1) ? lo : hi;
    }
    default: return nearest;
  }
}
}  // namespace detail

template <typename D, typename S>
void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, const RoundMode& mode, const uint32_t count) {
  if (count == 0) fail("Cast with count 0");
  src.check_vec("Cast", count, true);
  dst.check_vec("Cast", count, false);
  for (uint32_t i = 0; i < count; ++i) {
    double v = static_cast<double>(src.sim_ptr()[i]);
    if constexpr (std::is_integral<D>::value) {
      switch (mode) {
        case RoundMode::CAST_RINT: v = std::nearbyint(v); break;
        case RoundMode::CAST_FLOOR: v = std::floor(v); break;
        case RoundMode::CAST_CEIL: v = std::ceil(v); break;
        case RoundMode::CAST_ROUND: v = std::round(v); break;
        case RoundMode::CAST_TRUNC: v = std::trunc(v); break;
        default: fail("Cast to an integer type needs an explicit rounding mode");
      }
      dst.sim_ptr()[i] = static_cast<D>(v);
    } else {
      dst.sim_ptr()[i] = detail::round_to_float<D>(v, mode);
    }
  }
  dst.mark_v_write();
  pypto_sim::cost::vector_count("Cast", sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S), count);
}

// ------------------------------------------------------------------ vector compute (level 0, continuous mask)

struct BinaryRepeatParams {
  uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
  uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
  BinaryRepeatParams() = default;
  BinaryRepeatParams(uint8_t db, uint8_t s0b, uint8_t s1b, uint8_t dr, uint8_t s0r, uint8_t s1r)
      : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr), src0RepStride(s0r), src1RepStride(s1r) {}
};

struct UnaryRepeatParams {
  uint16_t dstBlkStride = 1, srcBlkStride = 1;
  uint8_t dstRepStride = 8, srcRepStride = 8;
  UnaryRepeatParams() = default;
  UnaryRepeatParams(uint16_t db, uint16_t sb, uint8_t dr, uint8_t sr) : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr) {}
};

namespace detail {
template <typename T>
uint64_t l0_index(uint32_t rep, uint32_t e, uint32_t blk, uint32_t repStride) {
  constexpr uint32_t per = pypto_sim::kBlockBytes / sizeof(T);
  return (uint64_t)rep * repStride * per + (uint64_t)(e / per) * blk * per + e % per;
}
template <typename T>
void check_l0(const char* what, uint64_t mask, uint8_t repeat) {
  constexpr uint64_t lanes = pypto_sim::kRepeatBytes / sizeof(T);
  if (mask == 0 || mask > lanes) fail("%s: mask %llu outside [1, %llu]", what, (unsigned long long)mask, (unsigned long long)lanes);
  if (repeat == 0) fail("%s with repeatTime 0", what);
}
template <typename T>
uint64_t l0_extent(uint64_t mask, uint8_t repeat, uint32_t blk, uint32_t repStride) {
  return l0_index<T>(repeat - 1, (uint32_t)mask - 1, blk, repStride) + 1;
}
template <typename T, typename F>
void binary_l0(const char* what, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask,
               uint8_t repeat, const BinaryRepeatParams& p, F f) {
  check_l0<T>(what, mask, repeat);
  a.check_vec_l0(what, mask, repeat, p.src0BlkStride, p.src0RepStride, true);
  b.check_vec_l0(what, mask, repeat, p.src1BlkStride, p.src1RepStride, true);
  dst.check_vec_l0(what, mask, repeat, p.dstBlkStride, p.dstRepStride, false);
  for (uint32_t r = 0; r < repeat; ++r)
    for (uint32_t e = 0; e < mask; ++e)
      dst.sim_ptr()[l0_index<T>(r, e, p.dstBlkStride, p.dstRepStride)] =
          f(a.sim_ptr()[l0_index<T>(r, e, p.src0BlkStride, p.src0RepStride)], b.sim_ptr()[l0_index<T>(r, e, p.src1BlkStride, p.src1RepStride)]);
  dst.mark_v_write();
  pypto_sim::cost::vector(what, sizeof(T), repeat, (uint64_t)repeat * mask);
}
}  // namespace detail

// Level 0, bit mask: lane k of each repeat when bit k of mask[0..1] is set.
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask[], const uint8_t repeatTime,
               const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
  constexpr uint32_t lanes = pypto_sim::kRepeatBytes / sizeof(T);
  if (repeatTime == 0) fail("Duplicate with repeatTime 0");
  if (lanes <= 64 && mask[1] != 0) fail("Duplicate: mask[1] must be 0 for %u-byte elements", (unsigned)sizeof(T));
  uint32_t last = 0;
  for (uint32_t e = 0; e < lanes; ++e)
    if ((mask[e / 64] >> (e % 64)) & 1) last = e + 1;
  if (last == 0) fail("Duplicate with an empty bit mask");
  dst.check_vec_l0("Duplicate", last, repeatTime, dstBlockStride, dstRepeatStride, false);
  for (uint32_t r = 0; r < repeatTime; ++r)
    for (uint32_t e = 0; e < last; ++e)
      if ((mask[e / 64] >> (e % 64)) & 1) dst.sim_ptr()[detail::l0_index<T>(r, e, dstBlockStride, dstRepeatStride)] = scalarValue;
  dst.mark_v_write();
  pypto_sim::cost::vector("Duplicate", sizeof(T), repeatTime, (uint64_t)repeatTime * last);
}

// Level 0, continuous mask: the first `mask` elements of each of `repeatTime` repeats.
template <typename T, bool isSetMask = true>
void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
               const uint16_t dstBlockStride, const uint8_t dstRepeatStride) {
  detail::check_l0<T>("Duplicate", mask, repeatTime);
  dst.check_vec_l0("Duplicate", mask, repeatTime, dstBlockStride, dstRepeatStride, false);
  for (uint32_t r = 0; r < repeatTime; ++r)
    for (uint32_t e = 0; e < mask; ++e) dst.sim_ptr()[detail::l0_index<T>(r, e, dstBlockStride, dstRepeatStride)] = scalarValue;
  dst.mark_v_write();
  pypto_sim::cost::vector("Duplicate", sizeof(T), repeatTime, (uint64_t)repeatTime * mask);
}


template <typename T>
void Add(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p) {
  detail::binary_l0("Add", dst, a, b, mask, repeatTime, p, [](T x, T y) -> T { return x + y; });
}
template <typename T>
void Sub(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p) {
  detail::binary_l0("Sub", dst, a, b, mask, repeatTime, p, [](T x, T y) -> T { return x - y; });
}
template <typename T>
void Mul(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p) {
  detail::binary_l0("Mul", dst, a, b, mask, repeatTime, p, [](T x, T y) -> T { return x * y; });
}
template <typename T>
void Div(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p) {
  static_assert(std::is_floating_point<T>::value || (sizeof(T) == 2 && !std::is_integral<T>::value),
                "Div exists for half and float only");
  detail::binary_l0("Div", dst, a, b, mask, repeatTime, p, [](T x, T y) -> T { return x / y; });
}
template <typename T>
void Max(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p) {
  detail::binary_l0("Max", dst, a, b, mask, repeatTime, p, [](T x, T y) -> T { return x > y ? x : y; });
}
template <typename T>
void Min(const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b, uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& p) {
  detail::binary_l0("Min", dst, a, b, mask, repeatTime, p, [](T x, T y) -> T { return x < y ? x : y; });
}

// ------------------------------------------------------------------ broadcast of single values into blocks

struct BrcbRepeatParams {
  uint32_t blockNumber = 8;
  uint16_t dstRepStride = 8;  // in 32-byte blocks, between the first blocks of two repeats
  uint16_t dstBlkStride = 1;  // in 32-byte blocks, between the blocks of one repeat
  BrcbRepeatParams() = default;
  BrcbRepeatParams(uint16_t dstBlkStrideIn, uint16_t dstRepStrideIn) : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
};

// Each repeat reads 8 consecutive elements of src0 and fills 8 destination blocks, block k of
// repeat r (at (r * dstRepStride + k * dstBlkStride) blocks) with element 8 r + k. The API takes
// a uint8_t repeat count; the simulation takes a wider one so that a count above 255 fails here
// instead of wrapping.
template <typename T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const int32_t repeatTime, const BrcbRepeatParams& p) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb supports 2- and 4-byte element types (half, float, int16, int32, ...)");
  constexpr uint32_t per = pypto_sim::kBlockBytes / sizeof(T);
  if (repeatTime <= 0 || repeatTime > (int32_t)pypto_sim::kMaxRepeat) fail("Brcb: repeatTime %d outside [1, 255]", repeatTime);
  if (p.dstBlkStride == 0 || p.dstRepStride == 0) fail("Brcb: zero dstBlkStride/dstRepStride (blocks would overwrite each other)");
  const uint64_t src_elems = 8ull * repeatTime;
  const uint64_t dst_elems = ((uint64_t)(repeatTime - 1) * p.dstRepStride + 7ull * p.dstBlkStride + 1) * per;
  src0.check_vec("Brcb", src_elems, true);
  dst.check_vec("Brcb", dst_elems, false);
  if (dst.sim_slot() == src0.sim_slot() && dst.sim_ptr() < src0.sim_ptr() + src_elems && src0.sim_ptr() < dst.sim_ptr() + dst_elems)
    fail("Brcb: dst and src0 overlap in buffer '%s' (the instruction does not support in-place use)", dst.sim_slot()->owner);
  for (int32_t r = 0; r < repeatTime; ++r)
    for (uint32_t k = 0; k < 8; ++k) {
      const T v = src0.sim_ptr()[(uint64_t)r * 8 + k];
      T* block = dst.sim_ptr() + ((uint64_t)r * p.dstRepStride + (uint64_t)k * p.dstBlkStride) * per;
      for (uint32_t e = 0; e < per; ++e) block[e] = v;
    }
  dst.mark_v_write();
  pypto_sim::cost::vector("Brcb", sizeof(T), repeatTime, 8ull * repeatTime);
}

// ------------------------------------------------------------------ gather of 32-byte blocks by byte offset

// include/basic_api/kernel_struct_gather.h: only dstBlkStride and dstRepStride are read (the
// other fields are deprecated), in 32-byte blocks.
struct GatherRepeatParams {
  GatherRepeatParams() = default;
  GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
      : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
  uint32_t blockNumber = 8;
  uint16_t dstRepStride = 8;
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1, src1BlkStride = 1, src0RepStride = 8, src1RepStride = 8;
  bool repeatStrideMode = false, strideSizeMode = false;
};

// Gatherb (kernel_operator_vec_gather_intf.h; dav-c220: uint16_t and uint32_t): repeat r reads
// the 8 byte offsets offset[8 r .. 8 r + 7]; block j of it is the 32 bytes of src from byte
// offset[8 r + j] (from src's start), written at block r * dstRepStride + j * dstBlkStride of dst
// (a dstBlkStride of 0 counts as 1). repeatTime 0 is a no-op (Atlas A2). Checked: every offset
// a multiple of 32 (the block's UB address 32-byte aligned), the block inside the Unified
// Buffer, and, here, inside src's tensor (the hardware would read whatever UB holds there,
// which no pypto-xdsl kernel means); dst not overlapping a block read (src and dst are
// different memory). The repeat count is taken wider than the API's uint8_t, so that a count
// above 255 fails here instead of wrapping.
template <typename T>
void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
             const int32_t repeatTime, const GatherRepeatParams& p) {
  static_assert(std::is_same<T, uint16_t>::value || std::is_same<T, uint32_t>::value,
                "Gatherb exists for uint16_t and uint32_t on dav-c220 (ReinterpretCast other data)");
  constexpr uint32_t per = pypto_sim::kBlockBytes / sizeof(T);
  if (repeatTime < 0 || repeatTime > (int32_t)pypto_sim::kMaxRepeat) fail("Gatherb: repeatTime %d outside [0, 255]", repeatTime);
  if (repeatTime == 0) return;
  const uint32_t blk = p.dstBlkStride == 0 ? 1 : p.dstBlkStride;
  if (p.dstRepStride == 0 && repeatTime > 1) fail("Gatherb: dstRepStride 0 with %d repeats (repeats would overwrite each other)", repeatTime);
  const uint64_t n = 8ull * repeatTime;
  offset.check_vec("Gatherb", n, true);
  const uint64_t dst_elems = ((uint64_t)(repeatTime - 1) * p.dstRepStride + 7ull * blk + 1) * per;
  dst.check_vec("Gatherb", dst_elems, false, false);
  src.check_vec("Gatherb", 0, true, false);
  const uint32_t src_at = pypto_sim::mem_offset(src.sim_slot()->mem, src.sim_ptr());
  const uint64_t src_bytes = (uint64_t)src.GetSize() * sizeof(T);
  const uint32_t ub = pypto_sim::mem_info(pypto_sim::Mem::UB).capacity;
  const uint8_t* dst_lo = reinterpret_cast<const uint8_t*>(dst.sim_ptr());
  const uint8_t* dst_hi = dst_lo + dst_elems * sizeof(T);
  std::vector<uint32_t> read;
  for (uint64_t k = 0; k < n; ++k) {
    const uint32_t o = offset.sim_ptr()[k];
    if (o % pypto_sim::kBlockBytes != 0)
      fail("Gatherb: offset[%llu] is byte %u, not a multiple of 32 (the block's UB address must be 32-byte aligned)",
           (unsigned long long)k, o);
    if ((uint64_t)src_at + o + pypto_sim::kBlockBytes > ub)
      fail("Gatherb: offset[%llu] (byte %u from src at UB byte %u) reaches past the %u-byte Unified Buffer",
           (unsigned long long)k, o, src_at, ub);
    if ((uint64_t)o + pypto_sim::kBlockBytes > src_bytes)
      fail("Gatherb: offset[%llu] is byte %u: its block is not inside src's %llu bytes (buffer '%s')",
           (unsigned long long)k, o, (unsigned long long)src_bytes, src.sim_slot()->owner);
    const uint8_t* from = reinterpret_cast<const uint8_t*>(src.sim_ptr()) + o;
    if (from < dst_hi && dst_lo < from + pypto_sim::kBlockBytes)
      fail("Gatherb: offset[%llu] reads a block dst is written to, in buffer '%s' (src and dst must be different "
           "memory)", (unsigned long long)k, dst.sim_slot()->owner);
    read.push_back((src_at + o) / pypto_sim::kBlockBytes);
  }
  detail::v_blocks("Gatherb", src.sim_slot()->owner, src_at, src_at + static_cast<uint32_t>(src_bytes), false, read);
  const uint32_t dst_at = pypto_sim::mem_offset(dst.sim_slot()->mem, dst.sim_ptr());
  std::vector<uint32_t> written;
  for (int32_t r = 0; r < repeatTime; ++r)
    for (uint32_t j = 0; j < 8; ++j) written.push_back(dst_at / pypto_sim::kBlockBytes + r * p.dstRepStride + j * blk);
  detail::v_blocks("Gatherb", dst.sim_slot()->owner, dst_at, dst_at + static_cast<uint32_t>(dst_elems * sizeof(T)), true, written);
  for (int32_t r = 0; r < repeatTime; ++r)
    for (uint32_t j = 0; j < 8; ++j) {
      const uint8_t* from = reinterpret_cast<const uint8_t*>(src.sim_ptr()) + offset.sim_ptr()[(uint64_t)r * 8 + j];
      uint8_t* to = reinterpret_cast<uint8_t*>(dst.sim_ptr() + ((uint64_t)r * p.dstRepStride + (uint64_t)j * blk) * per);
      std::memcpy(to, from, pypto_sim::kBlockBytes);
    }
  dst.mark_v_write();
  pypto_sim::cost::vector("Gatherb", sizeof(T), repeatTime, (uint64_t)repeatTime * 8 * per);
}

// Transpose(dst, src) (basic API): the 16 x 16 block of 2-byte elements at src (256
// contiguous elements) transposed into the one at dst; int16_t/uint16_t/half on dav-c220.
template <typename T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src) {
  static_assert(sizeof(T) == 2, "Transpose exists for int16_t, uint16_t and half only (dav-c220)");
  constexpr uint64_t n = 16;
  src.check_vec("Transpose", n * n, true);
  dst.check_vec("Transpose", n * n, false);
  if (dst.sim_slot() == src.sim_slot() && dst.sim_ptr() < src.sim_ptr() + n * n && src.sim_ptr() < dst.sim_ptr() + n * n)
    fail("Transpose: dst and src overlap in buffer '%s' (two different 16 x 16 blocks)", dst.sim_slot()->owner);
  for (uint64_t i = 0; i < n; ++i)
    for (uint64_t j = 0; j < n; ++j) dst.sim_ptr()[j * n + i] = src.sim_ptr()[i * n + j];
  dst.mark_v_write();
  pypto_sim::cost::vector("Transpose", sizeof(T), 2, n * n);
}

template <typename T>
void Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask, const uint8_t repeatTime, const UnaryRepeatParams& p) {
  detail::check_l0<T>("Muls", mask, repeatTime);
  src.check_vec_l0("Muls", mask, repeatTime, p.srcBlkStride, p.srcRepStride, true);
  dst.check_vec_l0("Muls", mask, repeatTime, p.dstBlkStride, p.dstRepStride, false);
  for (uint32_t r = 0; r < repeatTime; ++r)
    for (uint32_t e = 0; e < mask; ++e)
      dst.sim_ptr()[detail::l0_index<T>(r, e, p.dstBlkStride, p.dstRepStride)] =
          src.sim_ptr()[detail::l0_index<T>(r, e, p.srcBlkStride, p.srcRepStride)] * scalarValue;
  dst.mark_v_write();
  pypto_sim::cost::vector("Muls", sizeof(T), repeatTime, (uint64_t)repeatTime * mask);
}

// ------------------------------------------------------------------ compare and select

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

namespace detail {
inline const char* cmp_name(CMPMODE m) {
  static const char* names[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
  return static_cast<uint8_t>(m) < 6 ? names[static_cast<uint8_t>(m)] : "?";
}
template <typename T>
bool cmp_holds(CMPMODE m, T a, T b) {
  switch (m) {
    case CMPMODE::LT: return a < b;
    case CMPMODE::GT: return a > b;
    case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b;
    case CMPMODE::GE: return a >= b;
    case CMPMODE::NE: return a != b;
  }
  fail("Compare with an invalid CMPMODE %d", static_cast<int>(m));
}
// Compare / Compares (dav-c220, the count form): half and float in every mode, int32_t in EQ
// only; `count` elements of whole 256-byte repeats; dst receives count / 8 bytes, bit k % 8 of
// byte k / 8 (least significant first) for element k. count 0 is a NOP.
template <typename T, typename U, typename F>
void compare(const char* what, const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>* src1,
             CMPMODE mode, uint32_t count, F rhs) {
  static_assert(half_or_float<T>() || std::is_same<T, int32_t>::value,
                "Compare/Compares exist for half, float and int32_t (CMPMODE::EQ) only (dav-c220)");
  if (std::is_same<T, int32_t>::value && mode != CMPMODE::EQ)
    fail("%s on int32_t elements with CMPMODE::%s: int32_t is compared with CMPMODE::EQ only (dav-c220)", what,
         cmp_name(mode));
  if (count == 0) return;
  if ((uint64_t(count) * sizeof(T)) % pypto_sim::kRepeatBytes != 0)
    fail("%s of %u elements (%llu bytes): count must span whole 256-byte repeats (the rest of a repeat is not "
         "computed)", what, count, (unsigned long long)(uint64_t(count) * sizeof(T)));
  const uint64_t out_bytes = count / 8;
  src0.check_vec(what, count, true);
  if (src1 != nullptr) src1->check_vec(what, count, true);
  dst.check_vec(what, (out_bytes + sizeof(U) - 1) / sizeof(U), false);
  uint8_t* d = reinterpret_cast<uint8_t*>(dst.sim_ptr());
  const T* a = src0.sim_ptr();
  for (uint64_t byte = 0; byte < out_bytes; ++byte) {
    uint8_t bits = 0;
    for (uint32_t k = 0; k < 8; ++k)
      if (cmp_holds<T>(mode, a[byte * 8 + k], rhs(byte * 8 + k))) bits = static_cast<uint8_t>(bits | (1u << k));
    d[byte] = bits;
  }
  dst.mark_v_write();
  pypto_sim::cost::vector(what, sizeof(T), uint64_t(count) * sizeof(T) / pypto_sim::kRepeatBytes, count);
}
}  // namespace detail

template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
             uint32_t count) {
  static_assert(std::is_same<U, uint8_t>::value || std::is_same<U, int8_t>::value,
                "the dst of Compare is a LocalTensor<uint8_t> or LocalTensor<int8_t>");
  const T* b = src1.sim_ptr();
  detail::compare("Compare", dst, src0, &src1, cmpMode, count, [b](uint64_t k) { return b[k]; });
}

template <typename T, typename U>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
              uint32_t count) {
  static_assert(std::is_same<U, uint8_t>::value, "the dst of Compares is a LocalTensor<uint8_t> (dav-c220)");
  detail::compare<T, U>("Compares", dst, src0, nullptr, cmpMode, count, [src1Scalar](uint64_t) { return src1Scalar; });
}

namespace detail {
// Select (dav-c220, the count form): half and float elements, a uint8/16/32/64 mask; the
// tensor-tensor and tensor-scalar modes read mask bit k for element k, VSEL_CMPMASK_SPR the
// first 256 / sizeof(T) bits again in every repeat. The mask is read in whole repeats. The
// modes with a mask tensor use the UB from TMP_UB_OFFSET (184 KiB) as scratch, which no
// operand may occupy.
constexpr uint32_t kSelectScratchAt = 184 * 1024;
template <typename T, typename U, typename F>
void select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>* src1, SELMODE mode, uint32_t count, F other) {
  static_assert(half_or_float<T>(), "Select exists for half and float only (dav-c220)");
  static_assert(std::is_same<U, uint8_t>::value || std::is_same<U, uint16_t>::value ||
                    std::is_same<U, uint32_t>::value || std::is_same<U, uint64_t>::value,
                "the selMask of Select is a LocalTensor of uint8_t, uint16_t, uint32_t or uint64_t");
  if (count == 0) return;
  constexpr uint32_t lanes = pypto_sim::kRepeatBytes / sizeof(T);
  const uint64_t repeats = (count + lanes - 1) / lanes;
  const uint64_t mask_bytes = mode == SELMODE::VSEL_CMPMASK_SPR ? lanes / 8 : repeats * lanes / 8;
  selMask.check_vec("Select", (mask_bytes + sizeof(U) - 1) / sizeof(U), true);
  src0.check_vec("Select", count, true);
  if (src1 != nullptr) src1->check_vec("Select", count, true);
  dst.check_vec("Select", count, false);
  if (mode != SELMODE::VSEL_CMPMASK_SPR) {
    const LocalTensor<T>* ops[] = {&dst, &src0, src1};
    for (const LocalTensor<T>* t : ops) {
      if (t == nullptr) continue;
      const uint32_t at = pypto_sim::mem_offset(pypto_sim::Mem::UB, t->sim_ptr());
      if (at + count * sizeof(T) > kSelectScratchAt)
        fail("Select: an operand in buffer '%s' reaches UB byte %u; Select's hidden scratch starts at TMP_UB_OFFSET "
             "(%u): plan at most 184 KiB of UB", t->sim_slot()->owner, (unsigned)(at + count * sizeof(T)),
             kSelectScratchAt);
    }
  }
  const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.sim_ptr());
  // element by element through a copy of the bits (no conversion of the values)
  std::vector<T> out(count);
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t bit = mode == SELMODE::VSEL_CMPMASK_SPR ? k % lanes : k;
    const bool take = (m[bit / 8] >> (bit % 8)) & 1u;
    std::memcpy(&out[k], take ? &src0.sim_ptr()[k] : other(k), sizeof(T));
  }
  std::memcpy(dst.sim_ptr(), out.data(), count * sizeof(T));
  dst.mark_v_write();
  pypto_sim::cost::vector("Select", sizeof(T), repeats, count);
}
}  // namespace detail

template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
            const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
  if (selMode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
    fail("Select with two tensors in VSEL_TENSOR_SCALAR_MODE (that mode takes a scalar src1)");
  const T* b = src1.sim_ptr();
  detail::select(dst, selMask, src0, &src1, selMode, count, [b](uint32_t k) { return &b[k]; });
}

template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
            SELMODE selMode, uint32_t count) {
  if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
    fail("Select with a scalar src1 takes VSEL_TENSOR_SCALAR_MODE");
  const T s = src1;
  detail::select(dst, selMask, src0, static_cast<const LocalTensor<T>*>(nullptr), selMode, count,
                 [&s](uint32_t) { return &s; });
}

// ------------------------------------------------------------------ reductions

namespace detail {
template <typename T, typename F>
void whole_reduce(const char* what, const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t mask, int32_t repeat,
                  int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, bool with_index, F f) {
  constexpr int32_t lanes = pypto_sim::kRepeatBytes / sizeof(T);
  if (mask <= 0 || mask > lanes) fail("%s: mask %d outside [1, %d]", what, mask, lanes);
  if (repeat <= 0 || repeat > (int32_t)pypto_sim::kMaxRepeat) fail("%s: repeatTime %d outside [1, 255]", what, repeat);
  if (dstRepStride <= 0 || srcBlkStride <= 0 || srcRepStride < 0) fail("%s: invalid strides", what);
  src.check_vec_l0(what, mask, repeat, srcBlkStride, srcRepStride, true);
  const int32_t width = with_index ? 2 : 1;
  dst.check_vec(what, (uint64_t)(repeat - 1) * dstRepStride * width + width, false);
  for (int32_t r = 0; r < repeat; ++r) {
    T acc = src.sim_ptr()[l0_index<T>(r, 0, srcBlkStride, srcRepStride)];
    int32_t idx = 0;
    for (int32_t e = 1; e < mask; ++e) {
      T v = src.sim_ptr()[l0_index<T>(r, e, srcBlkStride, srcRepStride)];
      if (f(acc, v, e, idx)) acc = v;
    }
    dst.sim_ptr()[(uint64_t)r * dstRepStride * width] = acc;
    if (with_index) {
      uint32_t bits = static_cast<uint32_t>(idx);
      std::memcpy(&dst.sim_ptr()[(uint64_t)r * dstRepStride * width + 1], &bits, sizeof(T) < 4 ? sizeof(T) : 4);
    }
  }
  dst.mark_v_write();
  pypto_sim::cost::vector(what, sizeof(T), repeat, (uint64_t)repeat * mask);
}
}  // namespace detail

template <typename T>
void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                    ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  static_assert(detail::half_or_float<T>(), "WholeReduceMax exists for half and float only (dav-c220)");
  if (order != ReduceOrder::ORDER_ONLY_VALUE && order != ReduceOrder::ORDER_VALUE_INDEX)
    fail("WholeReduceMax: the simulation supports ORDER_ONLY_VALUE and ORDER_VALUE_INDEX");
  detail::whole_reduce("WholeReduceMax", dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                       order == ReduceOrder::ORDER_VALUE_INDEX, [](T acc, T v, int32_t e, int32_t& idx) {
                         if (v > acc) { idx = e; return true; }
                         return false;
                       });
}

template <typename T>
void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,
                    ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX) {
  static_assert(detail::half_or_float<T>(), "WholeReduceMin exists for half and float only (dav-c220)");
  if (order != ReduceOrder::ORDER_ONLY_VALUE && order != ReduceOrder::ORDER_VALUE_INDEX)
    fail("WholeReduceMin: the simulation supports ORDER_ONLY_VALUE and ORDER_VALUE_INDEX");
  detail::whole_reduce("WholeReduceMin", dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                       order == ReduceOrder::ORDER_VALUE_INDEX, [](T acc, T v, int32_t e, int32_t& idx) {
                         if (v < acc) { idx = e; return true; }
                         return false;
                       });
}

template <typename T>
void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask, const int32_t repeatTime,
                    const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) {
  static_assert(detail::half_or_float<T>(), "WholeReduceSum exists for half and float only (dav-c220)");
  constexpr int32_t lanes = pypto_sim::kRepeatBytes / sizeof(T);
  if (mask <= 0 || mask > lanes) fail("WholeReduceSum: mask %d outside [1, %d]", mask, lanes);
  if (repeatTime <= 0 || repeatTime > (int32_t)pypto_sim::kMaxRepeat) fail("WholeReduceSum: repeatTime %d outside [1, 255]", repeatTime);
  if (dstRepStride <= 0 || srcBlkStride <= 0 || srcRepStride < 0) fail("WholeReduceSum: invalid strides");
  src.check_vec_l0("WholeReduceSum", mask, repeatTime, srcBlkStride, srcRepStride, true);
  dst.check_vec("WholeReduceSum", (uint64_t)(repeatTime - 1) * dstRepStride + 1, false);
  for (int32_t r = 0; r < repeatTime; ++r) {
    float acc = 0.0f;
    for (int32_t e = 0; e < mask; ++e) acc += static_cast<float>(src.sim_ptr()[detail::l0_index<T>(r, e, srcBlkStride, srcRepStride)]);
    dst.sim_ptr()[(uint64_t)r * dstRepStride] = static_cast<T>(acc);
  }
  dst.mark_v_write();
  pypto_sim::cost::vector("WholeReduceSum", sizeof(T), repeatTime, (uint64_t)repeatTime * mask);
}

// ------------------------------------------------------------------ cube (AIC) path
// Formats, as this simulation defines them (C0 = 32 bytes / sizeof(T), fractal = 16 x C0 = 512 bytes):
//   L1 "NZ" (Nd2Nz DataCopy), matrix i of ndNum: element (r, c) at
//       i * dstNzMatrixStride + ((c / C0) * dstNzC0Stride + r * dstNzNStride) * C0 + c % C0
//   L0A ("Zz", LoadData without transpose): fractal (mb, kb) at (mb * K/C0 + kb), row-major inside (16 x C0)
//   L0B ("Zn"): fractal (kb, nb) at (kb * N/16 + nb), each 16 n-rows x C0 k-values (k contiguous);
//       2-byte types: LoadData with ifTranspose (one 16 x 16 fractal per repeat);
//       4-byte types: LoadDataWithTranspose (two 16 x 8 fractals, one 16 x 16 square, per repeat)
//   L0C (Mmad result, "NZ" with C0 = 16):           element (r, c) at ((c / 16) * M + r) * 16 + c % 16
// Mmad takes half x half, bfloat16_t x bfloat16_t or float x float into float (dav-c220), m, n, k
// multiples of 16.
enum KernelMetaType : uint8_t {
  KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0, KERNEL_TYPE_MIX_AIC_1_1,
  KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE, KERNEL_TYPE_MIX_AICORE,
  KERNEL_TYPE_MIX_VECTOR_CORE, KERNEL_TYPE_MAX,
};
namespace detail {
// The kernel type a kernel declares must be the one its launch runs: a MIX type in a MIX
// launch with as many AIVs per AIC (the host's launch header), a single-core type elsewhere.
inline void check_task_type(KernelMetaType type) {
  const int ratio = type == KERNEL_TYPE_MIX_AIC_1_1 ? 1 : type == KERNEL_TYPE_MIX_AIC_1_2 ? 2 : 0;
  const int launched = pypto_sim::mix_group() != nullptr ? pypto_sim::mix_ratio() : 0;
  if (ratio != launched)
    pypto_sim::fail("the kernel declares KERNEL_TASK_TYPE_DEFAULT(%d) but was launched %s", static_cast<int>(type),
                    launched == 0 ? "as a single-core kernel" : launched == 1 ? "as a MIX 1:1 kernel" : "as a MIX 1:2 kernel");
}
}  // namespace detail
#define KERNEL_TASK_TYPE_DEFAULT(type) AscendC::detail::check_task_type(type)

struct Nd2NzParams {
  uint16_t ndNum = 1, nValue = 0, dValue = 0, srcNdMatrixStride = 0, srcDValue = 0, dstNzC0Stride = 0,
           dstNzNStride = 1, dstNzMatrixStride = 0;
};

struct LoadData2DParams {
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 1;
  uint16_t srcStride = 1;
  uint8_t sid = 0;
  uint16_t dstGap = 0;
  bool ifTranspose = false;
  uint8_t addrMode = 0;
};

struct LoadData2dTransposeParams {
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0, dstGap = 0, dstFracGap = 0;
  uint8_t addrMode = 0;
};

// LoadData（卷积数据搬运） v2 (kernel_struct_mm.h): the feature map is l1H x l1W positions of
// channelSize channels in NC1HWC0 (C0 = 32 bytes); the load moves mExtension positions from
// mStartPt by kExtension channels from kStartPt of its image-to-column matrix.
template <typename T>
struct LoadData3DParamsV2 {
  uint8_t padList[4] = {0, 0, 0, 0};
  uint16_t l1H = 0, l1W = 0, channelSize = 0, kExtension = 0, mExtension = 0, kStartPt = 0, mStartPt = 0;
  uint8_t strideW = 1, strideH = 1, filterW = 1, filterH = 1, dilationFilterW = 1, dilationFilterH = 1;
  bool enTranspose = false, enSmallK = false;
  T padValue = 0;
  bool filterSizeW = false, filterSizeH = false, fMatrixCtrl = false;
};

struct MmadParams {
  uint16_t m = 0, n = 0, k = 0;
  uint8_t unitFlag = 0;
  bool cmatrixSource = false;
  bool cmatrixInitVal = true;
};

enum class QuantMode_t : uint8_t { NoQuant = 0, F322F16 = 1 };

struct FixpipeParamsV220 {
  uint16_t nSize = 0, mSize = 0;
  uint32_t srcStride = 0;  // rows of the L0C source (its M, a multiple of 16)
  uint32_t dstStride = 0;  // elements between GM rows
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  bool reluEn = false;
  uint16_t ndNum = 1;
  uint32_t srcNdStride = 0, dstNdStride = 0;
  uint8_t unitFlag = 0;
};

namespace detail {
template <typename T>
void check_local(const LocalTensor<T>& t, const char* what, pypto_sim::Mem mem, uint64_t elems, bool reads) {
  t.check_live(what);
  Slot* s = t.sim_slot();
  if (s->mem != mem)
    fail("%s: operand in buffer '%s' is in %s, expected %s", what, s->owner, pypto_sim::mem_info(s->mem).name,
         pypto_sim::mem_info(mem).name);
  if (pypto_sim::mem_offset(mem, t.sim_ptr()) % pypto_sim::mem_info(mem).align != 0)
    fail("%s: operand in buffer '%s' is not %u-byte aligned in %s", what, s->owner, pypto_sim::mem_info(mem).align,
         pypto_sim::mem_info(mem).name);
  if (elems > t.GetSize())
    fail("%s: %llu elements exceed the operand's %u elements (buffer '%s')", what, (unsigned long long)elems,
         t.GetSize(), s->owner);
  const bool flagged = s->fill_seq != 0 && s->fill_seq <= pypto_sim::fills_synced();
  if (reads && s->dma_in && s->state == SlotState::Allocated && !flagged)
    fail("%s reads buffer '%s' before EnQue/DeQue or SetFlag/WaitFlag<MTE2_*> (missing synchronisation with the pipe that filled it)", what, s->owner);
}
}  // namespace detail

// GM (ND, row-major) -> L1 (NZ), ndNum matrices
template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p) {
  constexpr uint32_t c0 = pypto_sim::kBlockBytes / sizeof(T);
  if (p.ndNum == 0) fail("DataCopy Nd2Nz with ndNum 0");
  if (p.dstNzNStride == 0) fail("DataCopy Nd2Nz with dstNzNStride 0");
  if (p.nValue == 0 || p.dValue == 0) {  // a NOP, as documented ("nValue = 0" / "dValue = 0表示不执行搬运")
    if (dst.sim_slot()) dst.sim_slot()->fill_seq = ++pypto_sim::fill_counter();
    return;
  }
  if (p.dstNzC0Stride < p.nValue * p.dstNzNStride) fail("DataCopy Nd2Nz: dstNzC0Stride %u overlaps the %u rows", p.dstNzC0Stride, p.nValue);
  const uint64_t blocks = (p.dValue + c0 - 1) / c0;
  const uint64_t one = (blocks - 1) * p.dstNzC0Stride * c0 + (uint64_t)(p.nValue - 1) * p.dstNzNStride * c0 + c0;
  if (p.ndNum > 1 && (uint64_t)p.dstNzMatrixStride < one)
    fail("DataCopy Nd2Nz: dstNzMatrixStride %u overlaps the %llu elements of one matrix", p.dstNzMatrixStride, (unsigned long long)one);
  detail::check_local(dst, "DataCopy Nd2Nz", pypto_sim::Mem::L1, (uint64_t)(p.ndNum - 1) * p.dstNzMatrixStride + one, false);
  dst.sim_slot()->fill_seq = ++pypto_sim::fill_counter();
  for (uint32_t i = 0; i < p.ndNum; ++i) {
    const uint64_t s0 = (uint64_t)i * p.srcNdMatrixStride, d0 = (uint64_t)i * p.dstNzMatrixStride;
    for (uint32_t r = 0; r < p.nValue; ++r) {
      src.check(s0 + (uint64_t)r * p.srcDValue, p.dValue, "DataCopy Nd2Nz");
      for (uint32_t c = 0; c < p.dValue; ++c)
        dst.sim_ptr()[d0 + ((c / c0) * p.dstNzC0Stride + (uint64_t)r * p.dstNzNStride) * c0 + c % c0] =
            src.sim_ptr()[s0 + (uint64_t)r * p.srcDValue + c];
      // a row that ends inside a 32-byte block is padded with zeros to the block's end (the
      // Nd2Nz page: "在目的矩阵中会补0对齐到32字节")
      for (uint32_t c = p.dValue; c < blocks * c0; ++c)
        dst.sim_ptr()[d0 + ((c / c0) * p.dstNzC0Stride + (uint64_t)r * p.dstNzNStride) * c0 + c % c0] = T(0);
    }
    pypto_sim::cost::gm_transfer(pypto_sim::cost::MTE2, src.sim_ptr() + s0, p.nValue, (uint64_t)p.dValue * sizeof(T),
                                 (uint64_t)p.srcDValue * sizeof(T), true, true);
  }
}

// L1 -> L0A / L0B, one 512-byte fractal (16 x C0) per repeat; ifTranspose exists for 2-byte types
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "the simulation's LoadData supports 2- and 4-byte types");
  constexpr uint32_t frac = 512 / sizeof(T), c0 = pypto_sim::kBlockBytes / sizeof(T);
  if (p.repeatTimes == 0) fail("LoadData with repeatTimes 0");
  if (p.ifTranspose && sizeof(T) != 2)
    fail("LoadData: ifTranspose transposes 16 x 16 fractals of 2-byte types; use LoadDataWithTranspose for %u-byte types", (unsigned)sizeof(T));
  const pypto_sim::Mem dmem = dst.sim_slot() ? dst.sim_slot()->mem : pypto_sim::Mem::UB;
  if (dmem != pypto_sim::Mem::L0A && dmem != pypto_sim::Mem::L0B) fail("LoadData: the destination must be in L0A or L0B");
  detail::check_local(src, "LoadData", pypto_sim::Mem::L1, ((uint64_t)p.startIndex + (uint64_t)(p.repeatTimes - 1) * p.srcStride + 1) * frac, true);
  detail::check_local(dst, "LoadData", dmem, ((uint64_t)(p.repeatTimes - 1) * (1 + p.dstGap) + 1) * frac, false);
  for (uint32_t i = 0; i < p.repeatTimes; ++i) {
    const T* s = src.sim_ptr() + ((uint64_t)p.startIndex + (uint64_t)i * p.srcStride) * frac;
    T* d = dst.sim_ptr() + (uint64_t)i * (1 + p.dstGap) * frac;
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t c = 0; c < c0; ++c) d[r * c0 + c] = p.ifTranspose ? s[c * 16 + r] : s[r * c0 + c];
  }
  pypto_sim::cost::mte1_load((uint64_t)p.repeatTimes * 512, dmem == pypto_sim::Mem::L0B);
}

// L1 -> L0A / L0B with transpose, 4-byte types: per repeat, two consecutive 16 x 8 source fractals form a
// 16 x 16 square that is transposed and split into two 16 x 8 fractals, dstFracGap x 512 bytes apart.
template <typename T>
void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParams& p) {
  static_assert(sizeof(T) == 4, "the simulation's LoadDataWithTranspose supports float, int32_t and uint32_t");
  constexpr uint32_t frac = 512 / sizeof(T), square = 2 * frac;
  if (p.repeatTimes == 0) return;  // a NOP, as documented
  if (p.addrMode != 0) fail("LoadDataWithTranspose: the simulation supports addrMode 0 (increasing addresses)");
  const pypto_sim::Mem dmem = dst.sim_slot() ? dst.sim_slot()->mem : pypto_sim::Mem::UB;
  if (dmem != pypto_sim::Mem::L0A && dmem != pypto_sim::Mem::L0B) fail("LoadDataWithTranspose: the destination must be in L0A or L0B");
  detail::check_local(src, "LoadDataWithTranspose", pypto_sim::Mem::L1,
                      ((uint64_t)p.startIndex + (uint64_t)(p.repeatTimes - 1) * p.srcStride + 1) * square, true);
  const uint64_t first = (uint64_t)(p.repeatTimes - 1) * (1 + p.dstGap) * frac;
  detail::check_local(dst, "LoadDataWithTranspose", dmem, first + (uint64_t)(2 + p.dstFracGap) * frac, false);
  for (uint32_t i = 0; i < p.repeatTimes; ++i) {
    const T* s = src.sim_ptr() + ((uint64_t)p.startIndex + (uint64_t)i * p.srcStride) * square;
    T* d = dst.sim_ptr() + (uint64_t)i * (1 + p.dstGap) * frac;
    // square element (r, c): fractal c / 8, (r, c % 8) inside; transposed element (c, r) lands in
    // destination fractal r / 8 at (c, r % 8)
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t c = 0; c < 16; ++c)
        d[(uint64_t)(r / 8) * (1 + p.dstFracGap) * frac + c * 8 + r % 8] = s[(c / 8) * frac + r * 8 + c % 8];
  }
  pypto_sim::cost::mte1_load((uint64_t)p.repeatTimes * 1024, dmem == pypto_sim::Mem::L0B);
}

// L1 -> L0A / L0B in one instruction, LoadData（卷积数据搬运） v2, for the 2D case its page describes
// (N = 1, a 1 x 1 filter, unit strides and dilations, no padding): the image-to-column matrix is
// then [positions, channels], position p = h * l1W + w of channel c at
// ((c / C0) * l1H * l1W + p) * C0 + c % C0, i.e. an L1 NZ tile of l1H * l1W rows. Into L0A its
// [mExtension, kExtension] window lands as Zz fractals (row blocks of 16 x C0); into L0B (the load
// always transposes there) as the Zn fractals of the [K, N] operand whose K rows are the positions.
template <typename T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& p) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "the simulation's LoadData with LoadData3DParamsV2 supports 2- and 4-byte types");
  constexpr uint32_t frac = 512 / sizeof(T), c0 = pypto_sim::kBlockBytes / sizeof(T);
  const pypto_sim::Mem dmem = dst.sim_slot() ? dst.sim_slot()->mem : pypto_sim::Mem::UB;
  if (dmem != pypto_sim::Mem::L0A && dmem != pypto_sim::Mem::L0B)
    fail("LoadData with LoadData3DParamsV2: the destination must be in L0A or L0B");
  const bool to_l0b = dmem == pypto_sim::Mem::L0B;
  // a NOP, as documented
  if (p.l1H == 0 || p.l1W == 0 || p.channelSize == 0 || p.kExtension == 0 || p.mExtension == 0) return;
  if ((p.filterW == 0 && !p.filterSizeW) || (p.filterH == 0 && !p.filterSizeH)) return;
  if (p.filterW != 1 || p.filterH != 1 || p.filterSizeW || p.filterSizeH || p.strideW != 1 || p.strideH != 1 ||
      p.dilationFilterW != 1 || p.dilationFilterH != 1)
    fail("LoadData with LoadData3DParamsV2: the simulation supports a 1 x 1 filter with unit strides and dilations "
         "(the matrix case), got filter %u x %u, strides %u/%u, dilations %u/%u", p.filterH, p.filterW, p.strideH,
         p.strideW, p.dilationFilterH, p.dilationFilterW);
  if (p.padList[0] || p.padList[1] || p.padList[2] || p.padList[3]) fail("LoadData with LoadData3DParamsV2: the simulation does not pad");
  if (p.enSmallK) fail("LoadData with LoadData3DParamsV2: enSmallK is no longer supported (LoadData_3D page)");
  if (p.fMatrixCtrl) fail("LoadData with LoadData3DParamsV2: fMatrixCtrl must be false (LoadData_3D page)");
  if (p.enTranspose && !to_l0b) fail("LoadData with LoadData3DParamsV2: the simulation does not transpose into L0A");
  if (p.channelSize % c0 || p.kStartPt % c0 || p.kExtension % (to_l0b ? 16 : c0) || p.mExtension % 16)
    fail("LoadData with LoadData3DParamsV2: the simulation supports whole fractals: channelSize %u and kStartPt %u "
         "multiples of %u, kExtension %u of %u, mExtension %u of 16", p.channelSize, p.kStartPt, c0, p.kExtension,
         to_l0b ? 16u : c0, p.mExtension);
  const uint64_t positions = (uint64_t)p.l1H * p.l1W;
  if (p.l1H > 32767 || p.l1W > 32767 || p.mStartPt > 32767)
    fail("LoadData with LoadData3DParamsV2: l1H %u, l1W %u and mStartPt %u are at most 32767", p.l1H, p.l1W, p.mStartPt);
  if ((uint64_t)p.mStartPt + p.mExtension > positions || (uint64_t)p.kStartPt + p.kExtension > p.channelSize)
    fail("LoadData with LoadData3DParamsV2: positions %u..%u of %llu and channels %u..%u of %u leave the feature map "
         "(the simulation does not pad)", p.mStartPt, p.mStartPt + p.mExtension, (unsigned long long)positions,
         p.kStartPt, p.kStartPt + p.kExtension, p.channelSize);
  detail::check_local(src, "LoadData with LoadData3DParamsV2", pypto_sim::Mem::L1, positions * p.channelSize, true);
  detail::check_local(dst, "LoadData with LoadData3DParamsV2", dmem, (uint64_t)p.mExtension * p.kExtension, false);
  const T* s = src.sim_ptr();
  T* d = dst.sim_ptr();
  for (uint32_t m = 0; m < p.mExtension; ++m)
    for (uint32_t k = 0; k < p.kExtension; ++k) {
      const uint32_t c = p.kStartPt + k;
      const T v = s[((uint64_t)(c / c0) * positions + p.mStartPt + m) * c0 + c % c0];
      if (to_l0b)
        d[((uint64_t)(m / c0) * (p.kExtension / 16) + k / 16) * frac + (k % 16) * c0 + m % c0] = v;
      else
        d[((uint64_t)(m / 16) * (p.kExtension / c0) + k / c0) * frac + (m % 16) * c0 + k % c0] = v;
    }
  // rows of the feature map the window's positions span: the bandwidth of the Cube appendix's table 4
  const uint32_t rows = (p.mStartPt + p.mExtension - 1) / p.l1W - p.mStartPt / p.l1W + 1;
  pypto_sim::cost::mte1_load((uint64_t)p.mExtension * p.kExtension * sizeof(T), to_l0b, pypto_sim::cost::load3d_bytes_per_cycle(rows, to_l0b));
}

// L0C += / = L0A x L0B
namespace detail {
template <typename D, typename A, typename B>
constexpr bool mmad_types() {
  return std::is_same<D, float>::value && std::is_same<A, B>::value &&
         (std::is_same<A, float>::value || (sizeof(A) == 2 && !std::is_integral<A>::value));  // float, half, bfloat16_t
}
}  // namespace detail

namespace detail {
// bias: the bias-table row the product starts from (cmatrixSource), or nullptr
template <typename D, typename A, typename B>
void mmad(const LocalTensor<D>& dst, const LocalTensor<A>& a, const LocalTensor<B>& b, const MmadParams& p,
          bool cmatrixSource, const D* bias) {
  static_assert(detail::mmad_types<D, A, B>(),
                "Mmad takes half x half, bfloat16_t x bfloat16_t or float x float into a float L0C (dav-c220)");
  constexpr uint32_t c0 = pypto_sim::kBlockBytes / sizeof(A), frac = 16 * c0;
  if (p.m == 0 || p.n == 0 || p.k == 0) return;  // nothing to compute (m, n, k ∈ [0, 4095] on the Mmad page)
  if (p.m % 16 || p.n % 16 || p.k % 16)
    fail("Mmad: the simulation supports m, n, k that are multiples of 16 (got %u, %u, %u)", p.m, p.n, p.k);
  const uint32_t nb = p.n / 16, kb = p.k / c0;
  detail::check_local(a, "Mmad", pypto_sim::Mem::L0A, (uint64_t)p.m * p.k, true);
  detail::check_local(b, "Mmad", pypto_sim::Mem::L0B, (uint64_t)p.k * p.n, true);
  detail::check_local(dst, "Mmad", pypto_sim::Mem::L0C, (uint64_t)p.m * p.n, false);
  // unpack both operands once (row-major A[m][k], B^T[n][k]) so the product loop runs over floats
  std::vector<float> ua((size_t)p.m * p.k), ub((size_t)p.n * p.k);
  for (uint32_t r = 0; r < p.m; ++r)
    for (uint32_t k = 0; k < p.k; ++k)
      ua[(size_t)r * p.k + k] = static_cast<float>(a.sim_ptr()[((r / 16) * kb + k / c0) * frac + (r % 16) * c0 + k % c0]);
  for (uint32_t c = 0; c < p.n; ++c)
    for (uint32_t k = 0; k < p.k; ++k)
      ub[(size_t)c * p.k + k] = static_cast<float>(b.sim_ptr()[((k / c0) * nb + c / 16) * frac + (c % 16) * c0 + k % c0]);
  for (uint32_t r = 0; r < p.m; ++r)
    for (uint32_t c = 0; c < p.n; ++c) {
      float acc = 0.0f;
      const float* x = &ua[(size_t)r * p.k];
      const float* y = &ub[(size_t)c * p.k];
      for (uint32_t k = 0; k < p.k; ++k) acc += x[k] * y[k];
      D& out = dst.sim_ptr()[((uint64_t)(c / 16) * p.m + r) * 16 + c % 16];
      const float start = cmatrixSource ? static_cast<float>(bias[c]) : p.cmatrixInitVal ? 0.0f : static_cast<float>(out);
      out = static_cast<D>(start + acc);
    }
  pypto_sim::cost::mmad(p.m, p.n, p.k, sizeof(A));
}
}  // namespace detail

template <typename D, typename A, typename B>
void Mmad(const LocalTensor<D>& dst, const LocalTensor<A>& a, const LocalTensor<B>& b, const MmadParams& p) {
  if (p.cmatrixSource) fail("Mmad: cmatrixSource (bias table) needs the 5-argument Mmad with the bias tensor");
  detail::mmad(dst, a, b, p, false, static_cast<const D*>(nullptr));
}

// The bias form: the 5-argument Mmad sets cmatrixSource from the bias tensor's position (C2:
// the bias table, each row of the product starts from the bias row; CO1: from L0C itself).
template <typename D, typename A, typename B, typename V>
void Mmad(const LocalTensor<D>& dst, const LocalTensor<A>& a, const LocalTensor<B>& b, const LocalTensor<V>& bias,
          const MmadParams& p) {
  static_assert(std::is_same<V, D>::value, "the simulation's Mmad with bias takes a bias of the destination's type");
  const pypto_sim::Mem bmem = bias.sim_slot() ? bias.sim_slot()->mem : pypto_sim::Mem::UB;
  if (bmem == pypto_sim::Mem::L0C) {
    detail::mmad(dst, a, b, p, false, static_cast<const D*>(nullptr));
    return;
  }
  if (bmem != pypto_sim::Mem::BT)
    fail("Mmad with bias: the bias tensor must be in the bias table (C2) or L0C (CO1)");
  if (p.cmatrixInitVal)
    fail("Mmad with a bias-table row and cmatrixInitVal = true: the bias table is the initial matrix, pass "
         "cmatrixInitVal = false");
  detail::check_local(bias, "Mmad", pypto_sim::Mem::BT, p.n, true);
  detail::mmad(dst, a, b, p, true, bias.sim_ptr());
}



// L0C -> GM (ND): NoQuant keeps f32; F322F16 converts each f32 element to half on its way out
// ("float cast成half，cast mode为CAST_RINT模式", the Fixpipe page's QuantMode_t), i.e. to the
// nearest half, ties to even, as _Float16's conversion does
template <typename T, typename U>
void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p) {
  constexpr bool quantised = std::is_same<U, float>::value && std::is_same<T, half>::value;
  static_assert(std::is_same<T, U>::value || quantised,
                "the simulation's Fixpipe supports NoQuant (same types) and F322F16 (float L0C -> half GM)");
  if (p.ndNum != 1) fail("Fixpipe: the simulation supports ndNum = 1");
  if (p.quantPre != (quantised ? QuantMode_t::F322F16 : QuantMode_t::NoQuant))
    fail(quantised ? "Fixpipe from float L0C to half GM needs quantPre = QuantMode_t::F322F16"
                   : "Fixpipe between equal types needs quantPre = QuantMode_t::NoQuant");
  if (p.srcStride < p.mSize || p.srcStride % 16) fail("Fixpipe: srcStride %u is not mSize %u rounded up to 16", p.srcStride, p.mSize);
  if (p.nSize % 16) fail("Fixpipe: nSize %u is not a multiple of 16 (FixpipeParamsV220: \"nSize必须为16的倍数\")", p.nSize);
  Slot* s = src.sim_slot();
  if (s && s->state != SlotState::Dequeued) fail("Fixpipe from buffer '%s' that was not EnQue'd and DeQue'd (missing M->FIX synchronisation)", s->owner);
  if (p.mSize == 0 || p.nSize == 0) return;  // a NOP, as documented ("nSize=0表示不执行搬运", mSize too)
  detail::check_local(src, "Fixpipe", pypto_sim::Mem::L0C, (uint64_t)((p.nSize + 15) / 16) * p.srcStride * 16, false);
  for (uint32_t r = 0; r < p.mSize; ++r) {
    dst.check((uint64_t)r * p.dstStride, p.nSize, "Fixpipe", true);
    for (uint32_t c = 0; c < p.nSize; ++c) {
      // reluEn: the FIX pipe rectifies each element on its way out of L0C (before any atomic add)
      const U* from = src.sim_ptr() + ((uint64_t)(c / 16) * p.srcStride + r) * 16 + c % 16;
      const U rectified = *from < U(0) ? U(0) : *from;
      const T out = static_cast<T>(p.reluEn ? rectified : *from);
      detail::gm_write(dst.sim_ptr() + (uint64_t)r * p.dstStride + c, &out, 1, "Fixpipe");
    }
  }
  // L0C -> out at 128 B of output per cycle: 32 f32 (NoQuant) or 64 halves (F322F16) per cycle
  // (Cube appendix, table 7, "并行度" 64 elements/cycle for F322F16)
  pypto_sim::cost::gm_transfer(pypto_sim::cost::FIX, dst.sim_ptr(), p.mSize, (uint64_t)p.nSize * sizeof(T), (uint64_t)p.dstStride * sizeof(T), false,
                               true, (double)p.mSize * p.nSize * sizeof(T) / pypto_sim::cost::params().fix_l0c_bytes_per_cycle);
}

// ---- core types and cross-core flags (MIX kernels; include/basic_api/kernel_operator_block_sync_intf.h,
// impl/utils/sys_constants.h, impl/utils/sys_macros.h in its ASCENDC_CPU_DEBUG form)
// A MIX launch's AIC is sub-block 0 of 1; its AIVs are sub-blocks 0 and 1 of 2 under
// KERNEL_TYPE_MIX_AIC_1_2 (0 of 1 under _1_1). Outside a MIX launch: 0 of 1.
inline int64_t GetSubBlockIdx() { return pypto_sim::mix_core() > 0 ? pypto_sim::mix_core() - 1 : 0; }
inline int64_t GetSubBlockNum() { return pypto_sim::mix_core() > 0 ? pypto_sim::mix_ratio() : 1; }
inline int64_t GetTaskRatio() { return pypto_sim::mix_core() > 0 ? pypto_sim::mix_ratio() : 1; }

namespace detail {
inline pypto_sim::MixGroup& mix_checked(const char* what, uint16_t flagId, uint8_t modeId) {
  pypto_sim::MixGroup* g = pypto_sim::mix_group();
  if (g == nullptr || pypto_sim::mix_core() < 0)
    pypto_sim::fail("%s(%u) in a kernel that is not a MIX kernel: cross-core flags need KERNEL_TYPE_MIX_AIC_1_1/1_2 "
                    "(AIC_ONLY and AIV_ONLY kernels have no FFTS cross-core sync)", what, flagId);
  if (modeId != 1 && modeId != 2)
    pypto_sim::fail("%s<%u>(%u): the simulation models modeId 1 (the AIVs of one core group) and 2 (the AIC and "
                    "its AIVs) only", what, modeId, flagId);
  if (modeId == 1 && pypto_sim::mix_core() == 0)
    pypto_sim::fail("%s<1>(%u) on the AIC: mode 1 synchronises the AIVs of a core group", what, flagId);
  if (flagId > 15) pypto_sim::fail("%s(%u): flag ids are 0-15", what, flagId);
  return *g;
}

// One more on core c's flag `id` (a completed mode-2 synchronisation).
inline void mix_count(pypto_sim::MixGroup& g, int c, uint16_t flagId) {
  if (g.counter[c][flagId] == 15)
    pypto_sim::fail("CrossCoreSetFlag(%u): flag %u of the %s is already at 15 (set %u times, waited for %u times): "
                    "a duplicated set overflows the 4-bit counter", flagId, flagId, pypto_sim::core_name(c),
                    g.sets[c][flagId], g.sets[c][flagId] - 15);
  ++g.counter[c][flagId];
  ++g.sets[c][flagId];
}

// The first core after `me` (in turn order) that can run: not finished, and not blocked on a
// flag whose counter is 0. -1: none.
inline int next_runnable(const pypto_sim::MixGroup& g, int me) {
  for (int k = 1; k < g.cores; ++k) {
    const int c = (me + k) % g.cores;
    if (!g.done[c] && (g.waiting_on[c] < 0 || g.counter[c][g.waiting_on[c]] > 0)) return c;
  }
  return -1;
}

// A wait of `me` on `flagId` that no core can end: the message names who would have to set it.
// `modeId` is the mode of the wait: in mode 1 the AIVs set an AIV's flags, in mode 2 its AIC.
[[noreturn]] inline void mix_stuck(const pypto_sim::MixGroup& g, int me, uint16_t flagId, int modeId) {
  char pending[320] = "";  // what was set and not waited for, on every core: a mismatched id shows here
  size_t n = 0;
  for (int c = 0; c < g.cores; ++c)
    for (int id = 0; id < 16; ++id)
      if (g.counter[c][id] > 0 && n < sizeof(pending) - 40)
        n += std::snprintf(pending + n, sizeof(pending) - n, "%s%s flag %d (x%d)", n ? ", " : "",
                           pypto_sim::core_name(c), id, g.counter[c][id]);
  const char* also = n ? "; set but not waited for: " : "";
  size_t unmatched = 0;  // mode-1 settings waiting for the other AIV: a mismatched id shows here too
  for (int c = 1; c < g.cores; ++c)
    for (int id = 0; id < 16; ++id)
      if (g.barrier[c][id] > 0 && n + unmatched < sizeof(pending) - 80)
        unmatched += std::snprintf(pending + n + unmatched, sizeof(pending) - n - unmatched, "%s%s flag %d (x%d)",
                                   unmatched ? ", " : (n ? "; mode-1 sets the other AIV has not matched: "
                                                         : "mode-1 sets the other AIV has not matched: "),
                                   pypto_sim::core_name(c), id, g.barrier[c][id]);
  if (!n && unmatched) also = "; ";
  // Mode 2: an AIV's flags are set by the AIC, the AIC's by its AIVs. Mode 1: by the other AIV.
  bool setters_done = true;
  int waiting_peer = -1;
  for (int c = 0; c < g.cores; ++c) {
    const bool setter = modeId == 1 ? c > 0 && c != me : (me > 0) != (c > 0);
    if (setter) setters_done = setters_done && g.done[c];
  }
  for (int k = 1; k < g.cores && waiting_peer < 0; ++k) {
    const int c = (me + k) % g.cores;
    if (!g.done[c] && g.waiting_on[c] >= 0) waiting_peer = c;
  }
  if (setters_done || waiting_peer < 0)
    pypto_sim::fail("CrossCoreWaitFlag(%u) can never return: the %s finished without setting flag %u again "
                    "(a missing or mismatched CrossCoreSetFlag%s%s)", flagId,
                    modeId == 1 ? "other AIV" : me == 0 ? (g.cores > 2 ? "AIVs" : "AIV") : "AIC", flagId, also, pending);
  pypto_sim::fail("CrossCoreWaitFlag(%u) deadlocks: the %s is waiting for its flag %d at the same time (a missing "
                  "or mismatched CrossCoreSetFlag%s%s)", flagId, pypto_sim::core_name(waiting_peer),
                  g.waiting_on[waiting_peer], also, pending);
}
}  // namespace detail

// Mode 2 (the AIC and the AIVs of one core group): a setting by the AIC reaches every AIV's
// counter; the AIC's counter gets one when every AIV has set the flag once more.
// Mode 1 (the AIVs of one core group): every AIV's counter gets one when every AIV has set the
// flag once more (a barrier; devkit: CrossCoreSetFlag, "关键特性说明" of 核间同步).
template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId) {
  pypto_sim::MixGroup& g = detail::mix_checked("CrossCoreSetFlag", flagId, modeId);
  if (pipe == PIPE_S || pipe == PIPE_ALL)
    pypto_sim::fail("CrossCoreSetFlag<%u, %s>(%u): cross-core flags are set on the pipe of the published work, not "
                    "PIPE_S/PIPE_ALL", modeId, pipe == PIPE_S ? "PIPE_S" : "PIPE_ALL", flagId);
  pypto_sim::cost::cross_core_set(pipe, flagId, modeId);  // the cost model's timelines (every setting, per core)
  const int me = pypto_sim::mix_core();
  if (modeId == 1) {
    if (g.barrier[me][flagId] == 15)
      pypto_sim::fail("CrossCoreSetFlag<1>(%u): the %s set flag %u 15 times more than the other AIV: a duplicated set "
                      "overflows the 4-bit counter", flagId, pypto_sim::core_name(me), flagId);
    ++g.barrier[me][flagId];
    for (int c = 1; c < g.cores; ++c)
      if (g.barrier[c][flagId] == 0) return;
    for (int c = 1; c < g.cores; ++c) {
      --g.barrier[c][flagId];
      detail::mix_count(g, c, flagId);
    }
    return;
  }
  if (me == 0) {
    for (int c = 1; c < g.cores; ++c) detail::mix_count(g, c, flagId);
    return;
  }
  if (g.cores == 2) {
    detail::mix_count(g, 0, flagId);
    return;
  }
  if (g.pending[me][flagId] == 15)
    pypto_sim::fail("CrossCoreSetFlag(%u): the %s set flag %u 15 times more than the other AIV: a duplicated set "
                    "overflows the 4-bit counter", flagId, pypto_sim::core_name(me), flagId);
  ++g.pending[me][flagId];
  bool all = true;
  for (int c = 1; c < g.cores; ++c) all = all && g.pending[c][flagId] > 0;
  if (!all) return;
  for (int c = 1; c < g.cores; ++c) --g.pending[c][flagId];
  detail::mix_count(g, 0, flagId);
}

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(uint16_t flagId) {
  pypto_sim::MixGroup& g = detail::mix_checked("CrossCoreWaitFlag", flagId, modeId);
  const int me = pypto_sim::mix_core();
  std::unique_lock<std::mutex> lock(g.m);
  while (g.counter[me][flagId] == 0) {
    const int next = detail::next_runnable(g, me);
    if (next < 0) detail::mix_stuck(g, me, flagId, modeId);
    g.waiting_on[me] = flagId;
    g.turn = next;
    g.cv.notify_all();
    g.cv.wait(lock, [&] { return g.turn == me; });
    g.waiting_on[me] = -1;
  }
  --g.counter[me][flagId];
  pypto_sim::cost::cross_core_wait(pipe, flagId, modeId);
}

}  // namespace AscendC

// g_coreType (pypto_sim/core.h): the core a thread runs, tested as the devkit's CPU debug build does.
#define ASCEND_IS_AIV (g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC (g_coreType == AscendC::AIC)
#define ASCEND_IS_NOT_AIV (g_coreType != AscendC::AIV)
#define ASCEND_IS_NOT_AIC (g_coreType != AscendC::AIC)

