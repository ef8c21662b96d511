/* A fake NVIDIA driver library (libnvidia-ml) for tests/harness/test_telemetry.cpp: the NVML
 * functions harness/telemetry.cpp looks up, answering fixed values for one device at PCI bus id
 * 0000:00:06.0. tests/harness/fake_nvml.cmake builds it once per driver release it imitates
 * (FAKE_NVML_DRIVER), because releases differ in what they export and in how they lay out
 * running-process entries:
 *   550  current: _v3 processes writing the 24-byte v2 entry,
 *        nvmlDeviceGetRunningProcessDetailList, ClocksEventReasons; MIG disabled
 *   535  early R535: _v3 processes writing the 32-byte v3 entry,
 *        nvmlDeviceGetConfComputeMemSizeInfo but no nvmlDeviceGetRunningProcessDetailList
 *   470  _v2 processes (24 bytes); only ClocksThrottleReasons; MIG enabled; the other process's
 *        memory not available
 *   440  plain processes (16 bytes); only ClocksThrottleReasons; no nvmlDeviceGetMigMode
 * Values are chosen so that asking for the wrong clock domain, sensor or unit, or reading entries
 * with the wrong stride, gives a different number. nvmlDeviceGetPowerUsage is NOT_SUPPORTED, as on
 * parts that report only averaged power. FAKE_NVML_INIT_ERROR=<code> in the environment makes
 * nvmlInit_v2 fail with that code. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FAKE_NVML_DRIVER
#error "define FAKE_NVML_DRIVER as the driver release to imitate: 440, 470, 535 or 550"
#endif

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st {
  int unused;
} *nvmlDevice_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_DRIVER_NOT_LOADED = 9
};

static struct nvmlDevice_st the_device;
static int init_count; /* nvmlInit_v2 successes minus nvmlShutdowns */
static int init_calls; /* every nvmlInit_v2, for the test of once-per-process initialisation */

/* Every device function first checks what a real NVML checks: initialised, and our handle. */
#define CHECK_DEVICE(device)                                     \
  do {                                                           \
    if (init_count == 0) return NVML_ERROR_UNINITIALIZED;        \
    if ((device) != &the_device) return NVML_ERROR_INVALID_ARGUMENT; \
  } while (0)

int fake_nvml_init_calls(void) { return init_calls; }

nvmlReturn_t nvmlInit_v2(void) {
  const char* forced = getenv("FAKE_NVML_INIT_ERROR");
  ++init_calls;
  if (forced != NULL && *forced != '\0') return atoi(forced);
  ++init_count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  --init_count;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, nvmlDevice_t* device) {
  if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
  if (bus_id == NULL || device == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  /* NVML takes CUDA's form (4-digit domain) as well as its own (8-digit). */
  if (strcmp(bus_id, "0000:00:06.0") != 0 && strcmp(bus_id, "00000000:00:06.0") != 0)
    return NVML_ERROR_NOT_FOUND;
  *device = &the_device;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  static const char kName[] = "NVIDIA H100 80GB HBM3";
  CHECK_DEVICE(device);
  if (name == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (length < sizeof kName) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(name, kName, sizeof kName);
  return NVML_SUCCESS;
}

/* nvmlClockType_t: GRAPHICS = 0, SM = 1, MEM = 2. The graphics clocks differ from the SM clocks
 * here (on real parts they mostly match) so that asking for the wrong domain shows. */
static nvmlReturn_t clock(nvmlDevice_t device, int type, unsigned int* mhz, unsigned int graphics,
                          unsigned int sm, unsigned int mem) {
  CHECK_DEVICE(device);
  if (mhz == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  switch (type) {
    case 0: *mhz = graphics; return NVML_SUCCESS;
    case 1: *mhz = sm; return NVML_SUCCESS;
    case 2: *mhz = mem; return NVML_SUCCESS;
    default: return NVML_ERROR_INVALID_ARGUMENT;
  }
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int* mhz) {
  return clock(device, type, mhz, 1740, 1755, 2619);
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int* mhz) {
  return clock(device, type, mhz, 1985, 1980, 2620);
}
/* Applications clocks set below their defaults, as `nvidia-smi -ac 2619,1755` leaves them. */
nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, int type, unsigned int* mhz) {
  return clock(device, type, mhz, 1740, 1755, 2619);
}
nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, int type,
                                                   unsigned int* mhz) {
  return clock(device, type, mhz, 1985, 1980, 2619);
}

/* gpu_idle | sw_power_cap */
static nvmlReturn_t reasons(nvmlDevice_t device, unsigned long long* mask) {
  CHECK_DEVICE(device);
  if (mask == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *mask = 0x1ULL | 0x4ULL;
  return NVML_SUCCESS;
}
/* Current drivers export both names; the new one came with R535. */
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                        unsigned long long* mask) {
  return reasons(device, mask);
}
#if FAKE_NVML_DRIVER >= 535
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* mask) {
  return reasons(device, mask);
}
#endif

