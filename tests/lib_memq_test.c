// SPDX-License-Identifier: MIT
/*
 * libacl on a device: the memory calls of runtime spec section 8 -
 * aclrtMallocAlign32 / aclrtMallocCached and the padding of aclrtMalloc,
 * the *WithDevSync frees, and the queries (address ranges, retained
 * handles, handle properties, usage per component, memory types, host
 * memory map capabilities).  Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>

#include "lib_util.h"

/* The size aclrtMemGetAddressRange reports for @p, which must be its base. */
static size_t range_size(void *p)
{
	void *base = NULL;
	size_t size = 0;

	if (aclrtMemGetAddressRange(p, &base, &size) != ACL_SUCCESS || base != p)
		return 0;
	return size;
}

static uint32_t page_size(void *p)
{
	aclrtPtrAttributes a;

	memset(&a, 0, sizeof(a));
	if (aclrtPointerGetAttributes(p, &a) != ACL_SUCCESS)
		return 0;
	return a.pageSize;
}

/* Device 0's usage entry named @name: its current and peak bytes; false if missing. */
static bool usage_of(const char *name, uint64_t *cur, uint64_t *peak)
{
	aclrtMemUsageInfo info[8];
	size_t n = 0, i;

	if (aclrtGetMemUsageInfo(0, info, 8, &n) != ACL_SUCCESS)
		return false;
	for (i = 0; i < n; i++) {
		if (!strcmp(info[i].name, name)) {
			*cur = info[i].curMemSize;
			if (peak)
				*peak = info[i].memPeakSize;
			return true;
		}
	}
	return false;
}

/* aclrtMalloc / aclrtMallocAlign32 sizes */

struct sizing {
	size_t size;
	uint32_t policy;
	size_t padded;		/* aclrtMalloc: 32-aligned, + 32, to pages */
	size_t align32;		/* aclrtMallocAlign32: 32-aligned, to pages */
	uint32_t page;		/* page size of the aclrtMalloc allocation */
};

static const struct sizing sizings[] = {
	{ 1, ACL_MEM_MALLOC_NORMAL_ONLY, 4096, 4096, 4096 },
	{ 4064, ACL_MEM_MALLOC_NORMAL_ONLY, 4096, 4096, 4096 },
	{ 4065, ACL_MEM_MALLOC_NORMAL_ONLY, 8192, 4096, 4096 },
	{ 4096, ACL_MEM_MALLOC_NORMAL_ONLY, 8192, 4096, 4096 },
	{ 4097, ACL_MEM_MALLOC_NORMAL_ONLY, 8192, 8192, 4096 },
	{ 2 * MiB, ACL_MEM_MALLOC_HUGE_ONLY, 4 * MiB, 2 * MiB, 2 * MiB },
	{ 2 * MiB - 32, ACL_MEM_MALLOC_HUGE_ONLY, 2 * MiB, 2 * MiB, 2 * MiB },
	/* HUGE_FIRST decides on the padded size: 2 MiB - 32 + 32 takes huge pages */
	{ 2 * MiB - 32, ACL_MEM_MALLOC_HUGE_FIRST, 2 * MiB, 2 * MiB, 2 * MiB },
	{ 2 * MiB - 64, ACL_MEM_MALLOC_HUGE_FIRST, 2 * MiB, 2 * MiB, 4096 },
	/* not a policy as a whole: the default placement (huge first) */
	{ 4096, ACL_MEM_MALLOC_NORMAL_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH, 8192, 4096, 4096 },
	{ 2 * MiB, ACL_MEM_MALLOC_NORMAL_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH, 4 * MiB, 2 * MiB, 2 * MiB },
	{ 4096, 8, 8192, 4096, 4096 },
	{ 4096, 0x2000, 8192, 4096, 4096 },
	{ 4096, ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH, 8192, 4096, 4096 },
	/* a HUGE1G policy with a modifier: the default placement, padded */
	{ 4096, ACL_MEM_MALLOC_HUGE1G_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH, 8192, 4096, 4096 },
};

