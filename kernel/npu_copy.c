// SPDX-License-Identifier: GPL-2.0
/*
 * npu: the data mover of the simulated DMA engine.
 *
 * The board's DMA engine is a CPU, so its bandwidth is that of this loop,
 * and the loop is chosen by measurement (Documentation/benchmarks.rst,
 * under QEMU TCG, where the bench runs):
 *
 *  - 64-byte blocks through general registers, every word of a block
 *    loaded before any is stored, are the fastest copy where nothing
 *    aliases: ahead of memcpy() ('rep movsb' on CPUs with ERMS, which an
 *    emulator runs a byte at a time) and of copy_page() ('rep movsq').
 *  - Source and destination pages congruent modulo 16 MiB - device
 *    buffers of the same power-of-two size side by side, for one - share
 *    an entry of a direct-mapped TLB of up to 4096 entries (QEMU's
 *    software TLB grows to about that while a copy streams through
 *    memory), and then every switch between them costs a refill. Those
 *    copies move 512-byte blocks with AVX2, inside kernel_fpu_begin()/
 *    kernel_fpu_end() sections of at most 64 KiB, so that preemption is
 *    never off for long.
 *
 * Whatever is not a whole block goes through memcpy().
 */
#include <linux/compiler.h>
#include <linux/instrumented.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/types.h>
#ifdef CONFIG_X86_64
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/fpu/xstate.h>
#include <asm/simd.h>
#endif

#include "npu_copy.h"

#define NPU_COPY_BLOCK		64	/* eight words */
#define NPU_COPY_WIDE_BLOCK	512	/* sixteen 32-byte registers */
#define NPU_COPY_WIDE_SECTION	SZ_64K	/* bytes per FPU section at most */
#define NPU_COPY_ALIAS_SPAN	SZ_16M	/* 4096 TLB entries of 4 KiB */

#ifdef CONFIG_X86_64
static bool npu_copy_avx2 __read_mostly;

static __always_inline void npu_copy_avx2_block(void *dst, const void *src)
{
	asm volatile("vmovdqu   0(%1), %%ymm0\n\t"
		     "vmovdqu  32(%1), %%ymm1\n\t"
		     "vmovdqu  64(%1), %%ymm2\n\t"
		     "vmovdqu  96(%1), %%ymm3\n\t"
		     "vmovdqu 128(%1), %%ymm4\n\t"
		     "vmovdqu 160(%1), %%ymm5\n\t"
		     "vmovdqu 192(%1), %%ymm6\n\t"
		     "vmovdqu 224(%1), %%ymm7\n\t"
		     "vmovdqu 256(%1), %%ymm8\n\t"
		     "vmovdqu 288(%1), %%ymm9\n\t"
		     "vmovdqu 320(%1), %%ymm10\n\t"
		     "vmovdqu 352(%1), %%ymm11\n\t"
		     "vmovdqu 384(%1), %%ymm12\n\t"
		     "vmovdqu 416(%1), %%ymm13\n\t"
		     "vmovdqu 448(%1), %%ymm14\n\t"
		     "vmovdqu 480(%1), %%ymm15\n\t"
		     "vmovdqu %%ymm0,   0(%0)\n\t"
		     "vmovdqu %%ymm1,  32(%0)\n\t"
		     "vmovdqu %%ymm2,  64(%0)\n\t"
		     "vmovdqu %%ymm3,  96(%0)\n\t"
		     "vmovdqu %%ymm4, 128(%0)\n\t"
		     "vmovdqu %%ymm5, 160(%0)\n\t"
		     "vmovdqu %%ymm6, 192(%0)\n\t"
		     "vmovdqu %%ymm7, 224(%0)\n\t"
		     "vmovdqu %%ymm8, 256(%0)\n\t"
		     "vmovdqu %%ymm9, 288(%0)\n\t"
		     "vmovdqu %%ymm10, 320(%0)\n\t"
		     "vmovdqu %%ymm11, 352(%0)\n\t"
		     "vmovdqu %%ymm12, 384(%0)\n\t"
		     "vmovdqu %%ymm13, 416(%0)\n\t"
		     "vmovdqu %%ymm14, 448(%0)\n\t"
		     "vmovdqu %%ymm15, 480(%0)\n\t"
		     : : "r" (dst), "r" (src) : "memory");
}

/* Copy the whole wide blocks of @n bytes; returns how many bytes that was. */
static size_t npu_copy_wide(void *dst, const void *src, size_t n)
{
	size_t done = 0, end;

	if (!npu_copy_avx2 || !may_use_simd())
		return 0;
	n = round_down(n, NPU_COPY_WIDE_BLOCK);
	/* The compiler does not see through asm: tell KASAN and KCSAN. */
	instrument_read(src, n);
	instrument_write(dst, n);
	while (done < n) {
		end = min_t(size_t, n, done + NPU_COPY_WIDE_SECTION);
		kernel_fpu_begin();
		for (; done < end; done += NPU_COPY_WIDE_BLOCK)
			npu_copy_avx2_block(dst + done, src + done);
		kernel_fpu_end();
	}
	return n;
}

void npu_copy_init(void)
{
	npu_copy_avx2 = boot_cpu_has(X86_FEATURE_AVX2) &&
			cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM,
					  NULL);
}
#else
static size_t npu_copy_wide(void *dst, const void *src, size_t n)
{
	return 0;
}

void npu_copy_init(void)
{
}
#endif

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

/* Do @dst and @src lie in pages that a small direct-mapped TLB aliases? */
static bool npu_copy_aliases(void *dst, const void *src)
{
	unsigned long pages = ((unsigned long)dst >> PAGE_SHIFT) -
			      ((unsigned long)src >> PAGE_SHIFT);

	return !(pages & (NPU_COPY_ALIAS_SPAN / PAGE_SIZE - 1));
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
	if (IS_ALIGNED((unsigned long)dst | (unsigned long)src, sizeof(u64))) {
		if (npu_copy_aliases(dst, src))
			done = npu_copy_wide(dst, src, n);
		done += npu_copy_blocks(dst + done, src + done, n - done);
	}
	if (done < n)
		memcpy(dst + done, src + done, n - done);
}
