// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// The cross-rank signal ops (pld.system.notify / wait / defer_wait) on a signal matrix, in an
// InCore function and in a pypto.incore_scope, and a pl.manual_scope region.

builtin.module {
  pypto.func incore @signals(%sig: !pypto.dist_tensor<[2, 4], i32>, %peer: i32, %i: index, %j: index) {
    %one = arith.constant 1 : i32
    pypto.system.notify set %sig[%i, %j], %peer, %one : !pypto.dist_tensor<[2, 4], i32>, i32, i32
    pypto.system.notify atomic_add %sig[%i, %j], %peer, %one : !pypto.dist_tensor<[2, 4], i32>, i32, i32
    pypto.system.wait eq %sig[%i, %j], %one : !pypto.dist_tensor<[2, 4], i32>, i32
    pypto.system.wait ge %sig[%i, %j], %one {note = "w"} : !pypto.dist_tensor<[2, 4], i32>, i32
    pypto.system.defer_wait ge %sig[%i, %j], %one : !pypto.dist_tensor<[2, 4], i32>, i32
    pypto.return
  }
  pypto.func orchestration @main(%sig: !pypto.dist_tensor<[1], i32>, %a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %r = pypto.manual_scope -> (!pypto.tensor<[8], f32>) {
      pypto.incore_scope {
        %c0 = arith.constant 0 : index
        %two = arith.constant 2 : i32
        pypto.system.wait ge %sig[%c0], %two : !pypto.dist_tensor<[1], i32>, i32
        pypto.yield
      }
      pypto.yield %a : !pypto.tensor<[8], f32>
    }
    pypto.manual_scope attributes {tag} {
      pypto.yield
    }
    pypto.return %r : !pypto.tensor<[8], f32>
  }
}

// CHECK:      pypto.func incore @signals(%sig: !pypto.dist_tensor<[2, 4], i32>, %peer: i32, %i: index, %j: index) {
// CHECK-NEXT:   %one = arith.constant 1 : i32
// CHECK-NEXT:   pypto.system.notify set %sig[%i, %j], %peer, %one : !pypto.dist_tensor<[2, 4], i32>, i32, i32
// CHECK-NEXT:   pypto.system.notify atomic_add %sig[%i, %j], %peer, %one : !pypto.dist_tensor<[2, 4], i32>, i32, i32
// CHECK-NEXT:   pypto.system.wait eq %sig[%i, %j], %one : !pypto.dist_tensor<[2, 4], i32>, i32
// CHECK-NEXT:   pypto.system.wait ge %sig[%i, %j], %one {note = "w"} : !pypto.dist_tensor<[2, 4], i32>, i32
// CHECK-NEXT:   pypto.system.defer_wait ge %sig[%i, %j], %one : !pypto.dist_tensor<[2, 4], i32>, i32
// CHECK-NEXT:   pypto.return
// CHECK:      %r = pypto.manual_scope -> (!pypto.tensor<[8], f32>) {
// CHECK-NEXT:   pypto.incore_scope {
// CHECK:          pypto.system.wait ge %sig[%c0], %two : !pypto.dist_tensor<[1], i32>, i32
// CHECK:        pypto.yield %a : !pypto.tensor<[8], f32>
// CHECK-NEXT: }
// CHECK-NEXT: pypto.manual_scope attributes {tag} {
// CHECK-NEXT:   pypto.yield
// CHECK-NEXT: }

// CHECK-GENERIC: "pypto.system.notify"(%sig, %i, %j, %peer, %one) <{kind = #pypto<notify set>}> : (!pypto.dist_tensor<[2, 4], i32>, index, index, i32, i32) -> ()
// CHECK-GENERIC: "pypto.system.wait"(%sig, %i, %j, %one) <{cmp = #pypto<wait_cmp eq>}> : (!pypto.dist_tensor<[2, 4], i32>, index, index, i32) -> ()
// CHECK-GENERIC: "pypto.system.defer_wait"(%sig, %i, %j, %one) <{cmp = #pypto<wait_cmp ge>}> : (!pypto.dist_tensor<[2, 4], i32>, index, index, i32) -> ()
// CHECK-GENERIC: "pypto.manual_scope"() ({
