// The launch section's fits (analysis/launch_model.cpp): t = a + b*n and T = a + V/b on exact and
// noisy synthetic lines, the gpu-benches gpu-small-kernels reader, the real curves' per-launch
// overheads against the reference values of tests/data/real/gpu-benches/gpu-small-kernels/
// PROVENANCE.md (within 10%), and the CSV import of small-kernel curves.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "analysis/csv_import.hpp"
#include "analysis/launch_model.hpp"
#include "analysis/machine_model.hpp"
#include "harness/error.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
using namespace gpuprobe::analysis;

namespace {

std::string small_kernels_file(const std::string& name) {
  return std::string(GPUPROBE_TEST_DATA_DIR) + "/real/gpu-benches/gpu-small-kernels/" + name;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = std::string("/tmp/gpuprobe_test_launch_") + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("line fit: exact line, intervals of zero width", "[launch][model]") {
  const LinearFit f = fit_line({1, 2, 4, 8, 16}, {3.5, 4, 5, 7, 11});
  CHECK(f.a == Approx(3.0));
  CHECK(f.b == Approx(0.5));
  CHECK(f.a_hi - f.a_lo == Approx(0).margin(1e-9));
  CHECK(f.r2 == Approx(1.0));
  CHECK(f.confidence == Approx(1.0));
  CHECK(f.points == 5);
}

TEST_CASE("line fit: noisy line, the intervals hold the truth about 95% of the time", "[launch][model]") {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.5);
  int a_inside = 0, b_inside = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x, y;
    for (int n = 1; n <= 12; ++n) {
      x.push_back(n);
      y.push_back(2000 + 150 * n + noise(rng) * 20);
    }
    const LinearFit f = fit_line(x, y);
    a_inside += f.a_lo <= 2000 && 2000 <= f.a_hi;
    b_inside += f.b_lo <= 150 && 150 <= f.b_hi;
  }
  CHECK(a_inside > 0.90 * trials);
  CHECK(a_inside < 0.99 * trials);
  CHECK(b_inside > 0.90 * trials);
  CHECK(b_inside < 0.99 * trials);
}

TEST_CASE("line fit: too few points, equal x or non-finite values are refused", "[launch][model]") {
  CHECK_THROWS_AS(fit_line({1}, {2}), Error);
  CHECK_THROWS_AS(fit_line({3, 3, 3}, {1, 2, 3}), Error);
  CHECK_THROWS_AS(fit_line({1, 2, NAN}, {1, 2, 3}), Error);
  const LinearFit two = fit_line({1, 3}, {5, 9});
  CHECK(two.b == Approx(2));
  CHECK(two.confidence == Approx(0.5));
}

TEST_CASE("small-kernel fit: T = a + V/b recovers a and b, ignoring points past the window",
          "[launch][model]") {
  std::vector<SmallKernelPoint> pts;
  const double a = 1.3e-6, b = 3e12;
  for (double v = 65536; v < 64 * 65536; v *= 1.06) {
    // Past 4x the smallest volume the time grows faster (the data left the L2): not in the fit.
    const double t = v <= 4 * 65536 ? a + v / b : a + v / 1e12;
    pts.push_back({v, t});
  }
  const SmallKernelFit f = fit_small_kernels(pts);
  CHECK(f.overhead_s == Approx(a).epsilon(1e-6));
  CHECK(f.bytes_per_s == Approx(b).epsilon(1e-6));
  CHECK(f.points < f.input_points);
  CHECK(f.smallest_bytes == 65536);
  CHECK(f.confidence > 0.99);
  const auto j = to_json(f);
  CHECK(j["overhead_ns"].get<double>() == Approx(1300).epsilon(1e-6));
}

