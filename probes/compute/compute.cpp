// compute/alu: CUDA-core latency and issue rate per op (probes/compute/compute.def): for each op
// (or the one asked for) a latency point (one dependent chain in one warp: cycles per op) and a
// throughput point (8 independent chains per thread, block-threads x blocks-per-sm threads on
// every SM: thread-ops per clock per SM, and per second at the SM clock measured right after).
// Each point repeats its launch until stable; every launch's stored results pass the self-check
// against the host's own computation of the chain. An op the device lacks is skipped with the
// reason. The kernels are compute.cu (probes/common/value_chain.cuh); the simulator's costs per
// preset are below, each citing its source.
#include <bit>
#include <cmath>
#include <optional>

#include "analysis/compute_model.hpp"
#include "harness/family.hpp"
#include "probes/common/family_spec.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_costs.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/common/plan.hpp"
#include "probes/common/self_check.hpp"
#include "harness/self_check.hpp"
#include "probes/common/value_chain.cuh"
#include "ptx/capability.hpp"

#define GPUPROBE_COMPUTE_OP(op, ...) \
  GPUPROBE_KERNEL_PAIR_DECLARE_(gpuprobe_alu_, (gpuprobe::probes::ValueChainArgs, gpuprobe::probes::ValueChainOut*), op)
#include "probes/compute/compute.def"
#undef GPUPROBE_COMPUTE_OP

