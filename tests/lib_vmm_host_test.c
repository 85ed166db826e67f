// SPDX-License-Identifier: MIT
/*
 * libacl on a device: CPU access to VMM mappings (aclrtMemSetAccess with
 * ACL_MEM_LOCATION_TYPE_HOST): the CPU reads and writes a mapping at its
 * own address through the device's aperture, with the protection granted,
 * until the access goes, the mapping is unmapped or the device reset.
 * Skips without /dev/npu0.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib_util.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static uint64_t host_access(void *va)
{
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_HOST };
	uint64_t flag = 0xdead;

	if (aclrtMemGetAccess(va, &loc, &flag) != ACL_SUCCESS)
		return 0xbad;
	return flag;
}

/* Reserve @n * @seg bytes and map @n handles of @seg bytes (@attr) there. */
static aclError map_segs(aclrtMemAttr attr, size_t seg, int n, char **va, aclrtDrvMemHandle *h)
{
	aclrtPhysicalMemProp p = prop_for(attr);
	aclError r;
	int i;

	r = aclrtReserveMemAddress((void **)va, n * seg, 0, NULL, 0);
	for (i = 0; !r && i < n; i++) {
		r = aclrtMallocPhysical(&h[i], seg, &p, 0);
		if (!r)
			r = aclrtMapMem(*va + i * seg, seg, 0, h[i], 0);
	}
	return r;
}

static void unmap_segs(size_t seg, int n, char *va, aclrtDrvMemHandle *h)
{
	int i;

	for (i = 0; i < n; i++) {
		aclrtUnmapMem(va + i * seg);
		aclrtFreePhysical(h[i]);
	}
	aclrtReleaseMemAddress(va);
}

/* The CPU writes pattern @seed at [@off, +@len) of @va and of @model. */
static void cpu_write(char *va, char *model, size_t off, size_t len, unsigned int seed)
{
	fill_pattern(model + off, len, seed);
	memcpy(va + off, model + off, len);
}

/* How a child doing @fn(@p) ends: its wait status. */
static int child_does(void (*fn)(volatile char *p), volatile char *p)
{
	int st = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		fn(p);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void child_read(volatile char *p)
{
	char c = p[0];

	(void)c;
}

static void child_write(volatile char *p)
{
	p[1] = 0x5a;
}

#define EXPECT_KILLED(sig, st) do {						\
	EXPECT_TRUE(WIFSIGNALED(st));						\
	if (WIFSIGNALED(st))							\
		EXPECT_EQ(sig, WTERMSIG(st));					\
} while (0)

/*
 * Read-write: the CPU writes at the mapping's own addresses and the
 * device sees it at other offsets, across two mappings granted in one
 * call; the device writes and the CPU reads.
 */
TEST(readwrite_2m)
{
	aclrtMemAccessDesc desc = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	size_t seg = 2 * MiB, n = 2 * seg;
	aclrtDrvMemHandle h[2];
	char *va, *model = calloc(1, n), *back = malloc(n);
	int st;

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(back);
	ASSERT_ACL_OK(map_segs(ACL_HBM_MEM_HUGE, seg, 2, &va, h));
	/* what the device holds: zeros, known */
	ASSERT_ACL_OK(aclrtMemset(va, n, 0, n));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, host_access(va));
	/* no host access yet: the reservation's PROT_NONE */
	st = child_does(child_read, va);
	EXPECT_KILLED(SIGSEGV, st);

	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, host_access(va));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, host_access(va + seg + 4096));
	/* the device's own access is unchanged */
	{
		aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };
		uint64_t flag = 0;

		ASSERT_ACL_OK(aclrtMemGetAccess(va, &loc, &flag));
		EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, flag);
	}
	/* a page, odd pieces, and a piece across the two mappings */
	cpu_write(va, model, 0, 4096, 1);
	cpu_write(va, model, 3 * 4096 + 17, 5000, 2);
	cpu_write(va, model, seg - 777, 2 * 4096, 3);
	cpu_write(va, model, n - 4096, 4096, 4);
	/* read back by the device at other offsets than written */
	EXPECT_TRUE(dev_range_matches(va, model, 0, 2 * 4096));
	EXPECT_TRUE(dev_range_matches(va, model, 3 * 4096, 3 * 4096));
	EXPECT_TRUE(dev_range_matches(va, model, seg - 8192, 4 * 4096));
	EXPECT_TRUE(dev_range_matches(va, model, n - 3 * 4096, 3 * 4096));
	EXPECT_TRUE(dev_range_matches(va, model, 0, n));

	/* the device writes, the CPU reads at its own offsets */
	fill_pattern(model + seg + 12345, 70000, 5);
	ASSERT_ACL_OK(aclrtMemcpy(va + seg + 12345, 70000, model + seg + 12345, 70000,
				  ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(0, memcmp(va + seg + 12000, model + seg + 12000, 80000));
	ASSERT_ACL_OK(aclrtMemset(va + 8192, 4096, 0x3c, 4096));
	memset(model + 8192, 0x3c, 4096);
	EXPECT_EQ(0, memcmp(va, model, n));
	/* a child shares the parent's view: its writes reach the device */
	st = child_does(child_write, va + 100000);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	model[100001] = 0x5a;
	EXPECT_TRUE(dev_range_matches(va, model, 98304, 8192));

	/* NONE: the CPU's view goes, the device's memory stays */
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_NONE;
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, host_access(va + seg));
	st = child_does(child_read, va + seg);
	EXPECT_KILLED(SIGSEGV, st);
	EXPECT_TRUE(dev_range_matches(va, model, 0, n));
	unmap_segs(seg, 2, va, h);
	free(model);
	free(back);
}

