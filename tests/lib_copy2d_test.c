// SPDX-License-Identifier: MIT
/*
 * libacl: aclrtMemcpy2d(Async), aclrtMemcpyBatch(Async) and
 * aclrtMemsetD32(Async) - every check with its code, the data against a
 * model, and that a 2D copy or a batch is ONE SUBMIT to the driver
 * (the npu-submits count of the library's /dev/npu0 fdinfo).
 * Device buffers come from aclrtMallocAlign32, which adds no tail, so an
 * allocation ends where the checks of "leaves the allocation" expect
 * (aclrtMalloc pads 32 bytes, a page here). Skips without /dev/npu0.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "lib_util.h"

#define H2D	ACL_MEMCPY_HOST_TO_DEVICE
#define D2H	ACL_MEMCPY_DEVICE_TO_HOST
#define D2D	ACL_MEMCPY_DEVICE_TO_DEVICE
#define DEF	ACL_MEMCPY_DEFAULT

/* npu-submits of the library's /dev/npu0 file, or -1. */
static long long lib_submits(void)
{
	return npu_proc_submits(lib_npu_fd());
}

static void fill_random(void *p, size_t n, unsigned int seed)
{
	unsigned char *c = p;

	srandom(seed);
	for (size_t i = 0; i < n; i++)
		c[i] = random();
}

static void model_2d(char *dst, size_t dp, const char *src, size_t sp, size_t w, size_t h)
{
	for (size_t i = 0; i < h; i++)
		memcpy(dst + i * dp, src + i * sp, w);
}

/* Device memory of @n bytes holding @init (host, @n bytes). */
static void *dev_with(const void *init, size_t n)
{
	void *d = NULL;

	if (aclrtMallocAlign32(&d, n, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMemcpy(d, n, init, n, H2D))
		return NULL;
	return d;
}

/* ------------------------------------------------------------------ */
/* aclrtMemcpy2d(Async): checks                                        */
/* ------------------------------------------------------------------ */

TEST(memcpy2d_checks)
{
	void *dev, *dev2, *pin;
	char host[256];
	aclrtStream s;

	/* width or height 0: nothing, before any other check */
	EXPECT_ACL_OK(aclrtMemcpy2d(NULL, 0, NULL, 0, 0, 5, 99));
	EXPECT_ACL_OK(aclrtMemcpy2dAsync(NULL, 0, NULL, 0, 5, 0, 99, NULL));
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocAlign32(&dev, 64 * KiB, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocAlign32(&dev2, 64 * KiB, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&pin, 64 * KiB));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	EXPECT_ACL_OK(aclrtMemcpy2d(dev, 64, pin, 64, 0, 0, H2D));

	/* NULL */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(NULL, 64, pin, 64, 64, 2, H2D));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64, NULL, 64, 64, 2, H2D));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(NULL, 64, pin, 64, 64, 2, H2D, s));
	/* width above a pitch; before the kind and the limits */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 63, pin, 64, 64, 2, H2D));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64, pin, 63, 64, 2, H2D));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 0, pin, 0, 64, 2, H2D));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64, pin, 32, 64, 6000000, 99));
	/* kinds: H2D, D2H, D2D, DEFAULT only */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpy2d(host, 64, pin, 64, 64, 2, ACL_MEMCPY_HOST_TO_HOST));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpy2d(dev, 64, pin, 64, 64, 2, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpy2dAsync(dev, 64, dev2, 64, 64, 2, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64, pin, 64, 64, 2, 8));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64, pin, 64, 64, 2, -1));
	/* the runtime's limits: 107000, before the sync form's D2D */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(dev, 1, pin, 1, 1, 5242881, D2D));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemcpy2dAsync(dev, 5000001, pin, 5000001, 5000001, 1, H2D, s));
	/* at the limits, the address checks come next: these rows leave dev */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 1, pin, 1, 1, 5242880, H2D));
	/* synchronous D2D: not on this API */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpy2d(dev, 64, dev2, 64, 64, 2, D2D));
	EXPECT_ACL_OK(aclrtMemcpy2dAsync(dev, 64, dev2, 64, 64, 2, D2D, s));
	/* DEFAULT: the sync form does H2D and D2H only; async also D2D; never H2H */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(dev, 64, dev2, 64, 64, 2, DEF));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2d(host, 64, pin, 64, 64, 2, DEF));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy2dAsync(host, 64, pin, 64, 64, 2, DEF, s));
	EXPECT_ACL_OK(aclrtMemcpy2dAsync(dev, 64, dev2, 64, 64, 2, DEF, s));
	EXPECT_ACL_OK(aclrtMemcpy2d(dev, 64, pin, 64, 64, 2, DEF));
	EXPECT_ACL_OK(aclrtMemcpy2d(host, 64, dev, 64, 64, 2, DEF));
	/* a kind the addresses disagree with: as aclrtMemcpy, 100000 */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64, pin, 64, 64, 2, D2H));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(host, 64, pin, 64, 64, 2, D2H));
	/* the last row leaves the allocation */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64 * KiB, pin, 64, 64, 2, H2D));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(host, 64, dev, 32 * KiB + 1, 64, 3, D2H));
	/* rows that wrap the address space */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, SIZE_MAX / 2, pin, 64, 64, 3, H2D));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpy2d((void *)(UINTPTR_MAX - 64), 64, pin, 64, 64, 2, H2D));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclFinalize());
}

