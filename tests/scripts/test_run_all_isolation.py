#!/usr/bin/env python3
"""run-all on the simulator, end to end, as a supervisor of one process per probe: a run killed
with SIGKILL and one stopped with SIGINT are continued by --resume (complete records kept byte for
byte, cut ones from their last point); a probe forced to fail, one that hangs (the watchdog) and one
that loses its device context (retried in a new process) and one whose device-side wait timed out
(retried past the failed points) are recorded and the run goes on; the
progress lines carry the count, the elapsed time and the ETA (cut to a terminal's width), and a log
gets no per-point lines; the resume command printed after an interrupt or a failure works as
pasted; signals in quick succession still end in one line with no lock or temporary left. The
failures come from the test hooks GPUPROBE_TEST_FAIL_PROBE / _HANG_PROBE / _STICKY_PROBE /
_WAIT_TIMEOUT of
`gpuprobe probe` (cli/run_commands.hpp), which act only with GPUPROBE_TEST_HOOKS=1."""
import fcntl
import json
import os
import pty
import re
import shlex
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("run_all_isolation")

# Small, quick probes on the simulator (well under a second each), in run-all's plan order.
CUT_RUN = "memory/chase_shared,memory/tlb,compute/alu,sync/primitives,launch/graph"
CUT_FILES = ["memory_chase_shared.json", "memory_tlb.json", "compute_alu.json",
             "sync_primitives.json", "launch_graph.json"]


def records(raw):
    """Every record in raw/: name -> (bytes, parsed JSON or None if it is not valid JSON)."""
    out = {}
    for name in sorted(os.listdir(raw)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(raw, name), "rb") as f:
            data = f.read()
        try:
            out[name] = (data, json.loads(data))
        except ValueError:
            out[name] = (data, None)
    return out


