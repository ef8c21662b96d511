"""Shared by the SASS tests: disassembling the build's objects (or nvcc cubins where the build
lacks a target or its objects are stale), parsing cuobjdump -sass, the pass/fail checker and the
driver a test hands its per-target checks and self-tests to (run_sass_test)."""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

from cuda_tools import compile_cubin, nvcc_path

# Every target the build ships (CMakeLists.txt) plus the arch-specific passes of the generic files.
TARGETS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
           "sm_90a", "sm_100a", "sm_120a"]
MEMORY_OPS = {"LDG", "STG", "LDS", "STS", "LD", "ST", "LDL", "STL", "LDC", "LDCU", "ULDC",
              "ATOM", "ATOMG", "ATOMS", "RED", "REDG", "REDS", "LDSM", "STSM", "LDGSTS",
              "LDGDEPBAR", "CCTL", "CCTLL", "MEMBAR", "UBLKCP", "UTMALDG", "UTMASTG", "UTMAPF",
              "SUST", "SULD", "TLD", "TEX"}
CONTROL_OPS = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BREAK", "BSSY", "BSYNC", "KILL",
               "WARPSYNC", "BPT"}
# Control flow the checks look for.
INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
CONTROL_WORD = re.compile(r"^\s*/\*\s*(0x[0-9a-f]{16})\s*\*/\s*$")

def newest_dependency(source_dir, path, seen=None):
    """The newest mtime of path and the files it #includes "..." (transitively)."""
    seen = set() if seen is None else seen
    if path in seen or not os.path.isfile(path):
        return 0.0
    seen.add(path)
    newest = os.path.getmtime(path)
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path, encoding="utf-8").read(),
                           re.M):
        for base in (source_dir, os.path.dirname(path)):
            candidate = os.path.join(base, name)
            if os.path.isfile(candidate):
                newest = max(newest, newest_dependency(source_dir, candidate, seen))
                break
    return newest


def build_object(build_dir, source_dir, rel):
    """The newest object CMake built for the source `rel` (relative to the source tree), and
    whether it is older than its sources."""
    found = glob.glob(os.path.join(build_dir, "**", rel + ".o"), recursive=True)
    if not found:
        return None, False
    obj = max(found, key=os.path.getmtime)
    stale = os.path.getmtime(obj) < newest_dependency(source_dir, os.path.join(source_dir, rel))
    return obj, stale



# ---------------------------------------------------------------- SASS parsing

def parse_sass(text, default_arch=None):
    """{arch: {function: [instruction]}} from cuobjdump -sass of a fat object or a cubin."""
    result = {}
    arch, function, pending = default_arch, None, None
    for line in text.splitlines():
        match = CONTROL_WORD.match(line)
        if match and pending is not None:
            pending["control"] = int(match.group(1), 16)   # the high 64 bits of the instruction
            pending = None
            continue
        pending = None
        match = re.match(r"\s*arch = (sm_\w+)", line) or re.search(r"code for (sm_\w+)", line)
        if match:
            arch, function = match.group(1), None
            result.setdefault(arch, {})
            continue
        if "Function :" in line:
            function = line.split("Function :", 1)[1].strip()
            result.setdefault(arch, {})[function] = []
            continue
        match = INSTRUCTION.search(line)
        if function is None or not match:
            continue
        text_ = re.sub(r"\s+", " ", match.group(2)).strip()
        predicate = ""
        if text_.startswith("@"):
            predicate, text_ = text_.split(" ", 1)
        opcode_full, _, rest = text_.partition(" ")
        operands = [o.strip() for o in rest.split(",")] if rest.strip() else []
        operands = [re.sub(r"\.reuse\b", "", o) for o in operands]
        result[arch][function].append({
            "address": int(match.group(1), 16), "predicate": predicate,
            "opcode": opcode_full.split(".")[0], "modifiers": opcode_full.split(".")[1:],
            "operands": operands, "text": (predicate + " " if predicate else "") + text_,
            "control": None,
        })
        pending = result[arch][function][-1]
    return result


def scoreboard(ins):
    """The write scoreboard the instruction sets (7: none, fixed latency), None if unknown."""
    return None if ins["control"] is None else (ins["control"] >> 46) & 7


