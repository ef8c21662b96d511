// tensor/wgmma: wgmma latency (cycles) and throughput (FLOP/clk/SM, warpgroups on every SM) per
// op of probes/tensor/wgmma.def (sm_90a), with random operands and with zeros, in tensor_point.hpp's
// baselined flow; the kernels are wgmma.sm90a.cu (what they time: wgmma.cuh), the simulator's costs
// tensor_costs.cpp's. A device without wgmma (not sm_90) or a build without sm_90a code skips the
// probe with the reason.
#include "probes/tensor/wgmma.hpp"

#include <random>

// Per op the latency and throughput kernels, and the baseline (wgmma.sm90a.cu, sm_90a only),
// weak: null where the build lacks them.
#define GPUPROBE_WGMMA_OP(in, acc, n, k, form)                                                \
  GPUPROBE_KERNEL_PAIR_DECLARE_(gpuprobe_wgmma_, (gpuprobe::probes::tensor::WgmmaArgs,         \
                                                  gpuprobe::probes::tensor::WgmmaGroupOut*),   \
                                in##_##acc##_n##n##_##form)
#include "probes/tensor/wgmma.def"
#undef GPUPROBE_WGMMA_OP
extern "C" __attribute__((weak)) void gpuprobe_wgmma_baseline_lat(gpuprobe::probes::tensor::WgmmaArgs,
                                                                  gpuprobe::probes::tensor::WgmmaGroupOut*);

namespace gpuprobe::probes {

namespace {

using tensor::kWgmmaARegs;
using tensor::kWgmmaM;
using tensor::kWgmmaThreads;
using tensor::kWgmmaThroughputPerIteration;
using tensor::Operands;
using tensor::TileElem;
using tensor::WgmmaType;

// The input and accumulator types are named as the tile formats.
TileElem elem(const char* name) { return tensor::tile_elem_named(name); }

// gpuprobe_wgmma_f16_f32_n128_ss_lat / _thr (wgmma.cuh).
std::string wgmma_kernel_name(WgmmaOp op, Kind kind) {
  const WgmmaOpInfo& i = wgmma_info(op);
  return std::string("gpuprobe_wgmma_") + i.input_name + "_" + i.acc_name + "_n" + std::to_string(i.n) +
         (i.rs ? "_rs" : "_ss") + kind_suffix(kind);
}

std::string wgmma_shape(const WgmmaOpInfo& info) {
  return "m64n" + std::to_string(info.n) + "k" + std::to_string(info.k);
}

// The SASS one wgmma becomes on sm_90a (tests/probes/tensor/test_sass_wgmma.py asserts it):
// "HGMMA.64x128x16.F32", "HGMMA.64x128x16.F32.BF16", "QGMMA.64x128x32.F32.E4M3.E4M3", ...
std::string wgmma_sass(const WgmmaOpInfo& info) {
  // Per input, in WgmmaType's order (f16 into f16: HGMMA...F16).
  constexpr const char* kSass[][2] = {{"HGMMA", ".F32"},           {"HGMMA", ".F32.BF16"},
                                      {"HGMMA", ".F32.TF32"},      {"QGMMA", ".F32.E4M3.E4M3"},
                                      {"QGMMA", ".F32.E5M2.E5M2"}, {"IGMMA", ".S8.S8"}};
  const auto& s = kSass[static_cast<unsigned>(info.input)];
  return s[0] + (".64x" + std::to_string(info.n) + "x" + std::to_string(info.k)) +
         (info.acc == WgmmaType::f16 ? ".F16" : s[1]);
}

// A (SS) and B through descriptors, no swizzle, K-major: the LBO and SBO the kernels use.
tensor::ZeroCTile wgmma_tile(const WgmmaOpInfo& info) {
  return {{kWgmmaM, info.n, info.k},
          elem(info.input_name),
          elem(info.acc_name),
          {!info.rs, true, tensor::kWgmmaLboBytes, tensor::kWgmmaSboBytes}};
}

}  // namespace

const WgmmaOpInfo& wgmma_info(WgmmaOp op) { return tensor::wgmma_op_info(op); }

WgmmaOp parse_wgmma_op(const std::string& name) { return find_op(tensor::kWgmmaOps, name, "wgmma op").op; }

TileIndex wgmma_d_index(uint32_t thread, uint32_t v) {
  const uint32_t warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((v / 2) % 2), 8 * (v / 4) + 2 * (lane % 4) + v % 2};
}

TileIndex wgmma_a_index(const WgmmaOpInfo& info, uint32_t thread, uint32_t e) {
  const uint32_t warp = thread / 32, lane = thread % 32;
  const uint32_t row0 = 16 * warp + lane / 4;
  switch (tensor::tile_elem_bits(elem(info.input_name))) {
    case 16: return {row0 + 8 * ((e / 2) % 2), 2 * (lane % 4) + e % 2 + 8 * (e / 4)};
    case 32: return {row0 + 8 * (e % 2), lane % 4 + 4 * (e / 2)};
    default: return {row0 + 8 * ((e / 4) % 2), 4 * (lane % 4) + e % 4 + 16 * (e / 8)};
  }
}

WgmmaOperandData make_wgmma_operands(const WgmmaOpInfo& info, Operands kind, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<unsigned>(info.op));
  const TileElem in = elem(info.input_name);
  const uint32_t bytes = tensor::tile_elem_bits(in) / 8, n = info.n, k = info.k;
  WgmmaOperandData d;
  d.a.assign(size_t(kWgmmaM) * k, 0.0);
  d.b.assign(size_t(k) * n, 0.0);
  d.a_image.assign(tensor::kWgmmaAImageBytes / 4, 0);
  d.b_image.assign(size_t(n) * tensor::kWgmmaRowBytes / 4, 0);
  d.a_frag.assign(size_t(kWgmmaThreads) * kWgmmaARegs, 0);
  std::vector<uint32_t> a_codes(d.a.size(), 0);
  // Row `r` of A (or of B as N x K) into its image; `keep` records its elements.
  const auto fill = [&](std::vector<uint32_t>& image, uint32_t rows, const auto& keep) {
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < k; ++c) {
        const uint32_t code = kind == Operands::zeros ? 0
                                                      : static_cast<uint32_t>(tensor::tile_random(in, rng));
        keep(r, c, code);
        tensor::image_put_bytes(image, tensor::wgmma_smem_offset(r, c * bytes), code, bytes);
      }
  };
  fill(d.a_image, kWgmmaM, [&](uint32_t r, uint32_t c, uint32_t code) {
    d.a[size_t(r) * k + c] = tensor::tile_decode(in, code);
    a_codes[size_t(r) * k + c] = code;
  });
  fill(d.b_image, n, [&](uint32_t col, uint32_t c, uint32_t code) {
    d.b[size_t(c) * n + col] = tensor::tile_decode(in, code);
  });
  for (uint32_t t = 0; t < kWgmmaThreads; ++t)
    for (uint32_t e = 0; e < kWgmmaARegs * 4 / bytes; ++e) {
      const TileIndex at = wgmma_a_index(info, t, e);
      tensor::image_put_bytes(d.a_frag, t * kWgmmaARegs * 4 + e * bytes, a_codes[size_t(at.row) * k + at.col],
                              bytes);
    }
  return d;
}

