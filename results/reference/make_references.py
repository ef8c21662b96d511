#!/usr/bin/env python3
"""Writes results/reference/<gpu>.json: reference profiles of published GPUs for `gpuprobe compare`.

    python results/reference/make_references.py [--check]

Every number below is one that docs/FIGURES.md states, with its section, row and source tag;
nothing here is measured by gpuprobe. A profile is a machine model (schema
gpuprobe.machine_model v2) holding only `device` and `metrics`, with "source": "published" on the
document and on every metric. per_sm_per_clock is the value / (SMs x the clock FIGURES gives
for that figure), for rates only. --check compares the files on disk with what this script would
write and exits 1 naming the first that differs (tests/results/test_references.py runs it).
"""
import json
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Per GPU: the device (name, SMs, the clock FIGURES gives, compute capability) and its metrics as
# (id, value, clock_mhz or None, method, citation). A rate's clock_mhz is the clock its
# per_sm_per_clock is computed at; a latency's, the clock of the run that measured it.
GPUS = {
    "v100": {
        "about": "V100 SXM2 datasheet peaks; latencies and bandwidths of V100 PCIe runs at 1380 MHz.",
        "device": {"name": "Tesla V100", "sm_count": 80, "rated_sm_clock_mhz": 1530.0, "compute_capability": "7.0"},
        "metrics": [
            ("memory.shared.latency_cycles", 19, 1380, "paper, shared-memory chase",
             "FIGURES.md §2 V100 Shared mem [JIA18]"),
            ("memory.L1.latency_cycles", 28.0, 1380, "gpu-benches 2025 pointer chase, one thread",
             "FIGURES.md §2 V100 L1 hit [GB25]"),
            ("memory.L2.latency_cycles", 215, 1380, "gpu-benches pointer chase",
             "FIGURES.md §2 V100 L2 hit [GB24]"),
            ("memory.L2.latency_ns", 156, 1380, "gpu-benches pointer chase",
             "FIGURES.md §2 V100 L2 hit [GB24]"),
            ("memory.DRAM.latency_cycles", 437, 1380, "gpu-benches pointer chase",
             "FIGURES.md §2 V100 DRAM [GB24]"),
            ("memory.DRAM.latency_ns", 316, 1380, "gpu-benches pointer chase",
             "FIGURES.md §2 V100 DRAM [GB24]"),
            ("memory.L1.capacity_bytes", 115 * 1024, None, "MT4G size probe (V100 115 KiB)",
             "FIGURES.md §3 Measured L1 capacity [MT4G]"),
            ("memory.L2.capacity_bytes", 6 * 1024 * 1024, None, "MT4G: 80 SM / 6 MiB",
             "FIGURES.md §1 V100 L2 [MT4G]"),
            ("bandwidth.L1.bytes_per_s", 13.9e12, 1380, "gpu-cache L1 (V100 PCIe, 1380 MHz)",
             "FIGURES.md §4 V100 L1 [GB24]"),
            ("bandwidth.L2.bytes_per_s", 2.4e12, 1380, "gpu-cache, replicated read",
             "FIGURES.md §4 V100 L2 [GB24]"),
            ("bandwidth.DRAM.read_bytes_per_s", 866e9, 1380, "gpu-stream read",
             "FIGURES.md §4 V100 DRAM measured [GB24]"),
            ("bandwidth.DRAM.write_bytes_per_s", 895e9, 1380, "gpu-stream init (write only)",
             "FIGURES.md §4 V100 DRAM measured [GB24]"),
            ("compute.fma_rn_f32.flops_per_s", 15.7e12, 1530, "datasheet FP32 (SXM2)",
             "FIGURES.md §1 V100 FP32 [FUDZ]"),
            ("compute.fma_rn_f64.flops_per_s", 7.8e12, 1530, "datasheet FP64 (SXM2)",
             "FIGURES.md §1 V100 FP64 [FUDZ]"),
            ("compute.fma_rn_f64.latency_cycles", 8, None, "gpu-benches cuda-incore DFMA latency",
             "FIGURES.md §5b DFMA latency [GB24]"),
            ("tensor.f16.flops_per_s", 125e12, 1530, "datasheet mixed-precision tensor peak (SXM2)",
             "FIGURES.md §1 V100 FP16/BF16 TC [NVBLOG-TC9]"),
        ],
    },
    "a100": {
        "about": "A100 40GB datasheet peaks; latencies of A100 runs at 1410 MHz; L1/L2 bandwidth and launch costs of an A100-80 run.",
        "device": {"name": "NVIDIA A100 40GB", "sm_count": 108, "rated_sm_clock_mhz": 1410.0, "compute_capability": "8.0"},
        "metrics": [
            ("memory.shared.latency_cycles", 29.0, 1410, "paper, shared-memory chase",
             "FIGURES.md §2 A100 Shared mem [LUO25]"),
            ("memory.L1.latency_cycles", 33.1, 1410, "gpu-benches pointer chase",
             "FIGURES.md §2 A100 L1 hit [GB25]"),
            ("memory.L1.latency_ns", 23, 1410, "gpu-benches pointer chase",
             "FIGURES.md §2 A100 L1 hit [GB25]"),
            ("memory.L2.latency_cycles", 213.0, 1410, "near-L2 plateau of a100_40.txt",
             "FIGURES.md §2c A100 plateaus [GB24]"),
            ("memory.L2.latency_ns", 150, 1410, "gpu-benches pointer chase",
             "FIGURES.md §2 A100 L2 hit [GB24]"),
            ("memory.L2-far.latency_cycles", 426.3, 1410, "far-L2 plateau of a100_40.txt",
             "FIGURES.md §2c A100 plateaus [GB24]"),
            ("memory.L2-far.latency_ns", 301, 1410, "gpu-benches pointer chase",
             "FIGURES.md §2 A100 L2 far partition [GB24]"),
            ("memory.DRAM.latency_cycles", 570.3, 1410, "DRAM plateau of a100_40.txt",
             "FIGURES.md §2c A100 plateaus [GB24]"),
            ("memory.DRAM.latency_ns", 407, 1410, "gpu-benches pointer chase",
             "FIGURES.md §2 A100 DRAM [GB24]"),
            ("memory.L1.capacity_bytes", 172 * 1024, None, "MT4G size probe (A100-PCIe 172 KiB)",
             "FIGURES.md §3 Measured L1 capacity [MT4G]"),
            ("memory.L2.capacity_bytes", 20 * 1024 * 1024, None, "L2 partition seen by one SM: 20 MiB of 40",
             "FIGURES.md §3 L2 partition [MT4G]"),
            ("memory.L2-far.capacity_bytes", 40 * 1024 * 1024, None, "whole L2: 2 x 20 MiB",
             "FIGURES.md §3 L2 partition [MT4G]"),
            ("bandwidth.L1.bytes_per_s", 19.1e12, 1410, "gpu-cache L1 (A100-80 run)",
             "FIGURES.md §4 A100 40GB L1 [GB24]"),
            ("bandwidth.L2.bytes_per_s", 5.4e12, 1410, "gpu-l2-cache (A100-80 run)",
             "FIGURES.md §4 A100 40GB L2 [GB24]"),
            ("bandwidth.DRAM.read_bytes_per_s", 1490e9, 1410, "gpu-stream read (A100-40)",
             "FIGURES.md §4 A100 40GB DRAM measured [GB24]"),
            ("bandwidth.DRAM.write_bytes_per_s", 1505e9, 1410, "gpu-stream init, write only (A100-40)",
             "FIGURES.md §4 A100 40GB DRAM measured [GB24]"),
            ("compute.fma_rn_f32.flops_per_s", 19.5e12, 1410, "datasheet FP32",
             "FIGURES.md §1 A100 40GB FP32 [GLK]"),
            ("compute.fma_rn_f64.flops_per_s", 9.7e12, 1410, "datasheet FP64 (CUDA cores)",
             "FIGURES.md §1 A100 40GB FP64 [GLK]"),
            ("tensor.f64.flops_per_s", 19.5e12, 1410, "datasheet FP64 tensor core",
             "FIGURES.md §1 A100 40GB FP64-TC [GLK]"),
            ("tensor.tf32.flops_per_s", 156e12, 1410, "datasheet dense TF32",
             "FIGURES.md §1 A100 40GB TF32 [GLK]"),
            ("tensor.f16.flops_per_s", 312e12, 1410, "datasheet dense FP16",
             "FIGURES.md §1 A100 40GB FP16/BF16 TC [GLK]"),
            ("tensor.bf16.flops_per_s", 312e12, 1410, "datasheet dense BF16",
             "FIGURES.md §1 A100 40GB FP16/BF16 TC [GLK]"),
            ("tensor.s8.ops_per_s", 624e12, 1410, "datasheet dense INT8 (TOPS)",
             "FIGURES.md §1 A100 40GB INT8 TC [GLK]"),
            ("launch.small_kernels.stream.overhead_ns", 2620, None,
             "host-bound: A100-80: back-to-back stream launches of a 64 KiB SCALE kernel, per kernel incl. its work",
             "FIGURES.md §7 A100-80 [GB24]"),
            ("launch.small_kernels.graph.overhead_ns", 1340, None,
             "GPU-side: A100-80: the same kernels in one CUDA graph, per kernel incl. its work",
             "FIGURES.md §7 A100-80 [GB24]"),
            ("launch.small_kernels.gsync.overhead_ns", 1340, None,
             "GPU-side: A100-80: grid.sync + tiny SCALE on 64 KiB per iteration (an upper bound)",
             "FIGURES.md §6 grid.sync [GB24]"),
        ],
    },
    "h100": {
        "about": "H100 SXM5 datasheet peaks (tensor peaks at the 1830 MHz tensor clock); MT4G latencies of an H100 80GB HBM3; no DRAM latency (FIGURES.md section 9.2 calls MT4G's suspect).",
        "device": {"name": "NVIDIA H100 SXM5", "sm_count": 132, "rated_sm_clock_mhz": 1980.0, "compute_capability": "9.0"},
        "metrics": [
            ("memory.shared.latency_cycles", 30, 1980, "MT4G p50",
             "FIGURES.md §2 H100 SXM5 Shared mem [MT4G]"),
            ("memory.L1.latency_cycles", 38, 1980, "MT4G",
             "FIGURES.md §2 H100 SXM5 L1 hit [MT4G]"),
            ("memory.L2.latency_cycles", 222, 1980, "MT4G p50",
             "FIGURES.md §2 H100 SXM5 L2 hit [MT4G]"),
            ("memory.L1.capacity_bytes", 233 * 1024, None, "MT4G size probe (H100 SXM 233 KiB)",
             "FIGURES.md §3 Measured L1 capacity [MT4G]"),
            ("memory.L2.capacity_bytes", 25 * 1024 * 1024, None, "L2 partition seen by one SM: 25 MiB of 50",
             "FIGURES.md §3 L2 partition [MT4G]"),
            ("memory.L2-far.capacity_bytes", 50 * 1024 * 1024, None, "whole L2: 2 x 25 MiB",
             "FIGURES.md §3 L2 partition [MT4G]"),
            ("bandwidth.L2.bytes_per_s", 4529 * 2**30, 1980, "MT4G L2 read 4529 GiB/s",
             "FIGURES.md §4 H100 SXM L2 [MT4G]"),
            ("bandwidth.DRAM.read_bytes_per_s", 3.18e12, 1980, "Azure STREAM dot (reads only)",
             "FIGURES.md §4 H100 SXM DRAM measured [AZ]"),
            ("bandwidth.DRAM.copy_bytes_per_s", 2.90e12, 1980, "Azure STREAM copy",
             "FIGURES.md §4 H100 SXM DRAM measured [AZ]"),
            ("compute.fma_rn_f32.flops_per_s", 67e12, 1980, "datasheet FP32",
             "FIGURES.md §1 H100 SXM5 FP32 [HPCTECH]"),
            ("compute.fma_rn_f64.flops_per_s", 34e12, 1980, "datasheet FP64 (CUDA cores)",
             "FIGURES.md §1 H100 SXM5 FP64 [HPCTECH]"),
            # FIGURES §9.6: the tensor peaks are stated at the 1830 MHz tensor spec clock, FP64's
            # at the 1980 MHz boost (67 TF = 132 SMs x 256 FLOP/clk x 1980 MHz).
            ("tensor.f64.flops_per_s", 67e12, 1980, "datasheet FP64 tensor core (boost clock)",
             "FIGURES.md §1 H100 SXM5 FP64-TC [HPCTECH]"),
            ("tensor.tf32.flops_per_s", 494.5e12, 1830, "datasheet dense TF32 (sparse halved)",
             "FIGURES.md §1 H100 SXM5 TF32 [HPCTECH]"),
            ("tensor.f16.flops_per_s", 989e12, 1830, "datasheet dense FP16",
             "FIGURES.md §1 H100 SXM5 FP16/BF16 TC [HPCTECH]"),
            ("tensor.bf16.flops_per_s", 989e12, 1830, "datasheet dense BF16",
             "FIGURES.md §1 H100 SXM5 FP16/BF16 TC [HPCTECH]"),
            ("tensor.e4m3.flops_per_s", 1979e12, 1830, "datasheet dense FP8",
             "FIGURES.md §1 H100 SXM5 FP8 TC [HPCTECH]"),
            ("tensor.s8.ops_per_s", 1979e12, 1830, "datasheet dense INT8 (TOPS)",
             "FIGURES.md §1 H100 SXM5 INT8 TC [HPCTECH]"),
        ],
    },
    "h100-pcie": {
        "about": "H100 PCIe datasheet peaks (tensor peaks at the 1620 MHz tensor clock); gpu-benches latencies and bandwidths at 1755 MHz.",
        "device": {"name": "NVIDIA H100 PCIe", "sm_count": 114, "rated_sm_clock_mhz": 1755.0,
                   "compute_capability": "9.0"},
        "metrics": [
            ("memory.L1.latency_cycles", 34.1, 1755, "gpu-benches pointer chase",
             "FIGURES.md §2 H100 PCIe L1 hit [GB24]"),
            ("memory.L1.latency_ns", 19, 1755, "gpu-benches pointer chase",
             "FIGURES.md §2 H100 PCIe L1 hit [GB24]"),
            ("memory.L2.latency_cycles", 265.6, 1755, "gpu-benches pointer chase",
             "FIGURES.md §2 H100 PCIe L2 hit [GB24]"),
            ("memory.L2.latency_ns", 151, 1755, "gpu-benches pointer chase",
             "FIGURES.md §2 H100 PCIe L2 hit [GB24]"),
            ("memory.L2-far.latency_cycles", 475.3, 1755, "far-L2 plateau of h100_pcie.txt",
             "FIGURES.md §2c H100 PCIe plateaus [GB24]"),
            ("memory.L2-far.latency_ns", 271, 1755, "gpu-benches pointer chase",
             "FIGURES.md §2 H100 PCIe L2 far partition [GB24]"),
            ("memory.DRAM.latency_cycles", 649.5, 1755, "DRAM plateau of h100_pcie.txt",
             "FIGURES.md §2c H100 PCIe plateaus [GB24]"),
            ("memory.DRAM.latency_ns", 374, 1755, "gpu-benches pointer chase",
             "FIGURES.md §2 H100 PCIe DRAM [GB24]"),
            ("memory.L2.capacity_bytes", 25 * 1024 * 1024, None, "L2 partition seen by one SM: 25 MiB of 50",
             "FIGURES.md §3 L2 partition [MT4G]"),
            ("memory.L2-far.capacity_bytes", 50 * 1024 * 1024, None, "whole L2 (50 MB)",
             "FIGURES.md §1 H100 PCIe L2 [CC-H100]"),
            ("bandwidth.L1.bytes_per_s", 25.2e12, 1755, "gpu-cache L1",
             "FIGURES.md §4 H100 PCIe L1 [GB24]"),
            ("bandwidth.L2.bytes_per_s", 7.0e12, 1755, "gpu-l2-cache, 1-37 MB (7.0-7.8 TB/s, the lower end)",
             "FIGURES.md §4 H100 PCIe L2 [GB24]"),
            ("bandwidth.DRAM.read_bytes_per_s", 1942e9, 1755, "gpu-stream read",
             "FIGURES.md §4 H100 PCIe DRAM measured [GB24]"),
            ("bandwidth.DRAM.write_bytes_per_s", 2016e9, 1755, "gpu-stream init (write only)",
             "FIGURES.md §4 H100 PCIe DRAM measured [GB24]"),
            ("compute.fma_rn_f32.flops_per_s", 51e12, 1755, "datasheet FP32",
             "FIGURES.md §1 H100 PCIe FP32 [HPCTECH]"),
            ("compute.fma_rn_f64.flops_per_s", 26e12, 1755, "datasheet FP64 (CUDA cores)",
             "FIGURES.md §1 H100 PCIe FP64 [HPCTECH]"),
            # FIGURES §1: the tensor peaks are stated at the 1620 MHz tensor spec clock [H100-WP]
            # (756 TF = 114 SMs x 4096 FLOP/clk x 1620 MHz), FP64's at the 1755 MHz boost.
            ("tensor.f64.flops_per_s", 51e12, 1755, "datasheet FP64 tensor core (boost clock)",
             "FIGURES.md §1 H100 PCIe FP64-TC [HPCTECH]"),
            ("tensor.tf32.flops_per_s", 378e12, 1620, "datasheet dense TF32 (tensor clock)",
             "FIGURES.md §1 H100 PCIe TF32 [HPCTECH]"),
            ("tensor.f16.flops_per_s", 756e12, 1620, "datasheet dense FP16 (tensor clock)",
             "FIGURES.md §1 H100 PCIe FP16/BF16 TC [HPCTECH]"),
            ("tensor.bf16.flops_per_s", 756e12, 1620, "datasheet dense BF16 (tensor clock)",
             "FIGURES.md §1 H100 PCIe FP16/BF16 TC [HPCTECH]"),
            ("tensor.e4m3.flops_per_s", 1513e12, 1620, "datasheet dense FP8 (tensor clock)",
             "FIGURES.md §1 H100 PCIe FP8 TC [HPCTECH]"),
            ("tensor.s8.ops_per_s", 1513e12, 1620, "datasheet dense INT8 (TOPS; tensor clock)",
             "FIGURES.md §1 H100 PCIe INT8 TC [HPCTECH]"),
        ],
    },
    "h200": {
        "about": "H200 SXM datasheet peaks (tensor peaks at the H100 tensor clock); STREAM, L2 bandwidth and launch costs; FIGURES.md gives no H200 latency.",
        "device": {"name": "NVIDIA H200 SXM", "sm_count": 132, "rated_sm_clock_mhz": 1980.0,
                   "compute_capability": "9.0"},
        "metrics": [
            ("memory.L2-far.capacity_bytes", 50 * 1024 * 1024, None, "whole L2 (50 MB)",
             "FIGURES.md §1 H200 SXM L2 [S-B200]"),
            ("bandwidth.L2.bytes_per_s", 9.7e12, 1980, "gpu-l2-cache to ~44 MB (9.7-10 TB/s, the lower end)",
             "FIGURES.md §4 H200 L2 [GB24]"),
            ("bandwidth.DRAM.read_bytes_per_s", 4.57e12, 1980, "Azure STREAM dot (reads only)",
             "FIGURES.md §4 H200 DRAM measured [AZ]"),
            ("bandwidth.DRAM.copy_bytes_per_s", 4.01e12, 1980, "Azure STREAM copy",
             "FIGURES.md §4 H200 DRAM measured [AZ]"),
            ("bandwidth.DRAM.write_bytes_per_s", 3898e9, 1980, "gpu-stream init (write only)",
             "FIGURES.md §4 H200 DRAM measured [GB24]"),
            ("compute.fma_rn_f32.flops_per_s", 67e12, 1980, "datasheet FP32",
             "FIGURES.md §1 H200 SXM FP32 [MLE]"),
            ("compute.fma_rn_f64.flops_per_s", 34e12, 1980, "datasheet FP64 (CUDA cores)",
             "FIGURES.md §1 H200 SXM FP64 [MLE]"),
            ("tensor.f64.flops_per_s", 67e12, 1980, "datasheet FP64 tensor core (H100 boost clock)",
             "FIGURES.md §1 H200 SXM FP64-TC [MLE]"),
            ("tensor.tf32.flops_per_s", 494.5e12, 1830, "datasheet dense TF32 (H100 tensor clock)",
             "FIGURES.md §1 H200 SXM TF32 [MLE]"),
            ("tensor.f16.flops_per_s", 989e12, 1830, "datasheet dense FP16 (H100 tensor clock)",
             "FIGURES.md §1 H200 SXM FP16/BF16 TC [MLE]"),
            ("tensor.bf16.flops_per_s", 989e12, 1830, "datasheet dense BF16 (H100 tensor clock)",
             "FIGURES.md §1 H200 SXM FP16/BF16 TC [MLE]"),
            ("tensor.e4m3.flops_per_s", 1979e12, 1830, "datasheet dense FP8 (H100 tensor clock)",
             "FIGURES.md §1 H200 SXM FP8 TC [MLE]"),
            ("tensor.s8.ops_per_s", 1979e12, 1830, "datasheet dense INT8 (TOPS; H100 tensor clock)",
             "FIGURES.md §1 H200 SXM INT8 TC [MLE]"),
            ("launch.small_kernels.stream.overhead_ns", 2430, None,
             "host-bound: back-to-back stream launches of a 64 KiB SCALE kernel, per kernel incl. its work",
             "FIGURES.md §7 H200 [GB24]"),
            ("launch.small_kernels.graph.overhead_ns", 1260, None,
             "GPU-side: the same kernels in one CUDA graph, per kernel incl. its work", "FIGURES.md §7 H200 [GB24]"),
            ("launch.small_kernels.gsync.overhead_ns", 1130, None,
             "GPU-side: grid.sync + tiny SCALE on 64 KiB per iteration (an upper bound)", "FIGURES.md §6 grid.sync [GB24]"),
            ("launch.small_kernels.pt.overhead_ns", 1040, None,
             "GPU-side: persistent threads, atomic-flag barrier, per iteration (an upper bound)",
             "FIGURES.md §6 persistent threads [GB24]"),
        ],
    },
    "gh200": {
        "about": "GH200 gpu-benches runs at 1980 MHz; datasheet peaks.",
        "device": {"name": "NVIDIA GH200", "sm_count": 132,
                   "rated_sm_clock_mhz": 1980.0, "compute_capability": "9.0"},
        "metrics": [
            ("memory.L1.latency_cycles", 32.0, 1980, "gpu-benches pointer chase",
             "FIGURES.md §2 GH200 L1 hit [GB25]"),
            ("memory.L1.latency_ns", 16, 1980, "gpu-benches pointer chase", "FIGURES.md §2 GH200 L1 hit [GB25]"),
            ("memory.L2.latency_cycles", 280.4, 1980, "gpu-benches pointer chase",
             "FIGURES.md §2 GH200 L2 hit [GB25]"),
            ("memory.L2.latency_ns", 142, 1980, "gpu-benches pointer chase", "FIGURES.md §2 GH200 L2 hit [GB25]"),
            ("memory.DRAM.latency_ns", 347, 1980, "gpu-benches pointer chase (680-689 cycles)",
             "FIGURES.md §2 GH200 DRAM [GB25]"),
            ("bandwidth.DRAM.read_bytes_per_s", 2775e9, 1980, "gpu-stream read",
             "FIGURES.md §4 GH200 DRAM measured [GB25]"),
            ("bandwidth.DRAM.write_bytes_per_s", 3944e9, 1980, "gpu-stream init (write only)",
             "FIGURES.md §4 GH200 DRAM measured [GB25]"),
            ("compute.fma_rn_f32.flops_per_s", 67e12, 1980, "datasheet FP32", "FIGURES.md §1 GH200 FP32 [MLE]"),
            ("tensor.f16.flops_per_s", 989e12, 1830, "datasheet dense FP16 (H100 tensor clock)",
             "FIGURES.md §1 GH200 FP16/BF16 TC [MLE]"),
            ("tensor.bf16.flops_per_s", 989e12, 1830, "datasheet dense BF16 (H100 tensor clock)",
             "FIGURES.md §1 GH200 FP16/BF16 TC [MLE]"),
            ("tensor.e4m3.flops_per_s", 1979e12, 1830, "datasheet dense FP8 (H100 tensor clock)",
             "FIGURES.md §1 GH200 FP8 TC [MLE]"),
        ],
    },
    "l40": {
        "about": "L40 gpu-benches runs at 2490 MHz; FIGURES.md gives no datasheet peak.",
        "device": {"name": "NVIDIA L40", "sm_count": 142,
                   "rated_sm_clock_mhz": 2490.0, "compute_capability": "8.9"},
        "metrics": [
            ("memory.L1.latency_cycles", 36.1, 2490, "gpu-benches pointer chase",
             "FIGURES.md §2 L40 L1 hit [GB24]"),
            ("memory.L1.latency_ns", 14, 2490, "gpu-benches pointer chase", "FIGURES.md §2 L40 L1 hit [GB24]"),
            ("memory.L2.latency_cycles", 276.5, 2490, "gpu-benches pointer chase (one flat level to ~90 MB)",
             "FIGURES.md §2 L40 L2 hit [GB24]"),
            ("memory.L2.latency_ns", 111, 2490, "gpu-benches pointer chase", "FIGURES.md §2 L40 L2 hit [GB24]"),
            ("memory.DRAM.latency_cycles", 631.7, 2490, "gpu-benches pointer chase",
             "FIGURES.md §2 L40 DRAM [GB24]"),
            ("memory.DRAM.latency_ns", 254, 2490, "gpu-benches pointer chase", "FIGURES.md §2 L40 DRAM [GB24]"),
            ("memory.L2.capacity_bytes", 96 * 1024 * 1024, None, "L2 96 MB (plateau to ~90 MB)",
             "FIGURES.md §1 L40 L2 [GB24]"),
            ("bandwidth.L1.bytes_per_s", 22.6e12, 2490, "gpu-cache L1",
             "FIGURES.md §4 L40 L1 [GB24]"),
            ("bandwidth.L2.bytes_per_s", 5.2e12, 2490, "gpu-l2-cache to ~92 MB",
             "FIGURES.md §4 L40 L2 [GB24]"),
            ("bandwidth.DRAM.read_bytes_per_s", 844e9, 2490, "gpu-stream read",
             "FIGURES.md §4 L40 DRAM measured [GB24]"),
            ("bandwidth.DRAM.write_bytes_per_s", 846e9, 2490, "gpu-stream init (write only)",
             "FIGURES.md §4 L40 DRAM measured [GB24]"),
            ("launch.small_kernels.stream.overhead_ns", 1640, None,
             "host-bound: back-to-back stream launches of a 64 KiB SCALE kernel, per kernel incl. its work",
             "FIGURES.md §7 L40 [GB24]"),
            ("launch.small_kernels.graph.overhead_ns", 940, None,
             "GPU-side: the same kernels in one CUDA graph, per kernel incl. its work", "FIGURES.md §7 L40 [GB24]"),
            ("launch.small_kernels.gsync.overhead_ns", 820, None,
             "GPU-side: grid.sync + tiny SCALE on 64 KiB per iteration (an upper bound)", "FIGURES.md §6 grid.sync [GB24]"),
            ("launch.small_kernels.pt.overhead_ns", 660, None,
             "GPU-side: persistent threads, atomic-flag barrier, per iteration (an upper bound)",
             "FIGURES.md §6 persistent threads [GB24]"),
        ],
    },
    "b200": {
        "about": "B200 datasheet peaks (tensor peaks at the 1.85 GHz FIGURES.md derives them with); L1/L2 latency in ns; TMA DRAM bandwidth; DRAM latency disputed (FIGURES.md section 9.4), left out.",
        "device": {"name": "NVIDIA B200 (SXM)", "sm_count": 148, "rated_sm_clock_mhz": 1965.0,
                   "compute_capability": "10.0"},
        "metrics": [
            ("memory.L1.latency_cycles", 39, None, "Chips and Cheese (19.6 ns)",
             "FIGURES.md §2 B200 L1 hit [CC-B200]"),
            ("memory.L1.latency_ns", 19.6, None, "Chips and Cheese (39 cycles)",
             "FIGURES.md §2 B200 L1 hit [CC-B200]"),
            ("memory.L2.latency_ns", 150, None, "Chips and Cheese, local die (~150 ns)",
             "FIGURES.md §2 B200 L2 hit [CC-B200]"),
            ("memory.L2-far.capacity_bytes", 126 * 1024 * 1024, None, "L2 126 MB",
             "FIGURES.md §1 B200 L2 [CC-B200]"),
            ("bandwidth.DRAM.read_bytes_per_s", 7.26e12, 1965, "SemiAnalysis TMA-2D load",
             "FIGURES.md §4 B200 DRAM measured [SA]"),
            ("compute.fma_rn_f32.flops_per_s", 80e12, 1965, "datasheet FP32",
             "FIGURES.md §1 B200 FP32 [MLE]"),
            # FIGURES §1: the tensor peaks match 8192 FLOP/clk/SM x 148 SMs at 1.85 GHz.
            ("tensor.tf32.flops_per_s", 1125e12, 1850, "datasheet dense TF32 (tensor clock 1.85 GHz assumed)",
             "FIGURES.md §1 B200 TF32 [MLE]"),
            ("tensor.f16.flops_per_s", 2250e12, 1850, "datasheet dense FP16 (tensor clock 1.85 GHz assumed)",
             "FIGURES.md §1 B200 FP16/BF16 TC [MLE]"),
            ("tensor.bf16.flops_per_s", 2250e12, 1850, "datasheet dense BF16 (tensor clock 1.85 GHz assumed)",
             "FIGURES.md §1 B200 FP16/BF16 TC [MLE]"),
            ("tensor.e4m3.flops_per_s", 4500e12, 1850, "datasheet dense FP8 (tensor clock 1.85 GHz assumed)",
             "FIGURES.md §1 B200 FP8 TC [MLE]"),
            ("tensor.s8.ops_per_s", 4500e12, 1850, "datasheet dense INT8 (TOPS; tensor clock 1.85 GHz assumed)",
             "FIGURES.md §1 B200 INT8 TC [MLE]"),
            ("tensor.mxf4.flops_per_s", 9000e12, 1850, "datasheet dense FP4 (tensor clock 1.85 GHz assumed)",
             "FIGURES.md §1 B200 FP4 TC [MLE]"),
        ],
    },
}