class Checker:
    def __init__(self, quiet=False):
        self.passed = 0
        self.failed = 0
        self.quiet = quiet
        self.failures = []   # (kind, message)
        self.notes = {}      # tolerated instruction text -> {where}

    def note(self, what, where):
        self.notes.setdefault(what, set()).add(where)

    def check(self, ok, what, detail="", kind=""):
        if ok:
            self.passed += 1
            return True
        self.failed += 1
        message = f"FAIL {what}" + (f": {detail}" if detail else "")
        self.failures.append((kind, message))
        if not self.quiet:
            print(message)
        return False


def loops(instructions):
    """(first, last) index pairs of every backward branch's body."""
    found = []
    for i, ins in enumerate(instructions):
        if ins["opcode"] != "BRA":
            continue
        target = re.search(r"0x([0-9a-f]+)", " ".join(ins["operands"]))
        if not target or int(target.group(1), 16) > ins["address"]:
            continue
        begin = next((k for k, x in enumerate(instructions)
                      if x["address"] == int(target.group(1), 16)), None)
        if begin is not None and begin < i:
            found.append((begin, i))
    return found


def innermost_loop_holding(instructions, holds):
    """The smallest loop (first, last) holding an instruction for which holds(ins), or None."""
    found = [(a, b) for a, b in loops(instructions)
             if any(holds(instructions[k]) for k in range(a, b + 1))]
    return min(found, key=lambda ab: ab[1] - ab[0]) if found else None


def expected_loops(checker, where, instructions, expect, main_loops, heavy, what):
    """The opening of a table kernel's checks: hygiene, then (expect None) the kernel must trap,
    else main_loops(instructions, expect) must find expect.loops_count loops `what` (`hold the
    copies`). Returns those loops, or None where nothing more is to be checked."""
    hygiene(checker, where, instructions)
    if expect is None:
        check_traps(checker, where, instructions, heavy)
        return None
    chosen = main_loops(instructions, expect)
    if not checker.check(len(chosen) == expect.loops_count, f"{where}: {expect.loops_count} loop(s) {what}",
                         f"found {len(chosen)}", "count"):
        return None
    return chosen


def lines(instructions):
    return " | ".join(f"/*{i['address']:04x}*/ {i['text']}" for i in instructions)


def param_read(ins):
    """A read of the kernel's parameters (ULDC/LDC/LDCU of constant bank 0): a fixed address, off
    any data path; ptxas may reload one inside a loop."""
    return ins["opcode"] in {"ULDC", "LDC", "LDCU"} and \
        re.fullmatch(r"c\[0x0\]\[0x[0-9a-f]+\]", ins["operands"][-1]) is not None


def check_traps(checker, where, instructions, heavy_ops,
                claim="traps, with no loop, where the op does not exist"):
    """A kernel of an op its target lacks: a trap (BPT), no loop and none of `heavy_ops`."""
    heavy = [i for i in instructions if i["opcode"] in heavy_ops]
    checker.check(any(i["opcode"] == "BPT" for i in instructions) and not loops(instructions)
                  and not heavy, f"{where}: {claim}", lines(heavy), "trap")


def loop_exit_call(instructions, k):
    """ptxas's way out of a loop with a divergent exit on sm_70..sm_89: `@P CALL.REL.NOINC L;
    BRA top; L: BSYNC` (a call to the instruction after the next one, which never returns
    there), not a call of a function."""
    ins = instructions[k]
    if ins["opcode"] != "CALL" or k + 2 >= len(instructions):
        return False
    target = re.search(r"0x([0-9a-f]+)", " ".join(ins["operands"]))
    return (target is not None and int(target.group(1), 16) == instructions[k + 2]["address"]
            and instructions[k + 1]["opcode"] == "BRA" and instructions[k + 2]["opcode"] == "BSYNC")


def hygiene(checker, where, instructions):
    bad = [i for k, i in enumerate(instructions) if i["opcode"] in {"LDL", "STL", "CALL"}
           and not loop_exit_call(instructions, k)]
    checker.check(not bad, f"{where}: no local memory, no calls", lines(bad), "hygiene")


# ---------------------------------------------------------------- bounded waits
# Every device-side wait (harness/cuda/bounded_wait.cuh) is a PTX loop that reads the low 32 bits
# of %globaltimer once before its first test and once after each failed test, and traps past its
# deadline. Measurements read the full 64-bit %globaltimer (one CS2R): a 32-bit read is a bound.
# Per bounded wait a loop may hold this many instructions beyond the op's own: the zeroed result,
# the two clock reads, the subtraction and the compare with the deadline (the branches are control).
WAIT_BOUND_HELPERS = 5


