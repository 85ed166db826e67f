// SPDX-License-Identifier: MIT
/*
 * libacl: sharing physical memory between processes (export, pid lists,
 * import).  The exporter "A" is a forked child that starts libacl afresh;
 * the test process is the importer "B"; they talk through pipes.  Skips
 * without /dev/npu0.
 */
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "lib_child.h"
#include "lib_util.h"

#define SZ	(2 * MiB)
#define MAX_PIDS	1024	/* the driver's limit (NPU_SHARE_MAX_PIDS) */

/* ---- helpers for the forked processes ---- */

/* Test-side read: 0 with *v set, or -1 when the other side is gone. */
static int try_get_u64(int fd, uint64_t *v)
{
	return read(fd, v, sizeof(*v)) == sizeof(*v) ? 0 : -1;
}

static aclrtPhysicalMemProp prop_on(int dev)
{
	aclrtPhysicalMemProp p = {
		.handleType = ACL_MEM_HANDLE_TYPE_NONE,
		.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
		.memAttr = ACL_HBM_MEM_HUGE,
		.location = { .id = (uint32_t)dev, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	};
	return p;
}

static aclrtMemAccessDesc rw_on(int dev)
{
	aclrtMemAccessDesc d;

	memset(&d, 0, sizeof(d));
	d.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	d.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	d.location.id = (uint32_t)dev;
	return d;
}

struct mem {
	aclrtDrvMemHandle h;
	void *va;
};

/* In a child: a mapped SZ handle on the current device, filled with @seed. */
static void child_alloc(struct mem *m, int dev, unsigned int seed)
{
	aclrtPhysicalMemProp p = prop_on(dev);
	aclrtMemAccessDesc d = rw_on(dev);
	char *buf = malloc(SZ);

	CK(buf);
	CK_ACL(ACL_SUCCESS, aclrtMallocPhysical(&m->h, SZ, &p, 0));
	CK_ACL(ACL_SUCCESS, aclrtReserveMemAddress(&m->va, SZ, 0, NULL, 0));
	CK_ACL(ACL_SUCCESS, aclrtMapMem(m->va, SZ, 0, m->h, 0));
	CK_ACL(ACL_SUCCESS, aclrtMemSetAccess(m->va, SZ, &d, 1));
	fill_pattern(buf, SZ, seed);
	CK_ACL(ACL_SUCCESS, aclrtMemcpy(m->va, SZ, buf, SZ, ACL_MEMCPY_HOST_TO_DEVICE));
	free(buf);
}

static void child_check(void *va, unsigned int seed)
{
	char *buf = malloc(SZ);

	CK(buf);
	CK_ACL(ACL_SUCCESS, aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	CK(check_pattern(buf, SZ, seed) == -1);
	free(buf);
}

static void child_start(int dev)
{
	CK_ACL(ACL_SUCCESS, aclInit(NULL));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(dev));
}

/* B: a fresh library on device @dev; its tgid as SetPid takes it. */
#define B_START(dev, tgid) do {						\
	ASSERT_ACL_OK(aclInit(NULL));					\
	ASSERT_ACL_OK(aclrtSetDevice(dev));				\
	ASSERT_ACL_OK(aclrtDeviceGetBareTgid(&(tgid)));			\
} while (0)

/* ---- single-process checks ---- */

TEST(export_args_and_twice)
{
	aclrtPhysicalMemProp p = prop_on(0);
	aclrtDrvMemHandle h, h2 = NULL;
	uint64_t sh = 0, sh2 = 0;
	int32_t pids[MAX_PIDS + 1];
	const char *msg;
	pid_t dead;
	size_t i;
	int st;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, SZ, &p, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(NULL, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 2, &sh));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 0, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, (aclrtMemHandleType)3, 0, &sh));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, (aclrtMemHandleType)1, 0, &sh));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 2, &sh));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 3, &sh));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemExportToShareableHandle((aclrtDrvMemHandle)&sh, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	EXPECT_EQ(0U, sh);

	ASSERT_ACL_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	EXPECT_NE(0U, sh);
	/* once per handle, whatever the flags */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh2));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "exported already"));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE,
						   ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &sh2));
	EXPECT_EQ(0U, sh2);

	/* not in the exporting process */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(sh, 0, &h2));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "exported by this process"));
	EXPECT_NULL(h2);

	/* pid lists */
	pids[0] = getpid();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh, NULL, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh, pids, 0));
	pids[1] = -5;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh, pids, 2));
	/* CANN skips pid 0 entries, and refuses a list of nothing else (devmm_set_pids()) */
	pids[1] = 0;
	EXPECT_ACL_OK(aclrtMemSetPidToShareableHandle(sh, pids, 2));
	pids[0] = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(sh, pids, 2));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	/* pids name live processes: this one and init, repeated */
	for (i = 0; i < MAX_PIDS + 1; i++)
		pids[i] = i & 1 ? 1 : getpid();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh, pids, MAX_PIDS + 1));
	EXPECT_ACL_OK(aclrtMemSetPidToShareableHandle(sh, pids, MAX_PIDS));
	EXPECT_ACL_OK(aclrtMemSetPidToShareableHandle(sh, pids, 1));
	/* a reaped child's pid names no process */
	dead = fork();
	ASSERT_LE(0, dead);
	if (!dead)
		_exit(0);
	ASSERT_EQ(dead, waitpid(dead, &st, 0));
	pids[1] = dead;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh, pids, 2));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "names no process"));
	/* names this process did not export */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh ^ 0x5a5a, pids, 1));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "not exported by this process"));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(0, pids, 1));

	/* freeing the handle revokes its name */
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh, pids, 1));
}

