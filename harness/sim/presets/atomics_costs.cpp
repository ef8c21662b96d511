// Atomic costs of the simulator presets (probes/atomics/atomics_sim.cpp uses them). Sources,
// FIGURES.md §6:
//   [R6000D] GB202 atomicAdd global: same address 53.4 Gops/s (~19 ns/op serialized), distinct
//            addresses 492.6 Gops/s (P). At the RTX 5090's 170 SMs and 2407 MHz: distinct 1.20
//            atomics/clk/SM (DER), one address 22.2 atomics/clk for the whole GPU (DER).
//   [CC-B200] B200 atomics latency: measured, values not retrievable: nothing to use.
// Everything else has never been published (FIGURES §6): each such number says "assumption" and is
// chosen plausible. A global atomic's round trip is the preset's own cited L2 hit latency plus 50
// cycles for the L2's atomic unit; lanes of a warp on one word are serialized there at 2 cycles
// each; the one-word rate (the GB202's 22.2/clk) and the per-SM distinct rate (1.20/clk) carry to
// every GPU. Shared atomics cost the preset's shared-load latency plus 10 (ATOMS), a word shared by
// the warp 2 cycles per lane; the CAS loops (atom.shared.add.f32, the 64-bit shared adds) an LDS +
// ATOMS.CAS round trip each, retried once per lane on one word. The warp-aggregated add (VOTE,
// SHFL scan, one ATOM per warp) adds 40 cycles to the round trip and sends 1/32 of the atomics.
// Every latency is at least 32 lanes over the rate (what the probe's one-warp launch can see).
// red returns nothing, so it has no latency: its entries hold 0 (AtomicOpModel) and their source
// names only the rate.
#include "harness/sim/presets/atomics_costs.hpp"

#include <algorithm>
#include <string>

namespace gpuprobe::sim::presets_detail {
namespace {

constexpr double kDistinctPerSm = 492.6e9 / (170 * 2407e6);  // DER [R6000D]
constexpr double kOneWordPerGpu = 53.4e9 / 2407e6;           // DER [R6000D]

double level_latency(const Preset& p, const char* name) {
  for (const auto& c : p.caches)
    if (c.name == name) return c.hit_latency_cycles;
  return 0;
}

// What an entry's source says of its latency: `how`, or for red that it has none.
std::string latency_source(bool red, const std::string& how) {
  return red ? "no latency: red returns nothing" : how;
}

AtomicOpModel entry(const std::string& op, const char* pattern, double latency, double rate,
                    std::string source) {
  AtomicOpModel m;
  m.op = op;
  m.pattern = pattern;
  m.ops_per_clk_per_sm = rate;
  m.latency_cycles = latency > 0 ? std::max(latency, 32.0 / rate) : 0;
  m.source = std::move(source);
  return m;
}

}  // namespace

std::vector<AtomicOpModel> atomics_costs(const Preset& p) {
  const double l2 = level_latency(p, "L2");
  const double smem = p.shared_latency_cycles > 0 ? p.shared_latency_cycles : 30;
  const double sms = p.info.sm_count;
  const bool gb202 = p.name == "rtx5090";
  const std::string l2_text = std::to_string(static_cast<int>(l2 + 0.5));
  const std::string lat_g = "assumption: the preset's L2 hit latency (" + l2_text + ", FIGURES §2) + 50";
  const std::string distinct_rate =
      gb202 ? "P [R6000D] 492.6 Gops/s = 1.20/clk/SM (DER)" : "assumption: the GB202's 1.20/clk/SM, DER from P [R6000D]";
  const std::string word_rate =
      gb202 ? "P [R6000D] one address 53.4 Gops/s = 22.2/clk per GPU (DER)"
            : "assumption: the GB202's one-address 22.2/clk per GPU, DER from P [R6000D]";
  std::vector<AtomicOpModel> t;
  const double contended_rate = kOneWordPerGpu / sms;
  for (const char* base : {"add_u32", "add_u64", "cas_b32", "cas_b64", "exch_b32", "exch_b64",
                           "red_add_u32", "red_add_u64"}) {
    const std::string op = std::string("global_") + base;
    const bool red = std::string(base).rfind("red_", 0) == 0;
    t.push_back(entry(op, "distinct", red ? 0 : l2 + 50, kDistinctPerSm,
                      latency_source(red, lat_g) + "; rate " + distinct_rate));
    t.push_back(entry(op, "same", red ? 0 : l2 + 50 + 2 * 32, kDistinctPerSm / 4,
                      latency_source(red, lat_g + " + 2 per lane on one word") +
                          "; rate: assumption, a quarter of distinct"));
    t.push_back(entry(op, "contended", red ? 0 : std::max(l2 + 50, sms * 32 / kOneWordPerGpu), contended_rate,
                      latency_source(red, "latency: every SM's warp queues at one word") + "; rate " + word_rate));
  }
  t.push_back(entry("global_add_u32_uniform", "uniform", l2 + 90, std::min(32 * contended_rate, kDistinctPerSm),
                    lat_g + " + 40 for VOTE + SHFL scan (assumption); one ATOM per warp on the " + word_rate));
  for (const char* base : {"add_u32", "cas_b32", "cas_b64", "exch_b32", "exch_b64", "red_add_u32",
                           "add_u64", "red_add_u64", "add_f32"}) {
    const std::string op = std::string("shared_") + base;
    const bool red = std::string(base).rfind("red_", 0) == 0;  // not "shared_" itself
    const bool loop = op == "shared_add_u64" || op == "shared_red_add_u64" || op == "shared_add_f32";
    const bool popc = op == "shared_red_add_u32";
    const double one = loop ? 2 * (smem + 10) : smem + 10;
    const std::string why = "assumption: the preset's shared latency (" +
                            std::to_string(static_cast<int>(smem + 0.5)) + ") + 10" +
                            (loop ? ", twice (LDS + ATOMS.CAS loop)" : "");
    t.push_back(entry(op, "distinct", red ? 0 : one, popc ? 32 : loop ? 4 : 16,
                      latency_source(red, why) + "; rate: assumption"));
    t.push_back(entry(op, "same", red ? 0 : loop ? one * 16 : one + 2 * 32, popc ? 32 : loop ? 0.25 : 1,
                      latency_source(red, why + (loop ? ", retried 16x on one word" : " + 2 per lane on one word")) +
                          "; rate: assumption"));
  }
  t.push_back(entry("shared_add_u32_uniform", "uniform", smem + 50, 16,
                    "assumption: the preset's shared latency + 10 + 40 for VOTE + SHFL scan; rate: assumption"));
  return t;
}

}  // namespace gpuprobe::sim::presets_detail
