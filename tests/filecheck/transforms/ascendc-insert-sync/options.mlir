// RUN: pypto-opt %s -p 'convert-pypto-to-ascendc,ascendc-plan-buffers,ascendc-insert-sync' | filecheck %s
// RUN: pypto-opt %s -p 'convert-pypto-to-ascendc,ascendc-plan-buffers,ascendc-insert-sync{pipe-v-barriers=false}' | filecheck %s --check-prefix=OFF
// RUN: pypto-opt %s -p 'convert-pypto-to-ascendc,ascendc-plan-buffers,ascendc-insert-sync{pipe-v-barriers=false},ascendc-insert-sync' | filecheck %s --check-prefix=OFF
// RUN: pypto-opt %s -p 'convert-pypto-to-ascendc,ascendc-plan-buffers,ascendc-insert-sync{pipe-v-barriers=false}' -t ascendc | filecheck %s --check-prefix=CXX-OFF
// RUN: not pypto-opt %s -p 'convert-pypto-to-ascendc,ascendc-insert-sync' 2>&1 | filecheck %s --check-prefix=ERR
// A chain of vector instructions, each reading the previous one's result: a barrier before
// each one. With pipe-v-barriers=false the kernel's `sync` is "auto" (the toolchain inserts
// PIPE_V barriers) and none is inserted; the queue hand-offs are still explicit. The pass
// runs once per kernel: again, with other options, it leaves the kernel alone.

pypto.func incore @chain(%x: !pypto.tensor<[8, 64], f32>, out %y: !pypto.tensor<[8, 64], f32>) -> !pypto.tensor<[8, 64], f32> {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 64], f32> -> !pypto.tile<[8, 64], f32, vec>
  %e = pypto.tile.exp %t : !pypto.tile<[8, 64], f32, vec>
  %n = pypto.tile.abs %e : !pypto.tile<[8, 64], f32, vec>
  %s = pypto.tile.sub %n, %e : !pypto.tile<[8, 64], f32, vec>
  %w = pypto.tile.store %s, %y[%c0, %c0] : !pypto.tile<[8, 64], f32, vec>, !pypto.tensor<[8, 64], f32>
  pypto.return %w : !pypto.tensor<[8, 64], f32>
}

// CHECK-LABEL: ascendc.kernel vector @chain
// CHECK-SAME: sync = "explicit"
// CHECK: ascendc.exp %e, %t_1 count 512
// CHECK-NEXT: ascendc.free_tensor %inQ_t, %t_1
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: %n = ascendc.get_buf "n" %buf_n
// CHECK-NEXT: ascendc.abs %n, %e count 512
// CHECK-NEXT: ascendc.pipe_barrier PIPE_V
// CHECK-NEXT: %s = ascendc.alloc_tensor "s" %outQ_s
// CHECK-NEXT: ascendc.sub %s, %n, %e count 512

// OFF-LABEL: ascendc.kernel vector @chain
// OFF-SAME: sync = "auto"
// OFF-NOT: ascendc.pipe_barrier
// OFF: ascendc.enque %outQ_s, %s
// OFF-NOT: ascendc.pipe_barrier

// CXX-OFF-NOT: PipeBarrier
// CXX-OFF: Sub(s, n, e, 512);
// CXX-OFF-NOT: PipeBarrier

// ERR: ascendc-insert-sync: @chain has no buffer plan ('memory_plan'); run ascendc-plan-buffers before ascendc-insert-sync
