// The bandwidth probes (probes/bandwidth/*.cpp) on the simulated device: each level's sweep shows
// the preset's levels, peaks and bank conflicts; the checks refuse what has no kernel or does not
// fit, each in one line; the self-check of a launch fails loudly on a wrong checksum.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <set>
#include <tuple>
#include <sstream>
#include <string>

#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/bandwidth/stream_ops.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using probes::StreamKind;

namespace {

nlohmann::json run(Device& device, const std::string& id,
                   std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe(id);
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

std::vector<nlohmann::json> sweep(const nlohmann::json& record, const std::string& name) {
  std::vector<nlohmann::json> out;
  for (const auto& p : record["series"])
    if (p.value("sweep", "") == name) out.push_back(p);
  return out;
}

double per_sm_clk(const nlohmann::json& p) { return p["bytes_per_clk_per_sm"].get<double>(); }

const sim::LevelBandwidthModel& model(const sim::Preset& preset, const std::string& level) {
  for (const auto& m : preset.bandwidth)
    if (m.level == level) return m;
  throw Error("no model for " + level);
}

}  // namespace

TEST_CASE("bandwidth/shared on the simulator: the stride sets the bank-conflict degree",
          "[bandwidth]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const auto record = run(*device, "bandwidth/shared",
                          {{"strides", "1,2,3,4,8,16,32,33"}, {"concurrency", "off"}});
  REQUIRE(record["status"] == "ok");
  const auto points = sweep(record, "stride");
  REQUIRE(points.size() == 8);
  const double conflict_free = per_sm_clk(points[0]);
  for (const auto& p : points) {
    const auto stride = p["stride_elems"].get<unsigned>();
    const double degree = conflict_free / per_sm_clk(p);
    INFO("stride " << stride);
    CHECK(degree == Approx(std::gcd(stride, 32u)).epsilon(0.05));
    CHECK(p["bytes_in_flight_per_sm"].get<double>() > 0);
  }
}

TEST_CASE("bandwidth/dram on the simulator: reads, writes and copies approach the preset's peaks "
          "as bytes in flight grow", "[bandwidth]") {
  const sim::Preset& preset = sim::find_preset("v100");
  auto device = sim::make_sim_device(preset);
  const auto record = run(*device, "bandwidth/dram", {{"footprint-bytes", "64M"}});
  REQUIRE(record["status"] == "ok");
  const auto& dram = model(preset, "DRAM");
  for (const char* kind : {"read", "write", "copy"}) {
    INFO(kind);
    double best = 0, lowest_in_flight_bw = INFINITY, lowest_in_flight = INFINITY;
    for (const auto& p : sweep(record, "concurrency")) {
      if (p["kind"] != kind) continue;
      best = std::max(best, p["bandwidth_bytes_per_s"].get<double>());
      if (p["bytes_in_flight_per_sm"].get<double>() < lowest_in_flight) {
        lowest_in_flight = p["bytes_in_flight_per_sm"].get<double>();
        lowest_in_flight_bw = p["bandwidth_bytes_per_s"].get<double>();
      }
    }
    const double fraction = std::string(kind) == "write"  ? dram.write_fraction
                            : std::string(kind) == "copy" ? dram.copy_fraction
                                                          : 1.0;
    // The most concurrent configuration gets within 10% of the peak, never above it; the least
    // concurrent one (32 threads per block) is clearly below (Little's law: too few bytes in
    // flight to cover the DRAM latency).
    CHECK(best <= dram.peak_bytes_per_s * fraction * 1.02);
    CHECK(best >= dram.peak_bytes_per_s * fraction * 0.90);
    CHECK(lowest_in_flight_bw < 0.85 * best);
  }
}

