// Kernel inputs of the roofline (analysis/roofline_kernels.cpp): --kernel specs, a kernels CSV,
// and Nsight Compute raw-page exports (the fixtures in tests/data/ncu/, built from the metric
// names NVIDIA documents: tests/data/ncu/README.md), with their unit rows converted; every
// malformed input is one line naming the file and line.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/roofline_kernels.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using Catch::Contains;

namespace {

const std::string kNcuDir = std::string(GPUPROBE_TEST_DATA_DIR) + "/ncu/";

// A file with `text`, removed at the end of the test.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    static int n = 0;
    path = (std::filesystem::temp_directory_path() /
            ("gpuprobe-roofline-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + ".csv"))
               .string();
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

std::map<std::string, analysis::RooflineKernel> by_name(const std::vector<analysis::RooflineKernel>& ks) {
  std::map<std::string, analysis::RooflineKernel> m;
  for (const auto& k : ks) m[k.name] = k;
  return m;
}

// The error a call throws, or "" when it does not.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("kernel spec (--kernel): name, FLOPs, time, bytes per level, precision and path", "[roofline][kernels]") {
  auto k = analysis::parse_kernel_spec(
      "ns::gemm<float>:flops=1e12,bytes_hbm=2e9,bytes_l2=4e9,bytes_l1=8e9,bytes_shared=1e9,time_s=0.01,"
      "precision=fp16,path=mma.sync");
  CHECK(k.name == "ns::gemm<float>");
  CHECK(k.flops == 1e12);
  CHECK(k.time_s == 0.01);
  CHECK(k.bytes.at("DRAM") == 2e9);
  CHECK(k.bytes.at("L2") == 4e9);
  CHECK(k.bytes.at("L1") == 8e9);
  CHECK(k.bytes.at("shared") == 1e9);
  CHECK(k.precision == "f16");
  CHECK(k.path == "mma.sync");
  k = analysis::parse_kernel_spec("copy:flops=1,time_s=1,bytes_dram=0,bytes_l2_far=5");
  CHECK(k.bytes.at("DRAM") == 0);
  CHECK(k.bytes.at("L2-far") == 5);
  CHECK(k.precision.empty());

  CHECK_THROWS_WITH(analysis::parse_kernel_spec("gemm"), Contains("expected NAME:flops="));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec(":flops=1,time_s=1"), Contains("has no name"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1"), Contains("time_s is missing"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:time_s=1"), Contains("flops is missing"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1e12x,time_s=1"), Contains("flops = '1e12x' is not a number"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=-1,time_s=1"), Contains("is not a number >= 0"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=0"), Contains("time_s must be more than 0"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=inf,time_s=1"), Contains("is not a number"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=1,bytes_l3=1"), Contains("unknown field 'bytes_l3'"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=1,flops=2"), Contains("flops is given twice"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=1,bytes_hbm=1,bytes_dram=1"),
                    Contains("same level (DRAM)"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=1,oops"), Contains("'oops' is not key=value"));
}

TEST_CASE("kernels CSV (--kernels-csv): columns in any order, optional ones blank, every error names its line",
          "[roofline][kernels]") {
  TempFile good(
      "# kernels of one step\n"
      "time_s,name,flops,bytes_hbm,bytes_l2,precision\n"
      "0.002,\"gemm, tiled\",4e12,1e9,8e9,f16\n"
      "\n"
      "1e-3,stream,2.5e8,3e9,,\n");
  const auto ks = by_name(analysis::read_kernels_csv(good.path));
  REQUIRE(ks.size() == 2);
  const auto& g = ks.at("gemm, tiled");
  CHECK(g.flops == 4e12);
  CHECK(g.time_s == 0.002);
  CHECK(g.bytes.at("DRAM") == 1e9);
  CHECK(g.bytes.at("L2") == 8e9);
  CHECK(g.precision == "f16");
  CHECK(g.source == good.path + ":3");
  const auto& s = ks.at("stream");
  CHECK(s.bytes.size() == 1);  // the blank L2 cell is "not given"
  CHECK(s.precision.empty());

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "the file is empty"},
      {"# only a comment\n", "the file is empty"},
      {"name,flops\nk,1\n", "the header has no column time_s"},
      {"name,flops,time_s,bytes_l3\nk,1,1,1\n", ":1: unknown column 'bytes_l3'"},
      {"name,flops,time_s,flops\nk,1,1,1\n", ":1: column 'flops' is given twice"},
      {"name,flops,time_s\n", "no kernel rows"},
      {"name,flops,time_s\nk,1\n", ":2: 2 fields, the header has 3"},
      {"name,flops,time_s\nk,one,1\n", ":2: flops = 'one' is not a number"},
      {"name,flops,time_s\nk,,1\n", ":2: flops = '' is not a number"},
      {"name,flops,time_s\n\"k,1,1\n", ":2: a quoted field is not closed"},
  };
  for (const auto& [text, expected] : bad) {
    INFO(text);
    TempFile f(text);
    const std::string e = error_of([&] { analysis::read_kernels_csv(f.path); });
    CHECK_THAT(e, Contains(expected));
    CHECK(e.find('\n') == std::string::npos);
  }
  CHECK_THAT(error_of([] { analysis::read_kernels_csv("/nonexistent/k.csv"); }), Contains("cannot be opened"));
}

TEST_CASE("ncu import (--ncu-csv): FLOPs per precision, bytes per level and time from a raw-page export, units converted",
          "[roofline][kernels][ncu]") {
  std::vector<std::string> notes;
  const auto ks = by_name(analysis::read_ncu_csv(kNcuDir + "roofline_raw.csv", "", notes));
  CHECK(notes.empty());
  REQUIRE(ks.size() == 3);

  // f32: fadd + fmul + 2 ffma (thousands separators read); usecond, Mbyte and Gbyte converted.
  const auto& s = ks.at("sgemm_128x64(float const*, float const*, float*, int)");
  CHECK(s.precision == "f32");
  CHECK(s.flops == Approx(1048576.0 + 2 * 17179869184.0 + 2097152.0));
  CHECK(s.time_s == Approx(850.5e-6));
  CHECK(s.bytes.at("DRAM") == Approx(402.65e6));
  CHECK(s.bytes.at("L2") == Approx(3221.23e6));
  CHECK(s.bytes.at("L1") == Approx(12.5e9));
  CHECK(s.path == "fma");  // CUDA-core FLOPs only: the FMA path's ceiling
  CHECK(s.source == kNcuDir + "roofline_raw.csv:3");

  // f64: 2 dfma.
  const auto& d = ks.at("stream_triad(double*, double const*, double const*, double)");
  CHECK(d.precision == "f64");
  CHECK(d.flops == Approx(2 * 134217728.0));
  CHECK(d.time_s == Approx(1700e-6));
  CHECK(d.bytes.at("DRAM") == Approx(3221.23e6));

  // Tensor path: its ops dominate, so the kernel is f16 with no path (the best f16 ceiling).
  const auto& h = ks.at("hgemm_tensor(__half const*, __half const*, float*)");
  CHECK(h.precision == "f16");
  CHECK(h.flops == Approx(68719476736.0));
  CHECK(h.path.empty());
  CHECK(h.flops_by_precision["f32"].get<double>() == Approx(2e6));

  // --precision f32: the f32 FLOPs of each launch; a launch without any is left out, named.
  notes.clear();
  const auto f32 = by_name(analysis::read_ncu_csv(kNcuDir + "roofline_raw.csv", "f32", notes));
  CHECK(f32.size() == 2);
  CHECK(f32.at("hgemm_tensor(__half const*, __half const*, float*)").flops == Approx(2e6));
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("roofline_raw.csv:4: stream_triad") && Contains("no f32 FLOPs counted"));
}

TEST_CASE("ncu import (--ncu-csv): smsp__ counters, DRAM read + write, nsecond and Minst, n/a, repeated launches",
          "[roofline][kernels][ncu]") {
  std::vector<std::string> notes;
  const auto ks = by_name(analysis::read_ncu_csv(kNcuDir + "roofline_raw_split.csv", "", notes));
  REQUIRE(ks.size() == 2);  // fill_zero counts no FLOPs
  const auto& a = ks.at("saxpy [ID 0]");
  CHECK(a.flops == Approx(2 * 1.048576e6));
  CHECK(a.time_s == Approx(10240e-9));
  CHECK(a.bytes.at("DRAM") == Approx(8192e3 + 4096e3));
  CHECK(a.bytes.count("L2") == 0);  // n/a: not collected for this launch
  const auto& b = ks.at("saxpy [ID 1]");
  CHECK(b.time_s == Approx(20480e-9));
  CHECK(b.bytes.at("L2") == Approx(16777216.0));
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("fill_zero left out: no FLOPs counted"));
}

