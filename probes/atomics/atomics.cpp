// atomics/ops: the cost of atom/red on global and shared memory (add, cas, exch; 32 and 64 bits)
// in each address pattern (probes/atomics/atomics.def): a latency (one dependent chain per thread
// in one warp, or one warp on every SM for the contended pattern: cycles per op, and ns at the SM
// clock measured right after) and a rate (4 independent chains per thread, many warps per SM:
// thread-level atomics per clock per SM, and per second). Each point names what ptxas made of the
// op (native, warp-aggregated, CAS loop, POPC.INC: the SASS test checks it). Each point repeats its
// launch until stable; every launch's final words pass the self-check. red has no latency.
// The simulator's costs per preset derive from each preset's own cited latencies (below).
#include "probes/atomics/atomics.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "analysis/atomics_model.hpp"
#include "harness/self_check.hpp"
#include "harness/axes.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/family_spec.hpp"
#include "probes/common/op_costs.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/common/plan.hpp"

#define GPUPROBE_ATOMICS_OP(op, ...)                                                                  \
  GPUPROBE_KERNEL_PAIR_DECLARE_(gpuprobe_atomics_, (gpuprobe::probes::atomics::AtomicsArgs,          \
                                                    gpuprobe::probes::atomics::AtomicsWarpOut*), op)
#include "probes/atomics/atomics.def"
#undef GPUPROBE_ATOMICS_OP

