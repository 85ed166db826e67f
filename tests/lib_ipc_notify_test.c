// SPDX-License-Identifier: MIT
/*
 * libacl: IPC notifies (aclrtNotifyGetExportKey, aclrtNotifySetImportPid,
 * aclrtNotifyImportByKey). The test process exports a notify and queues
 * the waits; a forked child starts libacl afresh, imports the key and
 * records, as the vendor's notify/0_ipc_notify_withpid does. Every check
 * of a child is repeated in its exit status. Skips without /dev/npu0.
 */
#include <inttypes.h>
#include <signal.h>

#include "lib_child.h"
#include "lib_util.h"

#define KEYLEN	65

struct job {
	char key[KEYLEN];
	int dev;		/* the child's current device */
	uint64_t flags;		/* import flags */
	int want;		/* what the import answers */
	bool wait_there;	/* also try a wait on the child's stream */
};

static void send_val(int fd, int v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		_exit(5);
}

static int recv_val(int fd)
{
	int v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

/* The device word at @dev reads @want within @ms milliseconds. */
static bool dev_word_becomes(const uint64_t *dev, uint64_t want, int ms)
{
	uint64_t v = 0;

	for (; ms > 0; ms -= 10) {
		if (aclrtMemcpy(&v, sizeof(v), dev, sizeof(v), ACL_MEMCPY_DEVICE_TO_HOST))
			return false;
		if (v == want)
			return true;
		usleep(10000);
	}
	return false;
}

/* A child: libacl afresh, then the first @n bytes the test sends, into @buf. */
static void child_begin(int rd, void *buf, size_t n)
{
	aclError r = aclInit(NULL);

	CK(r == ACL_SUCCESS || r == ACL_ERROR_REPEAT_INITIALIZE);
	if (read(rd, buf, n) != (ssize_t)n)
		_exit(6);
}

/* Start @fn in a child and send it @key: 0, or -1. */
static int start_with_key(struct child *c, void (*fn)(int rd, int wr, void *arg), const char *key)
{
	if (spawn(c, fn, NULL))
		return -1;
	return write(c->wr, key, KEYLEN) == KEYLEN ? 0 : -1;
}

/*
 * Importer: import the key (expecting job.want); then its id is the
 * exporter's, a second import of the key in this process is refused, a
 * wait there is refused unless the stream is on the notify's device, and
 * each "go" from the test becomes a record on its stream.
 */
static void importer(int rd, int wr, void *arg)
{
	aclrtNotify n = NULL, n2 = NULL;
	aclrtStream s;
	struct job j;
	uint32_t id = 0;

	(void)arg;
	child_begin(rd, &j, sizeof(j));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	if (j.dev)
		CK_ACL(ACL_SUCCESS, aclrtSetDevice(j.dev));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(j.want, aclrtNotifyImportByKey(&n, j.key, j.flags));
	if (j.want != ACL_SUCCESS) {
		CK(!n);
		send_val(wr, 1);
		return;
	}
	CK(n);
	CK_ACL(ACL_SUCCESS, aclrtGetNotifyId(n, &id));
	send_val(wr, (int)id);
	/* an IPC notify's waits run on its own device */
	if (j.wait_there)
		CK_ACL(j.dev ? ACL_ERROR_RT_PARAM_INVALID : ACL_SUCCESS, aclrtWaitAndResetNotify(n, s, 0));
	/* one import a process, as one of IPC memory; an import is not exported again */
	CK_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n2, j.key, j.flags));
	CK(!n2);
	CK(strstr(aclGetRecentErrMsg(), "imported by this process already"));
	CK_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtNotifyGetExportKey(n, j.key, KEYLEN, 0));
	while (recv_val(rd) == 1) {
		CK_ACL(ACL_SUCCESS, aclrtRecordNotify(n, s));
		CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(s));
		send_val(wr, 1);
	}
	CK_ACL(ACL_SUCCESS, aclrtDestroyNotify(n));
	CK_ACL(ACL_SUCCESS, aclrtDestroyStream(s));
	send_val(wr, 1);
}

FIXTURE(ipcn) {
	aclrtNotify n;
	aclrtStream s;
	char key[KEYLEN];
};
FIXTURE_SETUP(ipcn)
{
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateNotify(&self->n, ACL_NOTIFY_DEFAULT));
	ASSERT_ACL_OK(aclrtCreateStream(&self->s));
}
FIXTURE_TEARDOWN(ipcn)
{
}

