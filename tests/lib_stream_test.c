// SPDX-License-Identifier: MIT
/*
 * libacl on a device: streams, events, stream memory operations.
 * Skips without /dev/npu0.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "lib_util.h"

TEST(stream_create_destroy)
{
	aclrtStream s1, s2;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	EXPECT_NE(s1, s2);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s1));
	ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s1, -1));
	ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s1, 10));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtDestroyStream(s1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(s1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s1));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(s2));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStreamForce(s2));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
}

TEST(stream_gone_with_device_reset)
{
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(s));
}

/* A stream blocked on a value nobody wrote yet. */
FIXTURE(blocked) {
	uint64_t *flag;		/* device memory, zeroed */
	aclrtStream waiter;
};
FIXTURE_SETUP(blocked)
{
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&self->flag, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(self->flag, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&self->waiter));
}
FIXTURE_TEARDOWN(blocked)
{
	if (self->waiter)
		aclrtDestroyStreamForce(self->waiter);
}

TEST_F(blocked, sync_timeout_then_release)
{
	aclrtStream writer;

	ASSERT_ACL_OK(aclrtValueWait(self->flag, 1, ACL_STREAM_WAIT_VALUE_GEQ, self->waiter));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->waiter, 50));
	ASSERT_ACL_OK(aclrtCreateStream(&writer));
	ASSERT_ACL_OK(aclrtValueWrite(self->flag, 5, 0, writer));
	ASSERT_ACL_OK(aclrtSynchronizeStream(writer));
	ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(self->waiter, 5000));
	ASSERT_ACL_OK(aclrtDestroyStream(writer));
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A signal every 20 ms interrupts the driver's wait over and over: the
 * timeout is a deadline, so the call still times out, close to 300 ms.
 */
TEST_F(blocked, sync_timeout_under_a_periodic_signal)
{
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } }, off = { 0 };
	struct timespec t0, t1;
	double took;

	ASSERT_ACL_OK(aclrtValueWait(self->flag, 1, ACL_STREAM_WAIT_VALUE_GEQ, self->waiter));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
		   aclrtSynchronizeStreamWithTimeout(self->waiter, 300));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	setitimer(ITIMER_REAL, &off, NULL);
	took = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	TH_LOG("timed out after %.3f s", took);
	EXPECT_LE(0.29, took);
	EXPECT_GT(3.0 * (getenv("HARNESS_TIMEOUT_SCALE") ? atof(getenv("HARNESS_TIMEOUT_SCALE")) : 1.0), took);
}

TEST_F(blocked, destroy_force_aborts)
{
	ASSERT_ACL_OK(aclrtValueWait(self->flag, 1, ACL_STREAM_WAIT_VALUE_EQ, self->waiter));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(self->waiter));
	self->waiter = NULL;
}

TEST_F(blocked, event_orders_streams)
{
	aclrtStream s2, s3;
	aclrtEvent ev;
	uint64_t *data;
	uint64_t host = 0;

	ASSERT_ACL_OK(aclrtMalloc((void **)&data, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtCreateStream(&s3));
	ASSERT_ACL_OK(aclrtCreateEvent(&ev));
	/* waiter: wait flag; event after it.  s2 waits the event, then writes data. */
	ASSERT_ACL_OK(aclrtValueWait(self->flag, 1, ACL_STREAM_WAIT_VALUE_GEQ, self->waiter));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, self->waiter));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, ev));
	ASSERT_ACL_OK(aclrtValueWrite(data, 42, 0, s2));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s2, 50));
	ASSERT_ACL_OK(aclrtMemcpy(&host, 8, data, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, host);
	/* release the waiter from a third stream */
	ASSERT_ACL_OK(aclrtValueWrite(self->flag, 1, 0, s3));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ev));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
	ASSERT_ACL_OK(aclrtMemcpy(&host, 8, data, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(42U, host);
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(ev));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtDestroyStream(s3));
	ASSERT_ACL_OK(aclrtFree(data));
}

