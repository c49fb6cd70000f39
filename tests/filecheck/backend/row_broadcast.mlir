// RUN: pypto-opt %s -t ascendc | filecheck %s
// Row broadcasts ([R, C] op [R, 1]) on the vector pipe: Brcb writes each row value into its own
// 32-byte block of a scratch buffer, then level-0 Sub/Mul/Div run one repeat per row, src1
// re-reading that row's block (block stride 0, repeat stride 1). Rows wider than one 256-byte
// repeat take one instruction per column chunk (the last one masked), more than 255 rows one
// per group of 255 rows. f32, f16 and i32; tests/test_backend_e2e.py runs it.

!x8 = !pypto.tensor<[8, 200], f32>
!t8 = !pypto.tile<[8, 200], f32, vec>
!r8 = !pypto.tensor<[8, 1], f32>
!c8 = !pypto.tile<[8, 1], f32, vec>
!x300 = !pypto.tensor<[300, 8], f32>
!t300 = !pypto.tile<[300, 8], f32, vec>
!r300 = !pypto.tensor<[300, 1], f32>
!c300 = !pypto.tile<[300, 1], f32, vec>
!xh = !pypto.tensor<[16, 160], f16>
!th = !pypto.tile<[16, 160], f16, vec>
!rh = !pypto.tensor<[16, 1], f16>
!ch = !pypto.tile<[16, 1], f16, vec>
!xi = !pypto.tensor<[8, 72], i32>
!ti = !pypto.tile<[8, 72], i32, vec>
!ri = !pypto.tensor<[8, 1], i32>
!ci = !pypto.tile<[8, 1], i32, vec>

// 200 floats per row: column chunks 0, 64, 128 (64 lanes) and 192 (mask 8); rows 25 blocks apart.
pypto.func incore @wide(%x: !x8, %r: !r8, out %y: !x8) -> !x8 {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !x8 -> !t8
  %v = pypto.tile.load %r[%c0, %c0] : !r8 -> !c8
  %d = pypto.tile.row_expand_sub %t, %v : !t8, !c8
  %w = pypto.tile.store %d, %y[%c0, %c0] : !t8, !x8
  pypto.return %w : !x8
}

// CHECK-LABEL: // ===== file: kernels/wide.cpp =====
// CHECK: TBuf<TPosition::VECCALC> buf_d_brcb;  // %d.scratch (row broadcast)
// CHECK: pipe.InitBuffer(buf_d_brcb, 256);
// CHECK: LocalTensor<float> d = outQ_d.AllocTensor<float>();
// CHECK-NEXT: LocalTensor<float> d_brcb = buf_d_brcb.Get<float>();
// CHECK-NEXT: Brcb(d_brcb, v, 1, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Sub(d, t, d_brcb, 64, 8, BinaryRepeatParams(1, 1, 0, 25, 25, 1));
// CHECK-NEXT: Sub(d[64], t[64], d_brcb, 64, 8, BinaryRepeatParams(1, 1, 0, 25, 25, 1));
// CHECK-NEXT: Sub(d[128], t[128], d_brcb, 64, 8, BinaryRepeatParams(1, 1, 0, 25, 25, 1));
// CHECK-NEXT: Sub(d[192], t[192], d_brcb, 8, 8, BinaryRepeatParams(1, 1, 0, 25, 25, 1));
// CHECK-NOT: GetValue
// CHECK-NOT: SetFlag

// 300 rows: 38 Brcb repeats; rows 0-254, then rows 255-299 from element 255 * 8 and block 255.
pypto.func incore @tall(%x: !x300, %r: !r300, out %y: !x300) -> !x300 {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !x300 -> !t300
  %v = pypto.tile.load %r[%c0, %c0] : !r300 -> !c300
  %d = pypto.tile.row_expand_mul %t, %v : !t300, !c300
  %w = pypto.tile.store %d, %y[%c0, %c0] : !t300, !x300
  pypto.return %w : !x300
}

// CHECK-LABEL: // ===== file: kernels/tall.cpp =====
// CHECK: pipe.InitBuffer(buf_d_brcb, 9728);
// CHECK: Brcb(d_brcb, v, 38, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Mul(d, t, d_brcb, 8, 255, BinaryRepeatParams(1, 1, 0, 1, 1, 1));
// CHECK-NEXT: Mul(d[2040], t[2040], d_brcb[2040], 8, 45, BinaryRepeatParams(1, 1, 0, 1, 1, 1));

