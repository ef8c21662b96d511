#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/chain.hpp"
#include "harness/error.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_costs.hpp"
#include "probes/tensor/tensor_point.hpp"
#include "probes/memory/chase_ops.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using gpuprobe::probes::ChaseOps;
using gpuprobe::probes::ChaseResult;
using gpuprobe::probes::ChaseRun;
using gpuprobe::probes::ChaseSetup;
using gpuprobe::probes::MemorySpace;
using gpuprobe::probes::kChaseHopsPerIteration;
using gpuprobe::probes::shared_chase_bytes;
using Load = gpuprobe::ptx::LoadVariant;
using gpuprobe::sim::CacheLevelModel;
using gpuprobe::sim::Preset;

namespace {

const CacheLevelModel* level_named(const Preset& preset, const std::string& name) {
  for (const auto& level : preset.caches)
    if (level.name == name) return &level;
  return nullptr;
}

uint64_t round_up_to_iteration(uint64_t hops) {
  return (hops + kChaseHopsPerIteration - 1) / kChaseHopsPerIteration * kChaseHopsPerIteration;
}

// One warm-up pass over the chain, then at least min_timed_hops timed hops, through the memory
// family's operations on the simulated device (probes/memory/chase_sim.cpp).
ChaseResult chase_chain(Device& device, const Chain& chain, Load op = Load::ca,
                        uint64_t min_timed_hops = 4096, uint32_t sampled_hops = 0,
                        MemorySpace space = MemorySpace::global, uint64_t warmup_hops = 0) {
  ChaseSetup setup;
  setup.space = space;
  setup.load = op;
  setup.chain = &chain;
  setup.sampled_hops = sampled_hops;
  const auto prepared = device.ops<ChaseOps>().prepare(setup);
  ChaseRun run;
  run.warmup_hops = warmup_hops != 0 ? warmup_hops
                                     : std::max<uint64_t>(chain.slots(), kChaseHopsPerIteration);
  run.timed_hops = round_up_to_iteration(std::max<uint64_t>(chain.slots(), min_timed_hops));
  return prepared->run(run);
}

double mean_cycles(Device& device, const Chain& chain, Load op = Load::ca) {
  const ChaseResult result = chase_chain(device, chain, op);
  return static_cast<double>(result.timed_cycles) /
         static_cast<double>(round_up_to_iteration(std::max<uint64_t>(chain.slots(), 4096)));
}

// A level's latency plus the mean contribution of the rare outliers.
double expected_cycles(const Preset& preset, double latency_cycles) {
  return latency_cycles + preset.outlier_probability * preset.outlier_extra_cycles;
}

}  // namespace

TEST_CASE("sim: the same seed and requests give identical results", "[sim]") {
  const Preset& preset = sim::find_preset("h100");
  const Chain chain = make_random_cycle(1 << 20, 128, 3);
  auto a = sim::make_sim_device(preset, 7);
  auto b = sim::make_sim_device(preset, 7);
  for (int round = 0; round < 2; ++round) {
    const ChaseResult ra = chase_chain(*a, chain, Load::ca, 4096, 256);
    const ChaseResult rb = chase_chain(*b, chain, Load::ca, 4096, 256);
    CHECK(ra.timed_cycles == rb.timed_cycles);
    CHECK(ra.timed_ns == rb.timed_ns);
    CHECK(ra.sample_cycles == rb.sample_cycles);
    CHECK(ra.final_offset_bytes == rb.final_offset_bytes);
  }
  CHECK(a->measure_sm_clock_mhz(100000) == b->measure_sm_clock_mhz(100000));
}

TEST_CASE("sim: different seeds and successive chases draw different noise", "[sim]") {
  const Preset& preset = sim::find_preset("h100");
  const Chain chain = make_random_cycle(1 << 20, 128, 3);
  auto a = sim::make_sim_device(preset, 1);
  auto b = sim::make_sim_device(preset, 2);
  const ChaseResult first = chase_chain(*a, chain, Load::ca, 4096, 256);
  const ChaseResult other_seed = chase_chain(*b, chain, Load::ca, 4096, 256);
  const ChaseResult second = chase_chain(*a, chain, Load::ca, 4096, 256);
  CHECK(first.sample_cycles != other_seed.sample_cycles);
  CHECK(first.timed_cycles != other_seed.timed_cycles);
  CHECK(first.sample_cycles != second.sample_cycles);
  // Same walk, so the same end point whatever the noise.
  CHECK(first.final_offset_bytes == other_seed.final_offset_bytes);
}