/*
 * POSIX (ours): the memory as a dma-buf fd, read-write and close-on-exec,
 * as often as asked, independent of the NONE name; the fd maps the bytes
 * the device sees, and keeps them after aclrtFreePhysical.
 */
TEST(export_posix_dmabuf_fd)
{
	aclrtPhysicalMemProp p = prop_on(0);
	aclrtMemAccessDesc d = rw_on(0);
	uint64_t fd1 = ~0ULL, fd2 = ~0ULL, sh = 0;
	size_t free0, free1, total;
	unsigned char *buf = malloc(SZ), *model = malloc(SZ), *cpu;
	aclrtDrvMemHandle h;
	void *va;

	NEED_DEVICE();
	ASSERT_NONNULL(buf);
	ASSERT_NONNULL(model);
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, SZ, &p, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, SZ, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, SZ, &d, 1));
	fill_pattern(model, SZ, 21);
	ASSERT_ACL_OK(aclrtMemcpy(va, SZ, model, SZ, ACL_MEMCPY_HOST_TO_DEVICE));

	/* unknown flags, NULL out: nothing made */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 4, &fd1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemExportToShareableHandle((aclrtDrvMemHandle)buf, ACL_MEM_HANDLE_TYPE_POSIX, 0, &fd1));
	EXPECT_EQ(~0ULL, fd1);
	/* both flags: an fd has no pid list */
	ASSERT_ACL_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 0, &fd1));
	ASSERT_ACL_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX,
						      ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &fd2));
	ASSERT_GT(1U << 20, fd1);
	ASSERT_GT(1U << 20, fd2);
	EXPECT_NE(fd1, fd2);
	EXPECT_EQ(FD_CLOEXEC, fcntl((int)fd1, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_RDWR, fcntl((int)fd1, F_GETFL) & O_ACCMODE);
	EXPECT_EQ((off_t)SZ, lseek((int)fd1, 0, SEEK_END));
	/* the NONE name is another matter: still once */
	ASSERT_ACL_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	ASSERT_EQ(0, close((int)fd2));

	/* the fd maps the device's bytes; CPU writes reach the device */
	cpu = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd1, 0);
	ASSERT_NE(MAP_FAILED, (void *)cpu);
	EXPECT_EQ(-1, check_pattern(cpu, SZ, 21));
	memset(cpu + 4096 + 100, 0xa5, 8192);
	memset(model + 4096 + 100, 0xa5, 8192);
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(model, buf, SZ));

	/* freed, unmapped: the fd and its mapping keep the memory */
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
	EXPECT_EQ(free0 - SZ, free1);
	EXPECT_EQ(0, memcmp(model, cpu, SZ));
	ASSERT_EQ(0, munmap(cpu, SZ));
	ASSERT_EQ(0, close((int)fd1));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
	EXPECT_EQ(free0, free1);
	free(model);
	free(buf);
}

TEST(import_args)
{
	aclrtDrvMemHandle h = NULL;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(0x1234, 0, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemImportFromShareableHandle(0x1234, -1, &h));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemImportFromShareableHandle(0x1234, 64, &h));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemImportFromShareableHandle(0x1234, 63, &h));
	/* unknown names */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(0, 0, &h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(0x1234, 0, &h));
	/* CANN validates deviceId only (api_error.cc): device 1 need not be set */
	if (have_npu(1))
		EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(0x1234, 1, &h));
	EXPECT_NULL(h);
}

/* CANN needs a current context (api_impl.cc ImportFromShareableHandle): 107002 after the id's check. */
TEST(import_needs_a_current_context)
{
	aclrtDrvMemHandle h = NULL;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtResetDeviceForce(0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemImportFromShareableHandle(0x1234, 63, &h));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMemImportFromShareableHandle(0x1234, 0, &h));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_NULL(h);
}

/*
 * POSIX_FD (ours) in V2: a dma-buf fd goes in as a handle - another
 * driver's buffer (a udmabuf of a memfd) that aclrtMapMem maps and
 * aclrtMemcpy reads and writes in place, and npu's own memory exported
 * with the same type - and the bad fds get clear errors.
 */
