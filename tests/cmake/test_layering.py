#!/usr/bin/env python3
"""The layering of the tree: ptx/ includes only ptx/; harness/ includes nothing from probes/,
analysis/ or cli/ (a family's code lives with the family and registers itself); analysis/ includes
nothing from probes/ or cli/; probes/ never include cli/. Each violation is printed with its file
and line. A planted violation proves the scan can fail."""
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
    print(f"layering: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
