// SPDX-License-Identifier: MIT
/*
 * libacl: the copies of issue 22 part C - aclrtMemcpyAsyncWithCondition,
 * aclrtMemcpyBatchV2 / aclrtMemcpyBatchAsyncV2, and the copies whose
 * addresses the engine reads from device memory: aclrtGetMemcpyDescSize,
 * aclrtSetMemcpyDesc, aclrtMemcpyAsyncWithDesc, aclrtMemcpyAsyncWithOffset.
 * Every check with its code and whether it is the thread's last error;
 * the data of every copy against a model of the whole destination, read
 * back whole and at offsets the copies did not start at; that a
 * descriptor or a pointer is read when the stream gets to the copy (what
 * the stream, or a stream it waited for, wrote there before counts); and
 * that an address the device cannot reach faults in stream order.
 * Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib_util.h"

/* aclrtMemcpyAsyncWithCondition is deprecated, and tested all the same */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define H2H	ACL_MEMCPY_HOST_TO_HOST
#define H2D	ACL_MEMCPY_HOST_TO_DEVICE
#define D2H	ACL_MEMCPY_DEVICE_TO_HOST
#define D2D	ACL_MEMCPY_DEVICE_TO_DEVICE
#define DEF	ACL_MEMCPY_DEFAULT
#define INNER	ACL_MEMCPY_INNER_DEVICE_TO_DEVICE
#define INTER	ACL_MEMCPY_INTER_DEVICE_TO_DEVICE

#define AREA	(256 * KiB)

/* The thread's last error, taken (Get resets it). */
#define EXPECT_LAST(code)	EXPECT_EQ((aclError)(code), aclrtGetLastError(ACL_RT_THREAD_LEVEL))

static void fill_random(void *p, size_t n, unsigned int seed)
{
	unsigned char *c = p;

	srandom(seed);
	for (size_t i = 0; i < n; i++)
		c[i] = random();
}

/* Device memory of AREA bytes holding @init. */
static void *dev_with(const void *init)
{
	void *d = NULL;

	if (aclrtMalloc(&d, AREA, ACL_MEM_MALLOC_NORMAL_ONLY) || aclrtMemcpy(d, AREA, init, AREA, H2D))
		return NULL;
	return d;
}

/* The whole of @d equals @model, and so do three stretches read on their own. */
static bool dev_matches(void *d, const char *model)
{
	static const size_t at[][2] = { { 1, 4095 }, { 77777, 1000 }, { AREA - 333, 333 } };
	char *back = malloc(AREA);
	bool ok = back != NULL;

	if (ok && aclrtMemcpy(back, AREA, d, AREA, D2H))
		ok = false;
	if (ok && memcmp(back, model, AREA))
		ok = false;
	for (size_t i = 0; ok && i < sizeof(at) / sizeof(at[0]); i++) {
		memset(back, 0, at[i][1]);
		ok = !aclrtMemcpy(back, at[i][1], (char *)d + at[i][0], at[i][1], D2H) &&
		     !memcmp(back, model + at[i][0], at[i][1]);
	}
	free(back);
	return ok;
}

/* ------------------------------------------------------------------ */
/* aclrtMemcpyAsyncWithCondition                                       */
/* ------------------------------------------------------------------ */

