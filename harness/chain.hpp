// Pointer-chase chains, built on the host. A chain is a permutation of slots; the backend turns
// it into 64-bit self-pointers at each slot's byte offset.
#pragma once
#include <cstdint>
#include <vector>

namespace gpuprobe {

struct Chain {
  uint64_t span_bytes = 0;                // bytes the backing buffer must cover
  std::vector<uint64_t> offset_bytes;     // byte offset of slot i (8-byte aligned, < span)
  std::vector<uint32_t> next;             // slot that slot i points to
  uint32_t start = 0;                     // first slot of the walk
  uint64_t slots() const { return next.size(); }
};

// One random cycle through every slot of footprint_bytes / slot_bytes slots (Sattolo's
// algorithm), deterministic for a seed. Defeats prefetchers; used for capacity and latency.
Chain make_random_cycle(uint64_t footprint_bytes, uint32_t slot_bytes, uint64_t seed);

// Slot i points to slot i+1; slot i lies in the i-th stride-sized block, at its start when
// scatter_seed is 0, else at a random 8-byte-aligned offset inside the block (deterministic for
// the seed). Scattering keeps one slot per block, and so the sharing of sectors and lines for
// strides below them, but spreads strides past the line size over all cache sets instead of a
// 1/(stride/line) subset of a modulo-indexed cache's sets, which would hide the line size
// (memory/stride, analysis/line_sector_fit.cpp).
Chain make_stride_ring(uint64_t footprint_bytes, uint32_t stride_bytes, uint64_t scatter_seed = 0);

// One hop per page: pages visited in one random cycle, slot k at k*page + (k*offset_step % page)
// so the hops don't all fall into one cache set. Used for the TLB sweep.
Chain make_page_cycle(uint64_t pages, uint64_t page_bytes, uint32_t offset_step_bytes,
                      uint64_t seed);

// Throws a one-line gpuprobe::Error unless the chain is what every backend assumes: as many
// offsets as next entries, at least one slot, a start slot, each slot an aligned 8-byte slot
// inside the span, each next entry a slot. Checked on the host so a bad chain is never a GPU fault.
void check_chain(const Chain& chain);

// The slot reached after `hops` hops from `from`.
uint32_t walk(const Chain& chain, uint32_t from, uint64_t hops);

// True if `next` is one cycle through every slot.
bool is_single_cycle(const Chain& chain);

}  // namespace gpuprobe
