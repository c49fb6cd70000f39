// RUN: PYPTO_ROUNDTRIP
// RUN: PYPTO_GENERIC_ROUNDTRIP

// Every type and enum attribute of the pypto dialect prints and parses back, in the
// custom form (checked after a generic round trip) and in the generic form.

builtin.module {
  // Tensor dims: static, named symbol, unknown `?`, rank 0; every element type.
  pypto.func @tensors(%static: !pypto.tensor<[64, 128], f32>, %sym: !pypto.tensor<[N, 4], f16>, %dyn: !pypto.tensor<[?, M, 8], bf16>, %scalar: !pypto.tensor<[], i32>, %b: !pypto.tensor<[2], i1>, %i8: !pypto.tensor<[2], i8>, %i16: !pypto.tensor<[2], i16>, %i64: !pypto.tensor<[2], i64>, %u8: !pypto.tensor<[2], ui8>, %u16: !pypto.tensor<[2], ui16>, %u32: !pypto.tensor<[2], ui32>, %u64: !pypto.tensor<[2], ui64>) {
    pypto.return
  }
  // Tiles in every memory space.
  pypto.func @tiles(%v: !pypto.tile<[64, 64], f32, vec>, %m: !pypto.tile<[32, 16], f16, mat>, %l: !pypto.tile<[16, 16], f16, left>, %r: !pypto.tile<[16, 16], f16, right>, %a: !pypto.tile<[16, 16], f32, acc>, %bi: !pypto.tile<[1, 16], f32, bias>, %s: !pypto.tile<[N, ?], i32, vec>) {
    pypto.return
  }
  pypto.func @task(%t: !pypto.task_id) -> !pypto.task_id {
    pypto.return %t : !pypto.task_id
  }
  // Enum attributes in their standalone (spaced opaque) form, every case.
  pypto.func @enums() attributes {kinds = [#pypto<kind opaque>, #pypto<kind inline>, #pypto<kind incore>, #pypto<kind aic>, #pypto<kind aiv>, #pypto<kind orchestration>], dirs = [#pypto<dir in>, #pypto<dir out>, #pypto<dir inout>], mems = [#pypto<mem vec>, #pypto<mem mat>, #pypto<mem left>, #pypto<mem right>, #pypto<mem acc>, #pypto<mem bias>], levels = [#pypto<level aiv>, #pypto<level aic>, #pypto<level core_group>], splits = [#pypto<split none>, #pypto<split up_down>, #pypto<split left_right>], types = [!pypto.tensor<[8], f32>, !pypto.tile<[8], f32, vec>, !pypto.task_id]} {
    pypto.return
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   pypto.func @tensors(%static: !pypto.tensor<[64, 128], f32>, %sym: !pypto.tensor<[N, 4], f16>, %dyn: !pypto.tensor<[?, M, 8], bf16>, %scalar: !pypto.tensor<[], i32>, %b: !pypto.tensor<[2], i1>, %i8: !pypto.tensor<[2], i8>, %i16: !pypto.tensor<[2], i16>, %i64: !pypto.tensor<[2], i64>, %u8: !pypto.tensor<[2], ui8>, %u16: !pypto.tensor<[2], ui16>, %u32: !pypto.tensor<[2], ui32>, %u64: !pypto.tensor<[2], ui64>) {
// CHECK-NEXT:     pypto.return
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func @tiles(%v: !pypto.tile<[64, 64], f32, vec>, %m: !pypto.tile<[32, 16], f16, mat>, %l: !pypto.tile<[16, 16], f16, left>, %r: !pypto.tile<[16, 16], f16, right>, %a: !pypto.tile<[16, 16], f32, acc>, %bi: !pypto.tile<[1, 16], f32, bias>, %s: !pypto.tile<[N, ?], i32, vec>) {
// CHECK-NEXT:     pypto.return
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func @task(%t: !pypto.task_id) -> !pypto.task_id {
// CHECK-NEXT:     pypto.return %t : !pypto.task_id
// CHECK-NEXT:   }
// CHECK-NEXT:   pypto.func @enums() attributes {kinds = [#pypto<kind opaque>, #pypto<kind inline>, #pypto<kind incore>, #pypto<kind aic>, #pypto<kind aiv>, #pypto<kind orchestration>], dirs = [#pypto<dir in>, #pypto<dir out>, #pypto<dir inout>], mems = [#pypto<mem vec>, #pypto<mem mat>, #pypto<mem left>, #pypto<mem right>, #pypto<mem acc>, #pypto<mem bias>], levels = [#pypto<level aiv>, #pypto<level aic>, #pypto<level core_group>], splits = [#pypto<split none>, #pypto<split up_down>, #pypto<split left_right>], types = [!pypto.tensor<[8], f32>, !pypto.tile<[8], f32, vec>, !pypto.task_id]} {
// CHECK-NEXT:     pypto.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-GENERIC:      "pypto.func"() <{sym_name = "tensors", function_type = (!pypto.tensor<[64, 128], f32>, !pypto.tensor<[N, 4], f16>, !pypto.tensor<[?, M, 8], bf16>, !pypto.tensor<[], i32>, !pypto.tensor<[2], i1>, !pypto.tensor<[2], i8>, !pypto.tensor<[2], i16>, !pypto.tensor<[2], i64>, !pypto.tensor<[2], ui8>, !pypto.tensor<[2], ui16>, !pypto.tensor<[2], ui32>, !pypto.tensor<[2], ui64>) -> (), kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC:      "pypto.func"() <{sym_name = "tiles", function_type = (!pypto.tile<[64, 64], f32, vec>, !pypto.tile<[32, 16], f16, mat>, !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>, !pypto.tile<[16, 16], f32, acc>, !pypto.tile<[1, 16], f32, bias>, !pypto.tile<[N, ?], i32, vec>) -> (), kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC:      "pypto.func"() <{sym_name = "task", function_type = (!pypto.task_id) -> !pypto.task_id, kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT: ^bb0(%t: !pypto.task_id):
// CHECK-GENERIC-NEXT:   "pypto.return"(%t) : (!pypto.task_id) -> ()
// CHECK-GENERIC:      "pypto.func"() <{sym_name = "enums", function_type = () -> (), kind = #pypto<kind opaque>}> ({
// CHECK-GENERIC-NEXT:   "pypto.return"() : () -> ()
// CHECK-GENERIC-NEXT: }) {kinds = [#pypto<kind opaque>, #pypto<kind inline>, #pypto<kind incore>, #pypto<kind aic>, #pypto<kind aiv>, #pypto<kind orchestration>], dirs = [#pypto<dir in>, #pypto<dir out>, #pypto<dir inout>], mems = [#pypto<mem vec>, #pypto<mem mat>, #pypto<mem left>, #pypto<mem right>, #pypto<mem acc>, #pypto<mem bias>], levels = [#pypto<level aiv>, #pypto<level aic>, #pypto<level core_group>], splits = [#pypto<split none>, #pypto<split up_down>, #pypto<split left_right>], types = [!pypto.tensor<[8], f32>, !pypto.tile<[8], f32, vec>, !pypto.task_id]} : () -> ()
