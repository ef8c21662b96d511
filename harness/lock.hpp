// One run at a time per output: a lock file holding the owner's pid and host. A second run into
// the same output refuses in one line naming the first; a lock left by a process that is gone
// (same host, pid no longer running) is taken over.
#pragma once
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

// The lock file of `probe --out FILE` (FILE.lock) and of `run-all --out DIR` (DIR/.gpuprobe.lock).
std::string lock_path_for_file(const std::string& out_file);
std::string lock_path_for_dir(const std::string& out_dir);

}  // namespace gpuprobe
