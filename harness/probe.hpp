// The probe registry. A probe is one host driver (probes/<family>/<name>.cpp) that registers
// itself with one line: `const ProbeRegistration reg(my_probe);`. Its kernels live in
// probes/<family>/*.cu behind the family's operations (device.ops<FamilyOps>()).
// The driver's only channel is ProbeContext: parameters and the device in, points out.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/device.hpp"
#include "harness/params.hpp"
#include "harness/repeat.hpp"
#include "ptx/capability.hpp"

namespace gpuprobe {

class SelfCheckFailed;  // harness/self_check.hpp

// A point's axes' values, its op first ("fma_rn_f32 latency" with separator " "): how a failed
// point is named, and its sidecar's file.
std::string point_label(const nlohmann::json& axes, const std::string& separator);

class ProbeContext {
 public:
  ProbeContext(Device& device, Params params, RepeatPolicy repeat, std::ostream& log,
               std::function<void(const nlohmann::json&)> checkpoint)
      : device_(device), params_(std::move(params)), repeat_(repeat), log_(log),
        checkpoint_(std::move(checkpoint)) {}
  Device& device() { return device_; }
  // The family's operations on this device (harness/ops.hpp); a backend without them throws
  // OpsUnavailable, and run_probe records the probe as skipped with that reason.
  template <class Ops>
  Ops& ops() {
    return device_.ops<Ops>();
  }
  const Params& params() const { return params_; }
  const RepeatPolicy& repeat() const { return repeat_; }
  std::ostream& log() { return log_; }
  // Called once before the first measurement (measure_points does): everything before it is
  // planning and parameter checking, and a failure there writes nothing. Runs the start hook
  // (run_probe's: telemetry, warm-up) the first time.
  void start_measuring();
  bool measuring() const { return measuring_; }
  void set_start_hook(std::function<void()> hook) { start_hook_ = std::move(hook); }
  // The CLI's test hooks only (cli/run_commands.hpp): called with each point's axes just before
  // it is measured (harness/points.cpp), it may throw what the measurement could.
  void set_point_hook(std::function<void(const nlohmann::json& axes)> hook) { point_hook_ = std::move(hook); }
  const std::function<void(const nlohmann::json&)>& point_hook() const { return point_hook_; }
  // Points of an interrupted earlier run, to be kept rather than measured again (--resume); one
  // that failed its self-check is measured again, unless a wait timed out there (it would hang
  // again: harness/wait_timeout.hpp).
  void set_resumed_points(nlohmann::json points) { resumed_ = std::move(points); }
  // The kept point whose axes are all equal to `axes`, or nullptr.
  const nlohmann::json* resumed_point(const nlohmann::json& axes) const;
  // Append a measured point to the series and save the record (write-as-you-go). Then, if a
  // SIGINT or SIGTERM came, throws Interrupted (harness/interrupt.hpp): the point is kept.
  void add_point(nlohmann::json point);
  // Replace point `index` (a re-measurement) and save the record.
  void replace_point(std::size_t index, nlohmann::json point);
  // Extra top-level facts for the record (self-check, clocks...).
  nlohmann::json& extra() { return extra_; }
  const nlohmann::json& series() const { return series_; }

  // Failed self-checks (harness/self_check.hpp). Where the sidecars go: the record's path (its
  // folder and stem; empty: none is written) and the probe's id, which each sidecar names.
  void set_record_path(std::string path, std::string probe) {
    record_path_ = std::move(path);
    probe_ = std::move(probe);
  }
  // The `self_check` of a point placed by `axes` whose check threw `failed`: passed false, the
  // reason, the evidence and, when it has a detail and the record a path, the sidecar it writes
  // (atomically) at <record stem>.selfcheck/<the axes' values>.json, named relative to the
  // record's folder.
  nlohmann::json failed_self_check(const nlohmann::json& axes, const SelfCheckFailed& failed);
  // Point `index` of the series failed its self-check (`label`: its axes' values), or passed
  // (an empty label: a re-measurement that passed).
  void note_self_check(std::size_t index, std::string label);
  // The labels of the points whose self-check failed, in the series' order.
  std::vector<std::string> failed_self_checks() const;

 private:
  Device& device_;
  Params params_;
  RepeatPolicy repeat_;
  std::ostream& log_;
  std::function<void(const nlohmann::json&)> checkpoint_;
  nlohmann::json series_ = nlohmann::json::array();
  nlohmann::json extra_ = nlohmann::json::object();
  nlohmann::json resumed_ = nlohmann::json::array();
  std::function<void()> start_hook_;
  std::function<void(const nlohmann::json&)> point_hook_;
  bool measuring_ = false;
  std::string record_path_, probe_;
  std::map<std::size_t, std::string> failed_;  // series index -> label
};

struct ProbeSpec {
  std::string id;        // hierarchical: "memory/chase"
  std::string summary;   // one line for `gpuprobe list`
  std::vector<ParamSpec> params;
  std::function<void(ProbeContext&)> run;
  // The PTX capability the probe's kernels need beyond the generic sm_70 set (wgmma, tcgen05...);
  // a device or build without it gets the probe skipped with the reason, never launched.
  std::optional<ptx::Cap> needs;
  // Rules that tie parameters to each other or to the run's --max-seconds-per-point, checked with
  // the rest before any device opens (`probe`); throws a one-line gpuprobe::Error. Empty: none.
  std::function<void(const Params&, double max_seconds_per_point)> check;
};

// Why `probe` cannot run on this device with this build, or nullopt if it can: the device lacks
// the capability, or (real GPUs) no arch-specific code object of this build runs on it.
std::optional<std::string> probe_unavailable_reason(const ProbeSpec& probe, const DeviceInfo& info,
                                                    std::string_view built_targets);

// Every registered probe, sorted by id.
const std::vector<ProbeSpec>& probe_registry();

// One line in a probe's driver registers it (a namespace-scope constant). The probe objects are
// linked whole into every executable, so the registration always runs (CMakeLists.txt).
struct ProbeRegistration {
  explicit ProbeRegistration(ProbeSpec (*make)());
};
// Throws a one-line gpuprobe::Error naming the known probes.
const ProbeSpec& find_probe(const std::string& id);

// A run record of `probe` with `params` on `info` before anything is measured: status "running",
// no points (what run_probe starts from, and what run-all writes for a probe that wrote nothing).
nlohmann::json new_run_record(const DeviceInfo& info, const ProbeSpec& probe, const Params& params,
                              const RepeatPolicy& repeat);

// The error of a probe that measured every point but some failed their self-check.
class SelfCheckFailures : public Error {
 public:
  using Error::Error;
};

// Runs one probe and returns its run record (schema gpuprobe.run). If out_path is not empty the
// record is written there after every point and at the end. A failing probe gives status
// "failed" with the error and keeps its points; the error is rethrown after the record is saved.
// A failed self-check fails only its point (harness/self_check.hpp): the probe measures the
// others, then ends as failed with SelfCheckFailures, whose one line names the failed points. A
// SIGINT or SIGTERM gives status "interrupted" and rethrows Interrupted. A probe the device cannot
// run gives status "skipped" with skip_reason, and nothing is launched. An error while the driver
// plans (a parameter) writes nothing, and a file already at out_path is replaced only by a record
// with at least one point: until then it stays as it was.
// `resume_from` (an earlier record of the same probe and parameters, or null): its points are kept
// and only the missing ones measured.
nlohmann::json run_probe(Device& device, const ProbeSpec& probe, const Params& params,
                         const RepeatPolicy& repeat, const std::string& out_path,
                         std::ostream& log, const nlohmann::json& resume_from = nullptr);

}  // namespace gpuprobe
