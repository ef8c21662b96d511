// SyncOps on the simulated device: each op's latency (against its swept variable) and rate come
// from the preset's sync table (SyncCost, probes/sync/sync_costs.cpp). On
// every SM a launch takes the longer of one chain's ops x latency and the SM's units (threads,
// warps or CTAs) x chains x ops over the rate; a grid barrier makes every SM wait for the whole
// grid, so every SM takes the chain's time. Blocks go to SMs round robin. The chains' results are
// the host's reference, so the self-check passes; the timing carries the preset's relative noise.
// Everything then goes through the same summarize_sync_launch as a real GPU's records.
#include <algorithm>
#include <random>
#include <string>

#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/sync/sync_ops.hpp"

namespace gpuprobe::probes {
namespace {

using sync::SyncWarpOut;

class SimSyncOps final : public SyncOps {
 public:
  explicit SimSyncOps(sim::SimDevice& device) : device_(device) {}

  SyncResult run(const SyncSetup& setup, const SyncRun& run) override {
    const sim::Preset& p = device_.preset();
    const SyncCosts& costs = op_costs<SyncCost>(p, "sync");
    check_sync_fits(setup, device_.info());
    const sync::SyncOpInfo& info = sync_info(setup.op);
    const SyncCost* model = &op_cost(p, costs, info.name);
    const std::string kernel = sync_kernel_name(setup.op, setup.kind);
    if (run.iterations == 0) throw Error(kernel + ": no iterations");
    if (setup.kind == SyncKind::throughput && !(model->rate > 0))
      throw Skip("the simulated " + p.name + " has no rate for " + info.name);

    const uint32_t chains = sync_chains(setup.op, setup.kind);
    const uint64_t ops = run.iterations * info.ops_per_iteration / chains;
    const uint32_t sms = static_cast<uint32_t>(p.info.sm_count);
    const uint32_t warps_per_block = setup.block_threads / 32;
    std::vector<uint32_t> warps_on(sms, 0);
    for (uint32_t b = 0; b < setup.blocks; ++b) warps_on[b % sms] += warps_per_block;
    const double latency = sync_latency_cycles(*model, sync_sweep_value(setup));
    const double units_per_warp = info.unit == sync::SyncUnit::thread ? 32.0
                                  : info.unit == sync::SyncUnit::warp ? 1.0
                                                                      : 1.0 / warps_per_block;

    std::mt19937_64 rng(std::hash<std::string>{}(kernel) ^ setup.blocks ^
                        (uint64_t(setup.block_threads) << 20) ^ (run.iterations << 32) ^ ++launches_);
    std::normal_distribution<double> noise(0.0, p.noise_rel);
    std::vector<double> sm_cycles(sms, 0);
    for (uint32_t s = 0; s < sms; ++s) {
      const double chain_cycles = double(ops) * latency;
      const double issue_cycles =
          info.shape == sync::SyncShape::grid
              ? 0
              : warps_on[s] * units_per_warp * chains * double(ops) / model->rate;
      sm_cycles[s] = std::max(chain_cycles, issue_cycles) * std::max(0.5, 1.0 + noise(rng));
    }
    const uint32_t checked =
        info.shape == sync::SyncShape::warp || info.shape == sync::SyncShape::dsmem ? chains : 1;
    uint32_t reference[sync::kSyncMaxChains] = {};
    for (uint32_t k = 0; k < checked; ++k) reference[k] = sync_reference(setup.op, setup, k, ops);
    std::vector<SyncWarpOut> warps(uint64_t(setup.blocks) * warps_per_block);
    for (uint64_t w = 0; w < warps.size(); ++w) {
      const uint32_t sm = static_cast<uint32_t>((w / warps_per_block) % sms);
      SyncWarpOut& o = warps[w];
      o.smid = sm;
      o.start_cycles = sim::kStartCycles;
      o.end_cycles = sim::kStartCycles + static_cast<uint64_t>(sm_cycles[sm] + 0.5);
      o.ran = 1;
      if (run.store)
        for (uint32_t k = 0; k < checked; ++k) o.result[k] = reference[k];
    }
    SyncResult r = summarize_sync_launch(setup, run, warps);
    r.launch.kernel = kernel;
    r.launch.config.grid = Dim3{setup.blocks, 1, 1};
    r.launch.config.block = Dim3{setup.block_threads, 1, 1};
    r.launch.config.dynamic_smem_bytes = sync_dynamic_smem_bytes(setup.op);
    if (setup.cluster_size != 0) r.launch.config.cluster = Dim3{setup.cluster_size, 1, 1};
    r.launch.config.cooperative = info.shape == sync::SyncShape::grid;
    return r;
  }

 private:
  sim::SimDevice& device_;
  uint64_t launches_ = 0;
};

const OpsRegistration<SyncOps> kRegistration("sim", __FILE__, [](Device& d) {
  return std::make_unique<SimSyncOps>(dynamic_cast<sim::SimDevice&>(d));
});

}  // namespace
}  // namespace gpuprobe::probes
