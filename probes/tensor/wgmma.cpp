// tensor/wgmma: wgmma latency and throughput per form (sm_90a; probes/tensor/wgmma.def): for
// each op (or those asked for), with random operands and with zeros, a latency point (one wgmma
// per commit group in one warpgroup, minus the commit/wait baseline: cycles) and a throughput
// point (warpgroups on every SM issuing independent accumulators: FLOP per clock per SM, and
// FLOP/s at the SM clock measured right after). Every launch is preceded by the self-check of one
// tile against the host's float64 reference; a mismatch fails the probe. A device without wgmma
// (not sm_90) or a build without sm_90a code skips the probe with the reason; an op the simulator
// has no model of is recorded as skipped. The kernels are wgmma.sm90a.cu; the simulator's costs
// are the tensor family's table (tensor_costs.cpp).
#include "probes/tensor/wgmma.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "harness/error.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/points.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/common/units.hpp"

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
using tensor::WgmmaGroupOut;
using tensor::WgmmaType;

// ---- number formats: codes of the input formats and their values -------------------------------

uint32_t element_bytes(WgmmaType t) {
  switch (t) {
    case WgmmaType::f16:
    case WgmmaType::bf16: return 2;
    case WgmmaType::tf32:
    case WgmmaType::f32:
    case WgmmaType::s32: return 4;
    case WgmmaType::e4m3:
    case WgmmaType::e5m2:
    case WgmmaType::s8: return 1;
  }
  return 0;
}

TileElem elem(WgmmaType t) {
  switch (t) {
    case WgmmaType::f16: return TileElem::f16;
    case WgmmaType::bf16: return TileElem::bf16;
    case WgmmaType::tf32: return TileElem::tf32;
    case WgmmaType::e4m3: return TileElem::e4m3;
    case WgmmaType::e5m2: return TileElem::e5m2;
    case WgmmaType::s8: return TileElem::s8;
    case WgmmaType::f32: return TileElem::f32;
    case WgmmaType::s32: return TileElem::s32;
  }
  return TileElem::f32;
}

tensor::TileShape shape_of(const WgmmaOpInfo& info) { return {kWgmmaM, info.n, info.k}; }

// B as tile_reference takes it (K x N, row-major) from the operands' N x K.
std::vector<double> b_k_by_n(const WgmmaOpInfo& info, const WgmmaOperandData& data) {
  std::vector<double> b(size_t(info.k) * info.n);
  for (uint32_t n = 0; n < info.n; ++n)
    for (uint32_t k = 0; k < info.k; ++k) b[size_t(k) * info.n + n] = data.b[size_t(n) * info.k + k];
  return b;
}

}  // namespace

const WgmmaOpInfo& wgmma_info(WgmmaOp op) { return tensor::wgmma_op_info(op); }

WgmmaOp parse_wgmma_op(const std::string& name) { return find_op(tensor::kWgmmaOps, name, "wgmma op").op; }

std::string wgmma_kernel_name(WgmmaOp op, Kind kind) {
  const WgmmaOpInfo& i = wgmma_info(op);
  return std::string("gpuprobe_wgmma_") + i.input_name + "_" + i.acc_name + "_n" + std::to_string(i.n) +
         (i.rs ? "_rs" : "_ss") + kind_suffix(kind);
}

std::string wgmma_shape(const WgmmaOpInfo& info) {
  return "m64n" + std::to_string(info.n) + "k" + std::to_string(info.k);
}

std::string wgmma_ptx(const WgmmaOpInfo& info) {
  return "wgmma.mma_async.sync.aligned." + wgmma_shape(info) + "." + info.acc_name + "." +
         info.input_name + "." + info.input_name + (info.rs ? " (A from registers)" : "");
}

