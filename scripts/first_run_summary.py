#!/usr/bin/env python3
"""Writes WORK/summary.json, the manifest of a scripts/first-run.sh run (WORK is its first-run/
folder), from what the run left there: steps.tsv, the smoke and sanitizer logs, run-all's
records under run/raw/ and their self-check sidecars (`<record stem>.selfcheck/<op>.json`), the
calibration records and the telemetry. Per family: its status (passed, failed, timed out,
skipped, not run), the points run-all measured and those that failed, the failures, the seconds
its smoke and sanitizer steps took, its logs and its sidecars' paths (relative to WORK, as they
lie in first-run.tar.gz under first-run/). Standard library only: the GPU machine's python3.

    first_run_summary.py --work DIR --device DEV --budget S --wall S --nvidia-smi 0|1
                         --cuobjdump PATH --sanitizer PATH
"""
import argparse
import csv
import datetime
import glob
import json
import os
import re
import shutil
import statistics
import sys

# The smoke families of first-run.sh, in its order, and the run-all probes each one covers.
FAMILIES = [
    ("memory", ("memory/",)),
    ("tensor-mma", ("tensor/mma",)),
    ("tensor-wgmma", ("tensor/wgmma",)),
    ("tensor-tcgen05", ("tensor/tcgen05",)),
    ("async", ("async/",)),
    ("sync", ("sync/",)),
    ("atomics", ("atomics/",)),
    ("launch", ("launch/",)),
    ("compute", ("compute/",)),
    ("bandwidth", ("bandwidth/dram", "bandwidth/l1", "bandwidth/l2", "bandwidth/shared")),
    ("bandwidth-loaded", ("bandwidth/loaded_latency",)),
    ("goodput", ("goodput/",)),  # no smoke test: run-all only
]
SKIPPED_MARKER = "GPUPROBE-TEST-SKIPPED"
MAX_FAILURES = 20


def family_of(probe):
    for name, prefixes in FAMILIES:
        if any(probe.startswith(p) for p in prefixes):
            return name
    return None


def read(path, limit=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read() if limit is None else f.read(limit)
    except OSError:
        return None


def steps(work):
    rows = []
    text = read(os.path.join(work, "steps.tsv")) or ""
    for line in text.splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) != 5:
            continue
        name, rc, seconds, cap, log = cols
        rows.append({"name": name, "exit_code": None if rc == "none" else int(rc),
                     "seconds": int(seconds), "cap_s": int(cap), "log": log,
                     "ran": rc != "none"})
    return rows


def catch2(text):
    """Assertions, test cases and the first failures of a Catch2 log."""
    out = {"assertions_passed": None, "assertions_failed": None, "test_cases": None}
    m = re.search(r"All tests passed \((\d+) assertions? in (\d+) test cases?\)", text)
    if m:
        out.update(assertions_passed=int(m.group(1)), assertions_failed=0, test_cases=int(m.group(2)))
    m = re.search(r"assertions:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed", text)
    if m:
        out.update(assertions_passed=int(m.group(2)), assertions_failed=int(m.group(3)))
    m = re.search(r"test cases:\s*(\d+) \|", text)
    if m:
        out["test_cases"] = int(m.group(1))
    failures = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(r":\d+: FAILED:$", line) or "FAILED:" == line.strip():
            block = [line.strip()]
            for nxt in lines[i + 1:i + 12]:
                if re.search(r":\d+: (FAILED|PASSED):$", nxt) or nxt.startswith("-----") or nxt.startswith("====="):
                    break
                if nxt.strip():
                    block.append(nxt.strip())
            failures.append(" ".join(block)[:600])
            if len(failures) == MAX_FAILURES:
                break
    if "No test cases matched" in text or "No tests ran" in text:
        failures.insert(0, "no test case matches the family's pattern (a renamed smoke test?)")
    out["failures"] = failures
    skipped = [ln.split(SKIPPED_MARKER, 1)[1].lstrip(": ").strip() for ln in lines if SKIPPED_MARKER in ln]
    out["skipped_because"] = sorted(set(skipped)) or None
    return out


