// SPDX-License-Identifier: MIT
/*
 * libacl: the memory calls of issue 22 part C - aclrtMallocForTaskScheduler,
 * aclrtReserveMemAddressNoUCMemory, aclrtMemMapSelectedLink,
 * aclrtMemMapSetLink, aclrtMemP2PMap, aclrtMemManagedGetAttrs,
 * aclrtMemManagedPrefetchBatchAsync, aclrtIpcMemImportPidInterServer.
 * Each check with its code and whether it is the thread's last error, and
 * what each call does to the data. Skips without /dev/npu0; the peer
 * cases want /dev/npu1 too.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib_util.h"

#define EXPECT_LAST(code)	EXPECT_EQ((aclError)(code), aclrtGetLastError(ACL_RT_THREAD_LEVEL))

#define H2D	ACL_MEMCPY_HOST_TO_DEVICE
#define D2H	ACL_MEMCPY_DEVICE_TO_HOST

/* Where the tests reserve at a given address: 48 TiB, inside the device VA window */
#define FIXED_VA	((void *)0x300000000000ULL)

/* ------------------------------------------------------------------ */
/* aclrtMallocForTaskScheduler                                         */
/* ------------------------------------------------------------------ */

TEST(malloc_for_task_scheduler)
{
	aclrtMallocAttribute at[2];
	aclrtMallocConfig cfg = { at, 1 };
	unsigned char in[8192], out[8192];
	size_t size;
	void *p, *base;

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtMallocForTaskScheduler(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocForTaskScheduler(NULL, 4096, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocForTaskScheduler(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
	cfg.attrs = NULL;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocForTaskScheduler(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	EXPECT_LAST(ACL_SUCCESS);
	/* the runtime's cfg checks: 107000, recorded */
	cfg.numAttrs = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocForTaskScheduler(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	cfg.attrs = at;
	cfg.numAttrs = 1;
	memset(at, 0, sizeof(at));
	at[0].attr = ACL_RT_MEM_ATTR_VA_FLAG;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocForTaskScheduler(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	at[0].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
	at[0].value.deviceId = 7;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocForTaskScheduler(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* RSV is skipped, DEVICE_ID of the current device and MODULE_ID taken */
	at[0].attr = ACL_RT_MEM_ATTR_RSV;
	at[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
	at[1].value.deviceId = 0;
	cfg.numAttrs = 2;
	ASSERT_ACL_OK(aclrtMallocForTaskScheduler(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY, &cfg));
	/* 32-aligned, no padding: 4096 bytes take one page */
	ASSERT_ACL_OK(aclrtMemGetAddressRange(p, &base, &size));
	EXPECT_EQ(p, base);
	EXPECT_EQ(4096U, size);
	fill_pattern(in, 4096, 1);
	ASSERT_ACL_OK(aclrtMemcpy(p, 4096, in, 4096, H2D));
	ASSERT_ACL_OK(aclrtMemcpy(out, 4096, p, 4096, D2H));
	EXPECT_EQ(0, memcmp(in, out, 4096));
	ASSERT_ACL_OK(aclrtFree(p));
	/* a policy value with modifier bits, or none known: placed anyway */
	ASSERT_ACL_OK(aclrtMallocForTaskScheduler(&p, 4097, (aclrtMemMallocPolicy)(ACL_MEM_MALLOC_NORMAL_ONLY |
											ACL_MEM_TYPE_HIGH_BAND_WIDTH), NULL));
	ASSERT_ACL_OK(aclrtMemGetAddressRange(p, &base, &size));
	EXPECT_EQ(8192U, size);
	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclrtMallocForTaskScheduler(&p, 8192, (aclrtMemMallocPolicy)0x55, NULL));
	fill_pattern(in, 8192, 2);
	ASSERT_ACL_OK(aclrtMemcpy(p, 8192, in, 8192, H2D));
	ASSERT_ACL_OK(aclrtMemcpy(out, 100, (char *)p + 8000, 100, D2H));
	EXPECT_EQ(0, memcmp(in + 8000, out, 100));
	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclFinalize());
}

/* ------------------------------------------------------------------ */
/* aclrtReserveMemAddressNoUCMemory                                    */
/* ------------------------------------------------------------------ */

TEST(reserve_no_uc)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	unsigned char *in = malloc(2 * MiB), *out = malloc(2 * MiB);
	aclrtDrvMemHandle h;
	void *p, *q;

	ASSERT_NONNULL(in);
	ASSERT_NONNULL(out);
	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(NULL, GiB, 0, FIXED_VA, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(&p, 0, 0, FIXED_VA, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(&p, GiB, 0, FIXED_VA, 2));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddressNoUCMemory(&p, GiB, 4096, FIXED_VA, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtReserveMemAddressNoUCMemory(&p, GiB, 0, (char *)FIXED_VA + 2 * MiB, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* no address given: the remote-map reservation is made where it is told only */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReserveMemAddressNoUCMemory(&p, GiB, 0, NULL, 0));
	EXPECT_LAST(ACL_SUCCESS);
	/* whole GiBs */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddressNoUCMemory(&p, GiB + 2 * MiB, 0, FIXED_VA, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddressNoUCMemory(&p, 512 * MiB, 0, FIXED_VA, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ASSERT_ACL_OK(aclrtReserveMemAddressNoUCMemory(&p, GiB, 0, FIXED_VA, 1));
	EXPECT_EQ(FIXED_VA, p);
	/* taken now */
	EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtReserveMemAddressNoUCMemory(&q, GiB, 0, FIXED_VA, 0));
	/* an ordinary reservation: a handle maps into it anywhere, the data is there */
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtMapMem((char *)p + 510 * MiB, 2 * MiB, 0, h, 0));
	fill_pattern(in, 2 * MiB, 8);
	ASSERT_ACL_OK(aclrtMemcpy((char *)p + 510 * MiB, 2 * MiB, in, 2 * MiB, H2D));
	ASSERT_ACL_OK(aclrtMemcpy(out, 12345, (char *)p + 510 * MiB + 77, 12345, D2H));
	EXPECT_EQ(0, memcmp(in + 77, out, 12345));
	ASSERT_ACL_OK(aclrtUnmapMem((char *)p + 510 * MiB));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(p));
	/* and again where it was */
	ASSERT_ACL_OK(aclrtReserveMemAddressNoUCMemory(&q, 2 * GiB, 0, FIXED_VA, 0));
	EXPECT_EQ(FIXED_VA, q);
	ASSERT_ACL_OK(aclrtReleaseMemAddress(q));
	ASSERT_ACL_OK(aclFinalize());
	free(in);
	free(out);
}

/* ------------------------------------------------------------------ */
/* aclrtMemMapSelectedLink, aclrtMemMapSetLink                         */
/* ------------------------------------------------------------------ */

/*
 * Two handles mapped one after the other at src; mapped again at dst over
 * HCCS: the same memory, seen through either address.
 */
TEST(map_selected_link)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	unsigned char *in = malloc(4 * MiB), *out = malloc(4 * MiB);
	aclrtDrvMemHandle h[2];
	void *src, *dst, *other;

	ASSERT_NONNULL(in);
	ASSERT_NONNULL(out);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtReserveMemAddress(&src, 4 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&dst, 4 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMalloc(&other, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	for (int i = 0; i < 2; i++) {
		ASSERT_ACL_OK(aclrtMallocPhysical(&h[i], 2 * MiB, &prop, 0));
		ASSERT_ACL_OK(aclrtMapMem((char *)src + i * 2 * MiB, 2 * MiB, 0, h[i], 0));
	}
	fill_pattern(in, 4 * MiB, 4);
	ASSERT_ACL_OK(aclrtMemcpy(src, 4 * MiB, in, 4 * MiB, H2D));

	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(NULL, 4 * MiB, src, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(dst, 4 * MiB, NULL, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(dst, 0, src, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(dst, 4 * MiB, src, 2));
	EXPECT_LAST(ACL_SUCCESS);
	/* not the start of a mapping, or no mapping: the runtime's 107000 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink(dst, 2 * MiB, (char *)src + 4096, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink(dst, 2 * MiB, other, 1));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* SIO: the simulated devices are joined by HCCS only; recorded */
	EXPECT_ACL(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, aclrtMemMapSelectedLink(dst, 4 * MiB, src, 0));
	EXPECT_LAST(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED);
	/* the retains it took are dropped again: nothing is mapped at dst */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink(dst, 2 * MiB, dst, 1));

	ASSERT_ACL_OK(aclrtMemMapSelectedLink(dst, 4 * MiB, src, ACL_RT_MEM_LINK_IDX_1));
	memset(out, 0, 4 * MiB);
	ASSERT_ACL_OK(aclrtMemcpy(out, 4 * MiB, dst, 4 * MiB, D2H));
	EXPECT_EQ(0, memcmp(in, out, 4 * MiB));
	/* one memory: written through dst, read through src, at other offsets */
	fill_pattern(in + 3 * MiB, 100000, 6);
	ASSERT_ACL_OK(aclrtMemcpy((char *)dst + 3 * MiB, 100000, in + 3 * MiB, 100000, H2D));
	memset(out, 0, 4 * MiB);
	ASSERT_ACL_OK(aclrtMemcpy(out, 4 * MiB, src, 4 * MiB, D2H));
	EXPECT_EQ(0, memcmp(in, out, 4 * MiB));
	ASSERT_ACL_OK(aclrtMemcpy(out, 5000, (char *)src + 3 * MiB + 99000, 5000, D2H));
	EXPECT_EQ(0, memcmp(in + 3 * MiB + 99000, out, 5000));
	/* the dst mappings are mappings of the handles */
	aclrtDrvMemHandle r;

	ASSERT_ACL_OK(aclrtMemRetainAllocationHandle((char *)dst + 2 * MiB, &r));
	EXPECT_EQ(h[1], r);
	ASSERT_ACL_OK(aclrtFreePhysical(r));
	for (int i = 0; i < 2; i++) {
		ASSERT_ACL_OK(aclrtUnmapMem((char *)dst + i * 2 * MiB));
		ASSERT_ACL_OK(aclrtUnmapMem((char *)src + i * 2 * MiB));
		ASSERT_ACL_OK(aclrtFreePhysical(h[i]));
		EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(h[i]));
	}
	ASSERT_ACL_OK(aclrtReleaseMemAddress(src));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(dst));
	ASSERT_ACL_OK(aclrtFree(other));
	ASSERT_ACL_OK(aclFinalize());
	free(in);
	free(out);
}

TEST(map_set_link)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	aclrtDrvMemHandle h, dead;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&dead, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtFreePhysical(dead));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSetLink(NULL, ACL_RT_MEM_ACCESS_LINK_HCCS));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSetLink(h, (aclrtMemLinkType)4));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSetLink(dead, ACL_RT_MEM_ACCESS_LINK_HCCS));
	/* links the simulated devices lack: not recorded, as CANN's NOLOG answer */
	EXPECT_ACL(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_LINK_SIO));
	EXPECT_ACL(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_UB_ONE_PORT_PATH));
	EXPECT_ACL(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL_OK(aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_LINK_HCCS));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclFinalize());
}

