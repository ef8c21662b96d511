// Bounded device-side waits. A kernel that waits for an mbarrier phase (TMA, bulk copies, tcgen05
// commits, the mbarrier ops of sync) or for the other CTAs of a grid barrier spins until the
// event comes; a wrong byte count, a lost arrival or a grid that is not co-resident would spin
// until run-all's watchdog kills the process, with nothing to say why. Here every such wait is a
// PTX loop (ptx/mbarrier.cuh, ptx/barrier.cuh *_within) that tests once per round, as before, and
// after a failed test compares %globaltimer_lo with a deadline of kWaitDeadlineNs. On expiry the
// first thread to give up writes a WaitTimeout (kernel-side facts: the wait's kind, block,
// thread, SM, barrier address, parity, iteration, expected bytes, the barrier's raw state) to a
// host-mapped record and traps. The trap loses the context, but the record is host memory: the
// host reads it after the failed synchronize (harness/cuda/cuda_device.cpp throw_cuda_error),
// names the kernel, and the point fails with it (harness/wait_timeout.hpp). On the fast path the
// cost is one clock read nothing waits for and one compare.
//
// The record's device address lives in a per-translation-unit __device__ pointer, which the host
// sets in every kernel module once, before the first launch (each .cu that includes this header
// registers a setter; harness/cuda/wait_timeout.cpp calls them). No kernel takes an argument for
// it, so no kernel signature changes. WaitTimeout is plain C++ that g++ compiles too. NVRTC-safe.
#pragma once
#include "ptx/types.cuh"
#if defined(__CUDACC__)
#include "ptx/barrier.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/sreg.cuh"
#endif

