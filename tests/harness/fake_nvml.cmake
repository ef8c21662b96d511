# Fake NVIDIA driver libraries for tests/harness/test_telemetry.cpp, built from fake_nvml.c once
# per driver release it imitates (fake_nvml.c says what differs between them). Include this from
# tests/CMakeLists.txt after gpuprobe_tests is defined: it puts them next to the test executable
# (where tests/gpu.hpp build_file finds them) and makes the tests depend on them.
enable_language(C)
foreach(release IN ITEMS 440 470 535 550)
  set(fake gpuprobe_fake_nvml_r${release})
  # MODULE: only ever dlopen'ed, never linked. No soname, so a copy under another path (the tests
  # make one) loads as a library of its own.
  add_library(${fake} MODULE ${CMAKE_CURRENT_LIST_DIR}/fake_nvml.c)
  target_compile_definitions(${fake} PRIVATE FAKE_NVML_DRIVER=${release})
  target_compile_options(${fake} PRIVATE -Wall -Wextra)
  add_dependencies(gpuprobe_tests ${fake})
endforeach()
