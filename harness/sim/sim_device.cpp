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
#include <optional>
#include <string>
#include <vector>

#include "harness/error.hpp"
#include "harness/sim/cache_model.hpp"

namespace gpuprobe::sim {
namespace {

enum class MemorySpace { global, shared };

// Where the simulated buffer lives: 2 MiB aligned, like a cudaMalloc of a large buffer.
constexpr uint64_t kGlobalBaseAddress = 0x7f00'0000'0000ull;

using detail::Divider;
using detail::Rng;
using detail::SetArray;
using detail::mix64;

int log2_exact(uint64_t value) { return std::countr_zero(value); }

// Caches index by the offset from the buffer's 2 MiB-aligned base: the buffer is taken to be
// physically contiguous, so the base only shifts every set by the same amount. A partitioned level
// (the two L2 partitions) places each line in the sets of its home partition.
class CacheLevel {
 public:
  CacheLevel(const CacheLevelModel& model, bool partitioned, uint64_t seed)
      : lines_(model.capacity_bytes / model.line_bytes / model.ways, model.ways,
               model.hashed_sets, model.replacement, seed, partitioned ? 2 : 1,
               rotation_shift(model, partitioned)),
        partitioned_(partitioned),
        line_shift_(log2_exact(model.line_bytes)),
        sector_shift_(log2_exact(model.sector_bytes)),
        sector_index_mask_(model.line_bytes / model.sector_bytes - 1),
        hit_latency_cycles_(model.hit_latency_cycles) {}

  void reset() { lines_.reset(); }

  // The set hash's rotation block in the array's blocks: lines, or pairs of lines (one per
  // partition) in a partitioned level.
  static int rotation_shift(const CacheLevelModel& model, bool partitioned) {
    if (!model.hashed_sets || model.hash_block_bytes == 0) return 0;
    return log2_exact(model.hash_block_bytes / model.line_bytes) - (partitioned ? 1 : 0);
  }

  SetArray::Location locate(uint64_t address) const {
    const uint64_t line = (address - kGlobalBaseAddress) >> line_shift_;
    if (!partitioned_) return lines_.locate(line);
    return lines_.locate(line >> 1, static_cast<uint32_t>(detail::l2_home_partition(line)));
  }
  void prefetch(const SetArray::Location& where) const { lines_.prefetch(where.first); }

  // True if the line is present and the sector valid. Otherwise fills: a new line holds only
  // the accessed sector; a present line gains the sector. `where` is locate(address).
  bool access(uint64_t address, const SetArray::Location& where) {
    const uint64_t sector_bit = uint64_t{1}
                                << (SetArray::kMaskShift +
                                    ((address >> sector_shift_) & sector_index_mask_));
    bool line_hit = false;
    uint64_t& word = lines_.touch(where, line_hit);
    if (line_hit && (word & sector_bit)) return true;
    word |= sector_bit;
    return false;
  }

  double hit_latency_cycles() const { return hit_latency_cycles_; }

