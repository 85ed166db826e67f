// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/lib_kargs_kern.cpp - the kernels of tests/lib_kargs_test.c,
 * built at test-build time by npu-cc into a device binary (lib/lib.mk).
 */
#include <cstdint>

#include "kernel_operator.h"

/*
 * out[i] = desc[i] + bias for i < 4: desc is the placeholder of an
 * argument handle (its data travels with the arguments) or any device
 * address.
 */
extern "C" __global__ __aicore__ void ph_op(GM_ADDR desc, GM_ADDR out, int64_t bias)
{
	const int64_t *d = reinterpret_cast<const int64_t *>(desc);
	int64_t *o = reinterpret_cast<int64_t *>(out);

	for (int i = 0; i < 4; ++i)
		o[i] = d[i] + bias;
}

/* out[0] = c + s: a 1-byte parameter, then an 8-byte one at offset 8 */
extern "C" __global__ __aicore__ void small_op(uint8_t c, __gm__ int64_t *out, int16_t s)
{
	out[0] = (int64_t)c + s;
}

/* traps: the task's exception is ACL_ERROR_RT_AICORE_TRAP_EXCEPTION */
extern "C" __global__ __aicore__ void trap_op(int64_t x)
{
	if (x)
		asm("trap");
}

/* writes to @bad, which the device cannot reach: ACL_ERROR_RT_AICORE_EXCEPTION */
extern "C" __global__ __aicore__ void fault_op(__gm__ int64_t *bad, int64_t v)
{
	bad[0] = v;
}

/* out[b] = v + the launch's numBlocks, for each block b: a task's blocks show in the data */
extern "C" __global__ __aicore__ void blocks_op(__gm__ int64_t *out, int64_t v)
{
	out[AscendC::GetBlockIdx()] = v + (int64_t)AscendC::GetBlockNum();
}
