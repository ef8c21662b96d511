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


def main():
    args = test_args(__doc__.splitlines()[0])
    passed = failed = 0
    found = violations(args.source_dir)
    for v in found:
        print("FAIL", v)
    if found:
        failed += 1
    else:
        passed += 1
        print("ok: no layer includes a layer above it")
    # The scan must be able to fail: a tree with one planted violation.
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "harness"))
        with open(os.path.join(tmp, "harness", "planted.cpp"), "w") as f:
            f.write('#include "probes/memory/chase_ops.hpp"\n')
        if len(violations(tmp)) == 1:
            passed += 1
            print("ok: a planted harness -> probes include is caught")
        else:
            failed += 1
            print("FAIL: a planted harness -> probes include was not caught")
    unwrapped = unwrapped_test_files(args.source_dir)
    for u in unwrapped:
        print("FAIL", u)
    if unwrapped:
        failed += 1
    else:
        passed += 1
        print("ok: every test file keeps its names in namespace GPUPROBE_TEST_FILE")
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "tests", "fixtures"))
        with open(os.path.join(tmp, "tests", "test_planted.cpp"), "w") as f:
            f.write('#include <catch2/catch.hpp>\nnamespace {\nint helper() { return 1; }\n}\n')
        with open(os.path.join(tmp, "tests", "fixtures", "toy.cpp"), "w") as f:
            f.write("int toy() { return 0; }\n")
        if len(unwrapped_test_files(tmp)) == 1:
            passed += 1
            print("ok: a planted test file outside the namespace is caught (fixtures/ are not test files)")
        else:
            failed += 1
            print("FAIL: a planted test file outside namespace GPUPROBE_TEST_FILE was not caught")
    print(f"layering: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