TEST(with_condition_checks)
{
	char host[64];
	void *dev, *pin;
	aclrtStream s;

	/* count 0: nothing, before any check, aclInit's too */
	EXPECT_ACL_OK(aclrtMemcpyAsyncWithCondition(NULL, 0, NULL, 0, 99, NULL));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtMemcpyAsyncWithCondition(host, 64, host, 64, H2H, NULL));
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&pin, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	EXPECT_ACL_OK(aclrtMemcpyAsyncWithCondition(NULL, 0, NULL, 0, H2D, s));
	/* the acl layer's: 100000, never the last error */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithCondition(NULL, 64, pin, 64, H2D, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithCondition(dev, 64, NULL, 64, H2D, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithCondition(dev, 64, pin, 64, 99, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithCondition(dev, 64, pin, 64, INNER, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithCondition(dev, 64, dev, 64, INTER, s));
	/* a kind the addresses disagree with, as aclrtMemcpyAsync */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithCondition(dev, 64, pin, 64, D2H, s));
	EXPECT_LAST(ACL_SUCCESS);
	/* host to host: the runtime's "not supported", not recorded */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpyAsyncWithCondition(host, 64, pin, 64, H2H, s));
	EXPECT_LAST(ACL_SUCCESS);
	/* a stream that is not one: the runtime's, recorded */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
		   aclrtMemcpyAsyncWithCondition(dev, 64, pin, 64, H2D, (aclrtStream)host));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * Pinned memory is copied in stream order, pageable memory before the
 * call returns (after the stream's earlier work): every direction, on a
 * NULL (default) stream and a created one, against a model.
 */
TEST(with_condition_data)
{
	char *model = malloc(AREA), *pg = malloc(AREA), *pin, *back = malloc(AREA);
	void *dev, *dev2;
	aclrtStream s;

	ASSERT_NONNULL(model);
	ASSERT_NONNULL(pg);
	ASSERT_NONNULL(back);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, AREA));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	fill_random(model, AREA, 1);
	ASSERT_NONNULL(dev = dev_with(model));
	ASSERT_NONNULL(dev2 = dev_with(model));

	/* H2D from pinned memory, queued; then from pageable memory on the default stream */
	fill_random(pin, AREA, 2);
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithCondition((char *)dev + 100, AREA - 100, pin + 7, 50000, H2D, s));
	memcpy(model + 100, pin + 7, 50000);
	fill_random(pg, AREA, 3);
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithCondition((char *)dev + 90000, AREA - 90000, pg + 1, 70001, DEF, NULL));
	memcpy(model + 90000, pg + 1, 70001);
	/* D2D on the stream, after the H2D it reads */
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithCondition((char *)dev + 200000, AREA - 200000, (char *)dev + 100, 40000,
						    D2D, s));
	memcpy(model + 200000, model + 100, 40000);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_TRUE(dev_matches(dev, model));

	/* D2H to pinned memory (in stream order) and to pageable memory (done on return) */
	memset(pin, 0, AREA);
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithCondition(pin + 5, AREA - 5, (char *)dev + 3, 100000, D2H, s));
	memset(back, 0, AREA);
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithCondition(back + 9, AREA - 9, (char *)dev + 11, 123457, D2H, s));
	EXPECT_EQ(0, memcmp(back + 9, model + 11, 123457));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(0, memcmp(pin + 5, model + 3, 100000));
	EXPECT_EQ(-1, check_byte(pin, 5, 0));
	EXPECT_EQ(-1, check_byte(pin + 100005, AREA - 100005, 0));
	/* the untouched device buffer is untouched */
	fill_random(back, AREA, 1);
	EXPECT_TRUE(dev_matches(dev2, back));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclFinalize());
	free(model);
	free(pg);
	free(back);
}

/* ------------------------------------------------------------------ */
/* aclrtMemcpyBatchV2 / aclrtMemcpyBatchAsyncV2                        */
/* ------------------------------------------------------------------ */

static aclrtMemcpyBatchAttr attr_of(aclrtMemLocationType dt, aclrtMemLocationType st)
{
	aclrtMemcpyBatchAttr a;

	memset(&a, 0, sizeof(a));
	a.dstLoc.type = dt;
	a.srcLoc.type = st;
	return a;
}