/* ------------------------------------------------------------------ */
/* aclrtMemcpy2d(Async): the data                                      */
/* ------------------------------------------------------------------ */

struct shape {
	size_t doff, dp, soff, sp, w, h;
};

static const struct shape shapes[] = {
	{ 0, 64, 0, 64, 64, 100 },
	{ 3, 100, 5, 77, 77, 500 },
	{ 0, 4096, 0, 1000, 1000, 64 },
	{ 1, 8191, 4095, 4097, 4097, 30 },
	{ 100, 300, 7, 301, 257, 800 },
	{ 4093, 1, 11, 1, 1, 3000 },
	{ 12, 70000, 0, 65536, 65536, 3 },
};

#define AREA	(256 * KiB)

/*
 * H2D and D2H between device memory and pinned or pageable host memory,
 * D2D on a stream: the whole destination against a model, then a
 * part of it at an offset the rows do not start at.
 */
TEST_TIMEOUT(memcpy2d_matches_model, 180)
{
	char *pin, *pg = malloc(AREA), *model = malloc(AREA), *back = malloc(AREA), *src;
	void *dev, *dev2;
	aclrtStream s;

	ASSERT_NONNULL(pg);
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(back);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, AREA));
	ASSERT_ACL_OK(aclrtMallocAlign32(&dev, AREA, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocAlign32(&dev2, AREA, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	for (unsigned int k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		const struct shape *sh = &shapes[k];

		ASSERT_GE(AREA, sh->doff + (sh->h - 1) * sh->dp + sh->w);
		ASSERT_GE(AREA, sh->soff + (sh->h - 1) * sh->sp + sh->w);
		for (int pinned = 0; pinned < 2; pinned++) {
			src = pinned ? pin : pg;
			/* H2D, sync and async */
			for (int async = 0; async < 2; async++) {
				void *d = async ? dev2 : dev;

				fill_random(src, AREA, k * 4 + pinned * 2 + async);
				fill_random(model, AREA, 100 + k);
				ASSERT_ACL_OK(aclrtMemcpy(d, AREA, model, AREA, H2D));
				if (async) {
					ASSERT_ACL_OK(aclrtMemcpy2dAsync((char *)d + sh->doff, sh->dp,
									 src + sh->soff, sh->sp, sh->w,
									 sh->h, H2D, s));
					ASSERT_ACL_OK(aclrtSynchronizeStream(s));
				} else {
					ASSERT_ACL_OK(aclrtMemcpy2d((char *)d + sh->doff, sh->dp,
								    src + sh->soff, sh->sp, sh->w, sh->h,
								    H2D));
				}
				model_2d(model + sh->doff, sh->dp, src + sh->soff, sh->sp, sh->w, sh->h);
				memset(back, 0, AREA);
				ASSERT_ACL_OK(aclrtMemcpy(back, AREA, d, AREA, D2H));
				if (memcmp(back, model, AREA))
					TH_LOG("H2D shape %u pinned %d async %d differs", k, pinned, async);
				EXPECT_EQ(0, memcmp(back, model, AREA));
				memset(back, 0, AREA);
				ASSERT_ACL_OK(aclrtMemcpy(back, AREA, (char *)d + 333, 9999, D2H));
				EXPECT_EQ(0, memcmp(back, model + 333, 9999));
			}
			/* D2H: the device holds a pattern, the host's rows get it */
			fill_random(model, AREA, 200 + k);
			ASSERT_ACL_OK(aclrtMemcpy(dev, AREA, model, AREA, H2D));
			fill_random(src, AREA, 300 + k);
			memcpy(back, src, AREA);
			ASSERT_ACL_OK(aclrtMemcpy2d(src + sh->doff, sh->dp, (char *)dev + sh->soff, sh->sp,
						    sh->w, sh->h, D2H));
			model_2d(back + sh->doff, sh->dp, model + sh->soff, sh->sp, sh->w, sh->h);
			if (memcmp(back, src, AREA))
				TH_LOG("D2H shape %u pinned %d differs", k, pinned);
			EXPECT_EQ(0, memcmp(back, src, AREA));
			fill_random(src, AREA, 400 + k);
			memcpy(back, src, AREA);
			ASSERT_ACL_OK(aclrtMemcpy2dAsync(src + sh->doff, sh->dp, (char *)dev + sh->soff,
							 sh->sp, sh->w, sh->h, D2H, s));
			ASSERT_ACL_OK(aclrtSynchronizeStream(s));
			model_2d(back + sh->doff, sh->dp, model + sh->soff, sh->sp, sh->w, sh->h);
			EXPECT_EQ(0, memcmp(back, src, AREA));
		}
		/* D2D: dev holds model (from the D2H above), dev2 a pattern */
		fill_random(back, AREA, 500 + k);
		ASSERT_ACL_OK(aclrtMemcpy(dev2, AREA, back, AREA, H2D));
		ASSERT_ACL_OK(aclrtMemcpy2dAsync((char *)dev2 + sh->doff, sh->dp, (char *)dev + sh->soff,
						 sh->sp, sh->w, sh->h, D2D, s));
		ASSERT_ACL_OK(aclrtSynchronizeStream(s));
		model_2d(back + sh->doff, sh->dp, model + sh->soff, sh->sp, sh->w, sh->h);
		ASSERT_ACL_OK(aclrtMemcpy(pg, AREA, dev2, AREA, D2H));
		EXPECT_EQ(0, memcmp(back, pg, AREA));
	}
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclFinalize());
	free(pg);
	free(model);
	free(back);
}

/* Pageable rows wider than a staging half go one row at a time. */
TEST_TIMEOUT(memcpy2d_pageable_wide_rows, 120)
{
	const size_t w = 4 * MiB + 4096 + 3, sp = w + 5, dp = w + 4096, h = 2;
	const size_t slen = (h - 1) * sp + w, dlen = (h - 1) * dp + w;
	char *src = malloc(slen), *back = malloc(dlen), *model = malloc(dlen);
	void *dev;

	ASSERT_NONNULL(src);
	ASSERT_NONNULL(back);
	ASSERT_NONNULL(model);
	NEED_DEVICE();
	fill_random(src, slen, 1);
	fill_random(model, dlen, 2);
	ASSERT_NONNULL(dev = dev_with(model, dlen));
	ASSERT_ACL_OK(aclrtMemcpy2d(dev, dp, src, sp, w, h, H2D));
	model_2d(model, dp, src, sp, w, h);
	ASSERT_ACL_OK(aclrtMemcpy(back, dlen, dev, dlen, D2H));
	EXPECT_EQ(0, memcmp(back, model, dlen));
	/* and back into pageable rows */
	memset(src, 0, slen);
	memcpy(back, src, slen);
	ASSERT_ACL_OK(aclrtMemcpy2d(src, sp, dev, dp, w, h, D2H));
	model_2d(back, sp, model, dp, w, h);
	EXPECT_EQ(0, memcmp(back, src, slen));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(src);
	free(back);
	free(model);
}

/* A 1000-row 2D copy is ONE SUBMIT, pinned, pageable (rows that fit the staging buffer) or D2D. */
TEST(memcpy2d_is_one_submit)
{
	/* 60 KB of rows: within the smallest staging half (64 KiB) */
	const size_t w = 60, sp = 128, dp = 256, h = 1000;
	char *pg = malloc(h * sp), *back = malloc(h * dp), *model = malloc(h * dp);
	void *dev, *dev2, *pin;
	aclrtStream s;
	long long n0;

	ASSERT_NONNULL(pg);
	ASSERT_NONNULL(back);
	ASSERT_NONNULL(model);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost(&pin, h * sp));
	ASSERT_ACL_OK(aclrtMallocAlign32(&dev, h * dp, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocAlign32(&dev2, h * dp, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	fill_random(pin, h * sp, 7);
	fill_random(pg, h * sp, 8);
	fill_random(model, h * dp, 9);
	ASSERT_ACL_OK(aclrtMemcpy(dev, h * dp, model, h * dp, H2D));
	/* the staging buffer exists from here on */
	ASSERT_ACL_OK(aclrtMemcpy2d(dev, dp, pg, sp, w, 1, H2D));
	model_2d(model, dp, pg, sp, w, 1);

	n0 = lib_submits();
	ASSERT_LE(0, n0);
	ASSERT_ACL_OK(aclrtMemcpy2d(dev, dp, pin, sp, w, h, H2D));
	EXPECT_EQ(n0 + 1, lib_submits());
	model_2d(model, dp, pin, sp, w, h);

	n0 = lib_submits();
	ASSERT_ACL_OK(aclrtMemcpy2dAsync(dev2, dp, dev, dp, w, h, D2D, s));
	EXPECT_EQ(n0 + 1, lib_submits());
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));

	n0 = lib_submits();
	ASSERT_ACL_OK(aclrtMemcpy2d((char *)dev + 128, dp, pg, sp, w, h, H2D));
	EXPECT_EQ(n0 + 1, lib_submits());
	model_2d(model + 128, dp, pg, sp, w, h);

	ASSERT_ACL_OK(aclrtMemcpy(back, h * dp, dev, h * dp, D2H));
	EXPECT_EQ(0, memcmp(back, model, h * dp));
	ASSERT_ACL_OK(aclrtMemcpy(back, h * dp, dev2, h * dp, D2H));
	/* dev2 got dev's rows before the pageable copy: the pinned ones */
	for (size_t i = 0; i < h; i++)
		if (memcmp(back + i * dp, (char *)pin + i * sp, w)) {
			EXPECT_EQ(0, memcmp(back + i * dp, (char *)pin + i * sp, w));
			break;
		}
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclFinalize());
	free(pg);
	free(back);
	free(model);
}

