#include "harness/telemetry.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace gpuprobe {
namespace {

// ---- NVML's C interface, as far as we use it -----------------------------------------------
// Declared here from the NVML API reference: nvml.h ships with the CUDA toolkit, not with the
// driver, and this file must build where neither is installed. Enum arguments are passed as int,
// which is what a C enum whose values fit an int is in the x86-64 and AArch64 ABIs.
using nvmlReturn_t = int;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlErrorInsufficientSize = 7;

constexpr int kNvmlClockSm = 1;  // nvmlClockType_t: GRAPHICS = 0, SM = 1, MEM = 2
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;
constexpr unsigned kNvmlDeviceMigDisable = 0;
constexpr unsigned kNvmlDeviceMigEnable = 1;
constexpr int kNvmlFeatureEnabled = 1;  // nvmlEnableState_t
constexpr int kNvmlPstateHighest = 15;  // P0..P15; NVML_PSTATE_UNKNOWN = 32
constexpr unsigned long long kNvmlValueNotAvailable = ULLONG_MAX;
constexpr unsigned kNvmlDeviceNameV2BufferSize = 96;

// The entries nvmlDeviceGetComputeRunningProcesses* fill. Which layout a call writes depends on
// the symbol *and* on the driver release, not on the symbol alone:
//   plain (every driver)           v1: pid, usedGpuMemory                                    16 B
//   _v2                            v2: v1 + gpuInstanceId, computeInstanceId                 24 B
//   _v3, most drivers              v2 again: R510-R530 shipped _v3 with the v2 struct, and
//                                  the drivers that have nvmlDeviceGetRunningProcessDetailList
//                                  went back to it (the v3 struct moved to that function)
//   _v3, early R535 only           v3: v2 + usedGpuCcProtectedMemory                         32 B
// Early R535 is told apart the way nvitop does it: nvmlDeviceGetConfComputeMemSizeInfo (came with
// R535) present, nvmlDeviceGetRunningProcessDetailList absent (driver 580.159 on an H100 has both
// and writes 24-byte _v3 entries). pid and usedGpuMemory sit at the same offsets in all three, so
// only the stride differs.
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};
struct ProcessInfoV2 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
struct ProcessInfoV3 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;
};
static_assert(sizeof(ProcessInfoV1) == 16 && sizeof(ProcessInfoV2) == 24 &&
              sizeof(ProcessInfoV3) == 32, "NVML process entries: LP64 layout expected");
static_assert(offsetof(ProcessInfoV1, usedGpuMemory) == 8 &&
              offsetof(ProcessInfoV2, usedGpuMemory) == 8 &&
              offsetof(ProcessInfoV3, usedGpuMemory) == 8);

using InitFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using HandleByBusIdFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using NameFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned);
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*);  // clock info, app clocks
using MaskFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);
using MigModeFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*);
using ProcessesFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*, void*);
using EnumFn = nvmlReturn_t (*)(nvmlDevice_t, int*);              // persistence, P-state
using TemperatureFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*);
using MilliwattFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*);

// A function from the library and the name it was found under, for the reasons we give.
template <class Fn>
struct Symbol {
  Fn fn = nullptr;
  const char* name = "";
};

struct ReasonBit {
  uint64_t bit;
  const char* name;
};
// nvmlClocksEventReason* (formerly nvmlClocksThrottleReason*), as documented.
constexpr ReasonBit kReasonBits[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};
constexpr uint64_t kNotThrottling = 0x1 | 0x2;  // idle, or clocks the user asked for

constexpr const char* kNotRecorded = ": driver telemetry not recorded";

TelemetrySnapshot unavailable(std::string reason) {
  TelemetrySnapshot s;
  s.unavailable_reason = std::move(reason);
  return s;
}

// The readings of one snapshot: a field is set, or null with the reason it is null.
class Record {
 public:
  void set(const char* field, nlohmann::json value) { fields_[field] = std::move(value); }
  void null(const char* field, const std::string& why) {
    fields_[field] = nullptr;
    reasons_[field] = why;
  }
  const nlohmann::json& get(const char* field) const { return fields_.at(field); }
  nlohmann::json finish() && {
    fields_["null_reasons"] = std::move(reasons_);
    return std::move(fields_);
  }

