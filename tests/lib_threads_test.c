// SPDX-License-Identifier: MIT
/*
 * libacl under threads: 8 threads, each with a context of its own on one
 * of the devices, run streams, events and callbacks concurrently. Each
 * iteration copies a fresh pattern to the device, orders a second stream
 * after it with an event, runs a callback in that stream that checks the
 * copy and stamps a sequence number, and copies the stamp back; the
 * thread checks that every callback ran once, in order, with the data
 * before it in place, and that the event timing is sane. Afterwards the
 * system's pinned pages are what they were.
 *
 * NPU_LIB_STRESS_SECONDS sets the length: default 60 s on a debug kernel
 * (kmemleak or lockdep), 5 s elsewhere. Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "lib_util.h"
#include "npu_util.h"

#define THREADS		8
#define WORDS		512	/* the pattern: 4 KiB */

struct worker {
	int index, device;
	double seconds;
	bool hostfunc;		/* aclrtLaunchHostFunc, else a report thread of its own */
	uint64_t *pinned;	/* [0, WORDS): pattern; [WORDS]: callback stamp */
	uint64_t *dev;
	atomic_bool stop_reports;
	pthread_t rep;
	/* results */
	unsigned long iterations, callbacks, bad_order, bad_data, bad_time;
	aclError err;
	const char *what;
};

struct cb_arg {
	struct worker *w;
	unsigned long seq;	/* the iteration it belongs to */
	unsigned long *next;	/* the iteration the next callback must be */
};

static void check_fn(void *arg)
{
	struct cb_arg *a = arg;
	struct worker *w = a->w;
	unsigned int i;

	if (a->seq != *a->next)
		w->bad_order++;
	*a->next = a->seq + 1;
	/* the copies before it in both streams are done: the pattern is in */
	for (i = 0; i < WORDS; i += 61)
		if (__atomic_load_n(&w->pinned[WORDS + 8 + i % 64], __ATOMIC_ACQUIRE) !=
		    a->seq * 1000003 + i % 64)
			w->bad_data++;
	__atomic_store_n(&w->pinned[WORDS], a->seq, __ATOMIC_RELEASE);
	w->callbacks++;
}

static void *report_main(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(&w->stop_reports))
		aclrtProcessReport(20);
	return NULL;
}

