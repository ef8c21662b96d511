// The memory-latency probe family: one ProbeSpec per file in probes/memory/*.cpp.
#pragma once
#include <vector>

#include "harness/probe.hpp"

namespace gpuprobe::probes {

ProbeSpec chase_probe();          // memory/chase         probes/memory/chase.cpp
ProbeSpec chase_shared_probe();   // memory/chase_shared  probes/memory/chase_shared.cpp
ProbeSpec stride_probe();         // memory/stride        probes/memory/stride.cpp
ProbeSpec tlb_probe();            // memory/tlb           probes/memory/tlb.cpp

inline std::vector<ProbeSpec> memory_probes() {
  return {chase_probe(), chase_shared_probe(), stride_probe(), tlb_probe()};
}

}  // namespace gpuprobe::probes