TEST(import_posix_fd)
{
	const size_t len = MiB + 3 * 4096;	/* not a multiple of the granularity */
	aclrtPhysicalMemProp p = prop_on(0);
	aclrtMemAccessDesc d = rw_on(0);
	aclrtDrvMemHandle h, h2, hi;
	size_t free0, free1, total;
	unsigned char *buf = malloc(SZ), *cpu;
	int fd, nul, ufd, mfd, dfd = -1;
	void *va, *va2;
	int32_t pid = getpid();

	NEED_DEVICE();
	ASSERT_NONNULL(buf);
	/* bad fds, flags, a pid list */
	fd = -1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(&fd, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, 0, &h));
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, nul);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(&nul, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, 0, &h));
	close(nul);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(&nul, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, 0, &h));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemSetPidToShareableHandleV2(&nul, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, &pid, 1));

	/* npu's own memory, out and in again: the same bytes */
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, SZ, &p, 0));
	ASSERT_ACL_OK(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, &dfd));
	ASSERT_LE(0, dfd);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(&dfd, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, 1, &h2));
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandleV2(&dfd, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, 0, &h2));
	ASSERT_EQ(0, close(dfd));
	/* the fd was the dma-buf: not exported again */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemExportToShareableHandleV2(h2, 0, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, &dfd));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, SZ, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va2, SZ, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMapMem(va2, SZ, 0, h2, 0));
	fill_pattern(buf, SZ, 61);
	ASSERT_ACL_OK(aclrtMemcpy(va, SZ, buf, SZ, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(buf, 0, SZ);
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va2, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, SZ, 61));
	ASSERT_ACL_OK(aclrtUnmapMem(va2));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h2));
	ASSERT_ACL_OK(aclrtFreePhysical(h));

	/* another driver's buffer: a udmabuf of a memfd */
	ufd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (ufd < 0) {
		TH_LOG("no /dev/udmabuf: another driver's buffer not tried");
		goto out;
	}
	{
		struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = len };

		mfd = memfd_create("acl-import", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		ASSERT_LE(0, mfd);
		ASSERT_EQ(0, ftruncate(mfd, (off_t)len));
		ASSERT_EQ(0, fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK));
		c.memfd = (uint32_t)mfd;
		dfd = ioctl(ufd, UDMABUF_CREATE, &c);
		ASSERT_LE(0, dfd);
	}
	cpu = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, (void *)cpu);
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandleV2(&dfd, ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD, 0, &hi));
	/* the handle holds the buffer: the fds may go at once */
	ASSERT_EQ(0, close(dfd));
	ASSERT_EQ(0, close(ufd));
	/* no device memory: the buffer is the memfd's pages */
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
	EXPECT_EQ(free0, free1);
	/* not npu's memory: no name, no dma-buf of it */
	{
		uint64_t sh;

		EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
			   aclrtMemExportToShareableHandle(hi, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
		EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
			   aclrtMemExportToShareableHandle(hi, ACL_MEM_HANDLE_TYPE_POSIX, 0, &sh));
	}
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, SZ, 0, NULL, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, SZ, 0, hi, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, len, 0, hi, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, len, &d, 1));
	/* the device writes, the memfd shows it; the CPU writes, the device reads it */
	fill_pattern(buf, len, 62);
	ASSERT_ACL_OK(aclrtMemcpy((char *)va + 4095, len - 4095, buf + 4095, len - 5000,
				  ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(0, memcmp(cpu + 4095, buf + 4095, len - 5000));
	memset(cpu + 77, 0x2d, 3 * 4096);
	memset(buf, 0, SZ);
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, (char *)va + 76, 3 * 4096 + 2, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, buf[0]);
	EXPECT_EQ(-1, check_byte(buf + 1, 3 * 4096, 0x2d));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtFreePhysical(hi));
	munmap(cpu, len);
	close(mfd);
out:
	free(buf);
}

