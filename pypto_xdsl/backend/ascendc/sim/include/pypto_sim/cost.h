// pypto-xdsl CPU SIMULATION: a pipe-level cost model of one Ascend 910B (Atlas A2, dav-c220) AI core.
//
// An ESTIMATE, not a measurement: every instruction the simulated kernel issues is charged to
// its pipe (S, V, M, MTE1, MTE2, MTE3, FIX) with a cost derived from published Atlas A2 figures
// (docs/performance.md lists each parameter and its source). The scalar unit issues in program
// order; each pipe executes its own instructions in order; pipes run in parallel and wait for
// each other only where the program says so: SetFlag/WaitFlag, PipeBarrier and the flags that
// TQue::EnQue/DeQue/AllocTensor/FreeTensor set and wait. GM reads (MTE2) and writes (MTE3, FIX)
// go on separate channels of the core's port; their HBM bytes share the core's slice of the
// chip's GM bandwidth. The result, per block and per launch: estimated
// cycles, busy cycles per pipe, and counters (GM bytes, DMA bursts, vector repeats, barriers,
// flags) — written as one JSON line per launch to the file named by PYPTO_SIM_PROFILE.
//
// kernel_operator.h calls the hooks below (one line per instruction); pypto_sim/launch.h
// calls begin_block/end_block/end_launch around every block of a launch.
//
// A MIX block (pypto_sim::launch_mix) is one AIC and one or two AIVs, separate cores that run
// at the same time: each has its own scalar unit, pipes and GM port (its own timeline), and
// they wait for each other only at CrossCoreWaitFlag, which waits for the matching
// CrossCoreSetFlag of the peer core(s) (its pipe's earlier work complete, plus
// cross_core_latency). The block ends with its slowest core.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto_sim/core.h"

