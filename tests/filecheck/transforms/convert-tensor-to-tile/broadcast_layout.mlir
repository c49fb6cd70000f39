// RUN: pypto-opt %s --split-input-file -p 'convert-tensor-to-tile{ub-bytes=16384}' | filecheck %s
// RUN: pypto-opt %s --split-input-file -p 'convert-tensor-to-tile{ub-bytes=16384},verify-convert-tensor-to-tile' | filecheck %s --check-prefix=VERIFY

// The tensor ops of the broadcast/layout set in fusion groups: column broadcasts, the new
// unary and scalar ops, fills, concat, atomic sinks.

// A tensor-level layernorm with gamma/beta rows is one fusion group over 20 rows: the
// [1, 64] gamma and beta rows are column vectors, loaded whole once before the loop (every
// row block reads all of them) and counted once in the sizing.
// Sizing (ub-bytes=16384): the load of %x and the stored %o are double-buffered queues of
// 256 B per row, gamma and beta single queues of 256 B (loaded before the loop); the VECCALC
// tiles (d, sq, n, g: 256 B per row; six [R, 1] row values; two Brcb scratch buffers of
// 256 B) share buffers by live range (d lives from the row_expand_sub to the row_expand_mul).
// R = 12 takes 22528 B so; as ascendc-plan-buffers computes results in place when the
// double-buffered plan overflows (d over the loaded x, n over d, each row value over the one
// it is computed from), 15936 B; R = 13 17216 B (too many); the fewest equal blocks of <= 12
// rows: 2 of 10.

pypto.func incore @layernorm(%x: !pypto.tensor<[20, 64], f32>, %gamma: !pypto.tensor<[1, 64], f32>, %beta: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[20, 64], f32>) -> !pypto.tensor<[20, 64], f32> {
  %c0 = arith.constant 0 : index
  %inv_n = arith.constant 1.562500e-02 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %s = pypto.tensor.row_sum %x : !pypto.tensor<[20, 64], f32>
  %mean = pypto.tensor.muls %s, %inv_n : !pypto.tensor<[20, 1], f32>, f32
  %d = pypto.tensor.row_expand_sub %x, %mean : !pypto.tensor<[20, 64], f32>, !pypto.tensor<[20, 1], f32>
  %sq = pypto.tensor.mul %d, %d : !pypto.tensor<[20, 64], f32>
  %vs = pypto.tensor.row_sum %sq : !pypto.tensor<[20, 64], f32>
  %var = pypto.tensor.muls %vs, %inv_n : !pypto.tensor<[20, 1], f32>, f32
  %ve = pypto.tensor.adds %var, %eps : !pypto.tensor<[20, 1], f32>, f32
  %rstd = pypto.tensor.rsqrt %ve : !pypto.tensor<[20, 1], f32>
  %n = pypto.tensor.row_expand_mul %d, %rstd : !pypto.tensor<[20, 64], f32>, !pypto.tensor<[20, 1], f32>
  %g = pypto.tensor.col_expand_mul %n, %gamma : !pypto.tensor<[20, 64], f32>, !pypto.tensor<[1, 64], f32>
  %o = pypto.tensor.col_expand_add %g, %beta : !pypto.tensor<[20, 64], f32>, !pypto.tensor<[1, 64], f32>
  %y2 = pypto.tensor.assemble %o into %y[%c0, %c0] : !pypto.tensor<[20, 64], f32> into !pypto.tensor<[20, 64], f32>
  pypto.return %y2 : !pypto.tensor<[20, 64], f32>
}

