// sync/primitives: the cost of every synchronization primitive of probes/sync/sync.def, as a
// latency (one dependent chain: cycles per op, and ns at the SM clock measured right after) and as
// a rate (independent work on every SM: ops per clock per SM, and per second). The barriers'
// latencies are swept: bar.* against the warps per block (1 to 32), the cluster ops against the
// cluster size (1 or 2 to 8), the grid barrier against the grid (1 CTA, then 1, 2 and 4 CTAs per
// SM; launched cooperatively, no rate: a grid has one barrier). Each point repeats its launch
// until stable; every launch's chains pass the self-check against the host's simulation of the
// warp. An op the device lacks is recorded as skipped with the reason. The kernels are sync.cu;
// the simulator's costs per preset are sync_costs.cpp.
#include "probes/sync/sync.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "analysis/sync_model.hpp"
#include "harness/self_check.hpp"
#include "harness/axes.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/common/plan.hpp"

#define GPUPROBE_SYNC_OP(op, ...)                                                                         \
  GPUPROBE_KERNEL_PAIR_DECLARE_(gpuprobe_sync_,                                                          \
                                (gpuprobe::probes::sync::SyncArgs, gpuprobe::probes::sync::SyncWarpOut*), op)
#include "probes/sync/sync.def"
#undef GPUPROBE_SYNC_OP

