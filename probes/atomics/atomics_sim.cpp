// AtomicsOps on the simulated device: each op's latency and rate in each pattern come from the
// preset's atomics table (harness/sim/preset.hpp AtomicOpModel, presets/atomics_costs.cpp). On
// every SM a launch takes the longer of one chain's ops x latency and the SM's threads x chains x
// ops over the rate; blocks go to SMs round robin. The words are the host's expectation (a CAS on
// a shared word succeeds once per round: ops successes per warp; exch leaves the last chain's
// token), so the self-check passes; the timing carries the preset's relative noise. Everything then
// goes through the same summarize_atomics_launch as a real GPU's records.
#include <algorithm>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/atomics/atomics_ops.hpp"

namespace gpuprobe::probes {
namespace {

using atomics::AtomicsWarpOut;

class SimAtomicsOps final : public AtomicsOps {
 public:
  explicit SimAtomicsOps(sim::SimDevice& device) : device_(device) {}

  AtomicsResult run(const AtomicsSetup& setup, const AtomicsRun& run) override {
    const sim::Preset& p = device_.preset();
    if (p.atomics.empty()) throw OpsUnavailable("the simulated " + p.name + " has no atomics model");
    check_atomics_fits(setup, device_.info());
    const atomics::AtomicsOpInfo& info = atomics_info(setup.op);
    const std::string pattern = atomics_pattern_name(setup.pattern);
    const auto model = sim::model_of<AtomicsOpUnavailable>(
        p, p.atomics, std::string(info.name) + " (" + pattern + ")",
        [&](const sim::AtomicOpModel& m) { return m.op == info.name && m.pattern == pattern; });
    const std::string kernel = atomics_kernel_name(setup.op, setup.kind);
    if (run.iterations == 0) throw Error(kernel + ": no iterations");

    const uint32_t chains = atomics_chains(setup.kind);
    const uint64_t ops = run.iterations * atomics::kAtomicsOpsPerIteration;
    const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
    const uint32_t wpb = setup.block_threads / 32;
    std::vector<uint32_t> warps_on(sms, 0);
    for (uint32_t b = 0; b < setup.blocks; ++b) warps_on[b % sms] += wpb;
    std::mt19937_64 rng(std::hash<std::string>{}(kernel + pattern) ^ setup.blocks ^
                        (uint64_t(setup.block_threads) << 20) ^ (run.iterations << 32) ^ ++launches_);
    std::normal_distribution<double> noise(0.0, p.noise_rel);
    std::vector<double> sm_cycles(sms, 0);
    for (uint32_t s = 0; s < sms; ++s) {
      const double chain = double(ops) * model->latency_cycles;
      const double issue = warps_on[s] * 32.0 * chains * double(ops) / model->ops_per_clk_per_sm;
      sm_cycles[s] = std::max(chain, issue) * std::max(0.5, 1.0 + noise(rng));
    }
    const bool cas_shared = info.operation == atomics::AtomicsOperation::cas &&
                            setup.pattern != AtomicsPattern::distinct;
    std::vector<AtomicsWarpOut> warps(uint64_t(setup.blocks) * wpb);
    for (uint64_t w = 0; w < warps.size(); ++w) {
      const uint32_t sm = static_cast<uint32_t>((w / wpb) % sms);
      AtomicsWarpOut& o = warps[w];
      o.smid = sm;
      o.start_cycles = sim::kStartCycles;
      o.end_cycles = sim::kStartCycles + static_cast<uint64_t>(sm_cycles[sm] + 0.5);
      o.ran = 1;
      if (run.store)
        for (uint32_t k = 0; k < chains; ++k) o.hits[k] = static_cast<uint32_t>(cas_shared ? ops : 32 * ops);
    }
    std::vector<uint64_t> words;
    if (run.store) {
      words = atomics_expected_words(setup, run, warps);
      if (info.operation == atomics::AtomicsOperation::exch) {
        // Each word keeps the last token of the highest chain on it.
        const uint64_t thread_chains = warps.size() * 32 * chains;
        const uint64_t mask = info.bytes == 8 ? ~uint64_t{0} : 0xffffffffu;
        for (uint64_t tc = 0; tc < thread_chains; ++tc) {
          const uint64_t thread = tc / chains;
          words.at(atomics::atomics_word(setup.pattern, info.shared, chains, thread / 32, wpb,
                                         thread % 32, tc % chains)) =
              atomics::atomics_exch_token(tc, ops, ops - 1) & mask;
        }
      }
    }
    AtomicsResult r = summarize_atomics_launch(setup, run, warps, words);
    r.launch.kernel = kernel;
    r.launch.config.grid = Dim3{setup.blocks, 1, 1};
    r.launch.config.block = Dim3{setup.block_threads, 1, 1};
    r.launch.config.dynamic_smem_bytes = atomics_dynamic_smem_bytes(setup);
    return r;
  }

 private:
  sim::SimDevice& device_;
  uint64_t launches_ = 0;
};

const OpsRegistration<AtomicsOps> kRegistration("sim", __FILE__, [](Device& d) {
  return std::make_unique<SimAtomicsOps>(dynamic_cast<sim::SimDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
