// SPDX-License-Identifier: MIT
/*
 * libacl: IPC memory (aclrtIpcMem*). The test process exports aclrtMalloc
 * memory (or, for the exporter-killed case, imports it); the other side
 * is a forked child that starts libacl afresh and reports through a pipe.
 * Every check of a child is repeated in its exit status. Skips without
 * /dev/npu0.
 */
#include <pthread.h>
#include <signal.h>

#include "lib_child.h"
#include "lib_util.h"

#define KEYLEN	65

struct job {
	char key[KEYLEN];
	size_t size;		/* bytes the importer checks */
	size_t key_size;	/* bytes the key names */
	unsigned int seed;	/* their pattern */
	int dev;		/* the child's current device */
	uint64_t flags;		/* import flags */
	int want;		/* what the first import answers */
};

static void send_buf(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		_exit(5);
}

static void recv_buf(int fd, void *p, size_t n)
{
	if (read(fd, p, n) != (ssize_t)n)
		_exit(6);
}

/* A child starts with libacl initialised by the fork handler, no device set. */
static void child_init(void)
{
	aclError r = aclInit(NULL);

	CK(r == ACL_SUCCESS || r == ACL_ERROR_REPEAT_INITIALIZE);
}

/* @n bytes at device @va equal the pattern @seed. */
static bool dev_has(void *va, size_t n, unsigned int seed)
{
	char *buf = malloc(n), *want = malloc(n);
	bool ok;

	if (!buf || !want)
		_exit(7);
	fill_pattern(want, n, seed);
	ok = aclrtMemcpy(buf, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS &&
	     !memcmp(buf, want, n);
	free(buf);
	free(want);
	return ok;
}

/*
 * Importer: import the job's key (expecting job.want), check the bytes
 * through a D2D copy into memory of its own; a second import while the
 * first is held is refused (as the vendor's driver does); write pattern
 * seed + 1 into the first page through the import, close it, import again
 * and read it back, close, report 1; a third close fails.
 */
static void importer(int rd, int wr, void *arg)
{
	struct job j;
	void *a = NULL, *b = NULL, *own;
	char *page;
	int done = 1;

	(void)arg;
	child_init();
	recv_buf(rd, &j, sizeof(j));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	if (j.dev)
		CK_ACL(ACL_SUCCESS, aclrtSetDevice(j.dev));
	CK_ACL(j.want, aclrtIpcMemImportByKey(&a, j.key, j.flags));
	if (j.want != ACL_SUCCESS) {
		CK(!a);
		send_buf(wr, &done, sizeof(done));
		return;
	}
	CK(a);
	CK_ACL(ACL_SUCCESS, aclrtMalloc(&own, j.size, ACL_MEM_MALLOC_NORMAL_ONLY));
	CK_ACL(ACL_SUCCESS, aclrtMemcpy(own, j.size, a, j.size, ACL_MEMCPY_DEVICE_TO_DEVICE));
	CK(dev_has(own, j.size, j.seed));
	CK_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&b, j.key, 0));
	CK(!b);
	CK(strstr(aclGetRecentErrMsg(), "imported by this process already"));
	{
		void *base = NULL;
		size_t size = 0;
		uint32_t dev = 0;

		CK_ACL(ACL_SUCCESS, aclrtMemGetAddressRange((char *)a + j.key_size - 1, &base, &size));
		CK(base == a && size == j.key_size);
		CK_ACL(ACL_SUCCESS, aclrtCheckMemType(&a, 1, ACL_RT_MEM_TYPE_DEV, &dev, 0));
		CK(dev == 1);
	}
	page = malloc(4096);
	CK(page);
	fill_pattern(page, 4096, j.seed + 1);
	CK_ACL(ACL_SUCCESS, aclrtMemcpy(own, 4096, page, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	CK_ACL(ACL_SUCCESS, aclrtMemcpy(a, 4096, own, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	free(page);
	/* closed, the key imports again, and reads what was written */
	CK_ACL(ACL_SUCCESS, aclrtIpcMemClose(j.key));
	CK_ACL(ACL_SUCCESS, aclrtIpcMemImportByKey(&b, j.key, j.flags));
	CK(dev_has(b, 4096, j.seed + 1));
	CK_ACL(ACL_SUCCESS, aclrtIpcMemClose(j.key));
	CK_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(j.key));
	CK_ACL(ACL_SUCCESS, aclrtFree(own));
	send_buf(wr, &done, sizeof(done));
}

/* Every one of @n bytes at device @va is @v. */
static bool dev_all(void *va, size_t n, unsigned char v)
{
	unsigned char *buf = malloc(n);
	bool ok;
	size_t i;

	if (!buf)
		_exit(7);
	ok = aclrtMemcpy(buf, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS;
	for (i = 0; ok && i < n; i++)
		ok = buf[i] == v;
	free(buf);
	return ok;
}

/* aclrtMalloc @n bytes (4 KiB pages) filled with @seed. */
static void *alloc_filled(size_t n, unsigned int seed)
{
	char *buf = malloc(n);
	void *va = NULL;

	if (!buf)
		return NULL;
	fill_pattern(buf, n, seed);
	if (aclrtMalloc(&va, n, ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMemcpy(va, n, buf, n, ACL_MEMCPY_HOST_TO_DEVICE))
		va = NULL;
	free(buf);
	return va;
}

/* Run importer() children on @j, one per entry of @want; their exit statuses. */
static int run_importer(struct job j, int32_t *pid_out, bool list)
{
	struct child c;
	int done = 0;

	if (spawn(&c, importer, NULL))
		return -1;
	if (pid_out)
		*pid_out = c.pid;
	if (list && aclrtIpcMemSetImportPid(j.key, &c.pid, 1) != ACL_SUCCESS)
		return -2;
	send_buf(c.wr, &j, sizeof(j));
	if (read(c.rd, &done, sizeof(done)) != sizeof(done))
		done = 0;
	return done == 1 ? reap(&c) : 100 + reap(&c);
}

static void *no_context_export(void *arg)
{
	char key[KEYLEN];

	return (void *)(intptr_t)aclrtIpcMemGetExportKey(arg, 4096, key, sizeof(key), 0);
}

TEST(export_key_checks)
{
	void *va, *host, *vmm, *hostreg, *base;
	aclrtDrvMemHandle h;
	size_t alloc;
	aclrtPhysicalMemProp p = {
		.handleType = ACL_MEM_HANDLE_TYPE_NONE,
		.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
		.memAttr = ACL_HBM_MEM_HUGE,
		.location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	};
	char key[KEYLEN], key2[KEYLEN];
	int32_t self = getpid(), bad = 0;
	pthread_t t;
	void *r;

	NEED_DEVICE();
	ASSERT_NONNULL(va = alloc_filled(4 * 4096, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(NULL, 4096, key, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(va, 4096, NULL, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(va, 0, key, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(va, 4096, key, 0, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(va, 4096, key, KEYLEN, 2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(va, 4096, key, 8, 0));
	/* page-aligned, inside the allocation */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey((char *)va + 16, 4096, key, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(va, 100, key, KEYLEN, 0));
	/* past the end of what the device allocated (aclrtMalloc pads) */
	ASSERT_ACL_OK(aclrtMemGetAddressRange(va, &base, &alloc));
	ASSERT_EQ(va, base);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(va, alloc + 4096, key, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtIpcMemGetExportKey((char *)va + 4096, alloc, key, KEYLEN, 0));
	ASSERT_ACL_OK(aclrtIpcMemGetExportKey(va, alloc, key, KEYLEN, 0));
	ASSERT_ACL_OK(aclrtIpcMemClose(key));
	/* only aclrtMalloc memory */
	ASSERT_ACL_OK(aclrtMallocHost(&host, 4096));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(host, 4096, key, KEYLEN, 0));
	hostreg = aligned_alloc(4096, 4096);
	ASSERT_NONNULL(hostreg);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(hostreg, 4096, key, KEYLEN, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &p, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&vmm, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMapMem(vmm, 2 * MiB, 0, h, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(vmm, 2 * MiB, key, KEYLEN, 0));
	/* a thread with no current context */
	ASSERT_EQ(0, pthread_create(&t, NULL, no_context_export, va));
	ASSERT_EQ(0, pthread_join(t, &r));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, (aclError)(intptr_t)r);

	memset(key, 'x', sizeof(key));
	ASSERT_ACL_OK(aclrtIpcMemGetExportKey((char *)va + 4096, 2 * 4096, key, KEYLEN, 0));
	EXPECT_GT(KEYLEN, (int)strnlen(key, KEYLEN));
	ASSERT_ACL_OK(aclrtIpcMemGetExportKey((char *)va + 4096, 2 * 4096, key2, KEYLEN, 1));
	EXPECT_NE(0, strcmp(key, key2));
	TH_LOG("key %s", key);

	/* the pid list */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(NULL, &self, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(key, NULL, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, &self, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, &bad, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid("no key", &self, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid("npu0-ipc-0123456789abcdef", &self, 1));
	ASSERT_ACL_OK(aclrtIpcMemSetImportPid(key, &self, 1));

	/* importing: this process exported it */
	r = NULL;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(NULL, key, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&r, NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&r, key, 2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&r, key, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&r, "npu0-ipc-0123456789ABCDEF", 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&r, "npu0-ipc-+123456789abcdef", 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&r, "npu0-ipc-0123456789abcdef0", 0));
	EXPECT_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtIpcMemImportByKey(&r, "npu0-ipc-0123456789abcdef", 0));
	/* a device with no node: an unknown key too */
	EXPECT_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtIpcMemImportByKey(&r, "npu63-ipc-0123456789abcdef", 0));
	EXPECT_EQ(NULL, r);

	/* attributes: nothing to choose on this chip */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr(NULL, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr(key, (aclrtIpcMemAttrType)1, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 4));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS));

	/* the exporter's close destroys the key, once */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcMemClose(NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose("npu0-ipc-xyz"));
	ASSERT_ACL_OK(aclrtIpcMemClose(key));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(key));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, &self, 1));
	/* aclrtFree takes the other key with it */
	ASSERT_ACL_OK(aclrtFree(va));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(key2));

	free(hostreg);
	ASSERT_ACL_OK(aclrtUnmapMem(vmm));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(vmm));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	ASSERT_ACL_OK(aclrtFreeHost(host));
	ASSERT_ACL_OK(aclrtResetDevice(0));
}

/*
 * Two processes share the middle pages of an allocation. With pid
 * validation only the listed process imports; a third is refused. The
 * importer's writes land at the right offset of the exporter's memory.
 */
TEST(share_by_key_with_and_without_pid_validation)
{
	const size_t n = 16 * 4096, off = 4 * 4096, len = 8 * 4096;
	struct job j = { .size = len, .key_size = len, .seed = 7 };
	char *model, *back;
	void *va;

	NEED_DEVICE();
	ASSERT_NONNULL(va = alloc_filled(n, 3));
	model = malloc(n);
	back = malloc(n);
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(back);
	fill_pattern(model, n, 3);
	/* the exported range holds pattern 7 from its own start */
	fill_pattern(model + off, len, 7);
	ASSERT_ACL_OK(aclrtMemcpy((char *)va + off, len, model + off, len, ACL_MEMCPY_HOST_TO_DEVICE));

	ASSERT_ACL_OK(aclrtIpcMemGetExportKey((char *)va + off, len, j.key, sizeof(j.key), 0));
	/* not listed */
	j.want = ACL_ERROR_RT_NO_PERMISSION;
	EXPECT_EQ(0, run_importer(j, NULL, false));
	/* listed: imports, and writes pattern 8 over the range's first page */
	j.want = ACL_SUCCESS;
	EXPECT_EQ(0, run_importer(j, NULL, true));
	fill_pattern(model + off, 4096, 8);
	ASSERT_ACL_OK(aclrtMemcpy(back, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back, model, n));
	/* a third process, not listed */
	j.want = ACL_ERROR_RT_NO_PERMISSION;
	EXPECT_EQ(0, run_importer(j, NULL, false));
	ASSERT_ACL_OK(aclrtIpcMemClose(j.key));

	/* without validation anyone (of this uid) imports */
	ASSERT_ACL_OK(aclrtMemcpy((char *)va + off, len, model + off, len, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtIpcMemGetExportKey((char *)va + off, len, j.key, sizeof(j.key),
					      ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	j.seed = 8;	/* the range starts with the page pattern 8 wrote */
	j.size = 4096;
	j.want = ACL_SUCCESS;
	EXPECT_EQ(0, run_importer(j, NULL, false));
	ASSERT_ACL_OK(aclrtIpcMemClose(j.key));
	/* closed: no more imports */
	j.want = ACL_ERROR_RT_NO_PERMISSION;
	EXPECT_EQ(0, run_importer(j, NULL, false));

	ASSERT_ACL_OK(aclrtFree(va));
	free(model);
	free(back);
	ASSERT_ACL_OK(aclrtResetDevice(0));
}

/* Exporter: allocate, fill with seed 5, export (no pid list), send the key, wait. */
static void exporter(int rd, int wr, void *arg)
{
	char key[KEYLEN];
	void *va;

	(void)arg;
	child_init();
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK(va = alloc_filled(2 * MiB, 5));
	CK_ACL(ACL_SUCCESS, aclrtIpcMemGetExportKey(va, 2 * MiB, key, sizeof(key),
						    ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	send_buf(wr, key, sizeof(key));
	recv_buf(rd, key, 1);	/* killed before this returns */
}

static size_t dev_free(void)
{
	size_t free = 0, total = 0;

	if (aclrtGetMemInfo(ACL_HBM_MEM, &free, &total))
		return 0;
	return free;
}

/*
 * The exporter is killed while this process maps its memory and copies
 * from it: as on the vendor's device the import loses the pages - copies
 * through it fail from then on - and the pages are freed when this
 * process closes its import.
 */
TEST(exporter_killed_while_imported)
{
	char key[KEYLEN];
	struct child e;
	size_t free0, held;
	void *imp = NULL, *own;
	int i, st;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&own, 2 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	free0 = dev_free();
	ASSERT_NE(0U, free0);
	ASSERT_EQ(0, spawn(&e, exporter, NULL));
	ASSERT_EQ((ssize_t)sizeof(key), read(e.rd, key, sizeof(key)));
	ASSERT_ACL_OK(aclrtIpcMemImportByKey(&imp, key, 0));
	ASSERT_ACL_OK(aclrtMemcpy(own, 2 * MiB, imp, 2 * MiB, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_TRUE(dev_has(own, 2 * MiB, 5));
	held = dev_free();
	EXPECT_GE(free0 - 2 * MiB, held);
	ASSERT_EQ(0, kill(e.pid, SIGKILL));
	ASSERT_EQ(e.pid, waitpid(e.pid, &st, 0));
	EXPECT_TRUE(WIFSIGNALED(st));
	close(e.rd);
	close(e.wr);
	npu_expect_dma_faults(true);
	for (i = 0; i < 3; i++) {
		ASSERT_ACL_OK(aclrtMemset(own, 2 * MiB, 0, 2 * MiB));
		EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtMemcpy(own, 2 * MiB, imp, 2 * MiB,
							    ACL_MEMCPY_DEVICE_TO_DEVICE));
		EXPECT_TRUE(dev_all(own, 2 * MiB, 0));
		EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtMemcpy(imp, 4096, own, 4096,
							    ACL_MEMCPY_DEVICE_TO_DEVICE));
	}
	/* its key went with it */
	{
		void *again = NULL;

		EXPECT_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtIpcMemImportByKey(&again, key, 0));
	}
	/* the import holds all the exporter had allocated */
	EXPECT_EQ(held, dev_free());
	ASSERT_ACL_OK(aclrtIpcMemClose(key));
	EXPECT_EQ(free0, dev_free());
	ASSERT_ACL_OK(aclrtFree(own));
	ASSERT_ACL_OK(aclrtResetDevice(0));
}

/*
 * Imported on device 1 (current) from device 0, which this process never
 * sets (as the vendor's notify examples' proc_b: CANN imports on the
 * current device; the import opens device 0 itself): ENABLE_PEER_ACCESS
 * lets device 1's copies reach it; without it (and no peer access) they
 * fail.
 */
static void peer_importer(int rd, int wr, void *arg)
{
	void *imp = NULL, *own;
	struct job j;
	int32_t st = -1;
	int done = 1;

	(void)arg;
	child_init();
	recv_buf(rd, &j, sizeof(j));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(1));
	CK_ACL(ACL_SUCCESS, aclrtIpcMemImportByKey(&imp, j.key, j.flags));
	CK_ACL(ACL_SUCCESS, aclrtMalloc(&own, j.size, ACL_MEM_MALLOC_NORMAL_ONLY));
	CK_ACL(ACL_SUCCESS, aclrtDevicePeerAccessStatus(1, 0, &st));
	CK(st == (j.flags ? 1 : 0));
	CK_ACL(ACL_SUCCESS, aclrtDevicePeerAccessStatus(0, 1, &st));
	CK(st == (j.flags ? 1 : 0));
	if (j.flags) {
		CK_ACL(ACL_SUCCESS, aclrtMemcpy(own, j.size, imp, j.size, ACL_MEMCPY_DEVICE_TO_DEVICE));
		CK(dev_has(own, j.size, j.seed));
	} else {
		CK_ACL(ACL_ERROR_INVALID_PARAM,
		       aclrtMemcpy(own, j.size, imp, j.size, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
	}
	CK_ACL(ACL_SUCCESS, aclrtIpcMemClose(j.key));
	CK_ACL(ACL_SUCCESS, aclrtFree(own));
	send_buf(wr, &done, sizeof(done));
}

TEST(import_on_another_device_enable_peer_access)
{
	struct job j = { .size = 8 * 4096, .seed = 9 };
	struct child c;
	int done, k;
	void *va;

	if (!have_npu(1))
		SKIP(return, "needs two devices");
	NEED_DEVICE();
	ASSERT_NONNULL(va = alloc_filled(j.size, 9));
	ASSERT_ACL_OK(aclrtIpcMemGetExportKey(va, j.size, j.key, sizeof(j.key),
					      ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	for (k = 0; k < 2; k++) {
		j.flags = k ? ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS : 0;
		ASSERT_EQ(0, spawn(&c, peer_importer, NULL));
		send_buf(c.wr, &j, sizeof(j));
		done = 0;
		EXPECT_EQ((ssize_t)sizeof(done), read(c.rd, &done, sizeof(done)));
		EXPECT_EQ(1, done);
		EXPECT_EQ(0, reap(&c));
	}
	ASSERT_ACL_OK(aclrtIpcMemClose(j.key));
	ASSERT_ACL_OK(aclrtFree(va));
	ASSERT_ACL_OK(aclrtResetDevice(0));
}

TEST_HARNESS_MAIN