/* V2: the DEFAULT share type is V1's 64-bit name; FABRIC is a feature the chip lacks. */
TEST(v2_args)
{
	aclrtPhysicalMemProp p = prop_on(0);
	aclrtDrvMemHandle h, h2 = NULL, h3;
	aclrtMemFabricHandle fab;
	unsigned char raw[16];
	uint64_t sh = 0, sh2 = 0;
	int32_t pids[MAX_PIDS + 1];
	const char *msg;
	size_t i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, SZ, &p, 0));
	memset(&fab, 0, sizeof(fab));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemExportToShareableHandleV2(NULL, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandleV2(h, 0, (aclrtMemSharedHandleType)0, &sh));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandleV2(h, 0, (aclrtMemSharedHandleType)3, &sh));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemExportToShareableHandleV2(h, 2, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh));
	/* bad flags before the missing feature */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemExportToShareableHandleV2(h, 2, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &fab));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &fab));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtMemExportToShareableHandleV2(h, 1, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &fab));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemExportToShareableHandleV2((aclrtDrvMemHandle)&sh, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh));
	EXPECT_EQ(0U, sh);

	ASSERT_ACL_OK(aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh));
	EXPECT_NE(0U, sh);
	/* once per handle, by either call */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemExportToShareableHandleV2(h, 1, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh2));
	msg = aclGetRecentErrMsg();
	EXPECT_TRUE(msg && strstr(msg, "exported already"));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh2));
	EXPECT_EQ(0U, sh2);

	/* pid lists: V1's checks after V2's own */
	pids[0] = getpid();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemSetPidToShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, NULL, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemSetPidToShareableHandleV2(&sh, (aclrtMemSharedHandleType)5, pids, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemSetPidToShareableHandleV2(&sh, (aclrtMemSharedHandleType)5, pids, 1));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtMemSetPidToShareableHandleV2(&fab, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, pids, 1));
	for (i = 0; i < MAX_PIDS + 1; i++)
		pids[i] = getpid();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, MAX_PIDS + 1));
	pids[1] = 0;
	EXPECT_ACL_OK(aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 2));
	pids[0] = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 2));
	pids[0] = getpid();
	EXPECT_ACL_OK(aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 1));
	sh2 = sh ^ 0x5a5a;
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemSetPidToShareableHandleV2(&sh2, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 1));
	msg = aclGetRecentErrMsg();
	EXPECT_TRUE(msg && strstr(msg, "not exported by this process"));

	/* import */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 1, &h2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(&sh, (aclrtMemSharedHandleType)0, 1, &h2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemImportFromShareableHandleV2(&sh, (aclrtMemSharedHandleType)0, 0, &h2));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtMemImportFromShareableHandleV2(&fab, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &h2));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h2));
	msg = aclGetRecentErrMsg();
	EXPECT_TRUE(msg && strstr(msg, "exported by this process"));
	sh2 = 0x1234;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemImportFromShareableHandleV2(&sh2, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h2));
	EXPECT_NULL(h2);

	/* the name may sit anywhere in the caller's buffer */
	ASSERT_ACL_OK(aclrtMallocPhysical(&h3, SZ, &p, 0));
	memset(raw, 0, sizeof(raw));
	ASSERT_ACL_OK(aclrtMemExportToShareableHandleV2(h3, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, raw + 1));
	memcpy(&sh2, raw + 1, sizeof(sh2));
	EXPECT_NE(0U, sh2);
	EXPECT_NE(sh, sh2);
	EXPECT_ACL_OK(aclrtMemSetPidToShareableHandleV2(raw + 1, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 1));
	EXPECT_ACL_OK(aclrtMemSetPidToShareableHandle(sh2, pids, 1));
	ASSERT_ACL_OK(aclrtFreePhysical(h3));

	/* freeing the handle revokes the name */
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemSetPidToShareableHandleV2(raw + 1, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 1));
	/* the import needs a current device; SetPid does not */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL,
		   aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, pids, 1));
}

TEST(bare_tgid)
{
	int32_t tgid = 0;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetBareTgid(NULL));
	/* no device needed */
	ASSERT_ACL_OK(aclrtDeviceGetBareTgid(&tgid));
	EXPECT_EQ(getpid(), tgid);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	tgid = 0;
	ASSERT_ACL_OK(aclrtDeviceGetBareTgid(&tgid));
	EXPECT_EQ(getpid(), tgid);
}

/* ---- across processes ---- */

/*
 * A: export a filled handle with the pid list the test sends; send the
 * name; wait for the test to have written seed 9 through its import,
 * check it; then wait for "done".
 */
static void a_share_rw(int rd, int wr, void *arg)
{
	struct mem m;
	uint64_t sh;
	int32_t pid;

	(void)arg;
	child_start(0);
	child_alloc(&m, 0, 7);
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	pid = (int32_t)get_u64(rd);
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh, &pid, 1));
	put_u64(wr, sh);
	CK(get_u64(rd) == 1);		/* B wrote seed 9 */
	child_check(m.va, 9);
	put_u64(wr, 1);
	CK(get_u64(rd) == 2);		/* B is done */
	CK_ACL(ACL_SUCCESS, aclrtUnmapMem(m.va));
	CK_ACL(ACL_SUCCESS, aclrtFreePhysical(m.h));
	CK_ACL(ACL_SUCCESS, aclrtReleaseMemAddress(m.va));
	CK_ACL(ACL_SUCCESS, aclFinalize());
}

TEST(export_import_across_processes)
{
	aclrtMemAccessDesc d = rw_on(0);
	aclrtDrvMemHandle h = NULL;
	struct child a;
	uint64_t sh = 0, sh2 = 0, ack = 0;
	char *buf = malloc(SZ);
	const char *msg;
	int32_t tgid;
	void *va;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_EQ(0, spawn(&a, a_share_rw, NULL));
	B_START(0, tgid);
	put_u64(a.wr, (uint64_t)tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh));
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
	ASSERT_NONNULL(h);
	/* an imported handle is not exported again */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh2));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, 2 * SZ, 0, NULL, 0));
	/* the import reported the size: checked before the driver is asked */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, 2 * SZ, 0, h, 0));
	msg = aclGetRecentErrMsg();
	EXPECT_TRUE(msg && strstr(msg, "must equal the handle's size 2097152"));
	ASSERT_ACL_OK(aclrtMapMem(va, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, SZ, &d, 1));
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, SZ, 7));
	/* the same memory: A sees what B writes */
	fill_pattern(buf, SZ, 9);
	ASSERT_ACL_OK(aclrtMemcpy(va, SZ, buf, SZ, ACL_MEMCPY_HOST_TO_DEVICE));
	put_u64(a.wr, 1);
	EXPECT_EQ(0, try_get_u64(a.rd, &ack));
	EXPECT_EQ(1U, ack);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem((char *)va + SZ, 2 * SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMapMem((char *)va + SZ, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtUnmapMem((char *)va + SZ));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	put_u64(a.wr, 2);
	EXPECT_EQ(0, reap(&a));
	free(buf);
}

