"""C++ identifiers for generated code: IR name hints made valid, unique and never keywords.

Shared by the Ascend C lowering (which decides the names of the variables it declares) and
the printers (which name parameters and scalars)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException

CPP_KEYWORDS = frozenset(
    ["alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t", "class", "compl", "const", "constexpr", "const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "main", "half", "pipe"]
)

# Names the generated kernels use for their own objects.
KERNEL_RESERVED = ("pipe", "GM_ADDR", "AscendC")


class Namer:
    """Unique C++ identifiers derived from IR name hints."""

    def __init__(self, reserved: Iterable[str] = ()):
        self.used: set[str] = set(CPP_KEYWORDS) | set(reserved)

    @staticmethod
    def sanitize(base: str) -> str:
        base = re.sub(r"[^0-9A-Za-z_]", "_", base)
        if not base or base[0].isdigit():
            base = "v" + base
        if base.startswith("__") or re.match(r"_[A-Z]", base):
            base = "v" + base
        return base

    def fresh(self, base: str) -> str:
        base = self.sanitize(base)
        name, k = base, 1
        while name in self.used:
            name = f"{base}_{k}"
            k += 1
        self.used.add(name)
        return name


def kernel_cxx_name(name: str) -> str:
    """The C++ name of a kernel: the function name, unless that is a C++ keyword or `main`."""
    base = Namer.sanitize(name)
    probe = Namer()
    return base if probe.fresh(base) == base else f"{base}_kernel"


def kernel_namer(kernel_name: str) -> Namer:
    namer = Namer(KERNEL_RESERVED)
    namer.used.add(kernel_cxx_name(kernel_name))
    return namer


def param_names(hints: Iterable[str | None], namer: Namer) -> list[str]:
    """C++ names of a kernel's parameters, in order (`arg<k>` for unnamed ones)."""
    return [namer.fresh(h or f"arg{k}") for k, h in enumerate(hints)]


class BackendError(DiagnosticException):
    """The Ascend C backend cannot lower or print the program (unsupported op, shape, or layout)."""


def name_original_op(error: BaseException, originals: dict[Operation, Operation]) -> None:
    """For an error raised while lowering a copy (`originals`: each op of the copy, as cloned,
    to the op of the input it copies; `dict(zip(copy.walk(), original.walk()))` before any
    change): set `error.op` to the input's op it is about (the one it names, else the
    innermost op a raising frame holds as `op` or `user`, when the message names its kind),
    so that the diagnostic is located in the user's input."""
    culprit = getattr(error, "op", None)
    if culprit not in originals:
        culprit = None
        tb = error.__traceback__
        while tb is not None:
            for name in ("op", "user"):
                value = tb.tb_frame.f_locals.get(name)
                if isinstance(value, Operation) and value in originals:
                    culprit = value
            tb = tb.tb_next
    # only an op the message names ("cannot lower 'pypto.tile.move' in @k"): a message about a
    # function is located at the function by name
    if culprit is not None and f"'{culprit.name}'" in str(error):
        error.op = originals[culprit]  # type: ignore[attr-defined]


def enclosing_function_name(op: Operation) -> str | None:
    func: Operation | None = op
    while func is not None and func.name not in ("pypto.func", "ascendc.kernel"):
        func = func.parent_op()
    return func.sym_name.data if func is not None else None  # type: ignore[union-attr]


def op_error(op: Operation, reason: str) -> BackendError:
    name = enclosing_function_name(op)
    where = f" in @{name}" if name is not None else ""
    return BackendError(f"ascendc: cannot lower '{op.name}'{where}: {reason}")


def ctype(t: Attribute) -> str:
    """The C++ type of an element or scalar type."""
    if isinstance(t, IndexType):
        return "int64_t"
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float16Type):
        return "half"
    if isinstance(t, BFloat16Type):
        return "bfloat16_t"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return "bool"
        if width in (8, 16, 32, 64):
            unsigned = t.signedness.data == Signedness.UNSIGNED
            return f"{'u' if unsigned else ''}int{width}_t"
    raise BackendError(f"ascendc: type {t} has no C++ equivalent")
