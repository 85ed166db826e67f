// SPDX-License-Identifier: MIT
/*
 * libacl: peer access between two devices and copies between them:
 * aclrtMalloc memory is reached by a peer once it enabled access (CANN's
 * semantics, no aclrtMemSetAccess), VMM mappings where they grant it.
 * Skips without /dev/npu0 and /dev/npu1.
 */
#include "lib_util.h"

#define SZ	(2 * MiB)

#define NEED_TWO() do {								\
	if (!have_npu(0) || !have_npu(1))					\
		SKIP(return, "needs /dev/npu0 and /dev/npu1");			\
	ASSERT_ACL_OK(aclInit(NULL));						\
	ASSERT_ACL_OK(aclrtSetDevice(1));					\
	ASSERT_ACL_OK(aclrtSetDevice(0));					\
} while (0)

static aclrtMemAccessDesc desc_for(int dev, aclrtMemAccessFlags f)
{
	aclrtMemAccessDesc d;

	memset(&d, 0, sizeof(d));
	d.flags = f;
	d.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	d.location.id = (uint32_t)dev;
	return d;
}

struct buf {
	int dev;
	aclrtDrvMemHandle h;
	char *va;
};

/*
 * SZ bytes on @dev (made current meanwhile; device 0 is current after),
 * read-write for @dev, @peer_flags for the other device, filled with @seed.
 */
static int dev_buf(struct buf *b, int dev, aclrtMemAccessFlags peer_flags, unsigned int seed)
{
	aclrtPhysicalMemProp p = {
		.handleType = ACL_MEM_HANDLE_TYPE_NONE,
		.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
		.memAttr = ACL_HBM_MEM_HUGE,
		.location = { .id = (uint32_t)dev, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	};
	aclrtMemAccessDesc d[2] = {
		desc_for(dev, ACL_RT_MEM_ACCESS_FLAGS_READWRITE),
		desc_for(!dev, peer_flags),
	};
	char *host = malloc(SZ);
	int ret = -1;

	b->dev = dev;
	if (!host || aclrtSetDevice(dev) ||
	    aclrtMallocPhysical(&b->h, SZ, &p, 0) ||
	    aclrtReserveMemAddress((void **)&b->va, SZ, 0, NULL, 0) ||
	    aclrtMapMem(b->va, SZ, 0, b->h, 0) ||
	    aclrtMemSetAccess(b->va, SZ, d, 2))
		goto out;
	fill_pattern(host, SZ, seed);
	if (aclrtMemcpy(b->va, SZ, host, SZ, ACL_MEMCPY_HOST_TO_DEVICE))
		goto out;
	ret = 0;
out:
	if (ret)
		TH_LOG("dev_buf(%d): %s", dev, aclGetRecentErrMsg());
	free(host);
	aclrtSetDevice(0);
	return ret;
}

static void buf_free(struct buf *b)
{
	aclrtSetDevice(b->dev);
	aclrtUnmapMem(b->va);
	aclrtFreePhysical(b->h);
	aclrtReleaseMemAddress(b->va);
	aclrtSetDevice(0);
}

static int buf_fill(struct buf *b, unsigned int seed)
{
	char *host = malloc(SZ);
	int ret;

	fill_pattern(host, SZ, seed);
	ret = aclrtMemcpy(b->va, SZ, host, SZ, ACL_MEMCPY_HOST_TO_DEVICE);
	if (ret)
		TH_LOG("buf_fill: %s", aclGetRecentErrMsg());
	free(host);
	return ret;
}

/* Index of the first byte of @b not matching @seed, -1 if none, -2 on a copy failure. */
static long long buf_check(struct buf *b, unsigned int seed)
{
	char *host = malloc(SZ);
	long long r = -2;

	/* device memory of any device: the owner copies it out */
	if (host && !aclrtMemcpy(host, SZ, b->va, SZ, ACL_MEMCPY_DEVICE_TO_HOST))
		r = check_pattern(host, SZ, seed);
	else
		TH_LOG("buf_check: %s", aclGetRecentErrMsg());
	free(host);
	return r;
}

TEST(can_access_peer)
{
	int32_t can = -1;

	if (!have_npu(0) || !have_npu(1))
		SKIP(return, "needs /dev/npu0 and /dev/npu1");
	ASSERT_ACL_OK(aclInit(NULL));
	/* no device needs to be set */
	ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
	EXPECT_EQ(1, can);
	can = -1;
	ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 1, 0));
	EXPECT_EQ(1, can);
	can = -1;
	/* CANN: the two must differ */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(&can, 0, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(NULL, 0, 1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, -1, 1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, 0, 64));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, 0, 63));
	EXPECT_EQ(-1, can);
}

