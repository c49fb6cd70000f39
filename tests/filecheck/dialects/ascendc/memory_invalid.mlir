// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the declaration, local tensor and copy ops (and of the shared
// keyword checks of their custom format), one case each.

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 0 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  ascendc.return
}

// CHECK: ascendc.global_tensor: 'size' must be positive, got 0

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x offset -32 size 64 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  ascendc.return
}

// CHECK: ascendc.global_tensor: 'offset' is a byte offset, not negative: -32

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %inQ len 4096 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.return
}

// CHECK: InitBuffer of a TQue takes a buffer count ('num')

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  ascendc.init_buffer %pipe, %buf num 1 len 4096 : !ascendc.pipe, !ascendc.buffer<VECCALC>
  ascendc.return
}

// CHECK: InitBuffer of a TBuf takes no buffer count

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %buf = ascendc.tbuf "buf" : !ascendc.buffer<VECCALC>
  %c = ascendc.get_buf "c" %buf : !ascendc.buffer<VECCALC> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: a tensor taken from a TBuf is at the TBuf's position

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %q1 = ascendc.tque "q1" : !ascendc.queue<VECIN, 1>
  %q2 = ascendc.tque "q2" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q1 : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.enque %q2, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.free_tensor %q1, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: ascendc.enque on another queue than the one the tensor was allocated from

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.enque %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  %t2 = ascendc.deque %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN> -> !ascendc.local_tensor<f16, VECIN>
  ascendc.free_tensor %q, %t2 : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f16, VECIN>
  ascendc.return
}

// CHECK: deque returns the tensor type it receives

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  %v = ascendc.at %t[64] : !ascendc.local_tensor<f32, VECIN>
  ascendc.free_tensor %q, %v : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: free_tensor of a tensor not allocated from a queue

// -----

// The custom syntax always writes at least one term.
ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 64 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %v = "ascendc.at"(%x_gm) <{terms = []}> : (!ascendc.gm_tensor<f32>) -> !ascendc.gm_tensor<f32>
  ascendc.return
}

// CHECK: ascendc.at: 'terms' holds (operand index, coefficient) pairs, at least one

// -----

// The custom syntax gives each index operand its own term.
ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 64 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %i = arith.constant 4 : index
  %v = "ascendc.at"(%x_gm, %i) <{terms = [-1 : i64, 4 : i64]}> : (!ascendc.gm_tensor<f32>, index) -> !ascendc.gm_tensor<f32>
  ascendc.return
}

// CHECK: ascendc.at: every index operand appears in exactly one term

// -----

// The custom syntax gives the result the base's type.
ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 64 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %v = "ascendc.at"(%x_gm) <{terms = [-1 : i64, 4 : i64]}> : (!ascendc.gm_tensor<f32>) -> !ascendc.gm_tensor<f16>
  ascendc.return
}

// CHECK: ascendc.at has the type of its base tensor

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy %t, %x_gm count 64 params(1, 8, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: DataCopy takes exactly one of 'count', 'params' or a parameter struct

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %y_gm = ascendc.global_tensor "y_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  ascendc.data_copy %y_gm, %x_gm count 64 : !ascendc.gm_tensor<f32>, !ascendc.gm_tensor<f32>
  ascendc.return
}

// CHECK: DataCopy between two GlobalTensors does not exist

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy %t, %x_gm params(1, 8) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: ascendc.data_copy: DataCopyParams(blockCount, blockLen, srcStride, dstStride) takes 4 values, got 2

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy %t, %x_gm params(1, 70000, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: ascendc.data_copy: DataCopyParams(blockCount, blockLen, srcStride, dstStride) value 70000 is outside [0, 65535]

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy %t, %x_gm params(0, 8, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: DataCopyParams needs a positive blockCount and blockLen

// -----

ascendc.kernel cube @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 256 : !ascendc.gm_addr -> !ascendc.gm_tensor<f16>
  %pipe = ascendc.tpipe "pipe"
  %qA1 = ascendc.tque "qA1" : !ascendc.queue<A1, 1>
  %am = ascendc.alloc_tensor "am" %qA1 : !ascendc.queue<A1, 1> -> !ascendc.local_tensor<f16, A1>
  %ld = ascendc.params "ld" LoadData2DParams(repeatTimes = 1, srcStride = 1, ifTranspose = false)
  ascendc.data_copy %am, %x_gm, %ld : !ascendc.local_tensor<f16, A1>, !ascendc.gm_tensor<f16>, !ascendc.struct<LoadData2DParams>
  ascendc.free_tensor %qA1, %am : !ascendc.queue<A1, 1>, !ascendc.local_tensor<f16, A1>
  ascendc.return
}

// CHECK: the struct form of DataCopy is GM -> L1 with Nd2NzParams, not LoadData2DParams (GM->local)

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f16>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy_pad %t, %x_gm ext(1, 64, 0, 0, 0) pad(false, 0, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f16>
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: ascendc.data_copy_pad operands must be tensors of one element type, got !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f16>

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy_pad %t, %t ext(1, 64, 0, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.local_tensor<f32, VECIN>
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: DataCopyPad copies between GM and a local tensor, not local->local

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  %n = arith.constant 4 : index
  ascendc.data_copy_pad %x_gm, %t, %n ext(4, 64, 0, 0, 0) {runtime_fields = ["blockCount", "blockLen"]} : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>, index
  ascendc.free_tensor %q, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: ascendc.data_copy_pad has 1 run-time operands for the 2 fields ['blockCount', 'blockLen']

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  %n = arith.constant 4 : i32
  ascendc.data_copy_pad %x_gm, %t, %n ext(4, 64, 0, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>, i32
  ascendc.free_tensor %q, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: the run-time blockCount must be index, got i32

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  %n = arith.constant 4 : index
  ascendc.data_copy_pad %x_gm, %t, %n, %n ext(4, 64, 0, 0, 0) {runtime_fields = ["blockCount", "blockCount"]} : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>, index, index
  ascendc.free_tensor %q, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: a run-time field is given twice: ['blockCount', 'blockCount']

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECOUT, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECOUT, 1> -> !ascendc.local_tensor<f32, VECOUT>
  %n = arith.constant 4 : index
  ascendc.data_copy_pad %x_gm, %t, %n ext(5000, 64, 0, 0, 0) : !ascendc.gm_tensor<f32>, !ascendc.local_tensor<f32, VECOUT>, index
  ascendc.free_tensor %q, %t : !ascendc.queue<VECOUT, 1>, !ascendc.local_tensor<f32, VECOUT>
  ascendc.return
}

// CHECK: a run-time blockCount is bounded by ext[0], at most 4095 rows

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) {
  %x_gm = ascendc.global_tensor "x_gm" %x size 1024 : !ascendc.gm_addr -> !ascendc.gm_tensor<f32>
  %pipe = ascendc.tpipe "pipe"
  %q = ascendc.tque "q" : !ascendc.queue<VECIN, 1>
  %t = ascendc.alloc_tensor "t" %q : !ascendc.queue<VECIN, 1> -> !ascendc.local_tensor<f32, VECIN>
  ascendc.data_copy_pad %t, %x_gm ext(1, 64, 0, 0, 0) pad(false, 0, 0) : !ascendc.local_tensor<f32, VECIN>, !ascendc.gm_tensor<f32>
  ascendc.free_tensor %q, %t : !ascendc.queue<VECIN, 1>, !ascendc.local_tensor<f32, VECIN>
  ascendc.return
}

// CHECK: the pad parameters of DataCopyPad are 4 values, DataCopyPadExtParams(isPad, leftPadding, rightPadding, paddingValue); got 3
