"""The interpreter's semantics of cross-core ops and group launches (docs/semantics.md):
both members of a group run as cooperating threads that take turns, rings hold `slots`
tiles, and misuse (deadlock, a pop without a push, a full ring nobody drains, leftovers,
flag counters past 15, a popped tile of the wrong type) is a run-time error naming the op."""

from __future__ import annotations

import numpy as np
import pytest

from pypto_xdsl.interpreter import PyptoInterpretationError, parse_module, run

T = "!pypto.tensor<[16, 16], f32>"
H = "!pypto.tensor<[16, 16], f16>"
ACC = "!pypto.tile<[16, 16], f32, acc>"
VEC = "!pypto.tile<[16, 16], f32, vec>"
MAT = "!pypto.tile<[16, 16], f32, mat>"


def group_program(aic_body: str, aiv_body: str, aiv_result: bool = True) -> str:
    """@main -> group @k(%a: f16, out %o: f32): the AIC has the product in %acc, the AIV
    stores %out_tile (if its body defines it) into %o."""
    aiv_ret = "-> " + T if aiv_result else ""
    store = (
        f"  %o2 = pypto.tile.store %out_tile, %o[%c0, %c0] : {VEC}, {T}\n  pypto.return %o2 : {T}"
        if aiv_result else "  pypto.return"
    )
    call_res = f"%r = pypto.call @k_aiv(%a, %o) : ({H}, {T}) -> {T}" if aiv_result else f"pypto.call @k_aiv(%a, %o) : ({H}, {T}) -> ()"
    ret = f"pypto.return %r : {T}" if aiv_result else f"pypto.return %o : {T}"
    return f"""
pypto.func aic @k_aic(%a: {H}, out %o: {T}) {{
  %c0 = arith.constant 0 : index
  %m = pypto.tile.load %a[%c0, %c0] : {H} -> !pypto.tile<[16, 16], f16, mat>
  %l = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
  %r = pypto.tile.move %m : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
  %acc = pypto.tile.matmul %l, %r : !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
{aic_body}
  pypto.return
}}
pypto.func aiv @k_aiv(%a: {H}, out %o: {T}) {aiv_ret} {{
  %c0 = arith.constant 0 : index
{aiv_body}
{store}
}}
pypto.func group @k(%a: {H}, out %o: {T}) -> {T} {{
  pypto.call @k_aic(%a, %o) : ({H}, {T}) -> ()
  {call_res}
  {ret}
}}
pypto.func orchestration @main(%a: {H}, out %o: {T}) -> {T} {{
  %r = pypto.call @k(%a, %o) : ({H}, {T}) -> {T}
  pypto.return %r : {T}
}}
"""


def _inputs(seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (16, 16)).astype(np.float16), np.zeros((16, 16), np.float32)


def _product(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) @ a.astype(np.float32)


PUSH = f"  pypto.cross_core.push %acc to aiv slots({{slots}}) : {ACC}"
POP = f"  %{{name}} = pypto.cross_core.pop from aic slots({{slots}}) : {VEC}"


def test_a_group_runs_both_members_and_the_tile_crosses():
    text = group_program(PUSH.format(slots=2), POP.format(name="v", slots=2) + f"\n  %out_tile = pypto.tile.relu %v : {VEC}")
    a, o = _inputs()
    (r,) = run(parse_module(text), "main", [a, o])
    np.testing.assert_array_equal(r, np.maximum(_product(a), 0))
    assert r is o  # written through the out parameter


def test_more_pushes_than_slots_wait_for_the_consumer():
    """Six pushes through a 2-slot ring: the AIC waits whenever the ring is full, the AIV
    sums what it pops; the interleaving is forced by the ring, not by program order."""
    pushes = "\n".join([PUSH.format(slots=2)] * 6)
    pops = "\n".join(POP.format(name=f"v{i}", slots=2) for i in range(6))
    sums = "\n".join(
        f"  %s{i} = pypto.tile.add {'%v0' if i == 1 else f'%s{i - 1}'}, %v{i} : {VEC}" for i in range(1, 6)
    )
    aiv = f"  %half = arith.constant 0.5 : f32\n{pops}\n{sums}\n  %out_tile = pypto.tile.muls %s5, %half : {VEC}, f32"
    a, o = _inputs(1)
    (r,) = run(parse_module(group_program(pushes, aiv)), "main", [a, o])
    np.testing.assert_allclose(r, 3.0 * _product(a), rtol=1e-6)


