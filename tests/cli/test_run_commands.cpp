// cli/run_commands.cpp as a user (or a hostile tester) meets it, the whole tool run as a process:
// outputs that are never destroyed, parameters checked before anything is written, locks, resume,
// signals, and one-line errors.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/gpuprobe_run.hpp"
#include "tests/gpu.hpp"

namespace GPUPROBE_TEST_FILE {

namespace fs = std::filesystem;

namespace {

using gpuprobe::test::Result;
using gpuprobe::test::slurp;

struct Scratch : gpuprobe::test::Scratch {
  Scratch() : gpuprobe::test::Scratch("run-commands") {}
};

Result run(const Scratch& s, const std::string& args) { return gpuprobe::test::run_gpuprobe(s, args); }

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += (c == '\n');
  return n;
}

// The error part of stderr (after the simulator's banner and progress lines).
std::string error_lines(const std::string& err) {
  const auto at = err.find("gpuprobe: error:");
  return at == std::string::npos ? std::string() : err.substr(at);
}

// A small, fast chase on the simulator (two points).
const std::string kSmallChase =
    "probe memory/chase --device sim:h100 --min-footprint-bytes 4K --max-footprint-bytes 8K "
    "--points-per-octave 1 ";

pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

std::string host() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace

TEST_CASE("an --out that is a device, FIFO, socket or folder is refused and left as it is",
          "[cli][outputs]") {
  Scratch s;
  // /dev/null itself: as root, renaming over it used to replace it with a JSON file.
  auto r = run(s, kSmallChase + "--out /dev/null");
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(r.err.find("/dev/null is a character device") != std::string::npos);
  CHECK(fs::is_character_file(fs::symlink_status("/dev/null")));
  CHECK(r.err.find("footprint_bytes=") == std::string::npos);  // refused before measuring

  REQUIRE(::mkfifo((s / "fifo").c_str(), 0644) == 0);
  fs::create_directories(s / "folder");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, (s / "sock").c_str(), sizeof addr.sun_path - 1);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  ::close(fd);
  fs::create_symlink("/dev/null", s / "link-to-null");
  for (const char* name : {"fifo", "folder", "sock", "link-to-null"}) {
    INFO(name);
    const auto before = fs::symlink_status(s / name).type();
    r = run(s, kSmallChase + "--out " + (s / name));
    CHECK(r.rc == 1);
    CHECK(lines(error_lines(r.err)) == 1);
    CHECK(r.err.find("not a regular file") != std::string::npos);
    CHECK(fs::symlink_status(s / name).type() == before);
  }
  CHECK(fs::is_character_file(fs::symlink_status("/dev/null")));
  // A link to a regular file is written through: the link stays, its target gets the record.
  std::ofstream(s / "target.json") << "{}";
  fs::create_symlink("target.json", s / "link.json");
  r = run(s, kSmallChase + "--out " + (s / "link.json"));
  REQUIRE(r.rc == 0);
  CHECK(fs::is_symlink(fs::symlink_status(s / "link.json")));
  CHECK(nlohmann::json::parse(slurp(s / "target.json"))["status"] == "ok");
}

TEST_CASE("a parameter error never replaces a good --out, and writes nothing", "[cli][outputs]") {
  Scratch s;
  const std::string out = s / "run.json";
  REQUIRE(run(s, kSmallChase + "--out " + out).rc == 0);
  const std::string good = slurp(out);
  for (const std::string& bad :
       {std::string("probe memory/stride --device sim:h100 --strides-bytes 64,12 "),
        std::string("probe memory/chase --device sim:h100 --max-footprint-bytes 4096G "),
        std::string("probe memory/chase --device sim:h100 --min-footprint-bytes 64K "
                    "--max-footprint-bytes 8K "),
        std::string("probe memory/chase --device sim:h100 --timed-hops 4001 "),
        std::string("probe memory/chase --device sim:h100 --timed-hops 4294967296 "),
        std::string("probe memory/tlb --device sim:h100 --sampled-hops 100000000 "),
        std::string("probe memory/chase --device sim:h100 --points-per-octave 1000 "),
        std::string("probe memory/chase --device sim:h100 --min-region-us 5000000 ")}) {
    INFO(bad);
    const auto r = run(s, bad + "--out " + out);
    CHECK(r.rc == 1);
    CHECK(lines(error_lines(r.err)) == 1);
    CHECK(r.err.find("footprint_bytes=") == std::string::npos);
    CHECK(slurp(out) == good);
  }
  // Refused before the device opens: a device that does not exist is never reached.
  for (const std::string& bad : {std::string("--min-region-us 3000000"), std::string("--slot-bytes 12")}) {
    INFO(bad);
    const auto r = run(s, "probe memory/chase --device sim:no-such-gpu " + bad + " --out " + out);
    CHECK(r.rc == 1);
    CHECK(r.err.find(bad.substr(0, bad.find(' '))) != std::string::npos);
    CHECK(r.err.find("no-such-gpu") == std::string::npos);
  }
  // Nothing at all is written where there was nothing.
  const auto r = run(s, "probe memory/stride --device sim:h100 --strides-bytes 12 --out " +
                            (s / "new.json"));
  CHECK(r.rc == 1);
  CHECK_FALSE(fs::exists(s / "new.json"));
}

