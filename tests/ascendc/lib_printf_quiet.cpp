// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/lib_printf_quiet.cpp - a binary without printf for
 * tests/lib_printf_test.c: its launches get no printf area.
 */
#include <cstdint>

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void quiet_op(GM_ADDR p)
{
	reinterpret_cast<__gm__ int32_t *>(p)[AscendC::GetBlockIdx()] = 5;
}

/* a launch, so that the host object embeds the image */
extern "C" uint32_t lib_printf_quiet(uint32_t blocks, void *p, void *stream)
{
	return quiet_op<<<blocks, nullptr, stream>>>(p);
}

#ifdef __NPU_HOST__
extern "C" const unsigned char __npu_fatbin_start[] __attribute__((visibility("hidden")));
extern "C" const unsigned char __npu_fatbin_end[] __attribute__((visibility("hidden")));

extern "C" const void *lib_printf_quiet_image(size_t *len)
{
	*len = (size_t)(__npu_fatbin_end - __npu_fatbin_start);
	return __npu_fatbin_start;
}
#endif
