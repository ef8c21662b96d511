#include "harness/device.hpp"

#include <charconv>
#include <string>

#include "harness/cuda_device.hpp"
#include "harness/error.hpp"
#include "harness/sim/sim_device.hpp"

namespace gpuprobe {

std::string_view to_string(CacheOp op) {
  switch (op) {
    case CacheOp::ca: return "ca";
    case CacheOp::cg: return "cg";
    case CacheOp::cs: return "cs";
    case CacheOp::lu: return "lu";
    case CacheOp::cv: return "cv";
    case CacheOp::nc: return "nc";
  }
  return "?";
}

std::optional<CacheOp> parse_cache_op(std::string_view text) {
  for (CacheOp op : {CacheOp::ca, CacheOp::cg, CacheOp::cs, CacheOp::lu, CacheOp::cv, CacheOp::nc})
    if (text == to_string(op)) return op;
  return std::nullopt;
}

std::unique_ptr<Device> open_device(std::string_view spec) {
  if (spec.starts_with("sim:")) {
    const auto& preset = sim::find_preset(spec.substr(4));
    return sim::make_sim_device(preset);
  }
  if (spec == "cuda") return make_cuda_device(0);
  if (spec.starts_with("cuda:")) {
    const auto digits = spec.substr(5);
    int ordinal = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
    if (ec != std::errc{} || end != digits.data() + digits.size() || ordinal < 0)
      throw Error("bad device '" + std::string(spec) + "': expected cuda:N with N >= 0");
    return make_cuda_device(ordinal);
  }
  throw Error("unknown device '" + std::string(spec) +
              "': use cuda, cuda:N or sim:<preset> (e.g. sim:h100)");
}

}  // namespace gpuprobe