TEST(malloc_pads_align32_does_not)
{
	uint64_t base, cur;
	size_t i;
	void *p;

	NEED_DEVICE();
	ASSERT_TRUE(usage_of("aclrtMalloc", &base, NULL));
	for (i = 0; i < sizeof(sizings) / sizeof(sizings[0]); i++) {
		const struct sizing *z = &sizings[i];

		TH_LOG("size %zu policy %#x", z->size, z->policy);
		ASSERT_ACL_OK(aclrtMalloc(&p, z->size, (aclrtMemMallocPolicy)z->policy));
		EXPECT_EQ(z->padded, range_size(p));
		EXPECT_EQ(z->page, page_size(p));
		/* what the device allocated, padding and page tail included */
		ASSERT_TRUE(usage_of("aclrtMalloc", &cur, NULL));
		EXPECT_EQ(base + z->padded, cur);
		ASSERT_ACL_OK(aclrtFree(p));

		ASSERT_ACL_OK(aclrtMallocAlign32(&p, z->size, (aclrtMemMallocPolicy)z->policy));
		EXPECT_EQ(z->align32, range_size(p));
		ASSERT_TRUE(usage_of("aclrtMalloc", &cur, NULL));
		EXPECT_EQ(base + z->align32, cur);
		ASSERT_ACL_OK(aclrtFree(p));
		EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(p));
	}
	ASSERT_TRUE(usage_of("aclrtMalloc", &cur, NULL));
	EXPECT_EQ(base, cur);
}

TEST(align32_and_cached_args)
{
	void *p = NULL;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(NULL, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&p, SIZE_MAX - 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, SIZE_MAX - 40, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocCached(NULL, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocCached(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_NULL(p);
	/* argument errors come before the device */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocAlign32(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocCached(&p, 4096, (aclrtMemMallocPolicy)77));
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtMallocAlign32(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtMallocCached(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtFreeWithDevSync(&p));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtFreeHostWithDevSync(&p));
}

struct cached {
	uint32_t policy;
	size_t size, got;
	uint32_t page;
};

static const struct cached cacheds[] = {
	{ ACL_MEM_MALLOC_NORMAL_ONLY, 4096, 8192, 4096 },
	{ ACL_MEM_MALLOC_HUGE_ONLY, 4096, 2 * MiB, 2 * MiB },
	{ ACL_MEM_MALLOC_HUGE_FIRST, 2 * MiB, 4 * MiB, 2 * MiB },
	/* any other value: the default placement (HUGE_FIRST), padded */
	{ ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 4096, 8192, 4096 },
	{ ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 2 * MiB, 4 * MiB, 2 * MiB },
	{ 0x12345, 4096, 8192, 4096 },
	{ ACL_MEM_MALLOC_HUGE_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH, 4096, 8192, 4096 },
	/* HUGE1G_ONLY_P2P: the default placement, but no padding */
	{ ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 4096, 4096, 4096 },
};

TEST(malloc_cached_policies)
{
	char out[64], back[64];
	size_t i;
	void *p;

	NEED_DEVICE();
	for (i = 0; i < sizeof(cacheds) / sizeof(cacheds[0]); i++) {
		const struct cached *c = &cacheds[i];

		TH_LOG("policy %#x size %zu", c->policy, c->size);
		ASSERT_ACL_OK(aclrtMallocCached(&p, c->size, (aclrtMemMallocPolicy)c->policy));
		EXPECT_EQ(c->got, range_size(p));
		EXPECT_EQ(c->page, page_size(p));
		/* ordinary device memory */
		fill_pattern(out, sizeof(out), (unsigned int)i);
		ASSERT_ACL_OK(aclrtMemcpy(p, c->size, out, sizeof(out), ACL_MEMCPY_HOST_TO_DEVICE));
		memset(back, 0, sizeof(back));
		ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), p, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(-1, check_pattern(back, sizeof(back), (unsigned int)i));
		ASSERT_ACL_OK(aclrtFree(p));
	}
}

/* The *WithDevSync frees */

TEST(free_with_dev_sync)
{
	aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
	aclrtStream s;
	void *big, *p, *h, *d;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeWithDevSync(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHostWithDevSync(NULL));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&big, 64 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&h, 4096));

	/* the free waits for the device: the stream's memset is done after it */
	ASSERT_ACL_OK(aclrtMemsetAsync(big, 64 * MiB, 0x5a, 64 * MiB, s));
	ASSERT_ACL_OK(aclrtFreeWithDevSync(p));
	ASSERT_ACL_OK(aclrtStreamQuery(s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeWithDevSync(p));
	st = ACL_STREAM_STATUS_NOT_READY;
	ASSERT_ACL_OK(aclrtMemsetAsync(big, 64 * MiB, 0x5b, 64 * MiB, s));
	ASSERT_ACL_OK(aclrtFreeHostWithDevSync(h));
	ASSERT_ACL_OK(aclrtStreamQuery(s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHostWithDevSync(h));
	/* the wrong kind of memory for each */
	ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&h, 4096));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeWithDevSync(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHostWithDevSync(p));

	/* a failing synchronize is the answer, and nothing is freed */
	ASSERT_ACL_OK(aclrtReserveMemAddress(&d, 2 * MiB, 0, NULL, 0));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtValueWrite(d, 1, 0, s));	/* reserved, unmapped: faults */
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtFreeWithDevSync(p));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtMemset(p, 4096, 1, 4096));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtValueWrite(d, 1, 0, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtFreeHostWithDevSync(h));
	npu_expect_dma_faults(false);
	memset(h, 1, 4096);
	/* the fault was reported once: now they free */
	ASSERT_ACL_OK(aclrtFreeWithDevSync(p));
	ASSERT_ACL_OK(aclrtFreeHostWithDevSync(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(p));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(h));

	ASSERT_ACL_OK(aclrtReleaseMemAddress(d));
	ASSERT_ACL_OK(aclrtFree(big));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	/* a device is needed */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtFreeWithDevSync(&st));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtFreeHostWithDevSync(&st));
}

