// Tests that need a GPU run only where one is; elsewhere they report Skipped, never Passed: they
// print the marker that tests/CMakeLists.txt gives every Catch2 test as its ctest
// SKIP_REGULAR_EXPRESSION, and return before any check. So a test that skips checks nothing; what
// must hold without a GPU (a family's kernels are linked exactly when the build has CUDA) is a
// test case of its own.
#pragma once
#include <filesystem>
#include <iostream>

namespace gpuprobe::testing {

inline constexpr const char* kSkippedMarker = "GPUPROBE-TEST-SKIPPED";

// True where the build has CUDA and the machine a GPU; else prints why, with the marker.
inline bool gpu_or_skip() {
  if (!GPUPROBE_WITH_CUDA) {
    std::cout << kSkippedMarker << ": the build has no CUDA (GPUPROBE_WITH_CUDA=OFF)" << std::endl;
    return false;
  }
  if (!std::filesystem::exists("/dev/nvidia0")) {
    std::cout << kSkippedMarker << ": no GPU on this machine (/dev/nvidia0 absent)" << std::endl;
    return false;
  }
  return true;
}

}  // namespace gpuprobe::testing
