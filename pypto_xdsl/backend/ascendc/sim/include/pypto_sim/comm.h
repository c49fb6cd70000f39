// pypto-xdsl CPU SIMULATION of a communication domain (HCCL): the ranks of one launch and
// their windows.
//
// Each rank of a group is a simulated device of its own: a process running the rank's
// program, with its own device memory and on-chip state. What the ranks share is the
// domain: a file that every rank's process maps (MAP_SHARED), holding a header and one
// *windows in* region per rank (HCCL's communication windows: every window buffer of the
// group at the same byte offset of each rank's region). A kernel reaches a window of any
// rank by address (AscendC::Hccl::GetWindowsInAddr(rank) + offset, hccl/hccl.h), and copies
// and element accesses read and write it directly, as peer memory is on the device.
//
// The environment of a rank's process names its domain (the host side, pypto-xdsl's
// runtime, sets it): PYPTO_SIM_COMM (the file), PYPTO_SIM_RANK, PYPTO_SIM_LAST (1: this is
// the rank's last program of the run) and PYPTO_SIM_WINDOWS (`name:offset:bytes,...`, for
// messages). Without PYPTO_SIM_COMM there is no domain: GetHcclContext<0>() is null.
//
// Writes into windows (copies UB -> GM, SetValue, atomic adds) hold the domain's lock (an
// atomic add of two ranks into one cell is one read-modify-write each) and advance the
// domain's write epoch. A rank that reads the same window element again and again without
// the epoch moving is waiting (a spin on a signal: pld.system.wait, a barrier): it sleeps
// between reads, and when every rank of the group waits so, or has finished, with no write
// for a while, no rank can make progress: the simulation stops with the ranks' states
// instead of hanging (a deadlock, or a wait that can never be satisfied).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pypto_sim {
[[noreturn]] inline void fail(const char* fmt, ...);

namespace comm {

constexpr uint32_t kMagic = 0x50434f4d;  // "PCOM"
constexpr uint32_t kMaxRanks = 64;
constexpr uint64_t kHeaderBytes = 8192;

enum RankState : int32_t { kAbsent = 0, kRunning = 1, kWaiting = 2, kDone = 3 };

// The layout the host side writes (pypto_xdsl/runtime/comm_domain.py keeps the same).
struct RankSlot {
  std::atomic<int32_t> state;
  std::atomic<int32_t> value;        // the value a waiting rank last read
  std::atomic<uint64_t> offset;      // the byte of its region it reads (relative to the region's start)
  std::atomic<uint64_t> epoch;       // the write epoch it last read at
  std::atomic<int64_t> owner;        // the region the waited-on element belongs to
  uint8_t pad[32];
};
struct Header {
  uint32_t magic;
  uint32_t nranks;
  uint64_t region_bytes;
  std::atomic<uint32_t> lock;
  uint32_t pad0;
  std::atomic<uint64_t> epoch;
  uint8_t pad1[32];
  RankSlot ranks[kMaxRanks];
};
static_assert(sizeof(RankSlot) == 64, "RankSlot layout");
static_assert(sizeof(Header) <= kHeaderBytes, "Header layout");

struct Domain {
  Header* header = nullptr;
  uint8_t* regions = nullptr;  // rank r's windows-in region: regions + r * region_bytes
  uint64_t bytes = 0;
  uint32_t rank = 0;
  bool last = true;
  std::string windows;  // name:offset:bytes,...
};

inline void mark_exit();

inline Domain* domain() {
  static Domain* d = [] () -> Domain* {
    const char* path = std::getenv("PYPTO_SIM_COMM");
    if (path == nullptr || *path == '\0') return nullptr;
    const int fd = open(path, O_RDWR);
    if (fd < 0) fail("cannot open the communication domain %s", path);
    struct stat st;
    if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < kHeaderBytes)
      fail("the communication domain %s is not one (size)", path);
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) fail("cannot map the communication domain %s", path);
    auto* dom = new Domain();
    dom->header = static_cast<Header*>(p);
    dom->regions = static_cast<uint8_t*>(p) + kHeaderBytes;
    dom->bytes = static_cast<uint64_t>(st.st_size);
    if (dom->header->magic != kMagic || dom->header->nranks == 0 || dom->header->nranks > kMaxRanks ||
        kHeaderBytes + dom->header->nranks * dom->header->region_bytes > dom->bytes)
      fail("the communication domain %s is not one (header)", path);
    const char* rank = std::getenv("PYPTO_SIM_RANK");
    dom->rank = rank != nullptr ? static_cast<uint32_t>(std::atoi(rank)) : 0;
    if (dom->rank >= dom->header->nranks) fail("PYPTO_SIM_RANK=%u is not a rank of the domain of %u", dom->rank, dom->header->nranks);
    const char* last = std::getenv("PYPTO_SIM_LAST");
    dom->last = last == nullptr || std::strcmp(last, "0") != 0;
    const char* windows = std::getenv("PYPTO_SIM_WINDOWS");
    dom->windows = windows != nullptr ? windows : "";
    dom->header->ranks[dom->rank].state.store(kRunning);
    std::atexit(mark_exit);
    return dom;
  }();
  return d;
}

inline uint8_t* region(uint32_t rank) {
  Domain* d = domain();
  return d->regions + static_cast<uint64_t>(rank) * d->header->region_bytes;
}

// [p, p + n) lies in one rank's windows-in region: its rank, else -1.
inline int64_t owner(const void* p, size_t n) {
  Domain* d = domain();
  if (d == nullptr) return -1;
  const uint8_t* b = static_cast<const uint8_t*>(p);
  if (b < d->regions) return -1;
  const uint64_t off = static_cast<uint64_t>(b - d->regions);
  const uint64_t rb = d->header->region_bytes;
  if (rb == 0 || off / rb >= d->header->nranks) return -1;
  if (off % rb + n > rb) return -1;
  return static_cast<int64_t>(off / rb);
}

