// analysis/goodput_model: the prediction arithmetic of each reference kernel on numbers worked by
// hand, the section it writes (kernels[], cublas) from a model of known numbers, and the closed
// loop: the bandwidth, tensor, launch and goodput probes on the simulated H100, the model fitted
// from that run predicting each reference kernel within 3%.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "analysis/goodput_model.hpp"
#include "analysis/machine_model.hpp"
#include "harness/probe.hpp"
#include "harness/sim/sim_device.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using namespace gpuprobe::analysis;
using nlohmann::json;

namespace {

GoodputInputs inputs() {
  GoodputInputs in;
  in.dram_read_bytes_per_s = 2e12;
  in.dram_write_bytes_per_s = 1e12;
  in.dram_copy_bytes_per_s = 1e12;
  in.l2_bytes_per_s = 8e12;
  in.shared_bytes_per_s = 20e12;
  in.mma_f16_flops_per_s = 500e12;
  in.tensor_peak_flops_per_s = 800e12;
  in.launch_s = 2e-6;
  in.graph_per_graph_s = 3e-6;
  in.graph_per_node_s = 1e-6;
  return in;
}

// A model with the numbers inputs() holds, where the model keeps them.
json model_of_known_numbers() {
  json m;
  m["bandwidth"]["DRAM"]["read"]["concurrency"]["peak_bytes_per_s"] = 2e12;
  m["bandwidth"]["DRAM"]["write"]["bandwidth_bytes_per_s"] = 1e12;
  m["bandwidth"]["DRAM"]["copy"]["concurrency"]["peak_bytes_per_s"] = 1e12;
  m["roofline"]["memory"]["L2"]["bytes_per_s"] = 8e12;
  m["roofline"]["memory"]["shared"]["bytes_per_s"] = 20e12;
  m["roofline"]["compute"]["f16"]["flops_per_s"] = 800e12;
  m["compute"]["ops"]["mma_m16n8k16_f16_f32"]["flops_per_s"] = 500e12;
  m["launch"]["overhead"]["back_to_back"]["ns"] = 2000;
  m["launch"]["graph"]["launch"] = {{"per_graph_ns", 3000}, {"per_node_ns", 1000}};
  return m;
}

json run(Device& dev, const std::string& id, std::map<std::string, std::string> params = {}) {
  const ProbeSpec& probe = find_probe(id);
  RepeatPolicy policy;
  policy.min_repeats = 3;
  policy.max_repeats = 5;
  std::ostringstream log;
  return run_probe(dev, probe, Params::parse(probe.params, params), policy, "", log);
}

}  // namespace

TEST_CASE("goodput prediction: triad is kappa (R / read + W / write) + launch", "[goodput_model]") {
  const GoodputInputs in = inputs();
  // kappa = (1 / 1e12) / (0.5 / 2e12 + 0.5 / 1e12) = 4/3; R / read = W / write = 4 ms.
  const auto p = predict_triad(in, 8e9, 4e9);
  CHECK(p.bound == "DRAM");
  CHECK(p.missing.empty());
  CHECK(p.seconds == Approx(4.0 / 3.0 * 8e-3 + 2e-6));
  GoodputInputs no_copy = in;
  no_copy.dram_copy_bytes_per_s = 0;
  CHECK(predict_triad(no_copy, 8e9, 4e9).seconds == Approx(8e-3 + 2e-6));
  GoodputInputs read_only = no_copy;
  read_only.dram_write_bytes_per_s = 0;  // writes at the read bandwidth
  CHECK(predict_triad(read_only, 8e9, 4e9).seconds == Approx(6e-3 + 2e-6));
  GoodputInputs none;
  const auto missing = predict_triad(none, 8e9, 4e9);
  CHECK(missing.seconds == 0);
  CHECK_THAT(missing.missing, Catch::Contains("DRAM read bandwidth") && Catch::Contains("launch overhead"));
}

TEST_CASE("goodput prediction: reduction, tile-loop roofline and graph chain", "[goodput_model]") {
  const GoodputInputs in = inputs();
  CHECK(predict_l2_reduction(in, 8e9).seconds == Approx(1e-3 + 2e-6));
  CHECK(predict_l2_reduction(in, 8e9).bound == "L2");
  // 32 FLOP per shared byte: 1e12 FLOP take 2 ms on the tensor cores, 31.25 GB 1.5625 ms in shared.
  auto tile = predict_tensor_tile_loop(in, 1e12, 1e12 / 32);
  CHECK(tile.bound == "tensor");
  CHECK(tile.seconds == Approx(2e-3 + 2e-6));
  // 16 FLOP per byte: shared memory bounds it.
  tile = predict_tensor_tile_loop(in, 1e12, 1e12 / 16);
  CHECK(tile.bound == "shared");
  CHECK(tile.seconds == Approx(3.125e-3 + 2e-6));
  const auto chain = predict_graph_chain(in, 32);
  CHECK(chain.bound == "launch");
  CHECK(chain.seconds == Approx(35e-6));
  GoodputInputs no_graph = in;
  no_graph.graph_per_node_s = 0;
  CHECK_THAT(predict_graph_chain(no_graph, 32).missing, Catch::Contains("launch/graph"));
  CHECK(prediction_error_percent(1.1, 1.0) == Approx(10));
  CHECK(prediction_error_percent(0.9, 1.0) == Approx(10));
  CHECK(signed_prediction_error_percent(1.1, 1.0) == Approx(10));   // the model is slower
  CHECK(signed_prediction_error_percent(0.9, 1.0) == Approx(-10));
}

