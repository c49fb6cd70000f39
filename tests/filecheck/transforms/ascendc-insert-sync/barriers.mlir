// RUN: pypto-opt %s --split-input-file -p ascendc-plan-buffers,ascendc-insert-sync | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'ascendc-plan-buffers,ascendc-insert-sync{pipe-v-barriers=false},ascendc-insert-sync' | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'ascendc-plan-buffers,ascendc-insert-sync{pipe-v-barriers=false}' | filecheck %s --check-prefix=OFF
// RUN: pypto-opt %s -p ascendc-plan-buffers,ascendc-insert-sync -t ascendc | filecheck %s --check-prefix=CXX
// RUN: pypto-opt %s -p 'ascendc-plan-buffers,ascendc-insert-sync{pipe-v-barriers=false}' -t ascendc | filecheck %s --check-prefix=CXX-OFF
// PipeBarrier<PIPE_V>: an op whose vector instructions read or write a UB buffer an earlier
// vector instruction wrote (or write one it read), with no barrier in between, gets
// `ascendc.barrier = "V"`. With pipe-v-barriers=false nothing is recorded and the kernel says
// the toolchain inserts them (`ascendc.barrier = "auto"`), so the printer prints none.

// OFF-NOT: ascendc.barrier = "V"
// OFF: pypto.func incore @chain{{.*}}ascendc.barrier = "auto"
// OFF-NOT: ascendc.barrier = "V"
// CXX-OFF-NOT: PipeBarrier

