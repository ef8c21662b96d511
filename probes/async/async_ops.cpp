#include "probes/async/async_ops.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "harness/error.hpp"
#include "harness/stats.hpp"

namespace gpuprobe::probes {

namespace {

using async::AsyncCtaOut;

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::string hex(uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "%x", v);
  return text;
}

bool single_issuer(AsyncEngine e) {
  return e == AsyncEngine::bulk || e == AsyncEngine::tma_1d || e == AsyncEngine::tma_2d;
}

// The seed of the chase's ring (any fixed value: the host and every backend build the same one).
constexpr uint64_t kChaseSeed = 0xA5C0;
constexpr uint32_t kChaseNodeBytes = 128;

}  // namespace

const char* async_kind_name(AsyncKind kind) {
  switch (kind) {
    case AsyncKind::latency: return "latency";
    case AsyncKind::throughput: return "throughput";
    case AsyncKind::chase: return "chase";
    case AsyncKind::multicast: return "multicast";
  }
  return "?";
}

const async::AsyncOpInfo& async_info(AsyncOp op) { return async::async_op_info(op); }

AsyncOp parse_async_op(const std::string& name) {
  std::string known;
  for (const auto& info : async::kAsyncOps) {
    if (name == info.name) return info.op;
    known += known.empty() ? info.name : std::string(", ") + info.name;
  }
  throw Error("unknown async op '" + name + "' (known: " + known + ")");
}

std::string async_kernel_name(const AsyncSetup& s) {
  if (s.kind == AsyncKind::chase) return "gpuprobe_async_tma_chase";
  if (s.kind == AsyncKind::multicast) return "gpuprobe_async_tma_multicast";
  return std::string("gpuprobe_async_") + async_info(s.op).name + "_d" + std::to_string(s.depth);
}

uint32_t async_copy_bytes(const AsyncSetup& s) {
  if (s.kind == AsyncKind::chase) return 4 * async::kAsyncChaseBoxWords;
  const auto& info = async_info(s.op);
  return info.thread_bytes != 0 ? s.block_threads * info.thread_bytes : s.copy_bytes;
}

uint64_t async_dynamic_smem_bytes(const AsyncSetup& s) {
  if (s.kind == AsyncKind::chase) return 128 + 8;  // the 16-byte slot, its mbarrier at 128
  if (s.kind == AsyncKind::multicast) return (uint64_t{s.copy_bytes} + 127) / 128 * 128 + 8;
  const uint64_t slot = (uint64_t{async_copy_bytes(s)} + 127) / 128 * 128;
  return s.depth * slot + (single_issuer(async_info(s.op).engine) ? 8ull * s.depth : 0);
}

double async_bytes_in_flight_per_sm(const AsyncSetup& s, double ctas_per_sm) {
  return ctas_per_sm * s.depth * async_copy_bytes(s);
}

