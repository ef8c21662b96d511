// One factory per simulator preset; each lives in harness/sim/presets/<name>.cpp and cites the
// source of every number it sets (keys and confidence tags of docs/FIGURES.md).
#pragma once
#include "harness/sim/preset.hpp"

namespace gpuprobe::sim::presets_detail {

Preset make_v100();
Preset make_a100();
Preset make_h100();
Preset make_h100_sxm();
Preset make_l40();
Preset make_h200();
Preset make_b200();
Preset make_rtx5090();

}  // namespace gpuprobe::sim::presets_detail
