// SPDX-License-Identifier: MIT
/*
 * libacl: process snapshots (aclrtSnapShotProcessLock, Unlock, Backup,
 * Restore, aclrtSnapShotCallbackRegister, Unregister). The states and
 * their codes, the stage callbacks, what a backup saves and a restore
 * writes back (aclrtMalloc memory in 4 KiB and 2 MiB pages, aclrtMapMem
 * mappings), and other threads waiting while the process is locked. The
 * chip decides whether the feature exists (npu.ko's soc_name: 910B-class
 * parts have it); the tests of each kind skip on the other. Those that
 * need a device skip without /dev/npu0.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <unistd.h>

#include "lib_util.h"

/* The thread's last error is @code, and taking it leaves none. */
#define EXPECT_LAST(code) do {								\
	EXPECT_EQ((aclError)(code), aclrtGetLastError(ACL_RT_THREAD_LEVEL));		\
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));		\
} while (0)

#define PID	((int)getpid())

/* npu.ko's soc_name, "" if unknown. */
static void soc_name(char *buf, size_t len)
{
	FILE *f = fopen("/sys/module/npu/parameters/soc_name", "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * Does the module's chip have process snapshots? CANN: the 910B and
 * 910_93 parts (NPU architecture 2201); libacl takes a name it does not
 * know for the simulated chip, which is one. These are the parts it knows
 * of another architecture.
 */
static bool snap_chip(void)
{
	static const char *const others[] = {
		"Ascend031", "Ascend035", "Ascend035A", "Ascend035B", "Ascend310B1", "Ascend310B2",
		"Ascend310B3", "Ascend310B4", "Ascend310P1", "Ascend310P3", "Ascend310P5",
		"Ascend310P7", "Ascend910A", "Ascend910B", "Ascend910PremiumA", "Ascend910ProA",
		"Ascend910ProB",
	};
	char soc[64];
	size_t i;

	soc_name(soc, sizeof(soc));
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (!strcmp(soc, others[i]))
			return false;
	return true;
}

#define NEED_SNAP() do {								\
	if (!have_npu(0))								\
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");			\
	if (!snap_chip())								\
		SKIP(return, "the module's chip has no process snapshots");		\
} while (0)

/* A device allocation of @len bytes holding the pattern @seed. */
static void *dev_pattern(size_t len, aclrtMemMallocPolicy policy, unsigned int seed)
{
	unsigned char *h = malloc(len);
	void *d = NULL;

	if (!h || aclrtMalloc(&d, len, policy) != ACL_SUCCESS)
		d = NULL;
	if (d) {
		fill_pattern(h, len, seed);
		if (aclrtMemcpy(d, len, h, len, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
			d = NULL;
	}
	free(h);
	return d;
}

/* Write the pattern @seed over [@d, +@len). */
static aclError put_pattern(void *d, size_t len, unsigned int seed)
{
	unsigned char *h = malloc(len);
	aclError r = ACL_ERROR_BAD_ALLOC;

	if (h) {
		fill_pattern(h, len, seed);
		r = aclrtMemcpy(d, len, h, len, ACL_MEMCPY_HOST_TO_DEVICE);
		free(h);
	}
	return r;
}

/*
 * Compare [@d + @off, +@n) with bytes @off.. of the pattern @seed, read
 * back alone: -1 if equal, else the first differing offset (-2: a failed
 * copy).
 */
static long long cmp_at(const void *d, size_t off, size_t n, unsigned int seed)
{
	unsigned char *want = malloc(off + n), *got = malloc(n);
	long long at = -2;
	size_t i;

	if (want && got &&
	    aclrtMemcpy(got, n, (const char *)d + off, n, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS) {
		fill_pattern(want, off + n, seed);
		at = -1;
		for (i = 0; i < n && at < 0; i++)
			if (got[i] != want[off + i])
				at = (long long)(off + i);
	}
	free(want);
	free(got);
	return at;
}

/* The whole of [@d, +@len) holds the pattern @seed, read back in pieces at odd offsets. */
static bool holds(const void *d, size_t len, unsigned int seed)
{
	const size_t offs[] = { 0, 1, 4095, 4097, len / 3, len / 2 + 13, len - 777 };
	size_t i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		size_t n = i + 1 < sizeof(offs) / sizeof(offs[0]) ? 777 : len - offs[i];

		if (offs[i] + n > len || cmp_at(d, offs[i], n, seed) != -1)
			return false;
	}
	return cmp_at(d, 0, len, seed) == -1;
}

/* Neither a device nor aclInit: the acl layer's checks, no last error. */
TEST(bad_pid_and_reserved)
{
	aclrtSnapShotBackupArgs b;
	aclrtSnapShotRestoreArgs r;
	int x;

	memset(&b, 0, sizeof(b));
	memset(&r, 0, sizeof(r));
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessLock(PID + 1, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessLock(0, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessLock(PID, &x));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessUnlock(-1, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessUnlock(PID, &x));
	/* CANN's documentation: the args are reserved, NULL only */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessBackup(PID + 1, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessBackup(PID, &b));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessRestore(PID + 1, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessRestore(PID, &r));
	/* the pid first */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessLock(PID + 1, &x));
	EXPECT_LAST(ACL_SUCCESS);
}

static uint32_t cb_nop(int32_t dev, void *args)
{
	(void)dev;
	(void)args;
	return 0;
}

/* The chip has no process snapshots: 207000 for all six, recorded, after the acl layer's checks. */
TEST(not_supported_elsewhere)
{
	int x;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	if (snap_chip())
		SKIP(return, "the module's chip has process snapshots (load npu.ko with soc_name=Ascend310P3)");
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSnapShotProcessLock(PID, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSnapShotProcessUnlock(PID, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSnapShotProcessBackup(PID, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* before the stage and callback checks */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtSnapShotCallbackRegister((aclrtSnapShotStage)9, NULL, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_nop, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_nop));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* the acl layer's checks still come first */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSnapShotProcessLock(PID, &x));
	EXPECT_LAST(ACL_SUCCESS);
}

/* RUNNING -> LOCKED -> BACKED_UP -> LOCKED -> RUNNING and every refusal, without aclInit. */
TEST(state_machine)
{
	NEED_SNAP();
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, aclrtSnapShotProcessUnlock(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED);
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, aclrtSnapShotProcessBackup(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_BACKUP_FAILED);
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_RESTORE_FAILED);

	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_LOCK_FAILED, aclrtSnapShotProcessLock(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_LOCK_FAILED);
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_RESTORE_FAILED);
	/* no device set: CANN finds no context to synchronize */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSnapShotProcessBackup(PID, NULL));
	EXPECT_LAST(ACL_ERROR_RT_CONTEXT_NULL);
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, aclrtSnapShotProcessUnlock(PID, NULL));

	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	/* one backup per lock */
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, aclrtSnapShotProcessBackup(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_BACKUP_FAILED);
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_LOCK_FAILED, aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessRestore(PID, NULL));
	/* LOCKED again: a restore needs a new backup */
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	/* unlocking from BACKED_UP drops the backup */
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_RESTORE_FAILED);
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	/* successes leave the last error alone */
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * Pattern A, backup, pattern B (and queued work), restore: A again, read
 * back at other offsets than it was written at, in 4 KiB and 2 MiB pages.
 */
TEST(backup_restore_pages)
{
	const size_t n4k = 64 * KiB + 3 * 4096 + 100, n2m = 4 * MiB + 12345;
	aclrtStream s = NULL;
	void *d4k, *d2m;

	NEED_SNAP();
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	d4k = dev_pattern(n4k, ACL_MEM_MALLOC_NORMAL_ONLY, 1);
	d2m = dev_pattern(n2m, ACL_MEM_MALLOC_HUGE_ONLY, 2);
	ASSERT_NONNULL(d4k);
	ASSERT_NONNULL(d2m);
	ASSERT_ACL_OK(aclrtCreateStream(&s));

	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	/* the thread that locked the process goes on */
	ASSERT_ACL_OK(put_pattern(d4k, n4k, 11));
	ASSERT_ACL_OK(put_pattern(d2m, n2m, 12));
	EXPECT_TRUE(holds(d4k, n4k, 11));
	EXPECT_TRUE(holds(d2m, n2m, 12));
	/* queued, not waited for: the restore lands after it */
	ASSERT_ACL_OK(aclrtMemsetAsync(d2m, n2m, 0x5a, n2m, s));
	ASSERT_ACL_OK(aclrtMemsetAsync(d4k, n4k, 0xa5, n4k / 2, s));
	ASSERT_ACL_OK(aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_TRUE(holds(d4k, n4k, 1));
	EXPECT_TRUE(holds(d2m, n2m, 2));
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	EXPECT_TRUE(holds(d4k, n4k, 1));
	EXPECT_TRUE(holds(d2m, n2m, 2));

	/* a second round, from what the memory holds now */
	ASSERT_ACL_OK(put_pattern(d4k, n4k, 21));
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	ASSERT_ACL_OK(aclrtMemset(d4k, n4k, 0, n4k));
	ASSERT_ACL_OK(aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_TRUE(holds(d4k, n4k, 21));
	EXPECT_TRUE(holds(d2m, n2m, 2));
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));

	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(d4k));
	ASSERT_ACL_OK(aclrtFree(d2m));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/* aclrtMapMem mappings are saved; one the device may not touch is left out. */
TEST(backup_restore_vmm)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_NORMAL);
	aclrtDrvMemHandle h = NULL, h2 = NULL;
	const size_t n = 2 * MiB;
	char *va = NULL;

	NEED_SNAP();
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, 2 * n, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, n, &p, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h2, n, &p, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, n, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemMapNoAccess(va + n, n, 0, h2, 0));
	ASSERT_ACL_OK(put_pattern(va, n, 3));

	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	ASSERT_ACL_OK(put_pattern(va, n, 13));
	EXPECT_TRUE(holds(va, n, 13));
	ASSERT_ACL_OK(aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_TRUE(holds(va, n, 3));
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));

	ASSERT_ACL_OK(aclrtUnmapMem(va + n));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h2));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/* A restore writes nothing unless every span saved is still the same allocation. */
