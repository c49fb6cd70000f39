"""Deep and large programs (`.mlir` text) for the scale tests and `benchmarks/bench_scale.py`.

Each nesting builder returns a program whose `@main(%n: index) -> index` nests one region
kind `depth` levels deep and computes a known result, so a run checks the semantics too:

* `nested_for`: `scf.for` loops (the outer three run twice, the rest once), carrying a value;
* `nested_if`: `scf.if` with results and else branches, every condition true;
* `nested_while`: `scf.while` loops each running once;
* `nested_mixed`: for, if and while in turn;
* `scope_over_loops`: one `pypto.incore_scope` around `depth - 1` nested loops (scopes do not
  nest: `nested_scopes` is the invalid program whose verifier error must be clean);
* `call_chain`: `@f<depth-1>` calls `@f<depth-2>` ... calls `@f0` (opaque functions);
* `inline_chain`: the same chain of inline helpers over tensors, for `inline-functions`;
* `straight_line`: one function of `ops` elementwise ops, for parse/print throughput.
"""

from __future__ import annotations

T = "!pypto.tensor<[4, 8], f32>"


def _close(lines: list[str], depth: int, yield_inner) -> None:
    for d in reversed(range(depth)):
        lines.append("  " * (d + 1) + "}")
        if d > 0:
            lines.append("  " * d + yield_inner(d))


def nested_for(depth: int) -> str:
    """Result: n + 1 + 2**3 - 1 ... (the outer three loops run twice): n + 8."""
    lines = [
        "pypto.func @main(%n: index) -> index {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c2 = arith.constant 2 : index",
    ]
    for d in range(depth):
        init = "%n" if d == 0 else f"%a{d - 1}"
        bound = "%c2" if d < 3 else "%c1"
        lines.append(
            "  " * (d + 1)
            + f"%r{d} = scf.for %i{d} = %c0 to {bound} step %c1 iter_args(%a{d} = {init}) -> (index) {{"
        )
    pad = "  " * (depth + 1)
    lines += [f"{pad}%x = arith.addi %a{depth - 1}, %c1 : index", f"{pad}scf.yield %x : index"]
    _close(lines, depth, lambda d: f"  scf.yield %r{d} : index")
    lines += ["  pypto.return %r0 : index", "}"]
    return "\n".join(lines) + "\n"


def nested_if(depth: int) -> str:
    """Result: n + 1."""
    lines = [
        "pypto.func @main(%n: index) -> index {",
        "  %c1 = arith.constant 1 : index",
        "  %true = arith.constant true",
    ]
    for d in range(depth):
        lines.append("  " * (d + 1) + f"%r{d} = scf.if %true -> (index) {{")
    pad = "  " * (depth + 1)
    lines += [f"{pad}%x = arith.addi %n, %c1 : index", f"{pad}scf.yield %x : index"]
    for d in reversed(range(depth)):
        pad = "  " * (d + 1)
        lines += [f"{pad}}} else {{", f"{pad}  scf.yield %n : index", f"{pad}}}"]
        if d > 0:
            lines.append("  " * d + f"  scf.yield %r{d} : index")
    lines += ["  pypto.return %r0 : index", "}"]
    return "\n".join(lines) + "\n"


def nested_while(depth: int) -> str:
    """Result: 1 (each loop counts from 0 to 1 once)."""
    lines = [
        "pypto.func @main(%n: index) -> index {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
    ]
    for d in range(depth):
        pad = "  " * (d + 1)
        lines += [
            f"{pad}%r{d} = scf.while (%w{d} = %c0) : (index) -> index {{",
            f"{pad}  %p{d} = arith.cmpi slt, %w{d}, %c1 : index",
            f"{pad}  scf.condition(%p{d}) %w{d} : index",
            f"{pad}}} do {{",
            f"{pad}^bb0(%b{d}: index):",
            f"{pad}  %s{d} = arith.addi %b{d}, %c1 : index",
        ]
    for d in reversed(range(depth)):
        pad = "  " * (d + 1)
        lines += [f"{pad}  scf.yield %s{d} : index", f"{pad}}}"]
    lines += ["  pypto.return %r0 : index", "}"]
    return "\n".join(lines) + "\n"


