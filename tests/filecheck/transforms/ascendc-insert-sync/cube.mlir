// RUN: pypto-opt %s -p pypto-ascendc | filecheck %s
// RUN: pypto-opt %s -p pypto-ascendc -t ascendc | filecheck %s --check-prefix=CXX
// A cube kernel, as IR: the cube pipes MTE2 (GM -> L1, Nd2Nz copies), MTE1 (L1 -> L0A/L0B,
// one LoadData 3D v2 per operand, or a LoadData 2D loop for a transposed right operand, @qk),
// M (Mmad) and FIX (Fixpipe to GM) hand their tensors over through their queues: enque after
// the copy-in of each A1/B1 tensor and after the LoadData (loop) of each A2/B2 tensor, its
// deque only before the tensor's first use (before that use's declarations), so both copies
// are issued before the scalar unit waits on the first, and both loads before the Mmad waits; enque/deque before the Fixpipe of the CO1 result (and before its
// parameter struct). A1/B1 tensors are freed once moved, A2/B2 once multiplied, CO1 once
// stored. No PIPE_V barrier: nothing runs on the vector pipe.

pypto.func aic @mm(%a: !pypto.tensor<[32, 64], f16>, %b: !pypto.tensor<[64, 32], f16>, out %c: !pypto.tensor<[32, 32], f32>) -> !pypto.tensor<[32, 32], f32> {
  %c0 = arith.constant 0 : index
  %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[64, 32], f16> -> !pypto.tile<[64, 32], f16, mat>
  %al = pypto.tile.move %am : !pypto.tile<[32, 64], f16, mat> -> !pypto.tile<[32, 64], f16, left>
  %br = pypto.tile.move %bm : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, right>
  %acc = pypto.tile.matmul %al, %br : !pypto.tile<[32, 64], f16, left>, !pypto.tile<[64, 32], f16, right> -> !pypto.tile<[32, 32], f32, acc>
  %w = pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<[32, 32], f32, acc>, !pypto.tensor<[32, 32], f32>
  pypto.return %w : !pypto.tensor<[32, 32], f32>
}

// CHECK-LABEL: ascendc.kernel cube @mm
// CHECK-SAME: memory_plan = {L0A = {capacity = 65536 : i64, used = 4096 : i64}, L0B = {capacity = 65536 : i64, used = 4096 : i64}, L0C = {capacity = 131072 : i64, used = 4096 : i64}, L1 = {capacity = 524288 : i64, used = 8192 : i64}}
// CHECK: %am = ascendc.alloc_tensor "am" %qA1_am : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
// CHECK-NEXT: %am_nd2nz = ascendc.params "am_nd2nz" Nd2NzParams(ndNum = 1, nValue = 32, dValue = 64, srcNdMatrixStride = 0, srcDValue = 64, dstNzC0Stride = 32, dstNzNStride = 1, dstNzMatrixStride = 0)
// CHECK-NEXT: ascendc.data_copy %am, %a_gm, %am_nd2nz
// CHECK-NEXT: ascendc.enque %qA1_am, %am
// CHECK-NEXT: %bm = ascendc.alloc_tensor "bm" %qB1_bm
// CHECK-NEXT: %bm_nd2nz = ascendc.params
// CHECK-NEXT: ascendc.data_copy %bm, %b_gm, %bm_nd2nz
// CHECK-NEXT: ascendc.enque %qB1_bm, %bm
// CHECK-NEXT: %al = ascendc.alloc_tensor "al" %qA2_al
// CHECK-NEXT: %am_1 = ascendc.deque %qA1_am, %am
// CHECK-NEXT: %al_load = ascendc.params "al_load" LoadData3DParamsV2<f16>(l1H = 1, l1W = 32, channelSize = 64, kExtension = 64, mExtension = 32)
// CHECK-NEXT: ascendc.load_data_3d_v2 %al, %am_1, %al_load
// CHECK-NEXT: ascendc.enque %qA2_al, %al
// CHECK-NEXT: ascendc.free_tensor %qA1_am, %am_1
// CHECK-NEXT: %br = ascendc.alloc_tensor "br" %qB2_br
// CHECK-NEXT: %bm_1 = ascendc.deque %qB1_bm, %bm
// CHECK-NEXT: %br_load = ascendc.params "br_load" LoadData3DParamsV2<f16>(l1H = 1, l1W = 64, channelSize = 32, kExtension = 32, mExtension = 64, enTranspose = true)
// CHECK-NEXT: ascendc.load_data_3d_v2 %br, %bm_1, %br_load
// CHECK-NEXT: ascendc.enque %qB2_br, %br
// CHECK-NEXT: ascendc.free_tensor %qB1_bm, %bm_1
// CHECK-NEXT: %acc = ascendc.alloc_tensor "acc" %qCO1_acc
// CHECK-NEXT: %al_1 = ascendc.deque %qA2_al, %al
// CHECK-NEXT: %br_1 = ascendc.deque %qB2_br, %br
// CHECK-NEXT: %acc_mmad = ascendc.params "acc_mmad" MmadParams(m = 32, n = 32, k = 64, cmatrixInitVal = true)
// CHECK-NEXT: ascendc.mmad %acc, %al_1, %br_1, %acc_mmad
// CHECK-NEXT: ascendc.free_tensor %qA2_al, %al_1
// CHECK-NEXT: ascendc.free_tensor %qB2_br, %br_1
// CHECK-NEXT: ascendc.enque %qCO1_acc, %acc
// CHECK-NEXT: %acc_1 = ascendc.deque %qCO1_acc, %acc
// CHECK-NEXT: %acc_fixpipe = ascendc.params "acc_fixpipe" FixpipeParamsV220(nSize = 32, mSize = 32, srcStride = 32, dstStride = 32, ndNum = 1)
// CHECK-NEXT: ascendc.fixpipe %c_gm, %acc_1, %acc_fixpipe
// CHECK-NEXT: ascendc.free_tensor %qCO1_acc, %acc_1
// CHECK-NEXT: ascendc.return
// CHECK-NOT: ascendc.pipe_barrier

