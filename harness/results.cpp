#include "harness/results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/error.hpp"

namespace gpuprobe {

nlohmann::json to_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"compute_capability", std::to_string(d.cc.major) + "." + std::to_string(d.cc.minor)},
          {"sm_count", d.sm_count},
          {"rated_sm_clock_mhz", d.rated_sm_clock_mhz},
          {"rated_mem_clock_mhz", d.rated_mem_clock_mhz},
          {"memory_bus_bits", d.memory_bus_bits},
          {"l2_bytes", d.l2_bytes},
          {"persisting_l2_max_bytes", d.persisting_l2_max_bytes},
          {"global_memory_bytes", d.global_memory_bytes},
          {"shared_memory_per_sm_bytes", d.shared_memory_per_sm_bytes},
          {"shared_memory_per_block_optin_bytes", d.shared_memory_per_block_optin_bytes},
          {"ecc_enabled", d.ecc_enabled},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"pci_bus_id", d.pci_bus_id},
          {"uuid", d.uuid},
          {"simulated", d.simulated},
          {"sim_preset", d.sim_preset}};
}

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void write_json_atomically(const std::string& path, const nlohmann::json& doc) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw Error("cannot create directory " + target.parent_path().string() + ": " +
                        ec.message());
  }
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  const std::string text = doc.dump(2) + "\n";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw Error("cannot write " + tmp + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error("cannot write " + tmp + ": " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot flush " + tmp + ": " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot replace " + path + ": " + std::strerror(err));
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open " + path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    throw Error(path + " is not valid JSON: " + what);
  }
}

}  // namespace gpuprobe
