// The sync cost table of each simulator preset (harness/sim/preset.hpp, SyncOpModel; the ops are
// probes/sync/sync.cuh's), one function per GPU, each number citing FIGURES.md §6 (or the preset's
// own cited L2 latency) or marked "assumption". Each preset's factory sets p.sync from its
// function here.
#pragma once
#include <vector>

#include "harness/sim/preset.hpp"

namespace gpuprobe::sim::presets_detail {

std::vector<SyncOpModel> sync_costs_v100();
std::vector<SyncOpModel> sync_costs_a100();
std::vector<SyncOpModel> sync_costs_h100();      // H100 PCIe
std::vector<SyncOpModel> sync_costs_h100_sxm();
std::vector<SyncOpModel> sync_costs_h200();
std::vector<SyncOpModel> sync_costs_l40();
std::vector<SyncOpModel> sync_costs_b200();
std::vector<SyncOpModel> sync_costs_rtx5090();

}  // namespace gpuprobe::sim::presets_detail
