// The async-copy cost table of each simulator preset (harness/sim/preset.hpp, AsyncCopyModel; the
// ops are probes/async/async.cuh's), one function per GPU, each number citing FIGURES.md §6 (or the
// preset's own cited L2 latency) or marked "assumption". Each preset's factory sets p.async_copy
// from its function here, after its caches (the table builds on the preset's L2 hit latency).
#pragma once
#include <vector>

#include "harness/sim/preset.hpp"

namespace gpuprobe::sim::presets_detail {

std::vector<AsyncCopyModel> async_costs_v100(const Preset& p);
std::vector<AsyncCopyModel> async_costs_a100(const Preset& p);
std::vector<AsyncCopyModel> async_costs_h100(const Preset& p);      // H100 PCIe
std::vector<AsyncCopyModel> async_costs_h100_sxm(const Preset& p);
std::vector<AsyncCopyModel> async_costs_l40(const Preset& p);
std::vector<AsyncCopyModel> async_costs_h200(const Preset& p);
std::vector<AsyncCopyModel> async_costs_b200(const Preset& p);
std::vector<AsyncCopyModel> async_costs_rtx5090(const Preset& p);

}  // namespace gpuprobe::sim::presets_detail
