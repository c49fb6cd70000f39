// RUN: pypto-opt %s -p pypto-default -t ascendc | filecheck %s
// tensor.assemble left inside a kernel copies global memory into global memory through UB:
// DataCopy(Pad) into a VECIN staging tensor, a transpose (scalar unit) or a UB -> UB DataCopy
// into a VECOUT one, DataCopy(Pad) out into the destination window. A tensor.transpose emits
// nothing of its own.

// CHECK-LABEL: void tr(GM_ADDR x, GM_ADDR o)
// CHECK: TQue<TPosition::VECIN, 1> inQ_r_in;  // %r.in (UB staging of a global-to-global assemble of !pypto.tensor<[5, 12], f16>)
// CHECK: TQue<TPosition::VECOUT, 1> outQ_r_out;
// CHECK: DataCopyPad(r_in, x_gm, DataCopyExtParams(5, 24, 0, 0, 0), DataCopyPadExtParams<half>(false, 0, 0, 0));
// CHECK-NEXT: inQ_r_in.EnQue(r_in);
// CHECK-NEXT: r_in = inQ_r_in.DeQue<half>();
// CHECK: WaitFlag<HardEvent::MTE2_S>
// CHECK: half elem = r_in.GetValue(
// CHECK: r_out.SetValue(
// CHECK: WaitFlag<HardEvent::S_MTE3>
// CHECK: inQ_r_in.FreeTensor(r_in);
// CHECK-NEXT: outQ_r_out.EnQue(r_out);
// CHECK-NEXT: r_out = outQ_r_out.DeQue<half>();
// CHECK-NEXT: DataCopyPad(o_gm[51], r_out, DataCopyExtParams(12, 10, 0, 38, 0));
// CHECK-NEXT: outQ_r_out.FreeTensor(r_out);
// CHECK-NEXT: }
pypto.func incore @tr(%x: !pypto.tensor<[5, 12], f16>, inout %o: !pypto.tensor<[16, 24], f16>) -> !pypto.tensor<[16, 24], f16> {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %t = pypto.tensor.transpose %x, 0, 1 : !pypto.tensor<[5, 12], f16> -> !pypto.tensor<[12, 5], f16>
  %r = pypto.tensor.assemble %t into %o[%c2, %c3] : !pypto.tensor<[12, 5], f16> into !pypto.tensor<[16, 24], f16>
  pypto.return %r : !pypto.tensor<[16, 24], f16>
}

// Overlapping windows of one tensor (o[0:6] = o[2:8]): the whole source is in UB before the
// copy out starts.
// CHECK-LABEL: void shift(GM_ADDR o)
// CHECK: DataCopyPad(r_in, o_gm[40], DataCopyExtParams(6, 80, 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0));
// CHECK-NOT: GetValue
// CHECK: DataCopy(r_out, r_in, 144);
// CHECK-NEXT: inQ_r_in.FreeTensor(r_in);
// CHECK: DataCopyPad(o_gm, r_out, DataCopyExtParams(6, 80, 0, 0, 0));
pypto.func incore @shift(inout %o: !pypto.tensor<[8, 20], f32>) -> !pypto.tensor<[8, 20], f32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %s = pypto.tensor.slice %o[%c2, %c0] : !pypto.tensor<[8, 20], f32> -> !pypto.tensor<[6, 20], f32>
  %r = pypto.tensor.assemble %s into %o[%c0, %c0] : !pypto.tensor<[6, 20], f32> into !pypto.tensor<[8, 20], f32>
  pypto.return %r : !pypto.tensor<[8, 20], f32>
}

pypto.func orchestration @main(%x: !pypto.tensor<[5, 12], f16>, inout %o: !pypto.tensor<[16, 24], f16>, inout %p: !pypto.tensor<[8, 20], f32>) -> (!pypto.tensor<[16, 24], f16>, !pypto.tensor<[8, 20], f32>) {
  %r = pypto.call @tr(%x, %o) : (!pypto.tensor<[5, 12], f16>, !pypto.tensor<[16, 24], f16>) -> !pypto.tensor<[16, 24], f16>
  %q = pypto.call @shift(%p) : (!pypto.tensor<[8, 20], f32>) -> !pypto.tensor<[8, 20], f32>
  pypto.return %r, %q : !pypto.tensor<[16, 24], f16>, !pypto.tensor<[8, 20], f32>
}
