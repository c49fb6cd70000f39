// REQUIRES: mlir-opt
// RUN: pypto-opt %s --print-op-generic | %mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | pypto-opt | filecheck %s
// RUN: pypto-opt %s --print-op-generic | %mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | pypto-opt --print-op-generic | filecheck %s --check-prefix=GENERIC

// A module mixing pypto with func, arith and scf passes through real MLIR (generic form,
// pypto as an unregistered dialect) and parses back unchanged, up to SSA names.

builtin.module {
  func.func @scale(%x: f32, %y: f32) -> f32 {
    %p = arith.mulf %x, %y : f32
    func.return %p : f32
  }
  pypto.func aiv @kernel(%src: !pypto.tensor<[N, 128], f32>, out %dst: !pypto.tensor<[N, 128], f32>, %s: f32) -> !pypto.tensor<[N, 128], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %res = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %dst) -> (!pypto.tensor<[N, 128], f32>) {
      %row = arith.muli %i, %c64 : index
      %t = pypto.tile.load %src[%row, %c0] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[64, 128], f32, vec>
      %u = pypto.tile.muls %t, %s : !pypto.tile<[64, 128], f32, vec>, f32
      %w = pypto.tile.store %u, %acc[%row, %c0] : !pypto.tile<[64, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
      scf.yield %w : !pypto.tensor<[N, 128], f32>
    }
    pypto.return %res : !pypto.tensor<[N, 128], f32>
  }
  pypto.func orchestration @main(%a: !pypto.tensor<[256, 128], f32>, %flag: i1, %s: f32) -> !pypto.tensor<[256, 128], f32> {
    %out = pypto.tensor.create : !pypto.tensor<[256, 128], f32>
    %r, %tid = pypto.submit @kernel(%a, %out, %s) : (!pypto.tensor<[256, 128], f32>, !pypto.tensor<[256, 128], f32>, f32) -> (!pypto.tensor<[256, 128], f32>)
    %pick = scf.if %flag -> (!pypto.tensor<[256, 128], f32>) {
      %e = pypto.incore_scope name("post") deps(%tid) -> (!pypto.tensor<[256, 128], f32>) {
        %x = pypto.tensor.exp %r : !pypto.tensor<[256, 128], f32>
        pypto.yield %x : !pypto.tensor<[256, 128], f32>
      }
      scf.yield %e : !pypto.tensor<[256, 128], f32>
    } else {
      scf.yield %r : !pypto.tensor<[256, 128], f32>
    }
    pypto.return %pick : !pypto.tensor<[256, 128], f32>
  }
  // func.call stays in func.func: MLIR treats the unregistered pypto.func as a potential
  // symbol table and would not resolve @scale from inside it.
  func.func @driver(%a: !pypto.tensor<[256, 128], f32>, %flag: i1) -> !pypto.tensor<[256, 128], f32> {
    %two = arith.constant 2.0 : f32
    %s = func.call @scale(%two, %two) : (f32, f32) -> f32
    %r = pypto.call @main(%a, %flag, %s) : (!pypto.tensor<[256, 128], f32>, i1, f32) -> !pypto.tensor<[256, 128], f32>
    func.return %r : !pypto.tensor<[256, 128], f32>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @scale(%[[X:.*]]: f32, %[[Y:.*]]: f32) -> f32 {
// CHECK-NEXT:     %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:     func.return %[[P]] : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func aiv @kernel(%[[SRC:.*]]: !pypto.tensor<[N, 128], f32>, out %[[DST:.*]]: !pypto.tensor<[N, 128], f32>, %[[S:.*]]: f32) -> !pypto.tensor<[N, 128], f32> {
// CHECK-NEXT:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:     %[[RES:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[DST]]) -> (!pypto.tensor<[N, 128], f32>) {
// CHECK-NEXT:       %[[ROW:.*]] = arith.muli %[[I]], %[[C64]] : index
// CHECK-NEXT:       %[[T:.*]] = pypto.tile.load %[[SRC]][%[[ROW]], %[[C0]]] : !pypto.tensor<[N, 128], f32> -> !pypto.tile<[64, 128], f32, vec>
// CHECK-NEXT:       %[[U:.*]] = pypto.tile.muls %[[T]], %[[S]] : !pypto.tile<[64, 128], f32, vec>, f32
// CHECK-NEXT:       %[[W:.*]] = pypto.tile.store %[[U]], %[[ACC]][%[[ROW]], %[[C0]]] : !pypto.tile<[64, 128], f32, vec>, !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:       scf.yield %[[W]] : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:     }
// CHECK-NEXT:     pypto.return %[[RES]] : !pypto.tensor<[N, 128], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func orchestration @main(%[[A:.*]]: !pypto.tensor<[256, 128], f32>, %[[FLAG:.*]]: i1, %[[SM:.*]]: f32) -> !pypto.tensor<[256, 128], f32> {
// CHECK-NEXT:     %[[OUT:.*]] = pypto.tensor.create : !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:     %[[R:.*]], %[[TID:.*]] = pypto.submit @kernel(%[[A]], %[[OUT]], %[[SM]]) : (!pypto.tensor<[256, 128], f32>, !pypto.tensor<[256, 128], f32>, f32) -> !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:     %[[PICK:.*]] = scf.if %[[FLAG]] -> (!pypto.tensor<[256, 128], f32>) {
// CHECK-NEXT:       %[[E:.*]] = pypto.incore_scope name("post") deps(%[[TID]]) -> (!pypto.tensor<[256, 128], f32>) {
// CHECK-NEXT:         %[[EX:.*]] = pypto.tensor.exp %[[R]] : !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:         pypto.yield %[[EX]] : !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:       }
// CHECK-NEXT:       scf.yield %[[E]] : !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:     } else {
// CHECK-NEXT:       scf.yield %[[R]] : !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:     }
// CHECK-NEXT:     pypto.return %[[PICK]] : !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @driver(%[[DA:.*]]: !pypto.tensor<[256, 128], f32>, %[[DF:.*]]: i1) -> !pypto.tensor<[256, 128], f32> {
// CHECK-NEXT:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:     %[[SC:.*]] = func.call @scale(%[[TWO]], %[[TWO]]) : (f32, f32) -> f32
// CHECK-NEXT:     %[[MR:.*]] = pypto.call @main(%[[DA]], %[[DF]], %[[SC]]) : (!pypto.tensor<[256, 128], f32>, i1, f32) -> !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:     func.return %[[MR]] : !pypto.tensor<[256, 128], f32>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// mlir-opt sorts properties alphabetically; xDSL keeps them as parsed.
// GENERIC:      "pypto.func"() <{arg_dirs = [#pypto<dir in>, #pypto<dir out>, #pypto<dir in>], function_type = (!pypto.tensor<[N, 128], f32>, !pypto.tensor<[N, 128], f32>, f32) -> !pypto.tensor<[N, 128], f32>, kind = #pypto<kind aiv>, sym_name = "kernel"}> ({
// GENERIC:      "pypto.submit"({{.*}}) <{callee = @kernel, operandSegmentSizes = array<i32: 3, 0, 0, 0>}> : (!pypto.tensor<[256, 128], f32>, !pypto.tensor<[256, 128], f32>, f32) -> (!pypto.tensor<[256, 128], f32>, !pypto.task_id)
// GENERIC:      "pypto.incore_scope"({{.*}}) <{level = #pypto<level core_group>, name_hint = "post", operandSegmentSizes = array<i32: 1, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0>}> ({
