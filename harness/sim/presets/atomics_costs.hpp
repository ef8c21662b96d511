// The atomics cost table of the simulator presets (harness/sim/preset.hpp AtomicOpModel; the ops
// and patterns are probes/atomics/atomics.cuh's). presets() fills Preset::atomics from here.
#pragma once
#include <vector>

#include "harness/sim/preset.hpp"

namespace gpuprobe::sim::presets_detail {

// Every op and pattern the preset's GPU runs, each number citing FIGURES.md §6, the preset's own
// cited L2 / shared latencies, or marked "assumption".
std::vector<AtomicOpModel> atomics_costs(const Preset& p);

}  // namespace gpuprobe::sim::presets_detail
