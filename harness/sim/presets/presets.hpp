// One factory per simulator preset; each lives in harness/sim/presets/<name>.cpp and cites the
// source of every number it sets (keys and confidence tags of docs/FIGURES.md).
#pragma once
#include <vector>

#include "harness/sim/preset.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_v100();
Preset make_a100();
Preset make_h100();
Preset make_h100_sxm();
Preset make_l40();

// The CUDA-core ops (compute/alu) no FIGURES source gives a rate or latency for on any preset:
// IMAD, IADD3, the MUFU functions and the conversions, assumed alike from sm_80 on (the V100
// has its own). Each entry's source says "assumption".
std::vector<AluOpModel> assumed_alu_ops();
// `cited` (a preset's own FMA entries, each citing FIGURES) followed by assumed_alu_ops().
std::vector<AluOpModel> with_assumed_alu_ops(std::vector<AluOpModel> cited);

}  // namespace gpuprobe::sim::presets_detail