def wait_bound_reads(instructions):
    """The 32-bit %globaltimer_lo reads (CS2R.32, CS2UR.32, S2UR, S2R) of bounded waits."""
    return [i for i in instructions if re.search(r"SR_GLOBALTIMERLO\b", i["text"]) and
            (i["opcode"] in {"S2UR", "S2R"} or "32" in i["modifiers"])]


def check_wait_bound(checker, where, instructions, body, waits):
    """`waits` bounded waits in the loop `body`: each with its clock reads (at least one per wait)
    and the kernel with the trap they end in past the deadline."""
    reads = wait_bound_reads(body)
    traps = [i for i in instructions if i["opcode"] == "BPT"]
    checker.check(len(reads) >= waits and bool(traps),
                  f"{where}: each of its {waits} waits is bounded (%globaltimer_lo reads and a trap)",
                  f"found {len(reads)} reads, {len(traps)} traps", "bound")

# ---------------------------------------------------------------- register dataflow
# Which load's value a register holds, through pure copies: the memory and bandwidth families'
# chase checks share it.

# Opcodes whose first operand is not a destination register.
NO_DEST = {"ST", "STG", "STS", "STL", "STSM", "RED", "REDG", "REDS", "BAR", "BRA", "EXIT", "NOP",
           "MEMBAR", "CCTL", "BSSY", "BSYNC", "WARPSYNC", "DEPBAR", "ERRBAR", "CALL", "RET"}
REGISTER = re.compile(r"(?<![A-Za-z0-9_])R(\d+)((?:\.[A-Za-z0-9]+)*)")
BARE_REGISTER = re.compile(r"^R(\d+)((?:\.[A-Za-z0-9]+)*)$")


def dest_registers(ins):
    """Registers the instruction writes (conservatively wide)."""
    if ins["opcode"] in NO_DEST or not ins["operands"]:
        return []
    match = BARE_REGISTER.match(ins["operands"][0])
    if not match:
        return []
    first = int(match.group(1))
    mods = set(ins["modifiers"]) | set(match.group(2).split("."))
    width = 1
    if mods & {"64", "WIDE", "F64", "S64", "U64"} or (ins["opcode"] == "CS2R" and "32" not in mods):
        width = 2
    if "128" in mods:
        width = 4
    return list(range(first, first + width))


def source_registers(ins):
    operands = ins["operands"][1:] if dest_registers(ins) else ins["operands"]
    regs = []
    for operand in operands:
        for number, suffix in REGISTER.findall(operand):
            regs.append(int(number))
            if ".64" in suffix:
                regs.append(int(number) + 1)
    return regs


def copy_source(ins):
    """Ry if ins is an unpredicated pure copy Rx = Ry (MOV[.64] Rx, Ry / IMAD.MOV[.U32] Rx, RZ, RZ,
    Ry); a MOV.64 copies the pair Ry, Ry+1 into the pair Rx, Rx+1."""
    if ins["predicate"]:
        return None
    ops = ins["operands"]
    if ins["opcode"] == "MOV" and ins["modifiers"] in ([], ["64"]) and len(ops) in (2, 3) \
            and (len(ops) == 2 or ops[2] == "0xf"):
        match = re.match(r"^R(\d+)$", ops[1])
        return int(match.group(1)) if match else None
    if ins["opcode"] == "IMAD" and ins["modifiers"] in (["MOV", "U32"], ["MOV"]) and len(ops) == 4 \
            and ops[1] == "RZ" and ops[2] == "RZ":
        match = re.match(r"^R(\d+)$", ops[3])
        return int(match.group(1)) if match else None
    return None


class Values:
    """Which load's value each register holds, through pure copies, over straight-line code."""

    def __init__(self):
        self.tag = {}      # register -> (load tag, half)
        self.writer = {}   # register -> the instruction text that last wrote it

    def reads(self, ins, tag):
        """Whether ins reads (a half of) the value of the load tagged `tag`."""
        return any(self.tag.get(r, (None,))[0] == tag for r in source_registers(ins))

    def step(self, ins, load_tag=None):
        dests = dest_registers(ins)
        if load_tag is not None:
            for half, r in enumerate(dests):
                self.tag[r], self.writer[r] = (load_tag, half), ins["text"]
            return
        src = copy_source(ins)
        copied = [self.tag.get(src + k) for k in range(len(dests))] if src is not None else []
        for k, r in enumerate(dests):
            if src is not None and copied[k] is not None:
                self.tag[r] = copied[k]
            else:
                self.tag.pop(r, None)
            self.writer[r] = ins["text"]


