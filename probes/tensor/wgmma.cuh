// The contract between the wgmma kernels (wgmma.sm90a.cu, sm_90a only) and their host side
// (wgmma.cpp): the op table (wgmma.def), the kernel arguments and what every warpgroup reports.
// Plain C++ that nvcc, NVRTC and g++ all compile.
//
// Per op of wgmma.def two kernels, one warpgroup (128 threads) per block:
//   gpuprobe_wgmma_<op>_lat   per iteration: wgmma.fence, ONE wgmma, commit_group, wait_group 0
//                             (launched as one block): the issue-to-result time of one wgmma
//                             plus the fence/commit/wait round trip
//   gpuprobe_wgmma_<op>_thr   per iteration: wgmma.fence, kWgmmaThroughputPerIteration wgmmas
//                             round robin over wgmma_throughput_accumulators(op) independent
//                             accumulators, commit_group, wait_group 1 (many blocks per SM)
// and one kernel for all ops:
//   gpuprobe_wgmma_baseline_lat   the latency loop without the wgmma (fence, commit, wait 0):
//                             subtracted from a latency kernel's cycles per iteration
// A and B sit in shared memory in the no-swizzle K-major layout (wgmma_smem_offset), copied
// from the images the host built; the RS forms take A from registers, the host's fragments.
// Thread 0 of each warpgroup records %clock64 around the loop (the closing read after the last
// wait) and its SM; with `store` set every thread stores its accumulator registers (the tile the
// host checks against its float64 reference, probes/tensor/wgmma.cpp).
#pragma once
#include "probes/common/op_order.cuh"
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::probes::tensor {

// Enum names: f16_f32_n128_ss.
enum class WgmmaOp {
#define GPUPROBE_WGMMA_OP(in, acc, n, k, form) in##_##acc##_n##n##_##form,
#include "probes/tensor/wgmma.def"
#undef GPUPROBE_WGMMA_OP
};

enum class WgmmaType { f16, bf16, tf32, e4m3, e5m2, s8, f32, s32 };

constexpr uint32_t kWgmmaM = 64;
constexpr uint32_t kWgmmaMaxN = 256;
constexpr uint32_t kWgmmaThreads = 128;           // one warpgroup
constexpr uint32_t kWgmmaRowBytes = 32;           // K x element bytes: the same for every input
constexpr uint32_t kWgmmaARegs = 4;               // RS: A fragment registers per thread
// wgmmas per throughput-loop iteration (one commit group): enough that the fence, commit and
// wait are a small part of the issue slots, and a multiple of every accumulator count.
constexpr uint32_t kWgmmaThroughputPerIteration = 8;
// Shared-memory layout of A (64 x 32 bytes) and B (N x 32 bytes), no swizzle, K-major: core
// matrices of 8 rows x 16 bytes (128 contiguous bytes); the two core matrices of a row block
// (K bytes 0-15, 16-31) are kWgmmaLboBytes apart, row blocks kWgmmaSboBytes apart.
constexpr uint32_t kWgmmaLboBytes = 128;
constexpr uint32_t kWgmmaSboBytes = 256;
constexpr uint32_t kWgmmaAImageBytes = kWgmmaM * kWgmmaRowBytes;
constexpr uint32_t kWgmmaMaxBImageBytes = kWgmmaMaxN * kWgmmaRowBytes;

// Byte offset of (row, byte within the row's 32 K bytes) in an operand image.
GPUPROBE_HD constexpr uint32_t wgmma_smem_offset(uint32_t row, uint32_t k_byte) {
  return (row / 8) * kWgmmaSboBytes + (k_byte / 16) * kWgmmaLboBytes + (row % 8) * 16 +
         k_byte % 16;
}

struct WgmmaOpInfo {
  WgmmaOp op;
  const char* name;        // wgmma_m64n128k16_f16_f32_ss: the record's op and the preset's key
  const char* input_name;  // "f16", "bf16", "tf32", "e4m3", "e5m2", "s8"
  const char* acc_name;    // "f32", "f16", "s32"
  WgmmaType input;
  WgmmaType acc;
  uint32_t n;
  uint32_t k;
  bool rs;                 // A from registers
};

inline constexpr WgmmaOpInfo kWgmmaOps[] = {
#define GPUPROBE_WGMMA_OP(in, acc, n, k, form)                                                   \
  {WgmmaOp::in##_##acc##_n##n##_##form,                                                          \
   "wgmma_m64n" #n "k" #k "_" #in "_" #acc "_" #form,                                           \
   #in, #acc, WgmmaType::in, WgmmaType::acc, n, k, sizeof(#form) == 3 && #form[0] == 'r'},
#include "probes/tensor/wgmma.def"
#undef GPUPROBE_WGMMA_OP
};
inline constexpr unsigned kWgmmaOpCount = sizeof(kWgmmaOps) / sizeof(kWgmmaOps[0]);

GPUPROBE_HD constexpr const WgmmaOpInfo& wgmma_op_info(WgmmaOp op) {
  return kWgmmaOps[static_cast<unsigned>(op)];
}
// Accumulator registers per thread: N/2 (f32, s32), N/4 (f16: packed pairs).
GPUPROBE_HD constexpr uint32_t wgmma_acc_regs(const WgmmaOpInfo& info) {
  return info.acc == WgmmaType::f16 ? info.n / 4 : info.n / 2;
}
// Independent accumulators of a throughput kernel: two while they fit beside each other in the
// register file with room to spare (64 registers each at most), else one.
GPUPROBE_HD constexpr uint32_t wgmma_throughput_accumulators(const WgmmaOpInfo& info) {
  return wgmma_acc_regs(info) <= 64 ? 2 : 1;
}
// Dense FLOP of one wgmma: 2 M N K (integer: 2 per multiply-add).
GPUPROBE_HD constexpr uint64_t wgmma_flops(const WgmmaOpInfo& info) {
  return 2ull * kWgmmaM * info.n * info.k;
}

static_assert(in_enum_order(kWgmmaOps), "kWgmmaOps must list the enum's values in order");
static_assert(kWgmmaThroughputPerIteration % 2 == 0, "a multiple of every accumulator count");

// Kernel arguments.
struct WgmmaArgs {
  const uint32_t* a_image;   // kWgmmaAImageBytes: A in the shared-memory layout
  const uint32_t* b_image;   // N x 32 bytes: B (N rows of K) in the shared-memory layout
  const uint32_t* a_frag;    // RS: kWgmmaThreads x kWgmmaARegs words, thread-major
  uint32_t* tile;            // store: kWgmmaThreads x accumulator registers, thread-major
  uint64_t iterations;
  uint64_t zero;             // a runtime 0: the closing clock read depends on the results
  uint32_t store;            // non-zero: every thread stores its accumulators to `tile`
};

// What thread 0 of each warpgroup writes.
struct WgmmaGroupOut {
  uint64_t start_cycles;
  uint64_t end_cycles;
  uint32_t smid;
  uint32_t ran;              // 1 once the warpgroup finished
  uint64_t checksum;         // xor of the accumulators (keeps them live)
};

}  // namespace gpuprobe::probes::tensor
