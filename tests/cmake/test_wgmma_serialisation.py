#!/usr/bin/env python3
"""Tests the wgmma serialisation check (cmake/gpuprobe_ptxas_check.sh, the compiler launcher of
every arch-specific unit in cmake/GpuprobeCuda.cmake) and that ptx/wgmma.cuh is its generator's
output (scripts/gen_ptx_wgmma.py).

  * each ptxas note that means serialised wgmma (C7510, C7511, C7517, C7519), printed by a stand-in
    compiler that succeeds, fails the step and removes its -o output; other info lines do not;
  * with nvcc: a kernel that touches its accumulator between the wgmma and the wait (ptxas injects
    warpgroup.wait/arrive) fails through the check, and the same kernel without the touch builds;
  * in a CUDA build that has sm_90a, the wgmma unit's compile goes through the check (build.ninja).
Prints `wgmma_serialisation: N passed, M failed`.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cuda_tools import nvcc_path, test_args, truthy  # noqa: E402

LOG = "wgmma_serialisation"
KERNEL = r"""
#include "ptx/wgmma.cuh"
using namespace gpuprobe::ptx;
extern "C" __global__ void k(uint32_t* out, uint64_t da, uint64_t db, int n) {
  uint32_t d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0;
  for (int it = 0; it < n; ++it) {
    wgmma_fence();
    wgmma_m64n64k16_f32_f16_ss(d, da, db);
#ifdef TOUCH
    d[0] += 1;  // an accumulator read and written before the wait: ptxas serialises
#endif
    wgmma_commit_group();
    wgmma_wait_group<0>();
  }
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
}
"""
checks = {"passed": 0, "failed": 0}


def check(ok, what, detail=""):
    checks["passed" if ok else "failed"] += 1
    if not ok:
        print(f"FAIL {what}" + (f": {detail}" if detail else ""))


def launcher(source_dir):
    return ["sh", os.path.join(source_dir, "cmake", "gpuprobe_ptxas_check.sh")]


def main():
    args = test_args(__doc__.splitlines()[0])
    src = args.source_dir
    generated = subprocess.run([sys.executable, os.path.join(src, "scripts", "gen_ptx_wgmma.py")],
                               capture_output=True, text=True)
    current = open(os.path.join(src, "ptx", "wgmma.cuh"), encoding="utf-8").read()
    check(generated.returncode == 0 and generated.stdout == current,
          "ptx/wgmma.cuh is the output of scripts/gen_ptx_wgmma.py (rerun it after editing)")

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "unit.o")
        notes = {
            "C7510": "ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async "
                     "instructions are serialized due to the presence of Extern calls",
            "C7511": "ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async "
                     "instructions are serialized due to insufficient register resources",
            "C7517": "ptxas info    : (C7517) warpgroup.wait is injected in around line 1 by "
                     "compiler to allow use of registers defined by GMMA in function 'k'",
            "C7519": "ptxas info    : (C7519) warpgroup.arrive is injected in around line 1 by "
                     "compiler to allow use of registers in GMMA in function 'k'",
            None: "ptxas info    : Used 90 registers, used 1 barriers, 10240 bytes smem",
        }
        for code, note in notes.items():
            fake = ["sh", "-c", f"echo \"{note}\" >&2; touch \"$1\"", "fake-nvcc", out]
            # The launcher sees the compile line, -o included, as CMake passes it.
            r = subprocess.run(launcher(src) + fake[:-1] + [out, "-o", out],
                               capture_output=True, text=True)
            if code is None:
                check(r.returncode == 0 and os.path.exists(out),
                      "an ordinary ptxas info line passes the check", r.stdout + r.stderr)
            else:
                check(r.returncode != 0 and "serialised wgmma" in r.stdout + r.stderr and
                      not os.path.exists(out) and note in r.stdout + r.stderr,
                      f"{code} fails the compile step, shows the note and removes the object",
                      r.stdout + r.stderr)
            if os.path.exists(out):
                os.remove(out)

        if not truthy(args.with_cuda):
            print(f"{LOG}: the CUDA probes are not built (GPUPROBE_WITH_CUDA=OFF): no nvcc checks")
        elif not os.path.exists(nvcc_path()):
            check(False, f"nvcc found ({nvcc_path()}): the build is configured with CUDA")
        else:
            path = os.path.join(tmp, "kernel.cu")
            with open(path, "w") as f:
                f.write(KERNEL)
            base = [nvcc_path(), "-std=c++17", "-I", src, "-c",
                    "-gencode=arch=compute_90a,code=sm_90a", path]
            r = subprocess.run(launcher(src) + base + ["-o", out], capture_output=True, text=True)
            check(r.returncode == 0 and os.path.exists(out),
                  "nvcc: the kernel without the touch builds through the check", r.stdout + r.stderr)
            if os.path.exists(out):
                os.remove(out)
            r = subprocess.run(launcher(src) + base + ["-DTOUCH", "-o", out], capture_output=True,
                               text=True)
            text = r.stdout + r.stderr
            check(r.returncode != 0 and ("C7517" in text or "C7519" in text) and
                  "serialised wgmma" in text and not os.path.exists(out),
                  "nvcc: a kernel touching its accumulator before the wait fails the build", text)
            # The project's build runs the wgmma unit through the check: its build line's rule
            # (build.ninja) has the launcher in its command (CMakeFiles/rules.ninja).
            ninja = os.path.join(args.build_dir, "build.ninja")
            rules = os.path.join(args.build_dir, "CMakeFiles", "rules.ninja")
            if "sm_90a" in args.cuda_targets and os.path.exists(ninja) and os.path.exists(rules):
                build = re.search(r"^build \S*wgmma\.sm90a\.cu\.o: (\S+)",
                                  open(ninja, encoding="utf-8").read(), re.M)
                rule = build and re.search(r"^rule " + re.escape(build.group(1)) +
                                           r"\n(?:  .*\n)*?  command = (.*)$",
                                           open(rules, encoding="utf-8").read(), re.M)
                check(bool(rule) and "gpuprobe_ptxas_check.sh" in rule.group(1),
                      "the build compiles wgmma.sm90a.cu through gpuprobe_ptxas_check.sh",
                      rule.group(1) if rule else "no build line or rule found")
    print(f"{LOG}: {checks['passed']} passed, {checks['failed']} failed")
    return 1 if checks["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