namespace gpuprobe::probes {

namespace {

using sync::SyncArgs;
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

constexpr const char* kUnitNames[] = {"thread", "warp", "cta"};  // SyncUnit's, in order

std::string sync_kernel_name(SyncOp op, Kind kind) {
  return std::string("gpuprobe_sync_") + sync_info(op).name + kind_suffix(kind);
}

// The value of the op's swept variable in a launch (warps per block, cluster size, grid blocks),
// 1 for an op without a sweep.
uint32_t sweep_value(const SyncSetup& s) {
  switch (sync_info(s.op).shape) {
    case SyncShape::cta: return s.block_threads / 32;
    case SyncShape::cluster:
    case SyncShape::dsmem: return s.cluster_size;
    case SyncShape::grid: return s.blocks;
    default: return 1;
  }
}

// The op's units (sync::SyncUnit: threads, warps or CTAs) per warp of the launch.
double units_per_warp(const SyncSetup& s) {
  const SyncUnit unit = sync_info(s.op).unit;
  return unit == SyncUnit::thread ? 32.0 : unit == SyncUnit::warp ? 1.0 : 32.0 / s.block_threads;
}

// The chains whose results a launch checks: every chain of a warp op or the DSMEM chase, else one.
uint32_t checked_chains(const SyncSetup& s) {
  const SyncShape shape = sync_info(s.op).shape;
  return shape == SyncShape::warp || shape == SyncShape::dsmem ? sync_chains(s.op, s.kind) : 1;
}

}  // namespace

uint32_t sync_chains(SyncOp op, Kind kind) { return kind == Kind::latency ? 1 : sync_info(op).thr_chains; }

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
  require_cap(op.cap, op.ptx, info);
  const std::string kernel = sync_kernel_name(s.op, s.kind);
  check_blocks(kernel, s.block_threads, s.blocks);
  const bool latency = s.kind == Kind::latency;
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

// The sidecar of a launch whose chains ended wrong: per chain, what it must hold (a warp op's:
// each lane's start and aux words and its value after the chain, which the result fingerprints);
// the wrong results (the first 64 warps with one); and which near miss the wrong result is, if
// any (the same chain after one op fewer or more, another chain's result).
static nlohmann::json sync_mismatch_detail(const SyncSetup& s, uint64_t ops,
                                           const std::vector<SyncWarpOut>& warps, uint32_t checked) {
  const auto words = sync_lane_words(s.op);
  const bool warp_op = sync_info(s.op).shape == SyncShape::warp;
  nlohmann::json chains = nlohmann::json::array();
  std::map<uint32_t, std::string> near_misses;  // result -> what gives it
  for (uint32_t k = 0; k < checked; ++k) {
    nlohmann::json c = {{"chain", k}, {"want", "0x" + hex_of(sync_reference(s.op, s, k, ops))}};
    if (warp_op) {
      Lanes start{}, aux{};
      for (uint32_t l = 0; l < 32; ++l) start[l] = words[(l + k) & 31], aux[l] = words[32 + l];
      const Lanes after = warp_after(s.op, start, aux, ops);
      nlohmann::json lanes = nlohmann::json::array();
      for (uint32_t l = 0; l < 32; ++l)
        lanes.push_back({{"lane", l},
                         {"start", "0x" + hex_of(start[l])},
                         {"aux", "0x" + hex_of(aux[l])},
                         {"want", "0x" + hex_of(after[l])}});
      c["lanes"] = lanes;
      c["fingerprint"] = "sum over lanes of value x (2 lane + 1), mod 2^32";
    }
    chains.push_back(c);
    if (ops > 0)
      near_misses.emplace(sync_reference(s.op, s, k, ops - 1),
                          "chain " + std::to_string(k) + " after one op fewer");
    near_misses.emplace(sync_reference(s.op, s, k, ops + 1),
                        "chain " + std::to_string(k) + " after one op more");
  }
  nlohmann::json wrong = nlohmann::json::array();
  std::size_t wrong_warps = 0;
  for (std::size_t w = 0; w < warps.size(); ++w) {
    nlohmann::json bad = nlohmann::json::array();
    for (uint32_t k = 0; k < checked; ++k) {
      const uint32_t want = sync_reference(s.op, s, k, ops), got = warps[w].result[k];
      if (got == want) continue;
      nlohmann::json b = {{"chain", k}, {"got", "0x" + hex_of(got)}, {"want", "0x" + hex_of(want)}};
      for (uint32_t j = 0; j < checked; ++j)
        if (j != k && got == sync_reference(s.op, s, j, ops))
          b["matches"] = "chain " + std::to_string(j) + "'s result";
      if (!b.contains("matches"))
        if (const auto it = near_misses.find(got); it != near_misses.end()) b["matches"] = it->second;
      bad.push_back(b);
    }
    if (bad.empty()) continue;
    if (++wrong_warps <= 64) wrong.push_back({{"warp", w}, {"smid", warps[w].smid}, {"chains", bad}});
  }
  return {{"op", sync_info(s.op).name}, {"ops_per_chain", ops}, {"warps", warps.size()},
          {"wrong_warps", wrong_warps}, {"chains", chains},     {"wrong", wrong}};
}

ChainResult summarize_sync_launch(const SyncSetup& s, const SyncRun& run, const std::vector<SyncWarpOut>& warps) {
  const std::string kernel = sync_kernel_name(s.op, s.kind);
  const sync::SyncOpInfo& info = sync_info(s.op);
  const uint32_t chains = sync_chains(s.op, s.kind);
  const uint64_t ops = run.iterations * info.ops_per_iteration / chains;
  const uint64_t launched = uint64_t(s.blocks) * s.block_threads / 32;
  const ChainResult r = summarize_units(warps, launched, kernel, "warp", ops, [&](const SmSpan& span) {
    return double(span.units) * units_per_warp(s) * chains * double(ops) / span.cycles();
  });
  // What the op's chains must hold; warp w's values are those of the first warp (every warp runs
  // the same chains), except bar_red_popc's count, which is per CTA but the same in each.
  const uint32_t checked = checked_chains(s);
  uint32_t reference[sync::kSyncMaxChains] = {};
  for (uint32_t k = 0; k < checked; ++k) reference[k] = sync_reference(s.op, s, k, ops);
  for (std::size_t w = 0; w < warps.size(); ++w)
    for (uint32_t k = 0; k < checked; ++k)
      if (warps[w].result[k] != reference[k])
        throw SelfCheckFailed(kernel + " warp " + std::to_string(w) + " chain " + std::to_string(k) +
                                  " ended with 0x" + hex_of(warps[w].result[k]) + ", expected 0x" +
                                  hex_of(reference[k]) + " after " + std::to_string(ops) + " ops",
                              {{"warp", w},
                               {"chain", k},
                               {"got", "0x" + hex_of(warps[w].result[k])},
                               {"want", "0x" + hex_of(reference[k])}},
                              sync_mismatch_detail(s, ops, warps, checked));
  return r;
}

namespace {

constexpr const char* kFamily = "sync";
constexpr uint64_t kMaxIterations = uint64_t{1} << 20;
// Throughput shapes (sync_costs.cpp chooses its rates for these).
constexpr uint32_t kCtaThroughputThreads = 64;  // two warps per CTA
constexpr uint32_t kCtaThroughputBlocksPerSm = 16;
constexpr uint32_t kClusterThroughputSize = 2;
constexpr uint32_t kGridBlockThreads = 128;

LaunchConfig config_of(const SyncSetup& s) {
  const uint64_t ring = s.op == SyncOp::dsmem_ld ? uint64_t{sync::kSyncDsmemSlots} * 8 : 0;  // the DSMEM ring
  LaunchConfig c = launch_config(s.blocks, s.block_threads, ring, s.cluster_size);
  // grid_sync traps unless launched cooperatively; launch() checks the grid is resident.
  c.cooperative = sync_info(s.op).shape == SyncShape::grid;
  return c;
}

const KernelPair kKernels[] = {
#define GPUPROBE_SYNC_OP(op, ...) GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_sync_, op)
#include "probes/sync/sync.def"
#undef GPUPROBE_SYNC_OP
};

// On a GPU, timed in the kernel by %clock64 (each warp's own bracket; only compared within one SM).
ChainResult run_on_gpu(KernelRunner& gpu, const SyncSetup& s, const SyncRun& run) {
  check_sync_fits(s, gpu.info());
  const std::string name = sync_kernel_name(s.op, s.kind);
  const auto words = sync_lane_words(s.op);
  const DeviceBuffer lanes = gpu.upload(std::vector<uint32_t>(words.begin(), words.end()));
  const SyncArgs args{.lanes = static_cast<const uint32_t*>(lanes.get()), .iterations = run.iterations,
                      .zero = 0, .store = 1, .mask = 0xffffffffu};
  LaunchRecord record;
  const auto warps = run_units<SyncWarpOut>(gpu, kKernels[static_cast<unsigned>(s.op)].of(s.kind), name, config_of(s),
                                            args, uint64_t(s.blocks) * s.block_threads / 32, record);
  return with_launch(summarize_sync_launch(s, run, warps), record);
}

// On the simulator every SM takes the longer of one chain's ops x latency (against the op's swept
// variable) and its units (threads, warps or CTAs) x chains x ops over the rate; a grid barrier
// makes every SM wait for the whole grid, so every SM takes the chain's time. The chains' results
// are the host's reference.
ChainResult simulate(sim::SimDevice& device, const SyncSetup& s, const SyncRun& run) {
  const sim::Preset& p = device.preset();
  const SyncCosts& costs = op_costs<SyncCost>(p, kFamily);
  check_sync_fits(s, device.info());
  const sync::SyncOpInfo& info = sync_info(s.op);
  const SyncCost& cost = op_cost(p, costs, info.name);
  const std::string kernel = sync_kernel_name(s.op, s.kind);
  if (s.kind == Kind::throughput && !(cost.rate > 0)) skip("the simulated " + p.name + " has no rate for " + info.name);
  const uint32_t chains = sync_chains(s.op, s.kind);
  const uint64_t ops = run.iterations * info.ops_per_iteration / chains;
  const double latency = sync_latency_cycles(cost, sweep_value(s));
  const uint64_t seed = std::hash<std::string>{}(kernel) ^ s.blocks ^ (uint64_t(s.block_threads) << 20) ^
                        (run.iterations << 32) ^ device.next_launch(kFamily);
  const uint32_t warps_per_block = s.block_threads / 32;
  auto warps = simulate_units<SyncWarpOut>(p, s.blocks, warps_per_block, seed, [&](uint32_t, uint32_t n) {
    const double chain_cycles = double(ops) * latency;
    const double issue_cycles =
        info.shape == SyncShape::grid ? 0 : n * units_per_warp(s) * chains * double(ops) / cost.rate;
    return std::max(chain_cycles, issue_cycles);
  });
  for (uint32_t k = 0; k < checked_chains(s); ++k) {
    const uint32_t reference = sync_reference(s.op, s, k, ops);
    for (auto& o : warps) o.result[k] = reference;
  }
  // A planted wrong result (a test's): the last warp's first chain one op short (its top bit
  // flipped where that is the same result).
  if (checked_chains(s) > 0 && device.wrong_result(info.name) && !warps.empty()) {
    uint32_t& result = warps.back().result[0];
    const uint32_t short_one = ops > 0 ? sync_reference(s.op, s, 0, ops - 1) : result;
    result = short_one != result ? short_one : result ^ 0x80000000u;
  }
  return with_launch(summarize_sync_launch(s, run, warps), {kernel, config_of(s)});
}

ChainResult launch(Device& device, const SyncSetup& s, const SyncRun& run) {
  if (auto* sim = dynamic_cast<sim::SimDevice*>(&device)) return simulate(*sim, s, run);
  return run_on_gpu(kernel_runner(device), s, run);
}

// ---- the probe ----------------------------------------------------------------------------------

nlohmann::json measure(ProbeContext& ctx, const SyncSetup& s, const SyncRun& run) {
  const sync::SyncOpInfo& info = sync_info(s.op);
  const char* unit = kUnitNames[static_cast<unsigned>(info.unit)];
  nlohmann::json fields = {
      {"scope", info.scope}, {"unit", unit}, {"block_threads", s.block_threads}, {"blocks", s.blocks}};
  if (s.cluster_size != 0) fields["cluster_size"] = s.cluster_size;
  ChainPoint c = measure_chain_point(ctx, s.kind, run.iterations, sync_chains(s.op, s.kind), info.ptx,
                                     std::move(fields), [&] { return launch(ctx.device(), s, run); }, true);
  if (!c.skipped && s.kind == Kind::throughput && s.op == SyncOp::dsmem_ld) {  // 8-byte loads
    const double sms = ctx.device().info().sm_count;
    c.point["bytes_per_clk_per_sm"] = c.summary.median * 8;
    c.point["bytes_per_s"] = c.summary.median * 8 * sms * c.clock_mhz * 1e6;
  }
  return c.point;
}

// The latency sweep of an op at a point's op and kind: {variable: value} per launch, in order
// (bar.* 1 to 32 warps per block, bar_arrive from 2; clusters of 1 to 8 CTAs, the DSMEM chase from
// 2; the grid 1 CTA, then 1, 2 and 4 CTAs per SM), {} for an op without a sweep or a throughput
// point, none for the grid barrier's throughput (a grid holds one barrier).
std::vector<nlohmann::json> sweep_points(const nlohmann::json& at, uint32_t sms) {
  const sync::SyncOpInfo& info = sync_info(parse_sync_op(at["op"]));
  std::vector<uint32_t> xs;
  if (parse_kind(at["kind"]) == Kind::throughput) {
    if (info.shape == SyncShape::grid) return {};
  } else if (info.shape == SyncShape::cta) {
    xs = {1, 2, 4, 8, 16, 32};
  } else if (info.shape == SyncShape::cluster || info.shape == SyncShape::dsmem) {
    xs = {1, 2, 4, 8};
  } else if (info.shape == SyncShape::grid) {
    xs = {1, sms, 2 * sms, 4 * sms};
  }
  if (xs.empty()) return {nlohmann::json::object()};
  const uint32_t least = info.op == SyncOp::bar_arrive || info.shape == SyncShape::dsmem ? 2 : 1;
  std::vector<nlohmann::json> out;
  for (uint32_t x : xs)
    if (x >= least) out.push_back({{info.sweep, x}});
  return out;
}

// The launch of a point: a latency point's from its sweep value, a throughput point's from the
// op's shape (16 two-warp CTAs per SM for the CTA barriers, 16 one-warp CTAs per SM in clusters of
// 2 for the cluster barriers, --block-threads x --blocks-per-sm for the rest, whole clusters of 2
// for the DSMEM chase).
SyncSetup setup_of(const nlohmann::json& axes, const LaunchParams& l) {
  SyncSetup s;
  s.op = parse_sync_op(axes["op"]);
  s.kind = parse_kind(axes["kind"]);
  const sync::SyncOpInfo& info = sync_info(s.op);
  const uint32_t x = *info.sweep != '\0' && axes.contains(info.sweep) ? axes[info.sweep].get<uint32_t>() : 1;
  if (s.kind == Kind::latency) {
    switch (info.shape) {
      case SyncShape::cta: s.block_threads = 32 * x; break;
      case SyncShape::cluster:
      case SyncShape::dsmem: s.cluster_size = s.blocks = x; break;
      case SyncShape::grid: s.block_threads = kGridBlockThreads, s.blocks = x; break;
      default: break;
    }
    return s;
  }
  const bool cta = info.shape == SyncShape::cta, cluster = info.shape == SyncShape::cluster;
  const bool dsmem = info.shape == SyncShape::dsmem;
  s.block_threads = cta ? kCtaThroughputThreads : cluster ? 32 : l.block_threads;
  s.cluster_size = cluster || dsmem ? kClusterThroughputSize : 0;
  const uint32_t dsmem_per_sm = (l.blocks_per_sm + 1) / 2 * 2;  // whole clusters
  s.blocks = l.sms * (cta || cluster ? kCtaThroughputBlocksPerSm : dsmem ? dsmem_per_sm : l.blocks_per_sm);
  return s;
}

ProbeSpec sync_probe() {
  ProbeSpec p;
  p.id = "sync/primitives";
  p.summary = "warp, CTA, cluster and grid synchronization, mbarrier and fences: latency (cycles, "
              "ns) and rate (ops/clk/SM)";
  p.params = {op_param(op_choices(sync::kSyncOps), "probes/sync/sync.def"), kind_param(),
              iterations_param("64",
                               "loop iterations per launch (64 warp ops, 16 barriers or fences, 8 mbarrier round "
                               "trips or 1 grid barrier per chain each)",
                               kMaxIterations),
              block_threads_param("threads per block of a warp-op, fence, mbarrier or DSMEM throughput launch (a "
                                  "multiple of 32, at most 1024)"),
              blocks_per_sm_param("blocks per SM of those throughput launches (1 to 32)")};
  p.run = [](ProbeContext& ctx) {
    const LaunchParams l = read_launch_params(ctx, kMaxIterations);
    SyncRun run;
    run.iterations = l.iterations;
    Axis sweep;  // an expansion: the sweep's variable is a key of the point's axes only where the op has one
    sweep.values = [&l](const nlohmann::json& at) { return sweep_points(at, l.sms); };
    measure_axes(
        ctx, {op_axis(op_names(sync::kSyncOps)), kind_axis(), sweep},
        [&](const nlohmann::json& axes) { return measure(ctx, setup_of(axes, l), run); },
        "--op " + ctx.params().get_text("op") + " --kind " + ctx.params().get_text("kind") +
            " measures nothing: the grid barrier has no rate (a grid holds one barrier)");
  };
  return p;
}

const ProbeRegistration kRegistration(sync_probe);

// ---- the family (harness/family.hpp): its model section and metrics are analysis/sync_model's

FamilySpec sync_family() {
  const auto estimate = [](const std::string&, const Params& p) {
    return plan::op_points_seconds(plan::op_kind_points(p, p.get_text("op") == "all", 53, 27));
  };
  return op_table_family({.name = kFamily,
                          .title = "Synchronization",
                          .order = 50,
                          .plan = one_run_plan("sync/primitives", "sync_primitives.json"),
                          .estimate_h100_seconds = estimate,
                          .add_run = add_run_by(analysis::add_sync_from_run),
                          .metrics = analysis::sync_metrics},
                         "sync/primitives");
}

const FamilyRegistration kFamilyRegistration(sync_family);

}  // namespace
}  // namespace gpuprobe::probes
