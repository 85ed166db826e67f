// SPDX-License-Identifier: MIT
/*
 * libacl events beyond record and wait: flags, status queries, reset,
 * timeouts, device timestamps and ids. Skips without /dev/npu0.
 */
#include <time.h>

#include "lib_util.h"

/* aclrtQueryEvent is deprecated, and tested all the same */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* A stream held at a wait on a zeroed device word until release(). */
FIXTURE(held) {
	uint64_t *flag;
	aclrtStream held, other;
};
FIXTURE_SETUP(held)
{
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&self->flag, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(self->flag, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&self->held));
	ASSERT_ACL_OK(aclrtCreateStream(&self->other));
	ASSERT_ACL_OK(aclrtValueWait(self->flag, 1, ACL_STREAM_WAIT_VALUE_GEQ, self->held));
}
FIXTURE_TEARDOWN(held)
{
	if (self->held)
		aclrtDestroyStreamForce(self->held);
}

/* Let the held stream go (from its sibling, which must not wait itself). */
#define release(self) do {							\
	ASSERT_ACL_OK(aclrtValueWrite((self)->flag, 1, 0, (self)->other));	\
	ASSERT_ACL_OK(aclrtSynchronizeStream((self)->other));			\
} while (0)

TEST(create_flags)
{
	static const uint32_t ok[] = { 0x1, 0x2, 0x4, 0x8, 0x3, 0x9, 0xf, 0x10, 0x20 };
	static const uint32_t bad[] = { 0, 0x11, 0x30, 0x40, 0x41, 0x80, 0x100, 0x18 };
	static const uint32_t ex_ok[] = { 0x1, 0x8, 0xf };
	static const uint32_t ex_bad[] = { 0, 0x10, 0x20, 0x41, 0x80 };
	aclrtEvent e;
	unsigned int i;

	NEED_DEVICE();
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ASSERT_ACL_OK(aclrtCreateEventWithFlag(&e, ok[i]));
		ASSERT_ACL_OK(aclrtDestroyEvent(e));
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, bad[i]));
	for (i = 0; i < sizeof(ex_ok) / sizeof(ex_ok[0]); i++) {
		ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&e, ex_ok[i]));
		ASSERT_ACL_OK(aclrtDestroyEvent(e));
	}
	for (i = 0; i < sizeof(ex_bad) / sizeof(ex_bad[0]); i++)
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e, ex_bad[i]));
	/* IPC events: the 910B class has them (lib_ipc_event_test; none elsewhere: lib_chip_test) */
	if (lib_soc_910b_class()) {
		ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
		ASSERT_ACL_OK(aclrtDestroyEvent(e));
	} else {
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
	}
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateEventWithFlag(NULL, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, 1));
}

TEST_F(held, status_queries)
{
	aclrtEventRecordedStatus rs = 7;
	aclrtEventWaitStatus ws = 7;
	aclrtEventStatus st = 7;
	aclrtEvent e, ex;

	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	/* never recorded: not ready (Ex: complete); the old query says complete */
	ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, rs);
	ASSERT_ACL_OK(aclrtQueryEventStatus(ex, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, rs);
	ASSERT_ACL_OK(aclrtQueryEvent(e, &st));
	EXPECT_EQ(ACL_EVENT_STATUS_COMPLETE, st);
	ASSERT_ACL_OK(aclrtQueryEventWaitStatus(e, &ws));
	EXPECT_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
	/* recorded behind the held wait: pending; a stream waiting on it too */
	ASSERT_ACL_OK(aclrtRecordEvent(e, self->held));
	ASSERT_ACL_OK(aclrtRecordEvent(ex, self->held));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(self->other, e));
	ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, rs);
	ASSERT_ACL_OK(aclrtQueryEventStatus(ex, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, rs);
	ASSERT_ACL_OK(aclrtQueryEvent(e, &st));
	EXPECT_EQ(ACL_EVENT_STATUS_NOT_READY, st);
	ASSERT_ACL_OK(aclrtQueryEventWaitStatus(e, &ws));
	EXPECT_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, ws);
	EXPECT_ACL(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 50));
	/* the Ex kind takes no reset and no old-style queries */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEvent(ex, &st));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(ex, &ws));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(ex, NULL));

	/* release the held stream (from the default stream: other waits on e) */
	ASSERT_ACL_OK(aclrtValueWrite(self->flag, 1, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeEventWithTimeout(e, 5000));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->other));
	ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, rs);
	/* ex's record is the command after e's: it may still be to run */
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ex));
	ASSERT_ACL_OK(aclrtQueryEventStatus(ex, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, rs);
	ASSERT_ACL_OK(aclrtQueryEventWaitStatus(e, &ws));
	EXPECT_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
	/* reset: not recorded any more */
	ASSERT_ACL_OK(aclrtResetEvent(e, NULL));
	ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, rs);

	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(e, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(e, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(e, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, -2));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
	ASSERT_ACL_OK(aclrtDestroyEvent(ex));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(e, &rs));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetEvent(e, NULL));
}