/* ------------------------------------------------------------------ */
/* aclrtMemcpyBatch(Async)                                             */
/* ------------------------------------------------------------------ */

static const aclrtMemcpyBatchAttr attr_h2d = {
	.dstLoc = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	.srcLoc = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_HOST },
};
static const aclrtMemcpyBatchAttr attr_d2h = {
	.dstLoc = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_HOST },
	.srcLoc = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
};

#define NB	10

TEST(batch_checks)
{
	void *dsts[NB], *srcs[NB];
	size_t sizes[NB], maxs[NB], idx[3] = { 0, 4, 8 }, fail = 7, zero[NB] = { 0 };
	aclrtMemcpyBatchAttr attrs[3] = { attr_h2d, attr_d2h, attr_h2d };
	char *dev, *pin;
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocAlign32((void **)&dev, NB * 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, NB * 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	memset(pin, 0x5a, NB * 4096);
	for (int i = 0; i < NB; i++) {
		bool h2d = i < 4 || i >= 8;

		dsts[i] = h2d ? dev + i * 4096 : pin + i * 4096;
		srcs[i] = h2d ? pin + i * 4096 : dev + i * 4096;
		sizes[i] = maxs[i] = 4096;
	}
#define BATCH(...) aclrtMemcpyBatch(__VA_ARGS__)
	/* failIndex, sizes, numBatches: 100000, *failIndex untouched */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, NULL, NB, attrs, idx, 3, &fail));
	EXPECT_EQ(7, fail);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, 0, attrs, idx, 3, &fail));
	EXPECT_EQ(7, fail);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, NULL, s));
	/* all sizes 0: success, whatever else is NULL; *failIndex SIZE_MAX */
	EXPECT_ACL_OK(BATCH(NULL, NULL, NULL, zero, NB, NULL, NULL, 0, &fail));
	EXPECT_EQ(SIZE_MAX, fail);
	/* other NULL arrays, destMax, rsv: 100000 from the acl layer, *failIndex untouched */
	fail = 7;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(NULL, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, NULL, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, NULL, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, NULL, idx, 3, &fail));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, NULL, 3, &fail));
	EXPECT_EQ(7, fail);
	maxs[9] = 4095;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_EQ(7, fail);
	maxs[9] = 4096;
	attrs[2].rsv[15] = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail, s));
	EXPECT_EQ(7, fail);
	attrs[2].rsv[15] = 0;
	/* a NULL address of a copy: the runtime's check, after *failIndex = SIZE_MAX */
	dsts[5] = NULL;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_EQ(SIZE_MAX, fail);
	/* a NULL of an empty copy does not count */
	sizes[5] = 0;
	EXPECT_ACL_OK(BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	dsts[5] = pin + 5 * 4096;
	sizes[5] = 4096;
	srcs[2] = NULL;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	srcs[2] = pin + 2 * 4096;
	maxs[9] = 4095;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	/* ... before the attrs' 107000 */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 0, &fail));
	maxs[9] = 4096;
	attrs[2].rsv[15] = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail, s));
	attrs[2].rsv[15] = 0;
	EXPECT_EQ(SIZE_MAX, fail);
	/* attrs and their indexes: 107000 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 0, &fail));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, BATCH(dsts, maxs, srcs, sizes, 2, attrs, idx, 3, &fail));
	idx[0] = 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	idx[0] = 0;
	idx[2] = 4;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	idx[2] = 3;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	idx[2] = NB;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	idx[2] = 8;
	EXPECT_EQ(SIZE_MAX, fail);
	/* copies their attrs disagree with: 107000, *failIndex names the first */
	ASSERT_ACL_OK(aclrtMemset(dev, NB * 4096, 0, NB * 4096));
	attrs[1] = attr_h2d;	/* copies 4..7 are D2H */
	fail = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_EQ(4, fail);
	/* nothing ran, not even the good copies 0..3 */
	{
		char back[4096];

		ASSERT_ACL_OK(aclrtMemcpy(back, 4096, dev, 4096, D2H));
		EXPECT_EQ(-1, check_byte(back, 4096, 0));
	}
	attrs[1] = attr_d2h;
	attrs[2].dstLoc.id = 1;	/* copies 8, 9: device 0's memory */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail, s));
	EXPECT_EQ(8, fail);
	attrs[2].dstLoc.id = 0;
	attrs[2].srcLoc.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_EQ(8, fail);
	attrs[2] = attr_h2d;
	/* D2D and H2H copies, even as their attrs say */
	srcs[6] = dev + 6 * 4096;
	dsts[6] = dev + 7 * 4096;
	{
		aclrtMemcpyBatchAttr a4[4] = { attr_h2d, attr_d2h, attr_d2h, attr_h2d };
		size_t i4[4] = { 0, 4, 6, 8 };

		a4[2].dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
			   BATCH(dsts, maxs, srcs, sizes, NB, a4, i4, 4, &fail));
		EXPECT_EQ(6, fail);
		dsts[6] = pin + 6 * 4096;
		srcs[6] = pin + 7 * 4096;
		a4[2] = attr_d2h;
		a4[2].srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
			   BATCH(dsts, maxs, srcs, sizes, NB, a4, i4, 4, &fail));
		EXPECT_EQ(6, fail);
	}
	/* a copy that runs past its device allocation */
	dsts[6] = pin + 6 * 4096;
	srcs[6] = dev + 6 * 4096;
	sizes[9] = maxs[9] = 4097;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_EQ(9, fail);
	sizes[9] = maxs[9] = 4096;
	fail = 0;
	EXPECT_ACL_OK(BATCH(dsts, maxs, srcs, sizes, NB, attrs, idx, 3, &fail));
	EXPECT_EQ(SIZE_MAX, fail);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
