// AsyncOps on the simulated device. A copy's latency and its engine's rate come from the preset's
// async table (harness/sim/preset.hpp AsyncCopyModel, presets/async_costs.cpp): a latency launch
// takes copies x latency; on every SM a throughput launch moves its CTAs' bytes at the least of the
// engine's peak, the SM's share of the source level's bandwidth (the preset's L2 or DRAM) and the
// bytes in flight over the copy's latency (Little's law). The TMA chase walks the simulator's
// caches from the L2 (SimDevice::walk, as memory/chase .cg does) and adds the TMA's extra cycles
// per hop. Blocks go to SMs round robin. The CTAs' fingerprints are the host's reference, so the
// self-check passes; the timing carries the preset's relative noise. Everything then goes through
// the same summarize_async_launch as a real GPU's records.
#include <algorithm>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/async/async_ops.hpp"
#include "probes/sync/sync.hpp"

namespace gpuprobe::probes {
namespace {

using async::AsyncCtaOut;

class SimAsyncOps final : public AsyncOps {
 public:
  explicit SimAsyncOps(sim::SimDevice& device) : device_(device) {}

  AsyncResult run(const AsyncSetup& setup, const AsyncRun& run) override {
    const sim::Preset& p = device_.preset();
    if (p.async_copy.empty()) throw OpsUnavailable("the simulated " + p.name + " has no async-copy model");
    check_async_fits(setup, device_.info());
    const auto& info = async_info(setup.op);
    const auto model = sim::model_of(
        p, p.async_copy, info.name, [&](const sim::AsyncCopyModel& m) { return m.op == info.name; });
    const std::string kernel = async_kernel_name(setup);
    if (run.iterations == 0) throw Error(kernel + ": no iterations");
    std::mt19937_64 rng(std::hash<std::string>{}(kernel) ^ setup.blocks ^ (setup.footprint_bytes << 8) ^
                        (uint64_t(setup.copy_bytes) << 40) ^ ++launches_);
    std::normal_distribution<double> noise(0.0, p.noise_rel);
    const auto jitter = [&] { return std::max(0.5, 1.0 + noise(rng)); };
    if (setup.kind == AsyncKind::chase) return chase(setup, run, *model, jitter());
    if (setup.kind == AsyncKind::multicast) return multicast(setup, run, *model, jitter);

    const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
    const double bytes = async_copy_bytes(setup);
    const bool from_dram = setup.footprint_bytes > p.info.l2_bytes;
    const double l2 = level_latency(p, "L2");
    const double latency = model->latency_cycles + model->cycles_per_kib * std::max(0.0, bytes / 1024 - 1) +
                           (from_dram ? p.dram_latency_cycles - l2 : 0);
    std::vector<uint32_t> ctas_on(sms, 0);
    for (uint32_t b = 0; b < setup.blocks; ++b) ++ctas_on[b % sms];
    const double level_share = level_bytes_per_clk(p, from_dram ? "DRAM" : "L2") / sms;
    std::vector<double> sm_cycles(sms, 0);
    for (uint32_t s = 0; s < sms; ++s) {
      if (ctas_on[s] == 0) continue;
      const double moved = double(ctas_on[s]) * run.iterations * setup.depth * bytes;
      const double in_flight = async_bytes_in_flight_per_sm(setup, ctas_on[s]);
      double rate = std::min(model->peak_bytes_per_clk_per_sm, in_flight / latency);
      if (level_share > 0) rate = std::min(rate, level_share);
      sm_cycles[s] = std::max(double(run.iterations) * latency, moved / rate) * jitter();
    }
    std::vector<AsyncCtaOut> ctas(setup.blocks);
    for (uint32_t b = 0; b < setup.blocks; ++b) {
      AsyncCtaOut& o = ctas[b];
      o.smid = b % sms;
      o.start_cycles = sim::kStartCycles;
      o.end_cycles = sim::kStartCycles + static_cast<uint64_t>(sm_cycles[o.smid] + 0.5);
      o.ran = 1;
      o.result = run.store ? async_reference_fingerprint(setup, run, b) : 0;
    }
    AsyncResult r = summarize_async_launch(setup, run, ctas);
    describe_launch(setup, r);
    return r;
  }

