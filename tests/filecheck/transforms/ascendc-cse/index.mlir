// RUN: pypto-opt %s -p pypto-ascendc | filecheck %s
// RUN: pypto-opt %s -p pypto-ascendc,ascendc-cse | filecheck %s
// RUN: pypto-opt %s -p pypto-ascendc -t ascendc | filecheck %s --check-prefix=CXX
// RUN: pypto-opt %s -p convert-pypto-to-ascendc,ascendc-plan-buffers,ascendc-insert-sync | filecheck %s --check-prefix=NOCSE
// ascendc-cse (last in pypto-ascendc; upstream CSE on each kernel): the block offset the
// load and the store both compute (`i * 32`, twice in the input) is computed once; the
// copies, the instruction and the queue hand-offs (no declared memory effect) stay.
pypto.func aiv @scale(%a: !pypto.tensor<[64, 128], f32>, out %o: !pypto.tensor<[64, 128], f32>) -> !pypto.tensor<[64, 128], f32> {
  %i = pypto.tile.get_block_idx : index
  %0 = arith.constant 32 : index
  %1 = arith.muli %i, %0 : index
  %2 = arith.constant 0 : index
  %3 = pypto.tensor.slice %a[%1, %2] : !pypto.tensor<[64, 128], f32> -> !pypto.tensor<[32, 128], f32>
  %4 = arith.muli %i, %0 : index
  %5 = pypto.tile.load %3[%2, %2] : !pypto.tensor<[32, 128], f32> -> !pypto.tile<[32, 128], f32, vec>
  %6 = pypto.tile.exp %5 : !pypto.tile<[32, 128], f32, vec>
  %o_1 = pypto.tile.store %6, %o[%4, %2] : !pypto.tile<[32, 128], f32, vec>, !pypto.tensor<[64, 128], f32>
  pypto.return %o : !pypto.tensor<[64, 128], f32>
}
// CHECK-LABEL: ascendc.kernel vector @scale
// CHECK:       %i = ascendc.get_block_idx
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:  %[[OFF:.*]] = arith.muli %i, %[[C32]] : index
// CHECK-NOT:   arith.muli
// CHECK:       ascendc.data_copy %{{.*}}, %{{.*}} count 4096
// CHECK:       ascendc.exp
// CHECK:       ascendc.enque
// CHECK-NEXT:  ascendc.deque
// CHECK:       ascendc.at %o_gm[%[[OFF]] * 128]
// CHECK-NOT:   arith.muli
// CXX:         const int64_t v = AscendC::GetBlockIdx() * 32;
// CXX-NOT:     GetBlockIdx
// CXX:         DataCopy(o_gm[v * 128],
// NOCSE-LABEL: ascendc.kernel vector @scale
// NOCSE:       arith.muli %i
// NOCSE:       arith.muli %i
