// Kernels to place on the roofline (analysis/roofline.hpp), from the three inputs of
// `gpuprobe roofline` (docs/ANALYSIS.md "Roofline"):
//   --kernel NAME:flops=F,time_s=T[,bytes_hbm=B][,bytes_l2=B]...[,precision=P][,path=P]
//   --kernels-csv FILE   header name,flops,time_s[,bytes_hbm|bytes_dram][,bytes_l2][,bytes_l2_far]
//                        [,bytes_l1][,bytes_shared][,precision][,path]
//   --ncu-csv FILE       an Nsight Compute export (ncu --csv --page raw --metrics ...)
// Every malformed input throws gpuprobe::Error with one line naming the file and line (or the
// --kernel argument) and the problem; numbers are decimal (no "0x10", "inf" or "nan").
#pragma once
#include <string>
#include <vector>

#include "analysis/roofline.hpp"

namespace gpuprobe::analysis {

// One --kernel argument. The name is what comes before the last ':' that precedes the first '='
// (so "ns::gemm<float>:flops=..." names "ns::gemm<float>").
RooflineKernel parse_kernel_spec(const std::string& spec);

// Kernels of the same name, precision and path summed into one, in the order they first appear:
// launches counted, FLOPs, bytes per level and time added, the least and most time of one launch
// kept (docs/ANALYSIS.md "Roofline": 10^5 launches of 500 kernels are 500 kernels).
std::vector<RooflineKernel> aggregate_launches(std::vector<RooflineKernel> kernels);

// A kernels CSV: the columns above in any order; name, flops and time_s are required, an empty
// optional cell means "not given". Quoted fields ("a, b") are read as in RFC 4180. Rows of one
// kernel (name, precision, path) are its launches, aggregated. The file is read a row at a time.
std::vector<RooflineKernel> read_kernels_csv(const std::string& path);

// An Nsight Compute raw-page CSV: the first row names the columns ("Kernel Name",
// gpu__time_duration.sum and the metrics), the second gives their units, then one row per
// kernel launch. Per precision the FLOPs are add + mul + 2 x fma of the
// [sm|smsp]__sass_thread_inst_executed_op_{f,d,h}{add,mul,fma}_pred_on.sum counters, plus the
// tensor path's sm__ops_path_tensor_src_<type>[_dst_<type>].sum (one FLOP per op). Bytes:
// dram__bytes.sum (or dram__bytes_read.sum + dram__bytes_write.sum) for DRAM, lts__t_bytes.sum
// for L2, l1tex__t_bytes.sum for L1. Time and bytes are converted by their unit row (nsecond,
// usecond, msecond, second; byte, Kbyte, Mbyte, Gbyte, Tbyte). A kernel's precision is
// `precision` when given, else the one with the most FLOPs; a launch without FLOPs of that
// precision is left out, with a line in `notes` (one per kernel, with the count). Launches of one
// kernel are aggregated (aggregate_launches); lines before the header (an application's output)
// are skipped with a note; DRAM read bytes without the write bytes (or the reverse) are taken
// with a note.
std::vector<RooflineKernel> read_ncu_csv(const std::string& path, const std::string& precision,
                                         std::vector<std::string>& notes);

}  // namespace gpuprobe::analysis
