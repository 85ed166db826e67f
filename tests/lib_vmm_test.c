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

/*
 * CANN allocates on prop->location.id whether current or not (api_error.cc
 * validates the id only) and reads back the requested properties
 * (memory.cpp mapping[]): NORMAL stays NORMAL on 2 MiB pages. Here the
 * device must be set in the process.
 */
TEST(malloc_physical_other_device)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_NORMAL), out;
	aclrtDrvMemHandle h = NULL;
	size_t n = 4 * MiB, i;
	char *model = malloc(n), *buf = malloc(n);
	char *va;

	if (!have_npu(1))
		SKIP(return, "needs /dev/npu1");
	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(buf);
	p.location.id = 1;
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocPhysical(&h, n, &p, 0));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_NULL(h);
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, n, &p, 0));
	memset(&out, 0xa5, sizeof(out));
	ASSERT_ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &out));
	EXPECT_EQ(ACL_MEM_HANDLE_TYPE_NONE, out.handleType);
	EXPECT_EQ(ACL_MEM_ALLOCATION_TYPE_PINNED, out.allocationType);
	EXPECT_EQ(ACL_HBM_MEM_NORMAL, out.memAttr);
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, out.location.type);
	EXPECT_EQ(1U, out.location.id);
	EXPECT_EQ(0U, out.reserve);

	/* device 1's memory: mapped there, the bytes as written */
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, n, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, n, 0, h, 0));
	for (i = 0; i < n; i++)
		model[i] = (char)(i * 7 + 3);
	ASSERT_ACL_OK(aclrtMemcpy(va, n, model, n, ACL_MEMCPY_HOST_TO_DEVICE));
	fill_pattern(buf, n, 3);
	ASSERT_ACL_OK(aclrtMemcpy(va + 2 * MiB - 100, 300, buf, 300, ACL_MEMCPY_HOST_TO_DEVICE));
	memcpy(model + 2 * MiB - 100, buf, 300);
	/* read from device 0's thread: a copy touching device 1 only runs there */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	memset(buf, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(buf, 4096, va + 2 * MiB - 2048, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, model + 2 * MiB - 2048, 4096));
	ASSERT_ACL_OK(aclrtMemcpy(buf, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, model, n));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	/* freed with any device current */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	free(model);
	free(buf);
}

/*
 * CANN has one VA space for every device: a handle of device 1 maps into
 * a reservation made with device 0 current (torch_npu maps an imported
 * segment so). Device 1 reads and writes it at once, device 0 reaches it
 * as peer memory where granted; its place is checked like any mapping's,
 * against device 0's mappings and other devices' alike.
 */