#define TRY(call) do {								\
	aclError __e = (call);							\
	if (__e != ACL_SUCCESS) {						\
		w->err = __e;							\
		w->what = #call;						\
		goto out;							\
	}									\
} while (0)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define RING	64	/* callback arguments in flight at most (a sync every 16) */

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cb_arg args[RING];
	unsigned long next_cb = 0, k = 0;
	aclrtStream s1 = NULL, s2 = NULL;
	aclrtEvent e1, e2, e3;
	aclrtContext ctx = NULL;
	bool subscribed = false;
	uint64_t stamp;
	double end;
	float ms;
	int i;

	TRY(aclrtCreateContext(&ctx, w->device));
	TRY(aclrtMallocHost((void **)&w->pinned, 2 * WORDS * 8));
	TRY(aclrtMalloc((void **)&w->dev, 2 * WORDS * 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	TRY(aclrtCreateStream(&s1));
	TRY(aclrtCreateStreamWithConfig(&s2, (uint32_t)w->index % 8, 0));
	TRY(aclrtCreateEvent(&e1));
	TRY(aclrtCreateEvent(&e2));
	TRY(aclrtCreateEventWithFlag(&e3, ACL_EVENT_SYNC));
	if (!w->hostfunc) {
		if (pthread_create(&w->rep, NULL, report_main, w)) {
			w->what = "pthread_create";
			w->err = -1;
			goto out;
		}
		TRY(aclrtSubscribeReport((uint64_t)w->rep, s2));
		subscribed = true;
	}
	end = now_s() + w->seconds;
	for (k = 0; now_s() < end; k++) {
		struct cb_arg *a = &args[k % RING];

		/* s1: this iteration's pattern to the device, once s2 read the last */
		TRY(aclrtSynchronizeStream(s1));
		for (i = 0; i < 64; i++)
			w->pinned[i] = k * 1000003 + i;
		TRY(aclrtRecordEvent(e1, s1));
		TRY(aclrtMemcpyAsync(w->dev, 64 * 8, w->pinned, 64 * 8, ACL_MEMCPY_HOST_TO_DEVICE, s1));
		TRY(aclrtRecordEvent(e2, s1));
		/* s2: after it, the pattern back, the callback, its stamp out */
		TRY(aclrtStreamWaitEvent(s2, e2));
		TRY(aclrtMemcpyAsync(w->pinned + WORDS + 8, 64 * 8, w->dev, 64 * 8,
				     ACL_MEMCPY_DEVICE_TO_HOST, s2));
		TRY(aclrtRecordEvent(e3, s2));
		TRY(aclrtStreamWaitEvent(s1, e3));
		*a = (struct cb_arg){ .w = w, .seq = k, .next = &next_cb };
		if (w->hostfunc)
			TRY(aclrtLaunchHostFunc(s2, check_fn, a));
		else
			TRY(aclrtLaunchCallback(check_fn, a, ACL_CALLBACK_BLOCK, s2));
		TRY(aclrtMemcpyAsync(w->dev + WORDS, 8, w->pinned + WORDS, 8, ACL_MEMCPY_HOST_TO_DEVICE, s2));
		if (k % 16 == 15) {
			TRY(aclrtSynchronizeStream(s2));
			TRY(aclrtMemcpy(&stamp, 8, w->dev + WORDS, 8, ACL_MEMCPY_DEVICE_TO_HOST));
			if (stamp != k)
				w->bad_order++;
			TRY(aclrtEventElapsedTime(&ms, e1, e2));
			if (!(ms >= 0.0f) || ms > 60000.0f)
				w->bad_time++;
		}
	}
	TRY(aclrtSynchronizeStream(s2));
	if (next_cb != k)
		w->bad_order++;
out:
	w->iterations = k;
	if (subscribed)
		aclrtUnSubscribeReport((uint64_t)w->rep, s2);
	if (!w->hostfunc && w->rep) {
		atomic_store(&w->stop_reports, true);
		pthread_join(w->rep, NULL);
	}
	if (ctx) {
		aclrtSetCurrentContext(ctx);
		if (w->dev)
			aclrtFree(w->dev);
		if (w->pinned)
			aclrtFreeHost(w->pinned);
		/* streams and events go with the context */
		aclrtDestroyContext(ctx);
	}
	return NULL;
}

TEST_TIMEOUT(contexts_streams_events_callbacks, 600)
{
	struct worker w[THREADS];
	pthread_t th[THREADS];
	const char *env = getenv("NPU_LIB_STRESS_SECONDS");
	double seconds;
	long long pins0, pins1;
	int ndev, i;

	NEED_DEVICE();
	ndev = have_npu(1) ? 2 : 1;
	seconds = env ? atof(env) :
		  (!access("/sys/kernel/debug/kmemleak", F_OK) || !access("/proc/lockdep", F_OK)) ? 60 : 5;
	TH_LOG("%d threads on %d device(s) for %.0f s", THREADS, ndev, seconds);
	pins0 = npu_pins_held();
	memset(w, 0, sizeof(w));
	for (i = 0; i < THREADS; i++) {
		w[i].index = i;
		w[i].device = i % ndev;
		w[i].seconds = seconds;
		w[i].hostfunc = i & 2;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker_main, &w[i]));
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		TH_LOG("thread %d (device %d, %s): %lu iterations, %lu callbacks",
		       i, w[i].device, w[i].hostfunc ? "host funcs" : "report thread",
		       w[i].iterations, w[i].callbacks);
		if (w[i].err)
			TH_LOG("thread %d: %s -> %d", i, w[i].what, w[i].err);
		EXPECT_EQ(ACL_SUCCESS, w[i].err);
		EXPECT_LT(0UL, w[i].callbacks);
		EXPECT_EQ(w[i].iterations, w[i].callbacks);
		EXPECT_EQ(0UL, w[i].bad_order);
		EXPECT_EQ(0UL, w[i].bad_data);
		EXPECT_EQ(0UL, w[i].bad_time);
	}
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
	pins1 = npu_pins_held();
	TH_LOG("pins held: %lld before, %lld after", pins0, pins1);
	EXPECT_EQ(pins0, pins1);
}

TEST_HARNESS_MAIN