 private:
  SetArray lines_;
  bool partitioned_;
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
  SetArray pages_;
  uint64_t last_page_ = UINT64_MAX;
  double miss_penalty_cycles_;
};

// One hop of a chase as the pipeline prepares it: its slot, address and cache sets.
struct Pending {
  uint32_t slot = 0;
  uint64_t address = 0;
  SetArray::Location set[4] = {};
};

}  // namespace

class SimDevice::Impl {
 public:
  Impl(const Preset& preset, uint64_t seed, Faults faults)
      : preset_(preset), rng_(seed), faults_(faults),
        page_shift_(std::countr_zero(preset.page_bytes)) {
    for (size_t level = 0; level < preset_.caches.size(); ++level) {
      const CacheLevelModel& model = preset_.caches[level];
      caches_.emplace_back(model, preset_.l2_partitioned && model.name == "L2-far",
                           mix64(seed ^ (0x7e91'ace0'0000ull + level)));
    }
    for (const auto& model : preset_.tlbs) tlbs_.emplace_back(model);
    for (const auto& model : preset_.caches)
      if (model.replacement == Replacement::random) deterministic_ = false;
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
    const uint64_t fingerprint = checked_chain(chain, spec);
    if (spec.keep_each_hop.size() != spec.phase_hops.size())
      throw Error("walk: keep_each_hop must have one entry per phase");
    sm_penalty_cycles_ = l2_distance_cycles(spec.sm);
    const size_t first_level = spec.from_l1 ? l1_level_ : below_l1_level_;
    WalkResult result;
    result.phase_cycles.assign(spec.phase_hops.size(), 0.0);
    result.hop_cycles.resize(spec.phase_hops.size());
    std::vector<uint64_t> counts = spec.phase_hops;
    // The planted fault: the timed phase (the second) walks too far.
    if (counts.size() > 1 && faults_.extra_timed_hops > 0) {
      counts[1] += faults_.extra_timed_hops;
      result.extra_timed_hops = faults_.extra_timed_hops;
    }
    uint64_t total = faults_.extra_final_hops;
    for (uint64_t c : counts) total += c;

    // Every walk starts from empty caches and TLBs, so without random replacement a walk's hops
    // (their latencies before the jitter, and their slots) are the same as those of the last walk
    // of the same chain from the same SM: those are replayed from the memo instead of walked
    // again, and only the jitter is drawn anew, exactly as a walk draws it.
    const HopMemo::Key key{chain.next.data(), chain.next.size(), chain.start, chain.span_bytes,
                           fingerprint, spec.shared, first_level, sm_penalty_cycles_};
    const bool replay = memo_.valid && memo_.key == key && memo_.base_cycles.size() >= total;
    const bool record = !replay && deterministic_ && total <= kMaxMemoHops;
    if (record) {
      memo_.valid = false;
      memo_.key = key;
      memo_.base_cycles.clear();
      memo_.slots.clear();
      memo_.base_cycles.reserve(total);
      memo_.slots.reserve(total);
    }
    std::optional<HopStream> hops;
    if (!replay) {
      reset_state();
      hops.emplace(*this, chain, spec.shared ? MemorySpace::shared : MemorySpace::global,
                   first_level);
    }
    uint64_t hop = 0;
    auto walk_hops = [&](uint64_t count, auto&& consume) {
      if (replay) {
        for (const uint64_t end = hop + count; hop < end; ++hop)
          consume(jitter(memo_.base_cycles[hop]));
        return;
      }
      hops->run(count, [&](double base_cycles, uint32_t slot) {
        if (record) {
          memo_.base_cycles.push_back(base_cycles);
          memo_.slots.push_back(slot);
        }
        consume(jitter(base_cycles));
      });
      hop += count;
    };
    for (size_t phase = 0; phase < counts.size(); ++phase) {
      const bool keep = spec.keep_each_hop[phase];
      if (keep) result.hop_cycles[phase].reserve(counts[phase]);
      double sum = 0;
      walk_hops(counts[phase], [&](double cycles) {
        sum += cycles;
        if (keep) result.hop_cycles[phase].push_back(cycles);
      });
      result.phase_cycles[phase] = sum;
    }
    if (faults_.extra_final_hops > 0) walk_hops(faults_.extra_final_hops, [](double) {});
    if (replay) {
      result.final_slot = hop < memo_.slots.size() ? memo_.slots[hop] : memo_.final_slot;
    } else {
      result.final_slot = hops->next_slot();
      if (record) {
        memo_.final_slot = result.final_slot;
        memo_.valid = true;
      }
    }
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
        consume(cycles, pending.slot);
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

  // Checks the chain and returns a fingerprint of its contents (for the hop memo).
  uint64_t checked_chain(const Chain& chain, const WalkSpec& spec) {
    const uint64_t slots = chain.next.size();
    if (slots == 0 || chain.offset_bytes.size() != slots || chain.start >= slots)
      throw Error("chain is malformed: " + std::to_string(slots) + " next entries, " +
                  std::to_string(chain.offset_bytes.size()) + " offsets, start " +
                  std::to_string(chain.start));
    if (!spec.shared && chain.span_bytes > free_memory_bytes())
      throw Error("chain spans " + std::to_string(chain.span_bytes) + " bytes, more than the " +
                  std::to_string(free_memory_bytes()) + " bytes free on " + preset_.info.name);
    uint64_t fingerprint = slots;
    for (uint64_t i = 0; i < slots; ++i) {
      if (chain.next[i] >= slots || chain.offset_bytes[i] % 8 != 0 ||
          chain.offset_bytes[i] + 8 > chain.span_bytes)
        throw Error("chain slot " + std::to_string(i) +
                    " points outside the chain or is not an 8-byte slot inside its span");
      fingerprint = (fingerprint ^ chain.next[i] ^ (chain.offset_bytes[i] << 29)) *
                    0x9e37'79b9'7f4a'7c15ull;
    }
    return fingerprint;
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
      const SetArray::Location where =
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

  // The hops of the last walk that could be replayed (see walk()), up to kMaxMemoHops of them
  // (12 bytes each).
  static constexpr uint64_t kMaxMemoHops = uint64_t{1} << 24;
  struct HopMemo {
    struct Key {
      const uint32_t* next = nullptr;
      uint64_t slots = 0;
      uint32_t start = 0;
      uint64_t span_bytes = 0;
      uint64_t fingerprint = 0;
      bool shared = false;
      size_t first_level = 0;
      double sm_penalty_cycles = 0;
      bool operator==(const Key&) const = default;
    };
    bool valid = false;
    Key key;
    std::vector<double> base_cycles;  // per hop, before the jitter
    std::vector<uint32_t> slots;      // per hop, the slot it loads
    uint32_t final_slot = 0;          // the slot after the last hop
  };

  Preset preset_;
  Rng rng_;
  Faults faults_;
  // No cache level draws random victims: a walk's hops depend only on the chain and the SM.
  bool deterministic_ = true;
  HopMemo memo_;
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
int SimDevice::l2_partition_of_sm(int sm) const {
  return static_cast<int>(mix64(0x9a27'0000ull + static_cast<uint64_t>(sm) / 2) & 1);
}
bool SimDevice::l2_far(int sm, uint64_t offset_bytes) const {
  const uint64_t line_bytes = impl_->preset().caches.back().line_bytes;
  return detail::l2_home_partition(offset_bytes / line_bytes) != l2_partition_of_sm(sm);
}

std::unique_ptr<Device> make_sim_device(const Preset& preset, uint64_t seed, Faults faults) {
  return std::make_unique<SimDevice>(preset, seed, faults);
}

}  // namespace gpuprobe::sim
