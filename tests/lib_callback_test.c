// SPDX-License-Identifier: MIT
/*
 * libacl host functions in stream order: aclrtLaunchCallback with a report
 * thread the test owns, aclrtLaunchHostFunc with the runtime's thread or
 * one the test owns (aclrtSubscribeHostFunc). Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "lib_util.h"

/* A report thread: aclrtProcessReport (aclrtProcessHostFunc) until told to stop. */
struct reporter {
	pthread_t tid;
	bool hostfunc;
	atomic_bool stop;
	atomic_int timeouts;
	aclError err;
};

static void *report_main(void *arg)
{
	struct reporter *r = arg;

	while (!atomic_load(&r->stop)) {
		aclError e = r->hostfunc ? aclrtProcessHostFunc(20) : aclrtProcessReport(20);

		if (e == ACL_ERROR_RT_REPORT_TIMEOUT)
			atomic_fetch_add(&r->timeouts, 1);
		else if (e == ACL_ERROR_RT_THREAD_SUBSCRIBE)
			usleep(1000);	/* before the test subscribed it, or after */
		else if (e != ACL_SUCCESS && !r->err)
			r->err = e;
	}
	return NULL;
}

FIXTURE(cb) {
	struct reporter rep;
	aclrtStream s;
	uint64_t *pinned;	/* 4 KiB of page-locked host memory */
	uint64_t *dev;		/* 4 KiB of device memory */
	bool started;
};
FIXTURE_SETUP(cb)
{
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&self->s));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&self->pinned, 4096));
	memset(self->pinned, 0, 4096);
	ASSERT_ACL_OK(aclrtMalloc((void **)&self->dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(self->dev, 4096, 0, 4096));
	ASSERT_EQ(0, pthread_create(&self->rep.tid, NULL, report_main, &self->rep));
	self->started = true;
}
FIXTURE_TEARDOWN(cb)
{
	if (self->started) {
		atomic_store(&self->rep.stop, true);
		pthread_join(self->rep.tid, NULL);
	}
}

/* Callback data: what the stream had done when the callback ran. */
struct probe {
	uint64_t *pinned;
	int index;
	uint64_t seen;		/* pinned[0] when it ran */
	pthread_t ran_on;
	int order;
	atomic_int *counter;
	unsigned int sleep_us;
};

static void probe_fn(void *arg)
{
	struct probe *p = arg;

	if (p->sleep_us)
		usleep(p->sleep_us);
	p->seen = __atomic_load_n(&p->pinned[0], __ATOMIC_ACQUIRE);
	p->ran_on = pthread_self();
	p->order = atomic_fetch_add(p->counter, 1);
	/* what a later task of the stream reads */
	__atomic_store_n(&p->pinned[1 + p->index], 100 + p->index, __ATOMIC_RELEASE);
}

/*
 * Callbacks run in stream order, after every earlier task and, when they
 * block, before every later one: each sees the value the copy before it
 * wrote, and the copy after it reads what it wrote.
 */
TEST_F(cb, blocking_callbacks_are_ordered)
{
	enum { N = 8 };
	struct probe p[N];
	atomic_int counter = 0;
	uint64_t v, back[N];
	int i;

	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	for (i = 0; i < N; i++) {
		p[i] = (struct probe){ .pinned = self->pinned, .index = i, .counter = &counter,
				       .sleep_us = 20000 };
		v = 1000 + i;
		/* device word <- v (through the default stream, done now), then pinned[0] <- it, in s */
		ASSERT_ACL_OK(aclrtMemcpy(self->dev + 8 + i, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclrtMemcpyAsync(self->pinned, 8, self->dev + 8 + i, 8,
					       ACL_MEMCPY_DEVICE_TO_HOST, self->s));
		ASSERT_ACL_OK(aclrtLaunchCallback(probe_fn, &p[i], ACL_CALLBACK_BLOCK, self->s));
		/* the callback's write, copied by the device after it returned */
		ASSERT_ACL_OK(aclrtMemcpyAsync(self->dev + 64 + i, 8, self->pinned + 1 + i, 8,
					       ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	}
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), self->dev + 64, sizeof(back),
				  ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < N; i++) {
		EXPECT_EQ(1000U + i, p[i].seen);
		EXPECT_EQ(i, p[i].order);
		EXPECT_TRUE(pthread_equal(self->rep.tid, p[i].ran_on));
		EXPECT_EQ(100U + i, back[i]);
	}
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)self->rep.tid, self->s));
	EXPECT_EQ(ACL_SUCCESS, self->rep.err);
}