TEST(batch_v2_checks)
{
	aclrtMemcpyBatchAttr a[2] = {
		attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST),
		attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE),
	};
	size_t sizes[2] = { 64, 64 }, zero[2] = { 0, 0 }, maxs[2] = { 4096, 4096 }, idx[2] = { 0, 1 };
	void *dsts[2], *srcs[2], *dev, *pin;
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&pin, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	dsts[0] = dev;
	srcs[0] = pin;
	dsts[1] = pin;
	srcs[1] = (char *)dev + 1024;
	/* no failIndex to give: the acl layer's checks all the same */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatchV2(dsts, maxs, srcs, NULL, 2, a, idx, 2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 0, a, idx, 2, s));
	EXPECT_ACL_OK(aclrtMemcpyBatchV2(NULL, NULL, NULL, zero, 2, NULL, NULL, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, 2, NULL, idx, 2));
	EXPECT_LAST(ACL_SUCCESS);
	/* the runtime's: recorded */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, 2, a, idx, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 2, a, idx, 1, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	idx[1] = 2;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, 2, a, idx, 2));
	idx[1] = 1;
	/* copy 1 is not where its attr says */
	a[1].dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 2, a, idx, 2, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	a[1].dstLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
		   aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 2, a, idx, 2, (aclrtStream)pin));
	EXPECT_ACL_OK(aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, 2, a, idx, 2));
	EXPECT_ACL_OK(aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 2, a, idx, 2, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
}

#define NB	24

/*
 * NB copies host -> device then device -> host, from and to pinned and
 * pageable memory, at odd offsets and sizes, synchronous and on a stream:
 * the device buffer and the host buffers against their models.
 */
TEST(batch_v2_data)
{
	char *model = malloc(AREA), *pg = malloc(AREA), *pgback = malloc(AREA), *pin, *pinback;
	aclrtMemcpyBatchAttr a[2] = {
		attr_of(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_MEM_LOCATION_TYPE_HOST),
		attr_of(ACL_MEM_LOCATION_TYPE_HOST, ACL_MEM_LOCATION_TYPE_DEVICE),
	};
	char *hmodel = malloc(AREA), *pmodel = malloc(AREA);
	void *dsts[NB], *srcs[NB];
	size_t sizes[NB], maxs[NB], idx[2] = { 0, NB / 2 };
	aclrtStream s;
	void *dev;

	ASSERT_NONNULL(model);
	ASSERT_NONNULL(pg);
	ASSERT_NONNULL(pgback);
	ASSERT_NONNULL(hmodel);
	ASSERT_NONNULL(pmodel);
	NEED_DEVICE();
	a[0].dstLoc.id = a[1].srcLoc.id = 0;
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, AREA));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pinback, AREA));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	for (int async = 0; async < 2; async++) {
		fill_random(model, AREA, 10 + async);
		ASSERT_NONNULL(dev = dev_with(model));
		fill_random(pin, AREA, 20 + async);
		fill_random(pg, AREA, 30 + async);
		memset(pinback, 0, AREA);
		memset(pgback, 0, AREA);
		memset(hmodel, 0, AREA);
		memset(pmodel, 0, AREA);
		/* to the device: even copies from pinned memory, odd ones from pageable memory */
		for (size_t i = 0; i < NB / 2; i++) {
			size_t off = i * 9000 + i, len = 1000 + i * 613;
			char *src = (i & 1 ? pg : pin) + i * 7;

			dsts[i] = (char *)dev + off;
			srcs[i] = src;
			sizes[i] = len;
			maxs[i] = AREA - off;
			memcpy(model + off, src, len);
		}
		/* and back, from stretches the first half did not write */
		for (size_t i = NB / 2; i < NB; i++) {
			size_t k = i - NB / 2, off = 120000 + k * 11000 + 3, len = 5000 + k * 401;
			char *dst = (k & 1 ? pgback : pinback) + k * 9000 + 1;

			dsts[i] = dst;
			srcs[i] = (char *)dev + off;
			sizes[i] = len;
			maxs[i] = len;
			memcpy((k & 1 ? pmodel : hmodel) + k * 9000 + 1, model + off, len);
		}
		if (async) {
			ASSERT_ACL_OK(aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, NB, a, idx, 2, s));
			ASSERT_ACL_OK(aclrtSynchronizeStream(s));
		} else {
			ASSERT_ACL_OK(aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, NB, a, idx, 2));
		}
		EXPECT_TRUE(dev_matches(dev, model));
		EXPECT_EQ(0, memcmp(pinback, hmodel, AREA));
		EXPECT_EQ(0, memcmp(pgback, pmodel, AREA));
		ASSERT_ACL_OK(aclrtFree(dev));
	}
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFreeHost(pinback));
	ASSERT_ACL_OK(aclFinalize());
	free(model);
	free(pg);
	free(pgback);
	free(hmodel);
	free(pmodel);
}

