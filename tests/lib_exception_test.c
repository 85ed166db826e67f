// SPDX-License-Identifier: MIT
/*
 * libacl: task exceptions and device task abort, with CANN's codes.
 * A DMA fault of a stream's task (a copy to a reserved, unmapped device
 * address) is one call of each exception callback, in the thread the
 * fault is reported to, before that call returns, with the task id (the
 * command's seqno less one, CANN's per-stream ids from 0), the stream id (aclrtStreamGetId's), the submitting
 * thread, the device and ACL_ERROR_RT_TS_ERROR; the getters' NULL inputs
 * and the kinds of detail a DMA task lacks; aclrtRepairError; and
 * aclrtDeviceTaskAbort with its PRE/POST callbacks. The registry and
 * getter checks run without /dev/npu0; the rest skip.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

#include "lib_util.h"

#define INVALID	0xFFFFFFFFU

static aclError last(void)
{
	return aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static uint32_t my_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* What the exception callbacks saw (tests run in their own processes). */
static struct {
	int calls_a, calls_b;
	uint32_t task, stream, tid, dev, code;
	uint32_t cb_tid;		/* the thread the callback ran in */
	aclError args_ret, args_null_ret, func_ret, func_last, func_null_ret;
	bool args_untouched, func_untouched;
} rec;

static void cb_a(aclrtExceptionInfo *info)
{
	void *args = (void *)0x1;
	uint32_t len = 7;
	aclrtFuncHandle f = (aclrtFuncHandle)0x1234;

	rec.calls_a++;
	rec.task = aclrtGetTaskIdFromExceptionInfo(info);
	rec.stream = aclrtGetStreamIdFromExceptionInfo(info);
	rec.tid = aclrtGetThreadIdFromExceptionInfo(info);
	rec.dev = aclrtGetDeviceIdFromExceptionInfo(info);
	rec.code = aclrtGetErrorCodeFromExceptionInfo(info);
	rec.cb_tid = my_tid();
	/* a DMA task is no kernel: no arguments, no function */
	rec.args_ret = aclrtGetArgsFromExceptionInfo(info, &args, &len);
	rec.args_untouched = args == (void *)0x1 && len == 7;
	rec.args_null_ret = aclrtGetArgsFromExceptionInfo(info, NULL, &len);
	(void)last();
	rec.func_ret = aclrtGetFuncHandleFromExceptionInfo(info, &f);
	rec.func_last = last();
	rec.func_untouched = f == (aclrtFuncHandle)0x1234;
	rec.func_null_ret = aclrtGetFuncHandleFromExceptionInfo(info, NULL);
}

static void cb_b(aclrtExceptionInfo *info)
{
	(void)info;
	rec.calls_b++;
}

/* aclrtSetExceptionInfoCallback is deprecated, and tested all the same */
static aclError set_cb(aclrtExceptionInfoCallback cb)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	return aclrtSetExceptionInfoCallback(cb);
#pragma GCC diagnostic pop
}

/* Does the latest message start with @api and contain @part? */
static bool msg_has(const char *api, const char *part)
{
	const char *m = aclGetRecentErrMsg();

	if (m)
		printf("# message: %.200s\n", m);
	return m && !strncmp(m, api, strlen(api)) && strstr(m, part);
}

TEST(registry_codes_without_init)
{
	/* no aclInit: CANN's runtime keeps the table regardless */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtExceptionInfoCallbackRegister(NULL));
	/* the acl layer's 107000 is no last error */
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtExceptionInfoCallbackUnregister(NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* not registered: nothing to do */
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(cb_a));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(cb_a));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(cb_a));
	ASSERT_ACL_OK(set_cb(cb_b));
	ASSERT_ACL_OK(set_cb(NULL));
	ASSERT_ACL_OK(set_cb(NULL));
	EXPECT_NULL(aclGetRecentErrMsg());
}

