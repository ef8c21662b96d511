#include "harness/chain.hpp"

#include <limits>
#include <random>
#include <string>

#include "harness/error.hpp"

namespace gpuprobe {
namespace {

uint32_t slot_count(uint64_t footprint_bytes, uint64_t slot_bytes, const char* what) {
  if (slot_bytes < 8 || slot_bytes % 8 != 0)
    throw Error(std::string(what) + " must be a positive multiple of 8 bytes, got " +
                std::to_string(slot_bytes));
  const uint64_t n = footprint_bytes / slot_bytes;
  if (n < 1)
    throw Error("footprint of " + std::to_string(footprint_bytes) + " bytes holds no " +
                std::to_string(slot_bytes) + "-byte slot");
  if (n > std::numeric_limits<uint32_t>::max())
    throw Error("footprint of " + std::to_string(footprint_bytes) + " bytes has too many slots");
  return static_cast<uint32_t>(n);
}

// Sattolo's algorithm: a uniformly random cyclic permutation (one cycle through all n slots).
std::vector<uint32_t> sattolo_cycle(uint32_t n, uint64_t seed) {
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (uint32_t i = n - 1; i > 0; --i) {
    std::uniform_int_distribution<uint32_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  return order;  // order[i] is the successor of i
}

}  // namespace

Chain make_random_cycle(uint64_t footprint_bytes, uint32_t slot_bytes, uint64_t seed) {
  const uint32_t n = slot_count(footprint_bytes, slot_bytes, "slot size");
  Chain c;
  c.span_bytes = static_cast<uint64_t>(n) * slot_bytes;
  c.offset_bytes.resize(n);
  for (uint32_t i = 0; i < n; ++i) c.offset_bytes[i] = static_cast<uint64_t>(i) * slot_bytes;
  c.next = sattolo_cycle(n, seed);
  return c;
}

Chain make_stride_ring(uint64_t footprint_bytes, uint32_t stride_bytes, uint64_t scatter_seed) {
  const uint32_t n = slot_count(footprint_bytes, stride_bytes, "stride");
  Chain c;
  c.span_bytes = static_cast<uint64_t>(n) * stride_bytes;
  c.offset_bytes.resize(n);
  c.next.resize(n);
  std::mt19937_64 rng(scatter_seed);
  std::uniform_int_distribution<uint32_t> in_block(0, stride_bytes / 8 - 1);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t offset = scatter_seed == 0 ? 0 : 8ull * in_block(rng);
    c.offset_bytes[i] = static_cast<uint64_t>(i) * stride_bytes + offset;
    c.next[i] = (i + 1 == n) ? 0 : i + 1;
  }
  return c;
}

Chain make_page_cycle(uint64_t pages, uint64_t page_bytes, uint32_t offset_step_bytes,
                      uint64_t seed) {
  if (pages < 1 || pages > std::numeric_limits<uint32_t>::max())
    throw Error("page count must be within [1, 2^32), got " + std::to_string(pages));
  if (page_bytes < 64 || page_bytes % 8 != 0)
    throw Error("page size must be a multiple of 8 bytes and at least 64, got " +
                std::to_string(page_bytes));
  if (offset_step_bytes % 8 != 0)
    throw Error("page offset step must be a multiple of 8 bytes, got " +
                std::to_string(offset_step_bytes));
  const auto n = static_cast<uint32_t>(pages);
  Chain c;
  c.span_bytes = pages * page_bytes;
  c.offset_bytes.resize(n);
  for (uint32_t k = 0; k < n; ++k)
    c.offset_bytes[k] = static_cast<uint64_t>(k) * page_bytes +
                        (static_cast<uint64_t>(k) * offset_step_bytes) % (page_bytes - 8);
  for (auto& o : c.offset_bytes) o -= o % 8;
  c.next = sattolo_cycle(n, seed);
  return c;
}

void check_chain(const Chain& chain) {
  if (chain.next.size() != chain.offset_bytes.size())
    throw Error("chain has " + std::to_string(chain.next.size()) + " next entries but " +
                std::to_string(chain.offset_bytes.size()) + " offsets");
  if (chain.slots() == 0) throw Error("chain has no slots");
  if (chain.start >= chain.slots())
    throw Error("chain start slot " + std::to_string(chain.start) + " is not below its " +
                std::to_string(chain.slots()) + " slots");
  for (uint64_t i = 0; i < chain.slots(); ++i) {
    const uint64_t offset = chain.offset_bytes[i];
    if (offset % 8 != 0 || offset + 8 > chain.span_bytes)
      throw Error("chain slot " + std::to_string(i) + " at byte offset " + std::to_string(offset) +
                  " is not an aligned 8-byte slot inside the " + std::to_string(chain.span_bytes) +
                  "-byte span");
    if (chain.next[i] >= chain.slots())
      throw Error("chain slot " + std::to_string(i) + " points to slot " +
                  std::to_string(chain.next[i]) + ", beyond its " + std::to_string(chain.slots()) +
                  " slots");
  }
}

uint32_t walk(const Chain& chain, uint32_t from, uint64_t hops) {
  if (chain.next.empty()) throw Error("cannot walk an empty chain");
  // A single cycle of n slots repeats every n hops: walk only the remainder. Checking the cycle
  // costs n random reads, so only when it can save hops (fewer hops than slots walk as they are).
  if (hops >= chain.next.size() && is_single_cycle(chain)) hops %= chain.next.size();
  uint32_t at = from;
  for (uint64_t i = 0; i < hops; ++i) at = chain.next[at];
  return at;
}

bool is_single_cycle(const Chain& chain) {
  const std::size_t n = chain.next.size();
  if (n == 0) return false;
  uint32_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (chain.next[at] >= n) return false;
    at = chain.next[at];
    if (at == 0 && i + 1 < n) return false;
  }
  return at == 0;
}

}  // namespace gpuprobe
