"""outline-incore-scopes: analyses, pass behaviour, verifier, semantic preservation."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, ModuleOp, f32, i1
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException
from xdsl.utils.test_value import create_ssa_value

from pypto_xdsl.analysis.free_values import collect_free_values
from pypto_xdsl.analysis.write_through import WriteThrough, write_target
from pypto_xdsl.dialects import make_context
from pypto_xdsl.dialects.attributes import (
    FuncKind,
    MemorySpace,
    ParamDirection,
    TensorType,
    TileType,
)
from pypto_xdsl.dialects.program import (
    CallOp,
    FuncOp,
    IncoreScopeOp,
    ReturnOp,
    SplitAivOp,
    SubmitOp,
    YieldOp,
)
from pypto_xdsl.dialects.tensor import AssembleOp, CreateOp, ExpOp
from pypto_xdsl.dialects.tile import AddOp, LoadOp, StoreOp
from pypto_xdsl.transforms.outline_incore_scopes import OutlineIncoreScopesPass
from pypto_xdsl.transforms.verify_split_incore_orch import VerifySplitIncoreOrchPass, check_split_incore_orch

FILECHECK_DIR = Path(__file__).parent / "filecheck" / "transforms" / "outline-incore-scopes"
T8 = TensorType([8], f32)
TILE8 = TileType([8], f32, MemorySpace.VEC)


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def outline(module: ModuleOp) -> ModuleOp:
    OutlineIncoreScopesPass().apply(make_context(), module)
    module.verify()
    return module


def funcs(module: ModuleOp) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in module.body.block.ops if isinstance(f, FuncOp)}


def const_index(v: int) -> arith.ConstantOp:
    return arith.ConstantOp.from_int_and_width(v, IndexType())


# --------------------------------------------------------------------------- free values


def test_free_values_first_use_order_and_nested_regions() -> None:
    a, b, c = create_ssa_value(T8), create_ssa_value(T8), create_ssa_value(i1)
    zero = const_index(0)
    inner = Block()
    e = ExpOp(a)  # uses a inside a nested region
    inner.add_ops([e, scf.YieldOp()])
    body = Block()
    b_exp = ExpOp(b)
    if_op = scf.IfOp(c, [], Region(inner), Region(Block([scf.YieldOp()])))
    local = ExpOp(b_exp.result)  # defined inside: not free
    load = LoadOp(a, [zero.result], TILE8)
    body.add_ops([b_exp, if_op, local, load, YieldOp()])
    region = Region(body)
    free = collect_free_values(region)
    assert free.values == [b, c, a, zero.result]
    assert free.uses[a] == [(e, 0), (load, 0)]
    assert b_exp.result not in free
    assert e.result in free.defined


def test_free_values_loop_block_argument_not_init() -> None:
    init = create_ssa_value(T8)
    lb, ub, step = const_index(0), const_index(2), const_index(1)
    loop_body = Block(arg_types=[IndexType(), T8])
    # The region of interest lives inside the loop body and uses the iteration argument.
    scope = IncoreScopeOp([], Region(Block([ExpOp(loop_body.args[1]), YieldOp()])))
    loop_body.add_ops([scope, scf.YieldOp(loop_body.args[1])])
    scf.ForOp(lb.result, ub.result, step.result, [init], Region(loop_body))
    free = collect_free_values(scope.body)
    assert free.values == [loop_body.args[1]]
    assert init not in free


def test_free_values_remap_rewrites_operands() -> None:
    old, new = create_ssa_value(T8), create_ssa_value(T8)
    block = Block()
    e = ExpOp(old)
    block.add_ops([e, YieldOp()])
    free = collect_free_values(Region(block), remap=lambda v: new if v is old else v)
    assert e.operands[0] is new
    assert free.values == [new]


# --------------------------------------------------------------------------- write-through


def test_write_through_store_chain_and_boundary() -> None:
    dst, tile = create_ssa_value(T8), create_ssa_value(TILE8)
    zero = const_index(0)
    s1 = StoreOp(tile, dst, [zero.result])
    s2 = StoreOp(tile, s1.result, [zero.result])
    lineage = WriteThrough()
    assert lineage.root(s2.result) is dst
    assert lineage.root(s1.result) is dst
    assert write_target(s2) == (1, s1.result)
    assert write_target(zero) is None
    # A boundary stops the trace at the first value outside the analysed region.
    bounded = WriteThrough(is_boundary=lambda v: v is s1.result)
    assert bounded.root(s2.result) is s1.result


def _loop(init, yield_in_place: bool):
    lb, ub, step = const_index(0), const_index(2), const_index(1)
    body = Block(arg_types=[IndexType(), T8])
    zero = const_index(0)
    load = LoadOp(body.args[1], [zero.result], TILE8)
    store = StoreOp(load.result, body.args[1], [zero.result])
    fresh = CreateOp(T8)
    yielded = store.result if yield_in_place else fresh.result
    body.add_ops([zero, load, store, fresh, scf.YieldOp(yielded)])
    loop = scf.ForOp(lb.result, ub.result, step.result, [init], Region(body))
    return loop, body


def test_write_through_for_carry_in_place_and_fresh() -> None:
    init = create_ssa_value(T8)
    loop, body = _loop(init, yield_in_place=True)
    lineage = WriteThrough()
    assert lineage.root(body.args[1]) is init
    assert lineage.root(loop.results[0]) is init
    fresh_loop, _ = _loop(init, yield_in_place=False)
    assert lineage.root(fresh_loop.results[0]) is fresh_loop.results[0]


def test_write_through_if_needs_both_branches() -> None:
    dst, other, cond, tile = (create_ssa_value(t) for t in (T8, T8, i1, TILE8))
    zero = const_index(0)
    s = StoreOp(tile, dst, [zero.result])
    same = scf.IfOp(cond, [T8], Region(Block([scf.YieldOp(s.result)])), Region(Block([scf.YieldOp(dst)])))
    mixed = scf.IfOp(cond, [T8], Region(Block([scf.YieldOp(dst)])), Region(Block([scf.YieldOp(other)])))
    lineage = WriteThrough()
    assert lineage.root(same.results[0]) is dst
    assert lineage.root(mixed.results[0]) is mixed.results[0]


def test_write_through_assemble_aliases_dest() -> None:
    src, dst = create_ssa_value(TensorType([4], f32)), create_ssa_value(T8)
    zero = const_index(0)
    a = AssembleOp(src, dst, [zero.result])
    assert WriteThrough().root(a.result) is dst
    assert write_target(a) == (0, dst)  # operands (dest, source, offsets): PyPTO's order


# --------------------------------------------------------------------------- the pass


STORE_PROGRAM = """
builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>, %out: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %c0 = arith.constant 0 : index
    pypto.incore_scope {
      %t = pypto.tile.load %x[%c0] : !pypto.tensor<[8], f32> -> !pypto.tile<[8], f32, vec>
      %s = pypto.tile.store %t, %out[%c0] : !pypto.tile<[8], f32, vec>, !pypto.tensor<[8], f32>
      pypto.yield
    }
    %y = pypto.tensor.exp %out : !pypto.tensor<[8], f32>
    pypto.return %y : !pypto.tensor<[8], f32>
  }
}
"""


def test_outline_builds_incore_function_and_rewires_later_uses() -> None:
    module = outline(parse(STORE_PROGRAM))
    fs = funcs(module)
    assert list(fs) == ["main", "main_incore_0"]
    main, kernel = fs["main"], fs["main_incore_0"]
    assert main.func_kind == FuncKind.ORCHESTRATION
    assert kernel.func_kind == FuncKind.INCORE
    assert kernel.directions == (ParamDirection.IN, ParamDirection.OUT)
    ret = kernel.body.block.last_op
    assert isinstance(ret, ReturnOp) and ret.arguments[0] is kernel.args[1]
    call = next(op for op in main.body.block.ops if isinstance(op, CallOp))
    # The exp after the scope reads the call's result, not the stale %out.
    exp = next(op for op in main.body.block.ops if isinstance(op, ExpOp))
    assert exp.operands[0] is call.res[0]
    # The constant was cloned into the kernel, not passed.
    assert [a.name_hint for a in kernel.args] == ["x", "out"]
    assert any(isinstance(op, arith.ConstantOp) for op in kernel.body.block.ops)
    assert not any(isinstance(op, IncoreScopeOp) for op in module.walk())


def test_outline_is_idempotent_and_report_is_clean() -> None:
    module = outline(parse(STORE_PROGRAM))
    first = str(module)
    outline(module)
    assert str(module) == first
    report = check_split_incore_orch(module)
    assert report.errors == []
    # The exp left in the orchestration function is a warning only.
    assert report.warnings and "pypto.tensor.exp" in report.warnings[0]


def test_verifier_pass_fails_on_remaining_scope() -> None:
    module = parse(STORE_PROGRAM)
    with pytest.raises(PassFailedException, match="found in non-InCore function @main"):
        VerifySplitIncoreOrchPass().apply(make_context(), module)


def test_verifier_pass_warns_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    module = outline(parse(STORE_PROGRAM))
    VerifySplitIncoreOrchPass().apply(make_context(), module)
    err = capsys.readouterr().err
    assert "warning: compute tensor op 'pypto.tensor.exp'" in err


def test_atomic_store_counts_as_read() -> None:
    module = parse(STORE_PROGRAM)
    store = next(op for op in module.walk() if isinstance(op, StoreOp))
    from xdsl.dialects.builtin import UnitAttr

    store.attributes["atomic"] = UnitAttr()
    outline(module)
    assert funcs(module)["main_incore_0"].directions == (ParamDirection.IN, ParamDirection.INOUT)


def _scope_module(kind: FuncKind, nested: bool = False) -> ModuleOp:
    func = FuncOp("f", [T8], [], kind)
    inner_block = Block()
    inner_block.add_ops([ExpOp(func.args[0]), YieldOp()])
    scope_block = Block()
    if nested:
        scope_block.add_op(IncoreScopeOp([], Region(inner_block)))
    else:
        scope_block.add_op(ExpOp(func.args[0]))
    scope_block.add_op(YieldOp())
    func.body.block.add_ops([IncoreScopeOp([], Region(scope_block)), ReturnOp()])
    return ModuleOp([func])


def test_pass_rejects_nested_scopes_before_changing_anything() -> None:
    module = _scope_module(FuncKind.OPAQUE, nested=True)
    before = str(module)
    with pytest.raises(PassFailedException, match=r"in @f: nested InCore scope detected"):
        OutlineIncoreScopesPass().apply(make_context(), module)
    assert str(module) == before


@pytest.mark.parametrize("kind", [FuncKind.INCORE, FuncKind.AIC, FuncKind.AIV])
def test_pass_rejects_scopes_in_incore_functions(kind: FuncKind) -> None:
    module = _scope_module(kind)
    with pytest.raises(PassFailedException, match=rf"in @f: pypto.incore_scope inside {kind.value} function"):
        OutlineIncoreScopesPass().apply(make_context(), module)


def test_inline_functions_scopes_are_left_for_inlining() -> None:
    module = _scope_module(FuncKind.INLINE)
    OutlineIncoreScopesPass().apply(make_context(), module)
    assert any(isinstance(op, IncoreScopeOp) for op in module.walk())
    assert check_split_incore_orch(module).errors


def test_split_with_split_aiv_region_rejected() -> None:
    from pypto_xdsl.dialects.attributes import SplitMode

    func = FuncOp("f", [T8], [], FuncKind.OPAQUE)
    region = SplitAivOp(SplitMode.UP_DOWN)
    region.body.block.add_op(ExpOp(func.args[0]))
    scope = IncoreScopeOp([], Region(Block([region, YieldOp()])), split=SplitMode.LEFT_RIGHT)
    func.body.block.add_ops([scope, ReturnOp()])
    module = ModuleOp([func])
    with pytest.raises(Exception, match="mutually exclusive AIV-split mechanisms"):
        module.verify()
    with pytest.raises(PassFailedException, match="mutually exclusive AIV-split mechanisms"):
        OutlineIncoreScopesPass().apply(make_context(), module)


def test_task_id_scope_becomes_submit_feeding_deps() -> None:
    text = """