/*
 * Read-only: the CPU reads, a write is SIGSEGV (the mapping's own
 * protection); a later aclrtMemSetAccess changes it either way.
 */
TEST(read_only)
{
	aclrtMemAccessDesc desc = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READ);
	size_t n = 2 * MiB;
	aclrtDrvMemHandle h;
	char *va, *model = malloc(n);
	int st;

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_ACL_OK(map_segs(ACL_HBM_MEM_NORMAL, n, 1, &va, &h));
	fill_pattern(model, n, 9);
	ASSERT_ACL_OK(aclrtMemcpy(va, n, model, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READ, host_access(va + 4096));
	EXPECT_EQ(0, memcmp(va, model, n));
	st = child_does(child_read, va + 5);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = child_does(child_write, va + 4096);
	EXPECT_KILLED(SIGSEGV, st);
	/* the parent survived, nothing was written */
	EXPECT_TRUE(dev_range_matches(va, model, 0, 8192));

	/* READ -> READWRITE: writable at once, the same bytes */
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, host_access(va));
	cpu_write(va, model, 4096 + 1, 100, 10);
	EXPECT_TRUE(dev_range_matches(va, model, 4096, 4096));
	/* and back: readable, a write faults again */
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	EXPECT_EQ(0, memcmp(va, model, n));
	st = child_does(child_write, va);
	EXPECT_KILLED(SIGSEGV, st);
	EXPECT_TRUE(dev_range_matches(va, model, 0, 4096));
	unmap_segs(n, 1, va, &h);
	free(model);
}

/*
 * aclrtUnmapMem takes the CPU's view with it: a child that had it faults
 * (SIGBUS: the aperture no longer translates there), one forked after
 * finds the reservation's PROT_NONE (SIGSEGV). A new mapping there starts
 * without host access.
 */
TEST(unmap_revokes)
{
	aclrtMemAccessDesc desc = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_HOST };
	size_t n = 2 * MiB;
	aclrtDrvMemHandle h;
	int go[2], st = -1;
	uint64_t flag;
	pid_t pid;
	char *va;

	NEED_DEVICE();
	ASSERT_ACL_OK(map_segs(ACL_HBM_MEM_HUGE, n, 1, &va, &h));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	va[0] = 7;
	ASSERT_EQ(0, pipe(go));
	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char c;

		close(go[1]);
		/* it reaches the memory now */
		if (((volatile char *)va)[0] != 7)
			_exit(3);
		if (read(go[0], &c, 1) != 1)
			_exit(4);
		/* not after the unmap */
		c = ((volatile char *)va)[4096];
		_exit(5);
	}
	close(go[0]);
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	EXPECT_EQ(1, write(go[1], "x", 1));
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_KILLED(SIGBUS, st);
	st = child_does(child_read, va);
	EXPECT_KILLED(SIGSEGV, st);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, &loc, &flag));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, n, &desc, 1));

	/* mapped again: no host access until granted */
	ASSERT_ACL_OK(aclrtMapMem(va, n, 0, h, 0));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, host_access(va));
	st = child_does(child_read, va);
	EXPECT_KILLED(SIGSEGV, st);
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	EXPECT_EQ(7, va[0]);
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	/* the range is the process's again, free */
	EXPECT_EQ((void *)va, mmap(va, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0));
	munmap(va, n);
}

/*
 * The aperture checks each access against the device's own right too: a
 * mapping its device cannot reach (aclrtMemMapNoAccess) is SIGBUS for
 * the CPU whatever the host was granted, a write where the device may
 * only read as well.
 */