/*
 * CANN's Event::Wait: an aclrtCreateEvent event (or WithFlag without
 * ACL_EVENT_SYNC) never recorded is 107000 with the last error set; once
 * recorded, a reset leaves nothing to wait for; SYNC and Ex events never
 * recorded are nothing to wait for either.
 */
TEST(wait_on_an_event_never_recorded)
{
	aclrtEvent e, sync, ex;
	const char *msg;
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	ASSERT_ACL_OK(aclrtCreateEventWithFlag(&sync, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(s, e));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "not been recorded"));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(s, e, 1));
	EXPECT_ACL_OK(aclrtStreamWaitEvent(s, sync));
	EXPECT_ACL_OK(aclrtStreamWaitEvent(s, ex));
	/* recorded once, then reset: no error, nothing to wait for */
	ASSERT_ACL_OK(aclrtRecordEvent(e, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(e));
	ASSERT_ACL_OK(aclrtResetEvent(e, NULL));
	EXPECT_ACL_OK(aclrtStreamWaitEvent(s, e));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
	ASSERT_ACL_OK(aclrtDestroyEvent(sync));
	ASSERT_ACL_OK(aclrtDestroyEvent(ex));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(events_without_a_sync_bit)
{
	aclrtEvent e;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_TIME_LINE));
	ASSERT_ACL_OK(aclrtRecordEvent(e, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(NULL, e));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(e, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(e));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
	/*
	 * EXTERNAL events are ACL graphs': not recorded on a plain stream, nor
	 * with the EXTERNAL record and wait flags (those take Ex SYNC events)
	 */
	ASSERT_ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEvent(e, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSynchronizeEventWithTimeout(e, 10));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEventWithFlag(e, NULL, ACL_EVENT_RECORD_EXTERNAL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtStreamWaitEventWithFlag(NULL, e, 0, ACL_EVENT_WAIT_EXTERNAL));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_F(held, timestamps_are_the_devices)
{
	aclrtEvent a, b, plain;
	uint64_t ta = 0, tb = 0;
	struct timespec t0;
	float ms = -1;

	ASSERT_ACL_OK(aclrtCreateEvent(&a));
	ASSERT_ACL_OK(aclrtCreateEvent(&b));
	ASSERT_ACL_OK(aclrtCreateEventWithFlag(&plain, ACL_EVENT_SYNC));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventGetTimestamp(a, &ta));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventElapsedTime(&ms, a, b));
	ASSERT_ACL_OK(aclrtRecordEvent(a, self->other));
	ASSERT_ACL_OK(aclrtRecordEvent(b, self->held));
	ASSERT_ACL_OK(aclrtRecordEvent(plain, self->other));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(a));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(plain));
	/* b is behind the held wait: not complete */
	EXPECT_ACL(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(b, &tb));
	EXPECT_ACL(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, a, b));
	/* the record runs when the stream gets there, 200 ms from now */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	usleep(200 * 1000);
	release(self);
	ASSERT_ACL_OK(aclrtSynchronizeEvent(b));
	ASSERT_ACL_OK(aclrtEventGetTimestamp(a, &ta));
	ASSERT_ACL_OK(aclrtEventGetTimestamp(b, &tb));
	EXPECT_LT(ta, tb);
	ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, a, b));
	TH_LOG("a -> b: %.3f ms (device), %llu us", ms, (unsigned long long)(tb - ta));
	EXPECT_LE(200.0f, ms);
	EXPECT_GT(10000.0f, ms);
	/* end before start: negative */
	ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, b, a));
	EXPECT_GT(-200.0f, ms);
	/* no TIME_LINE, no elapsed time; a timestamp it has */
	EXPECT_ACL(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, a, plain));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(NULL, a, b));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, NULL, b));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(a, NULL));
	ASSERT_ACL_OK(aclrtDestroyEvent(a));
	ASSERT_ACL_OK(aclrtDestroyEvent(b));
	ASSERT_ACL_OK(aclrtDestroyEvent(plain));
}

