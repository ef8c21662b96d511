// Driver telemetry: what the NVIDIA driver (NVML) says about the GPU around a measurement -- its
// clocks, why they are held down, who else runs on it. A latency in cycles is only comparable with
// another when both know the SM clock was not capped and no other process shared the caches.
//
// NVML is loaded with dlopen when first asked for, never linked: a machine without the driver
// (the simulator path, CI) builds, links and runs the same binary, and its records say why there
// is no telemetry instead of failing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuprobe {

struct TelemetrySnapshot {
  bool available = false;
  std::string unavailable_reason;  // one line, set when !available
  // The readings, keyed as in to_json. A reading NVML cannot give (a function this driver lacks,
  // one the device does not support) is null, and "null_reasons" says why; it never makes the
  // whole snapshot unavailable.
  nlohmann::json fields = nlohmann::json::object();
};

// The library dlopen loads: $GPUPROBE_NVML_LIBRARY if set and not empty, else libnvidia-ml.so.1
// (the driver installs only the versioned name; the unversioned one comes with the toolkit).
std::string nvml_library_path();

// Reads the device with this PCI bus id, as cudaDeviceGetPCIBusId returns it ("0000:00:06.0").
// NVML is opened and initialised once per process and library path, then kept open; a later call
// after $GPUPROBE_NVML_LIBRARY changed opens the new path. Thread-safe. Throws nothing: every
// failure is an unavailable snapshot with its reason.
TelemetrySnapshot read_telemetry(const std::string& pci_bus_id);

// {"available": false, "reason": "..."} or {"available": true, <fields>}:
//   name, sm_clock_mhz, mem_clock_mhz, max_sm_clock_mhz, applications_sm_clock_mhz,
//   default_applications_sm_clock_mhz, applications_clocks_locked (the applications SM clock
//   differs from its default), clock_event_reasons (names), clock_event_reasons_mask, throttled
//   (a reason other than gpu_idle and applications_clocks_setting), mig_mode ("enabled",
//   "disabled"), compute_processes ([{pid, used_memory_bytes}]), other_processes (those whose pid
//   is not this process's), persistence_mode, performance_state ("P0".."P15"), temperature_c,
//   power_w, power_limit_w, nvml_library, null_reasons ({field: why it is null}).
nlohmann::json to_json(const TelemetrySnapshot& snapshot);

// One line for logs: "NVIDIA H100 ...: SM 1755 MHz (max 1980), P0, 47 C, ..." or the reason.
std::string describe(const TelemetrySnapshot& snapshot);

// Names of the set bits of an NVML clocks-event-reasons mask, lowest bit first ("gpu_idle",
// "sw_power_cap", ...); a bit NVML did not document when this was written is named in hex
// ("0x200"), so a newer driver's reason is shown rather than dropped.
std::vector<std::string> clock_event_reason_names(uint64_t mask);

// Whether a mask holds down the clocks: any reason but gpu_idle and applications_clocks_setting
// (a bit unknown to us counts: better a measurement flagged for nothing than a cap unflagged).
bool clock_event_reasons_throttle(uint64_t mask);

}  // namespace gpuprobe