TEST(restore_needs_the_same_allocations)
{
	const size_t n = 64 * KiB;
	void *keep, *gone;

	NEED_SNAP();
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	keep = dev_pattern(n, ACL_MEM_MALLOC_NORMAL_ONLY, 4);
	gone = dev_pattern(n, ACL_MEM_MALLOC_NORMAL_ONLY, 5);
	ASSERT_NONNULL(keep);
	ASSERT_NONNULL(gone);
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	ASSERT_ACL_OK(aclrtFree(gone));
	ASSERT_ACL_OK(put_pattern(keep, n, 14));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_RESTORE_FAILED);
	EXPECT_TRUE(holds(keep, n, 14));
	/* still BACKED_UP: no second backup */
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, aclrtSnapShotProcessBackup(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));

	/* the device reset and set again: its memory of before is gone */
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	/* no device open at all: CANN's no context */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_LAST(ACL_ERROR_RT_CONTEXT_NULL);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/* What the callbacks saw, in order. */
struct call {
	char fn;		/* 'a', 'b', 'f' */
	int32_t dev;
	void *args;
};

static struct call calls[64];
static int ncalls;
static uint32_t fail_code = 7;

static void record(char fn, int32_t dev, void *args)
{
	if (ncalls < (int)(sizeof(calls) / sizeof(calls[0])))
		calls[ncalls++] = (struct call){ fn, dev, args };
}

