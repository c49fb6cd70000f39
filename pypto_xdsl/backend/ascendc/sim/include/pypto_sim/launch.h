// pypto-xdsl CPU SIMULATION of a kernel launch: the per-kernel "aclrtlaunch_<name>.h" headers
// that `pypto-compile --sim` writes include this. Blocks run one after another on the CPU; what
// two blocks of one launch both touch is checked at its end (pypto_sim::check_block_accesses).
#pragma once

#include <cstdint>
#include <thread>

#include "acl/acl.h"
#include "pypto_sim/core.h"
#include "pypto_sim/cost.h"

#define ACLRT_LAUNCH_KERNEL(kernel) aclrtlaunch_##kernel

namespace pypto_sim {
template <typename F>
uint32_t launch(const char* name, uint32_t blockDim, aclrtStream stream, F&& body) {
  if (!acl().initialised) fail("launch of kernel %s before aclInit", name);
  if (stream == nullptr) fail("launch of kernel %s on a null stream", name);
  if (blockDim == 0 || blockDim > 65535) fail("launch of kernel %s with blockDim %u", name, blockDim);
  LaunchState& s = launch_state();
  cost::begin_launch(name, blockDim);
  for (uint32_t b = 0; b < blockDim; ++b) {
    s.kernel = name;
    s.block_idx = b;
    s.block_num = blockDim;
    cost::begin_block();
    body();
    if (s.atomic_add != nullptr) fail("kernel %s, block %u: SetAtomicAdd without SetAtomicNone before the kernel returns", name, b);
    cost::end_block();
  }
  s.kernel = nullptr;
  check_block_accesses(name);
  cost::end_launch();
  return 0;
}
// A MIX kernel: per block, the AIC and `ratio` AIVs (1: KERNEL_TYPE_MIX_AIC_1_1, 2: _1_2) run
// the same entry on their own threads, with g_coreType set, taking turns at CrossCoreWaitFlag
// (pypto_sim::MixGroup). As on the device, GetBlockIdx() is the block on the AIC and
// block * ratio + GetSubBlockIdx() on an AIV. At the end of the block every cross-core flag
// counter must be 0.
template <typename F>
uint32_t launch_mix(const char* name, uint32_t blockDim, aclrtStream stream, F&& body, int ratio = 1) {
  if (!acl().initialised) fail("launch of kernel %s before aclInit", name);
  if (stream == nullptr) fail("launch of kernel %s on a null stream", name);
  if (blockDim == 0 || blockDim > 65535) fail("launch of kernel %s with blockDim %u", name, blockDim);
  if (ratio != 1 && ratio != 2) fail("launch of MIX kernel %s with %d AIVs per AIC (1 or 2)", name, ratio);
  mix_ratio() = ratio;
  cost::begin_launch(name, blockDim);
  for (uint32_t b = 0; b < blockDim; ++b) {
    MixGroup group;
    group.cores = 1 + ratio;
    mix_group() = &group;
    cost::begin_mix_block(ratio);  // the AIC and its AIVs on timelines of their own (pypto_sim/cost.h)
    auto core = [&](int c) {
      mix_core() = c;
      cost::enter_core(c);
      g_coreType = c == 0 ? AscendC::AIC : AscendC::AIV;
      LaunchState& s = launch_state();
      s.kernel = name;
      s.block_idx = c == 0 ? b : static_cast<int64_t>(b) * ratio + (c - 1);
      s.block_num = blockDim;
      {
        std::unique_lock<std::mutex> lock(group.m);
        group.cv.wait(lock, [&] { return group.turn == c; });
      }
      body();
      if (s.atomic_add != nullptr) fail("SetAtomicAdd without SetAtomicNone before the kernel returns");
      std::unique_lock<std::mutex> lock(group.m);
      group.done[c] = true;
      for (int k = 1; k < group.cores; ++k) {  // the baton goes to the next core not finished
        const int next = (c + k) % group.cores;
        if (!group.done[next]) {
          group.turn = next;
          break;
        }
      }
      group.cv.notify_all();
    };
    std::thread threads[kMaxMixCores];
    for (int c = 0; c < group.cores; ++c) threads[c] = std::thread(core, c);
    for (int c = 0; c < group.cores; ++c) threads[c].join();
    LaunchState& s = launch_state();
    s.kernel = name;
    s.block_idx = b;
    s.block_num = blockDim;
    for (int c = 0; c < group.cores; ++c)
      for (int id = 0; id < 16; ++id) {
        if (group.counter[c][id] != 0)
          fail("flag %d of the %s is set %d time(s) more than it waits for it when the kernel ends (a duplicated "
               "CrossCoreSetFlag, or a set and a wait on mismatched ids)", id, core_name(c), group.counter[c][id]);
        if (group.pending[c][id] != 0)
          fail("the %s set flag %d %d time(s) more than the other AIV when the kernel ends (mode 2: the AIC's "
               "counter counts a setting by both AIVs)", core_name(c), id, group.pending[c][id]);
        if (group.barrier[c][id] != 0)
          fail("the %s set mode-1 flag %d %d time(s) more than the other AIV when the kernel ends (mode 1: the "
               "AIVs' counters count a setting by both AIVs)", core_name(c), id, group.barrier[c][id]);
      }
    s.kernel = nullptr;
    mix_group() = nullptr;
    cost::end_block();
  }
  mix_ratio() = 0;
  launch_state().kernel = nullptr;
  check_block_accesses(name);
  cost::end_launch();
  return 0;
}
// A kernel argument that should be device memory.
inline void* device_arg(const char* kernel, const char* param, void* p) {
  if (!device_range(p, 1)) fail("launch of kernel %s: argument '%s' (%p) is not device memory", kernel, param, p);
  return p;
}
}  // namespace pypto_sim
