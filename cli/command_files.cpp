#include "cli/command_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <streambuf>
#include <vector>

#include "harness/error.hpp"
#include "harness/results.hpp"

namespace gpuprobe {

namespace fs = std::filesystem;

std::string model_file(const std::string& input) {
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return input;
  const std::string file = (fs::path(input) / "machine_model.json").string();
  if (!fs::is_regular_file(file, ec))
    throw Error(input +
                " is a folder without machine_model.json (run-all writes one; or give the model's file)");
  return file;
}

nlohmann::json read_model_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(path + " is a folder, not a machine model file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (const auto nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    throw Error(path + " is not valid JSON: " + what);
  } catch (const std::exception& e) {  // a read error of the stream (an I/O error, a special file)
    throw Error("cannot read " + path + ": " + e.what());
  }
}

std::string without_json(const std::string& path) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0)
    return path.substr(0, path.size() - 5);
  return path;
}

std::string output_prefix(const std::string& out, const std::string& stem, const std::string& fallback) {
  if (out.empty()) return fallback;
  std::error_code ec;
  if (out.back() == '/' || fs::is_directory(out, ec)) return (fs::path(out) / stem).string();
  return out;
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

}  // namespace

void write_stream_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  check_output_path(path);
  const std::string real = resolve_output_path(path);
  const fs::path target(real);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw Error("cannot create directory " + target.parent_path().string() + ": " + ec.message());
  }
  remove_stale_temporaries({real});  // a killed roofline's 50 MB temporary, say
  const std::string tmp = temporary_path(real, ::getpid());  // FILE.tmp-<host>-<pid>, as every writer
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

bool published_model(const nlohmann::json& model) {
  if (!model.is_object()) return false;
  if (model.contains("source") && model["source"].is_string()) return model["source"] == "published";
  if (!model.contains("metrics") || !model["metrics"].is_array() || model["metrics"].empty()) return false;
  for (const auto& m : model["metrics"])
    if (!m.is_object() || m.value("source", nlohmann::json()) != "published") return false;
  return true;
}

}  // namespace gpuprobe
