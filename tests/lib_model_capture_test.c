// SPDX-License-Identifier: MIT
/*
 * libacl: the kinds of task a model runtime instance captures beyond
 * copies and memsets (issue 23) - host functions and callbacks, run on
 * the host once per replay in their place among the device work (a host
 * function reads what the device wrote before it, the device reads what
 * it wrote after it); notifies recorded in one captured graph releasing
 * the wait of another; batch copies, replayed with new data each time
 * and checked against a host model of the whole buffer, read back at
 * another offset and length; and the vendor's refusals with their codes
 * (aclrtResetEvent in a capture: 207000, the capture going on; a
 * callback on a stream without a report thread: 107015, likewise); an
 * aclmdlRIDestroy from a host function of the model's own run, after
 * aclmdlRIExecute's timeout, returns without waiting for that run; CMO
 * tasks, profiling markers and managed prefetches recorded (a run after
 * their memory was freed faults); descriptor and offset copies reading
 * their descriptor and pointers at each run, changed between runs.
 * Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "lib_child.h"
#include "lib_util.h"

#define N	1024		/* int32 elements of the buffers */
#define RUNS	4

static aclmdlRICaptureStatus status_of(aclrtStream s)
{
	aclmdlRICaptureStatus st = (aclmdlRICaptureStatus)-1;

	EXPECT_ACL_OK(aclmdlRICaptureGetInfo(s, &st, NULL));
	return st;
}

/* The host steps' log: who ran, in which order, on which thread, and what they saw. */
struct steplog {
	pthread_mutex_t lock;
	int order[64];
	int n;
	int bad;			/* a host function saw data the device had not written */
	pthread_t who[64];
};

static struct steplog slog = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void log_step(int id)
{
	pthread_mutex_lock(&slog.lock);
	if (slog.n < 64) {
		slog.who[slog.n] = pthread_self();
		slog.order[slog.n++] = id;
	}
	pthread_mutex_unlock(&slog.lock);
}

/* What host function 1 reads (written by the device just before) and writes (read by the device just after). */
struct stage {
	int32_t *in;			/* pinned: the device copied the run's input here */
	int32_t *out;			/* pinned: the device copies this to the output after */
	int32_t expect;			/* the run's input value, set by the test before the run */
};

static void hf_transform(void *arg)
{
	struct stage *st = arg;
	int i;

	for (i = 0; i < N; i++) {
		if (st->in[i] != st->expect + i)
			slog.bad++;
		st->out[i] = 3 * st->in[i] + 1;
	}
	log_step(1);
}

static void hf_mark(void *arg)
{
	log_step((int)(intptr_t)arg);
}

/* A graph's buffers: device input a and output c, the stage between. */
struct bufs {
	int32_t *a, *c;
	struct stage st;
};

static aclError bufs_make(struct bufs *b)
{
	aclError e;

	memset(b, 0, sizeof(*b));
	slog.n = slog.bad = 0;
	e = aclrtMalloc((void **)&b->a, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY);
	if (!e)
		e = aclrtMalloc((void **)&b->c, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY);
	if (!e)
		e = aclrtMallocHost((void **)&b->st.in, N * 4);
	if (!e)
		e = aclrtMallocHost((void **)&b->st.out, N * 4);
	return e ? e : aclrtMemset(b->c, N * 4, 0, N * 4);
}

static void bufs_free(struct bufs *b)
{
	aclrtFree(b->a);
	aclrtFree(b->c);
	aclrtFreeHost(b->st.in);
	aclrtFreeHost(b->st.out);
}

/*
 * The graph's tasks on @s: a -> in, step 1 (in -> out on the host),
 * out -> c, step 2; the steps host functions, or (@block >= 0) callbacks,
 * the first of them of @block's kind.
 */
static aclError launch_steps(aclrtStream s, struct bufs *b, int block)
{
	aclError e;

	e = aclrtMemcpyAsync(b->st.in, N * 4, b->a, N * 4, ACL_MEMCPY_DEVICE_TO_HOST, s);
	if (!e)
		e = block < 0 ? aclrtLaunchHostFunc(s, hf_transform, &b->st) :
				aclrtLaunchCallback(hf_transform, &b->st, (aclrtCallbackBlockType)block, s);
	if (!e)
		e = aclrtMemcpyAsync(b->c, N * 4, b->st.out, N * 4, ACL_MEMCPY_HOST_TO_DEVICE, s);
	if (!e)
		e = block < 0 ? aclrtLaunchHostFunc(s, hf_mark, (void *)(intptr_t)2) :
				aclrtLaunchCallback(hf_mark, (void *)(intptr_t)2, ACL_CALLBACK_NO_BLOCK, s);
	return e;
}