TEST_CASE("max-seconds-per-point must be a positive finite number", "[cli][bounds]") {
  Scratch s;
  for (const char* value : {"nan", "inf", "0", "-1", "1e9"}) {
    INFO(value);
    for (const std::string cmd : {kSmallChase, std::string("run-all --no-plot --device sim:h100 ")}) {
      const auto r = run(s, cmd + "--max-seconds-per-point " + value + " --out " + (s / "x"));
      CHECK(r.rc != 0);
      CHECK(lines(r.err) == 1);
      CHECK(r.err.find("--max-seconds-per-point") != std::string::npos);
      CHECK_FALSE(fs::exists(s / "x"));
    }
  }
}

TEST_CASE("run-all into a folder it cannot write fails up front in one line", "[cli][outputs]") {
  Scratch s;
  std::ofstream(s / "file") << "x";  // root ignores permission bits, but not a file in the way
  auto r = run(s, "run-all --no-plot --device sim:h100 --out " + (s / "file") + "/sub");
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("cannot write results to") != std::string::npos);
  CHECK(r.err.find("partial results kept") == std::string::npos);
  CHECK(slurp(s / "file") == "x");
  // A link to nothing: named as such (mkdir says only "File exists").
  fs::create_symlink(s / "nowhere", s / "dangling");
  r = run(s, "run-all --no-plot --device sim:h100 --out " + (s / "dangling"));
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find(s / "dangling" + " is a link to " + (s / "nowhere") + ", which does not exist") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(fs::symlink_status(s / "nowhere")));
}

TEST_CASE("the next start removes the temporaries a killed run left, and no one else's file",
          "[cli][outputs]") {
  Scratch s;
  const std::string gone = std::to_string(dead_pid());
  // Ours: a temporary of this host of the file this command writes, of a pid that is gone.
  const std::string stale = s / ("run.json.tmp-" + host() + "-" + gone);
  std::ofstream(stale) << "{\"half\": ";
  // Not ours: a user's files, another file's temporary, another host's (a shared file system).
  const std::vector<std::string> others = {s / ("thesis.tmp-" + gone), s / ("run.json.tmp-" + gone),
                                           s / ("other.json.tmp-" + host() + "-" + gone),
                                           s / ("run.json.tmp-another-host-" + gone)};
  for (const auto& f : others) std::ofstream(f) << "mine";
  REQUIRE(run(s, kSmallChase + "--out " + (s / "run.json")).rc == 0);
  CHECK_FALSE(fs::exists(stale));
  for (const auto& f : others) {
    INFO(f);
    CHECK(slurp(f) == "mine");
  }
  // run-all the same, in its folder and in raw/.
  const fs::path dir = s / "all";
  fs::create_directories(dir / "raw");
  const fs::path ours = dir / "raw" / ("launch_overhead.json.tmp-" + host() + "-" + gone);
  std::ofstream(ours) << "{";
  const std::vector<fs::path> users = {dir / ("draft.tmp-" + gone), dir / "raw" / ("notes.tmp-" + gone)};
  for (const auto& f : users) std::ofstream(f) << "mine";
  REQUIRE(run(s, "run-all --no-plot --device sim:v100 --only launch/overhead --out " + dir.string()).rc == 0);
  CHECK_FALSE(fs::exists(ours));
  for (const auto& f : users) {
    INFO(f);
    CHECK(slurp(f) == "mine");
  }
}

