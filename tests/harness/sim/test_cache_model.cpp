// The simulator's set-associative array and L2 home hash (harness/sim/cache_model.hpp), alone.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "harness/chain.hpp"
#include "harness/sim/cache_model.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using gpuprobe::sim::Replacement;
using gpuprobe::sim::detail::SetArray;

namespace {

bool touch(SetArray& array, uint64_t block) {
  bool hit = false;
  array.touch(array.locate(block), hit);
  return hit;
}

// Replays `sequence` on a fresh one-set, four-way array, then says whether `probe` hits.
bool hits_after(Replacement policy, const std::vector<uint64_t>& sequence, uint64_t probe) {
  SetArray array(1, 4, false, policy);
  for (uint64_t block : sequence) touch(array, block);
  return touch(array, probe);
}

}  // namespace

TEST_CASE("cache model: tree pseudo-LRU evicts by its tree, not by age", "[sim][cache]") {
  // A B C D fill the four ways; A is touched again, E misses. Strict LRU evicts B, the oldest.
  // The tree after A's hit points to the upper pair (C, D) and, in it, to C: pseudo-LRU evicts C.
  const std::vector<uint64_t> sequence = {1, 2, 3, 4, 1, 5};
  CHECK_FALSE(hits_after(Replacement::lru, sequence, 2));
  CHECK(hits_after(Replacement::lru, sequence, 3));
  CHECK(hits_after(Replacement::plru, sequence, 2));
  CHECK_FALSE(hits_after(Replacement::plru, sequence, 3));
  for (uint64_t kept : {1, 4, 5}) {
    CHECK(hits_after(Replacement::plru, sequence, kept));
    CHECK(hits_after(Replacement::lru, sequence, kept));
  }
  // Without the repeated A both choose A, the first filled.
  CHECK_FALSE(hits_after(Replacement::plru, {1, 2, 3, 4, 5}, 1));
  CHECK_FALSE(hits_after(Replacement::lru, {1, 2, 3, 4, 5}, 1));
}

TEST_CASE("cache model: a cycle one line over a set thrashes LRU but not pseudo-LRU",
          "[sim][cache]") {
  const auto hits_in_later_passes = [](Replacement policy) {
    SetArray array(1, 16, false, policy, 3);
    int hits = 0;
    for (int pass = 0; pass < 8; ++pass)
      for (uint64_t block = 0; block < 17; ++block) hits += touch(array, block) && pass > 0;
    return hits;
  };
  CHECK(hits_in_later_passes(Replacement::lru) == 0);
  CHECK(hits_in_later_passes(Replacement::plru) > 7 * 17 / 2);
  CHECK(hits_in_later_passes(Replacement::random) > 7 * 17 / 2);
}

TEST_CASE("cache model: random replacement is reproducible from the seed", "[sim][cache]") {
  const auto hit_pattern = [](uint64_t seed) {
    SetArray array(64, 8, true, Replacement::random, seed);
    std::vector<bool> hits;
    uint64_t state = 12345;
    for (int i = 0; i < 20000; ++i)
      hits.push_back(touch(array, sim::detail::splitmix64(state) % (64 * 8 * 2)));
    return hits;
  };
  const auto first = hit_pattern(7);
  CHECK(first == hit_pattern(7));
  CHECK(first != hit_pattern(8));
  const auto hit_count = std::count(first.begin(), first.end(), true);
  CHECK(hit_count > 20000 / 4);  // about half the blocks fit
  CHECK(hit_count < 20000 * 3 / 4);
}

TEST_CASE("cache model: the hashed set index spreads strided blocks over the sets",
          "[sim][cache]") {
  for (uint64_t sets : {1024ull, 12800ull}) {
    INFO(sets << " sets");
    const auto distinct_sets = [&](bool hashed, uint64_t stride_blocks) {
      const SetArray array(sets, 16, hashed);
      std::set<uint64_t> used;
      for (uint64_t i = 0; i < 1024; ++i) used.insert(array.set_of(array.locate(i * stride_blocks)));
      return used.size();
    };
    // A stride of a multiple of the sets: one set by modulo, hundreds when hashed.
    CHECK(distinct_sets(false, sets * 8) == 1);
    CHECK(distinct_sets(true, sets * 8) > 600);
    CHECK(distinct_sets(true, sets * 64) > 600);
    // Consecutive blocks keep filling distinct sets.
    CHECK(distinct_sets(true, 1) == 1024);
  }
}