/* ------------------------------------------------------------------ */
/* Descriptor copies                                                   */
/* ------------------------------------------------------------------ */

struct call {
	void *desc, *src, *dst;
	aclError ret, last;
};

static void *set_desc_no_context(void *arg)
{
	struct call *c = arg;

	c->ret = aclrtSetMemcpyDesc(c->desc, INNER, c->src, c->dst, 64, NULL);
	c->last = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	return NULL;
}

TEST(desc_checks)
{
	void *desc, *buf, *pin, *res;
	size_t n = 0;
	aclrtStream s, other_s;
	aclrtContext ctx, primary;
	struct call c;
	pthread_t t;

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtGetMemcpyDescSize(INNER, &n));
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&desc, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&pin, 4096));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&res, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));

	/* the size */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemcpyDescSize(INNER, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemcpyDescSize(8, &n));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetMemcpyDescSize(D2D, &n));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);	/* CANN records this one */
	EXPECT_ACL_OK(aclrtGetMemcpyDescSize(INNER, &n));
	EXPECT_EQ(32U, n);

	/* setting: the acl layer's checks in its order, not recorded */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc(NULL, 99, NULL, NULL, 0, pin));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc(desc, 99, NULL, NULL, 0, pin));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc(desc, D2D, NULL, buf, 0, pin));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc(desc, D2D, buf, NULL, 0, pin));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc(desc, D2D, buf, buf, 0, pin));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc(desc, D2D, buf, buf, 64, pin));
	EXPECT_LAST(ACL_SUCCESS);
	/* then the runtime's: another kind is "not supported", not recorded */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetMemcpyDesc(desc, D2D, buf, buf, 64, NULL));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetMemcpyDesc(desc, INNER, buf, buf, (4ULL << 30) + 1, NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetMemcpyDesc(pin, INNER, buf, buf, 64, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetMemcpyDesc((char *)desc + 32, INNER, buf, buf, 64, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetMemcpyDesc(desc, INNER, pin, buf, 64, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetMemcpyDesc(desc, INNER, buf, pin, 64, NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* 4 GiB is the most a descriptor holds */
	EXPECT_ACL_OK(aclrtSetMemcpyDesc(desc, INNER, buf, buf, 4ULL << 30, NULL));
	EXPECT_ACL_OK(aclrtSetMemcpyDesc(desc, INNER, buf, (char *)buf + 64, 64, NULL));
	/* a reservation is device memory, mapped or not */
	EXPECT_ACL_OK(aclrtSetMemcpyDesc(desc, INNER, res, buf, 64, NULL));
	/* a thread without a current context */
	c = (struct call){ .desc = desc, .src = buf, .dst = buf };
	ASSERT_EQ(0, pthread_create(&t, NULL, set_desc_no_context, &c));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.ret);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.last);

	/* the copy */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithDesc(NULL, 99, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithDesc(desc, 8, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithDesc(desc, INNER, NULL));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemcpyAsyncWithDesc(desc, D2D, (aclrtStream)pin));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpyAsyncWithDesc(desc, D2D, s));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithDesc(pin, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithDesc((char *)desc + 64 + 32, INNER, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* a stream of another context */
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&other_s));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtMemcpyAsyncWithDesc(desc, INNER, other_s));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_CONTEXT);
	ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(res));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(desc));
	ASSERT_ACL_OK(aclrtFree(buf));
	ASSERT_ACL_OK(aclFinalize());
}

#define NDESC	8

/*
 * NDESC descriptors in one device buffer, 64 bytes apart, each copying a
 * stretch of src to dst (one within dst itself, after the others have
 * written its source): the whole dst against the model.
 */
