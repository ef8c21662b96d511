#!/usr/bin/env python3
"""Tests results/reference/*.json, the published profiles `gpuprobe compare` reads: each is what
make_references.py writes, a machine model v2 marked "source": "published" whose every metric is
published (never measured) with all the fields of the metrics contract, a citation whose source
tag is a key of docs/FIGURES.md and whose number that section of FIGURES.md states."""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

FIELDS = {"id", "family", "label", "value", "unit", "better", "ceiling", "method", "probe", "samples",
          "confidence", "clock_mhz", "source", "checks", "citation", "per_sm_per_clock", "datasheet"}
CITATION = re.compile(r"^FIGURES\.md §(\d+[a-z]?) (.+) \[([A-Za-z0-9-]+)\]$")
check = Checks("reference_profiles")


def sections(figures):
    """{'2': text, '2c': text, ...}: each numbered heading's text up to the next heading of its level
    or above (a section holds its subsections)."""
    out, lines = {}, figures.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(#+) (\d+[a-z]?)\. ", line)
        if not m:
            continue
        level, end = len(m.group(1)), len(lines)
        for j in range(i + 1, len(lines)):
            n = re.match(r"^(#+) ", lines[j])
            if n and len(n.group(1)) <= level:
                end = j
                break
        out[m.group(2)] = "\n".join(lines[i:end])
    return out


def stated(value, text):
    """Whether `value`, in one of the scales FIGURES.md writes (as is, 1e3, 1e9, 1e12, KiB, MiB,
    GiB), appears in `text` as a number of its own."""
    for scale in (1, 1e3, 1e9, 1e12, 1024, 1024 ** 2, 1024 ** 3):
        v = value / scale
        forms = {f"{v:g}", f"{v:.1f}", f"{v:.2f}", f"{v:,.0f}" if v >= 1000 and v == int(v) else f"{v:g}"}
        for form in forms:
            if re.search(r"(?<![\d.])" + re.escape(form) + r"(?![\d])", text):
                return True
    return False


def main():
    args = test_args(__doc__.splitlines()[0])
    ref = os.path.join(args.source_dir, "results", "reference")
    r = subprocess.run([sys.executable, os.path.join(ref, "make_references.py"), "--check"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"make_references.py --check: {r.stderr.strip()}")
    figures = open(os.path.join(args.source_dir, "docs", "FIGURES.md"), encoding="utf-8").read()
    keys = set(re.findall(r"^\* (?:.*?)\[([A-Za-z0-9-]+)\]", figures, re.M))
    keys |= set(re.findall(r"\[([A-Za-z0-9-]+)\]", figures.split("## Sources", 1)[1]))
    by_section = sections(figures)
    files = sorted(glob.glob(os.path.join(ref, "*.json")))
    names = {os.path.basename(f)[:-5] for f in files}
    check({"v100", "a100", "h100", "h200", "l40", "b200"} <= names, f"profiles missing: {sorted(names)}")
    for path in files:
        name = os.path.basename(path)
        doc = json.load(open(path, encoding="utf-8"))
        check(doc.get("schema") == "gpuprobe.machine_model" and doc.get("schema_version") == 2,
              f"{name}: not a machine model v2")
        check(doc.get("source") == "published", f"{name}: top-level source is not published")
        device = doc.get("device", {})
        for k in ("name", "sm_count", "rated_sm_clock_mhz", "compute_capability"):
            check(device.get(k) is not None, f"{name}: device.{k} missing")
        metrics = doc.get("metrics", [])
        check(len(metrics) >= 5, f"{name}: only {len(metrics)} metrics")
        ids = [m.get("id") for m in metrics]
        check(len(ids) == len(set(ids)), f"{name}: an id twice")
        for m in metrics:
            where = f"{name}: {m.get('id')}"
            check(set(m) == FIELDS, f"{where}: fields {sorted(set(m) ^ FIELDS)} differ from the contract")
            check(m.get("source") == "published", f"{where}: source {m.get('source')!r}, not published")
            check("measured" not in str(m.get("source")), f"{where}: says measured")
            check(m.get("probe") is None and m.get("checks") == [], f"{where}: a probe or checks on a published figure")
            c = CITATION.match(str(m.get("citation")))
            check(c is not None, f"{where}: citation {m.get('citation')!r} is not 'FIGURES.md §N <row> [TAG]'")
            if not c:
                continue
            section, tag = c.group(1), c.group(3)
            check(tag in keys, f"{where}: [{tag}] is no source key of docs/FIGURES.md")
            check(f"[{tag}" in by_section.get(section, ""), f"{where}: [{tag}] does not appear in §{section}")
            check(section in by_section and stated(m["value"], by_section[section]),
                  f"{where}: {m['value']} is not stated in docs/FIGURES.md §{section}")
            p = m.get("per_sm_per_clock")
            if p is not None:
                expect = m["value"] / (device["sm_count"] * m["clock_mhz"] * 1e6)
                check(abs(p["value"] - expect) <= 1e-4 * expect + 1e-4,
                      f"{where}: per_sm_per_clock {p['value']} is not value / (SMs x clock) = {expect:.4f}")
    # The test must be able to fail: a number FIGURES.md does not state is caught.
    check(not stated(123.456e12, by_section.get("1", "")), "stated() accepts a number §1 does not hold")
    print(f"reference_profiles: {len(files)} reference profiles")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