TEST_F(blocked, synchronize_device_waits_all)
{
	aclrtStream s2;
	uint64_t host = 0;

	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	/* waiter blocks until s2 (after a delay of its own work) writes the flag */
	ASSERT_ACL_OK(aclrtValueWait(self->flag, 7, ACL_STREAM_WAIT_VALUE_EQ, self->waiter));
	ASSERT_ACL_OK(aclrtValueWrite(self->flag + 1, 9, 0, self->waiter));
	ASSERT_ACL_OK(aclrtValueWrite(self->flag, 7, 0, s2));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	ASSERT_ACL_OK(aclrtMemcpy(&host, 8, self->flag + 1, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(9U, host);
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
}

/* Pinned host memory: the copy is queued behind the wait and returns at once. */
TEST_F(blocked, async_pinned_copy_is_queued)
{
	uint64_t *pinned, *data, v = 0x5151;
	aclrtStream s2;

	ASSERT_ACL_OK(aclrtMalloc((void **)&data, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemcpy(data, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pinned, 4096));
	pinned[0] = 0;
	ASSERT_ACL_OK(aclrtValueWait(self->flag, 1, ACL_STREAM_WAIT_VALUE_EQ, self->waiter));
	ASSERT_ACL_OK(aclrtMemcpyAsync(pinned, 8, data, 8, ACL_MEMCPY_DEVICE_TO_HOST, self->waiter));
	usleep(20000);
	EXPECT_EQ(0U, __atomic_load_n(&pinned[0], __ATOMIC_SEQ_CST));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtValueWrite(self->flag, 1, 0, s2));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->waiter));
	EXPECT_EQ(0x5151U, pinned[0]);
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtFreeHost(pinned));
	ASSERT_ACL_OK(aclrtFree(data));
}

struct releaser {
	uint64_t *flag;
	aclError err;
};

static void *release_later(void *arg)
{
	struct releaser *r = arg;
	aclrtStream s;

	usleep(100000);
	r->err = aclrtSetDevice(0);
	if (!r->err)
		r->err = aclrtCreateStream(&s);
	if (!r->err)
		r->err = aclrtValueWrite(r->flag, 1, 0, s);
	if (!r->err)
		r->err = aclrtSynchronizeStream(s);
	return NULL;
}

/* Pageable host memory: the copy waits for the stream's earlier work first. */
TEST_F(blocked, async_pageable_copy_is_ordered)
{
	struct releaser r = { self->flag, -1 };
	uint64_t *data, host = 0;
	pthread_t t;

	ASSERT_ACL_OK(aclrtMalloc((void **)&data, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(data, 8, 0, 8));
	ASSERT_ACL_OK(aclrtValueWait(self->flag, 1, ACL_STREAM_WAIT_VALUE_EQ, self->waiter));
	ASSERT_ACL_OK(aclrtValueWrite(data, 42, 0, self->waiter));
	ASSERT_EQ(0, pthread_create(&t, NULL, release_later, &r));
	ASSERT_ACL_OK(aclrtMemcpyAsync(&host, 8, data, 8, ACL_MEMCPY_DEVICE_TO_HOST, self->waiter));
	/* returned after the copy, which came after the write */
	EXPECT_EQ(42U, host);
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_SUCCESS, r.err);
	ASSERT_ACL_OK(aclrtFree(data));
}