TEST_CASE("small-kernel fit: a flat curve has an overhead and no bandwidth", "[launch][model]") {
  const SmallKernelFit f =
      fit_small_kernels({{65536, 1e-6}, {80000, 0.99e-6}, {100000, 1.01e-6}, {120000, 0.995e-6}});
  CHECK(f.overhead_s == Approx(1e-6).epsilon(0.02));
  CHECK(f.bytes_per_s == 0);
  CHECK(to_json(f)["bytes_per_s"].is_null());
  CHECK_THROWS_AS(fit_small_kernels({{1, 1}, {2, 1}}), Error);
  CHECK_THROWS_AS(fit_small_kernels({{1, 1}, {2, 1}, {100, 1}}), Error);  // 2 in the window
}

TEST_CASE("gpu-benches small kernels: reader, both layouts, methods from the file name",
          "[launch][model][real]") {
  const auto h200 = read_gpubenches_small_kernels(small_kernels_file("h200_pt.txt"));
  CHECK(h200.method == "pt");
  REQUIRE(h200.points.size() == 179);
  CHECK(h200.points[0].bytes == 65536);
  CHECK(h200.points[0].time_s == Approx(65536 / 63e9));  // best of 57 62 63 63 53 50 GB/s
  const auto a100 = read_gpubenches_small_kernels(small_kernels_file("a100_80_graph.txt"));
  CHECK(a100.method == "graph");
  CHECK(a100.points[0].time_s == Approx(65536 / 49e9));  // the old layout: 9 block sizes
  CHECK(small_kernel_method_of_file("x/l40.txt") == "stream");
  CHECK(small_kernel_method_of_file("l40_gsync.txt") == "gsync");
  const std::string bad = write_temp("bad_sk.txt", "4096 64kB 10 11 12 13 14 15\n4341 67kB 10 x 12 13 14 15\n");
  CHECK_THROWS_WITH(read_gpubenches_small_kernels(bad), Catch::Contains(":2: column 4"));
  // A run cut off mid-row: the last line has no newline and fewer columns; it is dropped.
  const std::string cut = write_temp("cut_sk.txt", "4096 64kB 10 11 12 13 14 15\n4341 67kB 10 11 12 13 14 15\n"
                                                   "4601 71kB 10 11 12 13 14 15\n4877 76kB 10 11");
  CHECK(read_gpubenches_small_kernels(cut).points.size() == 3);
  const std::string mixed = write_temp("mixed_sk.txt", "4096 64kB 10 11 12 13 14 15\n4341 67kB 1 2 3 4 5 6 7 8 9\n");
  CHECK_THROWS_WITH(read_gpubenches_small_kernels(mixed), Catch::Contains("one layout"));
}

TEST_CASE("gpu-benches small kernels: fitted per-launch overheads within 10% of the reference",
          "[launch][model][real]") {
  // PROVENANCE.md: the smallest-case times of the shared data README and FIGURES.md 6 and 7.
  const struct {
    const char* file;
    double reference_us;
  } cases[] = {
      {"a100_80.txt", 2.62},  {"a100_80_graph.txt", 1.34}, {"a100_80_gsync.txt", 1.34},
      {"a40.txt", 2.05},      {"a40_graph.txt", 1.09},     {"a40_pt.txt", 0.81},
      {"h200.txt", 2.43},     {"h200_graph.txt", 1.26},    {"h200_gsync.txt", 1.13},
      {"h200_pt.txt", 1.04},  {"l40.txt", 1.64},           {"l40_graph.txt", 0.94},
      {"l40_gsync.txt", 0.82}, {"l40_pt.txt", 0.66},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const auto file = read_gpubenches_small_kernels(small_kernels_file(c.file));
    const SmallKernelFit f = fit_small_kernels(file.points);
    CHECK(f.overhead_s * 1e6 == Approx(c.reference_us).epsilon(0.10));
    // The overhead is below the smallest case's time plus the fit's noise, and well resolved.
    CHECK(f.overhead_s < f.smallest_time_s * 1.10);
    CHECK(f.confidence > 0.8);
    CHECK(f.points >= 10);
  }
}

