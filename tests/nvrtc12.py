"""NVRTC 12 through ctypes, for checking that device code builds with a CUDA 12 compiler.

The library comes from PyPI (nvidia-cuda-nvrtc-cu12, pinned in scripts/requirements.txt and
installed into .venv by scripts/setup.sh): site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12.
The CUDA 12 runtime headers for host code come from nvidia-cuda-runtime-cu12
(nvidia/cuda_runtime/include) plus nvidia-cuda-nvcc-cu12 (nvidia/cuda_nvcc/include), which holds
the crt/host_config.h and crt/host_defines.h that cuda_runtime.h includes.

    nv = Nvrtc()                      # finds and loads libnvrtc.so.12 (NvrtcNotFound if absent)
    r = nv.compile_file("probes/memory/chase.cu", "sm_80", include_dirs=[source_dir])
    r.ok, r.log, r.cubin, r.ptx, r.functions   # functions: {name: FunctionInfo} from ptxas -v

Every compile asks ptxas for -v, -warn-spills and -warn-lmem-usage, so the log carries the
resource lines that parse_ptxas() reads (registers, spill stores/loads, stack frame, lmem).
Programs are independent: compile() may be called from several threads at once (NVRTC is
thread-safe apart from nvrtcGetTypeName, and ctypes releases the GIL during the call).

Run as a script to compile one file and print its log and resource table:
    .venv/bin/python tests/nvrtc12.py probes/memory/chase.cu --arch sm_70 -I .
"""
import ctypes
import glob
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field

NVRTC_SONAME = "libnvrtc.so.12"
INSTALL_HINT = ("run scripts/setup.sh (it pip-installs scripts/requirements.txt, which pins "
                "nvidia-cuda-nvrtc-cu12, into .venv)")

# The warning NVRTC 12.9 prints for every sm_70/sm_72 compile; it is not about the source.
ARCH_DEPRECATION_WARNING = re.compile(
    r"^nvrtc: warning: Architectures prior to '<compute/sm>_75' are deprecated.*$", re.M)


class NvrtcNotFound(RuntimeError):
    pass


# ---- finding the PyPI packages ----------------------------------------------------------------

def _nvidia_roots(extra_prefixes=()):
    """Candidate site-packages/nvidia directories: this interpreter's, then those of the given
    prefixes (a virtual environment such as <source>/.venv, or its bin/python)."""
    roots = []
    spec = importlib.util.find_spec("nvidia")
    if spec is not None and spec.submodule_search_locations:
        roots += list(spec.submodule_search_locations)
    for entry in sys.path:
        if entry:
            roots.append(os.path.join(entry, "nvidia"))
    for prefix in extra_prefixes:
        if not prefix:
            continue
        prefix = os.path.abspath(prefix)
        if os.path.isfile(prefix):  # .../bin/python
            prefix = os.path.dirname(os.path.dirname(prefix))
        roots += glob.glob(os.path.join(prefix, "lib", "python3*", "site-packages", "nvidia"))
    seen, unique = set(), []
    for root in roots:
        real = os.path.realpath(root)
        if real not in seen and os.path.isdir(real):
            seen.add(real)
            unique.append(real)
    return unique


def find_package_path(relative, extra_prefixes=()):
    """First existing site-packages/nvidia/<relative>, or None."""
    for root in _nvidia_roots(extra_prefixes):
        path = os.path.join(root, relative)
        if os.path.exists(path):
            return path
    return None


def find_libnvrtc(extra_prefixes=()):
    """Path of libnvrtc.so.12 ($GPUPROBE_NVRTC12 overrides), or None."""
    override = os.environ.get("GPUPROBE_NVRTC12")
    if override:
        return override if os.path.isfile(override) else None
    return find_package_path(os.path.join("cuda_nvrtc", "lib", NVRTC_SONAME), extra_prefixes)


