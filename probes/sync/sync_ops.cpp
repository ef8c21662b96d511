#include "probes/sync/sync_ops.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

namespace {

using sync::SyncShape;
using sync::SyncUnit;
using sync::SyncWarpOut;
using Lanes = std::array<uint32_t, 32>;

// A permutation of the lanes of order 31: lane 0 stays, lanes 1..31 rotate. The shuffle and
// ballot chains walk it, so their values differ from the start unless ops is a multiple of 31
// (a rotation by one lane, of order 32, would return to the start after every 64-op iteration).
uint32_t order31(uint32_t lane) { return lane == 0 ? 0 : lane % 31 + 1; }

// One step of a warp op over the 32 lanes, as the PTX ISA defines it (clamp 0x1f / 0 as in
// ptx/warp.cuh, full member mask).
Lanes warp_step(SyncOp op, const Lanes& x, const Lanes& aux) {
  Lanes y{};
  uint32_t any = 0, all = 1, ballot = 0, sum = 0, min = UINT32_MAX;
  for (uint32_t l = 0; l < 32; ++l) {
    any |= x[l] != 0;
    all &= x[l] != 0;
    ballot |= uint32_t((x[l] & aux[l]) != 0) << l;
    sum += x[l];
    min = std::min(min, x[l]);
  }
  const bool all_equal = std::all_of(x.begin(), x.end(), [&](uint32_t v) { return v == x[0]; });
  for (uint32_t l = 0; l < 32; ++l) {
    switch (op) {
      case SyncOp::shfl_idx: y[l] = x[aux[l] & 31]; break;
      case SyncOp::shfl_bfly: y[l] = x[(l ^ aux[l]) & 31]; break;
      case SyncOp::shfl_up: y[l] = l >= aux[l] ? x[l - aux[l]] : x[l]; break;
      case SyncOp::shfl_down: y[l] = l + aux[l] <= 31 ? x[l + aux[l]] : x[l]; break;
      case SyncOp::vote_any: y[l] = any; break;
      case SyncOp::vote_all: y[l] = all; break;
      case SyncOp::vote_ballot: y[l] = ballot; break;
      case SyncOp::match_any: {
        uint32_t m = 0;
        for (uint32_t i = 0; i < 32; ++i) m |= uint32_t(x[i] == x[l]) << i;
        y[l] = m;
        break;
      }
      case SyncOp::match_all: y[l] = all_equal ? 0xffffffffu : 0u; break;
      case SyncOp::redux_add: y[l] = sum; break;
      case SyncOp::redux_min: y[l] = min; break;
      case SyncOp::elect: {
        // The leader is the lowest lane of the member mask (x | aux, the full warp).
        const uint32_t mask = x[l] | aux[l];
        y[l] = mask == 0 ? 0 : static_cast<uint32_t>(__builtin_ctz(mask));
        break;
      }
      default: y[l] = x[l]; break;  // bar_warp_sync
    }
  }
  return y;
}

uint32_t fingerprint(const Lanes& x) {
  uint32_t f = 0;
  for (uint32_t l = 0; l < 32; ++l) f += x[l] * (2 * l + 1);
  return f;
}

// The warp after `ops` steps, found through the chain's cycle: every op's chain enters a cycle
// within 64 steps (the permutations have order 31, the collectives settle in a few steps).
Lanes warp_after(SyncOp op, const Lanes& start, const Lanes& aux, uint64_t ops) {
  std::map<Lanes, uint64_t> index;
  std::vector<Lanes> seen;
  Lanes x = start;
  for (uint64_t i = 0;; ++i) {
    if (i == ops) return x;
    const auto it = index.find(x);
    if (it != index.end()) {
      const uint64_t first = it->second, period = i - first;
      return seen[first + (ops - first) % period];
    }
    index.emplace(x, i);
    seen.push_back(x);
    x = warp_step(op, x, aux);
  }
}

std::string hex(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "%x", v);
  return text;
}

}  // namespace

const char* sync_kind_name(SyncKind kind) {
  return kind == SyncKind::latency ? "latency" : "throughput";
}

const char* sync_unit_name(SyncUnit unit) {
  switch (unit) {
    case SyncUnit::thread: return "thread";
    case SyncUnit::warp: return "warp";
    case SyncUnit::cta: return "cta";
  }
  return "?";
}

const sync::SyncOpInfo& sync_info(SyncOp op) { return sync::sync_op_info(op); }

SyncOp parse_sync_op(const std::string& name) {
  std::string known;
  for (const auto& info : sync::kSyncOps) {
    if (name == info.name) return info.op;
    known += known.empty() ? info.name : std::string(", ") + info.name;
  }
  throw Error("unknown sync op '" + name + "' (known: " + known + ")");
}

