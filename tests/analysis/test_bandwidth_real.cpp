// Bandwidth fits on real curves from te42kyfo/gpu-benches (tests/data/real/gpu-benches/
// {gpu-cache,gpu-l2-cache,gpu-stream,gpu-strides}/PROVENANCE.md). Expected values: the "Bandwidth
// files" paragraph of data/real/README.md (copied into the PROVENANCE files) and the cited rows of
// docs/FIGURES.md; all within 5%.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/bandwidth_fit.hpp"
#include "analysis/gpubenches_import.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;

namespace {

constexpr double KiB = 1024.0, MiB = 1024.0 * 1024.0, GBps = 1e9, TBps = 1e12;

std::string data(const std::string& rel) {
  return std::string(GPUPROBE_TEST_DATA_DIR) + "/real/gpu-benches/" + rel;
}

FootprintFit fit_cache(const std::string& gpu) {
  return fit_footprint_sweep(footprint_points(read_gpubenches_cache(data("gpu-cache/" + gpu + ".txt"))));
}
FootprintFit fit_l2(const std::string& gpu) {
  return fit_footprint_sweep(footprint_points(read_gpubenches_l2_cache(data("gpu-l2-cache/" + gpu + ".txt"))));
}

}  // namespace

TEST_CASE("gpu-cache: the per-SM L1 rate is ~128 B/clk on V100/A100/H100, ~64 on A40/L40",
          "[bandwidth_real]") {
  struct Gpu {
    const char* file;
    int sms;
    double clock_mhz;
    double bytes_per_clk;
  };
  // SM counts and clocks, docs/FIGURES.md, table "GPUs" (and the files' clock lines):
  //   V100 PCIe: 80 SMs, 1380 MHz (PCIe boost; P [MT4G] 80 SM, D [TPU-DB] clocks)
  //   A100 80GB: 108 SMs, 1410 MHz (D [GLK])
  //   H100 PCIe: 114 SMs, 1755 MHz (P [CC-H100] 114 SM/1755 MHz)
  //   A40: 84 SMs (M [GB24 stream]: threads / blockSize), 1740 MHz (measured run clock)
  //   L40: 142 SMs (M [GB24] stream threads / blockSize), 2490 MHz (the file's clock line)
  const Gpu gpus[] = {{"v100", 80, 1380, 128},     {"a100_80", 108, 1410, 128},
                      {"h100_pcie", 114, 1755, 128}, {"a40", 84, 1740, 64},
                      {"l40", 142, 2490, 64}};
  for (const Gpu& g : gpus) {
    INFO(g.file);
    const FootprintFit fit = fit_cache(g.file);
    REQUIRE(fit.levels.size() >= 2);
    const BandwidthLevel& l1 = fit.levels[0];
    const double per_sm_per_clk = l1.bandwidth_bytes_per_s / g.sms / (g.clock_mhz * 1e6);
    CHECK(per_sm_per_clk == Approx(g.bytes_per_clk).epsilon(0.05));
    CHECK(l1.confidence > 0.8);
    // The L1 ends between 100 and 240 KiB on all five (FIGURES.md: L1 ends 118-135 kB V100,
    // 144-170 A100, 216-239 H100, 96-108 A40, 79-96 L40, from latency curves).
    CHECK(l1.end_bytes > 100 * KiB);
    CHECK(l1.end_bytes < 240 * KiB);
    CHECK(fit.levels[1].bandwidth_bytes_per_s < 0.5 * l1.bandwidth_bytes_per_s);
  }
  // The two clocks in the A40 and L40 files agree with the figures used above.
  CHECK(read_gpubenches_cache(data("gpu-cache/l40.txt")).clock_mhz_samples.front() == 2490);
  CHECK(read_gpubenches_cache(data("gpu-cache/a40.txt")).clock_mhz_samples.back() == 1740);
}

