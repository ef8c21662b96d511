// The tensor family's wgmma probe (probes/tensor/wgmma.cpp) on the simulated device and its
// host-side contract: the fragment layouts (each a bijection onto its matrix, with the PTX ISA's
// first elements), the operand images, the self-check (a correct tile passes, a corrupted or
// misplaced one fails the measurement loudly), the skip on devices without sm_90a, and
// tensor/wgmma recovering the Hopper presets' tensor tables within 2%.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "analysis/datasheet.hpp"
#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/tensor/tensor_point.hpp"
#include "probes/tensor/wgmma.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using probes::Kind;
using probes::WgmmaOp;
using probes::tensor::Operands;
using probes::tensor::kWgmmaOps;
using probes::tensor::kWgmmaThreads;

namespace {

// The preset's tensor cost table (probes/tensor/tensor_costs.cpp).
const probes::tensor::TensorCosts& costs_of(const sim::Preset& p) {
  return *p.table<probes::tensor::TensorCosts>(probes::tensor::kCostTable);
}

nlohmann::json run(Device& device, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe("tensor/wgmma");
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

// A launcher standing in for a GPU: every warpgroup ran; a stored tile is the reference, passed
// through `corrupt` first.
probes::WgmmaLauncher fake_gpu(std::function<void(std::vector<uint32_t>&)> corrupt) {
  return [corrupt](const probes::WgmmaLaunch& l) {
    probes::WgmmaLaunchOut o;
    o.units.resize(l.units);
    for (uint32_t g = 0; g < l.units; ++g) {
      o.units[g].start_cycles = 1000;
      o.units[g].end_cycles = 1000 + l.iterations * (l.baseline ? 20 : 100);
      o.units[g].smid = g % 4;
      o.units[g].ran = 1;
    }
    if (l.store) {
      const auto& info = probes::wgmma_info(l.op);
      o.tile = probes::wgmma_tile_words(info, probes::wgmma_reference(info, *l.operands));
      corrupt(o.tile);
    }
    return o;
  };
}

}  // namespace

TEST_CASE("wgmma accumulator layout: each thread's elements cover D once, as the PTX ISA places them",
          "[tensor][wgmma]") {
  // Warp 0 lane 0 holds D[0][0..1] and D[8][0..1]; lane 5 starts at row 1, column 2; warp 1 at row 16.
  CHECK(probes::wgmma_d_index(0, 0).row == 0);
  CHECK(probes::wgmma_d_index(0, 1).col == 1);
  CHECK(probes::wgmma_d_index(0, 2).row == 8);
  CHECK(probes::wgmma_d_index(5, 0).row == 1);
  CHECK(probes::wgmma_d_index(5, 0).col == 2);
  CHECK(probes::wgmma_d_index(5, 4).col == 10);
  CHECK(probes::wgmma_d_index(32, 0).row == 16);
  for (uint32_t n : {64u, 128u, 256u}) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t t = 0; t < kWgmmaThreads; ++t)
      for (uint32_t v = 0; v < n / 2; ++v) {
        const auto at = probes::wgmma_d_index(t, v);
        CHECK(at.row < 64);
        CHECK(at.col < n);
        seen.insert({at.row, at.col});
      }
    CHECK(seen.size() == 64 * n);
  }
}

TEST_CASE("wgmma RS A fragments: 16-bit, tf32 and 8-bit layouts each cover A once", "[tensor][wgmma]") {
  for (WgmmaOp op : {WgmmaOp::f16_f32_n64_rs, WgmmaOp::tf32_f32_n64_rs, WgmmaOp::s8_s32_n64_rs}) {
    const auto& info = probes::wgmma_info(op);
    INFO(info.name);
    const uint32_t per_thread = 64 * info.k / kWgmmaThreads;
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t t = 0; t < kWgmmaThreads; ++t)
      for (uint32_t e = 0; e < per_thread; ++e) {
        const auto at = probes::wgmma_a_index(info, t, e);
        CHECK(at.row < 64);
        CHECK(at.col < info.k);
        seen.insert({at.row, at.col});
      }
    CHECK(seen.size() == 64 * info.k);
  }
  // The first elements: f16 thread 1 holds A[0][2..3] then A[8][2..3]; tf32 thread 1 A[0][1],
  // A[8][1], A[0][5]; s8 thread 1 A[0][4..7], then A[8][4..7], then A[0][20..].
  const auto& f16 = probes::wgmma_info(WgmmaOp::f16_f32_n64_rs);
  CHECK(probes::wgmma_a_index(f16, 1, 0).col == 2);
  CHECK(probes::wgmma_a_index(f16, 1, 2).row == 8);
  CHECK(probes::wgmma_a_index(f16, 1, 4).col == 10);
  const auto& tf32 = probes::wgmma_info(WgmmaOp::tf32_f32_n64_rs);
  CHECK(probes::wgmma_a_index(tf32, 1, 1).row == 8);
  CHECK(probes::wgmma_a_index(tf32, 1, 2).col == 5);
  const auto& s8 = probes::wgmma_info(WgmmaOp::s8_s32_n64_rs);
  CHECK(probes::wgmma_a_index(s8, 1, 3).col == 7);
  CHECK(probes::wgmma_a_index(s8, 1, 4).row == 8);
  CHECK(probes::wgmma_a_index(s8, 1, 8).col == 20);
}

