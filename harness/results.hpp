// Versioned JSON results (docs/SCHEMA.md) and atomic writes. A run record is rewritten after
// every measured point, so an interrupted or failing run keeps everything measured so far.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/device.hpp"

namespace gpuprobe {

inline constexpr const char* kRunSchema = "gpuprobe.run";
inline constexpr int kRunSchemaVersion = 1;
inline constexpr const char* kModelSchema = "gpuprobe.machine_model";
inline constexpr int kModelSchemaVersion = 2;

nlohmann::json to_json(const DeviceInfo& info);
std::string utc_timestamp();

// Write to PATH.tmp-<pid>, fsync, rename over PATH: readers see the old or the new file, never
// half of one, and a hard link to the old file keeps the old content. Creates missing parent
// directories. A symbolic link is written through to its target (the link stays a link); a path
// that is, or links to, anything but a regular file (folder, device, FIFO, socket) is refused.
// Throws gpuprobe::Error on failure.
void write_json_atomically(const std::string& path, const nlohmann::json& doc);

// The same for any text (a Markdown table, a CSV): `text` as it is.
void write_text_atomically(const std::string& path, const std::string& text);

// Refuses, in one line, an output path that exists (through symbolic links) and is not a regular
// file: the check write_json_atomically makes, for a command to make before it starts.
void check_output_path(const std::string& path);

// Where a write to `path` lands: the end of its chain of symbolic links, or `path` itself.
std::string resolve_output_path(const std::string& path);

// Whether two paths name the same existing file (same device and inode): not string equality.
bool same_file(const std::string& a, const std::string& b);

// Removes the temporaries (NAME.tmp-<pid>) that a killed gpuprobe left in `dir`, those whose
// process is gone on this host. Returns how many it removed; a missing folder has none.
std::size_t remove_stale_temporaries(const std::string& dir);

// Reads a JSON file; throws a one-line gpuprobe::Error naming the file on any problem.
nlohmann::json read_json_file(const std::string& path);

}  // namespace gpuprobe
