// A .def op table's enum and its info array are generated from the same rows; in_enum_order
// checks at compile time that the array lists the enum's values in order (table[i].op == i), so
// that an op indexes its own row: static_assert(in_enum_order(kOps), "..."). Plain C++ that nvcc,
// NVRTC and g++ all compile (the kernels' headers use it).
#pragma once
#include "ptx/types.cuh"

namespace gpuprobe::probes {

template <class Info, unsigned N>
GPUPROBE_HD constexpr bool in_enum_order(const Info (&table)[N]) {
  for (unsigned i = 0; i < N; ++i)
    if (static_cast<unsigned>(table[i].op) != i) return false;
  return true;
}

}  // namespace gpuprobe::probes