std::string wgmma_sass(const WgmmaOpInfo& info) {
  const std::string shape = ".64x" + std::to_string(info.n) + "x" + std::to_string(info.k);
  switch (info.input) {
    case WgmmaType::f16: return "HGMMA" + shape + (info.acc == WgmmaType::f16 ? ".F16" : ".F32");
    case WgmmaType::bf16: return "HGMMA" + shape + ".F32.BF16";
    case WgmmaType::tf32: return "HGMMA" + shape + ".F32.TF32";
    case WgmmaType::e4m3: return "QGMMA" + shape + ".F32.E4M3.E4M3";
    case WgmmaType::e5m2: return "QGMMA" + shape + ".F32.E5M2.E5M2";
    case WgmmaType::s8: return "IGMMA" + shape + ".S8.S8";
    case WgmmaType::f32:
    case WgmmaType::s32: break;
  }
  return "unknown";
}

TileIndex wgmma_d_index(uint32_t thread, uint32_t v) {
  const uint32_t warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((v / 2) % 2), 8 * (v / 4) + 2 * (lane % 4) + v % 2};
}

TileIndex wgmma_a_index(const WgmmaOpInfo& info, uint32_t thread, uint32_t e) {
  const uint32_t warp = thread / 32, lane = thread % 32;
  const uint32_t row0 = 16 * warp + lane / 4;
  switch (element_bytes(info.input)) {
    case 2: return {row0 + 8 * ((e / 2) % 2), 2 * (lane % 4) + e % 2 + 8 * (e / 4)};
    case 4: return {row0 + 8 * (e % 2), lane % 4 + 4 * (e / 2)};
    default: return {row0 + 8 * ((e / 4) % 2), 4 * (lane % 4) + e % 4 + 16 * (e / 8)};
  }
}

WgmmaOperandData make_wgmma_operands(const WgmmaOpInfo& info, Operands kind, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<unsigned>(info.op));
  const uint32_t bytes = element_bytes(info.input);
  const uint32_t k = info.k;
  WgmmaOperandData d;
  d.a.assign(size_t(kWgmmaM) * k, 0.0);
  d.b.assign(size_t(info.n) * k, 0.0);
  d.a_image.assign(tensor::kWgmmaAImageBytes / 4, 0);
  d.b_image.assign(size_t(info.n) * tensor::kWgmmaRowBytes / 4, 0);
  d.a_frag.assign(size_t(kWgmmaThreads) * kWgmmaARegs, 0);
  std::vector<uint32_t> a_codes(d.a.size(), 0);
  auto fill = [&](std::vector<double>& values, std::vector<uint32_t>& image, uint32_t rows,
                  std::vector<uint32_t>* codes) {
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t c = 0; c < k; ++c) {
        const uint32_t code = kind == Operands::zeros
                                  ? 0
                                  : static_cast<uint32_t>(tensor::tile_random(elem(info.input), rng));
        values[size_t(r) * k + c] = tensor::tile_decode(elem(info.input), code);
        tensor::image_put_bytes(image, tensor::wgmma_smem_offset(r, c * bytes), code, bytes);
        if (codes) (*codes)[size_t(r) * k + c] = code;
      }
    }
  };
  fill(d.a, d.a_image, kWgmmaM, &a_codes);
  fill(d.b, d.b_image, info.n, nullptr);
  const uint32_t per_thread = kWgmmaARegs * 4 / bytes;
  for (uint32_t t = 0; t < kWgmmaThreads; ++t) {
    for (uint32_t e = 0; e < per_thread; ++e) {
      const TileIndex at = wgmma_a_index(info, t, e);
      tensor::image_put_bytes(d.a_frag, t * kWgmmaARegs * 4 + e * bytes,
                              a_codes[size_t(at.row) * k + at.col], bytes);
    }
  }
  return d;
}

std::vector<double> wgmma_reference(const WgmmaOpInfo& info, const WgmmaOperandData& data) {
  return tensor::tile_reference(shape_of(info), data.a, b_k_by_n(info, data),
                                std::vector<double>(size_t(kWgmmaM) * info.n, 0.0));
}

