// One run at a time per output: a lock file holding the owner's pid, host and start time. A second
// run into the same output refuses in one line naming the first; a lock left by a process that is
// gone is taken over: same host, and no process has the pid, or the process that has it now is
// another one (its start time differs from the lock's, or, for a lock without one, its
// executable is not a gpuprobe).
#pragma once
#include <optional>
#include <string>

namespace gpuprobe {

class OutputLock {
 public:
  // Takes `lock_path` for `what` (the output it guards, for the message). Throws a one-line
  // gpuprobe::Error if a live run holds it, or if it cannot be created.
  OutputLock(std::string lock_path, const std::string& what);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The run a lock file names, when it holds it by the rules above (a live gpuprobe of this host,
// or any run of another host, which cannot be checked from here).
struct LockHolder {
  long pid = 0;
  std::string host;
  bool this_host = false;
};
std::optional<LockHolder> live_lock_holder(const std::string& lock_path);

// The lock file of `probe --out FILE` (FILE.lock) and of `run-all --out DIR` (DIR/.gpuprobe.lock).
std::string lock_path_for_file(const std::string& out_file);
std::string lock_path_for_dir(const std::string& out_dir);

}  // namespace gpuprobe
