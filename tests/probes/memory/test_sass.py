#!/usr/bin/env python3
"""SASS assertions for the pointer-chase kernels (probes/memory/chase.cu, chase_shared.cu).

Targets: sm_75 80 86 89 90 100 120 (the build's objects where it has that target and they are not
older than their sources, else nvcc) and sm_90a 100a 120a (nvcc). Load variants and their LDG
modifiers come from ptx/load_variants.def, kChaseHopsPerIteration from probes/memory/chase.cuh.
For every gpuprobe_chase_global_<id> and gpuprobe_chase_shared on every target:
  * the timed loop (the backward branch between the first two clock reads) is straight-line code
    with exactly kChaseHopsPerIteration loads (LDG with exactly the .def's modifiers, .64; or
    32-bit LDS) and no other memory instruction (a fixed-latency ULDC of a kernel parameter is
    tolerated: TOLERATE_PARAM_ULDC);
  * the loads form one dependent chain: each load's address is the previous load's destination
    (or a pure register copy of it: MOV / IMAD.MOV.U32 Rx, RZ, RZ, Ry) with no offset, and the
    loop carries it (the first load's address is the last load's destination);
  * the opening clock read follows an instruction that reads the last warm-up load's value, the
    closing one an instruction that reads the last timed load's value;
  * every clock read is CS2R with no scoreboard in its control word (fixed latency; S2R/S2UR set
    one); sm_120's CS2UR is accepted as CS2R (TOLERATE_CS2UR);
  * exactly one clock pair after the timed region holds a load: CS2R; one load (same modifiers
    and width as the timed ones); STS of its value; CS2R. Another pair is the empty sample:
    CS2R; STS; CS2R with no load;
  * no LDL/STL (local memory) and no CALL anywhere in any kernel of chase.cu, chase_shared.cu and
    harness/cuda/kernels.cu (gpuprobe_chain_scatter, gpuprobe_sm_clock, gpuprobe_spin included).
Self-test: a control chase and two mutants (a: x = ld(base + (x & zero)); b: no consumer before the
closing clock) are compiled for sm_90; the control must pass every check and each mutant must fail
the check meant for it. Prints each FAIL line and `sass: N passed, M failed`; exits non-zero on
any failure.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from sass_tools import (BARE_REGISTER, CONTROL_OPS, MEMORY_OPS, SelfTest, Values, address,  # noqa: E402
                        hygiene, lines, param_read, run_sass_test, scoreboard)

# Where the kernels live, relative to the source tree.
SOURCES = {
    "chase": os.path.join("probes", "memory", "chase.cu"),
    "chase_shared": os.path.join("probes", "memory", "chase_shared.cu"),
    "kernels": os.path.join("harness", "cuda", "kernels.cu"),
}
FIXED_KERNELS = {"chase": ["gpuprobe_chain_scatter"], "chase_shared": ["gpuprobe_chase_shared"],
                 "kernels": ["gpuprobe_sm_clock", "gpuprobe_spin"]}
# Two tolerances, each limited to fixed-latency instructions (the control word sets no write
# scoreboard: bits 105..107 of the 128-bit instruction, sm_70 to sm_120 encoding, read 7; S2R,
# S2UR, LDG, LDS and LDCU set one). Set either to False for the literal rule; what they let
# through is summarised in `sass: note` lines.
# CS2UR: sm_120's clock read into a uniform register, accepted where CS2R is required.
TOLERATE_CS2UR = True
# ULDC of a kernel parameter (c[0x0][imm]) in the timed loop: ptxas re-reads the iteration count
# there on sm_75..sm_89; it is off the chase's dependence chain and reads no data memory.
TOLERATE_PARAM_ULDC = True
FIXED_CLOCK_OPS = {"CS2R", "CS2UR"} if TOLERATE_CS2UR else {"CS2R"}
CLOCK_NAME = "/".join(sorted(FIXED_CLOCK_OPS))
WIDTH_MODIFIERS = {"U8", "S8", "U16", "S16", "64", "128"}   # none of them: a 32-bit access
VARIANT = re.compile(r'^\s*GPUPROBE_LOAD_VARIANT\(\s*(\w+)\s*,\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,'
                     r'\s*(\w+)\s*,\s*(\d+)\s*,\s*"([^"]*)"\s*,\s*"([^"]*)"\s*\)')

HOPS = None  # kChaseHopsPerIteration, read from probes/memory/chase.cuh by setup()


# ---------------------------------------------------------------- inputs from the source tree

def hops_per_iteration(source_dir):
    path = os.path.join(source_dir, "probes", "memory", "chase.cuh")
    match = re.search(r"kChaseHopsPerIteration\s*=\s*(\d+)", open(path, encoding="utf-8").read())
    if not match:
        raise SystemExit(f"sass: kChaseHopsPerIteration not found in {path}")
    return int(match.group(1))


def load_variants(source_dir):
    """[(id, name, min_sm, sass sm_75, sass sm_80+)] from ptx/load_variants.def."""
    path = os.path.join(source_dir, "ptx", "load_variants.def")
    variants = []
    for line in open(path, encoding="utf-8"):
        match = VARIANT.match(line)
        if match:
            ident, name, _, _, min_sm, sass75, sass80 = match.groups()
            variants.append((ident, name, int(min_sm), sass75, sass80))
    if not variants:
        raise SystemExit(f"sass: no GPUPROBE_LOAD_VARIANT lines in {path}")
    return variants


def expected_ldg(variant, arch):
    """The LDG modifier list expected on arch, or None where the variant is not built."""
    number = int(re.match(r"sm_(\d+)", arch).group(1))
    _, _, min_sm, sass75, sass80 = variant
    text = sass75 if number < 80 else sass80
    if number < min_sm or not text:
        return None
    return text.split(".")


# ---------------------------------------------------------------- SASS parsing

def is_clock(ins):
    return "SR_CLOCKLO" in " ".join(ins["operands"])


def fixed_clock(ins):
    return ins["opcode"] in FIXED_CLOCK_OPS and scoreboard(ins) == 7


def clock_text(ins):
    return f"/*{ins['address']:04x}*/ {ins['text']} (scoreboard {scoreboard(ins)})"


# ---------------------------------------------------------------- checks

def timed_loop(instructions, opening, closing):
    """(first, last) indices of the loop body: the backward branch between the two clocks."""
    start = instructions[opening]["address"]
    for i in range(closing - 1, opening, -1):
        ins = instructions[i]
        if ins["opcode"] != "BRA":
            continue
        target = re.search(r"0x([0-9a-f]+)", " ".join(ins["operands"]))
        if target and start < int(target.group(1), 16) <= ins["address"]:
            begin = next((k for k, x in enumerate(instructions)
                          if x["address"] == int(target.group(1), 16)), None)
            if begin is not None:
                return begin, i
    return None


def load_ok(ins, space, modifiers):
    """Problems of one chase load's kind, modifiers and width ('' if none)."""
    if space == "global":
        if ins["opcode"] != "LDG":
            return f"not LDG: {ins['text']}"
        if ins["modifiers"] != modifiers:
            return f"LDG.{'.'.join(ins['modifiers'])} is not LDG.{'.'.join(modifiers)}"
        if "64" not in ins["modifiers"] or "128" in ins["modifiers"]:
            return f"not a 64-bit load: {ins['text']}"
        return ""
    if ins["opcode"] != "LDS":
        return f"not LDS: {ins['text']}"
    wide = set(ins["modifiers"]) & WIDTH_MODIFIERS
    return f"LDS is not 32-bit ({'.'.join(sorted(wide))}): {ins['text']}" if wide else ""


