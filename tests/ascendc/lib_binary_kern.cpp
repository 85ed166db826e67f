// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/lib_binary_kern.cpp - the kernels of tests/lib_binary_test.c:
 * built at test-build time by npu-cc into a device binary (--aicore-only +
 * --link-fatbin, for aclrtBinaryLoadFromFile) and into a host object with
 * the image embedded (npu-cc -c, for aclrtBinaryLoadFromData and the
 * <<<>>> launch of lib_binary_launch_add()).
 */
#include <cstdint>

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_op(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n)
{
	const float *a = reinterpret_cast<const float *>(x);
	const float *b = reinterpret_cast<const float *>(y);
	float *c = reinterpret_cast<float *>(z);

	for (uint32_t i = 0; i < n; ++i)
		c[i] = a[i] + b[i];
}

extern "C" __global__ __aicore__ void noarg_op() {}

extern "C" __global__ __aicore__ void mixed_op(uint8_t c, double d, __gm__ int64_t *out, int16_t s)
{
	out[0] = (int64_t)c + (int64_t)d + s;
}

/* z = x + y over 16 halves, in the vendor's vector style: overflows to inf set the status */
extern "C" __global__ __aicore__ void half_add_op(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
	constexpr uint32_t n = 16;
	AscendC::TPipe pipe;
	AscendC::TQue<AscendC::QuePosition::VECIN, 1> qx, qy;
	AscendC::TQue<AscendC::QuePosition::VECOUT, 1> qz;
	AscendC::GlobalTensor<half> xg, yg, zg;

	xg.SetGlobalBuffer((__gm__ half *)x, n);
	yg.SetGlobalBuffer((__gm__ half *)y, n);
	zg.SetGlobalBuffer((__gm__ half *)z, n);
	pipe.InitBuffer(qx, 1, n * sizeof(half));
	pipe.InitBuffer(qy, 1, n * sizeof(half));
	pipe.InitBuffer(qz, 1, n * sizeof(half));
	AscendC::LocalTensor<half> a = qx.AllocTensor<half>();
	AscendC::LocalTensor<half> b = qy.AllocTensor<half>();
	AscendC::LocalTensor<half> c = qz.AllocTensor<half>();
	AscendC::DataCopy(a, xg, n);
	AscendC::DataCopy(b, yg, n);
	AscendC::Add(c, a, b, n);
	AscendC::DataCopy(zg, c, n);
	qx.FreeTensor(a);
	qy.FreeTensor(b);
	qz.FreeTensor(c);
}

/* the host side: a <<<>>> launch, as an application's wrapper does */
extern "C" uint32_t lib_binary_launch_add(void *x, void *y, void *z, uint32_t n, void *stream)
{
	return add_op<<<1, nullptr, stream>>>(x, y, z, n);
}

#ifdef __NPU_HOST__
/* npu-cc's embedded image of this file (its labels are this object's own) */
extern "C" const unsigned char __npu_fatbin_start[] __attribute__((visibility("hidden")));
extern "C" const unsigned char __npu_fatbin_end[] __attribute__((visibility("hidden")));

extern "C" const void *lib_binary_image(size_t *len)
{
	*len = (size_t)(__npu_fatbin_end - __npu_fatbin_start);
	return __npu_fatbin_start;
}
#endif
