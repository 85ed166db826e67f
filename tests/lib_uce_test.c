// SPDX-License-Identifier: GPL-2.0
/*
 * lib_uce_test: aclrtGetMemUceInfo and aclrtMemUceRepair over a page made
 * bad through the netlink family (the test runs as root in the VM): the
 * copy that touches it fails with ACL_ERROR_RT_DEVICE_MEM_ERROR, the range
 * is reported, the repair gives zeros there and leaves the rest intact.
 * A task that touches it is an exception for the registered callbacks,
 * with its task, stream, thread and device and the code 507053, once;
 * in ACL_STOP_ON_FAILURE mode the context keeps the error.
 */
#include <sys/syscall.h>

#include "lib_util.h"
#include "npu_nl_util.h"

/* What the exception callbacks saw (tests run in their own processes). */
static struct {
	int calls, calls_set;
	uint32_t task, stream, tid, dev, code, cb_tid;
} rec;

static uint32_t my_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static void on_exception(aclrtExceptionInfo *info)
{
	rec.calls++;
	rec.task = aclrtGetTaskIdFromExceptionInfo(info);
	rec.stream = aclrtGetStreamIdFromExceptionInfo(info);
	rec.tid = aclrtGetThreadIdFromExceptionInfo(info);
	rec.dev = aclrtGetDeviceIdFromExceptionInfo(info);
	rec.code = aclrtGetErrorCodeFromExceptionInfo(info);
	rec.cb_tid = my_tid();
}

static void on_exception_set(aclrtExceptionInfo *info)
{
	rec.calls_set++;
	EXPECT_EQ((uint32_t)ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtGetErrorCodeFromExceptionInfo(info));
}

/* aclrtSetExceptionInfoCallback is deprecated, and tested all the same */
static aclError set_cb(aclrtExceptionInfoCallback cb)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	return aclrtSetExceptionInfoCallback(cb);
#pragma GCC diagnostic pop
}

/* Does the latest message (taken) start with @api and contain @part and @part2? */
static bool msg_has(const char *api, const char *part, const char *part2)
{
	const char *m = aclGetRecentErrMsg();

	if (m)
		printf("# message: %.300s\n", m);
	return m && !strncmp(m, api, strlen(api)) && strstr(m, part) && strstr(m, part2);
}

TEST(uce_reported_and_repaired)
{
	const size_t len = 64 * 1024, bad = 24 * 1024;
	unsigned char *model = malloc(len), *back = malloc(len);
	aclrtMemUceInfo info[4], fix;
	aclrtStream s;
	size_t n = 0, i;
	void *dev, *dev2;

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(back);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, len, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&dev2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(model, len, 3);
	ASSERT_ACL_OK(aclrtMemcpy(dev, len, model, len, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
	EXPECT_EQ(0U, n);

	ASSERT_EQ(0, npu_poison(0, getpid(), (uintptr_t)dev + bad + 17));
	memset(info, 0xff, sizeof(info));
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
	ASSERT_EQ(1U, n);
	EXPECT_EQ((char *)dev + bad, info[0].addr);
	EXPECT_EQ(4096U, info[0].len);
	EXPECT_EQ(0U, info[0].reserved[0]);
	/* the array must hold them all; NULLs: the acl layer's 100000, no last error */
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, info, 0, &n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, NULL, 4, &n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, info, 4, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUceInfo(4096, info, 4, &n));

	npu_expect_dma_faults(true);
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtMemcpy(back, len, dev, len, ACL_MEMCPY_DEVICE_TO_HOST));
	/* a task on a stream: its synchronize answers */
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev2, 8, (char *)dev + bad + 8, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	/* the rest reads back, at other offsets than written */
	ASSERT_ACL_OK(aclrtMemcpy(back + 3, bad - 3, (char *)dev + 3, bad - 3, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back + 3, model + 3, bad - 3));

	/* repair: bad arguments first */
	memset(&fix, 0, sizeof(fix));
	fix.addr = info[0].addr;
	fix.len = info[0].len;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, NULL, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, &fix, 129));
	/* none: the driver's 107000 (1 to 128 ranges), recorded */
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemUceRepair(0, &fix, 0));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	fix.reserved[0] = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, &fix, 1));
	fix.reserved[0] = 0;
	{
		aclrtMemUceInfo host = { .addr = model, .len = 4096 };

		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemUceRepair(0, &host, 1));
	}
	ASSERT_ACL_OK(aclrtMemUceRepair(0, &fix, 1));
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
	EXPECT_EQ(0U, n);
	memset(model + bad, 0, 4096);
	ASSERT_ACL_OK(aclrtMemcpy(back, len, dev, len, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < len && back[i] == model[i]; i++)
		;
	EXPECT_EQ(len, i);
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev2, 8, (char *)dev + bad + 8, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	free(model);
	free(back);
}

