// The simulated device. Each chase walks the chain it is given, hop by hop, through a model of
// the memory system: TLB levels (LRU), then sectored set-associative caches (LRU, hashed set
// index for L2 slices), then DRAM. A hop's latency is that of the first level that hits, plus the
// TLB penalties, times a seeded jitter. Nothing maps a footprint to a latency directly: plateaus,
// knees and steps come out of the walk.
#include "harness/sim/sim_device.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "harness/error.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gpuprobe::sim {
namespace {

enum class MemorySpace { global, shared };

// Where the simulated buffer lives: 2 MiB aligned, like a cudaMalloc of a large buffer.
constexpr uint64_t kGlobalBaseAddress = 0x7f00'0000'0000ull;

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e37'79b9'7f4a'7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11ebull;
  return z ^ (z >> 31);
}

uint64_t mix64(uint64_t value) {
  uint64_t state = value;
  return splitmix64(state);
}

// xoshiro256** seeded through splitmix64: the only source of noise, so runs are reproducible.
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

// Set-associative LRU array, flat: way w of set s is word s * ways + w, and a set's words share
// host cache lines (64-byte aligned). One 64-bit word per way:
//   bits 32-63 key (0 = empty way), bits 24-31 per-sector valid mask (caches), bits 0-23 LRU stamp.
// A block's set is block mod sets (rotated by a hash of block / sets when hashed), so the key
// only needs to tell apart the blocks of one set: it is block / sets + 1.
class LruArray {
 public:
  static constexpr int kStampBits = 24;
  static constexpr uint64_t kStampMask = (uint64_t{1} << kStampBits) - 1;
  static constexpr int kMaskShift = 24;
  static constexpr int kKeyShift = 32;

  LruArray(uint64_t sets, uint32_t ways, bool hashed)
      : sets_(sets), ways_(ways), hashed_(hashed), words_(allocate_words(sets * ways)) {
    reset();
  }

  void reset() {
    std::fill(words_.get(), words_.get() + sets_.divisor() * ways_, 0);
    clock_ = 0;
  }

  struct Location {
    uint64_t first = 0;  // first word of the set
    uint64_t key = 0;
  };

  Location locate(uint64_t block) const {
    uint64_t run = 0;
    uint64_t set = 0;
    sets_.divide(block, run, set);
    if (hashed_) {
      // Each aligned run of `sets` consecutive blocks is rotated by a hash of the run number:
      // a contiguous buffer still fills every set evenly, while large power-of-two strides
      // spread over all sets instead of piling into one.
      const uint64_t n = sets_.divisor();
      set += static_cast<uint64_t>((static_cast<unsigned __int128>(mix64(run)) * n) >> 64);
      if (set >= n) set -= n;
    }
    if (run + 1 > UINT32_MAX) throw Error("simulated address beyond the modelled range");
    return {set * ways_, run + 1};
  }

  // Asks the host to bring the set's words in ahead of touch().
  void prefetch(uint64_t first) const {
    __builtin_prefetch(words_.get() + first);
    __builtin_prefetch(words_.get() + first + ways_ - 1);
  }

  // Looks the key up in its set; on a hit makes it most recent and returns its word with `hit`
  // true; on a miss replaces the least recently used way (empty ways first) with the key and an
  // empty sector mask and returns that word with `hit` false.
  uint64_t& touch(const Location& where, bool& hit) {
    const uint64_t now = tick();
    uint64_t* set = words_.get() + where.first;
    for (uint32_t way = 0; way < ways_; ++way) {
      if ((set[way] >> kKeyShift) == where.key) {
        set[way] = (set[way] & ~kStampMask) | now;
        hit = true;
        return set[way];
      }
    }
    uint32_t victim = 0;
    uint64_t oldest = set[0] & kStampMask;
    for (uint32_t way = 1; way < ways_; ++way) {  // branch-free: stamps are unpredictable
      const uint64_t stamp = set[way] & kStampMask;
      const bool older = stamp < oldest;
      oldest = older ? stamp : oldest;
      victim = older ? way : victim;
    }
    set[victim] = (where.key << kKeyShift) | now;
    hit = false;
    return set[victim];
  }

 private:
  uint64_t tick() {
    if (clock_ == kStampMask) renumber();
    return ++clock_;
  }

