// Roofline fit on the real FP32 intensity sweeps from te42kyfo/gpu-benches gpu-roofline
// (tests/data/real/gpu-benches/gpu-roofline/PROVENANCE.md, which says where each expected value
// comes from). Ceilings within 5%; the compute ceiling is compared at the clock recorded on the
// reference's line (FLOP/clk x MHz), since the L40 and A40 runs change their clock.
#include <catch2/catch.hpp>

#include <string>

#include "analysis/gpubenches_import.hpp"
#include "analysis/roofline_fit.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe::analysis;

namespace {

std::string data(const std::string& file) {
  return std::string(GPUPROBE_TEST_DATA_DIR) + "/real/gpu-benches/gpu-roofline/" + file;
}

struct Reference {
  const char* file;
  int sms;                       // FIGURES.md section 1
  double bandwidth_bytes_per_s;  // PROVENANCE.md: FIGURES 4 "roofline", A40 its stream plateau
  double flops_per_s;            // FIGURES 5a FP32 (max) of the roofline kernel
  double clock_mhz;              // the clock recorded on the line of that maximum
};

constexpr Reference kRefs[] = {
    {"alex_a100_40.txt", 108, 1372e9, 19.19e12, 1410},
    {"alex_a40.txt", 84, 679e9, 23.6e12, 1725},
    {"genoa_l40.txt", 142, 845e9, 39.7e12, 1740},
    {"h200.txt", 132, 3770e9, 42.6e12, 1980},
};

}  // namespace

TEST_CASE("gpu-roofline: bandwidth and FP32 ceilings within 5% of the reference, at the recorded clock",
          "[roofline_real]") {
  for (const auto& r : kRefs) {
    INFO(r.file);
    RooflineFitOptions o;
    o.sm_count = r.sms;
    const RooflineFit fit = fit_roofline(intensity_points(read_gpubenches_roofline(data(r.file))), o);
    for (const auto& why : fit.reasons) INFO(why);
    REQUIRE(fit.bandwidth.found);
    REQUIRE(fit.compute.found);
    REQUIRE(fit.clocked);
    CHECK(fit.bandwidth_bytes_per_s == Approx(r.bandwidth_bytes_per_s).epsilon(0.05));
    CHECK(fit.flops_per_clk * r.clock_mhz * 1e6 == Approx(r.flops_per_s).epsilon(0.05));
    CHECK(fit.flops_per_clk_per_sm == Approx(fit.flops_per_clk / r.sms));
    CHECK(fit.ridge_flop_per_byte == Approx(fit.flops_per_s / fit.bandwidth_bytes_per_s));
    CHECK(fit.confidence > 0.5);
  }
}
TEST_CASE("gpu-roofline: the L40's two devices, capped differently, give one FLOP per clock",
          "[roofline_real]") {
  const auto rows = read_gpubenches_roofline(data("genoa_l40.txt"));
  REQUIRE(rows.size() == 136);
  CHECK(rows.front().sm_clock_mhz == 2490);
  CHECK(rows.front().watts == 199);
  CHECK(rows.front().temperature_c == 42);
  const RooflineFit d0 = fit_roofline(intensity_points(rows, 0));
  const RooflineFit d1 = fit_roofline(intensity_points(rows, 1));
  REQUIRE(d0.compute.found);
  REQUIRE(d1.compute.found);
  // Device 0 sustains ~1.5-1.7 GHz compute-bound, device 1 ~2.1-2.2 GHz: FLOP/s differ by ~25%,
  // FLOP/clk do not.
  CHECK(d1.max_flops_per_s > 1.2 * d0.max_flops_per_s);
  CHECK(d0.flops_per_clk == Approx(d1.flops_per_clk).epsilon(0.02));
  CHECK(d0.throttled);
  CHECK(d0.stated_clock_mhz < 1800);
}

}  // namespace GPUPROBE_TEST_FILE
