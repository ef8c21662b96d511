// The self-check of a value-chain family (compute), by the family's name: the bits the host
// expects from a chain, and what is wrong with a result. The family registers it once; its
// launches check every stored result with it, and tests and diagnostics reach it here without
// the family's internals.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "harness/error.hpp"

namespace gpuprobe::probes {

struct ValueChainCheck {
  // The result (bits, as the kernel stores them) of op's chain `chain` after `ops` ops.
  std::function<uint64_t(const std::string& op, uint32_t chain, uint64_t ops)> reference;
  // Empty if `got` is an acceptable result of that chain, else why not.
  std::function<std::string(const std::string& op, uint32_t chain, uint64_t ops, uint64_t got)> error;
};

inline std::map<std::string, ValueChainCheck>& value_chain_checks() {
  static std::map<std::string, ValueChainCheck> all;
  return all;
}

inline const ValueChainCheck& value_chain_check(const std::string& family) {
  const auto it = value_chain_checks().find(family);
  if (it == value_chain_checks().end()) throw Error("no value-chain self-check registered for " + family);
  return it->second;
}

struct ValueChainCheckRegistration {
  ValueChainCheckRegistration(const std::string& family, ValueChainCheck check) {
    value_chain_checks()[family] = std::move(check);
  }
};

}  // namespace gpuprobe::probes
