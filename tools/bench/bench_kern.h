/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/bench/bench_kern.h - the computations of the benchmark kernels
 * (bench_kernel_kern.cpp, built by npu-cc for the AI cores), shared with
 * the host programs (bench_kernel.c) that check the kernels' results: the
 * same code on both sides, so a result that differs is a kernel that read
 * other data (a copy it did not wait for, a stale mapping) or did not run.
 * C and C++ (the kernels are compiled as C++ by npu-cc).
 */
#ifndef NPU_BENCH_KERN_H
#define NPU_BENCH_KERN_H

#include <stdint.h>

/* spin's sampling stride over its chunk: one 8-byte word per 256 bytes */
#define BENCH_SPIN_STRIDE_WORDS	32

/* one step of splitmix64: a serial chain of multiplies, nothing to vectorise */
static inline uint64_t bench_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * A compute-bound step over a chunk of @words 8-byte words: every
 * BENCH_SPIN_STRIDE_WORDS-th word read (the chunk's data is in the
 * result), then @iters rounds of bench_mix. Its time is nearly linear in
 * @iters.
 */
static inline uint64_t bench_spin(const uint64_t *s, uint64_t words, uint64_t iters)
{
	uint64_t acc = words, i;

	for (i = 0; i < words; i += BENCH_SPIN_STRIDE_WORDS)
		acc = acc * 31 + s[i];
	for (i = 0; i < iters; i++)
		acc = bench_mix(acc + i);
	return acc;
}

/* A memory-bound step: the sum of @words 8-byte words, every one read. */
static inline uint64_t bench_sum(const uint64_t *s, uint64_t words)
{
	uint64_t a = 0, b = 0, i;

	for (i = 0; i + 1 < words; i += 2) {
		a += s[i];
		b += s[i + 1];
	}
	if (i < words)
		a += s[i];
	return a + b;
}

#endif /* NPU_BENCH_KERN_H */
