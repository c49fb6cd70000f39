// RUN: pypto-opt %s -t ascendc | filecheck %s
// scf.while in a kernel and in host code, printed as `while (true)` loops with carried values.
//   @while_k: s = k, halved while s > 1 (a data-dependent scalar loop); then row blocks
//             j = 0, 1, ... while j < nblk: y[8j:8j+8] = exp(x[8j:8j+8]) * s (a tensor carried
//             through the loop, the block index forwarded to the `do` region)
//   @main:    launches @while_k, then @add_k(y, acc) while the launch count is below %reps

pypto.func incore @while_k(%x: !pypto.tensor<[32, 64], f32>, %k: f32, %nblk: index, out %y: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %s = scf.while (%v = %k) : (f32) -> f32 {
    %big = arith.cmpf ogt, %v, %one : f32
    scf.condition(%big) %v : f32
  } do {
  ^bb0(%u: f32):
    %h = arith.mulf %u, %half : f32
    scf.yield %h : f32
  }
  %n, %yr = scf.while (%j = %c0, %acc = %y) : (index, !pypto.tensor<[32, 64], f32>) -> (index, !pypto.tensor<[32, 64], f32>) {
    %more = arith.cmpi slt, %j, %nblk : index
    scf.condition(%more) %j, %acc : index, !pypto.tensor<[32, 64], f32>
  } do {
  ^bb0(%blk: index, %cur: !pypto.tensor<[32, 64], f32>):
    %row = arith.muli %blk, %c8 : index
    %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
    %m = pypto.tile.muls %e, %s : !pypto.tile<[8, 64], f32, vec>, f32
    %w = pypto.tile.store %m, %cur[%row, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
    %next = arith.addi %blk, %c1 : index
    scf.yield %next, %w : index, !pypto.tensor<[32, 64], f32>
  }
  pypto.return %yr : !pypto.tensor<[32, 64], f32>
}

pypto.func incore @add_k(%a: !pypto.tensor<[32, 64], f32>, inout %o: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %ta = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
  %to = pypto.tile.load %o[%c0, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[32, 64], f32, vec>
  %s = pypto.tile.add %to, %ta : !pypto.tile<[32, 64], f32, vec>
  %w = pypto.tile.store %s, %o[%c0, %c0] : !pypto.tile<[32, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
  pypto.return %w : !pypto.tensor<[32, 64], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[32, 64], f32>, %k: f32, %nblk: index, %reps: index, out %y: !pypto.tensor<[32, 64], f32>, inout %acc: !pypto.tensor<[32, 64], f32>) -> (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y1 = pypto.call @while_k(%x, %k, %nblk, %y) : (!pypto.tensor<[32, 64], f32>, f32, index, !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32>
  %count, %a = scf.while (%i = %c0, %cur = %acc) : (index, !pypto.tensor<[32, 64], f32>) -> (index, !pypto.tensor<[32, 64], f32>) {
    %go = arith.cmpi slt, %i, %reps : index
    scf.condition(%go) %i, %cur : index, !pypto.tensor<[32, 64], f32>
  } do {
  ^bb0(%it: index, %c: !pypto.tensor<[32, 64], f32>):
    %n = pypto.call @add_k(%y1, %c) : (!pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32>
    %i1 = arith.addi %it, %c1 : index
    scf.yield %i1, %n : index, !pypto.tensor<[32, 64], f32>
  }
  pypto.return %y1, %a : !pypto.tensor<[32, 64], f32>, !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: // ===== file: kernels/while_k.cpp =====
// CHECK:      extern "C" __global__ __aicore__ void while_k(GM_ADDR x, float k, int64_t nblk, GM_ADDR y) {
// CHECK:        float v = k;
// CHECK-NEXT:   float u{};
// CHECK-NEXT:   while (true) {
// CHECK-NEXT:     const bool big = v > 1.0f;
// CHECK-NEXT:     u = v;
// CHECK-NEXT:     if (!big) break;
// CHECK-NEXT:     const float h = u * 0.5f;
// CHECK-NEXT:     v = h;
// CHECK-NEXT:   }
// CHECK-NEXT:   int64_t j = 0;
// CHECK-NEXT:   int64_t blk{};
// CHECK-NEXT:   while (true) {
// CHECK-NEXT:     const bool more = j < nblk;
// CHECK-NEXT:     blk = j;
// CHECK-NEXT:     if (!more) break;
// CHECK-NEXT:     const int64_t row = blk * 8;
// CHECK-NEXT:     LocalTensor<float> t = inQ_t.AllocTensor<float>();
// CHECK-NEXT:     DataCopy(t, x_gm[row * 64], 512);
// CHECK:          Muls(m, e, u, 512);
// CHECK:          DataCopy(y_gm[row * 64], m, 512);
// CHECK-NEXT:     outQ_m.FreeTensor(m);
// CHECK-NEXT:     const int64_t next = blk + 1;
// CHECK-NEXT:     j = next;
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-LABEL: // ===== file: host/main_orch.cpp =====
// CHECK:        CHECK_ACL(ACLRT_LAUNCH_KERNEL(while_k)(1, stream, x_dev, k, nblk, y_dev));
// CHECK-NEXT:   int64_t i = 0;
// CHECK-NEXT:   int64_t it{};
// CHECK-NEXT:   while (true) {
// CHECK-NEXT:     const bool go = i < reps;
// CHECK-NEXT:     it = i;
// CHECK-NEXT:     if (!go) break;
// CHECK-NEXT:     CHECK_ACL(ACLRT_LAUNCH_KERNEL(add_k)(1, stream, y_dev, acc_dev));
// CHECK-NEXT:     const int64_t i1 = it + 1;
// CHECK-NEXT:     i = i1;
// CHECK-NEXT:   }
// CHECK-NEXT:   CHECK_ACL(aclrtSynchronizeStream(stream));
