// The list of simulator presets and the lookup by name (with a few accepted aliases).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "harness/error.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/presets/presets.hpp"

namespace gpuprobe::sim {
namespace {

// presets() has made the presets: no table may be registered any more.
bool made = false;

std::vector<TableMaker>& makers() {
  static std::vector<TableMaker> all;
  return all;
}

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
    for (auto& preset : list)
      for (const TableMaker& m : makers()) preset.tables.set(m.name, {m.type, m.make(preset)});
    for (const auto& preset : list) validate(preset);
    made = true;
    return list;
  }();
  return all;
}

std::vector<TableMaker>& table_makers() {
  if (made) throw Error("a simulator cost table was registered after the presets were made");
  return makers();
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

Preset slowed_preset(const Preset& preset, double factor) {
  Preset p = preset;
  const auto slower = [factor](double& rate) { rate /= factor; };
  const auto longer = [factor](double& cost) { cost *= factor; };
  for (auto& level : p.caches) longer(level.hit_latency_cycles);
  for (auto& tlb : p.tlbs) longer(tlb.miss_penalty_cycles);
  longer(p.dram_latency_cycles);
  longer(p.shared_latency_cycles);
  longer(p.page_walk_cycles);
  longer(p.l2_sm_spread_cycles);
  for (auto& cycles : p.l2_sm_offsets_cycles) longer(cycles);
  for (auto& b : p.bandwidth) {
    slower(b.peak_bytes_per_clk_per_sm);
    slower(b.peak_bytes_per_s);
    longer(b.queue_cycles);
  }
  LaunchCostModel& l = p.launch;
  for (double* ns : {&l.host_enqueue_ns, &l.round_trip_ns, &l.back_to_back_ns, &l.gap_ns, &l.pdl_launch_ns,
                     &l.graph_instantiate_ns, &l.graph_instantiate_per_node_ns, &l.graph_update_ns,
                     &l.graph_update_per_node_ns, &l.graph_launch_ns, &l.graph_launch_per_node_ns,
                     &l.device_graph_launch_ns})
    longer(*ns);
  for (auto& k : l.small_kernels) {
    longer(k.overhead_ns);
    slower(k.bytes_per_s);
  }
  for (const TableMaker& m : makers())
    if (const auto it = preset.tables.all().find(m.name); it != preset.tables.all().end() && it->second.table)
      p.tables.set(m.name, {m.type, m.slow(it->second.table, factor)});
  char text[32];
  std::snprintf(text, sizeof text, "%g", factor);
  p.info.sim_preset = preset.name + ",slowdown=" + text;
  p.info.uuid = "sim-" + preset.name + "-slowdown-" + text;
  return p;
}

Preset preset_from_spec(std::string_view spec) {
  const auto comma = spec.find(',');
  const Preset& preset = find_preset(spec.substr(0, comma));
  if (comma == std::string_view::npos) return preset;
  const std::string modifier(spec.substr(comma + 1));
  const std::string key = "slowdown=";
  if (modifier.compare(0, key.size(), key) != 0)
    throw Error("unknown simulator modifier '" + modifier + "' in 'sim:" + std::string(spec) +
                "' (known: slowdown=F, e.g. sim:h100,slowdown=1.25)");
  const std::string digits = modifier.substr(key.size());
  char* end = nullptr;
  const double factor = digits.empty() ? NAN : std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size() || !(factor >= 1 && factor <= 100))
    throw Error("bad slowdown '" + digits + "' in 'sim:" + std::string(spec) +
                "': expected a number from 1 to 100 (rates divided by it, latencies multiplied)");
  return slowed_preset(preset, factor);
}

}  // namespace gpuprobe::sim