/* The run's input, @expect + i, into a. */
static aclError set_input(struct bufs *b, int32_t expect)
{
	int32_t host[N];
	int i;

	b->st.expect = expect;
	for (i = 0; i < N; i++)
		host[i] = expect + i;
	return aclrtMemcpy(b->a, N * 4, host, N * 4, ACL_MEMCPY_HOST_TO_DEVICE);
}

/* The first element of c from @off on that differs from the host model, or -1. */
static int first_wrong(struct bufs *b, int off)
{
	int32_t back[N];
	int i;

	if (aclrtMemcpy(back, N * 4, b->c + off, (N - off) * 4, ACL_MEMCPY_DEVICE_TO_HOST))
		return INT32_MAX;
	for (i = 0; i < N - off; i++)
		if (back[i] != 3 * (b->st.expect + off + i) + 1)
			return off + i;
	return -1;
}

/* Wait up to a second until @n steps were logged. */
static int steps_reach(int n)
{
	int i, got = 0;

	for (i = 0; i < 1000; i++) {
		pthread_mutex_lock(&slog.lock);
		got = slog.n;
		pthread_mutex_unlock(&slog.lock);
		if (got >= n)
			break;
		usleep(1000);
	}
	return got;
}

/*
 * A graph: dev a -> pinned in, host function 1 (in -> out on the host),
 * pinned out -> dev c, host function 2; replayed with new input each run
 * on another stream, the last on the stream that captured it: each run
 * both functions run once, in order, on the context's host-function
 * thread, host function 1 seeing the run's input, and c is the host
 * model of the whole buffer (read back whole and from an offset).
 */
TEST(host_funcs_between_device_work)
{
	aclrtStream gs, rs;
	struct bufs b;
	aclmdlRI m;
	int run, i;

	NEED_DEVICE();
	ASSERT_ACL_OK(bufs_make(&b));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(launch_steps(gs, &b, -1));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(gs));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(gs, &m));
	/* nothing ran at capture */
	ASSERT_ACL_OK(aclrtSynchronizeStream(gs));
	EXPECT_EQ(0, slog.n);

	for (run = 0; run <= RUNS; run++) {
		ASSERT_ACL_OK(set_input(&b, 1000 * (run + 1)));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run < RUNS ? rs : gs));
		ASSERT_ACL_OK(aclrtSynchronizeStream(run < RUNS ? rs : gs));
		EXPECT_EQ(-1, first_wrong(&b, 100));
		EXPECT_EQ(-1, first_wrong(&b, 0));
	}
	EXPECT_EQ(0, slog.bad);
	ASSERT_EQ(2 * (RUNS + 1), slog.n);
	for (i = 0; i < slog.n; i++) {
		EXPECT_EQ(i % 2 + 1, slog.order[i]);
		/* the context's host-function thread ran them, not the test's */
		EXPECT_FALSE(pthread_equal(slog.who[i], pthread_self()));
	}

	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	bufs_free(&b);
}

/* A thread of the test's: aclrtProcessReport (aclrtProcessHostFunc) until told to stop. */
struct reporter {
	pthread_t tid;
	bool hostfunc;
	atomic_bool stop;
	aclError err;
};

static void *report_main(void *arg)
{
	struct reporter *r = arg;

	while (!atomic_load(&r->stop)) {
		aclError e = r->hostfunc ? aclrtProcessHostFunc(20) : aclrtProcessReport(20);

		if (e == ACL_ERROR_RT_THREAD_SUBSCRIBE)
			usleep(1000);
		else if (e != ACL_SUCCESS && e != ACL_ERROR_RT_REPORT_TIMEOUT && !r->err)
			r->err = e;
	}
	return NULL;
}

/* The first logged step not in order (1, 2, 1, 2 ...) or not run on @tid, or -1. */
static int first_bad_step(pthread_t tid)
{
	int i;

	for (i = 0; i < slog.n; i++)
		if (slog.order[i] != i % 2 + 1 || !pthread_equal(slog.who[i], tid))
			return i;
	return -1;
}

