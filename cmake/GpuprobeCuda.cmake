# How CUDA sources get into gpuprobe.
#
# Generic probes (probes/*/*.cu, harness/cuda/*.cu) are compiled for CMAKE_CUDA_ARCHITECTURES.
# An arch-specific probe sits in its own translation unit named <name>.sm<XY><a|f>.cu
# (e.g. probes/tensor/wgmma.sm90a.cu) and is compiled only for that feature target, and only
# if the user's targets include its family (an `a` cubin runs on exactly one compute capability,
# an `f` cubin on the family: PROBES.md "Build targets"). The list of targets actually built is
# passed to the code as GPUPROBE_CUDA_TARGETS so the runtime can say which code it lacks.

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

function(gpuprobe_add_cuda_sources target)
  file(GLOB generic CONFIGURE_DEPENDS harness/cuda/*.cu probes/*/*.cu)
  list(FILTER generic EXCLUDE REGEX "\\.sm[0-9]+[af]\\.cu$")
  file(GLOB specific CONFIGURE_DEPENDS probes/*/*.sm*.cu)
  target_sources(${target} PRIVATE ${generic})
  target_link_libraries(${target} PUBLIC CUDA::cudart_static)
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills,-warn-lmem-usage --resource-usage>)

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
    # Same includes and definitions as the target it joins.
    target_include_directories(${obj} PRIVATE $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
    target_compile_definitions(${obj} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
    target_compile_options(${obj} PRIVATE -Xptxas=-warn-spills,-warn-lmem-usage --resource-usage)
    target_link_libraries(${obj} PRIVATE CUDA::cudart_static)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${obj}>)
    list(APPEND targets_built "sm_${num}${kind}")
  endforeach()

  list(JOIN targets_built "," joined)
  target_compile_definitions(${target} PUBLIC GPUPROBE_CUDA_TARGETS="${joined}")
  set(GPUPROBE_CUDA_TARGETS "${joined}" PARENT_SCOPE)
endfunction()