def cuda12_include_dirs(extra_prefixes=()):
    """The CUDA 12 host include directories: [cuda_runtime/include, cuda_nvcc/include]. Raises
    NvrtcNotFound naming what is missing."""
    runtime = find_package_path(os.path.join("cuda_runtime", "include"), extra_prefixes)
    nvcc = find_package_path(os.path.join("cuda_nvcc", "include"), extra_prefixes)
    missing = []
    if not runtime or not os.path.isfile(os.path.join(runtime, "cuda_runtime.h")):
        missing.append("nvidia-cuda-runtime-cu12 (nvidia/cuda_runtime/include/cuda_runtime.h)")
    if not nvcc or not os.path.isfile(os.path.join(nvcc, "crt", "host_config.h")):
        missing.append("nvidia-cuda-nvcc-cu12 (nvidia/cuda_nvcc/include/crt/host_config.h)")
    if missing:
        raise NvrtcNotFound("CUDA 12 headers not installed: " + ", ".join(missing) + "; " +
                            INSTALL_HINT)
    return [runtime, nvcc]


# ---- ptxas -v parsing -------------------------------------------------------------------------

@dataclass
class FunctionInfo:
    """One function in ptxas -v output. entry: a kernel (ptxas said 'Compiling entry
    function'); device functions that ptxas kept as calls get a record of their own."""
    name: str
    entry: bool = False
    arch: str = ""
    registers: int = 0
    barriers: int = 0
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    lmem: int = 0              # 'N bytes lmem' (older ptxas print it on the Used line)
    cumulative_stack: int = 0  # 'N bytes cumulative stack size' (ptxas 12.x)
    smem: int = 0
    warnings: list = field(default_factory=list)  # ptxas warnings naming this function

    @property
    def local_bytes(self):
        """Bytes of local memory per thread by any of ptxas's measures."""
        return max(self.stack_frame, self.lmem, self.cumulative_stack)

    @property
    def mangled(self):
        return self.name.startswith("_Z")

    def problems(self):
        """What is wrong for a probe kernel: spills, local memory, a stack frame."""
        out = []
        if self.spill_stores or self.spill_loads:
            out.append(f"spills ({self.spill_stores} bytes stores, {self.spill_loads} bytes "
                       "loads)")
        if self.stack_frame:
            out.append(f"{self.stack_frame} bytes stack frame")
        if self.lmem:
            out.append(f"{self.lmem} bytes lmem")
        if self.cumulative_stack:
            out.append(f"{self.cumulative_stack} bytes cumulative stack size")
        for w in self.warnings:
            out.append(f"ptxas warning: {w}")
        return out

    def summary(self):
        return (f"{self.name}: {self.registers} registers, {self.stack_frame} bytes stack frame, "
                f"{self.spill_stores}/{self.spill_loads} bytes spill stores/loads, "
                f"{self.local_bytes} bytes local")


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"ptxas info\s*: Used (\d+) registers")
_WARN_FUNC = re.compile(r"ptxas warning\s*: (.*?function '([^']+)'.*)$")


def _field(line, pattern):
    m = re.search(pattern, line)
    return int(m.group(1)) if m else 0


def parse_ptxas(log):
    """{function name: FunctionInfo} from a ptxas -v log (nvcc's or NVRTC's)."""
    functions = {}
    entry = None    # the kernel being compiled: 'Used N registers' lines belong to it
    current = None  # the function whose properties follow

    def get(name):
        if name not in functions:
            functions[name] = FunctionInfo(name=name)
        return functions[name]

    for line in log.splitlines():
        m = _ENTRY.search(line)
        if m:
            entry = get(m.group(1))
            entry.entry = True
            entry.arch = m.group(2)
            current = entry
            continue
        m = _PROPS.search(line)
        if m:
            current = get(m.group(1))
            continue
        m = _FRAME.search(line)
        if m and current is not None:
            current.stack_frame, current.spill_stores, current.spill_loads = map(int, m.groups())
            continue
        m = _USED.search(line)
        if m:
            target = entry if entry is not None else current
            if target is not None:
                target.registers = int(m.group(1))
                target.barriers = _field(line, r"used (\d+) barriers")
                target.lmem = _field(line, r"(\d+) bytes lmem")
                target.cumulative_stack = _field(line, r"(\d+) bytes cumulative stack size")
                target.smem = _field(line, r"(\d+) bytes smem")
            continue
        m = _WARN_FUNC.search(line)
        if m:
            get(m.group(2)).warnings.append(m.group(1).strip())
    return functions