/*
 * An explicit build (aclmdlRIBindStream) of a persistent stream whose
 * host functions the test's own thread runs (aclrtSubscribeHostFunc):
 * aclmdlRIExecute runs the model on its own stream, the host functions
 * on that thread, in order with the device work, each run (the model's
 * stream, counted, outlives the model while a host step holds it).
 */
TEST(host_funcs_in_a_build_on_the_applications_thread)
{
	struct reporter rep = { .hostfunc = true };
	aclrtStream ps;
	struct bufs b;
	aclmdlRI m;
	int run;

	NEED_DEVICE();
	ASSERT_ACL_OK(bufs_make(&b));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT));
	ASSERT_EQ(0, pthread_create(&rep.tid, NULL, report_main, &rep));
	ASSERT_ACL_OK(aclrtSubscribeHostFunc((uint64_t)rep.tid, ps));

	ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(m, ps, 0));
	ASSERT_ACL_OK(launch_steps(ps, &b, -1));
	ASSERT_ACL_OK(aclmdlRIEndTask(m, ps));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(m, NULL));
	ASSERT_ACL_OK(aclmdlRIUnbindStream(m, ps));
	EXPECT_EQ(0, slog.n);

	for (run = 0; run < RUNS; run++) {
		ASSERT_ACL_OK(set_input(&b, -5000 * (run + 1)));
		ASSERT_ACL_OK(aclmdlRIExecute(m, -1));
		EXPECT_EQ(-1, first_wrong(&b, 33));
	}
	/* each host function held the model's stream until it returned: Execute waited for them */
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_EQ(0, slog.bad);
	EXPECT_EQ(2 * RUNS, slog.n);
	EXPECT_EQ(-1, first_bad_step(rep.tid));
	ASSERT_ACL_OK(aclrtUnSubscribeHostFunc((uint64_t)rep.tid, ps));
	atomic_store(&rep.stop, true);
	pthread_join(rep.tid, NULL);
	EXPECT_EQ(ACL_SUCCESS, rep.err);
	ASSERT_ACL_OK(aclrtDestroyStream(ps));
	bufs_free(&b);
}

/* A host step that destroys its own model once the test says so (after aclmdlRIExecute gave up). */
struct self_destroy {
	aclrtContext ctx;
	aclmdlRI m;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool go, done;
	aclError ret;
};

static void hf_self_destroy(void *arg)
{
	struct self_destroy *d = arg;

	pthread_mutex_lock(&d->lock);
	while (!d->go)
		pthread_cond_wait(&d->cond, &d->lock);
	pthread_mutex_unlock(&d->lock);
	d->ret = aclrtSetCurrentContext(d->ctx);
	if (!d->ret)
		d->ret = aclmdlRIDestroy(d->m);
	pthread_mutex_lock(&d->lock);
	d->done = true;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

/*
 * aclmdlRIDestroy from a host function of the model's own run, started by
 * aclmdlRIExecute, which gave up waiting (its timeout): as the vendor's
 * destroy of a model that is not a captured graph, it does not wait for
 * the run - it returns at once (the run cannot end before the host
 * function returns), and the rest of the run, queued already, completes:
 * the device work after the host function is done, each byte of it.
 */
TEST(destroy_from_own_host_func_after_execute_timeout)
{
	struct self_destroy d = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	uint8_t *dev, back[4096];
	struct timespec ts;
	aclrtStream ps;
	int i, tries;
	bool done;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&d.ctx));
	ASSERT_ACL_OK(aclrtMalloc((void **)&dev, sizeof(back), ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(dev, sizeof(back), 0, sizeof(back)));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&d.m, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(d.m, ps, 0));
	ASSERT_ACL_OK(aclrtMemsetAsync(dev, 1000, 0x11, 1000, ps));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(ps, hf_self_destroy, &d));
	ASSERT_ACL_OK(aclrtMemsetAsync(dev + 1000, 3000, 0x22, 3000, ps));
	ASSERT_ACL_OK(aclmdlRIEndTask(d.m, ps));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(d.m, NULL));
	ASSERT_ACL_OK(aclmdlRIUnbindStream(d.m, ps));

	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclmdlRIExecute(d.m, 100));
	pthread_mutex_lock(&d.lock);
	d.go = true;
	pthread_cond_broadcast(&d.cond);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	while (!d.done && !pthread_cond_timedwait(&d.cond, &d.lock, &ts))
		;
	done = d.done;
	pthread_mutex_unlock(&d.lock);
	/* not done: the destroy waits for the run, which waits for the host function that called it */
	ASSERT_TRUE(done);
	EXPECT_EQ(ACL_SUCCESS, d.ret);
	/* the rest of the run completes */
	for (tries = 0; tries < 5000; tries++) {
		ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
		if (back[sizeof(back) - 1] == 0x22)
			break;
		usleep(1000);
	}
	for (i = 0; i < (int)sizeof(back); i++)
		ASSERT_EQ(i < 1000 ? 0x11 : i < 4000 ? 0x22 : 0, back[i]);
	ASSERT_ACL_OK(aclrtMemcpy(back, 100, dev + 950, 100, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(i < 50 ? 0x11 : 0x22, back[i]);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(d.m));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	ASSERT_ACL_OK(aclrtDestroyStream(ps));
	ASSERT_ACL_OK(aclrtFree(dev));
}

