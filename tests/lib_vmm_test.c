// SPDX-License-Identifier: MIT
/*
 * libacl on a device: virtual memory management (physical handles,
 * reservations, maps, access).  Skips without /dev/npu0.
 */
#include <sys/mman.h>

#include "lib_util.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

TEST(granularity)
{
	aclrtPhysicalMemProp p;
	size_t g;
	int a;

	NEED_DEVICE();
	for (a = ACL_DDR_MEM; a <= ACL_MEM_P2P_HUGE1G; a++) {
		bool g1 = a == ACL_HBM_MEM_HUGE1G || a == ACL_HBM_MEM_P2P_HUGE1G ||
			  a == ACL_MEM_HUGE1G || a == ACL_MEM_P2P_HUGE1G;

		p = prop_for((aclrtMemAttr)a);
		g = 0;
		ASSERT_ACL_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
		EXPECT_EQ(g1 ? GiB : 2 * MiB, g);
		g = 0;
		ASSERT_ACL_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g));
		EXPECT_EQ(g1 ? GiB : 2 * MiB, g);
	}
	p = prop_for(ACL_HBM_MEM_HUGE);
	p.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
	EXPECT_ACL_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	p = prop_for(ACL_HBM_MEM_HUGE);
	p.reserve = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	p = prop_for(ACL_HBM_MEM_HUGE);
	p.location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
}

TEST(malloc_physical_checks)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	aclrtDrvMemHandle h = NULL;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 0, &p, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 4096, &p, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 3 * MiB, &p, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MiB, &p, 1));
	p.reserve = 7;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MiB, &p, 0));
	p = prop_for(ACL_HBM_MEM_HUGE);
	p.handleType = (aclrtMemHandleType)3;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MiB, &p, 0));
	p = prop_for(ACL_HBM_MEM_HUGE);
	p.memAttr = (aclrtMemAttr)100;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MiB, &p, 0));
	p = prop_for(ACL_HBM_MEM_HUGE);
	p.location.id = 63;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMallocPhysical(&h, 2 * MiB, &p, 0));
	p = prop_for(ACL_MEM_HUGE1G);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MiB, &p, 0));
	EXPECT_NULL(h);

	p = prop_for(ACL_HBM_MEM_NORMAL);
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 4 * MiB, &p, 0));
	ASSERT_NONNULL(h);
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(h));
}

TEST(reserve_map_access_copy)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	aclrtMemAccessDesc desc = rw_desc();
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtDrvMemHandle h1, h2;
	aclrtPtrAttributes attr;
	size_t n = 4 * MiB;
	char *va, *host = malloc(2 * n), *back = malloc(2 * n);
	uint64_t flag = 99;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 2 * n, 0, NULL, 0));
	EXPECT_EQ(0U, (uintptr_t)va % (2 * MiB));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h1, n, &p, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h2, n, &p, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, 2 * MiB, 0, h1, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va + 4096, n, 0, h1, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, n, 0, h1, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, n, 0, h2, 0));	/* overlaps */
	ASSERT_ACL_OK(aclrtMapMem(va + n, n, 0, h2, 0));
	/* a new mapping has no access until granted */
	ASSERT_ACL_OK(aclrtMemGetAccess(va, &loc, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, flag);
	ASSERT_ACL_OK(aclrtMemSetAccess(va, 2 * n, &desc, 1));
	ASSERT_ACL_OK(aclrtMemGetAccess(va + n + 5, &loc, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(va + n, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attr.location.type);
	EXPECT_EQ((uint32_t)(2 * MiB), attr.pageSize);

	/* one copy across both mappings */
	fill_pattern(host, 2 * n, 31);
	ASSERT_ACL_OK(aclrtMemcpy(va, 2 * n, host, 2 * n, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(back, 0, 2 * n);
	ASSERT_ACL_OK(aclrtMemcpy(back, 2 * n, va, 2 * n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(back, 2 * n, 31));

	/* read-only: reads work, device writes fault */
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
	ASSERT_ACL_OK(aclrtMemSetAccess(va + n, n, &desc, 1));
	ASSERT_ACL_OK(aclrtMemGetAccess(va + n, &loc, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READ, flag);
	memset(back, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(back, n, va + n, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back, host + n, n));
	npu_expect_dma_faults(true);
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtMemcpy(va + n, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
	npu_expect_dma_faults(false);

	/* release refuses while mapped; the handles can go first */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h1));
	ASSERT_ACL_OK(aclrtMemcpy(back, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(back, n, 31));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtUnmapMem(va + n));
	ASSERT_ACL_OK(aclrtFreePhysical(h2));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(va));
	free(host);
	free(back);
}

/* A handle is mapped once: the driver answers EBUSY for a second map. */
/* One handle may back two VAs (as with cuMemMap); both see the same bytes. */
TEST(map_handle_twice)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	aclrtMemAccessDesc desc = {
		.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
		.location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	};
	aclrtDrvMemHandle h;
	char *va, byte = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 4 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &p, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	ASSERT_ACL_OK(aclrtMapMem(va + 2 * MiB, 2 * MiB, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, 4 * MiB, &desc, 1));
	ASSERT_ACL_OK(aclrtMemset(va + 100, 1, 0x6b, 1));
	ASSERT_ACL_OK(aclrtMemcpy(&byte, 1, va + 2 * MiB + 100, 1,
				  ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0x6b, byte);
	/* Freed while mapped twice: the memory lives until the last unmap. */
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtMemcpy(&byte, 1, va + 2 * MiB + 100, 1,
				  ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0x6b, byte);
	ASSERT_ACL_OK(aclrtUnmapMem(va + 2 * MiB));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
}

TEST(reserve_alignment_and_hint)
{
	void *va, *va2, *hint;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 4 * MiB, 64 * MiB, NULL, 0));
	EXPECT_EQ(0U, (uintptr_t)va % (64 * MiB));
	/* reserved in the process too */
	EXPECT_EQ(MAP_FAILED, mmap(va, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0));
	hint = (char *)va + 2 * MiB;
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	/* a free hint is taken */
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 2 * MiB, 0, hint, 0));
	EXPECT_EQ(hint, va);
	/* a taken one is not, and is no error */
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va2, 2 * MiB, 0, hint, 0));
	EXPECT_NE(hint, va2);
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va2));
	/* a misaligned hint is ignored */
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va2, 2 * MiB, 0, (char *)hint - 4096, 0));
	EXPECT_EQ(0U, (uintptr_t)va2 % (2 * MiB));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va2));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
}

