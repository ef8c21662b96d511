// tensor/mma: the kernels of the arch-specific mma.sync forms (ptx/mma_forms.def
// GPUPROBE_MMA_FORM_SM120A: kind::f8f6f4 e2m1/e3m2/e2m3 and the block-scaled kinds), built only
// for sm_120a (cmake/GpuprobeCuda.cmake). The same three kernels per form as probes/tensor/mma.cu, from the same
// code: this unit is mma.cu with GPUPROBE_MMA_SM120A_UNIT, which brings in ptx/mma_sm120a.cuh and
// generates kernels for these forms only. The host declares them weak (mma.cpp).
#define GPUPROBE_MMA_SM120A_UNIT 1
#include "probes/tensor/mma.cu"
