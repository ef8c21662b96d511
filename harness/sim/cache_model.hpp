// The simulator's building blocks, host-only and header-inline because the walk calls them once
// per hop: the seeded generator, a division by a fixed divisor, the set-associative array that
// caches and TLBs are made of (LRU, tree pseudo-LRU or random replacement; modulo or hashed set
// index) and the L2 home-partition hash. harness/sim/sim_device.cpp builds the machine from them;
// tests/harness/sim/test_cache_model.cpp tests them alone.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "harness/error.hpp"
#include "harness/sim/preset.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gpuprobe::sim::detail {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e37'79b9'7f4a'7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11ebull;
  return z ^ (z >> 31);
}

inline uint64_t mix64(uint64_t value) {
  uint64_t state = value;
  return splitmix64(state);
}

// xoshiro256** seeded through splitmix64: the only source of randomness (noise and random
// replacement), so runs are reproducible from the device's seed.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t state = seed;
    for (auto& word : state_) word = splitmix64(state);
  }
  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // In [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // In [0, n), by multiply-shift (no division).
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>(((next() >> 32) * uint64_t{n}) >> 32);
  }
  // Zero mean, unit variance, approximately normal: the Irwin-Hall sum of four 16-bit uniforms
  // (bounded at +-3.46 sigma; rare large excursions are modelled as outliers instead).
  double standard_normal() {
    const uint64_t bits = next();
    const double sum = static_cast<double>((bits & 0xffff) + ((bits >> 16) & 0xffff) +
                                           ((bits >> 32) & 0xffff) + (bits >> 48)) *
                       (1.0 / 65536.0);
    return (sum - 2.0) * 1.7320508075688772;  // variance of the sum is 4/12
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4] = {};
};

// Quotient and remainder by a fixed divisor without a hardware division: a double-precision
// estimate corrected to the exact value (exact for dividends below 2^52).
class Divider {
 public:
  explicit Divider(uint64_t divisor)
      : divisor_(divisor), inverse_(1.0 / static_cast<double>(divisor)) {}
  uint64_t divisor() const { return divisor_; }
  void divide(uint64_t value, uint64_t& quotient, uint64_t& remainder) const {
    uint64_t q = static_cast<uint64_t>(static_cast<double>(value) * inverse_);
    auto r = static_cast<int64_t>(value - q * divisor_);
    const auto d = static_cast<int64_t>(divisor_);
    while (r < 0) { --q; r += d; }
    while (r >= d) { ++q; r -= d; }
    quotient = q;
    remainder = static_cast<uint64_t>(r);
  }

 private:
  uint64_t divisor_;
  double inverse_;
};

// The L2 partition (0 or 1) that is the home of a 128-byte line: the parity of a mask of its
// line-address bits, as address-interleaving hashes are. The mask holds bit 0, so the two lines of
// every aligned pair have different homes: any buffer of whole pairs is split exactly in half,
// and line >> 1 numbers a partition's lines densely.
inline int l2_home_partition(uint64_t line) {
  constexpr uint64_t kHomeMask = 0x0000'0000'5a5a'a5a5ull | 1u;
  return std::popcount(line & kHomeMask) & 1;
}

// Set-associative array, flat: way w of set s is word s * ways + w, and a set's words share host
// cache lines (64-byte aligned). One 64-bit word per way:
//   bits 32-63 key (0 = empty way), bits 24-31 per-sector valid mask (caches), bits 0-23 LRU stamp.
// The sets may be split into `groups` equal groups (the two L2 partitions): a block is placed in
// the group the caller names. Within a group a block's set is block mod sets, rotated by a hash of
// block / sets when hashed, so the key only needs to tell apart the blocks of one set: it is
// block / sets + 1.
class SetArray {
 public:
  static constexpr int kStampBits = 24;
  static constexpr uint64_t kStampMask = (uint64_t{1} << kStampBits) - 1;
  static constexpr int kMaskShift = 24;
  static constexpr int kKeyShift = 32;