/* A: h1 exported for pid 1 only, h2 exported with no list; send both. */
static void a_unlisted(int rd, int wr, void *arg)
{
	aclrtPhysicalMemProp p = prop_on(0);
	aclrtDrvMemHandle h1, h2;
	uint64_t sh1, sh2;
	int32_t init_pid = 1;

	(void)arg;
	child_start(0);
	CK_ACL(ACL_SUCCESS, aclrtMallocPhysical(&h1, SZ, &p, 0));
	CK_ACL(ACL_SUCCESS, aclrtMallocPhysical(&h2, SZ, &p, 0));
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(h1, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh1));
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(h2, ACL_MEM_HANDLE_TYPE_NONE,
							    ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &sh2));
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh1, &init_pid, 1));
	put_u64(wr, sh1);
	put_u64(wr, sh2);
	CK(get_u64(rd) == 1);
	CK_ACL(ACL_SUCCESS, aclrtFreePhysical(h1));
	CK_ACL(ACL_SUCCESS, aclrtFreePhysical(h2));
}

TEST(not_listed_answers_like_unknown)
{
	aclrtDrvMemHandle h = NULL;
	struct child a;
	uint64_t sh1 = 0, sh2 = 0;
	int32_t tgid;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_EQ(0, spawn(&a, a_unlisted, NULL));
	B_START(0, tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh1));
	ASSERT_EQ(0, try_get_u64(a.rd, &sh2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(sh1, 0, &h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(sh2, 0, &h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(sh1 ^ sh2, 0, &h));
	EXPECT_NULL(h);
	put_u64(a.wr, 1);
	EXPECT_EQ(0, reap(&a));
}

/* A: a filled handle exported with DISABLE_PID_VALIDATION; sent twice. */
static void a_anyone(int rd, int wr, void *arg)
{
	struct mem m;
	uint64_t sh;

	(void)arg;
	child_start(0);
	child_alloc(&m, 0, 21);
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE,
							    ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &sh));
	put_u64(wr, sh);
	put_u64(wr, sh);
	CK(get_u64(rd) == 1);
}

/* C: import @sh from the pipe, map, read seed 21. */
static void c_import_read(int rd, int wr, void *arg)
{
	aclrtMemAccessDesc d = rw_on(0);
	aclrtDrvMemHandle h;
	void *va;

	(void)wr;
	(void)arg;
	child_start(0);
	CK_ACL(ACL_SUCCESS, aclrtMemImportFromShareableHandle(get_u64(rd), 0, &h));
	CK_ACL(ACL_SUCCESS, aclrtReserveMemAddress(&va, SZ, 0, NULL, 0));
	CK_ACL(ACL_SUCCESS, aclrtMapMem(va, SZ, 0, h, 0));
	CK_ACL(ACL_SUCCESS, aclrtMemSetAccess(va, SZ, &d, 1));
	child_check(va, 21);
}

TEST(disable_pid_validation_lets_anyone_import)
{
	aclrtMemAccessDesc d = rw_on(0);
	aclrtDrvMemHandle h;
	struct child a, c;
	uint64_t sh = 0, sh_c = 0;
	char *buf = malloc(SZ);
	int32_t tgid;
	void *va;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_EQ(0, spawn(&a, a_anyone, NULL));
	ASSERT_EQ(0, spawn(&c, c_import_read, NULL));
	B_START(0, tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh));
	ASSERT_EQ(0, try_get_u64(a.rd, &sh_c));
	put_u64(c.wr, sh_c);
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, SZ, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, SZ, &d, 1));
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, SZ, 21));
	/* a second process imported and read it too */
	EXPECT_EQ(0, reap(&c));
	put_u64(a.wr, 1);
	EXPECT_EQ(0, reap(&a));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	free(buf);
}

/*
 * A (V2): a filled handle exported with @arg's flags; without
 * DISABLE_PID_VALIDATION the pid list is the one pid the test sends.
 * Sends the name twice, waits for "done".
 */
static void a_share_v2(int rd, int wr, void *arg)
{
	uint64_t flags = (uintptr_t)arg, sh;
	struct mem m;
	int32_t pid;

	child_start(0);
	child_alloc(&m, 0, 31);
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandleV2(m.h, flags, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh));
	if (!flags) {
		pid = (int32_t)get_u64(rd);
		CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1));
	}
	put_u64(wr, sh);
	put_u64(wr, sh);
	CK(get_u64(rd) == 1);
	child_check(m.va, 31);
	CK(get_u64(rd) == 2);
}