inline bool contains(const void* p, size_t n) { return owner(p, n) >= 0; }

// The bytes from p to the end of its window region (0: p is in none).
inline size_t bytes_from(const void* p) {
  const int64_t r = owner(p, 1);
  if (r < 0) return 0;
  return static_cast<size_t>(region(static_cast<uint32_t>(r)) + domain()->header->region_bytes - static_cast<const uint8_t*>(p));
}

inline void mark_exit() {
  Domain* d = domain();
  if (d == nullptr) return;
  d->header->ranks[d->rank].state.store(d->last ? kDone : kRunning);
  d->header->epoch.fetch_add(1);
}

// The window buffer byte `off` of a region belongs to, for messages.
inline std::string describe(int64_t owner_rank, uint64_t off) {
  const std::string& w = domain()->windows;
  size_t pos = 0;
  while (pos < w.size()) {
    size_t end = w.find(',', pos);
    if (end == std::string::npos) end = w.size();
    const std::string item = w.substr(pos, end - pos);
    const size_t a = item.rfind(':');
    const size_t b = a == std::string::npos ? a : item.rfind(':', a - 1);
    if (b != std::string::npos) {
      const uint64_t start = std::strtoull(item.c_str() + b + 1, nullptr, 10);
      const uint64_t bytes = std::strtoull(item.c_str() + a + 1, nullptr, 10);
      if (off >= start && off < start + bytes) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "byte %llu of window buffer '%s' of rank %lld", (unsigned long long)(off - start),
                      item.substr(0, b).c_str(), (long long)owner_rank);
        return buf;
      }
    }
    pos = end + 1;
  }
  char buf[128];
  std::snprintf(buf, sizeof buf, "byte %llu of the windows of rank %lld", (unsigned long long)off, (long long)owner_rank);
  return buf;
}

// The domain's lock, held for a write into a window (spin; a writer holds it for one copy).
struct Lock {
  Lock() {
    auto& l = domain()->header->lock;
    uint32_t expected = 0;
    while (!l.compare_exchange_weak(expected, 1, std::memory_order_acquire)) {
      expected = 0;
      std::this_thread::yield();
    }
  }
  ~Lock() {
    domain()->header->lock.store(0, std::memory_order_release);
    domain()->header->epoch.fetch_add(1);
  }
};

// This rank is doing something else than waiting (a copy, a write, another read).
inline void running() {
  Domain* d = domain();
  if (d == nullptr) return;
  RankSlot& me = d->header->ranks[d->rank];
  if (me.state.load(std::memory_order_relaxed) == kWaiting) me.state.store(kRunning);
}

struct PollState {
  const void* addr = nullptr;
  uint64_t epoch = 0;
  uint64_t count = 0;
  std::chrono::steady_clock::time_point since;
};

[[noreturn]] inline void fail_deadlock() {
  Domain* d = domain();
  std::string ranks;
  for (uint32_t r = 0; r < d->header->nranks; ++r) {
    RankSlot& s = d->header->ranks[r];
    char buf[512];
    const int32_t st = s.state.load();
    if (st == kWaiting)
      std::snprintf(buf, sizeof buf, "rank %u waits, reading %d at %s", r, s.value.load(),
                    describe(s.owner.load(), s.offset.load()).c_str());
    else if (st == kDone)
      std::snprintf(buf, sizeof buf, "rank %u has finished", r);
    else if (st == kAbsent)
      std::snprintf(buf, sizeof buf, "rank %u was not launched", r);
    else
      std::snprintf(buf, sizeof buf, "rank %u runs", r);
    if (!ranks.empty()) ranks += "; ";
    ranks += buf;
  }
  fail("the ranks deadlock, none can go on (a wait on a signal no rank will write): %s", ranks.c_str());
}

// A read of `bytes` at `p` (in a window) by GetValue: a rank spinning on a signal reads the
// same element until another rank writes it.
inline void poll(const void* p, int32_t value) {
  Domain* d = domain();
  static thread_local PollState ps;
  const uint64_t epoch = d->header->epoch.load();
  const auto now = std::chrono::steady_clock::now();
  if (p != ps.addr || epoch != ps.epoch) {
    ps.addr = p;
    ps.epoch = epoch;
    ps.count = 0;
    ps.since = now;
    running();
    return;
  }
  ++ps.count;
  if (ps.count < 16) return;
  RankSlot& me = d->header->ranks[d->rank];
  const int64_t who = owner(p, 1);
  me.value.store(value);
  me.owner.store(who);
  me.offset.store(static_cast<uint64_t>(static_cast<const uint8_t*>(p) - region(static_cast<uint32_t>(who))));
  me.epoch.store(epoch);
  me.state.store(kWaiting);
  std::this_thread::sleep_for(std::chrono::microseconds(ps.count < 1000 ? 50 : 500));
  if (now - ps.since < std::chrono::milliseconds(1500)) return;
  // every rank waits at this epoch or has finished (an absent rank never writes)
  for (uint32_t r = 0; r < d->header->nranks; ++r) {
    RankSlot& s = d->header->ranks[r];
    const int32_t st = s.state.load();
    if (st == kRunning) return;
    if (st == kWaiting && s.epoch.load() != epoch) return;
  }
  if (d->header->epoch.load() != epoch) return;
  fail_deadlock();
}

}  // namespace comm
}  // namespace pypto_sim