std::vector<uint32_t> wgmma_tile_words(const WgmmaOpInfo& info, const std::vector<double>& values) {
  const uint32_t regs = tensor::wgmma_acc_regs(info);
  std::vector<uint32_t> words(size_t(kWgmmaThreads) * regs, 0);
  for (uint32_t t = 0; t < kWgmmaThreads; ++t) {
    for (uint32_t v = 0; v < info.n / 2; ++v) {
      const TileIndex at = wgmma_d_index(t, v);
      const double x = values[size_t(at.row) * info.n + at.col];
      if (info.acc == WgmmaType::f16)
        words[size_t(t) * regs + v / 2] |=
            static_cast<uint32_t>(tensor::tile_encode(TileElem::f16, x)) << (16 * (v % 2));
      else
        words[size_t(t) * regs + v] = static_cast<uint32_t>(tensor::tile_encode(elem(info.acc), x));
    }
  }
  return words;
}

std::vector<double> wgmma_decode_tile(const WgmmaOpInfo& info, const std::vector<uint32_t>& words) {
  const uint32_t regs = tensor::wgmma_acc_regs(info);
  if (words.size() != size_t(kWgmmaThreads) * regs)
    throw Error("self-check failed: the stored tile holds " + std::to_string(words.size()) +
                " words, expected " + std::to_string(size_t(kWgmmaThreads) * regs));
  std::vector<double> d(size_t(kWgmmaM) * info.n, 0.0);
  for (uint32_t t = 0; t < kWgmmaThreads; ++t) {
    for (uint32_t v = 0; v < info.n / 2; ++v) {
      const TileIndex at = wgmma_d_index(t, v);
      double x;
      if (info.acc == WgmmaType::f16)
        x = tensor::tile_decode(TileElem::f16, (words[size_t(t) * regs + v / 2] >> (16 * (v % 2))) & 0xffff);
      else
        x = tensor::tile_decode(elem(info.acc), words[size_t(t) * regs + v]);
      d[size_t(at.row) * info.n + at.col] = x;
    }
  }
  return d;
}

tensor::TileCheck check_wgmma_tile(const WgmmaOpInfo& info, const WgmmaOperandData& data,
                                   const std::vector<uint32_t>& words) {
  return tensor::check_tile(shape_of(info), data.a, b_k_by_n(info, data),
                            std::vector<double>(size_t(kWgmmaM) * info.n, 0.0),
                            wgmma_decode_tile(info, words), elem(info.input), elem(info.acc));
}

void check_wgmma_fits(const WgmmaSetup& setup, const DeviceInfo& info) {
  if (!ptx::device_has(ptx::Cap::wgmma, info.cc.sm()))
    throw Skip("wgmma needs sm_90a; " + info.name + " is sm_" +
                             std::to_string(info.cc.sm()));
  if (setup.blocks == 0) throw Error(wgmma_kernel_name(setup.op, setup.kind) + ": no blocks");
  if (setup.kind == Kind::latency && setup.blocks != 1)
    throw Error(wgmma_kernel_name(setup.op, setup.kind) + ": a latency launch is one block");
}

tensor::TensorResult run_wgmma(const WgmmaSetup& setup, const WgmmaRun& run, const WgmmaLauncher& launch) {
  const WgmmaOpInfo& info = wgmma_info(setup.op);
  const std::string kernel = wgmma_kernel_name(setup.op, setup.kind);
  if (run.iterations == 0) throw Error(kernel + ": no iterations");
  tensor::TensorResult r;

  // 1. The self-check: one wgmma on random operands, D = A * B^T against float64.
  const WgmmaOperandData check_data = make_wgmma_operands(info, Operands::random, run.seed);
  WgmmaLaunch check{setup.op, Kind::latency, false, 1, 1, true, &check_data};
  const WgmmaLaunchOut checked = launch(check);
  check_units(checked.groups, 1, wgmma_kernel_name(setup.op, Kind::latency), "warpgroup");
  r.self_check = check_wgmma_tile(info, check_data, checked.tile);
  if (!r.self_check.passed)
    throw Error("self-check failed: " + std::string(info.name) + ": " + r.self_check.why);

  // 2. The timed launch.
  const WgmmaOperandData timed_data = setup.operands == Operands::random
                                          ? check_data
                                          : make_wgmma_operands(info, setup.operands, run.seed);
  WgmmaLaunch timed{setup.op, setup.kind, false, setup.blocks, run.iterations, false, &timed_data};
  const WgmmaLaunchOut out = launch(timed);
  r.launch = out.launch;
  const auto per_sm = check_units(out.groups, setup.blocks, kernel, "warpgroup");
  r.sms = static_cast<uint32_t>(per_sm.size());
  r.units_per_sm = units_per_sm(per_sm);
  if (setup.kind == Kind::latency) {
    r.cycles_per_iteration = double(out.groups[0].end_cycles - out.groups[0].start_cycles) /
                             double(run.iterations);
    // 3. The baseline: the same loop without the wgmma.
    WgmmaLaunch base{setup.op, Kind::latency, true, 1, run.iterations, false, &timed_data};
    const WgmmaLaunchOut b = launch(base);
    check_units(b.groups, 1, kWgmmaBaselineKernel, "warpgroup");
    r.baseline_cycles = double(b.groups[0].end_cycles - b.groups[0].start_cycles) / double(run.iterations);
    r.latency_cycles = r.cycles_per_iteration - r.baseline_cycles;
  } else {
    const double per_group = double(run.iterations) * double(tensor::wgmma_flops(info)) *
                             double(kWgmmaThroughputPerIteration);
    const SmRates rates = sm_rates(
        per_sm, [&](const SmSpan& span) { return per_group * double(span.units) / span.cycles(); });
    r.flops_per_clk_per_sm = rates.median;
    r.flops_per_clk_per_sm_min = rates.min;
    r.flops_per_clk_per_sm_max = rates.max;
  }
  return r;
}