TEST_CASE("bandwidth/l1 and bandwidth/l2 on the simulator: L1, near L2, far L2 and DRAM in order",
          "[bandwidth]") {
  const sim::Preset& preset = sim::find_preset("h100");
  auto device = sim::make_sim_device(preset);
  const auto l1 = run(*device, "bandwidth/l1",
                      {{"max-window-bytes", "512K"}, {"points-per-octave", "2"},
                       {"concurrency", "off"}});
  REQUIRE(l1["status"] == "ok");
  const auto l1_points = sweep(l1, "footprint");
  // Inside L1 (224 KiB on the preset) the rate is the L1's, within what the bytes in flight
  // allow; past it, far lower.
  const double inside = per_sm_clk(l1_points.front());
  CHECK(inside <= model(preset, "L1").peak_bytes_per_clk_per_sm * 1.02);
  CHECK(inside >= model(preset, "L1").peak_bytes_per_clk_per_sm * 0.85);
  CHECK(per_sm_clk(l1_points.back()) < 0.3 * inside);

  const auto l2 = run(*device, "bandwidth/l2",
                      {{"min-footprint-bytes", "4M"}, {"max-footprint-bytes", "160M"},
                       {"points-per-octave", "1"}, {"concurrency", "off"}});
  REQUIRE(l2["status"] == "ok");
  std::map<std::string, double> at;   // bandwidth at 4 MB (near), 32 MB (far), 128 MB (DRAM)
  for (const auto& p : sweep(l2, "footprint")) {
    const double mb = p["footprint_bytes"].get<double>() / (1 << 20);
    if (mb == 4) at["near"] = p["bandwidth_bytes_per_s"];
    if (mb == 32) at["far"] = p["bandwidth_bytes_per_s"];
    if (mb == 128) at["dram"] = p["bandwidth_bytes_per_s"];
  }
  REQUIRE(at.size() == 3);
  CHECK(at["near"] > at["far"]);
  CHECK(at["far"] > 1.5 * at["dram"]);
  CHECK(at["near"] <= model(preset, "L2").peak_bytes_per_s * 1.02);
}

TEST_CASE("bandwidth/l1 refuses a --min-window-bytes below one tile instead of enlarging it", "[bandwidth]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  for (const char* small : {"0", "8K"}) {
    INFO(small);
    CHECK_THROWS_WITH(run(*device, "bandwidth/l1", {{"min-window-bytes", small}}),
                      Catch::Contains("is less than one tile of a block (16384 bytes"));
  }
  // The default grows to the tile of a larger block (1024 threads x 16 B x 2: 32 KiB).
  const auto r = run(*device, "bandwidth/l1",
                     {{"block-threads", "1024"},
                      {"max-window-bytes", "64K"},
                      {"points-per-octave", "1"},
                      {"concurrency", "off"}});
  REQUIRE(r["status"] == "ok");
  CHECK(r["series"][0]["window_bytes_per_sm"] == 32768);
}

TEST_CASE("bandwidth setups without a kernel or a fit are refused in one line", "[bandwidth]") {
  const DeviceInfo& h100 = sim::find_preset("h100").info;
  probes::StreamSetup s;
  s.shape = {StreamKind::read, 32, 4};
  s.blocks = 114;
  s.geometry = {114, 1, 1, 1};
  CHECK_THROWS_WITH(probes::check_stream_fits(s, h100, 1ull << 34),
                    Catch::Contains("32-byte global accesses need sm_100"));
  s.shape = {StreamKind::read, 16, 3};
  CHECK_THROWS_WITH(probes::check_stream_fits(s, h100, 1ull << 34),
                    Catch::Contains("no bandwidth kernel"));
  s.shape = {StreamKind::shared, 32, 4};
  CHECK_THROWS_WITH(probes::check_stream_fits(s, h100, 1ull << 34),
                    Catch::Contains("no 32-byte load"));
  s.shape = {StreamKind::write, 16, 4};
  s.geometry = {100, 1, 1, 1};   // 114 windows of one tile over 100 tiles: overlapping writes
  CHECK_THROWS_WITH(probes::check_stream_fits(s, h100, 1ull << 34),
                    Catch::Contains("disjoint windows that cover the buffer"));
  s.geometry = {114, 1, 1, 1};
  s.block_threads = 100;
  CHECK_THROWS_WITH(probes::check_stream_fits(s, h100, 1ull << 34),
                    Catch::Contains("not a multiple of 32"));
  s.block_threads = 256;
  s.geometry = {114ull << 20, 1ull << 20, 1ull << 20, 1};   // 114 Mi tiles of 16 KiB
  CHECK_THROWS_WITH(probes::check_stream_fits(s, h100, 1ull << 34),
                    Catch::Contains("MiB of device memory"));
  s.shape = {StreamKind::shared, 4, 8};
  s.stride_elems = 65;
  CHECK_THROWS_WITH(probes::check_stream_fits(s, h100, 1ull << 34),
                    Catch::Contains("shared stride 65"));
}

TEST_CASE("a launch whose checksum or destination is wrong fails its self-check", "[bandwidth]") {
  probes::StreamSetup s;
  s.shape = {StreamKind::copy, 16, 4};
  probes::StreamResult r;
  r.checksum = 7;
  r.expected_checksum = 7;
  CHECK_NOTHROW(probes::check_stream_result(s, r));
  r.checksum = 8;
  CHECK_THROWS_WITH(probes::check_stream_result(s, r),
                    Catch::Contains("self-check failed") && Catch::Contains("read checksum 8"));
  r.checksum = 7;
  r.mismatched_words = 3;
  CHECK_THROWS_WITH(probes::check_stream_result(s, r),
                    Catch::Contains("left 3 destination words without the pattern"));
  // A write has no read checksum to compare.
  s.shape.kind = StreamKind::write;
  r.mismatched_words = 0;
  r.checksum = 0;
  CHECK_NOTHROW(probes::check_stream_result(s, r));
}