  // rotation_shift: with a hashed index, rotate aligned blocks of 2^rotation_shift blocks (at
  // least a group's sets) instead of runs of one block per set (0).
  SetArray(uint64_t sets, uint32_t ways, bool hashed, Replacement replacement = Replacement::lru,
           uint64_t seed = 0, uint32_t groups = 1, int rotation_shift = 0)
      : group_sets_(sets / std::max<uint32_t>(groups, 1)), ways_(ways),
        way_shift_(std::countr_zero(ways)), total_sets_(sets), hashed_(hashed),
        rotation_shift_(rotation_shift), replacement_(replacement), rng_(seed),
        words_(allocate_words(sets * ways)) {
    if (groups == 0 || sets % groups != 0) throw Error("cache sets do not split into groups");
    if (rotation_shift != 0 && (rotation_shift >= 40 || (uint64_t{1} << rotation_shift) < sets / groups))
      throw Error("a set-hash rotation block must hold at least one block per set");
    if (replacement == Replacement::plru && (!std::has_single_bit(ways) || ways > 32))
      throw Error("tree pseudo-LRU needs a power-of-two number of ways, at most 32");
    if (replacement == Replacement::plru) tree_.assign(sets, 0);
    reset();
  }

  // Empties every set and forgets the replacement state (not the random stream: the next walk
  // draws new victims, as the next run on a GPU would).
  void reset() {
    std::fill(words_.get(), words_.get() + total_sets_ * ways_, 0);
    std::fill(tree_.begin(), tree_.end(), 0);
    clock_ = 0;
  }

  struct Location {
    uint64_t first = 0;  // first word of the set
    uint64_t key = 0;
  };

  uint64_t sets() const { return total_sets_; }
  uint32_t ways() const { return ways_; }
  uint64_t set_of(const Location& where) const { return where.first / ways_; }

  Location locate(uint64_t block, uint32_t group = 0) const {
    uint64_t run = 0;
    uint64_t set = 0;
    group_sets_.divide(block, run, set);
    uint64_t key = run + 1;
    if (hashed_) {
      // Each aligned run of `sets` consecutive blocks is rotated by a hash of the run number:
      // a contiguous buffer still fills every set evenly, while large power-of-two strides
      // spread over all sets instead of piling into one. With a rotation block, each aligned
      // block of 2^rotation_shift blocks is rotated instead: a contiguous buffer then loads the
      // sets a little unevenly (some by one line more), as an address hash over a non-power-of-
      // two number of slices does. A run then spans at most two rotation blocks, and the key
      // says which, so that blocks of one run that share a set stay apart.
      const uint64_t n = group_sets_.divisor();
      uint64_t rotation_block = run;
      if (rotation_shift_ != 0) {
        rotation_block = block >> rotation_shift_;
        key = 2 * run + 1 + (rotation_block != ((run * n) >> rotation_shift_) ? 1 : 0);
      }
      set += static_cast<uint64_t>((static_cast<unsigned __int128>(mix64(rotation_block)) * n) >> 64);
      if (set >= n) set -= n;
    }
    if (key > UINT32_MAX) throw Error("simulated address beyond the modelled range");
    return {(group * group_sets_.divisor() + set) * ways_, key};
  }

  // Asks the host to bring the set's words in ahead of touch().
  void prefetch(uint64_t first) const {
    __builtin_prefetch(words_.get() + first);
    __builtin_prefetch(words_.get() + first + ways_ - 1);
  }

  // Looks the key up in its set; on a hit updates the replacement state and returns its word with
  // `hit` true; on a miss replaces a way (an empty one first, else the policy's victim) with the
  // key and an empty sector mask and returns that word with `hit` false.
  uint64_t& touch(const Location& where, bool& hit) {
    uint64_t* set = words_.get() + where.first;
    for (uint32_t way = 0; way < ways_; ++way) {
      if ((set[way] >> kKeyShift) == where.key) {
        hit = true;
        if (replacement_ == Replacement::lru) set[way] = (set[way] & ~kStampMask) | tick();
        else if (replacement_ == Replacement::plru) plru_touch(where.first >> way_shift_, way);
        return set[way];
      }
    }
    hit = false;
    uint32_t victim = 0;
    switch (replacement_) {
      case Replacement::lru: {
        const uint64_t now = tick();
        uint64_t oldest = set[0] & kStampMask;
        for (uint32_t way = 1; way < ways_; ++way) {  // branch-free: stamps are unpredictable
          const uint64_t stamp = set[way] & kStampMask;
          const bool older = stamp < oldest;
          oldest = older ? stamp : oldest;
          victim = older ? way : victim;
        }
        set[victim] = (where.key << kKeyShift) | now;
        return set[victim];
      }
      case Replacement::plru: {
        const uint64_t index = where.first >> way_shift_;
        victim = empty_way(set);
        if (victim == ways_) victim = plru_victim(index);
        plru_touch(index, victim);
        break;
      }
      case Replacement::random:
        victim = empty_way(set);
        if (victim == ways_) victim = rng_.below(ways_);
        break;
    }
    set[victim] = where.key << kKeyShift;
    return set[victim];
  }

