// Speed of the simulated device's chase walk (harness/sim/sim_device.hpp): a 200 MiB random cycle
// of 128-byte slots (1.6 M hops) through the H100 model, against a bare walk of the same chain
// (the floor: one dependent load per hop, nothing modelled). Target: the model costs at most a
// few times the bare walk, about 0.3 s per 1.6 M hops on this 2-core machine; run-all on the
// simulator walks chains like this one at every point of the latency sweep.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "harness/chain.hpp"
#include "harness/sim/preset.hpp"
#include "harness/sim/sim_device.hpp"

namespace {

namespace sim = gpuprobe::sim;

const gpuprobe::Chain& chain_200mib() {
  static const gpuprobe::Chain chain = gpuprobe::make_random_cycle(200ull << 20, 128, 1);
  return chain;
}

void BM_BareWalk(benchmark::State& state) {
  const auto& chain = chain_200mib();
  for (auto _ : state) {
    uint32_t slot = chain.start;
    uint64_t offset_sum = 0;
    for (uint64_t i = 0; i < chain.slots(); ++i) {
      offset_sum += chain.offset_bytes[slot];
      slot = chain.next[slot];
    }
    benchmark::DoNotOptimize(offset_sum);
  }
  state.counters["hops"] = static_cast<double>(chain.slots());
}

// A fresh device per walk: the device replays a walk it has just made (see below).
void BM_SimWalkH100(benchmark::State& state) {
  const auto& chain = chain_200mib();
  sim::WalkSpec spec;
  spec.phase_hops = {chain.slots()};
  spec.keep_each_hop = {false};
  double mean_cycles = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto device = sim::make_sim_device(sim::find_preset("h100"), 1);
    auto& sim_device = dynamic_cast<sim::SimDevice&>(*device);
    state.ResumeTiming();
    const sim::WalkResult result = sim_device.walk(chain, spec);
    mean_cycles = static_cast<double>(result.phase_cycles[0]) / chain.slots();
    benchmark::DoNotOptimize(mean_cycles);
  }
  state.counters["hops"] = static_cast<double>(chain.slots());
  state.counters["mean_cycles"] = mean_cycles;
}

// The same walk again on one device: the repeats of a chase point, replayed from the device's
// memo of the last walk (only the jitter is drawn anew). Target: a small fraction of a walk.
void BM_SimWalkH100Replay(benchmark::State& state) {
  const auto& chain = chain_200mib();
  auto device = sim::make_sim_device(sim::find_preset("h100"), 1);
  auto& sim_device = dynamic_cast<sim::SimDevice&>(*device);
  sim::WalkSpec spec;
  spec.phase_hops = {chain.slots()};
  spec.keep_each_hop = {false};
  sim_device.walk(chain, spec);
  double mean_cycles = 0;
  for (auto _ : state) {
    const sim::WalkResult result = sim_device.walk(chain, spec);
    mean_cycles = static_cast<double>(result.phase_cycles[0]) / chain.slots();
    benchmark::DoNotOptimize(mean_cycles);
  }
  state.counters["hops"] = static_cast<double>(chain.slots());
  state.counters["mean_cycles"] = mean_cycles;
}

}  // namespace

BENCHMARK(BM_BareWalk)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimWalkH100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimWalkH100Replay)->Unit(benchmark::kMillisecond);
