// The atomics family (probes/atomics/atomics.cpp) on the simulated device and its host-side
// contract: the closed loop (every preset's table comes back within 2%), the self-check failing on
// a corrupted final word, a wrong hit count or a missing warp, the shared kernels' in-block index
// agreeing with the host's word map, ops a device lacks skipped with the reason, and the
// parameters and launch shapes refused in one line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/atomics/atomics.hpp"
#include "probes/common/op_costs.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using probes::Kind;
using probes::AtomicsOp;
using probes::AtomicsPattern;
using probes::atomics::AtomicsWarpOut;

namespace {

nlohmann::json run(Device& device, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe("atomics/ops");
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

// A launch's records as a GPU that ran every op would leave them, and its final words.
std::vector<AtomicsWarpOut> good_warps(const probes::AtomicsSetup& s, const probes::AtomicsRun& r) {
  const uint64_t ops = r.iterations * probes::atomics::kAtomicsOpsPerIteration;
  std::vector<AtomicsWarpOut> warps(uint64_t(s.blocks) * s.block_threads / 32);
  for (std::size_t w = 0; w < warps.size(); ++w) {
    warps[w].start_cycles = 1000;
    warps[w].end_cycles = 1000 + ops * 40;
    warps[w].smid = static_cast<uint32_t>(w % 2);
    warps[w].ran = 1;
    for (uint32_t k = 0; k < probes::atomics_chains(s.kind); ++k)
      warps[w].hits[k] = static_cast<uint32_t>(32 * ops);
  }
  return warps;
}

}  // namespace

TEST_CASE("atomics closed loop: every preset's latencies and rates come back within 2 percent", "[atomics]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    const auto& costs = *preset.table<probes::OpCosts>("atomics");
    REQUIRE_FALSE(costs.empty());
    auto device = sim::make_sim_device(preset);
    const auto record = run(*device, {{"iterations", "4"}});
    REQUIRE(record["status"] == "ok");
    int latencies = 0, rates = 0;
    for (const auto& p : record["series"]) {
      INFO(p.dump());
      const std::string op = p["op"], pattern = p["pattern"];
      const auto m = std::find_if(costs.begin(), costs.end(),
                                  [&](const probes::OpCost& x) { return x.op == op + " (" + pattern + ")"; });
      REQUIRE(m != costs.end());
      REQUIRE_FALSE(p.contains("skipped"));
      // Not `self_check == passed`: the simulator fills the results from the host's reference, so
      // that check cannot fail here (the self-check's own tests plant wrong results instead).
      CHECK(p["lowering"] == probes::atomics_lowering_name(probes::atomics_info(probes::parse_atomics_op(op)).lowering));
      if (p["kind"] == "latency") {
        CHECK(op.find("_red_add_") == std::string::npos);  // red returns nothing: no latency point
        CHECK(p["latency_cycles"].get<double>() == Approx(m->latency_cycles).epsilon(0.02));
        ++latencies;
      } else {
        CHECK(p["ops_per_clk_per_sm"].get<double>() == Approx(m->rate).epsilon(0.02));
        ++rates;
      }
    }
    // 19 ops: 8 global ops in 3 patterns, 9 shared ops in 2, the 2 uniform adds in 1.
    CHECK(rates == 8 * 3 + 9 * 2 + 2);
    CHECK(latencies == rates - (2 * 3 + 2 * 2));  // the reds have none
  }
}

