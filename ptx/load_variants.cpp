#include "ptx/load_variants.hpp"

namespace gpuprobe::ptx {

std::optional<LoadVariant> parse_load_variant(std::string_view name) {
  for (const auto& v : kLoadVariants)
    if (v.name == name) return v.variant;
  return std::nullopt;
}

}  // namespace gpuprobe::ptx