 private:
  // A round: the cluster barrier (the sync family's table, at the cluster size) and one TMA copy
  // of the box (from the source's level); every CTA of every cluster takes the same rounds.
  template <class Jitter>
  AsyncResult multicast(const AsyncSetup& setup, const AsyncRun& run, const sim::AsyncCopyModel& model,
                        Jitter& jitter) {
    const sim::Preset& p = device_.preset();
    static const SyncCosts kNone;
    const SyncCosts& sync = p.table<SyncCosts>("sync") ? *p.table<SyncCosts>("sync") : kNone;
    const auto barrier =
        std::find_if(sync.begin(), sync.end(), [](const SyncCost& m) { return m.op == "barrier_cluster"; });
    if (barrier == sync.end()) throw Skip("the simulated " + p.name + " has no cluster barrier model");
    const double bytes = async_copy_bytes(setup);
    const double round = model.latency_cycles + model.cycles_per_kib * std::max(0.0, bytes / 1024 - 1) +
                         (setup.footprint_bytes > p.info.l2_bytes ? p.dram_latency_cycles - level_latency(p, "L2") : 0) +
                         sync_latency_cycles(*barrier, setup.cluster_size);
    const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
    std::vector<AsyncCtaOut> ctas(setup.blocks);
    for (uint32_t b = 0; b < setup.blocks; ++b) {
      AsyncCtaOut& o = ctas[b];
      o.smid = b % sms;
      o.start_cycles = sim::kStartCycles;
      o.end_cycles = sim::kStartCycles + static_cast<uint64_t>(double(run.iterations) * round * jitter() + 0.5);
      o.ran = 1;
      o.result = run.store ? async_reference_fingerprint(setup, run, b) : 0;
    }
    AsyncResult r = summarize_async_launch(setup, run, ctas);
    describe_launch(setup, r);
    r.launch.config.cluster = Dim3{setup.cluster_size, 1, 1};
    return r;
  }

  AsyncResult chase(const AsyncSetup& setup, const AsyncRun& run, const sim::AsyncCopyModel& model,
                    double jitter) {
    const Chain chain = async_chase_chain(setup);
    sim::WalkSpec spec;
    spec.from_l1 = false;  // TMA reads through the L2
    spec.phase_hops = {run.warmup, run.iterations};
    spec.keep_each_hop = {false, false};
    const sim::WalkResult walked = device_.walk(chain, spec);
    const double cycles = walked.phase_cycles[1] + double(run.iterations) * model.chase_extra_cycles;
    AsyncCtaOut o{};
    o.smid = 0;
    o.start_cycles = sim::kStartCycles;
    o.end_cycles = sim::kStartCycles + static_cast<uint64_t>(cycles * jitter + 0.5);
    o.ran = 1;
    o.result = static_cast<uint32_t>(chain.offset_bytes[walked.final_slot] / 4);
    AsyncResult r = summarize_async_launch(setup, run, {o}, async_chase_reference(chain, run));
    describe_launch(setup, r);
    return r;
  }

  void describe_launch(const AsyncSetup& setup, AsyncResult& r) const {
    r.launch.kernel = async_kernel_name(setup);
    r.launch.config.grid = Dim3{setup.blocks, 1, 1};
    r.launch.config.block = Dim3{setup.block_threads, 1, 1};
    r.launch.config.dynamic_smem_bytes = async_dynamic_smem_bytes(setup);
  }

  static double level_latency(const sim::Preset& p, const char* level) {
    for (const auto& c : p.caches)
      if (c.name == level) return c.hit_latency_cycles;
    return 0;
  }

  // The whole device's bandwidth at a level in bytes per SM clock (0: no limit known).
  static double level_bytes_per_clk(const sim::Preset& p, const char* level) {
    for (const auto& b : p.bandwidth) {
      if (b.level != level) continue;
      double peak = b.peak_bytes_per_s / (p.info.rated_sm_clock_mhz * 1e6);
      if (b.peak_bytes_per_clk_per_sm > 0) {
        const double ports = b.peak_bytes_per_clk_per_sm * p.info.sm_count;
        peak = peak > 0 ? std::min(peak, ports) : ports;
      }
      return peak;
    }
    return 0;
  }

  sim::SimDevice& device_;
  uint64_t launches_ = 0;
};

const OpsRegistration<AsyncOps> kRegistration("sim", __FILE__, [](Device& d) {
  return std::make_unique<SimAsyncOps>(dynamic_cast<sim::SimDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