/*
 * Callbacks: captured on a stream with a report thread, run by that
 * thread at each replay (on another stream), a BLOCK one before the
 * device work after it; without a report thread 107015, and a host
 * function on the report thread's stream 107011, the capture going on,
 * as the vendor checks before it captures.
 */
TEST(callbacks_run_by_the_report_thread)
{
	struct reporter rep = { 0 };
	aclrtStream gs, rs, bare;
	struct bufs b;
	aclmdlRI m;
	int run;

	NEED_DEVICE();
	ASSERT_ACL_OK(bufs_make(&b));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));
	ASSERT_ACL_OK(aclrtCreateStream(&bare));
	ASSERT_EQ(0, pthread_create(&rep.tid, NULL, report_main, &rep));
	ASSERT_ACL_OK(aclrtSubscribeReport((uint64_t)rep.tid, gs));

	/* no report thread: the vendor's 107015 before anything is captured */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(bare, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NO_CB_REG, aclrtLaunchCallback(hf_mark, NULL, ACL_CALLBACK_BLOCK, bare));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(bare));
	ASSERT_ACL_OK(aclrtMemsetAsync(b.c, N * 4, 0, N * 4, bare));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(bare, &m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	/* a host function on a stream of a report thread: the vendor's 107011 before it captures */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtLaunchHostFunc(gs, hf_mark, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(gs));
	ASSERT_ACL_OK(launch_steps(gs, &b, ACL_CALLBACK_BLOCK));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(gs, &m));
	ASSERT_ACL_OK(aclrtSynchronizeStream(gs));
	EXPECT_EQ(0, slog.n);

	for (run = 0; run < RUNS; run++) {
		ASSERT_ACL_OK(set_input(&b, 7 * (run + 1)));
		/* rs has no report thread: the capture's runs them */
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
		ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
		EXPECT_EQ(-1, first_wrong(&b, 7));
		/* the NO_BLOCK one need not have run yet */
		EXPECT_EQ(2 * (run + 1), steps_reach(2 * (run + 1)));
	}
	EXPECT_EQ(0, slog.bad);
	EXPECT_EQ(2 * RUNS, slog.n);
	EXPECT_EQ(-1, first_bad_step(rep.tid));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtUnSubscribeReport((uint64_t)rep.tid, gs));
	atomic_store(&rep.stop, true);
	pthread_join(rep.tid, NULL);
	EXPECT_EQ(ACL_SUCCESS, rep.err);
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	ASSERT_ACL_OK(aclrtDestroyStream(bare));
	bufs_free(&b);
}

/*
 * Notifies: graph A copies x -> y and records the notify, graph B waits
 * for (and resets) it and copies y -> z. B's run, queued first, waits for
 * A's; each replay with new x; z is x, whole.
 */
