// The contract between the atomics kernels (atomics.cu) and their host side (atomics.cpp): the op
// table (atomics.def), the address patterns, the kernel arguments and what every warp reports.
// Plain C++ that nvcc, NVRTC and g++ all compile.
//
// Two kernels per op:
//   gpuprobe_atomics_<op>_lat   one dependent chain per thread (each op's operand depends on the
//                               previous op's returned value): the round-trip latency
//   gpuprobe_atomics_<op>_thr   kAtomicsThroughputChains independent chains per thread, many
//                               warps per SM: the rate
// red has no return value: its _lat kernel traps and the host refuses it (throughput only).
// Every thread runs `iterations` iterations of kAtomicsOpsPerIteration ops per chain (unrolled).
// Lane 0 of each warp records %clock64 around the loop and its SM, and (store) per chain the hits
// of its 32 lanes (ops done; for cas the successful compares). The words end in `words` (shared
// words are copied out at the end), which the host checks against its own count.
#pragma once
#include "probes/common/op_order.cuh"
#include "ptx/types.cuh"

namespace gpuprobe::probes::atomics {

// The ops (atomics.def), in table order.
enum class AtomicsOp {
#define GPUPROBE_ATOMICS_OP(op, ...) op,
#include "probes/atomics/atomics.def"
#undef GPUPROBE_ATOMICS_OP
};

enum class AtomicsOperation { add, cas, exch, red_add, add_f32 };

// Where the lanes' addresses point.
//   same       every lane of a warp on one word (each warp, each chain its own)
//   distinct   every lane its own word (a chain's 32 words adjacent: one coalesced request)
//   contended  every warp of every SM on one word per chain (global only)
//   uniform    the *_uniform ops: one word per chain for the grid (global) or the CTA (shared),
//              its address warp-uniform at compile time
enum class AtomicsPattern { same, distinct, contended, uniform };

// What ptxas makes of the op (the SASS test checks it per target).
//   native            one ATOM/ATOMS/ATOMG/RED per op
//   warp_aggregated   VOTE + SHFL prefix sum + ATOM by one lane
//   cas_loop          LDS + the op + ATOMS.CAST.SPIN retried (atom.shared.add.f32, the 64-bit shared adds)
//   popc_inc          red.shared.add.u32 of a constant 1 becomes ATOMS.POPC.INC (the warp's count)
enum class AtomicsLowering { native, warp_aggregated, cas_loop, popc_inc };

constexpr uint32_t kAtomicsOpsPerIteration = 16;
constexpr uint32_t kAtomicsThroughputChains = 4;
// The start value of every word: 32-bit words 0x10, 64-bit ones just below 2^32 (the adds carry
// into the high half), f32 0.0.
constexpr uint32_t kAtomicsInit32 = 0x10;
constexpr uint64_t kAtomicsInit64 = 0xFFFFFFF0ull;
// The adds' operand: 1, or 2^32 + 1 for 64 bits (both halves move).
constexpr uint64_t kAtomicsAddend64 = 0x100000001ull;

struct AtomicsOpInfo {
  AtomicsOp op;
  const char* name;
  const char* ptx;
  bool shared;
  AtomicsOperation operation;
  uint32_t bytes;            // 4 or 8
  AtomicsLowering lowering;
};

inline constexpr AtomicsOpInfo kAtomicsOps[] = {
#define GPUPROBE_ATOMICS_OP(op, ptx, shared, operation, bytes, lowering) \
  {AtomicsOp::op, #op, ptx, shared, AtomicsOperation::operation, bytes, AtomicsLowering::lowering},
#include "probes/atomics/atomics.def"
#undef GPUPROBE_ATOMICS_OP
};

GPUPROBE_HD constexpr const AtomicsOpInfo& atomics_op_info(AtomicsOp op) {
  return kAtomicsOps[static_cast<unsigned>(op)];
}

static_assert(in_enum_order(kAtomicsOps), "kAtomicsOps must list the AtomicsOp values in enum order");

// The word (an index into `words`, in elements of the op's size) chain `chain` of lane `lane` of
// warp `warp` (of the grid; `warps_per_block` per block) works on.
GPUPROBE_HD constexpr uint64_t atomics_word(AtomicsPattern pattern, bool shared, uint32_t chains,
                                            uint64_t warp, uint32_t warps_per_block, uint32_t lane,
                                            uint32_t chain) {
  switch (pattern) {
    case AtomicsPattern::same: return warp * chains + chain;
    case AtomicsPattern::distinct: return (warp * chains + chain) * 32 + lane;
    case AtomicsPattern::contended: return chain;
    case AtomicsPattern::uniform: return shared ? (warp / warps_per_block) * chains + chain : chain;
  }
  return 0;
}

// The same word as an index into its block's share (shared memory; block_warp = the warp within
// its block): atomics_word = block x atomics_block_words + this. 32-bit math: the kernels must not
// divide 64-bit values (ptxas calls a division routine with local-memory spills on sm_100+).
GPUPROBE_HD constexpr uint32_t atomics_block_word(AtomicsPattern pattern, uint32_t chains,
                                                  uint32_t block_warp, uint32_t lane,
                                                  uint32_t chain) {
  switch (pattern) {
    case AtomicsPattern::same: return block_warp * chains + chain;
    case AtomicsPattern::distinct: return (block_warp * chains + chain) * 32 + lane;
    case AtomicsPattern::contended:
    case AtomicsPattern::uniform: return chain;
  }
  return 0;
}

// A block's share of the words (shared memory holds it; its first word is block x this).
GPUPROBE_HD constexpr uint64_t atomics_block_words(AtomicsPattern pattern, uint32_t chains,
                                                   uint32_t warps_per_block) {
  return pattern == AtomicsPattern::distinct ? uint64_t{warps_per_block} * chains * 32
         : pattern == AtomicsPattern::same   ? uint64_t{warps_per_block} * chains
                                             : chains;
}

// Kernel arguments.
struct AtomicsArgs {
  void* words;           // the words (global), or where shared words are copied out
  uint64_t iterations;   // of the unrolled loop
  uint64_t zero;         // a runtime 0: the operand of each op depends on the last result
  uint64_t ops_per_chain;  // iterations x kAtomicsOpsPerIteration (the exch tokens' base)
  uint32_t pattern;      // AtomicsPattern
  uint32_t store;        // non-zero: lane 0 of each warp stores the hits
};

// What lane 0 of each warp writes.
struct AtomicsWarpOut {
  uint64_t start_cycles;
  uint64_t end_cycles;
  uint32_t smid;
  uint32_t ran;
  uint32_t hits[kAtomicsThroughputChains];  // per chain, over the 32 lanes: ops done (cas: successes)
};

// exch's token: the op's place among all chains' ops, so the host can tell whose op wrote last.
// thread_chain = (global thread) x chains + chain.
GPUPROBE_HD constexpr uint64_t atomics_exch_token(uint64_t thread_chain, uint64_t ops_per_chain,
                                                  uint64_t i) {
  return thread_chain * ops_per_chain + i + 1;
}

}  // namespace gpuprobe::probes::atomics
