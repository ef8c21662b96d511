#!/usr/bin/env python3
"""The hierarchical roofline that `gpuprobe roofline` wrote (PREFIX.roofline.json, docs/SCHEMA.md).

    plot_roofline.py PREFIX.roofline.json [--out-prefix STEM]

Writes STEM.png and STEM.svg (default STEM: the file's path without .json, so
PREFIX.roofline.png). Log-log: FLOP/s against arithmetic intensity (FLOP/byte). Each compute
ceiling (per precision, per instruction path) is a horizontal line, each memory ceiling (DRAM,
L2-far, L2, L1, shared) a slanted line bandwidth x intensity, the ridge points where the memory
ceilings meet each precision's best ceiling are marked, and each kernel is a labelled point at
its intensity for every level it gave bytes for (one marker per level, joined). The LABELS
kernels with the most time are coloured and labelled; any more (an ncu export of a training step
holds thousands) are grey markers without a label, rasterized in the SVG, and the plot says how
many. A file of the wrong shape gets one line "plot_roofline: error: ..." and exit status 1,
never a traceback.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as common  # noqa: E402  (one-line errors, shape checks, atomic PNG/SVG writes)

SCHEMA = "gpuprobe.roofline"
LEVELS = ["DRAM", "L2-far", "L2", "L1", "shared"]
LEVEL_MARKERS = {"DRAM": "o", "L2-far": "D", "L2": "s", "L1": "^", "shared": "v"}
LABELS = 12  # kernels labelled, those with the most time; the rest are drawn unlabelled
# What the plot reads of a kernel: a roofline of 10^5 kernels is read without the rest.
KERNEL_KEYS = ("name", "precision", "achieved_flops_per_s", "intensity_flop_per_byte",
               "percent_of_attainable", "bound", "time_s")
fail, Malformed = common.fail, common.Malformed


def slim(obj):
    """json.load's object_hook: a kernel keeps only what the plot draws (its limits, headroom and
    notes are left behind as they are read), and its bound only its name."""
    if "achieved_flops_per_s" in obj and "limits" in obj:
        obj = {k: obj[k] for k in KERNEL_KEYS if k in obj}
        if isinstance(obj.get("bound"), dict):
            obj["bound"] = {"name": obj["bound"].get("name", "?")}
    return obj


def positive(value, where):
    if common.number(value, where) <= 0:
        raise Malformed(f"{where} is not positive")
    return float(value)


def obj(value, where):
    return common.expect(value, dict, where)


def ceilings(doc):
    """(memory [(level, bytes/s)], compute [(precision, path, rate, best, unit)], kernels): the rate
    of an integer precision is in op/s (its `unit`), of any other in FLOP/s."""
    roof = obj(doc.get("roofline"), "roofline")
    memory = obj(roof.get("memory", {}), "roofline.memory")
    mem = [(lvl, positive(obj(memory[lvl], f"memory.{lvl}").get("bytes_per_s"), f"memory.{lvl}.bytes_per_s"))
           for lvl in LEVELS if lvl in memory]
    comp = []
    for prec, c in obj(roof.get("compute", {}), "roofline.compute").items():
        obj(c, f"compute.{prec}")
        if c.get("flops_per_s") is None:
            continue  # only emulated ops: no ceiling
        best = c.get("path")
        for path, p in obj(c.get("paths", {}), f"compute.{prec}.paths").items():
            flops = positive(obj(p, f"compute.{prec}.paths.{path}").get("flops_per_s"),
                             f"compute.{prec}.paths.{path}.flops_per_s")
            comp.append((prec, path, flops, path == best, c.get("unit", "flop/s")))
    kernels = doc.get("kernels", [])
    common.expect(kernels, list, "kernels")
    points = []
    for i, k in enumerate(kernels):
        obj(k, f"kernels[{i}]")
        achieved = positive(k.get("achieved_flops_per_s"), f"kernels[{i}].achieved_flops_per_s")
        intensity = obj(k.get("intensity_flop_per_byte", {}), f"kernels[{i}].intensity_flop_per_byte")
        at = [(lvl, positive(intensity[lvl], f"kernels[{i}].intensity_flop_per_byte.{lvl}"))
              for lvl in LEVELS if lvl in intensity]
        time_s = k.get("time_s")
        points.append((str(k.get("name", f"kernel {i}")), str(k.get("precision", "")), achieved, at,
                       k.get("percent_of_attainable"), k.get("bound"),
                       float(time_s) if isinstance(time_s, (int, float)) and not isinstance(time_s, bool) else 0.0))
    return mem, comp, points


def draw(ax, doc, ceilings_of=None):
    """Draws the roofline document `doc` (gpuprobe.roofline, or any object with its `roofline`,
    `kernels`, `device` and `simulated` keys) into the matplotlib axes `ax` (the report embeds the
    same drawing); False, drawing nothing, when it has neither a compute nor a memory ceiling.
    `ceilings_of` is what ceilings(doc) returned, when the caller has it already. Raises Malformed."""
    import matplotlib.pyplot as plt
    mem, comp, kernels = ceilings_of or ceilings(doc)
    if not mem and not comp:
        return False
    # The intensity range: around every ridge point and kernel, at least 1/64 to 1024 FLOP/byte.
    xs = [1 / 64, 1024.0]
    for _, bw in mem:
        xs += [f / bw for _, _, f, *_ in comp]
    xs += [x for _, _, _, at, _, _, _ in kernels for _, x in at]
    x_lo, x_hi = min(xs) / 4, max(xs) * 4
    peak = max([f for _, _, f, *_ in comp] or [bw * x_hi for _, bw in mem])

    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    texts = []  # (log x, log y) of every text placed: no text on text

    def free(x, y, dx, dy):
        if any(abs(math.log10(x) - tx) < dx and abs(math.log10(y) - ty) < dy for tx, ty in texts):
            return False
        texts.append((math.log10(x), math.log10(y)))
        return True

    for i, (lvl, bw) in enumerate(mem):
        top = peak * 1.5
        ax.plot([x_lo, min(x_hi, top / bw)], [bw * x_lo, min(bw * x_hi, top)], color="0.35",
                lw=1.2, ls=["-", "--", "-.", ":", (0, (5, 1))][i % 5],
                label=f"{lvl} {common.format_value(bw, 'bytes/s')}")
    for j, (prec, path, flops, best, unit) in enumerate(comp):
        color = colors[j % len(colors)]
        integer = unit == "op/s"  # counts operations: dotted, labelled (int)
        ax.axhline(flops, color=color, lw=2.0 if best else 1.0, ls=":" if integer else "-" if best else "--",
                   label=f"{prec}{' (int)' if integer else ''} {path} {common.format_value(flops, unit)}")
        if best:
            for lvl, bw in mem:
                ridge = flops / bw
                ax.plot([ridge], [flops], "x", color=color, ms=7, mew=1.5)
                if free(ridge, flops, 0.2, 0.08):  # two precisions' equal ridges: one label
                    ax.annotate(common.format_value(ridge, ""), (ridge, flops), textcoords="offset points",
                                xytext=(3, 4), fontsize=7, color=color)
    placed = [k for k in kernels if k[3]]  # no bytes given: no intensity to place it at
    # The kernels with the most time are labelled; ties keep the input order.
    ranked = sorted(range(len(placed)), key=lambda i: -placed[i][6])
    labelled = set(ranked[:LABELS])
    for k, i in enumerate(ranked[:LABELS]):  # the most time first: its label is placed first
        name, prec, achieved, at, percent, bound, _ = placed[i]
        color = colors[(k + len(comp)) % len(colors)]
        ax.plot([x for _, x in at], [achieved] * len(at), "-", color=color, lw=0.8)
        for lvl, x in at:
            ax.plot([x], [achieved], LEVEL_MARKERS[lvl], color=color, ms=7)
        text = f"{name} [{prec}]"
        if isinstance(percent, (int, float)):
            where = bound.get("name", "?") if isinstance(bound, dict) else "?"
            text += f": {common.format_value(percent, 'percent')} of attainable ({where})"
        x0 = min(x for _, x in at)
        if free(x0, achieved, 0.6, 0.06):  # a kernel whose label would cover another's keeps its colour only
            ax.annotate(text, (x0, achieved), textcoords="offset points", xytext=(5, -11), fontsize=8,
                        color=color)
    rest = [placed[i] for i in range(len(placed)) if i not in labelled]
    if rest:
        # The joins as one path broken by NaN: 10^5 segments draw in a second (a LineCollection
        # of them takes ten).
        jx, jy = [], []
        for _, _, a, at, *_ in rest:
            if len(at) > 1:
                jx += [min(x for _, x in at), max(x for _, x in at), math.nan]
                jy += [a, a, math.nan]
        if jx:
            ax.plot(jx, jy, "-", color="0.6", lw=0.5, rasterized=True, zorder=1.5)
        for lvl in LEVELS:
            pts = [(x, a) for _, _, a, at, *_ in rest for level, x in at if level == lvl]
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], ls="none", marker=LEVEL_MARKERS[lvl], ms=2.5,
                        mew=0, color="0.45", rasterized=True, zorder=1.5)  # Line2D markers: fast to render
        ax.text(0.01, 0.99, f"{len(rest)} more kernels in grey, unlabelled (the {LABELS} with the most time are "
                "labelled; the JSON holds every one)", transform=ax.transAxes, va="top", fontsize=7, color="0.3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    y_min = min([bw * x_lo for _, bw in mem] + [k[2] for k in kernels] + [peak / 1e4])
    ax.set_ylim(y_min / 2, peak * 3)
    ax.set_xlabel("arithmetic intensity (FLOP/byte" +
                  (", OP/byte for integer ceilings" if any(c[4] == "op/s" for c in comp) else "") + "; markers: " +
                  ", ".join(f"{LEVEL_MARKERS[lvl]} {lvl}" for lvl in LEVELS) + ")")
    ax.set_ylabel("FLOP/s" + ("; OP/s for the dotted integer ceilings" if any(c[4] == "op/s" for c in comp) else ""))
    device = doc.get("device", {}).get("name", "?") if isinstance(doc.get("device"), dict) else "?"
    ax.set_title(f"roofline: {device}" + (" (simulated)" if doc.get("simulated") is True and
                                            "simulated" not in device else ""))
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="lower right")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roofline")
    parser.add_argument("--out-prefix", default="")
    args = parser.parse_args()
    doc = common.load_model(args.roofline, SCHEMA, 1, " (gpuprobe roofline writes one)", object_hook=slim)
    stem = args.out_prefix or os.path.splitext(args.roofline)[0]
    common.output_folder_or_fail(stem)
    try:
        mem, comp, kernels = ceilings(doc)
    except Malformed as e:
        fail(f"{args.roofline}: {e}")
    if not mem and not comp:
        fail(f"{args.roofline}: the model has neither a compute nor a memory ceiling to draw "
             "(run compute/alu and the bandwidth probes)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(f"matplotlib is not installed for {sys.executable} (scripts/setup.sh installs it into .venv)")

    fig, ax = plt.subplots(figsize=(9, 6))
    draw(ax, doc, (mem, comp, kernels))
    fig.tight_layout()
    for out in common.save_figure(fig, stem):
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