TEST(create_with_config)
{
	uint32_t flags = 99, prio = 99;
	int32_t least = 0, greatest = 9, id = -1, id2 = -1;
	aclrtStream s, d;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
	EXPECT_EQ(7, least);
	EXPECT_EQ(0, greatest);
	ASSERT_ACL_OK(aclrtDeviceGetStreamPriorityRange(NULL, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(NULL, 0, 0));
	/* a priority past the lowest is clamped; unknown flag bits are ignored */
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 100, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_HUGE | 0x1000));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &prio));
	EXPECT_EQ(7U, prio);
	ASSERT_ACL_OK(aclrtStreamGetFlags(s, &flags));
	EXPECT_EQ(ACL_STREAM_FAST_LAUNCH | ACL_STREAM_HUGE, flags);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	/* CANN reads it as signed: negative ones are the highest, 0 */
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0xFFFFFFFFu, 0));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &prio));
	EXPECT_EQ(0U, prio);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0x80000000u, 0));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &prio));
	EXPECT_EQ(0U, prio);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0x7FFFFFFFu, 0));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &prio));
	EXPECT_EQ(7U, prio);
	ASSERT_ACL_OK(aclrtStreamGetId(s, &id));
	ASSERT_ACL_OK(aclrtStreamGetId(NULL, &id2));
	EXPECT_NE(id, id2);
	ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&d));
	ASSERT_ACL_OK(aclrtStreamGetId(d, &id));
	EXPECT_EQ(id, id2);
	ASSERT_ACL_OK(aclrtStreamGetFlags(NULL, &flags));
	EXPECT_EQ(0U, flags);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamGetId(s, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(s, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamGetPriority(s, NULL));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetId(s, &id));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_SYNC));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 3, ACL_STREAM_DEVICE_USE_ONLY));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	/* the default stream is not destroyed */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDestroyStream(d));
}

TEST_F(blocked, query_and_abort)
{
	aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
	uint64_t host = 0;

	ASSERT_ACL_OK(aclrtStreamQuery(self->waiter, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(self->waiter, NULL));
	ASSERT_ACL_OK(aclrtValueWait(self->flag, 1, ACL_STREAM_WAIT_VALUE_EQ, self->waiter));
	ASSERT_ACL_OK(aclrtValueWrite(self->flag + 1, 5, 0, self->waiter));
	ASSERT_ACL_OK(aclrtStreamQuery(self->waiter, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	/* abort drops the queue and returns; the stream stays usable */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamAbort(NULL));
	ASSERT_ACL_OK(aclrtStreamAbort(self->waiter));
	ASSERT_ACL_OK(aclrtStreamQuery(self->waiter, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->waiter));
	ASSERT_ACL_OK(aclrtMemcpy(&host, 8, self->flag + 1, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, host);
	ASSERT_ACL_OK(aclrtValueWrite(self->flag + 1, 6, 0, self->waiter));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->waiter));
	ASSERT_ACL_OK(aclrtMemcpy(&host, 8, self->flag + 1, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(6U, host);
	/* no STARS scheduler on the simulated chip */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamStop(self->waiter));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamStop(NULL));
}

/* ACL_STOP_ON_FAILURE: the first task error sticks to the whole context. */
TEST(failure_mode_stop_is_sticky)
{
	aclrtStream s, other;
	aclrtContext ctx, primary;
	uint64_t v = 1;
	void *d, *good;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtMalloc(&good, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(good, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&d, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamFailureMode(NULL, ACL_STOP_ON_FAILURE));
	ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
	ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
	ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE | 0x10));	/* bit 0 only */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtValueWrite(d, 1, 0, s));	/* reserved, unmapped: faults */
	ASSERT_ACL_OK(aclrtValueWrite(good, 2, 0, s));	/* dropped after the fault */
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	/* sticky: every stream of the context, synchronize and submit alike */
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(other));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtValueWrite(good, 3, 0, other));
	ASSERT_ACL_OK(aclrtStreamAbort(s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	/* another context is not affected; the task after the fault never ran */
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, good, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0U, v);
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(d));
	ASSERT_ACL_OK(aclrtFree(good));
}

/* ACL_CONTINUE_ON_FAILURE (the default): later tasks run, the error is reported once. */
TEST(failure_mode_continue_runs_later_tasks)
{
	aclrtStream s;
	uint64_t v = 0;
	void *d, *good;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&good, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&d, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtValueWrite(d, 1, 0, s));
	ASSERT_ACL_OK(aclrtValueWrite(good, 2, 0, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(&v, 8, good, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(2U, v);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(d));
	ASSERT_ACL_OK(aclrtFree(good));
}

static void *res_no_context(void *arg)
{
	uint32_t v;

	*(aclError *)arg = aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v);
	return NULL;
}