def check_chase(checker, where, instructions, space, modifiers):
    """Every assertion on one chase kernel (global: LDG with `modifiers`; shared: 32-bit LDS)."""
    opcode = "LDG" if space == "global" else "LDS"

    def is_load(ins):
        return ins["opcode"] == opcode

    hygiene(checker, where, instructions)
    clocks = [k for k, i in enumerate(instructions) if is_clock(i)]
    variable = [clock_text(instructions[k]) for k in clocks if not fixed_clock(instructions[k])]
    for k in clocks:
        if instructions[k]["opcode"] != "CS2R" and fixed_clock(instructions[k]):
            checker.note(f"{instructions[k]['opcode']} clock read (fixed latency, no scoreboard) "
                         "accepted as CS2R", where)
    checker.check(not variable, f"{where}: every clock read is {CLOCK_NAME} with no scoreboard "
                  "(fixed latency)", " | ".join(variable), "clock")
    if not checker.check(len(clocks) >= 4, f"{where}: at least four clock reads (timed region, "
                         "sampled hop, empty sample)", f"found {len(clocks)}", "clock"):
        return
    opening, closing = clocks[0], clocks[1]

    # Opening clock: after a reader of the last warm-up load.
    warm = [k for k in range(opening) if is_load(instructions[k])]
    ok = False
    if warm:
        values = Values()
        values.step(instructions[warm[-1]], "warm")
        for ins in instructions[warm[-1] + 1:opening]:
            ok = ok or values.reads(ins, "warm")
            values.step(ins)
    checker.check(ok, f"{where}: the opening clock read follows a reader of the last warm-up load",
                  lines(instructions[warm[-1]:opening + 1]) if warm else "no load before it",
                  "opening-consumer")

    # The timed loop.
    loop = timed_loop(instructions, opening, closing)
    if not checker.check(loop is not None, f"{where}: timed loop (backward branch between the "
                         "first two clock reads)", lines([instructions[opening],
                                                          instructions[closing]]), "loop"):
        return
    first, last = loop
    body = instructions[first:last + 1]
    inner_control = [i for i in body[:-1] if i["opcode"] in CONTROL_OPS]
    checker.check(not inner_control, f"{where}: the timed loop body is straight-line code",
                  lines(inner_control), "loop")
    loads = [i for i in body if is_load(i)]
    checker.check(len(loads) == HOPS, f"{where}: {HOPS} loads per timed-loop iteration",
                  f"found {len(loads)}: " + lines(loads), "count")
    wrong = [(i, load_ok(i, space, modifiers)) for i in loads]
    wrong = [f"/*{i['address']:04x}*/ {problem}" for i, problem in wrong if problem]
    kind = f"LDG.{'.'.join(modifiers)}" if space == "global" else "32-bit LDS"
    checker.check(not wrong, f"{where}: every timed load is {kind}", "; ".join(wrong), "width")
    other = []
    for ins in body:
        if ins["opcode"] not in MEMORY_OPS or is_load(ins):
            continue
        if TOLERATE_PARAM_ULDC and ins["opcode"] == "ULDC" and scoreboard(ins) == 7 and param_read(ins):
            checker.note(f"kernel-parameter read in the timed loop (fixed latency, no scoreboard, "
                         f"off the chain): {re.sub(r'UR[0-9]+', 'URx', ins['text'])}", where)
            continue
        other.append(ins)
    checker.check(not other, f"{where}: no other memory instruction in the timed loop",
                  lines(other), "count")

    # The dependence: simulate the body twice; in the second pass every load's address must be
    # the previous load's value (the first one's: the last load of the first pass).
    values = Values()
    problems = []
    if loads:
        for turn in (0, 1):
            n = 0
            for ins in body:
                if not is_load(ins):
                    values.step(ins)
                    continue
                if turn == 1:
                    previous = (1, n - 1) if n else (0, len(loads) - 1)
                    base, no_offset = address(ins)
                    regs = [base, base + 1] if space == "global" and base is not None else [base]
                    want = [(previous, h) for h in range(len(regs))]
                    got = [values.tag.get(r) for r in regs]
                    if ins["predicate"] or not no_offset or base is None or got != want:
                        why = "predicated" if ins["predicate"] else \
                            "offset in the address" if not no_offset else \
                            "address is not the previous load's value"
                        writers = "; ".join(f"R{r} from {values.writer.get(r, 'before the loop')}"
                                            for r in regs if r is not None)
                        problems.append(f"/*{ins['address']:04x}*/ {ins['text']}: {why} "
                                        f"({writers})")
                values.step(ins, (turn, n))
                n += 1
    checker.check(loads and not problems, f"{where}: each timed load's address is the previous "
                  "load's value (the loop carries the chain)",
                  "; ".join(problems[:3]) + (f" (+{len(problems) - 3} more)"
                                             if len(problems) > 3 else ""), "dependence")

    # Closing clock: after a reader of the last timed load's value (tags carried out of the loop).
    ok = False
    if loads:
        last_tag = (1, len(loads) - 1)
        for ins in instructions[last + 1:closing]:
            ok = ok or values.reads(ins, last_tag)
            values.step(ins)
    checker.check(ok, f"{where}: the closing clock read follows a reader of the last timed load",
                  lines([loads[-1]] + instructions[last:closing + 1]) if loads else "",
                  "closing-consumer")

    # Sampled hop and empty sample: consecutive clock pairs after the closing clock.
    sampled, empty = [], []
    for a, b in zip(clocks[2:], clocks[3:]):
        between = instructions[a + 1:b]
        if any(is_load(i) for i in between):
            sampled.append((a, b))
        elif not any(i["opcode"] in CONTROL_OPS for i in between) \
                and [i["opcode"] for i in between if i["opcode"] in MEMORY_OPS] == ["STS"]:
            empty.append((a, b))
    checker.check(len(sampled) == 1, f"{where}: exactly one clock pair holds a load (sampled hop)",
                  f"found {len(sampled)}: " + " || ".join(lines(instructions[a:b + 1])
                                                          for a, b in sampled), "sampled")
    for a, b in sampled:
        between = instructions[a + 1:b]
        hop_loads = [i for i in between if is_load(i)]
        problems = []
        if not fixed_clock(instructions[a]) or not fixed_clock(instructions[b]):
            problems.append(f"not bracketed by fixed-latency {CLOCK_NAME} clock reads")
        if any(i["opcode"] in CONTROL_OPS for i in between):
            problems.append("control flow between the clocks")
        if len(hop_loads) != 1:
            problems.append(f"{len(hop_loads)} loads")
        else:
            problem = load_ok(hop_loads[0], space, modifiers)
            if problem:
                problems.append(problem)
            at = between.index(hop_loads[0])
            values = Values()
            values.step(hop_loads[0], "hop")
            stored = False
            for ins in between[at + 1:]:
                if ins["opcode"] == "STS" and ins["operands"]:
                    match = BARE_REGISTER.match(ins["operands"][-1])
                    stored = stored or bool(match and values.tag.get(int(match.group(1)),
                                                                     (None,))[0] == "hop")
                values.step(ins)
            if not stored:
                problems.append("no STS of the loaded value after the load")
        others = [i for i in between if i["opcode"] in MEMORY_OPS
                  and not is_load(i) and i["opcode"] != "STS"]
        if others or sum(i["opcode"] == "STS" for i in between) != 1:
            problems.append("other memory instructions between the clocks")
        checker.check(not problems, f"{where}: sampled hop is {CLOCK_NAME}; one {kind}; STS of its "
                      f"value; {CLOCK_NAME}",
                      "; ".join(problems) + " :: " + lines(instructions[a:b + 1]), "sampled")
    checker.check(len(empty) >= 1 and all(fixed_clock(instructions[a]) and
                                          fixed_clock(instructions[b]) for a, b in empty),
                  f"{where}: an empty sample ({CLOCK_NAME}; STS; {CLOCK_NAME}, no load)",
                  "clock pairs after the timed region: " + " || ".join(
                      lines(instructions[a:b + 1]) for a, b in zip(clocks[2:], clocks[3:])),
                  "empty")


