// RUN: pypto-opt %s -p localize-windows -t ascendc | filecheck %s
// A rank's kernel reaching its group's windows (localize-windows, then the Ascend C backend):
// the windows are byte offsets of the rank's windows-in region; the kernel's HCCL client
// (AscendC::Hccl, hccl/hccl.h) gives the rank, the group's size and any rank's region;
// a remote store is a DataCopy into the peer's window, an atomic notify a 4-byte DataCopyPad
// under SetAtomicAdd, a wait a loop re-reading the local signal element (its cache line
// invalidated first: other ranks write it).

pypto.func incore @ring(%x: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[1, 64], f32>, %dst: !pypto.dist_tensor<[1, 64], f32>, %sig: !pypto.dist_tensor<[1, 1], i32>) -> !pypto.tensor<[1, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %r = pypto.dist.rank %dst : !pypto.dist_tensor<[1, 64], f32> -> index
  %n = pypto.dist.nranks %dst : !pypto.dist_tensor<[1, 64], f32> -> index
  %a = arith.addi %r, %c1 : index
  %p = arith.remsi %a, %n : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
  pypto.dist.remote_store %t, %dst[%c0, %c0], %p : !pypto.tile<[1, 64], f32, vec>, !pypto.dist_tensor<[1, 64], f32>, index
  pypto.system.notify atomic_add %sig[%c0, %c0], %p, %one : !pypto.dist_tensor<[1, 1], i32>, index, i32
  pypto.system.wait ge %sig[%c0, %c0], %one : !pypto.dist_tensor<[1, 1], i32>, i32
  %l = pypto.dist.local %dst : !pypto.dist_tensor<[1, 64], f32> -> !pypto.tensor<[1, 64], f32>
  %b = pypto.tile.load %l[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
  %y2 = pypto.tile.store %b, %y[%c0, %c0] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 64], f32>
  pypto.return %y2 : !pypto.tensor<[1, 64], f32>
}
pypto.func orchestration @ring_rank(%x: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[1, 64], f32>, %dst: !pypto.dist_tensor<[1, 64], f32>, %sig: !pypto.dist_tensor<[1, 1], i32>) -> !pypto.tensor<[1, 64], f32> {
  %r = pypto.call @ring(%x, %y, %dst, %sig) : (!pypto.tensor<[1, 64], f32>, !pypto.tensor<[1, 64], f32>, !pypto.dist_tensor<[1, 64], f32>, !pypto.dist_tensor<[1, 1], i32>) -> !pypto.tensor<[1, 64], f32>
  pypto.return %r : !pypto.tensor<[1, 64], f32>
}

// CHECK:      #include "kernel_operator.h"
// CHECK-NEXT: #include "hccl/hccl.h"
// CHECK:      void ring(GM_ADDR x, GM_ADDR y, int64_t dst, int64_t sig) {
// CHECK:        AscendC::Hccl<AscendC::HcclServerType::HCCL_SERVER_TYPE_AICPU> hccl;
// CHECK-NEXT:   hccl.Init(AscendC::GetHcclContext<0>());
// CHECK:        static_cast<int64_t>(hccl.GetRankDim())
// CHECK:        dst_peer_gm.SetGlobalBuffer((__gm__ float*)(hccl.GetWindowsInAddr(static_cast<uint32_t>(p)) + dst), 64);
// CHECK:        DataCopy(dst_peer_gm, {{.*}}, 64);
// CHECK:        sig_peer_gm.SetGlobalBuffer((__gm__ int32_t*)(hccl.GetWindowsInAddr(static_cast<uint32_t>(p)) + sig), 1);
// CHECK:        SetAtomicAdd<int32_t>();
// CHECK:        DataCopyPad(sig_peer_gm, {{.*}}, DataCopyExtParams(1, 4, 0, 0, 0));
// CHECK:        SetAtomicNone();
// CHECK:        sig_gm.SetGlobalBuffer((__gm__ int32_t*)(hccl.GetWindowsInAddr(static_cast<uint32_t>(static_cast<int64_t>(hccl.GetRankId()))) + sig), 1);
// CHECK-NEXT:   while (true) {
// CHECK:          DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(sig_gm[0]);
// CHECK-NEXT:     int32_t signal_value = sig_gm.GetValue(0);
// CHECK:        dst_gm.SetGlobalBuffer((__gm__ float*)(hccl.GetWindowsInAddr(static_cast<uint32_t>(static_cast<int64_t>(hccl.GetRankId()))) + dst), 64);
// CHECK:      int run_ring_rank(aclrtStream stream, const float* x_host, float* y_host, int64_t dst, int64_t sig);
