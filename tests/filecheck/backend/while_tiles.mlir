// RUN: pypto-opt %s -t ascendc | filecheck %s
// Vec tiles carried through scf.while: like scf.for, every carried position keeps one fixed
// VECCALC buffer that the 'before' argument, the loop result and the 'after' argument all
// name. The initial value is copied in before the loop; a value scf.condition forwards or
// scf.yield yields that is another tile is copied in (UB -> UB) where it is forwarded or
// yielded. tests/test_backend_while.py runs it against the interpreter.

!T = !pypto.tensor<[16, 64], f32>
!V = !pypto.tile<[16, 64], f32, vec>

// t = x; while (i < n) { t = t * 0.5 + x; ++i }
pypto.func incore @halve_add(%x: !T, %n: index, out %y: !T) -> !T {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %xt = pypto.tile.load %x[%c0, %c0] : !T -> !V
  %i, %t = scf.while (%j = %c0, %acc = %xt) : (index, !V) -> (index, !V) {
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %acc : index, !V
  } do {
  ^bb0(%jj: index, %a: !V):
    %h = pypto.tile.muls %a, %half : !V, f32
    %s = pypto.tile.add %h, %xt : !V
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %s : index, !V
  }
  %w = pypto.tile.store %t, %y[%c0, %c0] : !V, !T
  pypto.return %w : !T
}

// CHECK-LABEL: // ===== file: kernels/halve_add.cpp =====
// CHECK: TBuf<TPosition::VECCALC> buf_t;  // %t !pypto.tile<[16, 64], f32, vec>
// CHECK: inQ_xt.EnQue(xt);
// CHECK-NEXT: xt = inQ_xt.DeQue<float>();
// CHECK-NEXT: LocalTensor<float> t = buf_t.Get<float>();
// CHECK-NEXT: DataCopy(t, xt, 1024);
// CHECK-NEXT: int64_t j = 0;
// CHECK-NEXT: int64_t jj{};
// CHECK-NEXT: while (true) {
// CHECK-NEXT: const bool go = j < n;
// CHECK-NEXT: jj = j;
// CHECK-NEXT: if (!go) break;
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> h = buf_h.Get<float>();
// CHECK-NEXT: Muls(h, t, 0.5f, 1024);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> s = buf_s.Get<float>();
// CHECK-NEXT: Add(s, h, xt, 1024);
// CHECK-NEXT: const int64_t j1 = jj + 1;
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: DataCopy(t, s, 1024);
// CHECK-NEXT: j = j1;
// CHECK-NEXT: }
// CHECK-NEXT: inQ_xt.FreeTensor(xt);

// The condition forwards another tile (copied into the carried buffer where it is forwarded);
// the body stores the carried tile through a tensor the loop carries as well.
// t = x; while (true) { t = max(t, x); if (i >= n) break; z = t; t = t * -0.5; ++i }
pypto.func incore @forward(%x: !T, %n: index, out %z: !T, out %y: !T) -> (!T, !T) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %mhalf = arith.constant -0.5 : f32
  %xt = pypto.tile.load %x[%c0, %c0] : !T -> !V
  %i, %t, %zr = scf.while (%j = %c0, %acc = %xt, %zc = %z) : (index, !V, !T) -> (index, !V, !T) {
    %c = pypto.tile.maximum %acc, %xt : !V
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %c, %zc : index, !V, !T
  } do {
  ^bb0(%jj: index, %a: !V, %za: !T):
    %zw = pypto.tile.store %a, %za[%c0, %c0] : !V, !T
    %h = pypto.tile.muls %a, %mhalf : !V, f32
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %h, %zw : index, !V, !T
  }
  %w = pypto.tile.store %t, %y[%c0, %c0] : !V, !T
  pypto.return %zr, %w : !T, !T
}

// CHECK-LABEL: // ===== file: kernels/forward.cpp =====
// CHECK: LocalTensor<float> t = buf_t.Get<float>();
// CHECK-NEXT: DataCopy(t, xt, 1024);
// CHECK-NEXT: int64_t j = 0;
// CHECK-NEXT: int64_t jj{};
// CHECK-NEXT: while (true) {
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> c = calcBuf0.Get<float>();
// CHECK-NEXT: Max(c, t, xt, 1024);
// CHECK-NEXT: const bool go = j < n;
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: DataCopy(t, c, 1024);
// CHECK-NEXT: jj = j;
// CHECK-NEXT: if (!go) break;
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: LocalTensor<float> t_out = outQ_a_out.AllocTensor<float>();
// CHECK-NEXT: DataCopy(t_out, t, 1024);
// CHECK-NEXT: outQ_a_out.EnQue(t_out);
// CHECK-NEXT: t_out = outQ_a_out.DeQue<float>();
// CHECK-NEXT: DataCopy(z_gm, t_out, 1024);
// CHECK-NEXT: outQ_a_out.FreeTensor(t_out);
// CHECK-NEXT: LocalTensor<float> h = calcBuf0.Get<float>();
// CHECK-NEXT: Muls(h, t, -0.5f, 1024);
// CHECK-NEXT: const int64_t j1 = jj + 1;
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: DataCopy(t, h, 1024);
// CHECK-NEXT: j = j1;
// CHECK-NEXT: }
// CHECK-NEXT: inQ_xt.FreeTensor(xt);

// A loaded tile yielded as its last use is freed right after it is copied into the carried
// buffer.
pypto.func incore @reload(%x: !T, %n: index, out %y: !T) -> !T {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xt = pypto.tile.load %x[%c0, %c0] : !T -> !V
  %i, %t = scf.while (%j = %c0, %acc = %xt) : (index, !V) -> (index, !V) {
    %go = arith.cmpi slt, %j, %n : index
    scf.condition(%go) %j, %acc : index, !V
  } do {
  ^bb0(%jj: index, %a: !V):
    %u = pypto.tile.load %x[%c0, %c0] : !T -> !V
    %j1 = arith.addi %jj, %c1 : index
    scf.yield %j1, %u : index, !V
  }
  %w = pypto.tile.store %t, %y[%c0, %c0] : !V, !T
  pypto.return %w : !T
}

// CHECK-LABEL: // ===== file: kernels/reload.cpp =====
// CHECK: LocalTensor<float> u = inQ_u.AllocTensor<float>();
// CHECK: u = inQ_u.DeQue<float>();
// CHECK-NEXT: const int64_t j1 = jj + 1;
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: DataCopy(t, u, 1024);
// CHECK-NEXT: inQ_u.FreeTensor(u);
// CHECK-NEXT: j = j1;
// CHECK-NEXT: }

pypto.func orchestration @main(%x: !T, %n: index, out %y: !T, out %z: !T, out %y2: !T, out %y3: !T) -> (!T, !T, !T, !T) {
  %a = pypto.call @halve_add(%x, %n, %y) : (!T, index, !T) -> !T
  %b:2 = pypto.call @forward(%x, %n, %z, %y2) : (!T, index, !T, !T) -> (!T, !T)
  %c = pypto.call @reload(%x, %n, %y3) : (!T, index, !T) -> !T
  pypto.return %a, %b#0, %b#1, %c : !T, !T, !T, !T
}