TEST_CASE("gpu-cache: on A100 and H100 the L2 level ends at one partition (20 / 25 MiB)",
          "[bandwidth_real]") {
  // All SMs read one buffer: each partition holds its own copy, so the L2 holds one partition's
  // worth (FIGURES.md "L2 partition seen by one SM": A100 20 MiB of 40, H100 25 MiB of 50).
  for (const auto& [gpu, partition] : {std::pair{"a100_80", 20 * MiB}, std::pair{"h100_pcie", 25 * MiB}}) {
    INFO(gpu);
    const FootprintFit fit = fit_cache(gpu);
    REQUIRE(fit.levels.size() == 3);
    const BandwidthLevel& l2 = fit.levels[1];
    CHECK(l2.end_lo_bytes <= partition);
    CHECK(l2.end_hi_bytes >= partition);
    CHECK(l2.end_bytes == Approx(partition).epsilon(0.15));
    CHECK(fit.levels[2].bandwidth_bytes_per_s < 0.7 * l2.bandwidth_bytes_per_s);
  }
}

TEST_CASE("gpu-l2-cache: L2 plateaus, the drop past one partition on A100/H100, DRAM tails",
          "[bandwidth_real]") {
  struct Gpu {
    const char* file;
    double l2_bytes_per_s;       // FIGURES.md, table "Bandwidth" (M [GB24]): L2 column
    double dram_bytes_per_s;     // FIGURES.md: "l2-cache tail"
    double partition_bytes;      // one L2 partition (0: not split)
    double l2_bytes;             // the whole L2 (FIGURES.md, table "GPUs")
  };
  const Gpu gpus[] = {
      {"a100_80", 5.4 * TBps, 1.73 * TBps, 20 * MiB, 40 * MiB},
      {"h100_pcie", 7.0 * TBps, 1.99 * TBps, 25 * MiB, 50 * MiB},
      {"h200", 9.85 * TBps, 3.89 * TBps, 25 * MiB, 50 * MiB},
      {"l40", 5.2 * TBps, 0.82 * TBps, 0, 96 * MiB},
  };
  for (const Gpu& g : gpus) {
    INFO(g.file);
    const FootprintFit fit = fit_l2(g.file);
    REQUIRE(fit.levels.size() == 2);
    const BandwidthLevel& l2 = fit.levels[0];
    CHECK(l2.bandwidth_bytes_per_s == Approx(g.l2_bytes_per_s).epsilon(0.05));
    CHECK(fit.levels[1].bandwidth_bytes_per_s == Approx(g.dram_bytes_per_s).epsilon(0.05));
    CHECK(fit.levels[1].bandwidth_bytes_per_s < 0.5 * l2.bandwidth_bytes_per_s);
    if (g.partition_bytes > 0) {
      // Blocks re-read slices shared across SMs: the level holds past one partition and drops
      // before the whole L2.
      CHECK(l2.end_lo_bytes > g.partition_bytes);
      CHECK(l2.end_hi_bytes <= g.l2_bytes);
    } else {
      CHECK(l2.end_lo_bytes <= g.l2_bytes);
      CHECK(l2.end_hi_bytes >= g.l2_bytes);
    }
  }
}

TEST_CASE("gpu-stream: DRAM plateaus (init / read / triad) within 5% of the README",
          "[bandwidth_real]") {
  struct Gpu {
    const char* file;
    double init, read, triad;    // GB/s, data/real/README.md "Bandwidth files"
    bool read_still_rising;      // the read column grows to the last row
  };
  const Gpu gpus[] = {
      {"v100", 895, 866, 814, true},          {"a100_40", 1505, 1490, 1375, true},
      {"a100_80", 1897, 1769, 1759, true},    {"h100_pcie", 2018, 1942, 1832, true},
      {"h200", 3898, 2756, 3534, true},       {"l40", 846, 844, 803, false},
      {"a40", 679, 679, 663, false},
  };
  for (const Gpu& g : gpus) {
    INFO(g.file);
    const auto file = read_gpubenches_stream(data("gpu-stream/" + std::string(g.file) + ".txt"));
    ConcurrencyFitOptions o;
    o.sm_count = file.sm_count;
    // One double per thread and array read; proportional to the bytes in flight per SM.
    const auto fit = [&](const char* kernel) {
      return fit_concurrency_sweep(concurrency_points(file, kernel, 8), o);
    };
    const auto init = fit("init"), read = fit("read"), triad = fit("triad");
    CHECK(init.peak_bandwidth_bytes_per_s == Approx(g.init * GBps).epsilon(0.05));
    CHECK(read.peak_bandwidth_bytes_per_s == Approx(g.read * GBps).epsilon(0.05));
    CHECK(triad.peak_bandwidth_bytes_per_s == Approx(g.triad * GBps).epsilon(0.05));
    CHECK_FALSE(init.still_rising);
    CHECK(read.still_rising == g.read_still_rising);
    if (g.read_still_rising) CHECK(read.confidence < init.confidence);
    CHECK(init.crossing_measured);
    CHECK(init.bytes_in_flight_per_sm < read.bytes_in_flight_per_sm);  // stores need less
    // The loaded-latency model, run as the simulator runs it, reproduces each measured curve.
    for (const auto* f : {&init, &read, &triad}) CHECK(f->model_rms_rel_bandwidth_residual < 0.05);
  }
  // SM counts from threads / blockSize (FIGURES.md takes the A40, L40 and H200 ones from here).
  CHECK(read_gpubenches_stream(data("gpu-stream/a40.txt")).sm_count == 84);
  CHECK(read_gpubenches_stream(data("gpu-stream/l40.txt")).sm_count == 142);
  CHECK(read_gpubenches_stream(data("gpu-stream/h200.txt")).sm_count == 132);
}

