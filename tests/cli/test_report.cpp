#include "cli/report.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

using gpuprobe::format_bytes;

TEST_CASE("sizes print in the binary units the command line reads", "[cli][report]") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(128) == "128 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1 KiB");
  CHECK(format_bytes(256 * 1024) == "256 KiB");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(6.0 * 1024 * 1024) == "6 MiB");
  CHECK(format_bytes(273045224.55) == "260 MiB");
  CHECK(format_bytes(1.5 * 1024 * 1024 * 1024) == "1.5 GiB");
  CHECK(format_bytes(4.0 * 1024 * 1024 * 1024 * 1024 * 1024) == "4096 TiB");
}

TEST_CASE("a model with every result prints every result", "[cli][report]") {
  const nlohmann::json model = {
      {"memory",
       {{"shared", {{"latency_cycles", 29.4}, {"latency_ns", nullptr}, {"p50_cycles", 33.0},
                    {"p95_cycles", 34.0}, {"points", 17}}},
        {"line_sector", {{"line_bytes", 128.0}, {"sector_bytes", 32.0}, {"confidence", 0.9},
                         {"note", "8 of 8 agree"}}},
        {"tlb", {{"page_bytes", 2097152.0}, {"base_latency_cycles", 269.4},
                 {"levels", {{{"name", "TLB1"}, {"reach_bytes", 268435456.0},
                              {"reach_interval_bytes", {268435456.0, 318767104.0}},
                              {"miss_cost_cycles", 10.8}, {"confidence", 0.87}}}},
                 {"note", ""}}},
        {"paths", {{"ca", {{"error", "fit_hierarchy: the curve has 3 points"}}}}}}}};
  std::ostringstream out;
  gpuprobe::print_model(out, model);
  CHECK(out.str() ==
        "memory hierarchy (cache-op ca): fit_hierarchy: the curve has 3 points\n"
        "shared memory: 29.4 cycles (p50 33.0, p95 34.0 cycles over 17 points)\n"
        "cache line 128 B, sector 32 B (confidence 0.90)\n"
        "  8 of 8 agree\n"
        "TLB (2 MiB pages): 269.4 cycles with every translation hitting\n"
        "  TLB1  reach 256 MiB (256 MiB to 304 MiB), miss cost 10.8 cycles, confidence 0.87\n");
  std::ostringstream empty;
  gpuprobe::print_model(empty, {{"memory", nlohmann::json::object()}});
  CHECK(empty.str() == "the model holds no result: no run record measured anything\n");
}

TEST_CASE("a level without a clock prints 'ns unknown', not 0.0 ns", "[cli][report]") {
  const nlohmann::json model = {
      {"memory",
       {{"levels_from", "import-csv"},
        {"levels", {{{"name", "L1"}, {"latency_cycles", 33.0}, {"latency_ns", nullptr},
                     {"capacity_bytes", 153600.0}, {"confidence", 0.99}},
                    {{"name", "DRAM"}, {"latency_cycles", 551.0}, {"latency_ns", 390.8},
                     {"capacity_bytes", nullptr}, {"confidence", 0.98}}}},
        {"rejected", {{{"reason", "plateau at 400.0 cycles ..."}}}}}}};
  std::ostringstream out;
  gpuprobe::print_levels(out, model);
  CHECK_THAT(out.str(), Catch::Contains("33.0 cycles  ns unknown"));
  CHECK_THAT(out.str(), Catch::Contains("551.0 cycles    390.8 ns"));
  CHECK_THAT(out.str(), !Catch::Contains("0.0 ns"));
  CHECK_THAT(out.str(), Catch::Contains("not a level: plateau at 400.0 cycles"));
}

TEST_CASE("the bandwidth section prints each level's peak, in-flight need, datasheet share, "
          "plateaus and bank conflicts", "[cli][report]") {
  const nlohmann::json concurrency = {{"peak_bytes_per_s", 1.84e12},
                                      {"peak_bytes_per_clk_per_sm", 9.2},
                                      {"peak_from", "loaded-latency model"},
                                      {"bytes_in_flight_per_sm_for_90pct", 28672.0},
                                      {"confidence", 0.5},
                                      {"measured_top_bytes_per_s", 1.79e12},
                                      {"still_rising", false}};
  const nlohmann::json bandwidth = {
      {"DRAM", {{"read", {{"concurrency", concurrency}, {"percent_of_datasheet", 92.0}}},
                {"datasheet", {{"gpu", "H100 PCIe"}, {"bytes_per_s", 2.0e12}}}}},
      {"L2", {{"concurrency", {{"error", "fit_concurrency_sweep: 2 points"}}},
              {"loaded_latency", {{"source", "bandwidth/loaded_latency"}, {"unloaded_latency_ns", 153.4},
                                  {"queue_ns", 57.0}, {"peak_bandwidth_bytes_per_s", 7.4e12},
                                  {"confidence", 0.98}}},
              {"footprint_sweep", {{"levels", {{{"name", "L2"}, {"bandwidth_bytes_per_s", 7.2e12},
                                                {"ends_at_bytes", 26214400.0}}}}}}}},
      {"shared", {{"bank_conflicts", {{"word_bytes", 4},
                                      {"strides", {{{"stride_elems", 1}, {"slowdown", 1.0}},
                                                   {{"stride_elems", 2}, {"slowdown", 2.0}}}}}}}}};
  std::ostringstream out;
  gpuprobe::print_model(out, {{"memory", nlohmann::json::object()}, {"bandwidth", bandwidth}});
  CHECK(out.str() ==
        "bandwidth (GB = 10^9 bytes; sizes in KiB = 1024 bytes):\n"
        "  shared\n"
        "    bank conflicts (4-byte words), slowdown by stride: 1: 1.0x 2: 2.0x\n"
        "  L2: fit_concurrency_sweep: 2 points\n"
        "    loaded latency (bandwidth/loaded_latency): 153.4 ns unloaded + 57.0 ns x B / (7.40 TB/s - B), "
        "confidence 0.98\n"
        "    footprint plateau L2: 7.20 TB/s up to 25 MiB\n"
        "  DRAM read     peak 1.84 TB/s (9.2 B/clk/SM, loaded-latency model), 90% of it from 28 KiB "
        "in flight per SM, confidence 0.50\n"
        "    measured top 1.79 TB/s = 92.0% of the H100 PCIe datasheet's 2.00 TB/s\n");
}

