// Launch costs of the simulator presets (probes/launch/launch_sim.cpp uses them). Sources,
// FIGURES.md §7 (and §6 for grid.sync and persistent threads):
//   [GB24] gpu-small-kernels: 10,000 back-to-back SCALE kernels of 64 KiB, best time per kernel:
//          A100 2.62 us stream / 1.34 us graph / 1.34 us grid.sync; H200 2.43 / 1.26 / 1.13 /
//          1.04 us persistent threads; L40 1.64 / 0.94 / 0.82 / 0.66 us (DER from M)
//   [HAZY] via [S-B200]: H100 launch cost about 2.1 us with streams, 1.3 us with graphs (S)
//   [R6000D]: GB202 empty kernel 2.82 us launch + sync, 2.05 us amortized back to back (P)
//   [TB1017]: GB200 host cost of a raw cuLaunchKernel 3.0 us (P)
//   [OC488]: RTX 5070 Ti Laptop (WSL2) graph replay 15 us + 0.58 us per node (P; WSL2, not used)
// Never published (FIGURES §7 has no figure): graph instantiate and update costs, the
// device-side graph launch, PDL's launch latency, the kernel-to-kernel gap on its own, and a
// small kernel's bandwidth b. Those are assumptions, each marked, chosen plausible: instantiate
// tens of us plus about 1 us per node and update a third of it (the CUDA programming guide calls
// update the cheap path); device launch and PDL about a stream launch's GPU-side cost; the gap
// is the back-to-back time less an empty kernel's own run (assumed 0.6 us); b about half the
// preset's L2 bandwidth (FIGURES §4), which the gpu-benches fits over 64-256 KiB put within a
// factor of two.
#include "harness/sim/presets/launch_costs.hpp"

