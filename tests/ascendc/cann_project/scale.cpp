// SPDX-License-Identifier: MIT
/* tests/ascendc/cann_project/scale.cpp - x[i] *= NPU_CANN_PROJECT_SCALE, one element per block. */
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void scale(GM_ADDR x)
{
	__gm__ int32_t *v = (__gm__ int32_t *)x;

	v[AscendC::GetBlockIdx()] *= NPU_CANN_PROJECT_SCALE;
}

int32_t ScaleDo(uint32_t blockDim, void *stream, uint8_t *x)
{
	return static_cast<int32_t>(scale<<<blockDim, nullptr, stream>>>(x));
}
