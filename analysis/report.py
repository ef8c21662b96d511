#!/usr/bin/env python3
"""The machine model's report: one Markdown file and one self-contained HTML page.

    report.py MODEL.json [--roofline R.json] [--references DIR] [--out-prefix P]

Writes P.report.md, P.report.html and the Markdown's pictures P.report-<plot>.png (default P: the
model's folder, so report.md, report.html, report-latency.png... next to MODEL.json). The HTML
embeds every plot as a base64 PNG: no external URL, no script library, one short inline script
that records on load whether every image decoded and whether an error fired (the browser test
reads it). Sections: the header (device, clock, a banner when simulated, gpuprobe version, dates),
"Is my number normal?" (every metric that a published reference profile in DIR, default
results/reference, also has: against the reference of the same GPU when one matches the device
name, and against the range of all; docs/ANALYSIS.md "Is my number normal?"), the latency curve,
the bandwidth curves, the roofline (R.json, else MODEL.roofline.json next to the model, else the
model's own `roofline` section), compute, tensor, sync, atomics and async tables, the launch model
(t = a + b n and T = a + V/b with the run records' points), goodput, derived figures (per SM per
clock, % of datasheet, ridge points, bytes in flight) and the provenance legend. Every number's
row says where it comes from (measured, simulated, published) and which checks stand behind its
probe. The tables read the model's `metrics[]` (docs/SCHEMA.md); a section without data says "not
measured". Bad input gets one line "report: error: ..." and exit status 1.
"""
import argparse
import base64
import html
import io
import json
import math
import os
import re
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_common as common  # noqa: E402  (one-line errors, shape checks, binary sizes)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_REFERENCES = os.path.join(REPO, "results", "reference")
# A value within this fraction of the same GPU's published figure is "within" (docs/ANALYSIS.md).
SAME_GPU_TOLERANCE = 0.10
CHECK_TEXT = {
    "compile-matrix": "compiles for every target (compile matrix)",
    "sass": "its hot loop is asserted in SASS",
    "sim-closed-loop": "the analysis recovers the simulator's parameters (closed loop)",
    "real-data": "the analysis reads real curves measured by others (real-data replay)",
    "gpu-self-check": "each run checks its own results on the GPU (self-check)",
}
SOURCE_TEXT = {
    "measured": "measured on this GPU",
    "simulated": "simulated: a model of the GPU, not a measurement",
    "published": "published figure (with its citation), never measured here",
}
# The integer tensor precisions (analysis/compute_model.hpp integer_precision): OP, not FLOP.
INTEGER_PRECISIONS = ("s8", "u8", "s4", "u4", "b1")

METRIC_FIELDS = ("id", "family", "label", "value", "unit", "better", "ceiling", "method", "probe",
                 "samples", "confidence", "clock_mhz", "source", "checks", "citation",
                 "per_sm_per_clock", "datasheet")


class Bad(Exception):
    """Input of the wrong shape; the message is the error line."""


# ---------------------------------------------------------------- numbers and units

num = common.num
fmt = common.format_value


# ---------------------------------------------------------------- input

def check_metric(m, where):
    if not isinstance(m, dict):
        raise Bad(f"{where} is not an object")
    for key in ("id", "value", "unit", "source"):
        if key not in m:
            raise Bad(f"{where} has no {key}")
    if not isinstance(m["id"], str) or not m["id"]:
        raise Bad(f"{where}.id is not a text")
    v = m["value"]
    if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)
                          or not math.isfinite(v)):
        raise Bad(f"{where} ({m['id']}).value is not a number")
    if m["source"] not in SOURCE_TEXT:
        raise Bad(f"{where} ({m['id']}).source is {m['source']!r}, not measured, simulated or published")
    checks = m.get("checks") or []
    if not isinstance(checks, list) or not all(isinstance(c, str) for c in checks):
        raise Bad(f"{where} ({m['id']}).checks is not a list of names")
    for key in ("per_sm_per_clock", "datasheet"):
        if m.get(key) is not None and not isinstance(m[key], dict):
            raise Bad(f"{where} ({m['id']}).{key} is not an object or null")
    return {k: m.get(k) for k in METRIC_FIELDS}


def metrics_of(doc, path):
    """The document's metrics[] checked; [] for a model without the table (schema version 1)."""
    if "metrics" not in doc:
        return []
    ms = doc["metrics"]
    if not isinstance(ms, list):
        raise Bad(f"{path}: metrics is not an array")
    return [check_metric(m, f"{path}: metrics[{i}]") for i, m in enumerate(ms)]