/* C: import the name from the pipe: with V2 (arg 0) or V1 (arg 1); expect @want, send 1. */
static void c_import_v2(int rd, int wr, void *arg)
{
	uint64_t sh = get_u64(rd), want = get_u64(rd);
	aclrtDrvMemHandle h = NULL;

	child_start(0);
	if (!arg)
		CK_ACL(want, aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h));
	else
		CK_ACL(want, aclrtMemImportFromShareableHandle(sh, 0, &h));
	if (want == ACL_SUCCESS) {
		CK(h);
		CK_ACL(ACL_SUCCESS, aclrtFreePhysical(h));
	}
	put_u64(wr, 1);
}

/* B imports A's V2 name with V2, maps it, reads A's bytes and writes its own. */
static void b_import_v2(uint64_t sh)
{
	aclrtMemAccessDesc d = rw_on(0);
	aclrtDrvMemHandle h = NULL;
	char *buf = malloc(SZ);
	void *va;

	ASSERT_NONNULL(buf);
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h));
	ASSERT_NONNULL(h);
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, SZ, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, SZ, &d, 1));
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, SZ, 31));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	free(buf);
}

TEST(v2_export_import_with_pid_validation)
{
	struct child a, c;
	uint64_t sh = 0, sh_c = 0, ack = 0;
	int32_t tgid;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_EQ(0, spawn(&a, a_share_v2, (void *)(uintptr_t)ACL_RT_VMM_EXPORT_FLAG_DEFAULT));
	ASSERT_EQ(0, spawn(&c, c_import_v2, NULL));
	B_START(0, tgid);
	put_u64(a.wr, (uint64_t)tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh));
	ASSERT_EQ(0, try_get_u64(a.rd, &sh_c));
	/* C is not on the list: refused as an unknown name would be */
	put_u64(c.wr, sh_c);
	put_u64(c.wr, ACL_ERROR_INVALID_PARAM);
	EXPECT_EQ(0, try_get_u64(c.rd, &ack));
	EXPECT_EQ(0, reap(&c));
	b_import_v2(sh);
	put_u64(a.wr, 1);
	put_u64(a.wr, 2);
	EXPECT_EQ(0, reap(&a));
}

TEST(v2_disable_pid_validation_any_importer_v1_or_v2)
{
	struct child a, c;
	uint64_t sh = 0, sh_c = 0, ack = 0;
	int32_t tgid;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_EQ(0, spawn(&a, a_share_v2,
			   (void *)(uintptr_t)ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	/* C imports the V2 name with V1: the same names */
	ASSERT_EQ(0, spawn(&c, c_import_v2, (void *)1));
	B_START(0, tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh));
	ASSERT_EQ(0, try_get_u64(a.rd, &sh_c));
	put_u64(c.wr, sh_c);
	put_u64(c.wr, ACL_SUCCESS);
	EXPECT_EQ(0, try_get_u64(c.rd, &ack));
	EXPECT_EQ(0, reap(&c));
	b_import_v2(sh);
	put_u64(a.wr, 1);
	put_u64(a.wr, 2);
	EXPECT_EQ(0, reap(&a));
}

/* A: export two handles for the test's pid, free both (one still mapped), send the names. */
static void a_revoke(int rd, int wr, void *arg)
{
	aclrtPhysicalMemProp p = prop_on(0);
	aclrtDrvMemHandle h2;
	struct mem m;
	uint64_t sh1, sh2;
	int32_t pid;

	(void)arg;
	child_start(0);
	pid = (int32_t)get_u64(rd);
	child_alloc(&m, 0, 3);
	CK_ACL(ACL_SUCCESS, aclrtMallocPhysical(&h2, SZ, &p, 0));
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh1));
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(h2, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh2));
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh1, &pid, 1));
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh2, &pid, 1));
	/* the mapping keeps the memory, but the name goes with the handle */
	CK_ACL(ACL_SUCCESS, aclrtFreePhysical(m.h));
	CK_ACL(ACL_SUCCESS, aclrtFreePhysical(h2));
	child_check(m.va, 3);
	put_u64(wr, sh1);
	put_u64(wr, sh2);
	CK(get_u64(rd) == 1);
}

TEST(revoked_name_is_refused)
{
	aclrtDrvMemHandle h = NULL;
	struct child a;
	uint64_t sh1 = 0, sh2 = 0;
	int32_t tgid;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_EQ(0, spawn(&a, a_revoke, NULL));
	B_START(0, tgid);
	put_u64(a.wr, (uint64_t)tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh1));
	ASSERT_EQ(0, try_get_u64(a.rd, &sh2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(sh1, 0, &h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(sh2, 0, &h));
	EXPECT_NULL(h);
	put_u64(a.wr, 1);
	EXPECT_EQ(0, reap(&a));
}

/* A: export a filled handle for the test's pid; exit without cleaning up once told. */
static void a_exit_early(int rd, int wr, void *arg)
{
	struct mem m;
	uint64_t sh;
	int32_t pid;

	(void)arg;
	pid = (int32_t)get_u64(rd);
	child_start(0);
	child_alloc(&m, 0, 5);
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh, &pid, 1));
	put_u64(wr, sh);
	CK(get_u64(rd) == 1);
	_exit(0);
}

