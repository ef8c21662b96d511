#include "probes/compute/alu_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

namespace {

using compute::AluArgs;
using compute::AluWarpOut;
using compute::kAluMaxChains;
using compute::kAluOpsPerIteration;
using compute::kAluThroughputChains;

uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float f32_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint64_t f64_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(v));
  return text;
}
// An integer from 1 to 2048 as an f16 (exact: 11 significant bits).
uint16_t f16_of_int(uint64_t v) {
  const uint32_t b = f32_bits(static_cast<float>(v));
  const uint32_t exponent = ((b >> 23) & 0xff) - 127 + 15;
  return static_cast<uint16_t>((exponent << 10) | ((b >> 13) & 0x3ff));
}
// An integer from 1 to 256 as a bf16 (exact: 8 significant bits).
uint16_t bf16_of_int(uint64_t v) { return static_cast<uint16_t>(f32_bits(static_cast<float>(v)) >> 16); }

// The chains' first values, per op: small integers for the counting chains (FMA x * 1 + 1 counts
// up by one until the format's integers run out at 2^significand bits, where x + 1 rounds back
// to x and the chain stays), values the first conversion rounds for the round trips (so one op
// at least must have run), points of the approximate functions' basins for the MUFU ops.
uint64_t start_value(AluOp op, uint32_t k) {
  switch (op) {
    case AluOp::fma_rn_f32: return f32_bits(1.0f + k);
    case AluOp::fma_rn_f64: return f64_bits(1.0 + k);
    case AluOp::fma_rn_f16x2: return uint64_t(f16_of_int(9 + k)) << 16 | f16_of_int(1 + k);
    case AluOp::fma_rn_bf16x2: return uint64_t(bf16_of_int(9 + k)) << 16 | bf16_of_int(1 + k);
    case AluOp::fma_rn_f32x2: return uint64_t(f32_bits(9.0f + k)) << 32 | f32_bits(1.0f + k);
    case AluOp::mad_lo_s32:
    case AluOp::add_add_u32: return 1 + k;
    case AluOp::ex2_approx_ftz_f32: return f32_bits(0.25f * k);
    case AluOp::rsqrt_approx_ftz_f32: return f32_bits(1.0f + k);
    case AluOp::sin_approx_ftz_f32:
    case AluOp::tanh_approx_f32: return f32_bits(1.0f - 0.1f * k);
    case AluOp::cvt_f16_f32: return f32_bits(1.0f + k + 1.0f / 4096);  // rounds to 1 + k in f16
    case AluOp::cvt_s32_f32: return f32_bits(1.5f + k);                // truncates to 1 + k
  }
  return 0;
}

// Operands b and c (unused by the MUFU and conversion ops).
std::pair<uint64_t, uint64_t> operands(AluOp op) {
  const uint64_t one16 = 0x3c00, one_bf16 = 0x3f80;
  switch (op) {
    case AluOp::fma_rn_f32: return {f32_bits(1.0f), f32_bits(1.0f)};
    case AluOp::fma_rn_f64: return {f64_bits(1.0), f64_bits(1.0)};
    case AluOp::fma_rn_f16x2: return {one16 << 16 | one16, one16 << 16 | one16};
    case AluOp::fma_rn_bf16x2: return {one_bf16 << 16 | one_bf16, one_bf16 << 16 | one_bf16};
    case AluOp::fma_rn_f32x2: {
      const uint64_t one = f32_bits(1.0f);
      return {one << 32 | one, one << 32 | one};
    }
    case AluOp::mad_lo_s32: return {1, 3};   // x * 1 + 3
    case AluOp::add_add_u32: return {1, 2};  // x + 1 + 2
    default: return {0, 0};
  }
}

// A counting chain from `start` after `ops` increments of one, in a format whose integers end at
// 2^bits: exact below, and stuck there (2^bits + 1 rounds to even, 2^bits).
uint64_t saturating_count(uint64_t start, uint64_t ops, int bits) {
  const uint64_t top = uint64_t{1} << bits;
  return ops >= top - start ? top : start + ops;
}

double step_f64(AluOp op, double x) {
  switch (op) {
    case AluOp::ex2_approx_ftz_f32: return std::exp2(-x);
    case AluOp::rsqrt_approx_ftz_f32: return 1.0 / std::sqrt(x);
    case AluOp::sin_approx_ftz_f32: return std::sin(x);
    case AluOp::tanh_approx_f32: return std::tanh(x);
    default: return x;
  }
}