std::vector<double> wgmma_reference(const WgmmaOpInfo& info, const WgmmaOperandData& data) {
  const tensor::ZeroCTile t = wgmma_tile(info);
  return tensor::tile_reference(t.shape, data.a, data.b, t.zero_c());
}

// Thread t's accumulator element v is element v of its registers (tile_set: f16 two per word).
std::vector<uint32_t> wgmma_tile_words(const WgmmaOpInfo& info, const std::vector<double>& values) {
  const TileElem acc = elem(info.acc_name);
  const uint32_t regs = tensor::wgmma_acc_regs(info), bits = tensor::tile_elem_bits(acc);
  std::vector<uint32_t> words(size_t(kWgmmaThreads) * regs, 0);
  for (uint32_t t = 0; t < kWgmmaThreads; ++t)
    for (uint32_t v = 0; v < info.n / 2; ++v) {
      const TileIndex at = wgmma_d_index(t, v);
      tensor::tile_set(&words[size_t(t) * regs], v, bits,
                       tensor::tile_encode(acc, values[size_t(at.row) * info.n + at.col]));
    }
  return words;
}

tensor::TileCheck check_wgmma_tile(const WgmmaOpInfo& info, const WgmmaOperandData& data,
                                   const std::vector<uint32_t>& words) {
  const TileElem acc = elem(info.acc_name);
  const uint32_t regs = tensor::wgmma_acc_regs(info), bits = tensor::tile_elem_bits(acc);
  if (words.size() != size_t(kWgmmaThreads) * regs)
    throw SelfCheckFailed("the stored tile holds " + std::to_string(words.size()) + " words, expected " +
                          std::to_string(size_t(kWgmmaThreads) * regs));
  std::vector<double> got(size_t(kWgmmaM) * info.n, 0.0);
  for (uint32_t t = 0; t < kWgmmaThreads; ++t)
    for (uint32_t v = 0; v < info.n / 2; ++v) {
      const TileIndex at = wgmma_d_index(t, v);
      got[size_t(at.row) * info.n + at.col] = tensor::tile_decode(
          acc, tensor::tile_get(&words[size_t(t) * regs], v, bits));
    }
  const tensor::ZeroCTile t = wgmma_tile(info);
  return tensor::check_tile(t.shape, data.a, data.b, t.zero_c(), got, t.input, t.acc, t.layout);
}

