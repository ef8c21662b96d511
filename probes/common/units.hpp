// A launch's units as every op-table family's kernels report them, and what the host makes of
// them, written once. A unit is what one stamp covers (a warp, a warpgroup, a CTA): its kernel
// writes {start_cycles, end_cycles, smid, ran} (%clock64 around its loop, its SM, 1 once done)
// followed by the family's own results. Clocks are compared only within one SM.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "harness/self_check.hpp"
#include "harness/error.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/launch_config.hpp"
#include "harness/sim/sim_device.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

struct SmSpan {
  uint64_t first = UINT64_MAX, last = 0;
  uint32_t units = 0;
  double cycles() const { return double(last - first); }
};

// Units of one launch by SM (per SM its first start, last end and unit count), checked: every unit
// reported, ran, and ended after it started, else SelfCheckFailed. `unit` names them ("warp", "CTA").
template <class Out>
std::map<uint32_t, SmSpan> check_units(const std::vector<Out>& units, uint64_t expected,
                                       const std::string& kernel, const char* unit) {
  if (units.size() != expected)
    throw SelfCheckFailed(kernel + " reported " + std::to_string(units.size()) + " " + unit + "s, expected " +
                          std::to_string(expected));
  std::map<uint32_t, SmSpan> per_sm;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const Out& o = units[i];
    if (o.ran != 1 || !(o.end_cycles > o.start_cycles))
      throw SelfCheckFailed(kernel + " " + unit + " " + std::to_string(i) +
                            (o.ran != 1 ? " did not run" : " ended before it started"));
    SmSpan& s = per_sm[o.smid];
    s.first = std::min(s.first, o.start_cycles);
    s.last = std::max(s.last, o.end_cycles);
    ++s.units;
  }
  return per_sm;
}

// The mean units per SM that ran some.
inline double units_per_sm(const std::map<uint32_t, SmSpan>& per_sm) {
  double total = 0;
  for (const auto& [sm, s] : per_sm) total += s.units;
  return per_sm.empty() ? 0 : total / double(per_sm.size());
}

struct SmRates {
  double median = 0, min = 0, max = 0;
};

// The median, slowest and fastest SM's rate(span).
template <class Rate>
SmRates sm_rates(const std::map<uint32_t, SmSpan>& per_sm, Rate rate) {
  std::vector<double> rates;
  for (const auto& [sm, s] : per_sm) rates.push_back(rate(s));
  if (rates.empty()) return {};
  return {stats::median(rates), *std::min_element(rates.begin(), rates.end()),
          *std::max_element(rates.begin(), rates.end())};
}

// The result of a launch of a chain family (compute, atomics, sync): each number per the
// family's unit of work.
struct ChainResult {
  uint64_t ops_per_chain = 0;
  double latency_cycles = 0;      // latency launches: cycles per op
  double latency_cycles_max = 0;  // the slowest unit's
  double ops_per_clk_per_sm = 0;  // throughput launches: the median SM's, and the spread
  double ops_per_clk_per_sm_min = 0;
  double ops_per_clk_per_sm_max = 0;
  uint32_t sms = 0;               // SMs that ran units
  double warps_per_sm = 0;        // mean over those SMs
  LaunchRecord launch;
};

// The result of a launch whose every unit ran ops_per_chain ops per chain: the units checked
// (check_units), the SMs that ran some and their mean units, the median and the slowest unit's
// cycles per op, and the median, slowest and fastest SM's rate(span).
template <class Out, class Rate>
ChainResult summarize_units(const std::vector<Out>& units, uint64_t expected, const std::string& kernel,
                            const char* unit, uint64_t ops_per_chain, Rate rate) {
  const auto per_sm = check_units(units, expected, kernel, unit);
  ChainResult r;
  r.ops_per_chain = ops_per_chain;
  std::vector<double> latencies;
  for (const Out& o : units)
    latencies.push_back(double(o.end_cycles - o.start_cycles) / double(ops_per_chain));
  r.latency_cycles = stats::median(latencies);
  r.latency_cycles_max = *std::max_element(latencies.begin(), latencies.end());
  r.sms = static_cast<uint32_t>(per_sm.size());
  r.warps_per_sm = units_per_sm(per_sm);
  const SmRates rates = sm_rates(per_sm, rate);
  r.ops_per_clk_per_sm = rates.median, r.ops_per_clk_per_sm_min = rates.min;
  r.ops_per_clk_per_sm_max = rates.max;
  return r;
}

// `r`, with the launch it came from.
inline ChainResult with_launch(ChainResult r, LaunchRecord launch) {
  r.launch = std::move(launch);
  return r;
}

// `v` in hexadecimal, without the 0x (the self-checks' messages).
inline std::string hex_of(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(v));
  return text;
}

// A launch of `blocks` blocks of `block_threads` threads, with `smem_bytes` of dynamic shared
// memory, in clusters of `cluster_size` CTAs (0: no cluster attribute).
inline LaunchConfig launch_config(uint32_t blocks, uint32_t block_threads, uint64_t smem_bytes = 0,
                                  uint32_t cluster_size = 0) {
  LaunchConfig c{.grid = {blocks, 1, 1}, .block = {block_threads, 1, 1}, .dynamic_smem_bytes = smem_bytes};
  if (cluster_size != 0) c.cluster = Dim3{cluster_size, 1, 1};
  return c;
}

// kernel(args, out) on the GPU with `count` zero-filled Outs, which come back; a kernel that
// takes more arguments before `out` gets them from `more` (kernel(args, more..., out): async's
// TMA descriptor).
template <class Out, class Args, class... More>
std::vector<Out> run_units(KernelRunner& gpu, const void* kernel, const std::string& name,
                           const LaunchConfig& config, Args args, uint64_t count, LaunchRecord& record,
                           More... more) {
  DeviceBuffer out = gpu.alloc(count * sizeof(Out));
  void* out_ptr = out.get();
  void* kernel_args[] = {&args, &more..., &out_ptr};
  record = gpu.launch(kernel, name, config, kernel_args);
  return gpu.download<Out>(out, count);
}

// The simulator's units of a launch of `blocks` blocks of `per_block` units: block b runs on SM
// b % SMs; SM s takes cycles(s, its units) x max(0.5, 1 + noise) cycles (noise ~ N(0, the
// preset's noise_rel), drawn per SM in order from `seed`), and each of its units gets that span.
template <class Out, class Cycles>
std::vector<Out> simulate_units(const sim::Preset& p, uint32_t blocks, uint32_t per_block, uint64_t seed,
                                Cycles cycles) {
  const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
  std::vector<uint32_t> units_on(sms, 0);
  for (uint32_t b = 0; b < blocks; ++b) units_on[b % sms] += per_block;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, p.noise_rel);
  std::vector<double> sm_cycles(sms, 0);
  for (uint32_t s = 0; s < sms; ++s)
    sm_cycles[s] = cycles(s, units_on[s]) * std::max(0.5, 1.0 + noise(rng));
  std::vector<Out> out(uint64_t(blocks) * per_block);
  for (uint64_t u = 0; u < out.size(); ++u) {
    const uint32_t sm = static_cast<uint32_t>((u / per_block) % sms);
    out[u].smid = sm;
    out[u].start_cycles = sim::kStartCycles;
    out[u].end_cycles = sim::kStartCycles + static_cast<uint64_t>(sm_cycles[sm] + 0.5);
    out[u].ran = 1;
  }
  return out;
}

}  // namespace gpuprobe::probes