def load_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Bad(f"cannot read {what} {path}: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise Bad(f"{what} {path} is not valid JSON: {e}")


def tokens(text):
    return re.findall(r"[a-z0-9]+", str(text).lower())


# What gpuprobe writes beside a model (compare, roofline, aggregate): never a reference profile.
OUTPUT_SUFFIXES = (".compare.json", ".roofline.json", ".aggregate.json")


def load_references(folder):
    """[(key, name, {id: metric})] of every reference profile (*.json) in `folder`, sorted by key;
    [] when the folder does not exist. A file that is not a profile (a comparison, a roofline or a
    fleet summary written there, any JSON that is not a machine model v2 with metrics) is skipped,
    with a warning on stderr for the latter; a profile with a number that is not published is an
    error."""
    if not os.path.isdir(folder):
        return []
    refs = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json") or name.endswith(OUTPUT_SUFFIXES):
            continue
        path = os.path.join(folder, name)
        doc = load_json(path, "reference profile")
        if not isinstance(doc, dict) or doc.get("schema") != common.SCHEMA \
                or doc.get("schema_version") != 2 or not isinstance(doc.get("metrics"), list):
            print(f"{common.script_name()}: warning: skipped {path}: not a reference profile (a "
                  f"{common.SCHEMA} v2 document with metrics)", file=sys.stderr)
            continue
        metrics = metrics_of(doc, path)
        for m in metrics:
            if m["source"] != "published":
                raise Bad(f"reference profile {path}: {m['id']} is not published")
        device = doc.get("device") if isinstance(doc.get("device"), dict) else {}
        refs.append((name[:-len(".json")], str(device.get("name", name)),
                     {m["id"]: m for m in metrics if m["value"] is not None}))
    return refs


def same_gpu(device_name, refs):
    """The reference whose file name's words (h100-pcie: h100, pcie) all are words of the device
    name; of several, the one with most words; None when none or a tie."""
    words = set(tokens(device_name))
    best, best_n, tie = None, 0, False
    for ref in refs:
        key = tokens(ref[0])
        if key and all(k in words for k in key):
            if len(key) > best_n:
                best, best_n, tie = ref, len(key), False
            elif len(key) == best_n:
                tie = True
    return None if tie else best


def raw_points(model, model_path):
    """The launch/graph and launch/small_kernels points of the run records the model names in
    sources[] (file paths as written, else relative to the model's folder): {probe: [point]}."""
    out = {}
    sources = model.get("sources") if isinstance(model.get("sources"), list) else []
    for s in sources:
        if not isinstance(s, dict) or s.get("probe") not in ("launch/graph", "launch/small_kernels"):
            continue
        path = str(s.get("file", ""))
        for candidate in (path, os.path.join(os.path.dirname(os.path.abspath(model_path)), path),
                          os.path.join(os.path.dirname(os.path.abspath(model_path)), "raw",
                                       os.path.basename(path))):
            if candidate and os.path.isfile(candidate):
                try:
                    with open(candidate, encoding="utf-8") as f:
                        run = json.load(f)
                except (OSError, ValueError):
                    break   # an unreadable record: the fit lines are drawn without its points
                series = run.get("series") if isinstance(run, dict) else None
                if isinstance(series, list):
                    out[s["probe"]] = [p for p in series if isinstance(p, dict)]
                break
    return out


# ---------------------------------------------------------------- verdicts

def verdict(value, lo, hi, better):
    """within / above / below, and (better) or (worse) when the metric has a direction."""
    if lo <= value <= hi:
        return "within"
    side = "above" if value > hi else "below"
    if better in ("higher", "lower"):
        good = (side == "above") == (better == "higher")
        return f"{side} ({'better' if good else 'worse'})"
    return side


# Launch figures are timed on one of two sides (docs/ANALYSIS.md "Is my number normal?"):
# GPU-side, the GPU's time per kernel with the launches queued ahead of it (behind a spin kernel,
# in one graph, or inside one kernel), or host-bound, each launch enqueued by the host while the
# GPU drains them, so that the host's launch rate can set the time. A figure is judged only
# against references timed on its side. gpuprobe's sides, by metric id (probes/launch/
# launch_ops.hpp): host_enqueue and round_trip are host time, graph instantiate and update host
# API time; back_to_back, gap, the PDL offsets, graph launches and launch/small_kernels (queued
# behind a spin) are GPU-side; a small-kernel curve imported from gpu-benches (no probe) was
# enqueued from the host as gpu-benches does (its stream method host-bound).
HOST_BOUND = "host-bound"
GPU_SIDE = "GPU-side"
HOST_SIDE_IDS = ("launch.overhead.host_enqueue_ns", "launch.overhead.round_trip_ns")
# A GPU-side figure and the published host-bound one people compare it with (the same kernels back
# to back on a stream): listed so that the report says there is no GPU-side reference for it.
NEAREST_PUBLISHED = {"launch.overhead.back_to_back_ns": "launch.small_kernels.stream.overhead_ns"}
# Families whose metrics the report lists even where no profile has them ("no published figure":
# new data, no verdict). The reference profiles give no sync figure (FIGURES.md §6: none for
# shfl, vote, __syncwarp and barrier.cluster; the rest are other GPUs or other methods).
UNPUBLISHED_LISTED = ("sync",)


def timing_side(m):
    """HOST_BOUND, GPU_SIDE, "host" (host API time) or None (not a launch figure)."""
    if m.get("family") != "launch":
        return None
    if m.get("source") == "published":
        # make_references.py writes the side first: "published: host-bound: ..." or "GPU-side: ".
        method = m.get("method") or ""
        for side in (HOST_BOUND, GPU_SIDE):
            if method.startswith(f"published: {side}: "):
                return side
        return None
    mid = m["id"]
    if mid in HOST_SIDE_IDS or mid.startswith(("launch.graph.instantiate.", "launch.graph.update.")):
        return "host"
    if mid.startswith("launch.small_kernels.") and not m.get("probe"):
        return HOST_BOUND if mid.startswith("launch.small_kernels.stream.") else GPU_SIDE
    return GPU_SIDE


def normal_rows(metrics, refs, same):
    """One row per metric of the run that some reference has, or that has no published figure
    of its timing side, or of a family listed without one: (metric, same-GPU text, range text,
    verdict, citation)."""
    rows = []
    for m in metrics:
        if m["value"] is None or m["source"] == "published":
            continue
        counterpart = NEAREST_PUBLISHED.get(m["id"], m["id"])
        published = [(key, r[counterpart]) for key, _, r in refs if counterpart in r]
        side = timing_side(m)
        if side is not None:
            other = [(k, p) for k, p in published if timing_side(p) not in (None, side)]
            published = [(k, p) for k, p in published if timing_side(p) in (None, side)]
            if other and not published:
                shown = "; ".join(f"{k} {fmt(p['value'], p['unit'])} {timing_side(p)}" for k, p in other)
                rows.append((m, "-", f"- ({shown})",
                             f"not judged: no {side} reference (the published figures are "
                             f"{' and '.join(sorted({timing_side(p) for _, p in other}))})",
                             "; ".join(f"{k}: {p.get('citation') or '-'}" for k, p in other)))
                continue
        if not published:
            if m.get("family") in UNPUBLISHED_LISTED:
                rows.append((m, "-", "-", "no published figure: new data, not judged", "-"))
            continue
        values = [p["value"] for _, p in published]
        lo, hi = min(values), max(values)
        range_text = (f"{fmt(lo, m['unit'])} to {fmt(hi, m['unit'])} ({len(values)} "
                      f"GPU{'s' if len(values) > 1 else ''}: "
                      f"{', '.join(k for k, _ in published)})")
        own = dict(published).get(same[0]) if same else None
        if own is not None:
            ref = own["value"]
            rel = (m["value"] / ref - 1) * 100 if ref else math.inf
            v = verdict(m["value"], ref * (1 - SAME_GPU_TOLERANCE), ref * (1 + SAME_GPU_TOLERANCE),
                        m.get("better"))
            v += f": {rel:+.0f}% vs {same[0]}"
            same_text = fmt(ref, m["unit"])
            citation = own.get("citation") or "-"
        else:
            v = verdict(m["value"], lo, hi, m.get("better")) + ": vs the published range"
            same_text = "-"
            citation = "; ".join(f"{k}: {p.get('citation') or '-'}" for k, p in published)
        rows.append((m, same_text, range_text, v, citation))
    return rows


# ---------------------------------------------------------------- the document

class Doc:
    """Blocks rendered twice, to Markdown and to HTML."""

    def __init__(self):
        self.blocks = []

    def h(self, level, text):
        self.blocks.append(("h", level, text))

    def p(self, text):
        self.blocks.append(("p", text))

    def banner(self, text):
        self.blocks.append(("banner", text))

    def table(self, head, rows):
        self.blocks.append(("table", head, rows))

    def image(self, name, caption, png):
        self.blocks.append(("img", name, caption, png))


def md_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_md(doc, image_files):
    out = []
    for b in doc.blocks:
        if b[0] == "h":
            out.append("#" * b[1] + " " + b[2])
        elif b[0] == "p":
            out.append(b[1])
        elif b[0] == "banner":
            out.append(f"> **{b[1]}**")
        elif b[0] == "table":
            out.append("| " + " | ".join(md_cell(c) for c in b[1]) + " |")
            out.append("|" + "---|" * len(b[1]))
            out += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in b[2]]
        elif b[0] == "img":
            out.append(f"![{b[2]}]({image_files[b[1]]})")
        out.append("")
    return "\n".join(out)


