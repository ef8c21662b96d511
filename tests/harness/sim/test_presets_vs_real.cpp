// Each simulator preset against the real curve it cites, so that a preset cannot drift: the
// closed loop (test_closed_loop.cpp) only compares a preset with itself.
//   Plateaus: in the stable part of each level (away from both knees), the simulated mean is
//   within 4% of the real curve's median. Knees: the near-L2 knee is as wide as the real one,
//   within a factor of two, and not a step (docs/ANALYSIS.md, "The simulator's soft knees").
// The walks are sparse: a few footprints per plateau and per knee, a few passes each.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/csv_import.hpp"
#include "harness/chain.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

namespace {

struct RealPoint {
  double footprint_bytes = 0;
  double latency_cycles = 0;
};

// The real curve a preset cites, and how it was measured.
struct RealCurve {
  std::vector<RealPoint> points;
  uint32_t slot_bytes = 64;  // gpu-latency chases 64-byte slots; memory/chase 128 by default
  int sm = -1;               // the SM that walked; -1: not known (no per-SM distance)
};

// The presets whose latencies come from FIGURES §2 values of a sibling or proxy GPU, with no
// pointer-chase curve of their own GPU in the repository: nothing to walk them against.
bool cites_a_curve(const std::string& preset) {
  return preset != "b200" && preset != "rtx5090";
}

// The presets rebuilt from this project's own run (FIGURES §2b): the results/ folder of the run.
std::string own_run(const std::string& preset) {
  if (preset == "h100-sxm") return "nvidia-h100-80gb-hbm3";  // [GP26]
  if (preset == "h200") return "nvidia-h200";                // [GP26-H200]
  return "";
}

RealCurve real_curve(const std::string& preset) {
  RealCurve curve;
  if (const std::string run = own_run(preset); !run.empty()) {  // memory/chase on SM 0
    std::ifstream in(std::string(GPUPROBE_SOURCE_DIR) + "/results/" + run +
                     "/raw/memory_chase_default.json");
    REQUIRE(in);
    const auto doc = nlohmann::json::parse(in);
    REQUIRE(doc["params"]["slot-bytes"] == "128");
    REQUIRE(doc["params"]["sm"] == "0");
    for (const auto& p : doc["series"])
      curve.points.push_back({p["footprint_bytes"].get<double>(), p["latency_cycles"].get<double>()});
    curve.slot_bytes = 128;
    curve.sm = 0;
    return curve;
  }
  const std::string file = preset == "v100"   ? "v100.txt"
                           : preset == "a100" ? "a100_40.txt"
                           : preset == "h100" ? "h100_pcie.txt"
                                              : "l40.txt";
  REQUIRE((preset == "v100" || preset == "a100" || preset == "h100" || preset == "l40"));
  const auto read = analysis::read_gpubenches_latency(std::string(GPUPROBE_TEST_DATA_DIR) +
                                                      "/real/gpu-benches/gpu-latency/" + file);
  for (const auto& p : read.points) curve.points.push_back({p.x, p.latency_cycles});
  return curve;
}

// Mean cycles per hop of a random cycle over the footprint in slots of `slot_bytes`, after
// `warm_passes` passes over the chain (the real tools time a warm cache; a walk starts cold).
double simulated_cycles(sim::SimDevice& device, const RealCurve& real, double footprint_bytes,
                        uint64_t warm_passes, uint32_t slot_bytes) {
  const uint64_t bytes = static_cast<uint64_t>(footprint_bytes) / slot_bytes * slot_bytes;
  const Chain chain = make_random_cycle(bytes, slot_bytes, 17);
  sim::WalkSpec spec;
  spec.sm = real.sm;
  spec.phase_hops = {warm_passes * chain.slots(), 1 << 15};
  spec.keep_each_hop = {false, false};
  return device.walk(chain, spec).phase_cycles[1] / static_cast<double>(spec.phase_hops[1]);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Plateau {
  std::string name;
  double first_bytes = 0;  // the stable part: past the knee below, before the knee above
  double last_bytes = 0;
};

// The stable part of each level, from the preset's capacities: from 1.6x the level below (1.45x
// for the far L2, whose plateau spans only one octave) to 0.85x its own capacity; DRAM from 1.6x
// the L2 to 3x (inside the first TLB's reach).
std::vector<Plateau> plateaus(const sim::Preset& preset) {
  std::vector<Plateau> out;
  double below = 16 << 10;
  for (const auto& level : preset.caches) {
    const double low = below * (level.name == "L2-far" ? 1.45 : 1.6);
    out.push_back({level.name, low, 0.85 * static_cast<double>(level.capacity_bytes)});
    below = static_cast<double>(level.capacity_bytes);
  }
  out.push_back({"DRAM", 1.6 * below, 3.0 * below});
  return out;
}

// Where a curve's normalised rise (y - low) / (high - low) first reaches `fraction`,
// interpolated in log2(footprint) between the points around it.
double crossing_bytes(const std::vector<RealPoint>& points, double low, double high,
                      double fraction) {
  for (size_t i = 1; i < points.size(); ++i) {
    const double e0 = (points[i - 1].latency_cycles - low) / (high - low);
    const double e1 = (points[i].latency_cycles - low) / (high - low);
    if (e1 >= fraction && e0 < fraction) {
      const double t = (fraction - e0) / (e1 - e0);
      return std::exp2(std::log2(points[i - 1].footprint_bytes) +
                       t * std::log2(points[i].footprint_bytes / points[i - 1].footprint_bytes));
    }
  }
  return 0;
}

// The knee's width in octaves: from 10% to 90% of the rise.
double knee_octaves(const std::vector<RealPoint>& points, double low, double high) {
  const double x10 = crossing_bytes(points, low, high, 0.1);
  const double x90 = crossing_bytes(points, low, high, 0.9);
  REQUIRE(x10 > 0);
  REQUIRE(x90 > 0);
  return std::log2(x90 / x10);
}

}  // namespace

TEST_CASE("presets vs real curves: plateaus within 4% of the curve each preset cites",
          "[sim][real]") {
  for (const sim::Preset& preset : sim::presets()) {
    if (!cites_a_curve(preset.name)) continue;
    SECTION(preset.name) {
      const RealCurve real = real_curve(preset.name);
      sim::SimDevice device(preset, 11);
      for (const Plateau& plateau : plateaus(preset)) {
        INFO(preset.name << " " << plateau.name << " from " << plateau.first_bytes << " to "
                         << plateau.last_bytes << " bytes");
        std::vector<RealPoint> inside;
        for (const RealPoint& p : real.points)
          if (p.footprint_bytes >= plateau.first_bytes && p.footprint_bytes <= plateau.last_bytes)
            inside.push_back(p);
        REQUIRE(!inside.empty());
        std::vector<double> real_cycles;
        for (const RealPoint& p : inside) real_cycles.push_back(p.latency_cycles);
        const double real_median = median(real_cycles);
        // Sparse: the first and the last real footprint of the stable part, in 128-byte slots
        // (a plateau does not depend on the slot; the knees do). One warm pass fills a level
        // below its capacity; past the near L2, pseudo-LRU needs a few to settle.
        const uint64_t warm = plateau.name == "L2-far" ? 3 : 1;
        const double simulated =
            (simulated_cycles(device, real, inside.front().footprint_bytes, warm, 128) +
             simulated_cycles(device, real, inside.back().footprint_bytes, warm, 128)) / 2;
        INFO("real median " << real_median << " cycles, simulated " << simulated);
        CHECK(simulated == Approx(real_median).epsilon(0.04));
      }
    }
  }
}

TEST_CASE("presets vs real curves: the near-L2 knee is as soft as the real one", "[sim][real]") {
  for (const char* name : {"a100", "h100", "h100-sxm", "h200"}) {
    SECTION(name) {
      const sim::Preset& preset = sim::find_preset(name);
      const RealCurve real = real_curve(name);
      const auto& near = preset.caches[1];
      const auto& far = preset.caches[2];
      REQUIRE(near.name == "L2");
      REQUIRE(far.name == "L2-far");
      const double capacity = static_cast<double>(near.capacity_bytes);
      std::vector<RealPoint> real_knee;
      std::vector<RealPoint> sim_knee;
      std::vector<double> real_low;
      std::vector<double> real_high;
      sim::SimDevice device(preset, 13);
      // The knee from 0.75x to 1.6x the near capacity, at every real footprint (steps of about
      // 1.1x: coarser steps would interpolate a sharp knee into a soft one), walked as the real
      // tool did, in its slots.
      for (const RealPoint& p : real.points) {
        const double r = p.footprint_bytes / capacity;
        if (r >= 0.5 && r <= 0.8) real_low.push_back(p.latency_cycles);
        if (r >= 1.45 && r <= 1.8) real_high.push_back(p.latency_cycles);
        if (r < 0.75 || r > 1.6) continue;
        real_knee.push_back(p);
        sim_knee.push_back({p.footprint_bytes, simulated_cycles(device, real, p.footprint_bytes,
                                                                2, real.slot_bytes)});
      }
      REQUIRE(real_knee.size() >= 5);
      std::string walked;
      for (const RealPoint& p : sim_knee)
        walked += " " + std::to_string(p.footprint_bytes / 1e6) + " MB: " +
                  std::to_string(p.latency_cycles);
      INFO("simulated:" << walked);
      const double distance = device.l2_distance_cycles(real.sm);
      const double real_octaves = knee_octaves(real_knee, median(real_low), median(real_high));
      const double sim_octaves = knee_octaves(sim_knee, near.hit_latency_cycles + distance,
                                              far.hit_latency_cycles + distance);
      INFO(name << ": knee from 10% to 90% in " << real_octaves << " octaves on the real curve, "
                << sim_octaves << " simulated");
      CHECK(sim_octaves > 0.15);  // more than a step between two sweep points
      CHECK(sim_octaves > real_octaves / 2);
      CHECK(sim_octaves < real_octaves * 2);
    }
  }
}

}  // namespace GPUPROBE_TEST_FILE