TEST(device_right_caps)
{
	aclrtMemAccessDesc desc = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE), dev = rw_desc();
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	size_t n = 2 * MiB;
	aclrtDrvMemHandle h;
	char *va;
	int st;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, n, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, n, &p, 0));
	ASSERT_ACL_OK(aclrtMemMapNoAccess(va, n, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, host_access(va));
	st = child_does(child_read, va);
	EXPECT_KILLED(SIGBUS, st);
	dev.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &dev, 1));
	st = child_does(child_read, va);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = child_does(child_write, va);
	EXPECT_KILLED(SIGBUS, st);
	dev.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &dev, 1));
	va[1] = 0x5a;
	EXPECT_EQ(0x5a, va[1]);
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
}

/*
 * Another device's handle mapped in a reservation of the current one: seen
 * through that device's aperture. Resetting that device takes the view
 * (the reservation's PROT_NONE again); so does resetting the reserving one.
 */
TEST(other_devices_handle)
{
	aclrtMemAccessDesc desc = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);
	char model[8192], back[8192];
	size_t n = 2 * MiB;
	aclrtDrvMemHandle h;
	int round, st;
	char *va;
	void *q;

	if (!have_npu(1))
		SKIP(return, "needs /dev/npu1");
	NEED_DEVICE();
	p.location.id = 1;
	for (round = 0; round < 2; round++) {
		ASSERT_ACL_OK(aclrtSetDevice(1));
		ASSERT_ACL_OK(aclrtSetDevice(0));
		ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, n, 0, NULL, 0));
		ASSERT_ACL_OK(aclrtMallocPhysical(&h, n, &p, 0));
		ASSERT_ACL_OK(aclrtMapMem(va, n, 0, h, 0));
		ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
		EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, host_access(va));
		fill_pattern(model, sizeof(model), 30 + round);
		memcpy(va + 4096 + 3, model, sizeof(model));
		/* device 1 holds the bytes */
		ASSERT_ACL_OK(aclrtSetDevice(1));
		ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), va + 4096 + 3, sizeof(back),
					  ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(0, memcmp(back, model, sizeof(model)));
		ASSERT_ACL_OK(aclrtSetDevice(0));
		if (!round) {
			/* the handle's device goes: the view with it, the reservation stays */
			ASSERT_ACL_OK(aclrtResetDeviceForce(1));
			st = child_does(child_read, va);
			EXPECT_KILLED(SIGSEGV, st);
			EXPECT_ACL_OK(aclrtReleaseMemAddress(va));
			ASSERT_ACL_OK(aclrtResetDeviceForce(0));
		} else {
			/* the reserving device goes: the range is no one's */
			ASSERT_ACL_OK(aclrtResetDeviceForce(0));
			q = mmap(va, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			EXPECT_EQ((void *)va, q);
			if (q != MAP_FAILED)
				munmap(q, n);
			ASSERT_ACL_OK(aclrtSetDevice(1));
			ASSERT_ACL_OK(aclrtFreePhysical(h));
		}
	}
}

/* The vendor's codes for what it refuses, the library's for the rest. */
TEST(bad_input)
{
	aclrtMemAccessDesc desc[2] = { access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE), rw_desc() };
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_HOST };
	size_t n = 2 * MiB;
	aclrtDrvMemHandle h;
	uint64_t flag;
	char *va, *rsv, *plain;
	void *dptr;

	NEED_DEVICE();
	ASSERT_ACL_OK(map_segs(ACL_HBM_MEM_HUGE, n, 1, &va, &h));
	/* the vendor's driver: HOST id must be 0 (DRV_ERROR_INVALID_VALUE) */
	desc[0].location.id = 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, n, desc, 1));
	loc.id = 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAccess(va, &loc, &flag));
	loc.id = 0;
	desc[0] = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	/* unknown location types and flags */
	desc[0].location.type = (aclrtMemLocationType)7;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, n, desc, 1));
	desc[0].location.type = ACL_MEM_LOCATION_TYPE_HOST_NUMA;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, n, desc, 1));
	loc.type = ACL_MEM_LOCATION_TYPE_MANAGED;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, &loc, &flag));
	loc.type = ACL_MEM_LOCATION_TYPE_HOST;
	desc[0] = access_desc(ACL_MEM_LOCATION_TYPE_HOST, (aclrtMemAccessFlags)2);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, n, desc, 1));
	desc[0] = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	desc[0].rsv[0] = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, n, desc, 1));
	desc[0] = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	/* a bad second entry: nothing changed, the first one either */
	desc[1].location.id = 63;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemSetAccess(va, n, desc, 2));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, host_access(va));
	desc[1] = rw_desc();
	/* ranges: whole mappings only */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va + 4096, n - 4096, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, n - 4096, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, n + 4096, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va + 1, n, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 0, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, (size_t)-4096, desc, 1));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, host_access(va));
	/* foreign: a reservation with nothing mapped, aclrtMalloc memory, host memory */
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&rsv, n, 0, NULL, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(rsv, n, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(rsv, &loc, &flag));
	ASSERT_ACL_OK(aclrtMalloc(&dptr, n, ACL_MEM_MALLOC_HUGE_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(dptr, n, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(dptr, &loc, &flag));
	plain = aligned_alloc(n, n);
	ASSERT_NONNULL(plain);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(plain, n, desc, 1));
	free(plain);
	/* the mapping and the reservation beside it: not one mapping after the other */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(va, 2 * n, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(NULL, n, desc, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, &loc, NULL));
	/* all refused: still no host access */
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_NONE, host_access(va));
	/* HOST and a device in one call */
	ASSERT_ACL_OK(aclrtMemSetAccess(va, n, desc, 2));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, host_access(va));
	ASSERT_ACL_OK(aclrtFree(dptr));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(rsv));
	unmap_segs(n, 1, va, &h);
}

