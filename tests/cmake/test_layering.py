#!/usr/bin/env python3
"""The layering of the tree: ptx/ includes only ptx/; harness/ includes nothing from probes/,
analysis/ or cli/ (a family's code lives with the family and registers itself); analysis/ includes
nothing from probes/ or cli/; probes/ never include cli/. Each violation is printed with its file
and line. And every Catch2 test file (tests/**/*.cpp but main.cpp and fixtures/) puts its code in
`namespace GPUPROBE_TEST_FILE { ... }`, its own name in a unity batch (tests/CMakeLists.txt).
Planted violations prove both scans can fail."""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import test_args  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
FORBIDDEN = {
    "ptx": ("harness/", "probes/", "analysis/", "cli/"),
    "harness": ("probes/", "analysis/", "cli/"),
    "analysis": ("probes/", "cli/"),
    "probes": ("cli/",),
}
SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh", ".def")


def violations(root):
    found = []
    for layer, banned in FORBIDDEN.items():
        for dirpath, _, files in os.walk(os.path.join(root, layer)):
            for name in files:
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m and m.group(1).startswith(banned):
                            found.append(f"{os.path.relpath(path, root)}:{number}: {layer}/ "
                                         f"includes {m.group(1)}")
    return found


TEST_FILE_OPEN = re.compile(r"^namespace GPUPROBE_TEST_FILE \{$", re.M)
TEST_FILE_CLOSE = "}  // namespace GPUPROBE_TEST_FILE\n"


def unwrapped_test_files(root):
    """Test files whose code is not all inside namespace GPUPROBE_TEST_FILE: no opening line after
    the includes, or the file does not end with its closing line."""
    found = []
    for dirpath, dirs, files in os.walk(os.path.join(root, "tests")):
        dirs[:] = [d for d in dirs if d != "fixtures"]
        for name in files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if not name.endswith(".cpp") or rel == os.path.join("tests", "main.cpp"):
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            m = TEST_FILE_OPEN.search(text)
            last_include = max((i.end() for i in INCLUDE_ANY.finditer(text)), default=0)
            if not m or m.start() < last_include or not text.endswith(TEST_FILE_CLOSE):
                found.append(f"{rel}: its code is not inside namespace GPUPROBE_TEST_FILE {{ ... }}")
    return found


INCLUDE_ANY = re.compile(r"^\s*#\s*include\b.*$", re.M)


def report(problems, ok):
    """Prints each problem as a FAIL line, or `ok` when there are none; True when none."""
    for p in problems:
        print("FAIL", p)
    if not problems:
        print("ok:", ok)
    return not problems


def planted(files, scan):
    """What `scan` finds in a tree holding only `files` (path -> text)."""
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        return scan(tmp)


def main():
    args = test_args(__doc__.splitlines()[0])
    # Each scan must be able to fail: a tree with one planted violation.
    layer = planted({"harness/planted.cpp": '#include "probes/memory/chase_ops.hpp"\n'}, violations)
    outside = "#include <catch2/catch.hpp>\nnamespace {\nint helper() { return 1; }\n}\n"
    fixture = "int toy() { return 0; }\n"
    unwrapped = planted({"tests/test_planted.cpp": outside, "tests/fixtures/toy.cpp": fixture},
                        unwrapped_test_files)
    results = [
        report(violations(args.source_dir), "no layer includes a layer above it"),
        report([] if len(layer) == 1 else ["a planted harness -> probes include was not caught"],
               "a planted harness -> probes include is caught"),
        report(unwrapped_test_files(args.source_dir),
               "every test file keeps its names in namespace GPUPROBE_TEST_FILE"),
        report([] if len(unwrapped) == 1 else ["a planted test file outside the namespace was not caught"],
               "a planted test file outside the namespace is caught (fixtures/ are not test files)"),
    ]
    passed = sum(results)
    failed = len(results) - passed
    print(f"layering: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
