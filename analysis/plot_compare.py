#!/usr/bin/env python3
"""The overlay plots of a comparison that `gpuprobe compare` wrote (PREFIX.compare.json, docs/SCHEMA.md).

    plot_compare.py PREFIX.compare.json [--out-prefix PREFIX]

Writes PREFIX.compare-latency.png / .svg and PREFIX.compare-roofline.png / .svg (default PREFIX:
the file's path without .compare.json). Latency: one colour per input, latency against footprint,
in cycles (left) and ns (right): the measured curve where the model has one (cycles only, and ns
through its clock), else a step through the levels' latencies up to their capacities (a level
without a capacity ends at a nominal size: L1 128 KiB, L2 16 MiB, L2-far 64 MiB; the last level
runs on to 4x its start). Roofline: per input, the DRAM (thick) and L2 (dashed) ceilings,
bandwidth x intensity, up to its compute ceilings: the tensor ceiling of one precision for every
input (the floating-point precision the most inputs share, f16 first) and the CUDA-core f32 FMA
(the JSON holds every ceiling). Published inputs are dotted and labelled "published". A plot with
nothing to draw (no input has a latency; no input has a ceiling) is not written: one line "no
plot: ..." says so. A file of the wrong shape gets one line "plot_compare: error: ..." and exit
status 1.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as common  # noqa: E402  (one-line errors, shape checks, atomic PNG/SVG writes)

SCHEMA = "gpuprobe.compare"
fail, Malformed = common.fail, common.Malformed
FIRST_BYTES = 1024.0  # where a step curve starts
# Where a level without a published or measured capacity is drawn to end (nominal, for the x axis
# only: the level's latency is what the plot says).
NOMINAL_END_BYTES = {"L1": 128 * 1024.0, "L2": 16 * 1024.0 ** 2, "L2-far": 64 * 1024.0 ** 2}


def read(doc):
    """[(label, title, published, levels, curve, memory, compute)] per input."""
    inputs = common.expect(doc.get("inputs"), list, "inputs")
    plots = common.expect(common.expect(doc.get("plots"), dict, "plots").get("inputs"), list, "plots.inputs")
    if len(plots) != len(inputs):
        raise Malformed("plots.inputs does not have one entry per input")
    out = []
    for i, (inp, p) in enumerate(zip(inputs, plots)):
        common.expect(inp, dict, f"inputs[{i}]")
        common.expect(p, dict, f"plots.inputs[{i}]")
        device = inp.get("device") if isinstance(inp.get("device"), dict) else {}
        name = device.get("name") if isinstance(device.get("name"), str) else inp.get("file", "?")
        source = str(inp.get("source", "?"))
        title = f"{inp.get('label', '?')}: {name} ({source})"
        levels = []
        for j, lvl in enumerate(common.expect(p.get("levels", []), list, f"plots.inputs[{i}].levels")):
            where = f"plots.inputs[{i}].levels[{j}]"
            common.expect(lvl, dict, where)
            levels.append((str(lvl.get("name", "?")),
                           common.number(lvl.get("latency_cycles"), f"{where}.latency_cycles", True),
                           common.number(lvl.get("latency_ns"), f"{where}.latency_ns", True),
                           common.number(lvl.get("capacity_bytes"), f"{where}.capacity_bytes", True)))
        curve = p.get("curve")
        if curve is not None:
            common.expect(curve, dict, f"plots.inputs[{i}].curve")
            xs = common.expect(curve.get("footprint_bytes"), list, f"plots.inputs[{i}].curve.footprint_bytes")
            ys = common.expect(curve.get("latency_cycles"), list, f"plots.inputs[{i}].curve.latency_cycles")
            if len(xs) != len(ys):
                raise Malformed(f"plots.inputs[{i}].curve: footprint_bytes and latency_cycles differ in length")
            clock = common.number(curve.get("clock_mhz"), f"plots.inputs[{i}].curve.clock_mhz", True)
            curve = ([common.number(x, f"plots.inputs[{i}].curve.footprint_bytes") for x in xs],
                     [common.number(y, f"plots.inputs[{i}].curve.latency_cycles") for y in ys], clock)
        roof = common.expect(p.get("roofline", {}), dict, f"plots.inputs[{i}].roofline")
        memory = {k: common.number(v, f"plots.inputs[{i}].roofline.memory.{k}")
                  for k, v in common.expect(roof.get("memory", {}), dict, f"plots.inputs[{i}].roofline.memory").items()}
        compute = {k: common.number(v, f"plots.inputs[{i}].roofline.compute.{k}")
                   for k, v in common.expect(roof.get("compute", {}), dict, f"plots.inputs[{i}].roofline.compute").items()}
        out.append((str(inp.get("label", "?")), title, source == "published", levels, curve, memory, compute))
    return out


def steps(levels, column):
    """(xs, ys) of a step curve through the levels that have a latency in `column` (1: cycles, 2: ns)."""
    xs, ys, start = [], [], FIRST_BYTES
    for lvl in levels:
        latency, capacity = lvl[column], lvl[3]
        end = capacity if capacity and capacity > start else NOMINAL_END_BYTES.get(lvl[0], start * 4)
        end = max(end, start * 2)
        if latency is not None:
            xs += [start, end]
            ys += [latency, latency]
        start = end
    return xs, ys


def has_latency(inputs):
    return any(curve or any(lvl[1] is not None or lvl[2] is not None for lvl in levels)
               for _, _, _, levels, curve, _, _ in inputs)


def latency_plot(plt, inputs, stem):
    fig, (ax_c, ax_n) = plt.subplots(1, 2, figsize=(12, 5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    drawn = False
    for k, (label, title, published, levels, curve, _, _) in enumerate(inputs):
        color, ls = colors[k % len(colors)], ":" if published else "-"
        if curve:
            xs, ys, clock = curve
            ax_c.plot(xs, ys, ls, color=color, lw=1.4, label=title)
            if clock:
                ax_n.plot(xs, [y / clock * 1000 for y in ys], ls, color=color, lw=1.4, label=title)
            drawn = True
            continue
        for ax, column in ((ax_c, 1), (ax_n, 2)):
            xs, ys = steps(levels, column)
            if xs:
                ax.plot(xs, ys, ls, color=color, lw=1.6, marker="o", ms=3, label=title)
                for lvl in levels:
                    if lvl[column] is not None:
                        x = next(x for x, y in zip(xs, ys) if y == lvl[column])
                        ax.annotate(lvl[0], (x, lvl[column]), textcoords="offset points", xytext=(2, 3),
                                    fontsize=7, color=color)
                drawn = True
    for ax, unit in ((ax_c, "cycles"), (ax_n, "ns")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("footprint (bytes)")
        ax.set_ylabel(f"load-to-use latency ({unit})")
        ax.grid(True, which="both", alpha=0.25)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper left")
        else:
            ax.text(0.5, 0.5, f"no latency in {unit}", transform=ax.transAxes, ha="center")
    if not drawn:
        ax_c.set_xscale("linear")
        ax_n.set_xscale("linear")
    fig.suptitle("latency: " + " vs ".join(label for label, *_ in inputs))
    fig.tight_layout()
    return common.save_figure(fig, stem + ".compare-latency")


INTEGER = ("s8", "s4", "u8", "u4", "b1", "s32", "u32")
# The tensor precision the overlay draws, of those the most inputs share: the most common on GPUs first.
TENSOR_ORDER = ["f16", "bf16", "tf32", "e4m3", "e5m2", "f64"]


def tensor_precision(inputs):
    """The one floating-point tensor precision every input's line is drawn at, so that the overlay
    compares like with like (never one GPU's FP8 with another's BF16): of the precisions the most
    inputs have, the first of TENSOR_ORDER, else the first by name; None when no input has one."""
    count = {}
    for *_, compute in inputs:
        for name in compute:
            if name.startswith("tensor ") and not name.endswith(INTEGER):
                count[name[len("tensor "):]] = count.get(name[len("tensor "):], 0) + 1
    if not count:
        return None
    most = max(count.values())
    shared = [p for p, n in count.items() if n == most]
    return min(shared, key=lambda p: (TENSOR_ORDER.index(p) if p in TENSOR_ORDER else len(TENSOR_ORDER), p))


def drawn_ceilings(compute, precision):
    """The compute ceilings an input draws: its tensor ceiling of `precision` and its CUDA-core f32
    FMA, each when it has one (every ceiling is in the JSON; drawing all of them for several inputs
    is unreadable); without either, its highest floating-point ceiling."""
    out = [(name, flops) for name, flops in compute.items()
           if name == f"tensor {precision}" or (name.startswith("compute ") and name.endswith("f32"))]
    if not out:
        floating = {k: v for k, v in compute.items() if not k.endswith(INTEGER)}
        out = [max(floating.items(), key=lambda kv: kv[1])] if floating else []  # integer TOPS are no FLOP ceiling
    return sorted(out, key=lambda kv: -kv[1])


def has_ceiling(inputs):
    return any(compute or any(name in memory for name in ("DRAM", "L2")) for *_, memory, compute in inputs)


def roofline_plot(plt, inputs, stem):
    fig, ax = plt.subplots(figsize=(9, 6))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    x_lo, x_hi = 1 / 64, 4096.0
    precision = tensor_precision(inputs)
    tops = [drawn_ceilings(c, precision)[0][1] for *_, c in inputs if drawn_ceilings(c, precision)]
    bws = [bw for *_, m, _ in inputs for name, bw in m.items() if name in ("DRAM", "L2")]
    drawn = False
    for k, (label, title, published, _, _, memory, compute) in enumerate(inputs):
        color, ls = colors[k % len(colors)], ":" if published else "-"
        ceilings = drawn_ceilings(compute, precision)
        top = ceilings[0][1] if ceilings else max(tops or [max(bws or [1.0]) * x_hi])
        bandwidths = ", ".join(f"{name} {common.format_value(memory[name], 'bytes/s')}" for name in ("DRAM", "L2") if name in memory)
        ax.plot([], [], color=color, ls=ls, lw=1.6, label=title + (f": {bandwidths}" if bandwidths else ""))
        for name in ("DRAM", "L2"):
            if name not in memory:
                continue
            bw = memory[name]
            ax.plot([x_lo, top / bw], [bw * x_lo, top], color=color, lw=1.6 if name == "DRAM" else 1.0,
                    ls=ls if name == "DRAM" else "--")
            drawn = True
        for name, flops in ceilings:
            ax.hlines(flops, x_lo, x_hi, color=color, lw=1.0, ls=ls)
            ax.annotate(f"{label} {name} {common.format_value(flops, 'flop/s')}", (x_hi, flops), textcoords="offset points",
                        xytext=(-4, 2), ha="right", fontsize=6, color=color)
            drawn = True
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    if drawn:
        peak = max(tops + [bw * x_hi for bw in bws])
        low = min([bw * x_lo for bw in bws] + [peak / 1e4])
        ax.set_ylim(low / 2, peak * 3)
    else:
        ax.text(0.5, 0.5, "no ceiling in any input", transform=ax.transAxes, ha="center")
    ax.set_xlabel("arithmetic intensity (FLOP/byte); slanted: DRAM (thick), L2 (dashed)")
    ax.set_ylabel("FLOP/s")
    ax.set_title("roofline: " + " vs ".join(label for label, *_ in inputs) +
                 (f" (tensor lines: {precision} in every input that has it)" if precision else ""))
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return common.save_figure(fig, stem + ".compare-roofline")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("compare")
    parser.add_argument("--out-prefix", default="")
    args = parser.parse_args()
    doc = common.load_model(args.compare, SCHEMA, 1, " (gpuprobe compare writes one)")
    stem = args.out_prefix
    if not stem:
        stem = args.compare[:-len(".compare.json")] if args.compare.endswith(".compare.json") \
            else os.path.splitext(args.compare)[0]
    common.output_folder_or_fail(stem)
    try:
        inputs = read(doc)
    except Malformed as e:
        fail(f"{args.compare}: {e}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(f"matplotlib is not installed for {sys.executable} (scripts/setup.sh installs it into .venv)")
    written = []
    if has_latency(inputs):
        written += latency_plot(plt, inputs, stem)
    else:
        print(f"no plot: {stem}.compare-latency: no input has a latency to draw")
    if has_ceiling(inputs):
        written += roofline_plot(plt, inputs, stem)
    else:
        print(f"no plot: {stem}.compare-roofline: no input has a bandwidth or compute ceiling to draw")
    for out in written:
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