static void slow_fn(void *arg)
{
	atomic_int *done = arg;

	usleep(300 * 1000);
	atomic_store(done, 1);
}

/* A non-blocking callback does not hold the stream up. */
TEST_F(cb, non_blocking_callback_lets_the_stream_go)
{
	atomic_int done = 0;

	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	ASSERT_ACL_OK(aclrtLaunchCallback(slow_fn, &done, ACL_CALLBACK_NO_BLOCK, self->s));
	ASSERT_ACL_OK(aclrtMemsetAsync(self->dev, 4096, 1, 4096, self->s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	EXPECT_EQ(0, atomic_load(&done));
	while (!atomic_load(&done))
		usleep(10000);
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)self->rep.tid, self->s));
}

static void *process_unsubscribed(void *arg)
{
	aclError *e = arg;

	*e = aclrtProcessReport(10);
	return NULL;
}

TEST_F(cb, subscription_errors)
{
	aclrtStream s2;
	aclError e = 0;
	pthread_t t;

	EXPECT_ACL(ACL_ERROR_RT_STREAM_NO_CB_REG, aclrtLaunchCallback(slow_fn, NULL, ACL_CALLBACK_BLOCK, self->s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchCallback(slow_fn, NULL, 2, self->s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeReport((uint64_t)self->rep.tid, self->s));
	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport((uint64_t)pthread_self(), self->s));
	/* the two models do not mix on one stream */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtLaunchHostFunc(self->s, slow_fn, NULL));
	EXPECT_ACL(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtUnSubscribeReport((uint64_t)pthread_self(), self->s));
	/* a thread may serve several streams of one device */
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)self->rep.tid, s2));
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)self->rep.tid, s2));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	/* a thread that serves nothing */
	ASSERT_EQ(0, pthread_create(&t, NULL, process_unsubscribed, &e));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, e);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(-2));
	usleep(100 * 1000);
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)self->rep.tid, self->s));
	/* nothing queued: the report thread's waits time out */
	EXPECT_LT(0, atomic_load(&self->rep.timeouts));
}

/* The report thread may not serve two devices. */
TEST_F(cb, thread_serves_one_device)
{
	aclrtContext ctx1;
	aclrtStream s1;

	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx1, 1));
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	EXPECT_ACL(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtSubscribeReport((uint64_t)self->rep.tid, s1));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)self->rep.tid, self->s));
}

/* aclrtLaunchHostFunc: the runtime's thread, one per context, always blocking. */
TEST_F(cb, host_functions_run_on_the_contexts_thread)
{
	enum { N = 4 };
	struct probe p[2 * N];
	atomic_int counter = 0;
	aclrtStream s2;
	uint64_t back[N];
	const char *msg;
	int i;

	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchHostFunc(self->s, NULL, NULL));
	for (i = 0; i < N; i++) {
		p[i] = (struct probe){ .pinned = self->pinned, .index = i, .counter = &counter,
				       .sleep_us = 10000 };
		p[N + i] = (struct probe){ .pinned = self->pinned, .index = N + i, .counter = &counter };
		ASSERT_ACL_OK(aclrtLaunchHostFunc(self->s, probe_fn, &p[i]));
		ASSERT_ACL_OK(aclrtMemcpyAsync(self->dev + 64 + i, 8, self->pinned + 1 + i, 8,
					       ACL_MEMCPY_HOST_TO_DEVICE, self->s));
		ASSERT_ACL_OK(aclrtLaunchHostFunc(s2, probe_fn, &p[N + i]));
	}
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
	ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), self->dev + 64, sizeof(back),
				  ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < N; i++) {
		EXPECT_EQ(100U + i, back[i]);
		EXPECT_FALSE(pthread_equal(pthread_self(), p[i].ran_on));
		EXPECT_TRUE(pthread_equal(p[0].ran_on, p[i].ran_on));
		EXPECT_TRUE(pthread_equal(p[0].ran_on, p[N + i].ran_on));
		if (i)
			EXPECT_LT(p[i - 1].order, p[i].order);
	}
	/* a stream of host functions cannot be subscribed */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	/* nor take aclrtLaunchCallback: 107011 (CANN checks it before 107015) */
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtLaunchCallback(slow_fn, NULL, ACL_CALLBACK_BLOCK, self->s));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "aclrtLaunchHostFunc"));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
}