TEST_CASE("a second run into a locked --out refuses naming the first, and a stale lock is taken",
          "[cli][lock]") {
  Scratch s;
  const std::string out = s / "run.json";
  // A live holder: a child that sleeps.
  const pid_t holder = ::fork();
  if (holder == 0) {
    ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // A lock naming a live process that is not a gpuprobe (a pid reused after a crash, as low
  // pids are in containers) is stale: taken over, and released at the end.
  for (int i = 0; i < 500; ++i) {  // until it is `sleep`, not the copy of this process fork made
    std::string comm;
    std::ifstream("/proc/" + std::to_string(holder) + "/comm") >> comm;
    if (comm == "sleep") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ofstream(out + ".lock") << holder << " " << host() << "\n";
  auto r = run(s, kSmallChase + "--out " + out);
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  CHECK(r.rc == 0);
  CHECK(fs::exists(out));
  CHECK_FALSE(fs::exists(out + ".lock"));
  fs::remove(out);
  // run-all's folder lock, with the test's own pid (a gpuprobe_tests) as the holder: refused,
  // with the remedy should that pid not be the run.
  fs::create_directories(s / "all");
  std::ofstream(s / "all/.gpuprobe.lock") << ::getpid() << " " << host() << "\n";
  r = run(s, "run-all --no-plot --device sim:h100 --out " + (s / "all"));
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(r.err.find("in use by gpuprobe pid " + std::to_string(::getpid())) != std::string::npos);
  CHECK(r.err.find("remove the lock file if pid " + std::to_string(::getpid()) + " is not that run") !=
        std::string::npos);
  // A holder that is gone: its lock is stale, taken over, and released at the end.
  std::ofstream(out + ".lock") << dead_pid() << " " << host() << "\n";
  CHECK(run(s, kSmallChase + "--out " + out).rc == 0);
  CHECK_FALSE(fs::exists(out + ".lock"));
}

TEST_CASE("SIGINT and SIGTERM: one line with what was kept and how to resume, and --resume finishes",
          "[cli][signals]") {
  for (const int sig : {SIGINT, SIGTERM}) {
    INFO(sig);
    Scratch s;
    const std::string out = s / "run.json";
    // Many points, each bounded to a short time, so that the signal lands in the middle.
    const std::string args = "probe memory/chase --device sim:h100 --min-footprint-bytes 4K "
                             "--max-footprint-bytes 64M --points-per-octave 8 --out " + out;
    const pid_t child = ::fork();
    if (child == 0) {
      const std::string cmd = std::string("exec ") + GPUPROBE_EXE + " " + args + " >" +
                              (s / ".out") + " 2>" + (s / ".err");
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait for at least two measured points on disk.
    std::size_t points = 0;
    for (int i = 0; i < 400 && points < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      try {
        points = nlohmann::json::parse(slurp(out)).value("series", nlohmann::json::array()).size();
      } catch (const std::exception&) {
      }
    }
    ::kill(child, sig);
    int status = 0;
    ::waitpid(child, &status, 0);
    REQUIRE(points >= 2);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + sig);
    const std::string err = slurp(s / ".err");
    const std::string last = err.substr(err.rfind("gpuprobe: interrupted"));
    CHECK(lines(last) == 1);
    CHECK(last.find(sig == SIGINT ? "SIGINT" : "SIGTERM") != std::string::npos);
    CHECK(last.find("kept in " + out) != std::string::npos);
    CHECK(last.find("--resume") != std::string::npos);
    const auto cut = nlohmann::json::parse(slurp(out));
    CHECK(cut["status"] == "interrupted");
    const std::size_t kept = cut["series"].size();
    CHECK(last.find(std::to_string(kept) + " measured points") != std::string::npos);
    CHECK_FALSE(fs::exists(out + ".lock"));
    for (const auto& e : fs::directory_iterator(s.dir))
      CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
    if (sig == SIGTERM) continue;  // one resume is enough
    // Resume: the earlier points stay as they were, the rest are measured.
    const auto r = run(s, args + " --resume");
    REQUIRE(r.rc == 0);
    const auto done = nlohmann::json::parse(slurp(out));
    CHECK(done["status"] == "ok");
    REQUIRE(done["series"].size() > kept);
    for (std::size_t i = 0; i < kept; ++i) CHECK(done["series"][i] == cut["series"][i]);
  }
}

TEST_CASE("run-all refuses a folder with results, and --resume keeps complete records byte for "
          "byte and continues an interrupted one",
          "[cli][resume]") {
  // One full run-all on the simulator (about 5 s on 2 cores), shared by every check below.
  Scratch s;
  const std::string dir = s / "r";
  auto r = run(s, "run-all --no-plot --device sim:v100 --out " + dir);
  REQUIRE(r.rc == 0);
  const fs::path raw = fs::path(dir) / "raw";
  r = run(s, "run-all --no-plot --device sim:v100 --out " + dir);
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(r.err.find("--resume") != std::string::npos);
  CHECK(r.err.find("--force") != std::string::npos);
  CHECK(r.err.find("footprint_bytes=") == std::string::npos);
  // Cut one record to its first three points, as an interrupted run leaves it.
  const fs::path cut_path = raw / "memory_chase_shared.json";
  auto full = nlohmann::json::parse(slurp(cut_path));
  const std::size_t all_points = full["series"].size();
  REQUIRE(all_points > 3);
  auto cut = full;
  cut["status"] = "interrupted";
  cut["series"] = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) cut["series"].push_back(full["series"][i]);
  cut["series"][0]["marker"] = "measured before";  // tells a kept point from a re-measured one
  std::ofstream(cut_path) << cut.dump(2) << "\n";
  std::vector<std::pair<fs::path, std::string>> complete;
  for (const auto& e : fs::directory_iterator(raw))
    if (e.path() != cut_path) complete.emplace_back(e.path(), slurp(e.path()));
  REQUIRE(complete.size() == 23);  // the 24 runs of run_all_plan() but the cut one
  r = run(s, "run-all --no-plot --device sim:v100 --out " + dir + " --resume");
  REQUIRE(r.rc == 0);
  for (const auto& [path, text] : complete) {
    INFO(path);
    CHECK(slurp(path) == text);
  }
  const auto resumed = nlohmann::json::parse(slurp(cut_path));
  CHECK(resumed["status"] == "ok");
  CHECK(resumed["series"].size() == all_points);
  for (int i = 0; i < 3; ++i) CHECK(resumed["series"][i] == cut["series"][i]);
  CHECK(nlohmann::json::parse(slurp(fs::path(dir) / "machine_model.json"))["sources"].size() == 24);
  // --resume and --force together make no sense.
  r = run(s, "run-all --no-plot --device sim:v100 --out " + dir + " --resume --force");
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  // --force measures everything again: the point the resume kept is measured anew, and every
  // complete record is a new one.
  r = run(s, "run-all --no-plot --device sim:v100 --out " + dir + " --force");
  REQUIRE(r.rc == 0);
  CHECK_FALSE(nlohmann::json::parse(slurp(cut_path))["series"][0].contains("marker"));
  for (const auto& [path, text] : complete) {
    INFO(path);
    // A skipped probe's record (tcgen05, wgmma on a V100) has no points: run_probe keeps the
    // file it would replace with an identical one.
    if (nlohmann::json::parse(text)["status"] == "skipped") continue;
    CHECK(nlohmann::json::parse(slurp(path))["created_utc"] != nlohmann::json::parse(text)["created_utc"]);
  }
}

TEST_CASE("an interrupted run-all --force leaves a machine model that matches its records, and "
          "--resume continues the cut one",
          "[cli][resume][signals]") {
  Scratch s;
  const std::string dir = s / "r";
  const fs::path raw = fs::path(dir) / "raw";
  REQUIRE(run(s, "run-all --no-plot --device sim:v100 --out " + dir).rc == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    const std::string cmd = std::string("exec ") + GPUPROBE_EXE + " run-all --no-plot --device sim:v100 --force --out " +
                            dir + " >" + (s / ".out") + " 2>" + (s / ".err");
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Interrupt while a record is being measured again, once it holds a point: the old complete
  // record is then replaced by a cut one.
  bool seen_running = false;
  for (int i = 0; i < 2000 && !seen_running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (const auto& e : fs::directory_iterator(raw)) {
      if (e.path().extension() != ".json") continue;  // not a temporary being written
      try {
        const auto rec = nlohmann::json::parse(slurp(e.path()));
        if (rec.value("status", "") == "running" && !rec.value("series", nlohmann::json::array()).empty())
          seen_running = true;
      } catch (const std::exception&) {
      }
    }
  }
  ::kill(child, SIGINT);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(seen_running);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGINT);
  const std::string err = slurp(s / ".err");
  const std::string last = err.substr(err.rfind("gpuprobe: interrupted"));
  CHECK(lines(last) == 1);
  CHECK(last.find("--resume") != std::string::npos);
  // The record the signal cut (none if it landed just as that record completed, a rare race).
  fs::path cut_path;
  for (const auto& e : fs::directory_iterator(raw))
    if (e.path().extension() == ".json" &&
        nlohmann::json::parse(slurp(e.path())).value("status", "") == "interrupted")
      cut_path = e.path();
  if (cut_path.empty()) WARN("the signal cut no record: only the model's consistency is checked");
  // The model lists every record with the status it has now, and warns of the cut one: the old
  // model still called it complete.
  const auto model = nlohmann::json::parse(slurp(fs::path(dir) / "machine_model.json"));
  for (const auto& source : model["sources"]) {
    INFO(source["file"]);
    CHECK(source["status"] == nlohmann::json::parse(slurp(source["file"].get<std::string>()))["status"]);
  }
  CHECK(model["warnings"].size() == (cut_path.empty() ? 0u : 1u));
  if (cut_path.empty()) return;
  CHECK(model["warnings"][0].get<std::string>().find(cut_path.string()) == 0);
  // --resume continues the cut record from its last point and completes the model.
  const auto cut = nlohmann::json::parse(slurp(cut_path));
  const auto r = run(s, "run-all --no-plot --device sim:v100 --out " + dir + " --resume");
  REQUIRE(r.rc == 0);
  const auto resumed = nlohmann::json::parse(slurp(cut_path));
  CHECK(resumed["status"] == "ok");
  for (std::size_t i = 0; i < cut["series"].size(); ++i) CHECK(resumed["series"][i] == cut["series"][i]);
  const auto done = nlohmann::json::parse(slurp(fs::path(dir) / "machine_model.json"));
  CHECK(done["warnings"].empty());
  // Every probe ran to its end: "ok", or "skipped" as its record says (the tensor forms a V100
  // lacks); none is left interrupted.
  std::size_t ok = 0;
  for (const auto& source : done["sources"]) {
    INFO(source["file"]);
    CHECK(source["status"] == nlohmann::json::parse(slurp(source["file"].get<std::string>()))["status"]);
    CHECK((source["status"] == "ok" || source["status"] == "skipped"));
    ok += source["status"] == "ok";
  }
  CHECK(ok > done["sources"].size() / 2);
  // The V100 measures Volta's m8n8k4 f16 mma.sync forms: tensor/mma is ok, not skipped.
  std::size_t tensor_mma_ok = 0;
  for (const auto& source : done["sources"]) {
    const auto record = nlohmann::json::parse(slurp(source["file"].get<std::string>()));
    tensor_mma_ok += record.value("probe", std::string()) == "tensor/mma" && record["status"] == "ok";
  }
  CHECK(tensor_mma_ok == 1);
}

TEST_CASE("two runs into the same output at once: the second refuses in one line naming the first",
          "[cli][lock]") {
  Scratch s;
  const std::string out = s / "run.json", dir = s / "all";
  // The first of each pair runs for real (a long sweep), holding its lock while it measures.
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"probe memory/chase --device sim:h100 --min-footprint-bytes 4K --max-footprint-bytes 64M "
       "--points-per-octave 8 --out " + out,
       kSmallChase + "--out " + out},
      {"run-all --no-plot --device sim:h100 --out " + dir, "run-all --no-plot --device sim:h100 --force --out " + dir}};
  for (const auto& [first, second] : pairs) {
    INFO(first);
    const pid_t child = ::fork();
    if (child == 0) {
      const std::string cmd = std::string("exec ") + GPUPROBE_EXE + " " + first + " >" +
                              (s / ".out1") + " 2>" + (s / ".err1");
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait until the first has measured something, so it surely holds its lock.
    const std::string watched = first.rfind("probe", 0) == 0 ? out : dir + "/raw/memory_chase_default.json";
    bool measuring = false;
    for (int i = 0; i < 1000 && !measuring; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      try {
        measuring = !nlohmann::json::parse(slurp(watched)).value("series", nlohmann::json::array()).empty();
      } catch (const std::exception&) {
      }
    }
    const auto r = run(s, second);
    ::kill(child, SIGINT);
    ::waitpid(child, nullptr, 0);
    REQUIRE(measuring);
    CHECK(r.rc == 1);
    CHECK(lines(error_lines(r.err)) == 1);
    CHECK(r.err.find("in use by gpuprobe pid " + std::to_string(child) + " on " + host()) !=
          std::string::npos);
    CHECK(r.err.find("footprint_bytes=") == std::string::npos);  // measured nothing
  }
}

