#!/usr/bin/env python3
"""Lint: ruff (scripts/requirements.txt, in the project's .venv) checks every Python file of the
tree with ruff.toml's rules (build folders and the .venv are left out through .gitignore). Self-test
first: a file with an unused import must be reported, so a ruff that checks nothing fails here.
Prints `lint: N passed, M failed`; exits non-zero on any failure.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_tools import Checks, test_args  # noqa: E402


def ruff_path():
    """ruff next to the Python running this test (the .venv's), else none."""
    path = os.path.join(os.path.dirname(sys.executable), "ruff")
    return path if os.access(path, os.X_OK) else None


def main():
    args = test_args(__doc__.splitlines()[0])
    check = Checks("lint")
    ruff = ruff_path()
    if not check(ruff is not None, f"ruff is installed next to {sys.executable} "
                 "(scripts/setup.sh installs scripts/requirements.txt)"):
        return check.finish()
    config = os.path.join(args.source_dir, "ruff.toml")
    with tempfile.TemporaryDirectory() as tmp:
        planted = os.path.join(tmp, "planted.py")
        with open(planted, "w", encoding="utf-8") as f:
            f.write("import os\n")
        r = subprocess.run([ruff, "check", "--config", config, "--no-cache", planted],
                           capture_output=True, text=True)
        check(r.returncode != 0 and "F401" in r.stdout, f"ruff reports a planted unused import: "
              f"{r.stdout.strip()[-500:]}")
    r = subprocess.run([ruff, "check", "--config", config, "--no-cache", "--output-format", "concise",
                        args.source_dir], capture_output=True, text=True)
    check(r.returncode == 0, f"ruff finds nothing in the tree:\n{r.stdout.strip()}{r.stderr.strip()}")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
