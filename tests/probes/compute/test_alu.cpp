// The compute family's CUDA-core probe (probes/compute/alu_*.cpp) on the simulated device and its
// host-side contract: the chains' reference results (exact where the op is), the self-check of a
// launch's records, the capability refusals, and compute/alu recovering each preset's table.
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>
#include <string>

#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/compute/alu_ops.hpp"

using namespace gpuprobe;
using probes::AluKind;
using probes::AluOp;
using probes::compute::AluWarpOut;

namespace {

nlohmann::json run(Device& device, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe("compute/alu");
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

float as_float(uint64_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// A launch's records as a GPU that ran every op would leave them.
std::vector<AluWarpOut> good_warps(const probes::AluSetup& s, const probes::AluRun& r) {
  const uint64_t ops = r.iterations * probes::compute::kAluOpsPerIteration / probes::alu_chains(s.kind);
  std::vector<AluWarpOut> warps(uint64_t(s.blocks) * s.block_threads / 32);
  for (std::size_t w = 0; w < warps.size(); ++w) {
    warps[w].start_cycles = 1000;
    warps[w].end_cycles = 1000 + ops * 4;
    warps[w].smid = static_cast<uint32_t>(w % 2);
    warps[w].ran = 1;
    for (uint32_t k = 0; k < probes::alu_chains(s.kind); ++k)
      warps[w].result[k] = probes::alu_reference_bits(s.op, k, ops);
  }
  return warps;
}

}  // namespace

TEST_CASE("compute reference: counting FMA chains are exact and stop where the format's integers end",
          "[compute]") {
  // x = x * 1 + 1 from 1 + chain: 1 + chain + ops, up to 2^24 (f32), 2^11 (f16), 2^8 (bf16).
  CHECK(as_float(probes::alu_reference_bits(AluOp::fma_rn_f32, 0, 10)) == 11.0f);
  CHECK(as_float(probes::alu_reference_bits(AluOp::fma_rn_f32, 3, 10)) == 14.0f);
  CHECK(as_float(probes::alu_reference_bits(AluOp::fma_rn_f32, 0, 1ull << 30)) == 16777216.0f);
  // f16x2: low half from 1, high half from 9; 1.0 is 0x3c00, 11.0 0x4980, 19.0 0x4cc0, 2048 0x6800.
  CHECK(probes::alu_reference_bits(AluOp::fma_rn_f16x2, 0, 10) == 0x4cc04980u);
  CHECK(probes::alu_reference_bits(AluOp::fma_rn_f16x2, 0, 100000) == 0x68006800u);
  // bf16x2: 11.0 is 0x4130, 19.0 0x4198, 256 0x4380.
  CHECK(probes::alu_reference_bits(AluOp::fma_rn_bf16x2, 0, 10) == 0x41984130u);
  CHECK(probes::alu_reference_bits(AluOp::fma_rn_bf16x2, 0, 1000) == 0x43804380u);
  // Integers: + 3 per op, modulo 2^32.
  CHECK(probes::alu_reference_bits(AluOp::mad_lo_s32, 2, 5) == 18u);
  CHECK(probes::alu_reference_bits(AluOp::add_add_u32, 0, 1ull << 32) == 1u);
  // Round trips: the first conversion rounds (1 + 2^-12 -> 1, 2.5 -> 2), then nothing changes.
  CHECK(as_float(probes::alu_reference_bits(AluOp::cvt_f16_f32, 0, 64)) == 1.0f);
  CHECK(as_float(probes::alu_reference_bits(AluOp::cvt_s32_f32, 1, 64)) == 2.0f);
  // ex2(-x) settles at x = 2^-x, rsqrt at 1.
  CHECK(as_float(probes::alu_reference_bits(AluOp::ex2_approx_ftz_f32, 0, 4096)) ==
        Approx(0.6411857).margin(1e-6));
  CHECK(as_float(probes::alu_reference_bits(AluOp::rsqrt_approx_ftz_f32, 5, 4096)) ==
        Approx(1.0).margin(1e-6));
}

TEST_CASE("compute self-check: a chain one op short, or off the tolerance, fails", "[compute]") {
  for (const auto& info : probes::compute::kAluOps) {
    INFO(info.name);
    const uint64_t ops = 128;  // below every format's end (bf16: 256)
    CHECK(probes::alu_result_error(info.op, 1, ops, probes::alu_reference_bits(info.op, 1, ops)).empty());
    const uint64_t short_by_one = probes::alu_reference_bits(info.op, 1, ops - 1);
    switch (info.op) {
      case AluOp::cvt_f16_f32:
      case AluOp::cvt_s32_f32:
        // A round trip settles after one op; zero ops leave the unrounded start.
        CHECK_FALSE(probes::alu_result_error(info.op, 1, ops,
                                             probes::alu_reference_bits(info.op, 1, 0)).empty());
        break;
      case AluOp::ex2_approx_ftz_f32:
      case AluOp::rsqrt_approx_ftz_f32:
      case AluOp::sin_approx_ftz_f32:
      case AluOp::tanh_approx_f32: {
        // Tolerance-checked: a start value or a negative one fails.
        const float wrong = info.op == AluOp::ex2_approx_ftz_f32 ? 0.7f : -0.5f;
        uint32_t bits;
        std::memcpy(&bits, &wrong, sizeof bits);
        CHECK_FALSE(probes::alu_result_error(info.op, 1, ops, bits).empty());
        break;
      }
      default: CHECK_FALSE(probes::alu_result_error(info.op, 1, ops, short_by_one).empty());
    }
  }
}

TEST_CASE("compute summary: rates per SM from the warps' clocks, and bad records fail the self-check",
          "[compute]") {
  probes::AluSetup s;
  s.op = AluOp::fma_rn_f32;
  s.kind = AluKind::throughput;
  s.block_threads = 64;
  s.blocks = 4;
  probes::AluRun r;
  r.iterations = 16;
  auto warps = good_warps(s, r);
  const auto result = probes::summarize_alu_launch(s, r, warps);
  // 8 warps on 2 SMs: 4 x 32 threads x 8 chains x 128 ops over 128 x 4 cycles.
  CHECK(result.ops_per_chain == 128);
  CHECK(result.sms == 2);
  CHECK(result.ops_per_clk_per_sm == Approx(4.0 * 32 * 8 * 128 / (128 * 4)));
  auto wrong = warps;
  wrong[3].result[5] ^= 1;
  CHECK_THROWS_WITH(probes::summarize_alu_launch(s, r, wrong),
                    Catch::Contains("self-check failed") && Catch::Contains("warp 3"));
  auto lost = warps;
  lost[2].ran = 0;
  CHECK_THROWS_WITH(probes::summarize_alu_launch(s, r, lost), Catch::Contains("did not run"));
  lost.pop_back();
  CHECK_THROWS_WITH(probes::summarize_alu_launch(s, r, lost), Catch::Contains("reported 7 warps"));
}

TEST_CASE("compute/alu on every preset recovers its compute table, and skips the ops it lacks with the reason",
          "[compute]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    auto device = sim::make_sim_device(preset);
    const auto record = run(*device, {{"iterations", "64"}});
    REQUIRE(record["status"] == "ok");
    REQUIRE(record["series"].size() == 2 * probes::compute::kAluOpCount);
    for (const auto& p : record["series"]) {
      INFO(p.dump());
      const auto m = std::find_if(preset.compute.begin(), preset.compute.end(),
                                  [&](const sim::AluOpModel& x) { return x.op == p["op"]; });
      if (m == preset.compute.end()) {
        CHECK(p.contains("skipped"));
        continue;
      }
      CHECK(p["self_check"] == "passed");
      if (p["kind"] == "throughput") {
        CHECK(p["ops_per_clk_per_sm"].get<double>() == Approx(m->ops_per_clk_per_sm).epsilon(0.02));
      } else {
        // One warp cannot issue faster than a quarter of the SM's rate.
        const double floor = 32 * 4 / m->ops_per_clk_per_sm;
        CHECK(p["latency_cycles"].get<double>() ==
              Approx(std::max(m->latency_cycles, floor)).epsilon(0.02));
      }
    }
  }
  // The V100 lacks bf16x2 (sm_80) and f32x2 (sm_100): skipped, naming what they need.
  auto v100 = sim::make_sim_device(sim::find_preset("v100"));
  const auto record = run(*v100, {{"op", "fma_rn_bf16x2"}, {"kind", "latency"}});
  REQUIRE(record["series"].size() == 1);
  CHECK(record["series"][0]["skipped"].get<std::string>().find("sm_80+") != std::string::npos);
}

TEST_CASE("compute/alu refuses bad parameters in one line", "[compute]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const ProbeSpec& probe = find_probe("compute/alu");
  CHECK_THROWS_WITH(Params::parse(probe.params, {{"op", "fma"}}), Catch::Contains("fma_rn_f32"));
  CHECK_THROWS(Params::parse(probe.params, {{"iterations", "9999999999"}}));
  CHECK_THROWS_WITH(run(*device, {{"block-threads", "48"}}), Catch::Contains("multiple of 32"));
  CHECK_THROWS_WITH(run(*device, {{"iterations", "0"}}), Catch::Contains("--iterations"));
}