def wait_for_cut(raw, proc, timeout=60):
    """Waits until one record is complete and another holds points while it is measured."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        try:
            recs = records(raw) if os.path.isdir(raw) else {}
        except OSError:
            recs = {}
        done = [n for n, (_, j) in recs.items() if j and j.get("status") == "ok"]
        running = [n for n, (_, j) in recs.items()
                   if j and j.get("status") == "running" and j.get("series")]
        if done and running:
            return running[0]
        time.sleep(0.005)
    return None


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


def run_all(gpuprobe, out, *extra, env=None):
    cmd = [gpuprobe, "run-all", "--no-plot", "--device", "sim:v100", "--out", out, *extra]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def hooks(**hook):
    """The environment with the test hooks given (GPUPROBE_TEST_<NAME>=probe) switched on."""
    return dict(os.environ, GPUPROBE_TEST_HOOKS="1", **{f"GPUPROBE_TEST_{k}": v for k, v in hook.items()})


def pasted(gpuprobe, hint):
    """The printed resume command run as a user pastes it into a shell (gpuprobe: the build's)."""
    cmd = hint.strip()
    check(cmd.startswith("gpuprobe run-all "), f"not a run-all command: {cmd!r}")
    return subprocess.run(["/bin/sh", "-c", shlex.quote(gpuprobe) + cmd[len("gpuprobe"):]],
                          capture_output=True, text=True, timeout=120)


def check_resume(gpuprobe, out, cut_name, before, resume=None):
    """--resume completes the run: the records complete before stay byte for byte, the cut one
    keeps its points. `resume` runs it (default: the same --only with --resume)."""
    raw = os.path.join(out, "raw")
    r = resume() if resume else run_all(gpuprobe, out, "--only", CUT_RUN, "--resume")
    check(r.returncode == 0, f"--resume failed: {r.stderr[-1500:]}")
    after = records(raw)
    for name, (data, rec) in before.items():
        if rec and rec.get("status") == "ok":
            check(after[name][0] == data, f"{name} was complete but --resume changed it")
    cut = before[cut_name][1]
    done = after[cut_name][1]
    check(done["status"] == "ok", f"{cut_name} is {done['status']} after --resume")
    check(done["series"][:len(cut["series"])] == cut["series"],
          f"{cut_name}: --resume did not keep the points measured before")
    check(sorted(after) == sorted(CUT_FILES), f"records after --resume: {sorted(after)}")
    model_path = os.path.join(out, "machine_model.json")
    if check(os.path.isfile(model_path), "--resume wrote no machine model"):
        model = json.load(open(model_path))
        check(len(model["sources"]) == len(CUT_FILES), "the model does not list every record")
    check("5 ok, 0 skipped, 0 failed" in r.stderr, f"no summary line: {r.stderr[-600:]}")


def test_killed_run(gpuprobe, tmp):
    out = os.path.join(tmp, "killed")
    raw = os.path.join(out, "raw")
    proc = subprocess.Popen([gpuprobe, "run-all", "--no-plot", "--device", "sim:v100", "--out", out, "--only",
                             CUT_RUN], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    cut_name = wait_for_cut(raw, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # run-all's whole group: its probe's process is its own
    proc.wait()
    if not check(cut_name is not None, "never saw a complete record and a running one"):
        return
    # The probe's process does not outlive run-all (it holds its record's lock: its pid).
    lock = os.path.join(raw, cut_name + ".lock")
    if os.path.exists(lock):
        pid = int(open(lock).read().split()[0])
        for _ in range(100):
            if not alive(pid):
                break
            time.sleep(0.02)
        check(not alive(pid), "the probe's process outlived the killed run-all")
    time.sleep(0.1)
    before = records(raw)
    for name, (_, rec) in before.items():
        check(rec is not None, f"{name} is not valid JSON after SIGKILL")
    check(before[cut_name][1]["status"] == "running", "the cut record is not left running")
    # Without --resume the folder is refused, and nothing is changed.
    r = run_all(gpuprobe, out, "--only", CUT_RUN)
    check(r.returncode == 1 and "--resume" in r.stderr, "a folder with results was not refused")
    check_resume(gpuprobe, out, cut_name, before)


def test_interrupted_run(gpuprobe, tmp):
    # A folder with a space, and every option the resume command must repeat.
    out = os.path.join(tmp, "interrupted run")
    raw = os.path.join(out, "raw")
    proc = subprocess.Popen([gpuprobe, "run-all", "--no-plot", "--device", "sim:v100", "--out", out, "--only",
                             CUT_RUN, "--quick", "--max-seconds-per-point", "1.5", "--watchdog-seconds", "100"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    cut_name = wait_for_cut(raw, proc)
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C: the terminal's foreground group
    _, err = proc.communicate(timeout=60)
    if not check(cut_name is not None, "never saw a complete record and a running one"):
        return
    check(proc.returncode == 128 + signal.SIGINT, f"SIGINT: exit {proc.returncode}")
    last = err[err.rfind("gpuprobe: interrupted"):]
    check(last.count("\n") == 1 and "SIGINT" in last and "--resume" in last,
          f"not one line saying how to resume: {err[-800:]!r}")
    before = records(raw)
    for name, (_, rec) in before.items():
        check(rec is not None, f"{name} is not valid JSON after SIGINT")
    cut = before[cut_name][1]
    check(cut["status"] == "interrupted", f"the cut record is {cut['status']}")
    check(f"{len(cut['series'])} points of" in last, f"the points kept are not told: {last!r}")
    check(not any(n.endswith(".lock") or ".tmp-" in n for n in os.listdir(raw)),
          f"locks or temporaries left: {os.listdir(raw)}")
    done = sum(1 for _, rec in before.values() if rec and rec.get("status") in ("ok", "skipped"))
    check(f"kept {done} complete record(s)" in last, f"the complete records are not counted: {last!r}")
    # The printed command, pasted as it is, continues the run.
    hint = last[last.find("resume with: ") + len("resume with: "):]
    for option in ("--quick", "--max-seconds-per-point 1.5", "--watchdog-seconds 100", "--no-plot",
                   f"--only {CUT_RUN}", f"--out {shlex.quote(out)}"):
        check(option in hint, f"the resume command lacks {option}: {hint!r}")
    check_resume(gpuprobe, out, cut_name, before, resume=lambda: pasted(gpuprobe, hint))


def test_signals_in_quick_succession(gpuprobe, tmp):
    """TERM, TERM, INT within 50 ms: run-all passes them on, then says in one line what it kept;
    the cut record says interrupted, and no lock or temporary is left."""
    out = os.path.join(tmp, "signals")
    raw = os.path.join(out, "raw")
    proc = subprocess.Popen([gpuprobe, "run-all", "--no-plot", "--device", "sim:v100", "--out", out, "--only",
                             CUT_RUN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cut_name = wait_for_cut(raw, proc)
    for sig in (signal.SIGTERM, signal.SIGTERM, signal.SIGINT):
        proc.send_signal(sig)
        time.sleep(0.02)
    _, err = proc.communicate(timeout=60)
    if not check(cut_name is not None, "never saw a complete record and a running one"):
        return
    check(proc.returncode == 128 + signal.SIGTERM, f"TERM TERM INT: exit {proc.returncode}: {err[-600:]!r}")
    check(err.count("gpuprobe: interrupted by SIGTERM") == 1, f"not one line: {err[-800:]!r}")
    recs = records(raw)
    check(all(rec is not None for _, rec in recs.values()), "a record is not valid JSON")
    check(recs[cut_name][1]["status"] == "interrupted", f"the cut record is {recs[cut_name][1]['status']}")
    left = [n for n in os.listdir(raw) + os.listdir(out) if n.endswith(".lock") or ".tmp-" in n]
    check(not left, f"locks or temporaries left: {left}")


def test_failing_and_hanging(gpuprobe, tmp):
    # A probe forced to fail: recorded, the others measured, exit 1, the model still written.
    out = os.path.join(tmp, "fail")
    r = run_all(gpuprobe, out, "--only", "compute/alu,launch/overhead", env=hooks(FAIL_PROBE="compute/alu"))
    check(r.returncode == 1, f"a failed probe: exit {r.returncode}")
    alu = json.load(open(os.path.join(out, "raw", "compute_alu.json")))
    check(alu["status"] == "failed", f"the failed probe's record is {alu['status']}")
    check("GPUPROBE_TEST_FAIL_PROBE" in alu.get("error", ""), "the record has no error")
    check(len(alu["series"]) > 3, "the failed probe's points were not kept")
    launch = json.load(open(os.path.join(out, "raw", "launch_overhead.json")))
    check(launch["status"] == "ok", "the probe after the failed one did not run")
    check(os.path.isfile(os.path.join(out, "machine_model.json")), "no machine model")
    check("1 ok, 0 skipped, 1 failed" in r.stderr, f"no summary: {r.stderr[-600:]}")
    check("failed compute/alu: forced to fail" in r.stderr, "the summary does not name the failure")
    # Progress, not a terminal: one line per probe with the count, elapsed time and ETA (known
    # once one probe is done).
    check(re.search(r"^gpuprobe: \[1/2\] compute/alu  elapsed \d+:\d\d  ETA --:--$", r.stderr, re.M),
          f"no progress line for the first probe: {r.stderr[:600]!r}")
    check(re.search(r"^gpuprobe: \[2/2\] launch/overhead  elapsed \d+:\d\d  ETA \d+:\d\d$",
                    r.stderr, re.M), "no progress line with an ETA for the second probe")
    check("SIMULATED DEVICE" in r.stderr and r.stderr.count("SIMULATED DEVICE") == 2,
          "the banner comes once at the start and once at the end, not once per probe")
    # A log gets no per-point lines, and no line without a name: each is run-all's own, a probe's
    # "gpuprobe: ..." line, the banner, or a summary line naming its probe or record.
    stray = [line for line in r.stderr.splitlines()
             if not re.match(r"(gpuprobe: |##|  (skipped|failed|left out of the model:|complete in) \S)", line)]
    check(not stray, f"lines a log should not get: {stray[:5]}")
    # The way on after a failure: the command that continues the run, pasted as it is.
    hint = re.search(r"continue with: (gpuprobe run-all .*--resume)$", r.stderr, re.M)
    if check(hint, f"no resume command after a failure: {r.stderr[-600:]!r}"):
        r = pasted(gpuprobe, hint.group(1))
        check(r.returncode == 0 and "2 ok, 0 skipped, 0 failed (1 kept from before)" in r.stderr,
              f"the printed command did not continue the run: {r.stderr[-600:]!r}")
        alu = json.load(open(os.path.join(out, "raw", "compute_alu.json")))
        check(alu["status"] == "ok", f"the failed probe is {alu['status']} after the resume")

    # A machine model that cannot be written (a full disk, here a link into a file): the summary,
    # the reason, and the command that continues once it is fixed.
    out = os.path.join(tmp, "nomodel")
    os.makedirs(out)
    open(os.path.join(out, "blocker"), "w").close()
    os.symlink("blocker/machine_model.json", os.path.join(out, "machine_model.json"))
    r = run_all(gpuprobe, out, "--only", "launch/overhead")
    check(r.returncode == 1, f"an unwritable model: exit {r.returncode}")
    check("gpuprobe: run-all: 1 ok, 0 skipped, 0 failed" in r.stderr, f"no summary line: {r.stderr[-600:]!r}")
    check(re.search(r"^gpuprobe: error: the machine model was not written: .*continue with: gpuprobe run-all .*"
                    r"--resume\)$", r.stderr, re.M), f"no reason or resume command: {r.stderr[-600:]!r}")

    # A hanging probe: the watchdog kills it within its bound, keeps its points, the run goes on.
    out = os.path.join(tmp, "hang")
    env = hooks(HANG_PROBE="launch/overhead")
    start = time.time()
    r = run_all(gpuprobe, out, "--only", "compute/alu,launch/overhead,launch/graph",
                "--watchdog-seconds", "2", env=env)
    took = time.time() - start
    check(r.returncode == 1, f"a hung probe: exit {r.returncode}")
    check(took < 20, f"the watchdog took {took:.1f} s to end a 2 s hang")
    hung = json.load(open(os.path.join(out, "raw", "launch_overhead.json")))
    check(hung["status"] == "failed", f"the hung probe's record is {hung['status']}")
    check(hung.get("error") == "watchdog: no progress for 2 s", f"error {hung.get('error')!r}")
    check(len(hung["series"]) > 0, "the hung probe's points were not kept")
    graph = json.load(open(os.path.join(out, "raw", "launch_graph.json")))
    check(graph["status"] == "ok", "the probe after the hung one did not run")
    check(not any(n.endswith(".lock") for n in os.listdir(os.path.join(out, "raw"))),
          "the killed probe's lock was left")
    check(os.path.isfile(os.path.join(out, "machine_model.json")), "no machine model")

    # A lost device context (a sticky CUDA error): retried once in a new process, points kept.
    out = os.path.join(tmp, "sticky")
    env = hooks(STICKY_PROBE="compute/alu")
    r = run_all(gpuprobe, out, "--only", "compute/alu", env=env)
    check(r.returncode == 0, f"a probe that lost its context once: exit {r.returncode}: {r.stderr[-800:]}")
    check("measuring it again in a new process" in r.stderr, "the retry is not told")
    alu = json.load(open(os.path.join(out, "raw", "compute_alu.json")))
    check(alu["status"] == "ok" and "resumed_utc" in alu, "the retry did not resume the record")

    # A device-side wait that timed out (harness/cuda/bounded_wait.cuh, here the hook's made-up
    # record): the point fails with the kernel's record, the context is lost, and every new
    # process passes over the failed points and measures the rest (each op's two points fail).
    out = os.path.join(tmp, "wait")
    env = hooks(WAIT_TIMEOUT="sync/primitives:grid_sync")
    r = run_all(gpuprobe, out, "--only", "sync/primitives", env=env)
    check(r.returncode == 1, f"a probe whose wait timed out: exit {r.returncode}: {r.stderr[-800:]}")
    rec = json.load(open(os.path.join(out, "raw", "sync_primitives.json")))
    clean = run_all(gpuprobe, os.path.join(tmp, "wait-clean"), "--only", "sync/primitives")
    want = json.load(open(os.path.join(tmp, "wait-clean", "raw", "sync_primitives.json")))
    check(clean.returncode == 0 and len(rec["series"]) == len(want["series"]),
          f"{len(rec['series'])} points after the timeouts, {len(want['series'])} without")
    timed = [p for p in rec["series"] if p.get("op") == "grid_sync"]
    check(len(timed) == sum(p.get("op") == "grid_sync" for p in want["series"]) > 1 and
          all(p["self_check"]["passed"] is False and
              p["self_check"]["evidence"]["wait_timeout"]["iteration"] == 17 for p in timed),
          f"the grid_sync points do not hold the record: {timed}")
    # One new process per timed-out point (each gets further by one point).
    check(r.stderr.count("measuring it again in a new process") == len(timed),
          f"not retried once per timed-out point: {r.stderr[-1500:]}")
    check(rec["status"] == "failed" and "grid_sync" in rec.get("error", ""), f"status {rec['status']}, "
          f"error {rec.get('error')!r}")


def test_terminal_progress(gpuprobe, tmp):
    """On a terminal: one line redrawn in place, the bar, the count, the probe, the times, cut to
    the terminal's width (a wrapped line leaves a stale row per redraw); the probes' own lines do
    not show."""
    out = os.path.join(tmp, "tty")
    master, slave = pty.openpty()
    columns = 60  # "[#####.....] 2/2 launch/graph --nodes 1,8,64,128  elapsed 0:01  ETA 0:00" is 72
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen([gpuprobe, "run-all", "--no-plot", "--quick", "--device", "sim:v100", "--out", out,
                             "--only", "compute/alu,launch/graph"], stdout=subprocess.DEVNULL,
                            stderr=slave)
    os.close(slave)
    text = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        text += chunk
    proc.wait(timeout=60)
    os.close(master)
    shown = text.decode(errors="replace")
    check(proc.returncode == 0, f"run-all on a terminal: exit {proc.returncode}")
    check(re.search(r"\r\x1b\[K\[#####\.\.\.\.\.\] 2/2 launch/graph --\S*\.\.\.  elapsed \d+:\d\d  ETA \d+:\d\d",
                    shown), f"no redrawn bar, cut to the width, on a terminal: {shown[-800:]!r}")
    bars = [seg.split("\r")[0].split("\n")[0] for seg in shown.split("\r\x1b[K")[1:]]
    bars = [b for b in bars if b.startswith("[")]
    wide = [b for b in bars if len(b) >= columns]
    check(not wide, f"bars as wide as the terminal or wider: {wide[:3]}")
    check("gpuprobe: [1/2]" not in shown, "a terminal got the line-per-probe form")
    check("cycles" not in shown, "the probes' per-point lines show on a terminal")


def main():
    args = test_args(__doc__.splitlines()[0])
    gpuprobe = os.path.abspath(args.gpuprobe or os.path.join(args.build_dir, "gpuprobe"))
    with tempfile.TemporaryDirectory() as tmp:
        test_killed_run(gpuprobe, tmp)
        test_interrupted_run(gpuprobe, tmp)
        test_signals_in_quick_succession(gpuprobe, tmp)
        test_failing_and_hanging(gpuprobe, tmp)
        test_terminal_progress(gpuprobe, tmp)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