TEST(map_another_devices_handle)
{
	aclrtPhysicalMemProp p0 = prop_for(ACL_HBM_MEM_HUGE), p1 = p0;
	aclrtMemAccessDesc grant0 = rw_desc();
	aclrtMemLocation loc0 = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtMemLocation loc1 = { 1, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtDrvMemHandle h0, h0b, h1, h1b, got = NULL;
	aclrtPtrAttributes attr;
	size_t n = 4 * MiB, size = 0;
	char *model = malloc(3 * n), *buf = malloc(3 * n), *va;
	void *base = NULL;
	uint64_t flag = 99;
	aclrtStream s;
	/* two copies of a batch: into device 0's mapping, then into device 1's next to it */
	void *bdst[2], *bsrc[2];
	size_t bsize[2] = { 4096, 4096 }, bidx = 0, bfail = 7;
	aclrtMemcpyBatchAttr battr = {
		.dstLoc = { 0, ACL_MEM_LOCATION_TYPE_DEVICE }, .srcLoc = { 0, ACL_MEM_LOCATION_TYPE_HOST },
	};

	if (!have_npu(1))
		SKIP(return, "needs /dev/npu1");
	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(buf);
	p1.location.id = 1;
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h0, n, &p0, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h0b, n, &p0, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h1, n, &p1, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h1b, n, &p1, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 4 * n, 0, NULL, 0));
	bdst[0] = va + n - 4096;
	bdst[1] = va + n;
	bsrc[0] = model + n - 4096;
	bsrc[1] = model + n;

	/* device 1's handle between two mappings of device 0's */
	ASSERT_ACL_OK(aclrtMapMem(va, n, 0, h0, 0));
	ASSERT_ACL_OK(aclrtMapMem(va + n, n, 0, h1, 0));
	ASSERT_ACL_OK(aclrtMapMem(va + 2 * n, n, 0, h0b, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va + n, n, 0, h1b, 0));	/* on device 1's */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va + 2 * n, n, 0, h1b, 0));	/* on device 0's */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va + 3 * n + 2 * MiB, n, 0, h1b, 0));	/* leaves it */
	ASSERT_ACL_OK(aclrtUnmapMem(va + 2 * n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va + n + 2 * MiB, n, 0, h0b, 0));	/* on the guest */

	/* it is device 1's memory, read-write for device 1 and no one else yet */
	ASSERT_ACL_OK(aclrtPointerGetAttributes(va + n + 5, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attr.location.type);
	EXPECT_EQ(1U, attr.location.id);
	EXPECT_EQ((uint32_t)(2 * MiB), attr.pageSize);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(va + 5, &attr));
	EXPECT_EQ(0U, attr.location.id);
	ASSERT_ACL_OK(aclrtMemGetAddressRange(va + n + 12345, &base, &size));
	EXPECT_EQ((void *)(va + n), base);
	EXPECT_EQ(n, size);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va + 2 * n, &base, &size));
	ASSERT_ACL_OK(aclrtMemRetainAllocationHandle(va + n, &got));
	EXPECT_EQ(h1, got);
	ASSERT_ACL_OK(aclrtFreePhysical(got));
	ASSERT_ACL_OK(aclrtMemGetAccess(va + n, &loc1, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);
	ASSERT_ACL_OK(aclrtMemGetAccess(va + n, &loc0, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, flag);

	/* written by the host (a copy is one device's mapping at a time), in part by device 1 */
	fill_pattern(model, 2 * n, 41);
	ASSERT_ACL_OK(aclrtMemcpy(va, n, model, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(va + n, n, model + n, n, ACL_MEMCPY_HOST_TO_DEVICE));
	npu_expect_dma_faults(true);
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtMemcpy(buf, 8192, va + n - 4096, 8192, ACL_MEMCPY_DEVICE_TO_HOST));
	npu_expect_dma_faults(false);
	/*
	 * a batch copies to and from the current device's memory: its copy into
	 * device 1's mapping is refused, though the one before it is device 0's
	 * next door (no class taken over from it)
	 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch(bdst, bsize, bsrc, bsize, 2, &battr, &bidx, 1,
								 &bfail));
	EXPECT_EQ(1U, bfail);
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtMemcpy(va + n + 3 * MiB - 7, 9000, model + 100, 9000, ACL_MEMCPY_HOST_TO_DEVICE));
	memcpy(model + n + 3 * MiB - 7, model + 100, 9000);
	memset(buf, 0, 3 * n);
	ASSERT_ACL_OK(aclrtMemcpy(buf, n - 4096, va + n + 4096, n - 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, model + n + 4096, n - 4096));
	ASSERT_ACL_OK(aclrtSetDevice(0));

	/* device 0's engine: a fault until granted and enabled, then a peer copy */
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtMemcpyAsync(va + n, 4096, va, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	/* one device's mappings per call: running on into device 1's is not entirely mapped */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 2 * n, &grant0, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va + n, 2 * n, &grant0, 1));
	ASSERT_ACL_OK(aclrtMemSetAccess(va + n, n, &grant0, 1));
	ASSERT_ACL_OK(aclrtMemGetAccess(va + n + 4096, &loc0, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);
	ASSERT_ACL_OK(aclrtMemcpyAsync(va + n + 2 * MiB - 300, 5000, va + 777, 5000,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	memcpy(model + n + 2 * MiB - 300, model + 777, 5000);
	ASSERT_ACL_OK(aclrtMemcpyAsync(va + 3 * MiB + 11, 6000, va + n + MiB - 3, 6000,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	memcpy(model + 3 * MiB + 11, model + n + MiB - 3, 6000);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	/* a memset with device 0 current: device 1 sets its memory */
	ASSERT_ACL_OK(aclrtMemset(va + n + 5000, 300, 0xab, 300));
	memset(model + n + 5000, 0xab, 300);
	memset(buf, 0, 3 * n);
	ASSERT_ACL_OK(aclrtMemcpy(buf + 1, n - 1, va + 1, n - 1, ACL_MEMCPY_DEVICE_TO_HOST));
	ASSERT_ACL_OK(aclrtMemcpy(buf + n, n, va + n, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf + 1, model + 1, 2 * n - 1));
	/* a third device sees device 1's memory there, not device 0's hole */
	if (have_npu(2)) {
		ASSERT_ACL_OK(aclrtSetDevice(2));
		ASSERT_ACL_OK(aclrtMemset(va + n + 9000, 100, 0x3c, 100));
		memset(model + n + 9000, 0x3c, 100);
		memset(buf, 0, n);
		ASSERT_ACL_OK(aclrtMemcpy(buf, 20000, va + n + 8000, 20000, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(0, memcmp(buf, model + n + 8000, 20000));
		ASSERT_ACL_OK(aclrtSetDevice(0));
	}

	/* the reservation stays while device 1's mapping is in it; unmapped with device 0 current */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(va + n + 4096));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtUnmapMem(va + n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(va + n));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va + n, &base, &size));
	/* the place is free again, for either device's handle; unmapped with either current */
	ASSERT_ACL_OK(aclrtMapMem(va + n, n, 0, h1b, 0));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtUnmapMem(va + n));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMapMem(va + n, n, 0, h1, 0));

	/* device 0 reset: its reservation goes, and device 1's mapping in it */
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtResetDeviceForce(0));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va + n, &base, &size));
	ASSERT_ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h1, &p0));
	ASSERT_ACL_OK(aclrtFreePhysical(h1));
	ASSERT_ACL_OK(aclrtFreePhysical(h1b));
	free(model);
	free(buf);
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
	ASSERT_ACL_OK(aclrtMemMapNoAccess(va, n, 0, h1, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, n, 0, h2, 0));	/* overlaps */
	ASSERT_ACL_OK(aclrtMapMem(va + n, n, 0, h2, 0));
	/* aclrtMemMapNoAccess: no access until granted; aclrtMapMem: read-write at once */
	ASSERT_ACL_OK(aclrtMemGetAccess(va, &loc, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, flag);
	ASSERT_ACL_OK(aclrtMemGetAccess(va + n, &loc, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);
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

/*
 * CANN (hicann/driver devmm_mem_address_reserve_para_check()): alignment
 * is a reserved parameter that must be 0; expectPtr is the address to
 * reserve, aligned as the size asks, and a taken one fails.
 */
TEST(reserve_alignment_and_expect)
{
	void *va, *va2, *at;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&va, 4 * MiB, 64 * MiB, NULL, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 4 * MiB, 0, NULL, 0));
	EXPECT_EQ(0U, (uintptr_t)va % (2 * MiB));
	/* reserved in the process too */
	EXPECT_EQ(MAP_FAILED, mmap(va, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0));
	at = (char *)va + 2 * MiB;
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	/* a free expectPtr is taken */
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 2 * MiB, 0, at, 0));
	EXPECT_EQ(at, va);
	/* a taken one fails, as the vendor's heap does */
	va2 = NULL;
	EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtReserveMemAddress(&va2, 2 * MiB, 0, at, 0));
	EXPECT_NULL(va2);
	/* a misaligned one is the driver's invalid value */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&va2, 2 * MiB, 0, (char *)at - 4096, 1));
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
	/* the host: id 0 only, as the vendor's driver (tests/lib_vmm_host_test.c) */
	desc[1].location.type = ACL_MEM_LOCATION_TYPE_HOST;
	desc[1].location.id = 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, 2 * MiB, desc, 2));
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
	/* the host was granted nothing */
	loc.type = ACL_MEM_LOCATION_TYPE_HOST;
	flag = 0xdead;
	ASSERT_ACL_OK(aclrtMemGetAccess(va, &loc, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, flag);
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
	/* above 512 MiB a reservation is 1 GiB aligned (alignment itself must be 0) */
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, GiB, 0, NULL, 0));
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

