"""Python DSL frontend: `@pl.program` classes -> pypto IR (see docs/language.md)."""

from pypto_xdsl.frontend.errors import ParserError

__all__ = ["ParserError", "Program", "load_programs", "parse_python_file"]


def __getattr__(name: str):
    if name in ("Program", "load_programs", "parse_python_file"):
        from pypto_xdsl.frontend import program

        return getattr(program, name)
    raise AttributeError(name)