LEVEL_WORDS = {"shared": "shared memory", "L1": "L1", "L2": "L2", "L2-far": "far L2", "DRAM": "DRAM"}


# The integer tensor precisions (analysis/compute_model.cpp tensor_integer): their rates are OP/s.
INTEGER_PRECISIONS = ("s8", "u8", "s4", "u4", "b1")


def describe(metric_id):
    """(family, label, unit, better, ceiling, per-SM-per-clock unit or None) of a metric id."""
    family, subject, quantity = metric_id.split(".", 2)
    if family == "memory":
        what = LEVEL_WORDS.get(subject, subject)
        if quantity == "latency_cycles":
            return family, f"{what} latency", "cycles", "lower", False, None
        if quantity == "latency_ns":
            return family, f"{what} latency", "ns", "lower", False, None
        if quantity == "capacity_bytes":
            return family, f"{what} capacity", "bytes", "higher", False, None
    if family == "bandwidth":
        kind = {"bytes_per_s": "", "read_bytes_per_s": " read", "write_bytes_per_s": " write",
                "copy_bytes_per_s": " copy"}[quantity]
        return family, f"{LEVEL_WORDS.get(subject, subject)}{kind} bandwidth", "bytes/s", "higher", True, \
            "bytes/clk/SM"
    if family == "compute" and quantity == "flops_per_s":
        return family, f"{subject} FLOP rate", "flop/s", "higher", True, "flop/clk/SM"
    if family == "compute" and quantity == "latency_cycles":
        return family, f"{subject} latency", "cycles", "lower", False, None
    if family == "tensor" and subject in INTEGER_PRECISIONS:
        # Integer tensor ops count operations (2 per multiply-accumulate), not FLOP: OP/s, and
        # their ids say so (tensor.s8.ops_per_s, as gpuprobe's metrics[]).
        if quantity != "ops_per_s":
            raise ValueError(f"integer tensor metric {metric_id} must be .ops_per_s")
        return family, f"tensor {subject} peak (int)", "op/s", "higher", True, "op/clk/SM"
    if family == "tensor":
        return family, f"tensor {subject} peak", "flop/s", "higher", True, "flop/clk/SM"
    if family == "launch" and subject == "small_kernels" and quantity.endswith(".overhead_ns"):
        method = quantity.split(".")[0]
        return family, f"small kernels: {method} overhead per kernel", "ns", "lower", False, None
    raise ValueError(f"no description for metric id {metric_id}")