 private:
  nlohmann::json fields_ = nlohmann::json::object();
  nlohmann::json reasons_ = nlohmann::json::object();
};

// One opened, initialised NVML library. Immutable once built, so threads read through it without
// a lock (NVML's functions are themselves thread-safe).
class Session {
 public:
  explicit Session(std::string path) : path_(std::move(path)) { open(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  TelemetrySnapshot read(const std::string& pci_bus_id) const;

 private:
  void open();
  template <class Fn>
  Symbol<Fn> symbol(const char* name) const {
    // POSIX guarantees a function's address survives the void* dlsym returns.
    return {reinterpret_cast<Fn>(dlsym(library_, name)), name};
  }
  std::string error_text(nvmlReturn_t r) const;
  // Sets `fields` null: `f` is missing from this NVML, or returned `r`.
  template <class Fn>
  void fail(Record& record, std::initializer_list<const char*> fields, const Symbol<Fn>& f,
            nvmlReturn_t r) const {
    const std::string why = f.fn == nullptr ? std::string(f.name) + " is not in this NVML"
                                            : std::string(f.name) + ": " + error_text(r);
    for (const char* field : fields) record.null(field, why);
  }
  // Calls a reading function if this NVML has it; false (and `fields` null) when that fails.
  template <class Fn, class... Args>
  bool call(Record& record, std::initializer_list<const char*> fields, const Symbol<Fn>& f,
            Args... args) const {
    const nvmlReturn_t r = f.fn != nullptr ? f.fn(args...) : kNvmlSuccess;
    if (f.fn != nullptr && r == kNvmlSuccess) return true;
    fail(record, fields, f, r);
    return false;
  }
  void read_clocks(Record& record, nvmlDevice_t device) const;
  void read_processes(Record& record, nvmlDevice_t device) const;

  std::string path_;
  std::string failure_;  // why this session cannot read anything; empty when it can
  void* library_ = nullptr;
  Symbol<ErrorStringFn> error_string_;
  Symbol<HandleByBusIdFn> handle_by_bus_id_;
  Symbol<NameFn> name_;
  Symbol<ClockFn> clock_info_, max_clock_info_, applications_clock_, default_applications_clock_;
  Symbol<MaskFn> clock_event_reasons_;
  Symbol<MigModeFn> mig_mode_;
  Symbol<ProcessesFn> processes_;
  std::size_t process_stride_ = 0;
  Symbol<EnumFn> persistence_mode_, performance_state_;
  Symbol<TemperatureFn> temperature_;
  Symbol<MilliwattFn> power_usage_, power_limit_;
};

void Session::open() {
  dlerror();
  library_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* raw = dlerror();
    const std::string why = raw != nullptr ? raw : "";
    if (why.empty() || why.find("No such file") != std::string::npos)
      failure_ = "NVML (" + path_ + ") not found" + kNotRecorded;
    else
      failure_ = "NVML (" + path_ + ") cannot be loaded: " + why + kNotRecorded;
    return;
  }
  // A library that loaded but failed below stays loaded: it is one per path and process, and
  // dlclose on a half-used driver library buys nothing.
  error_string_ = symbol<ErrorStringFn>("nvmlErrorString");
  const auto init = symbol<InitFn>("nvmlInit_v2");
  handle_by_bus_id_ = symbol<HandleByBusIdFn>("nvmlDeviceGetHandleByPciBusId_v2");
  for (const char* missing : {init.fn == nullptr ? init.name : nullptr,
                              handle_by_bus_id_.fn == nullptr ? handle_by_bus_id_.name : nullptr}) {
    if (missing == nullptr) continue;
    failure_ = "NVML (" + path_ + ") has no " + missing + " (driver too old?)" + kNotRecorded;
    return;
  }
  // Never paired with nvmlShutdown: the session lives as long as the process (see session_for).
  if (const nvmlReturn_t r = init.fn(); r != kNvmlSuccess) {
    failure_ = "NVML (" + path_ + ") init failed: " + error_text(r) + kNotRecorded;
    return;
  }
  name_ = symbol<NameFn>("nvmlDeviceGetName");
  clock_info_ = symbol<ClockFn>("nvmlDeviceGetClockInfo");
  max_clock_info_ = symbol<ClockFn>("nvmlDeviceGetMaxClockInfo");
  applications_clock_ = symbol<ClockFn>("nvmlDeviceGetApplicationsClock");
  default_applications_clock_ = symbol<ClockFn>("nvmlDeviceGetDefaultApplicationsClock");
  // Renamed in R535 (same function, same bits); older drivers have only the old name.
  clock_event_reasons_ = symbol<MaskFn>("nvmlDeviceGetCurrentClocksEventReasons");
  if (clock_event_reasons_.fn == nullptr)
    clock_event_reasons_ = symbol<MaskFn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  mig_mode_ = symbol<MigModeFn>("nvmlDeviceGetMigMode");
  // Newest first; the stride follows the table at ProcessInfoV1.
  processes_ = symbol<ProcessesFn>("nvmlDeviceGetComputeRunningProcesses_v3");
  if (processes_.fn != nullptr) {
    const bool early_r535 = dlsym(library_, "nvmlDeviceGetConfComputeMemSizeInfo") != nullptr &&
                            dlsym(library_, "nvmlDeviceGetRunningProcessDetailList") == nullptr;
    process_stride_ = early_r535 ? sizeof(ProcessInfoV3) : sizeof(ProcessInfoV2);
  } else if ((processes_ = symbol<ProcessesFn>("nvmlDeviceGetComputeRunningProcesses_v2")).fn) {
    process_stride_ = sizeof(ProcessInfoV2);
  } else {
    processes_ = symbol<ProcessesFn>("nvmlDeviceGetComputeRunningProcesses");
    process_stride_ = sizeof(ProcessInfoV1);
  }
  persistence_mode_ = symbol<EnumFn>("nvmlDeviceGetPersistenceMode");
  performance_state_ = symbol<EnumFn>("nvmlDeviceGetPerformanceState");
  temperature_ = symbol<TemperatureFn>("nvmlDeviceGetTemperature");
  power_usage_ = symbol<MilliwattFn>("nvmlDeviceGetPowerUsage");
  power_limit_ = symbol<MilliwattFn>("nvmlDeviceGetEnforcedPowerLimit");
}

std::string Session::error_text(nvmlReturn_t r) const {
  const char* text = error_string_.fn != nullptr ? error_string_.fn(r) : nullptr;
  return std::string(text != nullptr ? text : "NVML error") + " (error " + std::to_string(r) + ")";
}

TelemetrySnapshot Session::read(const std::string& pci_bus_id) const {
  if (!failure_.empty()) return unavailable(failure_);
  if (pci_bus_id.empty())
    return unavailable(std::string("no PCI bus id to look up in NVML") + kNotRecorded);
  nvmlDevice_t device = nullptr;
  if (const nvmlReturn_t r = handle_by_bus_id_.fn(pci_bus_id.c_str(), &device); r != kNvmlSuccess)
    return unavailable("NVML (" + path_ + ") has no device at PCI bus id " + pci_bus_id + ": " +
                       error_text(r) + kNotRecorded);

  Record record;
  record.set("nvml_library", path_);
  char name[kNvmlDeviceNameV2BufferSize] = {};
  if (call(record, {"name"}, name_, device, name, static_cast<unsigned>(sizeof name))) {
    name[sizeof name - 1] = '\0';
    record.set("name", name);
  }
  read_clocks(record, device);

  unsigned current = 0, pending = 0;
  if (call(record, {"mig_mode"}, mig_mode_, device, &current, &pending)) {
    if (current == kNvmlDeviceMigEnable) record.set("mig_mode", "enabled");
    else if (current == kNvmlDeviceMigDisable) record.set("mig_mode", "disabled");
    else record.null("mig_mode", "unknown MIG mode " + std::to_string(current));
  }
  read_processes(record, device);

  int mode = 0;
  if (call(record, {"persistence_mode"}, persistence_mode_, device, &mode))
    record.set("persistence_mode", mode == kNvmlFeatureEnabled);
  int pstate = 0;
  if (call(record, {"performance_state"}, performance_state_, device, &pstate)) {
    if (pstate >= 0 && pstate <= kNvmlPstateHighest)
      record.set("performance_state", "P" + std::to_string(pstate));
    else
      record.null("performance_state", "NVML reports the performance state as unknown");
  }
  unsigned celsius = 0;
  if (call(record, {"temperature_c"}, temperature_, device, kNvmlTemperatureGpu, &celsius))
    record.set("temperature_c", celsius);
  unsigned milliwatts = 0;
  if (call(record, {"power_w"}, power_usage_, device, &milliwatts))
    record.set("power_w", milliwatts / 1000.0);
  if (call(record, {"power_limit_w"}, power_limit_, device, &milliwatts))
    record.set("power_limit_w", milliwatts / 1000.0);

  TelemetrySnapshot snapshot;
  snapshot.available = true;
  snapshot.fields = std::move(record).finish();
  return snapshot;
}

void Session::read_clocks(Record& record, nvmlDevice_t device) const {
  const auto clock = [&](const char* field, const Symbol<ClockFn>& f, int type) {
    unsigned mhz = 0;
    if (call(record, {field}, f, device, type, &mhz)) record.set(field, mhz);
  };
  clock("sm_clock_mhz", clock_info_, kNvmlClockSm);
  clock("mem_clock_mhz", clock_info_, kNvmlClockMem);
  clock("max_sm_clock_mhz", max_clock_info_, kNvmlClockSm);
  clock("applications_sm_clock_mhz", applications_clock_, kNvmlClockSm);
  clock("default_applications_sm_clock_mhz", default_applications_clock_, kNvmlClockSm);
  const auto& applications = record.get("applications_sm_clock_mhz");
  const auto& default_applications = record.get("default_applications_sm_clock_mhz");
  if (applications.is_null() || default_applications.is_null())
    record.null("applications_clocks_locked", "needs both applications SM clocks");
  else
    record.set("applications_clocks_locked", applications != default_applications);

  unsigned long long mask = 0;
  if (call(record, {"clock_event_reasons", "clock_event_reasons_mask", "throttled"},
           clock_event_reasons_, device, &mask)) {
    record.set("clock_event_reasons", clock_event_reason_names(mask));
    record.set("clock_event_reasons_mask", mask);
    record.set("throttled", clock_event_reasons_throttle(mask));
  }
}

void Session::read_processes(Record& record, nvmlDevice_t device) const {
  const std::initializer_list<const char*> fields = {"compute_processes", "other_processes"};
  if (processes_.fn == nullptr) return fail(record, fields, processes_, kNvmlSuccess);
  // Sized in the largest entry whatever stride we expect: a driver that writes bigger entries
  // than we think garbles the list but cannot write past the buffer.
  std::vector<ProcessInfoV3> buffer;
  unsigned count = 0;
  nvmlReturn_t r = processes_.fn(device, &count, nullptr);  // SUCCESS here: no processes
  // Processes can start between the calls: leave room, and ask again if that was not enough.
  for (int attempt = 0; r == kNvmlErrorInsufficientSize && attempt < 4; ++attempt) {
    buffer.resize(std::size_t{count} + 8);
    count = static_cast<unsigned>(buffer.size());
    r = processes_.fn(device, &count, buffer.data());
  }
  if (r != kNvmlSuccess) return fail(record, fields, processes_, r);
  count = std::min<unsigned>(count, static_cast<unsigned>(buffer.size()));

  const auto* bytes = reinterpret_cast<const unsigned char*>(buffer.data());
  const unsigned self = static_cast<unsigned>(::getpid());
  auto processes = nlohmann::json::array();
  int others = 0;
  for (unsigned i = 0; i < count; ++i) {
    ProcessInfoV1 entry;  // the prefix every layout shares
    std::memcpy(&entry, bytes + i * process_stride_, sizeof entry);
    processes.push_back({{"pid", entry.pid}, {"used_memory_bytes", nullptr}});
    // Not available under Windows WDDM, and for other users' processes without privileges.
    if (entry.usedGpuMemory != kNvmlValueNotAvailable)
      processes.back()["used_memory_bytes"] = entry.usedGpuMemory;
    if (entry.pid != self) ++others;
  }
  record.set("compute_processes", std::move(processes));
  record.set("other_processes", others);
}

// Leaked on purpose: a session stays open for the whole process (NVML is meant to be initialised
// once, and nvmlInit is slow), and no static destructor can shut NVML down under a thread still
// reading at exit; the driver releases everything when the process ends. Keyed by library path so
// a process that changes $GPUPROBE_NVML_LIBRARY (the tests do) opens the new library.
const Session& session_for(const std::string& path) {
  static auto* const mutex = new std::mutex;
  static auto* const sessions = new std::map<std::string, std::unique_ptr<const Session>>;
  const std::lock_guard lock(*mutex);
  auto& session = (*sessions)[path];
  if (!session) session = std::make_unique<const Session>(path);
  return *session;
}

std::string format_number(const nlohmann::json& value, const char* unit) {
  if (value.is_null()) return std::string("?") + unit;
  if (value.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", value.get<double>());
    return buf + std::string(unit);
  }
  return value.dump() + unit;
}

}  // namespace

