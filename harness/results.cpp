#include "harness/results.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <vector>

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

namespace {

// A stream buffer onto a file descriptor, 1 MiB at a time; a failed write makes the stream bad
// and keeps its errno.
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd), buf_(1 << 20) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!flush_buffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return flush_buffer() ? 0 : -1; }

 private:
  bool flush_buffer() {
    for (char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error_ = errno;
        return false;
      }
      p += n;
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return true;
  }
  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};


const char* kind_of(const std::filesystem::file_status& st) {
  namespace fs = std::filesystem;
  switch (st.type()) {
    case fs::file_type::directory: return "folder";
    case fs::file_type::character: return "character device";
    case fs::file_type::block: return "block device";
    case fs::file_type::fifo: return "FIFO";
    case fs::file_type::socket: return "socket";
    default: return "special file";
  }
}

}  // namespace

std::string resolve_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p.string();
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw Error("cannot read the link " + p.string() + ": " + ec.message());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw Error(path + " is a chain of more than 40 symbolic links");
}

void check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string real = resolve_output_path(path);
  std::error_code ec;
  const auto st = fs::symlink_status(real, ec);
  if (ec || !fs::exists(st) || fs::is_regular_file(st)) return;
  throw Error(path + (real == path ? "" : " (a link to " + real + ")") + " is a " + kind_of(st) +
              ", not a regular file: refusing to write over it");
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown-host";
  std::string name = buf;
  for (char& c : name)
    if (c == '/') c = '_';  // a file name's part
  return name;
}

std::string temporary_path(const std::string& real_path, long pid) {
  return real_path + ".tmp-" + host_name() + "-" + std::to_string(pid);
}

std::size_t remove_stale_temporaries(const std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  std::size_t removed = 0;
  for (const auto& file : files) {
    fs::path real;
    try {
      real = resolve_output_path(file);
    } catch (const Error&) {
      continue;  // a chain of links: no temporary of ours can be there
    }
    // Only FILE.tmp-<this host>-<digits>: the prefix is this host's, the rest a pid.
    const std::string head = real.filename().string() + ".tmp-" + host_name() + "-";
    const fs::path dir = real.has_parent_path() ? real.parent_path() : fs::path(".");
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() <= head.size() || name.compare(0, head.size(), head) != 0) continue;
      const std::string digits = name.substr(head.size());
      if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = static_cast<pid_t>(std::stol(digits));
      if (pid <= 0 || pid == ::getpid()) continue;
      if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
      std::error_code rm;
      if (fs::is_regular_file(it->symlink_status(rm)) && fs::remove(it->path(), rm)) ++removed;
    }
  }
  return removed;
}

void write_json_atomically(const std::string& path, const nlohmann::json& doc) {
  write_text_atomically(path, doc.dump(2) + "\n");
}

void write_text_atomically(const std::string& path, const std::string& text) {
  write_stream_atomically(path, [&](std::ostream& out) { out << text; });
}

void write_stream_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  check_output_path(path);
  const std::string real = resolve_output_path(path);
  const std::filesystem::path target(real);
  std::error_code ec;
  if (target.has_parent_path()) {
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) throw Error("cannot create directory " + target.parent_path().string() + ": " + ec.message());
  }
  // A killed gpuprobe of this host left its temporary of this file: every writer clears them, so
  // analyze, roofline, compare and aggregate clean up after one as probe and run-all do.
  remove_stale_temporaries({real});
  const std::string tmp = temporary_path(real, ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
  if (fd < 0) throw Error("cannot write " + path + " (through " + tmp + "): " + std::strerror(errno));
  const auto fail = [&](const std::string& what, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error(what + path + " (through " + tmp + "): " + std::strerror(err));
  };
  FdBuffer buffer(fd);
  std::ostream out(&buffer);
  try {
    write(out);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  out.flush();
  if (!out) fail("cannot write ", buffer.error() ? buffer.error() : EIO);
  if (::fsync(fd) != 0) fail("cannot flush ", errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot flush " + path + " (through " + tmp + "): " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), real.c_str()) != 0) {
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
