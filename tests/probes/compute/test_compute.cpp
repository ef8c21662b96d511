// The compute family (probes/compute/compute.cpp) on the simulated device and its self-check:
// the chains' reference results (exact where the op is), what the check refuses, the capability
// refusals, and compute/alu recovering each preset's cost table.
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>
#include <string>

#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_costs.hpp"
#include "probes/common/self_check.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;

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

const probes::ValueChainCheck& check() { return probes::value_chain_check("compute"); }
uint64_t reference(const std::string& op, uint32_t chain, uint64_t ops) { return check().reference(op, chain, ops); }
std::string error(const std::string& op, uint32_t chain, uint64_t ops, uint64_t got) {
  return check().error(op, chain, ops, got);
}
const std::vector<std::string> kOps = {"fma_rn_f32", "fma_rn_f64", "fma_rn_f16x2", "fma_rn_bf16x2",
                                       "fma_rn_f32x2", "mad_lo_s32", "add_add_u32", "ex2_approx_ftz_f32",
                                       "rsqrt_approx_ftz_f32", "sin_approx_ftz_f32", "tanh_approx_f32",
                                       "cvt_f16_f32", "cvt_s32_f32"};

// The ops a preset's SM lacks (bf16x2 before sm_80, tanh before sm_75, f32x2 before sm_100).
bool ptx_supported(const sim::Preset& p, const std::string& op) {
  const int sm = p.info.cc.sm();
  return !((op == "fma_rn_bf16x2" && sm < 80) || (op == "tanh_approx_f32" && sm < 75) ||
           (op == "fma_rn_f32x2" && sm < 100));
}

}  // namespace

TEST_CASE("compute reference: counting FMA chains are exact and stop where the format's integers end",
          "[compute]") {
  // x = x * 1 + 1 from 1 + chain: 1 + chain + ops, up to 2^24 (f32), 2^11 (f16), 2^8 (bf16).
  CHECK(as_float(reference("fma_rn_f32", 0, 10)) == 11.0f);
  CHECK(as_float(reference("fma_rn_f32", 3, 10)) == 14.0f);
  CHECK(as_float(reference("fma_rn_f32", 0, 1ull << 30)) == 16777216.0f);
  // f16x2: low half from 1, high half from 9; 1.0 is 0x3c00, 11.0 0x4980, 19.0 0x4cc0, 2048 0x6800.
  CHECK(reference("fma_rn_f16x2", 0, 10) == 0x4cc04980u);
  CHECK(reference("fma_rn_f16x2", 0, 100000) == 0x68006800u);
  // bf16x2: 11.0 is 0x4130, 19.0 0x4198, 256 0x4380.
  CHECK(reference("fma_rn_bf16x2", 0, 10) == 0x41984130u);
  CHECK(reference("fma_rn_bf16x2", 0, 1000) == 0x43804380u);
  // Integers: + 3 per op, modulo 2^32.
  CHECK(reference("mad_lo_s32", 2, 5) == 18u);
  CHECK(reference("add_add_u32", 0, 1ull << 32) == 1u);
  // Round trips: the first conversion rounds (1 + 2^-12 -> 1, 2.5 -> 2), then nothing changes.
  CHECK(as_float(reference("cvt_f16_f32", 0, 64)) == 1.0f);
  CHECK(as_float(reference("cvt_s32_f32", 1, 64)) == 2.0f);
  // ex2(-x) settles at x = 2^-x, rsqrt at 1.
  CHECK(as_float(reference("ex2_approx_ftz_f32", 0, 4096)) ==
        Approx(0.6411857).margin(1e-6));
  CHECK(as_float(reference("rsqrt_approx_ftz_f32", 5, 4096)) ==
        Approx(1.0).margin(1e-6));
}

TEST_CASE("compute self-check: a chain one op short, or off the tolerance, fails", "[compute]") {
  for (const std::string& op : kOps) {
    INFO(op);
    const uint64_t ops = 128;  // below every format's end (bf16: 256)
    CHECK(error(op, 1, ops, reference(op, 1, ops)).empty());
    const uint64_t short_by_one = reference(op, 1, ops - 1);
    if (op == "cvt_f16_f32" || op == "cvt_s32_f32") {
      // A round trip settles after one op; zero ops leave the unrounded start.
      CHECK_FALSE(error(op, 1, ops, reference(op, 1, 0)).empty());
    } else if (op.find("approx") != std::string::npos) {
      // Tolerance-checked: a start value or a negative one fails.
      const float wrong = op == "ex2_approx_ftz_f32" ? 0.7f : -0.5f;
      uint32_t bits;
      std::memcpy(&bits, &wrong, sizeof bits);
      CHECK_FALSE(error(op, 1, ops, bits).empty());
    } else {
      CHECK_FALSE(error(op, 1, ops, short_by_one).empty());
    }
  }
  // The wrong bits are named, against the reference.
  CHECK_THAT(error("fma_rn_f32", 2, 10, reference("fma_rn_f32", 2, 9)),
             Catch::Contains("chain 2 ended with bits 0x41400000, expected 0x41500000 after 10 ops"));
}

TEST_CASE("compute/alu on every preset recovers its compute table, and skips the ops it lacks with the reason",
          "[compute]") {
  for (const auto& preset : sim::presets()) {
    INFO(preset.name);
    auto device = sim::make_sim_device(preset);
    const auto record = run(*device, {{"iterations", "64"}});
    REQUIRE(record["status"] == "ok");
    REQUIRE(record["series"].size() == 2 * kOps.size());
    const auto& costs = *preset.table<probes::OpCosts>("compute");
    for (const auto& p : record["series"]) {
      INFO(p.dump());
      const auto m = std::find_if(costs.begin(), costs.end(),
                                  [&](const probes::OpCost& x) { return x.op == p["op"]; });
      if (m == costs.end() || !ptx_supported(preset, p["op"])) {
        CHECK(p.contains("skipped"));
        continue;
      }
      // Not `self_check == passed`: the simulator fills the results from the host's reference, so
      // that check cannot fail here (the self-check's own tests plant wrong results instead).
      if (p["kind"] == "throughput") {
        CHECK(p["ops_per_clk_per_sm"].get<double>() == Approx(m->rate).epsilon(0.02));
      } else {
        // One warp cannot issue faster than a quarter of the SM's rate.
        const double floor = 32 * 4 / m->rate;
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

}  // namespace GPUPROBE_TEST_FILE
