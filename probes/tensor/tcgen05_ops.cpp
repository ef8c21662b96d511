#include "probes/tensor/tcgen05_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

using tensor::kTcgen05AWords;
using tensor::kTcgen05RowBytes;
using tensor::kTcgen05RowsPerCta;
using tensor::Tcgen05CtaOut;
using tensor::Tcgen05Type;
using tensor::TileElem;

const char* tcgen05_kind_name(Tcgen05Kind kind) {
  return kind == Tcgen05Kind::latency ? "latency" : "throughput";
}
const char* tcgen05_operands_name(Tcgen05Operands o) {
  return o == Tcgen05Operands::random ? "random" : "zeros";
}
const Tcgen05OpInfo& tcgen05_info(Tcgen05Op op) { return tensor::tcgen05_op_info(op); }

Tcgen05Op parse_tcgen05_op(const std::string& name) {
  std::string known;
  for (const auto& info : tensor::kTcgen05Ops) {
    if (name == info.name) return info.op;
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  }
  throw Error("unknown tcgen05 op '" + name + "' (known: " + known + ")");
}

std::string tcgen05_kernel_name(Tcgen05Op op, Tcgen05Kind kind) {
  const Tcgen05OpInfo& i = tcgen05_info(op);
  return std::string("gpuprobe_tcgen05_") + i.input_name + "_" + i.acc_name + "_n" +
         std::to_string(i.n) + (i.ts ? "_ts" : "_ss") + "_cg" + std::to_string(i.cta_group) +
         (kind == Tcgen05Kind::latency ? "_lat" : "_thr");
}

std::string tcgen05_baseline_kernel(uint32_t cta_group) {
  return "gpuprobe_tcgen05_baseline_cg" + std::to_string(cta_group) + "_lat";
}

std::string tcgen05_shape(const Tcgen05OpInfo& info) {
  return "m" + std::to_string(tensor::tcgen05_m(info)) + "n" + std::to_string(info.n) + "k" +
         std::to_string(info.k);
}

TileElem tcgen05_tile_elem(Tcgen05Type t) {
  switch (t) {
    case Tcgen05Type::f16: return TileElem::f16;
    case Tcgen05Type::bf16: return TileElem::bf16;
    case Tcgen05Type::tf32: return TileElem::tf32;
    case Tcgen05Type::e4m3: return TileElem::e4m3;
    case Tcgen05Type::e5m2: return TileElem::e5m2;
    case Tcgen05Type::e3m2: return TileElem::e3m2;
    case Tcgen05Type::e2m3: return TileElem::e2m3;
    case Tcgen05Type::e2m1: return TileElem::e2m1;
    case Tcgen05Type::mxf8_e4m3: return TileElem::e4m3;
    case Tcgen05Type::mxf4:
    case Tcgen05Type::nvf4: return TileElem::e2m1;
    case Tcgen05Type::s8: return TileElem::s8;
    case Tcgen05Type::f32: return TileElem::f32;
    case Tcgen05Type::s32: return TileElem::s32;
  }
  return TileElem::f32;
}

namespace {

// ORs the low `bits` bits of `code` into a word image at bit `bit` (little endian: bit b of the
// image is bit b % 32 of word b / 32).
void put_bits(std::vector<uint32_t>& words, size_t bit, uint64_t code, uint32_t bits) {
  for (uint32_t i = 0; i < bits; ++i) {
    const size_t at = bit + i;
    words[at / 32] |= static_cast<uint32_t>((code >> i) & 1) << (at % 32);
  }
}
void put_bytes(std::vector<uint32_t>& words, size_t offset, uint64_t code, uint32_t bytes) {
  put_bits(words, offset * 8, code, bytes * 8);
}

}  // namespace

size_t tcgen05_smem_bit(const Tcgen05OpInfo& info, uint32_t row, uint32_t k) {
  const uint32_t bits = tensor::tcgen05_smem_element_bits(info);
  if (bits >= 8) return size_t(tensor::tcgen05_smem_offset(row, k * bits / 8)) * 8;
  // Packed fp4 (mxf4, nvf4): two per byte, element k in byte k / 2, the low nibble first.
  if (tensor::tcgen05_packed_fp4(info))
    return size_t(tensor::tcgen05_smem_offset(row, k / 2)) * 8 + (k % 2) * 4;
  // fp6/fp4: 16 elements packed low first into the first 12 or 8 bytes of each 16.
  return size_t(tensor::tcgen05_smem_offset(row, k / 16 * 16)) * 8 + (k % 16) * bits;
}

