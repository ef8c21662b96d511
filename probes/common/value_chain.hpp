// The host side of a value-chain family (probes/common/value_chain.cuh: compute/alu's kernels): a
// launch's shape and work, its summary and self-check, and its GPU run. The family supplies the
// kernels, the start values and operands, and what is wrong with a result.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/kernel_runner.hpp"
#include "harness/launch_config.hpp"
#include "probes/common/op_table.hpp"
#include "probes/common/units.hpp"
#include "probes/common/value_chain.cuh"

namespace gpuprobe::probes {

// One launch of a value-chain kernel: latency (one warp, one chain per thread) or throughput
// (blocks x block_threads threads, kValueChainThroughputChains chains each).
struct ValueChainLaunch {
  std::string kernel;
  Kind kind = Kind::latency;
  uint32_t blocks = 1, block_threads = 32;
  uint64_t iterations = 0;

  uint32_t chains() const { return kind == Kind::latency ? 1 : kValueChainThroughputChains; }
  uint64_t ops_per_chain() const { return iterations * kValueChainOpsPerIteration / chains(); }
  uint64_t warps() const { return uint64_t(blocks) * block_threads / 32; }
  LaunchConfig config() const;
};

// Empty when `got` is an acceptable result of chain `chain` after `ops` ops, else why not.
using ValueChainError = std::function<std::string(uint32_t chain, uint64_t ops, uint64_t got)>;

// The numbers and the self-check of a launch's warps: every warp ran, and every chain's result is
// acceptable ("self-check failed: <kernel> warp <w>: <why>"). Latency: the first warp's cycles
// per op; rate: per SM, the thread-ops of its warps over its span.
ChainResult summarize_value_chains(const ValueChainLaunch& launch, const std::vector<ValueChainOut>& warps,
                                   const ValueChainError& error);

// The launch on the GPU through the KernelRunner, its results stored and checked.
ChainResult run_value_chains(KernelRunner& gpu, const void* kernel, const ValueChainLaunch& launch,
                             ValueChainArgs args, const ValueChainError& error);

}  // namespace gpuprobe::probes