CSS = """body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:90%;display:block;overflow-x:auto}
.within{background:#dff0d8}.better{background:#d9edf7}.worse{background:#f8d7da}
td,th{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#eee}img{max-width:100%;display:block;margin:.5em 0}
.banner{background:#fbe3a1;border:2px solid #c90;padding:.6em;font-weight:bold}
figcaption{font-size:85%;color:#555}"""

# Records on load how many images there are, how many decoded (complete, naturalWidth > 0) and
# every error event or console.error: the browser test (tests/scripts/test_report_html.py) reads
# these attributes of <html> from the DOM headless Chromium dumps.
SELF_CHECK_JS = """(function(){var errors=[];var root=document.documentElement;
window.addEventListener('error',function(e){var t=e.target;errors.push(e.message||
('cannot load '+(t&&t.tagName?t.tagName:'resource')));},true);
var ce=console.error;console.error=function(){errors.push(Array.prototype.join.call(arguments,' '));
return ce.apply(console,arguments);};
window.addEventListener('load',function(){var imgs=document.images,ok=0;
for(var i=0;i<imgs.length;i++){if(imgs[i].complete&&imgs[i].naturalWidth>0)ok++;}
root.setAttribute('data-images',String(imgs.length));root.setAttribute('data-images-loaded',String(ok));
root.setAttribute('data-errors',String(errors.length));root.setAttribute('data-error-text',errors.join(' | '));
root.setAttribute('data-self-check','done');});})();"""