TEST(memory_outlives_the_exporter)
{
	aclrtMemAccessDesc d = rw_on(0);
	aclrtDrvMemHandle h;
	size_t free0, free1, free2, total;
	struct child a;
	uint64_t sh = 0;
	char *buf = malloc(SZ);
	int32_t tgid;
	void *va;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_EQ(0, spawn(&a, a_exit_early, NULL));
	B_START(0, tgid);
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
	put_u64(a.wr, (uint64_t)tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh));
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, SZ, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, SZ, &d, 1));
	put_u64(a.wr, 1);
	ASSERT_EQ(0, reap(&a));

	/* A is gone: its name too, not the memory */
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, SZ, 5));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
	EXPECT_EQ(free0 - SZ, free1);
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	/* still mapped */
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, SZ, 5));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free2, &total));
	EXPECT_EQ(free0, free2);
	free(buf);
}

/*
 * A: a filled, mapped handle exported for the test's pid; send the name,
 * the handle pointer and the VA; after the test poked at them, check the
 * data and mapping are intact.
 */
static void a_foreign(int rd, int wr, void *arg)
{
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };
	uint64_t sh, flag = 0;
	struct mem m;
	int32_t pid;

	(void)arg;
	pid = (int32_t)get_u64(rd);
	child_start(0);
	child_alloc(&m, 0, 11);
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh, &pid, 1));
	put_u64(wr, sh);
	put_u64(wr, (uintptr_t)m.h);
	put_u64(wr, (uintptr_t)m.va);
	CK(get_u64(rd) == 1);
	child_check(m.va, 11);
	CK_ACL(ACL_SUCCESS, aclrtMemGetAccess(m.va, &loc, &flag));
	CK(flag == ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	CK_ACL(ACL_SUCCESS, aclrtUnmapMem(m.va));
	CK_ACL(ACL_SUCCESS, aclrtFreePhysical(m.h));
	CK_ACL(ACL_SUCCESS, aclrtReleaseMemAddress(m.va));
}

TEST(foreign_handles_and_addresses_are_refused)
{
	aclrtMemLocation loc = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtMemAccessDesc d = rw_on(0);
	aclrtDrvMemHandle h, ah;
	uint64_t sh = 0, v = 0, flag;
	struct child a;
	int32_t tgid;
	void *ava;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_EQ(0, spawn(&a, a_foreign, NULL));
	B_START(0, tgid);
	put_u64(a.wr, (uint64_t)tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh));
	ASSERT_EQ(0, try_get_u64(a.rd, &v));
	ah = (aclrtDrvMemHandle)(uintptr_t)v;
	ASSERT_EQ(0, try_get_u64(a.rd, &v));
	ava = (void *)(uintptr_t)v;
	/* A's pointers are just numbers here: before B has objects of its own */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(ah));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(ava, SZ, 0, ah, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(ah, ACL_MEM_HANDLE_TYPE_NONE, 0, &v));
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(ava, SZ, 0, h, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(ava));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetAccess(ava, SZ, &d, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(ava, &loc, &flag));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(ava));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	put_u64(a.wr, 1);
	EXPECT_EQ(0, reap(&a));
}

/* A: a handle on device 1 exported to anyone. */
static void a_dev1(int rd, int wr, void *arg)
{
	struct mem m;
	uint64_t sh;

	(void)arg;
	child_start(1);
	child_alloc(&m, 1, 13);
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE,
							    ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &sh));
	put_u64(wr, sh);
	CK(get_u64(rd) == 1);
}

/*
 * CANN imports a name onto any device (api_impl.cc ImportFromShareableHandle):
 * the memory stays on the exporter's device, is peer memory for the
 * current one, and peer access is enabled both ways on the way
 * (raw_device.cc EnableP2PWithOtherDevice). Here the exporter's device
 * must be set in the importing process.
 */