/* 1 GiB pages: the CPU's view covers the whole mapping. */
TEST(readwrite_1g)
{
	aclrtMemAccessDesc desc = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	aclrtPhysicalMemProp p = prop_for(ACL_MEM_HUGE1G);
	char model[3 * 4096], back[3 * 4096];
	aclrtDrvMemHandle h;
	size_t f, t;
	char *va;
	aclError r;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
	if (f < GiB)
		SKIP(return, "less than 1 GiB of device memory free");
	r = aclrtMallocPhysical(&h, GiB, &p, 0);
	if (r == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
		SKIP(return, "no 1 GiB pages");
	ASSERT_EQ(ACL_SUCCESS, r);
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, GiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, GiB, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, GiB, &desc, 1));
	EXPECT_EQ((uint64_t)ACL_RT_MEM_ACCESS_FLAGS_READWRITE, host_access(va + GiB - 1));
	/* the last bytes, and pieces in the middle */
	fill_pattern(model, sizeof(model), 21);
	memcpy(va + GiB - 4096 - 100, model, 4096 + 100);
	memcpy(va + GiB / 2 - 5000, model, sizeof(model));
	ASSERT_ACL_OK(aclrtMemcpy(back, 4096, va + GiB - 4096, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back, model + 100, 4096));
	ASSERT_ACL_OK(aclrtMemcpy(back, 8192, va + GiB / 2 - 4096, 8192, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back, model + 5000 - 4096, 8192));
	/* the device writes, the CPU reads */
	ASSERT_ACL_OK(aclrtValueWrite(va + 8, 0x1234567890ULL, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_EQ(0x1234567890ULL, *(volatile uint64_t *)(va + 8));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
}

/* The process's open aperture files. */
static int apertures_open(void)
{
	char path[300], link[256];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	ssize_t len;
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		n += !!strstr(link, "npu_aperture");
	}
	closedir(dir);
	return n;
}

/*
 * aclrtResetDevice and aclFinalize take the CPU's view with the device:
 * the range is no longer mapped at all, as every reservation.
 */
TEST(reset_and_finalize)
{
	aclrtMemAccessDesc desc = access_desc(ACL_MEM_LOCATION_TYPE_HOST, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	size_t n = 2 * MiB;
	aclrtDrvMemHandle h;
	int round;
	char *va;
	void *p;

	NEED_DEVICE();
	for (round = 0; round < 2; round++) {
		if (round)
			ASSERT_ACL_OK(aclrtSetDevice(0));
		ASSERT_ACL_OK(map_segs(ACL_HBM_MEM_HUGE, n, 1, &va, &h));
		EXPECT_EQ(0, apertures_open());
		ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
		/* one file per device's context, however many grants */
		ASSERT_ACL_OK(aclrtMemSetAccess(va, n, &desc, 1));
		EXPECT_EQ(1, apertures_open());
		va[5] = 1;
		if (!round)
			ASSERT_ACL_OK(aclrtResetDevice(0));
		else
			ASSERT_ACL_OK(aclFinalize());
		p = mmap(va, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		EXPECT_EQ((void *)va, p);
		if (p != MAP_FAILED)
			munmap(p, n);
		EXPECT_EQ(0, apertures_open());
	}
}

TEST_HARNESS_MAIN