// CHECK-LABEL: pypto.func incore @layernorm(%x: !pypto.tensor<[20, 64], f32>, %gamma: !pypto.tensor<[1, 64], f32>, %beta: !pypto.tensor<[1, 64], f32>, out %y: !pypto.tensor<[20, 64], f32>) -> !pypto.tensor<[20, 64], f32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %inv_n = arith.constant 1.562500e-02 : f32
// CHECK-NEXT:    %eps = arith.constant 1.000000e-05 : f32
// CHECK-NEXT:    %gamma_tile = pypto.tile.load %gamma[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:    %beta_tile = pypto.tile.load %beta[%c0, %c0] : !pypto.tensor<[1, 64], f32> -> !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:    %c20 = arith.constant 20 : index
// CHECK-NEXT:    %c10 = arith.constant 10 : index
// CHECK-NEXT:    %y_1 = scf.for %row = %c0 to %c20 step %c10 iter_args(%y_2 = %y) -> (!pypto.tensor<[20, 64], f32>) {
// CHECK-NEXT:      %x_tile = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[20, 64], f32> -> !pypto.tile<[10, 64], f32, vec>
// CHECK-NEXT:      %s_tile = pypto.tile.row_sum %x_tile : !pypto.tile<[10, 64], f32, vec>
// CHECK-NEXT:      %mean_tile = pypto.tile.muls %s_tile, %inv_n : !pypto.tile<[10, 1], f32, vec>, f32
// CHECK-NEXT:      %d_tile = pypto.tile.row_expand_sub %x_tile, %mean_tile : !pypto.tile<[10, 64], f32, vec>, !pypto.tile<[10, 1], f32, vec>
// CHECK-NEXT:      %sq_tile = pypto.tile.mul %d_tile, %d_tile : !pypto.tile<[10, 64], f32, vec>
// CHECK-NEXT:      %vs_tile = pypto.tile.row_sum %sq_tile : !pypto.tile<[10, 64], f32, vec>
// CHECK-NEXT:      %var_tile = pypto.tile.muls %vs_tile, %inv_n : !pypto.tile<[10, 1], f32, vec>, f32
// CHECK-NEXT:      %ve_tile = pypto.tile.adds %var_tile, %eps : !pypto.tile<[10, 1], f32, vec>, f32
// CHECK-NEXT:      %rstd_tile = pypto.tile.rsqrt %ve_tile : !pypto.tile<[10, 1], f32, vec>
// CHECK-NEXT:      %n_tile = pypto.tile.row_expand_mul %d_tile, %rstd_tile : !pypto.tile<[10, 64], f32, vec>, !pypto.tile<[10, 1], f32, vec>
// CHECK-NEXT:      %g_tile = pypto.tile.col_expand_mul %n_tile, %gamma_tile : !pypto.tile<[10, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:      %o_tile = pypto.tile.col_expand_add %g_tile, %beta_tile : !pypto.tile<[10, 64], f32, vec>, !pypto.tile<[1, 64], f32, vec>
// CHECK-NEXT:      %y_3 = pypto.tile.store %o_tile, %y_2[%row, %c0] : !pypto.tile<[10, 64], f32, vec>, !pypto.tensor<[20, 64], f32>
// CHECK-NEXT:      scf.yield %y_3 : !pypto.tensor<[20, 64], f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %y_1 : !pypto.tensor<[20, 64], f32>
// CHECK-NEXT:  }
// VERIFY-LABEL: pypto.func incore @layernorm

// -----

// gelu in its tanh form, f16, assembled atomically: the group's store is a tile.atomic_store.

pypto.func incore @gelu(%x: !pypto.tensor<[16, 128], f16>, out %y: !pypto.tensor<[16, 128], f16>) -> !pypto.tensor<[16, 128], f16> {
  %c0 = arith.constant 0 : index
  %half = arith.constant 5.000000e-01 : f16
  %one = arith.constant 1.000000e+00 : f16
  %k = arith.constant 7.978516e-01 : f16
  %a = arith.constant 4.471970e-02 : f16
  %x2 = pypto.tensor.mul %x, %x : !pypto.tensor<[16, 128], f16>
  %x3 = pypto.tensor.mul %x2, %x : !pypto.tensor<[16, 128], f16>
  %ax3 = pypto.tensor.muls %x3, %a : !pypto.tensor<[16, 128], f16>, f16
  %inner = pypto.tensor.add %x, %ax3 : !pypto.tensor<[16, 128], f16>
  %z = pypto.tensor.muls %inner, %k : !pypto.tensor<[16, 128], f16>, f16
  %t = pypto.tensor.tanh %z : !pypto.tensor<[16, 128], f16>
  %t1 = pypto.tensor.adds %t, %one : !pypto.tensor<[16, 128], f16>, f16
  %hx = pypto.tensor.muls %x, %half : !pypto.tensor<[16, 128], f16>, f16
  %g = pypto.tensor.mul %hx, %t1 : !pypto.tensor<[16, 128], f16>
  %y2 = pypto.tensor.assemble %g into %y[%c0, %c0] atomic(add) : !pypto.tensor<[16, 128], f16> into !pypto.tensor<[16, 128], f16>
  pypto.return %y2 : !pypto.tensor<[16, 128], f16>
}

