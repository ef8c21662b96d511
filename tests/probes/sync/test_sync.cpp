// The sync family (probes/sync/sync.cpp) on the simulated device and its host-side contract: the
// warp simulations behind the self-check (shuffles walk their permutation, votes and matches
// settle, redux sums), the self-check of a launch's records failing on a wrong value, a missing or
// reversed warp, the launch shapes refused, the capability refusals, and the probe's plan.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/sync/sync.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using probes::Kind;
using probes::SyncOp;
using probes::sync::SyncWarpOut;

namespace {

nlohmann::json run(Device& device, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe("sync/primitives");
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

uint32_t fingerprint(const std::array<uint32_t, 32>& x) {
  uint32_t f = 0;
  for (uint32_t l = 0; l < 32; ++l) f += x[l] * (2 * l + 1);
  return f;
}

// A launch's records as a GPU that ran every op would leave them.
std::vector<SyncWarpOut> good_warps(const probes::SyncSetup& s, const probes::SyncRun& r) {
  const auto& info = probes::sync_info(s.op);
  const uint32_t chains = probes::sync_chains(s.op, s.kind);
  const uint64_t ops = r.iterations * info.ops_per_iteration / chains;
  std::vector<SyncWarpOut> warps(uint64_t(s.blocks) * s.block_threads / 32);
  for (std::size_t w = 0; w < warps.size(); ++w) {
    warps[w].start_cycles = 1000;
    warps[w].end_cycles = 1000 + ops * 30;
    warps[w].smid = static_cast<uint32_t>(w % 2);
    warps[w].ran = 1;
    for (uint32_t k = 0; k < chains; ++k) warps[w].result[k] = probes::sync_reference(s.op, s, k, ops);
  }
  return warps;
}

}  // namespace

TEST_CASE("sync reference: the shuffles walk their permutation and the collectives settle", "[sync]") {
  probes::SyncSetup s;
  const auto idx = probes::sync_lane_words(SyncOp::shfl_idx);
  std::array<uint32_t, 32> start{};
  for (uint32_t l = 0; l < 32; ++l) start[l] = idx[l];
  // 0 ops: the start; 31 ops: lanes 1..31 rotated all the way round (order 31), so the start too;
  // 1 op: lane l holds lane l+1's value (lane 31 lane 1's, lane 0 its own).
  CHECK(probes::sync_reference(SyncOp::shfl_idx, s, 0, 0) == fingerprint(start));
  CHECK(probes::sync_reference(SyncOp::shfl_idx, s, 0, 31) == fingerprint(start));
  std::array<uint32_t, 32> one = start;
  for (uint32_t l = 1; l < 32; ++l) one[l] = start[l % 31 + 1];
  CHECK(probes::sync_reference(SyncOp::shfl_idx, s, 0, 1) == fingerprint(one));
  CHECK(probes::sync_reference(SyncOp::shfl_idx, s, 0, 1) != fingerprint(start));
  // The bfly form with per-lane masks l ^ P(l) reads the same lanes as idx.
  CHECK(probes::sync_reference(SyncOp::shfl_bfly, s, 0, 64 * 7) ==
        probes::sync_reference(SyncOp::shfl_idx, s, 0, 64 * 7));
  // 64 ops (one iteration) is not a multiple of 31: differs from the start.
  CHECK(probes::sync_reference(SyncOp::shfl_idx, s, 0, 64) != fingerprint(start));
  // up: after 31 or more, every lane holds lane 0's value; down: lane 31's.
  std::array<uint32_t, 32> all0{}, all31{};
  all0.fill(start[0]);
  all31.fill(start[31]);
  CHECK(probes::sync_reference(SyncOp::shfl_up, s, 0, 1000) == fingerprint(all0));
  CHECK(probes::sync_reference(SyncOp::shfl_down, s, 0, 1000) == fingerprint(all31));
  // vote.any of one set lane: 1 everywhere; vote.all with one clear lane: 0 everywhere.
  std::array<uint32_t, 32> ones{};
  ones.fill(1);
  CHECK(probes::sync_reference(SyncOp::vote_any, s, 0, 64) == fingerprint(ones));
  CHECK(probes::sync_reference(SyncOp::vote_all, s, 0, 64) == 0);
  // match.all of distinct lanes: 0, then everyone equal: the full mask.
  std::array<uint32_t, 32> full{};
  full.fill(0xffffffffu);
  CHECK(probes::sync_reference(SyncOp::match_all, s, 0, 1) == 0);
  CHECK(probes::sync_reference(SyncOp::match_all, s, 0, 2) == fingerprint(full));
  // redux.add: 1 + ... + 32 = 528 everywhere after one op, then x32 per op: 0 after enough.
  std::array<uint32_t, 32> sum{};
  sum.fill(528);
  CHECK(probes::sync_reference(SyncOp::redux_add, s, 0, 1) == fingerprint(sum));
  CHECK(probes::sync_reference(SyncOp::redux_add, s, 0, 64) == 0);
  // elect: the leader of the full warp is lane 0.
  CHECK(probes::sync_reference(SyncOp::elect, s, 0, 64) == 0);
  // bar.red.popc: 0 after the first op (every (x ^ tid) even), then half the CTA.
  s.block_threads = 256;
  CHECK(probes::sync_reference(SyncOp::bar_red_popc, s, 0, 1) == 0);
  CHECK(probes::sync_reference(SyncOp::bar_red_popc, s, 0, 16) == 128);
  // The DSMEM walk: from slot 128 k, `stride` slots per hop, modulo the ring.
  CHECK(probes::sync_reference(SyncOp::dsmem_ld, s, 3, 10) == (384 + 970) % 1024);
  CHECK(probes::sync_reference(SyncOp::mbarrier_try_wait, s, 0, 128) == 128);
}

TEST_CASE("sync self-check: a wrong value, a missing warp or a reversed clock fails the launch", "[sync]") {
  probes::SyncSetup s;
  s.op = SyncOp::shfl_down;
  s.kind = Kind::throughput;
  s.block_threads = 64;
  s.blocks = 4;
  probes::SyncRun r;
  r.iterations = 8;
  auto warps = good_warps(s, r);
  const auto ok = probes::summarize_sync_launch(s, r, warps);
  CHECK(ok.sms == 2);
  // 8 warps on 2 SMs, 8 chains of 64 ops each in 64 x 30 cycles: 4 x 8 x 64 / 1920 per SM.
  CHECK(ok.ops_per_clk_per_sm == Approx(4.0 * 8 * 64 / (64 * 30)));
  CHECK(ok.latency_cycles == Approx(30));
  auto bad = warps;
  bad[5].result[3] ^= 1;
  CHECK_THROWS_WITH(probes::summarize_sync_launch(s, r, bad),
                    Catch::Contains("self-check failed") && Catch::Contains("warp 5 chain 3"));
  bad = warps;
  bad.pop_back();
  CHECK_THROWS_WITH(probes::summarize_sync_launch(s, r, bad), Catch::Contains("reported 7 warps"));
  bad = warps;
  bad[2].end_cycles = 10;
  CHECK_THROWS_WITH(probes::summarize_sync_launch(s, r, bad), Catch::Contains("ended before it started"));
  bad = warps;
  bad[0].ran = 0;
  CHECK_THROWS_WITH(probes::summarize_sync_launch(s, r, bad), Catch::Contains("did not run"));
}

TEST_CASE("sync fits: shapes the ops cannot run are refused, and ops the GPU lacks", "[sync]") {
  DeviceInfo a100;
  a100.name = "A100";
  a100.cc = {8, 0};
  DeviceInfo h100 = a100;
  h100.name = "H100";
  h100.cc = {9, 0};
  probes::SyncSetup s;
  s.op = SyncOp::elect;
  CHECK_THROWS_AS(probes::check_sync_fits(s, a100), Skip);
  CHECK_NOTHROW(probes::check_sync_fits(s, h100));
  s.op = SyncOp::redux_add;
  DeviceInfo v100 = a100;
  v100.cc = {7, 0};
  CHECK_THROWS_AS(probes::check_sync_fits(s, v100), Skip);
  s.op = SyncOp::bar_arrive;
  s.block_threads = 96;  // three warps: no two halves
  CHECK_THROWS_WITH(probes::check_sync_fits(s, h100), Catch::Contains("even number of warps"));
  s.op = SyncOp::dsmem_ld;
  s.block_threads = 32;
  s.cluster_size = s.blocks = 1;
  CHECK_THROWS_WITH(probes::check_sync_fits(s, h100), Catch::Contains("cluster size 1 is not 2 to 8"));
  s.cluster_size = s.blocks = 16;
  CHECK_THROWS_WITH(probes::check_sync_fits(s, h100), Catch::Contains("cluster size 16"));
  s.op = SyncOp::barrier_cluster;
  s.kind = Kind::throughput;
  s.cluster_size = 2;
  s.blocks = 5;
  CHECK_THROWS_WITH(probes::check_sync_fits(s, h100), Catch::Contains("whole number of clusters"));
  s.op = SyncOp::grid_sync;
  s.cluster_size = 0;
  CHECK_THROWS_WITH(probes::check_sync_fits(s, h100), Catch::Contains("latency only"));
  s.op = SyncOp::shfl_idx;
  s.kind = Kind::latency;
  s.blocks = 2;
  CHECK_THROWS_WITH(probes::check_sync_fits(s, h100), Catch::Contains("one warp"));
}

TEST_CASE("sync/primitives on the simulated H100: every op, its sweeps, self-checks passed", "[sync]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const auto record = run(*device, {{"iterations", "8"}});
  REQUIRE(record["status"] == "ok");
  std::set<std::string> ops;
  int grid_points = 0, warp_sweep = 0;
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    CHECK_FALSE(p.contains("skipped"));
    // Not `self_check == passed`: the simulator fills the results from the host's reference, so
    // that check cannot fail here (the self-check's own tests plant wrong results instead).
    ops.insert(p["op"].get<std::string>());
    if (p["op"] == "grid_sync") {
      CHECK(p["kind"] == "latency");  // no rate for the grid barrier
      CHECK(p["launch"]["cooperative"] == true);
      ++grid_points;
    }
    if (p["op"] == "bar_sync" && p["kind"] == "latency") ++warp_sweep;
    if (p["op"] == "dsmem_ld") CHECK(p["launch"]["cluster"][0] == p["cluster_size"]);
  }
  CHECK(ops.size() == std::size(probes::sync::kSyncOps));
  CHECK(grid_points == 4);   // 1 CTA, then 1, 2 and 4 per SM
  CHECK(warp_sweep == 6);    // 1 to 32 warps
}

