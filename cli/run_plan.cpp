#include "cli/run_plan.hpp"

namespace gpuprobe {

std::vector<PlannedRun> run_all_plan(RunProfile /*profile*/) {
  return {{"memory/chase", {{"cache-op", "default"}}, "memory_chase_default.json"},
          {"memory/chase", {{"cache-op", "ca"}}, "memory_chase_ca.json"},
          {"memory/chase", {{"cache-op", "cg"}}, "memory_chase_cg.json"},
          {"memory/chase", {{"cache-op", "nc"}}, "memory_chase_nc.json"},
          {"memory/chase_shared", {}, "memory_chase_shared.json"},
          {"memory/stride", {}, "memory_stride.json"},
          {"memory/tlb", {}, "memory_tlb.json"},
          {"bandwidth/l1", {}, "bandwidth_l1.json"},
          {"bandwidth/shared", {}, "bandwidth_shared.json"},
          {"bandwidth/l2", {}, "bandwidth_l2.json"},
          {"bandwidth/dram", {}, "bandwidth_dram.json"},
          {"bandwidth/loaded_latency", {{"level", "l2"}}, "bandwidth_loaded_latency_l2.json"},
          {"bandwidth/loaded_latency", {{"level", "dram"}}, "bandwidth_loaded_latency_dram.json"},
          {"compute/alu", {}, "compute_alu.json"},
          {"tensor/mma", {}, "tensor_mma.json"},
          {"tensor/tcgen05", {}, "tensor_tcgen05.json"},
          {"tensor/wgmma", {}, "tensor_wgmma.json"},
          {"sync/primitives", {}, "sync_primitives.json"},
          {"atomics/ops", {}, "atomics_ops.json"},
          {"async/copy", {}, "async_copy.json"},
          {"launch/overhead", {}, "launch_overhead.json"},
          {"launch/graph", {}, "launch_graph.json"},
          {"launch/small_kernels", {}, "launch_small_kernels.json"},
          {"goodput/reference", {}, "goodput_reference.json"}};
}

}  // namespace gpuprobe