 private:
  uint32_t empty_way(const uint64_t* set) const {
    for (uint32_t way = 0; way < ways_; ++way)
      if (set[way] == 0) return way;
    return ways_;
  }

  // Tree pseudo-LRU over ways = 2^d leaves: node 1 is the root, node i has children 2i and 2i+1,
  // and bit i of the set's tree word says on which side the next victim is (1: the upper half).
  // An access turns every node on its path away from it.
  void plru_touch(uint64_t set, uint32_t way) {
    uint32_t& bits = tree_[set];
    uint32_t node = 1;
    for (int level = way_shift_ - 1; level >= 0; --level) {
      const uint32_t side = (way >> level) & 1;
      bits = side ? (bits & ~(1u << node)) : (bits | (1u << node));
      node = 2 * node + side;
    }
  }
  uint32_t plru_victim(uint64_t set) const {
    const uint32_t bits = tree_[set];
    uint32_t node = 1;
    uint32_t way = 0;
    for (int level = 0; level < way_shift_; ++level) {
      const uint32_t side = (bits >> node) & 1;
      way = (way << 1) | side;
      node = 2 * node + side;
    }
    return way;
  }

  uint64_t tick() {
    if (clock_ == kStampMask) renumber();
    return ++clock_;
  }

  // Keeps the LRU order of every set when the stamp clock runs out (every 16 M accesses).
  void renumber() {
    std::vector<uint32_t> order(ways_);
    for (uint64_t first = 0; first < total_sets_ * ways_; first += ways_) {
      uint64_t* set = words_.get() + first;
      for (uint32_t way = 0; way < ways_; ++way) order[way] = way;
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return (set[a] & kStampMask) < (set[b] & kStampMask);
      });
      for (uint32_t rank = 0; rank < ways_; ++rank) {
        uint64_t& word = set[order[rank]];
        if (word != 0) word = (word & ~kStampMask) | (rank + 1);
      }
    }
    clock_ = ways_;
  }

  struct AlignedDelete {
    std::align_val_t alignment{64};
    void operator()(uint64_t* words) const { ::operator delete[](words, alignment); }
  };

  // Cache-line aligned so a set's words share host lines; large arrays are aligned to, and
  // backed by, huge pages where the host allows it: they are touched at random, and host TLB
  // misses would otherwise dominate the walk.
  static std::unique_ptr<uint64_t[], AlignedDelete> allocate_words(uint64_t count) {
    constexpr uint64_t kHugePageBytes = 2u << 20;
    uint64_t bytes = count * sizeof(uint64_t);
    const bool huge = bytes >= kHugePageBytes;
    const uint64_t alignment_bytes = huge ? kHugePageBytes : 64;
    bytes = (bytes + alignment_bytes - 1) / alignment_bytes * alignment_bytes;
    const std::align_val_t alignment{alignment_bytes};
    auto* words = static_cast<uint64_t*>(::operator new[](bytes, alignment));
#ifdef MADV_HUGEPAGE
    if (huge) madvise(words, bytes, MADV_HUGEPAGE);  // advice only: failure means small pages
#endif
    return std::unique_ptr<uint64_t[], AlignedDelete>(words, AlignedDelete{alignment});
  }

  Divider group_sets_;
  uint32_t ways_;
  int way_shift_;  // log2(ways) where ways is a power of two (pseudo-LRU)
  uint64_t total_sets_;
  bool hashed_;
  int rotation_shift_;
  Replacement replacement_;
  Rng rng_;
  std::unique_ptr<uint64_t[], AlignedDelete> words_;
  std::vector<uint32_t> tree_;  // pseudo-LRU: one tree word per set
  uint64_t clock_ = 0;
};

}  // namespace gpuprobe::sim::detail
