#!/usr/bin/env python3
"""Schema validation of every output: docs/schema/*.schema.json against what gpuprobe writes.
(a) every JSON of the simulated run-all fixture (tests/scripts/sim_run_all_fixture.py: run
records, the machine model, the roofline report) is valid, and so are the models `analyze
--import-csv` makes of each curve kind, a record while its probe runs, once interrupted and one
that failed, `compare`'s JSON of the fixture's model against published profiles and
`aggregate`'s of three copies of it (one slowed down); (b) so is every committed JSON that names a
schema (results/, tests/data/); (c) mutants of valid documents (a wrong type, a missing field, a
bad enum, a broken status rule, a bad metric row) are refused, each at its JSON path."""
import copy
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from cuda_tools import Checks, test_args  # noqa: E402
from sim_run_all_fixture import fixture_dir  # noqa: E402
import validate_outputs as vo  # noqa: E402

check = Checks("schemas")

# Fixtures that break the schema on purpose: path -> (why, the violations expected, as regexes).
NOT_VALID = {
    os.path.join("tests", "data", "compare", "b.json"): (
        "compare's 'units differ' case: memory.DRAM.latency_cycles given in ns",
        [r"^\$\.metrics\[\d+\]\.id: \"memory\.DRAM\.latency_cycles\" does not match"]),
}
# A hand-made fixture under tests/data may leave out keys its reader does not read (a required
# key missing); every key it has must still be valid. Files under results/ are held to it all.
MISSING_KEY = re.compile(r"^\$[^:]*: '[^']+' is a required property$")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def expect_valid(doc, schemas, what):
    lines = vo.validate_document(doc, schemas)
    check(not lines, f"{what}: {len(lines)} violation(s), first: {lines[:3]}")


def expect_refused(doc, schemas, what, path_prefix):
    """The mutant must fail, with a violation at (or under) path_prefix."""
    lines = vo.validate_document(doc, schemas)
    hit = [line for line in lines if line.startswith(path_prefix)]
    check(hit, f"mutant not refused at {path_prefix}: {what} (violations: {lines[:3]})")


def fixture_outputs(build_dir, schemas):
    out = fixture_dir(build_dir)
    if not os.path.isfile(os.path.join(out, "machine_model.json")):
        check(False, f"no fixture output in {out}: run the ctest fixture gpuprobe_sim_run_all "
                     "(ctest -R test_schemas runs it first)")
        return {}
    docs = {}
    for path in vo.json_files([out]):
        doc = load(path)
        docs[os.path.relpath(path, out)] = doc
        expect_valid(doc, schemas, path)
    names = set(docs)
    for want in ("machine_model.json", "machine_model.roofline.json",
                 os.path.join("raw", "compute_alu.json"), os.path.join("raw", "tensor_mma.json"),
                 os.path.join("raw", "tensor_tcgen05.json"),
                 os.path.join("raw", "goodput_reference.json")):
        check(want in names, f"the fixture did not write {want}")
    statuses = {d.get("status") for d in docs.values() if d.get("schema") == "gpuprobe.run"}
    check({"ok", "skipped"} <= statuses, f"the fixture's run records cover ok and skipped: "
                                         f"{sorted(map(str, statuses))}")
    return docs


def interrupted_record(gpuprobe, schemas):
    """A record read while its probe runs (status running) and after SIGINT (interrupted)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stride.json")
        proc = subprocess.Popen([gpuprobe, "probe", "memory/stride", "--device", "sim:h100",
                                 "--out", out], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        running = None
        deadline = time.monotonic() + 30
        while running is None and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            try:
                doc = load(out)  # written atomically: complete or absent
            except (OSError, ValueError):
                continue
            if doc.get("series"):
                running = doc
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if not check(running is not None and running.get("status") == "running",
                     "no record with status running and a point was seen while the probe ran"):
            return
        expect_valid(running, schemas, "a record read while its probe runs")
        done = load(out)
        check(done.get("status") == "interrupted", f"after SIGINT: status {done.get('status')}")
        expect_valid(done, schemas, "an interrupted record")


def failed_record(gpuprobe, schemas):
    """A record of a probe that failed (run-all's test hook GPUPROBE_TEST_FAIL_PROBE,
    cli/run_commands.hpp): status failed with its error, and the run's other records."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        r = subprocess.run([gpuprobe, "run-all", "--no-plot", "--device", "sim:h100", "--quick", "--only",
                            "memory/chase_shared,compute/alu", "--out", out],
                           env=dict(os.environ, GPUPROBE_TEST_HOOKS="1", GPUPROBE_TEST_FAIL_PROBE="compute/alu"),
                           capture_output=True, text=True)
        check(r.returncode == 1, f"run-all with a failing probe exits 1: rc {r.returncode}")
        path = os.path.join(out, "raw", "compute_alu.json")
        if not check(os.path.isfile(path), "run-all wrote no record of the failing probe"):
            return
        doc = load(path)
        check(doc.get("status") == "failed" and doc.get("error"),
              f"the failing probe's record: status {doc.get('status')}, error {doc.get('error')}")
        for p in vo.json_files([out]):
            expect_valid(load(p), schemas,
                         f"run-all with a failing probe: {os.path.relpath(p, out)}")


