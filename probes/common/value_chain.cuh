// The contract of a value-chain kernel (compute/alu's): chains x = Op::step(x, b, c) from start
// values and operands the host passes, %clock64 around the loop, the results stored for the
// host's check. Plain C++ for the host (g++), the kernel body for nvcc and NVRTC.
//
// Every thread runs `iterations` iterations of kValueChainOpsPerIteration ops (unrolled, all its
// chains together). Lane 0 of each warp records %clock64 around the loop (the opening read after
// the start values arrive, the closing one after every chain's result: x & zero, zero a runtime
// 0, so no op is dead) and its SM; when `store` is set it also stores the chains' results.
#pragma once
#include "ptx/types.cuh"
#if defined(__CUDACC__)
#include "probes/common/chains.cuh"
#include "probes/common/unit_record.cuh"
#include "ptx/sreg.cuh"
#endif

namespace gpuprobe::probes {

// PTX ops per thread per loop iteration (all chains together): 64 keeps the loop's own
// instructions (counter, compare, branch) under 5% of the issue slots.
constexpr uint32_t kValueChainOpsPerIteration = 64;
// Independent chains per thread of a throughput kernel; a latency kernel has one.
constexpr uint32_t kValueChainThroughputChains = 8;

// Kernel arguments. Values travel as bits (the low 4 bytes for 32-bit registers).
struct ValueChainArgs {
  uint64_t start[kValueChainThroughputChains];  // each chain's first value
  uint64_t b;
  uint64_t c;
  uint64_t iterations;  // of the unrolled loop (kValueChainOpsPerIteration ops each)
  uint64_t zero;        // a runtime 0: the closing clock read depends on the results
  uint32_t store;       // non-zero: lane 0 of each warp stores its chains' results
};

// What lane 0 of each warp writes (timing and SM always; result only when `store`).
struct ValueChainOut {
  uint64_t start_cycles;
  uint64_t end_cycles;
  uint32_t smid;
  uint32_t ran;  // 1 once the warp finished
  uint64_t result[kValueChainThroughputChains];
};

#if defined(__CUDACC__)
namespace device {

// Op: Reg, from(bits), bits(reg), step(x, b, c) and kOnThisPass (step exists only where true:
// a pass without the instruction traps; the host refuses such an op before launching).
template <class Op, int kChains>
__device__ __forceinline__ void run_value_chains(const ValueChainArgs& a, ValueChainOut* out) {
  if constexpr (!Op::kOnThisPass) {
    __trap();
  } else {
    using Reg = typename Op::Reg;
    constexpr int kPerChain = kValueChainOpsPerIteration / kChains;
    // Every thread's values are the arguments', but through threadIdx & zero (zero a runtime 0)
    // they are per-thread as far as the compiler knows: the chains run on the vector pipes, not on
    // the uniform datapath that warp-uniform integer chains would get (UIMAD, UIADD3).
    const uint64_t thread_zero = (uint64_t(threadIdx.x) * 0x100000001ull) & a.zero;  // both halves
    Reg x[kChains];
    uint64_t first = 0;
#pragma unroll
    for (int k = 0; k < kChains; ++k) {
      x[k] = Op::from(a.start[k] ^ thread_zero);
      first ^= Op::bits(x[k]);
    }
    const Reg b = Op::from(a.b);
    const Reg c = Op::from(a.c);
    // The opening read follows the start values' arrival; the closing one waits for every result.
    const uint64_t c0 = ptx::get_sreg_clock64_after(first, a.zero);
    step_chains<kPerChain>(x, a.iterations, [&](Reg v) { return Op::step(v, b, c); });
    uint64_t last = 0;
#pragma unroll
    for (int k = 0; k < kChains; ++k) last ^= Op::bits(x[k]);
    const uint64_t c1 = ptx::get_sreg_clock64_after(last, a.zero);
    record_unit<32>(out, c0, c1, [&](ValueChainOut& o) {
      if (a.store != 0) {
#pragma unroll
        for (int k = 0; k < kChains; ++k) o.result[k] = Op::bits(x[k]);
      }
    });
  }
}

}  // namespace device
#endif

}  // namespace gpuprobe::probes