  // Keeps the LRU order of every set when the stamp clock runs out (every 16 M accesses).
  void renumber() {
    std::vector<uint32_t> order(ways_);
    for (uint64_t first = 0; first < sets_.divisor() * ways_; first += ways_) {
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

  Divider sets_;
  uint32_t ways_;
  bool hashed_;
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

  std::unique_ptr<uint64_t[], AlignedDelete> words_;
  uint64_t clock_ = 0;
};

int log2_exact(uint64_t value) { return std::countr_zero(value); }

// Caches index by the offset from the buffer's 2 MiB-aligned base: the buffer is taken to be
// physically contiguous, so the base only shifts every set by the same amount.
class CacheLevel {
 public:
  explicit CacheLevel(const CacheLevelModel& model)
      : lines_(model.capacity_bytes / model.line_bytes / model.ways, model.ways,
               model.hashed_sets),
        line_shift_(log2_exact(model.line_bytes)),
        sector_shift_(log2_exact(model.sector_bytes)),
        sector_index_mask_(model.line_bytes / model.sector_bytes - 1),
        hit_latency_cycles_(model.hit_latency_cycles) {}

  void reset() { lines_.reset(); }

  LruArray::Location locate(uint64_t address) const {
    return lines_.locate((address - kGlobalBaseAddress) >> line_shift_);
  }
  void prefetch(const LruArray::Location& where) const { lines_.prefetch(where.first); }

  // True if the line is present and the sector valid. Otherwise fills: a new line holds only
  // the accessed sector; a present line gains the sector. `where` is locate(address).
  bool access(uint64_t address, const LruArray::Location& where) {
    const uint64_t sector_bit = uint64_t{1}
                                << (LruArray::kMaskShift +
                                    ((address >> sector_shift_) & sector_index_mask_));
    bool line_hit = false;
    uint64_t& word = lines_.touch(where, line_hit);
    if (line_hit && (word & sector_bit)) return true;
    word |= sector_bit;
    return false;
  }

  double hit_latency_cycles() const { return hit_latency_cycles_; }

 private:
  LruArray lines_;
  int line_shift_;
  int sector_shift_;
  uint64_t sector_index_mask_;
  double hit_latency_cycles_;
};

class TlbLevel {
 public:
  explicit TlbLevel(const TlbLevelModel& model)
      : pages_(model.entries / model.ways, model.ways, false),
        miss_penalty_cycles_(model.miss_penalty_cycles) {}
  void reset() {
    pages_.reset();
    last_page_ = UINT64_MAX;
  }
  // True on a hit; a miss installs the page.
  bool access(uint64_t page) {
    if (page == last_page_) return true;  // repeated page: already most recent in its set
    bool hit = false;
    pages_.touch(pages_.locate(page), hit);
    last_page_ = page;
    return hit;
  }
  double miss_penalty_cycles() const { return miss_penalty_cycles_; }

 private:
  LruArray pages_;
  uint64_t last_page_ = UINT64_MAX;
  double miss_penalty_cycles_;
};

// One hop of a chase as the pipeline prepares it: its slot, address and cache sets.
struct Pending {
  uint32_t slot = 0;
  uint64_t address = 0;
  LruArray::Location set[4] = {};
};

}  // namespace

class SimDevice::Impl {
 public:
  Impl(const Preset& preset, uint64_t seed, Faults faults)
      : preset_(preset), rng_(seed), faults_(faults),
        page_shift_(std::countr_zero(preset.page_bytes)) {
    for (const auto& model : preset_.caches) caches_.emplace_back(model);
    for (const auto& model : preset_.tlbs) tlbs_.emplace_back(model);
    const auto l1 = std::find_if(preset_.caches.begin(), preset_.caches.end(),
                                 [](const CacheLevelModel& m) { return m.name == "L1"; });
    if (l1 != preset_.caches.end()) {
      l1_level_ = static_cast<size_t>(l1 - preset_.caches.begin());
      below_l1_level_ = l1_level_ + 1;
    }
  }

  const Preset& preset() const { return preset_; }

  uint64_t free_memory_bytes() const {
    return preset_.info.global_memory_bytes / 20 * 19;  // 95%: the rest is the context's
  }

  double measure_sm_clock_mhz() {
    return preset_.info.rated_sm_clock_mhz * (1.0 + 0.001 * (2.0 * rng_.uniform() - 1.0));
  }

