// pypto-xdsl CPU SIMULATION of the ACL runtime subset emitted by the pypto-xdsl host printer.
// Not CANN's "acl/acl.h": device memory is host memory, streams run kernels synchronously,
// blocks of a launch run one after another. Misuse (double free, unknown pointers, copies that
// overflow an allocation, calls before aclInit) fails loudly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>

#include "pypto_sim/core.h"
#include "pypto_sim/cost.h"

using aclError = int;
using aclFloat16 = uint16_t;
using aclrtStream = void*;
enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_MEM_MALLOC_HUGE_ONLY = 1, ACL_MEM_MALLOC_NORMAL_ONLY = 2 };
enum aclrtMemcpyKind { ACL_MEMCPY_HOST_TO_HOST = 0, ACL_MEMCPY_HOST_TO_DEVICE = 1, ACL_MEMCPY_DEVICE_TO_HOST = 2, ACL_MEMCPY_DEVICE_TO_DEVICE = 3 };
constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_INVALID_PARAM = 100000;
constexpr aclError ACL_ERROR_UNINITIALIZE = 100001;
constexpr aclError ACL_ERROR_BAD_ALLOC = 200000;
// acl_base.h: what aclGetDeviceCapability reports (the enumerator values are ACL's)
typedef enum {
  ACL_DEVICE_INFO_UNDEFINED = -1,
  ACL_DEVICE_INFO_AI_CORE_NUM = 0,
  ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
  ACL_DEVICE_INFO_L2_SIZE = 2
} aclDeviceInfo;

namespace pypto_sim {
struct AclState {
  bool initialised = false;
  int device = -1;
  int streams = 0;
  std::map<const uint8_t*, size_t>& device_allocs = pypto_sim::device_allocs();  // base -> bytes (core.h)
};
inline AclState& acl() {
  static AclState s;
  return s;
}
inline bool acl_ready(const char* what) {
  if (!acl().initialised) { std::fprintf(stderr, "pypto-sim ACL: %s before aclInit\n", what); return false; }
  return true;
}
}  // namespace pypto_sim

inline aclError aclInit(const char* /*configPath*/) {
  pypto_sim::acl().initialised = true;
  return ACL_SUCCESS;
}
inline aclError aclFinalize() {
  if (!pypto_sim::acl_ready("aclFinalize")) return ACL_ERROR_UNINITIALIZE;
  if (!pypto_sim::acl().device_allocs.empty())
    pypto_sim::fail("aclFinalize with %zu device allocations not freed", pypto_sim::acl().device_allocs.size());
  pypto_sim::acl().initialised = false;
  return ACL_SUCCESS;
}
inline aclError aclrtSetDevice(int32_t deviceId) {
  if (!pypto_sim::acl_ready("aclrtSetDevice")) return ACL_ERROR_UNINITIALIZE;
  if (deviceId != 0) return ACL_ERROR_INVALID_PARAM;
  pypto_sim::acl().device = deviceId;
  return ACL_SUCCESS;
}
inline aclError aclrtGetDevice(int32_t* deviceId) {
  if (!pypto_sim::acl_ready("aclrtGetDevice")) return ACL_ERROR_UNINITIALIZE;
  if (deviceId == nullptr || pypto_sim::acl().device < 0) return ACL_ERROR_INVALID_PARAM;
  *deviceId = pypto_sim::acl().device;
  return ACL_SUCCESS;
}
// The simulated device has the cost model's cores (pypto_sim/cost.h: an Ascend910B1 unless
// overridden): AI cores are the cube cores (one per core group), vector cores the AIVs.
inline aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  if (!pypto_sim::acl_ready("aclGetDeviceCapability")) return ACL_ERROR_UNINITIALIZE;
  if (value == nullptr || deviceId != 0) return ACL_ERROR_INVALID_PARAM;
  const auto& P = pypto_sim::cost::params();
  switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM: *value = static_cast<int64_t>(P.aic_cores); return ACL_SUCCESS;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = static_cast<int64_t>(P.aiv_cores); return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE: *value = static_cast<int64_t>(P.l2_mib * 1024 * 1024); return ACL_SUCCESS;
    default: return ACL_ERROR_INVALID_PARAM;
  }
}
inline aclError aclrtResetDevice(int32_t deviceId) {
  if (deviceId != pypto_sim::acl().device) return ACL_ERROR_INVALID_PARAM;
  pypto_sim::acl().device = -1;
  return ACL_SUCCESS;
}
inline aclError aclrtCreateStream(aclrtStream* stream) {
  if (!pypto_sim::acl_ready("aclrtCreateStream")) return ACL_ERROR_UNINITIALIZE;
  if (pypto_sim::acl().device < 0) return ACL_ERROR_INVALID_PARAM;
  *stream = reinterpret_cast<aclrtStream>(static_cast<uintptr_t>(++pypto_sim::acl().streams));
  return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream stream) { return stream == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS; }