TEST(getters_of_null_info)
{
	void *args = (void *)0x1;
	uint32_t len = 3;
	aclrtFuncHandle f = (aclrtFuncHandle)0x2;

	EXPECT_EQ(INVALID, aclrtGetTaskIdFromExceptionInfo(NULL));
	EXPECT_TRUE(msg_has("aclrtGetTaskIdFromExceptionInfo:", "info"));
	EXPECT_EQ(INVALID, aclrtGetStreamIdFromExceptionInfo(NULL));
	EXPECT_TRUE(msg_has("aclrtGetStreamIdFromExceptionInfo:", "info"));
	EXPECT_EQ(INVALID, aclrtGetThreadIdFromExceptionInfo(NULL));
	EXPECT_TRUE(msg_has("aclrtGetThreadIdFromExceptionInfo:", "info"));
	EXPECT_EQ(INVALID, aclrtGetDeviceIdFromExceptionInfo(NULL));
	EXPECT_TRUE(msg_has("aclrtGetDeviceIdFromExceptionInfo:", "info"));
	EXPECT_EQ(INVALID, aclrtGetErrorCodeFromExceptionInfo(NULL));
	EXPECT_TRUE(msg_has("aclrtGetErrorCodeFromExceptionInfo:", "info"));
	/* CANN checks info first, answering its 0xFFFFFFFF as the aclError */
	EXPECT_ACL((aclError)INVALID, aclrtGetArgsFromExceptionInfo(NULL, &args, &len));
	EXPECT_ACL((aclError)INVALID, aclrtGetArgsFromExceptionInfo(NULL, NULL, NULL));
	EXPECT_ACL((aclError)INVALID, aclrtGetFuncHandleFromExceptionInfo(NULL, &f));
	EXPECT_ACL((aclError)INVALID, aclrtGetFuncHandleFromExceptionInfo(NULL, NULL));
	EXPECT_TRUE(args == (void *)0x1 && len == 3 && f == (aclrtFuncHandle)0x2);
	/* none of them is the runtime's: no last error */
	EXPECT_EQ(ACL_SUCCESS, last());
}

/* A reserved, unmapped device range, and a page of device memory. */
FIXTURE(fault) {
	void *hole;		/* 2 MiB reserved, nothing mapped: every access faults */
	void *good;		/* 4 KiB of device memory */
	aclrtStream s;
};
FIXTURE_SETUP(fault)
{
	NEED_DEVICE();
	memset(&rec, 0, sizeof(rec));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&self->hole, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMalloc(&self->good, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(self->good, 4096, 0x11, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&self->s));
}
FIXTURE_TEARDOWN(fault)
{
	npu_expect_dma_faults(false);
}

/* Queue: a memset (task 0), the faulting copy (task 1), a memset (task 2). */
static int queue_fault(void *good, void *hole, aclrtStream s)
{
	if (aclrtMemsetAsync(good, 4096, 0x22, 64, s) ||
	    aclrtMemcpyAsync(hole, 4096, good, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s) ||
	    aclrtMemsetAsync((char *)good + 64, 4096 - 64, 0x33, 64, s))
		return -1;
	return 0;
}

/*
 * One fault, one call of each callback, before the synchronize that is
 * told of it returns, in its thread; the ids are those of the task.
 */