TEST_F(ipcn, export_and_import_checks)
{
	char key[KEYLEN], mkey[KEYLEN], want[KEYLEN];
	aclrtNotify n2 = NULL, busy;
	aclrtServerPid sp = { 0 };
	int32_t pid = getpid();
	const char *msg;
	uint32_t id = 0;
	void *mem;

	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(NULL, key, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(self->n, NULL, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(self->n, key, 0, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(self->n, key, KEYLEN, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(self->n, key, KEYLEN, 3));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(self->n, key, 16, 0));
	/* not exported yet: nothing to list pids for */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(NULL, &pid, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(self->n, NULL, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(self->n, &pid, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(self->n, &pid, 1));

	/* a notify with a wait queued does not move its flag */
	ASSERT_ACL_OK(aclrtCreateNotify(&busy, 0));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(busy, self->s, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(busy, key, KEYLEN, 0));
	ASSERT_ACL_OK(aclrtRecordNotify(busy, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(busy, key, KEYLEN, 0));
	ASSERT_ACL_OK(aclrtDestroyNotify(busy));

	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, key, KEYLEN, 0));
	ASSERT_ACL_OK(aclrtGetNotifyId(self->n, &id));
	snprintf(want, sizeof(want), "npu0-notify%u-", id);
	EXPECT_EQ(0, strncmp(key, want, strlen(want)));
	EXPECT_EQ(strlen(want) + 16, strlen(key));
	/* once only, as CANN; a refused call leaves the buffer alone */
	memcpy(want, key, sizeof(want));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtNotifyGetExportKey(self->n, key, KEYLEN, 0));
	EXPECT_EQ(0, strcmp(want, key));
	ASSERT_ACL_OK(aclrtNotifySetImportPid(self->n, &pid, 1));
	pid = 0x7ffffff0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(self->n, &pid, 1));
	/* the super-pod list: checked, then not on this chip */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(self->n, NULL, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(self->n, &sp, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(self->n, &sp, 1));
	pid = getpid();
	sp.pid = &pid;
	sp.num = 2;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(self->n, &sp, 1));
	sp.num = 1;
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNotifySetImportPidInterServer(self->n, &sp, 1));

	/* imports */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(NULL, key, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(&n2, NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n2, key, 4));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNotifyImportByKey(&n2, key, ACL_NOTIFY_DEVICE_USE_ONLY));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n2, "npu0-notify", 0));
	/* the exporter's own key */
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n2, key, 0));
	msg = aclGetRecentErrMsg();
	EXPECT_TRUE(msg && strstr(msg, "exported by this process"));
	/* memory keys and notify keys do not cross */
	ASSERT_ACL_OK(aclrtMalloc(&mem, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtIpcMemGetExportKey(mem, 4096, mkey, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n2, mkey, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&mem, key, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(key));
	/* an unknown name */
	memcpy(want, key, sizeof(want));
	want[strlen(want) - 1] = want[strlen(want) - 1] == '0' ? '1' : '0';
	EXPECT_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&n2, want, 0));
	EXPECT_EQ(NULL, n2);
	ASSERT_ACL_OK(aclrtIpcMemClose(mkey));
	ASSERT_ACL_OK(aclrtFree(mem));

	/* still a notify of this process: record and wait, then gone */
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->s));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNotifyGetExportKey(self->n, key, KEYLEN, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNotifySetImportPid(self->n, &pid, 1));
}

/*
 * A record in another process releases a wait here, one wait a record;
 * a flag set before the export is kept; the pid list admits only the
 * listed process, and DISABLE_PID_VALIDATION any.
 */
TEST_F(ipcn, record_in_another_process_releases_a_wait)
{
	struct job j = { .want = ACL_SUCCESS };
	struct child c;
	uint32_t id = 0;
	uint64_t *mark;
	aclrtNotify n2;
	uint64_t v = 0;

	ASSERT_ACL_OK(aclrtMalloc((void **)&mark, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mark, 8, 0, 8));
	/* set before the export: the first wait passes at once */
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, j.key, KEYLEN, 0));
	ASSERT_ACL_OK(aclrtGetNotifyId(self->n, &id));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));

	/* not listed: refused */
	j.want = ACL_ERROR_RT_NO_PERMISSION;
	ASSERT_EQ(0, spawn(&c, importer, NULL));
	ASSERT_EQ(0, write(c.wr, &j, sizeof(j)) == sizeof(j) ? 0 : -1);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));

	/* listed: its records release the waits queued here, one each */
	j.want = ACL_SUCCESS;
	ASSERT_EQ(0, spawn(&c, importer, NULL));
	ASSERT_ACL_OK(aclrtNotifySetImportPid(self->n, &c.pid, 1));
	ASSERT_EQ(sizeof(j), (size_t)write(c.wr, &j, sizeof(j)));
	EXPECT_EQ((int)id, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 1, 0, self->s));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 2, 0, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 100));
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	/* the first wait passes (however slow the engine), the second holds */
	EXPECT_TRUE(dev_word_becomes(mark, 1, 20000));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 200));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(1U, v);
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(2U, v);
	send_val(c.wr, 0);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));

	/* without validation anyone may import */
	ASSERT_ACL_OK(aclrtCreateNotify(&n2, 0));
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(n2, j.key, KEYLEN, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	j.wait_there = false;
	ASSERT_EQ(0, spawn(&c, importer, NULL));
	ASSERT_EQ(sizeof(j), (size_t)write(c.wr, &j, sizeof(j)));
	EXPECT_LE(0, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(n2, self->s, 0));
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	send_val(c.wr, 0);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtDestroyNotify(n2));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
	ASSERT_ACL_OK(aclrtFree(mark));
}