TEST_CASE("run-all --watchdog-seconds must be a positive finite number", "[cli][bounds]") {
  Scratch s;
  for (const char* value : {"nan", "inf", "-1", "1e9", "0"}) {
    INFO(value);
    const auto r = run(s, "run-all --no-plot --device sim:h100 --only launch/overhead --watchdog-seconds " +
                              std::string(value) + " --out " + (s / "x"));
    CHECK(r.rc == 1);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("--watchdog-seconds") != std::string::npos);
    CHECK_FALSE(fs::exists(s / "x"));
  }
}

TEST_CASE("a probe that lost its device context saves its points, exits 75, and --resume in a new "
          "process finishes it",
          "[cli][resume]") {
  Scratch s;
  const std::string out = s / "alu.json";
  const std::string args = "probe compute/alu --device sim:v100 --out " + out;
  // The test hook makes a run that does not resume end as after a sticky CUDA error.
  ::setenv("GPUPROBE_TEST_HOOKS", "1", 1);
  ::setenv("GPUPROBE_TEST_STICKY_PROBE", "compute/alu", 1);
  auto r = run(s, args);
  const auto lost = nlohmann::json::parse(slurp(out));
  INFO(r.err);
  CHECK(r.rc == 75);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(error_lines(r.err).find("sticky") != std::string::npos);
  CHECK(error_lines(r.err).find("--resume") != std::string::npos);
  CHECK(lost["status"] == "failed");
  REQUIRE(lost["series"].size() > 3);
  r = run(s, args + " --resume");
  ::unsetenv("GPUPROBE_TEST_STICKY_PROBE");
  ::unsetenv("GPUPROBE_TEST_HOOKS");
  REQUIRE(r.rc == 0);
  const auto done = nlohmann::json::parse(slurp(out));
  CHECK(done["status"] == "ok");
  CHECK(done["series"] == lost["series"]);  // every point kept, none measured again
  CHECK_FALSE(done.contains("error"));
}