namespace gpuprobe::probes {
namespace {

struct ComputeOp {
  const char* name;
  const char* ptx;
  const char* path;       // "fma", "imad", "iadd3", "mufu.ex2", "cvt.f16"...
  const char* precision;  // "f32", "f64", "f16", "bf16", "f32x2", "s32", "u32"
  uint32_t elements, flops_per_element, reg_bytes;
  ptx::Cap cap;
};
constexpr ComputeOp kOps[] = {
#define GPUPROBE_COMPUTE_OP(op, ptx_, path, precision, elements, flops, reg_bytes, cap) \
  {#op, ptx_, path, precision, elements, flops, reg_bytes, ptx::Cap::cap},
#include "probes/compute/compute.def"
#undef GPUPROBE_COMPUTE_OP
};
const KernelPair kKernels[] = {
#define GPUPROBE_COMPUTE_OP(op, ...) GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_alu_, op)
#include "probes/compute/compute.def"
#undef GPUPROBE_COMPUTE_OP
};
constexpr const char* kFamily = "compute";
constexpr uint64_t kMaxIterations = uint64_t{1} << 20;

std::size_t index_of(const std::string& name) { return &find_op(kOps, name, "compute op") - kOps; }

// ---- the host's reference of every chain -----------------------------------------------------
uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
float f32_of(uint32_t u) { return std::bit_cast<float>(u); }
uint64_t f64_bits(double d) { return std::bit_cast<uint64_t>(d); }
// An integer from 1 to 2048 as an f16 (exact: 11 significant bits), 1 to 256 as a bf16 (8 bits).
uint16_t f16_of_int(uint64_t v) {
  const uint32_t b = f32_bits(static_cast<float>(v));
  return static_cast<uint16_t>(((((b >> 23) & 0xff) - 127 + 15) << 10) | ((b >> 13) & 0x3ff));
}
uint16_t bf16_of_int(uint64_t v) { return static_cast<uint16_t>(f32_bits(static_cast<float>(v)) >> 16); }
uint64_t pair(uint64_t hi, uint64_t lo, int shift) { return hi << shift | lo; }

uint64_t reference_bits(const std::string& op, uint32_t k, uint64_t ops);

// The chains' first values: points of the approximate functions' basins for the MUFU ops, values
// the first conversion rounds for the round trips (so one op at least must have run), and for the
// counting chains (FMA x * 1 + 1 counts up by one until the format's integers run out at
// 2^significand bits, where x + 1 rounds back to x and the chain stays) their references after no
// op: 1 + k, and 9 + k in a packed register's high half.
uint64_t start_value(const std::string& op, uint32_t k) {
  if (op == "rsqrt_approx_ftz_f32") return f32_bits(1.0f + k);
  if (op == "ex2_approx_ftz_f32") return f32_bits(0.25f * k);
  if (op == "sin_approx_ftz_f32" || op == "tanh_approx_f32") return f32_bits(1.0f - 0.1f * k);
  if (op == "cvt_f16_f32") return f32_bits(1.0f + k + 1.0f / 4096);  // rounds to 1 + k in f16
  if (op == "cvt_s32_f32") return f32_bits(1.5f + k);               // truncates to 1 + k
  return reference_bits(op, k, 0);
}

// Operands b and c (unused by the MUFU and conversion ops).
std::pair<uint64_t, uint64_t> operands(const std::string& op) {
  const uint64_t one16 = 0x3c00, one_bf16 = 0x3f80, one = f32_bits(1.0f);
  if (op == "fma_rn_f32") return {one, one};
  if (op == "fma_rn_f64") return {f64_bits(1.0), f64_bits(1.0)};
  if (op == "fma_rn_f16x2") return {pair(one16, one16, 16), pair(one16, one16, 16)};
  if (op == "fma_rn_bf16x2") return {pair(one_bf16, one_bf16, 16), pair(one_bf16, one_bf16, 16)};
  if (op == "fma_rn_f32x2") return {pair(one, one, 32), pair(one, one, 32)};
  if (op == "mad_lo_s32") return {1, 3};   // x * 1 + 3
  if (op == "add_add_u32") return {1, 2};  // x + 1 + 2
  return {0, 0};
}

// ex2(-x) and rsqrt contract to their fixed points by at least 0.5 per step: 200 steps are exact
// in float64. sin and tanh creep to 0 as sqrt(3/n): only their first 100 steps are compared.
constexpr uint64_t kContractionSteps = 200, kCreepSteps = 100;
bool creeps(const std::string& op) { return op == "sin_approx_ftz_f32" || op == "tanh_approx_f32"; }
bool contracts(const std::string& op) { return op == "ex2_approx_ftz_f32" || op == "rsqrt_approx_ftz_f32"; }

// The float64 chain of a MUFU op after min(ops, its steps) steps.
double mufu_chain(const std::string& op, uint32_t chain, uint64_t ops) {
  double x = f32_of(static_cast<uint32_t>(start_value(op, chain)));
  for (uint64_t i = 0; i < std::min(ops, creeps(op) ? kCreepSteps : kContractionSteps); ++i)
    x = op == "ex2_approx_ftz_f32" ? std::exp2(-x) : op == "rsqrt_approx_ftz_f32" ? 1.0 / std::sqrt(x)
        : op == "sin_approx_ftz_f32" ? std::sin(x) : std::tanh(x);
  return x;
}

uint64_t reference_bits(const std::string& op, uint32_t k, uint64_t ops) {
  // A counting chain from `start` after `ops` increments of one, in a format whose integers end at
  // 2^bits: exact below, and stuck there (2^bits + 1 rounds to even, 2^bits).
  const auto count = [ops](uint64_t start, int bits) { return std::min(start + ops, uint64_t{1} << bits); };
  if (op == "fma_rn_f32") return f32_bits(static_cast<float>(count(1 + k, 24)));
  if (op == "fma_rn_f64") return f64_bits(static_cast<double>(count(1 + k, 53)));
  if (op == "fma_rn_f16x2") return pair(f16_of_int(count(9 + k, 11)), f16_of_int(count(1 + k, 11)), 16);
  if (op == "fma_rn_bf16x2") return pair(bf16_of_int(count(9 + k, 8)), bf16_of_int(count(1 + k, 8)), 16);
  if (op == "fma_rn_f32x2")
    return pair(f32_bits(static_cast<float>(count(9 + k, 24))),
                f32_bits(static_cast<float>(count(1 + k, 24))), 32);
  if (op == "mad_lo_s32" || op == "add_add_u32") return static_cast<uint32_t>(1 + k + 3 * ops);
  if (creeps(op) || contracts(op)) return f32_bits(static_cast<float>(mufu_chain(op, k, ops)));
  return ops == 0 ? start_value(op, k) : f32_bits(1.0f + k);  // the round trips
}

// Exact ops: bit for bit. ex2 and rsqrt (contractions): within 1e-3 of the float64 chain. sin and
// tanh (slow to converge, and their approximation error moves the point they settle at):
// positive and at most 1.5 times the float64 chain after min(ops, 100) ops.
std::string result_error(const std::string& op, uint32_t chain, uint64_t ops, uint64_t got) {
  const uint64_t want = reference_bits(op, chain, ops);
  got &= kOps[index_of(op)].reg_bytes == 8 ? ~uint64_t{0} : 0xffffffffull;
  const float value = f32_of(static_cast<uint32_t>(got));
  const double ref = f32_of(static_cast<uint32_t>(want));
  const std::string which = "chain " + std::to_string(chain) + " ended ";
  if (contracts(op))
    return std::fabs(value - ref) <= 1e-3 ? "" : which + "at " + std::to_string(value) + ", the float64 chain at " +
                                                     std::to_string(ref) + " (tolerance 1e-3)";
  if (creeps(op))
    return value >= 0 && value <= 1.5 * ref ? "" : which + "at " + std::to_string(value) + ", not in [0, 1.5 x " +
                                                      std::to_string(ref) + "] (the float64 chain after " +
                                                      std::to_string(std::min(ops, kCreepSteps)) + " ops)";
  if (got == want) return "";
  return which + "with bits 0x" + hex_of(got) + ", expected 0x" + hex_of(want) + " after " + std::to_string(ops) +
         " ops";
}

const ValueChainCheckRegistration kCheck(kFamily, {reference_bits, result_error});

// ---- one launch ---------------------------------------------------------------------------------
// A launch of op `op` (probes/common/value_chain.cuh): latency one warp, one chain per thread;
// throughput `blocks` of `block_threads` threads, kValueChainThroughputChains chains each.
struct Setup {
  std::size_t op = 0;
  Kind kind = Kind::latency;
  uint32_t blocks = 1, block_threads = 32;
  uint64_t iterations = 0;

  std::string kernel() const { return std::string("gpuprobe_alu_") + kOps[op].name + kind_suffix(kind); }
  uint32_t chains() const { return kind == Kind::latency ? 1 : kValueChainThroughputChains; }
  uint64_t ops_per_chain() const { return iterations * kValueChainOpsPerIteration / chains(); }
  uint64_t warps() const { return uint64_t(blocks) * block_threads / 32; }
  LaunchConfig config() const { return launch_config(blocks, block_threads); }
};

// The checks before any launch: the device has the op (else Skip), the shape fits.
void check_fits(const Setup& s, const DeviceInfo& info) {
  const ComputeOp& op = kOps[s.op];
  require_cap(op.cap, op.ptx, info);
  if (s.kind == Kind::latency && (s.block_threads != 32 || s.blocks != 1))
    throw Error("a latency launch is one warp (one block of 32 threads)");
  check_blocks(s.kernel(), s.block_threads, s.blocks);
}

// The numbers and the self-check of a launch's warps: every warp ran, and every chain's result is
// acceptable, else "self-check failed: <kernel> warp <w>: <why>" for the first wrong chain, the
// point getting its got and want, the sidecar every wrong chain (got, want, the bits that differ)
// of the first kMaxWrongListed warps that have one, and how many warps were wrong. Rate: per SM,
// the thread-ops of its warps over its span.
ChainResult summarize(const Setup& s, const std::vector<ValueChainOut>& warps) {
  constexpr std::size_t kMaxWrongListed = 64;
  const std::string& op = kOps[s.op].name;
  const uint64_t ops = s.ops_per_chain();
  const ChainResult r = summarize_units(warps, s.warps(), s.kernel(), "warp", ops, [&](const SmSpan& span) {
    return double(span.units) * 32 * s.chains() * double(ops) / span.cycles();
  });
  // Warps normally agree: each chain's result is checked once.
  std::optional<uint64_t> accepted[kValueChainThroughputChains];
  nlohmann::json evidence, wrong = nlohmann::json::array();
  std::string first_why;
  std::size_t wrong_warps = 0;
  for (std::size_t w = 0; w < warps.size(); ++w) {
    nlohmann::json chains = nlohmann::json::array();
    for (uint32_t k = 0; k < s.chains(); ++k) {
      const uint64_t got = warps[w].result[k];
      if (accepted[k] == got) continue;
      const std::string why = result_error(op, k, ops, got);
      if (why.empty()) {
        accepted[k] = got;
        continue;
      }
      const uint64_t want = reference_bits(op, k, ops);
      if (first_why.empty()) {
        first_why = s.kernel() + " warp " + std::to_string(w) + ": " + why;
        evidence = {{"kernel", s.kernel()}, {"warp", w}, {"chain", k}, {"got", "0x" + hex_of(got)},
                    {"want", "0x" + hex_of(want)}};
      }
      chains.push_back({{"chain", k},
                        {"got", "0x" + hex_of(got)},
                        {"want", "0x" + hex_of(want)},
                        {"xor", "0x" + hex_of(got ^ want)}});
    }
    if (chains.empty()) continue;
    if (++wrong_warps <= kMaxWrongListed) wrong.push_back({{"warp", w}, {"chains", chains}});
  }
  if (wrong_warps == 0) return r;
  evidence["wrong_warps"] = wrong_warps;
  evidence["warps"] = warps.size();
  throw SelfCheckFailed(first_why, evidence,
                        {{"kernel", s.kernel()},
                         {"ops_per_chain", ops},
                         {"warps", warps.size()},
                         {"wrong_warps", wrong_warps},
                         {"wrong", wrong}});
}

ChainResult run_on_gpu(KernelRunner& gpu, const Setup& s) {
  check_fits(s, gpu.info());
  const auto [b, c] = operands(kOps[s.op].name);
  ValueChainArgs args{.start = {}, .b = b, .c = c, .iterations = s.iterations, .zero = 0, .store = 1};
  for (uint32_t k = 0; k < kValueChainThroughputChains; ++k) args.start[k] = start_value(kOps[s.op].name, k);
  LaunchRecord record;
  const auto warps = run_units<ValueChainOut>(gpu, kKernels[s.op].of(s.kind), s.kernel(), s.config(), args,
                                              s.warps(), record);
  return with_launch(summarize(s, warps), record);
}

// Schedulers (SM sub-partitions) per SM, Volta and later: assumption (not in docs/FIGURES.md).
constexpr double kSubPartitions = 4;

// On the simulator a latency launch takes the longer of ops x latency and its issue time; on
// every SM a throughput launch takes the longer of one chain's ops x latency and the busiest
// scheduler's thread-ops over a quarter of the rate. The chains' results are the host's reference.
ChainResult simulate(sim::SimDevice& device, const Setup& s) {
  const sim::Preset& p = device.preset();
  const OpCosts& costs = op_costs(p, kFamily);
  check_fits(s, device.info());
  const OpCost& cost = op_cost(p, costs, kOps[s.op].name);
  const uint64_t ops = s.ops_per_chain();
  const uint64_t seed =
      std::hash<std::string>{}(s.kernel()) ^ s.blocks ^ (s.iterations << 16) ^ device.next_launch(kFamily);
  const auto cycles = [&](uint32_t, uint32_t n) {
    const double busiest = std::ceil(double(n) / kSubPartitions);
    const double issue = busiest * 32 * s.chains() * double(ops) / (cost.rate / kSubPartitions);
    return std::max(double(ops) * cost.latency_cycles, issue);
  };
  auto warps = simulate_units<ValueChainOut>(p, s.blocks, s.block_threads / 32, seed, cycles);
  for (auto& w : warps)
    for (uint32_t k = 0; k < s.chains(); ++k) w.result[k] = reference_bits(kOps[s.op].name, k, ops);
  // A planted wrong result (a test's): the sign of the last warp's first chain flipped.
  if (device.wrong_result(kOps[s.op].name) && !warps.empty()) warps.back().result[0] ^= uint64_t{1} << 31;
  return with_launch(summarize(s, warps), {s.kernel(), s.config()});
}

// ---- the simulator's costs per preset -----------------------------------------------------------
// Thread-ops per clock per SM and dependent latency, per (preset, cost). Rates from the datasheet's
// TFLOPS where docs/FIGURES.md §1 has them; the other ops' rates and latencies are assumed alike
// from sm_70 on, and fma_rn_bf16x2 (sm_80 on) as fma_rn_f16x2.
const std::pair<const char*, OpCost> kCosts[] = {
    {"v100", {"fma_rn_f32", 64, 4, "DER D [FUDZ] 15.7 TFLOPS / (80 SMs x 1530 MHz x 2); latency: assumption"}},
    {"v100", {"fma_rn_f64", 32, 8, "P [GB24 README cuda-incore] DFMA 8 cycles, 32 FP64 FMA/clk/SM"}},
    {"v100", {"fma_rn_f16x2", 64, 6, "assumption: FP16 at twice FP32 (one HFMA2 per FFMA slot)"}},
    {"a100", {"fma_rn_f32", 64, 4, "DER D [A100-DS via GLK] 19.5 TFLOPS / (108 SMs x 1410 MHz x 2); latency: assumption"}},
    {"a100", {"fma_rn_f64", 32, 8, "DER D [A100-DS via GLK] 9.7 TFLOPS / (108 x 1410 MHz x 2); latency: assumption (V100's 8, P [GB24 README])"}},
    {"a100", {"fma_rn_f16x2", 128, 6, "assumption: non-tensor FP16 at 4x FP32 (not in FIGURES)"}},
    {"h100", {"fma_rn_f32", 128, 4, "DER D [HPCTECH] 51 TFLOPS / (114 SMs x 1755 MHz x 2) = 127.5; latency: assumption"}},
    {"h100", {"fma_rn_f64", 64, 8, "DER D [HPCTECH] 26 TFLOPS / (114 x 1755 MHz x 2) = 65; latency: assumption"}},
    {"h100", {"fma_rn_f16x2", 128, 6, "assumption: non-tensor FP16 at 2x FP32 (not in FIGURES)"}},
    {"h100-sxm", {"fma_rn_f32", 128, 4, "DER D [HPCTECH] 67 TFLOPS / (132 SMs x 1980 MHz x 2) = 128.2; latency: assumption"}},
    {"h100-sxm", {"fma_rn_f64", 64, 8, "DER D [HPCTECH] 34 TFLOPS / (132 x 1980 MHz x 2) = 65; latency: assumption"}},
    {"h100-sxm", {"fma_rn_f16x2", 128, 6, "assumption: non-tensor FP16 at 2x FP32 (not in FIGURES)"}},
    {"l40", {"fma_rn_f32", 128, 4, "DER D [TOMS-ADA] RTX 4090 82.6 TFLOPS / (128 SMs x 2520 MHz x 2) = 128, the same Ada SM; latency: assumption"}},
    {"l40", {"fma_rn_f64", 2, 48, "DER D [TPU-DB] L4 0.47 / 30.3 TFLOPS = 1/64 of FP32 (Ada); latency: assumption"}},
    {"l40", {"fma_rn_f16x2", 64, 6, "assumption: non-tensor FP16 at FP32's rate (not in FIGURES)"}},
    {"h200", {"fma_rn_f32", 128, 4, "DER D [MLE] 67 TFLOPS / (132 SMs x 1980 MHz x 2) = 128.2; latency: assumption"}},
    {"h200", {"fma_rn_f64", 64, 8, "DER D [MLE] 34 TFLOPS / (132 x 1980 MHz x 2) = 65; latency: assumption"}},
    {"h200", {"fma_rn_f16x2", 128, 6, "assumption: non-tensor FP16 at 2x FP32, as the H100 presets (not in FIGURES)"}},
    {"b200", {"fma_rn_f32", 128, 4, "DER D [MLE] 80 TFLOPS / (148 SMs x 1965 MHz x 2) = 137.5: 128 lanes (4 x 32) at the run clock, the datasheet's 80 implies ~2.1 GHz; latency: assumption"}},
    {"b200", {"fma_rn_f32x2", 64, 4, "assumption: FFMA2 (sm_100) at FFMA's element rate, as the datasheet's 80 TFLOPS counts no more FP32 lanes (DER D [MLE]); latency: assumption"}},
    {"b200", {"fma_rn_f64", 64, 8, "DER S [S-KR] 37 TFLOPS / (148 x 1965 MHz x 2) = 63.6 (FIGURES §1 marks 37 uncertain; 44.8 quoted in [R6000D]); latency: assumption"}},
    {"b200", {"fma_rn_f16x2", 128, 6, "assumption: non-tensor FP16 at 2x FP32, as the H100 presets (not in FIGURES)"}},
    {"rtx5090", {"fma_rn_f32", 128, 4.44, "DER D [LXF-5090] 104 TFLOPS / (170 SMs x 2407 MHz x 2) = 127.1; latency P [R6000D] FFMA 4.44 (FIGURES §5b)"}},
    {"rtx5090", {"fma_rn_f32x2", 64, 4.44, "DER: two FFMA per op on sm_120 (ptx/capability.hpp: FFMA2 only on sm_100/103), half the FFMA rate; latency: assumption (two independent FFMA, P [R6000D] 4.44 each)"}},
    {"rtx5090", {"fma_rn_f64", 2, 64.07, "DER P [R6000D] FP64 1.21 / FFMA 83.0 TFLOPS = 1/69, i.e. 1/64 of FP32 (FIGURES §5a); latency P [R6000D] DFMA 64.07 (§5b)"}},
    {"rtx5090", {"fma_rn_f16x2", 64, 6, "assumption: non-tensor FP16 at FP32's rate, as the L40 (not in FIGURES)"}},
};
// No FIGURES source gives these for any preset's GPU: the CUDA C++ Programming Guide's throughput
// table ("Arithmetic Instructions") for the rates, assumptions for the latencies.
const OpCost kAssumed[] = {
    {"mad_lo_s32", 64, 4, "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES); latency: assumption (P [R6000D] measures FFMA and IMAD at 4.44 on GB202)"},
    {"add_add_u32", 64, 4, "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES); latency: assumption"},
    {"ex2_approx_ftz_f32", 16, 18, "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (16 MUFU/clk/SM); latency: assumption"},
    {"rsqrt_approx_ftz_f32", 16, 18, "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (16 MUFU/clk/SM); latency: assumption"},
    {"sin_approx_ftz_f32", 16, 22, "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (16 MUFU/clk/SM); latency: assumption"},
    {"tanh_approx_f32", 16, 18, "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (16 MUFU/clk/SM); latency: assumption"},
    {"cvt_f16_f32", 16, 10, "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (conversions 16/clk/SM, a round trip's F2FP/HADD2 pair); latency: assumption"},
    {"cvt_s32_f32", 8, 14, "assumption: CUDA C++ Programming Guide throughput table (not in FIGURES) (two 16/clk/SM conversions per round trip); latency: assumption"},
};
const sim::PresetTable<OpCosts> kTables(
    kFamily,
    [](const sim::Preset& p) {
      OpCosts costs;
      for (const auto& [preset, cost] : kCosts) {
        if (p.name != preset) continue;
        costs.push_back(cost);
        if (cost.op == "fma_rn_f16x2" && p.info.cc.sm() >= 80)
          costs.push_back({"fma_rn_bf16x2", cost.rate, cost.latency_cycles, "assumption: as f16x2"});
      }
      if (!costs.empty()) costs.insert(costs.end(), std::begin(kAssumed), std::end(kAssumed));
      return costs;
    },
    slow_op_costs);

// ---- the probe ----------------------------------------------------------------------------------
nlohmann::json measure(ProbeContext& ctx, const Setup& s) {
  const ComputeOp& op = kOps[s.op];
  Device& device = ctx.device();
  const auto run = [&] {
    if (auto* sim = dynamic_cast<sim::SimDevice*>(&device)) return simulate(*sim, s);
    return run_on_gpu(kernel_runner(device), s);
  };
  ChainPoint c = measure_chain_point(
      ctx, s.kind, s.iterations, s.chains(), op.ptx,
      {{"path", op.path}, {"precision", op.precision}, {"elements_per_op", op.elements}}, run, false);
  if (!c.skipped && s.kind == Kind::throughput && op.flops_per_element > 0) {
    const double per_op = double(op.elements) * op.flops_per_element;
    c.point["flops_per_clk_per_sm"] = c.summary.median * per_op;
    c.point["flops_per_s"] = c.summary.median * per_op * device.info().sm_count * c.clock_mhz * 1e6;
  }
  return c.point;
}

ProbeSpec compute_probe() {
  ProbeSpec p;
  p.id = "compute/alu";
  p.summary = "CUDA-core latency (cycles/op) and issue rate (ops/clk/SM) per op and precision";
  p.params = {op_param(op_choices(kOps), "probes/compute/compute.def"), kind_param(),
              iterations_param("2048", "loop iterations per launch (64 ops per thread each)", kMaxIterations),
              block_threads_param("threads per block of a throughput launch (a multiple of 32, at most 1024)"),
              blocks_per_sm_param("blocks per SM of a throughput launch (1 to 32)")};
  p.run = [](ProbeContext& ctx) {
    const LaunchParams l = read_launch_params(ctx, kMaxIterations);
    measure_axes(ctx, {op_axis(op_names(kOps)), kind_axis()}, [&](const nlohmann::json& axes) {
      Setup s;
      s.op = index_of(axes["op"]);
      s.kind = parse_kind(axes["kind"]);
      s.iterations = l.iterations;
      if (s.kind == Kind::throughput) s.block_threads = l.block_threads, s.blocks = l.sms * l.blocks_per_sm;
      return measure(ctx, s);
    });
  };
  return p;
}

const ProbeRegistration kRegistration(compute_probe);

// ---- the family (harness/family.hpp): its model section and metrics are analysis/compute_model's

FamilySpec compute_family() {
  const auto estimate = [](const std::string&, const Params& p) {
    const double ops = p.get_text("op") == "all" ? std::size(kOps) : 1;
    return plan::op_points_seconds(ops * plan::kinds(p, "kind", "both"));
  };
  return op_table_family({.name = kFamily,
                          .title = "CUDA-core compute",
                          .order = 30,
                          .plan = one_run_plan("compute/alu", "compute_alu.json"),
                          .estimate_h100_seconds = estimate,
                          .add_run = add_run_by(analysis::add_compute_from_run),
                          .metrics = analysis::compute_metrics},
                         "compute/alu");
}

const FamilyRegistration kFamilyRegistration(compute_family);

}  // namespace
}  // namespace gpuprobe::probes
