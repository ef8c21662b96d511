#include "probes/atomics/atomics_ops.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "harness/stats.hpp"

namespace gpuprobe::probes {

namespace {

using atomics::AtomicsLowering;
using atomics::AtomicsOperation;
using atomics::AtomicsWarpOut;

constexpr AtomicsPattern kPatterns[] = {AtomicsPattern::same, AtomicsPattern::distinct,
                                        AtomicsPattern::contended, AtomicsPattern::uniform};

uint64_t mask_of(AtomicsOp op) {
  return atomics_info(op).bytes == 8 ? ~uint64_t{0} : uint64_t{0xffffffffu};
}

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace

const char* atomics_kind_name(AtomicsKind kind) {
  return kind == AtomicsKind::latency ? "latency" : "throughput";
}

const char* atomics_pattern_name(AtomicsPattern pattern) {
  switch (pattern) {
    case AtomicsPattern::same: return "same";
    case AtomicsPattern::distinct: return "distinct";
    case AtomicsPattern::contended: return "contended";
    case AtomicsPattern::uniform: return "uniform";
  }
  return "?";
}

const char* atomics_lowering_name(AtomicsLowering lowering) {
  switch (lowering) {
    case AtomicsLowering::native: return "native";
    case AtomicsLowering::warp_aggregated: return "warp_aggregated";
    case AtomicsLowering::cas_loop: return "cas_loop";
    case AtomicsLowering::popc_inc: return "popc_inc";
  }
  return "?";
}

const atomics::AtomicsOpInfo& atomics_info(AtomicsOp op) { return atomics::atomics_op_info(op); }

AtomicsOp parse_atomics_op(const std::string& name) {
  std::string known;
  for (const auto& info : atomics::kAtomicsOps) {
    if (name == info.name) return info.op;
    known += known.empty() ? info.name : std::string(", ") + info.name;
  }
  throw Error("unknown atomics op '" + name + "' (known: " + known + ")");
}

AtomicsPattern parse_atomics_pattern(const std::string& name) {
  for (AtomicsPattern p : kPatterns)
    if (name == atomics_pattern_name(p)) return p;
  throw Error("unknown atomics pattern '" + name + "' (known: same, distinct, contended, uniform)");
}

std::vector<AtomicsPattern> atomics_patterns(AtomicsOp op) {
  const auto& info = atomics_info(op);
  if (info.lowering == AtomicsLowering::warp_aggregated) return {AtomicsPattern::uniform};
  if (info.shared) return {AtomicsPattern::same, AtomicsPattern::distinct};
  return {AtomicsPattern::same, AtomicsPattern::distinct, AtomicsPattern::contended};
}

std::string atomics_kernel_name(AtomicsOp op, AtomicsKind kind) {
  return std::string("gpuprobe_atomics_") + atomics_info(op).name +
         (kind == AtomicsKind::latency ? "_lat" : "_thr");
}

uint32_t atomics_chains(AtomicsKind kind) {
  return kind == AtomicsKind::latency ? 1 : atomics::kAtomicsThroughputChains;
}

uint64_t atomics_word_count(const AtomicsSetup& s) {
  const uint32_t chains = atomics_chains(s.kind);
  const uint32_t wpb = s.block_threads / 32;
  if (atomics_info(s.op).shared) return uint64_t{s.blocks} * atomics::atomics_block_words(s.pattern, chains, wpb);
  const uint64_t warps = uint64_t{s.blocks} * wpb;
  switch (s.pattern) {
    case AtomicsPattern::same: return warps * chains;
    case AtomicsPattern::distinct: return warps * chains * 32;
    default: return chains;
  }
}

uint64_t atomics_dynamic_smem_bytes(const AtomicsSetup& s) {
  const auto& info = atomics_info(s.op);
  if (!info.shared || s.pattern == AtomicsPattern::uniform) return 0;
  return atomics::atomics_block_words(s.pattern, atomics_chains(s.kind), s.block_threads / 32) * info.bytes;
}

uint64_t atomics_init_word(AtomicsOp op) {
  const auto& info = atomics_info(op);
  if (info.operation == AtomicsOperation::add_f32) return 0;
  return info.bytes == 8 ? atomics::kAtomicsInit64 : atomics::kAtomicsInit32;
}

std::vector<uint64_t> atomics_expected_words(const AtomicsSetup& s, const AtomicsRun& run,
                                             const std::vector<AtomicsWarpOut>& warps) {
  const auto& info = atomics_info(s.op);
  const uint32_t chains = atomics_chains(s.kind);
  const uint32_t wpb = s.block_threads / 32;
  const uint64_t ops = run.iterations * atomics::kAtomicsOpsPerIteration;
  std::vector<uint64_t> count(atomics_word_count(s), 0);
  for (uint64_t w = 0; w < warps.size(); ++w)
    for (uint32_t k = 0; k < chains; ++k) {
      if (info.operation == AtomicsOperation::cas && s.pattern != AtomicsPattern::distinct) {
        // every lane of the warp on one word: its successes are the warp's
        count.at(atomics::atomics_word(s.pattern, info.shared, chains, w, wpb, 0, k)) += warps[w].hits[k];
        continue;
      }
      for (uint32_t lane = 0; lane < 32; ++lane)
        count.at(atomics::atomics_word(s.pattern, info.shared, chains, w, wpb, lane, k)) += ops;
    }
  std::vector<uint64_t> words(count.size(), 0);
  const uint64_t init = atomics_init_word(s.op);
  for (std::size_t i = 0; i < count.size(); ++i) {
    switch (info.operation) {
      case AtomicsOperation::add:
      case AtomicsOperation::red_add:
        words[i] = (init + count[i] * (info.bytes == 8 ? atomics::kAtomicsAddend64 : 1)) & mask_of(s.op);
        break;
      case AtomicsOperation::cas: words[i] = (init + count[i]) & mask_of(s.op); break;
      case AtomicsOperation::add_f32: {
        const float f = static_cast<float>(count[i]);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        words[i] = bits;
        break;
      }
      case AtomicsOperation::exch: break;
    }
  }
  return words;
}

void check_atomics_fits(const AtomicsSetup& s, const DeviceInfo&) {
  const auto& info = atomics_info(s.op);
  const std::string kernel = atomics_kernel_name(s.op, s.kind);
  if (s.block_threads == 0 || s.block_threads % 32 != 0 || s.block_threads > 1024)
    throw Error(kernel + ": block size " + std::to_string(s.block_threads) +
                " is not a multiple of 32 between 32 and 1024");
  if (s.blocks == 0) throw Error(kernel + ": a launch needs a block");
  const auto allowed = atomics_patterns(s.op);
  if (std::find(allowed.begin(), allowed.end(), s.pattern) == allowed.end())
    throw Error(kernel + ": pattern " + atomics_pattern_name(s.pattern) + " does not apply to " + info.name);
  if (s.kind == AtomicsKind::latency && info.operation == AtomicsOperation::red_add)
    throw AtomicsOpUnavailable(std::string(info.ptx) + " returns nothing: no latency chain (throughput only)");
}

AtomicsResult summarize_atomics_launch(const AtomicsSetup& s, const AtomicsRun& run,
                                       const std::vector<AtomicsWarpOut>& warps,
                                       const std::vector<uint64_t>& words) {
  const std::string kernel = atomics_kernel_name(s.op, s.kind);
  const auto& info = atomics_info(s.op);
  const uint32_t chains = atomics_chains(s.kind);
  const uint32_t wpb = s.block_threads / 32;
  AtomicsResult r;
  r.ops_per_chain = run.iterations * atomics::kAtomicsOpsPerIteration;
  const uint64_t ops = r.ops_per_chain;
  const uint64_t expected_warps = uint64_t(s.blocks) * wpb;
  if (warps.size() != expected_warps)
    throw Error("self-check failed: " + kernel + " reported " + std::to_string(warps.size()) +
                " warps, expected " + std::to_string(expected_warps));
  struct Span {
    uint64_t first = UINT64_MAX, last = 0;
    uint32_t warps = 0;
  };
  std::map<uint32_t, Span> per_sm;
  std::vector<double> latencies;
  for (std::size_t w = 0; w < warps.size(); ++w) {
    const AtomicsWarpOut& o = warps[w];
    if (o.ran != 1 || !(o.end_cycles > o.start_cycles))
      throw Error("self-check failed: " + kernel + " warp " + std::to_string(w) +
                  (o.ran != 1 ? " did not run" : " ended before it started"));
    if (run.store)
      for (uint32_t k = 0; k < chains; ++k) {
        const bool alone = info.operation != AtomicsOperation::cas || s.pattern == AtomicsPattern::distinct;
        const uint64_t h = o.hits[k];
        if (alone ? h == 32 * ops : (h >= 1 && h <= 32 * ops)) continue;
        throw Error("self-check failed: " + kernel + " warp " + std::to_string(w) + " chain " +
                    std::to_string(k) + " reported " + std::to_string(h) + " hits of " +
                    std::to_string(32 * ops) + " ops");
      }
    latencies.push_back(double(o.end_cycles - o.start_cycles) / double(ops));
    Span& span = per_sm[o.smid];
    span.first = std::min(span.first, o.start_cycles);
    span.last = std::max(span.last, o.end_cycles);
    ++span.warps;
  }
  if (run.store) {
    const uint64_t n = atomics_word_count(s);
    if (words.size() != n)
      throw Error("self-check failed: " + kernel + " returned " + std::to_string(words.size()) +
                  " words, expected " + std::to_string(n));
    const std::string where = kernel + " (" + atomics_pattern_name(s.pattern) + ")";
    if (info.operation == AtomicsOperation::exch) {
      // The last op on a word wrote the last token of a chain that works on the word. 32-bit
      // tokens wrap past 2^32: those launches check nothing beyond the hits.
      const uint64_t thread_chains = expected_warps * 32 * chains;
      if (info.bytes == 8 || (thread_chains + 1) * ops < (uint64_t{1} << 32))
        for (uint64_t i = 0; i < n; ++i) {
          const uint64_t t = words[i];
          const uint64_t tc = t / ops - 1;
          const bool ok = t != 0 && t % ops == 0 && tc < thread_chains &&
                          atomics::atomics_word(s.pattern, info.shared, chains, tc / chains / 32, wpb,
                                                (tc / chains) % 32, tc % chains) == i;
          if (!ok)
            throw Error("self-check failed: " + where + " word " + std::to_string(i) + " holds 0x" +
                        hex(t) + ", not the last token of a chain on it");
        }
    } else {
      const std::vector<uint64_t> expected = atomics_expected_words(s, run, warps);
      for (uint64_t i = 0; i < n; ++i)
        if ((words[i] & mask_of(s.op)) != expected[i])
          throw Error("self-check failed: " + where + " word " + std::to_string(i) + " holds 0x" +
                      hex(words[i]) + ", expected 0x" + hex(expected[i]) + " after " +
                      std::to_string(ops) + " ops per chain");
    }
  }
  r.sms = static_cast<uint32_t>(per_sm.size());
  double warps_total = 0;
  std::vector<double> rates;
  for (const auto& [sm, span] : per_sm) {
    warps_total += span.warps;
    rates.push_back(double(span.warps) * 32 * chains * double(ops) / double(span.last - span.first));
  }
  r.warps_per_sm = warps_total / r.sms;
  r.latency_cycles = stats::median(latencies);
  r.latency_cycles_max = *std::max_element(latencies.begin(), latencies.end());
  r.ops_per_clk_per_sm = stats::median(rates);
  r.ops_per_clk_per_sm_min = *std::min_element(rates.begin(), rates.end());
  r.ops_per_clk_per_sm_max = *std::max_element(rates.begin(), rates.end());
  return r;
}

}  // namespace gpuprobe::probes
