"""Program-level emission: every file `pypto-compile` writes, as {relative path: text}.

`emit_program` prints a module whose kernels are planned and synchronised `ascendc.kernel`s;
kernels still at the pypto level, or not planned or synchronised yet, are lowered first on a
copy with the pypto-ascendc stages (convert-pypto-to-ascendc, ascendc-tree-reductions,
ascendc-plan-buffers, ascendc-insert-sync, ascendc-remove-redundant-sync, ascendc-prefetch-copy-in,
ascendc-cse), so printing never
changes its input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp

from pypto_xdsl.analysis.cxx_names import name_original_op
from pypto_xdsl.backend.ascendc.cxx import BackendError, Namer
from pypto_xdsl.backend.ascendc.host import HostProgram, kernel_signature, orchestration_funcs, print_host
from pypto_xdsl.backend.ascendc.host_driver import print_driver
from pypto_xdsl.backend.ascendc.kernel import kernel_cxx_name, print_ascendc_kernel
from pypto_xdsl.dialects import program
from pypto_xdsl.dialects.ascendc_kernel import KernelOp
from pypto_xdsl.dialects.ascendc_types import KernelKind


@dataclass
class EmittedProgram:
    files: dict[str, str] = field(default_factory=dict)
    kernels: list[str] = field(default_factory=list)
    hosts: list[HostProgram] = field(default_factory=list)
    entry: str | None = None  # orchestration function the driver runs


def host_file_base(orchestration_name: str) -> str:
    return Namer.sanitize(orchestration_name) + "_orch"


def kernel_funcs(module: ModuleOp) -> list[KernelOp]:
    return [op for op in module.body.block.ops if isinstance(op, KernelOp)]


def _complete_kernel(kernel: KernelOp) -> None:
    if kernel.kernel_kind == KernelKind.MIX:
        return  # its members are planned and synchronised, each on its own core
    from pypto_xdsl.transforms.ascendc_cse import kernel_cse
    from pypto_xdsl.transforms.ascendc_insert_sync import sync_kernel
    from pypto_xdsl.transforms.ascendc_plan_buffers import plan_kernel
    from pypto_xdsl.transforms.ascendc_prefetch_copy_in import prefetch_kernel
    from pypto_xdsl.transforms.ascendc_remove_redundant_sync import remove_redundant_sync
    from pypto_xdsl.transforms.ascendc_tree_reductions import tree_reductions

    tree_reductions(kernel)  # a planned kernel is left as it is
    plan_kernel(kernel)
    if kernel.sync is None:
        sync_kernel(kernel)
        remove_redundant_sync(kernel)
        prefetch_kernel(kernel)
        kernel_cse(kernel)


def lower_for_printing(module: ModuleOp) -> ModuleOp:
    """`module`, or a copy of it whose kernels are all planned, synchronised ascendc.kernels."""
    from pypto_xdsl.transforms.convert_pypto_to_ascendc import has_pypto_kernels, lower_module

    pending = has_pypto_kernels(module) or any(
        k.kernel_kind != KernelKind.MIX and (k.memory_plan is None or k.sync is None) for k in kernel_funcs(module)
    )
    if not pending:
        return module
    clone = module.clone()
    originals = dict(zip(clone.walk(), module.walk()))
    try:
        if has_pypto_kernels(clone):
            lower_module(clone)
        for kernel in kernel_funcs(clone):
            _complete_kernel(kernel)
    except BackendError as e:
        name_original_op(e, originals)  # located in the input, not in the copy
        raise
    return clone


def lower_kernel_for_printing(func: program.FuncOp) -> KernelOp:
    """A planned and synchronised ascendc.kernel for one tile-level pypto kernel (a copy)."""
    from pypto_xdsl.transforms.ascendc_kernel_lowering import lower_kernel

    kernel = lower_kernel(func)
    _complete_kernel(kernel)
    return kernel


def choose_entry(module: ModuleOp, entry: str | None) -> program.FuncOp | None:
    orch = orchestration_funcs(module)
    if entry is not None:
        for f in orch:
            if f.sym_name.data == entry:
                return f
        raise BackendError(f"ascendc: there is no orchestration function @{entry}")
    for f in orch:
        if f.sym_name.data == "main":
            return f
    return orch[-1] if orch else None


def launch_header(func: KernelOp) -> str:
    """The simulation's stand-in for CANN's generated `aclrtlaunch_<kernel>.h`."""
    name = kernel_cxx_name(func.sym_name.data)
    sig = kernel_signature(func)
    kparams = ", ".join(("uint8_t*" if c == "void*" else c) for c, _ in sig)
    hparams = "".join(f", {c} {n}" for c, n in sig)
    args = ",\n".join(
        "      " + (f'static_cast<uint8_t*>(pypto_sim::device_arg("{name}", "{n}", {n}))' if c == "void*" else n)
        for c, n in sig
    )
    launch = "launch_mix" if func.kernel_kind == KernelKind.MIX else "launch"
    ratio = f", {func.vector_cores}" if func.kernel_kind == KernelKind.MIX else ""  # AIVs per AIC
    return (
        f"// pypto-xdsl CPU SIMULATION launch header for kernel {name} (CANN generates the real one).\n"
        "#pragma once\n"
        '#include "pypto_sim/launch.h"\n\n'
        f'extern "C" void {name}({kparams});\n\n'
        f"inline uint32_t aclrtlaunch_{name}(uint32_t blockDim, aclrtStream stream{hparams}) {{\n"
        f'  return pypto_sim::{launch}("{name}", blockDim, stream, [&] {{\n'
        f"    {name}(\n{args});\n"
        f"  }}{ratio});\n"
        "}\n"
    )


def cmake_lists(kernels: list[str], hosts: list[HostProgram], has_driver: bool) -> str:
    kernel_files = " ".join(f"kernels/{k}.cpp" for k in kernels)
    host_files = " ".join(f"host/{host_file_base(h.name)}.cpp" for h in hosts)
    driver = "host/main.cpp " if has_driver else ""
    lines = [
        "# Generated by pypto-xdsl. Builds the Ascend C kernels and the ACL host program.",
        "#   CANN:       cmake -B build -DSOC_VERSION=Ascend910B1 && cmake --build build",
        "#   simulation: cmake -B build -DPYPTO_SIM=ON && cmake --build build   (plain g++, no NPU)",
        "cmake_minimum_required(VERSION 3.16)",
        "project(pypto_program LANGUAGES CXX)",
        "set(CMAKE_CXX_STANDARD 17)",
        'option(PYPTO_SIM "build against the pypto-xdsl CPU simulation headers in sim/" OFF)',
        "",
        "if(PYPTO_SIM)",
        "  add_library(pypto_kernels STATIC " + kernel_files + ")",
        "  target_include_directories(pypto_kernels PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/sim/include ${CMAKE_CURRENT_SOURCE_DIR}/sim)",
        "  find_package(Threads REQUIRED)  # a MIX kernel's AIC and AIV run as two threads",
        "  target_link_libraries(pypto_kernels PUBLIC Threads::Threads)",
        "  set(PYPTO_HOST_LIBS pypto_kernels)",
        "else()",
        '  set(SOC_VERSION "Ascend910B1" CACHE STRING "Ascend SoC the kernels are compiled for")',
        '  set(ASCEND_CANN_PACKAGE_PATH "$ENV{ASCEND_HOME_PATH}" CACHE PATH "CANN toolkit install directory")',
        "  if(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)",
        "    set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)",
        "  else()",
        "    set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)",
        "  endif()",
        "  include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)",
        "  # ascendc_library compiles the kernels with bisheng and generates aclrtlaunch_<kernel>.h",
        "  ascendc_library(pypto_kernels STATIC " + kernel_files + ")",
        "  set(PYPTO_HOST_LIBS pypto_kernels ascendcl)",
        "endif()",
    ]
    if hosts:
        lines += [
            "",
            f"add_executable(pypto_main {driver}{host_files})",
            "target_include_directories(pypto_main PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/host)",
            "target_link_libraries(pypto_main PRIVATE ${PYPTO_HOST_LIBS})",
        ]
    return "\n".join(lines) + "\n"


def readme(em: EmittedProgram) -> str:
    kernels = "\n".join(f"- `kernels/{k}.cpp`" for k in em.kernels) or "- (none)"
    hosts = "\n".join(f"- `host/{host_file_base(h.name)}.cpp`: `{h.fn_name}(stream, ...)`" for h in em.hosts) or "- (none)"
    driver = (
        f"`host/main.cpp` runs `@{em.entry}`: `pypto_main <in-dir> <out-dir>` reads every `in`/`inout` "
        "parameter from `<in-dir>/<name>.bin` (raw little-endian, row-major) and writes every "
        "`out`/`inout` parameter to `<out-dir>/<name>.bin`."
        if em.entry
        else "No orchestration function: only kernels were generated."
    )
    return f"""# Generated by pypto-xdsl