def test_loops_on_both_sides_exchange_tiles_both_ways():
    """The AIC sends 5 products and gets each one back, doubled by the AIV, through the
    v2c ring, accumulating them; the AIV returns the last doubled tile."""
    aic = f"""
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %z = arith.constant 0.0 : f32
  %init = pypto.tile.full %z : f32 -> {ACC}
  %sum = scf.for %i = %c0 to %c5 step %c1 iter_args(%s = %init) -> ({ACC}) {{
    pypto.cross_core.push %acc to aiv slots(1) : {ACC}
    %back = pypto.cross_core.pop from aiv slots(1) : !pypto.tile<[16, 16], f16, mat>
    %bl = pypto.tile.move %back : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, left>
    %br = pypto.tile.move %back : !pypto.tile<[16, 16], f16, mat> -> !pypto.tile<[16, 16], f16, right>
    %s2 = pypto.tile.matmul_acc %s, %bl, %br : {ACC}, !pypto.tile<[16, 16], f16, left>, !pypto.tile<[16, 16], f16, right>
    scf.yield %s2 : {ACC}
  }}
  %o3 = pypto.tile.store %sum, %o[%c0, %c0] : {ACC}, {T}"""
    aiv = f"""
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c5 step %c1 {{
    %v = pypto.cross_core.pop from aic slots(1) : {VEC}
    %d = pypto.tile.adds %v, %v0 : {VEC}, f32
    %h = pypto.tile.cast %d : {VEC} -> !pypto.tile<[16, 16], f16, vec>
    pypto.cross_core.push %h to aic slots(1) : !pypto.tile<[16, 16], f16, vec>
  }}"""
    aiv = aiv.replace("%v0 : ", "%one : ").replace("  %c1 = arith", "  %one = arith.constant 1.0 : f32\n  %c1 = arith", 1)
    text = group_program(aic, aiv, aiv_result=False)
    a, o = _inputs(2)
    run(parse_module(text), "main", [a, o])
    p = _product(a)
    h = (p + 1.0).astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(o, 5 * (h @ h), rtol=1e-5)


def _error(text: str) -> str:
    a, o = _inputs()
    with pytest.raises(PyptoInterpretationError) as info:
        run(parse_module(text), "main", [a, o])
    return str(info.value)


def test_deadlock_is_an_error_naming_both_waits():
    aic = "  %x = pypto.cross_core.pop from aiv slots(2) : !pypto.tile<[16, 16], f16, mat>\n" + PUSH.format(slots=2)
    aiv = POP.format(name="v", slots=2) + f"\n  %out_tile = pypto.tile.relu %v : {VEC}"
    msg = _error(group_program(aic, aiv))
    assert msg.startswith("pypto.cross_core.pop in @k_aic: deadlock: pop from aiv: the v2c ring is empty")
    assert "while @k_aiv waits at 'pypto.cross_core.pop' (pop from aic: the c2v ring is empty" in msg
    assert "(a member of group @k)" in msg


def test_a_pop_without_a_push_is_an_error():
    aiv = POP.format(name="v", slots=2) + "\n" + POP.format(name="w", slots=2) + f"\n  %out_tile = pypto.tile.relu %v : {VEC}"
    msg = _error(group_program(PUSH.format(slots=2), aiv))
    assert msg.startswith(
        "pypto.cross_core.pop in @k_aiv: pop from aic: the c2v ring is empty (1 push, 1 pop so far), "
        "and @k_aic has returned: a pop without a push"
    )


def test_a_full_ring_whose_consumer_returned_overflows():
    aiv = "  %out_tile = pypto.tile.full %z : f32 -> " + VEC
    aiv = "  %z = arith.constant 0.0 : f32\n" + aiv
    msg = _error(group_program("\n".join([PUSH.format(slots=2)] * 3), aiv))
    assert msg.startswith(
        "pypto.cross_core.push in @k_aic: push to aiv: the c2v ring's 2 slots are full (2 pushes, 0 pops so far), "
        "and @k_aiv has returned: ring overflow, nothing pops them"
    )


def test_tiles_left_in_a_ring_at_the_end_are_an_error():
    aiv = POP.format(name="v", slots=2) + f"\n  %out_tile = pypto.tile.relu %v : {VEC}"
    msg = _error(group_program("\n".join([PUSH.format(slots=2)] * 2), aiv))
    assert msg == (
        "pypto.func in @k: at the end of group @k: 1 tile pushed onto the c2v ring never popped (2 pushes, 1 pop)"
    )