// A straight-line chain: each op reads the previous one's result (RAW).
pypto.func incore @chain(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
  %n = pypto.tile.abs %e : !pypto.tile<[8, 64], f32, vec>
  %s = pypto.tile.sub %n, %e : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @chain
// CHECK-NOT: ascendc.barrier = "auto"
// CHECK: %e = pypto.tile.exp %t {ascendc.buffer = "buf_e", ascendc.stage = "V", ascendc.free = ["inQ_t"]}
// CHECK-NEXT: %n = pypto.tile.abs %e {ascendc.buffer = "buf_n", ascendc.stage = "V", ascendc.barrier = "V"}
// CHECK-NEXT: %s = pypto.tile.sub %n, %e {ascendc.buffer = "outQ_s", ascendc.stage = "V", ascendc.barrier = "V"}

// CXX-LABEL: void chain(
// CXX: Exp(e, t, 512);
// CXX-NEXT: inQ_t.FreeTensor(t);
// CXX-NEXT: PipeBarrier<PIPE_V>();
// CXX-NEXT: LocalTensor<float> n = buf_n.Get<float>();
// CXX-NEXT: Abs(n, e, 512);
// CXX-NEXT: PipeBarrier<PIPE_V>();
// CXX-NEXT: LocalTensor<float> s = outQ_s.AllocTensor<float>();
// CXX-NEXT: Sub(s, n, e, 512);

// -----

// Independent ops: both only read the loaded tile and write their own buffers; the stores
// hand their tiles over through their queues. No barrier.
pypto.func incore @independent(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>, out %z: !pypto.tensor<[8, 64], f32>) -> (!pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
  %a = pypto.tile.abs %t : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %e, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  %v = pypto.tile.store %a, %z[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w, %v : !pypto.tensor<[8, 64], f32>, !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @independent
// CHECK-NOT: ascendc.barrier
// CHECK: pypto.return

// CXX-LABEL: void independent(
// CXX-NOT: PipeBarrier
// CXX: }

// -----

// A loop: the mul writes buf_a, which the add of the previous iteration read (WAR across
// iterations), so it gets a barrier at the top of the body; the add reads it (RAW).
pypto.func incore @loop(%x: !pypto.tensor<[32, 64], f32>, out %y: !pypto.tensor<[32, 64], f32>) -> !pypto.tensor<[32, 64], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %i = %c0 to %c32 step %c8 iter_args(%acc = %y) -> (!pypto.tensor<[32, 64], f32>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %a = pypto.tile.mul %t, %t : !pypto.tile<[8, 64], f32, vec>
    %b = pypto.tile.add %a, %t : !pypto.tile<[8, 64], f32, vec>
    %w = pypto.tile.store %b, %acc[%i, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[32, 64], f32>
    scf.yield %w : !pypto.tensor<[32, 64], f32>
  }
  pypto.return %r : !pypto.tensor<[32, 64], f32>
}

// CHECK-LABEL: pypto.func incore @loop
// CHECK: %a = pypto.tile.mul %t, %t {ascendc.buffer = "buf_a", ascendc.stage = "V", ascendc.barrier = "V"}
// CHECK-NEXT: %b = pypto.tile.add %a, %t {ascendc.buffer = "outQ_b", ascendc.stage = "V", ascendc.free = ["inQ_t"], ascendc.barrier = "V"}
// CHECK-NEXT: %w = pypto.tile.store %b
// CHECK-NOT: ascendc.barrier
// CHECK: scf.yield

// CXX-LABEL: void loop(
// CXX: t = inQ_t.DeQue<float>();
// CXX-NEXT: PipeBarrier<PIPE_V>();
// CXX-NEXT: LocalTensor<float> a = buf_a.Get<float>();
// CXX-NEXT: Mul(a, t, t, 512);
// CXX-NEXT: PipeBarrier<PIPE_V>();
// CXX-NEXT: LocalTensor<float> b = outQ_b.AllocTensor<float>();
// CXX-NEXT: Add(b, a, t, 512);

// -----

// A tile carried through a loop: the copy of the initial value reads what the full wrote
// (barrier before the loop), the add reads the carried tile the yield copy wrote in the
// previous iteration, the yield copy reads the add's result, and the staged store after the
// loop reads the carried tile.
pypto.func incore @carried(%x: !pypto.tensor<[32, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<[8, 64], f32, vec>
  %s = scf.for %i = %c0 to %c32 step %c8 iter_args(%acc = %init) -> (!pypto.tile<[8, 64], f32, vec>) {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<[32, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
    %sum = pypto.tile.add %acc, %t : !pypto.tile<[8, 64], f32, vec>
    scf.yield %sum : !pypto.tile<[8, 64], f32, vec>
  }
  %w = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: pypto.func incore @carried
// CHECK: %sum = pypto.tile.add %acc, %t {{{.*}}ascendc.barrier = "V"}
// CHECK-NEXT: scf.yield {ascendc.barrier = "V"} %sum
// CHECK-NEXT: } {ascendc.buffer = "buf_s", ascendc.barrier = "V"}
// CHECK-NEXT: %w = pypto.tile.store %s, {{.*}}ascendc.barrier = "V"}

// CXX-LABEL: void carried(
// CXX: Duplicate(init, 0.0f, 512);
// CXX-NEXT: PipeBarrier<PIPE_V>();
// CXX-NEXT: LocalTensor<float> s = buf_s.Get<float>();
// CXX-NEXT: DataCopy(s, init, 512);
// CXX-NEXT: for (int64_t i = 0; i < 32; i += 8) {
// CXX: t = inQ_t.DeQue<float>();
// CXX-NEXT: PipeBarrier<PIPE_V>();
// CXX-NEXT: LocalTensor<float> sum = {{.*}}.Get<float>();
// CXX-NEXT: Add(sum, s, t, 512);
// CXX-NEXT: inQ_t.FreeTensor(t);
// CXX-NEXT: PipeBarrier<PIPE_V>();
// CXX-NEXT: DataCopy(s, sum, 512);
// CXX-NEXT: }
// CXX-NEXT: PipeBarrier<PIPE_V>();
// CXX-NEXT: LocalTensor<float> s_out = outQ_s_out.AllocTensor<float>();
// CXX-NEXT: DataCopy(s_out, s, 512);
