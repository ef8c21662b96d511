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

// Slot i points to slot i+1 at i*stride_bytes + (i*skew_bytes mod stride_bytes); the last one
// back to 0. A skew of 8 B keeps every slot inside its own stride-sized block but moves it along
// the block, so strides past the line size still spread over all cache sets instead of aliasing
// into a 1/(stride/line) subset of them (which would hide the line size: memory/stride).
Chain make_stride_ring(uint64_t footprint_bytes, uint32_t stride_bytes, uint32_t skew_bytes = 0);

// One hop per page: pages visited in one random cycle, slot k at k*page + (k*offset_step % page)
// so the hops don't all fall into one cache set. Used for the TLB sweep.
Chain make_page_cycle(uint64_t pages, uint64_t page_bytes, uint32_t offset_step_bytes,
                      uint64_t seed);

// The slot reached after `hops` hops from `from`.
uint32_t walk(const Chain& chain, uint32_t from, uint64_t hops);

// True if `next` is one cycle through every slot.
bool is_single_cycle(const Chain& chain);

}  // namespace gpuprobe
