// RUN: pypto-run %s --input a=%S/inputs/pypto-run-a.npy | filecheck %s
// RUN: pypto-run %s --dim N=3 --seed 1 | filecheck %s --check-prefix=RANDOM
// RUN: pypto-opt %s -p inline-functions | pypto-run - --input 0=%S/inputs/pypto-run-a.npy | filecheck %s
// RUN: not pypto-run %s 2>&1 | filecheck %s --check-prefix=ERR

// a = [[0, 1, 2, 3], [4, 5, 6, 7]]: the row sums are 6 and 22, twice that is 12 and 44;
// %o holds -a in row 0 (the store) and zeros elsewhere (a fresh buffer is returned).

pypto.func inline @twice(%x: !pypto.tensor<[M, 4], f32>) -> !pypto.tensor<[M, 4], f32> {
  %y = pypto.tensor.add %x, %x : !pypto.tensor<[M, 4], f32>
  pypto.return %y : !pypto.tensor<[M, 4], f32>
}

pypto.func @main(%a: !pypto.tensor<[N, 4], f32>) -> (!pypto.tensor<[N, 4], f32>, !pypto.tensor<[N, 1], f32>, !pypto.tensor<[N, 4], f32>) {
  %c0 = arith.constant 0 : index
  %d = pypto.call @twice(%a) : (!pypto.tensor<[N, 4], f32>) -> !pypto.tensor<[N, 4], f32>
  %o0 = pypto.tensor.create : !pypto.tensor<[N, 4], f32>
  %s0 = pypto.tensor.create : !pypto.tensor<[N, 1], f32>
  %o, %s = pypto.incore_scope -> (!pypto.tensor<[N, 4], f32>, !pypto.tensor<[N, 1], f32>) {
    %t = pypto.tile.load %d[%c0, %c0] : !pypto.tensor<[N, 4], f32> -> !pypto.tile<[1, 4], f32, vec>
    %r = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[N, 4], f32> -> !pypto.tile<[1, 4], f32, vec>
    %n = pypto.tile.neg %r : !pypto.tile<[1, 4], f32, vec>
    %o1 = pypto.tile.store %n, %o0[%c0, %c0] : !pypto.tile<[1, 4], f32, vec>, !pypto.tensor<[N, 4], f32>
    %all = pypto.tile.load %d[%c0, %c0] : !pypto.tensor<[N, 4], f32> -> !pypto.tile<[2, 4], f32, vec>
    %rs = pypto.tile.row_sum %all : !pypto.tile<[2, 4], f32, vec> -> !pypto.tile<[2, 1], f32, vec>
    %s1 = pypto.tile.store %rs, %s0[%c0, %c0] : !pypto.tile<[2, 1], f32, vec>, !pypto.tensor<[N, 1], f32>
    pypto.yield %o1, %s1 : !pypto.tensor<[N, 4], f32>, !pypto.tensor<[N, 1], f32>
  }
  pypto.return %d, %s, %o : !pypto.tensor<[N, 4], f32>, !pypto.tensor<[N, 1], f32>, !pypto.tensor<[N, 4], f32>
}

// CHECK:      result #0: [2, 4] float32 sum=56 min=0 max=14 mean=7
// CHECK-NEXT: result #1: [2, 1] float32 sum=56 min=12 max=44 mean=28
// CHECK-NEXT: result #2: [2, 4] float32 sum=-6 min=-3 max=0 mean=-0.75

// RANDOM: result #0: [3, 4] float32
// RANDOM: result #2: [3, 4] float32

// ERR: pypto-run.mlir:{{[0-9]+}}:1: error: argument #0 of @main: unbound symbol N in shape [N, 4]