void check_async_fits(const AsyncSetup& s, const DeviceInfo& info) {
  const auto& op = async_info(s.op);
  const int sm = info.cc.sm();
  const ptx::Cap cap = s.kind == AsyncKind::chase       ? ptx::Cap::bulk_copy
                       : s.kind == AsyncKind::multicast ? ptx::Cap::bulk_multicast
                                                        : op.cap;
  if (!ptx::device_has(cap, sm))
    throw Skip(std::string(s.kind == AsyncKind::chase       ? "the TMA chase"
                                         : s.kind == AsyncKind::multicast ? "the TMA multicast"
                                                                          : op.ptx) +
                             " needs " + ptx::capability_info(cap).targets + "; " + info.name +
                             " is sm_" + std::to_string(sm));
  const std::string kernel = async_kernel_name(s);
  if (s.kind == AsyncKind::chase) {
    if (s.op != AsyncOp::tma_1d) throw Error(kernel + ": the chase is a TMA 1D chase (op tma_1d)");
    if (s.blocks != 1 || s.block_threads != 32 || s.depth != 1)
      throw Error(kernel + ": a chase launch is one CTA of one warp");
    if (s.footprint_bytes < 2 * kChaseNodeBytes || s.footprint_bytes % kChaseNodeBytes != 0 ||
        s.footprint_bytes / 4 > UINT32_MAX)
      throw Error(kernel + ": a chase footprint is a multiple of 128 bytes from 256 B to 16 GiB");
    return;
  }
  if (s.kind == AsyncKind::multicast) {
    if (s.op != AsyncOp::tma_2d) throw Error(kernel + ": the multicast is a TMA 2D multicast (op tma_2d)");
    if (s.cluster_size < 1 || s.cluster_size > 8 || s.blocks == 0 || s.blocks % s.cluster_size != 0)
      throw Error(kernel + ": " + std::to_string(s.blocks) + " CTAs are not whole clusters of 1 to 8 (" +
                  std::to_string(s.cluster_size) + ")");
    if (s.block_threads != 32 || s.depth != 1)
      throw Error(kernel + ": a multicast launch is one warp per CTA, one copy in flight");
  } else if (s.cluster_size != 0) {
    throw Error(kernel + ": only the multicast launches clusters");
  }
  if (std::find(std::begin(async::kAsyncDepths), std::end(async::kAsyncDepths), s.depth) ==
      std::end(async::kAsyncDepths))
    throw Error(kernel + ": depth " + std::to_string(s.depth) + " is not 1, 2, 4 or 8");
  if (s.blocks == 0) throw Error(kernel + ": a launch needs a block");
  const bool latency = s.kind == AsyncKind::latency;
  const bool multicast = s.kind == AsyncKind::multicast;
  if (latency && (s.blocks != 1 || s.depth != 1 || s.block_threads != 32))
    throw Error(kernel + ": a latency launch is the depth-1 kernel in one CTA of one warp");
  if (single_issuer(op.engine)) {
    if (s.block_threads != 32) throw Error(kernel + ": bulk and TMA launches are one warp per CTA");
  } else if (s.block_threads == 0 || s.block_threads % 32 != 0 ||
             s.block_threads > async::kAsyncMaxBlockThreads) {
    throw Error(kernel + ": block size " + std::to_string(s.block_threads) +
                " is not a multiple of 32 between 32 and " + std::to_string(async::kAsyncMaxBlockThreads));
  }
  const uint32_t bytes = async_copy_bytes(s);
  switch (op.engine) {
    case AsyncEngine::bulk:
      if (bytes < 16 || bytes % 16 != 0)
        throw Error(kernel + ": a bulk copy is a positive multiple of 16 bytes, not " +
                    std::to_string(bytes));
      break;
    case AsyncEngine::tma_1d:
      if (bytes < 16 || bytes % 16 != 0 || bytes > 4 * async::kAsyncTma1dMaxBoxWords)
        throw Error(kernel + ": a TMA 1D box is 16 to 1024 bytes in steps of 16, not " +
                    std::to_string(bytes));
      break;
    case AsyncEngine::tma_2d: {
      if (multicast && bytes == 0) throw Error(kernel + ": no box");
      const uint32_t rows = bytes / (4 * async::kAsyncTma2dBoxWords);
      if (bytes % (4 * async::kAsyncTma2dBoxWords) != 0 || !power_of_two(rows) || rows > 256)
        throw Error(kernel + ": a TMA 2D box is 64 words by 1 to 256 rows (a power of two), not " +
                    std::to_string(bytes) + " bytes");
      if (s.footprint_bytes < uint64_t{4} * async::kAsyncTma2dRowWords * rows)
        throw Error(kernel + ": the source must hold at least one band of " +
                    std::to_string(rows) + " rows of 4 KiB");
      break;
    }
    default: break;
  }
  if (!power_of_two(s.footprint_bytes) || s.footprint_bytes < bytes)
    throw Error(kernel + ": the source (" + std::to_string(s.footprint_bytes) +
                " bytes) must be a power of two of at least one copy (" + std::to_string(bytes) +
                " bytes)");
  const uint64_t smem = async_dynamic_smem_bytes(s);
  if (info.shared_memory_per_block_optin_bytes != 0 && smem > info.shared_memory_per_block_optin_bytes)
    throw Error(kernel + ": " + std::to_string(s.depth) + " slots of " + std::to_string(bytes) +
                " bytes need " + std::to_string(smem) + " bytes of shared memory; " + info.name +
                " allows " + std::to_string(info.shared_memory_per_block_optin_bytes) + " per block");
}

