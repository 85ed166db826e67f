// SPDX-License-Identifier: MIT
/*
 * libacl: cache maintenance - aclrtMemFlush, aclrtMemInvalidate,
 * aclrtCmoAsync, aclrtCmoGetDescSize, aclrtCmoSetDesc,
 * aclrtCmoAsyncWithDesc, aclrtCmoAsyncWithBarrier, aclrtCmoWaitBarrier.
 * The simulated device has no cache: an operation is an ordered command
 * that translates its range through the device, so memory the device
 * reaches passes and changes no data, and memory it does not reach
 * faults at the stream's synchronize (ACL_ERROR_RT_FAILURE). Codes and
 * last errors as CANN's runtime answers on the 910B class (the simulated
 * chip). Skips without /dev/npu0, and where npu.ko's chip profile is
 * another class (lib_chip_test checks the 310B class, which has the
 * barrier calls instead).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib_util.h"

#define EXPECT_LAST(code)	EXPECT_EQ((aclError)(code), aclrtGetLastError(ACL_RT_THREAD_LEVEL))

#define PREFETCH	ACL_RT_CMO_TYPE_PREFETCH
#define WRITEBACK	ACL_RT_CMO_TYPE_WRITEBACK
#define INVALIDATE	ACL_RT_CMO_TYPE_INVALID
#define FLUSH		ACL_RT_CMO_TYPE_FLUSH

#define AREA	(64 * KiB)

/* NEED_DEVICE() on a 910B-class chip (npu.ko's soc_name). */
#define NEED_910B() do {							\
	if (!lib_soc_910b_class())						\
		SKIP(return, "npu.ko's chip profile is not 910B-class");	\
	NEED_DEVICE();								\
} while (0)

struct call {
	void *p;
	aclError flush, inval, last;
};

static void *flush_no_context(void *arg)
{
	struct call *c = arg;

	c->flush = aclrtMemFlush(c->p, 64);
	c->inval = aclrtMemInvalidate(c->p, 64);
	c->last = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	return NULL;
}

/* aclrtMemFlush and aclrtMemInvalidate: arguments and a context; the data stays. */
TEST(flush_invalidate)
{
	unsigned char *in = malloc(AREA), *out = malloc(AREA);
	struct call c;
	pthread_t t;
	void *dev;

	ASSERT_NONNULL(in);
	ASSERT_NONNULL(out);
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtMemFlush(in, 64));
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&dev, AREA, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(in, AREA, 3);
	ASSERT_ACL_OK(aclrtMemcpy(dev, AREA, in, AREA, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemFlush(NULL, 64));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemFlush(dev, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemInvalidate(NULL, 64));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemInvalidate(dev, 0));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL_OK(aclrtMemFlush(dev, AREA));
	EXPECT_ACL_OK(aclrtMemInvalidate((char *)dev + 100, 1000));
	c = (struct call){ .p = dev };
	ASSERT_EQ(0, pthread_create(&t, NULL, flush_no_context, &c));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.flush);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.inval);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.last);
	ASSERT_ACL_OK(aclrtMemcpy(out, AREA, dev, AREA, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(in, out, AREA));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(in);
	free(out);
}

TEST(cmo_async_checks)
{
	aclrtStream s, other_s;
	aclrtContext ctx, primary;
	void *dev;

	NEED_910B();
	ASSERT_ACL_OK(aclrtMalloc(&dev, AREA, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoAsync(NULL, 64, PREFETCH, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoAsync(dev, 0, PREFETCH, s));
	EXPECT_LAST(ACL_SUCCESS);
	/* an operation the runtime does not know: "not supported", not recorded */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsync(dev, 64, (aclrtCmoType)4, s));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsync(dev, 64, (aclrtCmoType)-1, s));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtCmoAsync(dev, 64, PREFETCH, (aclrtStream)dev));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&other_s));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtCmoAsync(dev, 64, PREFETCH, other_s));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_CONTEXT);
	ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * Each operation on device memory (aclrtMalloc, a VMM mapping) and on
 * managed memory, between copies of the stream: the copies see each
 * other's data, the range is unchanged.
 */
