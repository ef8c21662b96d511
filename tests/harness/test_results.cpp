#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <iterator>
#include <vector>

#include "harness/error.hpp"
#include "harness/results.hpp"

namespace GPUPROBE_TEST_FILE {

using namespace gpuprobe;
namespace fs = std::filesystem;

TEST_CASE("JSON is written atomically, creating directories, leaving no temporary file",
          "[results]") {
  const fs::path dir = fs::temp_directory_path() / ("gpuprobe-results-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const std::string path = (dir / "a" / "b" / "run.json").string();
  write_json_atomically(path, {{"x", 1}});
  CHECK(read_json_file(path)["x"] == 1);
  write_json_atomically(path, {{"x", 2}});  // replaces
  CHECK(read_json_file(path)["x"] == 2);
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir / "a" / "b")) {
    ++files;
    CHECK(e.path().filename() == "run.json");
  }
  CHECK(files == 1);
  // An unwritable place is a one-line error, and the old file stays.
  std::ofstream(dir / "file") << "x";
  CHECK_THROWS_AS(write_json_atomically((dir / "file" / "run.json").string(), {}), Error);
  CHECK(read_json_file(path)["x"] == 2);
  fs::remove_all(dir);
}

TEST_CASE("reading bad JSON names the file in one line", "[results]") {
  const fs::path p = fs::temp_directory_path() / ("gpuprobe-bad-" + std::to_string(getpid()) + ".json");
  std::ofstream(p) << "{\"a\": [1, 2";
  try {
    read_json_file(p.string());
    FAIL("no error");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find(p.string()) != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
  CHECK_THROWS_WITH(read_json_file("/nonexistent/x.json"), Catch::Contains("cannot open"));
  fs::remove(p);
}

TEST_CASE("device provenance keeps every field with units in the names", "[results]") {
  DeviceInfo d;
  d.name = "X";
  d.cc = {9, 0};
  d.l2_bytes = 50u << 20;
  d.simulated = true;
  d.sim_preset = "h100";
  const auto j = to_json(d);
  CHECK(j["compute_capability"] == "9.0");
  CHECK(j["l2_bytes"] == 50u << 20);
  CHECK(j["simulated"] == true);
  CHECK(j["sim_preset"] == "h100");
  for (const char* key : {"rated_sm_clock_mhz", "driver_version", "runtime_version", "ecc_enabled",
                          "pci_bus_id", "uuid", "shared_memory_per_block_optin_bytes"})
    CHECK(j.contains(key));
}

namespace {

// A scratch folder removed at the end of the test, whatever happens.
struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string& tag)
      : path(fs::temp_directory_path() /
             ("gpuprobe-results-" + tag + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A pid that no process has any more: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

}  // namespace

TEST_CASE("an atomic rewrite replaces the name, not the old file's content", "[results]") {
  // Writing in place would change what a hard link to the old file reads; a rename does not.
  ScratchDir dir("link");
  const fs::path path = dir.path / "run.json";
  write_json_atomically(path.string(), {{"x", "old"}});
  fs::create_hard_link(path, dir.path / "held.json");
  write_json_atomically(path.string(), {{"x", "new"}});
  CHECK(read_json_file((dir.path / "held.json").string())["x"] == "old");
  CHECK(read_json_file(path.string())["x"] == "new");
}

TEST_CASE("an output that is not a regular file is refused and left as it was", "[results]") {
  ScratchDir dir("special");
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  const fs::path folder = dir.path / "folder";
  fs::create_directories(folder);
  const fs::path sock = dir.path / "sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(sock.string().size() < sizeof addr.sun_path);
  std::strcpy(addr.sun_path, sock.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  ::close(fd);
  std::vector<std::pair<fs::path, fs::file_type>> specials = {
      {fifo, fs::file_type::fifo}, {folder, fs::file_type::directory},
      {sock, fs::file_type::socket}};
  // A character device of our own (as root: the case where /dev/null used to be replaced).
  const fs::path chr = dir.path / "null";
  if (::mknod(chr.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0)
    specials.push_back({chr, fs::file_type::character});
  // A link to a FIFO is refused as well: the link is followed, never replaced.
  const fs::path link_to_fifo = dir.path / "link-to-fifo";
  fs::create_symlink(fifo, link_to_fifo);
  for (const auto& [path, type] : specials) {
    INFO(path);
    CHECK_THROWS_WITH(write_json_atomically(path.string(), {{"x", 1}}),
                      Catch::Contains("not a regular file"));
    CHECK_THROWS_AS(check_output_path(path.string()), Error);
    CHECK(fs::symlink_status(path).type() == type);
  }
  CHECK_THROWS_WITH(write_json_atomically(link_to_fifo.string(), {{"x", 1}}),
                    Catch::Contains("not a regular file"));
  CHECK(fs::is_symlink(fs::symlink_status(link_to_fifo)));
  CHECK(fs::is_fifo(fs::status(fifo)));
  // Nothing was left behind: no temporaries next to them.
  for (const auto& e : fs::directory_iterator(dir.path))
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
}

TEST_CASE("a symbolic link is written through to its target and stays a link", "[results]") {
  ScratchDir dir("symlink");
  fs::create_directories(dir.path / "real");
  const fs::path target = dir.path / "real" / "run.json";
  const fs::path link = dir.path / "run.json";
  write_json_atomically(target.string(), {{"x", 1}});
  fs::create_symlink(fs::path("real") / "run.json", link);  // relative, as users make them
  write_json_atomically(link.string(), {{"x", 2}});
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(read_json_file(target.string())["x"] == 2);
  // A dangling link gets its target made.
  const fs::path dangling = dir.path / "later.json";
  fs::create_symlink(dir.path / "real" / "later.json", dangling);
  write_json_atomically(dangling.string(), {{"x", 3}});
  CHECK(fs::is_symlink(fs::symlink_status(dangling)));
  CHECK(read_json_file((dir.path / "real" / "later.json").string())["x"] == 3);
  CHECK(same_file(link.string(), target.string()));
  CHECK_FALSE(same_file(link.string(), dangling.string()));
}

TEST_CASE("only this host's temporaries of the files named, of runs that are gone, are removed",
          "[results]") {
  ScratchDir dir("stale");
  const std::string run = (dir.path / "run.json").string();
  CHECK(temporary_path(run, 42) == run + ".tmp-" + host_name() + "-42");
  const pid_t gone = dead_pid();
  const pid_t live_child = ::fork();
  if (live_child == 0) {
    ::pause();
    ::_exit(0);
  }
  const fs::path stale = temporary_path(run, gone);
  const fs::path live = temporary_path(run, live_child);
  const std::vector<fs::path> others = {
      dir.path / ("notes.tmp-" + std::to_string(gone)),                  // a user's file
      dir.path / ("run.json.tmp-" + std::to_string(gone)),               // no host: not ours
      dir.path / ("run.json.tmp-another-host-" + std::to_string(gone)),  // another machine's
      temporary_path((dir.path / "other.json").string(), gone),          // a file not named
      dir.path / ("run.json.tmp-" + host_name() + "-" + std::to_string(gone) + "x")};
  for (const auto& p : {stale, live}) std::ofstream(p) << "{";
  for (const auto& p : others) std::ofstream(p) << "{";
  CHECK(remove_stale_temporaries({run}) == 1);
  ::kill(live_child, SIGKILL);
  ::waitpid(live_child, nullptr, 0);
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(live));
  for (const auto& p : others) {
    INFO(p);
    CHECK(fs::exists(p));
  }
  CHECK(remove_stale_temporaries({(dir.path / "missing" / "run.json").string()}) == 0);
}

TEST_CASE("a write that fails names the file asked for, then its temporary", "[results]") {
  // analyze into a folder it cannot write said 'cannot write m.json.tmp-HOST-PID', a name the user
  // never gave (second hostile pass). /proc takes no new file, even for root.
  CHECK_THROWS_WITH(write_json_atomically("/proc/gpuprobe-model.json", {{"x", 1}}),
                    Catch::StartsWith("cannot write /proc/gpuprobe-model.json (through /proc/gpuprobe-model.json.tmp-"));
}

TEST_CASE("an atomic write removes the temporaries of its file that killed runs of this host left",
          "[results]") {
  // analyze, roofline, compare and aggregate never called remove_stale_temporaries: a killed one's
  // temporary stayed beside its output for good (second hostile pass, ND2).
  ScratchDir dir("write-stale");
  const std::string model = (dir.path / "model.json").string();
  const fs::path stale = temporary_path(model, dead_pid());
  const fs::path user = dir.path / "model.json.tmp-mine";
  for (const auto& p : {stale, user}) std::ofstream(p) << "{";
  write_json_atomically(model, {{"x", 1}});
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(user));
  CHECK(read_json_file(model)["x"] == 1);
}

TEST_CASE("a streamed write goes through FILE.tmp-<host>-<pid> and clears a dead one's", "[results]") {
  // The roofline's streamed JSON was written through FILE.tmp-<pid>, a name no cleanup knows, and a
  // killed roofline left its temporary (50 MB for 2e5 kernels) for good (second hostile pass, ND2).
  ScratchDir dir("stream");
  const std::string out = (dir.path / "r.roofline.json").string();
  const std::string stale = temporary_path(out, dead_pid());
  std::ofstream(stale) << "{\"kernels\": [";
  std::string seen;
  write_stream_atomically(out, [&](std::ostream& o) {
    for (const auto& e : fs::directory_iterator(dir.path))
      if (e.path().filename().string().find(".tmp-") != std::string::npos) seen += e.path().string() + ";";
    o << "{}";
  });
  CHECK_FALSE(fs::exists(stale));
  CHECK(seen == temporary_path(out, ::getpid()) + ";");  // only its own, host-named
  CHECK(slurp(out) == "{}");
}

}  // namespace GPUPROBE_TEST_FILE
