#include "analysis/atomics_model.hpp"

#include <string>

#include "analysis/metric_fields.hpp"
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

void atomics_metrics(const json& model, const MetricSink& add) {
  const json* ops = at(model, {"atomics", "ops"});
  if (!ops || !ops->is_object()) return;
  for (auto it = ops->begin(); it != ops->end(); ++it) {
    const json* patterns = at(it.value(), {"patterns"});
    if (!patterns || !patterns->is_object()) continue;
    const std::string op = it.key();
    const std::string what = "atomics/ops " + op + " (" + text(&it.value(), "ptx") + ", " +
                             text(&it.value(), "lowering") + ")";
    for (auto p = patterns->begin(); p != patterns->end(); ++p) {
      const json& a = p.value();
      const std::string id = "atomics." + part(op) + "." + part(p.key());
      if (a.contains("latency_cycles"))
        add({id + ".latency_cycles", op + " " + p.key() + " latency", num(&a, "latency_cycles"),
               "cycles", "lower", false, what + ", lanes " + p.key() + ": one dependent chain, median over repeats",
               "atomics/ops", num(&a, "latency_repeats"), nullptr, clock_of(a.value("latency_clock_mhz", json()))});
      if (a.contains("ops_per_s"))
        add({id + ".ops_per_s", op + " " + p.key() + " throughput", num(&a, "ops_per_s"), "ops/s",
               "higher", true, what + ", lanes " + p.key() + ": thread-level atomics, median SM x SMs x clock",
               "atomics/ops", num(&a, "throughput_repeats"), nullptr, clock_of(a.value("clock_mhz", json()))});
    }
  }
}

}  // namespace gpuprobe::analysis
