"""pypto-opt: xdsl-opt with the pypto dialect, its passes and targets."""

from __future__ import annotations

import sys
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from io import BytesIO, StringIO
from pathlib import Path
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.printer import Printer
from xdsl.targets.mlir import MLIRTarget
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Span
from xdsl.xdsl_opt_main import xDSLOptMain

from pypto_xdsl.dialects import get_all_dialects
from pypto_xdsl.parsing import LocatingParser, decode_source
from pypto_xdsl.tools import diagnostics
from pypto_xdsl.transforms import get_all_passes
from pypto_xdsl.utils import call_with_deep_stack, paused_gc


class _DirectWritePrinter(Printer):
    """xDSL's printer, writing text without newlines straight to the stream.

    `BasePrinter.print_string` goes through the `print` builtin once per fragment; a large
    module prints millions of fragments, and the builtin's call overhead is a tenth of the
    printing time. Text with newlines keeps xDSL's indentation-aware path.
    """

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if "\n" in text:
            super().print_string(text, indent=indent)
            return
        self._current_column += len(text)
        self.stream.write(text)  # pyright: ignore[reportOptionalMemberAccess]


@dataclass(frozen=True)
class _MLIRTarget(MLIRTarget):
    """xDSL's `mlir` target, printing with `_DirectWritePrinter` (same text)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if self.syntax_highlight:
            return super().emit(ctx, module, output)
        printer = _DirectWritePrinter(
            stream=output,
            print_generic_format=self.print_generic_format,
            print_properties_as_attributes=self.print_properties_as_attributes,
            print_debuginfo=self.print_debuginfo,
        )
        printer.print_op(module)
        printer.print_metadata(ctx.loaded_dialects)
        print("\n", file=output)


class _OutputBuffer(StringIO):
    def close(self) -> None:  # xDSLOptMain closes non-stdout streams; keep the text
        pass


class PyptoOptMain(xDSLOptMain):
    """xdsl-opt with pypto registered and compiler-style errors.

    Malformed input (parse or verifier error, failing pass) prints one diagnostic with a
    `file:line:col` location to stderr and exits with status 1: no Python traceback and no
    partial output (output is buffered until every chunk succeeded); see
    `pypto_xdsl.tools.diagnostics`. With `--verify-diagnostics`/`--parsing-diagnostics` xDSL's
    own behaviour is kept.
    """

    version_format = "pypto-opt (xdsl {xdsl_version})"

    def __init__(self, args: Sequence[str] | None = None):
        self._op_spans: weakref.WeakKeyDictionary[Operation, tuple[Span, int]] = (
            weakref.WeakKeyDictionary()
        )
        self._chunk_offset = 0
        self._buffer: _OutputBuffer | None = None
        self._python_warnings: list[str] = []
        super().__init__(description="pypto modular optimizer driver", args=args)

    def _register_located_mlir_frontend(self) -> None:
        """`.mlir` input goes through a parser that records op locations."""

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            return LocatingParser(
                self.ctx,
                io.read(),
                self.get_input_name(),
                spans=self._op_spans,
                line_offset=self._chunk_offset,
            ).parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0):
        self._chunk_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        if self.args.input_file in (None, "-"):  # `-`: mlir-opt's spelling of stdin
            return sys.stdin.buffer, "mlir"
        try:
            data = diagnostics.read_input(self.args.input_file)
        except diagnostics.InputFileError as e:
            self._fail(f"pypto-opt: error: {e}")
        extension = Path(self.args.input_file).suffix.removeprefix(".")
        # like mlir-opt (and pypto-run, pypto-compile): any other file is .mlir text
        return BytesIO(data), extension if extension in self.available_frontends else "mlir"

    def get_input_name(self) -> str:
        return "<stdin>" if self.args.input_file in (None, "-") else self.args.input_file

    def _diagnostic_mode(self) -> bool:
        return bool(self.args.verify_diagnostics or self.args.parsing_diagnostics)

    def prepare_output(self) -> IO[str]:
        if self._diagnostic_mode():
            return super().prepare_output()
        self._buffer = _OutputBuffer()
        return self._buffer

    def run(self) -> None:
        try:
            super().run()
        except ParseError as e:
            self._fail(diagnostics.format_parse_error(e))
        except DiagnosticException as e:
            self._fail(diagnostics.format_op_error(e, self._op_spans, self.get_input_name()))
        except OSError as e:  # an output that cannot be written (the input is read above)
            self._fail(diagnostics.format_os_error("pypto-opt", e))
        except Exception as e:  # noqa: BLE001 - every failure becomes one diagnostic
            if (text := diagnostics.format_resource_error(e, self.get_input_name())) is not None:
                self._fail(text)
            if diagnostics.raised_by_verifier(e):  # an upstream verifier's bare exception
                self._fail(diagnostics.format_op_error(e, self._op_spans, self.get_input_name()))
            self._fail(diagnostics.format_internal_error("pypto-opt", e))
        if self._buffer is not None:
            if self.args.output_file is None:
                sys.stdout.write(self._buffer.getvalue())
            else:
                try:
                    with open(self.args.output_file, "w") as f:
                        f.write(self._buffer.getvalue())
                except OSError as e:
                    self._fail(diagnostics.format_os_error("pypto-opt", e))
        for w in self._python_warnings:  # after the output: a diagnostic stays the first line
            print(w, file=sys.stderr)

    def setup_pipeline(self) -> None:
        from xdsl.utils.arg_spec import ArgSpecParseError

        try:
            super().setup_pipeline()
        except (ValueError, ArgSpecParseError) as e:  # unknown pass, malformed pipeline
            self._fail(f"pypto-opt: error: {e}")

    def _fail(self, message: str) -> None:
        print(message, file=sys.stderr)
        sys.exit(1)

    def register_all_dialects(self) -> None:
        # The multiverse already holds pypto when the package's entry point is installed.
        super().register_all_dialects()
        for name, factory in get_all_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        self._register_located_mlir_frontend()

        def parse_python(io) -> "ModuleOp":  # noqa: F821  (a @pl.program or @pl.jit function)
            from xdsl.utils.exceptions import DiagnosticException

            from pypto_xdsl.frontend.errors import ParserError
            from pypto_xdsl.runtime.loading import module_from_python

            text = decode_source(io.read(), self.get_input_name())  # bad bytes: a located ParseError
            try:
                loaded = module_from_python(
                    text, self.get_input_name(), self.args.entry,
                    {s.name: s for s in self.args.shape}, dict(self.args.scalar),
                )
            except ParserError as e:
                if self.args.verify_diagnostics:
                    raise DiagnosticException(str(e)) from None
                print(e, file=sys.stderr)
                for w in getattr(e, "warnings", ()):
                    print(w, file=sys.stderr)
                sys.exit(1)
            self._python_warnings = loaded.warnings
            diagnostics.add_frontend_spans(loaded.module, self._op_spans)
            return loaded.module

        self.available_frontends["py"] = parse_python

    def register_all_arguments(self, arg_parser) -> None:
        super().register_all_arguments(arg_parser)
        from pypto_xdsl.tools.python_args import add_python_arguments

        add_python_arguments(arg_parser)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets["mlir"] = lambda: _MLIRTarget
        try:
            from pypto_xdsl.tools.ascendc_target import register_targets
        except ImportError:
            return
        register_targets(self)


def main(args: Sequence[str] | None = None) -> None:
    # One run builds and rewrites one large IR graph that stays alive to the end; cyclic
    # collections would only walk it again and again (about 10% of a large run). The run is
    # on a deep stack, so deeply nested programs parse, verify, transform and print.
    with paused_gc():
        diagnostics.quiet_when_stdout_closes(lambda: call_with_deep_stack(lambda: PyptoOptMain(args).run()))


if __name__ == "__main__":
    main(sys.argv[1:])
