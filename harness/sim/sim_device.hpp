// The simulated device: walks the chains the harness built through a model of the machine
// (sectored set-associative caches, near/far L2, TLB levels, DRAM, seeded noise).
#pragma once
#include <memory>

#include "harness/device.hpp"
#include "harness/sim/preset.hpp"

namespace gpuprobe::sim {

std::unique_ptr<Device> make_sim_device(const Preset& preset, uint64_t seed = 1);

}  // namespace gpuprobe::sim