TEST_CASE(
    "run-all --only into a complete folder fits the machine model from every record of the "
    "plan, and says which",
    "[cli][only]") {
  Scratch s;
  const std::string dir = s / "r", raw = dir + "/raw";
  const std::string base = "run-all --no-plot --quick --device sim:v100 --out " + dir;
  auto r = run(s, base + " --only launch,compute/alu");
  REQUIRE(r.rc == 0);
  const auto model = [&] { return nlohmann::json::parse(slurp(fs::path(dir) / "machine_model.json")); };
  const std::size_t metrics = model()["metrics"].size();
  REQUIRE(model()["sources"].size() == 4);
  CHECK(r.err.find("fitted from 4 record(s) in " + raw +
                   ": 4 measured by this run, 0 complete from before") != std::string::npos);
  CHECK(r.err.find("lower than --full's by construction") != std::string::npos);  // --quick
  // One probe measured again, or kept: the model still holds the whole folder.
  for (const auto& [again, origins] : std::vector<std::pair<std::string, std::string>>{
           {" --force --only launch/overhead", "1 measured by this run, 3 complete from before"},
           {" --resume --only compute/alu", "0 measured by this run, 4 complete from before"}}) {
    INFO(again);
    r = run(s, base + again);
    CHECK(r.rc == 0);
    CHECK(model()["sources"].size() == 4);
    CHECK(model()["metrics"].size() == metrics);
    CHECK(r.err.find("fitted from 4 record(s) in " + raw + ": " + origins) != std::string::npos);
  }
  // --quick forgotten: each --quick record left out says to add it, as the resume refusal does.
  r = run(s, "run-all --no-plot --device sim:v100 --out " + dir + " --force --only launch/overhead");
  CHECK(r.rc == 0);
  CHECK(r.err.find("left out of the model: ") != std::string::npos);
  CHECK(r.err.find(": it is a run of run-all --quick, so add --quick") != std::string::npos);
  REQUIRE(run(s, base + " --force --only launch/overhead").rc == 0);
  // A record of another device, and a file that is no run of the plan: left out, and named.
  REQUIRE(run(s, "probe launch/overhead --device sim:a100 --out " + raw + "/launch_overhead.json").rc == 0);
  std::ofstream(raw + "/notes.json") << "{}";
  r = run(s, base + " --force --only compute/alu");
  CHECK(r.rc == 0);
  CHECK(model()["sources"].size() == 3);
  CHECK(r.err.find("  left out of the model: " + raw +
                   "/launch_overhead.json was measured on NVIDIA A100 40GB (simulated), not on Tesla "
                   "V100-PCIE-16GB (simulated)") != std::string::npos);
  CHECK(r.err.find("  left out of the model: " + raw + "/notes.json is no run of run-all's --quick plan") !=
        std::string::npos);
}

