#!/usr/bin/env python3
"""Latency against footprint (log x) with the fitted levels marked, from a gpuprobe machine model.

    plot_latency.py MODEL.json [--out-prefix PREFIX]

Writes PREFIX.png and PREFIX.svg (default: MODEL.latency next to MODEL.json, so the plots of two
models in one folder never overwrite each other). Reads only the model (schema
gpuprobe.machine_model, docs/SCHEMA.md): the curves and levels it carries. Sizes are in binary
units (KiB = 1024 bytes, MiB, GiB), as the command line reads and prints them. A malformed model
gets one line "plot_latency: error: ..." and exit status 1, never a traceback.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_common import (Malformed, expect, fail, human_bytes, load_model, number,  # noqa: E402
                         output_folder_or_fail, save_figure)


PATH_LABELS = {
    "ca": "ld.global.ca (L1 + L2)",
    "cg": "ld.global.cg (L2 only)",
    "nc": "ld.global.nc (read-only path)",
    "cs": "ld.global.cs", "lu": "ld.global.lu", "cv": "ld.global.cv",
    "imported": "imported curve",
}


def checked_curves(memory):
    """(label, xs, ys) per load variant; a null latency is a gap in its curve."""
    paths = expect(memory.get("paths", {}), dict, "memory.paths")
    curves = []
    for op, path in sorted(paths.items()):
        where = f"memory.paths.{op}"
        expect(path, dict, where)
        if "curve" not in path:
            continue  # a failed fit: {"error": ...}
        curve = expect(path["curve"], dict, where + ".curve")
        xs = expect(curve.get("x"), list, where + ".curve.x")
        ys = expect(curve.get("latency_cycles"), list, where + ".curve.latency_cycles")
        if len(xs) != len(ys):
            raise Malformed(f"{where}.curve has {len(xs)} x values but {len(ys)} latencies")
        xs = [number(x, f"{where}.curve.x[{i}]") for i, x in enumerate(xs)]
        ys = [number(y, f"{where}.curve.latency_cycles[{i}]", allow_null=True)
              for i, y in enumerate(ys)]
        ys = [math.nan if y is None else y for y in ys]
        curves.append((PATH_LABELS.get(op, op), xs, ys))
    return curves


def checked_levels(memory):
    levels = expect(memory.get("levels", []), list, "memory.levels")
    out = []
    for i, level in enumerate(levels):
        where = f"memory.levels[{i}]"
        expect(level, dict, where)
        plateau = expect(level.get("plateau_bytes"), list, where + ".plateau_bytes")
        if len(plateau) != 2:
            raise Malformed(f"{where}.plateau_bytes has {len(plateau)} values, not [first, last]")
        cap = number(level.get("capacity_bytes"), where + ".capacity_bytes", allow_null=True)
        interval = None
        if cap is not None:
            interval = expect(level.get("capacity_interval_bytes"), list,
                              where + ".capacity_interval_bytes")
            if len(interval) != 2:
                raise Malformed(f"{where}.capacity_interval_bytes is not [lo, hi]")
            interval = [number(v, where + ".capacity_interval_bytes") for v in interval]
        out.append({
            "name": str(level.get("name", f"level {i + 1}")),
            "latency_cycles": number(level.get("latency_cycles"), where + ".latency_cycles"),
            # null when no clock is known: the level is labelled in cycles only
            "latency_ns": number(level.get("latency_ns"), where + ".latency_ns", allow_null=True),
            "confidence": number(level.get("confidence", 0), where + ".confidence"),
            "plateau_bytes": [number(v, where + ".plateau_bytes") for v in plateau],
            "capacity_bytes": cap,
            "capacity_interval_bytes": interval,
        })
    return out


def draw(ax, model):
    """Draws the model's latency curves and fitted levels into the matplotlib axes `ax` (the
    report embeds the same drawing); False, drawing nothing, when the model has no curve.
    Raises Malformed for a model of the wrong shape."""
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    memory = expect(model.get("memory", {}), dict, "memory")
    curves = checked_curves(memory)
    if not curves:
        return False
    levels = checked_levels(memory)
    device = model.get("device", {})
    device = device if isinstance(device, dict) else {}
    for label, xs, ys in curves:
        ax.plot(xs, ys, marker=".", linewidth=1, label=label)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, level in enumerate(levels):
        color = colors[(i + 3) % len(colors)]
        lo, hi = level["plateau_bytes"]
        ax.hlines(level["latency_cycles"], lo, hi, colors=color, linewidth=3, alpha=0.6)
        text = f'{level["name"]}: {level["latency_cycles"]:.0f} cyc'
        if level.get("latency_ns"):
            text += f' ({level["latency_ns"]:.0f} ns)'
        if level.get("capacity_bytes"):
            cap = level["capacity_bytes"]
            ilo, ihi = level["capacity_interval_bytes"]
            ax.axvspan(ilo, ihi, color=color, alpha=0.12)
            ax.axvline(cap, color=color, linestyle=":", linewidth=1)
            text += f", {human_bytes(cap)}"
        text += f', conf {level["confidence"]:.2f}'
        ax.annotate(text, (lo, level["latency_cycles"]), textcoords="offset points",
                    xytext=(2, 6), fontsize=8, color=color)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=4))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: human_bytes(x)))
    ax.set_xlabel("footprint")
    ax.set_ylabel("latency per load (cycles)")
    title = str(device.get("name", "unknown device"))
    if model.get("simulated"):
        title += "  [SIMULATED: not a measurement]"
    far = memory.get("far_l2", {})
    if isinstance(far, dict) and far:
        title += "\nfar L2 " + ("detected" if far.get("detected") else "not detected")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    return True


def plot(model, prefix, if_any=False):
    """The files written; none when the model has no curve and if_any (else that fails)."""
    # The shape is checked before matplotlib is imported: a bad model fails fast.
    checked_curves(expect(model.get("memory", {}), dict, "memory"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 6))
    if not draw(ax, model):
        plt.close(fig)
        if if_any:
            print("no plot: the model has no latency curve")
            return []
        fail("the model has no latency curve to plot")
    fig.tight_layout()
    written = save_figure(fig, prefix)
    plt.close(fig)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="machine model JSON (gpuprobe run-all / analyze)")
    parser.add_argument("--out-prefix", help="output path without extension")
    parser.add_argument("--if-any", action="store_true",
                        help="a model without a latency curve draws nothing and succeeds")
    args = parser.parse_args()
    model = load_model(args.model)
    if args.out_prefix:
        prefix = args.out_prefix
    else:
        stem = os.path.abspath(args.model)
        stem = stem[:-len(".json")] if stem.endswith(".json") else stem
        prefix = stem + ".latency"
    output_folder_or_fail(prefix)
    try:
        written = plot(model, prefix, args.if_any)
    except Malformed as e:
        fail(f"{args.model}: {e}")
    for path in written:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