std::string nvml_library_path() {
  const char* path = std::getenv("GPUPROBE_NVML_LIBRARY");
  return path != nullptr && *path != '\0' ? path : "libnvidia-ml.so.1";
}

TelemetrySnapshot read_telemetry(const std::string& pci_bus_id) {
  try {
    return session_for(nvml_library_path()).read(pci_bus_id);
  } catch (const std::exception& e) {  // allocation or JSON: still a record, never a failed run
    return unavailable(std::string("reading NVML failed: ") + e.what() + kNotRecorded);
  }
}

nlohmann::json to_json(const TelemetrySnapshot& snapshot) {
  if (!snapshot.available)
    return {{"available", false}, {"reason", snapshot.unavailable_reason}};
  nlohmann::json doc = snapshot.fields.is_object() ? snapshot.fields : nlohmann::json::object();
  doc["available"] = true;
  return doc;
}

std::string describe(const TelemetrySnapshot& snapshot) {
  if (!snapshot.available) return snapshot.unavailable_reason;
  const auto& f = snapshot.fields;
  const auto field = [&f](const char* key) {
    return f.contains(key) ? f[key] : nlohmann::json(nullptr);
  };
  const auto name = field("name");
  std::string line = (name.is_string() ? name.get<std::string>() : "GPU") + " (NVML): SM " +
                     format_number(field("sm_clock_mhz"), " MHz") + " of max " +
                     format_number(field("max_sm_clock_mhz"), " MHz");
  if (field("applications_clocks_locked") == true)
    line += ", applications clocks locked at " +
            format_number(field("applications_sm_clock_mhz"), " MHz") + " (default " +
            format_number(field("default_applications_sm_clock_mhz"), " MHz") + ")";
  const auto pstate = field("performance_state");
  line += ", " + (pstate.is_string() ? pstate.get<std::string>() : std::string("P?")) + ", " +
          format_number(field("temperature_c"), " C") + ", power " +
          format_number(field("power_w"), "") + " of " +
          format_number(field("power_limit_w"), " W");
  const auto reasons = field("clock_event_reasons");
  if (reasons.is_array()) {
    std::string names;
    for (const auto& reason : reasons) {
      if (!names.empty()) names += '+';
      names += reason.get<std::string>();
    }
    line += ", clock event reasons " + (names.empty() ? std::string("none") : names);
    if (field("throttled") == true) line += " (throttled)";
  }
  if (field("mig_mode") == "enabled") line += ", MIG enabled";
  const auto others = field("other_processes");
  if (others.is_number())
    line += ", " + others.dump() + (others == 1 ? " other process" : " other processes");
  return line;
}

std::vector<std::string> clock_event_reason_names(uint64_t mask) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t value = uint64_t{1} << bit;
    if ((mask & value) == 0) continue;
    const auto known = std::find_if(std::begin(kReasonBits), std::end(kReasonBits),
                                    [value](const ReasonBit& r) { return r.bit == value; });
    if (known != std::end(kReasonBits)) {
      names.emplace_back(known->name);
    } else {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(value));
      names.emplace_back(hex);
    }
  }
  return names;
}

bool clock_event_reasons_throttle(uint64_t mask) { return (mask & ~kNotThrottling) != 0; }

}  // namespace gpuprobe
