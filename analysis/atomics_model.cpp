#include "analysis/atomics_model.hpp"

#include <string>

#include "analysis/record_fields.hpp"
#include "harness/error.hpp"

namespace gpuprobe::analysis {

using json = nlohmann::json;

void add_atomics_from_run(const json& run, json& atomics) {
  if (!atomics.contains("ops")) atomics["ops"] = json::object();
  if (!run.contains("series") || !run["series"].is_array())
    throw Error("atomics/ops record has no series");
  const json& series = run["series"];
  for (std::size_t i = 0; i < series.size(); ++i) {
    const json& p = series[i];
    const std::string where = "series[" + std::to_string(i) + "]";
    const std::string op = record_text(p, "op", where);
    const std::string pattern = record_text(p, "pattern", where);
    const std::string kind = record_text(p, "kind", where);
    if (p.contains("skipped")) {
      atomics["skipped"][op + " " + pattern + " " + kind] = record_skip_reason(p);
      continue;
    }
    json& o = atomics["ops"][op];
    o["ptx"] = record_text(p, "ptx", where);
    o["space"] = record_text(p, "space", where);
    o["bytes"] = record_number(p, "bytes", where);
    o["lowering"] = record_text(p, "lowering", where);
    json& at = o["patterns"][pattern];
    if (kind == "latency" || kind == "throughput") record_samples(p, kind, at);
    if (kind == "latency") {
      at["latency_cycles"] = record_number(p, "latency_cycles", where);
      at["latency_ns"] = p.contains("latency_ns") ? p["latency_ns"] : json(nullptr);
    } else if (kind == "throughput") {
      at["ops_per_clk_per_sm"] = record_number(p, "ops_per_clk_per_sm", where);
      at["ops_per_s"] = record_number(p, "ops_per_s", where);
      at["clock_mhz"] = record_number(p, "region_sm_clock_mhz", where);
    } else {
      throw Error(where + ".kind is '" + kind + "', not latency or throughput");
    }
  }
}

}  // namespace gpuprobe::analysis