static uint32_t cb_a(int32_t dev, void *args)
{
	record('a', dev, args);
	return 0;
}

static uint32_t cb_b(int32_t dev, void *args)
{
	record('b', dev, args);
	return 0;
}

static uint32_t cb_fail(int32_t dev, void *args)
{
	record('f', dev, args);
	return fail_code;
}

/* tags passed as args: one per (stage, callback) */
static int tag[6][2];

/* calls[from..] are a then b for @stage, each for the @ndev open devices. */
static bool stage_called(int from, int stage, int ndev)
{
	int i, k = from;

	for (i = 0; i < 2 * ndev; i++, k++) {
		char fn = i < ndev ? 'a' : 'b';

		if (k >= ncalls || calls[k].fn != fn || calls[k].dev != i % ndev ||
		    calls[k].args != &tag[stage][i < ndev ? 0 : 1])
			return false;
	}
	return true;
}

/* Each stage's callbacks, in registration order, each for every open device. */
TEST(callbacks_in_order)
{
	int st, ndev = 1;

	NEED_SNAP();
	ASSERT_ACL_OK(aclInit(NULL));
	if (have_npu(1)) {
		ASSERT_ACL_OK(aclrtSetDevice(1));
		ndev = 2;
	}
	ASSERT_ACL_OK(aclrtSetDevice(0));
	for (st = ACL_RT_SNAPSHOT_LOCK_PRE; st <= ACL_RT_SNAPSHOT_UNLOCK_POST; st++) {
		ASSERT_ACL_OK(aclrtSnapShotCallbackRegister((aclrtSnapShotStage)st, cb_a, &tag[st][0]));
		ASSERT_ACL_OK(aclrtSnapShotCallbackRegister((aclrtSnapShotStage)st, cb_b, &tag[st][1]));
	}
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_EQ(2 * ndev, ncalls);
	EXPECT_TRUE(stage_called(0, ACL_RT_SNAPSHOT_LOCK_PRE, ndev));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	ASSERT_EQ(6 * ndev, ncalls);
	EXPECT_TRUE(stage_called(2 * ndev, ACL_RT_SNAPSHOT_BACKUP_PRE, ndev));
	EXPECT_TRUE(stage_called(4 * ndev, ACL_RT_SNAPSHOT_BACKUP_POST, ndev));
	ASSERT_ACL_OK(aclrtSnapShotProcessRestore(PID, NULL));
	ASSERT_EQ(10 * ndev, ncalls);
	EXPECT_TRUE(stage_called(6 * ndev, ACL_RT_SNAPSHOT_RESTORE_PRE, ndev));
	EXPECT_TRUE(stage_called(8 * ndev, ACL_RT_SNAPSHOT_RESTORE_POST, ndev));
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	ASSERT_EQ(12 * ndev, ncalls);
	EXPECT_TRUE(stage_called(10 * ndev, ACL_RT_SNAPSHOT_UNLOCK_POST, ndev));

	/* unregistered: b alone is called */
	ncalls = 0;
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_a));
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_EQ(ndev, ncalls);
	EXPECT_EQ('b', calls[0].fn);
	EXPECT_EQ(&tag[ACL_RT_SNAPSHOT_LOCK_PRE][1], calls[0].args);
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_ACL_OK(aclFinalize());
}

