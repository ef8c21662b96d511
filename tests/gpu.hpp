// Tests that need a GPU run only where one is; elsewhere they report Skipped, never Passed: they
// print the marker that tests/CMakeLists.txt gives every Catch2 test as its ctest
// SKIP_REGULAR_EXPRESSION, and return before any check. So a test that skips checks nothing; what
// must hold without a GPU (a family's kernels are linked exactly when the build has CUDA) is a
// test case of its own.
#pragma once
#include <filesystem>
#include <iostream>
#include <string>

#include "harness/cuda_device.hpp"

namespace gpuprobe::testing {

inline constexpr const char* kSkippedMarker = "GPUPROBE-TEST-SKIPPED";

// True where the build has CUDA and the machine a GPU; else prints why, with the marker.
inline bool gpu_or_skip() {
  if (!built_with_cuda()) {
    std::cout << kSkippedMarker << ": the build has no CUDA (GPUPROBE_WITH_CUDA=OFF)" << std::endl;
    return false;
  }
  if (!std::filesystem::exists("/dev/nvidia0")) {
    std::cout << kSkippedMarker << ": no GPU on this machine (/dev/nvidia0 absent)" << std::endl;
    return false;
  }
  return true;
}

// A file this build made, named from the test executable's folder (build/tests/), so that no test
// file compiles differently in two build folders (tests/CMakeLists.txt: unity batches through
// ccache): build_file("../gpuprobe"), build_file("libgpuprobe_fake_nvml_r535.so").
inline std::string build_file(const std::string& relative) {
  static const std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  return (dir / relative).lexically_normal().string();
}

}  // namespace gpuprobe::testing

// The gpuprobe executable under test.
#define GPUPROBE_EXE (::gpuprobe::testing::build_file("../gpuprobe"))