def sanitizer(text):
    if text is None:
        return None
    m = re.search(r"ERROR SUMMARY:\s*(\d+) errors?", text)
    first = [ln.strip() for ln in text.splitlines() if ln.startswith("=========") and "ERROR SUMMARY" not in ln]
    return {"errors": int(m.group(1)) if m else None, "first_lines": first[:12]}


def point_failed(p):
    sc = p.get("self_check")
    return (p.get("status") == "failed" or p.get("failed") is True or sc == "failed"
            or (isinstance(sc, dict) and sc.get("passed") is False))


def records(work):
    """Per family: run-all's records, points measured, failed and skipped, and sidecars."""
    per = {}
    raw = os.path.join(work, "run", "raw")
    for path in sorted(glob.glob(os.path.join(raw, "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                rec = json.load(f)
        except (OSError, ValueError) as e:
            per.setdefault("unknown", {"records": []})["records"].append(
                {"file": os.path.relpath(path, work), "error": f"unreadable: {e}"})
            continue
        probe = str(rec.get("probe", ""))
        fam = family_of(probe) or "unknown"
        series = rec.get("series") if isinstance(rec.get("series"), list) else []
        measured = [p for p in series if isinstance(p, dict) and "skipped" not in p]
        failed = [p for p in measured if point_failed(p)]
        stem = os.path.splitext(path)[0]
        sidecars = sorted(os.path.relpath(s, work) for s in glob.glob(stem + ".selfcheck/*"))
        entry = {"file": os.path.relpath(path, work), "probe": probe, "status": rec.get("status"),
                 "points": len(measured), "failed_points": len(failed),
                 "skipped_points": len(series) - len(measured), "sidecars": sidecars}
        if rec.get("error"):
            entry["error"] = str(rec["error"])[:600]
        entry["failures"] = [f"{probe} {p.get('op', p.get('footprint_bytes', ''))}: "
                             f"{json.dumps(p.get('self_check', p.get('error', 'failed')))[:400]}"
                             for p in failed[:MAX_FAILURES]]
        per.setdefault(fam, {"records": []})["records"].append(entry)
    return per


def clocks(rec):
    """The median region SM clock of a record's measured points, and its post-run spin clock."""
    if not isinstance(rec, dict):
        return None
    region = [p["region_sm_clock_mhz"] for p in rec.get("series", [])
              if isinstance(p, dict) and isinstance(p.get("region_sm_clock_mhz"), (int, float))]
    spin = rec.get("sm_clock_mhz") if isinstance(rec.get("sm_clock_mhz"), dict) else {}
    return {"region_sm_clock_mhz": statistics.median(region) if region else None,
            "spin_before_mhz": spin.get("before"), "spin_after_mhz": spin.get("after")}


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def calibration(work, step_rows):
    cal = os.path.join(work, "calibration")
    before, load, after = (load_json(os.path.join(cal, n + ".json")) for n in ("before", "load", "after"))
    out = {"method": "memory/chase at one 16 KiB footprint (20 ms timed regions, %clock64 against "
                     "%globaltimer) before and after a fixed-size load at full occupancy",
           "before": clocks(before), "after": clocks(after), "load": None, "change_percent": None}
    if load:
        pts = [p for p in load.get("series", []) if isinstance(p, dict) and "skipped" not in p]
        sec = next((s["seconds"] for s in step_rows if s["name"] == "calibration-load"), None)
        out["load"] = {"probe": load.get("probe"), "op": pts[0].get("op") if pts else None,
                       "seconds": sec, **(clocks(load) or {}),
                       "rate_per_clk_per_sm": next((p.get("flops_per_clk_per_sm", p.get("ops_per_clk_per_sm"))
                                                    for p in pts if p.get("kind") == "throughput"), None)}
    b = (out["before"] or {}).get("region_sm_clock_mhz")
    a = (out["after"] or {}).get("region_sm_clock_mhz")
    if b and a:
        out["change_percent"] = 100.0 * (a - b) / b
    return out


def telemetry(work):
    path = os.path.join(work, "telemetry.csv")
    text = read(path)
    if not text or text.startswith("nvidia-smi: not found"):
        return {"samples": 0, "reason": (text or "no telemetry.csv").strip()[:200]}
    rows = list(csv.reader(text.splitlines()))
    if len(rows) < 2:
        return {"samples": 0, "reason": text.strip()[:200]}
    head = [h.strip() for h in rows[0]]
    sm = next((i for i, h in enumerate(head) if h.startswith("clocks.current.sm") or h.startswith("clocks.sm")), None)
    act = next((i for i, h in enumerate(head) if h.endswith("reasons.active")), None)
    mhz, reasons = [], set()
    for r in rows[1:]:
        if sm is not None and sm < len(r):
            m = re.match(r"\s*(\d+)", r[sm])
            if m:
                mhz.append(int(m.group(1)))
        if act is not None and act < len(r) and r[act].strip() not in ("0x0000000000000000", ""):
            reasons.add(r[act].strip())
    return {"samples": len(rows) - 1, "sm_clock_mhz_min": min(mhz) if mhz else None,
            "sm_clock_mhz_median": statistics.median(mhz) if mhz else None,
            "sm_clock_mhz_max": max(mhz) if mhz else None, "clock_event_reasons_seen": sorted(reasons)}


def identity(work, run_records):
    env = read(os.path.join(work, "env.txt")) or ""
    ident = {}
    lines = env.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("name, uuid,") and i + 1 < len(lines):
            keys = [k.strip() for k in ln.split(",")]
            vals = [v.strip() for v in lines[i + 1].split(",")]
            ident = dict(zip(keys, vals))
            break
        if ln.startswith("git_commit:"):
            ident["git_commit"] = ln.split(":", 1)[1].strip()
    for ln in lines:
        if ln.startswith("git_commit:"):
            ident["git_commit"] = ln.split(":", 1)[1].strip()
    dev = None
    for fam in run_records.values():
        for r in fam["records"]:
            rec = load_json(os.path.join(work, r["file"]))
            if rec and isinstance(rec.get("device"), dict):
                dev = rec["device"]
                break
        if dev:
            break
    if dev:
        ident["gpuprobe_device"] = {k: dev.get(k) for k in ("name", "uuid", "compute_capability", "sm_count",
                                                              "rated_sm_clock_mhz", "simulated", "sim_preset")}
    return ident


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--device", required=True)
    ap.add_argument("--budget", type=int, required=True)
    ap.add_argument("--wall", type=int, required=True)
    ap.add_argument("--nvidia-smi", type=int, required=True)
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--sanitizer", default="compute-sanitizer")
    a = ap.parse_args()
    work = a.work
    rows = steps(work)
    by_name = {s["name"]: s for s in rows}
    run_records = records(work)
    families = {}
    for name, _ in FAMILIES:
        smoke = by_name.get("smoke-" + name)
        san = by_name.get("sanitize-" + name)
        recs = run_records.get(name, {"records": []})["records"]
        fam = {"status": "not run", "smoke": None, "sanitizer": None,
               "points": sum(r.get("points", 0) for r in recs),
               "failed_points": sum(r.get("failed_points", 0) for r in recs),
               "records": recs, "failures": [], "seconds": 0, "logs": [], "sidecars": []}
        if smoke:
            fam["logs"].append(smoke["log"])
            fam["seconds"] += smoke["seconds"]
            text = read(os.path.join(work, smoke["log"])) or ""
            c = catch2(text)
            fam["smoke"] = {"exit_code": smoke["exit_code"], "seconds": smoke["seconds"], "cap_s": smoke["cap_s"],
                            **{k: c[k] for k in ("assertions_passed", "assertions_failed", "test_cases",
                                                 "skipped_because")}}
            fam["failures"] += c["failures"]
            rc = smoke["exit_code"]
            if rc is None:
                fam["status"] = "not run"
                fam["failures"].append("no time left in the budget for its smoke test")
            elif rc in (124, 137):
                fam["status"] = "timed out"
                fam["failures"].append(f"its smoke test ran past its {smoke['cap_s']} s cap")
            elif rc != 0 or c["failures"]:
                fam["status"] = "failed"
            elif c["skipped_because"]:
                fam["status"] = "skipped"
            else:
                fam["status"] = "passed"
        if san:
            fam["logs"].append(san["log"])
            fam["seconds"] += san["seconds"]
            fam["sanitizer"] = {"exit_code": san["exit_code"], "seconds": san["seconds"],
                                **(sanitizer(read(os.path.join(work, san["log"]))) or {})}
        elif os.path.exists(os.path.join(work, "sanitize", name + ".log")):
            fam["logs"].append(f"sanitize/{name}.log")
            fam["sanitizer"] = {"exit_code": None, "not_run": (read(os.path.join(work, "sanitize", name + ".log"))
                                                               or "").strip()[:200]}
        for r in recs:
            fam["sidecars"] += r["sidecars"]
            fam["failures"] += r["failures"]
            if r.get("error"):
                fam["failures"].append(f"{r['probe']}: {r['error']}")
        # Sidecars a smoke test left in its working folder.
        fam["sidecars"] += sorted(os.path.relpath(p, work) for p in
                                  glob.glob(os.path.join(work, "smoke", name, "**", "*.selfcheck", "*"), recursive=True))
        if fam["status"] in ("passed", "skipped", "not run") and fam["failed_points"]:
            fam["status"] = "failed"
        if not smoke and recs and fam["status"] == "not run":
            fam["status"] = "failed" if fam["failed_points"] or any(r.get("status") == "failed" for r in recs) \
                else "passed"
        fam["failures"] = fam["failures"][:MAX_FAILURES]
        families[name] = fam
    run_all = by_name.get("run-all")
    run_all_log = read(os.path.join(work, "run-all.log")) or ""
    m = re.findall(r"^gpuprobe: run-all: (\d+ ok, \d+ skipped, \d+ failed)", run_all_log, re.M)
    smoked = [f for n, f in families.items() if f["smoke"] is not None]
    ok = (all(f["status"] in ("passed", "skipped") for f in smoked)
          and all(f["status"] != "failed" for f in families.values())
          and run_all is not None and run_all["exit_code"] == 0)
    doc = {
        "schema": "gpuprobe.first_run", "schema_version": 1,
        "created_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device": a.device, "simulated": a.device.startswith("sim:"),
        "ok": ok, "budget_s": a.budget, "wall_s": a.wall,
        "identity": identity(work, run_records),
        "tools": {"nvidia-smi": bool(a.nvidia_smi), "cuobjdump": shutil.which(a.cuobjdump) is not None,
                  "compute-sanitizer": shutil.which(a.sanitizer) is not None, "python3": sys.executable},
        "nvidia_smi": {"available": bool(a.nvidia_smi),
                       "reason": None if a.nvidia_smi else "nvidia-smi not found: no driver view, telemetry "
                                                            "or clock-event reasons in this run"},
        "telemetry": telemetry(work),
        "calibration": calibration(work, rows),
        "run_all": {"exit_code": run_all["exit_code"] if run_all else None,
                    "seconds": run_all["seconds"] if run_all else None,
                    "result": m[-1] if m else None, "log": "run-all.log",
                    "model": "run/machine_model.json" if os.path.exists(os.path.join(work, "run", "machine_model.json"))
                    else None},
        "families": families,
        "steps": rows,
        "files": {"tarball": "first-run.tar.gz (everything, under first-run/)",
                  "top_level": ["summary.json", "first-run.tar.gz", "sass.txt.xz or .gz", "first-run.log",
                                "run-all.log", "env.txt", "smoke-failures.log"]},
    }
    if "unknown" in run_records:
        doc["unassigned_records"] = run_records["unknown"]["records"]
    tmp = os.path.join(work, "summary.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, os.path.join(work, "summary.json"))
    for n, f in families.items():
        print(f"  {n:17s} {f['status']:9s} {f['seconds']:4d} s  points {f['points']:5d}  failed {f['failed_points']}")
    print(f"  run-all: {doc['run_all']['result'] or doc['run_all']['exit_code']}; ok: {ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
