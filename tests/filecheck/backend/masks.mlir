// RUN: pypto-opt %s -t ascendc | filecheck %s
// Predicate masks in Ascend C: Compare into a uint8 mask from padded copies, Compares straight
// from a tile (an EQ's pad is NaN), Select per row (Select of a tensor and a scalar), and an int16 sels selecting as half bits (ReinterpretCast)
// against a row of the scalar. scripts/check_devkit_headers.py type-checks it.

pypto.func incore @k(%x: !pypto.tensor<[8, 16], f32>, %w: !pypto.tensor<[2, 256], f32>, %v: !pypto.tensor<[8, 16], i16>, %s: f32, %t: i16, out %y: !pypto.tensor<[8, 16], f32>, out %z: !pypto.tensor<[8, 16], i16>, out %u: !pypto.tensor<[2, 32], ui8>) -> (!pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], i16>, !pypto.tensor<[2, 32], ui8>) {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[8, 16], f32> -> !pypto.tile<[8, 16], f32, vec>
  %tmp = pypto.tile.create : !pypto.tile<[1, 32], ui8, vec>
  %m = pypto.tile.cmp %a, %a cmp(lt) : !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>
  %r = pypto.tile.sel %m, %a, %a, %tmp : !pypto.tile<[8, 32], ui8, vec>, !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>
  %e = pypto.tile.cmps %a, %s cmp(eq) : !pypto.tile<[8, 16], f32, vec>, f32
  %r2 = pypto.tile.sels %e, %r, %tmp, %s : !pypto.tile<[8, 32], ui8, vec>, !pypto.tile<[8, 16], f32, vec>, !pypto.tile<[1, 32], ui8, vec>, f32
  %y1 = pypto.tile.store %r2, %y[%c0, %c0] : !pypto.tile<[8, 16], f32, vec>, !pypto.tensor<[8, 16], f32>
  %b = pypto.tile.load %w[%c0, %c0] : !pypto.tensor<[2, 256], f32> -> !pypto.tile<[2, 256], f32, vec>
  %n = pypto.tile.cmps %b, %s cmp(ge) : !pypto.tile<[2, 256], f32, vec>, f32
  %u1 = pypto.tile.store %n, %u[%c0, %c0] : !pypto.tile<[2, 32], ui8, vec>, !pypto.tensor<[2, 32], ui8>
  %i = pypto.tile.load %v[%c0, %c0] : !pypto.tensor<[8, 16], i16> -> !pypto.tile<[8, 16], i16, vec>
  %q = pypto.tile.sels %m, %i, %tmp, %t : !pypto.tile<[8, 32], ui8, vec>, !pypto.tile<[8, 16], i16, vec>, !pypto.tile<[1, 32], ui8, vec>, i16
  %z1 = pypto.tile.store %q, %z[%c0, %c0] : !pypto.tile<[8, 16], i16, vec>, !pypto.tensor<[8, 16], i16>
  pypto.return %y1, %z1, %u1 : !pypto.tensor<[8, 16], f32>, !pypto.tensor<[8, 16], i16>, !pypto.tensor<[2, 32], ui8>
}

// CHECK-LABEL: // ===== file: kernels/k.cpp =====
// CHECK: Duplicate(m_tmp, static_cast<float>(0), 2048);
// CHECK: Compare(m, m_tmp, m_tmp[2048], CMPMODE::LT, 2048);
// CHECK: Select(r[112], m[224], a[112], a[112], SELMODE::VSEL_TENSOR_TENSOR_MODE, 16);
// CHECK: Duplicate({{.*}}, NumericLimits<float>::QuietNaN(), 2048);
// CHECK: Compares(e, {{.*}}, s, CMPMODE::EQ, 2048);
// CHECK: Select({{.*}}, e, r, s, SELMODE::VSEL_TENSOR_SCALAR_MODE, 16);
// CHECK: Compares(n, b, s, CMPMODE::GE, 512);
// CHECK: Duplicate(q_tmp, t, 16);
// CHECK: Select(q.ReinterpretCast<half>(), m, i.ReinterpretCast<half>(), q_tmp.ReinterpretCast<half>(), SELMODE::VSEL_TENSOR_TENSOR_MODE, 16);
// CHECK: Select(q.ReinterpretCast<half>()[112], m[224], i.ReinterpretCast<half>()[112], q_tmp.ReinterpretCast<half>(), SELMODE::VSEL_TENSOR_TENSOR_MODE, 16);