Tcgen05OperandData make_tcgen05_operands(const Tcgen05OpInfo& info, Tcgen05Operands kind,
                                         uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<unsigned>(info.op));
  const TileElem elem = tcgen05_tile_elem(info.input);
  const uint32_t bytes = tensor::tile_elem_bits(elem) / 8;
  const uint32_t m = tensor::tcgen05_m(info), n = info.n, k = info.k;
  const uint32_t b_rows = tensor::tcgen05_b_rows(info);
  const size_t a_cta_words = tensor::kTcgen05AImageBytes / 4;
  const size_t b_cta_words = size_t(b_rows) * kTcgen05RowBytes / 4;
  Tcgen05OperandData d;
  d.a.assign(size_t(m) * k, 0.0);
  d.b.assign(size_t(k) * n, 0.0);
  d.a_image.assign(a_cta_words * info.cta_group, 0);
  d.b_image.assign(b_cta_words * info.cta_group, 0);
  d.a_tmem.assign(size_t(m) * kTcgen05AWords, 0);
  // Block-scaled: scales 2^-2 .. 2^2 (exact in every format, ue8m0 or ue4m3: tcgen05_scale_code),
  // one per row of A and column of B, the same for every K block of it, repeating every 32
  // (tcgen05.cuh, kTcgen05SfColumns); zeros: scale 1. The logical A and B hold the scaled values.
  d.sf_exponent_a.assign(32, 0);
  d.sf_exponent_b.assign(32, 0);
  if (tensor::tcgen05_block_scaled(info)) {
    d.sf_image.assign(tensor::kTcgen05SfImageBytes / 4, 0);
    for (uint32_t r = 0; r < 32; ++r) {
      if (kind != Tcgen05Operands::zeros) {
        d.sf_exponent_a[r] = static_cast<int>(std::uniform_int_distribution<int>(-2, 2)(rng));
        d.sf_exponent_b[r] = static_cast<int>(std::uniform_int_distribution<int>(-2, 2)(rng));
      }
      for (uint32_t byte = 0; byte < tensor::kTcgen05SfRowBytes; ++byte) {
        put_bytes(d.sf_image, r * tensor::kTcgen05SfRowBytes + byte,
                  tensor::tcgen05_scale_code(info, d.sf_exponent_a[r]), 1);
        put_bytes(d.sf_image, (32 + r) * tensor::kTcgen05SfRowBytes + byte,
                  tensor::tcgen05_scale_code(info, d.sf_exponent_b[r]), 1);
      }
    }
  }
  // Row `row` of an operand (N x K for B) goes to CTA row / rows_per_cta's image; `keep` records
  // its elements' values.
  const auto fill = [&](uint32_t rows, uint32_t rows_per_cta, size_t cta_words,
                        std::vector<uint32_t>& image, const auto& keep) {
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < k; ++c) {
        const uint64_t code = kind == Tcgen05Operands::zeros ? 0 : tensor::tile_random(elem, rng);
        keep(r, c, code);
        put_bits(image,
                 (r / rows_per_cta) * cta_words * 32 + tcgen05_smem_bit(info, r % rows_per_cta, c),
                 code, tensor::tcgen05_smem_element_bits(info));
      }
  };
  fill(m, kTcgen05RowsPerCta, a_cta_words, d.a_image, [&](uint32_t r, uint32_t c, uint64_t code) {
    d.a[size_t(r) * k + c] = std::ldexp(tensor::tile_decode(elem, code), d.sf_exponent_a[r % 32]);
    // A in TMEM (TS forms): one element per byte; packed fp4 is SS only and leaves it zero.
    if (!tensor::tcgen05_packed_fp4(info))
      put_bytes(d.a_tmem, size_t(r) * kTcgen05AWords * 4 + c * bytes, code, bytes);
  });
  fill(n, b_rows, b_cta_words, d.b_image, [&](uint32_t col, uint32_t c, uint64_t code) {
    d.b[size_t(c) * n + col] =
        std::ldexp(tensor::tile_decode(elem, code), d.sf_exponent_b[col % 32]);
  });
  return d;
}