  double l2_distance_cycles(int sm) const {
    if (sm < 0) return 0;
    if (!preset_.l2_sm_offsets_cycles.empty())
      return static_cast<size_t>(sm) < preset_.l2_sm_offsets_cycles.size()
                 ? preset_.l2_sm_offsets_cycles[static_cast<size_t>(sm)]
                 : 0.0;
    if (preset_.l2_sm_spread_cycles == 0) return 0;
    // A fixed pattern per SM (not per seed): its place on the chip does not change between runs.
    const double u = static_cast<double>(mix64(0x5eed'0000ull + uint64_t(sm)) >> 11) * 0x1.0p-53;
    return preset_.l2_sm_spread_cycles * u;
  }

  WalkResult walk(const Chain& chain, const WalkSpec& spec) {
    checked_chain(chain, spec);
    if (spec.keep_each_hop.size() != spec.phase_hops.size())
      throw Error("walk: keep_each_hop must have one entry per phase");
    reset_state();
    sm_penalty_cycles_ = l2_distance_cycles(spec.sm);
    const size_t first_level = spec.from_l1 ? l1_level_ : below_l1_level_;
    HopStream hops(*this, chain, spec.shared ? MemorySpace::shared : MemorySpace::global,
                   first_level);
    WalkResult result;
    result.phase_cycles.assign(spec.phase_hops.size(), 0.0);
    result.hop_cycles.resize(spec.phase_hops.size());
    for (size_t phase = 0; phase < spec.phase_hops.size(); ++phase) {
      uint64_t count = spec.phase_hops[phase];
      // The planted fault: the timed phase (the second) walks too far.
      if (phase == 1 && faults_.extra_timed_hops > 0) {
        count += faults_.extra_timed_hops;
        result.extra_timed_hops = faults_.extra_timed_hops;
      }
      const bool keep = spec.keep_each_hop[phase];
      if (keep) result.hop_cycles[phase].reserve(count);
      double sum = 0;
      hops.run(count, [&](double cycles) {
        sum += cycles;
        if (keep) result.hop_cycles[phase].push_back(cycles);
      });
      result.phase_cycles[phase] = sum;
    }
    if (faults_.extra_final_hops > 0) hops.run(faults_.extra_final_hops, [](double) {});
    result.final_slot = hops.next_slot();
    ++walks_;
    result.clock_mhz = preset_.info.rated_sm_clock_mhz *
                       (faults_.slow_clock_from_walk != 0 && walks_ >= faults_.slow_clock_from_walk &&
                                walks_ < faults_.slow_clock_from_walk + faults_.slow_clock_walks
                            ? 0.9
                            : 1.0);
    return result;
  }

 private:
  // Cache levels whose set is located (and prefetched on the host) ahead of the hop.
  static constexpr size_t kTrackedLevels = std::size(Pending{}.set);

  // The hops of one chase, in order. Walking a large chain is bound by the host's memory
  // latency (the chain and the tag arrays do not fit its caches), so the walk is software
  // pipelined: the chain is followed kChaseAhead hops ahead of the simulated hop, and the
  // address and cache sets of the hop kLocateAhead ahead are computed and prefetched. The
  // simulated order of accesses is exactly the chain's order.
  class HopStream {
   public:
    HopStream(Impl& device, const Chain& chain, MemorySpace space, size_t first_level)
        : device_(device), chain_(chain), shared_(space == MemorySpace::shared),
          first_level_(first_level),
          tracked_levels_(std::min(device.caches_.size(), kTrackedLevels)),
          chase_slot_(chain.start) {
      for (uint64_t hop = 0; hop < kChaseAhead; ++hop) follow(hop);
      for (uint64_t hop = 0; hop < kLocateAhead; ++hop) locate(hop);
    }

    template <class Consume>
    void run(uint64_t count, Consume&& consume) {
      for (uint64_t end = hop_ + count; hop_ < end; ++hop_) {
        follow(hop_ + kChaseAhead);
        locate(hop_ + kLocateAhead);
        const Pending& pending = ring_[hop_ % kRingSize];
        const double cycles = shared_ ? device_.preset_.shared_latency_cycles
                                      : device_.global_latency(pending, first_level_);
        consume(device_.jitter(cycles));
      }
    }

    // The slot the next hop starts from (the one reached after every hop so far).
    uint32_t next_slot() const { return ring_[hop_ % kRingSize].slot; }

   private:
    static constexpr uint64_t kRingSize = 64;
    static constexpr uint64_t kChaseAhead = 48;
    static constexpr uint64_t kLocateAhead = 32;

    void follow(uint64_t hop) {
      ring_[hop % kRingSize].slot = chase_slot_;
      __builtin_prefetch(&chain_.offset_bytes[chase_slot_]);
      chase_slot_ = chain_.next[chase_slot_];
    }

    void locate(uint64_t hop) {
      if (shared_) return;
      Pending& pending = ring_[hop % kRingSize];
      pending.address = kGlobalBaseAddress + chain_.offset_bytes[pending.slot];
      for (size_t level = first_level_; level < tracked_levels_; ++level) {
        pending.set[level] = device_.caches_[level].locate(pending.address);
        device_.caches_[level].prefetch(pending.set[level]);
      }
    }

    Impl& device_;
    const Chain& chain_;
    bool shared_;
    size_t first_level_;
    size_t tracked_levels_;
    uint32_t chase_slot_;
    uint64_t hop_ = 0;
    Pending ring_[kRingSize] = {};
  };

  void checked_chain(const Chain& chain, const WalkSpec& spec) {
    const uint64_t slots = chain.next.size();
    if (slots == 0 || chain.offset_bytes.size() != slots || chain.start >= slots)
      throw Error("chain is malformed: " + std::to_string(slots) + " next entries, " +
                  std::to_string(chain.offset_bytes.size()) + " offsets, start " +
                  std::to_string(chain.start));
    if (!spec.shared && chain.span_bytes > free_memory_bytes())
      throw Error("chain spans " + std::to_string(chain.span_bytes) + " bytes, more than the " +
                  std::to_string(free_memory_bytes()) + " bytes free on " + preset_.info.name);
    for (uint64_t i = 0; i < slots; ++i)
      if (chain.next[i] >= slots || chain.offset_bytes[i] % 8 != 0 ||
          chain.offset_bytes[i] + 8 > chain.span_bytes)
        throw Error("chain slot " + std::to_string(i) +
                    " points outside the chain or is not an 8-byte slot inside its span");
  }

  void reset_state() {
    for (auto& level : caches_) level.reset();
    for (auto& level : tlbs_) level.reset();
  }

  double translate(uint64_t address) {
    const uint64_t page = address >> page_shift_;
    double penalty_cycles = 0;
    for (auto& level : tlbs_) {
      if (level.access(page)) return penalty_cycles;
      penalty_cycles += level.miss_penalty_cycles();
    }
    return penalty_cycles + preset_.page_walk_cycles;
  }

  double global_latency(const Pending& hop, size_t first_level) {
    const double translation_cycles = translate(hop.address);
    for (size_t level = first_level; level < caches_.size(); ++level) {
      const LruArray::Location where =
          level < kTrackedLevels ? hop.set[level] : caches_[level].locate(hop.address);
      if (caches_[level].access(hop.address, where))
        return translation_cycles + caches_[level].hit_latency_cycles() +
               (level == l1_level_ ? 0.0 : sm_penalty_cycles_);
    }
    return translation_cycles + preset_.dram_latency_cycles + sm_penalty_cycles_;
  }

  double jitter(double latency_cycles) {
    double cycles = latency_cycles * (1.0 + preset_.noise_rel * rng_.standard_normal());
    if (rng_.uniform() < preset_.outlier_probability) cycles += preset_.outlier_extra_cycles;
    return std::max(cycles, 1.0);
  }

  Preset preset_;
  Rng rng_;
  Faults faults_;
  uint64_t walks_ = 0;
  int page_shift_;
  double sm_penalty_cycles_ = 0;
  std::vector<CacheLevel> caches_;
  std::vector<TlbLevel> tlbs_;
  size_t l1_level_ = 0;        // where .ca/.cs/.lu/.nc loads start
  size_t below_l1_level_ = 0;  // where .cg/.cv loads start
};

SimDevice::SimDevice(const Preset& preset, uint64_t seed, Faults faults)
    : impl_(std::make_unique<Impl>(preset, seed, faults)) {}
SimDevice::~SimDevice() = default;
const DeviceInfo& SimDevice::info() const { return impl_->preset().info; }
const Preset& SimDevice::preset() const { return impl_->preset(); }
uint64_t SimDevice::free_memory_bytes() { return impl_->free_memory_bytes(); }
double SimDevice::measure_sm_clock_mhz(uint64_t /*spin_ns*/) {
  return impl_->measure_sm_clock_mhz();
}
nlohmann::json SimDevice::warm_up(double /*max_seconds*/) {
  const double mhz = impl_->preset().info.rated_sm_clock_mhz;
  return {{"seconds", 0.0}, {"busy_rounds", 0}, {"sm_clock_mhz_before", mhz},
          {"sm_clock_mhz_after", mhz}, {"steady", true}, {"simulated", true}};
}
nlohmann::json SimDevice::telemetry() {
  return {{"available", false}, {"reason", "simulated device: no driver to ask"}};
}
uint64_t SimDevice::min_timed_region_ns() const { return impl_->preset().min_timed_region_ns; }
WalkResult SimDevice::walk(const Chain& chain, const WalkSpec& spec) {
  return impl_->walk(chain, spec);
}
double SimDevice::l2_distance_cycles(int sm) const { return impl_->l2_distance_cycles(sm); }

std::unique_ptr<Device> make_sim_device(const Preset& preset, uint64_t seed, Faults faults) {
  return std::make_unique<SimDevice>(preset, seed, faults);
}

}  // namespace gpuprobe::sim