def address(ins):
    """(base register, ok): the load's address register and whether it has no offset."""
    groups = [g for op in ins["operands"] for g in re.findall(r"\[([^\]]*)\]", op)]
    if not groups:
        return None, False
    terms = [t.strip() for t in groups[-1].split("+")]
    match = BARE_REGISTER.match(terms[0])
    if not match:
        return None, False
    return int(match.group(1)), all(t in {"0x0", "RZ", "URZ"} for t in terms[1:])


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)



def find_cuobjdump_or_fail(name, python):
    """cuobjdump's path, or None after printing why (the caller fails)."""
    from cuda_tools import find_tool
    tool = find_tool("cuobjdump", python)
    if tool is None:
        print(f"{name}: cuobjdump not found: install nvidia-cuda-cuobjdump into .venv "
              "(scripts/requirements.txt) or a CUDA toolkit")
        print(f"{name}: 0 passed, 1 failed")
    return tool


def start(args, log, python):
    """(cuobjdump, None) when the SASS can be checked, else (None, exit status) after saying why.

    Without CUDA probes (--with-cuda false) there is nothing to check: Skipped (cuda_tools.SKIP),
    unless the build is configured with CUDA after all (a CMake cache saying so, or CUDA targets
    named), which fails. With them, a missing cuobjdump fails.
    """
    from cuda_tools import skip, truthy
    if not truthy(args.with_cuda):
        cache = os.path.join(args.build_dir, "CMakeCache.txt")
        configured_on = False
        if os.path.exists(cache):
            with open(cache) as f:
                configured_on = any(re.match(r"GPUPROBE_WITH_CUDA:BOOL=(ON|1|TRUE)$", line.strip(),
                                             re.I) for line in f)
        if configured_on or args.cuda_targets.strip():
            print(f"{log}: told --with-cuda false, but the build is configured with CUDA")
            print(f"{log}: 0 passed, 1 failed")
            return None, 1
        return None, skip(log, "the CUDA probes are not built (GPUPROBE_WITH_CUDA=OFF): nothing to check")
    cuobjdump = find_cuobjdump_or_fail(log, python)
    return cuobjdump, (None if cuobjdump else 1)


def check_mutations(checker, functions, mutants, check, arch, log):
    """The checks' self-test: each mutant kernel must fail the check it names; a control passes all.

    functions: {kernel: [instruction]} of the mutants' SASS on `arch`; mutants: [(label, kernel,
    kind)], kind None for a control; check(probe_checker, where, instructions, index) runs the
    checks on one kernel (index: its place in `mutants`, for per-mutant claims).
    """
    for index, (label, kernel, kind) in enumerate(mutants):
        if not checker.check(kernel in functions, f"self-test {label}: kernel {kernel} present"):
            continue
        probe = Checker(quiet=True)
        check(probe, f"{arch} {kernel}", functions[kernel], index)
        if kind is None:
            checker.check(probe.failed == 0, f"self-test: {label} passes every check",
                          " || ".join(m for _, m in probe.failures))
            continue
        caught = [m for k, m in probe.failures if k == kind]
        if checker.check(bool(caught), f"self-test: mutation '{label}' caught by the {kind} check",
                         "its checks: " + (" || ".join(m for _, m in probe.failures) or
                                           "all passed")):
            print(f"{log}: mutation '{label}' caught: {caught[0][len('FAIL '):]}")


