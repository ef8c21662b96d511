#include <cctype>
#include <exception>
#include <filesystem>
#include <string>

#include "harness/arch.hpp"
#include "harness/error.hpp"
#include "harness/interrupt.hpp"
#include "harness/probe.hpp"
#include "harness/ops.hpp"
#include "harness/results.hpp"
#include "harness/self_check.hpp"
#include "harness/wait_timeout.hpp"
#include <algorithm>

namespace gpuprobe {

// How long run_probe may busy the GPU before the first point, waiting for a steady SM clock.
constexpr double kWarmUpMaxSeconds = 2.0;
// The failed points a failed probe's one line names (then "and N more").
constexpr std::size_t kNamedFailures = 8;

namespace {
// Filled by ProbeRegistration constructors during static initialisation; a function-local static
// so that registrations in any translation unit find it constructed.
std::vector<ProbeSpec (*)()>& probe_makers() {
  static std::vector<ProbeSpec (*)()> makers;
  return makers;
}
}  // namespace

ProbeRegistration::ProbeRegistration(ProbeSpec (*make)()) { probe_makers().push_back(make); }

const std::vector<ProbeSpec>& probe_registry() {
  static const std::vector<ProbeSpec> all = [] {
    std::vector<ProbeSpec> v;
    for (auto make : probe_makers()) v.push_back(make());
    std::sort(v.begin(), v.end(), [](const ProbeSpec& a, const ProbeSpec& b) { return a.id < b.id; });
    for (std::size_t i = 1; i < v.size(); ++i)
      if (v[i].id == v[i - 1].id) throw Error("probe '" + v[i].id + "' is registered twice");
    return v;
  }();
  return all;
}

const ProbeSpec& find_probe(const std::string& id) {
  for (const auto& p : probe_registry())
    if (p.id == id) return p;
  std::string known;
  for (const auto& p : probe_registry()) known += (known.empty() ? "" : ", ") + p.id;
  throw Error("unknown probe '" + id + "' (known: " + known + "; see `gpuprobe list`)");
}

std::optional<std::string> probe_unavailable_reason(const ProbeSpec& probe, const DeviceInfo& info,
                                                    std::string_view built_targets) {
  if (!probe.needs) return std::nullopt;
  const ptx::CapInfo& cap = ptx::capability_info(*probe.needs);
  const std::string sm = "sm_" + std::to_string(info.cc.sm());
  if (!ptx::device_has(*probe.needs, info.cc.sm()))
    return "needs " + std::string(cap.targets) + " (" + cap.name + "); " + info.name + " is " + sm;
  if (info.simulated || cap.need == ptx::TargetNeed::any) return std::nullopt;
  // The capability needs an `a` or `f` cubin: is there one in this build that runs here?
  for (const CudaTarget& t : parse_cuda_targets(built_targets)) {
    const bool fits = cap.need == ptx::TargetNeed::specific
                          ? t.feature == CudaTarget::Feature::specific
                          : t.feature != CudaTarget::Feature::plain;
    if (fits && target_runs_on(t, info.cc)) return std::nullopt;
  }
  const std::string suffix = cap.need == ptx::TargetNeed::specific ? "a" : "f";
  return "this build has no " + sm + suffix + " code for " + cap.name +
         ": rebuild with CMAKE_CUDA_ARCHITECTURES=" + std::to_string(info.cc.sm()) + suffix;
}

void ProbeContext::start_measuring() {
  if (measuring_) return;
  measuring_ = true;
  if (start_hook_) start_hook_();
}

const nlohmann::json* ProbeContext::resumed_point(const nlohmann::json& axes) const {
  for (const auto& p : resumed_) {
    // A failed self-check is measured again, except a wait that timed out: it would only hang again.
    bool same = p.is_object() && (!self_check_failed(p) || wait_timed_out(p));
    for (const auto& [k, v] : axes.items()) same = same && p.contains(k) && p[k] == v;
    if (same) return &p;
  }
  return nullptr;
}

void ProbeContext::add_point(nlohmann::json point) {
  // Progress, one line per point: the axes that place it (never a line without one: the op-table
  // families place theirs by op, kind and operands, goodput by kernel), then what it measured.
  log_ << "  ";
  for (const char* axis : {"sm", "stride_bytes", "footprint_bytes", "span_bytes", "measure", "method",
                           "nodes", "bytes", "op", "kind", "operands", "kernel_name"})
    if (point.contains(axis)) {
      const nlohmann::json& v = point[axis];
      log_ << axis << "=" << (v.is_string() ? v.get<std::string>() : v.dump()) << " ";
    }
  const auto number = [&](const char* key) { return point.contains(key) && point[key].is_number(); };
  if (point.contains("skipped"))
    log_ << "skipped: " << (point["skipped"].is_string() ? point["skipped"].get<std::string>() : "");
  else if (self_check_failed(point))
    log_ << "self-check FAILED: " << point["self_check"].value("reason", std::string());
  else if (number("latency_cycles"))
    log_ << point["latency_cycles"].get<double>() << " cycles";
  else if (number("ns"))  // the launch and goodput probes' times
    log_ << point["ns"].get<double>() << " ns";
  else if (number("ops_per_clk_per_sm"))
    log_ << point["ops_per_clk_per_sm"].get<double>() << " ops/clk/SM";
  else if (number("flops_per_clk_per_sm"))
    log_ << point["flops_per_clk_per_sm"].get<double>() << " FLOP/clk/SM";
  log_ << "\n";
  series_.push_back(std::move(point));
  nlohmann::json partial = {{"series", series_}, {"extra", extra_}};
  if (checkpoint_) checkpoint_(partial);
  throw_if_interrupted();
}

void ProbeContext::replace_point(std::size_t index, nlohmann::json point) {
  if (index >= series_.size())
    throw Error("internal: point " + std::to_string(index) + " replaced but only " +
                std::to_string(series_.size()) + " were measured");
  series_[index] = std::move(point);
  nlohmann::json partial = {{"series", series_}, {"extra", extra_}};
  if (checkpoint_) checkpoint_(partial);
  throw_if_interrupted();
}

namespace {

// A sidecar's file name from a point's axes: point_label's with '.', every character but
// letters, digits, '_' and '-' made '_' ("fma_rn_f32.latency").
std::string sidecar_name(const nlohmann::json& axes) {
  std::string name = point_label(axes, ".");
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return name.empty() ? "point" : name;
}

}  // namespace

std::string point_label(const nlohmann::json& axes, const std::string& separator) {
  std::string label;
  const auto add = [&](const nlohmann::json& v) {
    label += (label.empty() ? "" : separator) + (v.is_string() ? v.get<std::string>() : v.dump());
  };
  if (axes.is_object() && axes.contains("op")) add(axes["op"]);
  if (axes.is_object())
    for (const auto& [k, v] : axes.items())
      if (k != "op") add(v);
  return label;
}

nlohmann::json ProbeContext::failed_self_check(const nlohmann::json& axes, const SelfCheckFailed& failed) {
  nlohmann::json check = {{"passed", false}, {"reason", failed.reason()}};
  if (!failed.evidence().is_null()) check["evidence"] = failed.evidence();
  if (failed.detail().is_null() || record_path_.empty()) return check;
  namespace fs = std::filesystem;
  const fs::path record(record_path_);
  const std::string folder = record.stem().string() + ".selfcheck";
  const std::string relative = folder + "/" + sidecar_name(axes) + ".json";
  nlohmann::json sidecar = {{"schema", "gpuprobe.selfcheck"},
                            {"schema_version", 1},
                            {"probe", probe_},
                            {"point", axes},
                            {"reason", failed.reason()}};
  for (const auto& [k, v] : failed.detail().items()) sidecar[k] = v;
  const fs::path dir = record.parent_path() / folder;
  std::error_code ec;
  fs::create_directories(dir, ec);
  try {
    write_json_atomically((dir / (sidecar_name(axes) + ".json")).string(), sidecar);
    check["sidecar"] = relative;
  } catch (const Error& e) {
    // The point still fails with its evidence; the record says why the sidecar is missing.
    check["sidecar_error"] = e.what();
  }
  return check;
}

void ProbeContext::note_self_check(std::size_t index, std::string label) {
  if (label.empty()) failed_.erase(index);
  else failed_[index] = std::move(label);
}

std::vector<std::string> ProbeContext::failed_self_checks() const {
  std::vector<std::string> out;
  for (const auto& [index, label] : failed_) out.push_back(label);
  return out;
}

nlohmann::json new_run_record(const DeviceInfo& info, const ProbeSpec& probe, const Params& params,
                              const RepeatPolicy& repeat) {
  return {{"schema", kRunSchema},
          {"schema_version", kRunSchemaVersion},
          {"gpuprobe_version", GPUPROBE_VERSION},
          {"created_utc", utc_timestamp()},
          {"probe", probe.id},
          {"params", params.to_json()},
          {"repeat_policy",
           {{"min_repeats", repeat.min_repeats},
            {"max_repeats", repeat.max_repeats},
            {"target_rel_ci", repeat.target_rel_ci},
            {"max_seconds_per_point", repeat.max_seconds}}},
          {"device", to_json(info)},
          {"status", "running"},
          {"series", nlohmann::json::array()}};
}

nlohmann::json run_probe(Device& device, const ProbeSpec& probe, const Params& params,
                         const RepeatPolicy& repeat, const std::string& out_path,
                         std::ostream& log, const nlohmann::json& resume_from) {
  nlohmann::json record = new_run_record(device.info(), probe, params, repeat);
  nlohmann::json kept = nlohmann::json::array();
  if (resume_from.is_object()) {
    record["created_utc"] = resume_from.value("created_utc", record["created_utc"]);
    record["resumed_utc"] = utc_timestamp();
    kept = resume_from.value("series", nlohmann::json::array());
  }
  // An existing file is replaced only by a record that has points (or when none was there).
  std::error_code ec;
  const bool existed = !out_path.empty() && std::filesystem::exists(out_path, ec);
  auto write = [&] {
    if (out_path.empty() || (existed && record["series"].empty())) return;
    write_json_atomically(out_path, record);
  };
  auto save = [&](const nlohmann::json& partial) {
    record["series"] = partial.at("series");
    for (const auto& [k, v] : partial.at("extra").items()) record[k] = v;
    write();
  };
  if (auto reason = probe_unavailable_reason(probe, device.info(), built_cuda_targets())) {
    record["status"] = "skipped";
    record["skip_reason"] = *reason;
    write();
    log << "gpuprobe: " << probe.id << " skipped: " << *reason << "\n";
    return record;
  }
  ProbeContext ctx(device, params, repeat, log, save);
  ctx.set_resumed_points(kept);
  ctx.set_record_path(out_path, probe.id);
  // Once the driver has planned its points: the driver's view before anything runs, then a
  // warm-up so that no point is measured while an idle GPU is still ramping its clock up.
  ctx.set_start_hook([&] {
    record["telemetry"]["before"] = device.telemetry();
    record["warm_up"] = device.warm_up(kWarmUpMaxSeconds);
    write();
    throw_if_interrupted();
  });
  try {
    probe.run(ctx);
    record["telemetry"]["after"] = device.telemetry();
    save({{"series", ctx.series()}, {"extra", ctx.extra()}});
    if (const std::vector<std::string> failed = ctx.failed_self_checks(); !failed.empty()) {
      // Every point is measured; those whose self-check failed hold their evidence instead.
      std::string named;
      for (std::size_t i = 0; i < failed.size() && i < kNamedFailures; ++i)
        named += (i ? ", " : "") + failed[i];
      if (failed.size() > kNamedFailures)
        named += " and " + std::to_string(failed.size() - kNamedFailures) + " more";
      const std::string error = "self-check failed at " + std::to_string(failed.size()) + " of " +
                                std::to_string(ctx.series().size()) + " points: " + named +
                                " (each point holds its evidence; the others are measured)";
      record["status"] = "failed";
      record["error"] = error;
      write();
      throw SelfCheckFailures(error);
    }
    record["status"] = "ok";
    write();
  } catch (const SelfCheckFailures&) {
    throw;  // the record is complete and says so
  } catch (const OpsUnavailable& e) {
    // The backend lacks this family: nothing was launched, like a missing capability.
    record["status"] = "skipped";
    record["skip_reason"] = e.what();
    write();
    log << "gpuprobe: " << probe.id << " skipped: " << e.what() << "\n";
    return record;
  } catch (const std::exception& e) {
    if (!ctx.measuring()) throw;  // planning failed (a parameter): nothing ran, nothing written
    try {
      record["telemetry"]["after"] = device.telemetry();
    } catch (const std::exception& t) {
      // A lost device context fails every later call: the record still says what happened.
      record["telemetry"]["after"] = {{"available", false}, {"reason", t.what()}};
    }
    record["series"] = ctx.series();
    for (const auto& [k, v] : ctx.extra().items()) record[k] = v;
    const auto* interrupted = dynamic_cast<const Interrupted*>(&e);
    record["status"] = interrupted ? "interrupted" : "failed";
    if (!interrupted) record["error"] = e.what();
    write();
    throw;
  }
  return record;
}

}  // namespace gpuprobe