namespace {

// The simulator's launch counter of this probe (SimDevice::next_launch), part of the noise seed.
constexpr const char* kLaunches = "tensor.wgmma";

const KernelPair kKernels[] = {
#define GPUPROBE_WGMMA_OP(in, acc, n, k, form) \
  GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_wgmma_, in##_##acc##_n##n##_##form)
#include "probes/tensor/wgmma.def"
#undef GPUPROBE_WGMMA_OP
};

LaunchConfig config_of(const WgmmaLaunch& l) {
  LaunchConfig c;
  c.grid = Dim3{l.blocks, 1, 1};
  c.block = Dim3{tensor::kWgmmaThreads, 1, 1};
  return c;
}

std::string kernel_name(const WgmmaLaunch& l) {
  return l.baseline ? kWgmmaBaselineKernel : wgmma_kernel_name(l.op, l.kind);
}

// On a GPU (harness/kernel_runner.hpp): one warpgroup per block, timed in the kernel by %clock64
// (compared within one SM only). The kernels are weak references: a build without sm_90a code
// links, and the probe is skipped before it gets here (ProbeSpec::needs); should one still be
// missing, the op is refused in one line.
WgmmaLaunchOut launch_on_gpu(KernelRunner& gpu, const WgmmaLaunch& l) {
  const std::string name = kernel_name(l);
  const void* kernel = l.baseline ? reinterpret_cast<const void*>(&gpuprobe_wgmma_baseline_lat)
                                  : kKernels[static_cast<unsigned>(l.op)].of(l.kind);
  if (kernel == nullptr)
    skip(name + " is not in this build (it needs sm_90a code: CMAKE_CUDA_ARCHITECTURES with 90)");
  const WgmmaOperandData& d = *l.operands;
  const uint64_t tile_words = uint64_t(tensor::kWgmmaThreads) * tensor::wgmma_acc_regs(wgmma_info(l.op));
  const DeviceBuffer a_image = gpu.upload(d.a_image), b_image = gpu.upload(d.b_image),
                     a_frag = gpu.upload(d.a_frag), tile = gpu.alloc(tile_words * 4);
  tensor::WgmmaArgs args{};
  args.a_image = static_cast<const uint32_t*>(a_image.get());
  args.b_image = static_cast<const uint32_t*>(b_image.get());
  args.a_frag = static_cast<const uint32_t*>(a_frag.get());
  args.tile = static_cast<uint32_t*>(tile.get());
  args.iterations = l.iterations;
  args.zero = 0;
  args.store = l.store ? 1 : 0;
  WgmmaLaunchOut o;
  o.groups = run_units<WgmmaGroupOut>(gpu, kernel, name, config_of(l), args, l.blocks, o.launch);
  if (l.store) o.tile = gpu.download<uint32_t>(tile, tile_words);
  return o;
}

// The fence/commit/wait round trip of an empty commit group: assumption (not in FIGURES).
constexpr double kSimBaselineCycles = 24;

// On the simulator: a latency launch takes iterations x (latency + the fence/commit/wait round
// trip), the baseline launch iterations x the round trip; a throughput launch takes, on every SM,
// its warpgroups' FLOP over the preset's rate (blocks to SMs round robin, the preset's noise). A
// stored tile is the host's float64 reference in the accumulator format, so the self-check passes.
WgmmaLaunchOut simulate(sim::SimDevice& device, const tensor::TensorCost& cost, const WgmmaLaunch& l) {
  const WgmmaOpInfo& info = wgmma_info(l.op);
  const uint64_t seed = std::hash<std::string>{}(info.name) ^ l.blocks ^ (l.iterations << 16) ^
                        device.next_launch(kLaunches);
  WgmmaLaunchOut o;
  o.groups = simulate_units<WgmmaGroupOut>(
      device.preset(), l.blocks, 1, seed, [&](uint32_t, uint32_t groups) {
        if (l.baseline) return double(l.iterations) * kSimBaselineCycles;
        if (l.kind == Kind::latency) return double(l.iterations) * (cost.latency_cycles + kSimBaselineCycles);
        const double flops = double(groups) * double(l.iterations) * kWgmmaThroughputPerIteration *
                             double(tensor::wgmma_flops(info));
        return flops / cost.flops_per_clk_per_sm;
      });
  if (l.store) o.tile = wgmma_tile_words(info, wgmma_reference(info, *l.operands));
  o.launch.kernel = kernel_name(l);
  o.launch.config = config_of(l);
  return o;
}

// ---- the probe ----------------------------------------------------------------------------------

constexpr uint64_t kMaxBlocksPerSm = 8;

nlohmann::json self_check_json(const tensor::TileCheck& c) {
  // The shape tensor/mma records; the wgmma check is one wgmma with C = 0 on random operands.
  return {{"passed", c.passed},           {"max_abs_error", c.max_abs_error},
          {"tolerance", c.tolerance_rel}, {"tolerance_is", "relative to the element's sum of |a*b| terms"},
          {"elements", c.elements},       {"operands", "random"}};
}

nlohmann::json measure(ProbeContext& ctx, const WgmmaSetup& s, const WgmmaRun& run) {
  const WgmmaOpInfo& info = wgmma_info(s.op);
  nlohmann::json p = {{"ptx", wgmma_ptx(info)},      {"path", "wgmma"},
                      {"shape", wgmma_shape(info)},  {"precision", info.input_name},
                      {"accumulate", info.acc_name}, {"form", info.rs ? "RS" : "SS"},
                      {"implementation", "native"},  {"sass_per_op", "1 " + wgmma_sass(info)}};
  const bool latency = s.kind == Kind::latency;
  const auto r = tensor::repeat_launches(
      ctx, latency, info.name, [&](const DeviceInfo& d) { check_wgmma_fits(s, d); },
      [&](const WgmmaLauncher& launch) { return run_wgmma(s, run, launch); }, simulate, launch_on_gpu);
  if (r.skipped) {
    p["skipped"] = *r.skipped;
    return p;
  }
  tensor::write_baselined_point(p, ctx, r, latency, run.iterations, wgmma_kernel_name(s.op, s.kind),
                                kWgmmaBaselineKernel, self_check_json(r.first.self_check));
  p["warpgroups_per_sm"] = r.first.units_per_sm;
  if (!latency) {
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
      {"op", K::choice, "all", "the op to measure (all: every op of probes/tensor/wgmma.def)",
       op_choices(tensor::kWgmmaOps)},
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
       kMaxBlocksPerSm},
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
          if (s.kind == Kind::throughput) s.blocks = throughput_blocks;
          return measure(ctx, s, run);
        },
        "no wgmma op matches --op " + prm.get_text("op") + " --n " + n + " --form " + form);
  };
  return p;
}

const ProbeRegistration kRegistration(wgmma_probe);

}  // namespace
}  // namespace gpuprobe::probes