TEST(notify_record_releases_captured_wait)
{
	int32_t *x, *y, *z, host[N], back[N];
	aclrtStream ga, gb, qa, qb;
	aclrtStreamStatus sst;
	aclrtNotify nt;
	aclmdlRI ma, mb;
	int run, i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&x, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&y, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&z, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&ga));
	ASSERT_ACL_OK(aclrtCreateStream(&gb));
	ASSERT_ACL_OK(aclrtCreateStream(&qa));
	ASSERT_ACL_OK(aclrtCreateStream(&qb));
	ASSERT_ACL_OK(aclrtCreateNotify(&nt, 0));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(ga, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtMemcpyAsync(y, N * 4, x, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, ga));
	ASSERT_ACL_OK(aclrtRecordNotify(nt, ga));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(ga, &ma));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(gb, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(nt, gb, 0));
	ASSERT_ACL_OK(aclrtMemcpyAsync(z, N * 4, y, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, gb));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(gb, &mb));
	ASSERT_ACL_OK(aclrtMemset(z, N * 4, 0, N * 4));

	for (run = 0; run < RUNS; run++) {
		for (i = 0; i < N; i++)
			host[i] = run * 100000 + i * 3;
		ASSERT_ACL_OK(aclrtMemcpy(x, N * 4, host, N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(mb, qb));
		usleep(30000);
		ASSERT_ACL_OK(aclrtStreamQuery(qb, &sst));
		EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, sst);
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(ma, qa));
		ASSERT_ACL_OK(aclrtSynchronizeStream(qb));
		ASSERT_ACL_OK(aclrtSynchronizeStream(qa));
		ASSERT_ACL_OK(aclrtMemcpy(back, N * 4, z + 1, (N - 1) * 4, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(0, memcmp(back, host + 1, (N - 1) * 4));
	}
	/* a captured record also releases a wait queued outside any graph */
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(nt, qb, 0));
	ASSERT_ACL_OK(aclrtMemcpyAsync(z, N * 4, x, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, qb));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(ma, qa));
	ASSERT_ACL_OK(aclrtSynchronizeStream(qb));

	ASSERT_ACL_OK(aclmdlRIDestroy(ma));
	ASSERT_ACL_OK(aclmdlRIDestroy(mb));
	ASSERT_ACL_OK(aclrtDestroyNotify(nt));
	ASSERT_ACL_OK(aclrtDestroyStream(ga));
	ASSERT_ACL_OK(aclrtDestroyStream(gb));
	ASSERT_ACL_OK(aclrtDestroyStream(qa));
	ASSERT_ACL_OK(aclrtDestroyStream(qb));
	ASSERT_ACL_OK(aclrtFree(x));
	ASSERT_ACL_OK(aclrtFree(y));
	ASSERT_ACL_OK(aclrtFree(z));
}

#define KEYLEN	65

/* The importer's job: the key, its device. */
struct ipc_job {
	char key[KEYLEN];
	int dev;
};

/*
 * A child importing the test's notify and capturing one record of it
 * (from another device through peer access when @dev is 1); each "go"
 * runs the graph on another stream.
 */
static void capturing_importer(int rd, int wr, void *arg)
{
	aclrtStream s, run;
	struct ipc_job j;
	aclrtNotify n = NULL;
	aclmdlRI m = NULL;
	aclError r = aclInit(NULL);

	(void)arg;
	CK(r == ACL_SUCCESS || r == ACL_ERROR_REPEAT_INITIALIZE);
	if (read(rd, &j, sizeof(j)) != (ssize_t)sizeof(j))
		_exit(6);
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(j.dev));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&s));
	CK_ACL(ACL_SUCCESS, aclrtCreateStream(&run));
	CK_ACL(ACL_SUCCESS, aclrtNotifyImportByKey(&n, j.key, j.dev ? ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS : 0));
	CK_ACL(ACL_SUCCESS, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	CK_ACL(ACL_SUCCESS, aclrtRecordNotify(n, s));
	CK_ACL(ACL_SUCCESS, aclmdlRICaptureEnd(s, &m));
	put_u64(wr, 1);
	while (get_u64(rd) == 1U) {
		CK_ACL(ACL_SUCCESS, aclmdlRIExecuteAsync(m, run));
		CK_ACL(ACL_SUCCESS, aclrtSynchronizeStream(run));
		put_u64(wr, 1);
	}
	CK_ACL(ACL_SUCCESS, aclmdlRIDestroy(m));
	CK_ACL(ACL_SUCCESS, aclrtDestroyNotify(n));
	CK_ACL(ACL_SUCCESS, aclrtDestroyStream(s));
	CK_ACL(ACL_SUCCESS, aclrtDestroyStream(run));
	put_u64(wr, 1);
}

/*
 * An IPC-imported notify recorded in another process's graph (on this
 * device, and from device 1 through peer access when there is one):
 * each replay there releases one wait queued here, and only one.
 */
