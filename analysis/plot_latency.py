#!/usr/bin/env python3
"""Latency against footprint (log x) with the fitted levels marked, from a gpuprobe machine model.

    plot_latency.py MODEL.json [--out-prefix PREFIX]

Writes PREFIX.png and PREFIX.svg (default: latency next to MODEL.json). Reads only the model
(schema gpuprobe.machine_model, docs/SCHEMA.md): the curves and levels it carries.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

SCHEMA = "gpuprobe.machine_model"
SCHEMA_VERSION = 1
PATH_LABELS = {
    "ca": "ld.global.ca (L1 + L2)",
    "cg": "ld.global.cg (L2 only)",
    "nc": "ld.global.nc (read-only path)",
    "cs": "ld.global.cs", "lu": "ld.global.lu", "cv": "ld.global.cv",
    "imported": "imported curve",
}


def fail(message):
    print(f"plot_latency: error: {message}", file=sys.stderr)
    sys.exit(1)


def human_bytes(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale:.0f} {unit}"
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def load_model(path):
    try:
        with open(path, encoding="utf-8") as f:
            model = json.load(f)
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path} is not valid JSON: {e.msg} at line {e.lineno}")
    if model.get("schema") != SCHEMA or model.get("schema_version") != SCHEMA_VERSION:
        fail(f"{path} is not a {SCHEMA} v{SCHEMA_VERSION} document")
    return model


def plot(model, prefix):
    memory = model.get("memory", {})
    paths = {k: v for k, v in memory.get("paths", {}).items() if "curve" in v}
    if not paths:
        fail("the model has no latency curve to plot")
    fig, ax = plt.subplots(figsize=(10, 6))
    for op, path in sorted(paths.items()):
        curve = path["curve"]
        ax.plot(curve["x"], curve["latency_cycles"], marker=".", linewidth=1,
                label=PATH_LABELS.get(op, op))
    levels = memory.get("levels", [])
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
    device = model.get("device", {})
    title = device.get("name", "unknown device")
    if model.get("simulated"):
        title += "  [SIMULATED: not a measurement]"
    far = memory.get("far_l2", {})
    if far:
        title += "\nfar L2 " + ("detected" if far.get("detected") else "not detected")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    written = []
    for ext in ("png", "svg"):
        out = f"{prefix}.{ext}"
        tmp = f"{out}.tmp-{os.getpid()}"
        fig.savefig(tmp, format=ext, dpi=120)
        os.replace(tmp, out)  # atomic: a reader never sees half a picture
        written.append(out)
    plt.close(fig)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="machine model JSON (gpuprobe run-all / analyze)")
    parser.add_argument("--out-prefix", help="output path without extension")
    args = parser.parse_args()
    model = load_model(args.model)
    prefix = args.out_prefix or os.path.join(os.path.dirname(os.path.abspath(args.model)), "latency")
    for path in plot(model, prefix):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