_PTX_LOCAL = re.compile(r"^\s*(\.local\b.*|(?:ld|st|cvta(?:\.to)?)\.local\b.*)$", re.M)


def ptx_local_lines(ptx):
    """Lines of a PTX text that declare or touch .local state space (a local depot, ld.local,
    st.local, cvta.local); [] when the PTX uses no local memory."""
    return [m.group(1).strip() for m in _PTX_LOCAL.finditer(ptx or "")]


_SASS_LOCAL = re.compile(r"\b(LDL|STL)(\.[A-Z0-9_.]+)?\s")


def sass_local_lines(sass):
    """SASS instructions that load or store local memory (LDL, STL)."""
    return [line.strip() for line in (sass or "").splitlines() if _SASS_LOCAL.search(line)]


def log_warnings(log, ignore=(ARCH_DEPRECATION_WARNING,)):
    """Warning lines of a log, less the ones that say nothing about the source."""
    text = log or ""
    for pattern in ignore:
        text = pattern.sub("", text)
    return [line for line in text.splitlines() if re.search(r"\bwarning\b", line, re.I)]


# ---- the library --------------------------------------------------------------------------------

@dataclass
class CompileResult:
    name: str
    arch: str
    options: list
    ok: bool
    status: str  # NVRTC's result string, e.g. NVRTC_SUCCESS, NVRTC_ERROR_COMPILATION
    log: str
    cubin: bytes = None
    ptx: str = None
    functions: dict = field(default_factory=dict)

    @property
    def kernels(self):
        return {n: f for n, f in self.functions.items() if f.entry}

    def describe(self, max_lines=60):
        """A failure report: what was compiled, how, and the head of NVRTC's log (the first
        errors are the ones that matter)."""
        lines = self.log.rstrip().splitlines()
        shown = lines[:max_lines]
        if len(lines) > max_lines:
            shown.append(f"... ({len(lines) - max_lines} more lines)")
        return (f"NVRTC {self.status} compiling {self.name} for {self.arch}\n"
                f"  options: {' '.join(self.options)}\n" +
                "\n".join("  | " + line for line in shown))