TEST_F(fault, copy_to_unmapped_address_calls_back_once)
{
	int32_t sid = -1;
	uint8_t b[128];
	aclrtErrorInfo ei;

	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	ASSERT_ACL_OK(set_cb(cb_b));
	ASSERT_ACL_OK(aclrtStreamGetId(self->s, &sid));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, queue_fault(self->good, self->hole, self->s));
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(self->s));
	/* the sync's own failure names the task and where it faulted */
	EXPECT_TRUE(msg_has("aclrtSynchronizeStream:", "task 1 of the stream faulted: DMA write to device address"));
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, last());
	npu_expect_dma_faults(false);
	EXPECT_EQ(1, rec.calls_a);
	EXPECT_EQ(1, rec.calls_b);
	EXPECT_EQ(1U, rec.task);
	EXPECT_EQ((uint32_t)sid, rec.stream);
	EXPECT_EQ(my_tid(), rec.tid);
	EXPECT_EQ(0U, rec.dev);
	EXPECT_EQ((uint32_t)ACL_ERROR_RT_TS_ERROR, rec.code);
	EXPECT_EQ(my_tid(), rec.cb_tid);
	EXPECT_EQ((aclError)INVALID, rec.args_ret);
	EXPECT_TRUE(rec.args_untouched);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, rec.args_null_ret);
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, rec.func_ret);
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, rec.func_last);
	EXPECT_TRUE(rec.func_untouched);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, rec.func_null_ret);
	/* reported once: no second call; the task after it ran */
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	EXPECT_EQ(1, rec.calls_a);
	EXPECT_EQ(1, rec.calls_b);
	ASSERT_ACL_OK(aclrtMemcpy(b, sizeof(b), self->good, sizeof(b), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0x22, b[0]);
	EXPECT_EQ(0x33, b[64]);
	/* the device's record: OTHERS until repaired */
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_ERROR_OTHERS, ei.errorType);
}