TEST_CASE(
    "a refused --resume names what differs, and a corrupt record's refusal does not steer to "
    "--force",
    "[cli][resume]") {
  Scratch s;
  const std::string dir = s / "r", raw = dir + "/raw";
  REQUIRE(run(s, "run-all --no-plot --quick --device sim:v100 --only launch/graph --out " + dir).rc == 0);
  // The --full plan measures other nodes: the parameter is named, and the profile that has it.
  auto r = run(s, "run-all --no-plot --device sim:v100 --only launch/graph --resume --out " + dir);
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(r.err.find("was measured with --nodes 1,8,64,128, this run measures --nodes ") != std::string::npos);
  CHECK(r.err.find("add --quick") != std::string::npos);
  // Another preset of the same name: the preset is named.
  r = run(s, "run-all --no-plot --quick --device sim:v100,slowdown=1.3 --only launch/graph --resume --out " +
                 dir);
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(r.err.find("with sim_preset v100, not v100,slowdown=1.3") != std::string::npos);
  // A corrupt record: moving it away measures that probe again; --force would measure all.
  std::ofstream(raw + "/launch_graph.json") << "{";
  r = run(s, "run-all --no-plot --quick --device sim:v100 --only launch/graph --resume --out " + dir);
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(r.err.find("move it away and --resume measures that probe again") != std::string::npos);
  CHECK(r.err.find("--force measures it again") == std::string::npos);
}

TEST_CASE("a test hook left set changes no plain probe and says so, and a hung hook stops at a signal",
          "[cli][hooks]") {
  Scratch s;
  const std::string out = s / "alu.json";
  auto r = gpuprobe::test::run_gpuprobe(
      s, "probe compute/alu --device sim:v100 --out " + out,
      "GPUPROBE_TEST_FAIL_PROBE=compute/alu GPUPROBE_TEST_HANG_PROBE=compute/alu");
  CHECK(r.rc == 0);
  CHECK(nlohmann::json::parse(slurp(out))["status"] == "ok");
  CHECK(r.err.find("gpuprobe: warning: GPUPROBE_TEST_FAIL_PROBE=compute/alu is set and ignored") !=
        std::string::npos);
  CHECK(r.err.find("gpuprobe: warning: GPUPROBE_TEST_HANG_PROBE=compute/alu is set and ignored") !=
        std::string::npos);
  // Asked for (GPUPROBE_TEST_HOOKS=1): it hangs once its points are measured, and SIGTERM stops it.
  const std::string hung = s / "hung.json";
  const pid_t child = ::fork();
  if (child == 0) {
    const std::string cmd = std::string(
                                "GPUPROBE_TEST_HOOKS=1 GPUPROBE_TEST_HANG_PROBE=launch/overhead exec ") +
                            GPUPROBE_EXE + " probe launch/overhead --device sim:v100 --out " + hung + " >" +
                            (s / ".out") + " 2>" + (s / ".err");
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Hanging: its record holds points and has not changed for two seconds.
  std::string last;
  int still = 0;
  for (int i = 0; i < 600 && still < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string now = slurp(hung);
    bool points = false;
    try {
      points = !nlohmann::json::parse(now).value("series", nlohmann::json::array()).empty();
    } catch (const std::exception&) {
    }
    still = points && now == last ? still + 1 : 0;
    last = now;
  }
  REQUIRE(still >= 20);
  ::kill(child, SIGTERM);
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 100 && !ended; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ended = ::waitpid(child, &status, WNOHANG) == child;
  }
  if (!ended) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
  }
  CHECK(ended);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM));
  CHECK(nlohmann::json::parse(slurp(hung))["status"] == "interrupted");
  CHECK_FALSE(fs::exists(hung + ".lock"));
  const std::string err = slurp(s / ".err");
  CHECK(err.find("the test hook GPUPROBE_TEST_HANG_PROBE=launch/overhead is on") != std::string::npos);
  CHECK(err.find("gpuprobe: interrupted by SIGTERM") != std::string::npos);
}