#if FAKE_NVML_DRIVER >= 450
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* current,
                                  unsigned int* pending) {
  CHECK_DEVICE(device);
  if (current == NULL || pending == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *current = FAKE_NVML_DRIVER == 470 ? 1 : 0; /* NVML_DEVICE_MIG_ENABLE = 1 */
  *pending = *current;
  return NVML_SUCCESS;
}
#endif

/* The three entry layouts, as nvml.h declares them. */
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
} ProcessInfoV1;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} ProcessInfoV2;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;
} ProcessInfoV3;

/* Two processes: the caller itself (1 GiB) and pid 4242 (512 MiB; not available under 470).
 * Outside MIG the instance ids are 0xFFFFFFFF, which a reader with the wrong stride takes for a
 * pid. The count protocol is NVML's: too small a count (or no array) gets
 * NVML_ERROR_INSUFFICIENT_SIZE and the count needed. */
static nvmlReturn_t processes(nvmlDevice_t device, unsigned int* count, void* infos, int layout) {
  enum { kProcesses = 2 };
  const unsigned int pids[kProcesses] = {(unsigned int)getpid(), 4242};
  const unsigned long long memory[kProcesses] = {
      1ULL << 30, FAKE_NVML_DRIVER == 470 ? ULLONG_MAX : 512ULL << 20};
  int i;
  CHECK_DEVICE(device);
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (*count < kProcesses || infos == NULL) {
    *count = kProcesses;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = kProcesses;
  for (i = 0; i < kProcesses; ++i) {
    if (layout == 1) {
      ProcessInfoV1* e = (ProcessInfoV1*)infos + i;
      memset(e, 0, sizeof *e);
      e->pid = pids[i];
      e->usedGpuMemory = memory[i];
    } else if (layout == 2) {
      ProcessInfoV2* e = (ProcessInfoV2*)infos + i;
      memset(e, 0, sizeof *e);
      e->pid = pids[i];
      e->usedGpuMemory = memory[i];
      e->gpuInstanceId = e->computeInstanceId = 0xFFFFFFFFu;
    } else {
      ProcessInfoV3* e = (ProcessInfoV3*)infos + i;
      memset(e, 0, sizeof *e);
      e->pid = pids[i];
      e->usedGpuMemory = memory[i];
      e->gpuInstanceId = e->computeInstanceId = 0xFFFFFFFFu;
      e->usedGpuCcProtectedMemory = 0;
    }
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int* count,
                                                  ProcessInfoV1* infos) {
  return processes(device, count, infos, 1);
}
#if FAKE_NVML_DRIVER >= 470
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int* count,
                                                     ProcessInfoV2* infos) {
  return processes(device, count, infos, 2);
}
#endif
#if FAKE_NVML_DRIVER >= 510
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* count,
                                                     void* infos) {
  return processes(device, count, infos, FAKE_NVML_DRIVER == 535 ? 3 : 2);
}
#endif
/* Present only so that their presence tells the driver releases apart (see telemetry.cpp). */
#if FAKE_NVML_DRIVER >= 535
nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device, void* info) {
  (void)device;
  (void)info;
  return NVML_ERROR_NOT_SUPPORTED;
}
#endif
#if FAKE_NVML_DRIVER >= 550
nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device, void* list) {
  (void)device;
  (void)list;
  return NVML_ERROR_NOT_SUPPORTED;
}
#endif

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, int* mode) {
  CHECK_DEVICE(device);
  if (mode == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *mode = 1; /* NVML_FEATURE_ENABLED */
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, int* pstate) {
  CHECK_DEVICE(device);
  if (pstate == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *pstate = 0; /* NVML_PSTATE_0 */
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int* celsius) {
  CHECK_DEVICE(device);
  if (sensor != 0 || celsius == NULL) return NVML_ERROR_INVALID_ARGUMENT; /* GPU = 0 only */
  *celsius = 47;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int* milliwatts) {
  CHECK_DEVICE(device);
  (void)milliwatts;
  return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int* milliwatts) {
  CHECK_DEVICE(device);
  if (milliwatts == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *milliwatts = 700000;
  return NVML_SUCCESS;
}
