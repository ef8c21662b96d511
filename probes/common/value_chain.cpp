#include "probes/common/value_chain.hpp"

#include <optional>

#include "harness/error.hpp"

namespace gpuprobe::probes {

LaunchConfig ValueChainLaunch::config() const {
  LaunchConfig c;
  c.grid = Dim3{blocks, 1, 1};
  c.block = Dim3{block_threads, 1, 1};
  return c;
}

ChainResult summarize_value_chains(const ValueChainLaunch& l, const std::vector<ValueChainOut>& warps,
                                   const ValueChainError& error) {
  ChainResult r;
  r.ops_per_chain = l.ops_per_chain();
  const auto per_sm = check_units(warps, l.warps(), l.kernel, "warp");
  std::optional<uint64_t> accepted[kValueChainThroughputChains];  // warps normally agree: check each once
  for (std::size_t w = 0; w < warps.size(); ++w)
    for (uint32_t k = 0; k < l.chains(); ++k) {
      if (accepted[k] && *accepted[k] == warps[w].result[k]) continue;
      accepted[k] = warps[w].result[k];
      const std::string why = error(k, r.ops_per_chain, warps[w].result[k]);
      if (!why.empty()) throw Error("self-check failed: " + l.kernel + " warp " + std::to_string(w) + ": " + why);
    }
  r.sms = static_cast<uint32_t>(per_sm.size());
  r.warps_per_sm = units_per_sm(per_sm);
  if (l.kind == Kind::latency) {
    r.latency_cycles = double(warps[0].end_cycles - warps[0].start_cycles) / double(r.ops_per_chain);
  } else {
    const SmRates rates = sm_rates(per_sm, [&](const SmSpan& span) {
      return double(span.units) * 32 * l.chains() * double(r.ops_per_chain) / span.cycles();
    });
    r.ops_per_clk_per_sm = rates.median, r.ops_per_clk_per_sm_min = rates.min, r.ops_per_clk_per_sm_max = rates.max;
  }
  return r;
}

ChainResult run_value_chains(KernelRunner& gpu, const void* kernel, const ValueChainLaunch& l, ValueChainArgs args,
                             const ValueChainError& error) {
  args.iterations = l.iterations;
  args.store = 1;
  LaunchRecord record;
  const auto warps = run_units<ValueChainOut>(gpu, kernel, l.kernel, l.config(), args, l.warps(), record);
  ChainResult r = summarize_value_chains(l, warps, error);
  r.launch = record;
  return r;
}

}  // namespace gpuprobe::probes
