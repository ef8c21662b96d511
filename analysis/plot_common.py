"""What every plotting script shares: reading a machine model, checking its shape, binary sizes,
and writing a figure as PNG and SVG atomically. Errors name the script that runs (its file name),
as one line "plot_X: error: ..." and exit status 1, never a traceback."""
import json
import math
import os
import re
import socket
import sys

SCHEMA = "gpuprobe.machine_model"
SCHEMA_VERSION = 2
# Machine models of these versions have the sections the plots read (version 2 added metrics[]).
SCHEMA_VERSIONS = (1, 2)


def script_name():
    return os.path.splitext(os.path.basename(sys.argv[0] or "plot"))[0]


def fail(message):
    print(f"{script_name()}: error: {message}", file=sys.stderr)
    sys.exit(1)


def num(v):
    """Three significant figures without exponents for everyday magnitudes; "-" for no number."""
    if v is None or not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        return "-"
    a = abs(v)
    if a >= 100 or a == 0:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 0.01:
        return f"{v:.2f}"
    return f"{v:.3g}"


def scaled(v, unit, steps):
    for scale, prefix in steps:
        if abs(v) >= scale:
            return f"{num(v / scale)} {prefix}{unit}"
    return f"{num(v)} {unit}"


RATE_STEPS = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M")]


def format_value(value, unit):
    """The Python tools' one number-and-unit formatter (cli/format.hpp is its C++ twin, the same
    rules and text): rates with decimal prefixes as datasheets give them (B/s, FLOP/s, OP/s for
    integer tensor ops, op/s for thread-level ops), sizes in binary units (KiB = 1024 bytes), ns
    from 10^4 on as us, ms, s, the rest three significant figures."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return "-"
    if unit == "bytes/s":
        return scaled(value, "B/s", RATE_STEPS)
    if unit == "flop/s":
        return scaled(value, "FLOP/s", RATE_STEPS)
    if unit == "op/s":
        return scaled(value, "OP/s", RATE_STEPS)
    if unit == "ops/s":
        return scaled(value, "op/s", RATE_STEPS)
    if unit == "bytes":
        return human_bytes(value)
    if unit == "ns":
        if abs(value) < 1e4:
            return f"{num(value)} ns"
        return scaled(value / 1e9, "s", [(1, ""), (1e-3, "m"), (1e-6, "u")])
    if unit == "percent":
        return f"{num(value)}%"
    return f"{num(value)} {unit}"


def human_bytes(n):
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale:.0f} {unit}"
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def load_model(path, schema=SCHEMA, version=SCHEMA_VERSIONS, hint="", object_hook=None):
    """The JSON document at `path`, which must say it is `schema` of version `version` (a number,
    or a tuple of the versions accepted; default: a machine model of version 1 or 2); `hint` is
    added to the error when it is not. `object_hook` is json.load's (to leave out, while reading,
    what a large document holds and the caller does not need)."""
    try:
        with open(path, encoding="utf-8") as f:
            model = json.load(f, object_hook=object_hook)
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        fail(f"{path} is not valid JSON: {e}")
    versions = version if isinstance(version, tuple) else (version,)
    if not isinstance(model, dict) or model.get("schema") != schema \
            or model.get("schema_version") not in versions:
        shown = " or v".join(str(v) for v in versions)
        fail(f"{path} is not a {schema} v{shown} document{hint}")
    return model


class Malformed(Exception):
    """The model does not have the shape docs/SCHEMA.md gives; the message names the key."""


def expect(value, kind, where):
    if not isinstance(value, kind) or isinstance(value, bool):
        name = {dict: "an object", list: "an array"}.get(kind, "a number")
        raise Malformed(f"{where} is not {name}")
    return value


def number(value, where, allow_null=False):
    if value is None and allow_null:
        return None
    expect(value, (int, float), where)
    if not math.isfinite(value):
        raise Malformed(f"{where} is not finite")
    return float(value)


def output_folder_or_fail(prefix):
    folder = os.path.dirname(os.path.abspath(prefix))
    if not os.path.isdir(folder):
        fail(f"the output folder {folder} does not exist")


def host_name():
    """This machine's name as gpuprobe writes it into temporaries' names (harness/results.cpp)."""
    return socket.gethostname().replace("/", "_") or "unknown-host"


def remove_stale_temporaries(path):
    """Removes PATH.tmp-<this host>-<pid> files whose pid no process of this host has (a killed
    plot or report left them), as gpuprobe's writers do (harness/results.cpp
    remove_stale_temporaries): never a user's file, a live process's, or another host's."""
    folder, name = os.path.split(os.path.abspath(path))
    head = f"{name}.tmp-{host_name()}-"
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        digits = entry[len(head):]
        # ASCII digits only, as the C++ rule: str.isdigit() also takes '١٢٣' and '²'.
        if not entry.startswith(head) or not re.fullmatch(r"[0-9]{1,9}", digits):
            continue
        pid = int(digits)
        if pid <= 0 or pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
            continue  # alive
        except ProcessLookupError:
            pass
        except OSError:
            continue  # another user's process: not ours to judge
        stale = os.path.join(folder, entry)
        if os.path.isfile(stale) and not os.path.islink(stale):
            try:
                os.remove(stale)
            except OSError:
                pass


def replace_atomically(path, write):
    """Calls write(tmp) on a temporary name next to `path`, then renames it to `path` (a reader
    never sees half a file); a failure is one line and exit 1, the temporary removed. The
    temporary is named as gpuprobe names its own (harness/results.cpp temporary_path):
    PATH.tmp-<host>-<pid>; the ones a killed writer of this host left for `path` are removed
    first."""
    # A symbolic link is written through to its target (the link stays a link), and anything but a
    # regular file (a folder, FIFO, device or socket) is refused, as gpuprobe's writers do.
    real = os.path.realpath(path)
    if os.path.lexists(real) and not os.path.isfile(real):
        fail(f"cannot write {path}: it is not a regular file")
    remove_stale_temporaries(real)
    tmp = f"{real}.tmp-{host_name()}-{os.getpid()}"
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)  # on disk before the rename makes it the file
        finally:
            os.close(fd)
        os.replace(tmp, real)
    except OSError as e:
        if os.path.exists(tmp):
            os.remove(tmp)
        fail(f"cannot write {path}: {e.strerror}")


def write_bytes_atomically(path, data):
    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(data)
    replace_atomically(path, write)


def save_figure(fig, path_stem):
    """path_stem.png and path_stem.svg, each written atomically; the paths written."""
    written = []
    for ext in ("png", "svg"):
        out = f"{path_stem}.{ext}"
        replace_atomically(out, lambda tmp: fig.savefig(tmp, format=ext, dpi=120))
        written.append(out)
    return written
