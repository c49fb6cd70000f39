// RUN: pypto-opt %s -p pipeline-cross-core-loops | filecheck %s
// RUN: pypto-opt %s -p pipeline-cross-core-loops,pipeline-cross-core-loops | filecheck %s

// A round trip in a loop of %n blocks (a run-time bound, a parameter of both members): the AIC
// pushes S_i = A_i B, pops H_i = f16(S_i) and pushes T_i = H_i B, which the AIV stores in row
// block i. Rotated by one block whatever %n is, 0 included: the bounds, computed at the start
// of each member from the same parameter, make the prologue and the epilogue loops of min(%n, 1)
// iterations and the loop between them one of %n - 1 (none when %n <= 1).

builtin.module {
  pypto.func aic @rt_aic(%a: !pypto.tensor<[64, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %bm = pypto.tile.load %b[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.muli %i, %c16 : index
      %am = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[64, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
      %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
      %s = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
      pypto.cross_core.push %s to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
      %hm = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[16, 16], f16, mat>
      %hl = pypto.tile.move %hm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
      %t = pypto.tile.matmul %hl, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
      pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    }
    pypto.return
  }
  pypto.func aiv @rt_aiv(%a: !pypto.tensor<[64, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>, %n: index) -> !pypto.tensor<[64, 16], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %o1 = scf.for %i = %c0 to %n step %c1 iter_args(%oi = %o) -> (!pypto.tensor<[64, 16], f32>) {
      %s = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
      %h = pypto.tile.cast %s : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
      pypto.cross_core.push %h to aic slots(2) : !pypto.tile<[16, 16], f16, vec>
      %t = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
      %row = arith.muli %i, %c16 : index
      %on = pypto.tile.store %t, %oi[%row, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[64, 16], f32>
      scf.yield %on : !pypto.tensor<[64, 16], f32>
    }
    pypto.return %o1 : !pypto.tensor<[64, 16], f32>
  }
  pypto.func group @rt(%a: !pypto.tensor<[64, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>, %n: index) -> !pypto.tensor<[64, 16], f32> {
    pypto.call @rt_aic(%a, %b, %o, %n) : (!pypto.tensor<[64, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[64, 16], f32>, index) -> ()
    %r = pypto.call @rt_aiv(%a, %b, %o, %n) : (!pypto.tensor<[64, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[64, 16], f32>, index) -> !pypto.tensor<[64, 16], f32>
    pypto.return %r : !pypto.tensor<[64, 16], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[64, 16], f16>, %b: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[64, 16], f32>, %n: index) -> !pypto.tensor<[64, 16], f32> {
    %r = pypto.call @rt(%a, %b, %o, %n) : (!pypto.tensor<[64, 16], f16>, !pypto.tensor<[16, 16], f16>, !pypto.tensor<[64, 16], f32>, index) -> !pypto.tensor<[64, 16], f32>
    pypto.return %r : !pypto.tensor<[64, 16], f32>
  }
}

// CHECK-LABEL: pypto.func aic @rt_aic
// CHECK-NEXT:    %[[LB:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ST:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[FIRST_END:.*]] = arith.addi %[[LB]], %[[ST]] : index
// CHECK-NEXT:    %[[PRO_UB:.*]] = arith.minsi %n, %[[FIRST_END]] : index
// CHECK-NEXT:    %[[LOOP_UB:.*]] = arith.subi %n, %[[ST]] : index
// CHECK-NEXT:    %[[SPAN:.*]] = arith.subi %n, %[[LB]] : index
// CHECK-NEXT:    %[[TRIPS:.*]] = arith.ceildivsi %[[SPAN]], %[[ST]] : index
// CHECK:         %[[LAST:.*]] = arith.addi %[[LB]], %{{.*}} : index
// CHECK-NEXT:    %[[EPI_LB:.*]] = arith.maxsi %[[LB]], %[[LAST]] : index
// CHECK:         scf.for %i = %[[LB]] to %[[PRO_UB]] step %[[ST]] {
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(4)
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %[[J:.*]] = %[[LB]] to %[[LOOP_UB]] step %[[ST]] {
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[J]], %[[ST]] : index
// CHECK-NEXT:      %{{.*}} = arith.muli %[[NEXT]], %c16 : index
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(4)
// CHECK-NEXT:      pypto.cross_core.pop from aiv slots(2)
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(4)
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %{{.*}} = %[[EPI_LB]] to %n step %[[ST]] {
// CHECK-NEXT:      pypto.cross_core.pop from aiv slots(2)
// CHECK:           pypto.cross_core.push %{{.*}} to aiv slots(4)
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return

// CHECK-LABEL: pypto.func aiv @rt_aiv
// CHECK:         scf.for %i = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      pypto.cross_core.pop from aic slots(4)
// CHECK-NEXT:      pypto.tile.cast
// CHECK-NEXT:      pypto.cross_core.push %{{.*}} to aic slots(2)
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[O1:.*]] = scf.for %{{.*}} iter_args(%[[OI:.*]] = %o)
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      pypto.cross_core.pop from aic slots(4)
// CHECK-NEXT:      pypto.tile.cast
// CHECK-NEXT:      pypto.cross_core.push %{{.*}} to aic slots(2)
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      pypto.cross_core.pop from aic slots(4)
// CHECK-NEXT:      pypto.tile.store %{{.*}}, %[[OI]]
// CHECK:         %[[O2:.*]] = scf.for %{{.*}} to %n step %{{.*}} iter_args(%{{.*}} = %[[O1]])
// CHECK:           pypto.cross_core.pop from aic slots(4)
// CHECK:         pypto.return %[[O2]]