def nested_mixed(depth: int) -> str:
    """for, if and while in turn, each adding 1 to the carried value: result n + depth."""
    lines = [
        "pypto.func @main(%n: index) -> index {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %true = arith.constant true",
    ]
    closers: list[list[str]] = []
    value = "%n"
    for d in range(depth):
        pad = "  " * (d + 1)
        kind = d % 3
        if kind == 0:
            lines.append(f"{pad}%r{d} = scf.for %i{d} = %c0 to %c1 step %c1 iter_args(%a{d} = {value}) -> (index) {{")
            lines.append(f"{pad}  %v{d} = arith.addi %a{d}, %c1 : index")
            closers.append([f"{pad}  scf.yield %YIELD : index", f"{pad}}}"])
        elif kind == 1:
            lines.append(f"{pad}%r{d} = scf.if %true -> (index) {{")
            lines.append(f"{pad}  %v{d} = arith.addi {value}, %c1 : index")
            closers.append([f"{pad}  scf.yield %YIELD : index", f"{pad}}} else {{", f"{pad}  scf.yield {value} : index",
                            f"{pad}}}"])
        else:
            lines += [
                f"{pad}%r{d}, %u{d} = scf.while (%w{d} = %c0, %q{d} = {value}) : (index, index) -> (index, index) {{",
                f"{pad}  %p{d} = arith.cmpi slt, %w{d}, %c1 : index",
                f"{pad}  scf.condition(%p{d}) %w{d}, %q{d} : index, index",
                f"{pad}}} do {{",
                f"{pad}^bb0(%b{d}: index, %e{d}: index):",
                f"{pad}  %k{d} = arith.addi %b{d}, %c1 : index",
                f"{pad}  %v{d} = arith.addi %e{d}, %c1 : index",
            ]
            closers.append([f"{pad}  scf.yield %k{d}, %YIELD : index, index", f"{pad}}}"])
        value = f"%v{d}"
    inner = value
    for d in reversed(range(depth)):
        for line in closers[d]:
            lines.append(line.replace("%YIELD", inner))
        inner = f"%u{d}" if d % 3 == 2 else f"%r{d}"
    lines += [f"  pypto.return {inner} : index", "}"]
    return "\n".join(lines) + "\n"