TEST(desc_copies_match_model)
{
	char *model = malloc(AREA), *init = malloc(AREA);
	void *src, *dst, *descs;
	aclrtStream s;

	ASSERT_NONNULL(model);
	ASSERT_NONNULL(init);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	fill_random(init, AREA, 40);
	ASSERT_NONNULL(src = dev_with(init));
	fill_random(model, AREA, 41);
	ASSERT_NONNULL(dst = dev_with(model));
	ASSERT_ACL_OK(aclrtMalloc(&descs, NDESC * 64, ACL_MEM_MALLOC_HUGE_FIRST));
	for (size_t i = 0; i < NDESC - 1; i++) {
		size_t soff = i * 20011 + 5, doff = i * 19000 + 1, len = 3000 + i * 2111;

		ASSERT_ACL_OK(aclrtSetMemcpyDesc((char *)descs + 64 * i, INNER, (char *)src + soff,
						 (char *)dst + doff, len, NULL));
		memcpy(model + doff, init + soff, len);
	}
	/* the last copies within dst what descriptor 0 wrote there */
	ASSERT_ACL_OK(aclrtSetMemcpyDesc((char *)descs + 64 * (NDESC - 1), INNER, (char *)dst + 1,
					 (char *)dst + 200001, 3000, NULL));
	memcpy(model + 200001, model + 1, 3000);
	for (size_t i = 0; i < NDESC; i++)
		ASSERT_ACL_OK(aclrtMemcpyAsyncWithDesc((char *)descs + 64 * i, INNER, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_TRUE(dev_matches(dst, model));
	/* the source is as it was */
	EXPECT_TRUE(dev_matches(src, init));
	/* rewritten in place and used again */
	ASSERT_ACL_OK(aclrtSetMemcpyDesc(descs, INNER, (char *)src + 7, (char *)dst + 9, 100000, NULL));
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithDesc(descs, INNER, s));
	memcpy(model + 9, init + 7, 100000);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_TRUE(dev_matches(dst, model));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(src));
	ASSERT_ACL_OK(aclrtFree(dst));
	ASSERT_ACL_OK(aclrtFree(descs));
	ASSERT_ACL_OK(aclFinalize());
	free(model);
	free(init);
}

/*
 * The descriptor is read when the stream gets to the copy: one rewritten
 * on the stream before (a D2D copy of another descriptor over it), or on
 * another stream the copy's stream waits for, is the one that runs.
 */
TEST(desc_read_in_stream_order)
{
	char *model = malloc(AREA), *init = malloc(AREA);
	void *src, *dst, *descs;
	aclrtStream s, s2;
	aclrtEvent ev;

	ASSERT_NONNULL(model);
	ASSERT_NONNULL(init);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtCreateEvent(&ev));
	fill_random(init, AREA, 50);
	ASSERT_NONNULL(src = dev_with(init));
	fill_random(model, AREA, 51);
	ASSERT_NONNULL(dst = dev_with(model));
	ASSERT_ACL_OK(aclrtMalloc(&descs, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	/* descriptor 0 says A, descriptor 1 says B; B is copied over 0 on the stream */
	ASSERT_ACL_OK(aclrtSetMemcpyDesc(descs, INNER, src, dst, 1000, NULL));
	ASSERT_ACL_OK(aclrtSetMemcpyDesc((char *)descs + 64, INNER, (char *)src + 5000, (char *)dst + 70000,
					 33333, NULL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(descs, 32, (char *)descs + 64, 32, D2D, s));
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithDesc(descs, INNER, s));
	memcpy(model + 70000, init + 5000, 33333);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_TRUE(dev_matches(dst, model));

	/* across streams: s2 rewrites it after the event s waits for */
	ASSERT_ACL_OK(aclrtSetMemcpyDesc((char *)descs + 128, INNER, (char *)src + 100, (char *)dst + 150000,
					 44444, NULL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(descs, 32, (char *)descs + 128, 32, D2D, s2));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, s2));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s, ev));
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithDesc(descs, INNER, s));
	memcpy(model + 150000, init + 100, 44444);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_TRUE(dev_matches(dst, model));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtFree(src));
	ASSERT_ACL_OK(aclrtFree(dst));
	ASSERT_ACL_OK(aclrtFree(descs));
	ASSERT_ACL_OK(aclFinalize());
	free(model);
	free(init);
}