/*
 * A task reading a bad page: the callbacks hear of it once, before the
 * synchronize returns 507053, with the task's id (the third task of the
 * stream: 2), the stream's, the submitting thread and the device; the
 * synchronize's message names the task and the device address. Then the
 * program's recovery: aclrtGetMemUceInfo names the page, aclrtMemUceRepair
 * repairs it, and the same copy works, calling nobody.
 */
TEST(uce_task_is_an_exception_then_repaired)
{
	const size_t len = 64 * 1024, bad = 40 * 1024;
	unsigned char *model = malloc(len), back[64];
	aclrtMemUceInfo info[4];
	char where[64];
	int32_t sid = -1;
	aclrtStream s;
	void *dev, *dev2;
	size_t n = 0;

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	memset(&rec, 0, sizeof(rec));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtStreamGetId(s, &sid));
	ASSERT_ACL_OK(aclrtMalloc(&dev, len, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&dev2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(model, len, 5);
	ASSERT_ACL_OK(aclrtMemcpy(dev, len, model, len, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
	ASSERT_ACL_OK(set_cb(on_exception_set));
	ASSERT_EQ(0, npu_poison(0, getpid(), (uintptr_t)dev + bad + 100));

	npu_expect_dma_faults(true);
	/* tasks 0 and 1 are fine; task 2 reads from 1 KiB before the bad page on */
	ASSERT_ACL_OK(aclrtMemsetAsync(dev2, 4096, 0x11, 64, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)dev2 + 64, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)dev2 + 1024, 2048, (char *)dev + bad - 1024, 2048,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemsetAsync((char *)dev2 + 3072, 1024, 0x33, 64, s));
	EXPECT_EQ(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(s));
	snprintf(where, sizeof(where), "read from device address %#llx", (unsigned long long)(uintptr_t)dev + bad);
	EXPECT_TRUE(msg_has("aclrtSynchronizeStream:",
			    "task 2 of the stream touched device memory with an uncorrectable error", where));
	EXPECT_EQ(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	npu_expect_dma_faults(false);
	EXPECT_EQ(1, rec.calls);
	EXPECT_EQ(1, rec.calls_set);
	EXPECT_EQ(2U, rec.task);
	EXPECT_EQ((uint32_t)sid, rec.stream);
	EXPECT_EQ(my_tid(), rec.tid);
	EXPECT_EQ(0U, rec.dev);
	EXPECT_EQ((uint32_t)ACL_ERROR_RT_DEVICE_MEM_ERROR, rec.code);
	EXPECT_EQ(my_tid(), rec.cb_tid);
	/* reported once; the stream ran on past it (CONTINUE mode) */
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	EXPECT_EQ(1, rec.calls);
	ASSERT_ACL_OK(aclrtMemcpy(back, 64, (char *)dev2 + 3072, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0x33, back[0]);

	/* the recovery */
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
	ASSERT_EQ(1U, n);
	EXPECT_EQ((char *)dev + bad, info[0].addr);
	EXPECT_EQ(4096U, info[0].len);
	ASSERT_ACL_OK(aclrtMemUceRepair(0, info, n));
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
	EXPECT_EQ(0U, n);
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)dev2 + 1024, 2048, (char *)dev + bad - 1024, 2048,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(1, rec.calls);
	EXPECT_EQ(1, rec.calls_set);
	/* the bytes before the page are the data, the page's are zero now */
	ASSERT_ACL_OK(aclrtMemcpy(back, 64, (char *)dev2 + 2048 - 32, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back, model + bad - 32, 32));
	EXPECT_EQ(-1, npu_check_byte(back + 32, 32, 0));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception));
	ASSERT_ACL_OK(set_cb(NULL));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	free(model);
}

/*
 * The device's record: after a task touched a bad page,
 * aclrtGetErrorVerbose answers a memory UCE with the bad ranges as its
 * detail and tryRepair 1 (CANN's HBM_UCE_ERROR fault type), also after a
 * later DMA fault; aclrtRepairError repairs what the detail names and
 * clears the record. A detail naming memory that is not the process's is
 * the driver's 107000 and leaves the record.
 */
TEST(uce_error_verbose_and_repair_error)
{
	aclrtErrorInfo ei, bad;
	aclrtMemUceInfo info[2];
	aclrtStream s;
	void *dev, *hole;
	uint64_t v = 0;
	size_t n = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4 * 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(dev, 4 * 4096, 0x77, 4 * 4096));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&hole, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_NO_ERROR, ei.errorType);
	ASSERT_EQ(0, npu_poison(0, getpid(), (uintptr_t)dev + 2 * 4096));
	ASSERT_EQ(0, npu_poison(0, getpid(), (uintptr_t)dev));
	/* poisoned, not yet touched: no fault of the device */
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_NO_ERROR, ei.errorType);

	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)dev + 3 * 4096 + 64, 8, (char *)dev + 2 * 4096, 8,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(s));
	/* a DMA fault after it: the memory error stays the record */
	ASSERT_ACL_OK(aclrtMemcpyAsync(hole, 8, (char *)dev + 4096, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	memset(&ei, 0xff, sizeof(ei));
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_ERROR_MEMORY, ei.errorType);
	EXPECT_EQ(1, ei.tryRepair);
	EXPECT_EQ(1, ei.hasDetail);
	ASSERT_EQ(2U, ei.detail.uceInfo.arraySize);
	EXPECT_EQ(dev, ei.detail.uceInfo.memUceInfoArray[0].addr);
	EXPECT_EQ(4096U, ei.detail.uceInfo.memUceInfoArray[0].len);
	EXPECT_EQ((char *)dev + 2 * 4096, ei.detail.uceInfo.memUceInfoArray[1].addr);
	EXPECT_EQ(4096U, ei.detail.uceInfo.memUceInfoArray[1].len);
	EXPECT_EQ(NULL, ei.detail.uceInfo.memUceInfoArray[2].addr);

	/* a range that is not device memory: 107000, nothing repaired, the record stays */
	bad = ei;
	bad.detail.uceInfo.memUceInfoArray[0].addr = &v;
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRepairError(0, &bad));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_ERROR_MEMORY, ei.errorType);
	EXPECT_EQ(2U, ei.detail.uceInfo.arraySize);

	ASSERT_ACL_OK(aclrtRepairError(0, &ei));
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_NO_ERROR, ei.errorType);
	EXPECT_EQ(0, ei.tryRepair);
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 2, &n));
	EXPECT_EQ(0U, n);
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, (char *)dev + 3 * 4096 + 64, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0x7777777777777777ULL, v);
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)dev + 3 * 4096 + 64, 8, (char *)dev + 2 * 4096, 8,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, (char *)dev + 3 * 4096 + 64, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(hole));
}

