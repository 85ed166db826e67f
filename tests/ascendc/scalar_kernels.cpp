// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/scalar_kernels.cpp - our own scalar kernels with the
 * constructs of the vendor's example/kernel_func/ (easy_OP, error_OP,
 * write_read_value, kernel_print, vector_add_kernel): block_idx, __gm__
 * pointers, by-value parameters, AscendC::printf, asm("trap"), and
 * <<<>>> launches in host wrappers, one inside static_cast. Also a kernel
 * with mixed parameter types for the trampolines' 8-byte slots.
 */
#include <cstdint>

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void inc_op(__gm__ uint32_t *x)
{
	int32_t idx = block_idx;
	x[idx] += 1;
#if __NPU_ARCH__ == 3510
	dcci(reinterpret_cast<__gm__ int64_t *>(x), cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);
#endif
}

extern "C" __global__ __aicore__ void trap_op() { asm("trap"); }

extern "C" __global__ __aicore__ void write_op(__gm__ int *devPtr, int value)
{
	int32_t idx = block_idx;
	devPtr[idx] = value;
	AscendC::printf("Source data: %d of %d\n", value, (int)AscendC::GetBlockNum());
}

extern "C" __global__ __aicore__ void hello_op() { AscendC::printf("Hello World\n"); }

extern "C" __global__ __aicore__ void axpy_op(__gm__ float *srcA, __gm__ float *srcB, __gm__ float *dst,
					      float alpha, uint32_t n)
{
	for (uint32_t i = 0; i < n; ++i)
		dst[i] = srcA[i] + alpha * srcB[i];
}

/* every parameter written back, in 8-byte slots of out, to check the unpacking */
extern "C" __global__ __aicore__ void mixed_op(float f, int32_t i, GM_ADDR p, half h, uint8_t c, double d,
					       int64_t l, __gm__ uint64_t *out)
{
	out[0] = (uint64_t)(uintptr_t)p;
	__builtin_memcpy(&out[1], &f, sizeof(f));
	out[2] = (uint64_t)(int64_t)i;
	__builtin_memcpy(&out[3], &h, sizeof(h));
	out[4] = c;
	__builtin_memcpy(&out[5], &d, sizeof(d));
	out[6] = (uint64_t)l;
	out[7] = (uint64_t)AscendC::GetBlockIdx() << 32 | (uint64_t)AscendC::GetBlockNum();
}

#ifndef NPU_CPU_DEBUG
namespace npucc_test {
void IncDo(uint32_t blockDim, void *stream, uint32_t *x) { inc_op<<<blockDim, nullptr, stream>>>(x); }
void TrapDo(uint32_t blockDim, void *stream) { trap_op<<<blockDim, nullptr, stream>>>(); }
void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value)
{
	write_op<<<blockDim, nullptr, stream>>>(devPtr, value);
}
void HelloDo(uint32_t blockDim, void *stream) { ::hello_op<<<blockDim, nullptr, stream>>>(); }
int32_t AxpyDo(uint32_t blockDim, void *stream, float *a, float *b, float *d, float alpha, uint32_t n)
{
	return static_cast<int32_t>(axpy_op<<<blockDim, nullptr, stream>>>(a, b, d, alpha, n));
}
uint32_t MixedDo(void *stream, float f, int32_t i, void *p, half h, uint8_t c, double d, int64_t l, uint64_t *out)
{
	return mixed_op<<<2, nullptr, stream>>>(f, i, p, h, c, d, l, out);
}
} // namespace npucc_test
#endif
