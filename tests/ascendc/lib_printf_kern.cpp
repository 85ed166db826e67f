// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/lib_printf_kern.cpp - the printing kernels of
 * tests/lib_printf_test.c, built by npu-cc into a host object with the
 * device binary embedded (lib/lib.mk): its <<<>>> launches are the stub
 * path, lib_printf_image() gives the image for API launches.
 */
#include <cstdint>

#include "kernel_operator.h"

/* the vendor's kernel_print example */
extern "C" __global__ __aicore__ void hello_op()
{
	AscendC::printf("Hello World\n");
}

/* n lines per block, each naming its block */
extern "C" __global__ __aicore__ void lines_op(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		AscendC::printf("block %ld of %ld line %u\n", (long)AscendC::GetBlockIdx(),
				(long)AscendC::GetBlockNum(), i);
}

/* write_read_value's DeviceWrite: one value per block, printed */
extern "C" __global__ __aicore__ void value_op(GM_ADDR p, int32_t v)
{
	reinterpret_cast<__gm__ int32_t *>(p)[AscendC::GetBlockIdx()] = v + (int32_t)AscendC::GetBlockIdx();
	AscendC::printf("Source data: %d\n", v + (int32_t)AscendC::GetBlockIdx());
}

/* a kernel of the printing binary that prints nothing */
extern "C" __global__ __aicore__ void silent_op(GM_ADDR p)
{
	reinterpret_cast<__gm__ int32_t *>(p)[AscendC::GetBlockIdx()] = 7;
}

/* prints, then block 1 traps */
extern "C" __global__ __aicore__ void trap_op()
{
	AscendC::printf("before the trap %ld\n", (long)AscendC::GetBlockIdx());
	if (AscendC::GetBlockIdx() == 1)
		::npu_cc::trap("test trap of block %d", 1);
}

/* n lines of 100 characters: more than a small printf area holds */
extern "C" __global__ __aicore__ void flood_op(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		AscendC::printf("%03u %096d\n", i, 0);
}

extern "C" uint32_t lib_printf_hello(uint32_t blocks, void *stream)
{
	return hello_op<<<blocks, nullptr, stream>>>();
}

extern "C" uint32_t lib_printf_value(uint32_t blocks, void *p, int32_t v, void *stream)
{
	return value_op<<<blocks, nullptr, stream>>>(p, v);
}

#ifdef __NPU_HOST__
extern "C" const unsigned char __npu_fatbin_start[] __attribute__((visibility("hidden")));
extern "C" const unsigned char __npu_fatbin_end[] __attribute__((visibility("hidden")));

extern "C" const void *lib_printf_image(size_t *len)
{
	*len = (size_t)(__npu_fatbin_end - __npu_fatbin_start);
	return __npu_fatbin_start;
}
#endif