/* ------------------------------------------------------------------ */
/* aclrtMemP2PMap                                                      */
/* ------------------------------------------------------------------ */

struct call {
	void *p;
	aclError ret, last;
};

static void *p2p_no_context(void *arg)
{
	struct call *c = arg;

	c->ret = aclrtMemP2PMap(c->p, 4096, 0, 0);
	c->last = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	return NULL;
}

TEST(p2p_map_checks)
{
	char host[64];
	struct call c;
	pthread_t t;
	void *d;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&d, 8192, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(NULL, 4096, 0, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(d, 0, 0, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(d, 4096, 0, 1));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemP2PMap(d, 4096, 64, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemP2PMap(d, 4096, -1, 0));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_DEVICEID);
	/* not aclrtMalloc memory, or past its end */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(host, 64, 0, 0));
	/* 8192 bytes with aclrtMalloc's padding take three pages */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap((char *)d + 4096, 3 * 4096, 0, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* its own device: the memory is mapped there */
	EXPECT_ACL_OK(aclrtMemP2PMap(d, 3 * 4096, 0, 0));
	EXPECT_ACL_OK(aclrtMemP2PMap((char *)d + 100, 1, 0, 0));
	c = (struct call){ .p = d };
	ASSERT_EQ(0, pthread_create(&t, NULL, p2p_no_context, &c));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.ret);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, c.last);
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclFinalize());
}