/* Destroying a stream waits for its callbacks; a forced destroy drops them. */
TEST_F(cb, destroy_with_callbacks_queued)
{
	uint64_t *flag = self->dev;
	atomic_int done = 0;
	aclrtStream s2;

	ASSERT_ACL_OK(aclrtLaunchHostFunc(self->s, slow_fn, &done));
	ASSERT_ACL_OK(aclrtDestroyStream(self->s));
	EXPECT_EQ(1, atomic_load(&done));
	self->s = NULL;
	/* several, each behind work of the stream: all run before the destroy returns */
	{
		atomic_int counter = 0;
		struct probe p[3];
		aclrtStream s3;
		int i;

		ASSERT_ACL_OK(aclrtCreateStream(&s3));
		for (i = 0; i < 3; i++) {
			p[i] = (struct probe){ .pinned = self->pinned, .index = i, .counter = &counter,
					       .sleep_us = 50000 };
			ASSERT_ACL_OK(aclrtMemcpyAsync(self->dev + 8, 8, self->pinned, 8,
						       ACL_MEMCPY_HOST_TO_DEVICE, s3));
			ASSERT_ACL_OK(aclrtLaunchHostFunc(s3, probe_fn, &p[i]));
		}
		ASSERT_ACL_OK(aclrtDestroyStream(s3));
		EXPECT_EQ(3, atomic_load(&counter));
	}
	/* held at a wait that never passes, then forced */
	atomic_store(&done, 0);
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, s2));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(s2, slow_fn, &done));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(s2));
	usleep(400 * 1000);
	EXPECT_EQ(0, atomic_load(&done));
}

