#include "cli/plot_runner.hpp"

#include "cli/roofline_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace gpuprobe {

std::string plot_python() {
  if (const char* p = std::getenv("GPUPROBE_PYTHON"); p && *p) return p;
  const std::string configured = GPUPROBE_DEFAULT_PYTHON;
  std::error_code ec;
  if (!configured.empty() && std::filesystem::exists(configured, ec)) return configured;
  return "python3";
}

std::string analysis_script(const std::string& name) {
  return std::string(GPUPROBE_SOURCE_DIR) + "/analysis/" + name;
}

std::string run_plot(const std::string& python, const std::vector<std::string>& args, std::ostream* wrote) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return std::string("cannot make a pipe: ") + std::strerror(errno);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (wrote)
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  else
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  std::vector<std::string> argv_s = {python};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  const std::string not_found = "no Python at '" + python +
                                "' (set GPUPROBE_PYTHON to a Python with matplotlib, or run scripts/setup.sh)";
  if (rc != 0) {
    ::close(pipe_fds[0]);
    return rc == ENOENT ? not_found : "cannot start " + python + ": " + std::strerror(rc);
  }
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    err.append(buf, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    if (wrote)
      for (std::size_t at = 0; at < err.size();) {
        std::size_t nl = err.find('\n', at);
        if (nl == std::string::npos) nl = err.size();
        if (err.compare(at, 6, "wrote ") == 0 || err.compare(at, 9, "no plot: ") == 0)
          *wrote << err.substr(at, nl - at) << "\n";
        at = nl + 1;
      }
    return "";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return not_found;
  // The script's own error line (plot_X: error: ..., X its file name), else the last line it printed.
  std::string line;
  const std::string head = std::filesystem::path(args.empty() ? "" : args[0]).stem().string() + ": error: ";
  if (const auto at = err.find(head); !args.empty() && at != std::string::npos)
    line = err.substr(at + head.size());
  else if (!err.empty()) {
    while (!err.empty() && err.back() == '\n') err.pop_back();
    line = err.substr(err.find_last_of('\n') == std::string::npos ? 0 : err.find_last_of('\n') + 1);
  } else if (WIFSIGNALED(status)) {
    line = python + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ") and printed nothing";
  } else {
    line = python + " exited with status " + std::to_string(WEXITSTATUS(status)) + " and printed nothing";
  }
  if (const auto nl = line.find('\n'); nl != std::string::npos) line.resize(nl);
  return line;
}

std::string write_model_outputs(const std::string& model_path, std::ostream& out, std::ostream& err) {
  const std::string python = plot_python();
  const std::string dir = std::filesystem::path(model_path).parent_path().string();
  const std::string latency_prefix = (std::filesystem::path(dir.empty() ? "." : dir) / "latency").string();
  struct Step {
    const char* name;
    std::vector<std::string> args;
  };
  const Step plots[] = {
      {"the latency plot",
       {analysis_script("plot_latency.py"), model_path, "--out-prefix", latency_prefix, "--if-any"}},
      {"the bandwidth plots", {analysis_script("plot_bandwidth.py"), model_path, "--if-any"}}};
  for (const auto& step : plots)
    if (std::string why = run_plot(python, step.args, &out); !why.empty()) return std::string(step.name) + ": " + why;
  // The roofline prints its ceilings and names what it wrote; its own failure goes to a string
  // so that run-all reports it once, as the others.
  std::ostringstream roofline_err;
  RooflineArgs roofline;
  roofline.model = model_path;
  try {
    if (cmd_roofline(roofline, out, roofline_err) != 0) {
      std::string why = roofline_err.str();
      if (why.rfind("gpuprobe: error: ", 0) == 0) why.erase(0, 17);
      while (!why.empty() && why.back() == '\n') why.pop_back();
      return "the roofline: " + why;
    }
  } catch (const std::exception& e) {
    return std::string("the roofline: ") + e.what();
  }
  err << roofline_err.str();
  if (std::string why = run_plot(python, {analysis_script("report.py"), model_path}, &out); !why.empty())
    return "the report: " + why;
  return "";
}

}  // namespace gpuprobe