/* Device 1 maps device 0's memory once it has peer access; then its engine copies it. */
TEST(p2p_map_peer)
{
	unsigned char *in = malloc(64 * KiB), *out = malloc(64 * KiB);
	aclrtStream s1;
	void *d0, *d1;

	ASSERT_NONNULL(in);
	ASSERT_NONNULL(out);
	NEED_DEVICE();
	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtMalloc(&d0, 64 * KiB, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(in, 64 * KiB, 12);
	ASSERT_ACL_OK(aclrtMemcpy(d0, 64 * KiB, in, 64 * KiB, H2D));
	/* device 1 not set in this process yet */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMemP2PMap(d0, 64 * KiB, 1, 0));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtMalloc(&d1, 64 * KiB, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	/* no peer access from device 1 to device 0 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(d0, 64 * KiB, 1, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
	/* any current device: the mapping is device 1's */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_ACL_OK(aclrtMemP2PMap(d0, 64 * KiB, 1, 0));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	EXPECT_ACL_OK(aclrtMemP2PMap((char *)d0 + 4096, 4096, 1, 0));
	/* the other way: device 0 has no access to device 1 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(d1, 4096, 0, 0));
	/* device 1's engine reads device 0's memory */
	ASSERT_ACL_OK(aclrtMemcpyAsync(d1, 64 * KiB, d0, 64 * KiB, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s1));
	ASSERT_ACL_OK(aclrtMemcpy(out, 64 * KiB, d1, 64 * KiB, D2H));
	EXPECT_EQ(0, memcmp(in, out, 64 * KiB));
	ASSERT_ACL_OK(aclrtDestroyStream(s1));
	ASSERT_ACL_OK(aclrtFree(d1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtFree(d0));
	ASSERT_ACL_OK(aclFinalize());
	free(in);
	free(out);
}

/* ------------------------------------------------------------------ */
/* aclrtMemManagedGetAttrs                                             */
/* ------------------------------------------------------------------ */

TEST(managed_get_attrs)
{
	aclrtMemManagedRangeAttribute at[4] = {
		ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
		ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
	};
	aclrtMemManagedLocation dev0 = { ACL_MEM_LOCATIONTYPE_DEVICE, 0 };
	int32_t rm = -9, pl = -9, ab[4], lt = -9, one = -9, abone[4];
	void *data[4] = { &rm, &pl, ab, &lt };
	size_t sizes[4] = { 4, 4, sizeof(ab), 4 };
	char host[64];
	void *m;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMemAllocManaged(&m, 4 * MiB, ACL_RT_MEM_ATTACH_GLOBAL));
	ASSERT_ACL_OK(aclrtMemManagedAdvise(m, 4 * MiB, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
	ASSERT_ACL_OK(aclrtMemManagedAdvise(m, 2 * MiB, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0));
	ASSERT_ACL_OK(aclrtMemManagedAdvise(m, 4 * MiB, ACL_MEM_ADVISE_SET_ACCESSED_BY, dev0));
	/* the acl layer's */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(NULL, 4, m, 4096, data, sizes));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(at, 4, NULL, 4096, data, sizes));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(at, 4, m, 4096, NULL, sizes));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(at, 4, m, 4096, data, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(at, 4, m, 0, data, sizes));
	EXPECT_LAST(ACL_SUCCESS);
	/* the runtime's and the driver's */
	at[3] = (aclrtMemManagedRangeAttribute)9;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(at, 4, m, 4096, data, sizes));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	at[3] = ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(at, 0, m, 4096, data, sizes));
	data[1] = NULL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(at, 4, m, 4096, data, sizes));
	data[1] = &pl;
	sizes[2] = 6;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(at, 4, m, 4096, data, sizes));
	sizes[2] = sizeof(ab);
	sizes[0] = 8;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(at, 4, m, 4096, data, sizes));
	sizes[0] = 4;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(at, 4, host, 64, data, sizes));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(at, 4, m, 4 * MiB + 1, data, sizes));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_EQ(-9, rm);
	/* the first granule: all set */
	ASSERT_ACL_OK(aclrtMemManagedGetAttrs(at, 4, m, 2 * MiB, data, sizes));
	EXPECT_EQ(1, rm);
	EXPECT_EQ(0, pl);
	EXPECT_EQ(0, ab[0]);
	EXPECT_EQ(-2, ab[1]);
	EXPECT_EQ(ACL_MEM_LOCATIONTYPE_INVALID, lt);
	/* the whole range: the preferred location is mixed; each as aclrtMemManagedGetAttr answers */
	ASSERT_ACL_OK(aclrtMemManagedGetAttrs(at, 4, m, 4 * MiB, data, sizes));
	for (int i = 0; i < 4; i++) {
		void *o = i == 2 ? (void *)abone : (void *)&one;

		ASSERT_ACL_OK(aclrtMemManagedGetAttr(at[i], m, 4 * MiB, o, sizes[i]));
		EXPECT_EQ(0, memcmp(o, data[i], sizes[i]));
	}
	EXPECT_EQ(-2, pl);
	ASSERT_ACL_OK(aclrtFree(m));
	ASSERT_ACL_OK(aclFinalize());
}