TEST_CASE("gpu-benches small kernels: on every GPU, graph, gsync and pt launch cheaper than streams",
          "[launch][model][real]") {
  for (const char* gpu : {"h200", "l40"}) {
    INFO(gpu);
    const auto fit = [&](const std::string& suffix) {
      return fit_small_kernels(read_gpubenches_small_kernels(small_kernels_file(gpu + suffix + ".txt")).points)
          .overhead_s;
    };
    const double stream = fit(""), graph = fit("_graph"), gsync = fit("_gsync"), pt = fit("_pt");
    CHECK(graph < 0.6 * stream);
    CHECK(gsync < stream);
    CHECK(pt < graph);
  }
}

TEST_CASE("small-kernel CSV import: one fit per method under launch.small_kernels", "[launch][model][csv]") {
  std::ostringstream text;
  text.precision(10);
  text << "# exported by hand\nbytes,time_s,method\n";
  for (double v = 65536; v <= 4 * 65536; v *= 1.2) {
    text << v << "," << 2.4e-6 + v / 2e12 << ",stream\n";
    text << v << "," << 1.2e-6 + v / 2e12 << ",graph\n";
  }
  const std::string path = write_temp("sk.csv", text.str());
  CHECK(csv_curve_kind(path) == CsvCurveKind::small_kernels);
  const auto methods = read_small_kernels_csv(path);
  REQUIRE(methods.size() == 2);
  CHECK(methods[0].first == "stream");
  const auto model = build_machine_model_from_small_kernels(methods, path);
  const auto& sk = model["launch"]["small_kernels"];
  CHECK(sk["stream"]["overhead_ns"].get<double>() == Approx(2400).epsilon(0.01));
  CHECK(sk["graph"]["overhead_ns"].get<double>() == Approx(1200).epsilon(0.01));
  CHECK(model["sources"][0]["probe"] == "import-csv");

  CHECK_THROWS_WITH(read_small_kernels_csv(write_temp("sk_few.csv", "bytes,time_s,method\n1,1,a\n2,1,a\n3,1,a\n1,1,b\n")),
                    Catch::Contains("method 'b' has 1 rows"));
  CHECK_THROWS_WITH(read_small_kernels_csv(write_temp("sk_empty.csv", "bytes,time_s,method\n1,1,\n")),
                    Catch::Contains("column 'method' is empty"));
  CHECK_THROWS_WITH(read_small_kernels_csv(write_temp("sk_neg.csv", "bytes,time_s,method\n1,-1,a\n")),
                    Catch::Contains("negative"));
}

TEST_CASE("analyze --import-csv of a small-kernel curve: the launch section and its summary, options refused",
          "[launch][model][csv]") {
  std::ostringstream text;
  text.precision(10);
  text << "bytes,time_s,method\n";
  for (double v = 65536; v <= 4 * 65536; v *= 1.25) text << v << "," << 1.5e-6 + v / 3e12 << ",pt\n";
  const std::string csv = write_temp("cli_sk.csv", text.str());
  const std::string model = "/tmp/gpuprobe_test_launch_cli_model.json", out = "/tmp/gpuprobe_test_launch_cli.out";
  std::remove(model.c_str());
  const auto run = [&](const std::string& args) {
    const int status = std::system((std::string(GPUPROBE_EXE) + " analyze --import-csv " + csv + " " + args + " >" +
                                    out + " 2>&1").c_str());
    std::ifstream in(out);
    std::stringstream all;
    all << in.rdbuf();
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, all.str());
  };
  auto [rc, text_out] = run("--out " + model);
  CHECK(rc == 0);
  CHECK(text_out.find("pt overhead per pass") != std::string::npos);
  CHECK(text_out.find("1500 ns") != std::string::npos);
  CHECK(text_out.find("pt bandwidth term (V/b)") != std::string::npos);
  CHECK(text_out.find("3.00 TB/s") != std::string::npos);
  std::tie(rc, text_out) = run("--sm-count 132 --out " + model + "2");
  CHECK(rc == 1);
  CHECK(text_out == "gpuprobe: error: --clock-mhz, --sm-count, --first-level and --ends-in do not apply to "
                    "small-kernel curves (" + csv + ")\n");
}

}  // namespace GPUPROBE_TEST_FILE