/* No device open: a lock calls nobody (CANN calls per open device). */
TEST(callbacks_need_an_open_device)
{
	NEED_SNAP();
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_a, NULL));
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_UNLOCK_POST, cb_fail, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	EXPECT_EQ(0, ncalls);
}

/* A callback's non-zero answer stops the operation where CANN stops it. */
TEST(callback_failures)
{
	const size_t n = 8 * KiB;
	void *d;

	NEED_SNAP();
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	d = dev_pattern(n, ACL_MEM_MALLOC_NORMAL_ONLY, 6);
	ASSERT_NONNULL(d);

	/* LOCK_PRE: still RUNNING */
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_fail, tag[0]));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, aclrtSnapShotProcessLock(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED);
	ASSERT_EQ(1, ncalls);
	EXPECT_EQ(0, calls[0].dev);
	EXPECT_EQ((void *)tag[0], calls[0].args);
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, aclrtSnapShotProcessUnlock(PID, NULL));
	/* CANN calls LOCK_PRE before it looks at the state: a second lock calls it too */
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_fail));
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_a, NULL));
	ncalls = 0;
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_LOCK_FAILED, aclrtSnapShotProcessLock(PID, NULL));
	EXPECT_EQ(1, ncalls);

	/* BACKUP_PRE and BACKUP_POST: still LOCKED, nothing to restore */
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_BACKUP_PRE, cb_fail, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, aclrtSnapShotProcessBackup(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED);
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_BACKUP_PRE, cb_fail));
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_BACKUP_POST, cb_fail, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, aclrtSnapShotProcessBackup(PID, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_BACKUP_POST, cb_fail));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));

	/* RESTORE_PRE: nothing written, still BACKED_UP, the restore may come again */
	ASSERT_ACL_OK(put_pattern(d, n, 16));
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_RESTORE_PRE, cb_fail, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED);
	EXPECT_TRUE(holds(d, n, 16));
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_RESTORE_PRE, cb_fail));
	/* RESTORE_POST: written, still BACKED_UP */
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_RESTORE_POST, cb_fail, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_TRUE(holds(d, n, 6));
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_RESTORE_POST, cb_fail));
	ASSERT_ACL_OK(put_pattern(d, n, 17));
	ASSERT_ACL_OK(aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_TRUE(holds(d, n, 6));

	/* UNLOCK_POST: unlocked all the same */
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_UNLOCK_POST, cb_fail, NULL));
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, aclrtSnapShotProcessUnlock(PID, NULL));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED);
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, aclrtSnapShotProcessUnlock(PID, NULL));

	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/* CANN's registration checks: the stage, the callback, no second registration. */
