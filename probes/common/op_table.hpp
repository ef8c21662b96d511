// What every op-table family (compute, atomics, sync, the tensor probes, async) does with its op
// table, written once: the kinds of measurement, an op's name and parse, the CLI choices, the
// table's kernel lookup. A family's table is one X-macro .def (probes/compute/compute.def) whose
// rows become a constexpr array of the family's Info struct, each with a `name`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/error.hpp"

namespace gpuprobe::probes {

// latency: one dependent chain, in the smallest launch the op allows; throughput: independent
// chains or CTAs on every SM.
enum class Kind { latency, throughput };

inline const char* kind_name(Kind kind) { return kind == Kind::latency ? "latency" : "throughput"; }
inline Kind parse_kind(const std::string& name) { return name == "latency" ? Kind::latency : Kind::throughput; }
// The kernel name's suffix of each kind: gpuprobe_<family>_<op>_lat / _thr.
inline const char* kind_suffix(Kind kind) { return kind == Kind::latency ? "_lat" : "_thr"; }

// The entry of `table` named `name`; an unknown name throws one line naming the known ones
// ("unknown compute op 'x' (known: a, b)").
template <class Info, std::size_t N>
const Info& find_op(const Info (&table)[N], const std::string& name, const std::string& what) {
  std::string known;
  for (const Info& info : table) {
    if (name == info.name) return info;
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  }
  throw Error("unknown " + what + " '" + name + "' (known: " + known + ")");
}

// A table's names, in order; op_choices adds "all" first (the --op parameter's choices).
template <class Info, std::size_t N>
std::vector<std::string> op_names(const Info (&table)[N]) {
  std::vector<std::string> out;
  for (const Info& info : table) out.emplace_back(info.name);
  return out;
}
template <class Info, std::size_t N>
std::vector<std::string> op_choices(const Info (&table)[N]) {
  std::vector<std::string> out = op_names(table);
  out.insert(out.begin(), "all");
  return out;
}

// A family's latency and throughput kernels, one pair per row of its table, looked up by row.
// Declared weak so that a build without the kernels (host only, or a target left out) links: a
// missing kernel is a null pointer, which KernelRunner::launch refuses in one line. Each row of
// the family's .def, through GPUPROBE_KERNEL_PAIR_DECLARE_(gpuprobe_alu_, (Args, Out*), op),
// declares gpuprobe_alu_<op>_lat/_thr, and through GPUPROBE_KERNEL_PAIR_ENTRY_(gpuprobe_alu_, op)
// is its entry of `const KernelPair kKernels[]` (probes/compute/compute.cpp).
struct KernelPair {
  const void* latency;
  const void* throughput;
  const void* of(Kind kind) const { return kind == Kind::latency ? latency : throughput; }
};
#define GPUPROBE_KERNEL_PAIR_DECLARE_(prefix, signature, op, ...)                  \
  extern "C" __attribute__((weak)) void prefix##op##_lat signature;              \
  extern "C" __attribute__((weak)) void prefix##op##_thr signature;
#define GPUPROBE_KERNEL_PAIR_ENTRY_(prefix, op, ...) \
  {reinterpret_cast<const void*>(&prefix##op##_lat), reinterpret_cast<const void*>(&prefix##op##_thr)},

}  // namespace gpuprobe::probes