def test_a_popped_tile_of_another_shape_is_an_error():
    aiv = f"  %v = pypto.cross_core.pop from aic slots(2) : !pypto.tile<[16, 8], f32, vec>\n  %out_tile = pypto.tile.full %z : f32 -> {VEC}"
    aiv = "  %z = arith.constant 0.0 : f32\n" + aiv
    msg = _error(group_program(PUSH.format(slots=2), aiv))
    assert "pops !pypto.tile<[16, 8], f32, vec>, but the next tile in the c2v ring is a [16, 16] f32 tile" in msg


def test_rings_keep_one_slot_count():
    aiv = POP.format(name="v", slots=3) + f"\n  %out_tile = pypto.tile.relu %v : {VEC}"
    text = group_program(PUSH.format(slots=2), aiv)
    module = parse_module(text)  # the verifier would refuse it: check the run-time guard alone
    a, o = _inputs()
    with pytest.raises(PyptoInterpretationError, match=r"the c2v ring has 2 slots, but this op declares slots\(3\)"):
        run(module, "main", [a, o])


def test_flags_order_global_memory_accesses():
    """The AIC stores the product into %o and sets the flag; the AIV waits for it, then
    reads %o back: without the flag the turn order would let it read zeros."""
    aic = f"  %st = pypto.tile.store %acc, %o[%c0, %c0] : {ACC}, {T}\n  pypto.cross_core.set_flag to aiv"
    aiv = f"""  pypto.cross_core.wait_flag from aic
  %back = pypto.tile.load %o[%c0, %c0] : {T} -> {VEC}
  %out_tile = pypto.tile.relu %back : {VEC}"""
    a, o = _inputs(3)
    (r,) = run(parse_module(group_program(aic, aiv)), "main", [a, o])
    np.testing.assert_array_equal(r, np.maximum(_product(a), 0))


def test_a_wait_without_a_set_and_flag_counters_past_15_are_errors():
    aiv = "  pypto.cross_core.wait_flag from aic\n  %z = arith.constant 0.0 : f32\n  %out_tile = pypto.tile.full %z : f32 -> " + VEC
    msg = _error(group_program("", aiv))
    assert msg.startswith(
        "pypto.cross_core.wait_flag in @k_aiv: wait_flag from aic: the c2v flag is not set, and @k_aic has returned: "
        "a wait without a set_flag"
    )
    sets = "\n".join(["  pypto.cross_core.set_flag to aiv"] * 16)
    msg = _error(group_program(sets, "  %z = arith.constant 0.0 : f32\n  %out_tile = pypto.tile.full %z : f32 -> " + VEC))
    assert "the c2v flag is already set 15 times without a wait: the hardware counter holds 0-15" in msg


def test_an_incore_function_run_alone_has_its_own_rings():
    """The unsplit form: a push followed by its pop in one function."""
    text = f"""
pypto.func incore @k(%t: {ACC}) -> {VEC} {{
  pypto.cross_core.push %t to aiv slots(2) : {ACC}
  %v = pypto.cross_core.pop from aic slots(2) : {VEC}
  pypto.return %v : {VEC}
}}
pypto.func incore @bad(%t: {ACC}) -> {VEC} {{
  %v = pypto.cross_core.pop from aic slots(2) : {VEC}
  pypto.cross_core.push %t to aiv slots(2) : {ACC}
  pypto.return %v : {VEC}
}}
pypto.func incore @left(%t: {ACC}) {{
  pypto.cross_core.push %t to aiv slots(2) : {ACC}
  pypto.return
}}
"""
    module = parse_module(text)
    t = np.arange(256, dtype=np.float32).reshape(16, 16)
    (v,) = run(module, "k", [t])
    np.testing.assert_array_equal(v, t)
    with pytest.raises(PyptoInterpretationError, match=r"a pop without a push \(@bad runs alone, not as a member of a group\)"):
        run(module, "bad", [t])
    with pytest.raises(PyptoInterpretationError, match="at the end of @left: 1 tile pushed onto the c2v ring never popped"):
        run(module, "left", [t])


