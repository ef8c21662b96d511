// The one error type of gpuprobe: a one-line message meant for the user. Only main() turns it
// into an exit code; everything else throws and lets the runner isolate the failure.
#pragma once
#include <stdexcept>
#include <string>

namespace gpuprobe {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The device cannot be used at all (no driver, no GPU, no code for its architecture).
class DeviceUnavailable : public Error {
 public:
  using Error::Error;
};

// The device's context is lost to a sticky error (an illegal address, a failed or timed-out
// launch, an uncorrectable ECC error...): every later CUDA call of this process fails. Only a new
// process, with a new context, can measure again (`probe` exits kExitDeviceLost; run-all retries).
class DeviceLost : public Error {
 public:
  using Error::Error;
};

// This device cannot measure one point: it lacks the instruction, the simulator has no model of
// it, a library it needs is absent. The probe records the point as skipped with the reason and
// measures the others. The one skip channel of every family: throw it with skip(reason).
// (OpsUnavailable, harness/ops.hpp, is the whole probe's: the device has no such family at all.)
class Skip : public Error {
 public:
  using Error::Error;
};
[[noreturn]] inline void skip(const std::string& reason) { throw Skip(reason); }

}  // namespace gpuprobe
