// The SIMT keywords of the CPU-debug library (tikicpulib's simt_stub.h, not public); the
// dav-c220 vector kernels we check use no SIMT code.
#pragma once
#include "stub_def.h"

#define __simt_callee__
#define __simt_vf__