namespace gpuprobe::sim::presets_detail {
namespace {

constexpr double kEmptyKernelRunNs = 600;  // assumption: an empty kernel's own run on the GPU

// The fields no FIGURES source gives, alike on every preset (assumptions, see above).
LaunchCostModel with_assumed_graph_costs(LaunchCostModel m) {
  m.graph_instantiate_ns = 20'000;          // assumption
  m.graph_instantiate_per_node_ns = 1'000;  // assumption
  m.graph_update_ns = 7'000;                // assumption: a third of instantiate
  m.graph_update_per_node_ns = 300;         // assumption
  m.gap_ns = m.back_to_back_ns - kEmptyKernelRunNs;  // assumption: back to back less the run
  return m;
}

SmallKernelCost cost(const char* method, double overhead_ns, double bytes_per_s, const char* source) {
  return SmallKernelCost{method, overhead_ns, bytes_per_s, source};
}

}  // namespace

LaunchCostModel launch_costs_a100() {
  LaunchCostModel m;
  m.host_enqueue_ns = 2'100;        // assumption: H100's ~2.1 us (S [HAZY]); no A100 figure
  m.round_trip_ns = 2'820;          // assumption: GB202's 2.82 us launch + sync (P [R6000D])
  m.back_to_back_ns = 2'600;        // DER M [GB24] 2.62 us per 64 KiB kernel less its ~0.02 us work
  m.pdl_launch_ns = 0;              // sm_80: no PDL
  m.graph_launch_ns = 2'000;        // assumption: per graph
  m.graph_launch_per_node_ns = 1'320;  // DER M [GB24] 1.34 us per kernel of one graph, less work
  m.device_graph_launch_ns = 2'500; // assumption
  m.small_kernels = {
      cost("stream", 2'620, 2.7e12, "DER M [GB24] a100_80.txt 2.62 us; b: assumption (half the L2's 5.4 TB/s)"),
      cost("graph", 1'340, 2.7e12, "DER M [GB24] a100_80_graph.txt 1.34 us; b: assumption"),
      cost("gsync", 1'340, 2.7e12, "DER M [GB24] a100_80_gsync.txt <=1.34 us (FIGURES §6); b: assumption"),
      cost("pt", 1'200, 2.7e12, "assumption: no A100 pt file; below gsync as on H200 and L40 [GB24]"),
  };
  m.source = "FIGURES §7 [GB24] (per-kernel and graph costs); the rest assumptions (launch_costs.cpp)";
  return with_assumed_graph_costs(m);
}

LaunchCostModel launch_costs_v100() {
  LaunchCostModel m = launch_costs_a100();  // assumption: no V100 launch figure in FIGURES §7
  m.small_kernels = {
      cost("stream", 2'620, 1.0e12, "assumption: A100's [GB24]; b: half of V100's L2"),
      cost("graph", 1'340, 1.0e12, "assumption: A100's [GB24]"),
      cost("gsync", 1'340, 1.0e12, "assumption: A100's [GB24]"),
      cost("pt", 1'200, 1.0e12, "assumption"),
  };
  m.source = "assumption: the A100's launch costs (FIGURES §7 has no V100 figure)";
  return m;
}

LaunchCostModel launch_costs_h100() {
  LaunchCostModel m;
  m.host_enqueue_ns = 2'100;        // S [HAZY] via [S-B200]: ~2.1 us launch cost with streams
  m.round_trip_ns = 2'820;          // assumption: GB202's 2.82 us (P [R6000D])
  m.back_to_back_ns = 2'100;        // S [HAZY]: ~2.1 us per stream launch
  m.pdl_launch_ns = 1'000;          // assumption: sm_90 PDL, no published latency
  m.graph_launch_ns = 2'000;        // assumption: per graph
  m.graph_launch_per_node_ns = 1'300;  // S [HAZY]: ~1.3 us per kernel with CUDA graphs
  m.device_graph_launch_ns = 2'000; // assumption
  m.small_kernels = {
      cost("stream", 2'100, 3.5e12, "S [HAZY] via [S-B200] ~2.1 us; b: assumption (half the L2)"),
      cost("graph", 1'300, 3.5e12, "S [HAZY] via [S-B200] ~1.3 us; b: assumption"),
      cost("gsync", 1'130, 3.5e12, "assumption: H200's 1.13 us (same GH100 SM, DER M [GB24])"),
      cost("pt", 1'040, 3.5e12, "assumption: H200's 1.04 us (DER M [GB24])"),
  };
  m.source = "FIGURES §7 [HAZY] (stream and graph); grid.sync and pt from the H200 [GB24]; the rest assumptions";
  return with_assumed_graph_costs(m);
}

LaunchCostModel launch_costs_h200() {
  LaunchCostModel m = launch_costs_h100();
  m.back_to_back_ns = 2'410;        // DER M [GB24] 2.43 us per 64 KiB kernel less its work
  m.graph_launch_per_node_ns = 1'240;  // DER M [GB24] 1.26 us per kernel of one graph, less work
  m.small_kernels = {
      cost("stream", 2'430, 3.5e12, "DER M [GB24] h200.txt 2.43 us; b: assumption (half the L2)"),
      cost("graph", 1'260, 3.5e12, "DER M [GB24] h200_graph.txt 1.26 us; b: assumption"),
      cost("gsync", 1'130, 3.5e12, "DER M [GB24] h200_gsync.txt <=1.13 us (FIGURES §6); b: assumption"),
      cost("pt", 1'040, 3.5e12, "DER M [GB24] h200_pt.txt <=1.04 us (FIGURES §6); b: assumption"),
  };
  m.source = "FIGURES §7/§6 [GB24] (per-kernel, graph, grid.sync, pt); the rest assumptions";
  return with_assumed_graph_costs(m);
}

LaunchCostModel launch_costs_l40() {
  LaunchCostModel m;
  m.host_enqueue_ns = 2'100;        // assumption: H100's ~2.1 us (S [HAZY])
  m.round_trip_ns = 2'820;          // assumption: GB202's 2.82 us (P [R6000D])
  m.back_to_back_ns = 1'620;        // DER M [GB24] 1.64 us per 64 KiB kernel less its work
  m.pdl_launch_ns = 0;              // sm_89: no PDL
  m.graph_launch_ns = 2'000;        // assumption: per graph
  m.graph_launch_per_node_ns = 920; // DER M [GB24] 0.94 us per kernel of one graph, less work
  m.device_graph_launch_ns = 2'000; // assumption
  m.small_kernels = {
      cost("stream", 1'640, 2.0e12, "DER M [GB24] l40.txt 1.64 us; b: assumption"),
      cost("graph", 940, 2.0e12, "DER M [GB24] l40_graph.txt 0.94 us; b: assumption"),
      cost("gsync", 820, 2.0e12, "DER M [GB24] l40_gsync.txt <=0.82 us (FIGURES §6); b: assumption"),
      cost("pt", 660, 2.0e12, "DER M [GB24] l40_pt.txt <=0.66 us (FIGURES §6); b: assumption"),
  };
  m.source = "FIGURES §7/§6 [GB24]; the rest assumptions";
  return with_assumed_graph_costs(m);
}

LaunchCostModel launch_costs_b200() {
  LaunchCostModel m = launch_costs_h100();  // assumption: GH100's, no B200 launch figure
  m.host_enqueue_ns = 3'000;        // P [TB1017]: GB200 raw cuLaunchKernel host cost 3.0 us
  m.source = "host enqueue P [TB1017] (GB200); the rest the H100's (assumption)";
  return m;
}

LaunchCostModel launch_costs_rtx5090() {
  LaunchCostModel m = launch_costs_l40();   // assumption: AD102's, no GB202 small-kernel figure
  m.round_trip_ns = 2'820;          // P [R6000D]: GB202 empty kernel, launch + sync 2.82 us
  m.back_to_back_ns = 2'050;        // P [R6000D]: GB202 empty kernels back to back 2.05 us
  m.pdl_launch_ns = 1'000;          // assumption: sm_120 has PDL, no published latency
  m.source = "GB202 round trip and back to back P [R6000D]; the rest the L40's (assumption)";
  return with_assumed_graph_costs(m);
}

}  // namespace gpuprobe::sim::presets_detail
