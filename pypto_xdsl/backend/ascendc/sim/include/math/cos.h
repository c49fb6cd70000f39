// CPU simulation of the advanced-API Cos (asc-devkit include/adv_api/math/cos.h): the same
// signature; values from std::cos in float.
#pragma once
#include "math/sim_math_common.h"

namespace AscendC {
template <typename T, bool isReuseSource = false>
void Cos(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
         const uint32_t calCount) {
  detail::advanced_math("Cos", dstTensor, srcTensor, sharedTmpBuffer, calCount, [](float x) { return std::cos(x); });
}
}  // namespace AscendC