std::string sync_kernel_name(SyncOp op, SyncKind kind) {
  return std::string("gpuprobe_sync_") + sync_info(op).name +
         (kind == SyncKind::latency ? "_lat" : "_thr");
}

uint32_t sync_chains(SyncOp op, SyncKind kind) {
  return kind == SyncKind::latency ? 1 : sync_info(op).thr_chains;
}

uint64_t sync_dynamic_smem_bytes(SyncOp op) {
  return op == SyncOp::dsmem_ld ? uint64_t{sync::kSyncDsmemSlots} * 8 : 0;
}

uint32_t sync_sweep_value(const SyncSetup& s) {
  switch (sync_info(s.op).shape) {
    case SyncShape::cta: return s.block_threads / 32;
    case SyncShape::cluster:
    case SyncShape::dsmem: return s.cluster_size;
    case SyncShape::grid: return s.blocks;
    default: return 1;
  }
}

std::array<uint32_t, 64> sync_lane_words(SyncOp op) {
  std::array<uint32_t, 64> w{};
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t start = 0xA5A50000u + l, aux = 0;
    switch (op) {
      case SyncOp::shfl_idx: start = 0x1000 + 0x101 * l, aux = order31(l); break;
      case SyncOp::shfl_bfly: start = 0x1000 + 0x101 * l, aux = l ^ order31(l); break;
      case SyncOp::shfl_up:
      case SyncOp::shfl_down: start = 0x1000 + 0x101 * l, aux = 1; break;
      case SyncOp::vote_any: start = l == 5; break;
      case SyncOp::vote_all: start = l != 5; break;
      case SyncOp::vote_ballot: start = 0x9E3779B9u, aux = 1u << order31(l); break;
      case SyncOp::match_any: start = l % 3; break;
      case SyncOp::match_all: start = l; break;
      case SyncOp::redux_add: start = l + 1; break;
      case SyncOp::redux_min: start = 100 - l; break;
      case SyncOp::elect: start = l + 7, aux = 0xffffffffu; break;
      case SyncOp::bar_warp_sync: start = 0x1000 + 0x101 * l; break;
      default: break;
    }
    w[l] = start;
    w[32 + l] = aux;
  }
  return w;
}

uint32_t sync_reference(SyncOp op, const SyncSetup& setup, uint32_t chain, uint64_t ops) {
  const auto words = sync_lane_words(op);
  switch (sync_info(op).shape) {
    case SyncShape::warp: {
      Lanes start{}, aux{};
      for (uint32_t l = 0; l < 32; ++l) {
        start[l] = words[(l + chain) & 31];
        aux[l] = words[32 + l];
      }
      return fingerprint(warp_after(op, start, aux, ops));
    }
    case SyncShape::dsmem:
      return static_cast<uint32_t>((128 * uint64_t{chain} + ops * sync::kSyncDsmemStride) %
                                   sync::kSyncDsmemSlots);
    case SyncShape::mbarrier: return static_cast<uint32_t>(ops);
    default: break;
  }
  if (op == SyncOp::bar_red_popc && ops > 0)
    // Lane l of every warp starts at 0xA5A50000 + l: (x ^ tid) is even everywhere, so the first
    // count is 0; from then on x is 0 and half the CTA's thread ids are odd.
    return ops == 1 ? 0 : setup.block_threads / 2;
  return words[0];
}

