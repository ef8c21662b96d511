// tensor/tcgen05: tcgen05.mma latency (cycles) and throughput (FLOP/clk/SM, one CTA per SM) per op
// of probes/tensor/tcgen05.def (sm_100a), with random operands and with zeros, in tensor_point.hpp's
// baselined flow; the kernels are tcgen05.sm100a.cu (what they time: tcgen05.cuh), the simulator's
// costs tensor_costs.cpp's. A device without tcgen05, one other than compute capability 10.0 (the
// kernels are sm_100a code) or a build without sm_100a code skips the probe with the reason.
#include "probes/tensor/tcgen05.hpp"

#include <algorithm>
#include <cmath>
#include <random>

// Per op the latency and throughput kernels, and per cta_group the baseline (tcgen05.sm100a.cu,
// sm_100a only), weak: null where the build lacks them.
#define GPUPROBE_TCGEN05_OP(in, acc, kind, n, k, form, cg)                                   \
  GPUPROBE_KERNEL_PAIR_DECLARE_(gpuprobe_tcgen05_, (gpuprobe::probes::tensor::Tcgen05Args,     \
                                                    gpuprobe::probes::tensor::Tcgen05CtaOut*), \
                                in##_##acc##_n##n##_##form##_cg##cg)
#include "probes/tensor/tcgen05.def"
#undef GPUPROBE_TCGEN05_OP
extern "C" __attribute__((weak)) void gpuprobe_tcgen05_baseline_cg1_lat(
    gpuprobe::probes::tensor::Tcgen05Args, gpuprobe::probes::tensor::Tcgen05CtaOut*);
extern "C" __attribute__((weak)) void gpuprobe_tcgen05_baseline_cg2_lat(
    gpuprobe::probes::tensor::Tcgen05Args, gpuprobe::probes::tensor::Tcgen05CtaOut*);

namespace gpuprobe::probes {

using tensor::kTcgen05AWords;
using tensor::kTcgen05RowBytes;
using tensor::kTcgen05RowsPerCta;
using tensor::Operands;
using tensor::Tcgen05CtaOut;
using tensor::Tcgen05Type;
using tensor::TileElem;

const Tcgen05OpInfo& tcgen05_info(Tcgen05Op op) { return tensor::tcgen05_op_info(op); }

Tcgen05Op parse_tcgen05_op(const std::string& name) {
  return find_op(tensor::kTcgen05Ops, name, "tcgen05 op").op;
}

std::string tcgen05_kernel_name(Tcgen05Op op, Kind kind) {
  const Tcgen05OpInfo& i = tcgen05_info(op);
  return std::string("gpuprobe_tcgen05_") + i.input_name + "_" + i.acc_name + "_n" + std::to_string(i.n) +
         (i.ts ? "_ts" : "_ss") + "_cg" + std::to_string(i.cta_group) + kind_suffix(kind);
}

std::string tcgen05_baseline_kernel(uint32_t cta_group) {
  return "gpuprobe_tcgen05_baseline_cg" + std::to_string(cta_group) + "_lat";
}

std::string tcgen05_shape(const Tcgen05OpInfo& info) {
  return "m" + std::to_string(tensor::tcgen05_m(info)) + "n" + std::to_string(info.n) + "k" +
         std::to_string(info.k);
}

TileElem tcgen05_tile_elem(Tcgen05Type t) {
  // In Tcgen05Type's order; the block-scaled inputs by their elements (mxf8_e4m3: e4m3; mxf4 and
  // nvf4: e2m1).
  using E = TileElem;
  constexpr E kElems[] = {E::f16,  E::bf16, E::tf32, E::e4m3, E::e5m2, E::e3m2, E::e2m3,
                          E::e2m1, E::e4m3, E::e2m1, E::e2m1, E::s8,   E::f32,  E::s32};
  static_assert(sizeof(kElems) / sizeof(kElems[0]) == static_cast<unsigned>(Tcgen05Type::s32) + 1);
  return kElems[static_cast<unsigned>(t)];
}

size_t tcgen05_smem_bit(const Tcgen05OpInfo& info, uint32_t row, uint32_t k) {
  const uint32_t bits = tensor::tcgen05_smem_element_bits(info);
  if (bits >= 8) return size_t(tensor::tcgen05_smem_offset(row, k * bits / 8)) * 8;
  // Packed fp4 (mxf4, nvf4): two per byte, element k in byte k / 2, the low nibble first.
  if (tensor::tcgen05_packed_fp4(info))
    return size_t(tensor::tcgen05_smem_offset(row, k / 2)) * 8 + (k % 2) * 4;
  // fp6/fp4: 16 elements packed low first into the first 12 or 8 bytes of each 16.
  return size_t(tensor::tcgen05_smem_offset(row, k / 16 * 16)) * 8 + (k % 16) * bits;
}

Tcgen05OperandData make_tcgen05_operands(const Tcgen05OpInfo& info, Operands kind, uint64_t seed) {
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
      if (kind != Operands::zeros) {
        d.sf_exponent_a[r] = static_cast<int>(std::uniform_int_distribution<int>(-2, 2)(rng));
        d.sf_exponent_b[r] = static_cast<int>(std::uniform_int_distribution<int>(-2, 2)(rng));
      }
      for (uint32_t byte = 0; byte < tensor::kTcgen05SfRowBytes; ++byte) {
        tensor::image_put_bytes(d.sf_image, r * tensor::kTcgen05SfRowBytes + byte,
                                tensor::tcgen05_scale_code(info, d.sf_exponent_a[r]), 1);
        tensor::image_put_bytes(d.sf_image, (32 + r) * tensor::kTcgen05SfRowBytes + byte,
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
        const uint64_t code = kind == Operands::zeros ? 0 : tensor::tile_random(elem, rng);
        keep(r, c, code);
        tensor::image_put_bits(
            image, (r / rows_per_cta) * cta_words * 32 + tcgen05_smem_bit(info, r % rows_per_cta, c),
            code, tensor::tcgen05_smem_element_bits(info));
      }
  };
  fill(m, kTcgen05RowsPerCta, a_cta_words, d.a_image, [&](uint32_t r, uint32_t c, uint64_t code) {
    d.a[size_t(r) * k + c] = std::ldexp(tensor::tile_decode(elem, code), d.sf_exponent_a[r % 32]);
    // A in TMEM (TS forms): one element per byte; packed fp4 is SS only and leaves it zero.
    if (!tensor::tcgen05_packed_fp4(info))
      tensor::image_put_bytes(d.a_tmem, size_t(r) * kTcgen05AWords * 4 + c * bytes, code, bytes);
  });
  fill(n, b_rows, b_cta_words, d.b_image, [&](uint32_t col, uint32_t c, uint64_t code) {
    d.b[size_t(c) * n + col] =
        std::ldexp(tensor::tile_decode(elem, code), d.sf_exponent_b[col % 32]);
  });
  return d;
}

// A (SS) and B through descriptors, no swizzle, K-major: the LBO and SBO the kernels use.
static tensor::ZeroCTile tcgen05_tile(const Tcgen05OpInfo& info) {
  return {{tensor::tcgen05_m(info), info.n, info.k},
          tcgen05_tile_elem(info.input),
          tcgen05_tile_elem(info.acc),
          {!info.ts, true, tensor::kTcgen05LboBytes, tensor::kTcgen05SboBytes}};
}

std::vector<double> tcgen05_reference(const Tcgen05OpInfo& info, const Tcgen05OperandData& data) {
  const tensor::ZeroCTile t = tcgen05_tile(info);
  return tensor::tile_reference(t.shape, data.a, data.b, t.zero_c());
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
  const tensor::ZeroCTile t = tcgen05_tile(info);
  const size_t expected = size_t(t.shape.m) * tensor::tcgen05_tile_row_words(info);
  if (words.size() != expected)
    throw SelfCheckFailed(std::string(info.name) + " stored " + std::to_string(words.size()) +
                          " words of D, expected " + std::to_string(expected));
  const uint32_t bits = tensor::tile_elem_bits(t.acc);
  std::vector<double> got(size_t(t.shape.m) * t.shape.n);
  for (size_t i = 0; i < got.size(); ++i)
    got[i] = tensor::tile_decode(t.acc, tensor::tile_get(words.data(), static_cast<uint32_t>(i), bits));
  return tensor::check_tile(t.shape, data.a, data.b, t.zero_c(), got, t.input, t.acc, t.layout);
}

namespace {

const KernelPair kKernels[] = {
#define GPUPROBE_TCGEN05_OP(in, acc, kind, n, k, form, cg) \
  GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_tcgen05_, in##_##acc##_n##n##_##form##_cg##cg)
#include "probes/tensor/tcgen05.def"
#undef GPUPROBE_TCGEN05_OP
};

// tensor/tcgen05 in tensor_point.hpp's baselined flow: a unit is a CTA of 128 threads, a group
// cta_group CTAs (a cluster), whose even CTA issues.
struct Tcgen05 {
  using Op = Tcgen05Op;
  using Info = Tcgen05OpInfo;
  using Data = Tcgen05OperandData;
  using Unit = Tcgen05CtaOut;
  using Args = tensor::Tcgen05Args;
  static constexpr const char* kUnit = "CTA";
  static constexpr uint32_t kThreads = tensor::kTcgen05Threads;
  static constexpr uint32_t kPerIteration = tensor::kTcgen05ThroughputPerIteration;
  // The commit/mbarrier-wait round trip with no MMA outstanding: assumption (not in FIGURES).
  static constexpr double kSimBaselineCycles = 40;
  static constexpr const char* kLaunches = "tensor.tcgen05";
  // Throughput: more than half of an sm_100 SM's shared memory (228 KiB), unused, so that no two
  // CTAs share an SM (one issuing thread per SM; two CTAs wanting all 512 TMEM columns would wait
  // on each other's allocation).
  static constexpr uint64_t kThroughputSmemBytes = 128ull << 10;
  static constexpr const char* kNeeds = "sm_100a code: CMAKE_CUDA_ARCHITECTURES with 100";

  static constexpr auto info = &tcgen05_info;
  static uint32_t group(const Info& i) { return i.cta_group; }
  static constexpr auto flops = &tensor::tcgen05_flops;
  static constexpr auto kernel_name = &tcgen05_kernel_name;
  static std::string baseline_kernel(const Info& i) { return tcgen05_baseline_kernel(i.cta_group); }
  static const void* kernel(const Tcgen05Launch& l) {
    if (!l.baseline) return kKernels[static_cast<unsigned>(l.op)].of(l.kind);
    return tcgen05_info(l.op).cta_group == 1
               ? reinterpret_cast<const void*>(&gpuprobe_tcgen05_baseline_cg1_lat)
               : reinterpret_cast<const void*>(&gpuprobe_tcgen05_baseline_cg2_lat);
  }
  // The device is compute capability 10.0 (the kernels are sm_100a code), else Skip; the launch
  // shape.
  static void fits(const Tcgen05Setup& s, const DeviceInfo& d) {
    const int sm = d.cc.sm();
    if (!ptx::device_has(ptx::Cap::tcgen05, sm))
      throw Skip("tcgen05 needs sm_100a/103a/110a; " + d.name + " is sm_" + std::to_string(sm));
    if (sm != 100)
      throw Skip("the tcgen05 kernels are sm_100a code, which runs on compute capability 10.0 only; " +
                 d.name + " is sm_" + std::to_string(sm));
    const uint32_t g = tcgen05_info(s.op).cta_group;
    const std::string kernel = tcgen05_kernel_name(s.op, s.kind);
    if (s.units == 0 || s.units % g != 0)
      throw Error(kernel + ": the CTA count must be a positive multiple of " + std::to_string(g));
    if (s.kind == Kind::latency && s.units != g) throw Error(kernel + ": a latency launch is one CTA group");
  }
  static constexpr auto operands = &make_tcgen05_operands;
  static constexpr auto tile = &tcgen05_tile;
  static constexpr auto reference = &tcgen05_reference;
  static constexpr auto check_tile = &check_tcgen05_tile;
  static constexpr auto tile_words = &tcgen05_tile_words;
  static uint64_t tile_size(const Info& i) {
    return uint64_t(tensor::tcgen05_m(i)) * tensor::tcgen05_tile_row_words(i);
  }
  static nlohmann::json self_check_json(const tensor::TileCheck& c) {
    return {{"passed", c.passed},
            {"operands", "random"},
            {"reference", "float64"},
            {"elements", c.elements},
            {"max_abs_error", c.max_abs_error},
            {"tolerance_rel", c.tolerance_rel},
            {"error_metric", "|D - reference| <= tolerance_rel x sum_k |a_ik b_kj|"}};
  }
  template <class Upload>
  static Args args(const Data& d, const Upload& upload) {
    Args a{};
    a.a_image = upload(d.a_image);
    a.b_image = upload(d.b_image);
    a.a_tmem = upload(d.a_tmem);
    a.sf_image = upload(d.sf_image);
    return a;
  }
};

}  // namespace

tensor::TensorResult run_tcgen05(const Tcgen05Setup& setup, const Tcgen05Run& run,
                                 const Tcgen05Launcher& launch) {
  return tensor::run_baselined<Tcgen05>(setup, run, launch);
}

namespace {

// ---- the probe ----------------------------------------------------------------------------------

nlohmann::json measure(ProbeContext& ctx, const Tcgen05Setup& s, const Tcgen05Run& run) {
  const Tcgen05OpInfo& info = tcgen05_info(s.op);
  const bool scaled = tensor::tcgen05_block_scaled(info);
  const std::string ptx =
      "tcgen05.mma.cta_group::" + std::to_string(info.cta_group) + ".kind::" + info.kind_name +
      (scaled ? ".block_scale.scale_vec::" + std::to_string(tensor::tcgen05_scale_vec(info)) + "X" : "") +
      (info.ts  ? " [d_tmem], [a_tmem], b_desc, idesc, p"
       : scaled ? " [d_tmem], a_desc, b_desc, idesc, [sfa_tmem], [sfb_tmem], p"
                : " [d_tmem], a_desc, b_desc, idesc, p");
  nlohmann::json p = {{"ptx", ptx},
                      {"path", "tcgen05"},
                      {"shape", tcgen05_shape(info)},
                      {"precision", info.input_name},
                      {"accumulate", info.acc_name},
                      {"tcgen05_kind", info.kind_name},
                      {"form", info.ts ? "TS" : "SS"},
                      {"cta_group", info.cta_group},
                      {"implementation", "native"}};
  if (scaled) {
    // As tensor/mma's block_scale: the element format and the scales behind the precision.
    const uint32_t vec = tensor::tcgen05_scale_vec(info);
    p["scale_format"] = tensor::tcgen05_ue4m3_scales(info) ? "ue4m3" : "ue8m0";
    p["block_scale"] = {{"input", tensor::tcgen05_packed_fp4(info) ? "e2m1" : "e4m3"},
                        {"scale_format", p["scale_format"]},
                        {"scales_per_row", vec},
                        {"block_elements", info.k / vec}};
  }
  if (tensor::measure_baselined<Tcgen05>(p, ctx, s, run).skipped) return p;
  p["ctas"] = s.units;
  if (s.kind == Kind::throughput) {
    p["mmas_per_commit"] = tensor::kTcgen05ThroughputPerIteration;
    p["accumulators"] = tensor::tcgen05_accumulators(info, true);
  }
  return p;
}

ProbeSpec tcgen05_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "tensor/tcgen05";
  p.summary =
      "tcgen05.mma (sm_100a) latency (cycles) and throughput (FLOP/clk/SM) per kind, N, SS/TS, cta_group";
  p.needs = ptx::Cap::tcgen05;
  p.params = {
      op_param(op_choices(tensor::kTcgen05Ops), "probes/tensor/tcgen05.def"),
      {"n", K::choice, "all", "only the ops of this N", {"all", "64", "256"}},
      {"form",
       K::choice,
       "both",
       "SS (A in shared memory), TS (A in tensor memory) or both",
       {"both", "ss", "ts"}},
      {"cta-group",
       K::choice,
       "both",
       "cta_group::1 (M 128), ::2 (M 256 on an SM pair) or both",
       {"both", "1", "2"}},
      kind_param(),
      tensor::operands_param("random, zeros or both (the self-check always uses random)"),
      iterations_param("1024", "loop iterations per launch (1 MMA each for latency, 8 for throughput)",
                       tensor::kMaxIterations),
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    Tcgen05Run run;
    run.iterations = read_iterations(prm, tensor::kMaxIterations);
    const std::string n = prm.get_text("n"), form = prm.get_text("form"), group = prm.get_text("cta-group");
    // --n, --form and --cta-group restrict the op axis.
    std::vector<std::string> ops;
    for (const auto& info : tensor::kTcgen05Ops)
      if ((n == "all" || n == std::to_string(info.n)) &&
          (form == "both" || form == (info.ts ? "ts" : "ss")) &&
          (group == "both" || group == std::to_string(info.cta_group)))
        ops.push_back(info.name);
    const uint32_t sms = static_cast<uint32_t>(ctx.device().info().sm_count);
    measure_axes(
        ctx, tensor::point_axes(ops),
        [&](const nlohmann::json& axes) {
          Tcgen05Setup s;
          s.op = parse_tcgen05_op(axes["op"]);
          s.kind = parse_kind(axes["kind"]);
          s.operands = tensor::parse_operands(axes["operands"]);
          // Throughput: one CTA per SM (whole pairs for cta_group::2).
          const uint32_t g = tcgen05_info(s.op).cta_group;
          s.units = s.kind == Kind::latency ? g : std::max(g, sms / g * g);
          return measure(ctx, s, run);
        },
        "no tcgen05 op matches --op " + prm.get_text("op") + " --n " + n + " --form " + form +
            " --cta-group " + group);
  };
  return p;
}

const ProbeRegistration kRegistration(tcgen05_probe);

}  // namespace
}  // namespace gpuprobe::probes