namespace pypto_sim {
namespace cost {

// Pipes, in the order of the real pipe_t (PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3),
// then FIX.
enum Pipe : int { S = 0, V, M, MTE1, MTE2, MTE3, FIX, kPipes };
inline const char* pipe_name(int p) {
  static const char* names[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
  return p >= 0 && p < kPipes ? names[p] : "?";
}
inline int pipe_from_name(const char* s, size_t n) {
  for (int p = 0; p < kPipes; ++p)
    if (std::strlen(pipe_name(p)) == n && std::strncmp(pipe_name(p), s, n) == 0) return p;
  return -1;
}

// The model's parameters (docs/performance.md: value, unit, source). PYPTO_SIM_COST="name=value,..."
// overrides any of them for one run (used by the calibration tests and benchmarks).
struct Params {
  double clock_ghz = 1.85;           // AI core clock
  double aiv_cores = 48;             // vector cores of an Ascend910B1
  double aic_cores = 24;             // cube cores
  double hbm_gbps = 1600;            // attainable GM (HBM) bandwidth of the chip, GB/s
  double l2_gbps = 5000;             // L2 cache bandwidth of the chip, GB/s
  double l2_mib = 192;               // L2 capacity
  double l2_write_back = 0;          // 1: MTE3/Fixpipe writes stay in L2 while the program's lines fit l2_mib (0: each goes on to HBM)
  double core_bytes_per_cycle = 128; // one core's GM port (upper bound on its share of L2)
  double core_hbm_bytes_per_cycle = 48;  // one core alone reading HBM (upper bound on its share of HBM)
  double dma_issue = 13;             // cycles per DMA instruction (GM <-> UB/L1)
  double dma_burst = 0.5;            // cycles per burst (row) of a DMA instruction
  double dma_latency = 200;          // cycles from the end of a transfer until a waiting pipe sees it
  double gm_misalign_bytes = 512;    // extra bytes per 512-byte GM line a burst straddles beyond its length
  double v_issue = 2;                // cycles per vector instruction besides its repeats
  double v_latency = 22;             // vector pipeline depth: result visible this much after the last repeat
  double mte1_issue = 10;            // cycles per LoadData besides its bytes
  double mte1_latency = 20;
  double l0a_bytes_per_cycle = 256;  // LoadData L1 -> L0A
  double l0b_bytes_per_cycle = 128;  // LoadData L1 -> L0B
  double m_issue = 10;               // Mmad head overhead (delta t of the devkit's formula)
  double m_latency = 20;
  double fix_issue = 13;             // Fixpipe, as a DMA instruction
  double fix_l0c_bytes_per_cycle = 128;
  double s_call = 3;                 // scalar cycles per API call (issue, parameters, address arithmetic)
  double s_ub_access = 4;            // LocalTensor GetValue/SetValue
  double queue_depth = 32;           // instructions a pipe's queue holds before the scalar unit stalls
  double cross_core_latency = 50;    // CrossCoreSetFlag on one core until CrossCoreWaitFlag returns on its peer
  double shared_by = 0;              // cores sharing the chip's bandwidth (0: the launch's blocks, up to the cores)

  void override_from_env() {
    const char* spec = std::getenv("PYPTO_SIM_COST");
    if (spec == nullptr) return;
    struct Entry { const char* name; double* value; };
    const Entry table[] = {
        {"clock_ghz", &clock_ghz}, {"aiv_cores", &aiv_cores}, {"aic_cores", &aic_cores},
        {"hbm_gbps", &hbm_gbps}, {"l2_gbps", &l2_gbps}, {"l2_mib", &l2_mib}, {"l2_write_back", &l2_write_back},
        {"core_bytes_per_cycle", &core_bytes_per_cycle}, {"core_hbm_bytes_per_cycle", &core_hbm_bytes_per_cycle}, {"dma_issue", &dma_issue}, {"dma_burst", &dma_burst},
        {"dma_latency", &dma_latency}, {"gm_misalign_bytes", &gm_misalign_bytes}, {"v_issue", &v_issue},
        {"v_latency", &v_latency}, {"mte1_issue", &mte1_issue}, {"mte1_latency", &mte1_latency},
        {"l0a_bytes_per_cycle", &l0a_bytes_per_cycle}, {"l0b_bytes_per_cycle", &l0b_bytes_per_cycle},
        {"m_issue", &m_issue}, {"m_latency", &m_latency}, {"fix_issue", &fix_issue},
        {"fix_l0c_bytes_per_cycle", &fix_l0c_bytes_per_cycle}, {"s_call", &s_call},
        {"s_ub_access", &s_ub_access}, {"queue_depth", &queue_depth}, {"shared_by", &shared_by},
        {"cross_core_latency", &cross_core_latency},
    };
    const char* p = spec;
    while (*p) {
      const char* eq = std::strchr(p, '=');
      if (eq == nullptr) break;
      const char* end = std::strchr(eq, ',');
      if (end == nullptr) end = eq + std::strlen(eq);
      bool known = false;
      for (const Entry& e : table)
        if (std::strlen(e.name) == size_t(eq - p) && std::strncmp(e.name, p, eq - p) == 0) {
          *e.value = std::strtod(eq + 1, nullptr);
          known = true;
        }
      if (!known) {
        std::fprintf(stderr, "pypto-sim error: PYPTO_SIM_COST names an unknown parameter '%.*s'\n", int(eq - p), p);
        std::exit(86);
      }
      p = *end ? end + 1 : end;
    }
  }
};

inline Params& params() {
  static Params* p = [] {
    auto* q = new Params();
    q->override_from_env();
    return q;
  }();
  return *p;
}

// A resource shared by some GM transfers of one core (its read or write channel, its slice of
// the chip's GM bandwidth): a calendar of busy intervals. A transfer takes the earliest free time at or after its start,
// possibly in pieces around transfers reserved earlier (the port interleaves requests).
class Calendar {
 public:
  double reserve(double start, double duration) {
    if (duration <= 0) return start;
    std::vector<std::pair<double, double>> out;
    out.reserve(busy_.size() + 2);
    double cursor = start, left = duration;
    for (const auto& iv : busy_) {
      if (left > 0 && iv.first > cursor) {
        const double take = std::min(left, iv.first - cursor);
        out.push_back({cursor, cursor + take});
        left -= take;
        cursor += take;
      }
      out.push_back(iv);
      if (left > 0 && iv.second > cursor && iv.first <= cursor) cursor = iv.second;
    }
    if (left > 0) {
      out.push_back({cursor, cursor + left});
      cursor += left;
    }
    std::sort(out.begin(), out.end());
    busy_.clear();
    for (const auto& iv : out) {  // merge touching pieces
      if (!busy_.empty() && iv.first <= busy_.back().second + 1e-9) busy_.back().second = std::max(busy_.back().second, iv.second);
      else busy_.push_back(iv);
    }
    return cursor;
  }
  // Nothing starts before `t` any more.
  void prune(double t) {
    size_t k = 0;
    while (k < busy_.size() && busy_[k].second < t) ++k;
    if (k > 0) busy_.erase(busy_.begin(), busy_.begin() + k);
  }
  void clear() { busy_.clear(); }

 private:
  std::vector<std::pair<double, double>> busy_;
};

struct PipeState {
  double free = 0;   // the next instruction starts no earlier
  double done = 0;   // every instruction issued so far has completed (results visible)
  double busy = 0;   // cycles spent executing
  uint64_t instrs = 0;
  std::vector<double> starts;  // start times of the last queue_depth instructions (ring)
};

// Per-block counters (the dynamic metrics of pypto-compile --report).
struct Counters {
  uint64_t gm_read = 0, gm_written = 0, l2_hit_bytes = 0;
  uint64_t dma = 0, dma_bursts = 0, dma_min_burst = UINT64_MAX, dma_max_burst = 0, dma_misaligned = 0;
  uint64_t vec = 0, vec_repeats = 0, vec_elements = 0;
  uint64_t barriers_v = 0, barriers_all = 0, barriers_other = 0;
  uint64_t set_flags = 0, wait_flags = 0, enques = 0, deques = 0;
  uint64_t mte1 = 0, mmad = 0, mmad_macs = 0, fixpipe = 0;
  uint64_t scalar_ub = 0;
  uint64_t cross_sets = 0, cross_waits = 0;
  void add(const Counters& o) {
    gm_read += o.gm_read; gm_written += o.gm_written; l2_hit_bytes += o.l2_hit_bytes;
    dma += o.dma; dma_bursts += o.dma_bursts; dma_misaligned += o.dma_misaligned;
    dma_min_burst = std::min(dma_min_burst, o.dma_min_burst); dma_max_burst = std::max(dma_max_burst, o.dma_max_burst);
    vec += o.vec; vec_repeats += o.vec_repeats; vec_elements += o.vec_elements;
    barriers_v += o.barriers_v; barriers_all += o.barriers_all; barriers_other += o.barriers_other;
    set_flags += o.set_flags; wait_flags += o.wait_flags; enques += o.enques; deques += o.deques;
    mte1 += o.mte1; mmad += o.mmad; mmad_macs += o.mmad_macs; fixpipe += o.fixpipe; scalar_ub += o.scalar_ub;
    cross_sets += o.cross_sets; cross_waits += o.cross_waits;
  }
};

struct SlotTimes {
  double ready = 0;  // EnQue: the producer pipe's work on the buffer is visible
  double freed = 0;  // FreeTensor: the consumer pipe is done with it
};

struct BlockState {
  bool active = false;
  bool trace = false;     // PYPTO_SIM_TRACE prints the first block's instructions
  bool cube = false;      // the kernel uses the cube core (decided by its first cube-side instruction)
  double s = 0;           // scalar unit: program-order issue time
  double s_busy = 0;
  PipeState pipe[kPipes];
  // The core's GM resources. Reads (MTE2) and writes (MTE3, FIX) travel on separate channels,
  // as on an AXI port, each at the core's share of the L2 bandwidth (every byte passes L2);
  // the bytes that go to or come from HBM (read misses, every write) also take the core's
  // share of the chip's GM bandwidth, which reads and writes share.
  Calendar gm_read, gm_write, hbm;
  double gm_read_busy = 0, gm_write_busy = 0, hbm_busy = 0;
  double gm_busy() const { return std::max(hbm_busy, std::max(gm_read_busy, gm_write_busy)); }
  std::map<std::pair<const void*, int>, double> flags;  // (event name, id) -> time it is set
  std::unordered_map<const void*, SlotTimes> slots;
  Counters c;
  double total() const {
    double t = s;
    for (const PipeState& p : pipe) t = std::max(t, p.done);
    return t;
  }
};

// The cores of one block: core 0 alone (an AIV or AIC kernel), or a MIX block's AIC (core 0)
// and its AIVs (cores 1..aivs).
constexpr int kMaxGroupCores = 3;

struct BlockResult {
  double cycles = 0;
  double busy[kMaxGroupCores][kPipes] = {};
  double gm_busy[kMaxGroupCores] = {};
  Counters c;
};

// The current launch: its blocks, its GM byte ranges (for unique footprints) and the chip-wide L2 lines.
struct LaunchCost {
  const char* kernel = nullptr;
  uint32_t block_num = 1;
  bool cube = false;
  int group_cores = 1;  // 1, or 1 + AIVs of a MIX kernel's blocks
  std::vector<BlockResult> blocks;
  std::vector<std::pair<uintptr_t, uintptr_t>> read_ranges, write_ranges;
  uint32_t mem_used[8] = {};
};

struct GroupState {
  BlockState core[kMaxGroupCores];
  int cores = 1;
  bool mix = false;
  // cross-core flags of modes 1 and 2: (waiting core, flag id, setting core) -> the times the setter's
  // CrossCoreSetFlag calls not yet consumed by a wait become visible to the waiter
  std::multiset<double> cross[kMaxGroupCores][16][kMaxGroupCores];
};
inline GroupState& group() {
  static GroupState* g = new GroupState();
  return *g;
}
// The core of the block the calling thread runs (launch_mix's threads call enter_core).
inline int& current_core() {
  static thread_local int c = 0;
  return c;
}
inline void enter_core(int c) { current_core() = c >= 0 && c < kMaxGroupCores ? c : 0; }
inline BlockState& block() { return group().core[current_core()]; }
inline const char* group_core_name(int c) {
  static const char* one_aiv[] = {"AIC", "AIV", "?"};
  static const char* two_aivs[] = {"AIC", "AIV0", "AIV1"};
  return group().cores > 2 ? two_aivs[c] : one_aiv[c];
}
inline LaunchCost& launch_cost() {
  static LaunchCost l;
  return l;
}
// The L2 cache, at 512-byte GM lines: a line is in L2 once any launch before this one touched it
// (up to the capacity; no eviction is modelled). Inside a launch the blocks run at the same time
// on hardware but one after another here, so "the first block to touch a line fetches it from
// HBM" would charge the whole fetch to whichever block the simulation runs first. Instead a line
// that k blocks of the launch read costs each of them 1/k of an HBM fetch and (k-1)/k of an L2
// read. k comes from a first run of the same program (PYPTO_SIM_L2_SHARE_OUT writes it,
// PYPTO_SIM_L2_SHARE_IN reads it back; `pypto-compile --profile` runs twice when the first run
// finds lines shared between blocks); without it k = 1.
struct L2State {
  std::unordered_set<uintptr_t> warm;                     // lines touched by earlier launches
  std::unordered_map<uintptr_t, std::pair<int64_t, uint32_t>> launch_lines;  // line -> (last block, blocks)
  std::unordered_set<uintptr_t> block_lines;              // lines the current block touched
  size_t launch_new_lines = 0;                            // lines of this launch no earlier launch touched
  std::map<std::pair<uint32_t, uintptr_t>, uint32_t> shared;  // (launch, line) -> readers, from the first run
  uint32_t launch = 0;
  bool loaded = false;
};
inline L2State& l2() {
  static L2State s;
  if (!s.loaded) {
    s.loaded = true;
    const char* in = std::getenv("PYPTO_SIM_L2_SHARE_IN");
    if (in != nullptr && *in) {
      if (FILE* f = std::fopen(in, "r")) {
        unsigned launch;
        unsigned long long line;
        unsigned k;
        while (std::fscanf(f, "%u %llx %u", &launch, &line, &k) == 3) s.shared[{launch, uintptr_t(line)}] = k;
        std::fclose(f);
      }
    }
  }
  return s;
}
// A GM line named independently of where the host placed the buffer (the same in both runs):
// the number of the device allocation in the order the cost model first saw it, and the line in it.
inline uintptr_t canonical_line(uintptr_t addr) {
  static std::map<const uint8_t*, uintptr_t> ids;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(addr);
  auto it = device_allocs().upper_bound(p);
  if (it == device_allocs().begin()) return addr / 512;
  --it;
  auto id = ids.find(it->first);
  if (id == ids.end()) id = ids.emplace(it->first, ids.size() + 1).first;
  return (id->second << 40) | uintptr_t((p - it->first) / 512);
}
// HBM share (0..1) of reading the line at `addr` in the current block; registers the touch.
inline double l2_touch(uintptr_t addr, int64_t block_idx, bool read) {
  const uintptr_t line = canonical_line(addr);
  L2State& s = l2();
  const bool warm = s.warm.count(line) != 0;
  const bool again = !s.block_lines.insert(line).second;
  auto& e = s.launch_lines[line];
  if (e.second == 0 && !warm) ++s.launch_new_lines;
  if (e.second == 0 || e.first != block_idx) {
    e.first = block_idx;
    ++e.second;
  }
  if (!read) {
    // MTE3/Fixpipe writes enter L2 and reach HBM when a replaced dirty line is written back
    // (the devkit's L2 CacheMode page): with l2_write_back, a write costs no HBM bytes while
    // every line the program touched still fits L2, and its own bytes once lines are replaced
    // (the line it evicts is taken to be dirty); without it every write goes on to HBM.
    if (params().l2_write_back <= 0) return 1.0;
    const double cap = params().l2_mib * 1024 * 1024 / 512;
    return double(s.warm.size() + s.launch_new_lines) > cap ? 1.0 : 0.0;
  }
  if (warm || again) return 0.0;
  auto it = s.shared.find({s.launch, line});
  return it == s.shared.end() ? 1.0 : 1.0 / it->second;
}
inline void l2_end_block() { l2().block_lines.clear(); }
inline void l2_end_launch() {
  L2State& s = l2();
  const Params& P = params();
  const size_t cap = static_cast<size_t>(P.l2_mib * 1024 * 1024 / 512);
  const char* out = std::getenv("PYPTO_SIM_L2_SHARE_OUT");
  FILE* f = out != nullptr && *out ? std::fopen(out, "a") : nullptr;
  for (const auto& [line, e] : s.launch_lines) {
    if (f != nullptr && e.second > 1) std::fprintf(f, "%u %llx %u\n", s.launch, (unsigned long long)line, e.second);
    if (s.warm.size() < cap) s.warm.insert(line);
  }
  if (f != nullptr) std::fclose(f);
  s.launch_lines.clear();
  s.launch_new_lines = 0;
  ++s.launch;
}

// ---------------------------------------------------------------- issue

// The scalar unit issues one API call onto `pipe` (S for scalar-only work): returns the earliest
// time the instruction can start on its pipe.
inline double issue(int pipe) {
  BlockState& b = block();
  const Params& P = params();
  b.s += P.s_call;
  b.s_busy += P.s_call;
  if (pipe == S) return b.s;
  PipeState& q = b.pipe[pipe];
  const size_t depth = static_cast<size_t>(std::max(1.0, P.queue_depth));
  if (q.starts.size() < depth) q.starts.resize(depth, 0.0);
  if (q.instrs >= depth) {  // the queue is full until the instruction `depth` places earlier has started
    const double t = q.starts[q.instrs % depth];
    if (t > b.s) b.s = t;
  }
  return std::max(q.free, b.s);
}
// PYPTO_SIM_TRACE=1: every instruction of block 0 on stderr (pipe, start, end, visible).
inline bool tracing() {
  static const bool on = [] {
    const char* t = std::getenv("PYPTO_SIM_TRACE");
    return t != nullptr && *t != 0 && *t != '0';
  }();
  return on;
}
inline void record(int pipe, double start, double end, double visible) {
  BlockState& b = block();
  if (tracing() && b.trace)
    std::fprintf(stderr, "pypto-sim trace: %s%s%-4s %10.1f %10.1f %10.1f (scalar %.1f)\n",
                 group().mix ? group_core_name(current_core()) : "", group().mix ? " " : "", pipe_name(pipe), start, end,
                 visible, b.s);
  PipeState& q = b.pipe[pipe];
  const size_t depth = q.starts.size();
  if (depth) q.starts[q.instrs % depth] = start;
  ++q.instrs;
  q.busy += end - start;
  q.free = end;
  q.done = std::max(q.done, visible);
}

inline double core_share(double chip_gbps, double cap) {
  const Params& P = params();
  const LaunchCost& l = launch_cost();
  const GroupState& g = group();
  // a MIX launch streams on its AIC and AIV cores alike: min(blocks, cube cores) groups of g.cores
  const double cores = g.mix ? P.aic_cores : block().cube ? P.aic_cores : P.aiv_cores;
  const double active = P.shared_by > 0 ? P.shared_by : std::max(1.0, std::min<double>(cores, l.block_num)) * g.cores;
  return std::min(cap, chip_gbps / P.clock_ghz / active);
}

// ---------------------------------------------------------------- hooks: data movement

// A DMA between GM and UB/L1 (MTE2 reads, MTE3 writes) or L0C -> GM (FIX): `bursts` rows of
// `burst_bytes` each, `gm_stride` bytes apart in GM starting at `gm`.
inline void gm_transfer(int pipe, const void* gm, uint64_t bursts, uint64_t burst_bytes, uint64_t gm_stride, bool read,
                        bool cube_side = false, double extra_cycles = 0) {
  BlockState& b = block();
  if (!b.active) return;
  if (cube_side) b.cube = true;
  const Params& P = params();
  const double start = issue(pipe);
  const uintptr_t base = reinterpret_cast<uintptr_t>(gm);
  double hbm_bytes = 0, l2_bytes = 0;
  LaunchCost& l = launch_cost();
  const int64_t block_idx = static_cast<int64_t>(l.blocks.size());
  for (uint64_t r = 0; r < bursts; ++r) {
    const uintptr_t a = base + r * gm_stride;
    (read ? l.read_ranges : l.write_ranges).push_back({a, a + burst_bytes});
    // whole 32-byte blocks move; a burst that straddles one more 512-byte line than its length
    // needs pays for that line again
    const uint64_t lines = (a + burst_bytes - 1) / 512 - a / 512 + 1, needed = (burst_bytes + 511) / 512;
    const double extra = lines > needed ? P.gm_misalign_bytes * double(lines - needed) : 0.0;
    if (lines > needed) ++b.c.dma_misaligned;
    const double charged = double((burst_bytes + 31) / 32 * 32) + extra;
    double hbm_share = 0;
    for (uintptr_t line = a / 512; line <= (a + burst_bytes - 1) / 512; ++line) {
      const uintptr_t lo = std::max<uintptr_t>(a, line * 512), hi = std::min<uintptr_t>(a + burst_bytes, (line + 1) * 512);
      hbm_share += l2_touch(lo, block_idx, read) * double(hi - lo);
    }
    hbm_share /= double(burst_bytes);
    hbm_bytes += charged * hbm_share;
    l2_bytes += charged * (1.0 - hbm_share);
    b.c.dma_min_burst = std::min(b.c.dma_min_burst, burst_bytes);
    b.c.dma_max_burst = std::max(b.c.dma_max_burst, burst_bytes);
  }
  // The transfer streams on its channel and on the HBM share at the same time and ends when the
  // later of the two is through.
  const double on_hbm = hbm_bytes / core_share(P.hbm_gbps, std::min(P.core_hbm_bytes_per_cycle, P.core_bytes_per_cycle));
  const double on_channel = (hbm_bytes + l2_bytes) / core_share(P.l2_gbps, P.core_bytes_per_cycle);
  const double head = (pipe == FIX ? P.fix_issue : P.dma_issue) + bursts * P.dma_burst;
  Calendar& channel = read ? b.gm_read : b.gm_write;
  channel.prune(b.s);
  b.hbm.prune(b.s);
  const double end = std::max({channel.reserve(start + head, on_channel), b.hbm.reserve(start + head, on_hbm),
                               start + head + extra_cycles});
  (read ? b.gm_read_busy : b.gm_write_busy) += on_channel;
  b.hbm_busy += on_hbm;
  record(pipe, start, end, end + P.dma_latency);
  b.c.dma += 1;
  if (pipe == FIX) ++b.c.fixpipe;
  b.c.dma_bursts += bursts;
  const uint64_t bytes = bursts * burst_bytes;
  (read ? b.c.gm_read : b.c.gm_written) += bytes;
  b.c.l2_hit_bytes += static_cast<uint64_t>(l2_bytes);
}

// LoadData L1 -> L0A/L0B (MTE1); bytes_per_cycle 0: the 2D LoadData's bandwidth.
inline void mte1_load(uint64_t bytes, bool to_l0b, double bytes_per_cycle = 0) {
  BlockState& b = block();
  if (!b.active) return;
  b.cube = true;
  const Params& P = params();
  const double start = issue(MTE1);
  const double bandwidth = bytes_per_cycle > 0 ? bytes_per_cycle : to_l0b ? P.l0b_bytes_per_cycle : P.l0a_bytes_per_cycle;
  const double end = start + P.mte1_issue + bytes / bandwidth;
  record(MTE1, start, end, end + P.mte1_latency);
  ++b.c.mte1;
}

// The bandwidth of a LoadData 3D v2 with strideW 1 whose window spans `rows` rows of the feature
// map (the Cube appendix, table 4): one row moves as LoadData 2D does (0: the 2D parameters,
// 256 B/cycle into L0A, 128 into L0B), n > 1 rows at 512 / (n + 2) B/cycle into L0A (at least
// 32) and 512 / (n + 4) into L0B (at least 512 / 18).
inline double load3d_bytes_per_cycle(uint32_t rows, bool to_l0b) {
  if (rows <= 1) return 0;
  return to_l0b ? std::max(std::floor(512.0 / (rows + 4)), std::floor(512.0 / 18)) : std::max(std::floor(512.0 / (rows + 2)), 32.0);
}

// Mmad (M): ceil(m/16) * ceil(n/16) * ceil(k/k0) fractal steps of one cycle each (k0 = 32 bytes of K: f16 16, f32 8).
inline void mmad(uint32_t m, uint32_t n, uint32_t k, uint32_t in_bytes) {
  BlockState& b = block();
  if (!b.active) return;
  b.cube = true;
  const Params& P = params();
  const uint32_t k0 = 32 / in_bytes;  // one 512-byte fractal of K per step
  const double steps = std::ceil(m / 16.0) * std::ceil(n / 16.0) * std::ceil(double(k) / k0);
  const double start = issue(M);
  const double end = start + P.m_issue + steps;
  record(M, start, end, end + P.m_latency);
  ++b.c.mmad;
  b.c.mmad_macs += uint64_t(m) * n * k;
}

// ---------------------------------------------------------------- hooks: vector instructions

// Cycles per 256-byte repeat for an instruction (devkit docs, "Vector指令理论性能汇总", Atlas A2):
// most element-wise instructions do one repeat per cycle (64 f32 / 128 f16 lanes); Exp, Ln, Sqrt
// and Div do 32 elements per cycle; ReduceRepeat (WholeReduceSum/Max) 64/7 f32, 128/7 f16;
// Gatherb 42 uint16 / 21 uint32 elements (84 bytes) per cycle.
inline double cycles_per_repeat(const char* op, uint32_t elem_bytes) {
  const double lanes = 256.0 / std::max<uint32_t>(1, elem_bytes);
  static const char* slow[] = {"Exp", "Ln", "Sqrt", "Div"};
  for (const char* s : slow)
    if (std::strcmp(op, s) == 0) return lanes / 32.0;
  if (std::strcmp(op, "Gatherb") == 0) return 256.0 / 84.0;
  if (std::strncmp(op, "WholeReduce", 11) == 0) return 7.0;
  return 1.0;
}

// One vector instruction of `repeats` repeats processing `elements` elements (V).
inline void vector(const char* op, uint32_t elem_bytes, uint64_t repeats, uint64_t elements) {
  BlockState& b = block();
  if (!b.active) return;
  const Params& P = params();
  const double start = issue(V);
  const double end = start + P.v_issue + repeats * cycles_per_repeat(op, elem_bytes);
  record(V, start, end, end + P.v_latency);
  ++b.c.vec;
  b.c.vec_repeats += repeats;
  b.c.vec_elements += elements;
}
// Count-form (level 2) instructions: ceil(count * size / 256) repeats.
inline void vector_count(const char* op, uint32_t elem_bytes, uint64_t count) {
  vector(op, elem_bytes, (count * elem_bytes + 255) / 256, count);
}

// Scalar reads/writes of UB (LocalTensor::GetValue/SetValue).
inline void scalar_ub() {
  BlockState& b = block();
  if (!b.active) return;
  const double extra = params().s_ub_access;
  issue(S);
  b.s += extra;
  b.s_busy += extra;
  ++b.c.scalar_ub;
}

// ---------------------------------------------------------------- hooks: synchronisation

// SetFlag<SRC_DST>(id) / WaitFlag<SRC_DST>(id); `event` is the HardEvent's name ("MTE2_V").
inline void flag_pipes(const char* event, int& src, int& dst) {
  const char* us = std::strchr(event, '_');
  src = us ? pipe_from_name(event, us - event) : -1;
  dst = us ? pipe_from_name(us + 1, std::strlen(us + 1)) : -1;
}
inline void set_flag(const char* event, int id) {
  BlockState& b = block();
  if (!b.active) return;
  int src, dst;
  flag_pipes(event, src, dst);
  const double t = issue(S);
  // the flag is set once every instruction the source pipe received before it has completed
  b.flags[{event, id}] = src > S ? std::max(t, b.pipe[src].done) : t;
  ++b.c.set_flags;
}
inline void wait_flag(const char* event, int id) {
  BlockState& b = block();
  if (!b.active) return;
  int src, dst;
  flag_pipes(event, src, dst);
  issue(S);
  auto it = b.flags.find({event, id});
  const double t = it == b.flags.end() ? 0 : it->second;
  if (it != b.flags.end()) b.flags.erase(it);
  if (dst == S || dst < 0) b.s = std::max(b.s, t);  // the scalar unit itself waits
  else b.pipe[dst].free = std::max(b.pipe[dst].free, t);
  ++b.c.wait_flags;
}

// PipeBarrier<pipe>: `pipe_t_value` is the API's pipe_t (0..5 as Pipe, 6 = PIPE_ALL, 7 = PIPE_FIX).
inline void barrier(int pipe_t_value) {
  BlockState& b = block();
  if (!b.active) return;
  issue(S);
  if (pipe_t_value == 6) {  // PIPE_ALL: the scalar unit waits until every pipe has drained
    for (PipeState& p : b.pipe) b.s = std::max(b.s, p.done);
    for (PipeState& p : b.pipe) p.free = std::max(p.free, b.s);
    ++b.c.barriers_all;
    return;
  }
  const int p = pipe_t_value == 7 ? FIX : pipe_t_value;
  if (p <= S || p >= kPipes) return;
  b.pipe[p].free = std::max(b.pipe[p].free, b.pipe[p].done);
  (p == V ? b.c.barriers_v : b.c.barriers_other) += 1;
}

// TQue hand-offs: a queue's buffer is filled by `producer` and read by `consumer` (VECIN: MTE2 -> V,
// VECOUT: V -> MTE3, A1/B1: MTE2 -> MTE1, A2/B2: MTE1 -> M, CO1: M -> FIX). As in the real TQue,
// EnQue sets a producer->consumer flag that DeQue waits for, FreeTensor a consumer->producer flag
// that the next AllocTensor of the buffer waits for.
inline void que_alloc(const void* slot, int producer) {
  BlockState& b = block();
  if (!b.active) return;
  issue(S);
  if (producer > S) b.pipe[producer].free = std::max(b.pipe[producer].free, b.slots[slot].freed);
}
inline void que_enque(const void* slot, int producer) {
  BlockState& b = block();
  if (!b.active) return;
  const double t = issue(S);
  b.slots[slot].ready = producer > S ? std::max(t, b.pipe[producer].done) : t;
  ++b.c.enques;
}
inline void que_deque(const void* slot, int consumer) {
  BlockState& b = block();
  if (!b.active) return;
  issue(S);
  if (consumer > S) b.pipe[consumer].free = std::max(b.pipe[consumer].free, b.slots[slot].ready);
  ++b.c.deques;
}
inline void que_free(const void* slot, int consumer) {
  BlockState& b = block();
  if (!b.active) return;
  const double t = issue(S);
  b.slots[slot].freed = consumer > S ? std::max(t, b.pipe[consumer].done) : t;
}

// CrossCoreSetFlag<mode, pipe>(id) on the calling core of a MIX block: the flag is raised once
// every instruction `pipe` received before it has completed, and seen by the peers
// cross_core_latency later. Mode 2 (devkit: CrossCoreSetFlag): a setting on the AIC counts for
// every AIV of the group; the AIC's wait needs a setting from each AIV. Mode 1 (the AIVs of the
// group): a setting on an AIV counts for every AIV, itself included, and an AIV's wait needs a
// setting from each AIV. `pipe_t_value` as in barrier().
inline void cross_core_set(int pipe_t_value, int id, int mode = 2) {
  GroupState& g = group();
  BlockState& b = block();
  if (!b.active || !g.mix || id < 0 || id >= 16) return;
  const int p = pipe_t_value == 7 ? FIX : pipe_t_value;
  const double t = issue(S);
  const double raised = (p > S && p < kPipes ? std::max(t, b.pipe[p].done) : t) + params().cross_core_latency;
  const int me = current_core();
  if (mode == 1) {
    for (int c = 1; c < g.cores; ++c) g.cross[c][id][me].insert(raised);
  } else if (me == 0) {
    for (int c = 1; c < g.cores; ++c) g.cross[c][id][0].insert(raised);
  } else {
    g.cross[0][id][me].insert(raised);
  }
  ++b.c.cross_sets;
}
// CrossCoreWaitFlag<mode, pipe>(id), called once the functional simulation has let it return (the
// settings it consumes have been recorded): the scalar unit (PIPE_S) or `pipe` waits for the
// earliest unconsumed setting of each peer it needs.
inline void cross_core_wait(int pipe_t_value, int id, int mode = 2) {
  GroupState& g = group();
  BlockState& b = block();
  if (!b.active || !g.mix || id < 0 || id >= 16) return;
  issue(S);
  const int me = current_core();
  double t = 0;
  auto take = [&](std::multiset<double>& times) {
    if (times.empty()) return;  // not recorded (the functional simulation reports real mismatches)
    t = std::max(t, *times.begin());
    times.erase(times.begin());
  };
  if (mode == 1) {
    for (int c = 1; c < g.cores; ++c) take(g.cross[me][id][c]);
  } else if (me == 0) {
    for (int c = 1; c < g.cores; ++c) take(g.cross[0][id][c]);
  } else {
    take(g.cross[me][id][0]);
  }
  const int p = pipe_t_value == 7 ? FIX : pipe_t_value;
  if (p > S && p < kPipes) b.pipe[p].free = std::max(b.pipe[p].free, t);
  else b.s = std::max(b.s, t);
  ++b.c.cross_waits;
}

// TPipe::InitBuffer: bytes of an on-chip memory in use (index as pypto_sim::Mem).
inline void mem_used(int mem, uint32_t bytes) {
  if (!block().active || mem < 0 || mem >= 8) return;
  LaunchCost& l = launch_cost();
  l.mem_used[mem] = std::max(l.mem_used[mem], bytes);
}

// ---------------------------------------------------------------- launches

inline void begin_launch(const char* kernel, uint32_t block_num) {
  LaunchCost& l = launch_cost();
  l = LaunchCost();
  l.kernel = kernel;
  l.block_num = block_num;
}
inline void begin_block() {
  GroupState& g = group();
  g = GroupState();
  current_core() = 0;
  g.core[0].active = true;
  g.core[0].trace = launch_cost().blocks.empty();
}
// A MIX block: an AIC (core 0) and `aivs` AIVs (1 for KERNEL_TYPE_MIX_AIC_1_1, 2 for 1_2), each
// on its own timeline; the thread running core c calls enter_core(c) first.
inline void begin_mix_block(int aivs) {
  GroupState& g = group();
  g = GroupState();
  g.mix = true;
  g.cores = 1 + std::max(1, std::min(aivs, kMaxGroupCores - 1));
  launch_cost().group_cores = g.cores;
  for (int c = 0; c < g.cores; ++c) {
    g.core[c].active = true;
    g.core[c].trace = launch_cost().blocks.empty();
  }
}
inline void end_block() {
  GroupState& g = group();
  BlockResult r;
  LaunchCost& l = launch_cost();
  for (int c = 0; c < g.cores; ++c) {
    BlockState& b = g.core[c];
    r.cycles = std::max(r.cycles, b.total());  // the group's cores run at the same time
    for (int p = 0; p < kPipes; ++p) r.busy[c][p] = b.pipe[p].busy;
    r.busy[c][S] = b.s_busy;
    r.gm_busy[c] = b.gm_busy();
    r.c.add(b.c);
    l.cube = l.cube || b.cube;
    b.active = false;
  }
  l.blocks.push_back(r);
  current_core() = 0;
  l2_end_block();
}

inline uint64_t unique_bytes(std::vector<std::pair<uintptr_t, uintptr_t>>& ranges) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t total = 0;
  uintptr_t lo = 0, hi = 0;
  bool open = false;
  for (const auto& r : ranges) {
    if (open && r.first <= hi) { hi = std::max(hi, r.second); continue; }
    if (open) total += hi - lo;
    lo = r.first; hi = r.second; open = true;
  }
  if (open) total += hi - lo;
  return total;
}

// Blocks go to cores round-robin (block i on core i mod cores); a core runs its blocks one after
// another and the launch ends with its slowest core. Appends one JSON line to $PYPTO_SIM_PROFILE.
inline void end_launch() {
  LaunchCost& l = launch_cost();
  const Params& P = params();
  l2_end_launch();
  const bool mix = l.group_cores > 1;  // a MIX kernel: its blocks go to core groups (one per cube core)
  const uint32_t cores = static_cast<uint32_t>(l.cube || mix ? P.aic_cores : P.aiv_cores);
  const uint32_t used = std::max<uint32_t>(1, std::min<uint32_t>(cores, l.block_num));
  std::vector<BlockResult> per_core(used);
  for (size_t i = 0; i < l.blocks.size(); ++i) {
    BlockResult& c = per_core[i % used];
    const BlockResult& r = l.blocks[i];
    c.cycles += r.cycles;
    for (int k = 0; k < kMaxGroupCores; ++k) {
      for (int p = 0; p < kPipes; ++p) c.busy[k][p] += r.busy[k][p];
      c.gm_busy[k] += r.gm_busy[k];
    }
  }
  size_t slowest = 0;
  for (size_t i = 1; i < per_core.size(); ++i)
    if (per_core[i].cycles > per_core[slowest].cycles) slowest = i;
  Counters all;
  for (const BlockResult& r : l.blocks) all.add(r.c);
  const char* path = std::getenv("PYPTO_SIM_PROFILE");
  if (path == nullptr || *path == 0 || l.kernel == nullptr) return;
  FILE* f = std::fopen(path, "a");
  if (f == nullptr) return;
  const BlockResult& crit = per_core.empty() ? BlockResult() : per_core[slowest];
  std::fprintf(f, "{\"kernel\": \"%s\", \"blocks\": %u, \"cores\": %u, \"core_type\": \"%s\", \"cycles\": %.1f, "
               "\"clock_ghz\": %g, \"hbm_gbps\": %g, \"aiv_cores\": %g, \"aic_cores\": %g, \"busy\": {", l.kernel, l.block_num,
               used, mix ? "mix" : l.cube ? "aic" : "aiv", crit.cycles, P.clock_ghz, P.hbm_gbps, P.aiv_cores, P.aic_cores);
  if (!mix) {
    for (int p = 0; p < kPipes; ++p) std::fprintf(f, "%s\"%s\": %.1f", p ? ", " : "", pipe_name(p), crit.busy[0][p]);
    std::fprintf(f, ", \"GM\": %.1f}", crit.gm_busy[0]);
  } else {  // "AIC MTE2", "AIV V", ...: every core of the critical group, the pipes it used
    bool first = true;
    const char* core_names[] = {"AIC", l.group_cores > 2 ? "AIV0" : "AIV", "AIV1"};
    for (int k = 0; k < l.group_cores; ++k) {
      for (int p = 0; p < kPipes; ++p)
        if (crit.busy[k][p] > 0 || p == S) {
          std::fprintf(f, "%s\"%s %s\": %.1f", first ? "" : ", ", core_names[k], pipe_name(p), crit.busy[k][p]);
          first = false;
        }
      std::fprintf(f, ", \"%s GM\": %.1f", core_names[k], crit.gm_busy[k]);
    }
    std::fprintf(f, "}");
  }
  std::fprintf(f, ", \"block_cycles\": [");
  for (size_t i = 0; i < l.blocks.size(); ++i) std::fprintf(f, "%s%.1f", i ? ", " : "", l.blocks[i].cycles);
  std::fprintf(f, "]");
  const uint64_t ur = unique_bytes(l.read_ranges), uw = unique_bytes(l.write_ranges);
  std::fprintf(f, ", \"counters\": {\"gm_read\": %llu, \"gm_read_unique\": %llu, \"gm_written\": %llu, "
               "\"gm_written_unique\": %llu, \"l2_hit_bytes\": %llu, \"dma\": %llu, \"dma_bursts\": %llu, "
               "\"dma_min_burst\": %llu, \"dma_max_burst\": %llu, \"dma_misaligned\": %llu, \"vec\": %llu, "
               "\"vec_repeats\": %llu, \"vec_elements\": %llu, \"barriers_v\": %llu, \"barriers_all\": %llu, "
               "\"barriers_other\": %llu, \"set_flags\": %llu, \"wait_flags\": %llu, \"enques\": %llu, \"deques\": %llu, "
               "\"mte1\": %llu, \"mmad\": %llu, \"mmad_macs\": %llu, \"fixpipe\": %llu, \"scalar_ub\": %llu, "
               "\"cross_sets\": %llu, \"cross_waits\": %llu}",
               (unsigned long long)all.gm_read, (unsigned long long)ur, (unsigned long long)all.gm_written,
               (unsigned long long)uw, (unsigned long long)all.l2_hit_bytes, (unsigned long long)all.dma,
               (unsigned long long)all.dma_bursts, (unsigned long long)(all.dma ? all.dma_min_burst : 0),
               (unsigned long long)all.dma_max_burst, (unsigned long long)all.dma_misaligned,
               (unsigned long long)all.vec, (unsigned long long)all.vec_repeats, (unsigned long long)all.vec_elements,
               (unsigned long long)all.barriers_v, (unsigned long long)all.barriers_all,
               (unsigned long long)all.barriers_other, (unsigned long long)all.set_flags,
               (unsigned long long)all.wait_flags, (unsigned long long)all.enques, (unsigned long long)all.deques,
               (unsigned long long)all.mte1, (unsigned long long)all.mmad, (unsigned long long)all.mmad_macs,
               (unsigned long long)all.fixpipe, (unsigned long long)all.scalar_ub,
               (unsigned long long)all.cross_sets, (unsigned long long)all.cross_waits);
  std::fprintf(f, ", \"mem_used\": {\"UB\": %u, \"L1\": %u, \"L0A\": %u, \"L0B\": %u, \"L0C\": %u}}\n", l.mem_used[0],
               l.mem_used[1], l.mem_used[2], l.mem_used[3], l.mem_used[4]);
  std::fclose(f);
}

}  // namespace cost
}  // namespace pypto_sim