/* Write @len pattern bytes (@seed) at @off of @va and of @model. */
static aclError dev_write(char *va, char *model, size_t off, size_t len, unsigned int seed)
{
	fill_pattern(model + off, len, seed);
	return aclrtMemcpy(va + off, len, model + off, len, ACL_MEMCPY_HOST_TO_DEVICE);
}

/*
 * CANN: aclrtMapMem leaves the handle's device able to read and write the
 * mapping at once (torch_npu's expandable segments never call
 * aclrtMemSetAccess).
 */
TEST(map_mem_owner_reads_and_writes)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };
	size_t n = 4 * MiB;
	char *va, *model = calloc(1, 2 * n);
	aclrtDrvMemHandle h1, h2;
	uint64_t flag = 99;

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 2 * n, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h1, n, &p, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h2, n, &p, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, n, 0, h1, 0));
	ASSERT_ACL_OK(aclrtMapMem(va + n, n, 0, h2, 0));
	ASSERT_ACL_OK(aclrtMemGetAccess(va + n - 1, &loc, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);

	/* no aclrtMemSetAccess: whole, across both mappings, odd pieces */
	ASSERT_ACL_OK(dev_write(va, model, 0, 2 * n, 3));
	ASSERT_ACL_OK(dev_write(va, model, n - 1000, 3000, 5));
	ASSERT_ACL_OK(dev_write(va, model, 12345, 1, 7));
	ASSERT_ACL_OK(aclrtMemset(va + n + 4097, 100, 0x5a, 100));
	memset(model + n + 4097, 0x5a, 100);
	EXPECT_TRUE(dev_range_matches(va, model, 0, 2 * n));
	EXPECT_TRUE(dev_range_matches(va, model, 777, 5 * MiB));
	EXPECT_TRUE(dev_range_matches(va, model, n - 1, 2));
	EXPECT_TRUE(dev_range_matches(va, model, n + 4000, 300));

	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtUnmapMem(va + n));
	ASSERT_ACL_OK(aclrtFreePhysical(h1));
	ASSERT_ACL_OK(aclrtFreePhysical(h2));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	free(model);
}