inline aclError aclrtSynchronizeStream(aclrtStream stream) { return stream == nullptr ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS; }

inline aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy /*policy*/) {
  if (!pypto_sim::acl_ready("aclrtMalloc")) return ACL_ERROR_UNINITIALIZE;
  if (devPtr == nullptr || size == 0) return ACL_ERROR_INVALID_PARAM;
  // Device memory is 32-byte aligned (the simulation uses 512 like the real allocator).
  size_t rounded = (size + 511) / 512 * 512;
  void* p = std::aligned_alloc(512, rounded);
  if (p == nullptr) return ACL_ERROR_BAD_ALLOC;
  std::memset(p, 0xFF, rounded);  // NaN pattern: reading unwritten device memory shows up
  pypto_sim::acl().device_allocs[static_cast<uint8_t*>(p)] = size;
  *devPtr = p;
  return ACL_SUCCESS;
}
inline aclError aclrtFree(void* devPtr) {
  auto& m = pypto_sim::acl().device_allocs;
  auto it = m.find(static_cast<uint8_t*>(devPtr));
  if (it == m.end()) pypto_sim::fail("aclrtFree of %p, which is not a live device allocation", devPtr);
  m.erase(it);
  std::free(devPtr);
  return ACL_SUCCESS;
}
inline aclError aclrtMallocHost(void** hostPtr, size_t size) {
  if (hostPtr == nullptr || size == 0) return ACL_ERROR_INVALID_PARAM;
  *hostPtr = std::malloc(size);
  return *hostPtr == nullptr ? ACL_ERROR_BAD_ALLOC : ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void* hostPtr) {
  std::free(hostPtr);
  return ACL_SUCCESS;
}
inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  if (!pypto_sim::acl_ready("aclrtMemcpy")) return ACL_ERROR_UNINITIALIZE;
  if (dst == nullptr || src == nullptr || count > destMax) return ACL_ERROR_INVALID_PARAM;
  bool dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  bool src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  if (dst_dev && !pypto_sim::device_range(dst, count)) pypto_sim::fail("aclrtMemcpy writes %zu bytes at %p outside any device allocation", count, dst);
  if (src_dev && !pypto_sim::device_range(src, count)) pypto_sim::fail("aclrtMemcpy reads %zu bytes at %p outside any device allocation", count, src);
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}
// Streams are synchronous in the simulation: async copies complete before they return.
inline aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                                 aclrtStream stream) {
  if (stream == nullptr) return ACL_ERROR_INVALID_PARAM;
  return aclrtMemcpy(dst, destMax, src, count, kind);
}
inline aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, aclrtMemcpyKind kind, aclrtStream stream) {
  if (!pypto_sim::acl_ready("aclrtMemcpy2dAsync")) return ACL_ERROR_UNINITIALIZE;
  if (stream == nullptr || dst == nullptr || src == nullptr || width == 0 || height == 0) return ACL_ERROR_INVALID_PARAM;
  if (width > dpitch || width > spitch) return ACL_ERROR_INVALID_PARAM;
  for (size_t r = 0; r < height; ++r) {
    aclError e = aclrtMemcpy(static_cast<uint8_t*>(dst) + r * dpitch, width, static_cast<const uint8_t*>(src) + r * spitch,
                             width, kind);
    if (e != ACL_SUCCESS) return e;
  }
  return ACL_SUCCESS;
}
inline const char* aclGetRecentErrMsg() { return "pypto-sim: see the error code"; }
