// The hierarchical roofline (analysis/roofline.cpp): ceilings and ridge points from a synthetic
// model, kernels each bound by a different ceiling with their % of attainable, models that lack
// compute or memory ceilings, the imported intensity sweep as a fallback, and the closed loop: a
// model built from simulator runs gives the preset's FP32 and DRAM ceilings.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "analysis/machine_model.hpp"
#include "analysis/roofline.hpp"
#include "harness/error.hpp"
#include "harness/probe.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_costs.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using json = nlohmann::json;

namespace {

json op(const char* path, const char* precision, double flops, const char* impl = "native") {
  return {{"path", path}, {"precision", precision}, {"flops_per_s", flops}, {"implementation", impl}};
}

// Every kind of ceiling, with round numbers.
json synthetic_model() {
  json m;
  m["compute"]["ops"] = {
      {"fma_rn_f32", op("fma", "f32", 50e12)},
      {"fma_rn_f32x2", op("fma", "f32x2", 90e12, "emulated (2 FFMA)")},  // faster, but never a ceiling
      {"fma_rn_f64", op("fma", "f64", 25e12)},
      {"fma_rn_f16x2", op("fma", "f16", 100e12)},
      {"mma_m16n8k16_f16_f32", op("mma.sync", "f16", 400e12)},
      {"wgmma_m64n256k32_e4m3_f32", op("wgmma", "e4m3", 800e12, "emulated (no FP8 units)")},
      {"mad_lo_s32", {{"path", "imad"}, {"precision", "s32"}, {"ops_per_s", 1e13}}},  // no FLOP rate
  };
  m["bandwidth"]["DRAM"]["read"]["concurrency"]["peak_bytes_per_s"] = 2e12;
  m["bandwidth"]["L2"]["concurrency"]["peak_bytes_per_s"] = 8e12;
  m["bandwidth"]["L2"]["footprint_sweep"]["levels"] = {
      {{"name", "L2"}, {"bandwidth_bytes_per_s", 7e12}},
      {{"name", "L2-far"}, {"bandwidth_bytes_per_s", 5e12}},
      {{"name", "DRAM"}, {"bandwidth_bytes_per_s", 1.9e12}}};
  m["bandwidth"]["L1"]["concurrency"]["peak_bytes_per_s"] = 25e12;
  m["bandwidth"]["shared"]["concurrency"]["peak_bytes_per_s"] = 20e12;
  return m;
}

analysis::RooflineKernel kernel(const std::string& name, double flops, double time_s,
                                std::map<std::string, double> bytes, const std::string& precision = "") {
  analysis::RooflineKernel k;
  k.name = name;
  k.flops = flops;
  k.time_s = time_s;
  k.bytes = std::move(bytes);
  k.precision = precision;
  return k;
}

bool has_line(const json& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const json& l) { return l.get<std::string>().find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("roofline: per precision the best native path is the ceiling, emulated ops never are",
          "[roofline]") {
  const json r = analysis::roofline_section(synthetic_model());
  INFO(r.dump(1));
  CHECK(r["memory"]["DRAM"]["bytes_per_s"] == 2e12);
  CHECK(r["memory"]["DRAM"]["source"] == "bandwidth.DRAM.read.concurrency.peak_bytes_per_s");
  CHECK(r["memory"]["L2"]["bytes_per_s"] == 8e12);  // the concurrency peak before the plateau
  CHECK(r["memory"]["L2-far"]["bytes_per_s"] == 5e12);
  CHECK(r["memory"]["L2-far"]["source"] == "bandwidth.L2.footprint_sweep.levels[L2-far]");
  CHECK(r["memory"]["L1"]["bytes_per_s"] == 25e12);
  CHECK(r["memory"]["shared"]["bytes_per_s"] == 20e12);

  const json& f32 = r["compute"]["f32"];
  CHECK(f32["flops_per_s"] == 50e12);
  CHECK(f32["op"] == "fma_rn_f32");
  CHECK(f32["emulated"].contains("fma_rn_f32x2"));  // f32x2 counts as f32, and is listed
  const json& f16 = r["compute"]["f16"];
  CHECK(f16["flops_per_s"] == 400e12);
  CHECK(f16["path"] == "mma.sync");
  CHECK(f16["paths"]["fma"]["flops_per_s"] == 100e12);
  CHECK(r["compute"]["f64"]["flops_per_s"] == 25e12);
  CHECK(r["compute"]["e4m3"]["flops_per_s"].is_null());
  CHECK(has_line(r["missing"], "no compute ceiling for e4m3: its only ops are emulated"));
  CHECK_FALSE(r["compute"].contains("s32"));

  // Ridge points: where each memory ceiling meets the precision's compute ceiling.
  CHECK(f32["ridge_points"]["DRAM"]["flop_per_byte"].get<double>() == Approx(25.0));
  CHECK(f32["ridge_points"]["L2"]["flop_per_byte"].get<double>() == Approx(6.25));
  CHECK(f32["ridge_points"]["L2-far"]["flop_per_byte"].get<double>() == Approx(10.0));
  CHECK(f32["ridge_points"]["L1"]["flop_per_byte"].get<double>() == Approx(2.0));
  CHECK(f32["ridge_points"]["shared"]["flop_per_byte"].get<double>() == Approx(2.5));
  CHECK(f16["ridge_points"]["DRAM"]["flop_per_byte"].get<double>() == Approx(200.0));

  // An integer precision counts operations: its ceiling says op/s, a floating one flop/s.
  json m = synthetic_model();
  m["compute"]["ops"]["mma_m16n8k32_s8_s32"] = op("mma.sync", "s8", 800e12);
  const json ri = analysis::roofline_section(m);
  CHECK(ri["compute"]["s8"]["unit"] == "op/s");
  CHECK(ri["compute"]["f32"]["unit"] == "flop/s");
  CHECK(ri["compute"]["f16"]["unit"] == "flop/s");
  CHECK(analysis::classify_kernel(ri, kernel("igemm", 1e12, 1, {{"DRAM", 1e9}}, "s8"), "f32")["unit"] == "op/s");
  CHECK(analysis::classify_kernel(ri, kernel("sgemm", 1e12, 1, {{"DRAM", 1e9}}), "f32")["unit"] == "flop/s");
}

TEST_CASE("roofline: a kernel without bytes has empty intensities and headroom, never absent ones",
          "[roofline]") {
  // The roofline schema requires both; a kernel without bytes (or bounded by nothing) lacked them.
  const json r = analysis::roofline_section(synthetic_model());
  for (const auto& k : {kernel("nobytes", 1e12, 1, {}), kernel("zero", 1e12, 1, {{"DRAM", 0}}),
                        kernel("unbounded", 1e12, 1, {}, "e2m1")}) {
    const json c = analysis::classify_kernel(r, k, "f32");
    INFO(c.dump());
    CHECK(c["intensity_flop_per_byte"] == json::object());
    CHECK(c["headroom"] == json::object());
  }
}

TEST_CASE("roofline: each kernel is bound by the ceiling that gives the least, with its % of attainable",
          "[roofline]") {
  const json r = analysis::roofline_section(synthetic_model());
  struct Case {
    analysis::RooflineKernel k;
    std::string bound;
    double attainable;
  };
  const std::vector<Case> cases = {
      // 1 FLOP/byte from DRAM: 2 TFLOP/s; the other levels allow more.
      {kernel("dram", 1e12, 1.0, {{"DRAM", 1e12}, {"L2", 1e11}}), "DRAM", 2e12},
      // L2: 1e12 / 4e12 bytes = 0.25 FLOP/byte x 8 TB/s = 2e12, DRAM 1e12/1e10 x 2e12 = 2e14.
      {kernel("l2", 1e12, 1.0, {{"DRAM", 1e10}, {"L2", 4e12}}), "L2", 2e12},
      {kernel("l2far", 1e12, 1.0, {{"L2-far", 1e12}}), "L2-far", 5e12},
      {kernel("l1", 1e12, 1.0, {{"L1", 1e13}, {"DRAM", 1e9}}), "L1", 2.5e12},
      {kernel("shared", 1e12, 1.0, {{"shared", 1e13}, {"L1", 1e9}}), "shared", 2e12},
      // 1000 FLOP/byte everywhere: compute-bound at the f32 FMA rate.
      {kernel("compute", 1e12, 0.05, {{"DRAM", 1e9}, {"L2", 1e9}}), "compute", 50e12},
      // f16 at 100 FLOP/byte: DRAM would allow 200 TFLOP/s, below the tensor path's 400.
      {kernel("tensor", 1e14, 1.0, {{"DRAM", 1e12}}, "fp16"), "DRAM", 200e12},
  };
  for (const auto& c : cases) {
    INFO(c.k.name);
    const json out = analysis::classify_kernel(r, c.k, "f32");
    INFO(out.dump(1));
    REQUIRE(out["bound"].is_object());
    if (c.bound == "compute") CHECK(out["bound"]["kind"] == "compute");
    else CHECK(out["bound"]["level"] == c.bound);
    CHECK(out["attainable_flops_per_s"].get<double>() == Approx(c.attainable));
    const double achieved = c.k.flops / c.k.time_s;
    CHECK(out["achieved_flops_per_s"].get<double>() == Approx(achieved));
    CHECK(out["percent_of_attainable"].get<double>() == Approx(100 * achieved / c.attainable));
  }
  // Headroom: per memory level the bandwidth used and how much faster the kernel could run before
  // that level alone bounds it. "l2": 4e12 B/s against the L2's 8 TB/s, 1e10 against DRAM's 2 TB/s.
  {
    const json out = analysis::classify_kernel(r, kernel("l2", 1e12, 1.0, {{"DRAM", 1e10}, {"L2", 4e12}}), "f32");
    INFO(out.dump(1));
    REQUIRE(out["headroom"].size() == 2);
    CHECK(out["headroom"]["L2"]["achieved_bytes_per_s"].get<double>() == Approx(4e12));
    CHECK(out["headroom"]["L2"]["percent_of_bandwidth"].get<double>() == Approx(50));
    CHECK(out["headroom"]["L2"]["speedup_until_bound"].get<double>() == Approx(2));
    CHECK(out["headroom"]["DRAM"]["percent_of_bandwidth"].get<double>() == Approx(0.5));
    CHECK(out["headroom"]["DRAM"]["speedup_until_bound"].get<double>() == Approx(200));
    // A level with no bytes has no headroom entry (nothing moves there).
    const json none = analysis::classify_kernel(r, kernel("c", 1e12, 1.0, {{"DRAM", 0.0}, {"L2", 1e12}}), "f32");
    CHECK_FALSE(none["headroom"].contains("DRAM"));
  }
  // A kernel asked onto the CUDA-core path of f16 meets that path's ceiling, not the tensor one.
  auto k = kernel("hfma", 1e12, 0.1, {{"DRAM", 1e9}}, "f16");
  k.path = "fma";
  json out = analysis::classify_kernel(r, k, "f32");
  CHECK(out["bound"]["path"] == "fma");
  CHECK(out["attainable_flops_per_s"].get<double>() == Approx(100e12));
  CHECK(out["percent_of_attainable"].get<double>() == Approx(10.0));
  // A path the model lacks: the best one, said in a note.
  k.path = "tcgen05";
  out = analysis::classify_kernel(r, k, "f32");
  CHECK(out["bound"]["path"] == "mma.sync");
  CHECK(has_line(out["notes"], "no native f16 path tcgen05"));
  // The default precision applies to a kernel without one.
  out = analysis::classify_kernel(r, kernel("d", 1e12, 1.0, {{"DRAM", 1e9}}), "f64");
  CHECK(out["precision"] == "f64");
  CHECK(out["attainable_flops_per_s"].get<double>() == Approx(25e12));
  // Above the attainable: reported as is, with a note.
  out = analysis::classify_kernel(r, kernel("fast", 1e12, 0.1, {{"DRAM", 1e12}}), "f32");
  CHECK(out["percent_of_attainable"].get<double>() == Approx(500.0));
  CHECK(has_line(out["notes"], "more than the attainable"));
}

TEST_CASE("roofline: a model without compute, without memory levels, or with neither", "[roofline]") {
  json no_compute = synthetic_model();
  no_compute.erase("compute");
  json r = analysis::roofline_section(no_compute);
  CHECK(r["compute"].empty());
  CHECK(has_line(r["missing"], "no compute ceiling for any precision"));
  json out = analysis::classify_kernel(r, kernel("k", 1e12, 1.0, {{"DRAM", 1e12}}), "f32");
  CHECK(out["bound"]["level"] == "DRAM");
  CHECK(has_line(out["notes"], "no compute ceiling for f32"));

  json no_memory = synthetic_model();
  no_memory.erase("bandwidth");
  r = analysis::roofline_section(no_memory);
  CHECK(r["memory"].empty());
  CHECK(has_line(r["missing"], "no memory ceiling for DRAM, L2, L1, shared"));
  CHECK(r["compute"]["f32"]["ridge_points"].empty());
  out = analysis::classify_kernel(r, kernel("k", 1e12, 1.0, {{"DRAM", 1e12}}), "f32");
  CHECK(out["bound"]["kind"] == "compute");
  CHECK(has_line(out["notes"], "no DRAM bandwidth"));

  r = analysis::roofline_section(json::object());
  out = analysis::classify_kernel(r, kernel("k", 1e12, 1.0, {}), "f32");
  CHECK(out["attainable_flops_per_s"].is_null());
  CHECK(out["bound"].is_null());
  CHECK(out["percent_of_attainable"].is_null());

  // Only an f64 op: f32, the default, is named as missing.
  json only_f64;
  only_f64["compute"]["ops"]["fma_rn_f64"] = op("fma", "f64", 1e12);
  CHECK(has_line(analysis::roofline_section(only_f64)["missing"], "no compute ceiling for f32"));
}

TEST_CASE("roofline: an imported intensity sweep gives the f32 and DRAM ceilings only where none was measured",
          "[roofline]") {
  json m;
  m["compute"]["imported"] = {{"flops_per_s", 30e12}, {"bandwidth_bytes_per_s", 1.5e12}};
  json r = analysis::roofline_section(m);
  CHECK(r["compute"]["f32"]["flops_per_s"] == 30e12);
  CHECK(r["compute"]["f32"]["path"] == "imported");
  CHECK(r["compute"]["f32"]["source"].get<std::string>().find("compute.imported.flops_per_s") == 0);
  CHECK(r["memory"]["DRAM"]["bytes_per_s"] == 1.5e12);
  CHECK(r["memory"]["DRAM"]["source"].get<std::string>().find("compute.imported.bandwidth_bytes_per_s") == 0);
  CHECK(r["compute"]["f32"]["ridge_points"]["DRAM"]["flop_per_byte"].get<double>() == Approx(20.0));
  // A ceiling not found by the sweep is null there: no ceiling.
  m["compute"]["imported"]["bandwidth_bytes_per_s"] = nullptr;
  CHECK_FALSE(analysis::roofline_section(m)["memory"].contains("DRAM"));
  // Measured ones win.
  m = synthetic_model();
  m["compute"]["imported"] = {{"flops_per_s", 30e12}, {"bandwidth_bytes_per_s", 1.5e12}};
  r = analysis::roofline_section(m);
  CHECK(r["compute"]["f32"]["flops_per_s"] == 50e12);
  CHECK_FALSE(r["compute"]["f32"]["paths"].contains("imported"));
  CHECK(r["memory"]["DRAM"]["bytes_per_s"] == 2e12);
}

TEST_CASE("roofline: precision names are normalised, and a bad one is refused", "[roofline]") {
  CHECK(analysis::normalize_precision("FP32") == "f32");
  CHECK(analysis::normalize_precision("double") == "f64");
  CHECK(analysis::normalize_precision("f32x2") == "f32");
  CHECK(analysis::normalize_precision("int8") == "s8");
  CHECK(analysis::normalize_precision("e4m3") == "e4m3");
  CHECK_THROWS_AS(analysis::normalize_precision(""), Error);
  CHECK_THROWS_WITH(analysis::normalize_precision("f 32"), Catch::Contains("has a character"));
}

TEST_CASE("roofline closed loop: a model from sim:h100 runs gives the preset's FP32 and DRAM ceilings",
          "[roofline][closed-loop]") {
  const sim::Preset& preset = sim::find_preset("h100");
  auto device = sim::make_sim_device(preset);
  const auto run = [&](const std::string& id, std::map<std::string, std::string> params) {
    const ProbeSpec& probe = find_probe(id);
    std::ostringstream log;
    return run_probe(*device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
  };
  const json model = analysis::build_machine_model(
      {run("compute/alu", {{"iterations", "64"}}), run("bandwidth/dram", {{"kind", "read"}})},
      {"alu.json", "dram.json"});
  REQUIRE(model.contains("roofline"));  // the model carries its roofline when it is built
  const json& r = model["roofline"];
  INFO(r.dump(1).substr(0, 2000));

  const double hz = preset.info.rated_sm_clock_mhz * 1e6;
  double fma_rate = 0;
  for (const auto& m : *preset.table<probes::OpCosts>("compute"))
    if (m.op == "fma_rn_f32") fma_rate = m.rate;
  REQUIRE(fma_rate > 0);
  const double f32_truth = 2 * fma_rate * preset.info.sm_count * hz;
  REQUIRE(r["compute"]["f32"]["flops_per_s"].is_number());
  CHECK(r["compute"]["f32"]["flops_per_s"].get<double>() == Approx(f32_truth).epsilon(0.02));
  CHECK(r["compute"]["f32"]["path"] == "fma");

  double dram_truth = 0;
  for (const auto& b : preset.bandwidth)
    if (b.level == "DRAM") {
      double per_clk = b.peak_bytes_per_clk_per_sm > 0 ? preset.info.sm_count * b.peak_bytes_per_clk_per_sm : 1e300;
      if (b.peak_bytes_per_s > 0) per_clk = std::min(per_clk, b.peak_bytes_per_s / hz);
      dram_truth = per_clk * hz;
    }
  REQUIRE(dram_truth > 0);
  REQUIRE(r["memory"].contains("DRAM"));
  CHECK(r["memory"]["DRAM"]["bytes_per_s"].get<double>() == Approx(dram_truth).epsilon(0.03));
  CHECK(r["compute"]["f32"]["ridge_points"]["DRAM"]["flop_per_byte"].get<double>() ==
        Approx(f32_truth / dram_truth).epsilon(0.05));
  CHECK(has_line(r["missing"], "no memory ceiling for L2, L1, shared"));
}

}  // namespace GPUPROBE_TEST_FILE