TEST_CASE("gpu-stream: the L40 triad sags at the highest block sizes", "[bandwidth_real]") {
  const auto file = read_gpubenches_stream(data("gpu-stream/l40.txt"));
  const auto fit = fit_concurrency_sweep(concurrency_points(file, "triad", 8), {file.sm_count});
  CHECK(fit.sag_points == 2);
  CHECK(fit.sag_rel > 0.03);
  CHECK(fit.peak_bandwidth_bytes_per_s == Approx(803 * GBps).epsilon(0.01));
}

TEST_CASE("gpu-strides: the bank-conflict structure of 4- and 8-byte loads", "[bandwidth_real]") {
  struct Gpu {
    const char* file;
    double float_peak, double_peak;   // B/clk/SM read off the files (stride 0 and 1)
  };
  const Gpu gpus[] = {{"a100", 126, 128}, {"a40", 64, 32}, {"h200", 126, 128}};
  for (const Gpu& g : gpus) {
    const auto file = read_gpubenches_strides(data("gpu-strides/" + std::string(g.file) + ".txt"));
    for (int word : {4, 8}) {
      INFO(g.file << ", " << word << "-byte words");
      BankConflictOptions o;
      o.word_bytes = word;
      const auto fit = fit_bank_conflicts(stride_points(file, word), o);
      CHECK(fit.peak_bytes_per_cycle_per_sm == Approx(word == 4 ? g.float_peak : g.double_peak).epsilon(0.05));
      CHECK(fit.faster == 0);   // no stride beats the banks
      for (const auto& s : fit.strides) {
        INFO("stride " << s.stride_elements);
        // Power-of-two strides are bank-bound: the measured degree is the predicted one.
        if (s.stride_elements >= 2 && (s.stride_elements & (s.stride_elements - 1)) == 0) {
          CHECK(s.verdict == "banks");
          CHECK(s.degree == std::lround(s.predicted_slowdown));
        }
      }
    }
    // The profiler's L1 data-pipe wavefronts per warp load are the banks' wavefronts, row by row.
    int rows = 0;
    for (const auto& r : file.rows) {
      if (r.mode != "stride") continue;
      INFO(g.file << " " << r.type << " stride " << r.stride);
      REQUIRE(!r.counters.empty());
      CHECK(r.counters[0] == Approx(bank_wavefronts(r.stride, r.word_bytes)).epsilon(0.02));
      ++rows;
    }
    CHECK(rows >= 32);
  }
}

TEST_CASE("gpu-strides: the A40's 64 B/clk path hides 2-way conflicts of floats", "[bandwidth_real]") {
  const auto file = read_gpubenches_strides(data("gpu-strides/a40.txt"));
  const auto fit = fit_bank_conflicts(stride_points(file, 4));
  CHECK(fit.base_cycles == 2);
  for (const auto& s : fit.strides) {
    if (s.stride_elements == 2) CHECK(s.degree == 1);   // gcd 2, hidden
    if (s.stride_elements == 4) CHECK(s.degree == 2);   // gcd 4, half of it shows
    if (s.stride_elements == 32) CHECK(s.degree == 16);
  }
}

}  // namespace GPUPROBE_TEST_FILE
