// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/lib_task_update_kern.cpp - the kernels of
 * tests/lib_task_update_test.c, built at test-build time by npu-cc into a
 * device binary (lib/lib.mk). npu-cc gives every kernel tiling key 0: the
 * binary's first kernel record, blocks_op, is its kernel of function
 * entry 0 (the test checks the name).
 */
#include <cstdint>

#include "kernel_operator.h"

/* out[b] = 2 * v + the launch's numBlocks, for each block b */
extern "C" __global__ __aicore__ void twice_op(__gm__ int64_t *out, int64_t v)
{
	out[AscendC::GetBlockIdx()] = 2 * v + (int64_t)AscendC::GetBlockNum();
}

/* out[b] = v + the launch's numBlocks, for each block b */
extern "C" __global__ __aicore__ void blocks_op(__gm__ int64_t *out, int64_t v)
{
	out[AscendC::GetBlockIdx()] = v + (int64_t)AscendC::GetBlockNum();
}
