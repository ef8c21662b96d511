// The multicast TMA copy (PTX ISA: cp.async.bulk.tensor): one CTA's tensor load lands in the same
// shared-memory offset of every CTA of its cluster named in a mask, and completes on each one's
// mbarrier at that offset. ptxas gives it an Advisory (a warning) on plain targets ("should be used
// on sm_90a/sm_100a/..."), so it lives in its own header, included only by the *.sm90a.cu unit
// that targets it (GPUPROBE_PTX_REQUIRE(bulk_multicast) fails the build elsewhere). NVRTC-safe.
#pragma once
#include "ptx/async_copy.cuh"
#include "ptx/capability.hpp"
#include "ptx/types.cuh"

namespace gpuprobe::ptx {

// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// .multicast::cluster [s], [map, {x, y}], [bar], mask; (mask: a u16 of cluster CTA ranks); PTX ISA
// 8.0; sm_90a, sm_100a/f. SASS: UTMALDG.2D.MULTICAST
__device__ __forceinline__ void cp_async_bulk_tensor_2d_multicast(uint32_t dst, const void* map,
                                                                  int32_t x, int32_t y,
                                                                  uint32_t bar, unsigned short mask) {
  GPUPROBE_PTX_REQUIRE(bulk_multicast);
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"
      ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(bar), "h"(mask)
      : "memory");
}

}  // namespace gpuprobe::ptx
