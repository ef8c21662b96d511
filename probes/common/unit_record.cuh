// The record every timed unit of a kernel (a warp, a warpgroup, a CTA) leaves for the host: the
// first thread of the unit writes out[unit] with its %clock64 bracket, its SM, the family's own
// fields (`fill(o)`), and `ran = 1` last. `Out` has start_cycles, end_cycles, smid and ran. Called
// once, after the timed region; the other threads of the unit return without writing.
#pragma once
#include "ptx/types.cuh"

#include "ptx/sreg.cuh"
#include "ptx/warp.cuh"

namespace gpuprobe::probes {

template <class Out, class Fill>
__device__ __forceinline__ void write_unit_record(Out& o, uint64_t c0, uint64_t c1, Fill&& fill) {
  o.start_cycles = c0;
  o.end_cycles = c1;
  o.smid = ptx::get_sreg_smid();
  fill(o);
  o.ran = 1;
}

// Units of kThreads consecutive threads of the grid (32: a warp, 128: a warpgroup), out[] indexed
// by the unit's number in the grid.
template <unsigned kThreads, class Out, class Fill>
__device__ __forceinline__ void record_unit(Out* out, uint64_t c0, uint64_t c1, Fill&& fill) {
  if (threadIdx.x % kThreads != 0) return;
  write_unit_record(out[(uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kThreads], c0, c1, fill);
}

// The sum over the warp of each lane's v (a butterfly of shuffles), for lane 0 to record: outside
// the timed region.
__device__ __forceinline__ uint32_t warp_sum(uint32_t v) {
#pragma unroll
  for (uint32_t m = 16; m != 0; m >>= 1) v += ptx::shfl_sync_bfly_b32(v, m);
  return v;
}

// One unit per CTA, out[] indexed by blockIdx.x, written by thread 0.
template <class Out, class Fill>
__device__ __forceinline__ void record_cta(Out* out, uint64_t c0, uint64_t c1, Fill&& fill) {
  if (threadIdx.x != 0) return;
  write_unit_record(out[blockIdx.x], c0, c1, fill);
}

}  // namespace gpuprobe::probes