// The float64 chain of a MUFU op after min(ops, cap) steps.
double mufu_chain(AluOp op, uint32_t chain, uint64_t ops, uint64_t cap) {
  double x = f32_of(static_cast<uint32_t>(start_value(op, chain)));
  for (uint64_t i = 0; i < std::min(ops, cap); ++i) x = step_f64(op, x);
  return x;
}
// ex2(-x) and rsqrt contract to their fixed points by at least 0.5 per step: 200 steps are exact
// in float64. sin and tanh creep to 0 as sqrt(3/n): only their first 100 steps are compared.
constexpr uint64_t kContractionSteps = 200;
constexpr uint64_t kCreepSteps = 100;

}  // namespace

const char* alu_kind_name(AluKind kind) {
  return kind == AluKind::latency ? "latency" : "throughput";
}

const compute::AluOpInfo& alu_info(AluOp op) { return compute::alu_op_info(op); }

AluOp parse_alu_op(const std::string& name) {
  std::string known;
  for (const auto& info : compute::kAluOps) {
    if (name == info.name) return info.op;
    known += known.empty() ? info.name : std::string(", ") + info.name;
  }
  throw Error("unknown compute op '" + name + "' (known: " + known + ")");
}

std::string alu_kernel_name(AluOp op, AluKind kind) {
  return std::string("gpuprobe_alu_") + alu_info(op).name +
         (kind == AluKind::latency ? "_lat" : "_thr");
}

uint32_t alu_chains(AluKind kind) { return kind == AluKind::latency ? 1 : kAluThroughputChains; }

AluArgs alu_args(AluOp op, const AluRun& run) {
  AluArgs a{};
  for (uint32_t k = 0; k < kAluMaxChains; ++k) a.start[k] = start_value(op, k);
  std::tie(a.b, a.c) = operands(op);
  a.iterations = run.iterations;
  a.zero = 0;
  a.store = run.store ? 1 : 0;
  return a;
}

uint64_t alu_reference_bits(AluOp op, uint32_t chain, uint64_t ops) {
  const uint64_t k = chain;
  switch (op) {
    case AluOp::fma_rn_f32: return f32_bits(static_cast<float>(saturating_count(1 + k, ops, 24)));
    case AluOp::fma_rn_f64: return f64_bits(static_cast<double>(saturating_count(1 + k, ops, 53)));
    case AluOp::fma_rn_f16x2:
      return uint64_t(f16_of_int(saturating_count(9 + k, ops, 11))) << 16 |
             f16_of_int(saturating_count(1 + k, ops, 11));
    case AluOp::fma_rn_bf16x2:
      return uint64_t(bf16_of_int(saturating_count(9 + k, ops, 8))) << 16 |
             bf16_of_int(saturating_count(1 + k, ops, 8));
    case AluOp::fma_rn_f32x2:
      return uint64_t(f32_bits(static_cast<float>(saturating_count(9 + k, ops, 24)))) << 32 |
             f32_bits(static_cast<float>(saturating_count(1 + k, ops, 24)));
    case AluOp::mad_lo_s32:
    case AluOp::add_add_u32: return static_cast<uint32_t>(1 + k + 3 * ops);
    case AluOp::ex2_approx_ftz_f32:
    case AluOp::rsqrt_approx_ftz_f32:
      return f32_bits(static_cast<float>(mufu_chain(op, chain, ops, kContractionSteps)));
    case AluOp::sin_approx_ftz_f32:
    case AluOp::tanh_approx_f32:
      return f32_bits(static_cast<float>(mufu_chain(op, chain, ops, kCreepSteps)));
    case AluOp::cvt_f16_f32:
    case AluOp::cvt_s32_f32:
      return ops == 0 ? start_value(op, chain) : f32_bits(1.0f + chain);
  }
  return 0;
}

std::string alu_result_error(AluOp op, uint32_t chain, uint64_t ops, uint64_t got) {
  const uint64_t want = alu_reference_bits(op, chain, ops);
  const compute::AluOpInfo& info = alu_info(op);
  const uint64_t mask = info.reg_bytes == 8 ? ~uint64_t{0} : 0xffffffffull;
  got &= mask;
  const float value = f32_of(static_cast<uint32_t>(got));
  const double ref = f32_of(static_cast<uint32_t>(want));
  switch (op) {
    case AluOp::ex2_approx_ftz_f32:
    case AluOp::rsqrt_approx_ftz_f32:
      if (std::fabs(value - ref) <= 1e-3) return "";
      return "chain " + std::to_string(chain) + " ended at " + std::to_string(value) +
             ", the float64 chain at " + std::to_string(ref) + " (tolerance 1e-3)";
    case AluOp::sin_approx_ftz_f32:
    case AluOp::tanh_approx_f32:
      if (value >= 0 && value <= 1.5 * ref) return "";
      return "chain " + std::to_string(chain) + " ended at " + std::to_string(value) +
             ", not in [0, 1.5 x " + std::to_string(ref) + "] (the float64 chain after " +
             std::to_string(std::min(ops, kCreepSteps)) + " ops)";
    default:
      if (got == want) return "";
      return "chain " + std::to_string(chain) + " ended with bits 0x" + hex(got) +
             ", expected 0x" + hex(want) + " after " + std::to_string(ops) + " ops";
  }
}