/*
 * An importer on device 1 records the notify of device 0 through peer
 * access (ENABLE_PEER_ACCESS at import), as notify/0_ipc_notify_withpid
 * does between its devices; its waits are refused there.
 */
TEST_F(ipcn, record_from_another_device)
{
	struct job j = { .dev = 1, .want = ACL_SUCCESS, .wait_there = true,
			 .flags = ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS };
	struct child c;

	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, j.key, KEYLEN,
					      ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ASSERT_EQ(0, spawn(&c, importer, NULL));
	ASSERT_EQ(sizeof(j), (size_t)write(c.wr, &j, sizeof(j)));
	EXPECT_LE(0, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 100));
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	send_val(c.wr, 0);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

/* Without peer access a record from another device is refused, and says so. */
static void no_peer_importer(int rd, int wr, void *arg)
{
	aclrtNotify n = NULL;
	char key[KEYLEN];
	aclrtStream s;

	(void)arg;
	child_begin(rd, key, sizeof(key));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(1));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(ACL_SUCCESS, aclrtNotifyImportByKey(&n, key, 0));
	CK_ACL(ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(n, s));
	CK(strstr(aclGetRecentErrMsg(), "peer access"));
	CK_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyBatchReset(&n, 1));
	CK_ACL(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(0, 0));
	CK_ACL(ACL_SUCCESS, aclrtRecordNotify(n, s));
	CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(s));
	CK_ACL(ACL_SUCCESS, aclrtDestroyNotify(n));
	send_val(wr, 1);
}

TEST_F(ipcn, another_device_needs_peer_access)
{
	char key[KEYLEN];
	struct child c;

	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, key, KEYLEN, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	ASSERT_EQ(0, start_with_key(&c, no_peer_importer, key));
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

/*
 * An importer that never sets the notify's device, as the vendor's
 * notify examples' proc_b (device 3 imports device 2's notify, with only
 * aclrtDeviceEnablePeerAccess): CANN imports on the current device, so
 * the import opens the notify's device itself, without setting it; a
 * record from the current device releases the exporter's wait; the
 * device stays unset (aclrtGetDevice, aclrtResetDevice), and aclFinalize
 * closes it. A key naming a device with no node is an unknown key.
 */
static void unset_device_importer(int rd, int wr, void *arg)
{
	aclrtNotify n = NULL, n2 = NULL;
	char key[KEYLEN];
	int32_t cur = -1;
	aclrtStream s;

	(void)arg;
	child_begin(rd, key, sizeof(key));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(1));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(ACL_SUCCESS, aclrtDeviceEnablePeerAccess(0, 0));
	CK_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&n2, "npu63-notify1-0123456789abcdef", 0));
	CK(!n2);
	CK(lib_npu_fd() < 0);
	CK_ACL(ACL_SUCCESS, aclrtNotifyImportByKey(&n, key, 0));
	CK(n);
	CK(lib_npu_fd() >= 0);
	CK_ACL(ACL_SUCCESS, aclrtGetDevice(&cur));
	CK(cur == 1);
	CK_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
	/* one import a process, opened device or not */
	CK_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n2, key, 0));
	send_val(wr, 1);
	CK(recv_val(rd) == 1);
	CK_ACL(ACL_SUCCESS, aclrtRecordNotify(n, s));
	CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(s));
	CK_ACL(ACL_SUCCESS, aclrtDestroyNotify(n));
	CK_ACL(ACL_SUCCESS, aclrtDestroyStream(s));
	CK_ACL(ACL_SUCCESS, aclrtResetDevice(1));
	/* the device the import opened stays open until aclFinalize */
	CK(lib_npu_fd() >= 0);
	CK_ACL(ACL_SUCCESS, aclFinalize());
	CK(lib_npu_fd() < 0);
	send_val(wr, 1);
}

