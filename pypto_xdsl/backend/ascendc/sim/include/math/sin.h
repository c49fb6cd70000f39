// CPU simulation of the advanced-API Sin (asc-devkit include/adv_api/math/sin.h): the same
// signature; values from std::sin in float (the devkit evaluates a polynomial after a
// round-to-period reduction, for inputs in [-65504, 65504]).
#pragma once
#include "math/sim_math_common.h"

namespace AscendC {
template <typename T, bool isReuseSource = false>
void Sin(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
         const uint32_t calCount) {
  detail::advanced_math("Sin", dstTensor, srcTensor, sharedTmpBuffer, calCount, [](float x) { return std::sin(x); });
}
}  // namespace AscendC