/* aclrtMemMapNoAccess: mapped, but not even its own device reaches it before aclrtMemSetAccess. */
TEST(map_no_access_until_set_access)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtMemAccessDesc desc = rw_desc();
	size_t n = 2 * MiB;
	char *va, *model = calloc(1, n), *back = malloc(n);
	aclrtDrvMemHandle h;
	uint64_t flag = 99;

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(back);
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 2 * n, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, n, &p, 0));
	/* the acl layer's checks (no last error), then the driver's offset check (vendor: 107000) */
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapNoAccess(NULL, n, 0, h, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapNoAccess(va, n, 0, NULL, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapNoAccess(va, 0, 0, h, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapNoAccess(va, n, 0, h, 1));
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapNoAccess(va, n, 4096, h, 0));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, n, 2 * MiB, h, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapNoAccess(va, 2 * n, 0, h, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapNoAccess(va + 4096, n, 0, h, 0));

	ASSERT_ACL_OK(aclrtMemMapNoAccess(va, n, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemGetAccess(va, &loc, &flag));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, flag);
	fill_pattern(model, n, 11);
	npu_expect_dma_faults(true);
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtMemcpy(va, n, model, n, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtMemcpy(back, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST));
	npu_expect_dma_faults(false);

	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	ASSERT_ACL_OK(aclrtMemcpy(va, n, model, n, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_TRUE(dev_range_matches(va, model, 0, n));
	EXPECT_TRUE(dev_range_matches(va, model, 4095, 8193));
	/* unmapped and mapped again: aclrtMapMem's mapping needs no grant */
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtMapMem(va + n, n, 0, h, 0));
	EXPECT_TRUE(dev_range_matches(va + n, model, 0, n));
	ASSERT_ACL_OK(aclrtUnmapMem(va + n));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	free(model);
	free(back);
}

/* Is [@p, +@len) free in the process (no reservation there)? */
static bool proc_range_free(void *p, size_t len)
{
	void *q = mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (q == MAP_FAILED)
		return false;
	munmap(q, len);
	return q == p;
}

/*
 * CANN (hicann/runtime aclrtReserveMemAddressImpl, hicann/driver
 * halMemAddressReserve): flags 0 or 1; any non-zero size, a whole number
 * of 2 MiB chunks up to 512 MiB, of 1 GiB chunks (1 GiB aligned) above.
 */
TEST(reserve_any_size_flags_0_1)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	aclrtDrvMemHandle h1, h2;
	char *va, buf[600], back[600];

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocPhysical(&h1, 2 * MiB, &p, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h2, 2 * MiB, &p, 0));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress((void **)&va, 2 * MiB, 0, NULL, 2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress((void **)&va, 0, 0, NULL, 1));
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress((void **)&va, 2 * MiB, 2 * MiB, NULL, 1));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 2 * MiB, 0, NULL, 1));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));

	/* 512 bytes: 2 MiB, where a 2 MiB handle maps */
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 512, 0, NULL, 1));
	EXPECT_EQ(0U, (uintptr_t)va % (2 * MiB));
	EXPECT_FALSE(proc_range_free(va + 2 * MiB - 4096, 4096));
	ASSERT_ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h1, 0));
	fill_pattern(buf, sizeof(buf), 13);
	ASSERT_ACL_OK(aclrtMemcpy(va + 2 * MiB - sizeof(buf), sizeof(buf), buf, sizeof(buf),
				  ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), va + 2 * MiB - sizeof(buf), sizeof(back),
				  ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, back, sizeof(buf)));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	EXPECT_TRUE(proc_range_free(va, 2 * MiB));

	/* 3 MiB: 4 MiB, two 2 MiB handles; the release frees all of it */
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 3 * MiB, 0, NULL, 0));
	EXPECT_EQ(0U, (uintptr_t)va % (2 * MiB));
	ASSERT_ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h1, 0));
	ASSERT_ACL_OK(aclrtMapMem(va + 2 * MiB, 2 * MiB, 0, h2, 0));
	ASSERT_ACL_OK(aclrtMemcpy(va + 2 * MiB - 300, sizeof(buf), buf, sizeof(buf), ACL_MEMCPY_HOST_TO_DEVICE));
	memset(back, 0, sizeof(back));
	ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), va + 2 * MiB - 300, sizeof(back),
				  ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, back, sizeof(buf)));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtUnmapMem(va + 2 * MiB));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	EXPECT_TRUE(proc_range_free(va, 4 * MiB));

	/* above 512 MiB: whole GiBs, 1 GiB aligned */
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 512 * MiB + 1, 0, NULL, 1));
	EXPECT_EQ(0U, (uintptr_t)va % GiB);
	ASSERT_ACL_OK(aclrtMapMem(va + GiB - 2 * MiB, 2 * MiB, 0, h1, 0));
	ASSERT_ACL_OK(aclrtUnmapMem(va + GiB - 2 * MiB));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	EXPECT_TRUE(proc_range_free(va, GiB));
	/* 512 MiB itself stays with the 2 MiB chunks */
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 512 * MiB, 0, NULL, 0));
	EXPECT_EQ(0U, (uintptr_t)va % (2 * MiB));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));

	ASSERT_ACL_OK(aclrtFreePhysical(h1));
	ASSERT_ACL_OK(aclrtFreePhysical(h2));
}