/*
 * In ACL_STOP_ON_FAILURE mode: the exception once, the tasks behind the
 * failed one dropped, and the context's later submits and synchronizes
 * answer 507053 until it is destroyed; repaired, the copy works in
 * another context.
 */
TEST(uce_task_in_stop_on_failure_mode)
{
	aclrtContext ctx, primary;
	aclrtMemUceInfo info[2];
	aclrtStream s, s2;
	uint64_t v = 0;
	void *dev, *dev2;
	size_t n = 0;

	NEED_DEVICE();
	memset(&rec, 0, sizeof(rec));
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 2 * 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&dev2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(dev, 2 * 4096, 0x5a, 2 * 4096));
	ASSERT_ACL_OK(aclrtMemset(dev2, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
	ASSERT_EQ(0, npu_poison(0, getpid(), (uintptr_t)dev + 4096));

	npu_expect_dma_faults(true);
	/* task 0 writes into the bad page; task 1 behind it never runs */
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)dev + 4096 + 8, 8, dev2, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtValueWrite(dev2, 7, 0, s));
	EXPECT_EQ(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(s));
	EXPECT_TRUE(msg_has("aclrtSynchronizeStream:", "task 0 of the stream touched device memory",
			    "write to device address"));
	npu_expect_dma_faults(false);
	EXPECT_EQ(1, rec.calls);
	EXPECT_EQ(0U, rec.task);
	EXPECT_EQ((uint32_t)ACL_ERROR_RT_DEVICE_MEM_ERROR, rec.code);
	/* the context keeps the error: every stream of it answers so */
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtMemsetAsync(dev2, 4096, 1, 8, s2));
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(s2));
	EXPECT_EQ(1, rec.calls);
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, dev2, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);

	/* repaired, the write works in the primary context */
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 2, &n));
	ASSERT_EQ(1U, n);
	EXPECT_EQ((char *)dev + 4096, info[0].addr);
	ASSERT_ACL_OK(aclrtMemUceRepair(0, info, n));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
	ASSERT_ACL_OK(aclrtValueWrite(dev2, 9, 0, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)dev + 4096 + 8, 8, dev2, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, (char *)dev + 4096 + 8, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(9U, v);
	EXPECT_EQ(1, rec.calls);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclrtFree(dev));
}

TEST_HARNESS_MAIN