TEST_CASE("ncu import (--ncu-csv): malformed exports are one line naming the file, line and problem", "[roofline][kernels][ncu]") {
  const std::string head =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes.sum\","
      "\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n";
  const std::string units = "\"\",\"\",\"usecond\",\"Mbyte\",\"inst\"\n";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "the file is empty"},
      {"\"ID\",\"gpu__time_duration.sum\"\n\"\",\"usecond\"\n\"0\",\"1\"\n", ":1: no column 'Kernel Name'"},
      {"\"Kernel Name\",\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n", ":1: no column 'gpu__time_duration.sum'"},
      {"\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes.sum\"\n\"\",\"usecond\",\"byte\"\n\"k\",\"1\",\"1\"\n",
       ":1: no FLOP counter column"},
      {head, "no units row"},
      {head + units, "no kernel rows after the units row"},
      {head + "\"\",\"\",\"fortnight\",\"Mbyte\",\"inst\"\n\"0\",\"k\",\"1\",\"1\",\"1\"\n",
       ":2: unknown unit 'fortnight' of gpu__time_duration.sum"},
      {head + "\"\",\"\",\"usecond\",\"MiB\",\"inst\"\n\"0\",\"k\",\"1\",\"1\",\"1\"\n", ":2: unknown unit 'MiB' of dram__bytes.sum"},
      {head + units + "\"0\",\"k\",\"fast\",\"1\",\"1\"\n", ":3: gpu__time_duration.sum = 'fast' is not a number"},
      {head + units + "\"0\",\"k\",\"0\",\"1\",\"1\"\n", ":3: gpu__time_duration.sum = '0' is not a number more than 0"},
      {head + units + "\"0\",\"k\",\"1\",\"1\",\"1,2\"\n", ":3: sm__sass_thread_inst_executed_op_ffma_pred_on.sum = '1,2'"},
      {head + units + "\"0\",\"k\",\"1\",\"1\"\n", ":3: 4 fields, the header has 5"},
      {head + units + "\"0\",\"\",\"1\",\"1\",\"1\"\n", ":3: the Kernel Name is empty"},
      {"\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\",\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n"
       "\"\",\"usecond\",\"byte\",\"inst\"\n\"k\",\"1\",\"1\",\"1\"\n",
       "no column 'dram__bytes_write.sum'"},
  };
  for (const auto& [text, expected] : bad) {
    INFO(text);
    TempFile f(text);
    std::vector<std::string> notes;
    const std::string e = error_of([&] { analysis::read_ncu_csv(f.path, "", notes); });
    CHECK_THAT(e, Contains(expected));
    CHECK(e.find('\n') == std::string::npos);
  }
}

}  // namespace GPUPROBE_TEST_FILE