def self_check_failed_records(gpuprobe, schemas):
    """Records whose points failed their self-check (the test hook GPUPROBE_TEST_FAIL_SELF_CHECK,
    cli/run_commands.hpp): a failed op-table point and a failed tensor point, each with its
    evidence and sidecar, the failed record, and the model fitted without them."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        hooks = dict(os.environ, GPUPROBE_TEST_HOOKS="1")
        r = subprocess.run([gpuprobe, "run-all", "--no-plot", "--device", "sim:h100", "--quick", "--only",
                            "compute/alu", "--out", out],
                           env=dict(hooks, GPUPROBE_TEST_FAIL_SELF_CHECK="compute/alu:fma_rn_f32"),
                           capture_output=True, text=True)
        check(r.returncode == 1, f"run-all with a failed self-check exits 1: rc {r.returncode}")
        mma = os.path.join(tmp, "mma.json")
        r = subprocess.run([gpuprobe, "probe", "tensor/mma", "--device", "sim:h100", "--kind", "latency",
                            "--operands", "random", "--out", mma],
                           env=dict(hooks, GPUPROBE_TEST_FAIL_SELF_CHECK="tensor/mma:mma_m16n8k16_f16_f32:transpose"),
                           capture_output=True, text=True)
        check(r.returncode == 1, f"a tensor probe with a failed self-check exits 1: rc {r.returncode}")
        for path in (os.path.join(out, "raw", "compute_alu.json"), mma):
            if not check(os.path.isfile(path), f"no record at {path}"):
                continue
            doc = load(path)
            failed = [p for p in doc["series"] if isinstance(p.get("self_check"), dict)
                      and p["self_check"].get("passed") is False]
            check(doc.get("status") == "failed" and failed, f"{path}: status {doc.get('status')}, "
                  f"{len(failed)} failed point(s)")
        sidecars = 0
        for p in list(vo.json_files([out])) + list(vo.json_files([tmp + "/mma.selfcheck"])) + [mma]:
            sidecars += ".selfcheck" in p
            expect_valid(load(p), schemas, f"a failed self-check: {os.path.relpath(p, tmp)}")
        check(sidecars == 3, f"{sidecars} sidecars, expected 3 (fma_rn_f32's two points, the mma form's one)")


def imported_models(gpuprobe, schemas):
    """`analyze --import-csv` models, one per curve kind, from small synthetic curves."""
    curves = {
        "latency": ("footprint_bytes,latency_cycles",
                    [(1024 * 2 ** (i / 4), 30 if i < 30 else 250 if i < 45 else 600)
                     for i in range(60)]),
        "bandwidth": ("footprint_bytes,bandwidth_bytes_per_s",
                      [(1024 * 2 ** (i / 4), 2e13 if i < 30 else 7e12 if i < 45 else 2e12)
                       for i in range(60)]),
        "intensity": ("flop_per_byte,flop_per_s,sm_clock_mhz",
                      [(2 ** (i / 3 - 4), min(2e12 * 2 ** (i / 3 - 4), 5e13), 1755)
                       for i in range(40)]),
        "small_kernels": ("bytes,time_s,method",
                          [(2 ** (10 + i), t + 2 ** (10 + i) / 2e12, m)
                           for m, t in (("stream", 3e-6), ("graph", 1.5e-6)) for i in range(20)]),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for kind, (header, rows) in curves.items():
            csv = os.path.join(tmp, f"{kind}.csv")
            with open(csv, "w") as f:
                f.write(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
            out = os.path.join(tmp, f"{kind}.json")
            r = subprocess.run([gpuprobe, "analyze", "--import-csv", csv, "--out", out],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"analyze --import-csv of a {kind} curve: {r.stderr[-500:]}")
            if r.returncode == 0:
                expect_valid(load(out), schemas, f"the model of an imported {kind} curve")


def mixed_model(gpuprobe, schemas):
    """`analyze --allow-mixed` of records of two simulated GPUs: its `mixed_devices` is valid."""
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for preset in ("h100", "a100"):
            out = os.path.join(tmp, f"{preset}.json")
            r = subprocess.run([gpuprobe, "probe", "compute/alu", "--device", f"sim:{preset}", "--op",
                                "fma_rn_f32", "--out", out], capture_output=True, text=True)
            check(r.returncode == 0, f"compute/alu on sim:{preset}: {r.stderr[-300:]}")
            runs.append(out)
        model = os.path.join(tmp, "mixed.json")
        r = subprocess.run([gpuprobe, "analyze", *runs, "--allow-mixed", "--out", model], capture_output=True,
                           text=True)
        check(r.returncode == 0, f"analyze --allow-mixed: {r.stderr[-300:]}")
        if r.returncode == 0:
            doc = load(model)
            check(len(doc.get("mixed_devices", [])) == 2, "an --allow-mixed model without its two GPUs")
            expect_valid(doc, schemas, "an --allow-mixed model of two GPUs")
            bad = json.loads(json.dumps(doc))
            bad["mixed_devices"] = {"gpus": bad["mixed_devices"]}
            expect_refused(bad, schemas, "mixed_devices an object", "$.mixed_devices")


def roofline_without_bytes(gpuprobe, build_dir, schemas):
    """Kernels that give no bytes, or bytes only where no ceiling is: still a valid roofline
    (their intensities and headroom empty, never absent)."""
    model = os.path.join(fixture_dir(build_dir), "machine_model.json")
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([gpuprobe, "roofline", "--model", model, "--no-plot", "--out", os.path.join(tmp, "r"),
                            "--kernel", "nobytes:flops=1e9,time_s=1e-3",
                            "--kernel", "zero:flops=1e9,time_s=1e-3,bytes_hbm=0",
                            "--kernel", "nothing:flops=1e9,time_s=1e-3,precision=e2m1"],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"roofline of kernels without bytes: {r.stderr[-300:]}")
        if r.returncode == 0:
            expect_valid(load(os.path.join(tmp, "r.roofline.json")), schemas, "a roofline of kernels without bytes")


def compared(gpuprobe, source_dir, build_dir, schemas):
    """`gpuprobe compare` of the fixture's model against two published profiles: its JSON is
    valid, and mutants of it are refused."""
    model = os.path.join(fixture_dir(build_dir), "machine_model.json")
    references = [os.path.join(source_dir, "results", "reference", f"{gpu}.json")
                  for gpu in ("h100", "a100")]
    if not all(os.path.isfile(p) for p in [model] + references):
        check(False, "compare: the fixture's model or results/reference/{h100,a100}.json "
                     "is missing")
        return
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "cmp")
        r = subprocess.run([gpuprobe, "compare", model] + references + ["--out", prefix,
                                                                       "--no-plot"],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"compare: {r.stderr[-500:]}")
        if r.returncode != 0:
            return
        doc = load(prefix + ".compare.json")
    expect_valid(doc, schemas, "compare's JSON")
    for what, path, change in (
            ("a row whose better is neither", "$.rows[0].better",
             lambda d: d["rows"][0].update(better="up")),
            ("an input labelled with a word", "$.inputs[0].label",
             lambda d: d["inputs"][0].update(label="first")),
            ("a ratio as text", "$.rows[0].ratios[1]",
             lambda d: d["rows"][0]["ratios"].__setitem__(1, "2x"))):
        mutant = copy.deepcopy(doc)
        change(mutant)
        expect_refused(mutant, schemas, what, path)


def aggregated(gpuprobe, build_dir, schemas):
    """`gpuprobe aggregate` of three copies of the fixture's model, one 30% slower on every
    ceiling (an outlier): its JSON is valid, and mutants of it are refused."""
    model_path = os.path.join(fixture_dir(build_dir), "machine_model.json")
    if not os.path.isfile(model_path):
        return  # fixture_outputs has said so
    model = load(model_path)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, factor in (("node1", 1.0), ("node2", 1.0), ("slow", 0.7)):
            doc = copy.deepcopy(model)
            for m in doc.get("metrics", []):
                if m.get("ceiling") and isinstance(m.get("value"), (int, float)):
                    m["value"] *= factor if m.get("better") == "higher" else 1 / factor
            files.append(os.path.join(tmp, f"{name}.json"))
            with open(files[-1], "w") as f:
                json.dump(doc, f)
        prefix = os.path.join(tmp, "fleet")
        r = subprocess.run([gpuprobe, "aggregate"] + files + ["--out", prefix],
                           capture_output=True, text=True)
        check(r.returncode == 3, f"aggregate flags the slow copy (exit 3): rc {r.returncode} "
                                 f"{r.stderr[-500:]}")
        if not os.path.isfile(prefix + ".aggregate.json"):
            return
        doc = load(prefix + ".aggregate.json")
    expect_valid(doc, schemas, "aggregate's JSON")
    check(doc.get("outliers"), "aggregate's JSON has the slow copy's outliers")
    for what, path, change in (
            ("an outlier's percent as text", "$.outliers[0].percent_worse",
             lambda d: d["outliers"][0].update(percent_worse="a lot")),
            ("a worst ceiling without its metric", "$.inputs[2].worst_ceiling",
             lambda d: d["inputs"][2]["worst_ceiling"].pop("metric")),
            ("a metric of an unknown family", "$.metrics[0].family",
             lambda d: d["metrics"][0].update(family="gpu"))):
        if doc.get("outliers") and doc["inputs"][2].get("worst_ceiling"):
            mutant = copy.deepcopy(doc)
            change(mutant)
            expect_refused(mutant, schemas, what, path)


def committed_outputs(source_dir, schemas):
    found = 0
    for folder in ("results", os.path.join("tests", "data")):
        for path in vo.json_files([os.path.join(source_dir, folder)]):
            doc = load(path)
            if not (isinstance(doc, dict) and "schema" in doc):
                continue
            rel = os.path.relpath(path, source_dir)
            lines = vo.validate_document(doc, schemas)
            if folder != "results":
                lines = [line for line in lines if not MISSING_KEY.match(line)]
            if rel in NOT_VALID:
                why, expected = NOT_VALID[rel]
                unexpected = [line for line in lines
                              if not any(re.match(e, line) for e in expected)]
                check(lines and not unexpected, f"{rel} ({why}): expected only {expected}, "
                                                f"got {lines[:3]}")
                continue
            found += 1
            check(not lines, f"{rel}: {len(lines)} violation(s), first: {lines[:3]}")
    check(found > 0, "no committed JSON with a schema key found under results/ or tests/data/")


def point_with(series, key):
    for i, p in enumerate(series):
        if key in p and "skipped" not in p:
            return i
    raise KeyError(key)


def run_mutants(docs, schemas):
    record = docs.get(os.path.join("raw", "compute_alu.json"))
    if record:
        i = point_with(record["series"], "latency_cycles")
        mutants = []

        def mutant(what, path, change):
            doc = copy.deepcopy(record)
            change(doc)
            mutants.append((what, path, doc))

        mutant("a point's latency as text", f"$.series[{i}].latency_cycles",
               lambda d: d["series"][i].update(latency_cycles="fast"))
        mutant("device without sm_count", "$.device", lambda d: d["device"].pop("sm_count"))
        mutant("compute capability as a number", "$.device.compute_capability",
               lambda d: d["device"].update(compute_capability=9.0))
        mutant("an unknown status", "$.status", lambda d: d.update(status="done"))
        mutant("failed without error", "$", lambda d: d.update(status="failed"))
        mutant("ok with an error", "$", lambda d: d.update(error="boom"))
        mutant("skipped with points and no reason", "$", lambda d: d.update(status="skipped"))
        mutant("an undocumented top-level key", "$", lambda d: d.update(extra=1))
        mutant("no series", "$", lambda d: d.pop("series"))
        mutant("schema_version as text", "$", lambda d: d.update(schema_version="1"))
        mutant("a 2-element grid", f"$.series[{i}].launch.grid",
               lambda d: d["series"][i]["launch"].update(grid=[1, 1]))
        mutant("a failed self-check", f"$.series[{i}].self_check",
               lambda d: d["series"][i].update(self_check="failed"))
        mutant("an undocumented point key", f"$.series[{i}]",
               lambda d: d["series"][i].update(latency_fs=1.0))
        mutant("an unknown alu op", f"$.series[{i}].op",
               lambda d: d["series"][i].update(op="fma_rn_f128"))
        mutant("a measured point without repeats", f"$.series[{i}]",
               lambda d: d["series"][i].pop("repeats"))
        mutant("created_utc not ISO 8601 UTC", "$.created_utc",
               lambda d: d.update(created_utc="yesterday"))
        for what, path, doc in mutants:
            expect_refused(doc, schemas, what, path)
    mma = docs.get(os.path.join("raw", "tensor_mma.json"))
    if mma:
        j = point_with(mma["series"], "self_check")
        doc = copy.deepcopy(mma)
        doc["series"][j]["self_check"]["passed"] = False
        # passed false with a tile check's fields and no reason: neither a passing check nor a failed one
        expect_refused(doc, schemas, "a tile check that did not pass, with no reason",
                       f"$.series[{j}].self_check")
        doc = copy.deepcopy(mma)
        doc["series"][j]["operands"] = "ones"
        expect_refused(doc, schemas, "unknown operands", f"$.series[{j}].operands")

    goodput = docs.get(os.path.join("raw", "goodput_reference.json"))
    if goodput:
        k = point_with(goodput["series"], "kernel_name")
        doc = copy.deepcopy(goodput)
        doc["series"][k]["kernel"] = "stream"
        expect_refused(doc, schemas, "an unknown goodput kernel", f"$.series[{k}].kernel")
        doc = copy.deepcopy(goodput)
        del doc["series"][k]["self_check"]
        expect_refused(doc, schemas, "a goodput kernel without its self-check", f"$.series[{k}]")

    roofline = docs.get("machine_model.roofline.json")
    if roofline and roofline.get("kernels"):
        doc = copy.deepcopy(roofline)
        doc["kernels"][0]["limits"][0]["kind"] = "disk"
        expect_refused(doc, schemas, "a limit of an unknown kind", "$.kernels[0].limits[0]")
        doc = copy.deepcopy(roofline)
        del doc["kernels"][0]["time_s"]
        expect_refused(doc, schemas, "a kernel without time_s", "$.kernels[0]")
        doc = copy.deepcopy(roofline)
        doc["roofline"]["memory"]["HBM"] = doc["roofline"]["memory"].get("DRAM", {})
        expect_refused(doc, schemas, "a memory ceiling of an unknown level", "$.roofline.memory")

    model = docs.get("machine_model.json")
    if model:
        doc = copy.deepcopy(model)
        del doc["sources"]
        expect_refused(doc, schemas, "a model without sources", "$")
        doc = copy.deepcopy(model)
        doc["schema_version"] = 99
        expect_refused(doc, schemas, "a model version no schema describes", "$")
        if model.get("goodput", {}).get("kernels"):
            doc = copy.deepcopy(model)
            doc["goodput"]["kernels"][0]["bound"] = "disk"
            expect_refused(doc, schemas, "a goodput bound that is no ceiling",
                           "$.goodput.kernels[0].bound")
        metric_mutants(model, schemas)


def valid_metric(model):
    """A metric row of the fixture's model (version 2), else one made here by the contract."""
    for m in model.get("metrics", []):
        if m.get("probe") and m.get("checks"):
            return copy.deepcopy(m)
    return {"id": "bandwidth.DRAM.read_bytes_per_s", "family": "bandwidth",
            "label": "DRAM read bandwidth", "value": 1.9e12, "unit": "bytes/s", "better": "higher",
            "ceiling": True, "method": "bandwidth/dram base point", "probe": "bandwidth/dram",
            "samples": 3, "confidence": 0.95, "clock_mhz": 1755.0, "source": "simulated",
            "checks": ["compile-matrix", "sass", "sim-closed-loop", "real-data", "gpu-self-check"],
            "citation": None, "per_sm_per_clock": {"value": 9.7, "unit": "bytes/clk/SM"},
            "datasheet": {"value": 2.0e12, "unit": "bytes/s", "percent": 95.0,
                          "source": "FIGURES.md H100 PCIe HBM2e [NV-H100]"}}