TEST_CASE("sim: footprints in each level give that level's latency", "[sim]") {
  for (const Preset& preset : sim::presets()) {
    INFO("preset " << preset.name);
    auto device = sim::make_sim_device(preset, 11);
    const CacheLevelModel* l1 = level_named(preset, "L1");
    const CacheLevelModel* l2 = level_named(preset, "L2");
    const CacheLevelModel* far = level_named(preset, "L2-far");
    REQUIRE(l1 != nullptr);
    REQUIRE(l2 != nullptr);
    const uint64_t full_l2_bytes = far != nullptr ? far->capacity_bytes : l2->capacity_bytes;
    // SM 0 walks: every access past L1 pays its distance to the L2.
    const double d = dynamic_cast<sim::SimDevice&>(*device).l2_distance_cycles(0);
    const auto check = [&](uint64_t footprint_bytes, double latency_cycles) {
      INFO("footprint " << footprint_bytes << " bytes");
      const Chain chain = make_random_cycle(footprint_bytes, 128, 5);
      const double extra = latency_cycles == l1->hit_latency_cycles ? 0.0 : d;
      const double want = expected_cycles(preset, latency_cycles + extra);
      CHECK(mean_cycles(*device, chain) == Approx(want).epsilon(0.02));
    };
    check(l1->capacity_bytes / 2, l1->hit_latency_cycles);
    const auto between_l1_and_l2 = static_cast<uint64_t>(
        std::sqrt(static_cast<double>(l1->capacity_bytes) * static_cast<double>(l2->capacity_bytes)));
    check(between_l1_and_l2 / 128 * 128, l2->hit_latency_cycles);
    // The stable part of the far plateau: pseudo-LRU keeps some near hits a little past the near
    // capacity, more so in the first passes after a cold start (docs/ANALYSIS.md, soft knees).
    if (far != nullptr) check(l2->capacity_bytes / 4 * 7, far->hit_latency_cycles);
    check(2 * full_l2_bytes, preset.dram_latency_cycles);
  }
}

TEST_CASE("sim: .cg and .cv loads never hit L1", "[sim]") {
  const Preset& preset = sim::find_preset("a100");
  const double l1_cycles = level_named(preset, "L1")->hit_latency_cycles;
  const double l2_cycles = level_named(preset, "L2")->hit_latency_cycles;
  auto device = sim::make_sim_device(preset, 4);
  const Chain chain = make_random_cycle(32 << 10, 128, 9);  // fits L1 easily
  CHECK(mean_cycles(*device, chain, Load::ca) ==
        Approx(expected_cycles(preset, l1_cycles)).epsilon(0.02));
  for (Load op : {Load::cg, Load::cv}) {
    const ChaseResult result = chase_chain(*device, chain, op, 4096, 2000);
    const double mean = static_cast<double>(result.timed_cycles) / 4096.0;
    CHECK(mean == Approx(expected_cycles(preset, l2_cycles)).epsilon(0.02));
    const uint32_t fastest = *std::min_element(result.sample_cycles.begin(),
                                               result.sample_cycles.end());
    CHECK(fastest > (l1_cycles + l2_cycles) / 2);
  }
}

TEST_CASE("sim: an 8-byte stride ring larger than L1 misses L1 once per 32-byte sector", "[sim]") {
  const Preset& preset = sim::find_preset("h100");
  const CacheLevelModel* l1 = level_named(preset, "L1");
  const CacheLevelModel* l2 = level_named(preset, "L2");
  REQUIRE(l1->sector_bytes == 32);
  auto device = sim::make_sim_device(preset, 5);
  const Chain ring = make_stride_ring(16 * l1->capacity_bytes, 8);  // far larger than L1, in L2
  const double want = l1->hit_latency_cycles +
                      (l2->hit_latency_cycles - l1->hit_latency_cycles) * 8.0 / 32.0;
  CHECK(mean_cycles(*device, ring) == Approx(expected_cycles(preset, want)).epsilon(0.02));
  // With one hop per sector every hop misses L1.
  const Chain sector_ring = make_stride_ring(16 * l1->capacity_bytes, 32);
  CHECK(mean_cycles(*device, sector_ring) ==
        Approx(expected_cycles(preset, l2->hit_latency_cycles)).epsilon(0.02));
}