/* aclrtMemGetAddressRange */

TEST(address_range)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	aclrtDrvMemHandle hd;
	char stack[16], *p, *h, *va;
	void *base = NULL;
	size_t size = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&p, 10000, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(NULL, &base, &size));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(p, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(stack, &base, &size));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange((void *)(uintptr_t)0x1000, &base, &size));

	/* any byte of an aclrtMalloc allocation: 10000 + 32 rounded to 4 KiB pages */
	ASSERT_ACL_OK(aclrtMemGetAddressRange(p + 9999, &base, &size));
	EXPECT_EQ((void *)p, base);
	EXPECT_EQ(12288U, size);
	ASSERT_ACL_OK(aclrtMemGetAddressRange(p + 12287, &base, &size));
	EXPECT_EQ((void *)p, base);
	/* either output alone */
	base = NULL;
	size = 0;
	ASSERT_ACL_OK(aclrtMemGetAddressRange(p + 5, &base, NULL));
	EXPECT_EQ((void *)p, base);
	ASSERT_ACL_OK(aclrtMemGetAddressRange(p + 5, NULL, &size));
	EXPECT_EQ(12288U, size);

	/* aclrtMallocHost: whole pages */
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h, 5000));
	ASSERT_ACL_OK(aclrtMemGetAddressRange(h + 4999, &base, &size));
	EXPECT_EQ((void *)h, base);
	EXPECT_EQ(8192U, size);
	ASSERT_ACL_OK(aclrtFreeHost(h));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(h, &base, &size));

	/* VMM: the mapping, not the reservation */
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 6 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&hd, 2 * MiB, &prop, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va + 2 * MiB, &base, &size));
	ASSERT_ACL_OK(aclrtMapMem(va + 2 * MiB, 2 * MiB, 0, hd, 0));
	ASSERT_ACL_OK(aclrtMemGetAddressRange(va + 3 * MiB, &base, &size));
	EXPECT_EQ((void *)(va + 2 * MiB), base);
	EXPECT_EQ(2 * MiB, size);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va + 1, &base, &size));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va + 4 * MiB, &base, &size));
	/* a second mapping of the handle is a range of its own */
	ASSERT_ACL_OK(aclrtMapMem(va + 4 * MiB, 2 * MiB, 0, hd, 0));
	ASSERT_ACL_OK(aclrtMemGetAddressRange(va + 6 * MiB - 1, &base, &size));
	EXPECT_EQ((void *)(va + 4 * MiB), base);
	/* the mapping, not the handle, makes the range: freed handle, still mapped */
	ASSERT_ACL_OK(aclrtFreePhysical(hd));
	ASSERT_ACL_OK(aclrtMemGetAddressRange(va + 2 * MiB, &base, &size));
	EXPECT_EQ((void *)(va + 2 * MiB), base);
	EXPECT_EQ(2 * MiB, size);
	ASSERT_ACL_OK(aclrtUnmapMem(va + 2 * MiB));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va + 2 * MiB, &base, &size));
	ASSERT_ACL_OK(aclrtUnmapMem(va + 4 * MiB));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va + 4 * MiB, &base, &size));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));

	ASSERT_ACL_OK(aclrtFree(p));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(p, &base, &size));
}

