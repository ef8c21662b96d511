// The datasheet table (analysis/datasheet.cpp) and "% of the datasheet" taken per SM per clock
// against each figure at the clock it is quoted at: every figure / (SMs x its clock) is a whole
// per-clock rate, a perfect wgmma on the simulated H100 PCIe (1755 MHz, tensor figures at 1620)
// reads 100%, not 108%, and a CUDA-core row compares with its boost-clock figure per clock.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "analysis/datasheet.hpp"
#include "analysis/machine_model.hpp"
#include "analysis/metrics.hpp"
#include "cli/report.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using json = nlohmann::json;

namespace {

const json& metric(const json& metrics, const std::string& id) {
  for (const auto& m : metrics)
    if (m["id"] == id) return m;
  FAIL("no metric " << id);
  static const json none;
  return none;
}

// The nearest power of two to v (v > 0).
double nearest_power_of_two(double v) { return std::exp2(std::round(std::log2(v))); }

}  // namespace

TEST_CASE("datasheet: each figure over SMs x the clock it is quoted at is a whole per-clock rate",
          "[analysis][datasheet]") {
  // One name per table row that publishes its SMs and clocks.
  int checked = 0;
  for (const char* name :
       {"NVIDIA H100 PCIe", "NVIDIA H100 80GB HBM3", "NVIDIA GH200 480GB", "NVIDIA H200",
        "NVIDIA A100 80GB PCIe", "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB", "Tesla V100-PCIE-16GB",
        "Tesla V100-SXM2-16GB", "Tesla T4", "NVIDIA GeForce RTX 4090", "NVIDIA A40", "NVIDIA B200",
        "NVIDIA GeForce RTX 5090"}) {
    INFO(name);
    const auto sheet = analysis::datasheet_for(name);
    REQUIRE(sheet);
    REQUIRE(sheet->sm_count > 0);
    CHECK_FALSE(sheet->clock_source.empty());
    auto whole = [&](double figure, analysis::SpecClock clock, const std::string& what) {
      if (!(figure > 0) || !(clock.mhz > 0)) return;
      INFO(what << " at " << clock.mhz << " MHz");
      const double per = analysis::figure_per_sm_per_clock(figure, sheet->sm_count, clock.mhz);
      // Datasheets round (34 TFLOPS for 33.5): 2% is the widest rounding among them.
      CHECK(per == Approx(nearest_power_of_two(per)).epsilon(0.02));
      ++checked;
    };
    whole(sheet->fp32_flops_per_s, analysis::compute_clock(*sheet), "FP32");
    whole(sheet->fp64_flops_per_s, analysis::compute_clock(*sheet), "FP64");
    for (const auto& [precision, figure] : sheet->tensor_flops_per_s)
      whole(figure, analysis::tensor_clock(*sheet, precision), "tensor " + precision);
  }
  CHECK(checked > 60);

  // The review's figures: 4096 dense f16 FLOP/clk/SM on GH100 at 1830 (SXM) and 1620 MHz (PCIe),
  // FP64 tensor at the boost clock, 8192 on the B200 at 1.85 GHz.
  const auto sxm = analysis::datasheet_for("NVIDIA H100 80GB HBM3");
  CHECK(analysis::tensor_clock(*sxm, "f16").mhz == 1830);
  CHECK(analysis::tensor_clock(*sxm, "f64").mhz == 1980);
  CHECK(analysis::compute_clock(*sxm).mhz == 1980);
  CHECK(analysis::figure_per_sm_per_clock(989e12, 132, 1830) == Approx(4096).epsilon(0.001));
  const auto pcie = analysis::datasheet_for("NVIDIA H100 PCIe");
  CHECK(analysis::tensor_clock(*pcie, "bf16").mhz == 1620);
  CHECK(analysis::compute_clock(*pcie).mhz == 1755);
  const auto b200 = analysis::datasheet_for("NVIDIA B200");
  CHECK(analysis::tensor_clock(*b200, "f16").mhz == 1850);
  CHECK(analysis::compute_clock(*b200).mhz == 0);  // 80 TF FP32 fits no published clock
  // A part without published SMs or clock keeps none.
  CHECK(analysis::datasheet_for("NVIDIA L40S")->sm_count == 0);

  // percent_of_figure: per clock when the figure's clock is known, else rate over rate.
  CHECK(analysis::percent_of_figure(4096 * 132 * 1980e6, 4096, 989e12, 132, 1830) ==
        Approx(100).epsilon(0.001));
  CHECK(analysis::percent_of_figure(900e12, 4096, 989e12, 0, 0) == Approx(100 * 900 / 989.0));
  CHECK(analysis::percent_of_figure(900e12, 0, 989e12, 132, 1830) == Approx(100 * 900 / 989.0));
  CHECK(analysis::percent_of_figure(1, 1, 0, 132, 1830) == 0);
}