TEST(enable_peer_access)
{
	const char *msg;

	if (!have_npu(0) || !have_npu(1))
		SKIP(return, "needs /dev/npu0 and /dev/npu1");
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	/* CANN: flags are reserved; anything else is a feature it lacks */
	EXPECT_ACL(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtDeviceEnablePeerAccess(1, 1));
	EXPECT_ACL(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtDeviceEnablePeerAccess(1, 0x80000000u));
	EXPECT_ACL(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtDeviceEnablePeerAccess(64, 1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(63, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(64, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(-1, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceEnablePeerAccess(0, 0));
	/* the peer need not be set */
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	/* CANN counts a process's enables (devdrv_ctrl.c: proc_ref++): again is no error */
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	msg = aclGetRecentErrMsg();
	EXPECT_NULL(msg);
	/* per direction */
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
	/* a reset forgets it */
	ASSERT_ACL_OK(aclrtResetDeviceForce(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
}

TEST(peer_access_rights)
{
	aclrtMemLocation loc1 = { 1, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtMemLocation loc63 = { 63, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtMemAccessDesc d;
	uint64_t flag = 99;
	struct buf b;
	void *host, *dptr;

	NEED_TWO();
	ASSERT_EQ(0, dev_buf(&b, 0, ACL_RT_MEM_ACCESS_FLAGS_NONE, 1));
	ASSERT_ACL_OK(aclrtMemGetAccess(b.va, &loc1, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_NONE, flag);
	d = desc_for(1, ACL_RT_MEM_ACCESS_FLAGS_READ);
	ASSERT_ACL_OK(aclrtMemSetAccess(b.va, SZ, &d, 1));
	ASSERT_ACL_OK(aclrtMemGetAccess(b.va, &loc1, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_READ, flag);
	d = desc_for(1, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	ASSERT_ACL_OK(aclrtMemSetAccess(b.va, SZ, &d, 1));
	ASSERT_ACL_OK(aclrtMemGetAccess(b.va, &loc1, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemGetAccess(b.va, &loc63, &flag));
	d = desc_for(63, ACL_RT_MEM_ACCESS_FLAGS_READ);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemSetAccess(b.va, SZ, &d, 1));
	/* the device's own rights are untouched */
	loc1.id = 0;
	ASSERT_ACL_OK(aclrtMemGetAccess(b.va, &loc1, &flag));
	EXPECT_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);
	/* host memory mapped for device 0 is for device 0 only */
	ASSERT_ACL_OK(aclrtMallocHost(&host, SZ));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(host, &dptr, 0));
	d = desc_for(1, ACL_RT_MEM_ACCESS_FLAGS_READ);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(dptr, SZ, &d, 1));
	ASSERT_ACL_OK(aclrtFreeHost(host));
	buf_free(&b);
}

TEST(copy_between_devices)
{
	struct buf a, b;
	aclrtStream s;

	NEED_TWO();
	ASSERT_EQ(0, dev_buf(&a, 0, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 1));
	ASSERT_EQ(0, dev_buf(&b, 1, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 2));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));

	/* dev0 -> dev1 and dev1 -> dev0, run by device 0 */
	ASSERT_ACL_OK(aclrtMemcpy(b.va, SZ, a.va, SZ, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
	EXPECT_EQ(-1, buf_check(&b, 1));
	ASSERT_EQ(0, buf_fill(&b, 4));
	ASSERT_ACL_OK(aclrtMemcpy(a.va, SZ, b.va, SZ, ACL_MEMCPY_DEFAULT));
	EXPECT_EQ(-1, buf_check(&a, 4));
	/* a part, at offsets */
	ASSERT_EQ(0, buf_fill(&a, 7));
	ASSERT_ACL_OK(aclrtMemcpy(a.va + 4096, SZ - 4096, b.va + 8192, 100000, ACL_MEMCPY_DEVICE_TO_DEVICE));
	{
		char *h = malloc(SZ), *want = malloc(SZ);

		ASSERT_ACL_OK(aclrtMemcpy(h, SZ, a.va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
		fill_pattern(want, SZ, 7);
		EXPECT_EQ(0, memcmp(h, want, 4096));
		EXPECT_EQ(0, memcmp(h + 4096 + 100000, want + 4096 + 100000, SZ - 4096 - 100000));
		fill_pattern(want, SZ, 4);
		EXPECT_EQ(0, memcmp(h + 4096, want + 8192, 100000));
		free(h);
		free(want);
	}

	/* the kind must agree */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(b.va, SZ, a.va, SZ, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(a.va, SZ, a.va + 4096, 4096, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(b.va, SZ, a.va, SZ, ACL_MEMCPY_HOST_TO_DEVICE));

	/* async, on a stream of device 0 */
	buf_free(&a);
	buf_free(&b);
	ASSERT_EQ(0, dev_buf(&a, 0, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 5));
	ASSERT_EQ(0, dev_buf(&b, 1, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 6));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(b.va, SZ, a.va, SZ / 2, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(a.va + SZ / 2, SZ / 2, b.va + SZ / 2, SZ / 2, ACL_MEMCPY_DEFAULT, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	{
		char *h = malloc(SZ), *want = malloc(SZ);

		ASSERT_ACL_OK(aclrtMemcpy(h, SZ, b.va, SZ / 2, ACL_MEMCPY_DEVICE_TO_HOST));
		fill_pattern(want, SZ, 5);
		EXPECT_EQ(0, memcmp(h, want, SZ / 2));
		ASSERT_ACL_OK(aclrtMemcpy(h, SZ, a.va + SZ / 2, SZ / 2, ACL_MEMCPY_DEVICE_TO_HOST));
		fill_pattern(want, SZ, 6);
		EXPECT_EQ(0, memcmp(h, want + SZ / 2, SZ / 2));
		free(h);
		free(want);
	}
	ASSERT_ACL_OK(aclrtDestroyStream(s));

	/* device 1 current, only device 0 has peer access: device 0 runs it */
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtMemcpy(b.va, SZ, a.va, SZ, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemset(a.va, SZ, 0x5a, SZ));	/* device 0 memory, device 1 current */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	{
		char *h = malloc(SZ);

		ASSERT_ACL_OK(aclrtMemcpy(h, SZ, a.va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(-1, check_byte(h, SZ, 0x5a));
		free(h);
	}
	buf_free(&a);
	buf_free(&b);
}

TEST(copy_needs_peer_access_enabled)
{
	const char *msg;
	struct buf a, b;

	NEED_TWO();
	ASSERT_EQ(0, dev_buf(&a, 0, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 1));
	ASSERT_EQ(0, dev_buf(&b, 1, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(b.va, SZ, a.va, SZ, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "aclrtDeviceEnablePeerAccess"));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(a.va, SZ, b.va, SZ, ACL_MEMCPY_DEFAULT));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpyAsync(a.va, SZ, b.va, SZ, ACL_MEMCPY_DEFAULT, NULL));
	EXPECT_EQ(-1, buf_check(&a, 1));
	EXPECT_EQ(-1, buf_check(&b, 2));
	/* device 1 enabling device 0 serves copies with device 0 current */
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMemcpy(b.va, SZ, a.va, SZ, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
	EXPECT_EQ(-1, buf_check(&b, 1));
	/* but not async copies on device 0's streams */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpyAsync(a.va, SZ, b.va, SZ, ACL_MEMCPY_DEFAULT, NULL));
	buf_free(&a);
	buf_free(&b);
}

/*
 * Enables are counted (CANN's driver takes a reference per enable, torch_npu
 * enables a pair that an import enabled already): each disable drops one,
 * the last withdraws the access.
 */
TEST(enable_counts_references)
{
	struct buf b;
	char *host = malloc(SZ);
	int32_t st = -1;
	void *d0;

	NEED_TWO();
	ASSERT_NONNULL(host);
	ASSERT_EQ(0, dev_buf(&b, 1, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 5));
	ASSERT_ACL_OK(aclrtMalloc(&d0, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(1, st);
	/* one reference left: device 0's engine still reaches device 1 */
	ASSERT_ACL_OK(aclrtMemcpy(d0, SZ, b.va, SZ, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(host, SZ, d0, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(host, SZ, 5));
	ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(0, st);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(d0, SZ, b.va, SZ, ACL_MEMCPY_DEVICE_TO_DEVICE, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(1));
	ASSERT_ACL_OK(aclrtFree(d0));
	buf_free(&b);
	free(host);
}

TEST(disable_peer_access)
{
	int32_t st = -1;
	const char *msg;

	if (!have_npu(0) || !have_npu(1))
		SKIP(return, "needs /dev/npu0 and /dev/npu1");
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceDisablePeerAccess(1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(63));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(64));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(-1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(0));
	/* not enabled: refused */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(1));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "no peer access to device 1 enabled"));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(0, st);
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(1, st);
	ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(0, st);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(1));
	/* enabled again after a disable */
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
}

/* Who may access whom, as this process enabled it; no device needed. */
TEST(peer_access_status)
{
	int32_t st = -1;

	if (!have_npu(0) || !have_npu(1))
		SKIP(return, "needs /dev/npu0 and /dev/npu1");
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(0, st);
	st = -1;
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(1, 0, &st));
	EXPECT_EQ(0, st);
	st = -1;
	/* a device has no peer access to itself */
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 0, &st));
	EXPECT_EQ(0, st);
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	/* one direction */
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(1, 0, &st));
	EXPECT_EQ(1, st);
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(0, st);
	/* a reset forgets it */
	ASSERT_ACL_OK(aclrtResetDeviceForce(1));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(1, 0, &st));
	EXPECT_EQ(0, st);

	st = -1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDevicePeerAccessStatus(0, 1, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDevicePeerAccessStatus(64, 1, &st));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDevicePeerAccessStatus(0, 64, &st));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDevicePeerAccessStatus(-1, 1, &st));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDevicePeerAccessStatus(0, INT32_MIN, &st));
	/* in range, but no such device */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDevicePeerAccessStatus(63, 1, &st));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDevicePeerAccessStatus(0, 63, &st));
	EXPECT_EQ(-1, st);
}

/*
 * CANN's peer semantics: after aclrtDeviceEnablePeerAccess the current
 * device reads and writes the peer's aclrtMalloc memory with no
 * aclrtMemSetAccess; after aclrtDeviceDisablePeerAccess the copy fails
 * again as it did before the enable.
 */
TEST(malloc_memory_needs_no_grant)
{
	char *h = malloc(SZ), *want = malloc(SZ);
	void *a, *b;
	aclrtStream s;
	const char *msg;

	NEED_TWO();
	ASSERT_NONNULL(h);
	ASSERT_NONNULL(want);
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtMalloc(&b, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc(&a, SZ, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(want, SZ, 9);
	ASSERT_ACL_OK(aclrtMemcpy(a, SZ, want, SZ, ACL_MEMCPY_HOST_TO_DEVICE));

	/* before: refused by the library */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(b, SZ, a, SZ, ACL_MEMCPY_DEVICE_TO_DEVICE));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "aclrtDeviceEnablePeerAccess"));

	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	/* device 0's engine writes device 1's memory, then reads it back */
	ASSERT_ACL_OK(aclrtMemcpy(b, SZ, a, SZ, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemset(a, SZ, 0, SZ));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(a, SZ, b, SZ, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(h, SZ, a, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(h, want, SZ));
	memset(h, 0, SZ);
	ASSERT_ACL_OK(aclrtMemcpy(h, SZ, b, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(h, want, SZ));

	/* after: as before the enable, for synchronous and async copies */
	ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(b, SZ, a, SZ, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpyAsync(a, SZ, b, SZ, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtFree(b));
	free(h);
	free(want);
}

/*
 * VMM mappings (aclrtMapMem) keep the explicit rule: a peer reaches them
 * only where aclrtMemSetAccess granted its device (the spec: SetAccess
 * concerns VMM mappings only).
 */
TEST(copy_needs_the_peer_granted)
{
	struct buf a, b, r;
	const char *msg;
	aclrtStream s;

	NEED_TWO();
	ASSERT_EQ(0, dev_buf(&a, 0, ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 1));
	ASSERT_EQ(0, dev_buf(&b, 1, ACL_RT_MEM_ACCESS_FLAGS_NONE, 2));
	ASSERT_EQ(0, dev_buf(&r, 1, ACL_RT_MEM_ACCESS_FLAGS_READ, 3));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));

	npu_expect_dma_faults(true);
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, aclrtMemcpy(b.va, SZ, a.va, SZ, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "aclrtMemSetAccess"));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtMemcpy(a.va, SZ, b.va, SZ, ACL_MEMCPY_DEFAULT));
	/* read-only for device 0: reading works, writing faults */
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtMemcpy(r.va, SZ, a.va, SZ, ACL_MEMCPY_DEFAULT));
	ASSERT_ACL_OK(aclrtMemcpyAsync(b.va, SZ, a.va, SZ, ACL_MEMCPY_DEFAULT, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);

	ASSERT_ACL_OK(aclrtMemcpy(a.va, SZ, r.va, SZ, ACL_MEMCPY_DEFAULT));
	EXPECT_EQ(-1, buf_check(&a, 3));
	EXPECT_EQ(-1, buf_check(&b, 2));
	EXPECT_EQ(-1, buf_check(&r, 3));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	buf_free(&a);
	buf_free(&b);
	buf_free(&r);
}

TEST_HARNESS_MAIN