namespace gpuprobe::cuda {

// What kind of wait gave up.
enum class WaitKind : uint32_t {
  mbarrier_try_wait_parity = 1,  // mbarrier.try_wait.parity: a phase of a shared-memory mbarrier
  mbarrier_test_wait = 2,        // mbarrier.test_wait: the phase of an arrive's state
  grid_barrier = 3,              // a grid-wide barrier's poll of a global arrival word
  generation_flag = 4,           // a poll of a global word until it changes (persistent threads)
};

inline constexpr uint32_t kWaitTimeoutMagic = 0x57414954u;  // "WAIT", written last
inline constexpr uint32_t kWaitDeadlineNs = 1000000000u;  // 1 s of %globaltimer

// What a kernel writes when a wait gives up: 64 bytes, every field set by the device.
struct WaitTimeout {
  uint32_t magic;           // kWaitTimeoutMagic once the rest is written
  uint32_t kind;            // WaitKind
  uint32_t block[3];        // blockIdx
  uint32_t thread;          // threadIdx.x (the kernels are 1-D blocks)
  uint32_t sm;              // %smid
  uint32_t barrier;         // shared-memory address of the mbarrier, or the low 32 bits of the word
  uint32_t parity;          // the phase parity (try_wait.parity), or the value the poll waits to leave
  uint32_t iteration;       // the wait site's loop counter (what it is: the site's comment)
  uint32_t expected_bytes;  // the transaction bytes the phase expects (expect_tx), 0 if none
  uint32_t reserved;
  uint64_t observed;        // the barrier's raw 64-bit state (mbarrier) or the polled word, last read
  uint64_t waited_ns;       // %globaltimer_lo from the first test to giving up
};
static_assert(sizeof(WaitTimeout) == 64, "the mapped record is 64 bytes");

// What a wait site knows about itself (WaitTimeout's fields of the same names).
struct WaitSite {
  WaitKind kind;
  uint32_t barrier;
  uint32_t parity;
  uint32_t iteration;
  uint32_t expected_bytes;
};

#if defined(__CUDACC__)
// This module's copy of the record's address; until the host sets it, a record of its own that
// nobody reads (so that the path to the trap has no branch).
static __device__ WaitTimeout gpuprobe_wait_timeout_unread;
static __device__ WaitTimeout* gpuprobe_wait_timeout_record = &gpuprobe_wait_timeout_unread;

// Straight-line code to the trap: a branch here (a null check, a claim by the first thread) made
// ptxas spill a register of the depth-8 TMA kernels (sm_90, sm_100). So every thread that gives up
// writes; two that give up within the same microsecond may mix their fields, each field one of
// theirs.
__device__ __forceinline__ void wait_timed_out(WaitSite site, uint64_t observed, uint32_t waited_ns) {
  volatile WaitTimeout* r = gpuprobe_wait_timeout_record;
  r->kind = static_cast<uint32_t>(site.kind);
  r->block[0] = blockIdx.x;
  r->block[1] = blockIdx.y;
  r->block[2] = blockIdx.z;
  r->thread = threadIdx.x;
  r->sm = ptx::get_sreg_smid();
  r->barrier = site.barrier;
  r->parity = site.parity;
  r->iteration = site.iteration;
  r->expected_bytes = site.expected_bytes;
  r->observed = observed;
  r->waited_ns = waited_ns;
  __threadfence_system();  // the fields reach host memory before the magic says they are there
  r->magic = kWaitTimeoutMagic;
  __threadfence_system();
  __trap();
}

// Past the deadline (`waited`, from a ptx *_within wait), the record and the trap; observe() is
// read only then.
template <class Observe>
__device__ __forceinline__ void give_up_if_late(uint32_t waited, Observe observe, WaitSite site) {
  if (__builtin_expect(waited > kWaitDeadlineNs, 0)) wait_timed_out(site, observe(), waited);
}

// The raw 64-bit word of a shared-memory mbarrier (its layout is the hardware's; the host prints
// it in hex as evidence).
__device__ __forceinline__ uint64_t mbarrier_raw_state(uint32_t bar) {
  uint64_t state;
  asm volatile("ld.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
  return state;
}

#if GPUPROBE_PTX_HAS_MBARRIER_TRY_WAIT
// The phase of parity `parity` of the mbarrier at `bar` (try_wait.parity).
__device__ __forceinline__ void wait_mbarrier_parity(uint32_t bar, uint32_t parity, uint32_t iteration,
                                                     uint32_t expected_bytes) {
  give_up_if_late(ptx::mbarrier_try_wait_parity_shared_b64_within(bar, parity, kWaitDeadlineNs),
                  [=] { return mbarrier_raw_state(bar); },
                  {WaitKind::mbarrier_try_wait_parity, bar, parity, iteration, expected_bytes});
}
#endif

#if GPUPROBE_PTX_HAS_MBARRIER
// The phase of an arrive's `state` (test_wait); `parity` is what a timeout reports.
__device__ __forceinline__ void wait_mbarrier_state(uint32_t bar, uint64_t state, uint32_t parity,
                                                    uint32_t iteration) {
  give_up_if_late(ptx::mbarrier_test_wait_shared_b64_within(bar, state, kWaitDeadlineNs),
                  [=] { return mbarrier_raw_state(bar); },
                  {WaitKind::mbarrier_test_wait, bar, parity, iteration, 0});
}
#endif

// The word at `addr` until (word ^ old) & mask is not 0 (a grid barrier's arrival word, a
// generation counter); kGlobal: a global address, else generic.
template <bool kGlobal = false>
__device__ __forceinline__ void wait_word_changed(uint64_t addr, uint32_t old, uint32_t mask, WaitKind kind,
                                                  uint32_t iteration) {
  give_up_if_late(ptx::ld_acquire_gpu_u32_until_changed<kGlobal>(addr, old, mask, kWaitDeadlineNs),
                  [=] { return uint64_t{ptx::ld_acquire_gpu_u32(addr)}; },
                  {kind, static_cast<uint32_t>(addr), old, iteration, 0});
}
#endif

}  // namespace gpuprobe::cuda

// The host side of this module: a setter of its record pointer, registered with the launch path
// before main (harness/cuda/wait_timeout.hpp). Only in nvcc's host pass.
#if defined(__CUDACC__) && !defined(__CUDACC_RTC__) && !defined(__CUDA_ARCH__)
#include "harness/cuda/wait_timeout.hpp"
namespace {
[[maybe_unused]] const bool gpuprobe_wait_timeout_setter_registered =
    gpuprobe::cuda::register_wait_timeout_setter([](gpuprobe::cuda::WaitTimeout* record) {
      return cudaMemcpyToSymbol(gpuprobe::cuda::gpuprobe_wait_timeout_record, &record, sizeof record);
    });
}  // namespace
#endif