TEST_F(ipcn, import_on_a_device_not_set)
{
	char key[KEYLEN];
	struct child c;

	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, key, KEYLEN, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	ASSERT_EQ(0, start_with_key(&c, unset_device_importer, key));
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 100));
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

/*
 * The exporter's notify is destroyed while an importer holds its own:
 * the key is gone (a new import is refused); the importer's records
 * fault (the page was revoked), and nothing is left behind.
 */
static void late_importer(int rd, int wr, void *arg)
{
	aclrtNotify n = NULL, n2 = NULL;
	char key[KEYLEN];
	aclrtStream s;

	(void)arg;
	child_begin(rd, key, sizeof(key));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(ACL_SUCCESS, aclrtNotifyImportByKey(&n, key, 0));
	send_val(wr, 1);
	CK(recv_val(rd) == 1);
	CK_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&n2, key, 0));
	CK_ACL(ACL_SUCCESS, aclrtRecordNotify(n, s));
	CK(aclrtSynchronizeStream(s) != ACL_SUCCESS);
	CK_ACL(ACL_SUCCESS, aclrtDestroyNotify(n));
	CK_ACL(ACL_SUCCESS, aclrtDestroyStreamForce(s));
	send_val(wr, 1);
}

TEST_F(ipcn, exporter_destroys_first)
{
	char key[KEYLEN];
	struct child c;

	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, key, KEYLEN, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ASSERT_EQ(0, start_with_key(&c, late_importer, key));
	EXPECT_EQ(1, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
	npu_expect_dma_faults(true);
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));
	npu_expect_dma_faults(false);
}

/*
 * The importer's current device is reset: the import lives on (its page
 * is on the exporter's device): it is destroyed, and imported again.
 */
static void reset_importer(int rd, int wr, void *arg)
{
	aclrtNotify n = NULL;
	char key[KEYLEN];
	aclrtStream s;

	(void)arg;
	child_begin(rd, key, sizeof(key));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(1));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(ACL_SUCCESS, aclrtNotifyImportByKey(&n, key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS));
	CK_ACL(ACL_SUCCESS, aclrtRecordNotify(n, s));
	CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(s));
	send_val(wr, 1);
	CK(recv_val(rd) == 1);
	CK_ACL(ACL_SUCCESS, aclrtResetDevice(1));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(ACL_SUCCESS, aclrtDestroyNotify(n));
	n = NULL;
	CK_ACL(ACL_SUCCESS, aclrtNotifyImportByKey(&n, key, 0));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(ACL_SUCCESS, aclrtRecordNotify(n, s));
	CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(s));
	CK_ACL(ACL_SUCCESS, aclrtDestroyNotify(n));
	send_val(wr, 1);
}

TEST_F(ipcn, importers_device_reset)
{
	char key[KEYLEN];
	struct child c;

	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, key, KEYLEN, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	ASSERT_EQ(0, start_with_key(&c, reset_importer, key));
	EXPECT_EQ(1, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	/* records do not accumulate: the next wait is queued before the next record */
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

/*
 * A destroyed notify keeps its flag until the records and waits queued
 * on every stream ran, not only the last one's. An importer on the same
 * device queues two waits; here a record is held behind a value wait on
 * one stream, another record runs on a second stream, the notify is
 * destroyed, then the first record runs: it must reach the page the
 * importer waits on (not freed, not revoked), releasing its second wait
 * (queued once the first passed: records do not accumulate).
 */
static void waiting_importer(int rd, int wr, void *arg)
{
	aclrtNotify n = NULL;
	char key[KEYLEN];
	aclrtStream s;

	(void)arg;
	child_begin(rd, key, sizeof(key));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(ACL_SUCCESS, aclrtNotifyImportByKey(&n, key, 0));
	CK_ACL(ACL_SUCCESS, aclrtWaitAndResetNotify(n, s, 0));
	send_val(wr, 1);
	CK(recv_val(rd) == 1);
	/* records do not accumulate: the second wait only once the first passed */
	CK_ACL(ACL_SUCCESS, aclrtSynchronizeStreamWithTimeout(s, 20000));
	CK_ACL(ACL_SUCCESS, aclrtWaitAndResetNotify(n, s, 0));
	send_val(wr, 1);
	CK(recv_val(rd) == 1);
	CK_ACL(ACL_SUCCESS, aclrtSynchronizeStreamWithTimeout(s, 20000));
	CK_ACL(ACL_SUCCESS, aclrtDestroyNotify(n));
	send_val(wr, 1);
}

TEST_F(ipcn, destroy_waits_for_every_stream)
{
	aclrtStream s2, s3;
	char key[KEYLEN];
	struct child c;
	uint64_t *gate;

	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtCreateStream(&s3));
	ASSERT_ACL_OK(aclrtMalloc((void **)&gate, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(gate, 8, 0, 8));
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, key, KEYLEN, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ASSERT_EQ(0, start_with_key(&c, waiting_importer, key));
	EXPECT_EQ(1, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, self->s));
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->s));
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, s2));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
	/* the importer's first wait passed on the second stream's record */
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtValueWrite(gate, 1, 0, s3));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s3));
	EXPECT_ACL_OK(aclrtSynchronizeStream(self->s));
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtFree(gate));
}