TEST(register_errors)
{
	NEED_SNAP();
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackRegister((aclrtSnapShotStage)6, cb_a, NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackRegister((aclrtSnapShotStage)-1, cb_a, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, NULL, NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_a, NULL));
	/* once per stage, whatever the args */
	EXPECT_ACL(ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED,
		   aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_a, tag));
	EXPECT_LAST(ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED);
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_UNLOCK_POST, cb_a, NULL));
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_b, NULL));

	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackUnregister((aclrtSnapShotStage)6, cb_a));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_BACKUP_PRE, cb_a));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_a));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_a));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_UNLOCK_POST, cb_a));
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_b));
	/* registered again after its unregistration */
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, cb_a, NULL));
	EXPECT_LAST(ACL_SUCCESS);
}

static aclError reentry[3];
static void *reentry_dev;

/* A BACKUP_PRE callback: the four operations refuse, the API works, registering too. */
static uint32_t cb_reenter(int32_t dev, void *args)
{
	(void)dev;
	(void)args;
	reentry[0] = aclrtSnapShotProcessUnlock(PID, NULL);
	reentry[1] = aclrtMemset(reentry_dev, 4096, 0x33, 4096);
	reentry[2] = aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_BACKUP_POST, cb_a, NULL);
	return 0;
}