#undef BATCH
}

/* The synchronous form takes 4096 copies at most; the async form more, in order. */
TEST_TIMEOUT(batch_limits, 120)
{
	const size_t n = 4097;
	void **dsts = calloc(n, sizeof(void *)), **srcs = calloc(n, sizeof(void *));
	size_t *sizes = calloc(n, sizeof(size_t)), idx = 0, fail;
	aclrtMemcpyBatchAttr a = attr_h2d;
	uint32_t *pin, *back = calloc(n, 4);
	char *dev;
	aclrtStream s;
	long long n0;

	ASSERT_NONNULL(dsts);
	ASSERT_NONNULL(back);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocAlign32((void **)&dev, n * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, n * 4));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	for (size_t i = 0; i < n; i++) {
		pin[i] = 0x1000000 + i;
		dsts[i] = dev + 4 * i;
		srcs[i] = &pin[i];
		sizes[i] = 4;
	}
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemcpyBatch(dsts, sizes, srcs, sizes, n, &a, &idx, 1, &fail));
	EXPECT_EQ(SIZE_MAX, fail);
	n0 = lib_submits();
	ASSERT_ACL_OK(aclrtMemcpyBatchAsync(dsts, sizes, srcs, sizes, n, &a, &idx, 1, &fail, s));
	/* more than one SUBMIT carries: two */
	EXPECT_EQ(n0 + 2, lib_submits());
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(back, n * 4, dev, n * 4, D2H));
	EXPECT_EQ(0, memcmp(back, pin, n * 4));
	/* exactly 4096: one, synchronous */
	for (size_t i = 0; i < n; i++)
		pin[i] = ~pin[i];
	n0 = lib_submits();
	ASSERT_ACL_OK(aclrtMemcpyBatch(dsts, sizes, srcs, sizes, n - 1, &a, &idx, 1, &fail));
	EXPECT_EQ(n0 + 1, lib_submits());
	ASSERT_ACL_OK(aclrtMemcpy(back, n * 4, dev, n * 4, D2H));
	EXPECT_EQ(0, memcmp(back, pin, (n - 1) * 4));
	EXPECT_EQ(0x1000000 + n - 1, back[n - 1]);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(dsts);
	free(srcs);
	free(sizes);
	free(back);
}