/* Unregistered (or the slot emptied), a callback is not called; one registered twice is called once. */
TEST_F(fault, unregister_stops_the_calls)
{
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_b));
	ASSERT_ACL_OK(set_cb(cb_b));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, queue_fault(self->good, self->hole, self->s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(self->s));
	EXPECT_EQ(1, rec.calls_a);
	/* in the slot and registered: two entries, as CANN's two names */
	EXPECT_EQ(2, rec.calls_b);

	ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(cb_a));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(cb_b));
	ASSERT_ACL_OK(set_cb(NULL));
	ASSERT_EQ(0, queue_fault(self->good, self->hole, self->s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(self->s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(1, rec.calls_a);
	EXPECT_EQ(2, rec.calls_b);
}

struct submit_args {
	void *good, *hole;
	aclrtStream s;
	aclrtContext ctx;
	uint32_t tid;
	int ret;
};

static void *submitter(void *arg)
{
	struct submit_args *a = arg;

	a->tid = my_tid();
	a->ret = aclrtSetCurrentContext(a->ctx) ? -1 : queue_fault(a->good, a->hole, a->s);
	return NULL;
}

/*
 * The thread id is the submitter's; the call comes in the thread that
 * learns of the fault - here a query, which keeps the error for the next
 * synchronize: that one reports it, and calls nobody again.
 */
TEST_F(fault, submitter_is_named_and_a_query_learns_first)
{
	struct submit_args a = { .good = self->good, .hole = self->hole, .s = self->s };
	aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
	pthread_t t;
	int i;

	ASSERT_ACL_OK(aclrtGetCurrentContext(&a.ctx));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, pthread_create(&t, NULL, submitter, &a));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, a.ret);
	for (i = 0; i < 5000 && st != ACL_STREAM_STATUS_COMPLETE; i++) {
		ASSERT_ACL_OK(aclrtStreamQuery(self->s, &st));
		if (st != ACL_STREAM_STATUS_COMPLETE)
			usleep(1000);
	}
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	EXPECT_EQ(1, rec.calls_a);
	EXPECT_EQ(1U, rec.task);
	EXPECT_NE(my_tid(), a.tid);
	EXPECT_EQ(a.tid, rec.tid);
	EXPECT_EQ(my_tid(), rec.cb_tid);
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(self->s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(1, rec.calls_a);
}

/*
 * An event query polls under the library's locks: the fault it learns of
 * keeps its exception for the stream's next synchronize, which calls
 * the callbacks once, in its thread, before it returns the error.
 */
TEST_F(fault, an_event_query_keeps_the_exception_for_the_synchronize)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	aclrtEvent e;
	int i;

	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, queue_fault(self->good, self->hole, self->s));
	ASSERT_ACL_OK(aclrtRecordEvent(e, self->s));
	for (i = 0; i < 5000 && st != ACL_EVENT_RECORDED_STATUS_COMPLETE; i++) {
		ASSERT_ACL_OK(aclrtQueryEventStatus(e, &st));
		if (st != ACL_EVENT_RECORDED_STATUS_COMPLETE)
			usleep(1000);
	}
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	EXPECT_EQ(0, rec.calls_a);
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(self->s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(1, rec.calls_a);
	EXPECT_EQ(1U, rec.task);
	EXPECT_EQ(my_tid(), rec.cb_tid);
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	EXPECT_EQ(1, rec.calls_a);
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

/*
 * A synchronous copy is no task in CANN (a driver copy): its fault is the
 * call's error, no exception. After an abort the fresh queue counts its
 * tasks from 0 again, and the stream id is the new one.
 */
TEST_F(fault, sync_copies_are_no_tasks_and_abort_renumbers)
{
	int32_t sid = -1, sid2 = -1;

	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	npu_expect_dma_faults(true);
	EXPECT_ACL(ACL_ERROR_RT_FAILURE,
		   aclrtMemcpy(self->hole, 4096, self->good, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_EQ(0, rec.calls_a);

	ASSERT_ACL_OK(aclrtStreamGetId(self->s, &sid));
	ASSERT_ACL_OK(aclrtMemsetAsync(self->good, 4096, 1, 64, self->s));
	ASSERT_ACL_OK(aclrtStreamAbort(self->s));
	ASSERT_ACL_OK(aclrtStreamGetId(self->s, &sid2));
	EXPECT_NE(sid, sid2);
	ASSERT_EQ(0, queue_fault(self->good, self->hole, self->s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(self->s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(1, rec.calls_a);
	EXPECT_EQ(1U, rec.task);
	EXPECT_EQ((uint32_t)sid2, rec.stream);
}

/* ------------------------------------------------------------------ */
/* aclrtRepairError                                                    */
/* ------------------------------------------------------------------ */

TEST_F(fault, repair_error_codes)
{
	aclrtErrorInfo ei, fix;

	npu_expect_dma_faults(true);
	ASSERT_EQ(0, queue_fault(self->good, self->hole, self->s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(self->s));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_ERROR_OTHERS, ei.errorType);
	EXPECT_EQ(0, ei.tryRepair);
	(void)last();

	memset(&fix, 0, sizeof(fix));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRepairError(0, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* tryRepair must say so */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRepairError(0, &fix));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	fix.tryRepair = 1;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtRepairError(-1, &fix));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtRepairError(64, &fix));
	if (have_npu(1)) {
		/* a device this process has not open */
		EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtRepairError(1, &fix));
		EXPECT_EQ(ACL_ERROR_RT_DEV_SETUP_ERROR, last());
	}
	/* a DMA fault cannot be repaired */
	fix.errorType = ACL_RT_ERROR_OTHERS;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRepairError(0, &fix));
	fix.errorType = ACL_RT_ERROR_AICORE;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRepairError(0, &fix));
	(void)last();
	/* a memory repair without ranges: the driver's 107000 (lib_uce_test repairs some) */
	fix.errorType = ACL_RT_ERROR_MEMORY;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRepairError(0, &fix));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	fix.hasDetail = 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRepairError(0, &fix));
	fix.hasDetail = 0;
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_ERROR_OTHERS, ei.errorType);
	/* NO_ERROR clears the record */
	fix.errorType = ACL_RT_NO_ERROR;
	ASSERT_ACL_OK(aclrtRepairError(0, &fix));
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &ei));
	EXPECT_EQ(ACL_RT_NO_ERROR, ei.errorType);
}

/* ------------------------------------------------------------------ */
/* aclrtDeviceTaskAbort                                                */
/* ------------------------------------------------------------------ */

/* What the abort callbacks saw, in call order. */
static struct {
	int n;
	char who[8];
	int32_t dev[8];
	aclrtDeviceTaskAbortStage stage[8];
	uint32_t timeout[8];
	aclError submit_in_pre, sync_in_pre;
	aclrtStream s;
	void *good;
	int32_t fail_with;
	unsigned int sleep_ms;
} ab;