/* aclrtMemRetainAllocationHandle */

TEST(retain_keeps_the_handle)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	aclrtMemAccessDesc d = rw_desc();
	aclrtDrvMemHandle h, r = NULL, r2 = NULL;
	uint64_t base, cur;
	char *va, buf[64], stack[8];

	NEED_DEVICE();
	ASSERT_TRUE(usage_of("aclrtMallocPhysical", &base, NULL));
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 4 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, 2 * MiB, &d, 1));
	fill_pattern(buf, sizeof(buf), 3);
	ASSERT_ACL_OK(aclrtMemcpy(va, 2 * MiB, buf, sizeof(buf), ACL_MEMCPY_HOST_TO_DEVICE));

	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(NULL, &r));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(va, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemRetainAllocationHandle(stack, &r));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemRetainAllocationHandle(va + 4096, &r));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemRetainAllocationHandle(va + 2 * MiB, &r));
	EXPECT_NULL(r);

	/* two references more: three frees in all */
	ASSERT_ACL_OK(aclrtMemRetainAllocationHandle(va, &r));
	EXPECT_EQ(h, r);
	ASSERT_ACL_OK(aclrtMemRetainAllocationHandle(va, &r2));
	EXPECT_EQ(h, r2);
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtFreePhysical(r));
	/* still a live handle: it maps again and reports its properties */
	ASSERT_ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &prop));
	ASSERT_ACL_OK(aclrtMapMem(va + 2 * MiB, 2 * MiB, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va + 2 * MiB, 2 * MiB, &d, 1));
	memset(buf, 0, sizeof(buf));
	ASSERT_ACL_OK(aclrtMemcpy(buf, sizeof(buf), va + 2 * MiB, sizeof(buf), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, sizeof(buf), 3));
	ASSERT_ACL_OK(aclrtUnmapMem(va + 2 * MiB));
	/* the last free releases the handle; the mapping keeps the memory */
	ASSERT_ACL_OK(aclrtFreePhysical(r2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(h, &prop));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va + 2 * MiB, 2 * MiB, 0, h, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemRetainAllocationHandle(va, &r));
	ASSERT_TRUE(usage_of("aclrtMallocPhysical", &cur, NULL));
	EXPECT_EQ(base + 2 * MiB, cur);
	memset(buf, 0, sizeof(buf));
	ASSERT_ACL_OK(aclrtMemcpy(buf, sizeof(buf), va, sizeof(buf), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, sizeof(buf), 3));
	/* gone with the mapping */
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_TRUE(usage_of("aclrtMallocPhysical", &cur, NULL));
	EXPECT_EQ(base, cur);
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
}

struct retainer {
	void *va;
	aclrtDrvMemHandle h;
	int fails;
};

/* Retain and free the handle mapped at r->va, over and over. */
static void *retain_loop(void *arg)
{
	struct retainer *r = arg;
	aclrtDrvMemHandle got;
	int i;

	for (i = 0; i < 500; i++) {
		got = NULL;
		if (aclrtMemRetainAllocationHandle(r->va, &got) != ACL_SUCCESS || got != r->h)
			r->fails++;
		if (aclrtFreePhysical(r->h) != ACL_SUCCESS)
			r->fails++;
	}
	return NULL;
}

TEST(retain_from_threads)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	struct retainer r[4];
	pthread_t t[4];
	aclrtDrvMemHandle h;
	void *va;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	for (i = 0; i < 4; i++) {
		r[i].va = va;
		r[i].h = h;
		r[i].fails = 0;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, retain_loop, &r[i]));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		EXPECT_EQ(0, r[i].fails);
	}
	/* every retain was freed: the allocation's own reference is left */
	ASSERT_ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &prop));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
}

/* aclrtMemGetAllocationPropertiesFromHandle */

struct attr_case {
	aclrtMemAttr in, out;
};