builtin.module {
  pypto.func @main(%x: !pypto.tensor<[8], f32>) -> !pypto.tensor<[8], f32> {
    %y, %t = pypto.incore_scope -> (!pypto.tensor<[8], f32>) task_id {
      %a = pypto.tensor.exp %x : !pypto.tensor<[8], f32>
      pypto.yield %a : !pypto.tensor<[8], f32>
    }
    %z = pypto.incore_scope deps(%t) -> (!pypto.tensor<[8], f32>) {
      %b = pypto.tensor.exp %y : !pypto.tensor<[8], f32>
      pypto.yield %b : !pypto.tensor<[8], f32>
    }
    pypto.return %z : !pypto.tensor<[8], f32>
  }
}
"""
    module = outline(parse(text))
    submits = [op for op in funcs(module)["main"].body.block.ops if isinstance(op, SubmitOp)]
    assert len(submits) == 2
    assert submits[1].deps[0] is submits[0].task_id
    assert submits[1].args[0] is submits[0].outputs[0]


def test_default_pipeline_runs_outline_after_inline() -> None:
    from pypto_xdsl.transforms.pipelines import DEFAULT_PIPELINE, PyptoDefaultPipeline

    # Both passes are in the pipeline (index raises otherwise), inlining first.
    assert DEFAULT_PIPELINE.index("inline-functions") < DEFAULT_PIPELINE.index("outline-incore-scopes")
    module = parse(STORE_PROGRAM)
    PyptoDefaultPipeline().apply(make_context(), module)
    module.verify()
    assert "main_incore_0" in funcs(module)
    assert not any(isinstance(op, IncoreScopeOp) for op in module.walk())


def test_many_scopes_share_one_written_tensor() -> None:
    """Each scope gets the latest version of the tensor the previous one wrote (a chain
    as long as the number of scopes, resolved without quadratic work)."""
    n = 300
    func = FuncOp("main", [T8, T8], [T8])
    x, out = func.args
    zero = const_index(0)
    func.body.block.add_op(zero)
    for _ in range(n):
        block = Block()
        t = LoadOp(x, [zero.result], TILE8)
        u = AddOp(t.result, t.result)
        block.add_ops([t, u, StoreOp(u.result, out, [zero.result]), YieldOp()])
        func.body.block.add_op(IncoreScopeOp([], Region(block)))
    func.body.block.add_op(ReturnOp(out))
    outline(ModuleOp([func]))
    calls = [op for op in func.body.block.ops if isinstance(op, CallOp)]
    assert len(calls) == n
    assert calls[0].args[1] is out
    for prev, call in zip(calls, calls[1:]):
        assert call.args[1] is prev.res[0]
    ret = func.body.block.last_op
    assert isinstance(ret, ReturnOp) and ret.arguments[0] is calls[-1].res[0]


# --------------------------------------------------------------------------- semantics

def _filecheck_programs() -> list[tuple[str, int, str]]:
    cases = []
    for path in sorted(FILECHECK_DIR.glob("*.mlir")):
        if path.name == "errors.mlir":
            continue  # invalid input by design
        for k, chunk in enumerate(path.read_text().split("// -----")):
            cases.append((path.name, k, chunk))
    # split_aiv regions run once per lane in the interpreter: they are compared too.
    assert any("pypto.split_aiv" in text for _, _, text in cases)
    return cases


@pytest.mark.parametrize(("name", "k", "text"), _filecheck_programs(), ids=lambda x: str(x)[:20] if isinstance(x, str) else x)
def test_filecheck_programs_keep_their_meaning(name: str, k: int, text: str) -> None:
    from pypto_xdsl.interpreter.testing import assert_same_semantics
    from pypto_xdsl.transforms.pipelines import PyptoDefaultPipeline

    before = parse(text)
    after = before.clone()
    # The default pipeline: inline-functions, then outline-incore-scopes.
    PyptoDefaultPipeline().apply(make_context(), after)
    after.verify()
    assert not any(isinstance(op, IncoreScopeOp) for op in after.walk())
    entries = [f for f, op in funcs(before).items() if op.func_kind != FuncKind.INLINE]
    for entry in entries:
        assert_same_semantics(before, after, entry=entry, seeds=(0, 1))


def test_equivalence_check_detects_a_broken_outlining() -> None:
    """The semantic check used above is able to fail: swap the call's arguments."""
    from pypto_xdsl.interpreter.testing import SemanticsMismatch, assert_same_semantics

    before = parse(STORE_PROGRAM)
    after = outline(before.clone())
    call = next(op for op in after.walk() if isinstance(op, CallOp))
    load_x = call.args[0]
    call.operands[0] = call.args[1]
    call.operands[1] = load_x
    with pytest.raises(SemanticsMismatch):
        assert_same_semantics(before, after, entry="main", seeds=(0,))