TEST_CASE("a perfect wgmma on the simulated H100 PCIe (1755 MHz) reads 100% of the datasheet, per clock",
          "[analysis][datasheet][tensor]") {
  const sim::Preset& preset = sim::find_preset("h100");
  REQUIRE(preset.info.rated_sm_clock_mhz == 1755);
  auto device = sim::make_sim_device(preset);
  const ProbeSpec& probe = find_probe("tensor/wgmma");
  std::ostringstream log;
  const json rec = run_probe(
      *device, probe, Params::parse(probe.params, {{"iterations", "64"}, {"n", "128"}, {"form", "ss"}}),
      RepeatPolicy{}, "", log);
  REQUIRE(rec["status"] == "ok");
  const json model = analysis::build_machine_model({rec}, {"tensor_wgmma.json"});
  const json& o = model["compute"]["ops"]["wgmma_m64n128k16_f16_f32_ss"];
  REQUIRE(o["flops_per_clk_per_sm"].get<double>() == Approx(4096).epsilon(0.01));
  // FLOP/s stays at the run's clock: 4096 x 114 SMs x 1755 MHz, 108% of 756 TFLOP/s as a rate.
  CHECK(o["flops_per_s"].get<double>() == Approx(4096 * 114 * 1755e6).epsilon(0.01));
  CHECK(o["percent_of_peak"].get<double>() == Approx(100).epsilon(0.01));
  CHECK(o["zeros"]["percent_of_peak"].get<double>() == Approx(100).epsilon(0.01));
  CHECK(o["peak"]["flops_per_s"] == 756e12);
  CHECK(o["peak"]["clock_mhz"] == 1620);
  CHECK(o["peak"]["clock"] == "tensor spec clock");
  CHECK(o["peak"]["sm_count"] == 114);
  CHECK(o["peak"]["flops_per_clk_per_sm"].get<double>() == Approx(4096).epsilon(0.001));

  // metrics[]: the op's row and the precision's peak, each against 756 TFLOP/s at 1620 MHz.
  for (const char* id : {"tensor.wgmma_m64n128k16_f16_f32_ss.flops_per_s", "tensor.f16.flops_per_s"}) {
    INFO(id);
    const json& m = metric(model["metrics"], id);
    CHECK(m["clock_mhz"].get<double>() == Approx(1755).epsilon(0.01));
    const json& d = m["datasheet"];
    REQUIRE(d.is_object());
    CHECK(d["value"] == 756e12);
    CHECK(d["clock_mhz"] == 1620);
    CHECK(d["sm_count"] == 114);
    CHECK(d["clock"] == "tensor spec clock");
    CHECK(d["percent_basis"] == "per clock");
    CHECK(d["per_sm_per_clock"]["unit"] == "flop/clk/SM");
    CHECK(d["per_sm_per_clock"]["value"].get<double>() == Approx(4096).epsilon(0.001));
    CHECK(d["percent"].get<double>() == Approx(100).epsilon(0.01));
  }
  // The terminal summary says which clock the datasheet assumes.
  std::ostringstream out;
  print_model(out, model);
  CHECK_THAT(out.str(),
             Catch::Contains("100% of the datasheet's 756 TFLOP/s at 1620 MHz (its tensor spec clock)"));
}

TEST_CASE("a CUDA-core FMA row compares per clock with its boost-clock figure",
          "[analysis][datasheet][compute]") {
  // An H100 SXM throttled to 1500 MHz runs FP32 FMA at its full 256 FLOP/clk/SM: 100% of the
  // 67 TFLOP/s figure per clock (quoted at the 1980 MHz boost), though 50.7 TFLOP/s as a rate.
  const double clock = 1500, flops = 256 * 132 * clock * 1e6;
  json model = {{"schema", "gpuprobe.machine_model"},
                {"device", {{"name", "NVIDIA H100 80GB HBM3"}, {"sm_count", 132}}},
                {"compute",
                 {{"ops",
                   {{"fma_rn_f32",
                     {{"path", "fma.rn"},
                      {"precision", "f32"},
                      {"ptx", "fma.rn.f32"},
                      {"flops_per_s", flops},
                      {"flops_per_clk_per_sm", 256},
                      {"clock_mhz", clock}}}}}}}};
  const json metrics = analysis::build_metrics(model);
  const json& d = metric(metrics, "compute.fma_rn_f32.flops_per_s")["datasheet"];
  REQUIRE(d.is_object());
  CHECK(d["clock_mhz"] == 1980);
  CHECK(d["clock"] == "boost clock");
  CHECK(d["percent_basis"] == "per clock");
  CHECK(d["percent"].get<double>() == Approx(100 * 256 / (67e12 / (132 * 1980e6))));
  CHECK(d["percent"].get<double>() > 99.5);
  model["metrics"] = metrics;
  std::ostringstream out;
  print_model(out, model);
  CHECK_THAT(out.str(), Catch::Contains("of the datasheet's 67.0 TFLOP/s at 1980 MHz (its boost clock)"));

  // The B200 publishes no CUDA-core clock: its FP32 row stays rate over rate, and says nothing of
  // a clock.
  model["device"] = {{"name", "NVIDIA B200"}, {"sm_count", 148}};
  model["compute"]["ops"]["fma_rn_f32"]["flops_per_s"] = 256 * 148 * clock * 1e6;
  const json b200 = analysis::build_metrics(model);
  const json& b = metric(b200, "compute.fma_rn_f32.flops_per_s")["datasheet"];
  CHECK(b["percent_basis"] == "rate");
  CHECK_FALSE(b.contains("clock_mhz"));
  CHECK(b["percent"].get<double>() == Approx(100 * 256 * 148 * clock * 1e6 / 80e12));
}

}  // namespace GPUPROBE_TEST_FILE
