// pypto-xdsl CPU SIMULATION of the HCCL kernel-side client (the devkit's
// include/adv_api/hccl/hccl.h): the subset a rank's kernel uses to reach its group's windows.
// The context is the communication domain of pypto_sim/comm.h (the rank's process maps it).
#pragma once

#include "kernel_operator.h"
#include "pypto_sim/comm.h"

namespace AscendC {
enum class HcclServerType : uint32_t { HCCL_SERVER_TYPE_AICPU = 0, HCCL_SERVER_TYPE_CCU, HCCL_SERVER_TYPE_END };

// The domain's context (real HCCL: the message area the framework sets for the launch).
template <uint32_t index>
inline __gm__ uint8_t* GetHcclContext() {
  static_assert(index <= 1, "GetHcclContext<index>: two communication domains at most (0 or 1)");
  if (index != 0) return nullptr;
  pypto_sim::comm::Domain* d = pypto_sim::comm::domain();
  return d == nullptr ? nullptr : reinterpret_cast<uint8_t*>(d->header);
}

template <HcclServerType serverType = HcclServerType::HCCL_SERVER_TYPE_AICPU>
class Hccl {
 public:
  __aicore__ inline void Init(GM_ADDR context, __gm__ void* /*initTiling*/ = nullptr) {
    if (context == nullptr)
      pypto_sim::fail("Hccl::Init without a communication domain: the kernel reaches other ranks' windows, run it "
                      "in a group of ranks (a @pl.jit.host program)");
    if (context != GetHcclContext<0>()) pypto_sim::fail("Hccl::Init with a context that is not the launch's");
    domain_ = pypto_sim::comm::domain();
  }
  __aicore__ inline uint32_t GetRankId() { return live("GetRankId")->rank; }
  __aicore__ inline uint32_t GetRankDim() { return live("GetRankDim")->header->nranks; }
  __aicore__ inline GM_ADDR GetWindowsInAddr(uint32_t rankId) {
    pypto_sim::comm::Domain* d = live("GetWindowsInAddr");
    if (rankId >= d->header->nranks)
      pypto_sim::fail("GetWindowsInAddr(%u): rank %u is not a rank of the domain of %u", rankId, rankId, d->header->nranks);
    return pypto_sim::comm::region(rankId);
  }

 private:
  pypto_sim::comm::Domain* live(const char* what) {
    if (domain_ == nullptr) pypto_sim::fail("Hccl::%s before Hccl::Init", what);
    return domain_;
  }
  pypto_sim::comm::Domain* domain_ = nullptr;
};
}  // namespace AscendC