TEST_CASE("sim: final_offset_bytes is where walk() says the chase ends", "[sim]") {
  auto device = sim::make_sim_device(sim::find_preset("v100"), 3);
  Chain chain = make_random_cycle(300 * 128, 128, 21);
  chain.start = 17;
  for (MemorySpace space : {MemorySpace::global, MemorySpace::shared}) {
    const uint64_t timed = 25 * kChaseHopsPerIteration;  // not a multiple of the 300-slot cycle
    const ChaseResult result = chase_chain(*device, chain, Load::plain, timed, 37, space, 101);
    const uint32_t last = walk(chain, chain.start, 101 + timed + 37);
    CHECK(result.final_offset_bytes == chain.offset_bytes[last]);
    CHECK(result.sample_cycles.size() == 37);
    CHECK(result.timed_iterations == 25);
    CHECK(result.launch.smid == 0);
  }
}

TEST_CASE("sim: a page cycle beyond each TLB reach steps up by that TLB's penalty", "[sim]") {
  const Preset& preset = sim::find_preset("v100");
  REQUIRE(preset.tlbs.size() == 2);
  const uint64_t reach1_pages = preset.tlbs[0].entries;
  const uint64_t reach2_pages = preset.tlbs[1].entries;
  auto device = sim::make_sim_device(preset, 8);
  const auto mean_for = [&](uint64_t pages) {
    const Chain chain = make_page_cycle(pages, preset.page_bytes, 136, 13);
    return mean_cycles(*device, chain);
  };
  const double l1_cycles = level_named(preset, "L1")->hit_latency_cycles;
  const double l2_cycles = level_named(preset, "L2")->hit_latency_cycles;
  const double tlb1_miss_cycles = preset.tlbs[0].miss_penalty_cycles;
  const double all_miss_cycles =
      tlb1_miss_cycles + preset.tlbs[1].miss_penalty_cycles + preset.page_walk_cycles;
  // Within TLB1 reach: few lines, all in L1.
  CHECK(mean_for(reach1_pages / 2) == Approx(expected_cycles(preset, l1_cycles)).epsilon(0.02));
  // Past TLB1, within TLB2: still in L1, plus TLB1's miss penalty on every hop.
  CHECK(mean_for(reach1_pages * 4) ==
        Approx(expected_cycles(preset, l1_cycles + tlb1_miss_cycles)).epsilon(0.02));
  // Past TLB2: every hop walks the page table (and the lines no longer fit L1).
  const uint64_t beyond_pages = reach2_pages * 3 / 2;
  REQUIRE(beyond_pages * preset.page_bytes <= device->free_memory_bytes());
  CHECK(mean_for(beyond_pages) ==
        Approx(expected_cycles(preset, l2_cycles + all_miss_cycles)).epsilon(0.02));
}

TEST_CASE("sim: each chase starts with cold caches and TLBs", "[sim]") {
  const Preset& preset = sim::find_preset("l40");
  auto device = sim::make_sim_device(preset, 6);
  const Chain chain = make_random_cycle(16 << 10, 128, 2);  // 128 lines, fits L1
  sim::WalkSpec spec;
  spec.phase_hops = {chain.slots()};
  spec.keep_each_hop = {false};
  const double threshold_cycles =
      (level_named(preset, "L2")->hit_latency_cycles + preset.dram_latency_cycles) / 2;
  auto& sim_device = dynamic_cast<sim::SimDevice&>(*device);
  for (int round = 0; round < 2; ++round) {
    const sim::WalkResult result = sim_device.walk(chain, spec);
    CHECK(result.phase_cycles[0] / chain.slots() > threshold_cycles);
  }
}