// CHECK-LABEL: pypto.func incore @gelu(%x: !pypto.tensor<[16, 128], f16>, out %y: !pypto.tensor<[16, 128], f16>) -> !pypto.tensor<[16, 128], f16> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %half = arith.constant 5.000000e-01 : f16
// CHECK-NEXT:    %one = arith.constant 1.000000e+00 : f16
// CHECK-NEXT:    %k = arith.constant 7.978520e-01 : f16
// CHECK-NEXT:    %a = arith.constant 4.470830e-02 : f16
// CHECK-NEXT:    %c16 = arith.constant 16 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %y_1 = scf.for %row = %c0 to %c16 step %c8 iter_args(%y_2 = %y) -> (!pypto.tensor<[16, 128], f16>) {
// CHECK-NEXT:      %x_tile = pypto.tile.load %x[%row, %c0] : !pypto.tensor<[16, 128], f16> -> !pypto.tile<[8, 128], f16, vec>
// CHECK-NEXT:      %x2_tile = pypto.tile.mul %x_tile, %x_tile : !pypto.tile<[8, 128], f16, vec>
// CHECK-NEXT:      %x3_tile = pypto.tile.mul %x2_tile, %x_tile : !pypto.tile<[8, 128], f16, vec>
// CHECK-NEXT:      %ax3_tile = pypto.tile.muls %x3_tile, %a : !pypto.tile<[8, 128], f16, vec>, f16
// CHECK-NEXT:      %inner_tile = pypto.tile.add %x_tile, %ax3_tile : !pypto.tile<[8, 128], f16, vec>
// CHECK-NEXT:      %z_tile = pypto.tile.muls %inner_tile, %k : !pypto.tile<[8, 128], f16, vec>, f16
// CHECK-NEXT:      %t_tile = pypto.tile.tanh %z_tile : !pypto.tile<[8, 128], f16, vec>
// CHECK-NEXT:      %t1_tile = pypto.tile.adds %t_tile, %one : !pypto.tile<[8, 128], f16, vec>, f16
// CHECK-NEXT:      %hx_tile = pypto.tile.muls %x_tile, %half : !pypto.tile<[8, 128], f16, vec>, f16
// CHECK-NEXT:      %g_tile = pypto.tile.mul %hx_tile, %t1_tile : !pypto.tile<[8, 128], f16, vec>
// CHECK-NEXT:      %y_3 = pypto.tile.atomic_store %g_tile, %y_2[%row, %c0] atomic(add) : !pypto.tile<[8, 128], f16, vec>, !pypto.tensor<[16, 128], f16>
// CHECK-NEXT:      scf.yield %y_3 : !pypto.tensor<[16, 128], f16>
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %y_1 : !pypto.tensor<[16, 128], f16>
// CHECK-NEXT:  }
// VERIFY-LABEL: pypto.func incore @gelu

// -----

// tensor.full and tensor.expands are tile.full in the loop (the expands target is not
// loaded: only its shape counts); maximums and concat fuse with them.

pypto.func incore @fill_concat(%x: !pypto.tensor<[8, 16], f32>, %s: f32, out %y: !pypto.tensor<[8, 32], f32>) -> !pypto.tensor<[8, 32], f32> {
  %c0 = arith.constant 0 : index
  %f = pypto.tensor.full %s : f32 -> !pypto.tensor<[8, 16], f32>
  %e = pypto.tensor.expands %x, %s : !pypto.tensor<[8, 16], f32>, f32
  %m = pypto.tensor.maximums %x, %s : !pypto.tensor<[8, 16], f32>, f32
  %a = pypto.tensor.add %f, %e : !pypto.tensor<[8, 16], f32>
  %c = pypto.tensor.concat %a, %m : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], f32>
  %y2 = pypto.tensor.assemble %c into %y[%c0, %c0] : !pypto.tensor<[8, 32], f32> into !pypto.tensor<[8, 32], f32>
  pypto.return %y2 : !pypto.tensor<[8, 32], f32>
}

// CHECK-LABEL: pypto.func incore @fill_concat(%x: !pypto.tensor<[8, 16], f32>, %s: f32, out %y: !pypto.tensor<[8, 32], f32>) -> !pypto.tensor<[8, 32], f32> {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %x_tile = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 16], f32> -> !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:    %f_tile = pypto.tile.full %s : f32 -> !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:    %e_tile = pypto.tile.full %s : f32 -> !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:    %m_tile = pypto.tile.maximums %x_tile, %s : !pypto.tile<[8, 16], f32, vec>, f32
// CHECK-NEXT:    %a_tile = pypto.tile.add %f_tile, %e_tile : !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:    %c_tile = pypto.tile.concat %a_tile, %m_tile : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>
// CHECK-NEXT:    %y_1 = pypto.tile.store %c_tile, %y[%c0, %c0] : !pypto.tile<[8, 32], f32, vec>, !pypto.tensor<[8, 32], f32>
// CHECK-NEXT:    pypto.return %y_1 : !pypto.tensor<[8, 32], f32>
// CHECK-NEXT:  }
// VERIFY-LABEL: pypto.func incore @fill_concat
