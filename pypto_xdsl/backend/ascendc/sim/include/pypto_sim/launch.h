// pypto-xdsl CPU SIMULATION of a kernel launch: the per-kernel "aclrtlaunch_<name>.h" headers
// that `pypto-compile --sim` writes include this. Blocks run one after another on the CPU.
#pragma once

#include <cstdint>

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
// A kernel argument that should be device memory.
inline void* device_arg(const char* kernel, const char* param, void* p) {
  if (!device_range(p, 1)) fail("launch of kernel %s: argument '%s' (%p) is not device memory", kernel, param, p);
  return p;
}
}  // namespace pypto_sim