TEST_CASE("the compute section prints each op's latency, rate and share of the peak, and what was "
          "skipped", "[cli][report]") {
  const nlohmann::json compute = {
      {"ops", {{"fma_rn_f32", {{"latency_cycles", 4.0}, {"ops_per_clk_per_sm", 64.0},
                               {"ops_per_s", 7.06e12}, {"implementation", "native"},
                               {"percent_of_peak", 90.0},
                               {"peak", {{"gpu", "V100"}, {"flops_per_s", 15.7e12}}}}}}},
      {"skipped", {{"fma_rn_f32x2", "fma.rn.f32x2 needs sm_100+"}}}};
  std::ostringstream out;
  gpuprobe::print_model(out, {{"compute", compute}});
  CHECK(out.str() ==
        "compute (latency of one dependent chain; rate over all SMs at the measured clock):\n"
        "  fma_rn_f32                4.0 cycles     64.0 ops/clk/SM  7.06e+12 ops/s  90.0% of V100's 15.7 TFLOP/s\n"
        "  fma_rn_f32x2: not measured: fma.rn.f32x2 needs sm_100+\n");
}

TEST_CASE("tensor-core rows line up whatever the length of their names", "[cli][report]") {
  const auto op = [](const char* precision, double flops_per_clk) {
    return nlohmann::json{{"path", "mma.sync"}, {"precision", precision}, {"accumulate", "f32"},
                           {"latency_cycles", 40.0}, {"flops_per_clk_per_sm", flops_per_clk},
                           {"flops_per_s", 3.0e14}, {"zeros", {{"flops_per_s", 3.0e14}}},
                           {"implementation", "native"}};
  };
  const nlohmann::json compute = {
      {"ops", {{"mma_m16n8k32_mxf8f6f4_e3m2_f32", op("mxf6_e3m2", 801)},
               {"mma_m16n8k8_f16_f32", op("f16", 399)},
               {"fma_rn_f32", {{"latency_cycles", 4.0}, {"ops_per_clk_per_sm", 128.0},
                               {"ops_per_s", 5.2e13}, {"implementation", "native"}}}}}};
  std::ostringstream out;
  gpuprobe::print_model(out, {{"compute", compute}});
  std::istringstream lines(out.str());
  std::string line;
  std::vector<std::size_t> cycles_at;
  while (std::getline(lines, line))
    if (line.find(" cycles") != std::string::npos) cycles_at.push_back(line.find(" cycles"));
  REQUIRE(cycles_at.size() == 3);
  // Keys print sorted: fma_rn_f32 (no path column), then the two tensor rows.
  CHECK(cycles_at[1] == cycles_at[2]);
  const std::string name = "mma_m16n8k8_f16_f32", kind = "mma.sync f16->f32";
  const std::string row = "  " + name + std::string(30 - name.size(), ' ') + " " + kind +
                          std::string(23 - kind.size(), ' ') + "   40.0 cycles";
  CHECK(out.str().find(row) != std::string::npos);
}

TEST_CASE("the atomics section says red has no latency instead of printing nan", "[cli][report]") {
  const nlohmann::json atomics = {
      {"ops",
       {{"global_add_u32", {{"ptx", "atom.global.add.u32"}, {"lowering", "native"},
                            {"patterns", {{"distinct", {{"latency_cycles", 650.0}, {"latency_ns", 370.0},
                                                        {"ops_per_clk_per_sm", 1.2}}}}}}},
        {"global_red_add_u32", {{"ptx", "red.global.add.u32"}, {"lowering", "native"},
                                {"patterns", {{"distinct", {{"ops_per_clk_per_sm", 1.2}}}}}}},
        {"shared_add_u32", {{"ptx", "atom.shared.add.u32"}, {"lowering", "native"},
                            {"patterns", {{"same", {{"ops_per_clk_per_sm", 1.0}}}}}}}}}};
  std::ostringstream out;
  gpuprobe::print_model(out, {{"atomics", atomics}});
  CHECK(out.str() ==
        "atomics (latency of one dependent op of one chain, ns at the measured clock; rate in thread-level "
        "atomics per clock per SM):\n"
        "  global_add_u32           distinct    650.0 cycles    370.0 ns     1.200 /clk/SM  [native]\n"
        "  global_red_add_u32       distinct  none: red returns nothing      1.200 /clk/SM  [native]\n"
        "  shared_add_u32           same      latency not measured           1.000 /clk/SM  [native]\n");
}
