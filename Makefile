# pypto-xdsl developer entry points. `make test` and `make demo` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LLVM_BIN := /usr/lib/llvm-22/bin
export PATH := $(abspath $(BIN)):$(LLVM_BIN):$(PATH)

.PHONY: setup system-deps test lint pytest filecheck demo fuzz bench clean

setup: $(STAMP) system-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# mlir-opt (interop tests) and g++ (backend simulation) come from Debian when missing.
system-deps:
	@if [ ! -x $(LLVM_BIN)/mlir-opt ] || ! command -v g++ >/dev/null 2>&1; then \
	  if command -v apt-get >/dev/null 2>&1; then \
	    echo "installing mlir-22-tools and g++ with apt-get"; \
	    SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	    $$SUDO apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq mlir-22-tools g++ >/dev/null; \
	  else \
	    echo "warning: apt-get unavailable; tests needing mlir-opt or g++ will be skipped" >&2; \
	  fi; \
	fi

test: setup lint
	$(BIN)/python -m pytest -q tests
	$(BIN)/lit -q tests/filecheck

# Pyflakes errors (unused/undefined names) and import order in the package and benchmarks.
lint: setup
	$(BIN)/ruff check pypto_xdsl benchmarks

pytest: setup
	$(BIN)/python -m pytest -q tests

filecheck: setup
	$(BIN)/lit -v tests/filecheck

demo: setup
	$(BIN)/python -m pypto_xdsl.tools.demo

# Pass-pipeline fuzzing: generated programs through every registered pass pipeline must verify
# and keep their meaning (reference interpreter). Time-bounded; prints programs/s and failures;
# failing programs are written to build/fuzz-failures/.
FUZZ_CASES ?= 1500
FUZZ_SECONDS ?= 480
FUZZ_PASSES ?= auto
fuzz: setup
	$(BIN)/python -m pypto_xdsl.fuzz.runner --passes '$(FUZZ_PASSES)' --cases $(FUZZ_CASES) \
	  --time-limit $(FUZZ_SECONDS) --save-failures build/fuzz-failures

# Benchmarks print timings and ratios against the previous size (and mlir-opt's inliner).
bench: setup
	$(BIN)/python benchmarks/bench_inline_functions.py --sizes 1000,2000,4000,8000,16000,32000,40000 --chains 8,64,256
	$(BIN)/python benchmarks/bench_outline_incore_scopes.py --min 1000 --max 16000
	$(BIN)/python benchmarks/bench_frontend.py
	$(BIN)/python benchmarks/bench_convert_tensor_to_tile.py --min 64 --max 512
	$(BIN)/python benchmarks/bench_expand_mixed_kernel.py --min 64 --max 1024

clean:
	rm -rf $(VENV) build *.egg-info
