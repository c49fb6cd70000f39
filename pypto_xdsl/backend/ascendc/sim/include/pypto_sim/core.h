// pypto-xdsl CPU SIMULATION of the Ascend C / ACL subset emitted by the pypto-xdsl backend.
//
// This is NOT Huawei's Ascend C runtime. It is plain C++17 written for this project so that the
// generated kernels and host code compile with g++ and run on a CPU. It implements only the API
// surface the printers emit and checks what the hardware requires (32-byte alignment, UB
// capacity, EnQue/DeQue/FreeTensor discipline, repeat limits, flag pairing). Every violation
// stops the program with a message starting with "pypto-sim error".
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

#include "pypto_sim/comm.h"

// The core types (impl/utils/sys_constants.h) and the core a thread runs (g_coreType, which
// ASCEND_IS_AIC/ASCEND_IS_AIV test; thread-local: a MIX kernel's cores are threads).
namespace AscendC {
constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;
}  // namespace AscendC
inline thread_local int32_t g_coreType = AscendC::MIX;

namespace pypto_sim {

constexpr uint32_t kUbBytes = 192 * 1024;  // Unified Buffer of one AI core (A2/A3)
constexpr uint32_t kBlockBytes = 32;       // a UB data block
constexpr uint32_t kRepeatBytes = 256;     // one vector repeat
constexpr uint32_t kMaxRepeat = 255;

struct LaunchState {
  const char* kernel = nullptr;  // kernel being run, for messages
  int64_t block_idx = 0;
  int64_t block_num = 1;
  const void* atomic_add = nullptr;  // SetAtomicAdd<T>'s type tag (nullptr: copies into GM overwrite)
  unsigned atomic_bytes = 0;
};

// Per core: a MIX kernel's AIC and AIV run on their own threads (pypto_sim/launch.h).
inline LaunchState& launch_state() {
  static thread_local LaunchState s;
  return s;
}

// The core a thread of a MIX launch runs (0: the AIC, 1 + k: the AIV of sub-block k), -1
// outside one.
inline int& mix_core() {
  static thread_local int c = -1;
  return c;
}

// AIVs per AIC of the MIX launch running (1: KERNEL_TYPE_MIX_AIC_1_1, 2: _1_2), 0 outside one.
inline int& mix_ratio() {
  static int r = 0;
  return r;
}

// "AIC", "AIV" (1:1) or "AIV0"/"AIV1" (1:2): a core of the running MIX launch, for messages.
inline const char* core_name(int c) {
  if (c == 0) return "AIC";
  if (mix_ratio() <= 1) return "AIV";
  return c == 1 ? "AIV0" : "AIV1";
}

// The block of the launch the running core belongs to: an AIV's GetBlockIdx() counts vector
// cores (block * ratio + sub-block), the AIC's and a single-core kernel's counts blocks.
inline int64_t launch_block() {
  const LaunchState& s = launch_state();
  return mix_core() > 0 && mix_ratio() > 1 ? s.block_idx / mix_ratio() : s.block_idx;
}

[[noreturn]] inline void fail(const char* fmt, ...) {
  std::fflush(stdout);
  const LaunchState& s = launch_state();
  if (s.kernel != nullptr && mix_core() >= 0) {
    const long long block = launch_block();
    std::fprintf(stderr, "pypto-sim error [kernel %s, block %lld/%lld, %s]: ", s.kernel, block,
                 static_cast<long long>(s.block_num), core_name(mix_core()));
  } else if (s.kernel != nullptr) {
    std::fprintf(stderr, "pypto-sim error [kernel %s, block %lld/%lld]: ", s.kernel,
                 static_cast<long long>(s.block_idx), static_cast<long long>(s.block_num));
  } else {
    std::fprintf(stderr, "pypto-sim error: ");
  }
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
  if (mix_core() >= 0) std::_Exit(86);  // the peer core's thread may be blocked: no exit handlers
  std::exit(86);
}

// One core group of a MIX launch: its AIC and its AIV(s) (one per sub-block) take turns (a
// baton: exactly one thread runs, so the simulation stays deterministic and the shared state
// needs no locking beyond the hand-over). A thread runs until CrossCoreWaitFlag finds its
// counter at 0, then hands the baton to the next core that can run. counter[c][id] is core c's
// flag `id`. Mode 2 (kernel_operator.h): a setting by the AIC adds one to every AIV's counter;
// a setting by an AIV is held in pending[c][id] until every AIV has set it, then the AIC's
// counter gets one. Mode 1: a setting by an AIV is held in barrier[c][id] until every AIV has
// set it, then every AIV's counter gets one.
constexpr int kMaxMixCores = 3;

struct MixGroup {
  std::mutex m;
  std::condition_variable cv;
  int cores = 2;  // 1 + the AIVs per AIC
  int turn = 0;
  bool done[kMaxMixCores] = {};
  int waiting_on[kMaxMixCores] = {-1, -1, -1};  // the flag id a core is blocked on (-1: running or done)
  int counter[kMaxMixCores][16] = {};
  int pending[kMaxMixCores][16] = {};  // AIV settings not yet matched by the other AIV (1:2)
  int barrier[kMaxMixCores][16] = {};  // mode-1 settings of an AIV not yet matched by the other AIV
  uint32_t sets[kMaxMixCores][16] = {};  // every increment of counter[c][id], for messages
};

inline MixGroup*& mix_group() {
  static MixGroup* g = nullptr;
  return g;
}

// Live device (GM) allocations, base -> bytes: aclrtMalloc registers them (acl/acl.h); kernels
// check that every GlobalTensor they set up lies inside one (a too small workspace or argument).
inline std::map<const uint8_t*, size_t>& device_allocs() {
  static std::map<const uint8_t*, size_t> m;
  return m;
}
// [p, p+n) lies in one live device allocation.
inline bool device_range(const void* p, size_t n) {
  if (comm::contains(p, n)) return true;  // a window of the communication domain (pypto_sim/comm.h)
  const uint8_t* b = static_cast<const uint8_t*>(p);
  auto it = device_allocs().upper_bound(b);
  if (it == device_allocs().begin()) return false;
  --it;
  return b >= it->first && b + n <= it->first + it->second;
}

// The bytes from p to the end of the live device allocation holding it (0: p is in none).
inline size_t device_bytes_from(const void* p) {
  if (const size_t w = comm::bytes_from(p)) return w;
  const uint8_t* b = static_cast<const uint8_t*>(p);
  auto it = device_allocs().upper_bound(b);
  if (it == device_allocs().begin()) return 0;
  --it;
  return b >= it->first && b < it->first + it->second ? static_cast<size_t>(it->first + it->second - b) : 0;
}

// GM accesses of the blocks of one launch. The simulation runs a launch's blocks one after
// another, but on the device they run at the same time: bytes one block writes and another
// block reads or writes (a kernel-local tensor two blocks' workspace parts both hold, an
// output two blocks store) give whatever order the cores happen to take, which a sequential
// run cannot show. So every GM access of a launch on more than one block is logged, and at
// the end of the launch two blocks touching the same bytes, one of them with a plain write,
// stop the simulation. Atomic adds (SetAtomicAdd) from several blocks commute and are allowed
// among themselves. The cores of one block (a MIX kernel's AIC and AIVs) order their accesses
// with cross-core flags, which the MIX scheduling checks; they count as one block here.
enum class GmAccess : uint8_t { Read = 0, Write, Atomic };

struct GmSpan {
  const uint8_t* lo;
  const uint8_t* hi;
  int64_t block;
  GmAccess kind;
  const char* what;
};

inline std::vector<GmSpan>& gm_spans() {
  static std::vector<GmSpan> v;  // the cores of a MIX block take turns: one thread at a time
  return v;
}

inline void log_gm_access(const void* p, size_t bytes, GmAccess kind, const char* what) {
  const LaunchState& s = launch_state();
  if (s.kernel == nullptr || s.block_num <= 1 || bytes == 0) return;
  const uint8_t* lo = static_cast<const uint8_t*>(p);
  const int64_t block = launch_block();
  std::vector<GmSpan>& v = gm_spans();
  if (!v.empty()) {  // a row-by-row copy: one span
    GmSpan& last = v.back();
    if (last.block == block && last.kind == kind && last.what == what && last.hi == lo) {
      last.hi = lo + bytes;
      return;
    }
  }
  v.push_back(GmSpan{lo, lo + bytes, block, kind, what});
}

inline const char* gm_access_name(GmAccess k) {
  return k == GmAccess::Read ? "read" : k == GmAccess::Write ? "write" : "atomic add";
}

// At the end of a launch: no two blocks touched the same GM bytes unless both only read them
// or both only added to them atomically (see gm_spans). Clears the log.
[[noreturn]] inline void fail_blocks_overlap(const char* kernel, const GmSpan& a, const GmSpan& b, const uint8_t* lo,
                                             const uint8_t* hi) {
  const uint8_t* base = nullptr;
  size_t size = 0;
  auto it = device_allocs().upper_bound(lo);
  if (it != device_allocs().begin()) {
    --it;
    base = it->first;
    size = it->second;
  }
  const GmSpan& first = a.block < b.block ? a : b;
  const GmSpan& second = a.block < b.block ? b : a;
  fail("kernel %s: blocks %lld and %lld of one launch both touch GM bytes [%zu, %zu) of a device allocation of %zu "
       "bytes (a %s by %s on block %lld, a %s by %s on block %lld): the blocks of a launch run at the same time on "
       "the device, so what one writes there the other may overwrite or read in either order",
       kernel, (long long)first.block, (long long)second.block, static_cast<size_t>(lo - base),
       static_cast<size_t>(hi - base), size, gm_access_name(first.kind), first.what,
       (long long)first.block, gm_access_name(second.kind), second.what, (long long)second.block);
}

inline void check_block_accesses(const char* kernel) {
  std::vector<GmSpan> spans;
  spans.swap(gm_spans());
  if (spans.empty()) return;
  // merge each block's spans of one kind first, so the sweep below sees few at a time
  std::sort(spans.begin(), spans.end(), [](const GmSpan& x, const GmSpan& y) {
    if (x.block != y.block) return x.block < y.block;
    if (x.kind != y.kind) return x.kind < y.kind;
    return x.lo < y.lo;
  });
  std::vector<GmSpan> merged;
  for (const GmSpan& sp : spans) {
    if (!merged.empty() && merged.back().block == sp.block && merged.back().kind == sp.kind && sp.lo <= merged.back().hi) {
      merged.back().hi = std::max(merged.back().hi, sp.hi);
      continue;
    }
    merged.push_back(sp);
  }
  std::sort(merged.begin(), merged.end(),
            [](const GmSpan& x, const GmSpan& y) { return x.lo != y.lo ? x.lo < y.lo : x.block < y.block; });
  std::vector<GmSpan> active;
  for (const GmSpan& sp : merged) {
    active.erase(std::remove_if(active.begin(), active.end(), [&](const GmSpan& a) { return a.hi <= sp.lo; }),
                 active.end());
    for (const GmSpan& a : active) {
      if (a.block == sp.block || (a.kind == sp.kind && a.kind != GmAccess::Write)) continue;
      fail_blocks_overlap(kernel, a, sp, sp.lo, std::min(a.hi, sp.hi));
    }
    active.push_back(sp);
  }
}

// The on-chip memories of the core currently running (blocks run one after another).
enum class Mem : uint8_t { UB = 0, L1, L0A, L0B, L0C, BT, Count };

struct MemInfo {
  const char* name;
  uint32_t capacity;
  uint32_t align;  // start addresses of buffers
};

inline const MemInfo& mem_info(Mem m) {
  static const MemInfo table[] = {
      {"Unified Buffer", kUbBytes, 32}, {"L1", 512 * 1024, 32}, {"L0A", 64 * 1024, 512},
      {"L0B", 64 * 1024, 512},          {"L0C", 128 * 1024, 64},
      {"bias table", 1024, 64},  // C2 on dav-c220: L1 -> BT copies write 64-byte blocks
  };
  return table[static_cast<int>(m)];
}

struct Chip {
  uint8_t* base[static_cast<int>(Mem::Count)] = {};
  uint8_t* second_ub = nullptr;  // the Unified Buffer of sub-block 1's AIV (KERNEL_TYPE_MIX_AIC_1_2)
  bool pipe_live[kMaxMixCores] = {};  // one TPipe per kernel invocation and core (a MIX kernel has one on each)
};

inline Chip& chip() {
  static Chip* c = [] {
    auto* p = new Chip();
    for (int m = 0; m < static_cast<int>(Mem::Count); ++m) {
      const uint32_t cap = mem_info(static_cast<Mem>(m)).capacity;
      p->base[m] = static_cast<uint8_t*>(std::aligned_alloc(512, cap));
      std::memset(p->base[m], 0xFF, cap);  // NaN pattern: uninitialised reads show up
    }
    p->second_ub = static_cast<uint8_t*>(std::aligned_alloc(512, kUbBytes));
    std::memset(p->second_ub, 0xFF, kUbBytes);
    return p;
  }();
  return *c;
}

inline bool& pipe_live() { return chip().pipe_live[mix_core() < 0 ? 1 : mix_core()]; }

// Each AIV has its own Unified Buffer; the AIC's memories (L1, L0A/B/C) are the core group's.
inline uint8_t* mem_base(Mem m) {
  if (m == Mem::UB && mix_core() == 2) return chip().second_ub;
  return chip().base[static_cast<int>(m)];
}

inline uint32_t mem_offset(Mem m, const void* p) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  if (b < mem_base(m) || b >= mem_base(m) + mem_info(m).capacity)
    fail("local tensor address %p is outside the %s", p, mem_info(m).name);
  return static_cast<uint32_t>(b - mem_base(m));
}

