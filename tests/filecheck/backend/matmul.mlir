// RUN: pypto-opt %s -t ascendc | filecheck %s
// Cube path: C[64, 64] = A[64, 128] @ B[128, 64] in f16 with an f32 accumulator, K split in two
// 64-wide steps: Nd2Nz DataCopy GM -> L1 (A1/B1), one LoadData (LoadData3DParamsV2) per operand L1 -> L0A/L0B, Mmad into L0C (the
// second step accumulates in place through the scf.for-carried accumulator), Fixpipe L0C -> GM.
// The first step's tiles and the loop's are used in turn: they share their queues (ascendc-plan-buffers).

pypto.func aic @matmul_kernel(%a: !pypto.tensor<[64, 128], f16>, %b: !pypto.tensor<[128, 64], f16>, out %c: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %a0m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
  %b0m = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[128, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
  %a0 = pypto.tile.move %a0m : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
  %b0 = pypto.tile.move %b0m : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
  %acc0 = pypto.tile.matmul %a0, %b0 : !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right> -> !pypto.tile<[64, 64], f32, acc>
  %acc = scf.for %k = %c64 to %c128 step %c64 iter_args(%part = %acc0) -> (!pypto.tile<[64, 64], f32, acc>) {
    %am = pypto.tile.load %a[%c0, %k] : !pypto.tensor<[64, 128], f16> -> !pypto.tile<[64, 64], f16, mat>
    %bm = pypto.tile.load %b[%k, %c0] : !pypto.tensor<[128, 64], f16> -> !pypto.tile<[64, 64], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, left>
    %br = pypto.tile.move %bm : !pypto.tile<[64, 64], f16, mat> -> !pypto.tile<[64, 64], f16, right>
    %next = pypto.tile.matmul_acc %part, %al, %br : !pypto.tile<[64, 64], f32, acc>, !pypto.tile<[64, 64], f16, left>, !pypto.tile<[64, 64], f16, right>
    scf.yield %next : !pypto.tile<[64, 64], f32, acc>
  }
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[64, 64], f32, acc>, !pypto.tensor<[64, 64], f32>
  pypto.return %w : !pypto.tensor<[64, 64], f32>
}

pypto.func orchestration @main(%a: !pypto.tensor<[64, 128], f16>, %b: !pypto.tensor<[128, 64], f16>, out %c: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
  %r = pypto.call @matmul_kernel(%a, %b, %c) : (!pypto.tensor<[64, 128], f16>, !pypto.tensor<[128, 64], f16>, !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32>
  pypto.return %r : !pypto.tensor<[64, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/matmul_kernel.cpp =====
// CHECK: // Cube (AIC) kernel. Buffer plan (bytes): L1 65536 of 524288, L0A 16384 of 65536, L0B 16384 of 65536, L0C 16384 of 131072.
// CHECK: extern "C" __global__ __aicore__ void matmul_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
// CHECK-NEXT: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
// CHECK-NEXT: GlobalTensor<half> a_gm;
// CHECK-NEXT: a_gm.SetGlobalBuffer((__gm__ half*)a, 8192);
// CHECK-NEXT: GlobalTensor<half> b_gm;
// CHECK-NEXT: b_gm.SetGlobalBuffer((__gm__ half*)b, 8192);
// CHECK-NEXT: GlobalTensor<float> c_gm;
// CHECK-NEXT: c_gm.SetGlobalBuffer((__gm__ float*)c, 4096);
// CHECK-NEXT: TPipe pipe;
// CHECK-NEXT: TQue<TPosition::A1, 4> qA1_a0m;  // %a0m, %am (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::B1, 4> qB1_b0m;  // %b0m, %bm (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::A2, 2> qA2_a0;  // %a0, %al (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::B2, 2> qB2_b0;  // %b0, %br (disjoint live ranges)
// CHECK-NEXT: TQue<TPosition::CO1, 1> qCO1_acc0;  // %acc0 !pypto.tile<[64, 64], f32, acc>
// CHECK-NEXT: pipe.InitBuffer(qA1_a0m, 4, 8192);
// CHECK-NEXT: pipe.InitBuffer(qB1_b0m, 4, 8192);
// CHECK-NEXT: pipe.InitBuffer(qA2_a0, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(qB2_b0, 2, 8192);
// CHECK-NEXT: pipe.InitBuffer(qCO1_acc0, 1, 16384);
// CHECK-EMPTY:
// CHECK-NEXT: LocalTensor<half> a0m = qA1_a0m.AllocTensor<half>();
// CHECK-NEXT: Nd2NzParams a0m_nd2nz;
// CHECK-NEXT: a0m_nd2nz.ndNum = 1;
// CHECK-NEXT: a0m_nd2nz.nValue = 64;
// CHECK-NEXT: a0m_nd2nz.dValue = 64;
// CHECK-NEXT: a0m_nd2nz.srcNdMatrixStride = 0;
// CHECK-NEXT: a0m_nd2nz.srcDValue = 128;
// CHECK-NEXT: a0m_nd2nz.dstNzC0Stride = 64;
// CHECK-NEXT: a0m_nd2nz.dstNzNStride = 1;
// CHECK-NEXT: a0m_nd2nz.dstNzMatrixStride = 0;
// CHECK-NEXT: DataCopy(a0m, a_gm, a0m_nd2nz);
// CHECK-NEXT: qA1_a0m.EnQue(a0m);
// CHECK-NEXT: LocalTensor<half> b0m = qB1_b0m.AllocTensor<half>();
// CHECK-NEXT: Nd2NzParams b0m_nd2nz;
// CHECK-NEXT: b0m_nd2nz.ndNum = 1;
// CHECK-NEXT: b0m_nd2nz.nValue = 64;
// CHECK-NEXT: b0m_nd2nz.dValue = 64;
// CHECK-NEXT: b0m_nd2nz.srcNdMatrixStride = 0;
// CHECK-NEXT: b0m_nd2nz.srcDValue = 64;
// CHECK-NEXT: b0m_nd2nz.dstNzC0Stride = 64;
// CHECK-NEXT: b0m_nd2nz.dstNzNStride = 1;
// CHECK-NEXT: b0m_nd2nz.dstNzMatrixStride = 0;
// CHECK-NEXT: DataCopy(b0m, b_gm, b0m_nd2nz);
// CHECK-NEXT: qB1_b0m.EnQue(b0m);
// CHECK-NEXT: LocalTensor<half> a0 = qA2_a0.AllocTensor<half>();
// CHECK-NEXT: a0m = qA1_a0m.DeQue<half>();
// CHECK-NEXT: LoadData3DParamsV2<half> a0_load;
// CHECK-NEXT: a0_load.l1H = 1;
// CHECK-NEXT: a0_load.l1W = 64;
// CHECK-NEXT: a0_load.channelSize = 64;
// CHECK-NEXT: a0_load.kExtension = 64;
// CHECK-NEXT: a0_load.mExtension = 64;
// CHECK-NEXT: LoadData(a0, a0m, a0_load);
// CHECK-NEXT: qA2_a0.EnQue(a0);
// CHECK-NEXT: qA1_a0m.FreeTensor(a0m);
// CHECK-NEXT: LocalTensor<half> b0 = qB2_b0.AllocTensor<half>();
// CHECK-NEXT: b0m = qB1_b0m.DeQue<half>();
// CHECK-NEXT: LoadData3DParamsV2<half> b0_load;
// CHECK-NEXT: b0_load.l1H = 1;
// CHECK-NEXT: b0_load.l1W = 64;
// CHECK-NEXT: b0_load.channelSize = 64;
// CHECK-NEXT: b0_load.kExtension = 64;
// CHECK-NEXT: b0_load.mExtension = 64;
// CHECK-NEXT: b0_load.enTranspose = true;
// CHECK-NEXT: LoadData(b0, b0m, b0_load);
// CHECK-NEXT: qB2_b0.EnQue(b0);
// CHECK-NEXT: qB1_b0m.FreeTensor(b0m);
// CHECK-NEXT: LocalTensor<float> acc0 = qCO1_acc0.AllocTensor<float>();
// CHECK-NEXT: a0 = qA2_a0.DeQue<half>();
// CHECK-NEXT: b0 = qB2_b0.DeQue<half>();
// CHECK-NEXT: MmadParams acc0_mmad;
// CHECK-NEXT: acc0_mmad.m = 64;
// CHECK-NEXT: acc0_mmad.n = 64;
// CHECK-NEXT: acc0_mmad.k = 64;
// CHECK-NEXT: acc0_mmad.cmatrixInitVal = true;
// CHECK-NEXT: Mmad(acc0, a0, b0, acc0_mmad);
// CHECK-NEXT: qA2_a0.FreeTensor(a0);
// CHECK-NEXT: qB2_b0.FreeTensor(b0);
// CHECK-NEXT: for (int64_t k = 64; k < 128; k += 64) {
// CHECK-NEXT: LocalTensor<half> am = qA1_a0m.AllocTensor<half>();
// CHECK-NEXT: Nd2NzParams am_nd2nz;
// CHECK-NEXT: am_nd2nz.ndNum = 1;
// CHECK-NEXT: am_nd2nz.nValue = 64;
// CHECK-NEXT: am_nd2nz.dValue = 64;
// CHECK-NEXT: am_nd2nz.srcNdMatrixStride = 0;
// CHECK-NEXT: am_nd2nz.srcDValue = 128;
// CHECK-NEXT: am_nd2nz.dstNzC0Stride = 64;
// CHECK-NEXT: am_nd2nz.dstNzNStride = 1;
// CHECK-NEXT: am_nd2nz.dstNzMatrixStride = 0;
// CHECK-NEXT: DataCopy(am, a_gm[k], am_nd2nz);
// CHECK-NEXT: qA1_a0m.EnQue(am);
// CHECK-NEXT: LocalTensor<half> bm = qB1_b0m.AllocTensor<half>();
// CHECK-NEXT: Nd2NzParams bm_nd2nz;
// CHECK-NEXT: bm_nd2nz.ndNum = 1;
// CHECK-NEXT: bm_nd2nz.nValue = 64;
// CHECK-NEXT: bm_nd2nz.dValue = 64;
// CHECK-NEXT: bm_nd2nz.srcNdMatrixStride = 0;
// CHECK-NEXT: bm_nd2nz.srcDValue = 64;
// CHECK-NEXT: bm_nd2nz.dstNzC0Stride = 64;
// CHECK-NEXT: bm_nd2nz.dstNzNStride = 1;
// CHECK-NEXT: bm_nd2nz.dstNzMatrixStride = 0;
// CHECK-NEXT: DataCopy(bm, b_gm[k * 64], bm_nd2nz);
// CHECK-NEXT: qB1_b0m.EnQue(bm);
// CHECK-NEXT: LocalTensor<half> al = qA2_a0.AllocTensor<half>();
// CHECK-NEXT: am = qA1_a0m.DeQue<half>();
// CHECK-NEXT: LoadData3DParamsV2<half> al_load;
// CHECK-NEXT: al_load.l1H = 1;
// CHECK-NEXT: al_load.l1W = 64;
// CHECK-NEXT: al_load.channelSize = 64;
// CHECK-NEXT: al_load.kExtension = 64;
// CHECK-NEXT: al_load.mExtension = 64;
// CHECK-NEXT: LoadData(al, am, al_load);
// CHECK-NEXT: qA2_a0.EnQue(al);
// CHECK-NEXT: qA1_a0m.FreeTensor(am);
// CHECK-NEXT: LocalTensor<half> br = qB2_b0.AllocTensor<half>();
// CHECK-NEXT: bm = qB1_b0m.DeQue<half>();
// CHECK-NEXT: LoadData3DParamsV2<half> br_load;
// CHECK-NEXT: br_load.l1H = 1;
// CHECK-NEXT: br_load.l1W = 64;
// CHECK-NEXT: br_load.channelSize = 64;
// CHECK-NEXT: br_load.kExtension = 64;
// CHECK-NEXT: br_load.mExtension = 64;
// CHECK-NEXT: br_load.enTranspose = true;
// CHECK-NEXT: LoadData(br, bm, br_load);
// CHECK-NEXT: qB2_b0.EnQue(br);
// CHECK-NEXT: qB1_b0m.FreeTensor(bm);
// CHECK-NEXT: al = qA2_a0.DeQue<half>();
// CHECK-NEXT: br = qB2_b0.DeQue<half>();
// CHECK-NEXT: MmadParams acc0_mmad_1;
// CHECK-NEXT: acc0_mmad_1.m = 64;
// CHECK-NEXT: acc0_mmad_1.n = 64;
// CHECK-NEXT: acc0_mmad_1.k = 64;
// CHECK-NEXT: acc0_mmad_1.cmatrixInitVal = false;
// CHECK-NEXT: Mmad(acc0, al, br, acc0_mmad_1);
// CHECK-NEXT: qA2_a0.FreeTensor(al);
// CHECK-NEXT: qB2_b0.FreeTensor(br);
// CHECK-NEXT: }
// CHECK-NEXT: qCO1_acc0.EnQue(acc0);
// CHECK-NEXT: acc0 = qCO1_acc0.DeQue<float>();
// CHECK-NEXT: FixpipeParamsV220 acc0_fixpipe;
// CHECK-NEXT: acc0_fixpipe.nSize = 64;
// CHECK-NEXT: acc0_fixpipe.mSize = 64;
// CHECK-NEXT: acc0_fixpipe.srcStride = 64;
// CHECK-NEXT: acc0_fixpipe.dstStride = 64;
// CHECK-NEXT: acc0_fixpipe.ndNum = 1;
// CHECK-NEXT: Fixpipe(c_gm, acc0, acc0_fixpipe);
// CHECK-NEXT: qCO1_acc0.FreeTensor(acc0);
// CHECK-NEXT: }
// CHECK-LABEL: // ===== file: sim/aclrtlaunch_matmul_kernel.h =====
// CHECK-LABEL: // ===== file: host/main_orch.h =====
// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK: int run_main(aclrtStream stream, const aclFloat16* a_host, const aclFloat16* b_host, float* c_host) {
// CHECK: CHECK_ACL(aclrtMalloc(&a_dev, 16384, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(a_dev, 16384, a_host, 16384, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&b_dev, 16384, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(b_dev, 16384, b_host, 16384, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(aclrtMalloc(&c_dev, 16384, ACL_MEM_MALLOC_HUGE_FIRST));
// CHECK: CHECK_ACL(aclrtMemcpy(c_dev, 16384, c_host, 16384, ACL_MEMCPY_HOST_TO_DEVICE));
// CHECK: CHECK_ACL(ACLRT_LAUNCH_KERNEL(matmul_kernel)(1, stream, a_dev, b_dev, c_dev));
// CHECK: CHECK_ACL(aclrtSynchronizeStream(stream));
// CHECK: CHECK_ACL(aclrtMemcpy(c_host, 16384, c_dev, 16384, ACL_MEMCPY_DEVICE_TO_HOST));
// CHECK: CHECK_ACL(buffers.free_all());
// CHECK-LABEL: // ===== file: host/main.cpp =====
// CHECK-LABEL: // ===== file: CMakeLists.txt =====
// CHECK-LABEL: // ===== file: README.md =====
