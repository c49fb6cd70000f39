// Shared checks of the simulated advanced-API math functions (Sin, Cos): what the devkit's
// implementation requires of its operands on dav-c220.
#pragma once
#include <cmath>
#include "kernel_operator.h"

namespace AscendC {
namespace detail {
template <typename T, typename F>
void advanced_math(const char* what, const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& tmp,
                   uint32_t count, F f) {
  static_assert(half_or_float<T>(), "Sin/Cos exist for half and float only (dav-c220)");
  // The devkit splits the work into chunks of tmp / (4 floats per element for half, 3 for float)
  // rounded down to 32 elements; an empty chunk fails its CheckTmpBufferSize.
  const uint32_t per_element = sizeof(T) == 2 ? 4 : 3;
  if (tmp.GetSize() / sizeof(float) / per_element / 32 == 0)
    fail("%s: sharedTmpBuffer of %u bytes is smaller than one 32-element chunk (%u bytes)", what, tmp.GetSize(),
         per_element * 32 * (uint32_t)sizeof(float));
  if (count == 0) fail("%s with calCount 0", what);
  const uint8_t* s0 = reinterpret_cast<const uint8_t*>(src.sim_ptr());
  const uint8_t* d0 = reinterpret_cast<const uint8_t*>(dst.sim_ptr());
  const uint8_t* t0 = tmp.sim_ptr();
  auto overlap = [](const uint8_t* a, size_t na, const uint8_t* b, size_t nb) { return a < b + nb && b < a + na; };
  if (overlap(s0, count * sizeof(T), d0, count * sizeof(T)) || overlap(t0, tmp.GetSize(), s0, count * sizeof(T)) ||
      overlap(t0, tmp.GetSize(), d0, count * sizeof(T)))
    fail("%s: the source, destination and sharedTmpBuffer must not overlap", what);
  src.check_vec(what, count, true);
  tmp.check_vec(what, tmp.GetSize(), false);
  dst.check_vec(what, count, false);
  for (uint32_t i = 0; i < count; ++i) dst.sim_ptr()[i] = static_cast<T>(f(static_cast<float>(src.sim_ptr()[i])));
  dst.mark_v_write();
  tmp.mark_v_write();
  pypto_sim::cost::vector_count(what, sizeof(T), count * 16);  // ~16 instructions per element
}
}  // namespace detail
}  // namespace AscendC
