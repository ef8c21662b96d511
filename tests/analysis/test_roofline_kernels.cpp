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
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=0x10,time_s=1"), Contains("no hexadecimal"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=0"), Contains("time_s must be more than 0"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=inf,time_s=1"), Contains("is not a number"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=1,bytes_l3=1"), Contains("unknown field 'bytes_l3'"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=1,flops=2"), Contains("flops is given twice"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=1,bytes_hbm=1,bytes_dram=1"),
                    Contains("same level (DRAM)"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=1,oops"), Contains("'oops' is not key=value"));
  // Decimal numbers only: strtod's hexadecimal, inf and nan are refused.
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=0x10,time_s=1"),
                    Contains("flops = '0x10' is not a number"));
  CHECK_THROWS_WITH(analysis::parse_kernel_spec("k:flops=1,time_s=nan"),
                    Contains("time_s = 'nan' is not a number"));
  CHECK(analysis::parse_kernel_spec("k:flops=+1.5e3,time_s= 2 ").flops == 1500);
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
      // Another separator, another encoding, an ncu export, a hexadecimal number: said so.
      {"name;flops;time_s\nk;1;1\n", ":1: unknown column 'name;flops;time_s' (known: name, flops, time_s"},
      {"name;flops;time_s\nk;1;1\n", "the separator must be a comma, and this line seems to use ';'"},
      {"name\tflops\ttime_s\nk\t1\t1\n", "this line seems to use a tab"},
      {std::string("\xFF\xFEn\0a\0m\0e\0", 10), "the file is UTF-16 (or holds NUL bytes): save it as UTF-8"},
      {"\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n",
       ":1: this is an Nsight Compute export (column 'Kernel "
       "Name'): give it as --ncu-csv, not --kernels-csv"},
      {"name,flops,time_s\nk,0x10,1\n", ":2: flops = '0x10' is not a number"},
      {"name,flops,time_s\nk,1,infinity\n", ":2: time_s = 'infinity' is not a number"},
  };
  for (const auto& [text, expected] : bad) {
    INFO(text);
    TempFile f(text);
    const std::string e = error_of([&] { analysis::read_kernels_csv(f.path); });
    CHECK_THAT(e, Contains(expected));
    CHECK(e.find('\n') == std::string::npos);
  }
  CHECK_THAT(error_of([] { analysis::read_kernels_csv("/nonexistent/k.csv"); }), Contains("cannot be opened"));
  const std::string folder = std::filesystem::temp_directory_path().string();
  CHECK(error_of([&] { analysis::read_kernels_csv(folder); }) == folder + " is a folder, not a CSV file");
  std::vector<std::string> notes;
  CHECK(error_of([&] { analysis::read_ncu_csv(folder, "", notes); }) ==
        folder + " is a folder, not a CSV file");
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
  const auto ks = analysis::read_ncu_csv(kNcuDir + "roofline_raw_split.csv", "", notes);
  REQUIRE(ks.size() == 1);  // fill_zero counts no FLOPs
  // The two launches of saxpy are one kernel: FLOPs, time and bytes summed, the launch times kept.
  const auto& a = ks[0];
  CHECK(a.name == "saxpy");
  CHECK(a.launches == 2);
  CHECK(a.flops == Approx(2 * 2 * 1.048576e6));
  CHECK(a.time_s == Approx(10240e-9 + 20480e-9));
  CHECK(a.min_time_s == Approx(10240e-9));
  CHECK(a.max_time_s == Approx(20480e-9));
  CHECK(a.bytes.at("DRAM") == Approx(2 * (8192e3 + 4096e3)));
  CHECK(a.bytes.at("L2") == Approx(16777216.0));            // n/a in the first launch: not collected there
  CHECK(a.source == kNcuDir + "roofline_raw_split.csv:5");  // the first launch
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("fill_zero left out: no FLOPs counted"));
}

TEST_CASE(
    "ncu import (--ncu-csv): 10^4 launches of 3 kernels are 3 kernels, their left-out launches one note",
    "[roofline][kernels][ncu]") {
  std::string text =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes.sum\","
      "\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n\"\",\"\",\"usecond\",\"byte\",\"inst\"\n";
  for (int i = 0; i < 10000; ++i) {
    const int kernel = i % 4;  // k3 counts no FLOPs
    text += "\"" + std::to_string(i) + "\",\"k" + std::to_string(kernel) + "\",\"" +
            std::to_string(1 + i % 7) + "\",\"1000\",\"" + (kernel == 3 ? "0" : "500") + "\"\n";
  }
  TempFile f(text);
  std::vector<std::string> notes;
  const auto ks = analysis::read_ncu_csv(f.path, "", notes);
  REQUIRE(ks.size() == 3);
  CHECK(ks[0].name == "k0");
  CHECK(ks[2].name == "k2");
  for (const auto& k : ks) {
    CHECK(k.launches == 2500);
    CHECK(k.flops == Approx(2500 * 1000.0));
    CHECK(k.bytes.at("DRAM") == Approx(2500 * 1000.0));
    CHECK(k.min_time_s == Approx(1e-6));
    CHECK(k.max_time_s == Approx(7e-6));
  }
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains(":6: k3 left out: no FLOPs counted (2500 launches, this the first)"));

  // The kernels CSV too: rows of one name are its launches; other precisions are other kernels.
  TempFile csv("name,flops,time_s,bytes_hbm,precision\ng,1e9,1e-3,1e6,\ng,3e9,3e-3,3e6,\ng,1e9,1e-3,,f16\n");
  const auto cs = analysis::read_kernels_csv(csv.path);
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].launches == 2);
  CHECK(cs[0].flops == 4e9);
  CHECK(cs[0].time_s == Approx(4e-3));
  CHECK(cs[0].bytes.at("DRAM") == 4e6);
  CHECK(cs[1].precision == "f16");
  CHECK(cs[1].launches == 1);
}

