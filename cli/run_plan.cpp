#include "cli/run_plan.hpp"

#include <algorithm>
#include <cstdint>

#include "harness/error.hpp"
#include "harness/params.hpp"
#include "harness/probe.hpp"
#include "probes/memory/chase_point.hpp"

namespace gpuprobe {

namespace {

// ---- The H100 the estimates are for ----------------------------------------------------------
// An H100 SXM as measured in results/nvidia-h100-80gb-hbm3 (PROVENANCE.md: SM 0, plain loads,
// 1980 MHz in every timed region; 80 GB, 50 MiB L2).
constexpr double kClockHz = 1980e6;
constexpr double kL1Bytes = 240e3;          // the fitted L1 capacity (the launch holds 2 KB of shared)
constexpr double kL2NearBytes = 24.4e6;     // the near partition's fitted capacity
constexpr uint64_t kL2Bytes = 50ull << 20;
constexpr uint64_t kFreeBytes = 80ull * 1000 * 1000 * 1000 / 20 * 19;
constexpr double kL1Cycles = 32.0, kL2NearCycles = 283.3, kL2FarCycles = 529.2, kDramCycles = 686.7;
constexpr double kSharedCycles = 23.0;

// ---- How a point is measured on a GPU ---------------------------------------------------------
// Every family calibrates its timed region to at least the device's minimum (1 ms on a GPU,
// Device::min_timed_region_ns), then repeats it: at least RepeatPolicy::min_repeats = 3 times (the
// measured H100 chases averaged 3.1 repeats a point), the last calibration run counting as the
// first. kRunsPerPoint counts the calibration run and the repeats.
constexpr double kMinRegionSeconds = 1e-3;
constexpr double kRunsPerPoint = 4;
// What a point pays besides its runs: the 0.2 ms SM clock spin (kPointClockSpinNs), launches,
// synchronization and writing the record.
constexpr double kPointOverheadSeconds = 0.5e-3;
// A stream point (bandwidth/*) times n and 4n passes per repeat (stream_point.cpp): 5 regions.
constexpr double kStreamRegionsPerRepeat = 5;
// Noisy points (a loaded chase, atomics under contention) take more repeats: the simulated
// H100's loaded-latency points averaged 9 (RepeatPolicy::max_repeats is 15).
constexpr double kNoisyRunsPerPoint = 10;
// Host time to build a random chain and copy it to the device, per slot (make_random_cycle).
constexpr double kChainBuildSecondsPerSlot = 30e-9;

// The concurrency ladder of a bandwidth probe (concurrency_configs in
// probes/bandwidth/stream_point.cpp): points per kind streamed, on the simulated H100.
constexpr double kConcurrencyPoints = 24;
constexpr double kSharedConcurrencyPoints = 27;

// Points of the probes that measure a table of ops, per kind (latency, throughput) and operand
// kind, counted in the simulated H100's records (the tables are the families' *.cuh / *.def).
constexpr double kAluOps = 13, kMmaForms = 25, kWgmmaForms = 42, kSyncLatencyOps = 53,
                 kSyncThroughputOps = 27, kAtomicsLatencyPoints = 34,
                 kAtomicsThroughputPoints = 44, kAsyncLatencyOps = 23, kAsyncThroughputPoints = 93,
                 kAsyncThroughputPointsPerOp = 10,
                 kAsyncMulticastPoints = 4, kLaunchOverheadMeasures = 6,
                 kSmallKernelMethods = 4, kGraphMeasures = 3, kGoodputKernels = 5;

double chase_cycles(double footprint_bytes, bool from_l1) {
  if (from_l1 && footprint_bytes <= kL1Bytes) return kL1Cycles;
  if (footprint_bytes <= kL2NearBytes) return kL2NearCycles;
  if (footprint_bytes <= static_cast<double>(kL2Bytes)) return kL2FarCycles;
  return kDramCycles;
}

// One point of a pointer chase: kRunsPerPoint runs, each a warm-up lap of the chain (at least
// 1024 hops), a timed region of at least the minimum, and the sampled hops; plus the chain built.
double chase_point_seconds(double slots, double cycles, double timed_hops, double sampled_hops) {
  const double hop_s = cycles / kClockHz;
  const double run = std::max(slots, 1024.0) * hop_s +
                     std::max(timed_hops * hop_s, kMinRegionSeconds) + sampled_hops * hop_s;
  return kRunsPerPoint * run + slots * kChainBuildSecondsPerSlot + kPointOverheadSeconds;
}

double chase_sweep_seconds(const Params& p, uint64_t max_bytes, uint64_t slot_bytes, bool from_l1,
                           double cycles_override = 0) {
  double s = 0;
  for (uint64_t f : probes::geometric_sweep(p.get_u64("min-footprint-bytes"), max_bytes,
                                            p.get_u64("points-per-octave"), slot_bytes)) {
    const double bytes = static_cast<double>(f);
    s += chase_point_seconds(bytes / static_cast<double>(slot_bytes),
                             cycles_override > 0 ? cycles_override : chase_cycles(bytes, from_l1),
                             static_cast<double>(p.get_u64("timed-hops")),
                             static_cast<double>(p.get_u64("sampled-hops")));
  }
  return s;
}

bool from_l1(const Params& p) {
  const std::string& op = p.get_text("cache-op");
  return op != "cg" && op != "cv";
}

// A point of a stream (bandwidth/*): the calibration (about one region) and the repeats of n and
// 4n passes, each region at least the minimum.
double stream_points_seconds(double points) {
  return points * ((1 + 3 * kStreamRegionsPerRepeat) * kMinRegionSeconds + kPointOverheadSeconds);
}

// A point of the op-table probes (compute, tensor, sync, atomics, async copies, launch): its
// launches are short, so each run is about the minimum region.
double op_points_seconds(double points, double runs = kRunsPerPoint) {
  return points * (runs * kMinRegionSeconds + kPointOverheadSeconds);
}

double kinds(const Params& p, const char* name, const char* all) {
  return p.get_text(name) == all ? 2 : 1;
}

double geometric_points(uint64_t min_bytes, uint64_t max_bytes, uint64_t ppo, uint64_t grain) {
  return static_cast<double>(probes::geometric_sweep(min_bytes, max_bytes, ppo, grain).size());
}

double estimate(const std::string& probe, const Params& p) {
  if (probe == "memory/chase") {
    uint64_t max_bytes = p.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 4 * kL2Bytes;
    return chase_sweep_seconds(p, max_bytes, p.get_u64("slot-bytes"), from_l1(p));
  }
  if (probe == "memory/chase_shared") {
    uint64_t max_bytes = p.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 227u << 10;  // the H100's opt-in shared memory per block
    return chase_sweep_seconds(p, max_bytes, p.get_u64("slot-bytes"), true, kSharedCycles);
  }
  if (probe == "memory/stride") {
    uint64_t max_bytes = p.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = std::min<uint64_t>(8u << 20, kL2Bytes / 2);
    double s = 0;
    for (uint64_t stride : p.get_u64_list("strides-bytes"))
      s += chase_sweep_seconds(p, max_bytes, stride, from_l1(p));
    return s;
  }
  if (probe == "memory/tlb") {
    // One hop per page (slots = span / page), each missing the caches (DRAM latency at worst).
    uint64_t max_span = p.get_u64("max-span-bytes");
    if (max_span == 0) max_span = kFreeBytes / 100 * 85;
    const uint64_t page = p.get_u64("page-bytes");
    double s = 0;
    for (uint64_t span : probes::geometric_sweep(page, max_span, p.get_u64("points-per-octave"), page))
      s += chase_point_seconds(static_cast<double>(span / page), kDramCycles,
                               static_cast<double>(p.get_u64("timed-hops")),
                               static_cast<double>(p.get_u64("sampled-hops")));
    return s;
  }
  const bool concurrency = probe.rfind("bandwidth/", 0) == 0 && probe != "bandwidth/loaded_latency" &&
                           p.get_text("concurrency") == "on";
  if (probe == "bandwidth/l1") {
    uint64_t max_bytes = p.get_u64("max-window-bytes");
    if (max_bytes == 0) max_bytes = 2 * 228u << 10;
    return stream_points_seconds(
        geometric_points(p.get_u64("min-window-bytes"), max_bytes, p.get_u64("points-per-octave"), 1024) +
        (concurrency ? kConcurrencyPoints : 0));
  }
  if (probe == "bandwidth/shared")
    return stream_points_seconds(static_cast<double>(p.get_u64_list("strides").size()) +
                                 (concurrency ? kSharedConcurrencyPoints : 0));
  if (probe == "bandwidth/l2") {
    uint64_t max_bytes = p.get_u64("max-footprint-bytes");
    if (max_bytes == 0) max_bytes = 4 * kL2Bytes;
    return stream_points_seconds(
        geometric_points(p.get_u64("min-footprint-bytes"), max_bytes, p.get_u64("points-per-octave"), 1024) +
        (concurrency ? kConcurrencyPoints : 0));
  }
  if (probe == "bandwidth/dram") {
    const double streamed = p.get_text("kind") == "all" ? 3 : 1;  // read, write, copy
    return stream_points_seconds(streamed * (1 + (concurrency ? kConcurrencyPoints : 0)));
  }
  if (probe == "bandwidth/loaded_latency") {
    // A chase of --hops under streamers: the loaded latency is several times the idle one (the
    // simulated H100's full-rate point: 11x), the chain one warm-up lap of 1024 hops.
    const bool dram = p.get_text("level") == "dram";
    const double idle_cycles = dram ? kDramCycles : kL2NearCycles;
    const double points = static_cast<double>(p.get_u64_list("throttle-cycles").size()) +
                          (p.get_text("idle") == "on" ? 1 : 0);
    const double loaded_hop_s = 4 * idle_cycles / kClockHz;
    const double chain_slots = dram ? 8.0 * kL2Bytes / 128 : 2.0 * (1 << 20) / 128;
    return points * (kNoisyRunsPerPoint * std::max(static_cast<double>(p.get_u64("hops") + 1024) *
                                                       loaded_hop_s,
                                                   kMinRegionSeconds) +
                     kPointOverheadSeconds) +
           chain_slots * kChainBuildSecondsPerSlot;
  }
  if (probe == "compute/alu")
    return op_points_seconds((p.get_text("op") == "all" ? kAluOps : 1) * kinds(p, "kind", "both"));
  if (probe == "tensor/mma" || probe == "tensor/wgmma" || probe == "tensor/tcgen05") {
    // tcgen05 runs on sm_100 only: skipped on an H100, with the reason.
    if (probe == "tensor/tcgen05") return 0;
    const double forms = p.get_text("op") != "all" ? 1 : probe == "tensor/mma" ? kMmaForms : kWgmmaForms;
    return op_points_seconds(forms * kinds(p, "kind", "both") * kinds(p, "operands", "both"));
  }
  if (probe == "sync/primitives") {
    const std::string& kind = p.get_text("kind");
    const double ops = (kind != "throughput" ? kSyncLatencyOps : 0) +
                       (kind != "latency" ? kSyncThroughputOps : 0);
    return op_points_seconds(p.get_text("op") == "all" ? ops : kinds(p, "kind", "both"));
  }
  if (probe == "atomics/ops") {
    const std::string& kind = p.get_text("kind");
    const double points = (kind != "throughput" ? kAtomicsLatencyPoints : 0) +
                          (kind != "latency" ? kAtomicsThroughputPoints : 0);
    const bool all = p.get_text("op") == "all" && p.get_text("pattern") == "all";
    return op_points_seconds(all ? points : kinds(p, "kind", "both"), kNoisyRunsPerPoint);
  }
  if (probe == "async/copy") {
    const std::string& kind = p.get_text("kind");
    const bool all = kind == "all";
    const bool every_op = p.get_text("op") == "all";
    double s = op_points_seconds(
        (all || kind == "latency" ? (every_op ? kAsyncLatencyOps : 1) : 0) +
        (all || kind == "throughput" ? (every_op ? kAsyncThroughputPoints : kAsyncThroughputPointsPerOp) : 0) +
        (all || kind == "multicast" ? kAsyncMulticastPoints : 0));
    // The TMA chase: footprints of 1 MiB to 4x the L2 (four per octave), each a warm-up lap of
    // at most 2^18 hops and the timed hops, in 128-byte slots; a TMA hop costs about 90 cycles
    // more than a load's (the simulated H100's TMA chase: L2 372 cycles against 283).
    if (all || kind == "chase") {
      for (uint64_t f : probes::geometric_sweep(1u << 20, 4 * kL2Bytes, 4, 128)) {
        const double slots = std::min(static_cast<double>(f / 128), static_cast<double>(1u << 18));
        s += chase_point_seconds(slots, chase_cycles(static_cast<double>(f), false) + 90,
                                 static_cast<double>(p.get_u64("chase-hops")), 0);
      }
    }
    return s;
  }
  if (probe == "launch/overhead") {
    // Each measure: samples of --launches launches (PDL: pairs) of a few microseconds each.
    const double launch_s = 5e-6;
    return kLaunchOverheadMeasures *
           (kRunsPerPoint * std::max(2.0 * static_cast<double>(p.get_u64("launches")) * launch_s,
                                     kMinRegionSeconds) +
            kPointOverheadSeconds);
  }
  if (probe == "launch/graph") {
    // Per graph size: --graphs graphs instantiated (about 20 us + 1 us per node), updated and
    // launched (a few us per node), per sample.
    double s = op_points_seconds(1);  // the device-side launch
    for (uint64_t nodes : p.get_u64_list("nodes"))
      s += kGraphMeasures * (kRunsPerPoint * static_cast<double>(p.get_u64("graphs")) *
                                 (20e-6 + 3e-6 * static_cast<double>(nodes)) +
                             kPointOverheadSeconds);
    return s;
  }
  if (probe == "launch/small_kernels") {
    // Per size and method: --iterations passes of a few microseconds each, per sample.
    const double methods = p.get_text("method") == "all" ? kSmallKernelMethods : 1;
    const double sizes = static_cast<double>(p.get_u64_list("bytes").size());
    return methods * sizes *
           (kRunsPerPoint * static_cast<double>(p.get_u64("iterations")) * 3e-6 + kPointOverheadSeconds);
  }
  if (probe == "goodput/reference") {
    // Each reference kernel is a point of short launches, except the cuBLAS GEMM: 2 m^3 FLOP
    // per run at about 600 TFLOP/s (assumption: near the H100's dense f16 tensor rate).
    const std::string& kernel = p.get_text("kernel");
    const double m = static_cast<double>(p.get_u64("gemm-size"));
    const double gemm_run_s = std::max(2 * m * m * m / 600e12, kMinRegionSeconds);
    const bool gemm = kernel == "all" || kernel == "cublas_gemm";
    return op_points_seconds(kernel == "all" ? kGoodputKernels - 1 : gemm ? 0 : 1) +
           (gemm ? kRunsPerPoint * gemm_run_s + kPointOverheadSeconds : 0);
  }
  throw Error("no time estimate for probe " + probe);
}

// A run with its estimate.
PlannedRun run(std::string probe, std::map<std::string, std::string> params, std::string file) {
  PlannedRun r{std::move(probe), std::move(params), std::move(file), 0};
  r.estimated_device_seconds = estimated_h100_seconds(r.probe, r.params);
  return r;
}

}  // namespace

double estimated_h100_seconds(const std::string& probe,
                              const std::map<std::string, std::string>& params) {
  return estimate(probe, Params::parse(find_probe(probe).params, params));
}

double estimated_h100_seconds(const std::vector<PlannedRun>& plan) {
  double s = 0;
  for (const auto& r : plan) s += r.estimated_device_seconds;
  return s;
}

std::vector<PlannedRun> run_all_plan(RunProfile profile) {
  if (profile == RunProfile::full)
    return {run("memory/chase", {{"cache-op", "default"}}, "memory_chase_default.json"),
            run("memory/chase", {{"cache-op", "ca"}}, "memory_chase_ca.json"),
            run("memory/chase", {{"cache-op", "cg"}}, "memory_chase_cg.json"),
            run("memory/chase", {{"cache-op", "nc"}}, "memory_chase_nc.json"),
            run("memory/chase_shared", {}, "memory_chase_shared.json"),
            run("memory/stride", {}, "memory_stride.json"),
            run("memory/tlb", {}, "memory_tlb.json"),
            run("bandwidth/l1", {}, "bandwidth_l1.json"),
            run("bandwidth/shared", {}, "bandwidth_shared.json"),
            run("bandwidth/l2", {}, "bandwidth_l2.json"),
            run("bandwidth/dram", {}, "bandwidth_dram.json"),
            run("bandwidth/loaded_latency", {{"level", "l2"}}, "bandwidth_loaded_latency_l2.json"),
            run("bandwidth/loaded_latency", {{"level", "dram"}}, "bandwidth_loaded_latency_dram.json"),
            run("compute/alu", {}, "compute_alu.json"),
            run("tensor/mma", {}, "tensor_mma.json"),
            run("tensor/tcgen05", {}, "tensor_tcgen05.json"),
            run("tensor/wgmma", {}, "tensor_wgmma.json"),
            run("sync/primitives", {}, "sync_primitives.json"),
            run("atomics/ops", {}, "atomics_ops.json"),
            run("async/copy", {}, "async_copy.json"),
            run("launch/overhead", {}, "launch_overhead.json"),
            run("launch/graph", {}, "launch_graph.json"),
            run("launch/small_kernels", {}, "launch_small_kernels.json"),
            run("goodput/reference", {}, "goodput_reference.json")};
  // --quick keeps every ceiling and level latency of --full and drops what only draws curves:
  // the plain-load chase takes 5 footprints per octave (the far-L2 plateau, one octave wide, needs
  // at least that many: at 4 it is lost) and the .ca/.cg/.nc chases are left out; sweeps that only find a plateau or a
  // knee are coarser; tensor forms run with random operands only (the ceilings' operands); the
  // async copies leave out the TMA chase.
  return {run("memory/chase", {{"cache-op", "default"}, {"points-per-octave", "5"}, {"sampled-hops", "128"}},
              "memory_chase_default.json"),
          run("memory/chase_shared", {}, "memory_chase_shared.json"),
          run("memory/stride", {{"strides-bytes", "16,32,64,128,256"}, {"points-per-octave", "2"}},
              "memory_stride.json"),
          run("memory/tlb", {{"points-per-octave", "2"}}, "memory_tlb.json"),
          run("bandwidth/l1", {{"points-per-octave", "2"}}, "bandwidth_l1.json"),
          run("bandwidth/shared", {{"strides", "1,2,4,8,32"}}, "bandwidth_shared.json"),
          run("bandwidth/l2", {}, "bandwidth_l2.json"),  // its sweep's far-L2 plateau is a ceiling
          run("bandwidth/dram", {}, "bandwidth_dram.json"),
          run("bandwidth/loaded_latency", {{"level", "l2"}, {"throttle-cycles", "65536,1024,64,0"}},
              "bandwidth_loaded_latency_l2.json"),
          run("bandwidth/loaded_latency", {{"level", "dram"}, {"throttle-cycles", "65536,1024,64,0"}},
              "bandwidth_loaded_latency_dram.json"),
          run("compute/alu", {}, "compute_alu.json"),
          run("tensor/mma", {{"operands", "random"}}, "tensor_mma.json"),
          run("tensor/tcgen05", {{"operands", "random"}}, "tensor_tcgen05.json"),
          run("tensor/wgmma", {{"operands", "random"}}, "tensor_wgmma.json"),
          run("sync/primitives", {}, "sync_primitives.json"),
          run("atomics/ops", {}, "atomics_ops.json"),
          // The async copies' latencies and bandwidths without the TMA chase (its levels are the
          // chase's): two runs, as --kind takes one kind or all.
          run("async/copy", {{"kind", "latency"}}, "async_copy.json"),
          run("async/copy", {{"kind", "throughput"}}, "async_copy_throughput.json"),
          run("launch/overhead", {}, "launch_overhead.json"),
          run("launch/graph", {{"nodes", "1,8,64,128"}}, "launch_graph.json"),
          // All nine sizes: fewer leave the fit's bandwidth term (its 1/slope) to the noise.
          run("launch/small_kernels", {}, "launch_small_kernels.json"),
          run("goodput/reference", {}, "goodput_reference.json")};
}

}  // namespace gpuprobe