@pytest.mark.parametrize("seed", range(0, 40))
def test_generated_programs_keep_their_meaning(seed: int) -> None:
    """Fuzz: random programs (scopes with tile loops, helper calls, task ids, deps, scf)
    run inline-functions then outline-incore-scopes; the result verifies,
    holds no scope outside InCore functions, and computes the same values."""
    from pypto_xdsl.fuzz.generator import generate_program
    from pypto_xdsl.interpreter.testing import assert_same_semantics
    from pypto_xdsl.transforms.inline_functions import InlineFunctionsPass

    program = generate_program(seed)
    after = program.module.clone()
    InlineFunctionsPass().apply(make_context(), after)
    outline(after)
    assert check_split_incore_orch(after).errors == []
    assert_same_semantics(program.module, after, entry=program.entry, dims=program.dims, seeds=(0,))


def test_write_through_slice_is_a_view() -> None:
    from pypto_xdsl.dialects.tensor import SliceOp

    dst, src = create_ssa_value(T8), create_ssa_value(TensorType([2], f32))
    zero = const_index(0)
    view = SliceOp(dst, [zero.result], TensorType([4], f32))
    a = AssembleOp(src, view.result, [zero.result])
    lineage = WriteThrough()
    assert lineage.root(view.result) is dst
    assert lineage.root(a.result) is dst
