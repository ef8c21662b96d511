#include <catch2/catch.hpp>

#include <string>

#include "harness/arch.hpp"
#include "harness/error.hpp"

namespace GPUPROBE_TEST_FILE {

using gpuprobe::ComputeCapability;
using gpuprobe::CudaTarget;
using gpuprobe::missing_code_message;
using gpuprobe::parse_cuda_target;
using gpuprobe::parse_cuda_targets;
using gpuprobe::target_runs_on;

namespace {
bool runs(const char* target, int major, int minor) {
  return target_runs_on(parse_cuda_target(target), ComputeCapability{major, minor});
}
}  // namespace

TEST_CASE("parse_cuda_target reads cubin, PTX and feature targets", "[arch]") {
  const CudaTarget a = parse_cuda_target("sm_100a");
  CHECK(a.code == CudaTarget::Code::cubin);
  CHECK(a.sm == 100);
  CHECK(a.major() == 10);
  CHECK(a.minor() == 0);
  CHECK(a.feature == CudaTarget::Feature::specific);
  CHECK(a.text() == "sm_100a");

  const CudaTarget f = parse_cuda_target("sm_121f");
  CHECK(f.major() == 12);
  CHECK(f.minor() == 1);
  CHECK(f.feature == CudaTarget::Feature::family);

  const CudaTarget p = parse_cuda_target("compute_120");
  CHECK(p.code == CudaTarget::Code::ptx);
  CHECK(p.sm == 120);
  CHECK(p.text() == "compute_120");

  const CudaTarget t = parse_cuda_target("sm_75");
  CHECK(t.major() == 7);
  CHECK(t.minor() == 5);
}

TEST_CASE("parse_cuda_target rejects malformed entries", "[arch]") {
  for (const char* bad : {"", "sm_", "sm_9", "sm_90x", "arch_90", "compute_", "sm_a", "90"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_cuda_target(bad), gpuprobe::Error);
  }
}

TEST_CASE("parse_cuda_targets splits the build list", "[arch]") {
  const auto targets = parse_cuda_targets("sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120,compute_120");
  REQUIRE(targets.size() == 8);
  CHECK(targets.front().text() == "sm_75");
  CHECK(targets.back().text() == "compute_120");
  CHECK(parse_cuda_targets("").empty());
  CHECK(parse_cuda_targets("sm_90a, sm_100f").size() == 2);
}

TEST_CASE("target_runs_on follows the CUDA compatibility rules", "[arch]") {
  struct Case {
    const char* target;
    int major;
    int minor;
    bool runs;
    const char* why;
  };
  const Case cases[] = {
      {"sm_90", 9, 0, true, "H100 runs sm_90"},
      {"sm_80", 8, 6, true, "same major, higher minor (A40 runs sm_80)"},
      {"sm_86", 8, 0, false, "lower minor does not run newer-minor code"},
      {"sm_80", 9, 0, false, "a cubin never crosses majors"},
      {"sm_89", 9, 0, false, "sm_89 cubin does not run on Hopper"},
      {"sm_100", 10, 3, true, "B300 (10.3) runs sm_100"},
      {"sm_100a", 10, 3, false, "B300 (10.3) does not run sm_100a"},
      {"sm_100a", 10, 0, true, "B200 runs sm_100a"},
      {"sm_100f", 10, 3, true, "sm_100f runs on 10.3"},
      {"sm_100f", 10, 0, true, "sm_100f runs on 10.0"},
      {"sm_103f", 10, 0, false, "sm_103f does not run on 10.0"},
      {"sm_100f", 11, 0, false, "family does not cross majors"},
      {"sm_90a", 9, 0, true, "H100 runs sm_90a"},
      {"sm_90a", 10, 0, false, "sm_90a runs nowhere else"},
      {"sm_120a", 12, 1, false, "GB10 (12.1) does not run sm_120a"},
      {"sm_120", 12, 1, true, "GB10 (12.1) runs sm_120"},
      {"compute_120", 12, 1, true, "GB10 (12.1) JITs compute_120"},
      {"sm_120f", 12, 1, true, "sm_120f runs on 12.1"},
      {"compute_120", 13, 0, true, "an unknown 13.0 GPU JITs compute_120"},
      {"sm_120", 13, 0, false, "but it runs no sm_120 cubin"},
      {"compute_120", 10, 0, false, "PTX does not JIT for an older GPU"},
      {"compute_80", 9, 0, true, "compute_80 JITs on Hopper"},
      {"compute_90a", 9, 0, true, "compute_90a PTX JITs for exactly 9.0"},
      {"compute_90a", 10, 0, false, "compute_90a PTX JITs nowhere else"},
      {"sm_75", 7, 5, true, "T4 runs sm_75"},
      {"sm_75", 8, 0, false, "A100 does not run sm_75 cubins"},
  };
  for (const Case& c : cases) {
    INFO(c.target << " on " << c.major << "." << c.minor << ": " << c.why);
    CHECK(runs(c.target, c.major, c.minor) == c.runs);
  }
}

TEST_CASE("missing_code_message names the device's SM", "[arch]") {
  const std::string defaults = "sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120,compute_120";
  CHECK_FALSE(missing_code_message(defaults, ComputeCapability{9, 0}).has_value());
  CHECK_FALSE(missing_code_message(defaults, ComputeCapability{10, 3}).has_value());
  CHECK_FALSE(missing_code_message(defaults, ComputeCapability{12, 1}).has_value());
  CHECK_FALSE(missing_code_message(defaults, ComputeCapability{13, 0}).has_value());
  CHECK_FALSE(missing_code_message(defaults, ComputeCapability{8, 7}).has_value());

  const auto jetson_thor = missing_code_message(defaults, ComputeCapability{11, 0});
  REQUIRE(jetson_thor.has_value());
  CHECK(*jetson_thor ==
        "no code for sm_110 in this build: rebuild with CMAKE_CUDA_ARCHITECTURES=110");

  const auto b300 = missing_code_message("sm_90,sm_100a", ComputeCapability{10, 3});
  REQUIRE(b300.has_value());
  CHECK(*b300 == "no code for sm_103 in this build: rebuild with CMAKE_CUDA_ARCHITECTURES=103");

  const auto t4 = missing_code_message("sm_90,compute_90", ComputeCapability{7, 5});
  REQUIRE(t4.has_value());
  CHECK(*t4 == "no code for sm_75 in this build: rebuild with CMAKE_CUDA_ARCHITECTURES=75");

  const auto none = missing_code_message("", ComputeCapability{9, 0});
  REQUIRE(none.has_value());
  CHECK(*none == "no code for sm_90 in this build: rebuild with CMAKE_CUDA_ARCHITECTURES=90");
}

TEST_CASE("built_cuda_targets matches the build configuration", "[arch][flavour]") {
  const auto targets = parse_cuda_targets(gpuprobe::built_cuda_targets());
#if GPUPROBE_WITH_CUDA
  CHECK_FALSE(targets.empty());
#else
  CHECK(targets.empty());
#endif
}

}  // namespace GPUPROBE_TEST_FILE
