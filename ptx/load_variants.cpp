#include "ptx/load_variants.hpp"

namespace gpuprobe::ptx {

std::optional<LoadVariant> parse_load_variant(std::string_view name) {
  for (const auto& v : kLoadVariants)
    if (v.name == name) return v.variant;
  return std::nullopt;
}

std::string load_variant_names() {
  std::string names;
  for (const auto& v : kLoadVariants) names += (names.empty() ? "" : ", ") + std::string(v.name);
  return names;
}

std::string_view to_string(CacheLevel level) { return level == CacheLevel::L1 ? "L1" : "L2"; }

}  // namespace gpuprobe::ptx