class Nvrtc:
    def __init__(self, path=None, extra_prefixes=()):
        path = path or find_libnvrtc(extra_prefixes)
        if not path:
            raise NvrtcNotFound(f"{NVRTC_SONAME} not found (PyPI package nvidia-cuda-nvrtc-cu12, "
                                f"nvidia/cuda_nvrtc/lib/): {INSTALL_HINT}")
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as e:
            raise NvrtcNotFound(f"cannot load {path}: {e}; {INSTALL_HINT}") from e
        self.path = path
        lib = self.lib
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
        lib.nvrtcCreateProgram.argtypes = [
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)]
        lib.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_char_p)]
        lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        for name in ("nvrtcGetProgramLogSize", "nvrtcGetCUBINSize", "nvrtcGetPTXSize"):
            getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        for name in ("nvrtcGetProgramLog", "nvrtcGetCUBIN", "nvrtcGetPTX"):
            getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p]

        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        self.version = (major.value, minor.value)
        count = ctypes.c_int()
        self._check(lib.nvrtcGetNumSupportedArchs(ctypes.byref(count)), "nvrtcGetNumSupportedArchs")
        archs = (ctypes.c_int * count.value)()
        self._check(lib.nvrtcGetSupportedArchs(archs), "nvrtcGetSupportedArchs")
        self.supported_archs = sorted(archs)  # SM numbers: [50, ..., 70, 75, ..., 120, 121]

    def _status(self, code):
        return self.lib.nvrtcGetErrorString(code).decode()

    def _check(self, code, what):
        if code != 0:
            raise RuntimeError(f"{what}: {self._status(code)}")

    def supports(self, arch):
        """Whether NVRTC knows the SM number of 'sm_90a', 'sm_100f', 'sm_80'..."""
        m = re.fullmatch(r"(?:sm|compute)_(\d+)[af]?", arch)
        return bool(m) and int(m.group(1)) in self.supported_archs

    def options_for(self, arch, include_dirs=(), defines=None, std="c++17", extra=()):
        opts = [f"--gpu-architecture={arch}", f"--std={std}",
                "--ptxas-options=-v", "--ptxas-options=-warn-spills",
                "--ptxas-options=-warn-lmem-usage"]
        opts += [f"--include-path={d}" for d in include_dirs]
        for key, value in (defines or {}).items():
            opts.append(f"--define-macro={key}" if value is None else
                        f"--define-macro={key}={value}")
        return opts + list(extra)

    def compile(self, source, arch, name="source.cu", include_dirs=(), defines=None,
                std="c++17", extra_options=(), headers=None):
        """Compiles source text for `arch` (sm_XY[a|f] gives CUBIN and PTX; compute_XY only
        PTX). headers: optional {include name: text} served from memory."""
        opts = self.options_for(arch, include_dirs, defines, std, extra_options)
        headers = headers or {}
        n = len(headers)
        header_src = (ctypes.c_char_p * n)(*[v.encode() for v in headers.values()]) if n else None
        header_names = (ctypes.c_char_p * n)(*[k.encode() for k in headers]) if n else None
        prog = ctypes.c_void_p()
        self._check(self.lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(),
                                                name.encode(), n, header_src, header_names),
                    "nvrtcCreateProgram")
        try:
            argv = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
            code = self.lib.nvrtcCompileProgram(prog, len(opts), argv)
            log = self._get(prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog")
            log = log.rstrip(b"\0").decode(errors="replace")
            result = CompileResult(name=name, arch=arch, options=opts, ok=code == 0,
                                   status=self._status(code), log=log)
            if code == 0:
                result.ptx = self._get(prog, "nvrtcGetPTXSize", "nvrtcGetPTX")
                result.ptx = result.ptx.rstrip(b"\0").decode(errors="replace") \
                    if result.ptx is not None else None
                if arch.startswith("sm_"):
                    result.cubin = self._get(prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN")
                result.functions = parse_ptxas(log)
            return result
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))

    def compile_file(self, path, arch, include_dirs=(), defines=None, std="c++17",
                     extra_options=()):
        """Compiles a file; its own directory is searched for quoted includes after
        include_dirs."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        dirs = list(include_dirs) + [os.path.dirname(os.path.abspath(path))]
        return self.compile(text, arch, name=path, include_dirs=dirs, defines=defines, std=std,
                            extra_options=extra_options)

    def _get(self, prog, size_fn, get_fn):
        size = ctypes.c_size_t()
        if getattr(self.lib, size_fn)(prog, ctypes.byref(size)) != 0 or size.value == 0:
            return None
        buf = ctypes.create_string_buffer(size.value)
        if getattr(self.lib, get_fn)(prog, buf) != 0:
            return None
        return buf.raw


def main():
    import argparse
    parser = argparse.ArgumentParser(description="Compile one .cu with NVRTC 12 (PyPI) and "
                                     "print the log and the ptxas resource table.")
    parser.add_argument("source")
    parser.add_argument("--arch", default="sm_80")
    parser.add_argument("-I", dest="include", action="append", default=[])
    parser.add_argument("-D", dest="define", action="append", default=[])
    parser.add_argument("--std", default="c++17")
    parser.add_argument("--ptx", action="store_true", help="print the PTX too")
    parser.add_argument("--cubin", help="write the cubin here")
    args = parser.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        nv = Nvrtc(extra_prefixes=[os.path.join(here, ".venv")])
    except NvrtcNotFound as e:
        print(f"nvrtc12: {e}")
        return 2
    defines = dict((d.split("=", 1) + [None])[:2] for d in args.define)
    r = nv.compile_file(args.source, args.arch, args.include, defines, args.std)
    print(f"NVRTC {nv.version[0]}.{nv.version[1]} ({nv.path}): {r.status}")
    print(r.log.rstrip())
    for f in r.functions.values():
        print(("kernel " if f.entry else "device ") + f.summary())
    if r.ok and args.ptx:
        print(r.ptx)
    if r.ok and args.cubin and r.cubin:
        with open(args.cubin, "wb") as out:
            out.write(r.cubin)
    return 0 if r.ok else 1


if __name__ == "__main__":
    sys.exit(main())