TEST(ipc_notify_record_in_graph)
{
	struct ipc_job j;
	struct child c;
	aclrtNotify nt;
	aclrtStream s;
	uint64_t *mark, v;
	int dev, run;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&mark, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	for (dev = 0; dev < 2; dev++) {
		if (dev && !have_npu(1)) {
			TH_LOG("no /dev/npu1: no record from another device");
			break;
		}
		memset(&j, 0, sizeof(j));
		j.dev = dev;
		ASSERT_ACL_OK(aclrtSetDevice(0));
		ASSERT_ACL_OK(aclrtMemset(mark, 8, 0, 8));
		ASSERT_ACL_OK(aclrtCreateNotify(&nt, 0));
		ASSERT_ACL_OK(aclrtNotifyGetExportKey(nt, j.key, KEYLEN,
						      ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
		ASSERT_EQ(0, spawn(&c, capturing_importer, NULL));
		ASSERT_EQ(sizeof(j), (size_t)write(c.wr, &j, sizeof(j)));
		/* captured: nothing recorded yet */
		ASSERT_EQ(1U, get_u64(c.rd));
		for (run = 1; run <= 3; run++) {
			ASSERT_ACL_OK(aclrtWaitAndResetNotify(nt, s, 0));
			ASSERT_ACL_OK(aclrtValueWrite(mark, run, 0, s));
			EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 100));
			put_u64(c.wr, 1);
			ASSERT_EQ(1U, get_u64(c.rd));
			ASSERT_ACL_OK(aclrtSynchronizeStream(s));
			ASSERT_ACL_OK(aclrtMemcpy(&v, 8, mark, 8, ACL_MEMCPY_DEVICE_TO_HOST));
			EXPECT_EQ((uint64_t)run, v);
		}
		put_u64(c.wr, 0);
		EXPECT_EQ(1U, get_u64(c.rd));
		EXPECT_EQ(0, reap(&c));
		ASSERT_ACL_OK(aclrtDestroyNotify(nt));
	}
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(mark));
}

/*
 * A batch of copies, pinned host to device at scattered offsets, each
 * a copy of its own in the model; replayed with new host data each run;
 * pageable memory in a batch on a capturing stream is the vendor's
 * parameter error, nothing recorded, the capture going on.
 */
TEST(batch_copies)
{
	enum { K = 5 };
	int32_t *dev, *pinned, model[N], back[N];
	char pageable[64];
	void *dsts[K], *srcs[K];
	size_t sizes[K], maxs[K], idx[2] = { 0, 3 }, fail = 7;
	aclrtMemcpyBatchAttr attrs[2];
	aclrtStream gs, rs;
	aclmdlRI m;
	int run, i, k;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&dev, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pinned, N * 4));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));
	for (i = 0; i < N; i++)
		model[i] = -1;
	ASSERT_ACL_OK(aclrtMemcpy(dev, N * 4, model, N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(attrs, 0, sizeof(attrs));
	for (k = 0; k < 2; k++) {
		attrs[k].dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
		attrs[k].srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
	}
	/* copy k: pinned[100k + 7, +20k + 4) -> dev[150k + 3, ...) */
	for (k = 0; k < K; k++) {
		srcs[k] = pinned + 100 * k + 7;
		dsts[k] = dev + 150 * k + 3;
		sizes[k] = maxs[k] = (20 * k + 4) * 4;
	}

	ASSERT_ACL_OK(aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	srcs[1] = pageable;
	sizes[1] = maxs[1] = sizeof(pageable);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, K, attrs, idx, 2, &fail, gs));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(gs));
	srcs[1] = pinned + 107;
	sizes[1] = maxs[1] = 24 * 4;
	ASSERT_ACL_OK(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, K, attrs, idx, 2, &fail, gs));
	EXPECT_EQ(SIZE_MAX, fail);
	ASSERT_ACL_OK(aclmdlRICaptureEnd(gs, &m));
	/* nothing ran at capture */
	ASSERT_ACL_OK(aclrtMemcpy(back, N * 4, dev, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back, model, N * 4));

	for (run = 0; run < RUNS; run++) {
		for (i = 0; i < N; i++)
			pinned[i] = run * 7919 + i;
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
		ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
		for (k = 0; k < K; k++)
			memcpy(model + 150 * k + 3, pinned + 100 * k + 7, sizes[k]);
		ASSERT_ACL_OK(aclrtMemcpy(back, N * 4, dev + 2, (N - 2) * 4, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < N - 2; i++)
			if (back[i] != model[i + 2]) {
				EXPECT_EQ(model[i + 2], back[i]);
				TH_LOG("run %d element %d", run, i + 2);
				break;
			}
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFreeHost(pinned));
}

