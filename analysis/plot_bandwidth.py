#!/usr/bin/env python3
"""Bandwidth plots from a gpuprobe machine model's `bandwidth` section (docs/SCHEMA.md).

    plot_bandwidth.py MODEL.json [--out-prefix PREFIX]

Writes, each as PNG and SVG (default PREFIX: MODEL next to MODEL.json):
  PREFIX.bandwidth-footprint   bandwidth against the data per SM (L1 sweep) and the footprint
                               (L2 sweep, an imported sweep), the fitted levels as their plateaus
  PREFIX.bandwidth-inflight    bandwidth against bytes in flight per SM for every level (and an
                               imported sweep), with the Little's-law model run forwards and the
                               90%-of-peak point
  PREFIX.loaded-latency        loaded latency against bandwidth: the points bandwidth/
                               loaded_latency measured (a chase while the other SMs stream; the
                               idle chase dotted) with their fit, and the latency the concurrency
                               sweeps imply (bytes in flight x SMs / bandwidth, needs the SM
                               count) with their model
Curves imported with `gpuprobe analyze --import-csv` sit under `bandwidth.imported` in the same
shape as a run's, and are drawn the same way.
Sizes are binary (KiB = 1024 bytes). A model without a bandwidth section, or of the wrong shape,
gets one line "plot_bandwidth: error: ..." and exit status 1, never a traceback.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as common  # noqa: E402  (model loading, shape checks, binary sizes, saving)

LEVEL_ORDER = ["L1", "shared", "L2", "DRAM", "imported"]   # imported: analyze --import-csv


def bandwidth_for(unloaded_ns, queue_ns, peak_bytes_per_ns, in_flight_bytes):
    """harness/littles_law.hpp bandwidth_for, in bytes/ns: B with B x latency(B) = in flight."""
    lo, hi = 0.0, peak_bytes_per_ns
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        latency = unloaded_ns + queue_ns * mid / (peak_bytes_per_ns - mid)
        lo, hi = (mid, hi) if mid * latency < in_flight_bytes else (lo, mid)
    return 0.5 * (lo + hi)


def concurrency_series(bandwidth, sms):
    """[(label, xs, ys, model or None, x90)] for every level (and DRAM kind) with a sweep."""
    out = []
    for level in LEVEL_ORDER:
        entry = bandwidth.get(level)
        if entry is None:
            continue
        common.expect(entry, dict, f"bandwidth.{level}")
        parts = [(level, entry.get("concurrency"))]
        if level == "DRAM":
            parts = [(f"DRAM {kind}", common.expect(entry[kind], dict, f"bandwidth.DRAM.{kind}")
                      .get("concurrency")) for kind in ("read", "write", "copy") if kind in entry]
        for label, conc in parts:
            if conc is None or "error" in conc:
                continue
            common.expect(conc, dict, f"{label} concurrency")
            points = common.expect(conc.get("points"), list, f"{label} concurrency.points")
            xs = [common.number(p.get("bytes_in_flight_per_sm"), f"{label} bytes in flight")
                  for p in points]
            ys = [common.number(p.get("bandwidth_bytes_per_s"), f"{label} bandwidth")
                  for p in points]
            model = conc.get("loaded_latency")
            if model is not None:
                common.expect(model, dict, f"{label} loaded_latency")
                model = (common.number(model.get("unloaded_latency_ns"), f"{label} unloaded"),
                         common.number(model.get("queue_ns"), f"{label} queue"),
                         common.number(model.get("peak_bandwidth_bytes_per_s"), f"{label} peak"))
            x90 = common.number(conc.get("bytes_in_flight_per_sm_for_90pct"), f"{label} 90%",
                                allow_null=True)
            if len(xs) < 2:
                continue
            out.append((label, xs, ys, model, x90))
    return out


def measured_loaded_series(bandwidth):
    """[(level, bandwidths, latencies_ns, idle_ns or None, (unloaded, queue, peak) or None)] for
    every level whose loaded_latency holds bandwidth/loaded_latency's measured points."""
    out = []
    for level, entry in bandwidth.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("loaded_latency"), dict):
            continue
        ll = entry["loaded_latency"]
        if ll.get("source") != "bandwidth/loaded_latency" or "error" in ll:
            continue
        points = common.expect(ll.get("points"), list, f"{level} loaded_latency.points")
        xs, ys, idle = [], [], None
        for p in points:
            common.expect(p, dict, f"{level} loaded_latency point")
            latency = common.number(p.get("latency_ns"), f"{level} loaded latency", allow_null=True)
            if p.get("offered") == "idle":
                idle = latency
                continue
            bw = common.number(p.get("achieved_bandwidth_bytes_per_s"),
                               f"{level} achieved bandwidth", allow_null=True)
            if bw and latency:
                xs.append(bw)
                ys.append(latency)
        model = None
        if ll.get("peak_bandwidth_bytes_per_s") is not None:
            model = (common.number(ll.get("unloaded_latency_ns"), f"{level} unloaded"),
                     common.number(ll.get("queue_ns"), f"{level} queue"),
                     common.number(ll.get("peak_bandwidth_bytes_per_s"), f"{level} peak"))
        if xs:
            out.append((level, xs, ys, idle, model))
    return out


