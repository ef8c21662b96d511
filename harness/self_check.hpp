// A failed self-check, for every family: the one exception a probe's check throws when the device
// computed something wrong ("self-check failed: ..."). It fails the point it was measuring, not
// the probe: measure_points (harness/points.hpp) writes that point as
//   {<its axes>, "self_check": {"passed": false, "reason": ..., "evidence": ..., "sidecar": ...}}
// with no timing, and goes on with the next point; run_probe (harness/probe.hpp) then ends the
// probe as failed, with one line naming the failed points. Every other error keeps its behaviour
// (the probe ends there). The full evidence (got and want, a mismatch map, a diagnosis) goes into
// a sidecar file next to the record (docs/SCHEMA.md, "Self-check sidecars").
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/error.hpp"

namespace gpuprobe {

class SelfCheckFailed : public Error {
 public:
  // what() is "self-check failed: <reason>". `evidence`: a few facts for the point (the first
  // wrong value, the diagnosis), null for none; `detail`: what the sidecar holds (an object), null
  // for no sidecar.
  explicit SelfCheckFailed(const std::string& reason, nlohmann::json evidence = nullptr,
                           nlohmann::json detail = nullptr)
      : Error("self-check failed: " + reason),
        data_(std::make_shared<const Data>(Data{reason, std::move(evidence), std::move(detail)})) {}
  const std::string& reason() const { return data_->reason; }
  const nlohmann::json& evidence() const { return data_->evidence; }
  const nlohmann::json& detail() const { return data_->detail; }

 private:
  struct Data {
    std::string reason;
    nlohmann::json evidence, detail;
  };
  std::shared_ptr<const Data> data_;  // shared: an exception is copied without throwing
};

// Whether a point of a run record failed its self-check (its self_check an object with passed
// false): such a point holds no measurement, and the analysis leaves it out.
inline bool self_check_failed(const nlohmann::json& point) {
  if (!point.is_object() || !point.contains("self_check")) return false;
  const nlohmann::json& c = point["self_check"];
  return c.is_object() && c.contains("passed") && c["passed"] == false;
}

}  // namespace gpuprobe
