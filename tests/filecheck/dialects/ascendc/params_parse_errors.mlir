// RUN: pypto-opt --parsing-diagnostics %s | filecheck %s
// A parameter-struct field too large for the op's i64 `static_values` is a located parse
// error naming the field, not an internal error (found by `make fuzz-errors`, huge-number).

%mp = ascendc.params "mp" MmadParams(m = 16, n = 16, k = -9223372036854775809, cmatrixInitVal = true)
// CHECK: params_parse_errors.mlir:5:58
// CHECK: field 'k' = -9223372036854775809 does not fit a 64-bit integer
// CHECK-NOT: Traceback