TEST_CASE("atomics self-check: a corrupted final word, a wrong hit count or a missing warp fails", "[atomics]") {
  for (AtomicsOp op : {AtomicsOp::global_add_u64, AtomicsOp::shared_add_u32, AtomicsOp::shared_add_f32}) {
    probes::AtomicsSetup s;
    s.op = op;
    s.pattern = AtomicsPattern::distinct;
    s.kind = Kind::throughput;
    s.block_threads = 64;
    s.blocks = 4;
    probes::AtomicsRun r;
    r.iterations = 2;
    const auto warps = good_warps(s, r);
    auto words = probes::atomics_expected_words(s, r, warps);
    INFO(probes::atomics_info(op).name);
    const auto ok = probes::summarize_atomics_launch(s, r, warps, words);
    CHECK(ok.sms == 2);
    // 8 warps on 2 SMs, 4 chains x 32 ops per thread in 32 x 40 cycles: 4 x 32 x 4 x 32 / 1280.
    CHECK(ok.ops_per_clk_per_sm == Approx(4.0 * 32 * 4 * 32 / (32 * 40)));
    CHECK(ok.latency_cycles == Approx(40));
    words[37] += 1;
    CHECK_THROWS_WITH(probes::summarize_atomics_launch(s, r, warps, words),
                      Catch::Contains("self-check failed") && Catch::Contains("word 37"));
    words = probes::atomics_expected_words(s, r, warps);
    words.pop_back();
    CHECK_THROWS_WITH(probes::summarize_atomics_launch(s, r, warps, words), Catch::Contains("words, expected"));
    auto bad = warps;
    bad[3].hits[2] -= 1;
    CHECK_THROWS_WITH(probes::summarize_atomics_launch(s, r, bad, probes::atomics_expected_words(s, r, warps)),
                      Catch::Contains("warp 3 chain 2"));
    bad = warps;
    bad.pop_back();
    CHECK_THROWS_WITH(probes::summarize_atomics_launch(s, r, bad, words), Catch::Contains("reported 7 warps"));
  }
  // exch: a word that does not hold the last token of a chain on it.
  probes::AtomicsSetup s;
  s.op = AtomicsOp::global_exch_b64;
  s.pattern = AtomicsPattern::same;
  s.block_threads = 32;
  probes::AtomicsRun r;
  const auto warps = good_warps(s, r);
  CHECK_THROWS_WITH(probes::summarize_atomics_launch(s, r, warps, {0}),
                    Catch::Contains("self-check failed") && Catch::Contains("not the last token"));
}

TEST_CASE("atomics self-check: a contended CAS warp may win nothing, a word must see a success",
          "[atomics]") {
  // Seen on an H200's first run: under contention one warp lost all 8192 of its CASes. The word's
  // final value (init + every warp's successes) is the check; a warp's count only bounds it.
  probes::AtomicsSetup s;
  s.op = AtomicsOp::global_cas_b32;
  s.pattern = AtomicsPattern::contended;
  s.kind = Kind::latency;
  s.block_threads = 64;
  s.blocks = 4;
  probes::AtomicsRun r;
  r.iterations = 2;
  auto warps = good_warps(s, r);
  warps[3].hits[0] = 0;
  CHECK_NOTHROW(probes::summarize_atomics_launch(s, r, warps, probes::atomics_expected_words(s, r, warps)));
  auto over = warps;
  over[1].hits[0] = 32 * r.iterations * probes::atomics::kAtomicsOpsPerIteration + 1;
  CHECK_THROWS_WITH(probes::summarize_atomics_launch(s, r, over, probes::atomics_expected_words(s, r, warps)),
                    Catch::Contains("(contended) warp 1 chain 0"));
  auto none = warps;
  for (auto& w : none) w.hits[0] = 0;
  CHECK_THROWS_WITH(probes::summarize_atomics_launch(s, r, none, probes::atomics_expected_words(s, r, none)),
                    Catch::Contains("word 0: no CAS on it succeeded"));
  // A word of its own warp (same): every CAS instruction lets one lane win, so 0 fails there.
  s.pattern = AtomicsPattern::same;
  warps = good_warps(s, r);
  warps[2].hits[0] = 0;
  CHECK_THROWS_WITH(probes::summarize_atomics_launch(s, r, warps, probes::atomics_expected_words(s, r, warps)),
                    Catch::Contains("(same) warp 2 chain 0"));
}

TEST_CASE("atomics shared index: the kernels' in-block word is the host's word map", "[atomics]") {
  using namespace probes::atomics;
  for (AtomicsPattern pattern : {AtomicsPattern::same, AtomicsPattern::distinct, AtomicsPattern::uniform})
    for (uint32_t chains : {1u, 4u})
      for (uint32_t wpb : {1u, 8u, 32u}) {
        const uint64_t per_block = atomics_block_words(pattern, chains, wpb);
        for (uint64_t warp : {uint64_t{0}, uint64_t{7}, uint64_t{4095}, (uint64_t{1} << 33) + 5})
          for (uint32_t lane : {0u, 31u})
            for (uint32_t k = 0; k < chains; ++k) {
              const uint64_t block = warp / wpb;
              const uint32_t in_block = atomics_block_word(pattern, chains, uint32_t(warp % wpb), lane, k);
              CHECK(in_block < per_block);
              CHECK(atomics_word(pattern, true, chains, warp, wpb, lane, k) == block * per_block + in_block);
            }
      }
}