/* An abort discards a callback the watcher waits for, and is no task error, in STOP mode too. */
TEST_F(cb, abort_discards_waiting_callbacks)
{
	atomic_int done = 0;
	aclrtStream other;

	ASSERT_ACL_OK(aclrtSetStreamFailureMode(self->s, ACL_STOP_ON_FAILURE));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	ASSERT_ACL_OK(aclrtValueWait(self->dev, 1, ACL_STREAM_WAIT_VALUE_EQ, self->s));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(self->s, slow_fn, &done));
	usleep(100 * 1000);	/* the watcher waits behind the ValueWait */
	ASSERT_ACL_OK(aclrtStreamAbort(self->s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(other));
	ASSERT_ACL_OK(aclrtMemsetAsync(self->dev, 8, 0, 8, self->s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	usleep(400 * 1000);
	EXPECT_EQ(0, atomic_load(&done));
	/* the stream takes callbacks again */
	ASSERT_ACL_OK(aclrtLaunchHostFunc(self->s, slow_fn, &done));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	EXPECT_EQ(1, atomic_load(&done));
	ASSERT_ACL_OK(aclrtDestroyStream(other));
}

/* aclrtSubscribeHostFunc: a stream's host functions run on the application's thread, in order. */
TEST_F(cb, host_functions_on_a_subscribed_thread)
{
	enum { N = 6 };
	struct reporter hf = { .hostfunc = true };
	struct probe p[N], q;
	atomic_int counter = 0;
	uint64_t back[N];
	int i;

	ASSERT_EQ(0, pthread_create(&hf.tid, NULL, report_main, &hf));
	ASSERT_ACL_OK(aclrtSubscribeHostFunc((uint64_t)hf.tid, self->s));
	for (i = 0; i < N; i++) {
		p[i] = (struct probe){ .pinned = self->pinned, .index = i, .counter = &counter,
				       .sleep_us = 10000 };
		ASSERT_ACL_OK(aclrtLaunchHostFunc(self->s, probe_fn, &p[i]));
		/* copied by the device after the function returned (host functions block) */
		ASSERT_ACL_OK(aclrtMemcpyAsync(self->dev + 64 + i, 8, self->pinned + 1 + i, 8,
					       ACL_MEMCPY_HOST_TO_DEVICE, self->s));
	}
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), self->dev + 64, sizeof(back),
				  ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < N; i++) {
		EXPECT_EQ(100U + i, back[i]);
		EXPECT_TRUE(pthread_equal(hf.tid, p[i].ran_on));
		EXPECT_EQ(i, p[i].order);
	}
	/* a report thread's aclrtProcessReport does not run host functions */
	EXPECT_EQ(0, self->rep.err);
	ASSERT_ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)hf.tid, self->s));
	/* unsubscribed, the stream's host functions go to the context's thread */
	q = (struct probe){ .pinned = self->pinned, .index = N, .counter = &counter };
	ASSERT_ACL_OK(aclrtLaunchHostFunc(self->s, probe_fn, &q));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	EXPECT_EQ(N, q.order);
	EXPECT_FALSE(pthread_equal(hf.tid, q.ran_on));
	EXPECT_FALSE(pthread_equal(pthread_self(), q.ran_on));
	atomic_store(&hf.stop, true);
	pthread_join(hf.tid, NULL);
	EXPECT_EQ(ACL_SUCCESS, hf.err);
}

/*
 * One stream with a report thread and a host-function thread (the vendor's
 * 0_simple_callback): callbacks and host functions run in stream order,
 * each on its own kind's thread.
 */
TEST_F(cb, callbacks_and_host_functions_on_one_stream)
{
	enum { N = 6 };
	struct reporter hf = { .hostfunc = true };
	atomic_int counter = 0;
	struct probe p[N];
	int i;

	ASSERT_EQ(0, pthread_create(&hf.tid, NULL, report_main, &hf));
	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	ASSERT_ACL_OK(aclrtSubscribeHostFunc((uint64_t)hf.tid, self->s));
	for (i = 0; i < N; i++) {
		p[i] = (struct probe){ .pinned = self->pinned, .index = i, .counter = &counter,
				       .sleep_us = 5000 };
		if (i % 2)
			ASSERT_ACL_OK(aclrtLaunchHostFunc(self->s, probe_fn, &p[i]));
		else
			ASSERT_ACL_OK(aclrtLaunchCallback(probe_fn, &p[i], ACL_CALLBACK_BLOCK, self->s));
	}
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->s));
	for (i = 0; i < N; i++) {
		EXPECT_EQ(i, p[i].order);
		EXPECT_TRUE(pthread_equal(i % 2 ? hf.tid : self->rep.tid, p[i].ran_on));
	}
	ASSERT_ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)hf.tid, self->s));
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)self->rep.tid, self->s));
	atomic_store(&hf.stop, true);
	pthread_join(hf.tid, NULL);
	EXPECT_EQ(ACL_SUCCESS, hf.err);
	EXPECT_EQ(ACL_SUCCESS, self->rep.err);
}

static void *process_hostfunc(void *arg)
{
	aclError *e = arg;

	e[0] = aclrtProcessHostFunc(10);
	e[1] = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
	return NULL;
}