/*
 * aclrtResetEvent on a capturing stream: the vendor's 207000 for an event
 * a capture does not take (ToBeCaptured), and for one of
 * aclrtCreateEventExWithFlag (never reset); the capture goes on and the
 * event keeps its record.
 */
TEST(reset_event_in_capture)
{
	aclrtEvent ev, ex;
	aclrtEventRecordedStatus rs;
	aclrtStream s, o;
	aclmdlRI m;
	int32_t *d;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&o));
	ASSERT_ACL_OK(aclrtCreateEvent(&ev));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, o));
	ASSERT_ACL_OK(aclrtSynchronizeStream(o));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(ev, s));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(ex, s));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s));
	ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 1, 64, s));
	/* on another stream the reset is as ever */
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	ASSERT_ACL_OK(aclrtQueryEventStatus(ev, &rs));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, rs);
	ASSERT_ACL_OK(aclrtResetEvent(ev, o));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, o));
	ASSERT_ACL_OK(aclrtSynchronizeStream(o));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyEvent(ex));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(o));
	ASSERT_ACL_OK(aclrtFree(d));
}

/* The tasks of @m's one stream (aclmdlRIGetStreams, aclmdlRIGetTasksByStream), or -1. */
static int task_count(aclmdlRI m)
{
	aclmdlRITask tasks[64];
	uint32_t ns = 1, nt = 64;
	aclrtStream ms;

	if (aclmdlRIGetStreams(m, &ms, &ns) || ns != 1 || aclmdlRIGetTasksByStream(ms, tasks, &nt))
		return -1;
	return (int)nt;
}

/*
 * CMO tasks (aclrtCmoAsync), profiling markers (aclrtProfTrace) and
 * managed-memory prefetches to the device are recorded, as the vendor's
 * capture records every task its stream allocates (stream.cc
 * Stream::AllocTask, AllocCaptureTask): the capture goes on, the model
 * lists them, and each run does them - a run after the memory a CMO task
 * or a prefetch names was freed faults, as the task itself would; the
 * copies between them see new input at each run.
 */
TEST(cmo_trace_and_prefetch_recorded)
{
	aclrtMemManagedLocation dev0 = { .type = ACL_MEM_LOCATIONTYPE_DEVICE, .id = 0 };
	int32_t *a, *c, *cmo, host[N], back[N];
	char marker[16] = "trace";
	aclrtStream s, run;
	void *managed;
	aclmdlRI m;
	int r, i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&c, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&cmo, 8192, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemAllocManaged(&managed, 8192, ACL_RT_MEM_ATTACH_GLOBAL));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&run));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtCmoAsync(cmo, 8192, ACL_RT_CMO_TYPE_PREFETCH, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(c, N * 4, a, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtProfTrace(marker, 4, s));
	ASSERT_ACL_OK(aclrtMemManagedPrefetchAsync(managed, 8192, dev0, 0, s));
	ASSERT_ACL_OK(aclrtCmoAsync(cmo + 1024, 4096, ACL_RT_CMO_TYPE_WRITEBACK, s));
	/* a bad argument is refused before anything is recorded, the capture going on */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtProfTrace(marker, 0, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoAsync(cmo, 0, ACL_RT_CMO_TYPE_PREFETCH, s));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	EXPECT_EQ(5, task_count(m));

	for (r = 0; r < RUNS; r++) {
		for (i = 0; i < N; i++)
			host[i] = r * 7919 + i;
		ASSERT_ACL_OK(aclrtMemcpy(a, N * 4, host, N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, r & 1 ? run : s));
		ASSERT_ACL_OK(aclrtSynchronizeStream(r & 1 ? run : s));
		ASSERT_ACL_OK(aclrtMemcpy(back, N * 4, c, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < N; i++)
			ASSERT_EQ(host[i], back[i]);
		ASSERT_ACL_OK(aclrtMemcpy(back, 40, c + 500, 40, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < 10; i++)
			ASSERT_EQ(host[500 + i], back[i]);
	}
	/* each run does the CMO task: the memory it names gone, the run faults */
	ASSERT_ACL_OK(aclrtFree(cmo));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(run));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	/* and the prefetch */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtMemManagedPrefetchAsync(managed, 8192, dev0, 0, s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
	ASSERT_ACL_OK(aclrtSynchronizeStream(run));
	ASSERT_ACL_OK(aclrtFree(managed));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(run));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(run));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtFree(c));
}

