// memory/tlb: one hop per page over a growing span (GiBs, bounded by free memory). Data stay in
// L2 (.cg, one line per page, offset per hop to spread the sets), so the steps are translation
// misses: TLB reach and miss cost (analysis/tlb_fit.cpp).
#include <algorithm>
#include <string>

#include "harness/error.hpp"
#include "probes/memory/chase_point.hpp"
#include "probes/memory/registrations.hpp"

namespace gpuprobe::probes {

ProbeSpec tlb_probe() {
  using K = ParamSpec::Kind;
  ProbeSpec p;
  p.id = "memory/tlb";
  p.summary = "TLB sweep: one hop per page over a growing span (reach, miss cost)";
  p.params = {
      {"page-bytes", K::bytes, "2M", "distance between hops (the page size probed)", {}},
      {"max-span-bytes", K::bytes, "0", "largest span (0: min(8 GiB, half the free memory))", {}},
      {"points-per-octave", K::integer, "4", "spans per doubling", {}},
      {"offset-step-bytes", K::bytes, "136", "extra in-page offset per hop (spreads cache sets)", {}},
      {"seed", K::integer, "1", "seed of the random page order", {}},
  };
  add_chase_params(p.params, MemorySpace::global, "cg", "0");
  p.run = [](ProbeContext& ctx) {
    const auto& prm = ctx.params();
    const uint64_t page = prm.get_u64("page-bytes");
    uint64_t max_span = prm.get_u64("max-span-bytes");
    if (max_span == 0) max_span = std::min<uint64_t>(8ull << 30, ctx.device().free_memory_bytes() / 2);
    require_free_memory(ctx, "span", max_span, "max-span-bytes");
    if (page == 0 || max_span < page) throw Error("the span must hold at least one page");
    const ChaseSettings s = chase_settings(ctx, MemorySpace::global);
    for (uint64_t span : geometric_sweep(page, max_span, prm.get_u64("points-per-octave"), page)) {
      const uint64_t pages = span / page;
      const Chain chain = make_page_cycle(pages, page,
                                          static_cast<uint32_t>(prm.get_u64("offset-step-bytes")),
                                          prm.get_u64("seed"));
      auto point = measure_chase(ctx, chain, s);
      point["span_bytes"] = span;
      point["pages"] = pages;
      ctx.add_point(std::move(point));
    }
    measure_clock(ctx, "after");
  };
  return p;
}

}  // namespace gpuprobe::probes