TEST(import_onto_another_device_enables_peers)
{
	aclrtMemAccessDesc d[2] = { rw_on(1), rw_on(0) };
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h = NULL;
	struct child a;
	uint64_t sh = 0;
	char *model = malloc(SZ), *buf = malloc(SZ);
	const char *msg;
	int32_t tgid, st;
	void *dbuf;
	char *va;

	if (!have_npu(1))
		SKIP(return, "needs /dev/npu1");
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(buf);
	ASSERT_EQ(0, spawn(&a, a_dev1, NULL));
	B_START(0, tgid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh));
	/* the exporter's device is not open here: no context to make the handle in */
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtMemImportFromShareableHandle(sh, 0, &h));
	msg = aclGetRecentErrMsg();
	EXPECT_TRUE(msg && strstr(msg, "no thread of this process has set"));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMemImportFromShareableHandle(sh, 1, &h));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemImportFromShareableHandle(sh, 63, &h));
	EXPECT_NULL(h);

	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(0, st);
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
	ASSERT_NONNULL(h);
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(1, st);
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(1, 0, &st));
	EXPECT_EQ(1, st);
	/* it is device 1's memory */
	ASSERT_ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &prop));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, prop.location.type);
	EXPECT_EQ(1U, prop.location.id);

	/* mapped as torch_npu maps it, in the current device's reservation; granted to device 0 */
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&va, SZ, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, SZ, d, 2));
	ASSERT_ACL_OK(aclrtMalloc(&dbuf, SZ, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(model, SZ, 13);
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, SZ, 13));

	/* device 0's engine writes part of it through the peer mapping ... */
	fill_pattern(buf, SZ, 77);
	ASSERT_ACL_OK(aclrtMemcpy(dbuf, SZ, buf, SZ, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(va + 4096 + 123, 5000, (char *)dbuf + 777, 5000, ACL_MEMCPY_DEVICE_TO_DEVICE));
	memcpy(model + 4096 + 123, buf + 777, 5000);
	/* ... and reads other ranges back */
	memset(buf, 0, SZ);
	ASSERT_ACL_OK(aclrtMemset(dbuf, SZ, 0, SZ));
	ASSERT_ACL_OK(aclrtMemcpy(dbuf, SZ, va + 4000, 12000, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(buf, 12000, dbuf, 12000, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, model + 4000, 12000));
	ASSERT_ACL_OK(aclrtMemcpy(dbuf, SZ, va + SZ - 3 * 4096 - 5, 3 * 4096 + 5, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(buf, 3 * 4096 + 5, dbuf, 3 * 4096 + 5, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, model + SZ - 3 * 4096 - 5, 3 * 4096 + 5));
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, model, SZ));

	/* torch_npu enables the pair again: counted, and the import's reference stays */
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ASSERT_ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	EXPECT_EQ(1, st);
	ASSERT_ACL_OK(aclrtMemcpy(dbuf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, dbuf, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, model, SZ));

	put_u64(a.wr, 1);
	EXPECT_EQ(0, reap(&a));
	ASSERT_ACL_OK(aclrtFree(dbuf));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(va));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	free(model);
	free(buf);
}

/*
 * A: export a filled handle with default flags; list the pid it reads,
 * then (a second call, with pid 0 entries) the next one; send the name
 * twice; wait for "done".
 */
static void a_two_lists(int rd, int wr, void *arg)
{
	struct mem m;
	uint64_t sh;
	int32_t pid[3] = { 0 };

	(void)arg;
	child_start(0);
	child_alloc(&m, 0, 41);
	CK_ACL(ACL_SUCCESS, aclrtMemExportToShareableHandle(m.h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
	pid[0] = (int32_t)get_u64(rd);
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh, pid, 1));
	put_u64(wr, 0);
	CK(get_u64(rd) == 1);		/* that process has exited */
	pid[0] = 0;
	pid[1] = (int32_t)get_u64(rd);
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh, pid, 3));
	pid[1] = (int32_t)get_u64(rd);
	CK_ACL(ACL_SUCCESS, aclrtMemSetPidToShareableHandle(sh, pid, 3));
	put_u64(wr, sh);
	put_u64(wr, sh);
	CK(get_u64(rd) == 2);
}

/* D: wait for a byte, exit. */
static void d_wait(int rd, int wr, void *arg)
{
	(void)wr;
	(void)arg;
	get_u64(rd);
}

/*
 * CANN adds pids to the list (svm_master_mem_share.c devmm_set_pids()):
 * both processes listed by two calls import. A listed process that
 * exited is dropped from the list, not an error of the next call.
 */
TEST(set_pids_adds_to_the_list)
{
	aclrtMemAccessDesc d = rw_on(0);
	aclrtDrvMemHandle h = NULL;
	struct child a, c, dd;
	uint64_t sh = 0, sh_c = 0, ack = 1;
	char *buf = malloc(SZ);
	int32_t tgid;
	void *va;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_NONNULL(buf);
	ASSERT_EQ(0, spawn(&a, a_two_lists, NULL));
	ASSERT_EQ(0, spawn(&dd, d_wait, NULL));
	ASSERT_EQ(0, spawn(&c, c_import_v2, (void *)1));
	put_u64(a.wr, (uint64_t)dd.pid);
	ASSERT_EQ(0, try_get_u64(a.rd, &ack));
	EXPECT_EQ(0U, ack);
	put_u64(dd.wr, 1);
	EXPECT_EQ(0, reap(&dd));
	put_u64(a.wr, 1);
	B_START(0, tgid);
	put_u64(a.wr, (uint64_t)tgid);
	put_u64(a.wr, (uint64_t)c.pid);
	ASSERT_EQ(0, try_get_u64(a.rd, &sh));
	ASSERT_EQ(0, try_get_u64(a.rd, &sh_c));
	/* the later call listed C; B, listed before it, is still on the list */
	put_u64(c.wr, sh_c);
	put_u64(c.wr, ACL_SUCCESS);
	EXPECT_EQ(0, try_get_u64(c.rd, &ack));
	EXPECT_EQ(1U, ack);
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&va, SZ, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(va, SZ, 0, h, 0));
	ASSERT_ACL_OK(aclrtMemSetAccess(va, SZ, &d, 1));
	ASSERT_ACL_OK(aclrtMemcpy(buf, SZ, va, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, SZ, 41));
	put_u64(a.wr, 2);
	EXPECT_EQ(0, reap(&a));
	ASSERT_ACL_OK(aclrtUnmapMem(va));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(va));
	free(buf);
}

TEST_HARNESS_MAIN