TEST_CASE("goodput inputs come from the model's sections, the fitted peaks first", "[goodput_model]") {
  const GoodputInputs in = goodput_inputs(model_of_known_numbers());
  CHECK(in.dram_read_bytes_per_s == 2e12);
  CHECK(in.dram_read_from == "bandwidth.DRAM.read.concurrency.peak_bytes_per_s");
  CHECK(in.dram_write_from == "bandwidth.DRAM.write.bandwidth_bytes_per_s");
  CHECK(in.mma_f16_flops_per_s == 500e12);
  CHECK(in.tensor_peak_flops_per_s == 800e12);
  CHECK(in.launch_s == Approx(2e-6));
  CHECK(in.graph_per_graph_s == Approx(3e-6));
  CHECK(in.graph_per_node_s == Approx(1e-6));
  // Without the mma.sync op the tile loop falls back to the f16 ceiling.
  json m = model_of_known_numbers();
  m["compute"].erase("ops");
  CHECK(goodput_inputs(m).mma_f16_flops_per_s == 800e12);
  CHECK(goodput_inputs(m).mma_from == "roofline.compute.f16.flops_per_s");
}

TEST_CASE("goodput section: kernels with prediction and error, cublas against the tensor peak", "[goodput_model]") {
  json model = model_of_known_numbers();
  json run = {{"probe", "goodput/reference"},
              {"median_region_sm_clock_mhz", 1755.0},
              {"series",
               {{{"kernel", "l2_reduction"}, {"ns", 1.1e6}, {"bytes_read", 8e9}, {"bytes_written", 0},
                 {"shared_bytes", 0}, {"flops", 2e9}, {"repeats", 5}, {"self_check", "passed"}},
                {{"kernel", "graph_chain"}, {"skipped", "the simulated x has no graph launch model"}},
                {{"kernel", "cublas_gemm"}, {"ns", 2e6}, {"flops", 1.2e12}, {"flops_per_s", 600e12}, {"m", 8192},
                 {"n", 8192}, {"k", 8192}, {"precision", "f16 inputs, f32 compute and output"}}}}};
  add_goodput_from_run(run, model["goodput"]);
  add_goodput_predictions(model);
  const json& g = model["goodput"];
  CHECK_FALSE(g.contains("measured"));
  REQUIRE(g["kernels"].size() == 1);
  const json& k = g["kernels"][0];
  CHECK(k["name"] == "l2_reduction");
  CHECK(k["measured_s"].get<double>() == Approx(1.1e-3));
  CHECK(k["predicted_s"].get<double>() == Approx(1.002e-3));
  CHECK(k["error_percent"].get<double>() == Approx(100 * 0.098 / 1.1));
  CHECK(k["signed_error_percent"].get<double>() == Approx(-100 * 0.098 / 1.1));
  CHECK(k["bound"] == "L2");
  CHECK(k["self_check"] == "passed");
  CHECK(k["samples"] == 5);
  CHECK(k["clock_mhz"] == 1755.0);
  CHECK_THAT(k["method"].get<std::string>(), Catch::Contains("roofline.memory.L2.bytes_per_s"));
  CHECK(g["skipped"]["graph_chain"] == "the simulated x has no graph launch model");
  CHECK(g["cublas"]["percent_of_tensor_peak"].get<double>() == Approx(75));
  CHECK(g["cublas"]["m"] == 8192);

  json bad = {{"probe", "goodput/reference"}, {"series", {{{"kernel", "triad"}, {"ns", 5}}}}};
  json section;
  CHECK_THROWS_WITH(add_goodput_from_run(bad, section), Catch::Contains("bytes_read"));
}

TEST_CASE("goodput closed loop: the model fitted on sim:h100 predicts each reference kernel within 3%",
          "[goodput_model][sim]") {
  auto dev = sim::make_sim_device(sim::find_preset("h100"));
  std::vector<json> runs = {run(*dev, "bandwidth/dram"),
                            run(*dev, "bandwidth/l2"),
                            run(*dev, "bandwidth/shared"),
                            run(*dev, "tensor/mma", {{"op", "mma_m16n8k16_f16_f32"}}),
                            run(*dev, "launch/overhead"),
                            run(*dev, "launch/graph"),
                            run(*dev, "goodput/reference")};
  const json model = build_machine_model(runs, {});
  REQUIRE(model.contains("goodput"));
  const json& kernels = model["goodput"]["kernels"];
  REQUIRE(kernels.size() == 4);
  for (const auto& k : kernels) {
    INFO(k.dump());
    REQUIRE(k["error_percent"].is_number());
    CHECK(k["error_percent"].get<double>() < 3.0);
    CHECK(k["self_check"] == "passed");
  }
  CHECK(kernels[2]["bound"] == "tensor");
  CHECK(model["goodput"]["cublas"]["skipped"] == "no cuBLAS on a simulated device");
}

}  // namespace GPUPROBE_TEST_FILE
