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

}  // namespace gpuprobe