/* ------------------------------------------------------------------ */
/* aclrtMemManagedPrefetchBatchAsync                                   */
/* ------------------------------------------------------------------ */

static int32_t last_prefetch(const void *p)
{
	int32_t v = -9;

	if (aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 1, &v, 4))
		return -99;
	return v;
}

TEST(managed_prefetch_batch)
{
	aclrtMemManagedLocation locs[2] = {
		{ ACL_MEM_LOCATIONTYPE_DEVICE, 0 }, { ACL_MEM_LOCATIONTYPE_HOST, 0 },
	};
	size_t sizes[3] = { 2 * MiB, 4096, 2 * MiB }, idx[2] = { 0, 2 };
	const void *ptrs[3];
	unsigned char *out = malloc(6 * MiB);
	char host[64];
	aclrtStream s;
	void *m, *d;

	ASSERT_NONNULL(out);
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemAllocManaged(&m, 6 * MiB, ACL_RT_MEM_ATTACH_GLOBAL));
	ASSERT_ACL_OK(aclrtMalloc(&d, 6 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	fill_pattern(m, 6 * MiB, 21);
	ptrs[0] = m;
	ptrs[1] = (char *)m + 2 * MiB + 100;
	ptrs[2] = (char *)m + 4 * MiB;
	/* the acl layer's */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(NULL, sizes, 3, locs, idx, 2, 0, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, NULL, idx, 2, 0, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 0, locs, idx, 2, 0, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 0, 0, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 1, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 1, locs, idx, 2, 0, s));
	EXPECT_LAST(ACL_SUCCESS);
	/* the runtime's: recorded */
	idx[0] = 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	idx[0] = 0;
	idx[1] = 3;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	idx[1] = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	idx[1] = 2;
	ptrs[1] = NULL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	ptrs[1] = (char *)m + 2 * MiB + 100;
	locs[0].id = 64;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	locs[0] = (aclrtMemManagedLocation){ ACL_MEM_LOCATIONTYPE_INVALID, 0 };
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	locs[0] = (aclrtMemManagedLocation){ ACL_MEM_LOCATIONTYPE_DEVICE, 0 };
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
		   aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, (aclrtStream)host));
	/* a range outside managed memory, checked before anything is queued or recorded */
	ptrs[2] = host;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	ptrs[2] = (char *)m + 4 * MiB;
	sizes[2] = 2 * MiB + 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_EQ(-2, last_prefetch(m));
	sizes[2] = 2 * MiB;

	/* ranges 0 and 1 to device 0, range 2 to the host */
	ASSERT_ACL_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(0, last_prefetch(m));
	EXPECT_EQ(0, last_prefetch((char *)m + 2 * MiB));
	EXPECT_EQ(-1, last_prefetch((char *)m + 4 * MiB));
	/* the data, through the device and the host */
	ASSERT_ACL_OK(aclrtMemcpyAsync(d, 6 * MiB, m, 6 * MiB, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(out, 6 * MiB, d, 6 * MiB, D2H));
	EXPECT_EQ(-1, check_pattern(out, 6 * MiB, 21));
	EXPECT_EQ(-1, check_pattern(m, 6 * MiB, 21));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtFree(m));
	ASSERT_ACL_OK(aclFinalize());
	free(out);
}

