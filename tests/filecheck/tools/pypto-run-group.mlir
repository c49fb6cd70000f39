// RUN: pypto-run %s --entry main --input 0=%S/inputs/pypto-run-group-a.npy --print-values | filecheck %s
// RUN: not pypto-run %s --entry bad 2>&1 | filecheck %s --check-prefix=DEADLOCK

// A group launches its aic and aiv members as one task: the product crosses the c2v ring,
// a flag orders the rest. a is the 16x16 identity, so %o = relu(a @ a) is the identity too.
// @bad's cube part pops before it pushes while the vector part waits for that push.

pypto.func aic @k_aic(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) {
  %c0 = arith.constant 0 : index
  %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
  pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  pypto.cross_core.set_flag to aiv
  pypto.return
}
pypto.func aiv @k_aiv(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  pypto.cross_core.wait_flag from aic
  %e = pypto.tile.relu %v : !pypto.tile<[16, 16], f32, vec>
  %o2 = pypto.tile.store %e, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
  pypto.return %o2 : !pypto.tensor<[16, 16], f32>
}
pypto.func group @k(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  pypto.call @k_aic(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> ()
  %r = pypto.call @k_aiv(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
  pypto.return %r : !pypto.tensor<[16, 16], f32>
}
pypto.func orchestration @main(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %r = pypto.call @k(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
  pypto.return %r : !pypto.tensor<[16, 16], f32>
}
pypto.func aic @d_aic(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) {
  %c0 = arith.constant 0 : index
  %m = pypto.tile.load %a[%c0, %c0] : !pypto.tensor<[16, 16], f16> -> !pypto.tile<[16, 16], f16, mat>
  %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
  %x = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[16, 16], f32, mat>
  pypto.cross_core.push %acc to aiv slots(2) : !pypto.tile<[16, 16], f32, acc>
  pypto.cross_core.set_flag to aiv
  pypto.return
}
pypto.func aiv @d_aiv(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %c0 = arith.constant 0 : index
  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 16], f32, vec>
  pypto.cross_core.wait_flag from aic
  %e = pypto.tile.relu %v : !pypto.tile<[16, 16], f32, vec>
  %o2 = pypto.tile.store %e, %o[%c0, %c0] : !pypto.tile<[16, 16], f32, vec>, !pypto.tensor<[16, 16], f32>
  pypto.return %o2 : !pypto.tensor<[16, 16], f32>
}
pypto.func group @d(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  pypto.call @d_aic(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> ()
  %r = pypto.call @d_aiv(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
  pypto.return %r : !pypto.tensor<[16, 16], f32>
}
pypto.func orchestration @bad(%a: !pypto.tensor<[16, 16], f16>, out %o: !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32> {
  %r = pypto.call @d(%a, %o) : (!pypto.tensor<[16, 16], f16>, !pypto.tensor<[16, 16], f32>) -> !pypto.tensor<[16, 16], f32>
  pypto.return %r : !pypto.tensor<[16, 16], f32>
}

// CHECK: out argument #1 %o: [16, 16] float32 sum=16 min=0 max=1 mean=0.0625

// DEADLOCK: pypto-run-group.mlir:41:3: error: pypto.cross_core.pop in @d_aic: deadlock: pop from aiv: the v2c ring is empty (0 pushes, 0 pops so far), while @d_aiv waits at 'pypto.cross_core.pop' (pop from aic: the c2v ring is empty (0 pushes, 0 pops so far)) (a member of group @d)
