"""Random valid `pl` DSL programs, each with a numpy model of what it computes: the fuzz
target of the frontend (`make fuzz` runs a share of its cases on them).

`generate_dsl_program(seed)` writes the source of a `@pl.program` class, as a user writes
one, and builds alongside it a model: for every statement, what it does to numpy arrays.

* kernels (`InCore`, some `AIV`): row-block kernels `k(a, [b], out, row, [f])` loading
  `[B, C]` tiles at `[row, 0]`, window kernels on `[B, C]` tensors, whole-tensor kernels;
  their bodies are tile expressions (`+ - * /` with tiles and scalars, `pl.maximum/minimum`,
  `exp`, `abs`, `neg`, `relu`, `sqrt`, `rsqrt`, `recip`, f16 cast round trips, the row
  reductions and expands of a softmax), and kernels storing twice;
* `Inline` helpers holding a `pl.at` scope, or (outside the backend profile) tensor compute;
* `@main` (`Opaque` or `Orchestration`) mixing launch loops (`pl.range` with zero or
  non-zero starts and steps, `pl.parallel`), window assignments (`out[b*B:(b+1)*B, :] = ...`),
  `pl.at` scopes (whole tensor, or one per block in a loop), `pl.spmd` launches,
  `pl.submit` with `deps`, `pl.create_tensor` temporaries, `if` and `while` on a run-time
  scalar, and tensor-level compute;
* f32 (mostly) or f16 tensors, shapes `[R, C]` with blocks of `B` rows.

Magnitudes are tracked so that no value overflows or loses its precision (divisors and
square roots are of `|x| + 1`, `exp` only of bounded values), so the model and the
interpreter agree within a float tolerance. `backend=True` keeps to what the Ascend C
backend prints (launches and scopes in `@main`, aligned shapes, no tensor compute outside
scopes, no `while`).

    program = generate_dsl_program(7)
    module = program.module()                   # through the frontend
    expected = program.expected(inputs)         # {"out": ..., "result": ...}
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

FILENAME = "fuzz_dsl_program.py"
"""The name the generated source is compiled under (the frontend's caches are keyed by it)."""

Env = dict[str, Any]
Model = Callable[[Env], None]


@dataclass
class Expr:
    src: str
    run: Callable[[Env], np.ndarray]
    mag: float
    """A bound on |value|."""


@dataclass
class Kernel:
    name: str
    source: list[str]
    call: Callable[..., np.ndarray]
    """numpy: (inputs..., out, [row], [f]) -> the new out."""
    kind: str
    """"block" (`row` offset), "window" ([B, C] tensors) or "whole"."""
    inputs: int
    scalar: bool
    mag: float
    """A bound on |result| for inputs of at most `KERNEL_INPUT_MAG`."""


@dataclass
class DslProgram:
    seed: int
    source: str
    entry: str
    params: list[tuple[str, str]]
    """(name, kind) of @main's parameters: kind tensor / out / inout / index / f32."""
    model: list[Model]
    dtype: str
    backend: bool
    features: set[str] = field(default_factory=set)

    def module(self):
        """The program through the frontend (`runtime.loading.module_from_python`)."""
        from pypto_xdsl.runtime.loading import module_from_python

        return module_from_python(self.source, FILENAME).module

    def expected(self, inputs: Sequence[Any]) -> dict[str, np.ndarray]:
        """What the model says the out/inout parameters hold after @main, and its result."""
        env: Env = {}
        for (name, _), value in zip(self.params, inputs):
            env[name] = np.array(value, copy=True) if isinstance(value, np.ndarray) else value
        with np.errstate(all="ignore"):
            for step in self.model:
                step(env)
        out = {name: env[name] for name, kind in self.params if kind in ("out", "inout")}
        out["result"] = env["__result__"]
        return out

    def tolerance(self) -> tuple[float, float]:
        """(rtol, atol) of the interpreter against the model."""
        return (2e-2, 2e-2) if self.dtype == "f16" else (1e-4, 1e-5)


KERNEL_INPUT_MAG = 2.0
"""Kernels are generated for inputs of at most this magnitude, and called only with such."""

_DTYPES = {"f32": ("pl.FP32", np.float32), "f16": ("pl.FP16", np.float16)}


class DslGenerator:
    def __init__(self, seed: int, backend: bool = False):
        self.seed = seed
        self.rng = random.Random(seed)
        self.backend = backend
        rng = self.rng
        self.dtype = "f32" if backend or rng.random() < 0.8 else "f16"
        self.pl_dtype, self.np_dtype = _DTYPES[self.dtype]
        self.max_mag = 1e3 if self.dtype == "f32" else 60.0
        self.rows = rng.choice([16, 32, 64])
        self.cols = rng.choice([16, 32, 64] if backend else [8, 16, 32, 24, 64])
        self.block = rng.choice([b for b in (8, 16) if self.rows % b == 0 and b < self.rows] or [self.rows])
        self.kernels: list[Kernel] = []
        self._helpers = 0
        self.features: set[str] = set()
        self._temps = 0
        self.scalar_n = rng.random() < 0.6
        self.scalar_f = rng.random() < 0.5

    # ----------------------------------------------------------------- expressions

    def scalar_literal(self) -> float:
        return self.rng.choice([0.5, 2.0, 1.5, -1.0, 0.25, 3.0])

    def expr(self, leaves: Sequence[tuple[str, float]], depth: int, scalar: str | None = None,
             tiles: bool = True) -> Expr:
        """A random expression over `leaves` (name, magnitude) of one shape; `scalar` names
        an f32 scalar in scope; `tiles`: in a kernel (all ops) or on tensors."""
        rng, dt = self.rng, self.np_dtype
        if depth <= 0 or rng.random() < 0.25:
            name, mag = rng.choice(list(leaves))
            return Expr(name, lambda env, n=name: env[n], mag)
        a = self.expr(leaves, depth - 1, scalar, tiles)
        choice = rng.random()
        if choice < 0.3:
            b = self.expr(leaves, depth - 1, scalar, tiles)
            op = rng.choice(["+", "-", "*", "max", "min", "/"])
            if op == "*" and a.mag * b.mag > self.max_mag:
                op = "+"
            if op in "+-*":
                fn = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
                mag = a.mag * b.mag if op == "*" else a.mag + b.mag
                return Expr(f"({a.src} {op} {b.src})", lambda env, f=fn: f(a.run(env), b.run(env)), mag)
            if op == "/":  # a divisor of at least 1
                return Expr(f"({a.src} / (pl.abs({b.src}) + 1.0))",
                            lambda env: a.run(env) / (np.abs(b.run(env)) + dt(1.0)), a.mag)
            fn = np.maximum if op == "max" else np.minimum
            name = "pl.maximum" if op == "max" else "pl.minimum"
            return Expr(f"{name}({a.src}, {b.src})", lambda env, f=fn: f(a.run(env), b.run(env)), max(a.mag, b.mag))
        if choice < 0.5:
            c = self.scalar_literal()
            if scalar is not None and rng.random() < 0.4:
                op = rng.choice(["*", "+"])
                fn = np.multiply if op == "*" else np.add
                return Expr(f"({a.src} {op} {scalar})",
                            lambda env, f=fn: f(a.run(env), dt(env[scalar])), a.mag + 1 if op == "+" else a.mag)
            op = rng.choice(["*", "+", "-", "left*", "left+"])
            if op == "*" and a.mag * abs(c) > self.max_mag:
                op = "+"
            text = {"*": f"({a.src} * {c})", "+": f"({a.src} + {c})", "-": f"({a.src} - {c})",
                    "left*": f"({c} * {a.src})", "left+": f"({c} + {a.src})"}[op]
            if op.endswith("*"):
                return Expr(text, lambda env: a.run(env) * dt(c), a.mag * abs(c))
            sign = -1.0 if op == "-" else 1.0
            return Expr(text, lambda env: a.run(env) + dt(sign * c), a.mag + abs(c))
        if choice < 0.8:
            ops = ["abs", "neg", "relu", "sqrt", "recip", "rsqrt"]
            if a.mag <= 4:
                ops += ["exp", "exp"]
            if tiles and self.dtype == "f32":
                ops.append("cast")
            op = rng.choice(ops)
            if op == "exp":
                return Expr(f"pl.exp({a.src})", lambda env: np.exp(a.run(env)), math.exp(a.mag))
            if op == "abs":
                return Expr(f"pl.abs({a.src})", lambda env: np.abs(a.run(env)), a.mag)
            if op == "neg":
                return Expr(f"(-{a.src})" if rng.random() < 0.5 else f"pl.neg({a.src})",
                            lambda env: -a.run(env), a.mag)
            if op == "relu":
                return Expr(f"pl.relu({a.src})", lambda env: np.maximum(a.run(env), dt(0)), a.mag)
            if op == "sqrt":
                return Expr(f"pl.sqrt(pl.abs({a.src}))", lambda env: np.sqrt(np.abs(a.run(env))), math.sqrt(a.mag))
            if op == "recip":
                return Expr(f"pl.recip(pl.abs({a.src}) + 1.0)",
                            lambda env: dt(1) / (np.abs(a.run(env)) + dt(1)), 1.0)
            if op == "rsqrt":
                return Expr(f"pl.rsqrt(pl.abs({a.src}) + 1.0)",
                            lambda env: dt(1) / np.sqrt(np.abs(a.run(env)) + dt(1)), 1.0)
            self.features.add("cast round trip")
            return Expr(f"pl.cast(pl.cast({a.src}, pl.FP16), pl.FP32)",
                        lambda env: a.run(env).astype(np.float16).astype(np.float32), a.mag)
        # row reductions and expands
        self.features.add("row ops")
        op = rng.choice(["softmax", "center", "scale"])
        if op == "center":
            return Expr(f"pl.row_expand_sub({a.src}, pl.row_max({a.src}))",
                        lambda env: (lambda v: v - v.max(axis=-1, keepdims=True))(a.run(env)), 2 * a.mag)
        if op == "scale" and a.mag * a.mag * self.cols <= self.max_mag:
            return Expr(f"pl.row_expand_mul({a.src}, pl.row_sum({a.src}))",
                        lambda env: (lambda v: v * v.sum(axis=-1, keepdims=True, dtype=dt))(a.run(env)),
                        a.mag * a.mag * self.cols)
        shifted = f"pl.exp(pl.row_expand_sub({a.src}, pl.row_max({a.src})))"

        def softmax(env: Env) -> np.ndarray:
            v = a.run(env)
            e = np.exp(v - v.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True, dtype=dt)

        return Expr(f"pl.row_expand_div({shifted}, pl.row_sum({shifted}))", softmax, 1.0)

    # ----------------------------------------------------------------- kernels

    def kernel(self, kind: str) -> Kernel:
        rng = self.rng
        index = len(self.kernels)
        name = f"k{index}"
        n_in = rng.randint(1, 2)
        scalar = self.scalar_f and kind == "block" and rng.random() < 0.5
        R, C, B = self.rows, self.cols, self.block
        ttype = "Blk" if kind == "window" else "T"
        params = [f"a{i}: {ttype}" for i in range(n_in)] + [f"out: pl.Out[{ttype}]"]
        if kind == "block":
            params.append("row: pl.Scalar[pl.INDEX]")
        if scalar:
            params.append(f"f: pl.Scalar[{self.pl_dtype}]")
        func_type = "AIV" if rng.random() < 0.2 else "InCore"
        lines = [f"    @pl.function(type=pl.FunctionType.{func_type})",
                 f"    def {name}(self, {', '.join(params)}) -> {ttype}:"]
        if func_type == "AIV":
            self.features.add("aiv kernel")
        offset, extent = ("row", B) if kind == "block" else ("0", B if kind == "window" else R)
        for i in range(n_in):
            lines.append(f"        t{i} = pl.load(a{i}, [{offset}, 0], [{extent}, {C}])")
        leaves = [(f"t{i}", KERNEL_INPUT_MAG) for i in range(n_in)]  # callers pass no larger values
        stored = []
        steps = 1 if rng.random() < 0.7 else 2
        exprs = []
        for s in range(steps):
            e = self.expr(leaves, rng.randint(1, 3), "f" if scalar else None)
            lines.append(f"        r{s} = {e.src}")
            exprs.append(e)
            leaves = [*leaves, (f"r{s}", e.mag)]
            stored.append(f"r{s}")
        if steps == 2 and extent >= 2 and rng.random() < 0.5:
            # two stores: the first rows from r0, all rows again from r1 (the later wins)
            self.features.add("two stores")
            lines.append(f"        out = pl.store(r0, [{offset}, 0], out)")
        lines.append(f"        out = pl.store(r{steps - 1}, [{offset}, 0], out)")
        lines.append("        return out")

        def call(*args, kind=kind, n_in=n_in, scalar=scalar, exprs=exprs):
            ins = list(args[:n_in])
            out = np.array(args[n_in], copy=True)
            rest = list(args[n_in + 1:])
            row = rest.pop(0) if kind == "block" else 0
            env: Env = {}
            if scalar:
                env["f"] = rest.pop(0)
            size = B if kind in ("block", "window") else R
            for i, a in enumerate(ins):
                env[f"t{i}"] = a[row:row + size]
            for s, e in enumerate(exprs):
                env[f"r{s}"] = e.run(env)
            out[row:row + size] = env[f"r{len(exprs) - 1}"]
            return out

        kernel = Kernel(name, lines, call, kind, n_in, scalar, exprs[-1].mag)
        self.kernels.append(kernel)
        return kernel

    # ----------------------------------------------------------------- @main

    def temp(self) -> str:
        self._temps += 1
        return f"tmp{self._temps}"

    def generate(self) -> DslProgram:
        rng = self.rng
        R, C, B = self.rows, self.cols, self.block
        nb = R // B
        with_acc = rng.random() < 0.5
        params = [("x", "tensor"), ("y", "tensor"), ("out", "out")]
        if with_acc:
            params.append(("acc", "inout"))
        if self.scalar_n:
            params.append(("n", "index"))
        if self.scalar_f:
            params.append(("f", "f32"))
        mags = {"x": 1.0, "y": 1.0, "out": 1.0, "acc": 1.0}
        defined = ["x", "y"]
        targets = ["out"] + (["acc"] if with_acc else [])
        body: list[str] = []
        model: list[Model] = []
        helper_lines: list[str] = []
        kind = "Orchestration" if rng.random() < 0.4 else "Opaque"
        self.features.add(f"{kind.lower()} main")

        def sources(k: int, avoid: str) -> list[str]:
            pool = [d for d in defined if d != avoid and mags.get(d, 1.0) <= KERNEL_INPUT_MAG] or ["x"]
            return [rng.choice(pool) for _ in range(k)]

        def launch_mag(kernel: Kernel, ins: list[str]) -> float:
            return min(kernel.mag, self.max_mag)

        def stmt_block_loop(indent: str) -> None:
            kernel = self.pick_kernel("block")
            target = rng.choice(targets + [t for t in defined if t.startswith("tmp")])
            ins = sources(kernel.inputs, target)
            full = target not in ("out", "acc") or rng.random() < 0.5
            if full:
                start, stop, step = 0, nb, 1
            else:
                start = rng.choice([0, 1]) if nb > 1 else 0
                step = rng.choice([1, 2])
                stop = nb
            loop = rng.choice(["pl.range", "pl.parallel"] if (start, step) == (0, 1) else ["pl.range"])
            bounds = f"{nb}" if (start, step) == (0, 1) else f"{start}, {nb}" if step == 1 else f"{start}, {stop}, {step}"
            if (start, step) != (0, 1):
                self.features.add("loop with start or step")
            if loop == "pl.parallel":
                self.features.add("pl.parallel")
            scal = ", f" if kernel.scalar else ""
            body.append(f"{indent}for b in {loop}({bounds}):")
            body.append(f"{indent}    {target} = self.{kernel.name}({', '.join(ins)}, {target}, b * {B}{scal})")

            def run(env, kernel=kernel, ins=ins, target=target, start=start, step=step):
                for b in range(start, nb, step):
                    extra = [env["f"]] if kernel.scalar else []
                    env[target] = kernel.call(*[env[i] for i in ins], env[target], b * B, *extra)

            model.append(run)
            mags[target] = max(mags.get(target, 1.0), launch_mag(kernel, ins))

        def stmt_window_loop(indent: str) -> None:
            kernel = self.pick_kernel("window")
            target = rng.choice(targets)
            ins = sources(kernel.inputs, target)
            self.features.add("window assignment")
            win = f"[b * {B}:(b + 1) * {B}]"
            args = ", ".join(f"{i}{win}" for i in ins)
            body.append(f"{indent}for b in pl.parallel({nb}):")
            body.append(f"{indent}    {target}[b * {B}:(b + 1) * {B}, :] = "
                        f"self.{kernel.name}({args}, {target}[b * {B}:(b + 1) * {B}, :])")

            def run(env, kernel=kernel, ins=ins, target=target):
                for b in range(nb):
                    s = slice(b * B, (b + 1) * B)
                    env[target] = env[target].copy()
                    env[target][s] = kernel.call(*[env[i][s] for i in ins], env[target][s])

            model.append(run)
            mags[target] = max(mags.get(target, 1.0), launch_mag(kernel, ins))

        def stmt_whole(indent: str, fresh: bool) -> None:
            kernel = self.pick_kernel("whole")
            if fresh:
                target = self.temp()
                body.append(f"{indent}{target} = pl.create_tensor([{R}, {C}], {self.pl_dtype})")
                model.append(lambda env, t=target: env.__setitem__(t, np.zeros((R, C), self.np_dtype)))
            else:
                target = rng.choice(targets)
            ins = sources(kernel.inputs, target)
            if rng.random() < 0.3 and not self.backend:
                self.features.add("submit")
                body.append(f"{indent}{target}, tid = pl.submit(self.{kernel.name}, {', '.join(ins)}, {target})")
            else:
                body.append(f"{indent}{target} = self.{kernel.name}({', '.join(ins)}, {target})")
            model.append(lambda env, k=kernel, ins=ins, t=target: env.__setitem__(
                t, k.call(*[env[i] for i in ins], env[t])))
            mags[target] = max(mags.get(target, 1.0), launch_mag(kernel, ins))
            if fresh:
                defined.append(target)

        def stmt_scope(indent: str) -> None:
            target = rng.choice(targets)
            src = sources(1, target)[0]
            # a name of its own: a tile name of an earlier scope is visible after it, and the
            # frontend would carry it through a loop assigning it (a tile of another shape)
            tile = self.temp().replace("tmp", "s")
            e = self.expr([(tile, mags[src])], rng.randint(1, 3), None)
            self.features.add("pl.at scope")
            if rng.random() < 0.5:
                body.append(f"{indent}with pl.at(level=pl.Level.CORE_GROUP):")
                body.append(f"{indent}    {tile} = pl.load({src}, [0, 0], [{R}, {C}])")
                body.append(f"{indent}    {target} = pl.store({e.src}, [0, 0], {target})")
                model.append(lambda env, s=src, t=target: env.__setitem__(t, e.run({tile: env[s]})))
            else:
                self.features.add("scope per block")
                body.append(f"{indent}for b in pl.range({nb}):")
                body.append(f"{indent}    with pl.at(level=pl.Level.CORE_GROUP):")
                body.append(f"{indent}        {tile} = pl.load({src}, [b * {B}, 0], [{B}, {C}])")
                body.append(f"{indent}        {target} = pl.store({e.src}, [b * {B}, 0], {target})")

                def run(env, s=src, t=target):
                    new = env[t].copy()
                    for b in range(nb):
                        new[b * B:(b + 1) * B] = e.run({tile: env[s][b * B:(b + 1) * B]})
                    env[t] = new

                model.append(run)
            mags[target] = max(mags[target], min(e.mag, self.max_mag))

        def stmt_spmd(indent: str) -> None:
            target = rng.choice(targets)
            src = sources(1, target)[0]
            window = self.temp().replace("tmp", "v")
            e = self.expr([(window, mags[src])], rng.randint(1, 2), None, tiles=False)
            self.features.add("pl.spmd")
            body.append(f"{indent}for i in pl.spmd({nb}):")
            body.append(f"{indent}    {window} = {src}[i * {B}:(i + 1) * {B}]")
            body.append(f"{indent}    {target}[i * {B}:(i + 1) * {B}] = {e.src}")

            def run(env, s=src, t=target):
                new = env[t].copy()
                for b in range(nb):
                    new[b * B:(b + 1) * B] = e.run({window: env[s][b * B:(b + 1) * B]})
                env[t] = new

            model.append(run)
            mags[target] = max(mags[target], min(e.mag, self.max_mag))

        def stmt_helper(indent: str) -> None:
            self._helpers += 1
            name = f"h{self._helpers}"
            self.features.add("inline helper")
            if self.backend or rng.random() < 0.6:  # a scope writing the caller's tensor
                target = rng.choice(targets)
                src = sources(1, target)[0]
                e = self.expr([("t", mags[src])], rng.randint(1, 3), None)
                helper_lines.extend([
                    "    @pl.function(type=pl.FunctionType.Inline)",
                    f"    def {name}(self, a: T, out: pl.Out[T]) -> T:",
                    "        with pl.at(level=pl.Level.CORE_GROUP):",
                    f"            t = pl.load(a, [0, 0], [{R}, {C}])",
                    f"            out = pl.store({e.src}, [0, 0], out)",
                    "        return out",
                    "",
                ])
                body.append(f"{indent}{target} = self.{name}({src}, {target})")
                model.append(lambda env, s=src, t=target: env.__setitem__(t, e.run({"t": env[s]})))
                mags[target] = max(mags[target], min(e.mag, self.max_mag))
                return
            # tensor compute returning a new tensor
            self.features.add("inline helper of tensor compute")
            a, b = sources(2, "")
            e = self.expr([("a", mags[a]), ("b", mags[b])], rng.randint(1, 3), None, tiles=False)
            if e.src.isidentifier():  # returning a parameter would name the caller's storage
                e = Expr(f"({e.src} * 1.0)", e.run, e.mag)
            helper_lines.extend([
                "    @pl.function(type=pl.FunctionType.Inline)",
                f"    def {name}(self, a: T, b: T) -> T:",
                f"        return {e.src}",
                "",
            ])
            target = self.temp()
            body.append(f"{indent}{target} = self.{name}({a}, {b})")
            model.append(lambda env, t=target: env.__setitem__(t, e.run({"a": env[a], "b": env[b]})))
            mags[target] = min(e.mag, self.max_mag)
            defined.append(target)

        def stmt_tensor(indent: str) -> None:
            leaves = [(d, mags[d]) for d in defined if mags[d] <= 8.0] or [("x", 1.0)]
            e = self.expr(leaves, rng.randint(1, 3), "f" if self.scalar_f else None, tiles=False)
            if e.src.isidentifier():  # `tmp = x` would name x's storage: a new tensor instead
                e = Expr(f"({e.src} * 1.0)", e.run, e.mag)
            target = self.temp()
            self.features.add("tensor compute")
            body.append(f"{indent}{target} = {e.src}")
            model.append(lambda env, t=target: env.__setitem__(t, e.run(env)))
            mags[target] = min(e.mag, self.max_mag)
            defined.append(target)

        def stmt_if(indent: str) -> None:
            self.features.add("if")
            threshold = rng.randint(1, 4)
            body.append(f"{indent}if n > {threshold}:")
            before = len(model)
            branch(indent + "    ")
            then = model[before:]
            del model[before:]
            has_else = rng.random() < 0.6
            otherwise: list[Model] = []
            if has_else:
                body.append(f"{indent}else:")
                branch(indent + "    ")
                otherwise = model[before:]
                del model[before:]
            else:
                self.features.add("if without else")

            def run(env):
                for step in then if env["n"] > threshold else otherwise:
                    step(env)

            model.append(run)

        def branch(indent: str) -> None:
            saved = list(defined)
            choices = [stmt_block_loop, stmt_scope, stmt_helper]
            if not self.backend:
                choices.append(stmt_tensor_into_target)
            rng.choice(choices)(indent)
            defined[:] = saved  # names made in one branch are not defined after it

        def stmt_tensor_into_target(indent: str) -> None:
            target = rng.choice(targets)
            leaves = [(d, mags[d]) for d in defined if mags[d] <= 8.0] or [("x", 1.0)]
            e = self.expr(leaves, rng.randint(1, 2), None, tiles=False)
            # a window assignment writes the parameter's storage (a plain `out = ...` would
            # only rebind the name)
            body.append(f"{indent}{target}[0:{R}, :] = {e.src}")
            model.append(lambda env, t=target: env.__setitem__(t, e.run(env)))
            mags[target] = max(mags[target], min(e.mag, self.max_mag))
            self.features.add("tensor compute")

        def stmt_while(indent: str) -> None:
            self.features.add("while")
            src = rng.choice(["x", "y"])
            target = self.temp()
            c = rng.choice([0.5, 0.25])
            body.append(f"{indent}{target} = {src} * 1.0")
            body.append(f"{indent}i = 0")
            body.append(f"{indent}while i < n:")
            body.append(f"{indent}    {target} = {target} * {c} + {src}")
            body.append(f"{indent}    i = i + 1")

            def run(env, s=src, t=target, c=c):
                v = env[s] * self.np_dtype(1.0)
                for _ in range(env["n"]):
                    v = v * self.np_dtype(c) + env[s]
                env[t] = v

            model.append(run)
            mags[target] = 2.0
            defined.append(target)

        statements = [stmt_block_loop, stmt_block_loop, stmt_window_loop, stmt_scope, stmt_helper,
                      lambda i: stmt_whole(i, rng.random() < 0.5), stmt_spmd]
        if self.scalar_n:
            statements.append(stmt_if)
        if not self.backend:
            statements += [stmt_tensor, stmt_tensor]
            if self.scalar_n:
                statements.append(stmt_while)
        for _ in range(rng.randint(1, 5)):
            rng.choice(statements)("        ")
        result = rng.choice(targets)
        body.append(f"        return {result}")
        model.append(lambda env: env.__setitem__("__result__", env[result]))

        annotations = {"tensor": "T", "out": "pl.Out[T]", "inout": "pl.InOut[T]",
                       "index": "pl.Scalar[pl.INDEX]", "f32": f"pl.Scalar[{self.pl_dtype}]"}
        signature = ", ".join(f"{n}: {annotations[k]}" for n, k in params)
        decorator = "@pl.function(type=pl.FunctionType.Orchestration)" if kind == "Orchestration" else "@pl.function"
        lines = [
            f'"""Generated by pypto_xdsl.fuzz.dsl, seed {self.seed}{" (backend profile)" if self.backend else ""}."""',
            "",
            "import pypto_xdsl.language as pl",
            "",
            f"R, C, B = {R}, {C}, {B}",
            f"T = pl.Tensor[[R, C], {self.pl_dtype}]",
            f"Blk = pl.Tensor[[B, C], {self.pl_dtype}]",
            "",
            "",
            "@pl.program",
            f"class Fuzz{self.seed}:",
        ]
        for kernel in self.kernels:
            lines += kernel.source + [""]
        lines += helper_lines
        lines += [f"    {decorator}", f"    def main(self, {signature}) -> T:", *body]
        source = "\n".join(lines) + "\n"
        self.features.add(f"{self.dtype}")
        return DslProgram(self.seed, source, "main", params, model, self.dtype, self.backend, set(self.features))

    def pick_kernel(self, kind: str) -> Kernel:
        same = [k for k in self.kernels if k.kind == kind]
        if same and self.rng.random() < 0.5:
            self.features.add("kernel called twice")
            return self.rng.choice(same)
        return self.kernel(kind)


def generate_dsl_program(seed: int, backend: bool = False) -> DslProgram:
    """A random valid `pl` program and its model (deterministic in `seed`)."""
    return DslGenerator(seed, backend).generate()


def check_against_model(program: DslProgram, module, seeds: Sequence[int] = (0,)) -> str | None:
    """Run `module` (the program through the frontend) in the interpreter and compare its
    out/inout parameters and result with the model; None when they agree, else the first
    difference."""
    from pypto_xdsl.interpreter.api import random_inputs, run

    for seed in seeds:
        inputs = random_inputs(module, program.entry, seed)
        expected = program.expected(inputs)
        results = run(module, program.entry, inputs)
        got = {name: inputs[i] for i, (name, kind) in enumerate(program.params) if kind in ("out", "inout")}
        got["result"] = results[0] if results else None
        rtol, atol = program.tolerance()
        for name, want in expected.items():
            have = np.asarray(got[name], dtype=np.float64)
            want64 = np.asarray(want, dtype=np.float64)
            if have.shape != want64.shape:
                return f"input seed {seed}: {name} has shape {list(have.shape)}, the model {list(want64.shape)}"
            if not np.allclose(have, want64, rtol=rtol, atol=atol, equal_nan=True):
                diff = np.abs(have - want64)
                at = np.unravel_index(int(np.nanargmax(np.where(np.isnan(diff), np.inf, diff))), diff.shape)
                return (f"input seed {seed}: {name} differs from the model at {list(map(int, at))}: "
                        f"interpreter {have[at]!r}, model {want64[at]!r}")
    return None