def check_arch(checker, arch, functions, variants):
    """functions: {source key: {function name: instructions}} for one target."""
    for key, expected in FIXED_KERNELS.items():
        for name in expected:
            checker.check(name in functions.get(key, {}), f"{arch} {name}: kernel present")
    for key, by_name in functions.items():
        for name, instructions in by_name.items():
            if name.startswith("gpuprobe_chase_"):
                continue   # checked in full below (hygiene included)
            hygiene(checker, f"{arch} {name}", instructions)
    chase = functions.get("chase", {})
    for variant in variants:
        modifiers = expected_ldg(variant, arch)
        if modifiers is None:
            continue
        name = f"gpuprobe_chase_global_{variant[0]}"
        if checker.check(name in chase, f"{arch} {name}: kernel present"):
            check_chase(checker, f"{arch} {name}", chase[name], "global", modifiers)
    shared = functions.get("chase_shared", {}).get("gpuprobe_chase_shared")
    if shared is not None:
        check_chase(checker, f"{arch} gpuprobe_chase_shared", shared, "shared", None)
    known = {f"gpuprobe_chase_global_{v[0]}" for v in variants}
    unknown = sorted(n for n in chase if n.startswith("gpuprobe_chase_global_") and n not in known)
    checker.check(not unknown, f"{arch}: every chase kernel is a .def variant", ", ".join(unknown))