def verdict_class(cell):
    """A verdict cell's colour: within, better or worse (CSS classes of the same names)."""
    text = str(cell)
    for prefix, cls in (("within:", "within"), ("above (better)", "better"),
                        ("below (better)", "better"), ("above (worse)", "worse"),
                        ("below (worse)", "worse")):
        if text.startswith(prefix):
            return f' class="{cls}"'
    return ""


def render_html(doc, title):
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{e(title)}</title>", f"<script>{SELF_CHECK_JS}</script>",
           f"<style>{CSS}</style>", "</head>", "<body>"]
    for b in doc.blocks:
        if b[0] == "h":
            out.append(f"<h{b[1]}>{e(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            out.append(f"<p>{e(b[1])}</p>")
        elif b[0] == "banner":
            out.append(f'<p class="banner">{e(b[1])}</p>')
        elif b[0] == "table":
            out.append("<table><thead><tr>" + "".join(f"<th>{e(str(c))}</th>" for c in b[1])
                       + "</tr></thead><tbody>")
            out += ["<tr>" + "".join(f"<td{verdict_class(c)}>{e(str(c))}</td>" for c in row)
                    + "</tr>" for row in b[2]]
            out.append("</tbody></table>")
        elif b[0] == "img":
            data = base64.b64encode(b[3]).decode("ascii")
            out.append(f'<figure><img alt="{e(b[2])}" src="data:image/png;base64,{data}">'
                       f"<figcaption>{e(b[2])}</figcaption></figure>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


# ---------------------------------------------------------------- rows

def provenance(m):
    """The provenance cell: the source, then the checks behind the probe (or the citation)."""
    if m["source"] == "published":
        return f"published: {m.get('citation') or 'no citation'}"
    checks = m.get("checks") or []
    return f"{m['source']}: " + (", ".join(checks) if checks else "no checks")


def per_clock(m):
    p = m.get("per_sm_per_clock")
    if not p or p.get("value") is None:
        return "-"
    return f"{num(p['value'])} {p.get('unit', '')}".strip()


def metric_table(doc, metrics, empty):
    if not metrics:
        doc.p(empty)
        return
    rows = []
    for m in metrics:
        clock = f"{num(m['clock_mhz'])} MHz" if isinstance(m.get("clock_mhz"), (int, float)) else "-"
        conf = num(m["confidence"]) if isinstance(m.get("confidence"), (int, float)) else "-"
        rows.append((m.get("label") or m["id"], fmt(m["value"], m["unit"]), per_clock(m),
                     m["samples"] if m.get("samples") is not None else "-", conf, clock,
                     m.get("method") or "-", provenance(m)))
    doc.table(("metric", "value", "per SM per clock", "samples", "confidence", "SM clock",
               "method", "provenance"), rows)


def figure_png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def embed_drawing(doc, plt, size, draw, where, image, empty):
    """One figure of `size` drawn by draw(ax) (a plot script's drawing function) embedded as
    image = (name, caption), or the paragraph `empty` when draw finds nothing to draw."""
    fig, ax = plt.subplots(figsize=size)
    try:
        drawn = draw(ax)
    except common.Malformed as e:
        raise Bad(f"{where}: {e}")
    if drawn:
        fig.tight_layout()
        doc.image(image[0], image[1], figure_png(fig))
    else:
        doc.p(empty)
    plt.close(fig)


# ---------------------------------------------------------------- sections

def header(doc, model, metrics, model_path):
    device = model.get("device") if isinstance(model.get("device"), dict) else {}
    name = str(device.get("name", "unknown device"))
    doc.h(1, f"gpuprobe report: {name}")
    if model.get("simulated") is True:
        doc.banner("SIMULATED DEVICE: every number below comes from a model of the machine "
                   f"(preset '{device.get('sim_preset', '?')}'), not from a measurement of real "
                   "hardware.")
    clocks = sorted(m["clock_mhz"] for m in metrics if isinstance(m.get("clock_mhz"), (int, float))
                    and m["source"] != "published")
    clock = f"{num(clocks[len(clocks) // 2])} MHz (median of the metrics' clocks)" if clocks \
        else "not measured"
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc.table(("", ""), [
        ("device", name),
        ("SMs", device.get("sm_count", "-")),
        ("compute capability", device.get("compute_capability", "-")),
        ("rated SM clock", f"{num(device['rated_sm_clock_mhz'])} MHz"
         if isinstance(device.get("rated_sm_clock_mhz"), (int, float)) else "-"),
        ("SM clock measured at", clock),
        ("source", "simulated" if model.get("simulated") is True else "measured"),
        ("gpuprobe version", model.get("gpuprobe_version", "-")),
        ("model written", model.get("created_utc", "-")),
        ("report written", now),
        ("model file", os.path.basename(model_path)),
    ])
    sources = model.get("sources") if isinstance(model.get("sources"), list) else []
    left = [(str(x.get("probe", "?")), str(x.get("status", "?")),
             str(x.get("skip_reason") or x.get("error") or "-"))
            for x in sources if isinstance(x, dict) and x.get("status") != "ok"]
    if left:
        doc.p("Probes that gave no complete result (their sections say not measured):")
        doc.table(("probe", "status", "reason"), left)
    warnings = model.get("warnings") if isinstance(model.get("warnings"), list) else []
    for w in warnings:
        doc.p(f"Warning: {w}")


def is_it_normal(doc, metrics, refs, ref_folder, device_name):
    doc.h(2, "Is my number normal?")
    if not refs:
        doc.p(f"not measured: no published reference profiles in {ref_folder}")
        return
    same = same_gpu(device_name, refs)
    doc.p("Each number of this run that a published reference profile also has, against the "
          "published figure of the same GPU ("
          + (f"{same[0]}: {same[1]}" if same else "none matches this device's name")
          + f"; within means within {SAME_GPU_TOLERANCE * 100:.0f}% of it) and against the range "
          f"of all {len(refs)} published profiles (within means inside [min, max] when no "
          "profile is of this GPU). Published figures are cited, never measured here. A launch "
          "figure is judged only against references timed on its side (GPU-side: the launches "
          "queued ahead of the GPU; host-bound: enqueued by the host as the GPU drains them), or "
          "says it has none; a sync figure no profile has is listed as new data, not judged.")
    rows = normal_rows(metrics, refs, same)
    if not rows:
        doc.p("not measured: no metric of this run has a published counterpart")
        return
    doc.table(("metric", "this GPU", "published, same GPU", "published range", "verdict",
               "citation", "provenance"),
              [(m.get("label") or m["id"], fmt(m["value"], m["unit"]), s, r, v, c, provenance(m))
               for m, s, r, v, c in rows])


def latency_structure(doc, model, plt, draws, points):
    doc.h(3, "Latency curve")
    embed_drawing(doc, plt, (10, 5.5), lambda ax: draws["latency"](ax, model), "memory",
                  ("latency", "latency against footprint, fitted levels"),
                  "not measured: the model has no latency curve")


def bandwidth_structure(doc, model, plt, draws, points):
    doc.h(3, "Bandwidth curves")
    try:
        figs = draws["bandwidth"](model, plt)
    except common.Malformed as e:
        raise Bad(f"bandwidth: {e}")
    if not figs:
        doc.p("not measured: the model has no bandwidth sweep")
    for name, fig in figs:
        doc.image(name, name.replace("-", " "), figure_png(fig))
        plt.close(fig)


def roofline_doc(model, roofline_path, model_path):
    """The roofline to draw: --roofline, else MODEL.roofline.json, else the model's section."""
    path = roofline_path
    if path is None:
        stem = os.path.splitext(os.path.abspath(model_path))[0]
        if os.path.isfile(stem + ".roofline.json"):
            path = stem + ".roofline.json"
    if path is not None:
        doc = load_json(path, "roofline")
        if not isinstance(doc, dict) or doc.get("schema") != "gpuprobe.roofline" \
                or doc.get("schema_version") != 1:
            raise Bad(f"{path} is not a gpuprobe.roofline v1 document (gpuprobe roofline writes one)")
        return doc, os.path.basename(path)
    if isinstance(model.get("roofline"), dict):
        return {"roofline": model["roofline"], "kernels": [], "device": model.get("device"),
                "simulated": model.get("simulated")}, "the model's roofline section"
    return None, None


def roofline_section(doc, model, roof, where, plt, draws):
    doc.h(2, "Roofline")
    if roof is None:
        doc.p("not measured: the model has no roofline (run compute/alu and the bandwidth probes)")
        return None
    embed_drawing(doc, plt, (9, 6), lambda ax: draws["roofline"](ax, roof), f"roofline ({where})",
                  ("roofline", f"hierarchical roofline ({where})"),
                  "not measured: the roofline has neither a compute nor a memory ceiling")
    src = "simulated" if model.get("simulated") is True else "measured"
    rows = []
    for k in roof.get("kernels") or []:
        if not isinstance(k, dict):
            continue
        bound = k.get("bound") if isinstance(k.get("bound"), dict) else {}
        rows.append((k.get("name", "?"), k.get("precision", "-"),
                     fmt(k.get("achieved_flops_per_s"), k.get("unit", "flop/s")),  # op/s: an integer one
                     fmt(k.get("attainable_flops_per_s"), k.get("unit", "flop/s")), bound.get("name", "-"),
                     fmt(k.get("percent_of_attainable"), "percent"),
                     f"kernel input ({k.get('source', '?')}) against {src} ceilings"))
    if rows:
        doc.table(("kernel", "precision", "achieved", "attainable", "bound", "% of attainable",
                   "provenance"), rows)
    return roof


def launch_figure(model, points, plt):
    """t = a + b n per graph measure and T = a + V/b per small-kernel method, lines with the run
    records' points; None when the launch section holds neither fit."""
    launch = model.get("launch") if isinstance(model.get("launch"), dict) else {}
    graph = launch.get("graph") if isinstance(launch.get("graph"), dict) else {}
    small = launch.get("small_kernels") if isinstance(launch.get("small_kernels"), dict) else {}
    graph_fits = {k: v for k, v in graph.items() if isinstance(v, dict)
                  and isinstance(v.get("per_node_ns"), (int, float))
                  and isinstance(v.get("per_graph_ns"), (int, float))}
    small_fits = {k: v for k, v in small.items() if isinstance(v, dict)
                  and isinstance(v.get("overhead_ns"), (int, float))}
    if not graph_fits and not small_fits:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ax = axes[0]
    gpoints = points.get("launch/graph", [])
    for measure, fit in sorted(graph_fits.items()):
        pts = [(p["nodes"], p["ns"]) for p in gpoints if p.get("measure") == measure
               and isinstance(p.get("nodes"), (int, float)) and isinstance(p.get("ns"), (int, float))]
        ns = [n for n, _ in pts] or [1, 128]
        grid = [min(ns) + (max(ns) - min(ns)) * i / 50 for i in range(51)]
        line, = ax.plot(grid, [(fit["per_graph_ns"] + fit["per_node_ns"] * n) / 1000 for n in grid],
                        "-", label=f"{measure}: {num(fit['per_graph_ns'] / 1000)} us + "
                                   f"{num(fit['per_node_ns'] / 1000)} us x n")
        if pts:
            ax.plot([n for n, _ in pts], [t / 1000 for _, t in pts], "o", ms=4,
                    color=line.get_color())
    ax.set_xlabel("kernel nodes per graph (n)")
    ax.set_ylabel("time (us)")
    ax.set_title("CUDA graphs: t = a + b n" if graph_fits else "CUDA graphs: not measured")
    ax.grid(True, alpha=0.3)
    if graph_fits:
        ax.legend(fontsize=8)
    ax = axes[1]
    spoints = points.get("launch/small_kernels", [])
    for method, fit in sorted(small_fits.items()):
        pts = [(p["bytes"], p["ns"]) for p in spoints if p.get("method") == method
               and isinstance(p.get("bytes"), (int, float)) and isinstance(p.get("ns"), (int, float))
               and p["bytes"] > 0]
        bw = fit.get("bytes_per_s")
        lo = fit.get("smallest_bytes") or (min(v for v, _ in pts) if pts else 65536)
        hi = lo * (fit.get("window") or 4)
        grid = [lo * (hi / lo) ** (i / 40) for i in range(41)]
        label = f"{method}: {num(fit['overhead_ns'])} ns"
        if isinstance(bw, (int, float)) and bw > 0:
            label += f" + V / {fmt(bw, 'bytes/s')}"
            ys = [fit["overhead_ns"] + v / bw * 1e9 for v in grid]
        else:
            ys = [fit["overhead_ns"]] * len(grid)
        line, = ax.plot(grid, ys, "-", label=label)
        if pts:
            ax.plot([v for v, _ in pts], [t for _, t in pts], "o", ms=4, color=line.get_color())
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes per pass V (1 KiB = 1024 B; the fit spans the window)")
    ax.set_ylabel("time per pass (ns)")
    ax.set_title("small kernels: T = a + V/b" if small_fits else "small kernels: not measured")
    ax.grid(True, which="both", alpha=0.3)
    if small_fits:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def launch_structure(doc, model, plt, draws, points):
    doc.h(3, "Launch model")
    fig = launch_figure(model, points, plt)
    if fig is None:
        doc.p("not measured: the model has no launch fit (launch/graph, launch/small_kernels)")
    else:
        doc.image("launch", "launch model: fits (lines) and the run records' points", figure_png(fig))
        plt.close(fig)
        if not points:
            doc.p("The run records were not found next to the model: the fits are drawn without "
                  "their points.")


def goodput_structure(doc, model, plt, draws, points):
    doc.h(3, "The model's predictions against reference kernels")
    section = model.get("goodput") if isinstance(model.get("goodput"), dict) else {}
    kernels = [k for k in section.get("kernels", []) if isinstance(k, dict)] \
        if isinstance(section.get("kernels"), list) else []
    src = "simulated" if model.get("simulated") is True else "measured"

    def seconds(v):
        return fmt(v * 1e9, "ns") if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"

    def error(k):   # signed when the model gives the sign (> 0: the prediction is slower)
        v = k.get("signed_error_percent", k.get("error_percent"))
        return f"{v:+.1f}%" if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"

    def prov(k):
        check = f"; self-check {k['self_check']}" if isinstance(k.get("self_check"), str) else ""
        return f"{src}: the kernel's time{check}; predicted from the model's other sections"
    if kernels:
        doc.table(("kernel", "measured", "predicted", "error", "bound", "method", "provenance"),
                  [(k.get("name", "?"), seconds(k.get("measured_s")), seconds(k.get("predicted_s")),
                    error(k), k.get("bound") or "-", k.get("method") or "-", prov(k))
                   for k in kernels])
    else:
        doc.p("not measured: the model has no goodput section")
    skipped = section.get("skipped") if isinstance(section.get("skipped"), dict) else {}
    for name, why in sorted(skipped.items()):
        doc.p(f"{name}: not measured: {why}")
    cublas = section.get("cublas") if isinstance(section.get("cublas"), dict) else None
    if cublas and "skipped" in cublas:
        doc.p(f"cuBLAS GEMM: not measured: {cublas['skipped']}")
    elif cublas:
        doc.table(("cuBLAS GEMM", "throughput", "% of the measured tensor peak", "tensor peak",
                   "provenance"),
                  [(f"{cublas.get('precision', '?')} {cublas.get('m', '?')}x{cublas.get('n', '?')}"
                    f"x{cublas.get('k', '?')} ({cublas.get('library') or 'cuBLAS'})",
                    fmt(cublas.get("flops_per_s"), "flop/s"),
                    fmt(cublas.get("percent_of_tensor_peak"), "percent"),
                    f"{fmt(cublas.get('tensor_peak_flops_per_s'), 'flop/s')} "
                    f"({cublas.get('tensor_peak_from') or '-'})",
                    f"{src}: cuBLAS's time; the peak from this model")])


# The structure a metric cannot hold, drawn where a family's model section has it (by the
# section's key): the latency curve, the bandwidth curves, the launch fits, goodput's predictions.
STRUCTURE = {"memory": latency_structure, "bandwidth": bandwidth_structure,
             "launch": launch_structure, "goodput": goodput_structure}


def model_families(model, metrics):
    """The families of the model, in their order: its `families` (gpuprobe writes them), else the
    families its metrics name (a published profile), titled by their name."""
    listed = model.get("families")
    if isinstance(listed, list) and all(isinstance(f, dict) and isinstance(f.get("name"), str)
                                        for f in listed):
        return [{"name": f["name"], "title": f.get("title") or f["name"],
                 "section": f.get("section") or f["name"]} for f in listed]
    names = []
    for m in metrics:
        if m.get("family") not in names and m.get("family") != "roofline":
            names.append(m.get("family"))
    return [{"name": n, "title": str(n).capitalize(), "section": n} for n in names]


def family_sections(doc, model, metrics, plt, draws, points):
    """One section per family of the model: its structure printer, if its section has one, then
    its metrics."""
    listed = model_families(model, metrics)
    if not listed:
        doc.p("not measured: the model holds no family's section")
    for fam in listed:
        doc.h(2, fam["title"])
        if fam["section"] in STRUCTURE:
            STRUCTURE[fam["section"]](doc, model, plt, draws, points)
        doc.h(3, "Metrics")
        metric_table(doc, [m for m in metrics if m["family"] == fam["name"]],
                     f"not measured: no {fam['name']} metric")


def derived_section(doc, model, metrics, roof):
    doc.h(2, "Derived figures")
    doc.h(3, "Per SM per clock")
    metric_table(doc, [m for m in metrics if m.get("per_sm_per_clock")
                       and m["per_sm_per_clock"].get("value") is not None],
                 "not measured: no metric has a per-SM-per-clock figure")
    doc.h(3, "Percent of the datasheet")
    rows = []
    for m in metrics:
        d = m.get("datasheet")
        if not d or d.get("value") is None:
            continue
        # A figure quoted at a clock is compared per SM per clock: the column names the clock.
        sheet = fmt(d["value"], d.get("unit") or m["unit"])
        if isinstance(d.get("clock_mhz"), (int, float)):
            sheet += f" at {d['clock_mhz']:.0f} MHz" + (f" ({d['clock']})" if d.get("clock") else "")
        rows.append((m.get("label") or m["id"], fmt(m["value"], m["unit"]), sheet,
                     fmt(d.get("percent"), "percent"), d.get("source") or "-", provenance(m)))
    if rows:
        doc.table(("metric", "this GPU", "datasheet", "% of datasheet", "datasheet source",
                   "provenance"), rows)
    else:
        doc.p("not measured: no metric has a datasheet figure for this GPU")
    doc.h(3, "Ridge points")
    ridges = [m for m in metrics if m["family"] == "roofline" and "ridge" in m["id"]]
    if ridges:   # metrics[] has them: each with its provenance
        metric_table(doc, ridges, "")
    src = "simulated" if model.get("simulated") is True else "measured"
    rows = []
    compute = (roof or {}).get("roofline", {}).get("compute", {}) if roof else {}
    for prec, c in sorted(compute.items()) if isinstance(compute, dict) else []:
        if not isinstance(c, dict) or not isinstance(c.get("ridge_points"), dict):
            continue
        for level, r in c["ridge_points"].items():
            if isinstance(r, dict) and isinstance(r.get("flop_per_byte"), (int, float)):
                # An integer precision's ceiling counts operations, not FLOP (metrics: op/byte).
                per = "OP/byte" if prec in INTEGER_PRECISIONS else "FLOP/byte"
                rows.append((prec, level, f"{num(r['flop_per_byte'])} {per}",
                             f"{src}: {c.get('source', '?')} / the {level} bandwidth"))
    if ridges:
        pass
    elif rows:   # a model without metrics[]: from its roofline section
        doc.table(("precision", "memory level", "ridge point", "provenance"), rows)
    else:
        doc.p("not measured: no compute and memory ceiling to meet")
    doc.h(3, "Bytes in flight per SM for 90% of the peak")
    metric_table(doc, [m for m in metrics if "bytes_in_flight" in m["id"]],
                 "not measured: no concurrency sweep")


def legend(doc):
    doc.h(2, "Provenance")
    doc.p("Every row says where its number comes from and which checks stand behind its probe.")
    doc.table(("source or check", "meaning"),
              [(k, v) for k, v in SOURCE_TEXT.items()] + [(k, v) for k, v in CHECK_TEXT.items()])


def build(model, model_path, roofline_path, ref_folder, plt, draws):
    metrics = metrics_of(model, model_path)
    refs = load_references(ref_folder)
    roof, where = roofline_doc(model, roofline_path, model_path)
    device = model.get("device") if isinstance(model.get("device"), dict) else {}
    doc = Doc()
    header(doc, model, metrics, model_path)
    if not metrics:
        doc.p("This model has no metrics[] table (a machine model of schema version 1): the "
              "tables say not measured; the plots come from its sections.")
    is_it_normal(doc, metrics, refs, ref_folder, device.get("name", ""))
    family_sections(doc, model, metrics, plt, draws, raw_points(model, model_path))
    roofline_section(doc, model, roof, where, plt, draws)
    derived_section(doc, model, metrics, roof)
    legend(doc)
    return doc, str(device.get("name", "unknown device"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="machine model JSON (gpuprobe run-all / analyze)")
    parser.add_argument("--roofline", help="gpuprobe roofline output (default: MODEL.roofline.json "
                        "next to the model, else the model's roofline section)")
    parser.add_argument("--references", default=DEFAULT_REFERENCES,
                        help="folder of published reference profiles (default results/reference)")
    parser.add_argument("--out-prefix", help="P: writes P.report.md, P.report.html (default: "
                        "report.md, report.html in the model's folder)")
    args = parser.parse_args()
    model = common.load_model(args.model)
    if args.out_prefix:
        base = args.out_prefix + ".report"
    else:
        base = os.path.join(os.path.dirname(os.path.abspath(args.model)), "report")
    common.output_folder_or_fail(base)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        common.fail(f"matplotlib is not installed for {sys.executable} "
                    "(scripts/setup.sh installs it into .venv)")
    import plot_bandwidth
    import plot_latency
    import plot_roofline
    draws = {"latency": plot_latency.draw, "bandwidth": plot_bandwidth.figures,
             "roofline": plot_roofline.draw}
    try:
        doc, name = build(model, args.model, args.roofline, args.references, plt, draws)
        images = {}
        for b in doc.blocks:
            if b[0] == "img":
                images[b[1]] = f"{base}-{b[1]}.png"
                common.write_bytes_atomically(images[b[1]], b[3])
        md_links = {k: os.path.basename(v) for k, v in images.items()}
        common.write_bytes_atomically(base + ".md", render_md(doc, md_links).encode("utf-8"))
        html = render_html(doc, f"gpuprobe report: {name}")
        common.write_bytes_atomically(base + ".html", html.encode("utf-8"))
    except Bad as e:
        common.fail(str(e))
    print(f"wrote {base}.md")
    print(f"wrote {base}.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