/*
 * 1000 copies in three attr groups (H2D, D2H, H2D), sizes from 1 byte
 * to 8 KiB, pinned and pageable host sides: device and host memory
 * against their models, the pinned part in ONE SUBMIT.
 */
TEST_TIMEOUT(batch_matches_model, 180)
{
	enum { N = 1000, SLOT = 8192 + 64 };
	void **dsts = calloc(N, sizeof(void *)), **srcs = calloc(N, sizeof(void *));
	size_t *sizes = calloc(N, sizeof(size_t)), idx[3] = { 0, 300, 700 }, fail;
	aclrtMemcpyBatchAttr attrs[3] = { attr_h2d, attr_d2h, attr_h2d };
	char *dev, *pin, *pg = malloc(N * SLOT), *dmodel = malloc(N * SLOT), *hmodel = malloc(N * SLOT);
	char *back = malloc(N * SLOT);

	ASSERT_NONNULL(dsts);
	ASSERT_NONNULL(back);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, N * SLOT));
	fill_random(dmodel, N * SLOT, 1);
	ASSERT_NONNULL(dev = dev_with(dmodel, N * SLOT));
	for (int round = 0; round < 2; round++) {
		bool pageable = round;
		char *h = pageable ? pg : pin;
		long long n0;

		fill_random(h, N * SLOT, 2 + round);
		memcpy(hmodel, h, N * SLOT);
		srandom(10 + round);
		for (size_t i = 0; i < N; i++) {
			bool h2d = i < 300 || i >= 700;
			size_t off = i * SLOT + random() % 64;

			sizes[i] = i % 10 == 3 ? 0 : 1 + random() % 8192;
			dsts[i] = h2d ? dev + off : h + off;
			srcs[i] = h2d ? h + off : dev + off;
			if (h2d)
				memcpy(dmodel + off, hmodel + off, sizes[i]);
			else
				memcpy(hmodel + off, dmodel + off, sizes[i]);
		}
		n0 = lib_submits();
		if (round)
			ASSERT_ACL_OK(aclrtMemcpyBatchAsync(dsts, sizes, srcs, sizes, N, attrs, idx, 3, &fail,
							    NULL));
		else
			ASSERT_ACL_OK(aclrtMemcpyBatch(dsts, sizes, srcs, sizes, N, attrs, idx, 3, &fail));
		if (!pageable)
			EXPECT_EQ(n0 + 1, lib_submits());
		/* pageable: done when the async call returns */
		EXPECT_EQ(0, memcmp(h, hmodel, N * SLOT));
		ASSERT_ACL_OK(aclrtMemcpy(back, N * SLOT, dev, N * SLOT, D2H));
		EXPECT_EQ(0, memcmp(back, dmodel, N * SLOT));
		ASSERT_ACL_OK(aclrtMemcpy(back, N * SLOT, dev + 4097, 3 * SLOT + 5, D2H));
		EXPECT_EQ(0, memcmp(back, dmodel + 4097, 3 * SLOT + 5));
	}
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(dsts);
	free(srcs);
	free(sizes);
	free(pg);
	free(dmodel);
	free(hmodel);
	free(back);
}

