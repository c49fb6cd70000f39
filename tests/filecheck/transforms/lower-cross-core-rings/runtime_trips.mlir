// RUN: pypto-opt %s -p lower-cross-core-rings | filecheck %s
// A transfer after a loop with a run-time trip count (%n blocks, then one more): its slot is
// the loop's trip count max(0, ceil((%n - 0) / 1)) mod 2, computed at run time on both cores
// from the same bounds. Inside the loop the slot is %i mod 2, as for a static loop.

builtin.module {
  pypto.func aic @k_aic(%a: !pypto.tensor<[64, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c48 = arith.constant 48 : index
    %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.muli %i, %c16 : index
      %am = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[64, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
      %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
      pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    }
    %lm = pypto.tile.load %a[%c48, %c0] : !pypto.tensor<[64, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %ll = pypto.tile.move %lm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %last = pypto.tile.matmul %ll, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    pypto.cross_core.push %last to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    pypto.return
  }
  pypto.func aiv @k_aiv(%a: !pypto.tensor<[64, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>, %n: index) -> !pypto.tensor<[64, 16], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c48 = arith.constant 48 : index
    %o1 = scf.for %i = %c0 to %n step %c1 iter_args(%oi = %o) -> (!pypto.tensor<[64, 16], f32>) {
      %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
      %row = arith.muli %i, %c16 : index
      %on = pypto.tile.store %v, %oi[%row, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[64, 16], f32>
      scf.yield %on : !pypto.tensor<[64, 16], f32>
    }
    %w = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
    %o2 = pypto.tile.store %w, %o1[%c48, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[64, 16], f32>
    pypto.return %o2 : !pypto.tensor<[64, 16], f32>
  }
  pypto.func group @k(%a: !pypto.tensor<[64, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>, %n: index) -> !pypto.tensor<[64, 16], f32> {
    pypto.call @k_aic(%a, %b, %o, %n) : (!pypto.tensor<[64, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[64, 16], f32>, index) -> ()
    %r = pypto.call @k_aiv(%a, %b, %o, %n) : (!pypto.tensor<[64, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[64, 16], f32>, index) -> !pypto.tensor<[64, 16], f32>
    pypto.return %r : !pypto.tensor<[64, 16], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>, %n: index) -> !pypto.tensor<[64, 16], f32> {
    %r = pypto.call @k(%a, %b, %o, %n) : (!pypto.tensor<[64, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[64, 16], f32>, index) -> !pypto.tensor<[64, 16], f32>
    pypto.return %r : !pypto.tensor<[64, 16], f32>
  }
}

// CHECK-LABEL: pypto.func aic @k_aic(
// CHECK:         scf.for %i = %c0 to %n step %c1 {
// CHECK:           %[[S:.*]] = arith.remui %i, %{{.*}} : index
// CHECK:           %[[R:.*]] = arith.muli %[[S]], %{{.*}} : index
// CHECK:           pypto.cross_core.wait_flag from aiv id(1)
// CHECK-NEXT:      %{{.*}} = pypto.tile.store %acc, %c2v_ring[%[[R]], %{{.*}}]
// CHECK:         }
// CHECK:         %[[SPAN:.*]] = arith.subi %n, %c0 : index
// CHECK-NEXT:    %[[TRIPS:.*]] = arith.ceildivsi %[[SPAN]], %c1 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = arith.maxsi %[[TRIPS]], %[[ZERO]] : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remui %[[N]], %[[TWO]] : index
// CHECK:         %[[ROW:.*]] = arith.muli %[[SLOT]], %{{.*}} : index
// CHECK:         pypto.cross_core.wait_flag from aiv id(1)
// CHECK-NEXT:    %{{.*}} = pypto.tile.store %last, %c2v_ring[%[[ROW]], %{{.*}}]
// CHECK-LABEL: pypto.func aiv @k_aiv(
// CHECK:         %{{.*}} = arith.ceildivsi %{{.*}}, %c1 : index
// CHECK:         pypto.cross_core.wait_flag from aic id(0)
// CHECK-NEXT:    %w = pypto.tile.load %c2v_ring[
