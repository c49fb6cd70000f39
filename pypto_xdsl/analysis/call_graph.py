"""The inline call graph: which `pypto.call`/`pypto.submit` ops target inline functions.

One walk over the function bodies of a module collects every call-like op whose callee is a
`pypto.func inline`, the inline -> inline edges between helpers, and the submits of inline
functions (which no pass can splice). Cycle detection and the callee-first order are
iterative depth-first searches, so a chain of thousands of helpers does not hit Python's
recursion limit. Everything is deterministic: functions are visited in module order and each
function's callees in the order of their first call site.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.ir import Operation

from pypto_xdsl.dialects.attributes import FuncKind
from pypto_xdsl.dialects.program import CallOp, FuncOp, SubmitOp, func_ops
from pypto_xdsl.utils import walk_ops


def callee_name(op: CallOp | SubmitOp) -> str:
    return op.callee.root_reference.data


@dataclass
class InlineCallGraph:
    """Call sites of inline functions in a module, in module order."""

    functions: dict[str, FuncOp] = field(default_factory=dict)
    """Every `pypto.func` of the module by name (first definition wins), in module order."""
    inline: dict[str, FuncOp] = field(default_factory=dict)
    """The inline functions by name, in module order."""
    calls: list[tuple[CallOp, FuncOp]] = field(default_factory=list)
    """Every `pypto.call` of an inline function with the function that contains it."""
    submits: list[tuple[SubmitOp, FuncOp]] = field(default_factory=list)
    """Every `pypto.submit` of an inline function with the function that contains it."""
    edges: dict[str, list[str]] = field(default_factory=dict)
    """inline caller -> inline callees, each callee once, in first-call order."""

    @property
    def has_inline_functions(self) -> bool:
        return bool(self.inline)

    def top_level_calls(self) -> list[tuple[CallOp, FuncOp]]:
        """Calls of inline functions from functions that are not inline themselves."""
        return [(c, f) for c, f in self.calls if f.func_kind != FuncKind.INLINE]

    def find_cycle(self) -> list[str] | None:
        """A cycle of the inline -> inline graph as a path `[a, b, a]`, or None."""
        WHITE, GREY, BLACK = 0, 1, 2
        colour = dict.fromkeys(self.inline, WHITE)
        for root in self.inline:
            if colour[root] != WHITE:
                continue
            stack: list[tuple[str, int]] = [(root, 0)]
            path: list[str] = [root]
            colour[root] = GREY
            while stack:
                node, i = stack[-1]
                succs = self.edges.get(node, [])
                if i == len(succs):
                    stack.pop()
                    path.pop()
                    colour[node] = BLACK
                    continue
                stack[-1] = (node, i + 1)
                nxt = succs[i]
                if colour[nxt] == GREY:
                    return path[path.index(nxt) :] + [nxt]
                if colour[nxt] == WHITE:
                    colour[nxt] = GREY
                    stack.append((nxt, 0))
                    path.append(nxt)
        return None

    def callee_first_order(self, roots: Iterable[str] | None = None) -> list[str]:
        """Inline functions reachable from `roots` (default: all), callees before callers.

        The graph must be acyclic (check `find_cycle` first).
        """
        order: list[str] = []
        done: set[str] = set()
        for root in self.inline if roots is None else roots:
            if root in done:
                continue
            done.add(root)
            stack: list[tuple[str, int]] = [(root, 0)]
            while stack:
                node, i = stack[-1]
                succs = self.edges.get(node, [])
                if i == len(succs):
                    stack.pop()
                    order.append(node)
                    continue
                stack[-1] = (node, i + 1)
                nxt = succs[i]
                if nxt not in done:
                    done.add(nxt)
                    stack.append((nxt, 0))
        return order


def build_inline_call_graph(module: Operation) -> InlineCallGraph:
    """Collect the inline call graph of `module` (a `builtin.module`).

    Without inline functions this only scans the module's top-level ops.
    """
    graph = InlineCallGraph()
    for f in func_ops(module):
        name = f.sym_name.data
        graph.functions.setdefault(name, f)
        if f.func_kind == FuncKind.INLINE:
            graph.inline.setdefault(name, f)
    if not graph.inline:
        return graph
    inline = graph.inline
    for f in graph.functions.values():
        caller_is_inline = f.func_kind == FuncKind.INLINE
        caller = f.sym_name.data
        succs: list[str] = []
        for op in walk_ops(f.body):
            if isinstance(op, CallOp):
                name = op.callee.root_reference.data
                if name in inline:
                    graph.calls.append((op, f))
                    if caller_is_inline and name not in succs:
                        succs.append(name)
            elif isinstance(op, SubmitOp):
                if op.callee.root_reference.data in inline:
                    graph.submits.append((op, f))
        if caller_is_inline:
            graph.edges[caller] = succs
    return graph
