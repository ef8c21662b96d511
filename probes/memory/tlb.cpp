// memory/tlb: one hop per page over a growing span (GiBs, bounded by free memory). Data stay in
// L2 (.cg, one line per page, offset per hop to spread the sets), so the steps are translation
// misses: TLB reach and miss cost (analysis/tlb_fit.cpp).
#include <algorithm>
#include <string>

#include "harness/error.hpp"
#include "probes/memory/chase_point.hpp"

namespace gpuprobe::probes {
namespace {

// The default sweep reaches this fraction of the free memory: past every TLB level measured so far
// (A100: 64 GB reach), leaving room for the chain arrays and the context.
constexpr double kDefaultSpanOfFree = 0.85;

ProbeSpec tlb_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "memory/tlb";
  p.summary = "TLB sweep: one hop per page over a growing span (reach, miss cost)";
  // No minimum: the sweep starts at one page.
  p.params = size_sweep_params("span", "", "85% of the free memory", "4");
  p.params.insert(p.params.end(), {
      {"page-bytes", K::bytes, "2M", "distance between hops (the page size probed)", {}, 0, 64, 8},
      {"offset-step-bytes", K::bytes, "136", "extra in-page offset per hop (spreads cache sets)", {}, kMaxSlotBytes, 0, 8},
      {"seed", K::integer, "1", "seed of the random page order", {}},
  });
  add_chase_params(p.params, MemorySpace::global, "cg", "0");
  p.check = check_chase_params;
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint64_t page = prm.get_u64("page-bytes");
    uint64_t max_span = prm.get_u64("max-span-bytes");
    if (max_span == 0)
      max_span = static_cast<uint64_t>(kDefaultSpanOfFree *
                                       static_cast<double>(ctx.device().free_memory_bytes()));
    require_free_memory(ctx, "span", max_span, "max-span-bytes");
    if (page == 0 || max_span < page) throw Error("the span must hold at least one page");
    const ChaseSettings s = chase_settings(ctx, MemorySpace::global);
    const uint32_t step = static_cast<uint32_t>(prm.get_u64("offset-step-bytes"));
    const uint64_t seed = prm.get_u64("seed");
    std::vector<PlannedPoint> points;
    for (uint64_t span : geometric_sweep(page, max_span, prm.get_u64("points-per-octave"), page)) {
      const uint64_t pages = span / page;
      points.push_back(chase_point(ctx, {{"span_bytes", span}, {"pages", pages}},
                                   [=] { return make_page_cycle(pages, page, step, seed); }, s));
    }
    ctx.extra()["page_bytes"] = page;
    measure_points(ctx, points);
  };
  return p;
}

const ProbeRegistration kRegistration(tlb_probe);

}  // namespace
}  // namespace gpuprobe::probes
