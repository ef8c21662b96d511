// The launch cost table of each simulator preset (harness/sim/preset.hpp, LaunchCostModel), one
// function per GPU, each number citing FIGURES.md §7/§6 or marked "assumption". Each preset's
// factory sets p.launch from its function here.
#pragma once
#include "harness/sim/preset.hpp"

namespace gpuprobe::sim::presets_detail {

LaunchCostModel launch_costs_v100();
LaunchCostModel launch_costs_a100();
LaunchCostModel launch_costs_h100();      // H100 PCIe and H100 SXM (one GH100 figure, FIGURES §7)
LaunchCostModel launch_costs_h200();
LaunchCostModel launch_costs_l40();
LaunchCostModel launch_costs_b200();
LaunchCostModel launch_costs_rtx5090();

}  // namespace gpuprobe::sim::presets_detail
