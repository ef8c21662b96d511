// A device-side wait that gave up (harness/cuda/bounded_wait.cuh), as the host reports it: the
// kernel's record decoded into a one-line reason and the point's evidence. Plain C++ (the decoding
// is tested without a GPU).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/cuda/bounded_wait.cuh"
#include "harness/error.hpp"

namespace gpuprobe {

// The record as evidence: {"wait_timeout": {kind, block, thread, sm, barrier, parity, iteration,
// expected_bytes, observed (hex), waited_ns}}; `kernel` added when known (not empty).
nlohmann::json wait_timeout_evidence(const cuda::WaitTimeout& record, const std::string& kernel);

// "a device-side wait timed out after 1.00 s: mbarrier try_wait.parity at shared 0x400 parity 1,
// block (3,0,0) thread 0 on SM 12, iteration 17, expecting 4096 bytes, state 0x..."
std::string describe_wait_timeout(const cuda::WaitTimeout& record);

// The context is lost (the kernel trapped), so the probe ends here, like any DeviceLost; the
// point it was measuring fails with the evidence (harness/points.cpp), and a new process
// continues after it without measuring it again (ProbeContext::resumed_point).
class WaitTimedOut : public DeviceLost {
 public:
  WaitTimedOut(const std::string& message, std::string reason, nlohmann::json evidence)
      : DeviceLost(message), reason_(std::move(reason)), evidence_(std::move(evidence)) {}
  const std::string& reason() const { return reason_; }
  const nlohmann::json& evidence() const { return evidence_; }

 private:
  std::string reason_;
  nlohmann::json evidence_;
};

// A record as a kernel that gave up a TMA wait writes it (block 7, SM 12, the mbarrier at shared
// 0x4a0, parity 1, iteration 17, 4096 bytes expected, 1.000004096 s): what the CLI's test hook
// GPUPROBE_TEST_WAIT_TIMEOUT plants, and what the tests read back.
cuda::WaitTimeout example_wait_timeout();

// Whether a run record's point failed because a wait timed out (its self_check evidence holds a
// wait_timeout).
bool wait_timed_out(const nlohmann::json& point);

}  // namespace gpuprobe
