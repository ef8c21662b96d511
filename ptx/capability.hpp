// The one capability table: which PTX features each compile target and each GPU has.
// Host code asks device_has(cap, cc) before launching; device code states what a wrapper needs
// with GPUPROBE_PTX_REQUIRE(cap), a compile error on a compile pass that lacks it.
//
// Targets (README.md "Targets"; CUDA C++ Programming Guide, "Compute Capabilities", on the
// architecture- and family-specific feature sets): a plain sm_XY pass may use a feature from its min_sm on;
// an `f` pass (sm_100f) adds the family features; an `a` pass (sm_90a) adds the features of that
// exact compute capability. nvcc 13 defines __CUDA_ARCH_FAMILY_SPECIFIC__ on `a` and `f` passes
// and __CUDA_ARCH_SPECIFIC__ on `a` passes only (checked with #pragma message on every target).
#pragma once
#include "ptx/types.cuh"


namespace gpuprobe::ptx {

enum class Cap {
  sreg_timers,           // %clock64, %globaltimer, %smid
  ld_shared,             // ld.shared / st.shared
  ld_global_cache_ops,   // ld.global.{ca,cg,cs,lu,cv,nc}
  ld_L2_256B,            // ld.global.L2::256B prefetch-size hint
  ld_st_global_256,      // 256-bit ld.global/st.global (.v8.b32), PTX ISA 8.8
  cluster_dsmem,         // clusters, mapa, ld.shared::cluster, barrier.cluster
  wgmma,                 // wgmma.mma_async
  tcgen05,               // tcgen05.alloc/ld/st/cp/commit, tcgen05.mma kind::f16/tf32/f8f6f4
  tcgen05_block_scaled,  // tcgen05.mma kind::mxf8f6f4/mxf4nvf4 .block_scale, kind::i8 family
  block_scaled_mma,      // mma.sync kind::mxf8f6f4/mxf4nvf4 .block_scale (consumer Blackwell)
  fma_bf16x2,            // fma.rn.bf16x2 (PTX ISA 7.0)
  tanh_approx,           // tanh.approx.f32 (PTX ISA 7.0)
  fma_f32x2,             // fma.rn.f32x2 (PTX ISA 8.6): FFMA2 on sm_100/103, two FFMA elsewhere
  redux_sync,            // redux.sync.{add,min,max,and,or,xor} integer forms (PTX ISA 7.0)
  elect_sync,            // elect.sync (PTX ISA 8.0)
  mbarrier,              // mbarrier.init/arrive/test_wait on shared memory (PTX ISA 7.0)
  mbarrier_try_wait,     // mbarrier.try_wait{.parity} (PTX ISA 7.8)
  fence_proxy_async,     // fence.proxy.async (PTX ISA 8.0)
  cp_async,              // cp.async.{ca,cg}.shared.global + commit/wait groups (PTX ISA 7.0)
  bulk_copy,             // cp.async.bulk{.tensor} + mbarrier expect_tx/complete_tx (PTX ISA 8.0)
  bulk_multicast,        // cp.async.bulk{.tensor}.multicast::cluster (PTX ISA 8.0; an Advisory
                         // from ptxas on plain targets, so only on a/f targets)
};

// What kind of compile target a capability needs besides the SM number.
enum class TargetNeed {
  any,       // plain sm_XY (and every a/f target from min_sm on)
  family,    // an `a` or `f` target of a listed SM
  specific,  // an `a` target of a listed SM
};

enum class TargetKind { plain, family, specific };  // sm_XY, sm_XYf, sm_XYa

struct PtxTarget {
  int sm = 0;  // 90 for sm_90/sm_90a
  TargetKind kind = TargetKind::plain;
};

struct CapInfo {
  Cap cap;
  const char* name;
  int min_sm;
  TargetNeed need;
  int only_sm[4];       // non-zero entries: the SMs that have it; all zero: every SM >= min_sm
  const char* targets;  // for messages: the compile targets that provide it
};

inline constexpr CapInfo kCapabilities[] = {
    {Cap::sreg_timers, "sreg_timers", 70, TargetNeed::any, {}, "sm_70+"},
    {Cap::ld_shared, "ld_shared", 70, TargetNeed::any, {}, "sm_70+"},
    {Cap::ld_global_cache_ops, "ld_global_cache_ops", 70, TargetNeed::any, {}, "sm_70+"},
    {Cap::ld_L2_256B, "ld_L2_256B", 80, TargetNeed::any, {}, "sm_80+"},
    {Cap::ld_st_global_256, "ld_st_global_256", 100, TargetNeed::any, {}, "sm_100+"},
    {Cap::cluster_dsmem, "cluster_dsmem", 90, TargetNeed::any, {}, "sm_90+"},
    {Cap::wgmma, "wgmma", 90, TargetNeed::specific, {90}, "sm_90a"},
    {Cap::tcgen05, "tcgen05", 100, TargetNeed::family, {100, 103, 110},
     "sm_100a/103a/110a or sm_100f/103f/110f"},
    {Cap::tcgen05_block_scaled, "tcgen05_block_scaled", 100, TargetNeed::specific, {100, 103, 110},
     "sm_100a/103a/110a"},
    {Cap::block_scaled_mma, "block_scaled_mma", 120, TargetNeed::family, {120, 121},
     "sm_120a/121a or sm_120f/121f"},
    {Cap::fma_bf16x2, "fma_bf16x2", 80, TargetNeed::any, {}, "sm_80+"},
    {Cap::tanh_approx, "tanh_approx", 75, TargetNeed::any, {}, "sm_75+"},
    {Cap::fma_f32x2, "fma_f32x2", 100, TargetNeed::any, {}, "sm_100+"},
    {Cap::redux_sync, "redux_sync", 80, TargetNeed::any, {}, "sm_80+"},
    {Cap::elect_sync, "elect_sync", 90, TargetNeed::any, {}, "sm_90+"},
    {Cap::mbarrier, "mbarrier", 80, TargetNeed::any, {}, "sm_80+"},
    {Cap::mbarrier_try_wait, "mbarrier_try_wait", 90, TargetNeed::any, {}, "sm_90+"},
    {Cap::fence_proxy_async, "fence_proxy_async", 90, TargetNeed::any, {}, "sm_90+"},
    {Cap::cp_async, "cp_async", 80, TargetNeed::any, {}, "sm_80+"},
    {Cap::bulk_copy, "bulk_copy", 90, TargetNeed::any, {}, "sm_90+"},
    {Cap::bulk_multicast, "bulk_multicast", 90, TargetNeed::family, {90, 100, 103, 110},
     "sm_90a or sm_100a/103a/110a (f)"},
};
inline constexpr unsigned kCapabilityCount = sizeof(kCapabilities) / sizeof(kCapabilities[0]);

GPUPROBE_HD constexpr const CapInfo& capability_info(Cap cap) {
  return kCapabilities[static_cast<unsigned>(cap)];
}

// True if hardware of SM number `sm` has the feature (given code built for a suitable target).
GPUPROBE_HD constexpr bool sm_has(const CapInfo& info, int sm) {
  if (sm < info.min_sm) return false;
  bool listed = false;
  bool any_listed = false;
  for (int s : info.only_sm) {
    any_listed = any_listed || s != 0;
    listed = listed || s == sm;
  }
  return !any_listed || listed;
}

// Does a compile pass for `target` accept the feature?
GPUPROBE_HD constexpr bool target_has(Cap cap, PtxTarget target) {
  const CapInfo& info = capability_info(cap);
  if (!sm_has(info, target.sm)) return false;
  switch (info.need) {
    case TargetNeed::any: return true;
    case TargetNeed::family: return target.kind != TargetKind::plain;
    case TargetNeed::specific: return target.kind == TargetKind::specific;
  }
  return false;
}

// Host mirror: does a GPU of SM number `sm` (major * 10 + minor) have the feature?
GPUPROBE_HD inline constexpr bool device_has(Cap cap, int sm) { return sm_has(capability_info(cap), sm); }

namespace detail {
GPUPROBE_HD constexpr bool table_in_enum_order() {
  for (unsigned i = 0; i < kCapabilityCount; ++i) {
    if (static_cast<unsigned>(kCapabilities[i].cap) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "kCapabilities must list the Cap values in enum order");
}  // namespace detail

}  // namespace gpuprobe::ptx

// ---- device side: the current compile pass ---------------------------------------------------
// Whether this compiler emits PTX ISA 8.8 (CUDA 12.9+): 256-bit global loads and stores. NVRTC
// defines the same version macros as nvcc; an unknown compiler counts as too old.
#if defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 9))
#define GPUPROBE_PTX_ISA_8_8 1
#else
#define GPUPROBE_PTX_ISA_8_8 0
#endif
// This compile pass has 256-bit global loads and stores (sm_100+, PTX ISA 8.8). Their wrappers
// exist only under it: kernels that need them trap on other passes, and the host refuses first.
#if GPUPROBE_PTX_ISA_8_8 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
#define GPUPROBE_PTX_HAS_256BIT 1
#else
#define GPUPROBE_PTX_HAS_256BIT 0
#endif

#define GPUPROBE_PTX_STR2(x) #x
#define GPUPROBE_PTX_STR(x) GPUPROBE_PTX_STR2(x)

#if defined(__CUDA_ARCH__)
#if defined(__CUDA_ARCH_SPECIFIC__)
#define GPUPROBE_PTX_TARGET_KIND ::gpuprobe::ptx::TargetKind::specific
#define GPUPROBE_PTX_TARGET_SUFFIX "a"
#elif defined(__CUDA_ARCH_FAMILY_SPECIFIC__)
#define GPUPROBE_PTX_TARGET_KIND ::gpuprobe::ptx::TargetKind::family
#define GPUPROBE_PTX_TARGET_SUFFIX "f"
#else
#define GPUPROBE_PTX_TARGET_KIND ::gpuprobe::ptx::TargetKind::plain
#define GPUPROBE_PTX_TARGET_SUFFIX ""
#endif
#define GPUPROBE_PTX_CURRENT_TARGET \
  (::gpuprobe::ptx::PtxTarget{__CUDA_ARCH__ / 10, GPUPROBE_PTX_TARGET_KIND})

// Compile error, naming the capability and the pass, when this pass lacks `cap` (a Cap name).
// The condition does not depend on template parameters, so a wrapper that needs `cap` fails to
// build wherever it is included for a pass without it: keep such wrappers in their own headers,
// included only by the *.smXYa.cu / *.smXYf.cu translation units that target them.
#define GPUPROBE_PTX_REQUIRE(cap)                                                        \
  static_assert(::gpuprobe::ptx::target_has(::gpuprobe::ptx::Cap::cap,                  \
                                            GPUPROBE_PTX_CURRENT_TARGET),               \
                "gpuprobe: PTX capability '" #cap "' is not available for this compile " \
                "target (__CUDA_ARCH__=" GPUPROBE_PTX_STR(__CUDA_ARCH__)                 \
                    GPUPROBE_PTX_TARGET_SUFFIX "); see ptx/capability.hpp for the targets " \
                    "that have it")
#else
#define GPUPROBE_PTX_REQUIRE(cap) static_assert(true)
#endif