TEST_CASE("atomics/ops skips what the device lacks, with the reason", "[atomics]") {
  sim::Preset preset = sim::find_preset("a100");
  auto costs = *preset.table<probes::OpCosts>("atomics");
  costs.erase(std::remove_if(costs.begin(), costs.end(),
                             [](const probes::OpCost& m) { return m.op.rfind("shared_add_f32 ", 0) == 0; }),
              costs.end());
  preset.tables.put("atomics", costs);
  auto device = sim::make_sim_device(preset);
  const auto record = run(*device, {{"op", "shared_add_f32"}, {"iterations", "2"}});
  REQUIRE(record["status"] == "ok");
  REQUIRE(record["series"].size() == 4);  // same and distinct, latency and rate
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    REQUIRE(p.contains("skipped"));
    CHECK(p["skipped"].get<std::string>().find("no model of shared_add_f32") != std::string::npos);
  }
  // red returns nothing: no latency point is planned, and a latency launch is refused with the reason.
  const auto red = run(*device, {{"op", "global_red_add_u32"}, {"pattern", "distinct"}, {"iterations", "2"}});
  REQUIRE(red["series"].size() == 1);
  CHECK(red["series"][0]["kind"] == "throughput");
  probes::AtomicsSetup s;
  s.op = AtomicsOp::global_red_add_u32;
  CHECK_THROWS_WITH(probes::check_atomics_fits(s, device->info()), Catch::Contains("returns nothing"));
  CHECK_THROWS_WITH(run(*device, {{"op", "global_red_add_u32"}, {"kind", "latency"}}),
                    Catch::Contains("red has no latency"));
  // A preset without an atomics table: the whole family is unavailable.
  preset.tables.put("atomics", probes::OpCosts{});
  auto bare = sim::make_sim_device(preset);
  const auto none = run(*bare, {{"op", "global_add_u32"}, {"iterations", "2"}});
  CHECK(none["status"] == "skipped");
  CHECK(none["skip_reason"].get<std::string>().find("no atomics model") != std::string::npos);
}

TEST_CASE("atomics/ops refuses bad parameters and launch shapes in one line", "[atomics]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const ProbeSpec& probe = find_probe("atomics/ops");
  CHECK_THROWS_AS(Params::parse(probe.params, {{"op", "global_add_u16"}}), Error);
  CHECK_THROWS_AS(Params::parse(probe.params, {{"pattern", "diagonal"}}), Error);
  CHECK_THROWS_WITH(run(*device, {{"block-threads", "48"}}), Catch::Contains("for --block-threads: must be a multiple of 32"));
  CHECK_THROWS_WITH(run(*device, {{"blocks-per-sm", "0"}}), Catch::Contains("for --blocks-per-sm: must be at least 1"));
  CHECK_THROWS_WITH(run(*device, {{"iterations", "0"}}), Catch::Contains("--iterations must be 1 to"));
  CHECK_THROWS_WITH(run(*device, {{"op", "shared_add_u32"}, {"pattern", "contended"}}),
                    Catch::Contains("measures nothing"));
  CHECK_THROWS_WITH(probes::parse_atomics_op("add"), Catch::Contains("unknown atomics op 'add'"));
  probes::AtomicsSetup s;
  s.block_threads = 40;
  CHECK_THROWS_WITH(probes::check_atomics_fits(s, device->info()), Catch::Contains("not a multiple of 32"));
  s.block_threads = 32;
  s.pattern = AtomicsPattern::uniform;
  CHECK_THROWS_WITH(probes::check_atomics_fits(s, device->info()), Catch::Contains("does not apply"));
}

}  // namespace GPUPROBE_TEST_FILE