void check_sync_fits(const SyncSetup& s, const DeviceInfo& info) {
  const sync::SyncOpInfo& op = sync_info(s.op);
  const int sm = info.cc.sm();
  if (!ptx::device_has(op.cap, sm))
    throw Skip(std::string(op.ptx) + " needs " + ptx::capability_info(op.cap).targets +
                            "; " + info.name + " is sm_" + std::to_string(sm));
  const std::string kernel = sync_kernel_name(s.op, s.kind);
  if (s.block_threads == 0 || s.block_threads % 32 != 0 || s.block_threads > 1024)
    throw Error(kernel + ": block size " + std::to_string(s.block_threads) +
                " is not a multiple of 32 between 32 and 1024");
  if (s.blocks == 0) throw Error(kernel + ": a launch needs a block");
  const bool latency = s.kind == SyncKind::latency;
  const bool clustered = op.shape == SyncShape::cluster || op.shape == SyncShape::dsmem;
  if (!clustered && s.cluster_size != 0)
    throw Error(kernel + ": only the cluster ops launch clusters");
  switch (op.shape) {
    case SyncShape::warp:
    case SyncShape::mbarrier:
    case SyncShape::fence:
      if (latency && (s.block_threads != 32 || s.blocks != 1))
        throw Error(kernel + ": a latency launch is one warp (one block of 32 threads)");
      break;
    case SyncShape::cta:
      if (latency && s.blocks != 1) throw Error(kernel + ": a latency launch is one CTA");
      if (s.op == SyncOp::bar_arrive && (s.block_threads / 32) % 2 != 0)
        throw Error(kernel + ": the bar.arrive round trip needs an even number of warps, not " +
                    std::to_string(s.block_threads / 32));
      break;
    case SyncShape::cluster:
    case SyncShape::dsmem: {
      const uint32_t least = op.shape == SyncShape::dsmem ? 2 : 1;
      if (s.cluster_size < least || s.cluster_size > sync::kSyncMaxClusterSize)
        throw Error(kernel + ": cluster size " + std::to_string(s.cluster_size) + " is not " +
                    std::to_string(least) + " to " + std::to_string(sync::kSyncMaxClusterSize));
      if (s.blocks % s.cluster_size != 0)
        throw Error(kernel + ": " + std::to_string(s.blocks) +
                    " blocks are not a whole number of clusters of " + std::to_string(s.cluster_size));
      if (latency && (s.blocks != s.cluster_size || s.block_threads != 32))
        throw Error(kernel + ": a latency launch is one cluster of one-warp CTAs");
      break;
    }
    case SyncShape::grid:
      if (!latency)
        throw Error(kernel + ": a grid barrier has no independent instances to overlap (latency only)");
      break;
  }
}

SyncResult summarize_sync_launch(const SyncSetup& s, const SyncRun& run,
                                 const std::vector<SyncWarpOut>& warps) {
  const std::string kernel = sync_kernel_name(s.op, s.kind);
  const sync::SyncOpInfo& info = sync_info(s.op);
  const uint32_t chains = sync_chains(s.op, s.kind);
  SyncResult r;
  r.ops_per_chain = run.iterations * info.ops_per_iteration / chains;
  const uint64_t expected_warps = uint64_t(s.blocks) * s.block_threads / 32;
  if (warps.size() != expected_warps)
    throw Error("self-check failed: " + kernel + " reported " + std::to_string(warps.size()) +
                " warps, expected " + std::to_string(expected_warps));
  // What the op's chains must hold; warp w's values are those of the first warp (every warp runs
  // the same chains), except bar_red_popc's count, which is per CTA but the same in each.
  const uint32_t checked = info.shape == SyncShape::warp || info.shape == SyncShape::dsmem ? chains : 1;
  uint32_t reference[sync::kSyncMaxChains] = {};
  for (uint32_t k = 0; k < checked; ++k) reference[k] = sync_reference(s.op, s, k, r.ops_per_chain);
  struct Span {
    uint64_t first = UINT64_MAX, last = 0;
    uint32_t warps = 0;
  };
  std::map<uint32_t, Span> per_sm;
  std::vector<double> latencies;
  for (std::size_t w = 0; w < warps.size(); ++w) {
    const SyncWarpOut& o = warps[w];
    if (o.ran != 1 || !(o.end_cycles > o.start_cycles))
      throw Error("self-check failed: " + kernel + " warp " + std::to_string(w) +
                  (o.ran != 1 ? " did not run" : " ended before it started"));
    if (run.store) {
      for (uint32_t k = 0; k < checked; ++k) {
        if (o.result[k] == reference[k]) continue;
        throw Error("self-check failed: " + kernel + " warp " + std::to_string(w) + " chain " +
                    std::to_string(k) + " ended with 0x" + hex(o.result[k]) + ", expected 0x" +
                    hex(reference[k]) + " after " + std::to_string(r.ops_per_chain) + " ops");
      }
    }
    latencies.push_back(double(o.end_cycles - o.start_cycles) / double(r.ops_per_chain));
    Span& span = per_sm[o.smid];
    span.first = std::min(span.first, o.start_cycles);
    span.last = std::max(span.last, o.end_cycles);
    ++span.warps;
  }
  r.sms = static_cast<uint32_t>(per_sm.size());
  const double warps_per_unit = info.unit == SyncUnit::thread ? 1.0 / 32
                                : info.unit == SyncUnit::warp ? 1.0
                                                              : s.block_threads / 32.0;
  double warps_total = 0;
  std::vector<double> rates;
  for (const auto& [sm, span] : per_sm) {
    warps_total += span.warps;
    const double ops = double(span.warps) / warps_per_unit * chains * double(r.ops_per_chain);
    rates.push_back(ops / double(span.last - span.first));
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
