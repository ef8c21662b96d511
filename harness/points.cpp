#include "harness/points.hpp"

#include <cmath>

#include "harness/error.hpp"
#include "harness/self_check.hpp"
#include "harness/stats.hpp"
#include "harness/wait_timeout.hpp"

namespace gpuprobe {

void measure_points(ProbeContext& ctx, const std::vector<PlannedPoint>& points) {
  ctx.start_measuring();
  measure_clock(ctx, "before");
  // A failed self-check fails its point only: the point holds the evidence instead of timing.
  // A wait that timed out lost the context: its point is stored with the kernel's record (`store`:
  // add or replace), then the probe ends (a new process goes on after it without measuring it
  // again: ProbeContext::resumed_point).
  std::string label;  // of the point just measured: its axes' values if its self-check failed
  auto label_of = [&](const PlannedPoint& planned) {
    const std::string l = point_label(planned.axes, " ");
    return l.empty() ? "point " + std::to_string(ctx.series().size()) : l;
  };
  auto measure = [&](const PlannedPoint& planned, std::size_t index, auto&& store) {
    nlohmann::json point;
    label.clear();
    try {
      if (ctx.point_hook()) ctx.point_hook()(planned.axes);
      point = planned.measure();
    } catch (const SelfCheckFailed& failed) {
      point = nlohmann::json::object();
      point["self_check"] = ctx.failed_self_check(planned.axes, failed);
      label = label_of(planned);
    } catch (const WaitTimedOut& timed_out) {
      point = nlohmann::json::object();
      point["self_check"] =
          ctx.failed_self_check(planned.axes, SelfCheckFailed(timed_out.reason(), timed_out.evidence()));
      for (const auto& [k, v] : planned.axes.items()) point[k] = v;
      ctx.note_self_check(index, label_of(planned));
      store(std::move(point));
      throw;
    }
    for (const auto& [k, v] : planned.axes.items()) point[k] = v;
    return point;
  };
  auto add = [&](nlohmann::json point) { ctx.add_point(std::move(point)); };
  // Points an interrupted run measured already (--resume) are kept as they are.
  std::vector<bool> kept(points.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (const nlohmann::json* earlier = ctx.resumed_point(points[i].axes)) {
      kept[i] = true;
      if (wait_timed_out(*earlier)) ctx.note_self_check(i, label_of(points[i]));  // still failed
      ctx.add_point(*earlier);
    } else {
      nlohmann::json point = measure(points[i], i, add);
      ctx.note_self_check(i, label);  // before add_point: an interrupt there keeps the point
      ctx.add_point(std::move(point));
    }
  }

  // Clock outliers: a point measured while the clock was elsewhere is re-measured once.
  std::vector<double> clocks;
  for (const auto& p : ctx.series())
    if (p.value("region_sm_clock_mhz", 0.0) > 0) clocks.push_back(p["region_sm_clock_mhz"]);
  if (!clocks.empty()) {
    const double median_mhz = stats::median(clocks);
    ctx.extra()["median_region_sm_clock_mhz"] = median_mhz;
    auto off = [&](const nlohmann::json& p) {
      const double mhz = p.value("region_sm_clock_mhz", 0.0);
      return mhz > 0 && std::abs(mhz - median_mhz) > kClockOutlierRel * median_mhz;
    };
    uint64_t remeasured = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (kept[i] || !off(ctx.series()[i])) continue;
      nlohmann::json again =
          measure(points[i], i, [&](nlohmann::json point) { ctx.replace_point(i, std::move(point)); });
      again["remeasured_for_clock"] = true;
      again["clock_outlier"] = off(again);
      ctx.note_self_check(i, label);
      ctx.replace_point(i, std::move(again));
      ++remeasured;
    }
    ctx.extra()["clock_outliers_remeasured"] = remeasured;
  }
  measure_clock(ctx, "after");
}

double measure_clock(ProbeContext& ctx, const char* when) {
  const double mhz = ctx.device().measure_sm_clock_mhz(200'000);
  ctx.extra()["sm_clock_mhz"][when] = mhz;
  return mhz;
}

double write_point_repeats(nlohmann::json& p, ProbeContext& ctx, const RepeatOutcome& outcome,
                           uint64_t iterations) {
  const double clock_mhz = ctx.device().measure_sm_clock_mhz(kPointClockSpinNs);
  p["repeats"] = outcome.summary.n;
  p["converged"] = outcome.converged;
  p["iterations"] = iterations;
  p["region_sm_clock_mhz"] = clock_mhz;
  return clock_mhz;
}

void write_latency(nlohmann::json& p, const stats::Summary& sum, double clock_mhz) {
  p["latency_cycles"] = sum.median;
  p["ci95_cycles"] = {sum.median_ci95.lo, sum.median_ci95.hi};
  p["latency_ns"] = clock_mhz > 0 ? nlohmann::json(sum.median / clock_mhz * 1000)
                                  : nlohmann::json(nullptr);
}

void write_rate(nlohmann::json& p, ProbeContext& ctx, const std::string& unit,
                const stats::Summary& sum, double spread_min, double spread_max, double clock_mhz) {
  const double sms = ctx.device().info().sm_count;
  p[unit + "_per_clk_per_sm"] = sum.median;
  p["ci95_" + unit + "_per_clk_per_sm"] = {sum.median_ci95.lo, sum.median_ci95.hi};
  p["sm_spread_" + unit + "_per_clk"] = {spread_min, spread_max};
  p[unit + "_per_s"] = sum.median * sms * clock_mhz * 1e6;
}

uint64_t read_iterations(const Params& params, uint64_t max_iterations) {
  const uint64_t n = params.get_u64("iterations");
  if (n == 0 || n > max_iterations)
    throw Error("--iterations must be 1 to " + std::to_string(max_iterations));
  return n;
}

uint32_t read_block_threads(const Params& params, uint32_t max_block_threads) {
  const uint64_t threads = params.get_u64("block-threads");
  if (threads == 0 || threads % 32 != 0 || threads > max_block_threads)
    throw Error("--block-threads must be a multiple of 32 from 32 to " +
                std::to_string(max_block_threads));
  return static_cast<uint32_t>(threads);
}

uint32_t read_blocks_per_sm(const Params& params) {
  const uint64_t per_sm = params.get_u64("blocks-per-sm");
  if (per_sm == 0 || per_sm > 32) throw Error("--blocks-per-sm must be 1 to 32");
  return static_cast<uint32_t>(per_sm);
}

}  // namespace gpuprobe
