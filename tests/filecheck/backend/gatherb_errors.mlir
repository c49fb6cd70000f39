// RUN: pypto-opt %s -t ascendc --split-input-file --verify-diagnostics | filecheck %s
// tile.gatherb's byte offsets count the source tile's row-major bytes: a source whose rows
// are padded to 32 bytes in the Unified Buffer is refused, naming the op.

pypto.func incore @padded(%x: !pypto.tensor<[2, 12], f32>, %off: !pypto.tensor<[1, 8], ui32>, out %y: !pypto.tensor<[1, 64], f32>) -> !pypto.tensor<[1, 64], f32> {
  %c0 = arith.constant 0 : index
  %s = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[2, 12], f32> -> !pypto.tile<[2, 12], f32, vec>
  %o = pypto.tile.load %off[%c0, %c0] : !pypto.tensor<[1, 8], ui32> -> !pypto.tile<[1, 8], ui32, vec>
  %t = pypto.tile.gatherb %s, %o : !pypto.tile<[2, 12], f32, vec>, !pypto.tile<[1, 8], ui32, vec> -> !pypto.tile<[1, 64], f32, vec>
  %w = pypto.tile.store %t, %y[%c0, %c0] : !pypto.tile<[1, 64], f32, vec>, !pypto.tensor<[1, 64], f32>
  pypto.return %w : !pypto.tensor<[1, 64], f32>
}
// CHECK: ascendc: cannot lower 'pypto.tile.gatherb' in @padded: its source !pypto.tile<[2, 12], f32, vec> has rows of 48 bytes, padded to 64 in the Unified Buffer; gatherb's byte offsets count the tile's row-major bytes, so the source rows must be whole 32-byte blocks