/* The elapsed time between records around a copy is the copy's device time. */
TEST(elapsed_time_brackets_a_copy)
{
	const size_t n = 32 * MiB;
	struct timespec t0, t1;
	aclrtEvent a, b;
	aclrtStream s;
	void *h, *d;
	double wall;
	float ms;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost(&h, n));
	ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	memset(h, 1, n);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateEvent(&a));
	ASSERT_ACL_OK(aclrtCreateEvent(&b));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_ACL_OK(aclrtRecordEvent(a, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtRecordEvent(b, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, a, b));
	wall = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	TH_LOG("copy: %.3f ms by events, %.3f ms on the host clock", ms, wall);
	EXPECT_LT(0.0f, ms);
	EXPECT_GE(wall, ms);
	ASSERT_ACL_OK(aclrtDestroyEvent(a));
	ASSERT_ACL_OK(aclrtDestroyEvent(b));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST(event_ids)
{
	aclrtEvent a, b, c;
	uint32_t ia = 0, ib = 0, ic = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateEvent(&a));
	ASSERT_ACL_OK(aclrtCreateEventWithFlag(&b, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&c, ACL_EVENT_SYNC));
	/* aclrtCreateEvent's events get their id at the first record */
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtGetEventId(a, &ia));
	ASSERT_ACL_OK(aclrtGetEventId(b, &ib));
	ASSERT_ACL_OK(aclrtGetEventId(c, &ic));
	ASSERT_ACL_OK(aclrtRecordEvent(a, NULL));
	ASSERT_ACL_OK(aclrtGetEventId(a, &ia));
	EXPECT_NE(ia, ib);
	EXPECT_NE(ib, ic);
	EXPECT_NE(ia, ic);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetEventId(a, NULL));
	ASSERT_ACL_OK(aclrtDestroyEvent(a));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetEventId(a, &ia));
	ASSERT_ACL_OK(aclrtDestroyEvent(b));
	ASSERT_ACL_OK(aclrtDestroyEvent(c));
}

/* Destroying an event whose record is pending does not block. */
TEST_F(held, destroy_does_not_block)
{
	aclrtEvent e;

	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	ASSERT_ACL_OK(aclrtRecordEvent(e, self->held));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEvent(e));
	release(self);
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->held));
	/* the slot came back: many events still fit */
	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

/* The limit of aclrtStreamWaitEventWithTimeout is seconds; its expiry is a task error. */
TEST_F_TIMEOUT(held, wait_with_timeout, 60)
{
	struct timespec t0, t1;
	uint64_t v = 0;
	aclrtEvent e;
	double took;

	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(self->other, e, -1));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtRecordEvent(e, self->held));
	/* runs out after 1 s: the later task runs, the synchronize reports it */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_ACL_OK(aclrtStreamWaitEventWithTimeout(self->other, e, 1));
	ASSERT_ACL_OK(aclrtValueWrite(self->flag + 1, 7, 0, self->other));
	EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(self->other));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	TH_LOG("the wait ran out after %.3f s", took);
	EXPECT_LE(0.99, took);
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, self->flag + 1, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(7U, v);
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->other));
	/* 0 is no limit, and a wait satisfied in time is no error */
	ASSERT_ACL_OK(aclrtStreamWaitEventWithTimeout(self->other, e, 0));
	ASSERT_ACL_OK(aclrtStreamWaitEventWithTimeout(self->other, e, 30));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->other, 50));
	ASSERT_ACL_OK(aclrtValueWrite(self->flag, 1, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->other));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

/* The thread's last error is @code (ACL_SUCCESS: none), and no longer after. */
#define EXPECT_LAST(code)	EXPECT_EQ((aclError)(code), aclrtGetLastError(ACL_RT_THREAD_LEVEL))

/*
 * The flags of aclrtRecordEventWithFlag and aclrtStreamWaitEventWithFlag:
 * CANN's acl layer refuses other values (100000, no last error); EXTERNAL
 * takes only Ex SYNC events (207000 by NOLOG, no last error) and a stream
 * being captured into an ACL graph (107029, recorded); an event keeps the
 * flag of its first record and of its first wait (107000, recorded).
 */