// f16: 128 lanes per repeat (chunks 0 and 128, mask 32), 16 halves per block; the row values
// of the second broadcast are computed (row_max) rather than loaded.
pypto.func incore @halves(%x: !xh, %r: !rh, out %y: !xh, out %z: !xh) -> (!xh, !xh) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !xh -> !th
  %v = pypto.tile.load %r[%c0, %c0] : !rh -> !ch
  %q = pypto.tile.row_expand_div %t, %v : !th, !ch
  %w = pypto.tile.store %q, %y[%c0, %c0] : !th, !xh
  %m = pypto.tile.row_max %t : !th -> !ch
  %s = pypto.tile.row_expand_sub %t, %m : !th, !ch
  %w2 = pypto.tile.store %s, %z[%c0, %c0] : !th, !xh
  pypto.return %w, %w2 : !xh, !xh
}

// CHECK-LABEL: // ===== file: kernels/halves.cpp =====
// CHECK: Brcb(q_brcb, v, 2, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Div(q, t, q_brcb, 128, 16, BinaryRepeatParams(1, 1, 0, 10, 10, 1));
// CHECK-NEXT: Div(q[128], t[128], q_brcb, 32, 16, BinaryRepeatParams(1, 1, 0, 10, 10, 1));
// CHECK: Brcb(s_brcb, m, 2, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Sub(s, t, s_brcb, 128, 16, BinaryRepeatParams(1, 1, 0, 10, 10, 1));
// CHECK-NEXT: Sub(s[128], t[128], s_brcb, 32, 16, BinaryRepeatParams(1, 1, 0, 10, 10, 1));

// i32: Brcb and level-0 Sub/Mul have integer forms (Div does not); a [8, 1] column with a
// [8, 1] column is elementwise.
pypto.func incore @ints(%x: !xi, %r: !ri, out %y: !xi, out %z: !ri) -> (!xi, !ri) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !xi -> !ti
  %v = pypto.tile.load %r[%c0, %c0] : !ri -> !ci
  %a = pypto.tile.row_expand_mul %t, %v : !ti, !ci
  %b = pypto.tile.row_expand_sub %a, %v : !ti, !ci
  %w = pypto.tile.store %b, %y[%c0, %c0] : !ti, !xi
  %vv = pypto.tile.row_expand_sub %v, %v : !ci, !ci
  %w2 = pypto.tile.store %vv, %z[%c0, %c0] : !ci, !ri
  pypto.return %w, %w2 : !xi, !ri
}

// CHECK-LABEL: // ===== file: kernels/ints.cpp =====
// CHECK: Brcb(a_brcb, v, 1, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Mul(a, t, a_brcb, 64, 8, BinaryRepeatParams(1, 1, 0, 9, 9, 1));
// CHECK-NEXT: Mul(a[64], t[64], a_brcb, 8, 8, BinaryRepeatParams(1, 1, 0, 9, 9, 1));
// CHECK: Brcb(b_brcb, v, 1, BrcbRepeatParams(1, 8));
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: Sub(b, a, b_brcb, 64, 8, BinaryRepeatParams(1, 1, 0, 9, 9, 1));
// CHECK-NEXT: Sub(b[64], a[64], b_brcb, 8, 8, BinaryRepeatParams(1, 1, 0, 9, 9, 1));
// CHECK: Sub(vv, v, v, 8);

pypto.func orchestration @main(%x8: !x8, %r8: !r8, %x300: !x300, %r300: !r300, %xh: !xh, %rh: !rh, %xi: !xi, %ri: !ri, out %y8: !x8, out %y300: !x300, out %yh: !xh, out %zh: !xh, out %yi: !xi, out %zi: !ri) -> (!x8, !x300, !xh, !xh, !xi, !ri) {
  %a = pypto.call @wide(%x8, %r8, %y8) : (!x8, !r8, !x8) -> !x8
  %b = pypto.call @tall(%x300, %r300, %y300) : (!x300, !r300, !x300) -> !x300
  %c:2 = pypto.call @halves(%xh, %rh, %yh, %zh) : (!xh, !rh, !xh, !xh) -> (!xh, !xh)
  %d:2 = pypto.call @ints(%xi, %ri, %yi, %zi) : (!xi, !ri, !xi, !ri) -> (!xi, !ri)
  pypto.return %a, %b, %c#0, %c#1, %d#0, %d#1 : !x8, !x300, !xh, !xh, !xi, !ri
}