/*
 * What the device cannot reach faults when the copy runs, as the
 * engine's would: a descriptor naming a reservation with nothing mapped,
 * and a descriptor in one. The stream goes on (CONTINUE mode).
 */
TEST(desc_faults_in_stream_order)
{
	void *desc, *buf, *res;
	uint64_t v = 0;
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&desc, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(buf, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&res, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtSetMemcpyDesc(desc, INNER, res, buf, 64, NULL));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithDesc(desc, INNER, s));
	ASSERT_ACL_OK(aclrtMemsetAsync((char *)buf + 1024, 8, 7, 8, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	EXPECT_LAST(ACL_ERROR_RT_FAILURE);
	/* the descriptor itself where nothing is mapped */
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithDesc(res, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	/* the later task ran; the faulting copy wrote nothing */
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, (char *)buf + 1024, 8, D2H));
	EXPECT_EQ(0x0707070707070707ULL, v);
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, buf, 8, D2H));
	EXPECT_EQ(0U, v);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(res));
	ASSERT_ACL_OK(aclrtFree(desc));
	ASSERT_ACL_OK(aclrtFree(buf));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * A descriptor copy recorded in a graph runs as a host step of each
 * replay: what the device cannot reach there is a task error of the
 * stream that runs the graph (its next synchronize answers it, once),
 * as the copy's fault is on a plain stream; the rest of the run goes on.
 */
TEST(desc_fault_in_graph_is_stream_error)
{
	void *desc, *buf, *res;
	aclrtStream cs, rs;
	uint64_t v = 0;
	aclmdlRI m = NULL;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&cs));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));
	ASSERT_ACL_OK(aclrtMalloc(&desc, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(buf, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&res, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtSetMemcpyDesc(desc, INNER, res, buf, 64, NULL));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(cs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithDesc(desc, INNER, cs));
	ASSERT_ACL_OK(aclrtMemsetAsync((char *)buf + 1024, 8, 7, 8, cs));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(cs, &m));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(rs));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
	/* the later task ran */
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, (char *)buf + 1024, 8, D2H));
	EXPECT_EQ(0x0707070707070707ULL, v);
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(cs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(res));
	ASSERT_ACL_OK(aclrtFree(desc));
	ASSERT_ACL_OK(aclrtFree(buf));
	ASSERT_ACL_OK(aclFinalize());
}

/* ------------------------------------------------------------------ */
/* aclrtMemcpyAsyncWithOffset                                          */
/* ------------------------------------------------------------------ */