def disassemble(args, sources, checker, cuobjdump, extra=None, log="sass"):
    """SASS of every source on every target.

    sources: {key: path relative to the source tree}. Where the build has a target and an object
    no older than its sources, that object is disassembled; otherwise nvcc compiles the source.
    extra: {name: (CUDA source text, arch)} compiled with nvcc on the side (mutation self-tests).
    Returns ({arch: {key: {function: [instruction]}}}, {arch: {origin}}, {name: sass text or None}).
    """
    extra = extra or {}
    # --cuda-targets may come as "sm_75,...,compute_120" or as the raw -D definition.
    built = set(re.findall(r"\b(sm_\d+[af]?)\b", args.cuda_targets))
    # What each source's build object holds: a generic file only the plain targets (an sm_90a
    # unit elsewhere in the build puts sm_90a into --cuda-targets, not into its object), an
    # arch-specific <name>.sm90a.cu only its own target.
    built_for = {}
    for key, rel in sources.items():
        own = re.search(r"\.sm(\d+[af])\.cu$", rel)
        built_for[key] = ({f"sm_{own.group(1)}"} & built if own else
                          {t for t in built if not re.search(r"\d[af]$", t)})
    objects = {}
    for key, rel in sources.items():
        obj, stale = build_object(args.build_dir, args.source_dir, rel)
        if obj and stale:
            print(f"{log}: {os.path.relpath(obj, args.build_dir)} is older than its sources: "
                  "compiling them with nvcc instead")
        objects[key] = obj if obj and not stale else None

    jobs = {}   # (key, arch or None) -> future returning (origin, sass text or None, error)
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:

        def dump(binary, origin):
            result = run([cuobjdump, "-sass", binary])
            if result.returncode != 0 or "Function" not in result.stdout:
                return origin, None, f"cuobjdump -sass {binary}: {result.stderr.strip()}"
            return origin, result.stdout, ""

        def compile_and_dump(path, arch, label):
            out = os.path.join(tmp, label.replace("/", "_"), arch)
            os.makedirs(out, exist_ok=True)
            result, cubin = compile_cubin(args.source_dir, path, arch, out)
            if result.returncode != 0:
                return "nvcc", None, f"nvcc {label} for {arch}: " + \
                    (result.stderr.strip().splitlines() or ["failed"])[-1]
            return dump(cubin, "nvcc")

        def compile_extra(name, text, arch):
            path = os.path.join(tmp, f"{name}.cu")
            with open(path, "w") as f:
                f.write(text)
            return compile_and_dump(path, arch, name)

        have_nvcc = os.path.exists(nvcc_path())
        checker.check(have_nvcc, f"nvcc found ({nvcc_path()}): the self-tests and the targets the "
                      "build lacks need it")
        for key, rel in sources.items():
            if objects[key]:
                jobs[(key, None)] = pool.submit(dump, objects[key], "build")
            for arch in TARGETS:
                if not (objects[key] and arch in built_for[key]) and have_nvcc:
                    jobs[(key, arch)] = pool.submit(compile_and_dump,
                                                    os.path.join(args.source_dir, rel), arch, rel)
        extra_jobs = {name: pool.submit(compile_extra, name, text, arch)
                      for name, (text, arch) in extra.items()} if have_nvcc else {}

        per_arch = {arch: {} for arch in TARGETS}
        origins = {arch: set() for arch in TARGETS}
        for (key, arch), future in jobs.items():
            origin, text, error = future.result()
            if not checker.check(text is not None, f"disassemble {sources[key]}"
                                 + (f" for {arch}" if arch else ""), error):
                continue
            parsed = parse_sass(text, arch)
            for target in TARGETS:
                if (arch is None and target in built_for[key]) or target == arch:
                    checker.check(target in parsed, f"{target}: SASS for {sources[key]} in the "
                                  f"{origin} output")
                    per_arch[target][key] = parsed.get(target, {})
                    origins[target].add(origin)
        extra_sass = {}
        for name in extra:
            origin, text, error = extra_jobs[name].result() if name in extra_jobs else \
                ("nvcc", None, "no nvcc")
            checker.check(text is not None, f"self-test: compile {name}", error)
            extra_sass[name] = text
    return per_arch, origins, extra_sass


def print_summary(checker, log):
    """The tolerated-instruction notes and the pass/fail line; the exit status."""
    for what, where in checker.notes.items():
        archs = sorted({w.split(" ")[0] for w in where}, key=TARGETS.index)
        print(f"{log}: note: tolerated {what}: {len(where)} kernels on {', '.join(archs)}")
    print(f"{log}: {checker.passed} passed, {checker.failed} failed")
    return 1 if checker.failed else 0


# ---------------------------------------------------------------- the shared test driver

def arch_number(arch):
    """sm_90a -> 90."""
    return int(re.match(r"sm_(\d+)", arch).group(1))


