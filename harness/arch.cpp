#include "harness/arch.hpp"

#include <charconv>

#include "harness/error.hpp"

namespace gpuprobe {

std::string CudaTarget::text() const {
  std::string out = code == Code::cubin ? "sm_" : "compute_";
  out += std::to_string(sm);
  if (feature == Feature::family) out += 'f';
  if (feature == Feature::specific) out += 'a';
  return out;
}

CudaTarget parse_cuda_target(std::string_view text) {
  CudaTarget target;
  std::string_view rest = text;
  if (rest.starts_with("sm_")) {
    target.code = CudaTarget::Code::cubin;
    rest.remove_prefix(3);
  } else if (rest.starts_with("compute_")) {
    target.code = CudaTarget::Code::ptx;
    rest.remove_prefix(8);
  } else {
    throw Error("bad CUDA target '" + std::string(text) + "': expected sm_XY or compute_XY");
  }
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    target.feature =
        rest.back() == 'a' ? CudaTarget::Feature::specific : CudaTarget::Feature::family;
    rest.remove_suffix(1);
  }
  const char* end = rest.data() + rest.size();
  auto [ptr, ec] = std::from_chars(rest.data(), end, target.sm);
  if (rest.size() < 2 || ec != std::errc() || ptr != end || target.sm < 10) {
    throw Error("bad CUDA target '" + std::string(text) +
                "': expected a two- or three-digit SM number, e.g. sm_90 or sm_100a");
  }
  return target;
}

std::vector<CudaTarget> parse_cuda_targets(std::string_view list) {
  std::vector<CudaTarget> targets;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) targets.push_back(parse_cuda_target(item));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return targets;
}

std::string_view built_cuda_targets() {
#if defined(GPUPROBE_CUDA_TARGETS)
  return GPUPROBE_CUDA_TARGETS;
#else
  return "";
#endif
}

bool target_runs_on(const CudaTarget& target, ComputeCapability cc) {
  const bool same_cc = cc.major == target.major() && cc.minor == target.minor();
  const bool same_family = cc.major == target.major() && cc.minor >= target.minor();
  const bool at_least = cc.major > target.major() || same_family;
  switch (target.feature) {
    case CudaTarget::Feature::specific: return same_cc;
    case CudaTarget::Feature::family: return same_family;
    case CudaTarget::Feature::plain:
      return target.code == CudaTarget::Code::cubin ? same_family : at_least;
  }
  return false;
}

std::string no_code_message(ComputeCapability cc) {
  const std::string xy = std::to_string(cc.major * 10 + cc.minor);
  return "no code for sm_" + xy + " in this build: rebuild with CMAKE_CUDA_ARCHITECTURES=" + xy;
}

std::optional<std::string> missing_code_message(const std::vector<CudaTarget>& targets,
                                                ComputeCapability cc) {
  for (const CudaTarget& target : targets) {
    if (target_runs_on(target, cc)) return std::nullopt;
  }
  return no_code_message(cc);
}

std::optional<std::string> missing_code_message(std::string_view targets, ComputeCapability cc) {
  return missing_code_message(parse_cuda_targets(targets), cc);
}

}  // namespace gpuprobe