# A launch figure says first which side it was timed on, for analysis/report.py's like-with-like
# rule: "host-bound" (each launch enqueued by the host as the GPU drains them: [GB24]'s
# stream of 10,000 host-launched SCALE kernels, so the host's launch rate can set the time) or
# "GPU-side" (the kernels reach the GPU together: one CUDA graph, or one kernel's grid.sync or
# persistent-thread loop).
LAUNCH_SIDES = ("host-bound: ", "GPU-side: ")


def metric(device, row):
    metric_id, value, clock_mhz, method, citation = row
    family, label, unit, better, ceiling, per_clk_unit = describe(metric_id)
    if family == "launch" and not method.startswith(LAUNCH_SIDES):
        raise ValueError(f"launch metric {metric_id}: the method must start with one of {LAUNCH_SIDES}")
    per_sm_per_clock = None
    if per_clk_unit and clock_mhz:
        per_sm_per_clock = {"value": round(value / (device["sm_count"] * clock_mhz * 1e6), 4),
                            "unit": per_clk_unit}
    return {"id": metric_id, "family": family, "label": label, "value": value, "unit": unit,
            "better": better, "ceiling": ceiling, "method": "published: " + method, "probe": None,
            "samples": None, "confidence": None,
            "clock_mhz": float(clock_mhz) if clock_mhz else None, "source": "published",
            "checks": [], "citation": citation, "per_sm_per_clock": per_sm_per_clock, "datasheet": None}


def profile(key):
    g = GPUS[key]
    return {"schema": "gpuprobe.machine_model", "schema_version": 2, "source": "published",
            "simulated": False,
            "note": "Reference profile built from cited published figures (docs/FIGURES.md) by "
                    "results/reference/make_references.py; nothing in it was measured by gpuprobe. " + g["about"],
            "device": g["device"], "metrics": [metric(g["device"], r) for r in g["metrics"]]}


def text(doc):
    return json.dumps(doc, indent=1) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    for key in GPUS:
        path = os.path.join(HERE, f"{key}.json")
        want = text(profile(key))
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    have = f.read()
            except OSError:
                have = None
            if have != want:
                print(f"make_references: error: {path} differs from what the script writes; run it again",
                      file=sys.stderr)
                return 1
            continue
        tmp = f"{path}.tmp-{socket.gethostname().replace('/', '_') or 'unknown-host'}-{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(want)
        os.replace(tmp, path)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