TEST(record_and_wait_flag_codes)
{
	aclrtEvent e, ex, ex2, gone;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ex2, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEvent(&gone));
	ASSERT_ACL_OK(aclrtDestroyEvent(gone));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);

	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(NULL, NULL, ACL_EVENT_RECORD_DEFAULT));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(e, NULL, 2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(NULL, NULL, 0, ACL_EVENT_WAIT_DEFAULT));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(NULL, e, 0, 2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(NULL, ex, 1, ACL_EVENT_WAIT_EXTERNAL));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEventWithFlag(gone, NULL, ACL_EVENT_RECORD_DEFAULT));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithFlag(NULL, gone, 0, ACL_EVENT_WAIT_DEFAULT));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);

	/* EXTERNAL on an event of another kind */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEventWithFlag(e, NULL, ACL_EVENT_RECORD_EXTERNAL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtStreamWaitEventWithFlag(NULL, e, 0, ACL_EVENT_WAIT_EXTERNAL));
	EXPECT_LAST(ACL_SUCCESS);
	/* ... and on an Ex SYNC event: no stream is being captured */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtRecordEventWithFlag(ex, NULL, ACL_EVENT_RECORD_EXTERNAL));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
		   aclrtStreamWaitEventWithFlag(NULL, ex, 0, ACL_EVENT_WAIT_EXTERNAL));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	/* the failed EXTERNAL record and wait still fixed ex's flags */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRecordEvent(ex, NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(NULL, ex));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* DEFAULT first: EXTERNAL is refused by the flag rule, before the capture check */
	ASSERT_ACL_OK(aclrtRecordEventWithFlag(ex2, NULL, ACL_EVENT_RECORD_DEFAULT));
	ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(NULL, ex2, 0, ACL_EVENT_WAIT_DEFAULT));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRecordEventWithFlag(ex2, NULL, ACL_EVENT_RECORD_EXTERNAL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtStreamWaitEventWithFlag(NULL, ex2, 0, ACL_EVENT_WAIT_EXTERNAL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ASSERT_ACL_OK(aclrtRecordEvent(ex2, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ex2));
	/* DEFAULT keeps the never-recorded rule of aclrtStreamWaitEvent */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithFlag(NULL, e, 0, ACL_EVENT_WAIT_DEFAULT));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
	ASSERT_ACL_OK(aclrtDestroyEvent(ex));
	ASSERT_ACL_OK(aclrtDestroyEvent(ex2));
}

/* The DEFAULT flags order two streams as aclrtRecordEvent and aclrtStreamWaitEvent do. */
TEST_F(held, with_flag_default_orders_streams)
{
	const size_t n = 64 * KiB;
	unsigned char *host;
	aclrtEventRecordedStatus rs;
	void *a, *b;
	aclrtEvent e;

	host = malloc(n);
	ASSERT_NONNULL(host);
	ASSERT_ACL_OK(aclrtMalloc(&a, n, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&b, n, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(a, n, 0, n));
	ASSERT_ACL_OK(aclrtMemset(b, n, 0, n));
	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	/* held: fill a, then record; other: wait, then copy a to b */
	ASSERT_ACL_OK(aclrtMemsetAsync(a, n, 0x5a, n, self->held));
	ASSERT_ACL_OK(aclrtRecordEventWithFlag(e, self->held, ACL_EVENT_RECORD_DEFAULT));
	ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(self->other, e, 30, ACL_EVENT_WAIT_DEFAULT));
	ASSERT_ACL_OK(aclrtMemcpyAsync(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, self->other));
	ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, rs);
	/* nothing ran past the held wait yet */
	ASSERT_ACL_OK(aclrtMemcpy(host, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(host, n, 0));
	/* release from the default stream: other waits on e */
	ASSERT_ACL_OK(aclrtValueWrite(self->flag, 1, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->other));
	ASSERT_ACL_OK(aclrtQueryEventStatus(e, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, rs);
	ASSERT_ACL_OK(aclrtMemcpy(host, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(host, n, 0x5a));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtFree(b));
	free(host);
}

/* WAIT_DEFAULT's timeout is aclrtStreamWaitEventWithTimeout's: seconds, expiry a task error */
TEST_F_TIMEOUT(held, with_flag_default_wait_runs_out, 60)
{
	uint64_t v = 0;
	aclrtEvent e;

	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	ASSERT_ACL_OK(aclrtRecordEvent(e, self->held));
	ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(self->other, e, 1, ACL_EVENT_WAIT_DEFAULT));
	ASSERT_ACL_OK(aclrtValueWrite(self->flag + 1, 9, 0, self->other));
	EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(self->other));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, self->flag + 1, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(9U, v);
	release(self);
	ASSERT_ACL_OK(aclrtSynchronizeEvent(e));
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
}

/* The free ids of the device's event pool: creation takes one, destruction gives it back. */
TEST(event_avail_num)
{
	uint32_t n0 = 0, n = 0;
	aclrtEvent e, ex;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclInit(NULL));
	/* the runtime's 107002 (rtGetAvailEventNum: recorded) */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetEventAvailNum(&n));
	EXPECT_LAST(ACL_ERROR_RT_CONTEXT_NULL);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetEventAvailNum(NULL));
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&n0));
	EXPECT_LT(0U, n0);
	EXPECT_GE(65536U, n0);
	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&n));
	EXPECT_EQ(n0 - 2, n);
	ASSERT_ACL_OK(aclrtDestroyEvent(e));
	ASSERT_ACL_OK(aclrtDestroyEvent(ex));
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&n));
	EXPECT_EQ(n0, n);
}

TEST_HARNESS_MAIN