/* A device location on a stream of another device: 107000, nothing recorded. */
TEST(managed_prefetch_batch_other_device)
{
	aclrtMemManagedLocation loc = { ACL_MEM_LOCATIONTYPE_DEVICE, 1 };
	size_t size = 2 * MiB, idx = 0;
	const void *ptr;
	void *m;

	NEED_DEVICE();
	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtMemAllocManaged(&m, 2 * MiB, ACL_RT_MEM_ATTACH_GLOBAL));
	ptr = m;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(&ptr, &size, 1, &loc, &idx, 1, 0, NULL));
	EXPECT_EQ(-2, last_prefetch(m));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtMemManagedPrefetchBatchAsync(&ptr, &size, 1, &loc, &idx, 1, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_EQ(1, last_prefetch(m));
	ASSERT_ACL_OK(aclrtFree(m));
	ASSERT_ACL_OK(aclFinalize());
}

/* ------------------------------------------------------------------ */
/* aclrtIpcMemImportPidInterServer                                     */
/* ------------------------------------------------------------------ */

/*
 * Off the A3 super-pod parts (lib_chip_test checks those): the checks of
 * each entry, entry by entry, then "not supported" from the driver.
 */
TEST(ipc_import_pid_inter_server)
{
	int32_t pids[32] = { 0 };
	aclrtServerPid sp[2];
	char key[65];
	void *d;

	if (lib_soc_is("Ascend910_93"))
		SKIP(return, "npu.ko's chip is an A3 super-pod part: lib_chip_test checks it");
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&d, 2 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtIpcMemGetExportKey(d, 2 * MiB, key, sizeof(key), 0));
	pids[0] = getppid();
	sp[0] = (aclrtServerPid){ .sdid = 1, .pid = pids, .num = 1 };
	sp[1] = (aclrtServerPid){ .sdid = 2, .pid = pids, .num = 31 };
	/* every check is the runtime's or the driver's: 107000, recorded */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(NULL, sp, 2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, NULL, 2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	sp[0].pid = NULL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 2));
	sp[0].pid = pids;
	sp[0].num = 32;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 2));
	sp[0].num = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 2));
	sp[0].num = 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer("", sp, 2));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* then: no super pod here, not recorded; the driver answers before entry 1's checks */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcMemImportPidInterServer(key, sp, 2));
	EXPECT_LAST(ACL_SUCCESS);
	sp[1].pid = NULL;
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcMemImportPidInterServer(key, sp, 2));
	EXPECT_LAST(ACL_SUCCESS);
	/* this server's processes are listed as ever */
	EXPECT_ACL_OK(aclrtIpcMemSetImportPid(key, pids, 1));
	ASSERT_ACL_OK(aclrtIpcMemClose(key));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