uint32_t async_reference_fingerprint(const AsyncSetup& s, const AsyncRun& run, uint32_t cta) {
  const auto& info = async_info(s.op);
  const uint64_t copy_words = async_copy_bytes(s) / 4, src_words = s.footprint_bytes / 4;
  const uint32_t box_rows = static_cast<uint32_t>(copy_words / async::kAsyncTma2dBoxWords);
  uint32_t sum = 0;
  for (uint32_t slot = 0; slot < s.depth; ++slot) {
    const uint64_t c = s.kind == AsyncKind::multicast
                           ? (run.iterations - 1) * (s.blocks / s.cluster_size) + cta / s.cluster_size
                           : async::async_copy_index(run.iterations - 1, cta, s.blocks, slot, s.depth);
    for (uint32_t j = 0; j < copy_words; ++j) {
      const uint64_t word = async::async_source_word(info.engine, c, j, copy_words, src_words, box_rows);
      sum += async::async_fingerprint_step(static_cast<uint32_t>(slot * copy_words + j),
                                           async::async_pattern(word));
    }
  }
  return sum;
}

Chain async_chase_chain(const AsyncSetup& s) {
  return make_random_cycle(s.footprint_bytes, kChaseNodeBytes, kChaseSeed);
}

uint32_t async_chase_reference(const Chain& chain, const AsyncRun& run) {
  const uint32_t slot = walk(chain, chain.start, run.warmup + run.iterations);
  return static_cast<uint32_t>(chain.offset_bytes[slot] / 4);
}

AsyncResult summarize_async_launch(const AsyncSetup& s, const AsyncRun& run,
                                   const std::vector<AsyncCtaOut>& ctas, uint32_t chase_reference) {
  const std::string kernel = async_kernel_name(s);
  AsyncResult r;
  r.copy_bytes = async_copy_bytes(s);
  r.copies_per_cta = s.kind == AsyncKind::chase ? run.iterations : run.iterations * s.depth;
  if (ctas.size() != s.blocks)
    throw Error("self-check failed: " + kernel + " reported " + std::to_string(ctas.size()) +
                " CTAs, expected " + std::to_string(s.blocks));
  struct Span {
    uint64_t first = UINT64_MAX, last = 0;
    uint32_t ctas = 0;
  };
  std::map<uint32_t, Span> per_sm;
  std::vector<double> latencies;
  for (uint32_t b = 0; b < ctas.size(); ++b) {
    const AsyncCtaOut& o = ctas[b];
    if (o.ran != 1 || !(o.end_cycles > o.start_cycles))
      throw Error("self-check failed: " + kernel + " CTA " + std::to_string(b) +
                  (o.ran != 1 ? " did not run" : " ended before it started"));
    if (run.store) {
      const uint32_t want = s.kind == AsyncKind::chase ? chase_reference
                                                       : async_reference_fingerprint(s, run, b);
      if (o.result != want)
        throw Error("self-check failed: " + kernel + " CTA " + std::to_string(b) +
                    (s.kind == AsyncKind::chase ? " ended the chase on word 0x" + hex(o.result)
                                                : " holds data with fingerprint 0x" + hex(o.result)) +
                    ", expected 0x" + hex(want) + " (the copies did not bring the source intact)");
    }
    latencies.push_back(double(o.end_cycles - o.start_cycles) / double(r.copies_per_cta));
    Span& span = per_sm[o.smid];
    span.first = std::min(span.first, o.start_cycles);
    span.last = std::max(span.last, o.end_cycles);
    ++span.ctas;
  }
  r.sms = static_cast<uint32_t>(per_sm.size());
  std::vector<double> rates;
  double ctas_total = 0;
  for (const auto& [sm, span] : per_sm) {
    ctas_total += span.ctas;
    rates.push_back(double(span.ctas) * double(r.copies_per_cta) * r.copy_bytes /
                    double(span.last - span.first));
  }
  r.ctas_per_sm = ctas_total / r.sms;
  r.bytes_in_flight_per_sm = async_bytes_in_flight_per_sm(s, r.ctas_per_sm);
  r.latency_cycles = stats::median(latencies);
  r.latency_cycles_max = *std::max_element(latencies.begin(), latencies.end());
  r.bytes_per_clk_per_sm = stats::median(rates);
  r.bytes_per_clk_per_sm_min = *std::min_element(rates.begin(), rates.end());
  r.bytes_per_clk_per_sm_max = *std::max_element(rates.begin(), rates.end());
  return r;
}

}  // namespace gpuprobe::probes
