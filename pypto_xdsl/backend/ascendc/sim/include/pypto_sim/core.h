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

namespace pypto_sim {

constexpr uint32_t kUbBytes = 192 * 1024;  // Unified Buffer of one AI core (A2/A3)
constexpr uint32_t kBlockBytes = 32;       // a UB data block
constexpr uint32_t kRepeatBytes = 256;     // one vector repeat
constexpr uint32_t kMaxRepeat = 255;

struct LaunchState {
  const char* kernel = nullptr;  // kernel being run, for messages
  int64_t block_idx = 0;
  int64_t block_num = 1;
};

inline LaunchState& launch_state() {
  static LaunchState s;
  return s;
}

[[noreturn]] inline void fail(const char* fmt, ...) {
  std::fflush(stdout);
  const LaunchState& s = launch_state();
  if (s.kernel != nullptr) {
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
  std::exit(86);
}

// The simulated Unified Buffer of the core currently running (blocks run one after another).
struct UnifiedBuffer {
  alignas(64) uint8_t bytes[kUbBytes];
  bool pipe_live = false;  // one TPipe per kernel invocation
};

inline UnifiedBuffer& ub() {
  static UnifiedBuffer* u = [] {
    auto* p = new UnifiedBuffer();
    std::memset(p->bytes, 0xFF, sizeof(p->bytes));  // NaN pattern: uninitialised reads show up
    return p;
  }();
  return *u;
}

inline uint32_t ub_offset(const void* p) {
  const uint8_t* b = static_cast<const uint8_t*>(p);
  if (b < ub().bytes || b >= ub().bytes + kUbBytes) fail("local tensor address %p is outside the UB", p);
  return static_cast<uint32_t>(b - ub().bytes);
}

// Synchronisation bookkeeping: vector writes must be followed by a V_S flag before a scalar
// read of the same buffer (GetValue).
inline uint64_t& vs_epoch() {
  static uint64_t e = 1;
  return e;
}

// The state of one physical buffer (a queue slot or a TBuf).
enum class SlotState : uint8_t { Free, Allocated, Enqueued, Dequeued, Calc };

struct Slot {
  uint32_t addr = 0;   // byte offset in the UB
  uint32_t bytes = 0;
  SlotState state = SlotState::Free;
  uint32_t gen = 0;    // bumped by FreeTensor: stale tensors are detected
  bool vecin = false;  // belongs to a VECIN queue (data arrives by MTE2)
  uint64_t v_write_epoch = 0;
  const char* owner = "";
  char name[80] = {};
};

}  // namespace pypto_sim
