"""The driver `main()` of an orchestration function: reads each parameter from
`<in_dir>/<param>.bin`, runs the host entry on one stream and writes the outputs back; a
program with dynamic dimensions takes each one's extent on the command line (`N=17`)."""

from __future__ import annotations

from xdsl.ir import SSAValue

from pypto_xdsl.backend.ascendc.cxx import Lines, Namer
from pypto_xdsl.backend.ascendc.host import CHECK_ACL_MACRO, HostPrinter, HostProgram
from pypto_xdsl.backend.ascendc.host_tensors import dims_expr, host_ctype
from pypto_xdsl.dialects import program
from pypto_xdsl.dialects.attributes import ParamDirection, TensorType


def param_file_names(func: program.FuncOp) -> list[str]:
    """File stem of each parameter for the driver's `<dir>/<stem>.bin` files."""
    used: set[str] = set()
    names = []
    for k, arg in enumerate(func.args):
        base = Namer.sanitize(arg.name_hint) if arg.name_hint else f"arg{k}"
        name, j = base, 1
        while name in used:
            name, j = f"{base}_{j}", j + 1
        used.add(name)
        names.append(name)
    return names


def print_driver(func: program.FuncOp, host: HostProgram) -> str:
    """A `main()` that reads inputs from `<in_dir>/<param>.bin`, runs, writes outputs; a
    program with dynamic dimensions takes each one's extent on the command line (`N=17`)."""
    lines = Lines(depth=1)
    p = HostPrinter(func)
    params = p.params()
    symbols: list[str] = []
    for arg in p.dims_params:
        symbols += [d for d in arg.type.get_shape() if isinstance(d, str) and d not in symbols]  # type: ignore[attr-defined]
    extents = "".join(f" {d}=<extent>" for d in symbols)
    lines.add(f"if (argc != {3 + len(symbols)}) {{")
    lines.add(f'  std::fprintf(stderr, "usage: %s <input-dir> <output-dir>{extents}\\n", argv[0]);')
    lines.add("  return 2;")
    lines.add("}")
    lines.add("const std::string in_dir = argv[1], out_dir = argv[2];")
    names: dict[str, str] = {}
    for k, d in enumerate(symbols):
        var = p.namer.fresh(d)
        names[d] = var
        lines.add(f'const int64_t {var} = read_extent(argv[{3 + k}], "{d}");')
        lines.add(f"if ({var} < 0) return 2;")
    call_args = ["stream"]
    files = dict(zip(func.args, param_file_names(func)))
    counts: dict[SSAValue, str] = {}
    for c, n, arg, direction in params:
        t = arg.type
        file = files[arg]
        if isinstance(t, TensorType) and p.dims_params.get(arg) == n:  # the extents of a dynamic tensor (not an i64 tensor)
            dims = ", ".join(names[d] if isinstance(d, str) else str(d) for d in t.get_shape())
            lines.add(f"const int64_t {n}[] = {{{dims}}};")
            call_args.append(n)
        elif isinstance(t, TensorType):
            elem = host_ctype(t.element_type)
            count = dims_expr(t, names) if not t.is_static() else str(t.num_elements())
            counts[arg] = count
            lines.add(f"std::vector<{elem}> {n}({count});")
            optional = "true" if direction == ParamDirection.OUT else "false"
            lines.add(
                f'if (!read_file(in_dir + "/{file}.bin", {n}.data(), {count} * sizeof({elem}), {optional})) return 3;'
            )
            call_args.append(f"{n}.data()")
        else:
            lines.add(f"{c} {n}{{}};")
            lines.add(f'if (!read_file(in_dir + "/{file}.bin", &{n}, sizeof({n}))) return 3;')
            call_args.append(n)
    lines.add("CHECK_ACL(aclInit(nullptr));")
    lines.add("CHECK_ACL(aclrtSetDevice(0));")
    lines.add("aclrtStream stream = nullptr;")
    lines.add("CHECK_ACL(aclrtCreateStream(&stream));")
    lines.add(f"CHECK_ACL({host.fn_name}({', '.join(call_args)}));")
    lines.add("CHECK_ACL(aclrtDestroyStream(stream));")
    lines.add("CHECK_ACL(aclrtResetDevice(0));")
    lines.add("CHECK_ACL(aclFinalize());")
    for c, n, arg, direction in params:
        t = arg.type
        if isinstance(t, TensorType) and direction != ParamDirection.IN:
            elem = host_ctype(t.element_type)
            lines.add(
                f'if (!write_file(out_dir + "/{files[arg]}.bin", {n}.data(), {counts[arg]} * sizeof({elem}))) return 3;'
            )
    lines.add("return 0;")
    base = Namer.sanitize(func.sym_name.data) + "_orch"
    extent_reader = (
        "// `NAME=VALUE` on the command line: the run-time extent of one dynamic dimension.\n"
        "static int64_t read_extent(const char* arg, const char* name) {\n"
        "  const size_t n = std::strlen(name);\n"
        "  char* end = nullptr;\n"
        "  const long long value = std::strncmp(arg, name, n) == 0 && arg[n] == '=' ? std::strtoll(arg + n + 1, &end, 10) : -1;\n"
        "  if (end == nullptr || *end != '\\0' || end == arg + n + 1 || value < 0) {\n"
        '    std::fprintf(stderr, "expected %s=<extent>, a non-negative integer, got \'%s\'\\n", name, arg);\n'
        "    return -1;\n"
        "  }\n"
        "  return static_cast<int64_t>(value);\n"
        "}\n\n"
    ) if symbols else ""
    usage = f"<program> <input-dir> <output-dir>{extents}"
    return (
        f"// Driver for orchestration @{func.sym_name.data}, generated by pypto-xdsl.\n"
        f"// usage: {usage}; tensors are raw little-endian <param>.bin files.\n"
        + ("#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <string>\n#include <vector>\n\n"
           if symbols else "#include <cstdio>\n#include <string>\n#include <vector>\n\n") +
        '#include "acl/acl.h"\n'
        f'#include "{base}.h"\n\n'
        f"{CHECK_ACL_MACRO}\n"
        "// Reads exactly `bytes` bytes; an optional file (an `out` parameter's initial value) may be\n"
        "// missing, and the tensor then starts as zeros.\n"
        "static bool read_file(const std::string& path, void* data, size_t bytes, bool optional = false) {\n"
        '  std::FILE* f = std::fopen(path.c_str(), "rb");\n'
        "  if (f == nullptr && optional) return true;\n"
        '  if (f == nullptr) { std::fprintf(stderr, "cannot open %s\\n", path.c_str()); return false; }\n'
        "  const size_t got = std::fread(data, 1, bytes, f);\n"
        "  const bool extra = std::fgetc(f) != EOF;\n"
        "  std::fclose(f);\n"
        "  if (got != bytes || extra) {\n"
        '    std::fprintf(stderr, "%s: expected exactly %zu bytes\\n", path.c_str(), bytes);\n'
        "    return false;\n"
        "  }\n"
        "  return true;\n"
        "}\n\n"
        "static bool write_file(const std::string& path, const void* data, size_t bytes) {\n"
        '  std::FILE* f = std::fopen(path.c_str(), "wb");\n'
        '  if (f == nullptr) { std::fprintf(stderr, "cannot write %s\\n", path.c_str()); return false; }\n'
        "  const bool ok = std::fwrite(data, 1, bytes, f) == bytes;\n"
        "  std::fclose(f);\n"
        "  return ok;\n"
        "}\n\n"
        f"{extent_reader}"
        "int main(int argc, char** argv) {\n" + "\n".join(lines.lines) + "\n}\n"
    )