def footprint_series(bandwidth):
    """[(label, x label, xs, ys, levels)] for the L1 and L2 footprint sweeps and an imported one."""
    out = []
    for level, xlabel in (("L1", "data per SM"), ("L2", "footprint"), ("imported", "footprint")):
        sweep = bandwidth.get(level, {}).get("footprint_sweep")
        if sweep is None or "error" in sweep:
            continue
        xs = [common.number(v, f"{level} footprint x") for v in
              common.expect(sweep.get("x"), list, f"{level} footprint_sweep.x")]
        ys = [common.number(v, f"{level} footprint bandwidth") for v in
              common.expect(sweep.get("bandwidth_bytes_per_s"), list,
                            f"{level} footprint_sweep.bandwidth_bytes_per_s")]
        if len(xs) != len(ys):
            raise common.Malformed(f"{level} footprint_sweep: {len(xs)} x values, {len(ys)} bandwidths")
        levels = common.expect(sweep.get("levels", []), list, f"{level} footprint_sweep.levels")
        out.append((f"{level} sweep", xlabel, xs, ys, levels))
    return out


def figures(model, plt):
    """The bandwidth figures of `model`, drawn with matplotlib.pyplot `plt` (Agg): a list of
    (name, figure), name one of bandwidth-footprint, bandwidth-inflight, loaded-latency; [] when
    the bandwidth section holds no sweep. The caller saves (this script) or embeds (the report)
    and closes them. Raises Malformed for a section of the wrong shape."""
    bandwidth = model.get("bandwidth")
    if not isinstance(bandwidth, dict) or not bandwidth:
        return []
    sms = model.get("device", {}).get("sm_count", 0) if isinstance(model.get("device"), dict) else 0
    footprints = footprint_series(bandwidth)
    concurrency = concurrency_series(bandwidth, sms)
    measured = measured_loaded_series(bandwidth)
    device = model.get("device", {}).get("name", "?") if isinstance(model.get("device"), dict) else "?"
    out = []
    if footprints:
        fig, axes = plt.subplots(1, len(footprints), figsize=(6 * len(footprints), 4.2), squeeze=False)
        for ax, (label, xlabel, xs, ys, levels) in zip(axes[0], footprints):
            ax.plot(xs, [y / 1e9 for y in ys], "o-", ms=3, label="measured")
            for lvl in levels:
                bw = lvl.get("bandwidth_bytes_per_s")
                if isinstance(bw, (int, float)):
                    ax.axhline(bw / 1e9, ls="--", lw=0.8, color="gray")
                    ax.annotate(f"{lvl.get('name', '?')} {common.format_value(bw, 'bytes/s')}", (xs[0], bw / 1e9),
                                fontsize=8, va="bottom")
                end = lvl.get("ends_at_bytes")
                if isinstance(end, (int, float)):
                    ax.axvline(end, ls=":", lw=0.8, color="gray")
            ax.set_xscale("log", base=2)
            ax.set_xlabel(f"{xlabel} (bytes; 1 KiB = 1024 B)")
            ax.set_ylabel("bandwidth (GB/s)")
            ax.set_title(f"{label}: {device}")
            ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        out.append(("bandwidth-footprint", fig))
    if concurrency or measured:
        fig2, ax2 = plt.subplots(figsize=(7, 4.5))
    if concurrency:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for label, xs, ys, model_params, x90 in concurrency:
            line, = ax.plot(xs, [y / 1e9 for y in ys], "o", ms=4, label=label)
            if sms:   # latency = bytes in flight x SMs / bandwidth: not without the SM count
                ax2.plot([y / 1e9 for y in ys], [x * sms / y * 1e9 for x, y in zip(xs, ys)], "o",
                         ms=4, color=line.get_color(), label=label)
            if model_params is not None and sms:
                unloaded, queue, peak = model_params
                grid = [xs[0] * (xs[-1] / xs[0]) ** (i / 60) for i in range(61)]
                bws = [bandwidth_for(unloaded, queue, peak * 1e-9, x * sms) for x in grid]
                ax.plot(grid, bws, "-", lw=1, color=line.get_color())
                bgrid = [peak * 1e-9 * i / 100 for i in range(1, 99)]
                ax2.plot(bgrid, [unloaded + queue * b / (peak * 1e-9 - b) for b in bgrid], "-",
                         lw=1, color=line.get_color())
            if x90:
                ax.axvline(x90, ls=":", lw=0.8, color=line.get_color())
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes in flight per SM (dotted: 90% of the peak)")
        ax.set_ylabel("bandwidth (GB/s)")
        ax.set_yscale("log")
        ax.set_title(f"Little's law: {device}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        out.append(("bandwidth-inflight", fig))
    for level, xs, ys, idle, model_params in measured:
        line, = ax2.plot([x / 1e9 for x in xs], ys, "s", ms=5, mfc="none",
                         label=f"{level} measured: chase under load")
        if idle:
            ax2.axhline(idle, ls=":", lw=0.8, color=line.get_color())
        if model_params is not None:
            unloaded, queue, peak = model_params
            bgrid = [peak * 1e-9 * i / 200 for i in range(199)]
            ax2.plot(bgrid, [unloaded + queue * b / (peak * 1e-9 - b) for b in bgrid], "--",
                     lw=1, color=line.get_color(), label=f"{level} fit")
    if (concurrency and sms) or measured:
        ax2.set_xlabel("bandwidth (GB/s)")
        ax2.set_ylabel("latency (ns); circles: bytes in flight x SMs / bandwidth"
                       if concurrency and sms else "latency (ns)")
        ax2.set_yscale("log")
        ax2.set_title(f"loaded latency: {device}")
        ax2.grid(True, which="both", alpha=0.3)
        ax2.legend(fontsize=8)
        fig2.tight_layout()
        out.append(("loaded-latency", fig2))
    elif concurrency or measured:
        plt.close(fig2)   # concurrency sweeps without the SM count: no latency to draw
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--out-prefix", default="")
    parser.add_argument("--if-any", action="store_true",
                        help="a model without a bandwidth sweep draws nothing and succeeds")
    args = parser.parse_args()
    model = common.load_model(args.model)
    prefix = args.out_prefix or os.path.splitext(args.model)[0]
    common.output_folder_or_fail(prefix)
    bandwidth = model.get("bandwidth")
    if (not isinstance(bandwidth, dict) or not bandwidth) and args.if_any:
        print("no plot: the model has no bandwidth section")
        return 0
    if not isinstance(bandwidth, dict) or not bandwidth:
        common.fail(f"{args.model} has no bandwidth section (run the bandwidth probes, then analyze)")
    try:   # the shape is checked before matplotlib is imported: a bad model fails fast
        sms = model.get("device", {}).get("sm_count", 0) if isinstance(model.get("device"), dict) else 0
        series = (footprint_series(bandwidth), concurrency_series(bandwidth, sms),
                  measured_loaded_series(bandwidth))
        if not any(series) and args.if_any:
            print("no plot: the model's bandwidth section holds no sweep")
            return 0
        if not any(series):
            common.fail(f"{args.model}: the bandwidth section holds no sweep to plot")
    except common.Malformed as e:
        common.fail(f"{args.model}: {e}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    try:
        figs = figures(model, plt)
    except common.Malformed as e:
        common.fail(f"{args.model}: {e}")
    for name, fig in figs:
        written += common.save_figure(fig, f"{prefix}.{name}")
        plt.close(fig)
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
