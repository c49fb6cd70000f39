"""Python DSL frontend: `@pl.program` classes and `@pl.jit` functions -> pypto IR (see
docs/language.md). It builds IR only; running and compiling is `pypto_xdsl.runtime`'s."""

from pypto_xdsl.frontend.errors import ParserError

__all__ = ["ParserError", "Program", "load_programs", "load_python", "parse_python_file"]


def __getattr__(name: str):
    if name in ("Program", "load_programs", "load_python", "parse_python_file"):
        from pypto_xdsl.frontend import program

        return getattr(program, name)
    raise AttributeError(name)