Ascend C kernels (one per incore function):
{kernels}

ACL host code (one per orchestration function):
{hosts}

{driver}

## Build with CANN (NPU)
    source $ASCEND_HOME_PATH/bin/setenv.bash   # or set_env.sh of your toolkit
    cmake -B build -DSOC_VERSION=Ascend910B1 && cmake --build build
    ./build/pypto_main in/ out/

## Build with the CPU simulation (no NPU, plain g++)
    cmake -B build -DPYPTO_SIM=ON && cmake --build build
or `pypto-compile prog.mlir -o out --sim`. `sim/include` holds pypto-xdsl's simulation of the
Ascend C and ACL subset these files use (not Huawei's runtime); it checks alignment, UB capacity
and queue discipline and stops with "pypto-sim error" on a violation.
"""


def emit_program(module: ModuleOp, entry: str | None = None, with_sim: bool = True) -> EmittedProgram:
    from pypto_xdsl.transforms.convert_pypto_to_ascendc import check_dynamic_extents

    em = EmittedProgram()
    check_dynamic_extents(module)
    seen: dict[str, str] = {}
    module = lower_for_printing(module)
    kfuncs = kernel_funcs(module)
    members = {f.sym_name.data: f for f in kfuncs if f.group is not None}
    for f in kfuncs:
        name = kernel_cxx_name(f.sym_name.data)
        if name in seen:
            raise BackendError(f"ascendc: kernels @{seen[name]} and @{f.sym_name.data} map to the same C++ name {name}")
        seen[name] = f.sym_name.data
        if f.group is not None:
            continue  # printed in its MIX kernel's file
        em.files[f"kernels/{name}.cpp"] = print_ascendc_kernel(f, members)
        em.kernels.append(name)
        if with_sim:
            em.files[f"sim/aclrtlaunch_{name}.h"] = launch_header(f)
    entry_func = choose_entry(module, entry)
    for f in orchestration_funcs(module):
        host = print_host(f)
        base = host_file_base(f.sym_name.data)
        em.files[f"host/{base}.h"] = host.header
        em.files[f"host/{base}.cpp"] = host.source
        em.hosts.append(host)
        if f is entry_func:
            em.entry = f.sym_name.data
            em.files["host/main.cpp"] = print_driver(f, host)
    if not kfuncs and not em.hosts:
        raise BackendError("ascendc: the module has no incore or orchestration functions to print")
    em.files["CMakeLists.txt"] = cmake_lists(em.kernels, em.hosts, em.entry is not None)
    em.files["README.md"] = readme(em)
    return em