TEST_CASE("cache model: a rotation block loads the sets a little unevenly, keys stay apart",
          "[sim][cache]") {
  constexpr uint64_t kSets = 12800;
  constexpr uint32_t kWays = 16;
  const auto set_loads = [&](int rotation_shift) {
    const SetArray array(kSets, kWays, true, Replacement::lru, 0, 1, rotation_shift);
    std::map<uint64_t, uint32_t> load;
    for (uint64_t block = 0; block < kSets * kWays; ++block) ++load[array.set_of(array.locate(block))];
    return load;
  };
  const auto even = set_loads(0);
  CHECK(even.size() == kSets);
  CHECK(std::all_of(even.begin(), even.end(), [](const auto& s) { return s.second == kWays; }));
  const auto uneven = set_loads(15);  // 32768 blocks, 2.56 runs of the sets
  uint32_t most = 0;
  for (const auto& [set, count] : uneven) most = std::max(most, count);
  CHECK(most > kWays);
  // Every block of a buffer as large as the array is a distinct line: no false hit.
  SetArray array(kSets, 64, true, Replacement::lru, 0, 1, 15);
  uint64_t false_hits = 0;
  for (uint64_t block = 0; block < kSets * kWays; ++block) false_hits += touch(array, block);
  CHECK(false_hits == 0);
}

TEST_CASE("cache model: L2 homes split every SM's lines in half, SM by SM", "[sim][cache]") {
  const sim::Preset& preset = sim::find_preset("h100");
  REQUIRE(preset.l2_partitioned);
  sim::SimDevice device(preset, 1);
  std::set<int> partitions;
  for (int sm = 0; sm < preset.info.sm_count; ++sm) {
    INFO("SM " << sm);
    uint64_t far = 0;
    constexpr uint64_t kLines = 20000;
    for (uint64_t line = 0; line < kLines; ++line) far += device.l2_far(sm, line * 128);
    CHECK(far == kLines / 2);  // exactly: the two lines of every aligned pair have different homes
    partitions.insert(device.l2_partition_of_sm(sm));
  }
  CHECK(partitions.size() == 2);  // some SMs are attached to each partition
  // Two SMs on different partitions see complementary far lines; a TPC's two SMs the same ones.
  int other = 1;
  while (device.l2_partition_of_sm(other) == device.l2_partition_of_sm(0)) ++other;
  for (uint64_t offset = 0; offset < (1 << 20); offset += 4096 + 128) {
    CHECK(device.l2_far(0, offset) != device.l2_far(other, offset));
    CHECK(device.l2_far(0, offset) == device.l2_far(1, offset));
  }
  // Not a simple alternation of lines: runs of far lines of every length up to a few.
  int longest_run = 0;
  int run = 0;
  for (uint64_t line = 0; line < 4096; ++line) {
    run = device.l2_far(0, line * 128) ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
  }
  CHECK(longest_run >= 2);
}

TEST_CASE("cache model: a random-replacement device repeats its walk for a seed", "[sim][cache]") {
  sim::Preset preset = sim::find_preset("h100");
  for (auto& level : preset.caches) level.replacement = Replacement::random;
  const Chain chain = make_random_cycle(preset.caches[1].capacity_bytes / 4 * 5, 128, 3);
  sim::WalkSpec spec;
  spec.phase_hops = {chain.slots(), 1 << 16};
  spec.keep_each_hop = {false, false};
  const auto timed = [&](uint64_t seed) {
    sim::SimDevice device(preset, seed);
    return device.walk(chain, spec).phase_cycles[1];
  };
  CHECK(timed(5) == timed(5));
  CHECK(timed(5) != timed(6));
}

}  // namespace GPUPROBE_TEST_FILE