// Synchronisation bookkeeping: vector writes must be followed by a V_S flag before a scalar
// read of the same buffer (GetValue).
inline uint64_t& vs_epoch() {
  static thread_local uint64_t e = 1;
  return e;
}

// Nd2Nz copies into L1 are numbered; a WaitFlag<MTE2_*> makes every copy numbered up to its
// SetFlag visible, so a buffer filled that way may be read without EnQue/DeQue (a resident
// panel copied chunk by chunk, each chunk behind SetFlag/WaitFlag<MTE2_MTE1>).
inline uint64_t& fill_counter() {
  static thread_local uint64_t n = 0;
  return n;
}
inline uint64_t& fills_synced() {
  static thread_local uint64_t n = 0;
  return n;
}

// The state of one physical buffer (a queue slot or a TBuf).
enum class SlotState : uint8_t { Free, Allocated, Enqueued, Dequeued, Calc };

struct Slot {
  uint32_t addr = 0;   // byte offset in the UB
  uint32_t bytes = 0;
  SlotState state = SlotState::Free;
  uint32_t gen = 0;    // bumped by FreeTensor: stale tensors are detected
  bool dma_in = false;  // filled by another pipe (VECIN, A1, B1, A2, B2): readers must DeQue first
  uint64_t fill_seq = 0;  // the latest Nd2Nz copy into it (fill_counter), for reads ordered by a flag instead
  Mem mem = Mem::UB;
  uint64_t v_write_epoch = 0;
  const char* owner = "";
  char name[80] = {};
};

}  // namespace pypto_sim
