# How CUDA sources get into gpuprobe.
#
# Generic probes (probes/*/*.cu, harness/cuda/kernels.cu) are compiled for CMAKE_CUDA_ARCHITECTURES.
# An arch-specific probe sits in its own translation unit named <name>.sm<XY><a|f>.cu
# (e.g. probes/tensor/wgmma.sm90a.cu) and is compiled only for that feature target, and only
# if the user's targets include its family (an `a` cubin runs on exactly one compute capability,
# an `f` cubin on the family: README.md "Targets"). The list of targets actually built is
# passed to the code as GPUPROBE_CUDA_TARGETS so the runtime can say which code it lacks.

# This file's directory (the serialisation check's script sits beside it).
set(_GPUPROBE_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(_gpuprobe_arch_numbers out)
  set(nums "")
  foreach(a IN LISTS CMAKE_CUDA_ARCHITECTURES)
    string(REGEX MATCH "^[0-9]+" number "${a}")
    if(NOT "${number}" STREQUAL "")
      list(APPEND nums "${number}")
    endif()
  endforeach()
  set(${out} ${nums} PARENT_SCOPE)
endfunction()

# Every kernel the build compiles must have no spills, no local memory (a stack frame is local
# memory) and no compiler warning: each is a build error, for every target of the build
# (tests/probes/test_compile_matrix.py checks the targets the build leaves out, and that these
# flags are here). Deprecated targets (sm_70 with CUDA 12) are allowed.
set(GPUPROBE_CUDA_CHECKS -Xptxas=-warn-spills,-warn-lmem-usage -Werror=all-warnings
    -Wno-deprecated-gpu-targets --resource-usage)

function(gpuprobe_add_cuda_sources harness probes)
  # CUDA code: the harness's kernels (harness/cuda/kernels.cu) and every generic probe kernel
  # (probes/*/*.cu). Host code that calls the runtime is plain C++ (*.cpp) linked with cudart.
  file(GLOB generic CONFIGURE_DEPENDS probes/*/*.cu)
  list(FILTER generic EXCLUDE REGEX "\\.sm[0-9]+[af]\\.cu$")
  file(GLOB specific CONFIGURE_DEPENDS probes/*/*.sm*.cu)
  target_sources(${probes} PRIVATE ${generic})
  target_link_libraries(${harness} PUBLIC CUDA::cudart_static)
  foreach(t IN ITEMS ${harness} ${probes})
    set_target_properties(${t} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
    target_compile_options(${t} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${GPUPROBE_CUDA_CHECKS}>")
  endforeach()
  set(target ${probes})

  _gpuprobe_arch_numbers(built)
  set(targets_built "")
  foreach(a IN LISTS CMAKE_CUDA_ARCHITECTURES)
    string(REGEX REPLACE "-(real|virtual)$" "" plain "${a}")
    if(a MATCHES "-virtual$")
      list(APPEND targets_built "compute_${plain}")
    elseif(a MATCHES "-real$")
      list(APPEND targets_built "sm_${plain}")
    else()
      list(APPEND targets_built "sm_${plain}" "compute_${plain}")
    endif()
  endforeach()

  foreach(src IN LISTS specific)
    string(REGEX MATCH "\\.sm([0-9]+)([af])\\.cu$" m "${src}")
    set(num ${CMAKE_MATCH_1})
    set(kind ${CMAKE_MATCH_2})
    if(NOT num IN_LIST built)
      message(STATUS "gpuprobe: ${src} skipped: sm_${num} is not in CMAKE_CUDA_ARCHITECTURES")
      continue()
    endif()
    get_filename_component(stem "${src}" NAME_WE)
    set(obj "gpuprobe_${stem}_sm${num}${kind}")
    add_library(${obj} OBJECT ${src})
    set_target_properties(${obj} PROPERTIES CUDA_ARCHITECTURES "${num}${kind}-real")
    # Same includes and definitions as the probes it joins (through the harness).
    target_link_libraries(${obj} PRIVATE ${harness})
    target_compile_options(${obj} PRIVATE ${GPUPROBE_CUDA_CHECKS})
    # ptxas's wgmma serialisation notes (C7510/C7511/C7517/C7519) fail the build of the unit:
    # a launcher in front of the compiler (and of ccache, whose cache hits replay them).
    set(launcher sh "${_GPUPROBE_CMAKE_DIR}/gpuprobe_ptxas_check.sh")
    if(CMAKE_CUDA_COMPILER_LAUNCHER)
      list(APPEND launcher ${CMAKE_CUDA_COMPILER_LAUNCHER})
    endif()
    set_target_properties(${obj} PROPERTIES CUDA_COMPILER_LAUNCHER "${launcher}")
    # INTERFACE: straight onto the link line of every executable that links the probes. A
    # PRIVATE source of an OBJECT library is not passed on to its consumers (CMake 3.25), and
    # the unit's registration would be dropped (tests/cmake/test_arch_specific.py).
    target_sources(${target} INTERFACE $<TARGET_OBJECTS:${obj}>)
    list(APPEND targets_built "sm_${num}${kind}")
  endforeach()

  list(JOIN targets_built "," joined)
  target_compile_definitions(${harness} PUBLIC GPUPROBE_CUDA_TARGETS="${joined}")
  set(GPUPROBE_CUDA_TARGETS "${joined}" PARENT_SCOPE)
endfunction()
