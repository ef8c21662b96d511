// tensor/tcgen05: tcgen05.mma latency and throughput per form (sm_100a; probes/tensor/tcgen05.def):
// for each op (or those asked for), with random operands and with zeros, a latency point (one MMA
// per commit, issued by one thread, minus the commit/wait baseline: cycles) and a throughput point
// (one CTA per SM issuing MMAs into TMEM accumulators: FLOP per clock per SM, a cta_group::2 MMA
// counted half on each SM of the pair, and FLOP/s at the SM clock measured right after). Every
// launch is preceded by the self-check of one tile against the host's float64 reference; a
// mismatch fails the probe. A device without tcgen05, a device other than compute capability 10.0
// (the kernels are sm_100a code) or a build without sm_100a code skips the probe with the reason;
// an op the simulator has no model of is recorded as skipped. The kernels are tcgen05.sm100a.cu;
// the simulator's costs are the tensor family's table (tensor_costs.cpp).
#include "probes/tensor/tcgen05.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "harness/error.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/points.hpp"
#include "harness/sim/sim_device.hpp"
#include "probes/common/op_probe.hpp"
#include "probes/common/units.hpp"

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
  if (setup.kind == Kind::latency && setup.ctas != op.cta_group)
    throw Error(kernel + ": a latency launch is one CTA group");
}

namespace {

// Every CTA ran; the issuing CTAs (one per group) ended after they started. Per SM of an issuing
// CTA: their span and count (SmSpan::units: CTAs); `sms`, if given, gets the SMs any CTA ran on.
std::map<uint32_t, SmSpan> spans(const std::string& kernel, const Tcgen05Launch& l, uint32_t cta_group,
                                 const std::vector<Tcgen05CtaOut>& ctas, uint32_t* sms) {
  if (ctas.size() != l.ctas)
    throw Error("self-check failed: " + kernel + " reported " + std::to_string(ctas.size()) +
                " CTAs, expected " + std::to_string(l.ctas));
  std::map<uint32_t, SmSpan> per_sm;
  std::set<uint32_t> seen;
  for (size_t c = 0; c < ctas.size(); ++c) {
    const Tcgen05CtaOut& o = ctas[c];
    const bool should_lead = c % cta_group == 0;
    if (o.ran != 1 || o.leader != (should_lead ? 1u : 0u))
      throw Error("self-check failed: " + kernel + " CTA " + std::to_string(c) +
                  (o.ran != 1 ? " did not run" : " has the wrong issuing role"));
    seen.insert(o.smid);
    if (!should_lead) continue;
    if (!(o.end_cycles > o.start_cycles))
      throw Error("self-check failed: " + kernel + " CTA " + std::to_string(c) + " ended before it started");
    SmSpan& s = per_sm[o.smid];
    s.first = std::min(s.first, o.start_cycles);
    s.last = std::max(s.last, o.end_cycles);
    ++s.units;
  }
  if (sms) *sms = static_cast<uint32_t>(seen.size());
  return per_sm;
}

}  // namespace

tensor::TensorResult run_tcgen05(const Tcgen05Setup& setup, const Tcgen05Run& run,
                                 const Tcgen05Launcher& launch) {
  const Tcgen05OpInfo& info = tcgen05_info(setup.op);
  const std::string kernel = tcgen05_kernel_name(setup.op, setup.kind);
  if (run.iterations == 0) throw Error(kernel + ": no iterations");
  const uint32_t group = info.cta_group;
  tensor::TensorResult r;

  // 1. The self-check: one MMA on random operands, D = A * B against float64.
  const Tcgen05OperandData check_data = make_tcgen05_operands(info, Operands::random, run.seed);
  const Tcgen05Launch check{setup.op, Kind::latency, false, group, 1, true, &check_data};
  const Tcgen05LaunchOut checked = launch(check);
  spans(tcgen05_kernel_name(setup.op, Kind::latency), check, group, checked.ctas, nullptr);
  r.self_check = check_tcgen05_tile(info, check_data, checked.tile);
  if (!r.self_check.passed)
    throw Error("self-check failed: " + std::string(info.name) + " " + r.self_check.why);

  // 2. The timed launch.
  const Tcgen05OperandData timed_data = setup.operands == Operands::random
                                            ? check_data
                                            : make_tcgen05_operands(info, setup.operands, run.seed);
  const Tcgen05Launch timed{setup.op, setup.kind, false, setup.ctas, run.iterations, false, &timed_data};
  const Tcgen05LaunchOut out = launch(timed);
  r.launch = out.launch;
  const auto per_sm = spans(kernel, timed, group, out.ctas, &r.sms);
  if (setup.kind == Kind::latency) {
    r.cycles_per_iteration = double(out.ctas[0].end_cycles - out.ctas[0].start_cycles) /
                             double(run.iterations);
    // 3. The baseline: the same loop without the MMA.
    const Tcgen05Launch base{setup.op, Kind::latency, true, group, run.iterations, false, &timed_data};
    const Tcgen05LaunchOut b = launch(base);
    spans(tcgen05_baseline_kernel(group), base, group, b.ctas, nullptr);
    r.baseline_cycles = double(b.ctas[0].end_cycles - b.ctas[0].start_cycles) / double(run.iterations);
    r.latency_cycles = r.cycles_per_iteration - r.baseline_cycles;
  } else {
    // Each SM of a pair does half of a cta_group::2 MMA.
    const double flops_per_cta = double(run.iterations) * tensor::kTcgen05ThroughputPerIteration *
                                 double(tensor::tcgen05_flops(info)) / group;
    const SmRates rates = sm_rates(
        per_sm, [&](const SmSpan& span) { return flops_per_cta * span.units / span.cycles(); });
    r.flops_per_clk_per_sm = rates.median;
    r.flops_per_clk_per_sm_min = rates.min;
    r.flops_per_clk_per_sm_max = rates.max;
  }
  return r;
}