def test_a_group_runs_once_per_block_of_an_spmd_launch():
    aic = f"""  %b = pypto.tile.get_block_idx : index
  %bf = arith.index_cast %b : index to i64
  %f = arith.sitofp %bf : i64 to f32
  %c = pypto.tile.full %f : f32 -> {ACC}
  pypto.cross_core.push %c to aiv slots(2) : {ACC}"""
    aiv = POP.format(name="v", slots=2) + f"""
  %prev = pypto.tile.load %o[%c0, %c0] : {T} -> {VEC}
  %out_tile = pypto.tile.add %prev, %v : {VEC}"""
    text = group_program(aic, aiv).replace(
        f"%r = pypto.call @k(%a, %o) : ({H}, {T}) -> {T}",
        f"%r = pypto.call @k(%a, %o) {{pypto.block_dim = 4 : i64}} : ({H}, {T}) -> {T}",
    )
    a, o = _inputs()
    (r,) = run(parse_module(text), "main", [a, o])
    np.testing.assert_array_equal(r, np.full((16, 16), 0 + 1 + 2 + 3, np.float32))


# --------------------------------------------------------------------------- task_ratio 2

HALF = "!pypto.tile<[8, 16], f32, vec>"


def split_group_program(aiv_tail: str = "  pypto.cross_core.set_flag to aic", aiv_wait: str = "  pypto.cross_core.wait_flag from aic", ratio: int = 2) -> str:
    """A group with task_ratio 2: the AIC stores the product into %o and sets the c2v flag;
    each AIV waits, takes the relu of its 8 of the 16 rows in place and sets the v2c flag; the
    AIC waits for both."""
    text = group_program(
        f"  %st = pypto.tile.store %acc, %o[%c0, %c0] : {ACC}, {T}\n  pypto.cross_core.set_flag to aiv\n"
        "  pypto.cross_core.wait_flag from aiv",
        f"""  %sub = pypto.tile.get_subblock_idx : index
  %c8 = arith.constant 8 : index
  %row = arith.muli %sub, %c8 : index
{aiv_wait}
  %half = pypto.tile.load %o[%row, %c0] : {T} -> {HALF}
  %relu = pypto.tile.relu %half : {HALF}
  %o3 = pypto.tile.store %relu, %o[%row, %c0] : {HALF}, {T}
{aiv_tail}""",
        aiv_result=False,
    )
    return text.replace(f"pypto.func group @k(%a: {H}, out %o: {T}) -> {T} {{",
                        f"pypto.func group @k(%a: {H}, out %o: {T}) -> {T} attributes {{task_ratio = {ratio} : i64}} {{")


def test_a_group_with_task_ratio_two_runs_its_aiv_member_on_two_sub_blocks():
    a, o = _inputs(5)
    (r,) = run(parse_module(split_group_program()), "main", [a, o])
    np.testing.assert_array_equal(r, np.maximum(_product(a), 0))  # each sub-block did its 8 rows


def test_the_aic_waits_for_the_flag_of_every_aiv():
    only_first = """  %c0i = arith.constant 0 : index
  %first = arith.cmpi eq, %sub, %c0i : index
  scf.if %first {
    pypto.cross_core.set_flag to aic
  }"""
    msg = _error(split_group_program(aiv_tail=only_first))
    assert msg.startswith(
        "pypto.cross_core.wait_flag in @k_aic: wait_flag from aiv: the v2c flag is not set by every AIV of the core "
        "group (mode 2 counts a setting once each has set it), and @k_aiv on sub-block 0 and @k_aiv on sub-block 1 "
        "have returned: a wait without a set_flag"
    ), msg


def test_a_sub_block_that_skips_its_wait_races_with_the_aic():
    msg = _error(split_group_program(aiv_wait=""))
    assert "data race on global memory: this read on sub-block 0 and the write by 'pypto.tile.store' in @k_aic" in msg, msg


def test_a_task_ratio_is_one_or_two():
    with pytest.raises(Exception, match=r"group @k: 'task_ratio' is the AIVs per AIC of a group, 1 or 2; got 3"):
        parse_module(split_group_program(ratio=3)).verify()


def test_a_setting_left_over_names_its_sub_block():
    twice_on_second = """  pypto.cross_core.set_flag to aic
  %c1i = arith.constant 1 : index
  %second = arith.cmpi eq, %sub, %c1i : index
  scf.if %second {
    pypto.cross_core.set_flag to aic
  }"""
    msg = _error(split_group_program(aiv_tail=twice_on_second))
    assert msg.endswith("at the end of group @k: the v2c flag set 1 time by @k_aiv on sub-block 1 for @k_aic more than waited for"), msg
