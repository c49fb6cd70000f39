// RUN: pypto-opt %s -p expand-mixed-kernel,verify-expand-mixed-kernel | filecheck %s

// Loops and branches holding both cores exist in both parts, each carrying only the values
// its core computes: the inner loop carries the cube's acc accumulator on the AIC and the
// vector's running sum on the AIV; the output tensor, stored by the AIV only, is carried by
// the AIV's loops only (on the AIC it would be passed through). The tile the AIV sends back
// lands in L1 ('mat') and is moved to L0A on the AIC. The scope's slots(3) sizes the rings.

builtin.module {
  pypto.func incore @k(%a: !pypto.tensor<[128, 16], f16>, %w: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[128, 16], f32>, %flag: index) -> !pypto.tensor<[128, 16], f32> attributes {slot_num = 3 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %wm = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
    %wr = pypto.tile.move %wm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %o_out = scf.for %i = %c0 to %c2 step %c1 iter_args(%o_i = %o) -> (!pypto.tensor<[128, 16], f32>) {
      %acc0 = pypto.tile.full %zero : f32 -> !pypto.tile<[16, 16], f32, acc>
      %sum0 = pypto.tile.full %zero : f32 -> !pypto.tile<[16, 16], f32, vec>
      %acc, %sum = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc_j = %acc0, %sum_j = %sum0) -> (!pypto.tile<[16, 16], f32, acc>, !pypto.tile<[16, 16], f32, vec>) {
        %row = arith.muli %j, %c16 : index
        %am = pypto.tile.load %a[%row, %c0] : !pypto.tensor<[128, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
        %al = pypto.tile.move %am : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
        %p = pypto.tile.matmul %al, %wr : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
        %pv = pypto.tile.move %p : !pypto.tile<[16, 16], f32, acc> -> !pypto.tile<[16, 16], f32, vec>
        %sum_next = pypto.tile.add %sum_j, %pv : !pypto.tile<[16, 16], f32, vec>
        %h = pypto.tile.cast %pv : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
        %hl = pypto.tile.move %h : !pypto.tile<[16, 16], f16, vec> -> !pypto.tile<[16, 16], f16, left>
        %acc_next = pypto.tile.matmul_acc %acc_j, %hl, %wr : !pypto.tile<[16, 16], f32, acc>, !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
        scf.yield %acc_next, %sum_next : !pypto.tile<[16, 16], f32, acc>, !pypto.tile<[16, 16], f32, vec>
      }
      %on = arith.cmpi eq, %i, %flag : index
      %extra = scf.if %on -> (!pypto.tile<[16, 16], f32, vec>) {
        %e = pypto.tile.move %acc : !pypto.tile<[16, 16], f32, acc> -> !pypto.tile<[16, 16], f32, vec>
        scf.yield %e : !pypto.tile<[16, 16], f32, vec>
      } else {
        scf.yield %sum : !pypto.tile<[16, 16], f32, vec>
      }
      %res = pypto.tile.add %sum, %extra : !pypto.tile<[16, 16], f32, vec>
      %row = arith.muli %i, %c16 : index
      %o_next = pypto.tile.store %res, %o_i[%row, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[128, 16], f32>
      scf.yield %o_next : !pypto.tensor<[128, 16], f32>
    }
    pypto.return %o_out : !pypto.tensor<[128, 16], f32>
  }
}

// CHECK-LABEL: pypto.func aic @k_aic(
// CHECK-SAME:      attributes {slot_num = 3 : i64} {
// CHECK:         %wr = pypto.tile.move %wm : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
// CHECK-NEXT:    scf.for %i = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %acc0 = pypto.tile.full %zero : f32 -> !pypto.tile<[16, 16], f32, acc>
// CHECK-NEXT:      %acc = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc_j = %acc0) -> (!pypto.tile<[16, 16], f32, acc>) {
// CHECK:             %p = pypto.tile.matmul %al, %wr
// CHECK-NEXT:        pypto.cross_core.push %p to aiv slots(3) : !pypto.tile<[16, 16], f32, acc>
// CHECK-NEXT:        %hl_mat = pypto.cross_core.pop from aiv slots(3) : !pypto.tile<[16, 16], f16, mat>
// CHECK-NEXT:        %hl = pypto.tile.move %hl_mat : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
// CHECK-NEXT:        %acc_next = pypto.tile.matmul_acc %acc_j, %hl, %wr
// CHECK-NEXT:        scf.yield %acc_next : !pypto.tile<[16, 16], f32, acc>
// CHECK-NEXT:      }
// CHECK-NEXT:      %on = arith.cmpi eq, %i, %flag : index
// CHECK-NEXT:      scf.if %on {
// CHECK-NEXT:        pypto.cross_core.push %acc to aiv slots(3) : !pypto.tile<[16, 16], f32, acc>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return
// CHECK-NEXT:  }

// CHECK-LABEL: pypto.func aiv @k_aiv(
// CHECK-NOT:     pypto.tile.matmul
// CHECK:         %o_out = scf.for %i = %c0 to %c2 step %c1 iter_args(%o_i = %o) -> (!pypto.tensor<[128, 16], f32>) {
// CHECK-NEXT:      %sum0 = pypto.tile.full %zero : f32 -> !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:      %sum = scf.for %j = %c0 to %c4 step %c1 iter_args(%sum_j = %sum0) -> (!pypto.tile<[16, 16], f32, vec>) {
// CHECK-NEXT:        %pv = pypto.cross_core.pop from aic slots(3) : !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:        %sum_next = pypto.tile.add %sum_j, %pv : !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:        %h = pypto.tile.cast %pv : !pypto.tile<[16, 16], f32, vec> -> !pypto.tile<[16, 16], f16, vec>
// CHECK-NEXT:        pypto.cross_core.push %h to aic slots(3) : !pypto.tile<[16, 16], f16, vec>
// CHECK-NEXT:        scf.yield %sum_next : !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:      }
// CHECK-NEXT:      %on = arith.cmpi eq, %i, %flag : index
// CHECK-NEXT:      %extra = scf.if %on -> (!pypto.tile<[16, 16], f32, vec>) {
// CHECK-NEXT:        %e = pypto.cross_core.pop from aic slots(3) : !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:        scf.yield %e : !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %sum : !pypto.tile<[16, 16], f32, vec>
// CHECK-NEXT:      }
// CHECK-NEXT:      %res = pypto.tile.add %sum, %extra
// CHECK:           %o_next = pypto.tile.store %res, %o_i[%row, %c0]
// CHECK-NEXT:      scf.yield %o_next : !pypto.tensor<[128, 16], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %o_out : !pypto.tensor<[128, 16], f32>

// CHECK-LABEL: pypto.func group @k(
// CHECK-SAME:      attributes {slot_num = 3 : i64} {