std::vector<double> tcgen05_reference(const Tcgen05OpInfo& info, const Tcgen05OperandData& data) {
  const tensor::TileShape shape{tensor::tcgen05_m(info), info.n, info.k};
  return tensor::tile_reference(shape, data.a, data.b,
                                std::vector<double>(size_t(shape.m) * shape.n, 0.0));
}

std::vector<uint32_t> tcgen05_tile_words(const Tcgen05OpInfo& info,
                                         const std::vector<double>& values) {
  const TileElem acc = tcgen05_tile_elem(info.acc);
  const uint32_t bits = tensor::tile_elem_bits(acc);
  std::vector<uint32_t> words(values.size() * bits / 32, 0);
  for (size_t i = 0; i < values.size(); ++i)
    tensor::tile_set(words.data(), static_cast<uint32_t>(i), bits,
                     tensor::tile_encode(acc, values[i]));
  return words;
}

tensor::TileCheck check_tcgen05_tile(const Tcgen05OpInfo& info, const Tcgen05OperandData& data,
                                     const std::vector<uint32_t>& words) {
  const tensor::TileShape shape{tensor::tcgen05_m(info), info.n, info.k};
  const size_t expected = size_t(shape.m) * tensor::tcgen05_tile_row_words(info);
  if (words.size() != expected)
    throw Error("self-check failed: " + std::string(info.name) + " stored " +
                std::to_string(words.size()) + " words of D, expected " + std::to_string(expected));
  const TileElem acc = tcgen05_tile_elem(info.acc);
  const uint32_t bits = tensor::tile_elem_bits(acc);
  std::vector<double> got(size_t(shape.m) * shape.n);
  for (size_t i = 0; i < got.size(); ++i)
    got[i] = tensor::tile_decode(acc,
                                 tensor::tile_get(words.data(), static_cast<uint32_t>(i), bits));
  return tensor::check_tile(shape, data.a, data.b, std::vector<double>(got.size(), 0.0), got,
                            tcgen05_tile_elem(info.input), acc);
}

void check_tcgen05_fits(const Tcgen05Setup& setup, const DeviceInfo& info) {
  const int sm = info.cc.sm();
  if (!ptx::device_has(ptx::Cap::tcgen05, sm))
    throw Skip("tcgen05 needs sm_100a/103a/110a; " + info.name + " is sm_" +
                               std::to_string(sm));
  if (sm != 100)
    throw Skip("the tcgen05 kernels are sm_100a code, which runs on compute "
                               "capability 10.0 only; " + info.name + " is sm_" +
                               std::to_string(sm));
  const Tcgen05OpInfo& op = tcgen05_info(setup.op);
  const std::string kernel = tcgen05_kernel_name(setup.op, setup.kind);
  if (setup.ctas == 0 || setup.ctas % op.cta_group != 0)
    throw Error(kernel + ": the CTA count must be a positive multiple of " +
                std::to_string(op.cta_group));
  if (setup.kind == Tcgen05Kind::latency && setup.ctas != op.cta_group)
    throw Error(kernel + ": a latency launch is one CTA group");
}

