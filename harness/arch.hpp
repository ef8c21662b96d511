// Which of the CUDA code objects in this build can run on a GPU (README.md "Targets").
// Host-only: the runtime uses it to name the code a device lacks before launching anything.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/device.hpp"

namespace gpuprobe {

// One entry of GPUPROBE_CUDA_TARGETS: "sm_90" (cubin), "sm_90a", "sm_100f", "compute_120" (PTX).
struct CudaTarget {
  enum class Code { cubin, ptx };
  enum class Feature { plain, family, specific };  // sm_XY, sm_XYf, sm_XYa
  Code code = Code::cubin;
  int sm = 0;  // 90 for sm_90, 100 for sm_100f, 121 for sm_121a
  Feature feature = Feature::plain;

  int major() const { return sm / 10; }
  int minor() const { return sm % 10; }
  std::string text() const;  // back to "sm_100f" / "compute_120"
};

// Throws gpuprobe::Error on an entry that is not sm_XY[a|f] or compute_XY[a|f].
CudaTarget parse_cuda_target(std::string_view text);
// Comma-separated list; empty text gives an empty list.
std::vector<CudaTarget> parse_cuda_targets(std::string_view list);

// The targets this binary was built with: GPUPROBE_CUDA_TARGETS, or "" without CUDA.
std::string_view built_cuda_targets();

// Rules: an sm_XY cubin runs on major X with minor >= Y; sm_XYa only on exactly X.Y; sm_XYf on
// major X with minor >= Y; compute_XY PTX is JIT-compiled for any cc >= X.Y; compute_XYa PTX only
// for exactly X.Y, compute_XYf for the family like the cubin.
bool target_runs_on(const CudaTarget& target, ComputeCapability cc);

// nullopt when some target runs on cc; otherwise exactly
// "no code for sm_XY in this build: rebuild with CMAKE_CUDA_ARCHITECTURES=XY" (XY = cc).
std::string no_code_message(ComputeCapability cc);
std::optional<std::string> missing_code_message(const std::vector<CudaTarget>& targets,
                                                ComputeCapability cc);
std::optional<std::string> missing_code_message(std::string_view targets, ComputeCapability cc);

}  // namespace gpuprobe