/* Stream limits, the calling thread's bound stream, and the device limit under both. */
TEST(stream_res_limits)
{
	uint32_t cube = 0, vec = 0, v = 0;
	aclrtStream s, other;
	aclError err = 0;
	pthread_t t;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &cube));
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &vec));
	ASSERT_LT(3U, cube);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	/* unset: the device's */
	ASSERT_ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube, v);
	ASSERT_ACL_OK(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(vec, v);
	ASSERT_ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 3));
	ASSERT_ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(3U, v);
	ASSERT_ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(vec, v);
	ASSERT_ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 0));
	ASSERT_ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, cube));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, cube + 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamResLimit(s, (aclrtDevResLimitType)2, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamResLimit(s, (aclrtDevResLimitType)2, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, NULL));
	ASSERT_ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 3));

	/* the thread's answer: the bound stream's if set, else the device's */
	ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube, v);
	ASSERT_ACL_OK(aclrtUseStreamResInCurrentThread(s));
	ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(3U, v);
	ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(vec, v);
	ASSERT_ACL_OK(aclrtUnuseStreamResInCurrentThread(other));	/* not the bound one */
	ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(3U, v);
	ASSERT_ACL_OK(aclrtUnuseStreamResInCurrentThread(s));
	ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube, v);
	/* the device limit is under every unset stream and the unbound thread */
	ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 2));
	ASSERT_ACL_OK(aclrtGetStreamResLimit(other, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(2U, v);
	ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(2U, v);
	/* a stream may go above the device limit, up to the hardware */
	ASSERT_ACL_OK(aclrtSetStreamResLimit(other, ACL_RT_DEV_RES_CUBE_CORE, cube));
	ASSERT_ACL_OK(aclrtResetStreamResLimit(s));
	ASSERT_ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(2U, v);
	ASSERT_ACL_OK(aclrtResetDeviceResLimit(0));
	/* a bound stream that is destroyed no longer answers */
	ASSERT_ACL_OK(aclrtUseStreamResInCurrentThread(other));
	ASSERT_ACL_OK(aclrtDestroyStream(other));
	ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube, v);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamResLimit(other, ACL_RT_DEV_RES_CUBE_CORE, 1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamResLimit(other, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetStreamResLimit(other));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetResInCurrentThread((aclrtDevResLimitType)2, &v));
	ASSERT_EQ(0, pthread_create(&t, NULL, res_no_context, &err));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, err);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(event_unrecorded_and_idle)
{
	aclrtEvent ev;
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateEvent(&ev));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ev));	/* never recorded: complete */
	/* but no stream waits for it (CANN's Event::Wait) */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(NULL, ev));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, s));		/* idle stream */
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ev));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ev));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(ev, (aclrtStream)&s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	/* its stream is gone: nothing left to wait for */
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
}

FIXTURE(wait) { int unused; };
FIXTURE_VARIANT(wait) {
	uint32_t flag;
	uint64_t stored, value;
	bool passes;
};
FIXTURE_VARIANT_ADD(wait, geq_yes) { ACL_STREAM_WAIT_VALUE_GEQ, 10, 10, true };
FIXTURE_VARIANT_ADD(wait, geq_no) { ACL_STREAM_WAIT_VALUE_GEQ, 9, 10, false };
FIXTURE_VARIANT_ADD(wait, eq_yes) { ACL_STREAM_WAIT_VALUE_EQ, 77, 77, true };
FIXTURE_VARIANT_ADD(wait, eq_no) { ACL_STREAM_WAIT_VALUE_EQ, 78, 77, false };
FIXTURE_VARIANT_ADD(wait, and_yes) { ACL_STREAM_WAIT_VALUE_AND, 0x10, 0x30, true };
FIXTURE_VARIANT_ADD(wait, and_no) { ACL_STREAM_WAIT_VALUE_AND, 0x10, 0x20, false };
FIXTURE_VARIANT_ADD(wait, nor_yes) { ACL_STREAM_WAIT_VALUE_NOR, 0x1, 0x2, true };
FIXTURE_VARIANT_ADD(wait, nor_no) { ACL_STREAM_WAIT_VALUE_NOR, ~0ULL, 0, false };
FIXTURE_SETUP(wait) {}
FIXTURE_TEARDOWN(wait) {}

