// The CPU-debug library's 16-bit float types (tikicpulib's kernel_fp16.h and kernel_bf16.h, not
// public): storage types that convert to and from float, so the devkit's headers can compute
// with them.
#pragma once
#include <cstdint>
#include <type_traits>

#define PYPTO_STUB_FLOAT16(name)                                                   \
  struct name {                                                                    \
    uint16_t bits;                                                                 \
    name() = default;                                                              \
    name(float value);                                                             \
    template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type> \
    name(T value) : name(static_cast<float>(value)) {}                             \
    operator float() const;                                                        \
    float ToFloat() const;                                                         \
    name& operator+=(name other);                                                  \
    name& operator-=(name other);                                                  \
    name& operator*=(name other);                                                  \
    name& operator/=(name other);                                                  \
  };

PYPTO_STUB_FLOAT16(half)
PYPTO_STUB_FLOAT16(bfloat16_t)
