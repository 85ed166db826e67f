// SPDX-License-Identifier: GPL-2.0
/*
 * npu: the data mover of the simulated DMA engine.
 *
 * The board's DMA engine is a CPU, so its bandwidth is that of this loop,
 * chosen by measurement (Documentation/benchmarks.rst, under QEMU TCG,
 * where the bench runs): 64-byte blocks through general registers, every
 * word of a block loaded before any is stored, ahead of memcpy() ('rep
 * movsb' on CPUs with ERMS, which an emulator runs a byte at a time), of
 * copy_page() ('rep movsq', a word at a time, alternating between the two
 * pages) and of wider AVX2 blocks. Whatever is not a whole block goes
 * through memcpy().
 */
#include <linux/compiler.h>
#include <linux/align.h>
#include <linux/math.h>
#include <linux/string.h>
#include <linux/types.h>

#include "npu_copy.h"

#define NPU_COPY_BLOCK		64	/* eight words */

/* Copy the whole 64-byte blocks of @n bytes; returns how many bytes. */
static size_t npu_copy_blocks(void *dst, const void *src, size_t n)
{
	const u64 *s = src;
	u64 *d = dst;
	size_t i, words = round_down(n, NPU_COPY_BLOCK) / sizeof(u64);

	for (i = 0; i < words; i += 8) {
		u64 w0 = s[i], w1 = s[i + 1], w2 = s[i + 2], w3 = s[i + 3];
		u64 w4 = s[i + 4], w5 = s[i + 5], w6 = s[i + 6], w7 = s[i + 7];

		/* All eight loaded before the first store. */
		barrier();
		d[i] = w0;
		d[i + 1] = w1;
		d[i + 2] = w2;
		d[i + 3] = w3;
		d[i + 4] = w4;
		d[i + 5] = w5;
		d[i + 6] = w6;
		d[i + 7] = w7;
	}
	return words * sizeof(u64);
}

/**
 * npu_copy() - copy @n bytes for the DMA engine
 * @dst: destination, mapped for the CPU
 * @src: source, mapped for the CPU; must not overlap @dst
 * @n: bytes
 */
void npu_copy(void *dst, const void *src, size_t n)
{
	size_t done = 0;

	/* Words are loaded and stored whole: both ends must be aligned. */
	if (IS_ALIGNED((unsigned long)dst | (unsigned long)src, sizeof(u64)))
		done = npu_copy_blocks(dst, src, n);
	if (done < n)
		memcpy(dst + done, src + done, n - done);
}
