// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the kernel and launch ops (ascendc.kernel's properties,
// ascendc.core_call, ascendc.launch), one case each.

ascendc.kernel vector @k() attributes {sync = "lazy"} {
  ascendc.return
}

// CHECK: kernel @k: 'sync' is "explicit" or "auto", got "lazy"

// -----

ascendc.kernel cube @k() {
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  ascendc.return
}

// CHECK: cube kernel @k declares vector buffers (VECIN); use kind vector or mix

// -----

ascendc.kernel vector @k(%w: !ascendc.gm_addr) attributes {workspace = 0 : i64} {
  ascendc.return
}

// CHECK: kernel @k: 'workspace' must be positive, got 0

// -----

ascendc.kernel vector @k(%s: f32) attributes {workspace = 64 : i64} {
  ascendc.return
}

// CHECK: kernel @k has a workspace but its last parameter is not !ascendc.gm_addr

// -----

ascendc.kernel vector @k(%s: f32) attributes {results = [#ascendc.result<param 0>]} {
  ascendc.return
}

// CHECK: kernel @k: result written through parameter #0, which is not a GM parameter

// -----

ascendc.kernel vector @k(%w: !ascendc.gm_addr) attributes {results = [#ascendc.result<workspace 64>], workspace = 64 : i64} {
  ascendc.return
}

// CHECK: kernel @k: result in workspace byte 64, outside its workspace

// -----

ascendc.kernel vector @k() attributes {memory_plan = {HBM = {capacity = 1024 : i64, used = 0 : i64}}} {
  ascendc.return
}

// CHECK: kernel @k: 'memory_plan' names unknown memory 'HBM'

// -----

ascendc.kernel vector @k() attributes {memory_plan = {UB = {used = 0 : i64}}} {
  ascendc.return
}

// CHECK: kernel @k: 'memory_plan' entry UB needs integer 'used' and 'capacity'

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {arg_names = ["x", "y"]} {
  ascendc.return
}

// CHECK: kernel @k has 1 parameters but 2 'arg_names'

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {arg_names = ["1x"]} {
  ascendc.return
}

// CHECK: kernel @k: parameter name '1x' is not a C++ identifier

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr, %y: !ascendc.gm_addr) attributes {arg_names = ["x", "x"]} {
  ascendc.return
}

// CHECK: kernel @k names two parameters 'x'

// -----

ascendc.kernel vector @k() {
  %pipe = ascendc.tpipe "1pipe"
  ascendc.return
}

// CHECK: kernel @k: '1pipe' (ascendc.tpipe) is not a C++ identifier

// -----

ascendc.kernel vector @k() attributes {memory_plan = {L1 = {capacity = 524288 : i64, used = 0 : i64}}} {
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %inQ num 1 len 4096 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.return
}

// CHECK: kernel @k has UB buffers but its 'memory_plan' has no UB entry

// -----

ascendc.kernel vector @k() attributes {memory_plan = {UB = {capacity = 196608 : i64, used = 8192 : i64}}} {
  %pipe = ascendc.tpipe "pipe"
  %inQ = ascendc.tque "inQ" : !ascendc.queue<VECIN, 1>
  ascendc.init_buffer %pipe, %inQ num 1 len 4096 : !ascendc.pipe, !ascendc.queue<VECIN, 1>
  ascendc.return
}

// CHECK: kernel @k initialises 4096 bytes of UB buffers but its 'memory_plan' records 8192

// -----

ascendc.kernel mix @k(%a: !ascendc.gm_addr) {
  ascendc.core_call aic @missing(%a) : !ascendc.gm_addr
  ascendc.return
}

// CHECK: '@missing' does not refer to an ascendc.kernel

// -----

// The custom syntax reads only `aic` or `aiv`.
ascendc.kernel mix @k(%a: !ascendc.gm_addr) {
  "ascendc.core_call"(%a) <{core = "aicpu", callee = @k}> : (!ascendc.gm_addr) -> ()
  ascendc.return
}

// CHECK: a core branch is 'aic' or 'aiv', not 'aicpu'

// -----

pypto.func orchestration @main(%x: !pypto.tensor<[8, 8], f32>) {
  %r = ascendc.launch @main blocks 1 (%x) : (!pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: '@main' does not refer to an ascendc.kernel

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 0>]} {
  ascendc.return
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 8], f32>) {
  %c = arith.constant 1 : index
  %r = ascendc.launch @k blocks 1 (%c) : (index) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: argument #0 of the launch of @k must be a tensor (a GM parameter), got index

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr, %s: f32) attributes {results = [#ascendc.result<param 0>]} {
  ascendc.return
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 8], f32>) {
  %c = arith.constant 1 : i32
  %r = ascendc.launch @k blocks 1 (%x, %c) : (!pypto.tensor<[8, 8], f32>, i32) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: argument #1 of the launch of @k has type i32, expected f32

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 0>]} {
  ascendc.return
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 8], f32>) {
  %r, %s = ascendc.launch @k blocks 1 (%x) : (!pypto.tensor<[8, 8], f32>) -> (!pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 8], f32>)
  pypto.return
}

// CHECK: @k returns 1 tensors, the launch has 2

// -----

ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 0>]} {
  ascendc.return
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 8], f32>) {
  %r = ascendc.launch @k blocks 1 (%x) task : (!pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: a launch with 'task' has a !pypto.task_id as its last result

// -----

// The custom syntax gives every dependency the type !pypto.task_id.
ascendc.kernel vector @k(%x: !ascendc.gm_addr) attributes {results = [#ascendc.result<param 0>]} {
  ascendc.return
}
pypto.func orchestration @main(%x: !pypto.tensor<[8, 8], f32>) {
  %r = "ascendc.launch"(%x, %x) <{callee = @k, blocks = 1 : i64, operandSegmentSizes = array<i32: 1, 1>}> : (!pypto.tensor<[8, 8], f32>, !pypto.tensor<[8, 8], f32>) -> !pypto.tensor<[8, 8], f32>
  pypto.return
}

// CHECK: launch dependencies are task ids, got !pypto.tensor<[8, 8], f32>
