// tikicpulib's kernel_bf16.h (not public): see stub_float16.h.
#pragma once
#include "stub_float16.h"