def scope_over_loops(depth: int) -> str:
    """An incore scope holding `depth - 1` nested loops that store a tile into the output."""
    tile = "!pypto.tile<[4, 8], f32, vec>"
    lines = [
        f"pypto.func @main(%a: {T}, out %o: {T}) -> {T} {{",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %s = pypto.incore_scope -> ({T}) {{",
    ]
    loops = depth - 1
    for d in range(loops):
        init = "%o" if d == 0 else f"%a{d - 1}"
        lines.append("  " * (d + 2) + f"%r{d} = scf.for %i{d} = %c0 to %c1 step %c1 iter_args(%a{d} = {init}) -> ({T}) {{")
    pad = "  " * (loops + 2)
    last = f"%a{loops - 1}" if loops else "%o"
    lines += [
        f"{pad}%t = pypto.tile.load %a[%c0, %c0] : {T} -> {tile}",
        f"{pad}%e = pypto.tile.exp %t : {tile}",
        f"{pad}%w = pypto.tile.store %e, {last}[%c0, %c0] : {tile}, {T}",
    ]
    if loops:
        lines.append(f"{pad}scf.yield %w : {T}")
        for d in reversed(range(loops)):
            lines.append("  " * (d + 2) + "}")
            if d > 0:
                lines.append("  " * (d + 1) + f"  scf.yield %r{d} : {T}")
        lines.append(f"    pypto.yield %r0 : {T}")
    else:
        lines.append(f"    pypto.yield %w : {T}")
    lines += ["  }", f"  pypto.return %s : {T}", "}"]
    return "\n".join(lines) + "\n"


def nested_scopes(depth: int) -> str:
    """Incore scopes nested `depth` deep: invalid (scopes do not nest), a clean error."""
    lines = ["pypto.func @main() {"]
    for d in range(depth):
        lines.append("  " * (d + 1) + "pypto.incore_scope {")
    for d in reversed(range(depth)):
        lines += ["  " * (d + 2) + "pypto.yield", "  " * (d + 1) + "}"]
    lines += ["  pypto.return", "}"]
    return "\n".join(lines) + "\n"


def call_chain(depth: int) -> str:
    """Result: n + 1, through `depth` nested calls."""
    lines = [
        "pypto.func @f0(%x: index) -> index {",
        "  %c1 = arith.constant 1 : index",
        "  %y = arith.addi %x, %c1 : index",
        "  pypto.return %y : index",
        "}",
    ]
    for i in range(1, depth):
        lines += [
            f"pypto.func @f{i}(%x: index) -> index {{",
            f"  %y = pypto.call @f{i - 1}(%x) : (index) -> index",
            "  pypto.return %y : index",
            "}",
        ]
    lines += [
        "pypto.func @main(%n: index) -> index {",
        f"  %r = pypto.call @f{depth - 1}(%n) : (index) -> index",
        "  pypto.return %r : index",
        "}",
    ]
    return "\n".join(lines) + "\n"


def inline_chain(depth: int) -> str:
    """Inline helpers `@h<i>` calling `@h<i-1>` over tensors, called once from `@main`."""
    lines = [
        f"pypto.func inline @h0(%x: {T}) -> {T} {{",
        f"  %e = pypto.tensor.exp %x : {T}",
        f"  pypto.return %e : {T}",
        "}",
    ]
    for i in range(1, depth):
        lines += [
            f"pypto.func inline @h{i}(%x: {T}) -> {T} {{",
            f"  %y = pypto.call @h{i - 1}(%x) : ({T}) -> {T}",
            f"  %z = pypto.tensor.neg %y : {T}",
            f"  pypto.return %z : {T}",
            "}",
        ]
    lines += [
        f"pypto.func @main(%a: {T}) -> {T} {{",
        f"  %r = pypto.call @h{depth - 1}(%a) : ({T}) -> {T}",
        f"  pypto.return %r : {T}",
        "}",
    ]
    return "\n".join(lines) + "\n"


def straight_line(ops: int) -> str:
    """One function of `ops` elementwise tensor ops, each using the previous two values."""
    lines = [f"pypto.func @main(%a: {T}, %b: {T}) -> {T} {{"]
    prev, cur = "%a", "%b"
    names = ["add", "mul", "sub", "maximum"]
    for k in range(ops):
        lines.append(f"  %v{k} = pypto.tensor.{names[k % 4]} {prev}, {cur} : {T}")
        prev, cur = cur, f"%v{k}"
    lines += [f"  pypto.return {cur} : {T}", "}"]
    return "\n".join(lines) + "\n"


NESTING = {
    "scf.for": nested_for,
    "scf.if": nested_if,
    "scf.while": nested_while,
    "for/if/while": nested_mixed,
    "incore_scope over loops": scope_over_loops,
    "calls": call_chain,
}
"""Every nesting kind, by the name the scale table uses."""

EXPECTED = {
    "scf.for": lambda n, depth: n + 8 if depth >= 3 else n + 2**depth,
    "scf.if": lambda n, depth: n + 1,
    "scf.while": lambda n, depth: 1,
    "for/if/while": lambda n, depth: n + depth,
    "calls": lambda n, depth: n + 1,
}
"""`@main(n)` of each index-valued nesting kind."""