static const struct attr_case attr_cases[] = {
	{ ACL_HBM_MEM_HUGE, ACL_HBM_MEM_HUGE },
	{ ACL_HBM_MEM_P2P_HUGE, ACL_HBM_MEM_P2P_HUGE },
	/*
	 * CANN answers the request, whatever pages back it (memory.cpp
	 * mapping[], devmm_svm.c keeps the prop): NORMAL stays NORMAL on 2 MiB
	 * pages; the generic kinds read back as HBM on a device.
	 */
	{ ACL_HBM_MEM_NORMAL, ACL_HBM_MEM_NORMAL },
	{ ACL_MEM_NORMAL, ACL_HBM_MEM_NORMAL },
	{ ACL_MEM_HUGE, ACL_HBM_MEM_HUGE },
	{ ACL_DDR_MEM_P2P_NORMAL, ACL_DDR_MEM_P2P_NORMAL },
	{ ACL_MEM_P2P_NORMAL, ACL_MEM_P2P_NORMAL },
	{ ACL_MEM_P2P_HUGE, ACL_MEM_P2P_HUGE },
	{ ACL_HBM_MEM, ACL_HBM_MEM },
};

TEST(allocation_properties)
{
	aclrtPhysicalMemProp in, out;
	aclrtDrvMemHandle h;
	size_t i;

	NEED_DEVICE();
	in = prop_for(ACL_HBM_MEM_HUGE);
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &in, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(NULL, &out));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(h, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle((aclrtDrvMemHandle)&in, &out));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(h, &out));

	for (i = 0; i < sizeof(attr_cases) / sizeof(attr_cases[0]); i++) {
		TH_LOG("memAttr %d", (int)attr_cases[i].in);
		in = prop_for(attr_cases[i].in);
		ASSERT_ACL_OK(aclrtMallocPhysical(&h, 4 * MiB, &in, 0));
		memset(&out, 0xa5, sizeof(out));
		ASSERT_ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &out));
		EXPECT_EQ(ACL_MEM_HANDLE_TYPE_NONE, out.handleType);
		EXPECT_EQ(ACL_MEM_ALLOCATION_TYPE_PINNED, out.allocationType);
		EXPECT_EQ(attr_cases[i].out, out.memAttr);
		EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, out.location.type);
		EXPECT_EQ(0U, out.location.id);
		EXPECT_EQ(0U, out.reserve);
		ASSERT_ACL_OK(aclrtFreePhysical(h));
	}
}

/* aclrtGetMemUsageInfo */

TEST(mem_usage_args)
{
	aclrtMemUsageInfo info[4];
	size_t n = 77;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemUsageInfo(0, NULL, 4, &n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemUsageInfo(0, info, 4, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetMemUsageInfo(0, info, 0, &n));
	EXPECT_EQ(0U, n);
	n = 77;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUsageInfo(-1, info, 4, &n));
	EXPECT_EQ(0U, n);
	n = 77;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUsageInfo(64, info, 4, &n));
	EXPECT_EQ(0U, n);
	if (!have_npu(63))
		EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUsageInfo(63, info, 4, &n));
	/* fewer entries than there are: the largest ones */
	ASSERT_ACL_OK(aclrtGetMemUsageInfo(0, info, 1, &n));
	EXPECT_EQ(1U, n);
	EXPECT_STREQ("device", info[0].name);
}

/* CANN asks the driver through the current context: without one, 107002. */
TEST(mem_usage_needs_a_context)
{
	aclrtMemUsageInfo info[4];
	const char *msg;
	size_t n = 77;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtResetDevice(0));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetMemUsageInfo(0, info, 4, &n));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "context"));
	EXPECT_EQ(0U, n);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	/* the argument and device-id checks come first */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetMemUsageInfo(0, info, 0, &n));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUsageInfo(64, info, 4, &n));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetMemUsageInfo(0, info, 4, &n));
	EXPECT_LE(1U, n);
}

