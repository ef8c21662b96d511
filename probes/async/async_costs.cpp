// The async family's simulator cost table per preset (async.hpp AsyncCost; the ops are
// probes/async/async.def's), registered as the preset table "async"; probes/async/async.cpp
// uses it. Each number cites FIGURES.md §6 (or the preset's own cited L2 latency) or is marked
// "assumption". Sources, FIGURES.md §6:
//   [HPMLL tma] H800 PCIe TMA load latency: ~365-369 cyc with the data in the L2, ~752-761 from
//            DRAM, against ld.global's 264.5 / 652-657 (M): a TMA load costs ~102.5 cycles more
//            than a plain load at either level (DER: 367 - 264.5). The H800 PCIe is the H100 PCIe's
//            GH100 at the same clock, so the h100 preset takes 367 as measured; the SXM part adds
//            the 102.5 to its own L2 latency (DER).
//   [SA tma2d] B200 TMA-2D loaded latency 1413 cyc for a 1 KB tile ... 9559 for 128 KB (M): 64.1
//            cycles per KiB past the first (DER: (9559 - 1413) / 127). No Hopper figure: carried to
//            the other GPUs' bulk and TMA copies as an assumption (B200: its own, DER).
// The SXM H100, H200, B200 and RTX 5090 have no TMA latency in FIGURES: their own L2 hit latency
// plus the H800's 102.5 (assumption).
// FIGURES §6 has no unloaded cp.async latency (its B200 LDGSTS figure, >= 1001 cyc, is loaded),
// nothing for the bulk copy's own latency, and no per-SM rate of any copy path: those are
// assumptions, each marked, chosen plausible. A one-warp cp.async or ld + st of an L2-resident
// source costs the preset's own cited L2 hit latency plus a little (a shared store behind the
// load: 20 cycles; LDGSTS's write into shared memory and DEPBAR: 40 cycles). The thread paths move
// at most 64 B/clk/SM (16 B per thread; the bandwidth table's per-SM L2 port on Hopper), 4-byte
// copies half of that; the bulk/TMA engine 128 B/clk/SM (a third-party B200 study reports a
// marginal ~130 B/cycle [R], not in FIGURES). The bulk copy's latency is the TMA's (the same
// engine: assumption).
#include <string>

#include "harness/sim/family_tables.hpp"
#include "probes/async/async.hpp"

namespace gpuprobe::probes {
namespace {

using sim::Preset;

AsyncCost op(const char* name, double latency, double per_kib, double peak, std::string source) {
  return {{name, peak, latency, std::move(source)}, per_kib};
}

// The thread paths every preset has (ld + st) and, from sm_80, cp.async.
AsyncCosts thread_paths(const Preset& p, bool cp_async) {
  const double l2 = cache_hit_cycles(p, "L2");
  const std::string l2_text = std::to_string(static_cast<int>(l2 + 0.5));
  const std::string ld = "the preset's L2 hit latency (" + l2_text +
                         ", FIGURES §2) + 20 for the shared store: assumption; rate: assumption";
  const std::string cp = "the preset's L2 hit latency (" + l2_text +
                         ", FIGURES §2) + 40 for LDGSTS and DEPBAR: assumption (FIGURES §6 has "
                         "only B200's loaded figure); rate: assumption";
  AsyncCosts t;
  for (const async::AsyncOpInfo& info : async::kAsyncOps) {  // 4-byte copies at half the rate
    const double rate = info.thread_bytes == 4 ? 32 : 64;
    if (info.engine == AsyncEngine::thread_sync) t.push_back(op(info.name, l2 + 20, 0, rate, ld));
    if (info.engine == AsyncEngine::thread_async && cp_async)
      t.push_back(op(info.name, l2 + 40, 0, rate, cp));
  }
  return t;
}

constexpr double kTmaOverLoadCycles = 102.5;  // DER M [HPMLL tma]: 367 - 264.5
constexpr double kTmaCyclesPerKib = 64.1;     // DER M [SA tma2d] B200, assumption elsewhere
const char* const kPerKibElsewhere = "DER M [SA tma2d] (9559 - 1413) / 127 on B200, assumption for this GPU";
// The thread paths plus the bulk and TMA copies (sm_90+): per_kib_source says where the size slope
// comes from on this GPU.
AsyncCosts with_tma(const Preset& p, double tma_latency, const std::string& tma_source,
                    const std::string& per_kib_source) {
  AsyncCosts t = thread_paths(p, true);
  const std::string per_kib = "; per KiB: " + per_kib_source + "; rate: assumption";
  t.push_back(op("bulk", tma_latency, kTmaCyclesPerKib, 128,
                 "assumption: the TMA's latency (" + tma_source + ")" + per_kib));
  t.push_back(op("tma_1d", tma_latency, kTmaCyclesPerKib, 128, tma_source + per_kib));
  t.back().chase_extra_cycles = kTmaOverLoadCycles;
  t.push_back(op("tma_2d", tma_latency, kTmaCyclesPerKib, 128, tma_source + per_kib));
  return t;
}

// The TMA's latency on a GPU without a published figure: its own L2 hit latency plus the H800's
// TMA-over-load difference.
AsyncCosts tma_over_l2(const Preset& p, const std::string& per_kib_source) {
  return with_tma(p, cache_hit_cycles(p, "L2") + kTmaOverLoadCycles,
                  "DER the preset's L2 hit latency + 102.5 (M [HPMLL tma] 367 - 264.5 on H800 PCIe; "
                  "assumption: the same TMA cost on this GPU)",
                  per_kib_source);
}

// Every GPU has the thread paths, cp.async from sm_80, bulk and TMA from sm_90: the H100 PCIe with
// its measured TMA latency, the others from their L2 (the B200 with its own size slope).
AsyncCosts async_costs(const Preset& p) {
  const int sm = p.info.cc.sm();
  if (sm < 90) return thread_paths(p, sm >= 80);
  if (p.name == "h100")
    return with_tma(p, 367, "M [HPMLL tma] H800 PCIe 365-369 cyc L2-resident", kPerKibElsewhere);
  if (p.name == "b200")
    return tma_over_l2(p, "DER M [SA tma2d] (9559 - 1413) / 127 on this GPU (a loaded figure)");
  return tma_over_l2(p, kPerKibElsewhere);
}

// slowdown=F: every rate / F, every latency term x F.
const sim::PresetTable<AsyncCosts> kTables("async", async_costs, [](AsyncCosts& costs, double factor) {
  slow_op_costs_with(costs, factor, &AsyncCost::cycles_per_kib, &AsyncCost::chase_extra_cycles);
});

}  // namespace
}  // namespace gpuprobe::probes
