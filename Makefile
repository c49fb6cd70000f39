# pypto-xdsl developer entry points. `make test` and `make demo` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LLVM_BIN := /usr/lib/llvm-22/bin
# pytest worker processes (pytest-xdist); 0 runs the suite in this process
PYTEST_WORKERS ?= auto
export PATH := $(abspath $(BIN)):$(LLVM_BIN):$(PATH)

.PHONY: setup system-deps test lint pytest filecheck demo fuzz fuzz-errors bench reference-examples reference-st check-headers clean

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
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) tests
	$(BIN)/lit -q tests/filecheck

# Pyflakes errors (unused/undefined names) and import order in the package, benchmarks, tests and scripts.
lint: setup
	$(BIN)/ruff check pypto_xdsl benchmarks tests scripts

pytest: setup
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) tests

filecheck: setup
	$(BIN)/lit -v tests/filecheck

demo: setup
	$(BIN)/python -m pypto_xdsl.tools.demo

# Pass-pipeline fuzzing: generated programs (every region kind, dtype, rank, memory space and
# function kind) through every registered pass pipeline, up to the backend's passes and the
# Ascend C printer, must verify and keep their meaning (reference interpreter); a share is
# built with g++ and run against the simulation. A share (FUZZ_DSL_SHARE) are pl DSL programs:
# through the frontend, checked against their numpy model, then the same checks. Prints
# programs/s, the features exercised and failures (DSL programs counted apart); failing
# programs are written to build/fuzz-failures/. One worker process per core (FUZZ_JOBS).
FUZZ_CASES ?= 3000
FUZZ_SECONDS ?= 3600
FUZZ_PASSES ?= auto
FUZZ_SIM_SHARE ?= 0.05
FUZZ_DSL_SHARE ?= 0.25
FUZZ_JOBS ?= auto
fuzz: setup
	$(BIN)/python -m pypto_xdsl.fuzz.runner --passes '$(FUZZ_PASSES)' --cases $(FUZZ_CASES) \
	  --time-limit $(FUZZ_SECONDS) --sim-share $(FUZZ_SIM_SHARE) --dsl-share $(FUZZ_DSL_SHARE) \
	  --jobs $(FUZZ_JOBS) --progress --save-failures build/fuzz-failures

# Negative fuzzing: mutants of valid inputs through pypto-opt (and, when it accepts them,
# pypto-default and pypto-run): each must give valid output or exactly one located diagnostic.
# Prints the table of mutation kinds x outcomes; failing mutants go to build/fuzz-errors/.
FUZZ_MUTANTS ?= 5000
fuzz-errors: setup
	$(BIN)/python -m pypto_xdsl.fuzz.errors --mutants $(FUZZ_MUTANTS) --seeds . --save-failures build/fuzz-errors

# Benchmarks print timings and ratios against the previous size (and mlir-opt's inliner).
bench: setup
	$(BIN)/python benchmarks/bench_inline_functions.py --sizes 1000,2000,4000,8000,16000,32000,40000 --chains 8,64,256
	$(BIN)/python benchmarks/bench_outline_incore_scopes.py --min 1000 --max 16000
	$(BIN)/python benchmarks/bench_frontend.py
	$(BIN)/python benchmarks/bench_convert_tensor_to_tile.py --min 64 --max 512
	$(BIN)/python benchmarks/bench_expand_mixed_kernel.py --min 64 --max 1024
	$(BIN)/python benchmarks/bench_scale.py --depths 1000,3000 --chains 1000 --ops 50000,200000

# The reference's own examples (PyPTO's examples/, `pypto` changed to `pypto_xdsl` on their import
# lines, nothing else) on the interpreter and sim targets; prints docs/language.md's table.
# Opt-in, not part of `make test`:
# the examples check their results with torch, installed CPU-only into a venv of its own
# (build/ref-venv, outside the tracked tree); when the CPU wheel index cannot be reached, pip's
# configured index is used instead. REFERENCE is a PyPTO git checkout or bare repository;
# REFERENCE_ARGS passes options (--targets sim, --only models/, --fresh, ...).
REFERENCE ?= /work/.mirror/hw-native-sys+pypto/repo
REFERENCE_ARGS ?=
REF_VENV := build/ref-venv
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
$(REF_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(REF_VENV)
	$(REF_VENV)/bin/pip install --quiet --upgrade pip
	$(REF_VENV)/bin/pip install --quiet --retries 0 --index-url $(TORCH_INDEX) torch || \
	  $(REF_VENV)/bin/pip install --quiet torch
	$(REF_VENV)/bin/pip install --quiet numpy -e .
	touch $@

reference-examples: $(REF_VENV)/.installed system-deps
	$(REF_VENV)/bin/python scripts/run_reference_examples.py --reference '$(REFERENCE)' $(REFERENCE_ARGS)

# The reference's system tests (tests/st/runtime/ops, control_flow, cross_core, scheduling,
# examples, codegen/dsl) under pytest with scripts/reference_st_plugin.py for the reference's
# device runner, same import rule and venv as reference-examples (pytest added to it); prints
# docs/language.md's table ("The reference's system tests"). Opt-in; REFERENCE_ST_ARGS passes
# options (--targets interpreter, --only runtime/ops/test_abs, --timeout 900, --fresh).
REFERENCE_ST_ARGS ?=
reference-st: $(REF_VENV)/.installed system-deps
	$(REF_VENV)/bin/pip install --quiet pytest
	$(REF_VENV)/bin/python scripts/run_reference_st.py --reference '$(REFERENCE)' $(REFERENCE_ST_ARGS)

# Opt-in, not part of `make test`: every kernel and host file the backend emits for the repository's
# inputs, type-checked with clang -fsyntax-only against the real Ascend C devkit headers and the
# public ACL headers (docs/backend.md#the-devkit-header-check). DEVKIT: an asc-devkit checkout or
# git directory; ACL_INCLUDE: a directory holding acl/acl.h, or a graphengine git directory.
DEVKIT ?= /work/.mirror/mirror-cann+asc-devkit/repo
ACL_INCLUDE ?= /work/.mirror/mindspore-ai+graphengine/repo
HEADER_CHECK_JOBS ?= $(shell nproc)
check-headers: setup
	@if ! command -v clang++-19 >/dev/null 2>&1 && ! command -v clang++ >/dev/null 2>&1; then \
	  echo "installing clang-19 with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq clang-19 >/dev/null; \
	fi
	$(BIN)/python scripts/check_devkit_headers.py --devkit '$(DEVKIT)' --acl-include '$(ACL_INCLUDE)' --jobs $(HEADER_CHECK_JOBS)

clean:
	rm -rf $(VENV) build *.egg-info