// CXX: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
// CXX: qA1_am.EnQue(am);
// CXX-NEXT: LocalTensor<half> bm = qB1_bm.AllocTensor<half>();
// CXX: DataCopy(bm, b_gm, bm_nd2nz);
// CXX-NEXT: qB1_bm.EnQue(bm);
// CXX-NEXT: LocalTensor<half> al = qA2_al.AllocTensor<half>();
// CXX-NEXT: am = qA1_am.DeQue<half>();
// CXX: LoadData3DParamsV2<half> al_load;
// CXX: LoadData(al, am, al_load);
// CXX-NEXT: qA2_al.EnQue(al);
// CXX-NEXT: qA1_am.FreeTensor(am);
// CXX: al = qA2_al.DeQue<half>();
// CXX-NEXT: br = qB2_br.DeQue<half>();
// CXX-NEXT: MmadParams acc_mmad;
// CXX: Mmad(acc, al, br, acc_mmad);
// CXX: qCO1_acc.EnQue(acc);
// CXX-NEXT: acc = qCO1_acc.DeQue<float>();
// CXX-NEXT: FixpipeParamsV220 acc_fixpipe;
// CXX: Fixpipe(c_gm, acc, acc_fixpipe);
// CXX-NEXT: qCO1_acc.FreeTensor(acc);

// The LoadData 2D loop of a transposed right operand (Kᵀ from the L1 tile of K): its enque
// follows the loop, not the load inside it.
pypto.func aic @qk(%q: !pypto.tensor<[16, 64], f16>, %k: !pypto.tensor<[32, 64], f16>, out %s: !pypto.tensor<[16, 32], f32>) -> !pypto.tensor<[16, 32], f32> {
  %c0 = arith.constant 0 : index
  %qm = pypto.tile.load %q[%c0, %c0] : !pypto.tensor<[16, 64], f16> -> !pypto.tile<[16, 64], f16, mat>
  %km = pypto.tile.load %k[%c0, %c0] : !pypto.tensor<[32, 64], f16> -> !pypto.tile<[32, 64], f16, mat>
  %kt = pypto.tile.transpose_view %km : !pypto.tile<[32, 64], f16, mat>
  %ql = pypto.tile.move %qm : !pypto.tile<[16, 64], f16, mat> -> !pypto.tile<[16, 64], f16, left>
  %kr = pypto.tile.move %kt : !pypto.tile<[64, 32], f16, mat> -> !pypto.tile<[64, 32], f16, right>
  %acc = pypto.tile.matmul %ql, %kr : !pypto.tile<[16, 64], f16, left>, !pypto.tile<[64, 32], f16, right>
  %r = pypto.tile.store %acc, %s[%c0, %c0] : !pypto.tile<[16, 32], f32, acc>, !pypto.tensor<[16, 32], f32>
  pypto.return %r : !pypto.tensor<[16, 32], f32>
}

// CHECK-LABEL: ascendc.kernel cube @qk
// CHECK: %km_1 = ascendc.deque %qB1_km, %km
// CHECK-NEXT: %kr_load = ascendc.params "kr_load" LoadData2DParams(repeatTimes = 2, srcStride = 1, ifTranspose = false)
// CHECK: scf.for %blk = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: %[[DST:.*]] = ascendc.at %kr[%blk * 512]
// CHECK-NEXT: %[[SRC:.*]] = ascendc.at %km_1[%blk * 512]
// CHECK-NEXT: ascendc.load_data %[[DST]], %[[SRC]], %kr_load
// CHECK-NEXT: }
// CHECK-NEXT: ascendc.enque %qB2_kr, %kr
// CHECK-NEXT: ascendc.free_tensor %qB1_km, %km_1
