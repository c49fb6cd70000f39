// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the pypto.cross_core ops and of group functions, one case each.

pypto.func aic @k(%t: !pypto.tile<[16, 16], f32, acc>) {
  pypto.cross_core.push %t to aiv slots(0) : !pypto.tile<[16, 16], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: a ring needs at least one slot, got slots(0)

// -----

pypto.func aiv @k(%t: !pypto.tile<[16, 16], f32, vec>) {
  "pypto.cross_core.push"(%t) <{pipe = #pypto<pipe v2v>, slots = 2 : i64}> : (!pypto.tile<[16, 16], f32, vec>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: a ring runs between the cube and a vector core (c2v or v2c), not v2v

// -----

pypto.func aic @k() {
  pypto.cross_core.set_flag among aiv id(2)
  pypto.return
}

// CHECK: Operation does not verify: set_flag among aiv runs on the vector core (aiv), so it cannot be in aic function @k

// -----

pypto.func aic @k(%t: !pypto.tile<[?, 16], f32, acc>) {
  pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[?, 16], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: pushed tile !pypto.tile<[?, 16], f32, acc> has dynamic shape [?, 16]: a slot of the ring has a fixed size, so tiles crossing cores need static shapes

// -----

pypto.func aic @k(%t: !pypto.tile<[16, 16], f16, left>) {
  pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[16, 16], f16, left>
  pypto.return
}

// CHECK: Operation does not verify: the pushed tile of the c2v pipe must be an 'acc' or 'mat' tile of the cube core, got !pypto.tile<[16, 16], f16, left>

// -----

pypto.func aiv @k(%t: !pypto.tile<[16, 16], f16, mat>) {
  pypto.cross_core.push %t to aic slots(2) : !pypto.tile<[16, 16], f16, mat>
  pypto.return
}

// CHECK: Operation does not verify: the pushed tile of the v2c pipe must be a 'vec' tile of the vector core, got !pypto.tile<[16, 16], f16, mat>

// -----

pypto.func aiv @k(%t: !pypto.tile<[16, 16], f32, acc>) {
  pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  pypto.return
}

// CHECK: Operation does not verify: push to aiv runs on the cube core (aic), so it cannot be in aiv function @k

// -----

pypto.func orchestration @k(%t: !pypto.tile<[16, 16], f32, vec>) {
  pypto.cross_core.push %t to aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: push to aic runs on the vector core (aiv), so it cannot be in orchestration function @k

// -----

func.func @k(%t: !pypto.tile<[16, 16], f32, vec>) {
  pypto.cross_core.push %t to aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  func.return
}

// CHECK: Operation does not verify: push to aic must be inside a pypto.func

// -----

pypto.func aiv @k() {
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, mat>
  pypto.return
}

// CHECK: Operation does not verify: the popped tile of the c2v pipe must be a 'vec' tile (the vector core's UB), got !pypto.tile<[16, 16], f32, mat>

// -----

pypto.func aic @k() {
  %v = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[16, 16], f16, left>
  pypto.return
}

// CHECK: Operation does not verify: the popped tile of the v2c pipe must be a 'mat' tile (the cube core's L1; move it to left/right afterwards), got !pypto.tile<[16, 16], f16, left>

// -----

pypto.func aic @k() {
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}

// CHECK: Operation does not verify: pop from aic runs on the vector core (aiv), so it cannot be in aic function @k

// -----

pypto.func aiv @k() {
  %v = pypto.cross_core.pop from aic slots(-1) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}

// CHECK: Expected integer literal

// -----

pypto.func aiv @k() {
  %v = pypto.cross_core.pop from npu slots(2) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}

// CHECK: expected 'aic' or 'aiv'

// -----

pypto.func aiv @k() {
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tensor<[16, 16], f32>
  pypto.return
}

// CHECK: pypto.cross_core.pop produces a tile, got !pypto.tensor<[16, 16], f32>

// -----

pypto.func aiv @k() {
  pypto.cross_core.set_flag to aiv
  pypto.return
}

// CHECK: Operation does not verify: set_flag to aiv runs on the cube core (aic), so it cannot be in aiv function @k

// -----

pypto.func aiv @k() {
  pypto.cross_core.wait_flag from aiv
  pypto.return
}

// CHECK: Operation does not verify: wait_flag from aiv runs on the cube core (aic), so it cannot be in aiv function @k

// -----

pypto.func aic @m_aic(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func aiv @m_aiv(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[8], f32>, %i: index) {
  %j = arith.addi %i, %i : index
  pypto.call @m_aic(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.call @m_aiv(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: group @g may only create workspaces (pypto.tensor.create), call its aic and aiv members and return, but it holds 'arith.addi'

// -----

pypto.func aic @m_aic(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func aiv @m_aiv(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[8], f32>) {
  pypto.call @m_aiv(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.call @m_aic(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: group @g must call one aic function and then one aiv function, its members; it calls: aiv, aic

// -----

pypto.func aiv @m_aiv(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[8], f32>) {
  pypto.call @m_aiv(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: group @g must call one aic function and then one aiv function, its members; it calls: aiv

// -----

pypto.func aic @m_aic(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func aiv @m_aiv(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[8], f32>, %b: !pypto.tensor<[8], f32>) {
  pypto.call @m_aic(%a, %b) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> ()
  pypto.call @m_aiv(%b, %a) : (!pypto.tensor<[8], f32>, !pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: the members of group @g must take the same arguments (one argument list for the mixed task), but @m_aic and @m_aiv are called with different ones

// -----

pypto.func aic @m_aic(%a: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
  pypto.return %a : !pypto.tensor<[8], f32>
}
pypto.func aiv @m_aiv(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[8], f32>) {
  %r = pypto.call @m_aic(%a) : (!pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32>
  pypto.call @m_aiv(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: the aic member @m_aic of group @g returns values; a group's results come from its aiv member (tensors are written through)

// -----

pypto.func aic @m_aic(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func aiv @m_aiv(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[8], f32>) {
  pypto.call @m_aic(%a) {pypto.block_dim = 4 : i64} : (!pypto.tensor<[8], f32>) -> ()
  pypto.call @m_aiv(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: the member calls of group @g cannot carry 'pypto.block_dim': the group is launched as one task (put the block count on the group or its launch)

// -----

pypto.func aic @m_aic(%t: !pypto.tile<[16, 16], f32, acc>) {
  pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  pypto.return
}
pypto.func aiv @m_aiv(%t: !pypto.tile<[16, 16], f32, acc>) {
  %v = pypto.cross_core.pop from aic slots(4) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}
pypto.func group @g(%t: !pypto.tile<[16, 16], f32, acc>) {
  pypto.call @m_aic(%t) : (!pypto.tile<[16, 16], f32, acc>) -> ()
  pypto.call @m_aiv(%t) : (!pypto.tile<[16, 16], f32, acc>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: the c2v ring of group @g has slots(2) in @m_aic but slots(4) in @m_aiv

// -----

pypto.func group @g(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}

// CHECK: Operation does not verify: group @g must call one aic function and then one aiv function, its members; it calls: none

// -----

pypto.func aic @m_aic(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[8], f32>) {
  pypto.call @m_aic(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.call @m_aic(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: group @g must call one aic function and then one aiv function, its members; it calls: aic, aic

// -----

pypto.func @helper(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func aiv @m_aiv(%a: !pypto.tensor<[8], f32>) {
  pypto.return
}
pypto.func group @g(%a: !pypto.tensor<[8], f32>) {
  pypto.call @helper(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.call @m_aiv(%a) : (!pypto.tensor<[8], f32>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: group @g must call one aic function and then one aiv function, its members; it calls: opaque, aiv

// -----

func.func @k() {
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  func.return
}

// CHECK: Operation does not verify: pop from aic must be inside a pypto.func

// -----

pypto.func orchestration @k() {
  pypto.cross_core.set_flag to aic
  pypto.return
}

// CHECK: Operation does not verify: set_flag to aic runs on the vector core (aiv), so it cannot be in orchestration function @k

// -----

pypto.func group @k() {
  pypto.cross_core.wait_flag from aiv
  pypto.return
}

// CHECK: Operation does not verify: wait_flag from aiv runs on the cube core (aic), so it cannot be in group function @k

// -----

pypto.func aic @m_aic(%t: !pypto.tile<[16, 16], f32, acc>) {
  pypto.cross_core.push %t to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  pypto.return
}
pypto.func aiv @m_aiv(%t: !pypto.tile<[16, 16], f32, acc>) {
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  %w = pypto.cross_core.pop from aic slots(3) : !pypto.tile<[16, 16], f32, vec>
  pypto.return
}
pypto.func group @g(%t: !pypto.tile<[16, 16], f32, acc>) {
  pypto.call @m_aic(%t) : (!pypto.tile<[16, 16], f32, acc>) -> ()
  pypto.call @m_aiv(%t) : (!pypto.tile<[16, 16], f32, acc>) -> ()
  pypto.return
}

// CHECK: Operation does not verify: the c2v ring of group @g has slots(2) in @m_aic but slots(3) in @m_aiv

// -----

pypto.func aic @k() {
  pypto.cross_core.set_flag to aiv id(16)
  pypto.return
}

// CHECK: Operation does not verify: flag id 16 is out of range: a core has flag ids 0-15
