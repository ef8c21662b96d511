#!/usr/bin/env python3
"""Tests analysis/plot_common.py format_value, the Python tools' one number-and-unit formatter: the
same table as tests/cli/test_format.cpp holds for its C++ twin (cli/format.hpp), so the report,
the plots and the command line print a number one way; and replace_atomically, whose temporary is
named PATH.tmp-<host>-<pid> like gpuprobe's own (harness/results.cpp), so that no other host's or
user's file is taken for it."""
import math
import os
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("plot_common")

TABLE = [((3.35e12, "bytes/s"), "3.35 TB/s"), ((912e9, "bytes/s"), "912 GB/s"),
         ((2e12, "bytes/s"), "2.00 TB/s"), ((989e12, "flop/s"), "989 TFLOP/s"),
         ((1.05e15, "flop/s"), "1.05 PFLOP/s"), ((1.979e15, "op/s"), "1.98 POP/s"),
         ((7.06e12, "ops/s"), "7.06 Top/s"), ((256.0 * 1024, "bytes"), "256 KiB"),
         ((1536, "bytes"), "1.5 KiB"), ((92.04, "percent"), "92.0%"),
         ((283.25, "cycles"), "283 cycles"), ((19.65, "ns"), "19.6 ns"),
         ((4.0, "cycles"), "4.00 cycles"), ((0.004, "flop/byte"), "0.004 flop/byte"),
         ((2.5e6, "ns"), "2.50 ms"), ((24.1, "flop/byte"), "24.1 flop/byte")]


def main():
    args = test_args(__doc__.splitlines()[0])
    sys.path.insert(0, os.path.join(args.source_dir, "analysis"))
    import plot_common  # noqa: E402

    for (value, unit), want in TABLE:
        got = plot_common.format_value(value, unit)
        check(got == want, f"format_value({value}, {unit!r}) = {got!r}, not {want!r}")
    for bad in (None, math.nan, "text", True):
        check(plot_common.format_value(bad, "ns") == "-", f"format_value({bad!r}) is not '-'")

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.png")
        seen = []

        def write(tmp):
            seen.append(os.path.basename(tmp))
            with open(tmp, "w") as f:
                f.write("x")

        plot_common.replace_atomically(path, write)
        want = f"m.png.tmp-{socket.gethostname().replace('/', '_')}-{os.getpid()}"
        check(seen == [want], f"replace_atomically wrote {seen}, not [{want!r}]")
        check(sorted(os.listdir(d)) == ["m.png"], f"replace_atomically left {sorted(os.listdir(d))}")

        # A killed plot's temporary is removed by the next write of that file; a user's file, a
        # live process's and another host's temporary are not (third hostile pass, ND2b).
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        child.wait()
        host = socket.gethostname().replace("/", "_")
        stale = f"m.png.tmp-{host}-{child.pid}"
        kept = [f"m.png.tmp-{host}-{os.getppid()}", f"m.png.tmp-another-host-{child.pid}",
                f"m.png.tmp-{child.pid}", "notes.tmp-1", f"other.png.tmp-{host}-{child.pid}",
                f"m.png.tmp-{host}-\u0661\u0662\u0663", f"m.png.tmp-{host}-\u00b2"]  # not ASCII digits: a user's
        for name in [stale] + kept:
            with open(os.path.join(d, name), "w") as f:
                f.write("{")
        plot_common.replace_atomically(path, write)
        left = sorted(os.listdir(d))
        check(stale not in left, f"the dead writer's {stale} was not removed: {left}")
        check(all(k in left for k in kept), f"a file not ours was removed: {left}")

    # A symbolic link is written through (the link stays, its target gets the new content), and a
    # FIFO or folder is refused in one line, as gpuprobe's own writers do (fourth hostile pass, ND6).
    with tempfile.TemporaryDirectory() as d:
        target, link = os.path.join(d, "target.png"), os.path.join(d, "r.png")
        with open(target, "w") as f:
            f.write("old")
        os.symlink("target.png", link)
        plot_common.write_bytes_atomically(link, b"new")
        check(os.path.islink(link), "the link was replaced by a plain file")
        check(open(target).read() == "new", "the link's target was not rewritten")
        fifo = os.path.join(d, "fifo.png")
        os.mkfifo(fifo)
        for bad in (fifo, d):
            r = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import plot_common; "
                                "plot_common.write_bytes_atomically(sys.argv[2], b'x')",
                                os.path.join(args.source_dir, "analysis"), bad], capture_output=True, text=True)
            check(r.returncode == 1 and r.stderr.count("\n") == 1 and "not a regular file" in r.stderr,
                  f"{bad}: not refused in one line: rc {r.returncode} {r.stderr!r}")
        check(os.path.exists(fifo) and not os.path.isfile(fifo), "the FIFO was replaced")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