namespace gpuprobe::probes {

namespace {

using atomics::AtomicsLowering;
using atomics::AtomicsOperation;
using atomics::AtomicsArgs;
using atomics::AtomicsWarpOut;

constexpr const char* kPatternNames[] = {"same", "distinct", "contended", "uniform"};  // AtomicsPattern's

uint64_t mask_of(AtomicsOp op) {
  return atomics_info(op).bytes == 8 ? ~uint64_t{0} : uint64_t{0xffffffffu};
}

const char* pattern_name(AtomicsPattern pattern) { return kPatternNames[static_cast<unsigned>(pattern)]; }

AtomicsPattern parse_pattern(const std::string& name) {
  for (unsigned i = 0; i < std::size(kPatternNames); ++i)
    if (name == kPatternNames[i]) return static_cast<AtomicsPattern>(i);
  throw Error("unknown atomics pattern '" + name + "' (known: same, distinct, contended, uniform)");
}

// The patterns an op runs: the *_uniform ops only `uniform`; shared ops same and distinct; global
// ops same, distinct and contended.
std::vector<AtomicsPattern> patterns_of(AtomicsOp op) {
  const auto& info = atomics_info(op);
  if (info.lowering == AtomicsLowering::warp_aggregated) return {AtomicsPattern::uniform};
  if (info.shared) return {AtomicsPattern::same, AtomicsPattern::distinct};
  return {AtomicsPattern::same, AtomicsPattern::distinct, AtomicsPattern::contended};
}

std::string kernel_name(AtomicsOp op, Kind kind) {  // gpuprobe_atomics_<op>_lat/_thr
  return std::string("gpuprobe_atomics_") + atomics_info(op).name + kind_suffix(kind);
}

// Elements of the op's size the launch works on (global: the buffer; shared: copied out).
// Every block has its own share of the words but global contended and uniform ones: one per chain.
uint64_t word_count(const AtomicsSetup& s) {
  const uint32_t chains = atomics_chains(s.kind);
  const bool one_set = !atomics_info(s.op).shared &&
                       (s.pattern == AtomicsPattern::contended || s.pattern == AtomicsPattern::uniform);
  return one_set ? chains
                 : uint64_t{s.blocks} * atomics::atomics_block_words(s.pattern, chains, s.block_threads / 32);
}

// The word's start value (as the kernel's element bits: f32 0.0 is 0).
uint64_t init_word(AtomicsOp op) {
  const auto& info = atomics_info(op);
  if (info.operation == AtomicsOperation::add_f32) return 0;
  return info.bytes == 8 ? atomics::kAtomicsInit64 : atomics::kAtomicsInit32;
}

}  // namespace

uint32_t atomics_chains(Kind kind) { return kind == Kind::latency ? 1 : atomics::kAtomicsThroughputChains; }

std::vector<uint64_t> atomics_expected_words(const AtomicsSetup& s, const AtomicsRun& run,
                                             const std::vector<AtomicsWarpOut>& warps) {
  const auto& info = atomics_info(s.op);
  const uint32_t chains = atomics_chains(s.kind);
  const uint32_t wpb = s.block_threads / 32;
  const uint64_t ops = run.iterations * atomics::kAtomicsOpsPerIteration;
  std::vector<uint64_t> count(word_count(s), 0);
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
  const uint64_t init = init_word(s.op), addend = info.bytes == 8 ? atomics::kAtomicsAddend64 : 1;
  for (std::size_t i = 0; i < count.size(); ++i) {
    if (info.operation == AtomicsOperation::add_f32) {
      const float f = static_cast<float>(count[i]);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      words[i] = bits;
    } else if (info.operation != AtomicsOperation::exch) {  // add, red: the addend per op; cas: 1
      words[i] = (init + count[i] * (info.operation != AtomicsOperation::cas ? addend : 1)) & mask_of(s.op);
    }
  }
  return words;
}

void check_atomics_fits(const AtomicsSetup& s, const DeviceInfo&) {
  const auto& info = atomics_info(s.op);
  const std::string kernel = kernel_name(s.op, s.kind);
  check_blocks(kernel, s.block_threads, s.blocks);
  const auto allowed = patterns_of(s.op);
  if (std::find(allowed.begin(), allowed.end(), s.pattern) == allowed.end())
    throw Error(kernel + ": pattern " + pattern_name(s.pattern) + " does not apply to " + info.name);
  if (s.kind == Kind::latency && info.operation == AtomicsOperation::red_add)
    throw Skip(std::string(info.ptx) + " returns nothing: no latency chain (throughput only)");
}

ChainResult summarize_atomics_launch(const AtomicsSetup& s, const AtomicsRun& run,
                                     const std::vector<AtomicsWarpOut>& warps, const std::vector<uint64_t>& words) {
  const std::string kernel = kernel_name(s.op, s.kind);
  const std::string where = kernel + " (" + pattern_name(s.pattern) + ")";
  const auto& info = atomics_info(s.op);
  const uint32_t chains = atomics_chains(s.kind);
  const uint32_t wpb = s.block_threads / 32;
  const uint64_t ops = run.iterations * atomics::kAtomicsOpsPerIteration;
  const ChainResult r =
      summarize_units(warps, uint64_t(s.blocks) * wpb, kernel, "warp", ops, [&](const SmSpan& span) {
        return double(span.units) * 32 * chains * double(ops) / span.cycles();
      });
  // A CAS on a word of its own always succeeds. On a word that other lanes share, a lane that
  // lost learns the new value and tries again; on a word that other warps share (contended,
  // uniform) a warp can lose every time (seen on an H200: 0 of 8192), so only the words below
  // bound the successes from below.
  const bool alone = info.operation != AtomicsOperation::cas || s.pattern == AtomicsPattern::distinct;
  const uint64_t least = s.pattern == AtomicsPattern::same ? 1 : 0;
  for (std::size_t w = 0; w < warps.size(); ++w)
    for (uint32_t k = 0; k < chains; ++k) {
      const uint64_t h = warps[w].hits[k];
      if (!(alone ? h == 32 * ops : (h >= least && h <= 32 * ops)))
        throw SelfCheckFailed(where + " warp " + std::to_string(w) + " chain " + std::to_string(k) +
                              " reported " + std::to_string(h) + " hits of " + std::to_string(32 * ops) +
                              " ops");
    }
  const uint64_t n = word_count(s);
  if (words.size() != n)
    throw SelfCheckFailed(kernel + " returned " + std::to_string(words.size()) + " words, expected " +
                          std::to_string(n));
  if (info.operation == AtomicsOperation::exch) {
    // The last op on a word wrote the last token of a chain that works on the word. 32-bit
    // tokens wrap past 2^32: those launches check nothing beyond the hits.
    const uint64_t thread_chains = warps.size() * 32 * chains;
    if (info.bytes == 8 || (thread_chains + 1) * ops < (uint64_t{1} << 32))
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t t = words[i];
        const uint64_t tc = t / ops - 1;
        const bool ok = t != 0 && t % ops == 0 && tc < thread_chains &&
                        atomics::atomics_word(s.pattern, info.shared, chains, tc / chains / 32, wpb,
                                              (tc / chains) % 32, tc % chains) == i;
        if (!ok)
          throw SelfCheckFailed(where + " word " + std::to_string(i) + " holds 0x" + hex_of(t) +
                                ", not the last token of a chain on it");
      }
    return r;
  }
  const std::vector<uint64_t> expected = atomics_expected_words(s, run, warps);
  for (uint64_t i = 0; i < n; ++i) {
    if (info.operation == AtomicsOperation::cas && expected[i] == init_word(s.op))
      throw SelfCheckFailed(where + " word " + std::to_string(i) + ": no CAS on it succeeded in " +
                            std::to_string(ops) + " ops per chain");
    if ((words[i] & mask_of(s.op)) != expected[i])
      throw SelfCheckFailed(where + " word " + std::to_string(i) + " holds 0x" + hex_of(words[i]) +
                            ", expected 0x" + hex_of(expected[i]) + " after " + std::to_string(ops) +
                            " ops per chain");
  }
  return r;
}

