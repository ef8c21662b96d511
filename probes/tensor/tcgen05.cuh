// The contract between the tcgen05 kernels (tcgen05.sm100a.cu, sm_100a only) and their host side
// (tcgen05.cpp): the op table (tcgen05.def), the kernel arguments, the operand layouts and what
// every CTA reports. Plain C++ that nvcc, NVRTC and g++ all compile.
//
// Per op of tcgen05.def two kernels, 128 threads (4 warps: the 128 TMEM lanes) per CTA,
// clusters of 2 CTAs for cta_group::2:
//   gpuprobe_tcgen05_<op>_lat   per iteration: ONE tcgen05.mma, tcgen05.commit to an mbarrier,
//                               wait on it (one CTA, or one cluster of 2)
//   gpuprobe_tcgen05_<op>_thr   per iteration: kTcgen05ThroughputPerIteration MMAs round robin
//                               over tcgen05_accumulators(op) TMEM accumulators, one commit; the
//                               previous iteration's commit is waited for (one CTA per SM)
// and per cta_group one kernel:
//   gpuprobe_tcgen05_baseline_cg<1|2>_lat   the latency loop without the MMA (commit, wait):
//                               subtracted from a latency kernel's cycles per iteration
// One thread issues: thread 0 of the CTA (of the even CTA of the pair for cta_group::2). A and B
// sit in shared memory in the no-swizzle K-major layout (tcgen05_smem_offset), copied from the
// host's images; TS forms take A from TMEM (columns kTcgen05ACol.., lane = row), stored there
// by the CTA's own threads from the host's words. Row r of a CTA's D sits in TMEM lane r, column
// c in TMEM column c (M = 128 per CTA: the lane = row layout of the PTX ISA's "Matrix fragments
// for tcgen05.mma" for M = 128, and per CTA for M = 256). A 32-bit accumulator (f32, s32) fills
// its column; a 16-bit one (f16) takes one column per element too (CUTLASS tmem_frg_1sm<half_t>:
// 32-bit storage per value) and is read back with tcgen05.ld .pack::16b, which packs the 16-bit
// elements of two adjacent columns into one register (column 2j in the low half: the reading
// taken here, checked by the first-run self-check).
// fp6/fp4 inputs (e3m2, e2m3, e2m1 under kind::f8f6f4) take the shared-memory layout of 8-bit
// elements (K = 32, 32 bytes per row) in the PTX ISA's padded form ("tcgen05 packing formats";
// what TMA's .b6x16_p32/.b4x16_p64 write): each 16 bytes of a row hold 16 consecutive K elements
// packed low first (element i at bit 6i or 4i), the rest padding. They are SS only: A in TMEM
// wants each element in a byte of its own, at a bit position this code has not established.
// The block-scaled fp4 kinds (kind::mxf4, mxf4nvf4) take e2m1 packed densely instead, two per
// byte low nibble first, K = 64 in the same 32 bytes per row (tcgen05_packed_fp4).
// cta_group::2 (M = 256): the even CTA holds rows 0-127 of A and rows 0..N/2-1 of B (N x K,
// K-major), the odd CTA the others; each CTA's TMEM holds its 128 rows of D, all N columns.
#pragma once
#include "probes/common/op_order.cuh"
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::probes::tensor {

// Enum names: bf16_f32_n256_ss_cg1.
enum class Tcgen05Op {
#define GPUPROBE_TCGEN05_OP(in, acc, kind, n, k, form, cg) in##_##acc##_n##n##_##form##_cg##cg,
#include "probes/tensor/tcgen05.def"
#undef GPUPROBE_TCGEN05_OP
};

// mxf8_e4m3: e4m3 elements with a ue8m0 scale per row of A and per column of B (K = 32: one
// scale per MMA); mxf4: e2m1 packed two per byte, a ue8m0 scale per 32 K (two per MMA); nvf4:
// the same e2m1, a ue4m3 scale per 16 K (four per MMA).
enum class Tcgen05Type {
  f16, bf16, tf32, e4m3, e5m2, e3m2, e2m3, e2m1, mxf8_e4m3, mxf4, nvf4, s8, f32, s32
};

constexpr uint32_t kTcgen05Threads = 128;          // 4 warps: TMEM lanes 0-127
constexpr uint32_t kTcgen05RowsPerCta = 128;       // M per CTA (M = 128 x cta_group)
constexpr uint32_t kTcgen05MaxN = 256;
constexpr uint32_t kTcgen05RowBytes = 32;          // K x element bytes: the same for every input
                                                   // (fp6/fp4 of kind::f8f6f4: padded, below)
constexpr uint32_t kTcgen05AWords = kTcgen05RowBytes / 4;   // TS: A words per row (TMEM columns)
// MMAs per throughput iteration (one commit): a multiple of every accumulator count.
constexpr uint32_t kTcgen05ThroughputPerIteration = 8;
// Shared-memory layout of A (128 x 32 bytes) and B (rows x 32 bytes), no swizzle, K-major:
// core matrices of 8 rows x 16 bytes (128 contiguous bytes); the two core matrices of a row
// block (K bytes 0-15, 16-31) are kTcgen05LboBytes apart (leading-dimension byte offset), row
// blocks kTcgen05SboBytes apart (stride-dimension byte offset).
constexpr uint32_t kTcgen05LboBytes = 128;
constexpr uint32_t kTcgen05SboBytes = 256;
constexpr uint32_t kTcgen05AImageBytes = kTcgen05RowsPerCta * kTcgen05RowBytes;
constexpr uint32_t kTcgen05MaxBImageBytes = kTcgen05MaxN * kTcgen05RowBytes;

// Byte offset of (row, byte within the row's 32 K bytes) in one CTA's operand image.
GPUPROBE_HD constexpr uint32_t tcgen05_smem_offset(uint32_t row, uint32_t k_byte) {
  return (row / 8) * kTcgen05SboBytes + (k_byte / 16) * kTcgen05LboBytes + (row % 8) * 16 +
         k_byte % 16;
}

struct Tcgen05OpInfo {
  Tcgen05Op op;
  const char* name;        // tcgen05_m128n256k16_bf16_f32_ss_cg1: the record's op, the preset key
  const char* input_name;  // "f16", "bf16", "tf32", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1",
                           // "mxf8_e4m3", "mxf4", "nvf4", "s8"
  const char* acc_name;    // "f32", "s32", "f16"
  const char* kind_name;   // "f16", "tf32", "f8f6f4", "mxf8f6f4", "mxf4", "mxf4nvf4", "i8": the
                           // PTX .kind
  Tcgen05Type input;
  Tcgen05Type acc;
  uint32_t n;
  uint32_t k;
  bool ts;                 // A from TMEM
  uint32_t cta_group;      // 1 or 2
};

// M of one MMA as text, per cta_group.
#define GPUPROBE_TCGEN05_M_1 "128"
#define GPUPROBE_TCGEN05_M_2 "256"
inline constexpr Tcgen05OpInfo kTcgen05Ops[] = {
#define GPUPROBE_TCGEN05_OP(in, acc, kind, n, k, form, cg)                                         \
  {Tcgen05Op::in##_##acc##_n##n##_##form##_cg##cg,                                                 \
   "tcgen05_m" GPUPROBE_TCGEN05_M_##cg "n" #n "k" #k "_" #in "_" #acc "_" #form "_cg" #cg,          \
   #in, #acc, #kind, Tcgen05Type::in, Tcgen05Type::acc, n, k, #form[0] == 't', cg},
#include "probes/tensor/tcgen05.def"
#undef GPUPROBE_TCGEN05_OP
};
inline constexpr unsigned kTcgen05OpCount = sizeof(kTcgen05Ops) / sizeof(kTcgen05Ops[0]);

GPUPROBE_HD constexpr const Tcgen05OpInfo& tcgen05_op_info(Tcgen05Op op) {
  return kTcgen05Ops[static_cast<unsigned>(op)];
}
// M of one MMA: 128 per CTA of the group.
GPUPROBE_HD constexpr uint32_t tcgen05_m(const Tcgen05OpInfo& info) {
  return kTcgen05RowsPerCta * info.cta_group;
}
// B rows (N) each CTA holds: N, or N/2 with cta_group::2.
GPUPROBE_HD constexpr uint32_t tcgen05_b_rows(const Tcgen05OpInfo& info) {
  return info.n / info.cta_group;
}
// Dense FLOP of one MMA: 2 M N K (integer: 2 per multiply-add), over the whole CTA group.
GPUPROBE_HD constexpr uint64_t tcgen05_flops(const Tcgen05OpInfo& info) {
  return 2ull * tcgen05_m(info) * info.n * info.k;
}
// Block-scaled kinds: scale factors in TMEM, the block-scaled instruction descriptor.
GPUPROBE_HD constexpr bool tcgen05_block_scaled(const Tcgen05OpInfo& info) {
  return info.input == Tcgen05Type::mxf8_e4m3 || info.input == Tcgen05Type::mxf4 ||
         info.input == Tcgen05Type::nvf4;
}
// kind::mxf4 / mxf4nvf4: e2m1 packed two per byte in shared memory (element k of a row at bit
// 4 k of its 32 bytes, low nibble first: CUTLASS's float_e2m1_t, not the padded form of
// kind::f8f6f4), K = 64 per MMA.
GPUPROBE_HD constexpr bool tcgen05_packed_fp4(const Tcgen05OpInfo& info) {
  return info.input == Tcgen05Type::mxf4 || info.input == Tcgen05Type::nvf4;
}
// Scale factors per row (A) or column (B) per MMA: .scale_vec::1X (mxf8f6f4, K 32), ::2X (mxf4,
// K 64 in blocks of 32), ::4X (mxf4nvf4, K 64 in blocks of 16); 0 for the other kinds.
GPUPROBE_HD constexpr uint32_t tcgen05_scale_vec(const Tcgen05OpInfo& info) {
  return info.input == Tcgen05Type::mxf8_e4m3 ? 1
         : info.input == Tcgen05Type::mxf4    ? 2
         : info.input == Tcgen05Type::nvf4    ? 4
                                              : 0;
}
// The scale factors' format: ue4m3 (NVFP4) or ue8m0 (the MX kinds).
GPUPROBE_HD constexpr bool tcgen05_ue4m3_scales(const Tcgen05OpInfo& info) {
  return info.input == Tcgen05Type::nvf4;
}
// The scale-factor code of 2^exponent (|exponent| <= 6): ue8m0 127 + e; ue4m3 (bias 7, 3
// mantissa bits 0) (7 + e) << 3.
GPUPROBE_HD constexpr uint32_t tcgen05_scale_code(const Tcgen05OpInfo& info, int exponent) {
  return tcgen05_ue4m3_scales(info) ? uint32_t(7 + exponent) << 3 : uint32_t(127 + exponent);
}
// TMEM columns of the scale factors (block-scaled kinds): 4 for A, 8 for B, each written by one
// tcgen05.cp.32x128b.warpx4 per 4 columns from kTcgen05SfRowBytes x 32 rows of shared memory.
// Every TMEM lane L holds, in every byte of all 12 columns, the scale of row (A) or column (B)
// L % 32: the scales repeat every 32 rows and columns, so the product is the same whichever
// 32-lane by 4-column reading the MMA takes of them (CUTLASS's 32x4x4 scale-factor atom, or lane =
// row): the self-check then tests that the scales are applied, not which reading is the hardware's.
// The same holds for ::2X and ::4X: a row's (column's) every K block gets the same scale, so the
// product is the same whichever byte of a column the MMA takes for which K block. What this
// cannot catch: a hardware K-block-to-byte order, or a 32-lane row mapping, other than assumed.
constexpr uint32_t kTcgen05SfColumns = 12;
constexpr uint32_t kTcgen05SfRowBytes = 16;
constexpr uint32_t kTcgen05SfImageBytes = 2 * 32 * kTcgen05SfRowBytes;   // A's 32 rows, B's 32
// Whether D is 16-bit (f16): read back packed two per 32-bit word.
GPUPROBE_HD constexpr bool tcgen05_d16(const Tcgen05OpInfo& info) {
  return info.acc == Tcgen05Type::f16;
}
// 32-bit words of one row of the stored D: N, or N / 2 for a 16-bit D.
GPUPROBE_HD constexpr uint32_t tcgen05_tile_row_words(const Tcgen05OpInfo& info) {
  return tcgen05_d16(info) ? info.n / 2 : info.n;
}
// Bits an input element takes in shared memory: 4 (e2m1) or 6 (e3m2, e2m3), packed 16 to each
// 16 bytes, else the element's size (256 bits of K per row: 4 for the packed fp4 of mxf4/nvf4).
GPUPROBE_HD constexpr uint32_t tcgen05_smem_element_bits(const Tcgen05OpInfo& info) {
  return info.input == Tcgen05Type::e2m1                                        ? 4
         : info.input == Tcgen05Type::e3m2 || info.input == Tcgen05Type::e2m3 ? 6
                                                                                : 256 / info.k;
}
// TMEM accumulators of a throughput kernel: two while both fit beside A, else one (the tensor
// core pipelines MMAs into one accumulator as a GEMM's K loop does).
GPUPROBE_HD constexpr uint32_t tcgen05_accumulators(const Tcgen05OpInfo& info, bool throughput) {
  return throughput && info.n <= 128 ? 2 : 1;
}
// TS: the TMEM column of A, right after the accumulators; block-scaled: of the scale factors.
GPUPROBE_HD constexpr uint32_t tcgen05_a_column(const Tcgen05OpInfo& info, bool throughput) {
  return tcgen05_accumulators(info, throughput) * info.n;
}
// TMEM columns to allocate: a power of two, 32 to 512, holding the accumulators and A or the
// scale factors.
GPUPROBE_HD constexpr uint32_t tcgen05_tmem_columns(const Tcgen05OpInfo& info, bool throughput) {
  const uint32_t need = tcgen05_a_column(info, throughput) + (info.ts ? kTcgen05AWords : 0) +
                        (tcgen05_block_scaled(info) ? kTcgen05SfColumns : 0);
  uint32_t cols = 32;
  while (cols < need) cols *= 2;
  return cols;
}

// The 32-bit instruction descriptor of kind::f16/tf32/f8f6f4/i8 (PTX ISA "Instruction descriptor
// format"): [4,6) D format (0 F16, 1 F32, 2 S32), [7,10) A format,
// [10,13) B format (f16 kind: 0 F16, 1 BF16; tf32 kind: 2 TF32; f8f6f4: 0 E4M3, 1 E5M2, 3 E2M3,
// 4 E3M2, 5 E2M1; i8: 1 S8), [13]/[14] negate A/B 0, [15]/[16] A/B major 0 (K-major), [17,23)
// N >> 3, [24,29) M >> 4.
GPUPROBE_HD constexpr uint32_t tcgen05_idesc(const Tcgen05OpInfo& info) {
  // Block-scaled kinds (PTX ISA's second descriptor table; CUTLASS InstrDescriptorBlockScaled):
  // [4,6) B scale factor id 0 (byte 0 of its columns), [7,10)/[10,13) A/B format (mxf8f6f4: E4M3
  // 0; mxf4, mxf4nvf4: E2M1 1), [17,23) N >> 3, [23] scale format (1 UE8M0, 0 UE4M3), [24,29)
  // M >> 4, [29,31) A scale factor id 0, [31] K 0 (dense: K 32 for mxf8f6f4, 64 for mxf4*).
  if (tcgen05_block_scaled(info)) {
    const uint32_t ab = tcgen05_packed_fp4(info) ? 1 : 0;
    return (ab << 7) | (ab << 10) | ((info.n >> 3) << 17) |
           ((tcgen05_ue4m3_scales(info) ? 0u : 1u) << 23) | ((tcgen05_m(info) >> 4) << 24);
  }
  const uint32_t d_format = info.acc == Tcgen05Type::s32 ? 2 : info.acc == Tcgen05Type::f16 ? 0 : 1;
  // A/B format in Tcgen05Type's order, f16 to s8 (the block-scaled ones are above).
  constexpr uint32_t kAbFormat[] = {0, 1, 2, 0, 1, 4, 3, 5, 0, 0, 0, 1};
  const uint32_t ab_format = kAbFormat[static_cast<unsigned>(info.input)];
  return (d_format << 4) | (ab_format << 7) | (ab_format << 10) | ((info.n >> 3) << 17) |
         ((tcgen05_m(info) >> 4) << 24);
}

// The 64-bit shared-memory descriptor of tcgen05 (PTX ISA "Shared memory descriptor"), no
// swizzle: [0,14) start address >> 4, [16,30) LBO >> 4, [32,46) SBO >> 4, [46,48) version 1
// (mandatory on sm_100), [49,52) base offset 0, [52] LBO mode 0, [61,64) layout 0 (none).
GPUPROBE_HD constexpr uint64_t tcgen05_smem_desc(uint32_t smem_addr) {
  return uint64_t((smem_addr & 0x3FFFF) >> 4) | (uint64_t(kTcgen05LboBytes >> 4) << 16) |
         (uint64_t(kTcgen05SboBytes >> 4) << 32) | (uint64_t{1} << 46);
}

// The descriptor tcgen05.cp reads the scale factors through: 32 rows of 16 bytes back to back
// (core matrices of 8 rows x 16 bytes, 128 bytes apart: SBO 128; one 16-byte column, LBO unused),
// version 1, no swizzle.
GPUPROBE_HD constexpr uint64_t tcgen05_sf_desc(uint32_t smem_addr) {
  return uint64_t((smem_addr & 0x3FFFF) >> 4) | (uint64_t(kTcgen05SfRowBytes >> 4) << 16) |
         (uint64_t(128 >> 4) << 32) | (uint64_t{1} << 46);
}

static_assert(in_enum_order(kTcgen05Ops), "kTcgen05Ops must list the enum's values in order");
static_assert(kTcgen05ThroughputPerIteration % 2 == 0, "a multiple of every accumulator count");

// Kernel arguments. Word images are per CTA of the group, the even CTA's first.
struct Tcgen05Args {
  const uint32_t* a_image;   // cta_group x kTcgen05AImageBytes: A in the shared-memory layout
  const uint32_t* b_image;   // cta_group x b_rows x 32 bytes: B (N x K) in the same layout
  const uint32_t* a_tmem;    // TS: cta_group x 128 rows x kTcgen05AWords words (row-major)
  const uint32_t* sf_image;  // block-scaled: kTcgen05SfImageBytes (A's 32 x 16 bytes, then B's)
  uint32_t* tile;            // store: cta_group x 128 rows x tcgen05_tile_row_words of D
  uint64_t iterations;
  uint64_t zero;             // a runtime 0: the closing clock read depends on the last wait
  uint32_t store;            // non-zero: D is read from TMEM and stored to `tile`
};

// What thread 0 of each CTA writes. The issuing CTA's cycles bracket its loop; the peer CTA of
// a pair (leader 0) reports only its SM.
struct Tcgen05CtaOut {
  uint64_t start_cycles;
  uint64_t end_cycles;
  uint32_t smid;
  uint32_t ran;              // 1 once the CTA finished
  uint32_t leader;           // 1: this CTA issued the MMAs and timed them
  uint32_t pad;
};

}  // namespace gpuprobe::probes::tensor