TEST(mem_usage_follows_allocations)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	uint64_t dev0, mal0, phy0, cur, peak, mpeak0;
	aclrtMemUsageInfo info[8];
	aclrtDrvMemHandle h;
	size_t n = 0, i, j;
	void *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetMemUsageInfo(0, info, 8, &n));
	ASSERT_EQ(3U, n);
	for (i = 0; i < n; i++) {
		static const size_t zero[8];

		TH_LOG("%s: %llu (peak %llu)", info[i].name, (unsigned long long)info[i].curMemSize,
		       (unsigned long long)info[i].memPeakSize);
		EXPECT_LE(info[i].curMemSize, info[i].memPeakSize);
		EXPECT_EQ(0, memcmp(zero, info[i].reserved, sizeof(zero)));
		if (i)
			EXPECT_GE(info[i - 1].curMemSize, info[i].curMemSize);
		for (j = 0; j < i; j++)
			EXPECT_STRNE(info[j].name, info[i].name);
	}
	/* the device's figure counts every process: at least this one's */
	EXPECT_STREQ("device", info[0].name);
	ASSERT_TRUE(usage_of("device", &dev0, NULL));
	ASSERT_TRUE(usage_of("aclrtMalloc", &mal0, &mpeak0));
	ASSERT_TRUE(usage_of("aclrtMallocPhysical", &phy0, NULL));
	EXPECT_GE(dev0, mal0 + phy0);

	/* 4 MiB + 32 bytes of padding: three 2 MiB pages */
	ASSERT_ACL_OK(aclrtMalloc(&p, 4 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_TRUE(usage_of("aclrtMalloc", &cur, &peak));
	EXPECT_EQ(mal0 + 6 * MiB, cur);
	EXPECT_LE(cur, peak);
	ASSERT_TRUE(usage_of("device", &cur, &peak));
	EXPECT_EQ(dev0 + 6 * MiB, cur);
	EXPECT_LE(cur, peak);
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 8 * MiB, &prop, 0));
	ASSERT_TRUE(usage_of("aclrtMallocPhysical", &cur, &peak));
	EXPECT_EQ(phy0 + 8 * MiB, cur);
	EXPECT_LE(cur, peak);
	ASSERT_TRUE(usage_of("device", &cur, NULL));
	EXPECT_EQ(dev0 + 14 * MiB, cur);
	/* the largest first: 8 MiB of handles before 6 MiB of aclrtMalloc */
	ASSERT_ACL_OK(aclrtGetMemUsageInfo(0, info, 8, &n));
	if (phy0 == 0 && mal0 == 0) {
		EXPECT_STREQ("aclrtMallocPhysical", info[1].name);
		EXPECT_STREQ("aclrtMalloc", info[2].name);
	}

	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	/* back where they were; the peaks remember */
	ASSERT_TRUE(usage_of("aclrtMalloc", &cur, &peak));
	EXPECT_EQ(mal0, cur);
	EXPECT_LE(mal0 + 6 * MiB, peak);
	ASSERT_TRUE(usage_of("aclrtMallocPhysical", &cur, &peak));
	EXPECT_EQ(phy0, cur);
	EXPECT_LE(phy0 + 8 * MiB, peak);
	ASSERT_TRUE(usage_of("device", &cur, &peak));
	EXPECT_EQ(dev0, cur);
	EXPECT_LE(dev0 + 14 * MiB, peak);

	/*
	 * The process's figures start again with a new open of the device;
	 * the query needs a current context, another device's will do.
	 */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	if (have_npu(1)) {
		ASSERT_ACL_OK(aclrtSetDevice(1));
		ASSERT_TRUE(usage_of("aclrtMalloc", &cur, &peak));
		EXPECT_EQ(0U, cur);
		EXPECT_EQ(0U, peak);
		ASSERT_ACL_OK(aclrtResetDevice(1));
	}
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_TRUE(usage_of("aclrtMalloc", &cur, &peak));
	EXPECT_EQ(0U, cur);
	EXPECT_EQ(0U, peak);
	(void)mpeak0;
}

/* aclrtCheckMemType */

TEST(check_mem_type)
{
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	aclrtDrvMemHandle hd;
	void *list[3], *p, *h, *va;
	uint32_t res = 7;
	char stack[8];

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&h, 4096));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 4 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&hd, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, 2 * MiB, 0, hd, 0));
	list[0] = p;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCheckMemType(NULL, 1, ACL_RT_MEM_TYPE_DEV, &res, 0));
	EXPECT_EQ(7U, res);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, NULL, 0));
	/* the runtime's refusals come after *checkResult = 0, as CANN's */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, &res, 1));
	EXPECT_EQ(0U, res);
	res = 7;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType(list, 0, ACL_RT_MEM_TYPE_DEV, &res, 0));
	EXPECT_EQ(0U, res);
	res = 7;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType(list, 1, 0x1, &res, 0));
	EXPECT_EQ(0U, res);
	res = 7;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType(list, 1, 0x4, &res, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType(list, 1, 0x20 | ACL_RT_MEM_TYPE_DEV, &res, 0));
	EXPECT_EQ(0U, res);