def table_ops(source_dir, header, macro, log):
    """The names X(name) of `#define <macro>(X)` in `header` (relative to the source tree): a
    family's op table. A missing or empty table stops the test."""
    path = os.path.join(source_dir, header)
    text = open(path, encoding="utf-8").read().replace("\\\n", " ")
    match = re.search(rf"#define {macro}\(X\)(.*)", text)
    found = re.findall(r"X\((\w+)\)", match.group(1) if match else "")
    if not found:
        raise SystemExit(f"{log}: {macro} not found in {path}")
    return found


def def_ops(source_dir, path, row, log):
    """The first field of every `<row>(name, ...)` line of the .def table at `path` (relative to
    the source tree): a family's op table. A missing or empty table stops the test."""
    full = os.path.join(source_dir, path)
    found = re.findall(rf"^{row}\((\w+)", open(full, encoding="utf-8").read(), re.M)
    if not found:
        raise SystemExit(f"{log}: no {row}(...) rows in {full}")
    return found


def matches(cls, ins):
    """A class "OPC.MOD1.MOD2" is an opcode and modifiers the instruction must all carry."""
    opcode, *mods = cls.split(".")
    return ins["opcode"] == opcode and all(m in ins["modifiers"] for m in mods)


def check_table(checker, arch, kernels, table, check, unknown_what):
    """Each kernel of `table` ([(name, claim)]) is present in `kernels` ({name: [instruction]})
    and passes check(checker, where, instructions, claim); no kernel is outside the table
    ("<arch>: <unknown_what>")."""
    names = set()
    for name, claim in table:
        names.add(name)
        if checker.check(name in kernels, f"{arch} {name}: kernel present"):
            check(checker, f"{arch} {name}", kernels[name], claim)
    unknown = sorted(set(kernels) - names)
    checker.check(not unknown, f"{arch}: {unknown_what}", ", ".join(unknown))


class SelfTest:
    """Mutant kernels compiled on the side for `arch`: mutants [(label, kernel, claim, the check
    kind that must catch it or None: a control)], each checked by check(probe_checker, where,
    instructions, claim) (see check_mutations)."""

    def __init__(self, name, source, mutants, check, arch="sm_90"):
        self.name, self.source, self.mutants, self.check, self.arch = name, source, mutants, check, arch

    def run(self, checker, sass, log):
        functions = next(iter(parse_sass(sass, self.arch).values()), {})
        check_mutations(checker, functions, [(label, kernel, kind) for label, kernel, _, kind in self.mutants],
                        lambda probe, where, ins, i: self.check(probe, where, ins, self.mutants[i][2]),
                        self.arch, log)


def run_sass_test(doc, log, sources, check_arch, setup=None, self_tests=(), extra=None,
                  after_targets=None):
    """The driver every SASS test shares; returns the exit status.

    doc: the test's docstring (its first line describes it); sources: {key: path} (disassemble);
    setup(source_dir) -> context, read before anything is compiled (the family's op table);
    check_arch(checker, arch, {key: {function: [instruction]}}, context) per target;
    self_tests: SelfTest, run in order after the targets when their mutants compiled (or a
    function of the context returning them);
    extra: {name: (CUDA source text, arch)} other units compiled on the side, handed with the
    context to after_targets(checker, {name: sass text or None}, context) before the self-tests.
    Prints `<log>: N passed, M failed`.
    """
    from cuda_tools import test_args
    args = test_args(doc.splitlines()[0])
    context = setup(args.source_dir) if setup else None
    cuobjdump, status = start(args, log, sys.executable)
    if cuobjdump is None:
        return status
    checker = Checker()
    if callable(self_tests):
        self_tests = self_tests(context)
    units = dict(extra or {})
    units.update({t.name: (t.source, t.arch) for t in self_tests})
    per_arch, origins, sass = disassemble(args, sources, checker, cuobjdump, units, log)
    for arch in TARGETS:
        print(f"{log}: {arch} from {'+'.join(sorted(origins[arch])) or 'nowhere'}")
        check_arch(checker, arch, per_arch[arch], context)
    if after_targets:
        after_targets(checker, sass, context)
    for test in self_tests:
        if sass[test.name] is not None:
            test.run(checker, sass[test.name], log)
    return print_summary(checker, log)
