#!/usr/bin/env python3
"""Opens the HTML report in a real browser, headless Chromium (Debian's chromium package, which
scripts/setup.sh installs): the reports of the fixture tests/data/report and of a short run-all on
the simulated H100 render, every image loads (complete, naturalWidth > 0) and the console shows no
error. The checker is tested too: a page with a broken image, one with a console error and one
whose script throws must each fail it."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import Checks, test_args  # noqa: E402

check = Checks("report_html")


def find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def open_in_chromium(chromium, page, profile):
    """What headless Chromium saw of `page`: a list of problems, [] when the page rendered, every
    image loaded and nothing reached the console. The page's own inline script records on load
    (attributes of <html>) the images, how many decoded and every error event or console.error;
    Chromium's log (--enable-logging=stderr) shows every console message, as CONSOLE lines."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
           "--virtual-time-budget=15000", "--dump-dom", "file://" + os.path.abspath(page)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return ["chromium did not finish within 120 s"]
    problems = []
    if r.returncode != 0:
        problems.append(f"chromium exited {r.returncode}: {r.stderr[-500:]}")
    tag = re.search(r"<html\b[^>]*>", r.stdout)
    attrs = dict(re.findall(r'\b(data-[a-z-]+)="([^"]*)"', tag.group(0))) if tag else {}
    if attrs.get("data-self-check") != "done":
        problems.append("the page did not render (its load handler never ran)")
    else:
        images, loaded = int(attrs["data-images"]), int(attrs["data-images-loaded"])
        source_images = len(re.findall(r"<img\b", open(page, encoding="utf-8").read()))
        if images != source_images:
            problems.append(f"the browser saw {images} images, the file has {source_images}")
        if loaded != images:
            problems.append(f"{images - loaded} of {images} images did not load")
        if attrs["data-errors"] != "0":
            problems.append(f"{attrs['data-errors']} errors: {attrs['data-error-text']}")
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    if console:
        problems.append("console: " + " / ".join(console)[:500])
    return problems


def main():
    args = test_args(__doc__.splitlines()[0])
    chromium = find_chromium()
    if chromium is None:
        print("FAIL: chromium is not installed: scripts/setup.sh installs Debian's chromium "
              "package (apt-get install chromium); this test needs a real browser")
        return 1
    script = os.path.join(args.source_dir, "analysis", "report.py")
    data = os.path.join(args.source_dir, "tests", "data", "report")
    with tempfile.TemporaryDirectory(prefix="gpuprobe-report-html-") as tmp:
        profile = os.path.join(tmp, "profile")
        pages = []
        prefix = os.path.join(tmp, "fixture")
        r = subprocess.run([sys.executable, script, os.path.join(data, "model.json"), "--references",
                            os.path.join(data, "reference"), "--out-prefix", prefix],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"report of the fixture: {r.stderr.strip()}")
        pages.append((prefix + ".report.html", 5))

        # A short run-all on the simulator: the report as run-all writes it today.
        out = os.path.join(tmp, "sim")
        r = subprocess.run([args.gpuprobe, "run-all", "--device", "sim:h100", "--out", out, "--only",
                            "launch,bandwidth/shared,compute/alu,sync/primitives,memory/chase_shared"],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"run-all: {r.stderr.strip()[-500:]}")
        pages.append((os.path.join(out, "report.html"), 3))
        if check.failures:
            return 1

        for page, min_images in pages:
            n = len(re.findall(r"<img\b", open(page, encoding="utf-8").read()))
            check(n >= min_images, f"{page}: {n} images, expected at least {min_images}")
            problems = open_in_chromium(chromium, page, profile)
            check(not problems, f"{page}: " + "; ".join(problems))

        # The checker must be able to fail: a broken image, a console error, a script error.
        good = open(pages[0][0], encoding="utf-8").read()
        broken = re.sub(r'src="data:image/png;base64,[^"]*"', 'src="data:image/png;base64,AAAA"',
                        good, count=1)
        cases = {
            "broken image": (broken, "1 of 5 images did not load"),
            "console error": (good.replace("</body>", "<script>console.error('boom')</script></body>"),
                              "boom"),
            "script error": (good.replace("</body>", "<script>undefinedFunction()</script></body>"),
                             "undefinedFunction"),
        }
        for name, (text, expected) in cases.items():
            path = os.path.join(tmp, name.replace(" ", "_") + ".html")
            open(path, "w", encoding="utf-8").write(text)
            problems = open_in_chromium(chromium, path, profile)
            check(any(expected in p for p in problems),
                  f"the checker did not catch a {name} ({expected!r}): {problems}")
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
