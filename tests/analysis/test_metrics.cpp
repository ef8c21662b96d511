// The machine model's metrics[] table (analysis/metrics.cpp) and the provenance table behind its
// `checks` (analysis/provenance.cpp): a model built from simulated runs of the h100 preset, the same
// records marked as measured, hand-made records without a clock, and the test files each check
// claim names, read from the source tree.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/datasheet.hpp"
#include "analysis/machine_model.hpp"
#include "analysis/metrics.hpp"
#include "analysis/provenance.hpp"
#include "harness/probe.hpp"
#include "harness/results.hpp"
#include "harness/sim/sim_device.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using json = nlohmann::json;

namespace {

json run(Device& device, const std::string& id, std::map<std::string, std::string> params) {
  const ProbeSpec& probe = find_probe(id);
  std::ostringstream log;
  return run_probe(device, probe, Params::parse(probe.params, params), RepeatPolicy{}, "", log);
}

// The simulated h100 (H100 PCIe): compute, tensor, L2, DRAM and shared bandwidth, shared latency,
// launch.
const std::vector<json>& h100_runs() {
  static const std::vector<json> runs = [] {
    auto dev = sim::make_sim_device(sim::find_preset("h100"));
    return std::vector<json>{
        run(*dev, "compute/alu", {{"iterations", "64"}}),
        run(*dev, "tensor/mma", {{"iterations", "64"}}),
        run(*dev, "bandwidth/l2", {{"min-footprint-bytes", "1M"}, {"max-footprint-bytes", "4M"}, {"points-per-octave", "1"}}),
        run(*dev, "bandwidth/dram", {}),
        run(*dev, "bandwidth/shared", {{"strides", "1,2,32"}}),
        run(*dev, "memory/chase_shared", {}),
        run(*dev, "launch/overhead", {{"launches", "50"}}),
    };
  }();
  return runs;
}

const json* find(const json& metrics, const std::string& id) {
  for (const auto& m : metrics)
    if (m["id"] == id) return &m;
  return nullptr;
}

const json& get(const json& metrics, const std::string& id) {
  const json* m = find(metrics, id);
  INFO(id);
  REQUIRE(m != nullptr);
  return *m;
}

bool has(const json& list, const std::string& s) {
  return std::find(list.begin(), list.end(), json(s)) != list.end();
}

std::string read_source(const std::string& rel) {
  std::ifstream in(std::string(GPUPROBE_SOURCE_DIR) + "/" + rel);
  if (!in) return "";
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("metrics: every entry has exactly the contract's fields, units, families and id grammar", "[metrics]") {
  const json model = analysis::build_machine_model(h100_runs(), {});
  CHECK(model["schema_version"] == 2);
  CHECK(kModelSchemaVersion == 2);
  const json& metrics = model["metrics"];
  REQUIRE(metrics.is_array());
  REQUIRE(metrics.size() > 40);
  const std::set<std::string> fields = {"id", "family", "label", "value", "unit", "better", "ceiling", "method",
                                        "probe", "samples", "confidence", "clock_mhz", "source", "checks",
                                        "citation", "per_sm_per_clock", "datasheet"};
  const std::set<std::string> units = {"cycles", "ns",     "bytes",   "bytes/s",   "flop/s",
                                       "op/s",   "ops/s", "percent", "flop/byte", "op/byte"};
  const std::set<std::string> families = {"memory", "bandwidth", "compute", "tensor", "sync", "atomics",
                                          "async", "launch", "goodput", "roofline"};
  const std::regex grammar(R"([a-z]+\.[A-Za-z0-9_\-]+(\.[A-Za-z0-9_\-]+)*\.([A-Za-z0-9_\-]+_)?(cycles|ns|bytes|bytes_per_s|flops_per_s|ops_per_s|percent|flop_per_byte|op_per_byte))");
  std::set<std::string> ids;
  for (const auto& m : metrics) {
    INFO(m.dump());
    std::set<std::string> keys;
    for (auto it = m.begin(); it != m.end(); ++it) keys.insert(it.key());
    CHECK(keys == fields);
    CHECK(ids.insert(m["id"].get<std::string>()).second);  // ids are unique
    CHECK(std::regex_match(m["id"].get<std::string>(), grammar));
    CHECK(m["id"].get<std::string>().rfind(m["family"].get<std::string>() + ".", 0) == 0);
    CHECK(units.count(m["unit"].get<std::string>()) == 1);
    CHECK(families.count(m["family"].get<std::string>()) == 1);
    // A direction, or null for a signed offset (PDL: the secondary may start before its primary ends).
    if (m["id"] == "launch.overhead.pdl_overlapped_ns") CHECK(m["better"].is_null());
    else CHECK((m["better"] == "higher" || m["better"] == "lower"));
    CHECK(m["ceiling"].is_boolean());
    CHECK_FALSE(m["method"].get<std::string>().empty());
    CHECK(m["source"] == "simulated");
    CHECK(m["citation"].is_null());
    CHECK((m["value"].is_number() || m["value"].is_null()));
    CHECK((m["samples"].is_null() || m["samples"].get<double>() > 0));
    CHECK((m["confidence"].is_null() || (m["confidence"] >= 0 && m["confidence"] <= 1)));
    CHECK((m["clock_mhz"].is_null() || m["clock_mhz"].get<double>() > 0));
    // A simulated number has no on-GPU self-check behind it.
    CHECK_FALSE(has(m["checks"], "gpu-self-check"));
  }
  // Each family the runs feed is there.
  for (const char* id : {"compute.fma_rn_f32.flops_per_s", "compute.fma_rn_f32.latency_cycles",
                         "bandwidth.DRAM.read_bytes_per_s", "bandwidth.DRAM.write_bytes_per_s",
                         "bandwidth.DRAM.copy_bytes_per_s", "bandwidth.L2.bytes_per_s",
                         "bandwidth.DRAM.bytes_in_flight_per_sm_for_90pct_bytes", "memory.shared.latency_cycles",
                         "memory.shared.latency_ns", "launch.overhead.host_enqueue_ns", "tensor.f16.flops_per_s",
                         "roofline.f32.ridge_DRAM_flop_per_byte", "roofline.f16.ridge_L2_flop_per_byte"})
    CHECK(find(metrics, id) != nullptr);
}

TEST_CASE("metrics: per SM per clock, datasheet percent, samples and clock come from the sections", "[metrics]") {
  const json model = analysis::build_machine_model(h100_runs(), {});
  const json& metrics = model["metrics"];
  const sim::Preset& preset = sim::find_preset("h100");
  const double sms = preset.info.sm_count;
  REQUIRE(model["device"]["sm_count"] == preset.info.sm_count);
  const auto sheet = analysis::datasheet_for(preset.info.name);
  REQUIRE(sheet);

  // DRAM read: one number, the concurrency sweep's measured top, the roofline's DRAM ceiling;
  // the sweep's points and clock; % of the published 2 TB/s.
  const json& read = get(metrics, "bandwidth.DRAM.read_bytes_per_s");
  const json& concurrency = model["bandwidth"]["DRAM"]["read"]["concurrency"];
  CHECK(read["value"].get<double>() == concurrency["measured_top_bytes_per_s"].get<double>());
  CHECK(read["value"].get<double>() == model["roofline"]["memory"]["DRAM"]["bytes_per_s"].get<double>());
  CHECK(read["value"].get<double>() < concurrency["asymptote_bytes_per_s"].get<double>());
  CHECK(read["unit"] == "bytes/s");
  CHECK(read["ceiling"] == true);
  CHECK(read["probe"] == "bandwidth/dram");
  REQUIRE(read["samples"].is_number());
  CHECK(read["samples"].get<double>() >= 1);
  REQUIRE(read["clock_mhz"].is_number());
  CHECK(read["clock_mhz"].get<double>() == Approx(preset.info.rated_sm_clock_mhz).epsilon(0.02));
  const double clock = read["clock_mhz"].get<double>();
  REQUIRE(read["per_sm_per_clock"].is_object());
  CHECK(read["per_sm_per_clock"]["unit"] == "bytes/clk/SM");
  CHECK(read["per_sm_per_clock"]["value"].get<double>() ==
        Approx(read["value"].get<double>() / (clock * 1e6) / sms));
  REQUIRE(read["datasheet"].is_object());
  CHECK(read["datasheet"]["value"].get<double>() == sheet->dram_bytes_per_s);
  CHECK(read["datasheet"]["unit"] == "bytes/s");
  CHECK(read["datasheet"]["percent"].get<double>() ==
        Approx(100 * read["value"].get<double>() / sheet->dram_bytes_per_s));
  CHECK(read["datasheet"]["source"].get<std::string>().find("FIGURES.md") == 0);

  // FP32 FMA: flop/s per SM per clock is the preset's rate x 2; % of the FP32 datasheet peak.
  const json& fma = get(metrics, "compute.fma_rn_f32.flops_per_s");
  CHECK(fma["family"] == "compute");
  CHECK(fma["probe"] == "compute/alu");
  REQUIRE(fma["clock_mhz"].is_number());
  CHECK(fma["per_sm_per_clock"]["unit"] == "flop/clk/SM");
  CHECK(fma["per_sm_per_clock"]["value"].get<double>() ==
        Approx(model["compute"]["ops"]["fma_rn_f32"]["flops_per_clk_per_sm"].get<double>()).epsilon(0.02));
  CHECK(fma["datasheet"]["value"].get<double>() == sheet->fp32_flops_per_s);
  // Per SM per clock, against the figure at its 1755 MHz boost clock.
  CHECK(fma["datasheet"]["clock_mhz"] == 1755);
  CHECK(fma["datasheet"]["percent"].get<double>() ==
        Approx(100 * fma["per_sm_per_clock"]["value"].get<double>() / (sheet->fp32_flops_per_s / (114 * 1755e6))));
  // An op's repeats (throughput and latency points apart) and its latency point's clock; no fit, so
  // no confidence.
  CHECK(fma["samples"] == model["compute"]["ops"]["fma_rn_f32"]["throughput_repeats"]);
  CHECK(fma["samples"].get<int>() >= 1);
  CHECK(fma["confidence"].is_null());
  const json& lat = get(metrics, "compute.fma_rn_f32.latency_cycles");
  CHECK(lat["samples"] == model["compute"]["ops"]["fma_rn_f32"]["latency_repeats"]);
  CHECK(lat["clock_mhz"].get<double>() == Approx(preset.info.rated_sm_clock_mhz).epsilon(0.02));
  CHECK(lat["per_sm_per_clock"].is_null());
  CHECK(lat["datasheet"].is_null());
  CHECK(lat["better"] == "lower");

  // Tensor: the best native f16 path is the roofline's ceiling, against the dense f16 peak.
  const json& f16 = get(metrics, "tensor.f16.flops_per_s");
  CHECK(f16["family"] == "tensor");
  CHECK(f16["probe"] == "tensor/mma");
  CHECK(f16["value"].get<double>() == Approx(model["roofline"]["compute"]["f16"]["flops_per_s"].get<double>()));
  CHECK(f16["datasheet"]["value"].get<double>() == analysis::tensor_peak_flops_per_s(*sheet, "f16"));
  // No tensor op lands in the compute family.
  for (const auto& m : metrics)
    if (m["family"] == "compute") CHECK(m["probe"] == "compute/alu");
  // Integer tensor forms count operations, not FLOP: OP/s ids, units and labels, OP per byte ridges.
  const json& s8 = get(metrics, "tensor.s8.ops_per_s");
  CHECK(s8["unit"] == "op/s");
  CHECK(s8["per_sm_per_clock"]["unit"] == "op/clk/SM");
  CHECK(s8["label"] == "s8 tensor-core peak (int)");
  CHECK(s8["datasheet"]["unit"] == "op/s");
  CHECK(get(metrics, "tensor.mma_m16n8k32_s8_s32.ops_per_s")["label"] == "mma_m16n8k32_s8_s32 OP rate (int)");
  CHECK(get(metrics, "roofline.s8.ridge_DRAM_op_per_byte")["unit"] == "op/byte");
  for (const auto& m : metrics) {
    const std::string id = m["id"];
    const bool integer = id.find("s8") != std::string::npos || id.find("s4") != std::string::npos;
    if (m["family"] == "tensor" && integer) CHECK(id.find("flops_per_s") == std::string::npos);
    if (m["family"] == "roofline" && integer) CHECK(id.find("flop_per_byte") == std::string::npos);
  }

  // PDL: offsets, the overlapped one negative on the H100 preset and without a direction; their
  // difference, the gain, with one.
  const json& overlapped = get(metrics, "launch.overhead.pdl_overlapped_ns");
  const json& serialized = get(metrics, "launch.overhead.pdl_serialized_ns");
  CHECK(overlapped["value"].get<double>() < 0);
  CHECK(overlapped["better"].is_null());
  CHECK(overlapped["label"].get<std::string>().find("< 0: they overlapped") != std::string::npos);
  CHECK(serialized["better"] == "lower");
  const json& gain = get(metrics, "launch.overhead.pdl_gain_ns");
  CHECK(gain["value"].get<double>() ==
        Approx(serialized["value"].get<double>() - overlapped["value"].get<double>()));
  CHECK(gain["better"] == "higher");

  // Ridge points: the compute ceiling over the memory ceiling.
  const json& ridge = get(metrics, "roofline.f32.ridge_DRAM_flop_per_byte");
  CHECK(ridge["unit"] == "flop/byte");
  CHECK(ridge["probe"].is_null());
  CHECK(ridge["value"].get<double>() ==
        Approx(model["roofline"]["compute"]["f32"]["flops_per_s"].get<double>() /
               model["roofline"]["memory"]["DRAM"]["bytes_per_s"].get<double>()));

  // Bytes in flight: the concurrency fit's, and Little's law where a latency and a bandwidth exist.
  const json& bif = get(metrics, "bandwidth.DRAM.bytes_in_flight_per_sm_for_90pct_bytes");
  CHECK(bif["value"].get<double>() ==
        Approx(model["bandwidth"]["DRAM"]["read"]["concurrency"]["bytes_in_flight_per_sm_for_90pct"].get<double>()));
  CHECK(bif["samples"].get<double>() >= 3);
  CHECK(bif["confidence"].is_number());
  const json& little = get(metrics, "bandwidth.shared.littles_law_bytes_in_flight_per_sm_bytes");
  CHECK(little["method"].get<std::string>().find("Little's law") != std::string::npos);
  CHECK(little["value"].get<double>() ==
        Approx(model["memory"]["shared"]["latency_ns"].get<double>() * 1e-9 *
               model["roofline"]["memory"]["shared"]["bytes_per_s"].get<double>() / sms));
  // A latency in ns has no rate per clock.
  CHECK(get(metrics, "memory.shared.latency_ns")["per_sm_per_clock"].is_null());
  CHECK(get(metrics, "launch.overhead.host_enqueue_ns")["samples"].get<double>() >= 1);

  // The checks each metric carries are its probe's, from the provenance table.
  // (less the on-GPU self-check: these numbers are simulated).
  CHECK(read["checks"] == json({"compile-matrix", "sass", "sim-closed-loop", "real-data"}));
  CHECK(analysis::checks_for("bandwidth/dram").back() == "gpu-self-check");
  CHECK(has(fma["checks"], "compile-matrix"));
  CHECK(has(fma["checks"], "sass"));
  CHECK(has(fma["checks"], "sim-closed-loop"));
  CHECK_FALSE(has(fma["checks"], "real-data"));
  CHECK(ridge["checks"].empty());
}

TEST_CASE("metrics: the same records from a real GPU are measured, with the self-check behind them", "[metrics]") {
  std::vector<json> runs = h100_runs();
  for (auto& r : runs) r["device"]["simulated"] = false;
  const json model = analysis::build_machine_model(runs, {});
  for (const auto& s : model["sources"]) CHECK(s["self_check"] == "passed");
  for (const auto& m : model["metrics"]) CHECK(m["source"] == "measured");
  CHECK(has(get(model["metrics"], "compute.fma_rn_f32.flops_per_s")["checks"], "gpu-self-check"));
  CHECK(has(get(model["metrics"], "bandwidth.DRAM.read_bytes_per_s")["checks"], "real-data"));
  CHECK(has(get(model["metrics"], "tensor.f16.flops_per_s")["checks"], "gpu-self-check"));
  // A record whose self-check failed, or that carries none, earns no gpu-self-check.
  runs[0]["series"][0]["self_check"] = "failed";
  for (auto& p : runs[6]["series"]) p.erase("self_check");
  const json worse = analysis::build_machine_model(runs, {});
  CHECK(worse["sources"][0]["self_check"] == "failed");
  CHECK_FALSE(worse["sources"][6].contains("self_check"));
  CHECK_FALSE(has(get(worse["metrics"], "compute.fma_rn_f32.flops_per_s")["checks"], "gpu-self-check"));
  CHECK_FALSE(has(get(worse["metrics"], "launch.overhead.host_enqueue_ns")["checks"], "gpu-self-check"));
  CHECK(has(get(worse["metrics"], "bandwidth.DRAM.read_bytes_per_s")["checks"], "gpu-self-check"));
}

TEST_CASE("metrics: unknown is null, never 0: no clock, no SM count, no datasheet", "[metrics]") {
  // A shared-memory chase on an unnamed device with no clock and no SM count.
  const json rec = {{"schema", "gpuprobe.run"}, {"schema_version", 1}, {"probe", "memory/chase_shared"},
                    {"params", json::object()}, {"status", "ok"},
                    {"device", {{"name", "dev"}, {"simulated", false}}},
                    {"sm_clock_mhz", {{"before", nullptr}}},
                    {"series", {{{"footprint_bytes", 4096}, {"latency_cycles", 30.0}},
                                {{"footprint_bytes", 8192}, {"latency_cycles", 32.0}}}}};
  const json model = analysis::build_machine_model({rec}, {"s.json"});
  const json& metrics = model["metrics"];
  const json& cycles = get(metrics, "memory.shared.latency_cycles");
  CHECK(cycles["value"] == 31.0);
  CHECK(cycles["samples"] == 2);
  CHECK(cycles["clock_mhz"].is_null());
  CHECK(cycles["confidence"].is_null());
  CHECK(cycles["datasheet"].is_null());
  CHECK(cycles["source"] == "measured");
  CHECK(get(metrics, "memory.shared.latency_ns")["value"].is_null());
  // Nothing the model does not hold appears.
  CHECK(find(metrics, "bandwidth.DRAM.read_bytes_per_s") == nullptr);
  CHECK(find(metrics, "bandwidth.shared.littles_law_bytes_in_flight_per_sm_bytes") == nullptr);

  // A rate with a clock but no device.sm_count: no per-SM figure.
  json m2 = analysis::build_machine_model(h100_runs(), {});
  m2["device"].erase("sm_count");
  const json table = analysis::build_metrics(m2);
  CHECK(get(table, "bandwidth.DRAM.read_bytes_per_s")["per_sm_per_clock"].is_null());
  CHECK(find(table, "bandwidth.shared.littles_law_bytes_in_flight_per_sm_bytes") == nullptr);
  // A device the datasheet table does not know: no datasheet figure.
  m2["device"]["name"] = "Some Future GPU";
  // (the DRAM section keeps the figure it was built with)
  CHECK_FALSE(get(analysis::build_metrics(m2), "bandwidth.DRAM.read_bytes_per_s")["datasheet"].is_null());
  m2["bandwidth"]["DRAM"].erase("datasheet");
  CHECK(get(analysis::build_metrics(m2), "bandwidth.DRAM.read_bytes_per_s")["datasheet"].is_null());
}

TEST_CASE("metrics: goodput kernels when the section is there, nothing when it is not", "[metrics]") {
  json model = analysis::build_machine_model(h100_runs(), {});
  for (const auto& m : model["metrics"]) CHECK(m["family"] != "goodput");
  // The reference kernels run beside the other probes: one error per kernel, cuBLAS skipped (sim).
  std::vector<json> runs = h100_runs();
  auto dev = sim::make_sim_device(sim::find_preset("h100"));
  runs.push_back(run(*dev, "launch/graph", {}));
  runs.push_back(run(*dev, "goodput/reference", {}));
  const json with = analysis::build_machine_model(runs, {});
  REQUIRE(with["goodput"]["kernels"].size() == 4);
  for (const auto& k : with["goodput"]["kernels"]) {
    const json& g = get(with["metrics"], "goodput." + k["name"].get<std::string>() + ".prediction_error_percent");
    CHECK(g["value"] == k["error_percent"]);
    CHECK(g["unit"] == "percent");
    CHECK(g["probe"] == "goodput/reference");
    CHECK(g["samples"] == k["samples"]);
    CHECK(has(g["checks"], "sim-closed-loop"));
    CHECK(g["method"].get<std::string>().find(k["method"].get<std::string>()) != std::string::npos);
  }
  CHECK(find(with["metrics"], "goodput.cublas_gemm.flops_per_s") == nullptr);
  // A kernel without a prediction has a null error; cuBLAS where it ran.
  model["goodput"] = {{"kernels", {{{"name", "stream_triad"}, {"measured_s", 1e-3}, {"predicted_s", 0.9e-3},
                                    {"error_percent", 10.0}},
                                   {{"name", "no error"}, {"measured_s", 1e-3}}}},
                      {"cublas", {{"flops_per_s", 600e12}, {"percent_of_tensor_peak", 80.0}, {"m", 4096},
                                  {"n", 4096}, {"k", 4096}, {"precision", "f16"}, {"samples", 5}}}};
  const json table = analysis::build_metrics(model);
  const json& g = get(table, "goodput.stream_triad.prediction_error_percent");
  CHECK(g["value"] == 10.0);
  CHECK(g["family"] == "goodput");
  CHECK(g["probe"].is_null());
  CHECK(get(table, "goodput.no_error.prediction_error_percent")["value"].is_null());
  const json& share = get(table, "goodput.cublas_gemm.tensor_peak_share_percent");
  CHECK(share["value"] == 80.0);
  CHECK(share["samples"] == 5);
  CHECK(get(table, "goodput.cublas_gemm.flops_per_s")["per_sm_per_clock"].is_null());  // no clock
}

TEST_CASE("metrics: imported curves give metrics without a probe or checks", "[metrics][csv]") {
  analysis::Curve c;
  c.x_name = "footprint_bytes";
  for (double x = 1024; x <= 64.0 * 1024 * 1024; x *= 1.4142)
    c.points.push_back({x, x < 100e3 ? 30.0 : x < 20e6 ? 200.0 : 500.0, 0.0});
  const json model = analysis::build_machine_model_from_curve(c, "lat.csv");
  REQUIRE(model["metrics"].is_array());
  const json& l1 = get(model["metrics"], "memory.L1.latency_cycles");
  CHECK(l1["probe"].is_null());
  CHECK(l1["checks"].empty());
  CHECK(l1["value"].get<double>() == Approx(30).epsilon(0.05));
  CHECK(get(model["metrics"], "memory.L1.latency_ns")["value"].is_null());  // no clock in the file
}

TEST_CASE("provenance: every registered probe has an entry, and every claim's test holds its probe",
          "[metrics][provenance]") {
  std::set<std::string> registered;
  for (const auto& p : probe_registry()) registered.insert(p.id);
  std::set<std::string> listed;
  for (const auto& entry : analysis::provenance_table()) listed.insert(entry.probe);
  CHECK(listed == registered);
  const std::regex arch_specific(R"(\.sm\d+[af]\.cu$)");
  for (const auto& entry : analysis::provenance_table()) {
    INFO(entry.probe);
    CHECK_FALSE(read_source(entry.kernel_source).empty());
    for (const auto& c : entry.checks) {
      INFO(c.check << " " << c.file << " '" << c.needle << "'");
      CHECK(std::find(kCheckNames.begin(), kCheckNames.end(), c.check) !=
            kCheckNames.end());
      const std::string text = read_source(c.file);
      REQUIRE_FALSE(text.empty());  // the test (or the probe source) is there
      CHECK(text.find(c.needle) != std::string::npos);
      // The compile matrix compiles the generic probes/*/*.cu only.
      if (c.check == "compile-matrix") CHECK_FALSE(std::regex_search(entry.kernel_source, arch_specific));
      // The SASS test names the probe's kernel source.
      if (c.check == "sass") {
        const std::string base = entry.kernel_source.substr(entry.kernel_source.rfind('/') + 1);
        CHECK(c.needle == base);
      }
      if (c.check == "sim-closed-loop" || c.check == "real-data") CHECK(c.file.rfind("tests/", 0) == 0);
    }
    // Every CUDA probe whose kernels are generic is in the compile matrix.
    const auto checks = analysis::checks_for(entry.probe);
    if (!std::regex_search(entry.kernel_source, arch_specific))
      CHECK(std::find(checks.begin(), checks.end(), "compile-matrix") != checks.end());
  }
  CHECK(analysis::checks_for("no/such").empty());
  CHECK(analysis::checks_for("tensor/wgmma") == std::vector<std::string>{"sass", "sim-closed-loop", "gpu-self-check"});
}

}  // namespace GPUPROBE_TEST_FILE
