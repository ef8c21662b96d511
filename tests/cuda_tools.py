"""Shared by the Python tests: finding the CUDA disassemblers and reading CMake booleans."""
import glob
import os
import shutil
import sys


def truthy(text):
    return str(text).strip().lower() in {"1", "on", "true", "yes"}


def find_tool(name, venv_python):
    candidates = []
    if venv_python:
        prefix = os.path.dirname(os.path.dirname(os.path.abspath(venv_python)))
        candidates += glob.glob(os.path.join(prefix, "lib", "python3*", "site-packages", "nvidia",
                                             "**", "bin", name), recursive=True)
    candidates += glob.glob(os.path.join(sys.prefix, "lib", "python3*", "site-packages", "nvidia",
                                         "**", "bin", name), recursive=True)
    candidates.append(os.path.join("/usr/local/cuda/bin", name))
    found = shutil.which(name)
    if found:
        candidates.append(found)
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None
