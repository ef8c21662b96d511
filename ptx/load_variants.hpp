// Host view of the load-variant table (ptx/load_variants.def): the enum, the names the CLI and
// the analysis use, the first cache level each variant can hit, and the oldest SM that takes it.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpuprobe::ptx {

enum class LoadVariant {
#define GPUPROBE_LOAD_VARIANT(id, name, ptx_form, first, min_sm, sass75, sass80) id,
#include "ptx/load_variants.def"
#undef GPUPROBE_LOAD_VARIANT
};

enum class CacheLevel { L1, L2 };

struct LoadVariantInfo {
  LoadVariant variant;
  std::string_view id;      // the C++ identifier: kernel gpuprobe_chase_global_<id>
  std::string_view name;
  std::string_view ptx;
  CacheLevel first_level;   // the nearest level a chase with this load can hit
  int min_sm;
};

inline constexpr LoadVariantInfo kLoadVariants[] = {
#define GPUPROBE_LOAD_VARIANT(id, name, ptx_form, first, min_sm, sass75, sass80) \
  {LoadVariant::id, #id, name, ptx_form, CacheLevel::first, min_sm},
#include "ptx/load_variants.def"
#undef GPUPROBE_LOAD_VARIANT
};

constexpr const LoadVariantInfo& info(LoadVariant v) {
  return kLoadVariants[static_cast<std::size_t>(v)];
}
inline std::string_view to_string(LoadVariant v) { return info(v).name; }
std::optional<LoadVariant> parse_load_variant(std::string_view name);

}  // namespace gpuprobe::ptx