TEST(cmo_async_orders_and_keeps_data)
{
	unsigned char *in = malloc(AREA), *out = malloc(AREA);
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	aclrtDrvMemHandle h;
	void *a, *b, *va, *managed;
	aclrtStream s;

	ASSERT_NONNULL(in);
	ASSERT_NONNULL(out);
	NEED_910B();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&a, AREA, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&b, AREA, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemAllocManaged(&managed, 2 * MiB, ACL_RT_MEM_ATTACH_GLOBAL));
	fill_pattern(in, AREA, 9);
	ASSERT_ACL_OK(aclrtMemcpy(a, AREA, in, AREA, ACL_MEMCPY_HOST_TO_DEVICE));
	for (int type = PREFETCH; type <= FLUSH; type++) {
		ASSERT_ACL_OK(aclrtCmoAsync(a, AREA, (aclrtCmoType)type, s));
		ASSERT_ACL_OK(aclrtMemcpyAsync(b, AREA, a, AREA, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
		ASSERT_ACL_OK(aclrtCmoAsync((char *)b + 1, AREA - 2, (aclrtCmoType)type, s));
		ASSERT_ACL_OK(aclrtMemcpyAsync(va, AREA, b, AREA, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
		ASSERT_ACL_OK(aclrtCmoAsync(va, 2 * MiB, (aclrtCmoType)type, s));
		ASSERT_ACL_OK(aclrtMemcpyAsync(managed, AREA, va, AREA, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
		ASSERT_ACL_OK(aclrtCmoAsync(managed, AREA, (aclrtCmoType)type, s));
		/* the default stream too */
		ASSERT_ACL_OK(aclrtCmoAsync(a, 1, (aclrtCmoType)type, NULL));
	}
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_EQ(0, memcmp(in, managed, AREA));
	memset(out, 0, AREA);
	ASSERT_ACL_OK(aclrtMemcpy(out, AREA, va, AREA, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(in, out, AREA));
	memset(out, 0, AREA);
	ASSERT_ACL_OK(aclrtMemcpy(out, 4000, (char *)a + 5000, 4000, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(in + 5000, out, 4000));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtFree(b));
	ASSERT_ACL_OK(aclrtFree(managed));
	ASSERT_ACL_OK(aclFinalize());
	free(in);
	free(out);
}

/*
 * Ranges the device does not reach: a reservation with nothing mapped,
 * past an allocation's end, pageable host memory, aclrtMallocHost memory
 * (mapped for the device elsewhere than its host address), a mapping
 * without access. Each faults at the synchronize; the stream goes on.
 */
TEST(cmo_async_faults_where_the_device_cannot_reach)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	char *pg = malloc(8192);
	aclrtDrvMemHandle h;
	void *dev, *res, *pin, *na;
	aclrtStream s;

	ASSERT_NONNULL(pg);
	NEED_910B();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&res, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocHost(&pin, 4096));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&na, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMemMapNoAccess(na, 2 * MiB, 0, h, 0));
	npu_expect_dma_faults(true);
	void *bad[] = { res, (char *)dev + 4096 * 4, pg, pin, na };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_ACL_OK(aclrtCmoAsync(bad[i], 4096, PREFETCH, s));
		EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
		EXPECT_LAST(ACL_ERROR_RT_FAILURE);
	}
	npu_expect_dma_faults(false);
	/* the stream runs on */
	ASSERT_ACL_OK(aclrtCmoAsync(dev, 4096, FLUSH, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtUnmapMem(na));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(na));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(res));
	ASSERT_ACL_OK(aclrtFreeHost(pin));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(pg);
}

static void *set_desc_no_context(void *arg)
{
	struct call *c = arg;

	c->flush = aclrtCmoSetDesc(c->p, c->p, 64);
	c->last = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	return NULL;
}

TEST(cmo_desc_checks)
{
	aclrtStream s, other_s;
	aclrtContext ctx, primary;
	size_t n = 0;
	struct call c;
	pthread_t t;
	void *desc, *dev;

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtCmoGetDescSize(&n));
	NEED_910B();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&desc, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&dev, AREA, ACL_MEM_MALLOC_NORMAL_ONLY));
	/* no acl-layer checks: the runtime's NULL answers, recorded */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoGetDescSize(NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL_OK(aclrtCmoGetDescSize(&n));
	EXPECT_EQ(32U, n);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoSetDesc(NULL, dev, 64));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoSetDesc(desc, NULL, 64));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoSetDesc(desc, dev, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL_OK(aclrtCmoSetDesc(desc, dev, AREA));
	c = (struct call){ .p = desc };
	ASSERT_EQ(0, pthread_create(&t, NULL, set_desc_no_context, &c));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.flush);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.last);

	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithDesc(desc, PREFETCH, s, dev));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtCmoAsyncWithDesc(desc, PREFETCH, (aclrtStream)dev, NULL));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithDesc(NULL, PREFETCH, s, NULL));
	/* unlike aclrtCmoAsync, an unknown operation is the decorator's 107000 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithDesc(desc, (aclrtCmoType)4, s, NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&other_s));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtCmoAsyncWithDesc(desc, PREFETCH, other_s, NULL));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_CONTEXT);
	ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	for (int type = PREFETCH; type <= FLUSH; type++)
		EXPECT_ACL_OK(aclrtCmoAsyncWithDesc(desc, (aclrtCmoType)type, s, NULL));
	EXPECT_ACL_OK(aclrtCmoAsyncWithDesc(desc, FLUSH, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(desc));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * The descriptor is read when the stream gets there: one describing a
 * reservation with nothing mapped faults; a good one copied over it on
 * the stream before does not, and one copied over a good one does.
 */
