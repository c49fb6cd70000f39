// RUN: pypto-opt %s -p lower-cross-core-rings | filecheck %s
// RUN: pypto-opt %s -p lower-cross-core-rings | pypto-opt | filecheck %s

// A c2v ring in a loop (3 pushes into 2 slots: the slot is the push number mod 2, from the
// induction variable) and a v2c ring after it: each becomes a GM tensor the group creates and
// both members take, with a FULL and a FREE flag id; the consumer credits every slot at its
// start and the producer waits for the credits at its end.

builtin.module {
  pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %am = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %bm = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %br = pypto.tile.move %bm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    scf.for %i = %c0 to %c3 step %c1 {
      %acc = pypto.tile.matmul %al, %br : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
      pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
    }
    %back = pypto.cross_core.pop from aiv slots(1) : !pypto.tile<[16, 16], f16, mat>
    pypto.return
  }
  pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %o2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%oi = %o) -> (!pypto.tensor<[16, 16], f32>) {
      %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
      %oi2 = pypto.tile.store %v, %oi[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
      scf.yield %oi2 : !pypto.tensor<[16, 16], f32>
    }
    %h = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, vec>
    pypto.cross_core.push %h to aic slots(1) : !pypto.tile<[16, 16], f16, vec>
    pypto.return %o2 : !pypto.tensor<[16, 16], f32>
  }
  pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
    pypto.call @k_aic(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> ()
    %r = pypto.call @k_aiv(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
    pypto.return %r : !pypto.tensor<[16, 16], f32>
  }
}

// CHECK:      pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>, inout %c2v_ring: !pypto.tensor<[32, 16], f32>, inout %v2c_ring: !pypto.tensor<[16, 16], f16>) {
// CHECK-NEXT:   pypto.cross_core.set_flag to aiv id(3)
// CHECK:        scf.for %i = %c0 to %c3 step %c1 {
// CHECK-NEXT:     %acc = pypto.tile.matmul
// CHECK-NEXT:     %[[S:.*]] = arith.constant 2 : index
// CHECK-NEXT:     %[[SLOT:.*]] = arith.remui %i, %[[S]] : index
// CHECK-NEXT:     %[[R:.*]] = arith.constant 16 : index
// CHECK-NEXT:     %[[ROW:.*]] = arith.muli %[[SLOT]], %[[R]] : index
// CHECK-NEXT:     %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:     pypto.cross_core.wait_flag from aiv id(1)
// CHECK-NEXT:     %{{.*}} = pypto.tile.store %acc, %c2v_ring[%[[ROW]], %[[Z]]] : !pypto.tile<[16, 16], f32, acc>, !pypto.tensor<[32, 16], f32>
// CHECK-NEXT:     pypto.cross_core.set_flag to aiv id(0)
// CHECK-NEXT:   }
// CHECK:        pypto.cross_core.wait_flag from aiv id(2)
// CHECK-NEXT:   %back = pypto.tile.load %v2c_ring[%{{.*}}, %{{.*}}] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
// CHECK-NEXT:   pypto.cross_core.set_flag to aiv id(3)
// CHECK-NEXT:   pypto.cross_core.wait_flag from aiv id(1)
// CHECK-NEXT:   pypto.cross_core.wait_flag from aiv id(1)
// CHECK-NEXT:   pypto.return
// CHECK:      pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>, inout %c2v_ring: !pypto.tensor<[32, 16], f32>, inout %v2c_ring: !pypto.tensor<[16, 16], f16>) -> !pypto.tensor<[16, 16], f32> {
// CHECK-NEXT:   pypto.cross_core.set_flag to aic id(1)
// CHECK-NEXT:   pypto.cross_core.set_flag to aic id(1)
// CHECK:          pypto.cross_core.wait_flag from aic id(0)
// CHECK-NEXT:     %v = pypto.tile.load %c2v_ring[%{{.*}}, %{{.*}}] : !pypto.tensor<[32, 16], f32> -> !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:     pypto.cross_core.set_flag to aic id(1)
// CHECK:        pypto.cross_core.wait_flag from aic id(3)
// CHECK-NEXT:   %{{.*}} = pypto.tile.store %h, %v2c_ring[%{{.*}}, %{{.*}}] : !pypto.tile<[16, 16], f16, vec>, !pypto.tensor<[16, 16], f16>
// CHECK-NEXT:   pypto.cross_core.set_flag to aic id(2)
// CHECK-NEXT:   pypto.cross_core.wait_flag from aic id(3)
// CHECK-NEXT:   pypto.return %o2
// CHECK:      pypto.func group @k(
// CHECK-NEXT:   %c2v_ring = pypto.tensor.create : !pypto.tensor<[32, 16], f32>
// CHECK-NEXT:   %v2c_ring = pypto.tensor.create : !pypto.tensor<[16, 16], f16>
// CHECK-NEXT:   pypto.call @k_aic(%a, %o, %c2v_ring, %v2c_ring)
// CHECK-NEXT:   %r = pypto.call @k_aiv(%a, %o, %c2v_ring, %v2c_ring)
// CHECK-NOT:    pypto.cross_core.push
// CHECK-NOT:    pypto.cross_core.pop