void check_alu_fits(const AluSetup& s, const DeviceInfo& info) {
  const compute::AluOpInfo& op = alu_info(s.op);
  const int sm = info.cc.sm();
  if (op.needs_cap && !ptx::device_has(op.cap, sm))
    throw AluOpUnavailable(std::string(op.ptx) + " needs " + ptx::capability_info(op.cap).targets + "; " +
                info.name + " is sm_" + std::to_string(sm));
  if (s.kind == AluKind::latency && (s.block_threads != 32 || s.blocks != 1))
    throw Error("a latency launch is one warp (one block of 32 threads)");
  if (s.block_threads == 0 || s.block_threads % 32 != 0 || s.block_threads > 1024)
    throw Error("block size " + std::to_string(s.block_threads) +
                " is not a multiple of 32 between 32 and 1024");
  if (s.blocks == 0) throw Error(alu_kernel_name(s.op, s.kind) + ": a launch needs a block");
}

AluResult summarize_alu_launch(const AluSetup& s, const AluRun& run,
                               const std::vector<AluWarpOut>& warps) {
  const std::string kernel = alu_kernel_name(s.op, s.kind);
  const uint32_t chains = alu_chains(s.kind);
  AluResult r;
  r.ops_per_chain = run.iterations * kAluOpsPerIteration / chains;
  const uint64_t expected_warps = uint64_t(s.blocks) * s.block_threads / 32;
  if (warps.size() != expected_warps)
    throw Error("self-check failed: " + kernel + " reported " + std::to_string(warps.size()) +
                " warps, expected " + std::to_string(expected_warps));
  struct Span {
    uint64_t first = UINT64_MAX, last = 0;
    uint32_t warps = 0;
  };
  std::map<uint32_t, Span> per_sm;
  std::optional<uint64_t> accepted[kAluMaxChains];
  for (std::size_t w = 0; w < warps.size(); ++w) {
    const AluWarpOut& o = warps[w];
    if (o.ran != 1 || !(o.end_cycles > o.start_cycles))
      throw Error("self-check failed: " + kernel + " warp " + std::to_string(w) +
                  (o.ran != 1 ? " did not run" : " ended before it started"));
    if (run.store) {
      for (uint32_t k = 0; k < chains; ++k) {
        // Warps normally agree: a result already accepted for this chain needs no new check.
        if (accepted[k] && *accepted[k] == o.result[k]) continue;
        const std::string why = alu_result_error(s.op, k, r.ops_per_chain, o.result[k]);
        accepted[k] = o.result[k];
        if (!why.empty())
          throw Error("self-check failed: " + kernel + " warp " + std::to_string(w) + ": " + why);
      }
    }
    Span& span = per_sm[o.smid];
    span.first = std::min(span.first, o.start_cycles);
    span.last = std::max(span.last, o.end_cycles);
    ++span.warps;
  }
  r.sms = static_cast<uint32_t>(per_sm.size());
  double warps_total = 0;
  std::vector<double> rates;
  for (const auto& [sm, span] : per_sm) {
    warps_total += span.warps;
    const double ops = double(span.warps) * 32 * chains * double(r.ops_per_chain);
    rates.push_back(ops / double(span.last - span.first));
  }
  r.warps_per_sm = warps_total / r.sms;
  if (s.kind == AluKind::latency) {
    r.latency_cycles = double(warps[0].end_cycles - warps[0].start_cycles) / double(r.ops_per_chain);
  } else {
    r.ops_per_clk_per_sm = stats::median(rates);
    r.ops_per_clk_per_sm_min = *std::min_element(rates.begin(), rates.end());
    r.ops_per_clk_per_sm_max = *std::max_element(rates.begin(), rates.end());
  }
  return r;
}

}  // namespace gpuprobe::probes
