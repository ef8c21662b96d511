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
inline constexpr int kModelSchemaVersion = 1;

nlohmann::json to_json(const DeviceInfo& info);
std::string utc_timestamp();

// Write to PATH.tmp-<pid>, fsync, rename over PATH: readers see the old or the new file, never
// half of one. Creates missing parent directories. Throws gpuprobe::Error on failure.
void write_json_atomically(const std::string& path, const nlohmann::json& doc);

// Reads a JSON file; throws a one-line gpuprobe::Error naming the file on any problem.
nlohmann::json read_json_file(const std::string& path);

}  // namespace gpuprobe
