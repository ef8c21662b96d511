// The contract between the async-copy kernels (async.cu, multicast.sm90a.cu) and their host side
// (async.cpp): the op table (async.def), the kernel arguments, where every copy reads from and
// what every CTA reports. Plain C++ that nvcc, NVRTC and g++ all compile.
//
// Kernels per op: gpuprobe_async_<op>_d<D> for D = 1, 2, 4, 8 copies in flight per thread (the
// thread ops: commit groups, or D loads before the stores) or per CTA (bulk/TMA: D slots, each
// with its mbarrier). A latency launch is the D = 1 kernel in one CTA of one warp: each copy waits
// for the one before. One more kernel, gpuprobe_async_tma_chase: a pointer chase whose every hop is
// a 16-byte TMA 1D load and whose next coordinate is the word that load brought. And, in the
// sm_90a unit multicast.sm90a.cu, gpuprobe_async_tma_multicast: TMA 2D boxes multicast to every CTA
// of a cluster (copy c = round x clusters + cluster).
//
// Every copy of a CTA's stage moves copy_bytes: the thread ops block_threads x size (thread t the
// bytes [t size, (t+1) size) of the stage), bulk and TMA one instruction of copy_bytes. Copy c
// (async_copy_index) reads from async_source_word(); the source buffer holds async_pattern(i) at
// word i. After the loop every CTA waits for its copies and fingerprints its slots
// (async_fingerprint_step over the words), which the host checks against the pattern: each copy
// probe checks that the data arrived intact. Thread 0 records %clock64 around the loop (the
// closing read after the last copy landed) and its SM.
#pragma once
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::probes::async {

// The ops (async.def), in table order.
enum class AsyncOp {
#define GPUPROBE_ASYNC_OP(op, ...) op,
#include "probes/async/async.def"
#undef GPUPROBE_ASYNC_OP
};

// Who issues a copy and how its completion is awaited.
enum class AsyncEngine {
  thread_async,  // every thread: cp.async + commit_group / wait_group
  thread_sync,   // every thread: ld.global + st.shared (the synchronous comparison)
  bulk,          // one thread: cp.async.bulk, mbarrier expect_tx / try_wait.parity
  tma_1d,        // one thread: cp.async.bulk.tensor.1d
  tma_2d,        // one thread: cp.async.bulk.tensor.2d
};

// Copies in flight per thread (thread ops) or per CTA (bulk, TMA): one kernel each, X(op, depth)
// per depth in the X-macros that name them (async.cu, async.cpp).
constexpr uint32_t kAsyncDepths[] = {1, 2, 4, 8};
#define GPUPROBE_ASYNC_DEPTHS(X, op) X(op, 1) X(op, 2) X(op, 4) X(op, 8)
constexpr uint32_t kAsyncMaxDepth = 8;
// The kernels' __launch_bounds__: 128 registers per thread hold depth 8 of 16-byte loads.
constexpr uint32_t kAsyncMaxBlockThreads = 512;
// TMA 2D: the source seen as rows of kAsyncTma2dRowWords 32-bit words, read in boxes of
// kAsyncTma2dBoxWords words by box_rows rows (copy_bytes = 4 x 64 x box_rows).
constexpr uint32_t kAsyncTma2dRowWords = 1024;
constexpr uint32_t kAsyncTma2dBoxWords = 64;
// TMA 1D: a box is at most 256 elements (1 KiB of 32-bit words); the chase loads 16-byte boxes.
constexpr uint32_t kAsyncTma1dMaxBoxWords = 256;
constexpr uint32_t kAsyncChaseBoxWords = 4;

struct AsyncOpInfo {
  AsyncOp op;
  const char* name;
  const char* ptx;
  AsyncEngine engine;
  uint32_t thread_bytes;  // thread ops: bytes per thread per copy; else 0
  ptx::Cap cap;
};

inline constexpr AsyncOpInfo kAsyncOps[] = {
#define GPUPROBE_ASYNC_OP(op, ptx_, engine, thread_bytes, cap) \
  {AsyncOp::op, #op, ptx_, AsyncEngine::engine, thread_bytes, ptx::Cap::cap},
#include "probes/async/async.def"
#undef GPUPROBE_ASYNC_OP
};

GPUPROBE_HD constexpr const AsyncOpInfo& async_op_info(AsyncOp op) {
  return kAsyncOps[static_cast<unsigned>(op)];
}

// The 128-byte CUtensorMap the TMA kernels take by value (__grid_constant__); the host copies the
// driver's encoded map into it (async.cpp, KernelRunner::encode_tensor_map). Unused by the other
// kernels.
struct alignas(64) AsyncTensorMap {
  uint64_t opaque[16];
};

struct AsyncArgs {
  const uint32_t* src;
  uint64_t src_words;     // the source buffer: a power of two, at least one copy
  uint64_t iterations;    // copies per slot (chase: timed hops)
  uint64_t warmup;        // chase: untimed hops first
  uint64_t zero;          // a runtime 0: address and clock dependences
  uint64_t tma2d_tiles;   // TMA 2D: boxes in the source (src_words / (64 x box_rows))
  uint32_t copy_bytes;    // of one CTA's copy (a stage)
  uint32_t box_rows;      // TMA 2D: rows of the box
  uint32_t start_word;    // chase: the first coordinate
  uint32_t store;         // non-zero: fingerprint the slots
};

// What thread 0 of each CTA writes.
struct AsyncCtaOut {
  uint64_t start_cycles;
  uint64_t end_cycles;
  uint32_t smid;
  uint32_t ran;           // 1 once the CTA finished
  uint32_t result;        // the slots' fingerprint (chase: the last coordinate)
  uint32_t pad;
};

// The source buffer's word i.
GPUPROBE_HD constexpr uint32_t async_pattern(uint64_t i) {
  return static_cast<uint32_t>(i) * 2654435761u ^ static_cast<uint32_t>(i >> 32) ^ 0x5bd1e995u;
}

// The copy CTA `cta` of `ctas` issues into slot `slot` (of `depth`) in iteration `iteration`.
GPUPROBE_HD constexpr uint64_t async_copy_index(uint64_t iteration, uint32_t cta, uint32_t ctas,
                                                uint32_t slot, uint32_t depth) {
  return (iteration * ctas + cta) * depth + slot;
}

// TMA 2D: the box origin {x, y} (elements) of copy c, box c mod the source's boxes, row-major.
constexpr uint32_t kAsyncTma2dBoxesPerRow = kAsyncTma2dRowWords / kAsyncTma2dBoxWords;
GPUPROBE_HD constexpr uint64_t async_tma2d_box(uint64_t c, uint64_t src_words, uint32_t box_rows) {
  return c % (src_words / kAsyncTma2dRowWords / box_rows * kAsyncTma2dBoxesPerRow);
}
GPUPROBE_HD constexpr uint32_t async_tma2d_x(uint64_t c, uint64_t src_words, uint32_t box_rows) {
  return static_cast<uint32_t>(async_tma2d_box(c, src_words, box_rows) % kAsyncTma2dBoxesPerRow) *
         kAsyncTma2dBoxWords;
}
GPUPROBE_HD constexpr uint32_t async_tma2d_y(uint64_t c, uint64_t src_words, uint32_t box_rows) {
  return static_cast<uint32_t>(async_tma2d_box(c, src_words, box_rows) / kAsyncTma2dBoxesPerRow) * box_rows;
}

// The first source word of copy c for the contiguous engines (thread ops, bulk, TMA 1D).
GPUPROBE_HD constexpr uint64_t async_copy_base(uint64_t c, uint64_t copy_words, uint64_t src_words) {
  return c * copy_words % src_words;
}

// The source word that lands in word j of copy c's slot.
GPUPROBE_HD constexpr uint64_t async_source_word(AsyncEngine e, uint64_t c, uint32_t j,
                                                 uint64_t copy_words, uint64_t src_words,
                                                 uint32_t box_rows) {
  return e == AsyncEngine::tma_2d
             ? (uint64_t(async_tma2d_y(c, src_words, box_rows)) + j / kAsyncTma2dBoxWords) *
                       kAsyncTma2dRowWords +
                   async_tma2d_x(c, src_words, box_rows) + j % kAsyncTma2dBoxWords
             : async_copy_base(c, copy_words, src_words) + j;
}

// One word of the slots' fingerprint: word k of the CTA's slots (slot s, word j: k = s x copy
// words + j) holding v. The fingerprint is the sum over k (mod 2^32).
GPUPROBE_HD constexpr uint32_t async_fingerprint_step(uint32_t k, uint32_t v) {
  return v * (2 * k + 1);
}

}  // namespace gpuprobe::probes::async
