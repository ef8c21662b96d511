// The timing layer's host-side arithmetic, shared by every backend and family: iteration counts
// calibrated to a target duration, and the N / 2N difference that cancels a timed region's fixed
// cost. The CUDA side (event timing behind a spin kernel, the L2 flush) is harness/cuda/timing.hpp;
// the device side (opening and closing clock reads that wait for the last load) is ptx/sreg.cuh.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>

namespace gpuprobe::timing {

// The count (a multiple of `granularity`, at least min_count, at most max_count) whose measured
// duration reaches target_ns. Measures once at min_count and scales linearly with a 10% margin;
// when the scaled count still falls short it measures again, at most four times.
// measure_ns(count) returns the duration of `count` units in ns. It never plans a count whose
// run is predicted (from the longer of the measured time and the host's wall time of the call:
// a simulator's walk costs wall time, not device time) to outlast max_seconds, the per-point
// bound; a count it cannot grow within that bound ends the calibration.
uint64_t calibrate_count(const std::function<double(uint64_t count)>& measure_ns,
                         uint64_t min_count, uint64_t granularity, double target_ns,
                         uint64_t max_count, double max_seconds = INFINITY);

// The cost of one unit from a run of n units and one of 2n: (t_2n - t_n) / n. The region's fixed
// cost (clock reads, launch, loop setup) is in both and cancels.
double per_unit_from_difference(double t_n, double t_2n, uint64_t n);

}  // namespace gpuprobe::timing