TEST_CASE("wgmma operand images: the no-swizzle K-major layout, and zeros are zeros", "[tensor][wgmma]") {
  using probes::tensor::wgmma_smem_offset;
  CHECK(wgmma_smem_offset(0, 0) == 0);
  CHECK(wgmma_smem_offset(1, 0) == 16);    // rows of a core matrix: 16 bytes apart
  CHECK(wgmma_smem_offset(0, 16) == 128);  // the next core matrix along K: LBO
  CHECK(wgmma_smem_offset(8, 0) == 256);   // the next along M/N: SBO
  CHECK(wgmma_smem_offset(63, 31) == 2047);
  // f16: A[0][1]'s two bytes sit at bytes 2-3 of the image.
  const auto& info = probes::wgmma_info(WgmmaOp::f16_f32_n128_ss);
  const auto d = probes::make_wgmma_operands(info, Operands::random, 7);
  REQUIRE(d.a_image.size() == 512);
  REQUIRE(d.b_image.size() == 128 * 32 / 4);
  uint32_t code = d.a_image[0] >> 16;
  const int exponent = int((code >> 10) & 31) - 15;
  const double value = std::ldexp(1.0 + (code & 0x3ff) / 1024.0, exponent) * ((code >> 15) ? -1 : 1);
  CHECK(value == d.a[1]);
  const auto z = probes::make_wgmma_operands(info, Operands::zeros, 7);
  for (uint32_t w : z.b_image) CHECK(w == 0);
  for (double v : z.a) CHECK(v == 0);
}

TEST_CASE("wgmma self-check: the reference tile passes for every op, a corrupted element fails it",
          "[tensor][wgmma]") {
  for (const auto& info : kWgmmaOps) {
    INFO(info.name);
    const auto d = probes::make_wgmma_operands(info, Operands::random, 3);
    auto words = probes::wgmma_tile_words(info, probes::wgmma_reference(info, d));
    const auto good = probes::check_wgmma_tile(info, d, words);
    CHECK(good.passed);
    CHECK(good.elements == 64 * info.n);
    CHECK(good.max_abs_error <= 1e-3 * 4 * 4 * info.k);
    // One element far off.
    const uint32_t regs = probes::tensor::wgmma_acc_regs(info);
    auto values = probes::wgmma_reference(info, d);
    const size_t i = 37 * info.n + info.n - 3;
    values[i] += 1000;  // every |term| <= 16: the sum of |terms| is at most 16 K <= 512
    const auto bad = probes::wgmma_tile_words(info, values);
    const auto caught = probes::check_wgmma_tile(info, d, bad);
    CHECK_FALSE(caught.passed);
    CHECK(caught.why.find("D[37][") != std::string::npos);
    // Two threads' registers swapped (a wrong layout) fail too.
    auto swapped = words;
    for (uint32_t r = 0; r < regs; ++r) std::swap(swapped[r], swapped[regs + r]);
    CHECK_FALSE(probes::check_wgmma_tile(info, d, swapped).passed);
  }
}

TEST_CASE("wgmma measurement: a corrupted tile fails it loudly before any timing", "[tensor][wgmma]") {
  probes::WgmmaSetup s;
  s.op = WgmmaOp::bf16_f32_n128_rs;
  probes::WgmmaRun r;
  r.iterations = 16;
  const auto ok = probes::run_wgmma(s, r, fake_gpu([](std::vector<uint32_t>&) {}));
  CHECK(ok.self_check.passed);
  CHECK(ok.cycles_per_iteration == Approx(100));
  CHECK(ok.baseline_cycles == Approx(20));
  CHECK(ok.latency_cycles == Approx(80));
  int timed = 0;
  auto corrupting = fake_gpu([](std::vector<uint32_t>& t) { t[5] ^= 0x40000000; });
  auto counting = [&](const probes::WgmmaLaunch& l) {
    if (!l.store) ++timed;
    return corrupting(l);
  };
  CHECK_THROWS_WITH(probes::run_wgmma(s, r, counting),
                    Catch::Contains("self-check failed") && Catch::Contains("wgmma_m64n128k16_bf16_f32_rs"));
  CHECK(timed == 0);
  // A warpgroup that never ran fails too.
  s.kind = Kind::throughput;
  s.units = 8;
  auto lost = [&](const probes::WgmmaLaunch& l) {
    auto o = fake_gpu([](std::vector<uint32_t>&) {})(l);
    if (!l.store) o.units[3].ran = 0;
    return o;
  };
  CHECK_THROWS_WITH(probes::run_wgmma(s, r, lost), Catch::Contains("did not run"));
}