/*
 * Descriptor copies (aclrtMemcpyAsyncWithDesc, aclrtMemcpyAsyncWithOffset)
 * are recorded, as the vendor's (MemcpyAsyncPtr allocates its task on the
 * capturing stream), and read their descriptor or pointers at each run,
 * where the run gets there: each run copies the descriptor in from an
 * image the test changes between runs (another source, destination and
 * length each time), and points the offset copy's pointers elsewhere; the
 * destination is checked whole against a host model after each run.
 */
TEST(descriptor_copies_read_at_each_run)
{
	int32_t *srcs[2], *dst, *desc, *image, *out2, host[2][N], model[N], model2[N], back[N];
	void **dptr, **sptr, *p;
	aclrtStream s, run;
	aclmdlRI m;
	int r, i, k;

	NEED_DEVICE();
	for (k = 0; k < 2; k++)
		ASSERT_ACL_OK(aclrtMalloc((void **)&srcs[k], N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&dst, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&out2, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&desc, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&image, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&dptr, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&sptr, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(dst, N * 4, 0, N * 4));
	ASSERT_ACL_OK(aclrtMemset(out2, N * 4, 0, N * 4));
	memset(model, 0, sizeof(model));
	memset(model2, 0, sizeof(model2));
	p = out2;
	ASSERT_ACL_OK(aclrtMemcpy(dptr, 8, &p, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&run));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtMemcpyAsync(desc, 64, image, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsyncWithOffset(dptr, N * 4, 40, (const void **)sptr, 400, 8,
						 ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	/* refused before anything is recorded, the capture going on */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithDesc(host, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithOffset(dptr, 8, 4, (const void **)sptr, 8, 0,
									  ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	EXPECT_EQ(3, task_count(m));
	/* nothing ran at capture */
	ASSERT_ACL_OK(aclrtMemcpy(back, N * 4, out2, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, back[i]);

	for (r = 0; r < RUNS; r++) {
		int k = r & 1, from = 16 * r, to = 100 + 32 * r, n = 64 + 50 * r;

		for (i = 0; i < N; i++) {
			host[0][i] = r * 100000 + i;
			host[1][i] = -r * 100000 - i;
		}
		ASSERT_ACL_OK(aclrtMemcpy(srcs[0], N * 4, host[0], N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclrtMemcpy(srcs[1], N * 4, host[1], N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
		/* the descriptor this run copies in: from srcs[k] + from to dst + to, n elements */
		ASSERT_ACL_OK(aclrtSetMemcpyDesc(image, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, srcs[k] + from, dst + to,
						 (size_t)n * 4, NULL));
		/* the offset copy's source: the other buffer */
		p = srcs[!k];
		ASSERT_ACL_OK(aclrtMemcpy(sptr, 8, &p, 8, ACL_MEMCPY_HOST_TO_DEVICE));
		for (i = 0; i < n; i++)
			model[to + i] = host[k][from + i];
		for (i = 0; i < 100; i++)
			model2[10 + i] = host[!k][2 + i];
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, r & 1 ? run : s));
		ASSERT_ACL_OK(aclrtSynchronizeStream(r & 1 ? run : s));
		ASSERT_ACL_OK(aclrtMemcpy(back, N * 4, dst, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < N; i++)
			ASSERT_EQ(model[i], back[i]);
		ASSERT_ACL_OK(aclrtMemcpy(back, 80, dst + to + 3, 80, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < 20; i++)
			ASSERT_EQ(model[to + 3 + i], back[i]);
		ASSERT_ACL_OK(aclrtMemcpy(back, N * 4, out2, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < N; i++)
			ASSERT_EQ(model2[i], back[i]);
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(run));
	for (k = 0; k < 2; k++)
		ASSERT_ACL_OK(aclrtFree(srcs[k]));
	ASSERT_ACL_OK(aclrtFree(dst));
	ASSERT_ACL_OK(aclrtFree(out2));
	ASSERT_ACL_OK(aclrtFree(desc));
	ASSERT_ACL_OK(aclrtFree(image));
	ASSERT_ACL_OK(aclrtFree(dptr));
	ASSERT_ACL_OK(aclrtFree(sptr));
}

TEST_HARNESS_MAIN
