#include "probes/tensor/wgmma_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

#include "harness/error.hpp"
#include "harness/stats.hpp"
#include "probes/tensor/tile_reference.hpp"

namespace gpuprobe::probes {

namespace {

using tensor::kWgmmaARegs;
using tensor::kWgmmaM;
using tensor::kWgmmaThreads;
using tensor::kWgmmaThroughputPerIteration;
using tensor::WgmmaGroupOut;
using tensor::TileElem;
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

// Writes `bytes` bytes of `code` (little endian) at byte `offset` of a word image.
void put_bytes(std::vector<uint32_t>& words, uint32_t offset, uint32_t code, uint32_t bytes) {
  for (uint32_t i = 0; i < bytes; ++i) {
    const uint32_t at = offset + i;
    words[at / 4] |= ((code >> (8 * i)) & 0xff) << (8 * (at % 4));
  }
}

}  // namespace

const char* wgmma_kind_name(WgmmaKind kind) {
  return kind == WgmmaKind::latency ? "latency" : "throughput";
}
const char* wgmma_operands_name(WgmmaOperands o) {
  return o == WgmmaOperands::random ? "random" : "zeros";
}
const WgmmaOpInfo& wgmma_info(WgmmaOp op) { return tensor::wgmma_op_info(op); }

WgmmaOp parse_wgmma_op(const std::string& name) {
  std::string known;
  for (const auto& info : tensor::kWgmmaOps) {
    if (name == info.name) return info.op;
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  }
  throw Error("unknown wgmma op '" + name + "' (known: " + known + ")");
}

std::string wgmma_kernel_name(WgmmaOp op, WgmmaKind kind) {
  const WgmmaOpInfo& i = wgmma_info(op);
  return std::string("gpuprobe_wgmma_") + i.input_name + "_" + i.acc_name + "_n" +
         std::to_string(i.n) + (i.rs ? "_rs" : "_ss") +
         (kind == WgmmaKind::latency ? "_lat" : "_thr");
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

WgmmaOperandData make_wgmma_operands(const WgmmaOpInfo& info, WgmmaOperands kind, uint64_t seed) {
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
        const uint32_t code = kind == WgmmaOperands::zeros
                                  ? 0
                                  : static_cast<uint32_t>(tensor::tile_random(elem(info.input), rng));
        values[size_t(r) * k + c] = tensor::tile_decode(elem(info.input), code);
        put_bytes(image, tensor::wgmma_smem_offset(r, c * bytes), code, bytes);
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
      put_bytes(d.a_frag, t * kWgmmaARegs * 4 + e * bytes, a_codes[size_t(at.row) * k + at.col],
                bytes);
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
  if (setup.kind == WgmmaKind::latency && setup.blocks != 1)
    throw Error(wgmma_kernel_name(setup.op, setup.kind) + ": a latency launch is one block");
}

namespace {

struct Span {
  uint64_t first = UINT64_MAX, last = 0;
  uint32_t groups = 0;
};

std::map<uint32_t, Span> spans(const std::string& kernel, uint32_t blocks,
                               const std::vector<WgmmaGroupOut>& groups) {
  if (groups.size() != blocks)
    throw Error("self-check failed: " + kernel + " reported " + std::to_string(groups.size()) +
                " warpgroups, expected " + std::to_string(blocks));
  std::map<uint32_t, Span> per_sm;
  for (size_t g = 0; g < groups.size(); ++g) {
    const WgmmaGroupOut& o = groups[g];
    if (o.ran != 1 || !(o.end_cycles > o.start_cycles))
      throw Error("self-check failed: " + kernel + " warpgroup " + std::to_string(g) +
                  (o.ran != 1 ? " did not run" : " ended before it started"));
    Span& s = per_sm[o.smid];
    s.first = std::min(s.first, o.start_cycles);
    s.last = std::max(s.last, o.end_cycles);
    ++s.groups;
  }
  return per_sm;
}

}  // namespace

WgmmaResult run_wgmma(const WgmmaSetup& setup, const WgmmaRun& run, const WgmmaLauncher& launch) {
  const WgmmaOpInfo& info = wgmma_info(setup.op);
  const std::string kernel = wgmma_kernel_name(setup.op, setup.kind);
  if (run.iterations == 0) throw Error(kernel + ": no iterations");
  WgmmaResult r;

  // 1. The self-check: one wgmma on random operands, D = A * B^T against float64.
  const WgmmaOperandData check_data = make_wgmma_operands(info, WgmmaOperands::random, run.seed);
  WgmmaLaunch check{setup.op, WgmmaKind::latency, false, 1, 1, true, &check_data};
  const WgmmaLaunchOut checked = launch(check);
  spans(wgmma_kernel_name(setup.op, WgmmaKind::latency), 1, checked.groups);
  r.self_check = check_wgmma_tile(info, check_data, checked.tile);
  if (!r.self_check.passed)
    throw Error("self-check failed: " + std::string(info.name) + ": " + r.self_check.why);

  // 2. The timed launch.
  const WgmmaOperandData timed_data =
      setup.operands == WgmmaOperands::random ? check_data
                                              : make_wgmma_operands(info, setup.operands, run.seed);
  WgmmaLaunch timed{setup.op, setup.kind, false, setup.blocks, run.iterations, false, &timed_data};
  const WgmmaLaunchOut out = launch(timed);
  r.launch = out.launch;
  const auto per_sm = spans(kernel, setup.blocks, out.groups);
  r.sms = static_cast<uint32_t>(per_sm.size());
  double groups_total = 0;
  std::vector<double> rates;
  const double per_group =
      double(run.iterations) * double(tensor::wgmma_flops(info)) *
      (setup.kind == WgmmaKind::latency ? 1.0 : double(kWgmmaThroughputPerIteration));
  for (const auto& [sm, span] : per_sm) {
    groups_total += span.groups;
    rates.push_back(per_group * span.groups / double(span.last - span.first));
  }
  r.warpgroups_per_sm = groups_total / r.sms;
  if (setup.kind == WgmmaKind::latency) {
    r.cycles_per_iteration =
        double(out.groups[0].end_cycles - out.groups[0].start_cycles) / double(run.iterations);
    // 3. The baseline: the same loop without the wgmma.
    WgmmaLaunch base{setup.op, WgmmaKind::latency, true, 1, run.iterations, false, &timed_data};
    const WgmmaLaunchOut b = launch(base);
    spans(kWgmmaBaselineKernel, 1, b.groups);
    r.baseline_cycles =
        double(b.groups[0].end_cycles - b.groups[0].start_cycles) / double(run.iterations);
    r.latency_cycles = r.cycles_per_iteration - r.baseline_cycles;
  } else {
    r.flops_per_clk_per_sm = stats::median(rates);
    r.flops_per_clk_per_sm_min = *std::min_element(rates.begin(), rates.end());
    r.flops_per_clk_per_sm_max = *std::max_element(rates.begin(), rates.end());
  }
  return r;
}

}  // namespace gpuprobe::probes
