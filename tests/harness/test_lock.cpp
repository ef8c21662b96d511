// harness/lock.cpp: whom a lock file names, and when a lock is stale (taken over) or held.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/error.hpp"
#include "harness/lock.hpp"
#include "harness/results.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
namespace fs = std::filesystem;

namespace {

struct ScratchDir {
  fs::path path;
  ScratchDir() : path(fs::temp_directory_path() / ("gpuprobe-lock-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Until `pid` runs `sleep`, not the copy of this process fork made.
void wait_until_sleep(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    std::string comm;
    std::ifstream("/proc/" + std::to_string(pid) + "/comm") >> comm;
    if (comm == "sleep") return;
    ::usleep(10000);
  }
}

long pid_in(const fs::path& lock) {
  long pid = 0;
  std::ifstream(lock) >> pid;
  return pid;
}

}  // namespace

TEST_CASE("a lock naming a live process that is not the run that wrote it is taken over", "[lock]") {
  ScratchDir dir;
  const fs::path lock = dir.path / ".gpuprobe.lock";
  // An earlier version's lock (pid and host), naming a live `sleep`: a pid reused, not a gpuprobe.
  const pid_t sleeper = ::fork();
  if (sleeper == 0) {
    ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  wait_until_sleep(sleeper);
  std::ofstream(lock) << sleeper << " " << host_name() << "\n";
  CHECK_FALSE(live_lock_holder(lock.string()));
  {
    const OutputLock taken(lock.string(), "the folder");
    CHECK(pid_in(lock) == ::getpid());
  }
  ::kill(sleeper, SIGKILL);
  ::waitpid(sleeper, nullptr, 0);
  CHECK_FALSE(fs::exists(lock));
  // A lock with a start time names one process: this one's pid with another start time is stale.
  std::ofstream(lock) << ::getpid() << " " << host_name() << " 1\n";
  {
    const OutputLock taken(lock.string(), "the folder");
    CHECK(pid_in(lock) == ::getpid());
  }
  CHECK_FALSE(fs::exists(lock));
}

TEST_CASE("a lock held by a live gpuprobe refuses in one line with the remedy", "[lock]") {
  ScratchDir dir;
  const fs::path lock = dir.path / ".gpuprobe.lock";
  const std::string me = std::to_string(::getpid());
  {
    const OutputLock first(lock.string(), "the folder");
    const auto holder = live_lock_holder(lock.string());
    REQUIRE(holder);
    CHECK(holder->pid == ::getpid());
    CHECK(holder->this_host);
    CHECK_THROWS_WITH(OutputLock(lock.string(), "the folder"),
                      "the folder is in use by gpuprobe pid " + me + " on " + host_name() + " (lock file " +
                          lock.string() + "): wait for it to finish, or remove the lock file if pid " + me +
                          " is not that run");
  }
  CHECK_FALSE(live_lock_holder(lock.string()));
  // An earlier version's lock naming this process (a gpuprobe_tests): held too.
  std::ofstream(lock) << me << " " << host_name() << "\n";
  CHECK(live_lock_holder(lock.string()));
  CHECK_THROWS_AS(OutputLock(lock.string(), "the folder"), Error);
  // Another host's: held, since only that host can tell.
  std::ofstream(lock) << "1 another-host\n";
  const auto other = live_lock_holder(lock.string());
  REQUIRE(other);
  CHECK_FALSE(other->this_host);
  CHECK_THROWS_WITH(OutputLock(lock.string(), "the folder"),
                    Catch::Contains("remove the lock file if that run is gone"));
}

}  // namespace GPUPROBE_TEST_FILE