namespace {

const KernelPair kKernels[] = {
#define GPUPROBE_WGMMA_OP(in, acc, n, k, form) \
  GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_wgmma_, in##_##acc##_n##n##_##form)
#include "probes/tensor/wgmma.def"
#undef GPUPROBE_WGMMA_OP
};

// tensor/wgmma in tensor_point.hpp's baselined flow: a unit is a warpgroup, one block each.
struct Wgmma {
  using Op = WgmmaOp;
  using Info = WgmmaOpInfo;
  using Data = WgmmaOperandData;
  using Unit = tensor::WgmmaGroupOut;
  using Args = tensor::WgmmaArgs;
  static constexpr const char* kUnit = "warpgroup";
  static constexpr uint32_t kThreads = kWgmmaThreads, kPerIteration = kWgmmaThroughputPerIteration;
  // The fence/commit/wait round trip of an empty commit group: assumption (not in FIGURES).
  static constexpr double kSimBaselineCycles = 24;
  static constexpr const char* kLaunches = "tensor.wgmma";
  static constexpr uint64_t kThroughputSmemBytes = 0;
  static constexpr const char* kNeeds = "sm_90a code: CMAKE_CUDA_ARCHITECTURES with 90";

  static constexpr auto info = &wgmma_info;
  static uint32_t group(const Info&) { return 1; }
  static constexpr auto flops = &tensor::wgmma_flops;
  static constexpr auto kernel_name = &wgmma_kernel_name;
  static std::string baseline_kernel(const Info&) { return "gpuprobe_wgmma_baseline_lat"; }
  static const void* kernel(const WgmmaLaunch& l) {
    return l.baseline ? reinterpret_cast<const void*>(&gpuprobe_wgmma_baseline_lat)
                      : kKernels[static_cast<unsigned>(l.op)].of(l.kind);
  }
  // The device is sm_90 (else Skip); the launch shape.
  static void fits(const WgmmaSetup& s, const DeviceInfo& d) {
    if (!ptx::device_has(ptx::Cap::wgmma, d.cc.sm()))
      throw Skip("wgmma needs sm_90a; " + d.name + " is sm_" + std::to_string(d.cc.sm()));
    if (s.units == 0) throw Error(wgmma_kernel_name(s.op, s.kind) + ": no blocks");
    if (s.kind == Kind::latency && s.units != 1)
      throw Error(wgmma_kernel_name(s.op, s.kind) + ": a latency launch is one block");
  }
  static constexpr auto operands = &make_wgmma_operands;
  static constexpr auto tile = &wgmma_tile;
  static constexpr auto reference = &wgmma_reference;
  static constexpr auto check_tile = &check_wgmma_tile;
  static constexpr auto tile_words = &wgmma_tile_words;
  static uint64_t tile_size(const Info& i) { return uint64_t(kWgmmaThreads) * tensor::wgmma_acc_regs(i); }
  // The shape tensor/mma records; the wgmma check is one wgmma with C = 0 on random operands.
  static nlohmann::json self_check_json(const tensor::TileCheck& c) {
    nlohmann::json j = tensor::tile_check_json(c, "relative to the element's sum of |a*b| terms");
    j["operands"] = "random";
    return j;
  }
  template <class Upload>
  static Args args(const Data& d, const Upload& upload) {
    Args a{};
    a.a_image = upload(d.a_image);
    a.b_image = upload(d.b_image);
    a.a_frag = upload(d.a_frag);
    return a;
  }
};

}  // namespace

