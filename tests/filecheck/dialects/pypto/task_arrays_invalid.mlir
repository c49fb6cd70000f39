// RUN: PYPTO_VERIFY_DIAG

// Every verifier message of the arrays of task ids, one case each.

pypto.func orchestration @f() {
  %a = pypto.task_ids.create : !pypto.task_ids<0>
  pypto.return
}

// CHECK: !pypto.task_ids needs a positive extent, got 0

// -----

pypto.func orchestration @f() {
  %c2 = arith.constant 2 : index
  %a = pypto.task_ids.create : !pypto.task_ids<2>
  %t = pypto.task_ids.get %a[%c2] : !pypto.task_ids<2>
  pypto.return
}

// CHECK: Operation does not verify: 'pypto.task_ids.get': index 2 is out of bounds of !pypto.task_ids<2> (0..1)

// -----

pypto.func orchestration @f() {
  %c0 = arith.constant -1 : index
  %a = pypto.task_ids.create : !pypto.task_ids<2>
  %t = pypto.task_dummy deps()
  %b = pypto.task_ids.set %a[%c0], %t : !pypto.task_ids<2>
  pypto.return
}

// CHECK: Operation does not verify: 'pypto.task_ids.set': index -1 is out of bounds of !pypto.task_ids<2> (0..1)

// -----

pypto.func incore @k() {
  %a = pypto.task_ids.create : !pypto.task_ids<2>
  pypto.return
}

// CHECK: Operation does not verify: 'pypto.task_ids.create' in the incore function @k: task ids exist only in orchestration code

// -----

pypto.func aiv @k() {
  %t = pypto.task_dummy deps()
  pypto.return
}

// CHECK: Operation does not verify: 'pypto.task_dummy' in the aiv function @k: task ids exist only in orchestration code
