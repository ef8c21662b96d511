// Running the analysis/*.py scripts from a command (run-all, roofline, compare): which Python, one
// run of a script whose failure comes back as one line, and every plot and report of a model.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace gpuprobe {

// The Python that draws the plots: $GPUPROBE_PYTHON, else the one the build was configured with
// (CMake GPUPROBE_PYTHON, scripts/setup.sh's .venv) if it exists, else python3 from PATH.
std::string plot_python();

// Runs `python script args...` (args[0] is the script). Its stdout is discarded, or, with `wrote`,
// its "wrote FILE" and "no plot: why" lines are passed on there. Returns "" on success, else one line: the script's
// own "X: error: ..." message (X its file name, without that head), else the last line it
// printed, else how it ended ("python3 exited with status 1 and printed nothing", "... was killed
// by signal 9 (Killed) ..."), or why Python could not be started.
std::string run_plot(const std::string& python, const std::vector<std::string>& args,
                     std::ostream* wrote = nullptr);

// Everything drawn from a machine model, next to it (what run-all writes after the model):
// latency.png/.svg (analysis/plot_latency.py), MODEL.bandwidth-*.png/.svg and
// MODEL.loaded-latency.* (plot_bandwidth.py), MODEL.roofline.json/.png/.svg (gpuprobe roofline)
// and report.md/.html with report-*.png (report.py), MODEL being the model's path without .json.
// A plot the model has nothing for is left out ("no plot: why"). Each file written is named on
// `out` ("wrote FILE"). Stops at the first step that fails and returns "STEP: why" in one line;
// "" when all were written.
std::string write_model_outputs(const std::string& model_path, std::ostream& out, std::ostream& err);

// analysis/<name> in the source tree the build was configured from.
std::string analysis_script(const std::string& name);

}  // namespace gpuprobe