TEST_CASE("the concurrency sweep raises the bytes in flight along its ladder, then varies one "
          "knob at a time", "[bandwidth]") {
  probes::StreamConfig base;
  base.shape = {StreamKind::read, 16, 2};
  base.block_threads = 256;
  base.blocks_per_sm = 2;
  const auto h100 = probes::concurrency_configs(base, sim::find_preset("h100").info);
  std::set<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>> seen;
  auto in_flight = [](const probes::StreamConfig& c) {
    return uint64_t(c.block_threads) * c.blocks_per_sm * c.shape.ilp * c.shape.vec_bytes;
  };
  constexpr std::size_t kLadder = 14;
  REQUIRE(h100.size() > kLadder);
  CHECK(in_flight(h100[0]) == 128);   // one warp, one 4-byte access per thread
  for (std::size_t i = 1; i < kLadder; ++i) {
    const double ratio = double(in_flight(h100[i])) / double(in_flight(h100[i - 1]));
    CHECK(ratio >= 1.33);
    CHECK(ratio <= 2.0);
  }
  CHECK(in_flight(h100[kLadder - 1]) == 256u << 10);
  bool has_vec32 = false;
  for (std::size_t i = 0; i < h100.size(); ++i) {
    const auto& c = h100[i];
    CHECK(seen.insert({c.shape.vec_bytes, c.shape.ilp, c.block_threads, c.blocks_per_sm}).second);
    if (i >= kLadder) {
      const int changed = (c.shape.vec_bytes != 16) + (c.shape.ilp != 2) +
                          (c.block_threads != 256) + (c.blocks_per_sm != 2);
      CHECK(changed <= 1);
    }
    has_vec32 = has_vec32 || c.shape.vec_bytes == 32;
  }
  CHECK_FALSE(has_vec32);   // sm_90: no 32-byte accesses
  DeviceInfo b200 = sim::find_preset("h100").info;
  b200.cc = {10, 0};
  bool b200_vec32 = false;
  for (const auto& c : probes::concurrency_configs(base, b200))
    b200_vec32 = b200_vec32 || c.shape.vec_bytes == 32;
  CHECK(b200_vec32);
}

TEST_CASE("a preset without a bandwidth model skips the bandwidth probes with the reason",
          "[bandwidth]") {
  sim::Preset bare = sim::find_preset("v100");
  bare.bandwidth.clear();
  auto device = sim::make_sim_device(bare);
  const auto record = run(*device, "bandwidth/shared", {{"concurrency", "off"}});
  CHECK(record["status"] == "skipped");
  CHECK_THAT(record["skip_reason"].get<std::string>(), Catch::Contains("no bandwidth model"));
}

TEST_CASE("bandwidth points plan their passes within the per-point time bound", "[bandwidth]") {
  // A 1 MiB pass takes about 1 us of modelled time, so the preset's 20 us timed region wants tens of
  // passes; a bound of 1 us (a fifth of it per calibrated run, since a repeat runs n and 4n
  // passes) leaves the calibration at one pass.
  auto device = sim::make_sim_device(sim::find_preset("v100"));
  const ProbeSpec& probe = find_probe("bandwidth/dram");
  const auto params = Params::parse(probe.params, {{"footprint-bytes", "1M"}, {"kind", "read"}, {"concurrency", "off"}});
  std::ostringstream log;
  const auto free_run = run_probe(*device, probe, params, RepeatPolicy{}, "", log);
  RepeatPolicy bounded;
  bounded.max_seconds = 1e-6;
  const auto bounded_run = run_probe(*device, probe, params, bounded, "", log);
  REQUIRE(free_run["status"] == "ok");
  REQUIRE(bounded_run["status"] == "ok");
  uint64_t most_free = 0, most_bounded = 0;
  for (const auto& p : free_run["series"]) most_free = std::max(most_free, p["passes"].get<uint64_t>());
  for (const auto& p : bounded_run["series"])
    most_bounded = std::max(most_bounded, p["passes"].get<uint64_t>());
  CHECK(most_free > 4);
  CHECK(most_bounded == 1);
}

}  // namespace GPUPROBE_TEST_FILE
