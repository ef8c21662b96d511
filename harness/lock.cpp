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

// Whether process `pid` of this host is gone: none has the pid, or it is a zombie that nobody
// reaps (a probe process killed with run-all, in a container whose init does not reap).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto end_of_name = stat.rfind(") ");
  return end_of_name != std::string::npos && end_of_name + 2 < stat.size() &&
         stat[end_of_name + 2] == 'Z';
}

}  // namespace

OutputLock::OutputLock(std::string lock_path, const std::string& what) : path_(std::move(lock_path)) {
  const std::string me = host_name();
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      const std::string text = std::to_string(::getpid()) + " " + me + "\n";
      const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      ::close(fd);
      if (!ok) {
        ::unlink(path_.c_str());
        throw Error("cannot write the lock file " + path_);
      }
      return;
    }
    if (errno != EEXIST)
      throw Error("cannot create the lock file " + path_ + ": " + std::strerror(errno));
    long pid = 0;
    std::string host;
    {
      std::ifstream in(path_);
      in >> pid >> host;
    }
    const bool dead_here = host == me && pid > 0 && process_gone(static_cast<pid_t>(pid));
    if (!dead_here) {
      if (pid <= 0) {
        throw Error(what + " is locked by " + path_ +
                    ", which names no process: remove it if no gpuprobe is writing there");
      }
      throw Error(what + " is in use by gpuprobe pid " + std::to_string(pid) + " on " + host +
                  " (lock file " + path_ + "): wait for it to finish" +
                  (host == me ? "" : ", or remove the lock file if that run is gone"));
    }
    ::unlink(path_.c_str());  // stale: its process is gone
  }
  throw Error("cannot take the lock file " + path_ + ": another run keeps taking it");
}

OutputLock::~OutputLock() {
  // Only our own lock: never a lock another run took after ours was judged stale.
  long pid = 0;
  {
    std::ifstream in(path_);
    in >> pid;
  }
  if (pid == ::getpid()) ::unlink(path_.c_str());
}

}  // namespace gpuprobe
