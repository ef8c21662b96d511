#include "harness/device.hpp"

#include <charconv>
#include <string>

#include "harness/cuda_device.hpp"
#include "harness/error.hpp"
#include "harness/kernel_runner.hpp"
#include "harness/ops.hpp"
#include "harness/sim/sim_device.hpp"

namespace gpuprobe {

std::vector<OpsEntry>& ops_registry() {
  static std::vector<OpsEntry> entries;
  return entries;
}

std::unique_ptr<FamilyOps> Device::make_ops(std::type_index type, std::string_view family) {
  for (const OpsEntry& e : ops_registry())
    if (e.type == type && e.backend == backend()) return e.make(*this);
  throw OpsUnavailable("the " + std::string(backend()) + " backend has no '" +
                       std::string(family) + "' operations in this build");
}

KernelRunner& kernel_runner(Device& device) {
  if (KernelRunner* k = device.kernels()) return *k;
  throw OpsUnavailable("the " + std::string(device.backend()) + " backend runs no kernels");
}

std::unique_ptr<Device> open_device(std::string_view spec) {
  if (spec.starts_with("sim:")) {
    return sim::make_sim_device(sim::preset_from_spec(spec.substr(4)));
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
              "': use cuda, cuda:N or sim:<preset>[,slowdown=F] (e.g. sim:h100)");
}

}  // namespace gpuprobe
