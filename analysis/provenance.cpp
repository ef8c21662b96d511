#include "analysis/provenance.hpp"

#include <algorithm>

namespace gpuprobe::analysis {
namespace {

// Shorthands for the evidence of each check (the files tests/analysis/test_metrics.cpp reads).
CheckEvidence matrix() { return {"compile-matrix", "tests/probes/test_compile_matrix.py", "\"probes\", \"*\", \"*.cu\""}; }
CheckEvidence sass(const char* test, const char* kernel_file) { return {"sass", test, kernel_file}; }
CheckEvidence closed_loop(const char* test, const char* needle) { return {"sim-closed-loop", test, needle}; }
CheckEvidence real(const char* test, const char* needle) { return {"real-data", test, needle}; }
CheckEvidence self_check(const char* source) { return {"gpu-self-check", source, "{\"self_check\", \"passed\"}"}; }
// The tensor probes' self_check is an object: the tile compared with the host's reference.
CheckEvidence tile_check(const char* source, const char* needle) { return {"gpu-self-check", source, needle}; }

constexpr const char* kChasePoint = "probes/memory/chase_point.cpp";
constexpr const char* kStreamPoint = "probes/bandwidth/stream_point.cpp";
constexpr const char* kClosedLoopMemory = "tests/harness/sim/test_closed_loop.cpp";
constexpr const char* kClosedLoopBandwidth = "tests/analysis/test_bandwidth_model.cpp";
constexpr const char* kBandwidthReal = "tests/analysis/test_bandwidth_real.cpp";
constexpr const char* kSassBandwidth = "tests/probes/test_sass_bandwidth.py";
constexpr const char* kLaunchTests = "tests/probes/launch/test_launch.cpp";

// Only what the tree holds: the arch-specific units (wgmma.sm90a.cu, tcgen05.sm100a.cu) are not in
// the compile matrix (it compiles the generic probes/*/*.cu), so tensor/wgmma and tensor/tcgen05
// do not claim it; only the memory chase, the bandwidth families and the small-kernel launches
// replay real curves (gpu-benches data, the H100 SM map).
std::vector<ProbeProvenance> make_table() {
  std::vector<ProbeProvenance> t = {
      {"memory/chase", "probes/memory/chase.cu",
       {matrix(), sass("tests/probes/test_sass.py", "chase.cu"),
        closed_loop(kClosedLoopMemory, "\"memory/chase\""),
        real("tests/analysis/test_real_curves.cpp", "/real/gpu-benches/gpu-latency/"),
        self_check(kChasePoint)}},
      {"memory/chase_shared", "probes/memory/chase_shared.cu",
       {matrix(), sass("tests/probes/test_sass.py", "chase_shared.cu"),
        closed_loop(kClosedLoopMemory, "\"memory/chase_shared\""), self_check(kChasePoint)}},
      {"memory/stride", "probes/memory/chase.cu",
       {matrix(), sass("tests/probes/test_sass.py", "chase.cu"),
        closed_loop(kClosedLoopMemory, "\"memory/stride\""), self_check(kChasePoint)}},
      {"memory/tlb", "probes/memory/chase.cu",
       {matrix(), sass("tests/probes/test_sass.py", "chase.cu"),
        closed_loop(kClosedLoopMemory, "\"memory/tlb\""), self_check(kChasePoint)}},
      {"bandwidth/l1", "probes/bandwidth/stream.cu",
       {matrix(), sass(kSassBandwidth, "stream.cu"), closed_loop(kClosedLoopBandwidth, "\"bandwidth/l1\""),
        real(kBandwidthReal, "gpu-cache/"), self_check(kStreamPoint)}},
      {"bandwidth/l2", "probes/bandwidth/stream.cu",
       {matrix(), sass(kSassBandwidth, "stream.cu"), closed_loop(kClosedLoopBandwidth, "\"bandwidth/l2\""),
        real(kBandwidthReal, "gpu-l2-cache/"), self_check(kStreamPoint)}},
      {"bandwidth/dram", "probes/bandwidth/stream.cu",
       {matrix(), sass(kSassBandwidth, "stream.cu"), closed_loop(kClosedLoopBandwidth, "\"bandwidth/dram\""),
        real(kBandwidthReal, "gpu-stream/"), self_check(kStreamPoint)}},
      {"bandwidth/shared", "probes/bandwidth/stream_shared.cu",
       {matrix(), sass(kSassBandwidth, "stream_shared.cu"),
        closed_loop(kClosedLoopBandwidth, "\"bandwidth/shared\""), real(kBandwidthReal, "gpu-strides/"),
        self_check(kStreamPoint)}},
      {"bandwidth/loaded_latency", "probes/bandwidth/loaded.cu",
       {matrix(), sass(kSassBandwidth, "loaded.cu"),
        closed_loop(kClosedLoopBandwidth, "\"bandwidth/loaded_latency\""),
        self_check("probes/bandwidth/loaded_latency.cpp")}},
      {"compute/alu", "probes/compute/compute.cu",
       {matrix(), sass("tests/probes/test_sass_compute.py", "compute.cu"),
        closed_loop("tests/analysis/test_compute_model.cpp", "compute model closed loop"),
        tile_check("probes/common/op_probe.cpp", "p[\"self_check\"] = \"passed\"")}},
      {"tensor/mma", "probes/tensor/mma.cu",
       {matrix(), sass("tests/probes/test_sass_tensor.py", "mma.cu"),
        closed_loop("tests/probes/tensor/test_mma.cpp", "tensor/mma closed loop"),
        tile_check("probes/tensor/mma.cpp", "{\"self_check\", self_check_json(")}},
      {"tensor/wgmma", "probes/tensor/wgmma.sm90a.cu",
       {sass("tests/probes/test_sass_tensor_wgmma.py", "wgmma.sm90a.cu"),
        closed_loop("tests/probes/tensor/test_wgmma.cpp", "recovers their wgmma tables"),
        tile_check("probes/tensor/wgmma.cpp", "self_check_json(r.first.self_check)")}},
      {"tensor/tcgen05", "probes/tensor/tcgen05.sm100a.cu",
       {sass("tests/probes/test_sass_tensor_tcgen05.py", "tcgen05.sm100a.cu"),
        closed_loop("tests/probes/tensor/test_tcgen05.cpp", "recovers a preset's tcgen05 table"),
        tile_check("probes/tensor/tcgen05.cpp", "self_check_json(r.first.self_check)")}},
      {"sync/primitives", "probes/sync/sync.cu",
       {matrix(), sass("tests/probes/test_sass_sync.py", "sync.cu"),
        closed_loop("tests/analysis/test_sync_model.cpp", "sync model closed loop"),
        self_check("probes/sync/sync_probe.cpp")}},
      {"atomics/ops", "probes/atomics/atomics.cu",
       {matrix(), sass("tests/probes/test_sass_atomics.py", "atomics.cu"),
        closed_loop("tests/analysis/test_atomics_model.cpp", "atomics model closed loop"),
        tile_check("probes/common/op_probe.cpp", "p[\"self_check\"] = \"passed\"")}},
      {"async/copy", "probes/async/async.cu",
       {matrix(), sass("tests/probes/test_sass_async.py", "async.cu"),
        closed_loop("tests/analysis/test_async_model.cpp", "async model closed loop"),
        self_check("probes/async/async_probe.cpp")}},
      {"goodput/reference", "probes/goodput/goodput.cu",
       {matrix(), sass("tests/probes/test_sass_goodput.py", "goodput.cu"),
        closed_loop("tests/analysis/test_goodput_model.cpp", "goodput closed loop"),
        self_check("probes/goodput/goodput_probe.cpp")}},
      {"launch/overhead", "probes/launch/launch.cu",
       {matrix(), sass("tests/probes/test_sass_launch.py", "launch.cu"),
        closed_loop(kLaunchTests, "\"launch/overhead\""), self_check("probes/launch/launch_probe.cpp")}},
      {"launch/graph", "probes/launch/launch.cu",
       {matrix(), sass("tests/probes/test_sass_launch.py", "launch.cu"),
        closed_loop(kLaunchTests, "\"launch/graph\""), self_check("probes/launch/launch_probe.cpp")}},
      {"launch/small_kernels", "probes/launch/launch.cu",
       {matrix(), sass("tests/probes/test_sass_launch.py", "launch.cu"),
        closed_loop(kLaunchTests, "\"launch/small_kernels\""),
        real("tests/analysis/test_launch_model.cpp", "/real/gpu-benches/gpu-small-kernels/"),
        self_check("probes/launch/launch_probe.cpp")}},
  };
  std::sort(t.begin(), t.end(), [](const ProbeProvenance& a, const ProbeProvenance& b) { return a.probe < b.probe; });
  return t;
}

}  // namespace

const std::vector<ProbeProvenance>& provenance_table() {
  static const std::vector<ProbeProvenance> table = make_table();
  return table;
}

std::vector<std::string> checks_for(const std::string& probe) {
  std::vector<std::string> out;
  for (const auto& p : provenance_table()) {
    if (p.probe != probe) continue;
    for (const auto& name : kCheckNames)
      for (const auto& c : p.checks)
        if (c.check == name && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace gpuprobe::analysis