/*
 * An importer dies before it records: the exporter's wait holds (nothing
 * else may release it), and the next importer's record releases it.
 */
TEST_F(ipcn, importer_killed_while_a_wait_holds)
{
	struct job j = { .want = ACL_SUCCESS };
	uint64_t *mark, v = 1;
	struct child c;
	uint32_t id = 0;
	int st;

	ASSERT_ACL_OK(aclrtMalloc((void **)&mark, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mark, 8, 0, 8));
	ASSERT_ACL_OK(aclrtNotifyGetExportKey(self->n, j.key, KEYLEN,
					      ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ASSERT_ACL_OK(aclrtGetNotifyId(self->n, &id));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->s, 0));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 1, 0, self->s));
	ASSERT_EQ(0, spawn(&c, importer, NULL));
	ASSERT_EQ(sizeof(j), (size_t)write(c.wr, &j, sizeof(j)));
	EXPECT_EQ((int)id, recv_val(c.rd));
	ASSERT_EQ(0, kill(c.pid, SIGKILL));
	st = reap(&c);
	EXPECT_EQ(128 + SIGKILL, st);
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->s, 300));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);

	ASSERT_EQ(0, spawn(&c, importer, NULL));
	ASSERT_EQ(sizeof(j), (size_t)write(c.wr, &j, sizeof(j)));
	EXPECT_EQ((int)id, recv_val(c.rd));
	send_val(c.wr, 1);
	EXPECT_EQ(1, recv_val(c.rd));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(1U, v);
	send_val(c.wr, 0);
	EXPECT_EQ(1, recv_val(c.rd));
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
	ASSERT_ACL_OK(aclrtFree(mark));
}

/*
 * The exporter dies without a destroy while this process waits on its
 * import: its death revokes the page as its destroy would, so the queued
 * wait faults (the stream's next synchronize says so) and the stream goes
 * on; a record through the import faults too; the import is destroyed.
 */
static void dying_exporter(int rd, int wr, void *arg)
{
	char key[KEYLEN];
	aclrtNotify n;

	(void)arg;
	child_begin(rd, key, 1);
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(ACL_SUCCESS, aclrtCreateNotify(&n, 0));
	CK_ACL(ACL_SUCCESS, aclrtNotifyGetExportKey(n, key, KEYLEN,
						   ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	if (write(wr, key, KEYLEN) != KEYLEN)
		_exit(5);
	pause();
}

TEST_F(ipcn, exporter_killed_while_an_importer_waits)
{
	char key[KEYLEN], go = 0;
	uint64_t *mark, v = 1;
	aclrtNotify imp = NULL;
	struct child c;

	ASSERT_ACL_OK(aclrtMalloc((void **)&mark, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mark, 8, 0, 8));
	ASSERT_EQ(0, spawn(&c, dying_exporter, NULL));
	ASSERT_EQ(1, write(c.wr, &go, 1));
	ASSERT_EQ(KEYLEN, read(c.rd, key, KEYLEN));
	ASSERT_ACL_OK(aclrtNotifyImportByKey(&imp, key, 0));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(imp, self->s, 0));
	ASSERT_ACL_OK(aclrtValueWrite(mark, 1, 0, self->s));
	/* the revocation faults the queued wait as soon as the exporter is gone */
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, kill(c.pid, SIGKILL));
	EXPECT_EQ(128 + SIGKILL, reap(&c));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStreamWithTimeout(self->s, 20000));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(1U, v);
	ASSERT_ACL_OK(aclrtRecordNotify(imp, self->s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(self->s));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtValueWrite(mark, 2, 0, self->s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(2U, v);
	ASSERT_ACL_OK(aclrtDestroyNotify(imp));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
	ASSERT_ACL_OK(aclrtFree(mark));
}

TEST_HARNESS_MAIN
