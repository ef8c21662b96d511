#include "analysis/metrics.hpp"

#include <string>
#include <utility>
#include <vector>

#include "analysis/compute_model.hpp"
#include "analysis/metric_fields.hpp"
#include "analysis/provenance.hpp"
#include "harness/error.hpp"
#include "harness/family.hpp"
#include "harness/results.hpp"

namespace gpuprobe::analysis {
namespace {

using json = nlohmann::json;

class Table {
 public:
  explicit Table(const json& model) {
    simulated_ = model.value("simulated", false) == true;
    sm_count_ = model_sm_count(model);
    // Which probes' records all passed their self-check (model.sources[].self_check).
    if (const json* sources = at(model, {"sources"}); sources && sources->is_array())
      for (const auto& s : *sources)
        if (s.is_object() && s.value("self_check", json()) == "passed" && s.value("probe", json()).is_string())
          self_checked_.push_back(s["probe"].get<std::string>());
  }

  // The probe's source entry said its records passed the on-GPU self-check.
  bool self_checked(const std::string& probe) const {
    for (const auto& p : self_checked_)
      if (p == probe) return true;
    return false;
  }

  // A family's row, completed: its family, per SM per clock, % of its datasheet figure, source and
  // the checks behind its probe.
  void add(const std::string& family, MetricRow m) {
    json per = nullptr;
    const char* per_unit = m.unit == "bytes/s" ? "bytes/clk/SM" : m.unit == "flop/s" ? "flop/clk/SM"
                           : m.unit == "op/s"  ? "op/clk/SM"
                           : m.unit == "ops/s" ? "ops/clk/SM" : nullptr;
    if (per_unit && m.value.is_number() && m.clock_mhz.is_number() && sm_count_ > 0)
      per = {{"value", m.value.get<double>() / (m.clock_mhz.get<double>() * 1e6) / sm_count_}, {"unit", per_unit}};
    json datasheet = nullptr;
    if (m.datasheet.is_object() && m.datasheet["value"].is_number() && m.datasheet["value"].get<double>() > 0) {
      // A figure quoted at a clock (its sm_count and clock_mhz) is compared per SM per clock: the
      // row's per_sm_per_clock against the figure / (SMs x its clock). The row's value stays at
      // the run's clock. Other figures (DRAM bytes/s) are compared as they are.
      datasheet = m.datasheet;
      const double figure = m.datasheet["value"].get<double>();
      const bool per_clock = per.is_object() && m.datasheet.value("clock_mhz", json()).is_number() &&
                             m.datasheet.value("sm_count", json()).is_number();
      if (per_clock) {
        const double figure_per_clock = figure_per_sm_per_clock(
            figure, m.datasheet["sm_count"].get<int>(), m.datasheet["clock_mhz"].get<double>());
        datasheet["per_sm_per_clock"] = {{"value", figure_per_clock}, {"unit", per["unit"]}};
        datasheet["percent"] = 100.0 * per["value"].get<double>() / figure_per_clock;
      } else {
        datasheet["percent"] = m.value.is_number() ? json(100.0 * m.value.get<double>() / figure) : json(nullptr);
      }
      datasheet["percent_basis"] = per_clock ? "per clock" : "rate";
    }
    json checks = json::array();
    const bool measured = !simulated_;
    if (!m.probe.empty())
      for (const auto& c : checks_for(m.probe))
        if (c != "gpu-self-check" || (measured && self_checked(m.probe))) checks.push_back(c);
    out_.push_back({{"id", m.id},
                    {"family", family},
                    {"label", m.label},
                    {"value", m.value},
                    {"unit", m.unit},
                    {"better", m.better.empty() ? json(nullptr) : json(m.better)},  // null: no direction
                    {"ceiling", m.ceiling},
                    {"method", m.method},
                    {"probe", m.probe.empty() ? json(nullptr) : json(m.probe)},
                    {"samples", m.samples},
                    {"confidence", m.confidence},
                    {"clock_mhz", m.clock_mhz},
                    {"source", simulated_ ? "simulated" : "measured"},
                    {"checks", checks},
                    {"citation", nullptr},
                    {"per_sm_per_clock", per},
                    {"datasheet", datasheet}});
  }

  json take() { return std::move(out_); }

 private:
  bool simulated_ = false;
  double sm_count_ = 0;
  std::vector<std::string> self_checked_;
  json out_ = json::array();
};

// Ridge points: each precision's compute ceiling / each memory level's ceiling.
void ridge_metrics(const json& roofline, const MetricSink& add) {
  const json* compute = at(roofline, {"compute"});
  if (!compute || !compute->is_object()) return;
  for (auto it = compute->begin(); it != compute->end(); ++it) {
    const json* ridges = at(it.value(), {"ridge_points"});
    if (!ridges || !ridges->is_object()) continue;
    // An integer precision's ceiling counts operations: its ridge points are OP per byte.
    const bool integer = integer_precision(it.key());
    for (auto r = ridges->begin(); r != ridges->end(); ++r)
      add({"roofline." + part(it.key()) + ".ridge_" + part(r.key()) +
               (integer ? "_op_per_byte" : "_flop_per_byte"),
           it.key() + " ridge point against " + r.key() + (integer ? " (int)" : ""),
           num(&r.value(), "flop_per_byte"), integer ? "op/byte" : "flop/byte", "lower", false,
             "derived: the roofline's " + it.key() + " ceiling (" + text(&it.value(), "op", "imported") + ", " +
                 text(&it.value(), "path") + ") / its " + r.key() + " ceiling",
             "", nullptr, nullptr, nullptr});
  }
}


}  // namespace

json build_metrics(const json& model) {
  Table t(model);
  // Each family's own rows (harness/family.hpp), in the families' order; then the roofline's
  // ridge points, which join two families' ceilings.
  for (const FamilySpec& f : families())
    if (f.metrics) f.metrics(model, [&](MetricRow m) { t.add(f.name, std::move(m)); });
  const json roofline = model.contains("roofline") && model["roofline"].is_object() ? model["roofline"] : json::object();
  ridge_metrics(roofline, [&](MetricRow m) { t.add("roofline", std::move(m)); });
  return t.take();
}

void check_metrics_model(const json& model, const std::string& file, const std::string& command) {
  if (!model.is_object() || model.value("schema", json()) != kModelSchema)
    throw Error(file + " is not a gpuprobe machine model (schema \"" + kModelSchema + "\")");
  const json version = model.value("schema_version", json());
  if (!model.contains("metrics"))
    throw Error(file + " has no metrics[] (machine model schema_version " + version.dump() +
                "): fit it again with this gpuprobe (gpuprobe analyze DIR/raw/*.json --out MODEL.json)");
  if (!version.is_number_integer() || version.get<int>() < kFirstMetricsModelVersion ||
      version.get<int>() > kModelSchemaVersion)
    throw Error(file + " has machine model schema_version " + version.dump() + "; " + command + " reads " +
                (kFirstMetricsModelVersion == kModelSchemaVersion
                     ? "version " + std::to_string(kModelSchemaVersion)
                     : "versions " + std::to_string(kFirstMetricsModelVersion) + " to " +
                           std::to_string(kModelSchemaVersion)));
  if (!model["metrics"].is_array()) throw Error(file + ": metrics is not an array");
}

}  // namespace gpuprobe::analysis