tensor::TensorResult run_wgmma(const WgmmaSetup& setup, const WgmmaRun& run, const WgmmaLauncher& launch) {
  return tensor::run_baselined<Wgmma>(setup, run, launch);
}

namespace {

// ---- the probe ----------------------------------------------------------------------------------

constexpr uint64_t kMaxBlocksPerSm = 8;

nlohmann::json measure(ProbeContext& ctx, const WgmmaSetup& s, const WgmmaRun& run) {
  const WgmmaOpInfo& info = wgmma_info(s.op);
  const std::string ptx = "wgmma.mma_async.sync.aligned." + wgmma_shape(info) + "." + info.acc_name + "." +
                          info.input_name + "." + info.input_name + (info.rs ? " (A from registers)" : "");
  nlohmann::json p = {{"ptx", ptx},
                      {"path", "wgmma"},
                      {"shape", wgmma_shape(info)},
                      {"precision", info.input_name},
                      {"accumulate", info.acc_name},
                      {"form", info.rs ? "RS" : "SS"},
                      {"implementation", "native"},
                      {"sass_per_op", "1 " + wgmma_sass(info)}};
  const auto r = tensor::measure_baselined<Wgmma>(p, ctx, s, run);
  if (r.skipped) return p;
  p["warpgroups_per_sm"] = r.first.units_per_sm;
  if (s.kind == Kind::throughput) {
    p["wgmmas_per_commit_group"] = kWgmmaThroughputPerIteration;
    p["accumulators"] = tensor::wgmma_throughput_accumulators(info);
  }
  return p;
}

ProbeSpec wgmma_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "tensor/wgmma";
  p.summary = "wgmma (sm_90a) latency (cycles) and throughput (FLOP/clk/SM) per form, N and precision";
  p.needs = ptx::Cap::wgmma;
  p.params = {
      op_param(op_choices(tensor::kWgmmaOps), "probes/tensor/wgmma.def"),
      {"n", K::choice, "all", "only the ops of this N", {"all", "64", "128", "256"}},
      {"form",
       K::choice,
       "both",
       "SS (A in shared memory), RS (A in registers) or both",
       {"both", "ss", "rs"}},
      kind_param(),
      tensor::operands_param("random, zeros or both (the self-check always uses random)"),
      iterations_param("1024", "loop iterations per launch (1 wgmma each for latency, 8 for throughput)",
                       tensor::kMaxIterations),
      {"blocks-per-sm",
       K::integer,
       "2",
       "warpgroups (blocks of 128 threads) per SM of a throughput launch (1 to 8)",
       {},
       kMaxBlocksPerSm,
       1},
  };
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint64_t per_sm = prm.get_u64("blocks-per-sm");
    if (per_sm == 0 || per_sm > kMaxBlocksPerSm)
      throw Error("--blocks-per-sm must be 1 to " + std::to_string(kMaxBlocksPerSm));
    WgmmaRun run;
    run.iterations = read_iterations(prm, tensor::kMaxIterations);
    const std::string n = prm.get_text("n"), form = prm.get_text("form");
    // --n and --form restrict the op axis.
    std::vector<std::string> ops;
    for (const auto& info : tensor::kWgmmaOps)
      if ((n == "all" || n == std::to_string(info.n)) && (form == "both" || form == (info.rs ? "rs" : "ss")))
        ops.push_back(info.name);
    const uint32_t throughput_blocks = static_cast<uint32_t>(ctx.device().info().sm_count * per_sm);
    measure_axes(
        ctx, tensor::point_axes(ops),
        [&](const nlohmann::json& axes) {
          WgmmaSetup s;
          s.op = parse_wgmma_op(axes["op"]);
          s.kind = parse_kind(axes["kind"]);
          s.operands = tensor::parse_operands(axes["operands"]);
          if (s.kind == Kind::throughput) s.units = throughput_blocks;
          return measure(ctx, s, run);
        },
        "no wgmma op matches --op " + prm.get_text("op") + " --n " + n + " --form " + form);
  };
  return p;
}

const ProbeRegistration kRegistration(wgmma_probe);

}  // namespace
}  // namespace gpuprobe::probes