# ---------------------------------------------------------------- the mutation self-test

MUTANT_SOURCE = r"""
#include "probes/memory/chase.cuh"
#include "ptx/ld.cuh"
#include "ptx/sreg.cuh"
using namespace gpuprobe;
using probes::kChaseHopsPerIteration;
using probes::kEmptySamples;
__device__ __forceinline__ uint32_t sat(uint64_t c) {
  return c > 0xffffffffull ? 0xffffffffu : uint32_t(c);
}
// kMutation 0: the real chase; 1: x = ld(base + (x & zero)) (no dependence through the loaded
// value); 2: the closing clock is read without a consumer of the last load.
template <int kMutation> __device__ __forceinline__ void chase(uint64_t base, uint64_t warmup,
    uint64_t iterations, uint32_t sampled, uint64_t zero, uint64_t* out, uint32_t* samples_out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const uint32_t scratch = uint32_t(__cvta_generic_to_shared(smem));
  uint32_t* samples = reinterpret_cast<uint32_t*>(smem + probes::kChaseScratchBytes);
  using L = ptx::load::VARIANT;
  uint64_t x = base;
#pragma unroll 1
  for (uint64_t i = kChaseHopsPerIteration; i < warmup; ++i) x = L::load(x);
#pragma unroll
  for (uint64_t k = 0; k < kChaseHopsPerIteration; ++k) x = L::load(x);
  const uint64_t c0 = ptx::get_sreg_clock64_after(x, zero);
#pragma unroll 1
  for (uint64_t i = iterations; i != 0; --i) {
#pragma unroll
    for (uint64_t k = 0; k < kChaseHopsPerIteration; ++k)
      x = L::load(kMutation == 1 ? base + (x & zero) : x);
  }
  const uint64_t c1 =
      kMutation == 2 ? ptx::get_sreg_clock64() : ptx::get_sreg_clock64_after(x, zero);
#pragma unroll 1
  for (uint32_t j = 0; j < sampled; ++j) {
    uint64_t c;
    x = L::timed(x, scratch, c);
    samples[j] = sat(c);
  }
#pragma unroll 1
  for (uint32_t j = 0; j < kEmptySamples; ++j)
    samples[sampled + j] = sat(ptx::empty_timed_hop(x, scratch));
#pragma unroll 1
  for (uint32_t j = 0; j < sampled + kEmptySamples; ++j) samples_out[j] = samples[j];
  out[0] = x - base;
  out[1] = c1 - c0;
}
#define KERNEL(name, m)                                                                 \
  extern "C" __global__ void __launch_bounds__(1) name(uint64_t b, uint64_t w, uint64_t t,  \
      uint32_t s, uint64_t z, uint64_t* o, uint32_t* so) { chase<m>(b, w, t, s, z, o, so); }
KERNEL(gpuprobe_mutant_control, 0)
KERNEL(gpuprobe_mutant_fake_dependence, 1)
KERNEL(gpuprobe_mutant_no_consumer, 2)
"""
MUTANTS = [("control", "gpuprobe_mutant_control", None),
           ("(a) fake dependence x = ld(base + (x & zero))", "gpuprobe_mutant_fake_dependence",
            "dependence"),
           ("(b) no consumer before the closing clock", "gpuprobe_mutant_no_consumer",
            "closing-consumer")]
MUTANT_ARCH = "sm_90"


def mutant_variant(variants):
    """The first load variant built for MUTANT_ARCH."""
    return next(v for v in variants if expected_ldg(v, MUTANT_ARCH) is not None)


def self_tests(variants):
    """The mutants, built with the first load variant MUTANT_ARCH has, checked as its chase."""
    variant = mutant_variant(variants)
    modifiers = expected_ldg(variant, MUTANT_ARCH)
    return [SelfTest("mutants", MUTANT_SOURCE.replace("VARIANT", variant[0]),
                     [(label, kernel, None, kind) for label, kernel, kind in MUTANTS],
                     lambda probe, where, ins, _: check_chase(probe, where, ins, "global", modifiers),
                     MUTANT_ARCH)]


# ---------------------------------------------------------------- driver

def setup(source_dir):
    """The load variants (the context of the checks); HOPS from the source tree."""
    global HOPS
    HOPS = hops_per_iteration(source_dir)
    return load_variants(source_dir)


if __name__ == "__main__":
    sys.exit(run_sass_test(__doc__, "sass", SOURCES, check_arch, setup=setup, self_tests=self_tests))