TEST_CASE("sim: shared-memory chases cost the shared latency and respect the block limit",
          "[sim]") {
  const Preset& preset = sim::find_preset("h100");
  auto device = sim::make_sim_device(preset, 2);
  const Chain fits = make_random_cycle(64 << 10, 128, 1);
  const ChaseResult result = chase_chain(*device, fits, Load::ca, 4096, 0, MemorySpace::shared);
  CHECK(static_cast<double>(result.timed_cycles) / 4096.0 ==
        Approx(expected_cycles(preset, preset.shared_latency_cycles)).epsilon(0.02));
  const Chain too_big =
      make_random_cycle(preset.info.shared_memory_per_block_optin_bytes + 1024, 128, 1);
  try {
    chase_chain(*device, too_big, Load::ca, 4096, 0, MemorySpace::shared);
    FAIL("a shared chain larger than the opt-in limit was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
    CHECK_THAT(e.what(), Catch::Contains("shared"));
  }
  // The limit is the GPU's: the chain plus its sample buffer (probes/memory/chase.cuh). A chain that
  // fits alone but not beside 512 samples is refused; it runs without them.
  const uint64_t optin = preset.info.shared_memory_per_block_optin_bytes;
  const Chain tight = make_random_cycle(optin - 1024, 8, 1);
  REQUIRE(shared_chase_bytes(tight.span_bytes, 0) <= optin);
  REQUIRE(shared_chase_bytes(tight.span_bytes, 512) > optin);
  CHECK_NOTHROW(chase_chain(*device, tight, Load::ca, 4096, 0, MemorySpace::shared));
  CHECK_THROWS_WITH(chase_chain(*device, tight, Load::ca, 4096, 512, MemorySpace::shared),
                    Catch::Contains("512 samples"));
}

TEST_CASE("sim: a global chain larger than free memory is refused", "[sim]") {
  const Preset& preset = sim::find_preset("h100");
  auto device = sim::make_sim_device(preset, 2);
  CHECK(device->free_memory_bytes() == preset.info.global_memory_bytes / 20 * 19);
  const uint64_t pages = device->free_memory_bytes() / preset.page_bytes + 1;
  const Chain chain = make_page_cycle(pages, preset.page_bytes, 136, 1);
  try {
    chase_chain(*device, chain);
    FAIL("a chain spanning more than free memory was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
    CHECK_THAT(e.what(), Catch::Contains("free"));
  }
  const Chain small = make_random_cycle(4096, 128, 1);
  ChaseSetup setup;
  setup.chain = &small;
  const auto prepared = device->ops<ChaseOps>().prepare(setup);
  CHECK_THROWS_AS(prepared->run(ChaseRun{64, 12}), Error);   // not a whole iteration
  CHECK_THROWS_AS(prepared->run(ChaseRun{8, 64}), Error);    // warm-up shorter than an iteration
}

TEST_CASE("sim: find_preset resolves names and aliases and lists the presets when unknown",
          "[sim]") {
  CHECK(sim::find_preset("h100").name == "h100");
  CHECK(sim::find_preset("H100-PCIe").name == "h100");
  CHECK(sim::find_preset("a100_40").name == "a100");
  try {
    sim::find_preset("b300");
    FAIL("an unknown preset was accepted");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(message.find("b300") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
    for (const Preset& preset : sim::presets()) CHECK(message.find(preset.name) != std::string::npos);
  }
}

TEST_CASE("sim: every preset is self-consistent", "[sim]") {
  REQUIRE(sim::presets().size() >= 4);
  for (const Preset& preset : sim::presets()) {
    INFO("preset " << preset.name);
    const DeviceInfo& info = preset.info;
    CHECK(info.simulated);
    CHECK(info.sim_preset == preset.name);
    CHECK(info.name.find("(simulated)") != std::string::npos);
    CHECK(info.sm_count > 0);
    CHECK(info.rated_sm_clock_mhz > 0);
    CHECK(info.global_memory_bytes > info.l2_bytes);
    CHECK(info.shared_memory_per_block_optin_bytes > 0);
    CHECK(info.shared_memory_per_block_optin_bytes <= info.shared_memory_per_sm_bytes);
    REQUIRE(preset.caches.size() >= 2);
    CHECK(preset.caches.front().name == "L1");
    CHECK(preset.caches.back().capacity_bytes == info.l2_bytes);
    for (size_t i = 1; i < preset.caches.size(); ++i) {
      CHECK(preset.caches[i].capacity_bytes > preset.caches[i - 1].capacity_bytes);
      CHECK(preset.caches[i].hit_latency_cycles > preset.caches[i - 1].hit_latency_cycles);
    }
    CHECK(preset.dram_latency_cycles > preset.caches.back().hit_latency_cycles);
    CHECK(preset.shared_latency_cycles > 0);
    CHECK(preset.shared_latency_cycles < preset.caches.front().hit_latency_cycles);
    REQUIRE(!preset.tlbs.empty());
    for (size_t i = 1; i < preset.tlbs.size(); ++i)
      CHECK(preset.tlbs[i].entries > preset.tlbs[i - 1].entries);
    // The footprint sweep's DRAM points (twice the L2) stay inside the first TLB's reach.
    CHECK(preset.tlbs.front().entries * preset.page_bytes >= 2 * info.l2_bytes);
    CHECK(preset.page_walk_cycles > preset.tlbs.front().miss_penalty_cycles);
    CHECK(preset.noise_rel >= 0);
    CHECK(preset.noise_rel < 0.05);
  }
}

// A table entry's source cites docs/FIGURES.md or says "assumption", and every key it names in
// brackets ("[GB24]", "[A100-DS via GLK]": the first word) is one that FIGURES.md lists.
TEST_CASE("sim: every preset's bandwidth, tensor and family cost entries cite FIGURES or say assumption",
          "[sim]") {
  std::ifstream in(std::string(GPUPROBE_SOURCE_DIR) + "/docs/FIGURES.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string figures = text.str();
  const auto check_source = [&](const std::string& what, const std::string& source) {
    INFO(what << ": \"" << source << "\"");
    CHECK((source.find('[') != std::string::npos || source.find("assumption") != std::string::npos));
    for (size_t open = source.find('['); open != std::string::npos; open = source.find('[', open + 1)) {
      const size_t end = source.find_first_of(" ,]", open + 1);
      REQUIRE(end != std::string::npos);
      const std::string key = source.substr(open, end - open);  // "[GB24"
      INFO("key " << key);
      CHECK(figures.find(key) != std::string::npos);
    }
  };
  for (const Preset& preset : sim::presets()) {
    INFO("preset " << preset.name);
    CHECK_FALSE(preset.bandwidth.empty());
    for (const auto& level : preset.bandwidth) check_source(level.level, level.source);
    int op_tables = 0;
    for (const auto& [family, entry] : preset.tables.all()) {
      if (entry.type != std::type_index(typeid(probes::OpCosts))) continue;
      ++op_tables;
      for (const auto& op : *preset.table<probes::OpCosts>(family)) check_source(family + " " + op.op, op.source);
    }
    CHECK(op_tables >= 2);  // compute, atomics, ...
    for (const auto& form : *preset.table<probes::tensor::TensorCosts>(probes::tensor::kCostTable))
      check_source(form.op, form.source);
  }
}

TEST_CASE("sim: measured SM clock is the preset clock within 0.1%", "[sim]") {
  for (const Preset& preset : sim::presets()) {
    auto device = sim::make_sim_device(preset, 9);
    const double clock_mhz = device->measure_sm_clock_mhz(100000);
    CHECK(clock_mhz == Approx(preset.info.rated_sm_clock_mhz).epsilon(0.001));
    CHECK(clock_mhz != preset.info.rated_sm_clock_mhz);
  }
}

TEST_CASE("sim: timed_ns is timed_cycles at the preset clock", "[sim]") {
  const Preset& preset = sim::find_preset("a100");
  auto device = sim::make_sim_device(preset, 9);
  const Chain chain = make_random_cycle(1 << 20, 128, 4);
  const ChaseResult result = chase_chain(*device, chain);
  CHECK(static_cast<double>(result.timed_ns) ==
        Approx(result.timed_cycles / preset.info.rated_sm_clock_mhz * 1000.0).margin(1.0));
}

TEST_CASE("sim: a walk replayed from the memo of the last one equals the walk itself", "[sim]") {
  // Device a walks the chain twice (the second replays the first walk's hops); device b walks it,
  // then a copy at another address (a full walk: the memo is keyed by the chain). Both draw the
  // same jitter, so the second walks must agree exactly, for the same and for shorter phases.
  const Chain chain = make_random_cycle(96ull << 20, 128, 3);  // L1, L2, far L2 and DRAM hops
  const Chain copy = chain;
  sim::WalkSpec spec;
  spec.sm = 5;
  spec.phase_hops = {chain.slots(), 4096, 512};
  spec.keep_each_hop = {false, false, true};
  sim::WalkSpec shorter = spec;
  shorter.phase_hops = {chain.slots() / 2, 1024, 100};
  for (const sim::WalkSpec* second : {&spec, &shorter}) {
    auto a = sim::make_sim_device(sim::find_preset("h100"), 7);
    auto b = sim::make_sim_device(sim::find_preset("h100"), 7);
    auto& da = dynamic_cast<sim::SimDevice&>(*a);
    auto& db = dynamic_cast<sim::SimDevice&>(*b);
    const sim::WalkResult a1 = da.walk(chain, spec), b1 = db.walk(chain, spec);
    const sim::WalkResult a2 = da.walk(chain, *second), b2 = db.walk(copy, *second);
    CHECK(a1.phase_cycles == b1.phase_cycles);
    CHECK(a2.phase_cycles == b2.phase_cycles);
    CHECK(a2.hop_cycles == b2.hop_cycles);
    CHECK(a2.final_slot == b2.final_slot);
    CHECK(a2.phase_cycles != a1.phase_cycles);  // new jitter, not a copy of the first walk
    CHECK(a2.final_slot == walk(chain, chain.start, second->phase_hops[0] +
                                                        second->phase_hops[1] +
                                                        second->phase_hops[2]));
  }
}

}  // namespace GPUPROBE_TEST_FILE
