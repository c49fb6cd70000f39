// RUN: pypto-opt %s -t ascendc | filecheck %s
// A fixed-size 1-D window of a run-time extent that nothing writes through (PyPTO's
// `pl.slice(block_table, [64], [b * n])`, the ragged tail of models/07's block table) may run
// past the end, as the interpreter allows: the host checks only that it starts inside; what a
// kernel reads past the end is the simulation's error. A window a kernel writes must fit.

pypto.func incore @copy(%t: !pypto.tensor<[8], i32>, out %o: !pypto.tensor<[8], i32>) -> !pypto.tensor<[8], i32> {
  %c0 = arith.constant 0 : index
  %x = pypto.tile.load %t[%c0] : !pypto.tensor<[8], i32> -> !pypto.tile<[8], i32, vec>
  %w = pypto.tile.store %x, %o[%c0] : !pypto.tile<[8], i32, vec>, !pypto.tensor<[8], i32>
  pypto.return %w : !pypto.tensor<[8], i32>
}
pypto.func orchestration @main(%table: !pypto.tensor<[T], i32>, %off: index, out %o: !pypto.tensor<[T], i32>) -> !pypto.tensor<[T], i32> {
  %src = pypto.tensor.slice %table[%off] : !pypto.tensor<[T], i32> -> !pypto.tensor<[8], i32>
  %dst = pypto.tensor.slice %o[%off] : !pypto.tensor<[T], i32> -> !pypto.tensor<[8], i32>
  %r = pypto.call @copy(%src, %dst) : (!pypto.tensor<[8], i32>, !pypto.tensor<[8], i32>) -> !pypto.tensor<[8], i32>
  pypto.return %o : !pypto.tensor<[T], i32>
}

// CHECK-LABEL: int run_main(
// CHECK:         if (off < 0 || off >= T) {
// CHECK-NEXT:      std::fprintf(stderr, "run_main: 'pypto.tensor.slice' %%src is out of bounds: dimension 0 takes %lld at %lld of %lld\n"
// CHECK:         if (off < 0 || off + 8 > T) {
// CHECK-NEXT:      std::fprintf(stderr, "run_main: 'pypto.tensor.slice' %%dst is out of bounds: dimension 0 takes %lld at %lld of %lld\n"