TEST(callback_calls_the_api)
{
	unsigned char got[4096];

	NEED_SNAP();
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc(&reentry_dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(reentry_dev, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_BACKUP_PRE, cb_reenter, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtSnapShotProcessBackup(PID, NULL));
	EXPECT_EQ(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, reentry[0]);
	EXPECT_EQ(ACL_SUCCESS, reentry[1]);
	EXPECT_EQ(ACL_SUCCESS, reentry[2]);
	/* registered during BACKUP_PRE, called at BACKUP_POST of the same backup */
	EXPECT_EQ(1, ncalls);
	/* the memset came before the backup read the memory */
	ASSERT_ACL_OK(aclrtMemset(reentry_dev, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtSnapShotProcessRestore(PID, NULL));
	ASSERT_ACL_OK(aclrtMemcpy(got, sizeof(got), reentry_dev, sizeof(got), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(got, sizeof(got), 0x33));
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	ASSERT_ACL_OK(aclrtFree(reentry_dev));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/* Another thread's calls while the process is locked. */
struct other {
	aclrtContext ctx;
	void *d;
	size_t n;
	atomic_int done;
	aclError ret;
};

static void *copy_main(void *arg)
{
	struct other *o = arg;

	o->ret = aclrtSetCurrentContext(o->ctx);
	if (o->ret == ACL_SUCCESS)
		o->ret = put_pattern(o->d, o->n, 8);
	atomic_store(&o->done, 1);
	return NULL;
}

static void *malloc_main(void *arg)
{
	struct other *o = arg;
	void *p = NULL;

	o->ret = aclrtSetCurrentContext(o->ctx);
	if (o->ret == ACL_SUCCESS)
		o->ret = aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY);
	if (o->ret == ACL_SUCCESS)
		o->ret = aclrtFree(p);
	atomic_store(&o->done, 1);
	return NULL;
}

static void *sync_main(void *arg)
{
	struct other *o = arg;
	int32_t dev = -1;

	o->ret = aclrtSetCurrentContext(o->ctx);
	if (o->ret == ACL_SUCCESS)
		o->ret = aclrtSynchronizeDevice();
	if (o->ret == ACL_SUCCESS)
		o->ret = aclrtGetDevice(&dev);
	atomic_store(&o->done, 1);
	return NULL;
}

static void *backup_main(void *arg)
{
	struct other *o = arg;

	o->ret = aclrtSetCurrentContext(o->ctx);
	if (o->ret == ACL_SUCCESS)
		o->ret = aclrtSnapShotProcessBackup(PID, NULL);
	atomic_store(&o->done, 1);
	return NULL;
}

/* A BACKUP_PRE callback in the thread that backs up, which did not lock: it goes on. */
static uint32_t cb_copy(int32_t dev, void *args)
{
	struct other *o = args;

	(void)dev;
	return put_pattern(o->d, o->n, 9) == ACL_SUCCESS ? 0 : 1;
}

TEST(other_threads_wait)
{
	struct other cp = { .n = 64 * KiB }, ma = { 0 }, sy = { 0 }, bk = { 0 };
	pthread_t t1, t2, t3, t4;
	aclrtContext ctx;

	NEED_SNAP();
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
	cp.ctx = ma.ctx = sy.ctx = bk.ctx = ctx;
	cp.d = dev_pattern(cp.n, ACL_MEM_MALLOC_NORMAL_ONLY, 7);
	ASSERT_NONNULL(cp.d);
	bk.d = cp.d;
	bk.n = cp.n;

	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_EQ(0, pthread_create(&t1, NULL, copy_main, &cp));
	ASSERT_EQ(0, pthread_create(&t2, NULL, malloc_main, &ma));
	ASSERT_EQ(0, pthread_create(&t3, NULL, sync_main, &sy));
	/* queries and synchronizes go on */
	ASSERT_EQ(0, pthread_join(t3, NULL));
	EXPECT_EQ(ACL_SUCCESS, sy.ret);
	usleep(300 * 1000);
	EXPECT_EQ(0, atomic_load(&cp.done));
	EXPECT_EQ(0, atomic_load(&ma.done));

	/* a backup in another thread, whose callback copies */
	ASSERT_ACL_OK(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_BACKUP_PRE, cb_copy, &bk));
	ASSERT_EQ(0, pthread_create(&t4, NULL, backup_main, &bk));
	ASSERT_EQ(0, pthread_join(t4, NULL));
	EXPECT_EQ(ACL_SUCCESS, bk.ret);
	EXPECT_EQ(0, atomic_load(&cp.done));
	ASSERT_ACL_OK(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_BACKUP_PRE, cb_copy));
	EXPECT_TRUE(holds(cp.d, cp.n, 9));
	ASSERT_ACL_OK(put_pattern(cp.d, cp.n, 10));
	ASSERT_ACL_OK(aclrtSnapShotProcessRestore(PID, NULL));
	EXPECT_TRUE(holds(cp.d, cp.n, 9));
	EXPECT_EQ(0, atomic_load(&cp.done));

	/* the waiting calls go on at the unlock, after the restore */
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	ASSERT_EQ(0, pthread_join(t1, NULL));
	ASSERT_EQ(0, pthread_join(t2, NULL));
	EXPECT_EQ(ACL_SUCCESS, cp.ret);
	EXPECT_EQ(ACL_SUCCESS, ma.ret);
	EXPECT_TRUE(holds(cp.d, cp.n, 8));
	ASSERT_ACL_OK(aclrtFree(cp.d));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/* The lock returns when every stream has done its queued work. */
TEST(lock_drains_streams)
{
	const size_t n = 32 * MiB;
	aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
	aclrtStream s1 = NULL, s2 = NULL;
	void *a, *b;
	int i;

	NEED_SNAP();
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	for (i = 0; i < 4; i++) {
		ASSERT_ACL_OK(aclrtMemcpyAsync(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
		ASSERT_ACL_OK(aclrtMemsetAsync(a, n, i, n, s2));
	}
	ASSERT_ACL_OK(aclrtSnapShotProcessLock(PID, NULL));
	ASSERT_ACL_OK(aclrtStreamQuery(s1, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	st = ACL_STREAM_STATUS_NOT_READY;
	ASSERT_ACL_OK(aclrtStreamQuery(s2, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	ASSERT_ACL_OK(aclrtSnapShotProcessUnlock(PID, NULL));
	ASSERT_ACL_OK(aclrtDestroyStream(s1));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtFree(b));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
