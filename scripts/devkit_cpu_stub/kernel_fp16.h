// tikicpulib's kernel_fp16.h (not public): see stub_float16.h.
#pragma once
#include "stub_float16.h"