TEST(cmo_desc_read_in_stream_order)
{
	unsigned char *in = malloc(AREA), *out = malloc(AREA);
	void *descs, *dev, *res;
	aclrtStream s;

	ASSERT_NONNULL(in);
	ASSERT_NONNULL(out);
	NEED_910B();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&descs, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&dev, AREA, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&res, 2 * MiB, 0, NULL, 0));
	fill_pattern(in, AREA, 5);
	ASSERT_ACL_OK(aclrtMemcpy(dev, AREA, in, AREA, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtCmoSetDesc(descs, res, 4096));		/* 0: faults */
	ASSERT_ACL_OK(aclrtCmoSetDesc((char *)descs + 64, dev, AREA));	/* 1: fine */
	/* 1 over 0 on the stream, then 0 used: fine */
	ASSERT_ACL_OK(aclrtMemcpyAsync(descs, 32, (char *)descs + 64, 32, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtCmoAsyncWithDesc(descs, INVALIDATE, s, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	/* a faulting one over 1 */
	ASSERT_ACL_OK(aclrtCmoSetDesc((char *)descs + 128, res, 4096));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)descs + 64, 32, (char *)descs + 128, 32,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtCmoAsyncWithDesc((char *)descs + 64, PREFETCH, s, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	/* and a descriptor the device cannot read */
	ASSERT_ACL_OK(aclrtCmoAsyncWithDesc(res, PREFETCH, s, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtMemcpy(out, AREA, dev, AREA, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(in, out, AREA));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(res));
	ASSERT_ACL_OK(aclrtFree(descs));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(in);
	free(out);
}

/* The barrier calls: their checks, then "not supported" on this chip, recorded (the 310B class has them). */
TEST(cmo_barriers)
{
	aclrtBarrierTaskInfo ti;
	aclrtStream s;
	void *dev;

	NEED_910B();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoAsyncWithBarrier(NULL, 64, INVALIDATE, 1, s));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsyncWithBarrier(dev, 64, INVALIDATE, 1, s));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsyncWithBarrier(dev, 0, PREFETCH, 0, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

	memset(&ti, 0, sizeof(ti));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(NULL, s, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(&ti, s, 0));
	ti.barrierNum = ACL_RT_CMO_MAX_BARRIER_NUM + 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_SUCCESS);
	ti.barrierNum = 2;
	ti.cmoInfo[0] = (aclrtBarrierCmoInfo){ INVALIDATE, 3 };
	ti.cmoInfo[1] = (aclrtBarrierCmoInfo){ PREFETCH, 4 };
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ti.cmoInfo[1] = (aclrtBarrierCmoInfo){ INVALIDATE, 0 };
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ti.cmoInfo[1].barrierId = 4;
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