TEST(set_access_checks)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	aclrtMemAccessDesc desc[2] = { rw_desc(), rw_desc() };
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtDrvMemHandle h;
	uint64_t flag;
	void *va;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 4 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &p, 0));
	/* nothing mapped yet */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 2 * MiB, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, &loc, &flag));
	ASSERT_ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	desc[1].flags = (aclrtMemAccessFlags)2;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 2 * MiB, desc, 2));
	desc[1] = rw_desc();
	desc[1].rsv[11] = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 2 * MiB, desc, 2));
	desc[1] = rw_desc();
	desc[1].location.type = ACL_MEM_LOCATION_TYPE_HOST;
	EXPECT_ACL(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtMemSetAccess(va, 2 * MiB, desc, 2));
	desc[1] = rw_desc();
	desc[1].location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 2 * MiB, desc, 2));
	desc[1] = rw_desc();
	desc[1].location.id = 63;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemSetAccess(va, 2 * MiB, desc, 2));
	if (have_npu(1)) {
		/* a peer device's access (tests/lib_peer_test.c) */
		desc[1].location.id = 1;
		EXPECT_ACL_OK(aclrtMemSetAccess(va, 2 * MiB, desc, 2));
	}
	/* the range must be mapped whole */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 4 * MiB, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 1 * MiB, desc, 1));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, 2 * MiB, desc, 1));
	loc.type = ACL_MEM_LOCATION_TYPE_HOST;
	EXPECT_ACL(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtMemGetAccess(va, &loc, &flag));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
}

TEST(huge1g_physical)
{
	aclrtPhysicalMemProp p = prop_for(ACL_MEM_HUGE1G);
	aclrtMemAccessDesc desc = rw_desc();
	aclrtDrvMemHandle h;
	size_t f, t;
	void *va;
	uint64_t v = 0;
	aclError r;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
	if (f < GiB)
		SKIP(return, "less than 1 GiB of device memory free");
	r = aclrtMallocPhysical(&h, GiB, &p, 0);
	if (r == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
		SKIP(return, "no 1 GiB pages");
	ASSERT_EQ(ACL_SUCCESS, r);
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, GiB, GiB, NULL, 0));
	EXPECT_EQ(0U, (uintptr_t)va % GiB);
	ASSERT_ACL_OK(aclrtMapMem(va, GiB, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, GiB, &desc, 1));
	ASSERT_ACL_OK(aclrtValueWrite((char *)va + GiB - 8, 0xabcdef, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, (char *)va + GiB - 8, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0xabcdefU, v);
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
}

TEST_HARNESS_MAIN
