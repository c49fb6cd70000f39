// What the devkit headers expect from the CANN CPU-debug library (tikicpulib's stub_def.h, not
// public) when ASCENDC_CPU_DEBUG=1: the Ascend C keywords, the builtin scalar types, the core
// identity variables, the enums of the intrinsics (stub_fun.h). Written for scripts/check_devkit_headers.py;
// it makes the devkit's own headers parse with clang, it does not check the intrinsics.
#pragma once
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __fbuf__
#define __ssbuf__
#define __bt__
#define __host__
#define __host_aicore__
#define ASCENDC_HOST_AICORE
#define __simd_callee__
#define __simd_vf__
#define __inout_pipe__(...)
#define __in_pipe__(...)
#define __out_pipe__(...)
#define __sync_alias__
#define __check_sync_alias__
#define __BLOCK_LOCAL__
#define __WORKGROUP_LOCAL__
#define __disable_kernel_type_autoinfer__

#include "kernel_fp16.h"
#include "kernel_bf16.h"

struct fp4x2_e1m2_t { uint8_t bits; };
struct fp4x2_e2m1_t { uint8_t bits; };
struct fp8_e4m3fn_t { uint8_t bits; };
struct fp8_e5m2_t { uint8_t bits; };
struct fp8_e8m0_t { uint8_t bits; };

extern int64_t block_idx;
extern int64_t block_num;
extern int64_t sub_block_idx;
extern uint32_t g_taskRation;
extern uint64_t g_fixpipeNdNzParam;
namespace AscendC {
extern bool g_isVdeq;
}

// The register and vector types of the register-level (micro) API, which the dav-c220 build
// declares but does not use.
struct MaskReg {};
struct AddrReg {};
struct UnalignRegForLoad {};
struct UnalignRegForStore {};
struct vector_align {};
struct vector_bool {};
struct vector_address {};
namespace AscendC {
constexpr int32_t AIC_TYPE = 1;
constexpr int32_t AIV_TYPE = 2;
}

// The pipes, event ids and memory kinds of the intrinsics' operands.
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5,
              PIPE_V2, PIPE_FIX, PIPE_NUM };
enum event_t { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
enum mem_t { L1 = 0, L0A, L0B, L0C, UB, BT };
enum mem_dsb_t { DSB_ALL, DSB_DDR, DSB_UB, DSB_SEQ };
enum pad_t { PAD_NONE, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5 };
enum class QuantMode_t {
  NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8, REQ4, VREQ4,
  DEQS16, VDEQS16, QF162B8_PRE, VQF162B8_PRE, QF162S4_PRE, VQF162S4_PRE, QF162S16_PRE, VQF162S16_PRE,
  QF322F16_PRE, VQF322F16_PRE, QF322BF16_PRE, VQF322BF16_PRE, QS322BF16_PRE, VQS322BF16_PRE,
  QF322HIF8_PRE, VQF322HIF8_PRE, QF322HIF8_PRE_HYBRID, VQF322HIF8_PRE_HYBRID, QF322FP8_PRE,
  VQF322FP8_PRE, QF322F32_PRE, VQF322F32_PRE
};
enum class cache_line_t { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum class dcci_dst_t { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum class Order_t { VALUE_INDEX, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };
enum atomic_type_t { ATOMIC_NONE_TYPE, ATOMIC_F32, ATOMIC_F16, ATOMIC_S16, ATOMIC_S32, ATOMIC_S8, ATOMIC_BF16 };
enum atomic_op_t { ATOMIC_SUM, ATOMIC_MAX_OP, ATOMIC_MIN_OP };
enum addr_cal_mode_t { inc, dec };
// The VA registers of TransDataTo5HD's address lists and the halves of a 256-bit mask.
enum va_reg_t { VA0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 };
enum mask_half_t { L128, H128 };
