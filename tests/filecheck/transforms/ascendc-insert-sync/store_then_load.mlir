// RUN: pypto-opt %s -p convert-pypto-to-ascendc,ascendc-plan-buffers,ascendc-insert-sync | filecheck %s --check-prefix=SYNC
// RUN: pypto-opt %s -p pypto-ascendc | filecheck %s
// RUN: pypto-opt %s -p pypto-ascendc -t ascendc | filecheck %s --check-prefix=CXX
// A store then a load of the same GM tensor: the copy-out (MTE3) of %e into %t must land
// before the copy-in (MTE2) that reads %t back, so ascendc-insert-sync puts
// SetFlag/WaitFlag<HardEvent::MTE3_MTE2> after the copy-out, with an event id fetched from
// the TPipe. It flags every copy-out into a tensor the kernel reads (conservative): the
// second store into %t gets a pair too, which ascendc-remove-redundant-sync drops, since no
// copy-in follows it.

pypto.func incore @store_load(%x: !pypto.tensor<[16, 64], f32>, out %t: !pypto.tensor<[16, 64], f32>) -> !pypto.tensor<[16, 64], f32> {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %e = pypto.tile.exp %a : !pypto.tile<[16, 64], f32, vec>
  %t1 = pypto.tile.store %e, %t[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  %b = pypto.tile.load %t1[%c0, %c0] : !pypto.tensor<[16, 64], f32> -> !pypto.tile<[16, 64], f32, vec>
  %n = pypto.tile.neg %b : !pypto.tile<[16, 64], f32, vec>
  %t2 = pypto.tile.store %n, %t1[%c0, %c0] : !pypto.tile<[16, 64], f32, vec>, !pypto.tensor<[16, 64], f32>
  pypto.return %t2 : !pypto.tensor<[16, 64], f32>
}

// SYNC-LABEL: ascendc.kernel vector @store_load
// SYNC: %e_1 = ascendc.deque %outQ_e, %e
// SYNC-NEXT: ascendc.data_copy %t_gm, %e_1 count 1024
// SYNC-NEXT: ascendc.free_tensor %outQ_e, %e_1
// SYNC-NEXT: %event_mte3_mte2 = ascendc.fetch_event_id "event_mte3_mte2" MTE3_MTE2 %pipe
// SYNC-NEXT: ascendc.set_flag MTE3_MTE2 %event_mte3_mte2 : !ascendc.event<MTE3_MTE2>
// SYNC-NEXT: ascendc.wait_flag MTE3_MTE2 %event_mte3_mte2 : !ascendc.event<MTE3_MTE2>
// SYNC-NEXT: %b = ascendc.alloc_tensor "b" %inQ_b
// SYNC-NEXT: ascendc.data_copy %b, %t_gm count 1024
// SYNC: ascendc.data_copy %t_gm, %n_1 count 1024
// SYNC-NEXT: ascendc.free_tensor %outQ_n, %n_1
// SYNC-NEXT: %event_mte3_mte2_1 = ascendc.fetch_event_id "event_mte3_mte2_1" MTE3_MTE2 %pipe
// SYNC-NEXT: ascendc.set_flag MTE3_MTE2 %event_mte3_mte2_1
// SYNC-NEXT: ascendc.wait_flag MTE3_MTE2 %event_mte3_mte2_1
// SYNC-NEXT: ascendc.return

// CHECK-LABEL: ascendc.kernel vector @store_load
// CHECK: ascendc.data_copy %t_gm, %e_1 count 1024
// CHECK-NEXT: ascendc.free_tensor %outQ_e, %e_1
// CHECK-NEXT: %event_mte3_mte2 = ascendc.fetch_event_id "event_mte3_mte2" MTE3_MTE2 %pipe
// CHECK-NEXT: ascendc.set_flag MTE3_MTE2 %event_mte3_mte2
// CHECK-NEXT: ascendc.wait_flag MTE3_MTE2 %event_mte3_mte2
// CHECK-NEXT: %b = ascendc.alloc_tensor "b" %inQ_b
// CHECK: ascendc.data_copy %t_gm, %n_1 count 1024
// CHECK-NEXT: ascendc.free_tensor %outQ_n, %n_1
// CHECK-NEXT: ascendc.return

// CXX: DataCopy(t_gm, e, 1024);
// CXX-NEXT: outQ_e.FreeTensor(e);
// CXX-NEXT: TEventID event_mte3_mte2 = pipe.FetchEventID<HardEvent::MTE3_MTE2>();
// CXX-NEXT: SetFlag<HardEvent::MTE3_MTE2>(event_mte3_mte2);
// CXX-NEXT: WaitFlag<HardEvent::MTE3_MTE2>(event_mte3_mte2);
// CXX-NEXT: LocalTensor<float> b = inQ_b.AllocTensor<float>();
// CXX-NEXT: DataCopy(b, t_gm, 1024);
// CXX: DataCopy(t_gm, n, 1024);
// CXX-NEXT: outQ_n.FreeTensor(n);
// CXX-NEXT: }
