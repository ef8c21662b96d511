#include "harness/lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "harness/error.hpp"
#include "harness/results.hpp"

namespace gpuprobe {

std::string lock_path_for_file(const std::string& out_file) {
  return resolve_output_path(out_file) + ".lock";
}

std::string lock_path_for_dir(const std::string& out_dir) {
  return (std::filesystem::path(out_dir) / ".gpuprobe.lock").string();
}

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// /proc/PID/stat after the command name (which may hold spaces and parentheses), or "".
std::string stat_fields(pid_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const auto end_of_name = stat.rfind(") ");
  return end_of_name == std::string::npos ? std::string() : stat.substr(end_of_name + 2);
}

// Whether process `pid` of this host is gone: none has the pid, or it is a zombie that nobody
// reaps (a probe process killed with run-all, in a container whose init does not reap).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  const std::string fields = stat_fields(pid);
  return !fields.empty() && fields[0] == 'Z';
}

// When process `pid` started (clock ticks after boot: field 22 of /proc/PID/stat), or 0 when it
// cannot be read. With the pid, it names one process: a pid is reused, a start time with it not.
unsigned long long start_time(pid_t pid) {
  std::istringstream in(stat_fields(pid));
  std::string field;
  for (int i = 3; i <= 22 && in >> field; ++i)  // fields 3 (state) to 22 (starttime)
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  return 0;
}

// Whether the live process `pid` may be a gpuprobe: its executable's, argv[0]'s or command's name
// says so, or none of them can be read (then nothing says it is not).
bool may_be_gpuprobe(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::vector<std::string> names;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink(proc + "/exe", ec);
  if (!ec) names.push_back(exe.filename().string());
  const std::string cmdline = slurp(proc + "/cmdline");
  if (!cmdline.empty()) names.push_back(std::filesystem::path(cmdline.c_str()).filename().string());
  const std::string comm = slurp(proc + "/comm");
  if (!comm.empty()) names.push_back(comm);
  if (names.empty()) return true;
  for (const auto& n : names)
    if (n.find("gpuprobe") != std::string::npos) return true;
  return false;
}

struct LockText {
  long pid = 0;
  std::string host;
  unsigned long long started = 0;  // 0: not in the file (a lock of an earlier version)
};

LockText read_lock(const std::string& path) {
  LockText t;
  std::ifstream in(path);
  in >> t.pid >> t.host >> t.started;
  return t;
}

// Whether the lock `t` is held: by a live process of this host that is the one that wrote it, or
// by another host's run (which only that host can tell).
bool held(const LockText& t, const std::string& me) {
  if (t.host != me) return true;
  if (t.pid <= 0) return true;  // names no process: only a person can tell
  const auto pid = static_cast<pid_t>(t.pid);
  if (process_gone(pid)) return false;
  if (t.started != 0) {
    const unsigned long long now = start_time(pid);
    return now == 0 || now == t.started;
  }
  return may_be_gpuprobe(pid);
}

}  // namespace

std::optional<LockHolder> live_lock_holder(const std::string& lock_path) {
  std::error_code ec;
  if (!std::filesystem::exists(lock_path, ec)) return std::nullopt;
  const LockText t = read_lock(lock_path);
  const std::string me = host_name();
  if (t.pid <= 0 || !held(t, me)) return std::nullopt;
  return LockHolder{t.pid, t.host, t.host == me};
}

OutputLock::OutputLock(std::string lock_path, const std::string& what) : path_(std::move(lock_path)) {
  const std::string me = host_name();
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      const std::string text = std::to_string(::getpid()) + " " + me + " " +
                               std::to_string(start_time(::getpid())) + "\n";
      const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      ::close(fd);
      if (!ok) {
        ::unlink(path_.c_str());
        throw Error("cannot write " + what + ": cannot write its lock file " + path_);
      }
      return;
    }
    if (errno != EEXIST)
      throw Error("cannot write " + what + ": " + std::strerror(errno) + " (its lock file " + path_ + ")");
    const LockText t = read_lock(path_);
    if (held(t, me)) {
      if (t.pid <= 0) {
        throw Error(what + " is locked by " + path_ +
                    ", which names no process: remove it if no gpuprobe is writing there");
      }
      const std::string pid = std::to_string(t.pid);
      throw Error(what + " is in use by gpuprobe pid " + pid + " on " + t.host + " (lock file " + path_ +
                  "): wait for it to finish" +
                  (t.host == me ? ", or remove the lock file if pid " + pid + " is not that run"
                                : ", or remove the lock file if that run is gone"));
    }
    ::unlink(path_.c_str());  // stale: its process is gone
  }
  throw Error("cannot take the lock file " + path_ + ": another run keeps taking it");
}

OutputLock::~OutputLock() {
  // Only our own lock: never a lock another run took after ours was judged stale.
  if (read_lock(path_).pid == ::getpid()) ::unlink(path_.c_str());
}

}  // namespace gpuprobe
