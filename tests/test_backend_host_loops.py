"""Host code for tensors created inside orchestration loops."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

INPUTS = Path(__file__).parent / "backend_inputs"
COMPILE = str(Path(sys.executable).parent / "pypto-compile")

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@needs_gxx
def test_tensor_created_in_a_loop_is_allocated_once_and_matches_the_interpreter(tmp_path: Path) -> None:
    result = subprocess.run(
        [COMPILE, str(INPUTS / "create_in_loop.py"), "-o", str(tmp_path), "--sim"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "simulation matches the interpreter" in result.stdout
    host = (tmp_path / "host" / "main_orch.cpp").read_text()
    loop = host.index("for (", host.index("int run_main("))
    assert host.index("aclrtMalloc(&blk_dev") < loop  # hoisted out of the loop body
    assert host.count("aclrtMalloc(&blk_dev") == 1
    assert host.index("CHECK_ACL(buffers.free_all());") > loop


def test_tensor_created_in_a_loop_and_carried_out_is_rejected(tmp_path: Path) -> None:
    result = subprocess.run(
        [COMPILE, str(INPUTS / "create_escapes_loop.mlir"), "-o", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 1
    assert "pypto.tensor.create" in result.stderr
    assert "carried out of it" in result.stderr
    assert "Traceback" not in result.stderr


_EARLY_RETURN_DRIVER = r"""
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "main_orch.h"

int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 3;
  std::vector<float> a(16 * 64, 1.0f), out(16 * 64, 0.0f);
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) return 3;
  // A null host pointer makes the copy-in of `b` fail after `a` and `b` were allocated.
  const int status = run_main(stream, a.data(), nullptr, out.data());
  std::printf("status=%d live=%zu\n", status, pypto_sim::device_allocs().size());
  return 0;
}
"""


@needs_gxx
def test_host_code_frees_device_buffers_when_an_acl_call_fails(tmp_path: Path) -> None:
    from xdsl.parser import Parser

    from pypto_xdsl.backend.ascendc import sim
    from pypto_xdsl.dialects import make_context
    from pypto_xdsl.tools.pypto_compile import compile_module
    from pypto_xdsl.transforms.pipelines import PyptoDefaultPipeline

    source = (Path(__file__).parents[1] / "examples" / "fused_softmax.mlir").read_text()
    ctx = make_context()
    module = Parser(ctx, source).parse_module()
    PyptoDefaultPipeline().apply(ctx, module)
    compile_module(module, tmp_path)
    (tmp_path / "host" / "main.cpp").write_text(_EARLY_RETURN_DRIVER)
    exe = sim.build(tmp_path)
    result = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    status, live = result.stdout.split()
    assert status != "status=0"  # the run failed part-way ...
    assert live == "live=0"  # ... and released every device buffer it had allocated