TEST_F(wait, value_wait_condition)
{
	aclrtStream s;
	uint64_t *d, back = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtValueWrite(d, variant->stored, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(&back, 8, d, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(variant->stored, back);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtValueWait(d, variant->value, variant->flag, s));
	if (variant->passes) {
		EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 5000));
		ASSERT_ACL_OK(aclrtDestroyStream(s));
	} else {
		EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 50));
		ASSERT_ACL_OK(aclrtDestroyStreamForce(s));
	}
	ASSERT_ACL_OK(aclrtFree(d));
}

TEST(value_ops_need_device_memory)
{
	uint64_t host[2] = { 0, 0 };
	uint64_t *d;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtValueWrite(host, 1, 0, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtValueWait(host, 1, 0, NULL));
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtValueWrite((char *)d + 4, 1, 0, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtValueWrite(d, 1, 2, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtValueWait(d, 1, 4, NULL));
	ASSERT_ACL_OK(aclrtFree(d));
}

TEST(device_fault_is_rt_failure)
{
	aclrtErrorInfo info;
	aclrtStream s;
	void *d;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtReserveMemAddress(&d, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	memset(&info, 0xff, sizeof(info));
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &info));
	EXPECT_EQ(ACL_RT_NO_ERROR, info.errorType);
	EXPECT_EQ(0, info.tryRepair);
	EXPECT_EQ(0, info.hasDetail);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetErrorVerbose(0, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetErrorVerbose(-1, &info));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetErrorVerbose(64, &info));
	/* reserved but unmapped: the command faults when it runs */
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtValueWrite(d, 1, 0, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	/* the runtime error is the thread's last error, and the device's latest fault */
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtGetErrorVerbose(0, &info));
	EXPECT_EQ(ACL_RT_ERROR_OTHERS, info.errorType);
	EXPECT_EQ(0, info.hasDetail);
	/* reported once */
	EXPECT_ACL_OK(aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(d));
}

struct streamer {
	aclError err;
	uint64_t *d;
	int id;
};

static void *stream_thread(void *arg)
{
	struct streamer *t = arg;
	aclrtStream s;
	aclrtEvent e;
	int i;

	t->err = aclrtSetDevice(0);
	if (!t->err)
		t->err = aclrtCreateStream(&s);
	if (!t->err)
		t->err = aclrtCreateEvent(&e);
	for (i = 0; i < 200 && !t->err; i++) {
		t->err = aclrtValueWrite(t->d + t->id, i, 0, s);
		if (!t->err)
			t->err = aclrtRecordEvent(e, s);
		if (!t->err && i % 10 == 0)
			t->err = aclrtSynchronizeEvent(e);
	}
	if (!t->err)
		t->err = aclrtSynchronizeStream(s);
	if (!t->err)
		t->err = aclrtDestroyEvent(e);
	if (!t->err)
		t->err = aclrtDestroyStream(s);
	return NULL;
}

TEST_TIMEOUT(streams_from_threads, 120)
{
	struct streamer t[4];
	pthread_t th[4];
	uint64_t back[4];
	uint64_t *d;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	for (i = 0; i < 4; i++) {
		t[i].d = d;
		t[i].id = i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, stream_thread, &t[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(ACL_SUCCESS, t[i].err);
	}
	ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), d, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(199U, back[i]);
	ASSERT_ACL_OK(aclrtFree(d));
}

TEST_HARNESS_MAIN