static int32_t abort_cb(int32_t deviceId, aclrtDeviceTaskAbortStage stage, uint32_t timeout, void *args)
{
	int i = ab.n++;

	if (i < 8) {
		ab.who[i] = *(const char *)args;
		ab.dev[i] = deviceId;
		ab.stage[i] = stage;
		ab.timeout[i] = timeout;
	}
	if (stage == ACL_RT_DEVICE_TASK_ABORT_PRE && ab.s) {
		/* the device is in the abort state meanwhile */
		ab.submit_in_pre = aclrtMemsetAsync(ab.good, 4096, 9, 8, ab.s);
		ab.sync_in_pre = aclrtSynchronizeStream(ab.s);
	}
	if (ab.sleep_ms)
		usleep(ab.sleep_ms * 1000);
	return ab.fail_with;
}

TEST(device_task_abort_codes)
{
	NEED_DEVICE();
	(void)last();
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceTaskAbort(0, 36 * 60 * 1000 + 1));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceTaskAbort(-1, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceTaskAbort(64, 0));
	if (have_npu(1)) {
		/* no context of this process on it */
		EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceTaskAbort(1, 0));
		EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, last());
	}
	ASSERT_ACL_OK(aclrtDeviceTaskAbort(0, 36 * 60 * 1000));
	ASSERT_ACL_OK(aclrtDeviceTaskAbort(0, 0));

	/* the callback registry */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceTaskAbortCallback(NULL, abort_cb, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceTaskAbortCallback(NULL, NULL, NULL));
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("x", abort_cb, "x"));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceTaskAbortCallback("x", abort_cb, "y"));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	/* NULL removes the name's; an unknown name: nothing to do */
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("x", NULL, NULL));
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("x", NULL, NULL));
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("x", abort_cb, "x"));
	ASSERT_ACL_OK(aclrtDeviceTaskAbort(0, 0));
	EXPECT_EQ(2, ab.n);
	ASSERT_ACL_OK(aclrtResetDevice(0));
	/* the device closed: nothing of this process on it */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceTaskAbort(0, 0));
	EXPECT_EQ(2, ab.n);
}

/*
 * Queued work is dropped on every stream of every context, the callbacks
 * run PRE then POST, each in name order, while submits and synchronizes
 * answer 107022; then the streams go on empty, and a context's
 * STOP-mode error is cleared.
 */
TEST(device_task_abort_drops_queued_work)
{
	aclrtStream waiter, stop, other;
	aclrtContext ctx, primary;
	uint64_t *flag, v = 0;
	void *good, *hole;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtMalloc((void **)&flag, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&good, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(flag, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtMemset(good, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&hole, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&waiter));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(cb_a));
	/* blocked on a flag nobody writes, a write queued behind it */
	ASSERT_ACL_OK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, waiter));
	ASSERT_ACL_OK(aclrtValueWrite(good, 7, 0, waiter));
	/* a second context on the device, its stream blocked as well */
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	ASSERT_ACL_OK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, other));
	ASSERT_ACL_OK(aclrtValueWrite((char *)good + 8, 8, 0, other));
	/* and a STOP-mode stream whose fault latched the context's error */
	ASSERT_ACL_OK(aclrtCreateStream(&stop));
	ASSERT_ACL_OK(aclrtSetStreamFailureMode(stop, ACL_STOP_ON_FAILURE));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtValueWrite(hole, 1, 0, stop));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(stop));
	npu_expect_dma_faults(false);
	EXPECT_EQ(1, rec.calls_a);
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtValueWrite(good, 1, 0, other));

	ab.s = other;
	ab.good = good;
	/* called by name: "a" before "b", whatever the order of registration */
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("b", abort_cb, "b"));
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("a", abort_cb, "a"));
	ASSERT_ACL_OK(aclrtDeviceTaskAbort(0, 60000));
	ASSERT_EQ(4, ab.n);
	EXPECT_EQ('a', ab.who[0]);
	EXPECT_EQ('b', ab.who[1]);
	EXPECT_EQ('a', ab.who[2]);
	EXPECT_EQ('b', ab.who[3]);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(0, ab.dev[i]);
		EXPECT_EQ(i < 2 ? ACL_RT_DEVICE_TASK_ABORT_PRE : ACL_RT_DEVICE_TASK_ABORT_POST, ab.stage[i]);
		/* what is left of the 60 s */
		EXPECT_LT(0U, ab.timeout[i]);
		EXPECT_GE(60000U, ab.timeout[i]);
	}
	EXPECT_EQ(ACL_ERROR_RT_DEVICE_TASK_ABORT, ab.submit_in_pre);
	EXPECT_EQ(ACL_ERROR_RT_DEVICE_TASK_ABORT, ab.sync_in_pre);

	/* every stream runs again, empty; the STOP-mode error is gone */
	ASSERT_ACL_OK(aclrtSynchronizeStream(other));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stop));
	ASSERT_ACL_OK(aclrtValueWrite((char *)good + 16, 16, 0, other));
	ASSERT_ACL_OK(aclrtSynchronizeStream(other));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtSynchronizeStream(waiter));
	/* the writes queued behind the waits never ran */
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, good, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, (char *)good + 8, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, (char *)good + 16, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(16U, v);
	/* a fault after it is an exception again */
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtValueWrite(hole, 1, 0, waiter));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(waiter));
	npu_expect_dma_faults(false);
	EXPECT_EQ(2, rec.calls_a);
	ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
}