TEST_CASE("ncu import (--ncu-csv): application output before the header, DRAM reads only",
          "[roofline][kernels][ncu]") {
  const std::string head =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\","
      "\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n";
  TempFile f("training step 1, loss 0.25\nhello from the app\n" + head +
             "\"\",\"\",\"usecond\",\"byte\",\"inst\"\n\"0\",\"k\",\"1\",\"1000\",\"10\"\n");
  std::vector<std::string> notes;
  const auto ks = analysis::read_ncu_csv(f.path, "", notes);
  REQUIRE(ks.size() == 1);
  CHECK(ks[0].bytes.at("DRAM") == 1000);
  CHECK(ks[0].source == f.path + ":5");
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] ==
        f.path + ": 2 line(s) before the header on line 3 skipped (the application's own output?)");
  CHECK(notes[1] == f.path +
                        ":3: DRAM bytes are reads only (no column dram__bytes_write.sum): each kernel's DRAM "
                        "intensity is an upper bound");
}

TEST_CASE("ncu import (--ncu-csv): malformed exports are one line naming the file, line and problem", "[roofline][kernels][ncu]") {
  const std::string head =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes.sum\","
      "\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n";
  const std::string units = "\"\",\"\",\"usecond\",\"Mbyte\",\"inst\"\n";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "the file is empty"},
      {"\"ID\",\"gpu__time_duration.sum\"\n\"\",\"usecond\"\n\"0\",\"1\"\n", ":1: no column 'Kernel Name'"},
      {"\"Kernel Name\",\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\"\n",
       ":1: no column 'gpu__time_duration.sum'"},
      {"\"Kernel "
       "Name\",\"gpu__time_duration.sum\",\"dram__bytes.sum\"\n\"\",\"usecond\",\"byte\"\n\"k\",\"1\","
       "\"1\"\n",
       ":1: no FLOP counter column"},
      {head, "no units row"},
      {head + units, "no kernel rows after the units row"},
      {head + "\"\",\"\",\"fortnight\",\"Mbyte\",\"inst\"\n\"0\",\"k\",\"1\",\"1\",\"1\"\n",
       ":2: unknown unit 'fortnight' of gpu__time_duration.sum"},
      {head + "\"\",\"\",\"usecond\",\"MiB\",\"inst\"\n\"0\",\"k\",\"1\",\"1\",\"1\"\n",
       ":2: unknown unit 'MiB' of dram__bytes.sum"},
      {head + units + "\"0\",\"k\",\"fast\",\"1\",\"1\"\n",
       ":3: gpu__time_duration.sum = 'fast' is not a number"},
      {head + units + "\"0\",\"k\",\"0\",\"1\",\"1\"\n",
       ":3: gpu__time_duration.sum = '0' is not a number more than 0"},
      {head + units + "\"0\",\"k\",\"1\",\"1\",\"1,2\"\n",
       ":3: sm__sass_thread_inst_executed_op_ffma_pred_on.sum = '1,2'"},
      {head + units + "\"0\",\"k\",\"1\",\"1\"\n", ":3: 4 fields, the header has 5"},
      {head + units + "\"0\",\"\",\"1\",\"1\",\"1\"\n", ":3: the Kernel Name is empty"},
      // No units row: the second row is a launch, said so (not "unknown unit '1'").
      {head + "\"0\",\"k\",\"850.5\",\"1\",\"1\"\n",
       ":2: the export has no units row: this row is a launch of 'k'"},
      {"name,flops,time_s\nk,1,1\n",
       ":1: no column 'Kernel Name': this is a kernels CSV (name,flops,time_s...): give it "
       "as --kernels-csv"},
      {head + "\"\",\"\",\"usecond\",\"byte\",\"inst\"\n\"0\",\"k\",\"0x10\",\"1\",\"1\"\n",
       ":3: gpu__time_duration.sum = '0x10' is not a number"},
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