#define CHECK(want, n, type) do {						\
	res = 7;								\
	EXPECT_ACL_OK(aclrtCheckMemType(list, n, type, &res, 0));		\
	EXPECT_EQ((uint32_t)(want), res);					\
} while (0)
	/* aclrtMalloc memory is DEV, at any byte */
	CHECK(1, 1, ACL_RT_MEM_TYPE_DEV);
	CHECK(1, 1, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD);
	CHECK(0, 1, ACL_RT_MEM_TYPE_RSVD);
	CHECK(0, 1, ACL_RT_MEM_TYPE_DVPP);
	CHECK(0, 1, 0);
	list[0] = (char *)p + 4000;
	CHECK(1, 1, ACL_RT_MEM_TYPE_DEV);
	/* aclrtReserveMemAddress ranges are RSVD, mapped or not */
	list[0] = va;
	list[1] = (char *)va + 3 * MiB;
	CHECK(1, 2, ACL_RT_MEM_TYPE_RSVD);
	CHECK(0, 2, ACL_RT_MEM_TYPE_DEV);
	/* all of them must match */
	list[2] = p;
	CHECK(0, 3, ACL_RT_MEM_TYPE_RSVD);
	CHECK(0, 3, ACL_RT_MEM_TYPE_DEV);
	CHECK(1, 3, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD);
	CHECK(1, 3, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD | ACL_RT_MEM_TYPE_DVPP);
	/* host memory and unknown addresses are none of them */
	list[0] = h;
	CHECK(0, 1, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD | ACL_RT_MEM_TYPE_DVPP);
	list[0] = stack;
	CHECK(0, 1, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD | ACL_RT_MEM_TYPE_DVPP);
	list[0] = NULL;
	CHECK(0, 1, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD | ACL_RT_MEM_TYPE_DVPP);
	/* freed memory no longer is */
	ASSERT_ACL_OK(aclrtFree(p));
	list[0] = p;
	CHECK(0, 1, ACL_RT_MEM_TYPE_DEV);
#undef CHECK

	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(hd));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	/* a current context is needed, after the argument checks */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType(list, 0, ACL_RT_MEM_TYPE_DEV, &res, 0));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, &res, 0));
}

/* aclrtHostMemMapCapabilities */

TEST(host_mem_map_capabilities)
{
	aclrtHostMemMapCapability c = (aclrtHostMemMapCapability)7;
	int t;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_SDMA, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtHostMemMapCapabilities(64, ACL_RT_HAC_TYPE_SDMA, &c));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtHostMemMapCapabilities(UINT32_MAX, ACL_RT_HAC_TYPE_SDMA, &c));
	if (!have_npu(63))
		EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
			   aclrtHostMemMapCapabilities(63, ACL_RT_HAC_TYPE_SDMA, &c));
	/* the device first, then the type */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtHostMemMapCapabilities(64, (aclrtHacType)10, &c));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostMemMapCapabilities(0, (aclrtHacType)10, &c));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostMemMapCapabilities(0, (aclrtHacType)-1, &c));
	EXPECT_EQ(7, (int)c);
	/* the DMA engine reaches registered host memory; nothing else runs */
	for (t = ACL_RT_HAC_TYPE_STARS; t <= ACL_RT_HAC_TYPE_CCU; t++) {
		bool dma = t == ACL_RT_HAC_TYPE_PCIEDMA || t == ACL_RT_HAC_TYPE_SDMA;

		c = (aclrtHostMemMapCapability)7;
		ASSERT_ACL_OK(aclrtHostMemMapCapabilities(0, (aclrtHacType)t, &c));
		EXPECT_EQ(dma ? ACL_RT_HOST_MEM_MAP_SUPPORTED : ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED, c);
	}
	/* no device needs to be set */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_PCIEDMA, &c));
	EXPECT_EQ(ACL_RT_HOST_MEM_MAP_SUPPORTED, c);
}

TEST_HARNESS_MAIN