TEST_F(cb, host_function_subscription_errors)
{
	struct reporter hf = { .hostfunc = true };
	aclError e[2] = { 0, 0 };
	atomic_int done = 0;
	aclrtStream s2, s3;
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&hf.tid, NULL, report_main, &hf));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	/* no default stream here: NULL is a runtime error, the last error */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSubscribeHostFunc((uint64_t)hf.tid, NULL));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtUnSubscribeHostFunc((uint64_t)hf.tid, NULL));
	/* not subscribed */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeHostFunc((uint64_t)hf.tid, self->s));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtSubscribeHostFunc((uint64_t)hf.tid, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeHostFunc((uint64_t)hf.tid, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeHostFunc((uint64_t)pthread_self(), self->s));
	/*
	 * A stream has a thread of each kind at most, and may have both (the
	 * vendor's 0_simple_callback example subscribes one stream to both):
	 * callbacks need the report thread, an unsubscribe the right one.
	 */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NO_CB_REG,
		   aclrtLaunchCallback(slow_fn, NULL, ACL_CALLBACK_BLOCK, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeReport((uint64_t)hf.tid, self->s));
	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport((uint64_t)self->rep.tid, self->s));
	EXPECT_ACL(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtUnSubscribeReport((uint64_t)hf.tid, self->s));
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)self->rep.tid, self->s));
	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)self->rep.tid, s2));
	ASSERT_ACL_OK(aclrtSubscribeHostFunc((uint64_t)hf.tid, s2));
	ASSERT_ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)hf.tid, s2));
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)self->rep.tid, s2));
	/* a host-function thread serves several streams, and a report thread may be one too */
	ASSERT_ACL_OK(aclrtSubscribeHostFunc((uint64_t)hf.tid, s2));
	/* the wrong thread: 107011 as well (CANN's compact runtime) */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeHostFunc((uint64_t)pthread_self(), s2));
	ASSERT_ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)hf.tid, s2));
	ASSERT_ACL_OK(aclrtSubscribeHostFunc((uint64_t)self->rep.tid, s2));
	ASSERT_ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)self->rep.tid, s2));
	/* a stream whose host functions went to the context's thread already */
	ASSERT_ACL_OK(aclrtCreateStream(&s3));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(s3, slow_fn, &done));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s3));
	EXPECT_EQ(1, atomic_load(&done));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeHostFunc((uint64_t)hf.tid, s3));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeHostFunc((uint64_t)hf.tid, s3));
	/* the timeout is the compact runtime's check: 107000, the last error */
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtProcessHostFunc(0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtProcessHostFunc(-2));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	/* a thread that serves no stream's host functions */
	ASSERT_EQ(0, pthread_create(&t, NULL, process_hostfunc, e));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, e[0]);
	EXPECT_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, e[1]);
	/* the report thread serves reports, not host functions */
	EXPECT_ACL(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessHostFunc(10));
	usleep(100 * 1000);
	ASSERT_ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)hf.tid, self->s));
	atomic_store(&hf.stop, true);
	pthread_join(hf.tid, NULL);
	/* nothing queued: its waits timed out (ACL_ERROR_RT_REPORT_TIMEOUT) */
	EXPECT_LT(0, atomic_load(&hf.timeouts));
	EXPECT_EQ(ACL_SUCCESS, hf.err);
	ASSERT_ACL_OK(aclrtDestroyStream(s3));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
}

/* Destroying a stream waits for the host functions its thread still has to run. */
TEST_F(cb, destroy_waits_for_a_subscribed_threads_host_functions)
{
	struct reporter hf = { .hostfunc = true };
	atomic_int done = 0;

	ASSERT_EQ(0, pthread_create(&hf.tid, NULL, report_main, &hf));
	ASSERT_ACL_OK(aclrtSubscribeHostFunc((uint64_t)hf.tid, self->s));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(self->s, slow_fn, &done));
	ASSERT_ACL_OK(aclrtDestroyStream(self->s));
	self->s = NULL;
	EXPECT_EQ(1, atomic_load(&done));
	atomic_store(&hf.stop, true);
	pthread_join(hf.tid, NULL);
	EXPECT_EQ(ACL_SUCCESS, hf.err);
}

TEST_HARNESS_MAIN