TEST(offset_checks)
{
	void *slots, *buf;
	aclrtStream s;

	/* count 0: nothing, before any check */
	EXPECT_ACL_OK(aclrtMemcpyAsyncWithOffset(NULL, 0, 0, NULL, 0, 0, 99, NULL));
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&slots, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	void **d = (void **)slots, **sp = (void **)((char *)slots + 8);
	const void **c_sp = (const void **)sp;

	/* every check is the runtime's: 107000, recorded */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset(d, 64, 0, c_sp, 64, 0, D2D, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
		   aclrtMemcpyAsyncWithOffset(d, 64, 0, c_sp, 64, 0, INNER, (aclrtStream)buf));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset(NULL, 64, 0, c_sp, 64, 0, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset(d, 64, 0, NULL, 64, 0, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset(d, 63, 0, c_sp, 64, 0, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemcpyAsyncWithOffset(d, SIZE_MAX, 0, c_sp, (4ULL << 30) + 1, 0, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemcpyAsyncWithOffset(d, 64, 0, c_sp, 64, 1ULL << 48, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemcpyAsyncWithOffset(d, SIZE_MAX, 1ULL << 48, c_sp, 64, 0, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset(d, 64, 64, c_sp, 1, 0, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset(d, 64, 1, c_sp, 64, 0, INNER, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* at the limits: dstDataOffset + count == destMax */
	uint64_t v[2] = { (uintptr_t)buf, (uintptr_t)buf + 2048 };
	unsigned char in[4096], out[4096];

	fill_random(in, sizeof(in), 70);
	ASSERT_ACL_OK(aclrtMemcpy(buf, 4096, in, 4096, H2D));
	ASSERT_ACL_OK(aclrtMemcpy(slots, 16, v, 16, H2D));
	EXPECT_ACL_OK(aclrtMemcpyAsyncWithOffset(d, 64, 1, c_sp, 63, 5, INNER, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	memcpy(in + 1, in + 2048 + 5, 63);
	ASSERT_ACL_OK(aclrtMemcpy(out, 4096, buf, 4096, D2H));
	EXPECT_EQ(0, memcmp(in, out, 4096));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(slots));
	ASSERT_ACL_OK(aclrtFree(buf));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * Base pointers in device memory plus offsets: several copies with the
 * same two pointers, then with a pointer rewritten on the stream before
 * the copy (read when the stream gets there), against the model; a
 * pointer to nowhere faults in stream order.
 */
TEST(offset_copies_match_model)
{
	char *model = malloc(AREA), *init = malloc(AREA), *pin;
	void *src, *dst, *slots, *res;
	uint64_t v[4];
	aclrtStream s;

	ASSERT_NONNULL(model);
	ASSERT_NONNULL(init);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pin, 4096));
	fill_random(init, AREA, 60);
	ASSERT_NONNULL(src = dev_with(init));
	fill_random(model, AREA, 61);
	ASSERT_NONNULL(dst = dev_with(model));
	ASSERT_ACL_OK(aclrtMalloc(&slots, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&res, 2 * MiB, 0, NULL, 0));
	/* slot 0: dst + 1000; slot 1: src + 16; slot 2: src + 100000 */
	v[0] = (uintptr_t)dst + 1000;
	v[1] = (uintptr_t)src + 16;
	v[2] = (uintptr_t)src + 100000;
	v[3] = (uintptr_t)res;
	ASSERT_ACL_OK(aclrtMemcpy(slots, 32, v, 32, H2D));
	void **d0 = (void **)slots;
	const void **s1 = (const void **)((char *)slots + 8), **s2 = (const void **)((char *)slots + 16);
	const void **s3 = (const void **)((char *)slots + 24);

	for (size_t i = 0; i < 6; i++) {
		size_t doff = i * 30001, soff = i * 17 + 3, len = 1000 + i * 4999;

		ASSERT_ACL_OK(aclrtMemcpyAsyncWithOffset(d0, AREA - 1000, doff, s1, len, soff, INNER, s));
		memcpy(model + 1000 + doff, init + 16 + soff, len);
	}
	/* slot 1 now says src + 100000, written on the stream from pinned memory */
	memcpy(pin, &v[2], 8);
	ASSERT_ACL_OK(aclrtMemcpyAsync(s1, 8, pin, 8, H2D, s));
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithOffset(d0, AREA - 1000, 200000, s1, 20000, 77, INNER, s));
	memcpy(model + 1000 + 200000, init + 100000 + 77, 20000);
	/* and slot 2 as the source directly */
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithOffset(d0, AREA - 1000, 230000, s2, 9999, 1, INNER, s));
	memcpy(model + 1000 + 230000, init + 100000 + 1, 9999);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_TRUE(dev_matches(dst, model));
	EXPECT_TRUE(dev_matches(src, init));

	/* a pointer to a reservation with nothing mapped; a pointer slot in one */
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithOffset(d0, 4096, 0, s3, 64, 0, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithOffset((void **)res, 4096, 0, s1, 64, 0, INNER, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	EXPECT_TRUE(dev_matches(dst, model));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(res));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(src));
	ASSERT_ACL_OK(aclrtFree(dst));
	ASSERT_ACL_OK(aclrtFree(slots));
	ASSERT_ACL_OK(aclFinalize());
	free(model);
	free(init);
}

TEST_HARNESS_MAIN
