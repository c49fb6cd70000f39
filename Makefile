# pypto-xdsl developer entry points. `make test` and `make demo` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LLVM_BIN := /usr/lib/llvm-22/bin
export PATH := $(abspath $(BIN)):$(LLVM_BIN):$(PATH)

.PHONY: setup system-deps test pytest filecheck demo fuzz bench clean

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

test: setup
	$(BIN)/python -m pytest -q tests
	$(BIN)/lit -q tests/filecheck

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
	$(BIN)/python -m pypto_xdsl.interpreter.fuzz --passes '$(FUZZ_PASSES)' --cases $(FUZZ_CASES) \
	  --time-limit $(FUZZ_SECONDS) --save-failures build/fuzz-failures

clean:
	rm -rf $(VENV) build *.egg-info
