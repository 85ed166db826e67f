// SPDX-License-Identifier: GPL-2.0
/*
 * tools/bench/bench_kernel_kern.cpp - the kernels of bench_kernel.c, built
 * by npu-cc into a device binary (tools/bench/bench.mk) that the program
 * embeds. Their computations are bench_kern.h's, which the program runs
 * too to check what they wrote.
 */
#include <cstdint>

#include "kernel_operator.h"
#include "bench_kern.h"

/* *out = bench_spin(src, words, iters): compute-bound, reads its chunk */
extern "C" __global__ __aicore__ void spin_op(GM_ADDR src, GM_ADDR out, uint64_t words, uint64_t iters)
{
	*reinterpret_cast<__gm__ uint64_t *>(out) =
		bench_spin(reinterpret_cast<__gm__ const uint64_t *>(src), words, iters);
}

/* *out = the sum of src's @words words: reads every byte */
extern "C" __global__ __aicore__ void sum_op(GM_ADDR src, GM_ADDR out, uint64_t words)
{
	*reinterpret_cast<__gm__ uint64_t *>(out) = bench_sum(reinterpret_cast<__gm__ const uint64_t *>(src), words);
}

/* *out = v: the least a kernel can do that shows it ran */
extern "C" __global__ __aicore__ void store_op(GM_ADDR out, uint64_t v)
{
	*reinterpret_cast<__gm__ uint64_t *>(out) = v;
}
