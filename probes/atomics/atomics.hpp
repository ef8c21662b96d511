// The atomics family's host side (atomics.cpp): one launch of an op's latency or throughput kernel
// (probes/atomics/atomics.cuh) in one address pattern, on the GPU (harness/kernel_runner.hpp) or
// the simulator. Both hand the per-warp records and the final words to summarize_atomics_launch,
// which turns them into the numbers and makes the self-check (the words against the host's
// count), so the arithmetic and the check exist once.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/device.hpp"
#include "harness/error.hpp"
#include "harness/launch_config.hpp"
#include "probes/atomics/atomics.cuh"
#include "probes/common/op_table.hpp"
#include "probes/common/units.hpp"

namespace gpuprobe::probes {

using atomics::AtomicsOp;
using atomics::AtomicsPattern;

inline const char* atomics_lowering_name(atomics::AtomicsLowering lowering) {
  constexpr const char* kNames[] = {"native", "warp_aggregated", "cas_loop", "popc_inc"};  // in enum order
  return kNames[static_cast<unsigned>(lowering)];
}
inline const atomics::AtomicsOpInfo& atomics_info(AtomicsOp op) { return atomics::atomics_op_info(op); }
// Throws a one-line gpuprobe::Error listing the names when `name` is unknown.
inline AtomicsOp parse_atomics_op(const std::string& name) {
  return find_op(atomics::kAtomicsOps, name, "atomics op").op;
}
uint32_t atomics_chains(Kind kind);

struct AtomicsSetup {
  AtomicsOp op = AtomicsOp::global_add_u32;
  AtomicsPattern pattern = AtomicsPattern::same;
  Kind kind = Kind::latency;
  uint32_t block_threads = 32;   // a multiple of 32
  uint32_t blocks = 1;
};

struct AtomicsRun {
  uint64_t iterations = 16;      // of the unrolled loop (kAtomicsOpsPerIteration ops per chain)
};

// The final words the host expects after a launch whose warps report `warps` (cas: each warp's
// successes decide its words), the exch words left 0 (the self-check tests their tokens instead).
std::vector<uint64_t> atomics_expected_words(const AtomicsSetup& setup, const AtomicsRun& run,
                                             const std::vector<atomics::AtomicsWarpOut>& warps);

// The checks every backend makes before launching (one-line Errors).
void check_atomics_fits(const AtomicsSetup& setup, const DeviceInfo& info);

// The result and the self-check: every warp ran with end after start; the hits are
// possible (add, exch, red: every op; cas: all of them where a lane is alone on its word) and the
// final words are what the host computes (the sum of the adds, init + the CAS successes, exch:
// the last token of a chain that owns the word). Throws "self-check failed ..." otherwise.
ChainResult summarize_atomics_launch(const AtomicsSetup& setup, const AtomicsRun& run,
                                       const std::vector<atomics::AtomicsWarpOut>& warps,
                                       const std::vector<uint64_t>& words);

}  // namespace gpuprobe::probes