// Issue 20: one op's failed self-check fails that op's points only. The simulator, asked by the
// test hook, gives the op a wrong result; the probe measures every other op and exits 1, in one
// line naming the failed points; each holds its evidence and names its sidecar.
namespace {
const std::string kFailSelfCheck = "GPUPROBE_TEST_HOOKS=1 GPUPROBE_TEST_FAIL_SELF_CHECK=";

// The record at `path` after a run whose points `failed_op` failed: every other point measured
// (or skipped for what the device lacks), every failed one with its evidence and its sidecar,
// which this returns (the first).
nlohmann::json check_failed_op(const std::string& path, const std::string& failed_op, std::size_t failures) {
  const auto record = nlohmann::json::parse(slurp(path));
  CHECK(record["status"] == "failed");
  nlohmann::json sidecar;
  std::size_t failed = 0, measured = 0;
  for (const auto& p : record["series"]) {
    INFO(p.dump());
    if (p["op"] != failed_op) {
      CHECK((p.contains("skipped") || p["self_check"] == "passed" || p["self_check"].value("passed", false)));
      measured += !p.contains("skipped");
      continue;
    }
    ++failed;
    CHECK(p["self_check"]["passed"] == false);
    CHECK_FALSE(p.contains("repeats"));  // no timing
    CHECK_FALSE(p["self_check"]["reason"].get<std::string>().empty());
    const fs::path file = fs::path(path).parent_path() / p["self_check"]["sidecar"].get<std::string>();
    REQUIRE(fs::exists(file));
    if (sidecar.is_null()) sidecar = nlohmann::json::parse(slurp(file));
  }
  CHECK(failed == failures);
  CHECK(measured > 4);
  return sidecar;
}
}  // namespace

TEST_CASE("probe: an op-table op whose self-check fails is recorded as failed and the others measured",
          "[cli][hooks][self_check]") {
  Scratch s;
  const std::string out = s / "alu.json";
  auto r = gpuprobe::test::run_gpuprobe(s, "probe compute/alu --device sim:h100 --out " + out,
                                        kFailSelfCheck + "compute/alu:fma_rn_f32");
  INFO(r.err);
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(error_lines(r.err).find("self-check failed at 2 of ") != std::string::npos);
  CHECK(error_lines(r.err).find("fma_rn_f32 latency, fma_rn_f32 throughput") != std::string::npos);
  CHECK(r.err.find("GPUPROBE_TEST_FAIL_SELF_CHECK=compute/alu:fma_rn_f32 is on") != std::string::npos);
  const auto sidecar = check_failed_op(out, "fma_rn_f32", 2);
  CHECK(sidecar["schema"] == "gpuprobe.selfcheck");
  CHECK(sidecar["wrong"][0]["chains"][0]["xor"] == "0x80000000");
  // The same run without GPUPROBE_TEST_HOOKS=1: nothing planted, every point passes.
  r = gpuprobe::test::run_gpuprobe(s, "probe compute/alu --device sim:h100 --out " + (s / "plain.json"),
                                   "GPUPROBE_TEST_FAIL_SELF_CHECK=compute/alu:fma_rn_f32");
  CHECK(r.rc == 0);
  CHECK_FALSE(fs::exists(s / "plain.selfcheck"));
}

TEST_CASE("probe: a sync op whose self-check fails keeps the others, and its sidecar holds the lanes",
          "[cli][hooks][self_check]") {
  Scratch s;
  const std::string out = s / "sync.json";
  auto r = gpuprobe::test::run_gpuprobe(s,
                                        "probe sync/primitives --device sim:h100 --kind latency --out " + out,
                                        kFailSelfCheck + "sync/primitives:shfl_idx");
  INFO(r.err);
  CHECK(r.rc == 1);
  CHECK(error_lines(r.err).find("shfl_idx latency") != std::string::npos);
  const auto sidecar = check_failed_op(out, "shfl_idx", 1);
  REQUIRE(sidecar["chains"].size() >= 1);
  CHECK(sidecar["chains"][0]["lanes"].size() == 32);
  CHECK(sidecar["wrong"][0]["chains"][0]["matches"] == "chain 0 after one op fewer");
}