namespace {

// The simulator's launch counter of this probe (SimDevice::next_launch), part of the noise seed.
constexpr const char* kLaunches = "tensor.tcgen05";

const KernelPair kKernels[] = {
#define GPUPROBE_TCGEN05_OP(in, acc, kind, n, k, form, cg) \
  GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_tcgen05_, in##_##acc##_n##n##_##form##_cg##cg)
#include "probes/tensor/tcgen05.def"
#undef GPUPROBE_TCGEN05_OP
};

// More than half of an sm_100 SM's shared memory (228 KiB): one CTA per SM.
constexpr uint64_t kOneCtaPerSmBytes = 128ull << 10;

LaunchConfig config_of(const Tcgen05Launch& l) {
  LaunchConfig c;
  c.grid = Dim3{l.ctas, 1, 1};
  c.block = Dim3{tensor::kTcgen05Threads, 1, 1};
  if (tcgen05_info(l.op).cta_group == 2) c.cluster = Dim3{2, 1, 1};
  return c;
}

std::string kernel_name(const Tcgen05Launch& l) {
  return l.baseline ? tcgen05_baseline_kernel(tcgen05_info(l.op).cta_group)
                    : tcgen05_kernel_name(l.op, l.kind);
}

// On a GPU (harness/kernel_runner.hpp): 128 threads per CTA, clusters of 2 for cta_group::2, timed
// in the kernel by %clock64 of the issuing thread (one SM). The kernels are weak references: a
// build without sm_100a code links, and the probe is skipped before it gets here
// (ProbeSpec::needs); should one still be missing, the op is refused in one line.
Tcgen05LaunchOut launch_on_gpu(KernelRunner& gpu, const Tcgen05Launch& l) {
  const Tcgen05OpInfo& info = tcgen05_info(l.op);
  const std::string name = kernel_name(l);
  const void* kernel = !l.baseline ? kKernels[static_cast<unsigned>(l.op)].of(l.kind)
                       : info.cta_group == 1
                           ? reinterpret_cast<const void*>(&gpuprobe_tcgen05_baseline_cg1_lat)
                           : reinterpret_cast<const void*>(&gpuprobe_tcgen05_baseline_cg2_lat);
  if (kernel == nullptr)
    skip(name + " is not in this build (it needs sm_100a code: CMAKE_CUDA_ARCHITECTURES with 100)");
  const Tcgen05OperandData& d = *l.operands;
  const uint64_t tile_words = uint64_t(tensor::tcgen05_m(info)) * tensor::tcgen05_tile_row_words(info);
  // An image the op does not use (A in TMEM for SS, the scale factors) is one zero word.
  const auto upload = [&](const std::vector<uint32_t>& words) {
    return gpu.alloc(std::max<uint64_t>(words.size(), 1) * 4, words.data(), words.size() * 4);
  };
  const DeviceBuffer a_image = upload(d.a_image), b_image = upload(d.b_image), a_tmem = upload(d.a_tmem),
                     sf_image = upload(d.sf_image), tile = gpu.alloc(tile_words * 4);
  tensor::Tcgen05Args args{};
  args.a_image = static_cast<const uint32_t*>(a_image.get());
  args.b_image = static_cast<const uint32_t*>(b_image.get());
  args.a_tmem = static_cast<const uint32_t*>(a_tmem.get());
  args.sf_image = static_cast<const uint32_t*>(sf_image.get());
  args.tile = static_cast<uint32_t*>(tile.get());
  args.iterations = l.iterations;
  args.zero = 0;
  args.store = l.store ? 1 : 0;
  LaunchConfig config = config_of(l);
  // Throughput: unused dynamic shared memory so that no two CTAs share an SM (one issuing thread
  // per SM; two CTAs wanting all 512 TMEM columns would wait on each other's allocation).
  if (l.kind == Kind::throughput && !l.baseline) config.dynamic_smem_bytes = kOneCtaPerSmBytes;
  Tcgen05LaunchOut o;
  o.ctas = run_units<Tcgen05CtaOut>(gpu, kernel, name, config, args, l.ctas, o.launch);
  if (l.store) o.tile = gpu.download<uint32_t>(tile, tile_words);
  return o;
}

// The commit/mbarrier-wait round trip with no MMA outstanding: assumption (not in FIGURES).
constexpr double kSimBaselineCycles = 40;

// On the simulator: a latency launch takes iterations x (latency + the commit/wait round trip), the
// baseline launch iterations x the round trip; a throughput launch takes, on the SM of every
// issuing CTA, the FLOP its MMAs do there (half of each for cta_group::2) over the preset's rate.
// CTA c runs on SM c mod SMs (the two CTAs of a pair on neighbouring SMs), the preset's noise per
// SM; a pair's other CTA reports only its SM. A stored tile is the host's float64 reference in the
// accumulator format, so the self-check passes.
Tcgen05LaunchOut simulate(sim::SimDevice& device, const tensor::TensorCost& cost, const Tcgen05Launch& l) {
  const Tcgen05OpInfo& info = tcgen05_info(l.op);
  const uint32_t group = info.cta_group;
  const uint32_t sms = static_cast<uint32_t>(device.preset().info.sm_count);
  std::vector<uint32_t> leaders_on(sms, 0);
  for (uint32_t c = 0; c < l.ctas; c += group) ++leaders_on[c % sms];
  const uint64_t seed = std::hash<std::string>{}(info.name) ^ l.ctas ^ (l.iterations << 16) ^
                        device.next_launch(kLaunches);
  Tcgen05LaunchOut o;
  o.ctas = simulate_units<Tcgen05CtaOut>(device.preset(), l.ctas, 1, seed, [&](uint32_t sm, uint32_t) {
    if (l.baseline) return double(l.iterations) * kSimBaselineCycles;
    if (l.kind == Kind::latency) return double(l.iterations) * (cost.latency_cycles + kSimBaselineCycles);
    const double flops = double(leaders_on[sm]) * double(l.iterations) *
                         tensor::kTcgen05ThroughputPerIteration * double(tensor::tcgen05_flops(info)) / group;
    return flops / cost.flops_per_clk_per_sm;
  });
  for (uint32_t c = 0; c < l.ctas; ++c) {
    Tcgen05CtaOut& w = o.ctas[c];
    w.leader = c % group == 0 ? 1 : 0;
    if (!w.leader) w.start_cycles = w.end_cycles = 0;
  }
  if (l.store) o.tile = tcgen05_tile_words(info, tcgen05_reference(info, *l.operands));
  o.launch.kernel = kernel_name(l);
  o.launch.config = config_of(l);
  return o;
}

// ---- the probe ----------------------------------------------------------------------------------

nlohmann::json self_check_json(const tensor::TileCheck& c) {
  return {{"passed", c.passed},
          {"operands", "random"},
          {"reference", "float64"},
          {"elements", c.elements},
          {"max_abs_error", c.max_abs_error},
          {"tolerance_rel", c.tolerance_rel},
          {"error_metric", "|D - reference| <= tolerance_rel x sum_k |a_ik b_kj|"}};
}

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
  const bool latency = s.kind == Kind::latency;
  const auto r = tensor::repeat_launches(
      ctx, latency, info.name, [&](const DeviceInfo& d) { check_tcgen05_fits(s, d); },
      [&](const Tcgen05Launcher& launch) { return run_tcgen05(s, run, launch); }, simulate, launch_on_gpu);
  if (r.skipped) {
    p["skipped"] = *r.skipped;
    return p;
  }
  tensor::write_baselined_point(p, ctx, r, latency, run.iterations, tcgen05_kernel_name(s.op, s.kind),
                                tcgen05_baseline_kernel(info.cta_group), self_check_json(r.first.self_check));
  p["ctas"] = s.ctas;
  if (!latency) {
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
      {"op", K::choice, "all", "the op to measure (all: every op of probes/tensor/tcgen05.def)",
       op_choices(tensor::kTcgen05Ops)},
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
          s.ctas = s.kind == Kind::latency ? g : std::max(g, sms / g * g);
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