/*
 * torch_npu's expandable segments (NPUCachingAllocator.cpp ExpandableSegment,
 * NPUAllocatorConfig.cpp): a 512-byte reservation with flag 1 as a probe,
 * then segment_size * max_handles with flag 1, handles mapped one by one
 * with aclrtMapMem and used without aclrtMemSetAccess, grown, and shrunk
 * (unmap, then free) with the rest intact.
 */
TEST(torch_npu_expandable_segment)
{
	enum { SEGS = 6 };
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	size_t seg = 4 * MiB, i;
	char *va, *probe, *model = calloc(SEGS, seg);
	aclrtDrvMemHandle h[SEGS];

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&probe, 512, 0, NULL, 1));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(probe));
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, seg * SEGS, 0, NULL, 1));

	/* grow to 3 segments, each written as it comes */
	for (i = 0; i < 3; i++) {
		ASSERT_ACL_OK(aclrtMallocPhysical(&h[i], seg, &p, 0));
		ASSERT_ACL_OK(aclrtMapMem(va + i * seg, seg, 0, h[i], 0));
		ASSERT_ACL_OK(dev_write(va, model, i * seg, seg, 20 + (unsigned int)i));
	}
	/* grow: one more, and a block across the segment boundaries */
	ASSERT_ACL_OK(aclrtMallocPhysical(&h[3], seg, &p, 0));
	ASSERT_ACL_OK(aclrtMapMem(va + 3 * seg, seg, 0, h[3], 0));
	ASSERT_ACL_OK(dev_write(va, model, 2 * seg + 100, seg + 5000, 40));
	EXPECT_TRUE(dev_range_matches(va, model, 0, 4 * seg));

	/* shrink: the last segment goes (unmap, then free) */
	ASSERT_ACL_OK(aclrtUnmapMem(va + 3 * seg));
	ASSERT_ACL_OK(aclrtFreePhysical(h[3]));
	EXPECT_TRUE(dev_range_matches(va, model, 0, 3 * seg));
	EXPECT_TRUE(dev_range_matches(va, model, seg - 10, seg + 20));

	/* grow again into the freed slot: a fresh handle, writable at once */
	ASSERT_ACL_OK(aclrtMallocPhysical(&h[3], seg, &p, 0));
	ASSERT_ACL_OK(aclrtMapMem(va + 3 * seg, seg, 0, h[3], 0));
	ASSERT_ACL_OK(dev_write(va, model, 3 * seg, seg, 50));
	EXPECT_TRUE(dev_range_matches(va, model, 0, 4 * seg));

	for (i = 4; i-- > 0;) {
		ASSERT_ACL_OK(aclrtUnmapMem(va + i * seg));
		ASSERT_ACL_OK(aclrtFreePhysical(h[i]));
	}
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	free(model);
}

TEST_HARNESS_MAIN
