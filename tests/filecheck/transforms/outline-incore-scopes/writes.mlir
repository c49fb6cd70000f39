// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | filecheck %s
// RUN: pypto-opt %s --split-input-file -p outline-incore-scopes | pypto-opt --split-input-file | filecheck %s

// Store-only scope (nothing yielded): the written capture %buf is still an output, the
// parameter is 'out' and returned, and later uses of %buf read the call's result.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[16, 128], f32>) -> !pypto.tensor<[16, 128], f32> {
    %buf = pypto.tensor.create : !pypto.tensor<[16, 128], f32>
    %zero = arith.constant 0.0 : f32
    pypto.incore_scope {
      %c0 = arith.constant 0 : index
      %tile = pypto.tile.full %zero : f32 -> !pypto.tile<[16, 128], f32, vec>
      %s = pypto.tile.store %tile, %buf[%c0, %c0] : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>
      pypto.yield
    }
    %result = pypto.tensor.add %buf, %x : !pypto.tensor<[16, 128], f32>
    pypto.return %result : !pypto.tensor<[16, 128], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(%x: !pypto.tensor<[16, 128], f32>) -> !pypto.tensor<[16, 128], f32> {
// CHECK-NEXT:    %buf = pypto.tensor.create
// CHECK-NEXT:    %zero = arith.constant
// CHECK-NEXT:    %[[BUF2:.*]] = pypto.call @main_incore_0(%buf) : (!pypto.tensor<[16, 128], f32>) -> !pypto.tensor<[16, 128], f32>
// CHECK-NEXT:    %result = pypto.tensor.add %[[BUF2]], %x
// CHECK-NEXT:    pypto.return %result
// CHECK:       pypto.func incore @main_incore_0(out %buf: !pypto.tensor<[16, 128], f32>) -> !pypto.tensor<[16, 128], f32> {
// CHECK-NEXT:    %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %tile = pypto.tile.full %zero
// CHECK-NEXT:    %s = pypto.tile.store %tile, %buf[%c0, %c0]
// CHECK-NEXT:    pypto.return %buf : !pypto.tensor<[16, 128], f32>

// -----

// Two store targets, neither yielded: outputs in first-write order, both 'out'.

builtin.module {
  pypto.func @main(%buf_a: !pypto.tensor<[16, 128], f32>, %buf_b: !pypto.tensor<[16, 1], f32>, %x: !pypto.tensor<[16, 128], f32>) -> (!pypto.tensor<[16, 128], f32>, !pypto.tensor<[16, 1], f32>) {
    pypto.incore_scope {
      %c0 = arith.constant 0 : index
      %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[16, 128], f32> -> !pypto.tile<[16, 128], f32, vec>
      %m = pypto.tile.row_max %t : !pypto.tile<[16, 128], f32, vec> -> !pypto.tile<[16, 1], f32, vec>
      %sa = pypto.tile.store %t, %buf_a[%c0, %c0] : !pypto.tile<[16, 128], f32, vec>, !pypto.tensor<[16, 128], f32>
      %sb = pypto.tile.store %m, %buf_b[%c0, %c0] : !pypto.tile<[16, 1], f32, vec>, !pypto.tensor<[16, 1], f32>
      pypto.yield
    }
    pypto.return %buf_a, %buf_b : !pypto.tensor<[16, 128], f32>, !pypto.tensor<[16, 1], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    %[[A:.*]], %[[B:.*]] = pypto.call @main_incore_0(%x, %buf_a, %buf_b)
// CHECK-NEXT:    pypto.return %[[A]], %[[B]]
// CHECK:       pypto.func incore @main_incore_0(%x: !pypto.tensor<[16, 128], f32>, out %buf_a: !pypto.tensor<[16, 128], f32>, out %buf_b: !pypto.tensor<[16, 1], f32>) -> (!pypto.tensor<[16, 128], f32>, !pypto.tensor<[16, 1], f32>) {
// CHECK:         pypto.return %buf_a, %buf_b

// -----

// Four scopes store into the same %out without yielding it: each call receives the latest
// version (the previous call's result) and the return reads the last one.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[4, 8], f32>, %out: !pypto.tensor<[4, 8], f32>) -> !pypto.tensor<[4, 8], f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    pypto.incore_scope {
      %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<[4, 8], f32> -> !pypto.tile<[1, 8], f32, vec>
      %s = pypto.tile.store %t, %out[%c0, %c0] : !pypto.tile<[1, 8], f32, vec>, !pypto.tensor<[4, 8], f32>
      pypto.yield
    }
    pypto.incore_scope {
      %t = pypto.tile.load %x[%c1, %c0] : !pypto.tensor<[4, 8], f32> -> !pypto.tile<[1, 8], f32, vec>
      %s = pypto.tile.store %t, %out[%c1, %c0] : !pypto.tile<[1, 8], f32, vec>, !pypto.tensor<[4, 8], f32>
      pypto.yield
    }
    pypto.incore_scope {
      %t = pypto.tile.load %x[%c2, %c0] : !pypto.tensor<[4, 8], f32> -> !pypto.tile<[1, 8], f32, vec>
      %s = pypto.tile.store %t, %out[%c2, %c0] : !pypto.tile<[1, 8], f32, vec>, !pypto.tensor<[4, 8], f32>
      pypto.yield
    }
    pypto.incore_scope {
      %t = pypto.tile.load %x[%c3, %c0] : !pypto.tensor<[4, 8], f32> -> !pypto.tile<[1, 8], f32, vec>
      %s = pypto.tile.store %t, %out[%c3, %c0] : !pypto.tile<[1, 8], f32, vec>, !pypto.tensor<[4, 8], f32>
      pypto.yield
    }
    pypto.return %out : !pypto.tensor<[4, 8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK:         %[[O1:.*]] = pypto.call @main_incore_0(%x, %out)
// CHECK-NEXT:    %[[O2:.*]] = pypto.call @main_incore_1(%x, %[[O1]])
// CHECK-NEXT:    %[[O3:.*]] = pypto.call @main_incore_2(%x, %[[O2]])
// CHECK-NEXT:    %[[O4:.*]] = pypto.call @main_incore_3(%x, %[[O3]])
// CHECK-NEXT:    pypto.return %[[O4]]
// CHECK-COUNT-4: pypto.func incore @main_incore_{{[0-3]}}(%x: !pypto.tensor<[4, 8], f32>, out %out: !pypto.tensor<[4, 8], f32>) -> !pypto.tensor<[4, 8], f32>

// -----

// tensor.assemble into a capture that is never read: 'out', and the assemble result is
// returned as the parameter. The parameters follow first use in operand order, which for
// assemble is PyPTO's `pl.assemble(dst, src, offsets)`: (dst, src).

builtin.module {
  pypto.func @main(%dst: !pypto.tensor<[16], f32>, %src: !pypto.tensor<[8], f32>) -> !pypto.tensor<[16], f32> {
    %updated = pypto.incore_scope -> (!pypto.tensor<[16], f32>) {
      %c0 = arith.constant 0 : index
      %u = pypto.tensor.assemble %src into %dst[%c0] : !pypto.tensor<[8], f32> into !pypto.tensor<[16], f32>
      pypto.yield %u : !pypto.tensor<[16], f32>
    }
    pypto.return %updated : !pypto.tensor<[16], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    %updated = pypto.call @main_incore_0(%dst, %src)
// CHECK:       pypto.func incore @main_incore_0(out %dst: !pypto.tensor<[16], f32>, %src: !pypto.tensor<[8], f32>) -> !pypto.tensor<[16], f32> {
// CHECK:         %u = pypto.tensor.assemble %src into %dst[%c0]
// CHECK-NEXT:    pypto.return %dst : !pypto.tensor<[16], f32>

// -----

// The same, but the body also reads %dst through a slice: 'inout'.

builtin.module {
  pypto.func @main(%dst: !pypto.tensor<[16], f32>, %src: !pypto.tensor<[8], f32>) -> !pypto.tensor<[16], f32> {
    %updated = pypto.incore_scope -> (!pypto.tensor<[16], f32>) {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %hi = pypto.tensor.slice %dst[%c8] : !pypto.tensor<[16], f32> -> !pypto.tensor<[8], f32>
      %sum = pypto.tensor.add %hi, %src : !pypto.tensor<[8], f32>
      %u = pypto.tensor.assemble %sum into %dst[%c0] : !pypto.tensor<[8], f32> into !pypto.tensor<[16], f32>
      pypto.yield %u : !pypto.tensor<[16], f32>
    }
    pypto.return %updated : !pypto.tensor<[16], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK:       pypto.func incore @main_incore_0(inout %dst: !pypto.tensor<[16], f32>, %src: !pypto.tensor<[8], f32>) -> !pypto.tensor<[16], f32> {
// CHECK:         pypto.return %dst : !pypto.tensor<[16], f32>

// -----

// Reading the alias %out2 (the result of a store into %out) reads %out: 'inout'. The
// scope's dumps(...) are not reads: %log is only written, so it is 'out', and the call
// keeps the dump of the captured %log.

builtin.module {
  pypto.func @main(%t_in: !pypto.tensor<[8, 8], f32>, %out: !pypto.tensor<[8, 8], f32>, %log: !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32> {
    %r = pypto.incore_scope dumps(%log : !pypto.tensor<[8, 8], f32>) -> (!pypto.tensor<[8, 8], f32>) {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %t = pypto.tile.load %t_in[%c0, %c0] : !pypto.tensor<[8, 8], f32> -> !pypto.tile<[4, 8], f32, vec>
      %out2 = pypto.tile.store %t, %out[%c0, %c0] : !pypto.tile<[4, 8], f32, vec>, !pypto.tensor<[8, 8], f32>
      %back = pypto.tile.load %out2[%c0, %c0] : !pypto.tensor<[8, 8], f32> -> !pypto.tile<[4, 8], f32, vec>
      %out3 = pypto.tile.store %back, %out2[%c4, %c0] : !pypto.tile<[4, 8], f32, vec>, !pypto.tensor<[8, 8], f32>
      %l = pypto.tile.store %back, %log[%c0, %c0] : !pypto.tile<[4, 8], f32, vec>, !pypto.tensor<[8, 8], f32>
      pypto.yield %out3 : !pypto.tensor<[8, 8], f32>
    }
    pypto.return %r : !pypto.tensor<[8, 8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    %r, %{{.*}} = pypto.call @main_incore_0(%t_in, %out, %log) dumps(%log : !pypto.tensor<[8, 8], f32>)
// CHECK-NEXT:    pypto.return %r
// CHECK:       pypto.func incore @main_incore_0(%t_in: !pypto.tensor<[8, 8], f32>, inout %out: !pypto.tensor<[8, 8], f32>, out %log: !pypto.tensor<[8, 8], f32>) -> (!pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 8], f32>) {
// CHECK:         pypto.return %out, %log

// -----

// A scope in a loop body writes the captured %acc without yielding it: the later use in
// the same body (the scf.yield) reads the call's result. Storage allocated inside the
// scope is local: the function returns the inner value, not a parameter.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>, %init: !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!pypto.tensor<[8], f32>) {
      %fresh = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {
        %t = pypto.tile.load %x[%c0] : !pypto.tensor<[8], f32> -> !pypto.tile<[8], f32, vec>
        %a = pypto.tile.load %acc[%c0] : !pypto.tensor<[8], f32> -> !pypto.tile<[8], f32, vec>
        %s = pypto.tile.add %t, %a : !pypto.tile<[8], f32, vec>
        %w = pypto.tile.store %s, %acc[%c0] : !pypto.tile<[8], f32, vec>, !pypto.tensor<[8], f32>
        %local = pypto.tensor.create : !pypto.tensor<[8], f32>
        %l = pypto.tile.store %s, %local[%c0] : !pypto.tile<[8], f32, vec>, !pypto.tensor<[8], f32>
        pypto.yield %l : !pypto.tensor<[8], f32>
      }
      scf.yield %acc : !pypto.tensor<[8], f32>
    }
    pypto.return %r, %r : !pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK:         %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!pypto.tensor<[8], f32>) {
// CHECK-NEXT:      %fresh, %[[ACC:.*]] = pypto.call @main_incore_0(%x, %acc)
// CHECK-NEXT:      scf.yield %[[ACC]]
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.return %r, %r
// CHECK:       pypto.func incore @main_incore_0(%x: !pypto.tensor<[8], f32>, inout %acc: !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) {
// CHECK:         %l = pypto.tile.store %s, %local[%c0]
// CHECK-NEXT:    pypto.return %l, %acc

// -----

// Writing into a view (tensor.slice) of a capture writes the capture: 'out'. The view's
// window type differs from the parameter's, so the assemble result is returned as is,
// and the written capture is appended as an output.

builtin.module {
  pypto.func @main(%dst: !pypto.tensor<[16], f32>, %src: !pypto.tensor<[4], f32>) -> !pypto.tensor<[16], f32> {
    %w = pypto.incore_scope -> (!pypto.tensor<[8], f32>) {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %view = pypto.tensor.slice %dst[%c8] : !pypto.tensor<[16], f32> -> !pypto.tensor<[8], f32>
      %u = pypto.tensor.assemble %src into %view[%c0] : !pypto.tensor<[4], f32> into !pypto.tensor<[8], f32>
      pypto.yield %u : !pypto.tensor<[8], f32>
    }
    pypto.return %dst : !pypto.tensor<[16], f32>
  }
}
// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    %w, %[[D:.*]] = pypto.call @main_incore_0(%dst, %src) : (!pypto.tensor<[16], f32>, !pypto.tensor<[4], f32>) -> (!pypto.tensor<[8], f32>, !pypto.tensor<[16], f32>)
// CHECK-NEXT:    pypto.return %[[D]]
// CHECK:       pypto.func incore @main_incore_0(out %dst: !pypto.tensor<[16], f32>, %src: !pypto.tensor<[4], f32>) -> (!pypto.tensor<[8], f32>, !pypto.tensor<[16], f32>) {
// CHECK:         pypto.return %u, %dst

// -----

// tensor.dim reads a tensor's shape, not its data: a capture the scope writes and only
// measures stays 'out'.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>, %out: !pypto.tensor<[8], f32>) -> index {
    %n = pypto.incore_scope -> (index) {
      %c0 = arith.constant 0 : index
      %d = pypto.tensor.dim %out, 0 : !pypto.tensor<[8], f32>
      %t = pypto.tile.load %x[%c0] : !pypto.tensor<[8], f32> -> !pypto.tile<[8], f32, vec>
      %s = pypto.tile.store %t, %out[%c0] : !pypto.tile<[8], f32, vec>, !pypto.tensor<[8], f32>
      pypto.yield %d : index
    }
    pypto.return %n : index
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK:       pypto.func incore @main_incore_0(out %out: !pypto.tensor<[8], f32>, %x: !pypto.tensor<[8], f32>) -> (index, !pypto.tensor<[8], f32>) {
// CHECK:         pypto.tensor.dim %out, 0

// -----

// A scope dumping a tensor an earlier scope wrote dumps the version that scope returned
// (the call result later uses read), and passes it as the capture it is.

builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>, %out: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    pypto.incore_scope {
      %c0 = arith.constant 0 : index
      %t = pypto.tile.load %x[%c0] : !pypto.tensor<[8], f32> -> !pypto.tile<[8], f32, vec>
      %s = pypto.tile.store %t, %out[%c0] : !pypto.tile<[8], f32, vec>, !pypto.tensor<[8], f32>
      pypto.yield
    }
    %e = pypto.incore_scope dumps(%out : !pypto.tensor<[8], f32>) -> (!pypto.tensor<[8], f32>) {
      %y = pypto.tensor.exp %out : !pypto.tensor<[8], f32>
      pypto.yield %y : !pypto.tensor<[8], f32>
    }
    pypto.return %e : !pypto.tensor<[8], f32>
  }
}

// CHECK-LABEL: pypto.func orchestration @main(
// CHECK-NEXT:    %[[W:.*]] = pypto.call @main_incore_0(%x, %out) : (
// CHECK-NEXT:    %e = pypto.call @main_incore_1(%[[W]]) dumps(%[[W]] : !pypto.tensor<[8], f32>) : (
