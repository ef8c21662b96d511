#!/usr/bin/env python3
"""Every Catch2 test case runs under ctest as exactly one ctest test. catch_discover_tests cuts a
name at ';' into two tests whose filters match nothing, and Catch2 2.x exits 0 when no test
matched: nine test cases (locks, signals, resume, fuzz) silently never ran that way. A name that
starts with '-' is read as an option. So: no name holds ';', '[', ']', '"' or a backslash, none
starts with '-' or a space, and ctest holds one test per Catch2 test case. A planted list proves
the check can fail."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import test_args  # noqa: E402

BAD_CHARS = re.compile(r'[;\[\]"\\]')


def bad_names(names):
    found = []
    for name in names:
        if BAD_CHARS.search(name):
            found.append(f"{name!r}: holds one of ; [ ] \" \\ (ctest or Catch2 splits or misreads it)")
        if name[:1] in ("-", " ") or name != name.strip():
            found.append(f"{name!r}: starts with '-' or has surrounding spaces (read as an option)")
    return found


def main():
    args = test_args(__doc__.splitlines()[0])
    exe = os.path.join(args.build_dir, "tests", "gpuprobe_tests")
    # Catch2 2.x exits with the number of listed tests: the status says nothing here.
    listed = subprocess.run([exe, "--list-test-names-only"], capture_output=True, text=True).stdout
    names = [line for line in listed.splitlines() if line.strip()]
    passed = failed = 0

    problems = bad_names(names)
    for p in problems:
        print("FAIL", p)
    if problems:
        failed += 1
    else:
        passed += 1
        print(f"ok: {len(names)} Catch2 test names are safe for ctest")

    ctest = shutil.which("ctest") or "ctest"
    shown = subprocess.run([ctest, "--test-dir", args.build_dir, "-N"], capture_output=True,
                           text=True, check=True).stdout
    registered = [line for line in shown.splitlines()
                  if re.match(r"\s*Test\s+#\d+: ", line) and not re.search(r"#\d+: py/", line)]
    if len(registered) == len(names):
        passed += 1
        print(f"ok: ctest holds one test per Catch2 test case ({len(names)})")
    else:
        failed += 1
        print(f"FAIL: ctest holds {len(registered)} Catch2 tests for {len(names)} test cases")

    planted = bad_names(["fine, with commas", "a; b", "--out x", "tag [x]"])
    if len(planted) == 3:
        passed += 1
        print("ok: planted bad names are caught")
    else:
        failed += 1
        print(f"FAIL: planted bad names gave {planted}")
    print(f"catch names: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