TEST_CASE("tensor/wgmma on the Hopper presets recovers their wgmma tables within 2%, with both operand kinds",
          "[tensor][wgmma]") {
  std::set<std::string> covered;
  for (const auto& preset : sim::presets()) {
    const bool has_wgmma = std::any_of(costs_of(preset).begin(), costs_of(preset).end(), [](const auto& m) {
      return m.op.rfind("wgmma_", 0) == 0;
    });
    if (preset.info.cc.sm() != 90 || !has_wgmma) continue;
    covered.insert(preset.name);
    INFO(preset.name);
    auto device = sim::make_sim_device(preset);
    const auto record = run(*device, {{"iterations", "64"}});
    REQUIRE(record["status"] == "ok");
    REQUIRE(record["series"].size() == 4 * probes::tensor::kWgmmaOpCount);
    uint32_t measured = 0, zeros = 0;
    for (const auto& p : record["series"]) {
      INFO(p.dump());
      const auto m = std::find_if(costs_of(preset).begin(), costs_of(preset).end(),
                                  [&](const probes::tensor::TensorCost& x) { return x.op == p["op"]; });
      if (m == costs_of(preset).end()) {
        CHECK(p.contains("skipped"));
        continue;
      }
      ++measured;
      zeros += p["operands"] == "zeros";
      CHECK(p["path"] == "wgmma");
      CHECK(p["implementation"] == "native");
      CHECK((p["form"] == "SS" || p["form"] == "RS"));
      CHECK(p["self_check"]["passed"] == true);
      CHECK(p["self_check"]["elements"] == 64 * probes::wgmma_info(probes::parse_wgmma_op(p["op"])).n);
      CHECK(p["region_sm_clock_mhz"].get<double>() > 0);
      if (p["kind"] == "throughput") {
        CHECK(p["flops_per_clk_per_sm"].get<double>() ==
              Approx(m->flops_per_clk_per_sm).epsilon(0.02));
        CHECK(p["flops_per_s"].get<double>() ==
              Approx(p["flops_per_clk_per_sm"].get<double>() * preset.info.sm_count *
                     p["region_sm_clock_mhz"].get<double>() * 1e6).epsilon(1e-9));
      } else {
        CHECK(p["latency_cycles"].get<double>() == Approx(m->latency_cycles).epsilon(0.02));
        CHECK(p["baseline_cycles"].get<double>() > 0);
        CHECK(p["cycles_per_iteration"].get<double>() >
              p["baseline_cycles"].get<double>());
      }
    }
    CHECK(measured == 4 * probes::tensor::kWgmmaOpCount);
    CHECK(zeros == measured / 2);
  }
  CHECK(covered.count("h100") == 1);
  CHECK(covered.count("h100-sxm") == 1);
}

TEST_CASE(
    "tensor/wgmma on the Hopper presets: SS N 64 at the shared-memory bound, exactly the peak "
    "(128 B/clk of 128), as RS and N 256",
    "[tensor][wgmma]") {
  for (const char* name : {"h100", "h100-sxm", "h200"}) {
    const sim::Preset& preset = sim::find_preset(name);
    INFO(name);
    // The bound the costs derive from: the preset's shared level, 32 banks x 4 B per clock.
    const auto shared = std::find_if(preset.bandwidth.begin(), preset.bandwidth.end(),
                                     [](const auto& l) { return l.level == "shared"; });
    REQUIRE(shared != preset.bandwidth.end());
    CHECK(shared->peak_bytes_per_clk_per_sm == 128);
    CHECK(probes::tensor::ss_shared_bound(128, 64, 64, 2.0 * 64 * 64 * 16, 4096).fraction == 1);
    auto device = sim::make_sim_device(preset);
    std::map<std::string, double> rate;
    for (const char* n : {"64", "256"}) {
      const auto record = run(*device, {{"n", n}, {"iterations", "32"}, {"operands", "random"}});
      REQUIRE(record["status"] == "ok");
      for (const auto& p : record["series"])
        if (p["kind"] == "throughput")
          rate[p["op"].get<std::string>()] = p["flops_per_clk_per_sm"].get<double>();
    }
    INFO(nlohmann::json(rate).dump(1));
    for (const auto& [op, flops] : rate) {
      if (op.find("n64k") == std::string::npos || op.substr(op.size() - 3) != "_ss") continue;
      INFO(op);
      const std::string stem = op.substr(0, op.size() - 3);
      REQUIRE(rate.count(stem + "_rs") == 1);
      CHECK(flops / rate.at(stem + "_rs") == Approx(1).epsilon(0.02));
      std::string n256 = op;
      n256.replace(n256.find("n64k"), 4, "n256k");
      REQUIRE(rate.count(n256) == 1);
      CHECK(flops / rate.at(n256) == Approx(1).epsilon(0.02));
    }
  }
}