def metric_mutants(model, schemas):
    base = copy.deepcopy(model)
    base["schema_version"] = 2
    base.setdefault("warnings", [])
    metric = valid_metric(model)
    metric["source"] = "simulated" if base.get("simulated") else "measured"
    base["metrics"] = [metric]
    expect_valid(base, schemas, "a version 2 model holding one contract metric")
    changes = [
        ("an unknown family", "$.metrics[0].family", {"family": "gpu"}),
        ("a unit outside the list", "$.metrics[0].unit", {"unit": "GB/s"}),
        ("better neither higher nor lower", "$.metrics[0].better", {"better": "up"}),
        ("an unknown check", "$.metrics[0].checks[0]", {"checks": ["vibes"]}),
        ("a check twice", "$.metrics[0].checks", {"checks": ["sass", "sass"]}),
        ("confidence above 1", "$.metrics[0].confidence", {"confidence": 1.5}),
        ("a value as text", "$.metrics[0].value", {"value": "3 TB/s"}),
        ("an id outside its family", "$.metrics[0].id", {"id": "compute.DRAM.read_bytes_per_s"}),
        ("a unit the id does not end in", "$.metrics[0].id",
         {"unit": "percent" if metric["unit"] != "percent" else "ns"}),
        ("a citation on an unpublished number", "$.metrics[0].citation",
         {"citation": "FIGURES.md x [Y]"}),
        ("checks without a probe", "$.metrics[0].checks", {"probe": None}),
        ("the other source than the model's", "$.metrics[0].source",
         {"source": "measured" if base.get("simulated") else "simulated"}),
        ("published without a citation", "$.metrics[0].citation",
         {"source": "published", "probe": None, "checks": []}),
        ("per_sm_per_clock without its unit", "$.metrics[0].per_sm_per_clock",
         {"per_sm_per_clock": {"value": 1.0}}),
    ]
    for what, path, change in changes:
        doc = copy.deepcopy(base)
        doc["metrics"][0].update(change)
        expect_refused(doc, schemas, what, path)
    for field in ("confidence", "datasheet", "clock_mhz"):
        doc = copy.deepcopy(base)
        del doc["metrics"][0][field]
        expect_refused(doc, schemas, f"a metric without {field}", "$.metrics[0]")
    doc = copy.deepcopy(base)
    doc["metrics"].append(copy.deepcopy(metric))
    expect_refused(doc, schemas, "a metric id twice", "$.metrics[1].id")