TEST_CASE("sync/primitives on the simulated V100 skips what sm_70 lacks, with the reason", "[sync]") {
  auto device = sim::make_sim_device(sim::find_preset("v100"));
  const auto record = run(*device, {{"iterations", "4"}, {"kind", "latency"}});
  REQUIRE(record["status"] == "ok");
  std::set<std::string> skipped;
  for (const auto& p : record["series"])
    if (p.contains("skipped")) skipped.insert(p["op"].get<std::string>());
  const std::set<std::string> expected{"redux_add", "redux_min", "elect", "barrier_cluster",
                                       "barrier_cluster_relaxed", "dsmem_ld", "mbarrier_test_wait",
                                       "mbarrier_try_wait", "fence_acq_rel_cluster", "fence_proxy_async"};
  CHECK(skipped == expected);
}

TEST_CASE("sync/primitives refuses bad parameters in one line", "[sync]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const ProbeSpec& probe = find_probe("sync/primitives");
  CHECK_THROWS_AS(Params::parse(probe.params, {{"op", "shfl_sideways"}}), Error);
  std::ostringstream log;
  CHECK_THROWS_WITH(run_probe(*device, probe, Params::parse(probe.params, {{"block-threads", "48"}}),
                              RepeatPolicy{}, "", log),
                    Catch::Contains("for --block-threads: must be a multiple of 32"));
  CHECK_THROWS_WITH(run(*device, {{"op", "grid_sync"}, {"kind", "throughput"}}),
                    Catch::Contains("the grid barrier has no rate"));
}

}  // namespace GPUPROBE_TEST_FILE
