"""Random mixed cube + vector kernels: one incore scope per program whose row-block loop
chains cube stages (loads into L1, matmuls, K loops of matmul_acc) and vector stages
(elementwise and row ops) joined by boundary moves both ways and by round trips through a
global-memory workspace, with inner loops carrying accumulators of either core and branches.

`generate(seed)` returns the program's text; every program verifies and runs. Used by
tests/test_expand_mixed_kernel_random.py (the split must compute what the unsplit program did).
"""

from __future__ import annotations

import random

B = 16  # every tile is [B, B]


def _t(dtype: str, space: str) -> str:
    return f"!pypto.tile<[{B}, {B}], {dtype}, {space}>"


class _Gen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.n = 0
        self.rm = self.rng.choice((1, 2))
        self.rk = self.rng.choice((1, 2))
        self.M, self.K, self.N = B * self.rm, B * self.rk, B
        self.ws32 = self.ws16 = False
        self.indent = 6

    def fresh(self, hint: str) -> str:
        self.n += 1
        return f"%{hint}{self.n}"

    def emit(self, line: str) -> None:
        self.lines.append(" " * self.indent + line)

    def tensor(self, rows: int, cols: int, dtype: str) -> str:
        return f"!pypto.tensor<[{rows}, {cols}], {dtype}>"

    # ---- stages

    def load(self, src: str, shape: tuple[int, int], dtype: str, space: str, row: str, col: str) -> str:
        v = self.fresh("ld")
        self.emit(f"{v} = pypto.tile.load {src}[{row}, {col}] : {self.tensor(*shape, dtype)} -> {_t(dtype, space)}")
        return v

    def move(self, v: str, dtype: str, src: str, dst: str) -> str:
        r = self.fresh("mv")
        self.emit(f"{r} = pypto.tile.move {v} : {_t(dtype, src)} -> {_t(dtype, dst)}")
        return r

    def cube_start(self) -> str:
        """acc = x[row] @ b, the K blocks in a loop of matmul_acc when K > B."""
        a = self.move(self.load("%a", (self.M, self.K), "f16", "mat", "%row", "%c0"), "f16", "mat", "left")
        b = self.move(self.load("%b", (self.K, self.N), "f16", "mat", "%c0", "%c0"), "f16", "mat", "right")
        acc = self.fresh("acc")
        self.emit(f"{acc} = pypto.tile.matmul {a}, {b} : {_t('f16', 'left')}, {_t('f16', 'right')}")
        if self.rk == 1:
            return acc
        out, part = self.fresh("acc"), self.fresh("part")
        k = self.fresh("k")
        self.emit(f"{out} = scf.for {k} = %c1 to %c{self.rk} step %c1 iter_args({part} = {acc}) -> ({_t('f32', 'acc')}) {{")
        self.indent += 2
        col = self.fresh("kc")
        self.emit(f"{col} = arith.muli {k}, %c16 : index")
        a = self.move(self.load("%a", (self.M, self.K), "f16", "mat", "%row", col), "f16", "mat", "left")
        b = self.move(self.load("%b", (self.K, self.N), "f16", "mat", col, "%c0"), "f16", "mat", "right")
        nxt = self.fresh("acc")
        self.emit(f"{nxt} = pypto.tile.matmul_acc {part}, {a}, {b} : {_t('f32', 'acc')}, {_t('f16', 'left')}, {_t('f16', 'right')}")
        self.emit(f"scf.yield {nxt} : {_t('f32', 'acc')}")
        self.indent -= 2
        self.emit("}")
        return out

    def to_vector(self, acc: str) -> str:
        if self.rng.random() < 0.35:  # through the workspace
            self.ws32 = True
            st = self.fresh("st")
            self.emit(f"{st} = pypto.tile.store {acc}, %wsf[%row, %c0] : {_t('f32', 'acc')}, {self.tensor(self.M, B, 'f32')}")
            return self.load(st, (self.M, B), "f32", "vec", "%row", "%c0")
        return self.move(acc, "f32", "acc", "vec")

    def to_cube(self, v: str) -> str:
        """acc = half(v) @ w."""
        h = self.fresh("h")
        self.emit(f"{h} = pypto.tile.cast {v} : {_t('f32', 'vec')} -> {_t('f16', 'vec')}")
        choice = self.rng.random()
        if choice < 0.3:
            self.ws16 = True
            st = self.fresh("st")
            self.emit(f"{st} = pypto.tile.store {h}, %wsh[%row, %c0] : {_t('f16', 'vec')}, {self.tensor(self.M, B, 'f16')}")
            left = self.move(self.load(st, (self.M, B), "f16", "mat", "%row", "%c0"), "f16", "mat", "left")
        elif choice < 0.6:
            left = self.move(self.move(h, "f16", "vec", "mat"), "f16", "mat", "left")
        else:
            left = self.move(h, "f16", "vec", "left")
        w = self.move(self.load("%w", (B, B), "f16", "mat", "%c0", "%c0"), "f16", "mat", "right")
        acc = self.fresh("acc")
        self.emit(f"{acc} = pypto.tile.matmul {left}, {w} : {_t('f16', 'left')}, {_t('f16', 'right')}")
        return acc

    def vector_op(self, v: str) -> str:
        r = self.fresh("v")
        kind = self.rng.choice(("relu", "tanh", "scale", "addx", "softmax_row", "expsmall"))
        t = _t("f32", "vec")
        if kind in ("relu", "tanh"):
            self.emit(f"{r} = pypto.tile.{kind} {v} : {t}")
        elif kind == "scale":
            self.emit(f"{r} = pypto.tile.muls {v}, %quarter : {t}, f32")
        elif kind == "addx":
            x = self.load("%x", (self.M, B), "f32", "vec", "%row", "%c0")
            self.emit(f"{r} = pypto.tile.add {v}, {x} : {t}")
        elif kind == "expsmall":
            s = self.fresh("v")
            self.emit(f"{s} = pypto.tile.tanh {v} : {t}")
            self.emit(f"{r} = pypto.tile.exp {s} : {t}")
        else:
            m = self.fresh("m")
            self.emit(f"{m} = pypto.tile.row_max {v} : {t}")
            self.emit(f"{r} = pypto.tile.row_expand_sub {v}, {m} : {t}, {_t('f32', 'vec')[:-1].replace(f'[{B}, {B}]', f'[{B}, 1]')}>")
        return r

    def vector_chain(self, v: str) -> str:
        for _ in range(self.rng.randint(1, 3)):
            v = self.vector_op(v)
        if self.rng.random() < 0.3:  # a branch on the row block (a condition both cores compute)
            out = self.fresh("br")
            self.emit(f"{out} = scf.if %first -> ({_t('f32', 'vec')}) {{")
            self.indent += 2
            a = self.vector_op(v)
            self.emit(f"scf.yield {a} : {_t('f32', 'vec')}")
            self.indent -= 2
            self.emit("} else {")
            self.indent += 2
            self.emit(f"scf.yield {v} : {_t('f32', 'vec')}")
            self.indent -= 2
            self.emit("}")
            v = out
        return v

    def vector_loop(self, v: str) -> str:
        """Two rounds of cube work accumulated on the vector core."""
        out, acc_v, j = self.fresh("vl"), self.fresh("va"), self.fresh("j")
        self.emit(f"{out} = scf.for {j} = %c0 to %c2 step %c1 iter_args({acc_v} = {v}) -> ({_t('f32', 'vec')}) {{")
        self.indent += 2
        back = self.to_vector(self.to_cube(acc_v))
        nxt = self.fresh("v")
        self.emit(f"{nxt} = pypto.tile.muls {back}, %quarter : {_t('f32', 'vec')}, f32")
        summed = self.fresh("v")
        self.emit(f"{summed} = pypto.tile.add {acc_v}, {nxt} : {_t('f32', 'vec')}")
        self.emit(f"scf.yield {summed} : {_t('f32', 'vec')}")
        self.indent -= 2
        self.emit("}")
        return out

    def body(self) -> None:
        on_cube = self.rng.random() < 0.7
        value = self.cube_start() if on_cube else self.load("%x", (self.M, B), "f32", "vec", "%row", "%c0")
        for _ in range(self.rng.randint(1, 4)):
            if on_cube:
                value, on_cube = self.vector_chain(self.to_vector(value)), False
            elif self.rng.random() < 0.3:
                value = self.vector_loop(value)
            else:
                value, on_cube = self.to_cube(value), True
        space = "acc" if on_cube else "vec"
        o = self.fresh("o")
        self.emit(f"{o} = pypto.tile.store {value}, %o_i[%row, %c0] : {_t('f32', space)}, {self.tensor(self.M, B, 'f32')}")
        self.emit(f"scf.yield {o} : {self.tensor(self.M, B, 'f32')}")

    def program(self) -> str:
        self.body()
        M, K = self.M, self.K
        o_t = self.tensor(M, B, "f32")
        slots = self.rng.choice(("", " slots(1)", " slots(3)"))
        head = [
            f"pypto.func @main(%a: {self.tensor(M, K, 'f16')}, %b: {self.tensor(K, B, 'f16')}, "
            f"%w: {self.tensor(B, B, 'f16')}, %x: {self.tensor(M, B, 'f32')}, out %o: {o_t}) -> {o_t} {{",
            f"  %r = pypto.incore_scope name(\"mixed\"){slots} -> ({o_t}) {{",
            "    %c0 = arith.constant 0 : index",
            "    %c1 = arith.constant 1 : index",
            "    %c2 = arith.constant 2 : index",
            "    %c16 = arith.constant 16 : index",
            f"    %c{self.rm} = arith.constant {self.rm} : index" if self.rm not in (1, 2) else "",
            f"    %c{self.rk} = arith.constant {self.rk} : index" if self.rk not in (1, 2) else "",
            "    %quarter = arith.constant 0.25 : f32",
        ]
        if self.ws32:
            head.append(f"    %wsf = pypto.tensor.create : {self.tensor(M, B, 'f32')}")
        if self.ws16:
            head.append(f"    %wsh = pypto.tensor.create : {self.tensor(M, B, 'f16')}")
        head += [
            f"    %o_end = scf.for %i = %c0 to %c{self.rm} step %c1 iter_args(%o_i = %o) -> ({o_t}) {{",
            "      %row = arith.muli %i, %c16 : index",
            "      %first = arith.cmpi eq, %i, %c0 : index",
        ]
        tail = [
            "    }",
            f"    pypto.yield %o_end : {o_t}",
            "  }",
            f"  pypto.return %r : {o_t}",
            "}",
        ]
        return "\n".join(line for line in head + self.lines + tail if line) + "\n"


def generate(seed: int) -> str:
    return _Gen(seed).program()
