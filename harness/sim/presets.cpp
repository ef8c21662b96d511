// The list of simulator presets and the lookup by name (with a few accepted aliases).
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "harness/error.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/presets/presets.hpp"
#include "harness/sim/presets/atomics_costs.hpp"

namespace gpuprobe::sim {
namespace {

bool is_power_of_two(uint64_t value) { return value != 0 && (value & (value - 1)) == 0; }

// A preset that cannot be simulated is a programming error in harness/sim/presets/: say which.
void validate(const Preset& preset) {
  const auto fail = [&](const std::string& what) {
    throw Error("simulator preset '" + preset.name + "' is inconsistent: " + what);
  };
  if (preset.caches.empty()) fail("no cache levels");
  for (const auto& level : preset.caches) {
    if (!is_power_of_two(level.line_bytes) || !is_power_of_two(level.sector_bytes) ||
        level.sector_bytes > level.line_bytes || level.line_bytes / level.sector_bytes > 8)
      fail(level.name + " needs power-of-two line and sector sizes with at most 8 sectors");
    if (level.ways == 0 || level.capacity_bytes == 0 ||
        level.capacity_bytes % (uint64_t{level.line_bytes} * level.ways) != 0)
      fail(level.name + " capacity is not a whole number of sets");
    if (level.hash_block_bytes != 0 &&
        (!level.hashed_sets || !is_power_of_two(level.hash_block_bytes) ||
         level.hash_block_bytes < level.capacity_bytes / level.ways))
      fail(level.name + " hash block must be a power of two of at least one way's bytes, on hashed sets");
    if (level.replacement == Replacement::plru &&
        ((level.ways & (level.ways - 1)) != 0 || level.ways > 32))
      fail(level.name + " pseudo-LRU needs a power-of-two number of ways, at most 32");
    if (preset.l2_partitioned && level.name == "L2-far" &&
        level.capacity_bytes % (2ull * level.line_bytes * level.ways) != 0)
      fail("L2-far does not split into two partitions of whole sets");
  }
  if (preset.l2_partitioned &&
      std::none_of(preset.caches.begin(), preset.caches.end(),
                   [](const CacheLevelModel& level) { return level.name == "L2-far"; }))
    fail("l2_partitioned without a level named L2-far");
  for (const auto& tlb : preset.tlbs)
    if (tlb.ways == 0 || tlb.entries == 0 || tlb.entries % tlb.ways != 0)
      fail(tlb.name + " entries are not a whole number of sets");
  if (!is_power_of_two(preset.page_bytes)) fail("page size is not a power of two");
  if (!(preset.info.rated_sm_clock_mhz > 0)) fail("no SM clock");
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> list{presets_detail::make_v100(), presets_detail::make_a100(),
                             presets_detail::make_h100(), presets_detail::make_h100_sxm(),
                             presets_detail::make_l40(), presets_detail::make_h200(),
                             presets_detail::make_b200(), presets_detail::make_rtx5090()};
    // The atomics cost table derives from each preset's own cited latencies (presets/atomics_costs.cpp).
    for (auto& preset : list) preset.atomics = presets_detail::atomics_costs(preset);
    for (const auto& preset : list) validate(preset);
    return list;
  }();
  return all;
}

const Preset& find_preset(std::string_view name) {
  static const std::pair<std::string_view, std::string_view> kAliases[] = {
      {"v100-pcie", "v100"}, {"v100_pcie", "v100"}, {"a100-40gb", "a100"},
      {"a100_40", "a100"},   {"h100-pcie", "h100"}, {"h100_pcie", "h100"}, {"h100_sxm", "h100-sxm"},
      {"h200-sxm", "h200"},  {"h200_sxm", "h200"},   {"b200-sxm", "b200"},  {"b200_sxm", "b200"},
      {"rtx-5090", "rtx5090"}, {"rtx_5090", "rtx5090"}, {"5090", "rtx5090"},
  };
  std::string key = lower(name);
  for (const auto& [alias, target] : kAliases)
    if (key == alias) key = target;
  for (const auto& preset : presets())
    if (preset.name == key) return preset;
  std::string known;
  for (const auto& preset : presets()) known += (known.empty() ? "" : ", ") + preset.name;
  throw Error("unknown simulator preset '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace gpuprobe::sim
