// Running the analysis/plot_*.py scripts from a command (roofline, compare): which Python, and one
// run of a script whose failure comes back as one line.
#pragma once
#include <string>
#include <vector>

namespace gpuprobe {

// The Python that draws the plots: $GPUPROBE_PYTHON, else the one the build was configured with
// (CMake GPUPROBE_PYTHON, scripts/setup.sh's .venv) if it exists, else python3 from PATH.
std::string plot_python();

// Runs `python script args...` (args[0] is the script), its stdout discarded. Returns "" on
// success, else one line: the script's own "plot_X: error: ..." message (without that head),
// else the last line it printed, or why Python could not be started.
std::string run_plot(const std::string& python, const std::vector<std::string>& args);

// analysis/<name> in the source tree the build was configured from.
std::string analysis_script(const std::string& name);

}  // namespace gpuprobe