/* 1000 4 KiB H2D copies from pinned memory: ONE SUBMIT, sync or async. */
TEST(batch_is_one_submit)
{
	enum { N = 1000 };
	void *dsts[N], *srcs[N];
	size_t sizes[N], idx = 0, fail;
	aclrtMemcpyBatchAttr a = attr_h2d;
	char *dev, *pin, *back = malloc(N * 4096);
	aclrtStream s;
	long long n0;

	ASSERT_NONNULL(back);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocAlign32((void **)&dev, N * 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, N * 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	fill_random(pin, N * 4096, 3);
	for (int i = 0; i < N; i++) {
		/* reversed: copy i lands in slot N - 1 - i */
		dsts[i] = dev + (N - 1 - i) * 4096;
		srcs[i] = pin + i * 4096;
		sizes[i] = 4096;
	}
	n0 = lib_submits();
	ASSERT_LE(0, n0);
	ASSERT_ACL_OK(aclrtMemcpyBatch(dsts, sizes, srcs, sizes, N, &a, &idx, 1, &fail));
	EXPECT_EQ(n0 + 1, lib_submits());
	ASSERT_ACL_OK(aclrtMemcpy(back, N * 4096, dev, N * 4096, D2H));
	for (int i = 0; i < N; i++)
		if (memcmp(back + (N - 1 - i) * 4096, pin + i * 4096, 4096)) {
			EXPECT_EQ(0, memcmp(back + (N - 1 - i) * 4096, pin + i * 4096, 4096));
			break;
		}
	n0 = lib_submits();
	ASSERT_ACL_OK(aclrtMemcpyBatchAsync(srcs, sizes, dsts, sizes, N, (aclrtMemcpyBatchAttr[]){ attr_d2h },
					    &idx, 1, &fail, s));
	EXPECT_EQ(n0 + 1, lib_submits());
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(back);
}

/* ------------------------------------------------------------------ */
/* aclrtMemsetD32(Async)                                               */
/* ------------------------------------------------------------------ */

TEST(memset_d32_checks)
{
	uint32_t stackw[16];
	char *dev, *pin, *pg = malloc(8192), *reg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
							  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	aclrtStream s;

	ASSERT_NONNULL(pg);
	ASSERT_NE(MAP_FAILED, reg);
	/* N 0: nothing, before any other check */
	EXPECT_ACL_OK(aclrtMemsetD32(NULL, 0, 1, 0));
	EXPECT_ACL_OK(aclrtMemsetD32Async((void *)1, 0, 1, 0, NULL));
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocAlign32((void **)&dev, 8192, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, 8192));
	{
		void *mapped;

		ASSERT_ACL_OK(aclrtHostRegister(reg, 8192, ACL_HOST_REGISTER_MAPPED, &mapped));
	}
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(NULL, 64, 1, 16));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32Async(NULL, 64, 1, 16, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(dev + 2, 64, 1, 16));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(pin + 1, 64, 1, 16));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(dev, 63, 1, 16));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32Async(dev, 0, 1, 1, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(dev, SIZE_MAX, 1, SIZE_MAX / 2));
	/* not aclrtMalloc* / aclrtMallocHost* memory */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(pg, 64, 1, 16));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32Async(stackw, 64, 1, 16, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(reg, 64, 1, 16));
	/* words past the end of the allocation */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(dev + 8192 - 60, 64, 1, 16));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32Async(pin + 4, 8192, 1, 2048, s));
	EXPECT_ACL_OK(aclrtMemsetD32(dev + 8192 - 64, 64, 1, 16));
	EXPECT_ACL_OK(aclrtMemsetD32Async(pin, 8192, 1, 2048, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtHostUnregister(reg));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(pg);
	munmap(reg, 8192);
}