def command_line(schemas_dir, docs):
    """validate_outputs.py itself: exit 0 on a valid file, 1 with one line per violation."""
    record = docs.get(os.path.join("raw", "compute_alu.json"))
    if not record:
        return
    script = os.path.join(HERE, "validate_outputs.py")
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good.json")
        bad = os.path.join(tmp, "bad.json")
        with open(good, "w") as f:
            json.dump(record, f)
        broken = copy.deepcopy(record)
        broken["status"] = "done"
        broken["device"]["sm_count"] = "many"
        with open(bad, "w") as f:
            json.dump(broken, f)
        r = subprocess.run([sys.executable, script, good], capture_output=True, text=True)
        check(r.returncode == 0 and not r.stdout, f"a valid file: rc {r.returncode} {r.stdout}")
        r = subprocess.run([sys.executable, script, tmp], capture_output=True, text=True)
        lines = r.stdout.splitlines()
        check(r.returncode == 1, f"an invalid file in the folder: rc {r.returncode}")
        check(lines == [f"{bad}: $.device.sm_count: \"many\" is not of type \"integer\"",
                        f"{bad}: $.status: \"done\" is not one of "
                        "[\"ok\", \"running\", \"interrupted\", \"failed\", \"skipped\"]"],
              f"one line per violation with its path: {lines}")
        r = subprocess.run([sys.executable, script, os.path.join(tmp, "nope.json")],
                           capture_output=True, text=True)
        check(r.returncode == 1 and r.stderr.startswith("gpuprobe: error: "),
              f"a missing path: rc {r.returncode} {r.stderr!r}")


def main():
    args = test_args(__doc__.splitlines()[0])
    schemas = vo.Schemas(os.path.join(args.source_dir, "docs", "schema"))
    for key in (("gpuprobe.run", 1), ("gpuprobe.machine_model", 2), ("gpuprobe.roofline", 1),
                ("gpuprobe.compare", 1), ("gpuprobe.aggregate", 1), ("gpuprobe.selfcheck", 1)):
        check(key in schemas.by_key, f"docs/schema has no schema for {key[0]} version {key[1]}")
    docs = fixture_outputs(args.build_dir, schemas)
    imported_models(args.gpuprobe, schemas)
    interrupted_record(args.gpuprobe, schemas)
    failed_record(args.gpuprobe, schemas)
    mixed_model(args.gpuprobe, schemas)
    self_check_failed_records(args.gpuprobe, schemas)
    if docs:
        roofline_without_bytes(args.gpuprobe, args.build_dir, schemas)
        compared(args.gpuprobe, args.source_dir, args.build_dir, schemas)
        aggregated(args.gpuprobe, args.build_dir, schemas)
    committed_outputs(args.source_dir, schemas)
    run_mutants(docs, schemas)
    command_line(schemas.folder, docs)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
