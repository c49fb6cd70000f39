// pypto-xdsl CPU SIMULATION of a kernel launch: the per-kernel "aclrtlaunch_<name>.h" headers
// that `pypto-compile --sim` writes include this. Blocks run one after another on the CPU.
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
  cost::end_launch();
  return 0;
}
// A MIX kernel (KERNEL_TYPE_MIX_AIC_1_1): per block, the AIC and the AIV run the same entry on
// two threads with g_coreType set, taking turns at CrossCoreWaitFlag (pypto_sim::MixGroup). At
// the end of the block every cross-core flag counter must be 0.
template <typename F>
uint32_t launch_mix(const char* name, uint32_t blockDim, aclrtStream stream, F&& body) {
  if (!acl().initialised) fail("launch of kernel %s before aclInit", name);
  if (stream == nullptr) fail("launch of kernel %s on a null stream", name);
  if (blockDim == 0 || blockDim > 65535) fail("launch of kernel %s with blockDim %u", name, blockDim);
  cost::begin_launch(name, blockDim);
  for (uint32_t b = 0; b < blockDim; ++b) {
    MixGroup group;
    mix_group() = &group;
    cost::begin_mix_block(1);  // the AIC and the AIV on timelines of their own (pypto_sim/cost.h)
    auto core = [&](int c) {
      mix_core() = c;
      cost::enter_core(c);
      g_coreType = c == 0 ? AscendC::AIC : AscendC::AIV;
      LaunchState& s = launch_state();
      s.kernel = name;
      s.block_idx = b;
      s.block_num = blockDim;
      {
        std::unique_lock<std::mutex> lock(group.m);
        group.cv.wait(lock, [&] { return group.turn == c; });
      }
      body();
      if (s.atomic_add != nullptr) fail("SetAtomicAdd without SetAtomicNone before the kernel returns");
      std::unique_lock<std::mutex> lock(group.m);
      group.done[c] = true;
      group.turn = 1 - c;
      group.cv.notify_all();
    };
    std::thread aic(core, 0), aiv(core, 1);
    aic.join();
    aiv.join();
    for (int c = 0; c < 2; ++c)
      for (int id = 0; id < 16; ++id)
        if (group.counter[c][id] != 0) {
          LaunchState& s = launch_state();
          s.kernel = name;
          s.block_idx = b;
          s.block_num = blockDim;
          fail("flag %d of the %s is set %d time(s) more than it waits for it when the kernel ends (a duplicated "
               "CrossCoreSetFlag, or a set and a wait on mismatched ids)", id, core_name(c), group.counter[c][id]);
        }
    mix_group() = nullptr;
    cost::end_block();
  }
  launch_state().kernel = nullptr;
  cost::end_launch();
  return 0;
}
// A kernel argument that should be device memory.
inline void* device_arg(const char* kernel, const char* param, void* p) {
  if (!device_range(p, 1)) fail("launch of kernel %s: argument '%s' (%p) is not device memory", kernel, param, p);
  return p;
}
}  // namespace pypto_sim