namespace {

constexpr const char* kFamily = "atomics";
constexpr uint64_t kMaxIterations = uint64_t{1} << 16;

const KernelPair kKernels[] = {
#define GPUPROBE_ATOMICS_OP(op, ...) GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_atomics_, op)
#include "probes/atomics/atomics.def"
#undef GPUPROBE_ATOMICS_OP
};

// A shared op's launch holds its blocks' words in dynamic shared memory (the uniform pattern's
// kernels declare theirs).
LaunchConfig config_of(const AtomicsSetup& s) {
  const auto& info = atomics_info(s.op);
  const uint32_t wpb = s.block_threads / 32;
  const uint64_t words = atomics::atomics_block_words(s.pattern, atomics_chains(s.kind), wpb);
  const bool dynamic = info.shared && s.pattern != AtomicsPattern::uniform;
  return launch_config(s.blocks, s.block_threads, dynamic ? words * info.bytes : 0);
}

// On a GPU: the words in global memory start at the op's init value (a shared op's block words
// are copied out there at the end).
ChainResult run_on_gpu(KernelRunner& gpu, const AtomicsSetup& s, const AtomicsRun& run) {
  check_atomics_fits(s, gpu.info());
  const std::string name = kernel_name(s.op, s.kind);
  const uint32_t bytes = atomics_info(s.op).bytes;
  const uint64_t n = word_count(s);
  std::vector<unsigned char> host_words(n * bytes);
  const uint64_t init = init_word(s.op);
  for (uint64_t i = 0; i < n; ++i) std::memcpy(&host_words[i * bytes], &init, bytes);
  DeviceBuffer words = gpu.upload(host_words);
  const AtomicsArgs args{.words = words.get(), .iterations = run.iterations, .zero = 0,
                         .ops_per_chain = run.iterations * atomics::kAtomicsOpsPerIteration,
                         .pattern = static_cast<uint32_t>(s.pattern), .store = 1};
  LaunchRecord record;
  const auto warps = run_units<AtomicsWarpOut>(gpu, kKernels[static_cast<unsigned>(s.op)].of(s.kind), name,
                                               config_of(s), args, uint64_t(s.blocks) * s.block_threads / 32, record);
  host_words = gpu.download<unsigned char>(words, host_words.size());
  std::vector<uint64_t> final_words(n, 0);
  for (uint64_t i = 0; i < n; ++i) std::memcpy(&final_words[i], &host_words[i * bytes], bytes);
  return with_launch(summarize_atomics_launch(s, run, warps, final_words), record);
}

// On the simulator every SM takes the longer of one chain's ops x latency and its threads x
// chains x ops over the rate. The words are the host's expectation (a CAS on a shared word
// succeeds once per round: ops successes per warp; exch leaves the last chain's token).
ChainResult simulate(sim::SimDevice& device, const AtomicsSetup& s, const AtomicsRun& run) {
  const sim::Preset& p = device.preset();
  const OpCosts& costs = op_costs(p, kFamily);
  check_atomics_fits(s, device.info());
  const atomics::AtomicsOpInfo& info = atomics_info(s.op);
  const std::string pattern = pattern_name(s.pattern);
  const OpCost& cost = op_cost(p, costs, std::string(info.name) + " (" + pattern + ")");
  const std::string kernel = kernel_name(s.op, s.kind);
  const uint32_t chains = atomics_chains(s.kind);
  const uint64_t ops = run.iterations * atomics::kAtomicsOpsPerIteration;
  const uint32_t wpb = s.block_threads / 32;
  const uint64_t seed = std::hash<std::string>{}(kernel + pattern) ^ s.blocks ^ (uint64_t(s.block_threads) << 20) ^
                        (run.iterations << 32) ^ device.next_launch(kFamily);
  auto warps = simulate_units<AtomicsWarpOut>(p, s.blocks, wpb, seed, [&](uint32_t, uint32_t n) {
    return std::max(double(ops) * cost.latency_cycles, n * 32.0 * chains * double(ops) / cost.rate);
  });
  const bool cas_shared = info.operation == AtomicsOperation::cas && s.pattern != AtomicsPattern::distinct;
  for (auto& o : warps)
    for (uint32_t k = 0; k < chains; ++k) o.hits[k] = static_cast<uint32_t>(cas_shared ? ops : 32 * ops);
  std::vector<uint64_t> words = atomics_expected_words(s, run, warps);
  if (info.operation == AtomicsOperation::exch) {
    // Each word keeps the last token of the highest chain on it.
    for (uint64_t tc = 0; tc < warps.size() * 32 * chains; ++tc) {
      const uint64_t thread = tc / chains;
      words.at(atomics::atomics_word(s.pattern, info.shared, chains, thread / 32, wpb, thread % 32, tc % chains)) =
          atomics::atomics_exch_token(tc, ops, ops - 1) & mask_of(s.op);
    }
  }
  return with_launch(summarize_atomics_launch(s, run, warps, words), {kernel, config_of(s)});
}

// ---- the simulator's costs per preset -----------------------------------------------------------
// Sources, docs/FIGURES.md §6:
//   [R6000D] GB202 atomicAdd global: same address 53.4 Gops/s (~19 ns/op serialized), distinct
//            addresses 492.6 Gops/s (P). At the RTX 5090's 170 SMs and 2407 MHz: distinct 1.20
//            atomics/clk/SM (DER), one address 22.2 atomics/clk for the whole GPU (DER).
//   [CC-B200] B200 atomics latency: measured, values not retrievable: nothing to use.
// Everything else has never been published (FIGURES §6): each such number says "assumption" and is
// chosen plausible. A global atomic's round trip is the preset's own cited L2 hit latency plus 50
// cycles for the L2's atomic unit; lanes of a warp on one word are serialized there at 2 cycles
// each; the one-word rate (the GB202's 22.2/clk) and the per-SM distinct rate (1.20/clk) carry to
// every GPU. Shared atomics cost the preset's shared-load latency plus 10 (ATOMS), a word shared by
// the warp 2 cycles per lane; the CAS loops (atom.shared.add.f32, the 64-bit shared adds) an LDS +
// ATOMS.CAS round trip each, retried once per lane on one word. The warp-aggregated add (VOTE,
// SHFL scan, one ATOM per warp) adds 40 cycles to the round trip and sends 1/32 of the atomics.
// Every latency is at least 32 lanes over the rate (what the probe's one-warp launch can see).
// red returns nothing, so it has no latency: its entries hold 0 and their source names only the
// rate. An entry's op is "<op> (<pattern>)".
constexpr double kDistinctPerSm = 492.6e9 / (170 * 2407e6);  // DER [R6000D]
constexpr double kOneWordPerGpu = 53.4e9 / 2407e6;           // DER [R6000D]

OpCost entry(const std::string& op, const char* pattern, double latency, double rate, std::string source) {
  return {op + " (" + pattern + ")", rate, latency > 0 ? std::max(latency, 32.0 / rate) : 0, std::move(source)};
}

// What an entry's source says of its latency: `how`, or for red that it has none.
std::string latency_source(bool red, const std::string& how) { return red ? "no latency: red returns nothing" : how; }

OpCosts atomics_costs(const sim::Preset& p) {
  const double l2 = cache_hit_cycles(p, "L2");
  const double smem = p.shared_latency_cycles > 0 ? p.shared_latency_cycles : 30;
  const double sms = p.info.sm_count;
  const bool gb202 = p.name == "rtx5090";
  const std::string l2_text = std::to_string(static_cast<int>(l2 + 0.5));
  const std::string lat_g = "assumption: the preset's L2 hit latency (" + l2_text + ", FIGURES §2) + 50";
  const std::string distinct_rate =
      gb202 ? "P [R6000D] 492.6 Gops/s = 1.20/clk/SM (DER)" : "assumption: the GB202's 1.20/clk/SM, DER from P [R6000D]";
  const std::string word_rate = gb202 ? "P [R6000D] one address 53.4 Gops/s = 22.2/clk per GPU (DER)"
                                      : "assumption: the GB202's one-address 22.2/clk per GPU, DER from P [R6000D]";
  OpCosts t;
  const double contended_rate = kOneWordPerGpu / sms;
  for (const atomics::AtomicsOpInfo& info : atomics::kAtomicsOps) {
    const std::string op = info.name;
    const bool red = info.operation == AtomicsOperation::red_add;
    if (info.lowering == AtomicsLowering::warp_aggregated && !info.shared) {
      t.push_back(entry(op, "uniform", l2 + 90, std::min(32 * contended_rate, kDistinctPerSm),
                        lat_g + " + 40 for VOTE + SHFL scan (assumption); one ATOM per warp on the " + word_rate));
    } else if (info.lowering == AtomicsLowering::warp_aggregated) {
      t.push_back(entry(op, "uniform", smem + 50, 16,
                        "assumption: the preset's shared latency + 10 + 40 for VOTE + SHFL scan; rate: assumption"));
    } else if (!info.shared) {
      t.push_back(entry(op, "distinct", red ? 0 : l2 + 50, kDistinctPerSm,
                        latency_source(red, lat_g) + "; rate " + distinct_rate));
      t.push_back(entry(op, "same", red ? 0 : l2 + 50 + 2 * 32, kDistinctPerSm / 4,
                        latency_source(red, lat_g + " + 2 per lane on one word") + "; rate: assumption, a quarter of distinct"));
      t.push_back(entry(op, "contended", red ? 0 : std::max(l2 + 50, sms * 32 / kOneWordPerGpu), contended_rate,
                        latency_source(red, "latency: every SM's warp queues at one word") + "; rate " + word_rate));
    } else {
      const bool loop = info.lowering == AtomicsLowering::cas_loop;
      const bool popc = info.lowering == AtomicsLowering::popc_inc;
      const double one = loop ? 2 * (smem + 10) : smem + 10;
      const std::string why = "assumption: the preset's shared latency (" + std::to_string(static_cast<int>(smem + 0.5)) +
                              ") + 10" + (loop ? ", twice (LDS + ATOMS.CAS loop)" : "");
      t.push_back(entry(op, "distinct", red ? 0 : one, popc ? 32 : loop ? 4 : 16,
                        latency_source(red, why) + "; rate: assumption"));
      t.push_back(entry(op, "same", red ? 0 : loop ? one * 16 : one + 2 * 32, popc ? 32 : loop ? 0.25 : 1,
                        latency_source(red, why + (loop ? ", retried 16x on one word" : " + 2 per lane on one word")) +
                            "; rate: assumption"));
    }
  }
  return t;
}

const sim::PresetTable<OpCosts> kTables(kFamily, atomics_costs, slow_op_costs);

// ---- the probe ----------------------------------------------------------------------------------

nlohmann::json measure(ProbeContext& ctx, const AtomicsSetup& s, const AtomicsRun& run) {
  const atomics::AtomicsOpInfo& info = atomics_info(s.op);
  Device& device = ctx.device();
  const auto launch = [&] {
    if (auto* sim = dynamic_cast<sim::SimDevice*>(&device)) return simulate(*sim, s, run);
    return run_on_gpu(kernel_runner(device), s, run);
  };
  return measure_chain_point(ctx, s.kind, run.iterations, atomics_chains(s.kind), info.ptx,
                             {{"space", info.shared ? "shared" : "global"},
                              {"bytes", info.bytes},
                              {"lowering", atomics_lowering_name(info.lowering)},
                              {"block_threads", s.block_threads},
                              {"blocks", s.blocks}},
                             launch, true)
      .point;
}

ProbeSpec atomics_probe() {
  ProbeSpec p;
  p.id = "atomics/ops";
  p.summary = "atom/red on global and shared memory (add, cas, exch; 32/64-bit) with the same, "
              "distinct and cross-SM contended addresses: latency (cycles, ns) and rate (ops/clk/SM)";
  p.params = {op_param(op_choices(atomics::kAtomicsOps), "probes/atomics/atomics.def"),
              {"pattern", ParamSpec::Kind::choice, "all", "the address pattern (all: every pattern the op runs)",
               {"all", "same", "distinct", "contended", "uniform"}},
              kind_param(),
              iterations_param("16", "loop iterations per launch (16 atomics per chain each)", kMaxIterations),
              block_threads_param("threads per block of a throughput launch (a multiple of 32)"),
              blocks_per_sm_param("blocks per SM of a throughput launch (1 to 32)")};
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const LaunchParams l = read_launch_params(ctx, kMaxIterations);
    AtomicsRun run;
    run.iterations = l.iterations;
    Axis pattern{"pattern",
                 [](const nlohmann::json& at) {
                   std::vector<nlohmann::json> out;
                   for (AtomicsPattern x : patterns_of(parse_atomics_op(at["op"])))
                     out.push_back(pattern_name(x));
                   return out;
                 },
                 "pattern"};
    // red has no latency: its ops have only a throughput point.
    Axis kind{"kind",
              [](const nlohmann::json& at) {
                std::vector<nlohmann::json> out;
                if (atomics_info(parse_atomics_op(at["op"])).operation != AtomicsOperation::red_add)
                  out.push_back("latency");
                out.push_back("throughput");
                return out;
              },
              "kind", "both"};
    measure_axes(
        ctx, {op_axis(op_names(atomics::kAtomicsOps)), pattern, kind},
        [&](const nlohmann::json& axes) {
          AtomicsSetup s;
          s.op = parse_atomics_op(axes["op"]);
          s.pattern = parse_pattern(axes["pattern"]);
          s.kind = parse_kind(axes["kind"]);
          s.block_threads = s.kind == Kind::latency ? 32 : l.block_threads;
          s.blocks = s.kind == Kind::throughput ? l.sms * l.blocks_per_sm
                     : s.pattern == AtomicsPattern::contended ? l.sms
                                                              : 1;
          return measure(ctx, s, run);
        },
        "--op " + prm.get_text("op") + " --pattern " + prm.get_text("pattern") + " --kind " + prm.get_text("kind") +
            " measures nothing (red has no latency; the *_uniform ops run only the uniform pattern, shared ops no "
            "contended one)");
  };
  return p;
}

const ProbeRegistration kRegistration(atomics_probe);

// ---- the family (harness/family.hpp): its model section and metrics are analysis/atomics_model's

FamilySpec atomics_family() {
  const auto estimate = [](const std::string&, const Params& p) {
    const bool all = p.get_text("op") == "all" && p.get_text("pattern") == "all";
    // Atomics under contention are noisy: more repeats.
    return plan::op_points_seconds(plan::op_kind_points(p, all, 34, 44), plan::kNoisyRunsPerPoint);
  };
  return op_table_family({.name = kFamily,
                          .title = "Atomics",
                          .order = 60,
                          .plan = one_run_plan("atomics/ops", "atomics_ops.json"),
                          .estimate_h100_seconds = estimate,
                          .add_run = add_run_by(analysis::add_atomics_from_run),
                          .metrics = analysis::atomics_metrics},
                         "atomics/ops");
}

const FamilyRegistration kFamilyRegistration(atomics_family);

}  // namespace
}  // namespace gpuprobe::probes