/*
 * A callback's non-zero answer is the result (and the last error), and
 * the device stays in the abort state until an abort completes; so does
 * running past the timeout (ACL_ERROR_RT_WAIT_TIMEOUT).
 */
TEST(device_task_abort_failures_leave_the_abort_state)
{
	uint64_t v = 0;
	aclrtStream s;
	void *good;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&good, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("f", abort_cb, "f"));
	ab.fail_with = 12345;
	EXPECT_ACL(12345, aclrtDeviceTaskAbort(0, 0));
	EXPECT_EQ(12345, last());
	/* it stopped at the first callback, PRE */
	EXPECT_EQ(1, ab.n);
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_TASK_ABORT, aclrtMemsetAsync(good, 4096, 1, 8, s));
	EXPECT_EQ(ACL_ERROR_RT_DEVICE_TASK_ABORT, last());
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_TASK_ABORT, aclrtSynchronizeStream(s));
	/* CANN's synchronous copies and memsets refuse too */
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_TASK_ABORT, aclrtMemcpy(&v, 8, good, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_TASK_ABORT, aclrtMemset(good, 4096, 0, 8));
	ab.fail_with = 0;
	ASSERT_ACL_OK(aclrtDeviceTaskAbort(0, 0));
	EXPECT_EQ(3, ab.n);
	ASSERT_ACL_OK(aclrtMemsetAsync(good, 4096, 1, 8, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, good, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0x0101010101010101ULL, v);

	/* a PRE callback slower than the whole timeout */
	ab.sleep_ms = 200;
	EXPECT_ACL(ACL_ERROR_RT_WAIT_TIMEOUT, aclrtDeviceTaskAbort(0, 50));
	EXPECT_EQ(ACL_ERROR_RT_WAIT_TIMEOUT, last());
	EXPECT_EQ(4, ab.n);
	EXPECT_LT(0U, ab.timeout[3]);
	EXPECT_GE(50U, ab.timeout[3]);
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_TASK_ABORT, aclrtMemsetAsync(good, 4096, 1, 8, s));
	ab.sleep_ms = 0;
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("f", NULL, NULL));
	ASSERT_ACL_OK(aclrtDeviceTaskAbort(0, 0));
	EXPECT_EQ(4, ab.n);
	ASSERT_ACL_OK(aclrtMemsetAsync(good, 4096, 1, 8, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	/* a reset and a new open of the device leave the state too */
	ab.fail_with = 7;
	ASSERT_ACL_OK(aclrtSetDeviceTaskAbortCallback("f", abort_cb, "f"));
	EXPECT_ACL(7, aclrtDeviceTaskAbort(0, 0));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&good, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemsetAsync(good, 4096, 1, 8, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
}

TEST_HARNESS_MAIN