namespace {

struct Span {
  uint64_t first = UINT64_MAX, last = 0;   // the SM's first issuing CTA's start, last one's end
  uint32_t ctas = 0;
};

// Every CTA ran; the issuing CTAs (one per group) ended after they started. Per SM of an issuing
// CTA: their span and count.
std::map<uint32_t, Span> spans(const std::string& kernel, const Tcgen05Launch& l,
                               uint32_t cta_group, const std::vector<Tcgen05CtaOut>& ctas,
                               uint32_t* sms) {
  if (ctas.size() != l.ctas)
    throw Error("self-check failed: " + kernel + " reported " + std::to_string(ctas.size()) +
                " CTAs, expected " + std::to_string(l.ctas));
  std::map<uint32_t, Span> per_sm;
  std::map<uint32_t, bool> seen;
  for (size_t c = 0; c < ctas.size(); ++c) {
    const Tcgen05CtaOut& o = ctas[c];
    const bool should_lead = c % cta_group == 0;
    if (o.ran != 1 || o.leader != (should_lead ? 1u : 0u))
      throw Error("self-check failed: " + kernel + " CTA " + std::to_string(c) +
                  (o.ran != 1 ? " did not run" : " has the wrong issuing role"));
    seen[o.smid] = true;
    if (!should_lead) continue;
    if (!(o.end_cycles > o.start_cycles))
      throw Error("self-check failed: " + kernel + " CTA " + std::to_string(c) +
                  " ended before it started");
    Span& s = per_sm[o.smid];
    s.first = std::min(s.first, o.start_cycles);
    s.last = std::max(s.last, o.end_cycles);
    ++s.ctas;
  }
  if (sms) *sms = static_cast<uint32_t>(seen.size());
  return per_sm;
}

}  // namespace

Tcgen05Result run_tcgen05(const Tcgen05Setup& setup, const Tcgen05Run& run,
                          const Tcgen05Launcher& launch) {
  const Tcgen05OpInfo& info = tcgen05_info(setup.op);
  const std::string kernel = tcgen05_kernel_name(setup.op, setup.kind);
  if (run.iterations == 0) throw Error(kernel + ": no iterations");
  const uint32_t group = info.cta_group;
  Tcgen05Result r;

  // 1. The self-check: one MMA on random operands, D = A * B against float64.
  const Tcgen05OperandData check_data = make_tcgen05_operands(info, Tcgen05Operands::random, run.seed);
  const Tcgen05Launch check{setup.op, Tcgen05Kind::latency, false, group, 1, true, &check_data};
  const Tcgen05LaunchOut checked = launch(check);
  spans(tcgen05_kernel_name(setup.op, Tcgen05Kind::latency), check, group, checked.ctas, nullptr);
  r.self_check = check_tcgen05_tile(info, check_data, checked.tile);
  if (!r.self_check.passed)
    throw Error("self-check failed: " + std::string(info.name) + " " + r.self_check.why);

  // 2. The timed launch.
  const Tcgen05OperandData timed_data =
      setup.operands == Tcgen05Operands::random
          ? check_data
          : make_tcgen05_operands(info, setup.operands, run.seed);
  const Tcgen05Launch timed{setup.op, setup.kind, false, setup.ctas, run.iterations, false, &timed_data};
  const Tcgen05LaunchOut out = launch(timed);
  r.launch = out.launch;
  const auto per_sm = spans(kernel, timed, group, out.ctas, &r.sms);
  if (setup.kind == Tcgen05Kind::latency) {
    r.cycles_per_iteration =
        double(out.ctas[0].end_cycles - out.ctas[0].start_cycles) / double(run.iterations);
    // 3. The baseline: the same loop without the MMA.
    const Tcgen05Launch base{setup.op, Tcgen05Kind::latency, true, group, run.iterations, false,
                             &timed_data};
    const Tcgen05LaunchOut b = launch(base);
    spans(tcgen05_baseline_kernel(group), base, group, b.ctas, nullptr);
    r.baseline_cycles = double(b.ctas[0].end_cycles - b.ctas[0].start_cycles) / double(run.iterations);
    r.latency_cycles = r.cycles_per_iteration - r.baseline_cycles;
  } else {
    // Each SM of a pair does half of a cta_group::2 MMA.
    const double flops_per_cta = double(run.iterations) * tensor::kTcgen05ThroughputPerIteration *
                                 double(tensor::tcgen05_flops(info)) / group;
    std::vector<double> rates;
    for (const auto& [sm, span] : per_sm)
      rates.push_back(flops_per_cta * span.ctas / double(span.last - span.first));
    r.flops_per_clk_per_sm = stats::median(rates);
    r.flops_per_clk_per_sm_min = *std::min_element(rates.begin(), rates.end());
    r.flops_per_clk_per_sm_max = *std::max_element(rates.begin(), rates.end());
  }
  return r;
}

}  // namespace gpuprobe::probes