/*
 * Device memory, in stream order: a copy queued before the fill is
 * overwritten, one after overwrites it. Host memory: filled when the
 * call returns. Nothing before or after the words changes.
 */
TEST(memset_d32_fills)
{
	const size_t len = 3 * MiB;
	uint32_t *model = malloc(len), *back = malloc(len), *pin, *pin2;
	const struct { size_t off, n; } f[] = { { 0, 1 }, { 4, 2 }, { 4092, 3 }, { 100, 3000 },
						{ 2 * MiB - 2048, 200000 } };
	char *dev;
	aclrtStream s;

	ASSERT_NONNULL(model);
	ASSERT_NONNULL(back);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocAlign32((void **)&dev, len, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, len));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin2, len));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	for (unsigned int k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		uint32_t v = 0xdeadbeef ^ (k * 0x01010101);

		fill_random(model, len, k);
		ASSERT_ACL_OK(aclrtMemcpy(dev, len, model, len, H2D));
		if (k % 2) {
			ASSERT_ACL_OK(aclrtMemsetD32(dev + f[k].off, 4 * f[k].n, v, f[k].n));
		} else {
			/* queued behind a copy of other bytes over the same words */
			fill_random(pin2, len, 50 + k);
			ASSERT_ACL_OK(aclrtMemcpyAsync(dev, len, pin2, len, H2D, s));
			ASSERT_ACL_OK(aclrtMemsetD32Async(dev + f[k].off, 4 * f[k].n + 4, v, f[k].n, s));
			ASSERT_ACL_OK(aclrtSynchronizeStream(s));
			memcpy(model, pin2, len);
		}
		for (size_t i = 0; i < f[k].n; i++)
			memcpy((char *)model + f[k].off + 4 * i, &v, 4);
		ASSERT_ACL_OK(aclrtMemcpy(back, len, dev, len, D2H));
		EXPECT_EQ(0, memcmp(back, model, len));
		/* host: filled on return, also the async form */
		fill_random(pin, len, 100 + k);
		memcpy(model, pin, len);
		if (k % 2)
			ASSERT_ACL_OK(aclrtMemsetD32((char *)pin + f[k].off, 4 * f[k].n, v, f[k].n));
		else
			ASSERT_ACL_OK(aclrtMemsetD32Async((char *)pin + f[k].off, 4 * f[k].n, v, f[k].n, s));
		for (size_t i = 0; i < f[k].n; i++)
			memcpy((char *)model + f[k].off + 4 * i, &v, 4);
		EXPECT_EQ(0, memcmp(pin, model, len));
	}
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFreeHost(pin2));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(model);
	free(back);
}

TEST_HARNESS_MAIN