TEST_CASE("probe: a tensor form whose tile is transposed fails alone, and the sidecar names the transpose",
          "[cli][hooks][self_check]") {
  Scratch s;
  const std::string out = s / "mma.json";
  auto r = gpuprobe::test::run_gpuprobe(
      s, "probe tensor/mma --device sim:h100 --kind latency --operands random --out " + out,
      kFailSelfCheck + "tensor/mma:mma_m16n8k16_f16_f32:transpose");
  INFO(r.err);
  CHECK(r.rc == 1);
  CHECK(error_lines(r.err).find("self-check failed at 1 of ") != std::string::npos);
  CHECK(error_lines(r.err).find("mma_m16n8k16_f16_f32 latency random") != std::string::npos);
  const auto sidecar = check_failed_op(out, "mma_m16n8k16_f16_f32", 1);
  CHECK(sidecar["matches"] == "transpose");
  CHECK(sidecar["raw_words"].size() % 32 == 0);  // every lane's D words
  CHECK_FALSE(sidecar["raw_words"].empty());
  const auto record = nlohmann::json::parse(slurp(out));
  for (const auto& p : record["series"])
    if (p["op"] == "mma_m16n8k16_f16_f32") CHECK(p["self_check"]["evidence"]["matches"] == "transpose");
  // wgmma's operands come through shared-memory descriptors: a swapped LBO and SBO is named too.
  const std::string wgmma = s / "wgmma.json";
  r = gpuprobe::test::run_gpuprobe(s,
                                   "probe tensor/wgmma --device sim:h100 --op wgmma_m64n64k16_f16_f32_ss --kind "
                                   "latency --operands random --out " +
                                       wgmma,
                                   kFailSelfCheck + "tensor/wgmma:wgmma_m64n64k16_f16_f32_ss:lbo_sbo_b");
  CHECK(r.rc == 1);
  const auto w = nlohmann::json::parse(slurp(wgmma));
  REQUIRE(w["series"].size() == 1);
  const auto& point = w["series"][0];
  CHECK(point["self_check"]["evidence"]["matches"] == "lbo_sbo_b");
  CHECK(nlohmann::json::parse(slurp(s / point["self_check"]["sidecar"].get<std::string>()))["matches"] ==
        "lbo_sbo_b");
}

TEST_CASE(
    "run-all: a probe with a failed self-check is failed, keeps its points, and the model leaves them out",
    "[cli][hooks][self_check]") {
  Scratch s;
  const std::string dir = s / "r";
  auto r = gpuprobe::test::run_gpuprobe(
      s, "run-all --no-plot --quick --device sim:v100 --only compute/alu --out " + dir,
      kFailSelfCheck + "compute/alu:fma_rn_f32");
  INFO(r.err);
  CHECK(r.rc == 1);
  CHECK(r.err.find("failed compute/alu") != std::string::npos);
  CHECK(r.err.find("self-check failed at 2 of ") != std::string::npos);
  const auto record = nlohmann::json::parse(slurp(fs::path(dir) / "raw" / "compute_alu.json"));
  CHECK(record["status"] == "failed");
  const auto model = nlohmann::json::parse(slurp(fs::path(dir) / "machine_model.json"));
  bool listed = false;
  for (const auto& src : model["sources"])
    if (src["probe"] == "compute/alu") {
      listed = true;
      CHECK(src["self_check"] == "failed");
      CHECK(src["self_check_failed_points"] == 2);
      CHECK_FALSE(src.contains("error"));  // the other ops are fitted
    }
  CHECK(listed);
  CHECK_FALSE(model["compute"]["ops"].contains("fma_rn_f32"));  // its points are left out
  CHECK(model["compute"]["ops"].contains("fma_rn_f64"));         // the others are fitted
  CHECK(model["warnings"].dump().find("2 point(s) of this compute/alu record failed their self-check") !=
        std::string::npos);
}

TEST_CASE("run-all checks --out '' and a device before it makes a folder", "[cli][outputs]") {
  Scratch s;
  // --out '' is no folder (it used to mean results/<device> in the current folder).
  auto r = gpuprobe::test::run_gpuprobe(
      s, "run-all --no-plot --device sim:v100 --only launch/overhead --out ''", "", s.dir);
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("--out ''") != std::string::npos);
  CHECK_FALSE(fs::exists(s / "results"));
  // A device that cannot be opened leaves no empty folder behind.
  r = run(s, "run-all --no-plot --device sim:nope --out " + (s / "new") + "/run");
  CHECK(r.rc == 1);
  CHECK(lines(r.err) == 1);
  CHECK_FALSE(fs::exists(s / "new"));
}

TEST_CASE("probe refuses a folder a run-all is writing, and names its output when it cannot write",
          "[cli][lock]") {
  Scratch s;
  // A live run-all (here the test's own pid, a gpuprobe_tests) holds the folder.
  fs::create_directories(s / "all/raw");
  std::ofstream(s / "all/.gpuprobe.lock") << ::getpid() << " " << host() << "\n";
  for (const std::string out : {s / "all/raw/memory_tlb.json", s / "all/mine.json"}) {
    INFO(out);
    const auto r = run(s, "probe launch/overhead --device sim:v100 --out " + out);
    CHECK(r.rc == 1);
    CHECK(lines(error_lines(r.err)) == 1);
    CHECK(r.err.find("which gpuprobe run-all pid " + std::to_string(::getpid())) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  // Where nothing can be created (/proc): the message names the output, not its lock file.
  const auto r = gpuprobe::test::run_gpuprobe(s, "probe launch/overhead --device sim:v100 --out x.json", "",
                                              "/proc");
  CHECK(r.rc == 1);
  CHECK(lines(error_lines(r.err)) == 1);
  CHECK(r.err.find("gpuprobe: error: cannot write x.json: ") != std::string::npos);
  CHECK(r.err.find("lock") == std::string::npos);
}

}  // namespace GPUPROBE_TEST_FILE
