// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | filecheck %s
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | pypto-opt --split-input-file | filecheck %s
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes --print-op-generic | pypto-opt --split-input-file | filecheck %s

// A scope's split(...) and slots(N) are stamped on the outlined function.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) {
    pypto.incore_scope split(up_down) slots(2) {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield
    }
    pypto.return
  }
}

// CHECK:       pypto.func incore @main_incore_0(%x: !pypto.tensor<[8], f32>) attributes {split = #pypto<split up_down>, slot_num = 2 : i64} {

// -----

// A pypto.split_aiv region stays in the outlined body; its lane id is defined inside, so
// it is not a parameter. One mode (not none) for all regions gives split = mode, plus
// split_aiv; slots(N) is orthogonal and kept.

builtin.module {
  pypto.func @main(%a: !pypto.tensor<[2, 8], f32>, %out: !pypto.tensor<[2, 8], f32>) -> !pypto.tensor<[2, 8], f32> {
    %r = pypto.incore_scope slots(4) -> (!pypto.tensor<[2, 8], f32>) {
      pypto.split_aiv up_down (%aiv_id : index) {
        %c0 = arith.constant 0 : index
        %t = pypto.tile.load %a[%aiv_id, %c0] : !pypto.tensor<[2, 8], f32> -> !pypto.tile<[1, 8], f32, vec>
        %s = pypto.tile.store %t, %out[%aiv_id, %c0] : !pypto.tile<[1, 8], f32, vec>, !pypto.tensor<[2, 8], f32>
      }
      pypto.yield %out : !pypto.tensor<[2, 8], f32>
    }
    pypto.return %r : !pypto.tensor<[2, 8], f32>
  }
}

// CHECK:       pypto.func orchestration @main(
// CHECK-NEXT:    %r = pypto.call @main_incore_0(%a, %out)
// CHECK:       pypto.func incore @main_incore_0(%a: !pypto.tensor<[2, 8], f32>, out %out: !pypto.tensor<[2, 8], f32>) -> !pypto.tensor<[2, 8], f32> attributes {slot_num = 4 : i64, split_aiv, split = #pypto<split up_down>} {
// CHECK-NEXT:    pypto.split_aiv up_down (%aiv_id: index) {
// CHECK:             %s = pypto.tile.store %t, %out[%aiv_id, %c0]
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %out

// -----

// Regions with different modes: split_aiv only, no function-level split. A region of mode
// none alone stamps no split either.

builtin.module {
  pypto.func @main(%a: !pypto.tensor<[8], f32>) {
    pypto.incore_scope {
      pypto.split_aiv up_down (%i : index) {
        %x = pypto.tensor.exp %a : !pypto.tensor<[8], f32>
      }
      pypto.split_aiv left_right (%j : index) {
        %y = pypto.tensor.exp %a : !pypto.tensor<[8], f32>
      }
      pypto.yield
    }
    pypto.incore_scope {
      pypto.split_aiv none (%k : index) {
        %z = pypto.tensor.exp %a : !pypto.tensor<[8], f32>
      }
      pypto.yield
    }
    pypto.return
  }
}

// CHECK:       pypto.func incore @main_incore_0(%a: !pypto.tensor<[8], f32>) attributes {split_aiv} {
// CHECK:       pypto.func incore @main_incore_1(%a: !pypto.tensor<[8], f32>) attributes {split_aiv} {
