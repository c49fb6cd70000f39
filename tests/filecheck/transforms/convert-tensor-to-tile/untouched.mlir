// RUN: pypto-opt %s --split-input-file -p convert-tensor-to-tile | filecheck %s
// RUN: pypto-opt %s --verify-diagnostics -p convert-tensor-to-tile,verify-convert-tensor-to-tile | filecheck %s --check-prefix=VERIFY

// Left alone: tensor ops outside incore/aiv functions, cube (aic) kernels, unknown ('?') dims,
// and a copy between overlapping windows of one tensor (the backend reports what remains).

builtin.module {
  pypto.func orchestration @host(%a: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    %x = pypto.tensor.exp %a : !pypto.tensor<[64, 64], f32>
    pypto.return %x : !pypto.tensor<[64, 64], f32>
  }
  pypto.func aic @cube(%a: !pypto.tensor<[64, 64], f32>, out %o: !pypto.tensor<[64, 64], f32>) -> !pypto.tensor<[64, 64], f32> {
    %c0 = arith.constant 0 : index
    %x = pypto.tensor.exp %a : !pypto.tensor<[64, 64], f32>
    %w = pypto.tensor.assemble %x into %o[%c0, %c0] : !pypto.tensor<[64, 64], f32> into !pypto.tensor<[64, 64], f32>
    pypto.return %w : !pypto.tensor<[64, 64], f32>
  }
  pypto.func incore @dynamic(%a: !pypto.tensor<[?, 64], f32>, out %o: !pypto.tensor<[?, 64], f32>) -> !pypto.tensor<[?, 64], f32> {
    %c0 = arith.constant 0 : index
    %x = pypto.tensor.exp %a : !pypto.tensor<[?, 64], f32>
    %w = pypto.tensor.assemble %x into %o[%c0, %c0] : !pypto.tensor<[?, 64], f32> into !pypto.tensor<[?, 64], f32>
    pypto.return %w : !pypto.tensor<[?, 64], f32>
  }
  pypto.func incore @overlap(inout %o: !pypto.tensor<[40, 16], f32>) -> !pypto.tensor<[40, 16], f32> {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %v = pypto.tensor.slice %o[%c0, %c0] : !pypto.tensor<[40, 16], f32> -> !pypto.tensor<[32, 16], f32>
    %w = pypto.tensor.assemble %v into %o[%c8, %c0] : !pypto.tensor<[32, 16], f32> into !pypto.tensor<[40, 16], f32>
    pypto.return %w : !pypto.tensor<[40, 16], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @host(
// CHECK-NEXT:    %x = pypto.tensor.exp %a
// CHECK-LABEL: pypto.func aic @cube(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %x = pypto.tensor.exp %a
// CHECK-NEXT:    %w = pypto.tensor.assemble %x into %o[%c0, %c0]
// CHECK-LABEL: pypto.func incore @dynamic(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %x = pypto.tensor.exp %a
// CHECK-NEXT:    %w = pypto.tensor.assemble %x into %o[%c0, %c0]
// CHECK-LABEL: pypto.func incore @overlap(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %v = pypto.tensor.slice %o[%c0, %c0]
// CHECK-NEXT:    %w = pypto.tensor.assemble %v into %o[%c8, %c0]
// CHECK-NOT:     pypto.tile

// The verifier names what is left in incore/aiv functions (not @host, not the aic @cube):
// VERIFY:      verify-convert-tensor-to-tile: tensor-level compute left in InCore functions:
// VERIFY-NEXT:   @dynamic: 'pypto.tensor.exp' (%x) is left: its shape !pypto.tensor<[?, 64], f32> has an unknown dimension '?': name it (pl.dynamic) to tile it
// VERIFY-NEXT:   @dynamic: 'pypto.tensor.assemble' (%w) is left: its shapes have an unknown dimension '?': name it (pl.dynamic) to tile it
// VERIFY-NEXT:   @overlap: 'pypto.tensor.assemble' (%w) is left: its source and destination may overlap
// VERIFY-NOT:  @host