TEST_CASE("tensor/wgmma is skipped with the reason on devices without sm_90a", "[tensor][wgmma]") {
  for (const auto& preset : sim::presets()) {
    if (preset.info.cc.sm() == 90) continue;
    INFO(preset.name);
    auto device = sim::make_sim_device(preset);
    const auto record = run(*device, {{"n", "64"}, {"kind", "latency"}});
    CHECK(record["status"] == "skipped");
    CHECK(record["skip_reason"].get<std::string>().find("sm_90a") != std::string::npos);
  }
}

TEST_CASE("tensor/wgmma refuses bad parameters in one line", "[tensor][wgmma]") {
  auto device = sim::make_sim_device(sim::find_preset("h100"));
  const ProbeSpec& probe = find_probe("tensor/wgmma");
  CHECK_THROWS_WITH(Params::parse(probe.params, {{"op", "wgmma"}}),
                    Catch::Contains("wgmma_m64n64k16_f16_f32_ss"));
  CHECK_THROWS(Params::parse(probe.params, {{"iterations", "9999999999"}}));
  CHECK_THROWS(Params::parse(probe.params, {{"blocks-per-sm", "9"}}));
  CHECK_THROWS_WITH(run(*device, {{"blocks-per-sm", "0"}}), Catch::Contains("--blocks-per-sm"));
  CHECK_THROWS_WITH(run(*device, {{"iterations", "0"}}), Catch::Contains("--iterations"));
  CHECK_THROWS_WITH(run(*device, {{"op", "wgmma_m64n64k16_f16_f32_ss"}, {"n", "128"}}),
                    Catch::Contains("no wgmma op matches"));
  CHECK_THROWS_WITH(probes::parse_wgmma_op("wgmma_m64n8k16_f16_f32_ss"),
                    Catch::Contains("unknown wgmma op"));
}

TEST_CASE("tensor/wgmma in the machine model: compute.ops per op with its zero-operand run and % of the dense peak",
          "[tensor][wgmma][model]") {
  const sim::Preset& preset = sim::find_preset("h100-sxm");
  auto device = sim::make_sim_device(preset);
  const auto rec = run(*device, {{"iterations", "64"}, {"n", "128"}});
  REQUIRE(rec["status"] == "ok");
  const auto model = analysis::build_machine_model({rec}, {"tensor_wgmma.json"});
  REQUIRE(model.contains("compute"));
  const auto& compute = model["compute"];
  CHECK_FALSE(compute.contains("errors"));
  const auto sheet = analysis::datasheet_for(preset.info.name);
  REQUIRE(sheet);
  uint32_t seen = 0;
  for (const auto& m : costs_of(preset)) {
    if (m.op.rfind("wgmma_m64n128", 0) != 0) continue;
    INFO(m.op);
    ++seen;
    REQUIRE(compute["ops"].contains(m.op));
    const auto& o = compute["ops"][m.op];
    CHECK(o["path"] == "wgmma");
    CHECK(o["implementation"] == "native");
    CHECK(o["sass_per_op"].get<std::string>().rfind("1 ", 0) == 0);
    CHECK(o["latency_cycles"].get<double>() == Approx(m.latency_cycles).epsilon(0.02));
    CHECK(o["flops_per_clk_per_sm"].get<double>() == Approx(m.flops_per_clk_per_sm).epsilon(0.02));
    CHECK(o["zeros"]["flops_per_clk_per_sm"].get<double>() == Approx(m.flops_per_clk_per_sm).epsilon(0.02));
    CHECK(o["self_check"]["passed"] == true);
    const double peak = analysis::tensor_peak_flops_per_s(*sheet, o["precision"].get<std::string>());
    // Per SM per clock, against the figure at the 1830 MHz tensor spec clock: 100% for 4096.
    if (peak > 0)
      CHECK(o["percent_of_peak"].get<double>() ==
            Approx(100.0 * o["flops_per_clk_per_sm"].get<double>() / (peak / (132 * 1830e6))).epsilon(1e-9));
  }
  CHECK(seen == 14);
}

}  // namespace GPUPROBE_TEST_FILE
