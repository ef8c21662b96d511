// Versioned JSON results (docs/SCHEMA.md) and atomic writes. A run record is rewritten after
// every measured point, so an interrupted or failing run keeps everything measured so far.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/device.hpp"

namespace gpuprobe {

inline constexpr const char* kRunSchema = "gpuprobe.run";
inline constexpr int kRunSchemaVersion = 1;
inline constexpr const char* kModelSchema = "gpuprobe.machine_model";
inline constexpr int kModelSchemaVersion = 2;

nlohmann::json to_json(const DeviceInfo& info);
std::string utc_timestamp();

// This machine's host name, as written in lock files and temporaries' names.
std::string host_name();

// The temporary through which process `pid` of this host writes `real_path` (a path links are
// resolved in): REAL_PATH.tmp-<host>-<pid>. The host is in the name so that on a file system that
// several machines share, no run takes another machine's pid for one of its own.
std::string temporary_path(const std::string& real_path, long pid);

// Write to temporary_path(PATH, this pid), fsync, rename over PATH: readers see the old or the new file, never
// half of one (the stale temporaries of PATH that killed runs of this host left are removed first), and a hard link to the old file keeps the old content. Creates missing parent
// directories. A symbolic link is written through to its target (the link stays a link); a path
// that is, or links to, anything but a regular file (folder, device, FIFO, socket) is refused.
// Throws gpuprobe::Error on failure.
void write_json_atomically(const std::string& path, const nlohmann::json& doc);

// The same for any text (a Markdown table, a CSV): `text` as it is.
void write_text_atomically(const std::string& path, const std::string& text);

// The same from `write` called on a stream of the temporary file: a large document (the roofline
// of 10^5 kernels) is written as it is made, never held whole. Throws gpuprobe::Error on failure
// (the temporary removed).
void write_stream_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Refuses, in one line, an output path that exists (through symbolic links) and is not a regular
// file: the check write_json_atomically makes, for a command to make before it starts.
void check_output_path(const std::string& path);

// Where a write to `path` lands: the end of its chain of symbolic links, or `path` itself.
std::string resolve_output_path(const std::string& path);

// Whether two paths name the same existing file (same device and inode): not string equality.
bool same_file(const std::string& a, const std::string& b);

// Removes the temporaries that a killed gpuprobe of this host left for `files` (the files the
// calling command writes, as given to write_json_atomically): temporary_path(FILE, pid) of a pid
// that no process of this host has. Any other file, another host's temporary included, is left as
// it is. Returns how many it removed.
std::size_t remove_stale_temporaries(const std::vector<std::string>& files);

// Reads a JSON file; throws a one-line gpuprobe::Error naming the file on any problem.
nlohmann::json read_json_file(const std::string& path);

}  // namespace gpuprobe
