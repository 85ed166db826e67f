// SPDX-License-Identifier: MIT
/*
 * libacl: model runtime instances (aclmdlRI*) - every call's bad input
 * with the vendor's codes; torch_npu's graph sequence (capture on a side
 * stream in GLOBAL mode while another thread switches its mode, replays
 * with new input each time, checked element by element against a host
 * model); the capture modes across threads (107030, 107041); what a
 * capturing stream refuses (107027) and what a capture cannot record yet
 * (nothing queued, the capture invalidated); a replay after the memory it
 * names was freed faults and the process goes on; replays on several
 * streams, stream-ordered; a destroy while a replay is queued; an empty
 * capture; models going with their context and not into a fork child;
 * threads capturing and replaying at once; aclmdlRIBuildEnd racing
 * aclmdlRIDestroy leaves no driver model behind. Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <acl/acl_rt_memory_soma.h>

#include "lib_util.h"

#define N	1024		/* int32 elements of the graph's buffers */
#define ROWS	8		/* the 2D copy: N / ROWS elements a row */

static aclmdlRICaptureStatus status_of(aclrtStream s, aclmdlRI *m)
{
	aclmdlRICaptureStatus st = (aclmdlRICaptureStatus)-1;

	EXPECT_ACL_OK(aclmdlRICaptureGetInfo(s, &st, m));
	return st;
}

static int cb_calls;
static void *cb_last;

static void destroy_cb(void *data)
{
	cb_calls++;
	cb_last = data;
}

static void destroy_cb2(void *data)
{
	(void)data;
	cb_calls += 100;
}

/* The acl layer (100000), then the runtime's codes, for every call; nothing queued. */
TEST(bad_input)
{
	aclrtStream st, gone, dflt, devonly;
	aclmdlRICaptureMode mode;
	aclmdlRI m, dead, cap;
	char name[8];
	uint32_t id;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&gone));
	ASSERT_ACL_OK(aclrtDestroyStream(gone));
	ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&dflt));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&devonly, 0, ACL_STREAM_DEVICE_USE_ONLY));

	/* CaptureBegin: NULL stream (the default one cannot be named), handle, mode, flags, default */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureBegin(gone, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureBegin(st, (aclmdlRICaptureMode)3));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureBegin(gone, (aclmdlRICaptureMode)3));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRICaptureBegin(devonly, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureBegin(dflt, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	/* the vendor records this 207000 */
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetLastError(ACL_RT_THREAD_LEVEL));

	/* GetInfo: NULL stream, both outputs NULL, handle; a stream not capturing */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(NULL, NULL, &m));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(st, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureGetInfo(gone, NULL, &m));
	m = (aclmdlRI)1;
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, status_of(st, &m));
	EXPECT_NULL(m);

	/* CaptureEnd: NULL stream; a stream not capturing; NULL modelRI (the runtime's) */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureEnd(NULL, &m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureEnd(gone, &m));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(st, &m));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureEnd(st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureEnd(dflt, &m));

	/* ThreadExchangeMode: NULL, a mode outside 0..2 (left as it was) */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureThreadExchangeMode(NULL));
	mode = (aclmdlRICaptureMode)3;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_EQ(3, (int)mode);
	mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	EXPECT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, mode);
	EXPECT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_MODE_RELAXED, mode);

	/* a capture under way: a second begin, its model still capturing, NULL modelRI keeps it going */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	cap = NULL;
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(st, &cap));
	ASSERT_NONNULL(cap);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureEnd(st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIExecuteAsync(cap, NULL));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRIExecuteAsync(cap, st));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIDestroy(cap));
	m = NULL;
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	EXPECT_EQ(cap, m);
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, status_of(st, NULL));

	/* ExecuteAsync and Destroy: NULL, then a destroyed handle */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(NULL, st));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync((aclmdlRI)st, st));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(m, gone));

	/* names and ids */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRISetName(NULL, "g"));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRISetName(m, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIGetName(NULL, 8, name));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIGetName(m, 8, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetName(m, 0, name));
	strcpy(name, "xxxxxxx");
	EXPECT_ACL_OK(aclmdlRIGetName(m, 1, name));
	EXPECT_STREQ("", name);
	EXPECT_ACL_OK(aclmdlRISetName(m, "first"));
	EXPECT_ACL_OK(aclmdlRISetName(m, "graph"));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIGetName(m, 5, name));
	EXPECT_ACL_OK(aclmdlRIGetName(m, 6, name));
	EXPECT_STREQ("graph", name);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIGetId(NULL, &id));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIGetId(m, NULL));
	id = 0;
	EXPECT_ACL_OK(aclmdlRIGetId(m, &id));
	EXPECT_NE(0, id);

	/* destroy callbacks: no acl-layer checks; one registration per function */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyRegisterCallback(NULL, destroy_cb, NULL));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyRegisterCallback(m, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyUnregisterCallback(NULL, destroy_cb));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyUnregisterCallback(m, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyUnregisterCallback(m, destroy_cb));
	EXPECT_ACL_OK(aclmdlRIDestroyRegisterCallback(m, destroy_cb, &cb_calls));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyRegisterCallback(m, destroy_cb, NULL));
	EXPECT_ACL_OK(aclmdlRIDestroyRegisterCallback(m, destroy_cb2, NULL));
	EXPECT_ACL_OK(aclmdlRIDestroyUnregisterCallback(m, destroy_cb2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyUnregisterCallback(m, destroy_cb2));

	/* an empty capture: a model whose executions do nothing */
	EXPECT_ACL_OK(aclmdlRIExecuteAsync(m, st));
	EXPECT_ACL_OK(aclmdlRIExecuteAsync(m, NULL));
	EXPECT_ACL_OK(aclrtSynchronizeStream(st));
	cb_calls = 0;
	dead = m;
	EXPECT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_EQ(1, cb_calls);
	EXPECT_EQ(&cb_calls, cb_last);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(dead));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(dead, st));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetId(dead, &id));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRISetName(dead, "x"));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroyRegisterCallback(dead, destroy_cb, NULL));

	ASSERT_ACL_OK(aclrtDestroyStream(devonly));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
}

/* A stream of another context: 107003 at begin; a model of another context: 107004. */
TEST(other_context)
{
	aclrtContext c1, c2;
	aclrtStream s1, s2;
	aclmdlRI m;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&c1));
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	ASSERT_ACL_OK(aclrtCreateContext(&c2, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclmdlRICaptureBegin(s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s2, &m));
	ASSERT_ACL_OK(aclrtSetCurrentContext(c1));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclmdlRICaptureEnd(s2, &m));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CONTEXT, aclmdlRIExecuteAsync(m, s1));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CONTEXT, aclmdlRIExecuteAsync(m, NULL));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CONTEXT, aclmdlRIDestroy(m));
	/* its context's destroy takes it */
	ASSERT_ACL_OK(aclrtDestroyContext(c2));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(s1));
}

struct graph {
	int32_t *x, *w, *y, *z, *acc;	/* device: input, constant, copy+w, its 2D copy, sum of y */
	int32_t *h;			/* aclrtMallocHost: y copied back */
	uint64_t *flag;			/* device: a value write */
};

static int graph_alloc(struct graph *g)
{
	int32_t w[N];
	int i;

	for (i = 0; i < N; i++)
		w[i] = 3 * i - 7;
	if (aclrtMalloc((void **)&g->x, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMalloc((void **)&g->w, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMalloc((void **)&g->y, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMalloc((void **)&g->z, 2 * N * 4, ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMalloc((void **)&g->acc, N * 4, ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMalloc((void **)&g->flag, 8, ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMallocHost((void **)&g->h, N * 4))
		return -1;
	if (aclrtMemcpy(g->w, N * 4, w, N * 4, ACL_MEMCPY_HOST_TO_DEVICE) ||
	    aclrtMemset(g->acc, N * 4, 0, N * 4) || aclrtMemset(g->z, 2 * N * 4, 0x55, 2 * N * 4) ||
	    aclrtMemset(g->flag, 8, 0, 8))
		return -1;
	memset(g->h, 0x77, N * 4);
	return 0;
}

static void graph_free(struct graph *g)
{
	aclrtFree(g->x);
	aclrtFree(g->w);
	aclrtFree(g->y);
	aclrtFree(g->z);
	aclrtFree(g->acc);
	aclrtFree(g->flag);
	aclrtFreeHost(g->h);
}

/*
 * The captured work: y = x (D2D), y += w (reduce), z = 0x55 then the rows
 * of y into z at twice the pitch (2D), acc += y, h = y (D2H to pinned
 * memory), flag = 42 (value write).
 */
static int graph_launch(struct graph *g, aclrtStream s)
{
	const size_t row = N / ROWS * 4;

	if (aclrtMemcpyAsync(g->y, N * 4, g->x, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s) ||
	    aclrtReduceAsync(g->y, g->w, N * 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, s, NULL) ||
	    aclrtMemsetAsync(g->z, 2 * N * 4, 0x55, 2 * N * 4, s) ||
	    aclrtMemcpy2dAsync(g->z, 2 * row, g->y, row, row, ROWS, ACL_MEMCPY_DEVICE_TO_DEVICE, s) ||
	    aclrtReduceAsync(g->acc, g->y, N * 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, s, NULL) ||
	    aclrtMemcpyAsync(g->h, N * 4, g->y, N * 4, ACL_MEMCPY_DEVICE_TO_HOST, s) ||
	    aclrtValueWrite(g->flag, 42, 0, s))
		return -1;
	return 0;
}

struct mode_thread {
	aclrtContext ctx;
	bool exchange;
	aclmdlRICaptureMode mode;	/* exchanged in, and back out */
	void *dev;
	aclError memcpy, memset, memcpy2d, malloc_ret, async_pageable;
	aclrtStream other;		/* a stream not capturing, for the pageable async copy */
};

static void *mode_thread_fn(void *arg)
{
	struct mode_thread *t = arg;
	char host[256];
	void *p = NULL;

	memset(host, 1, sizeof(host));
	if (aclrtSetCurrentContext(t->ctx))
		return NULL;
	if (t->exchange && aclmdlRICaptureThreadExchangeMode(&t->mode))
		return NULL;
	t->memcpy = aclrtMemcpy(t->dev, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE);
	t->memset = aclrtMemset(t->dev, 256, 0, 256);
	t->memcpy2d = aclrtMemcpy2d(t->dev, 64, host, 64, 64, 4, ACL_MEMCPY_HOST_TO_DEVICE);
	t->malloc_ret = aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY);
	if (p)
		aclrtFree(p);
	t->async_pageable = t->other ? aclrtMemcpyAsync(t->dev, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE, t->other) :
				       ACL_SUCCESS;
	if (t->other && !t->async_pageable)
		aclrtSynchronizeStream(t->other);
	if (t->exchange)
		aclmdlRICaptureThreadExchangeMode(&t->mode);
	return NULL;
}

/* Another thread's synchronous copies (and memset, 2D copy, pageable async copy) now. */
static struct mode_thread other_thread(aclrtContext ctx, void *dev, aclrtStream other, bool exchange,
				       aclmdlRICaptureMode mode)
{
	struct mode_thread t = {
		.ctx = ctx, .exchange = exchange, .mode = mode, .dev = dev, .other = other,
		.memcpy = -1, .memset = -1, .memcpy2d = -1, .malloc_ret = -1, .async_pageable = -1,
	};
	pthread_t th;

	if (!pthread_create(&th, NULL, mode_thread_fn, &t))
		pthread_join(th, NULL);
	return t;
}

/*
 * torch_npu's graph: capture on a side stream in GLOBAL mode; meanwhile
 * another thread that switched to RELAXED copies synchronously, one that
 * did not is refused; GetInfo gives the graph CaptureEnd returns; nothing
 * runs until the graph is executed; each replay reads the input written
 * before it; destroy.
 */
TEST(torch_graph_sequence)
{
	int32_t in[N], want_y[N], want_acc[N], got[2 * N];
	const int per_row = N / ROWS;
	aclmdlRICaptureStatus st;
	aclrtStream side, replay;
	aclmdlRI g_info, g;
	struct mode_thread t;
	uint64_t flag;
	aclrtContext ctx;
	struct graph gr;
	uint32_t id, task0, task1;
	int r, i, k;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
	ASSERT_EQ(0, graph_alloc(&gr));
	ASSERT_ACL_OK(aclrtCreateStream(&side));
	ASSERT_ACL_OK(aclrtCreateStream(&replay));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());

	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&task0));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(side, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	g_info = NULL;
	st = status_of(side, &g_info);
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	ASSERT_NONNULL(g_info);
	EXPECT_ACL_OK(aclmdlRIGetId(g_info, &id));
	/* other streams are not in the capture */
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, status_of(replay, NULL));

	ASSERT_EQ(0, graph_launch(&gr, side));
	/* recorded, not run, and no task of the thread's */
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&task1));
	EXPECT_EQ(task0, task1);

	/* GLOBAL: every thread of the context is refused, unless it switched */
	t = other_thread(ctx, gr.x, replay, false, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
	EXPECT_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, t.memcpy);
	EXPECT_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, t.memset);
	EXPECT_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, t.memcpy2d);
	EXPECT_EQ(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, t.async_pageable);
	EXPECT_EQ(ACL_SUCCESS, t.malloc_ret);
	t = other_thread(ctx, gr.x, replay, true, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
	EXPECT_EQ(ACL_SUCCESS, t.memcpy);
	EXPECT_EQ(ACL_SUCCESS, t.memset);
	EXPECT_EQ(ACL_SUCCESS, t.memcpy2d);
	EXPECT_EQ(ACL_SUCCESS, t.async_pageable);
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_MODE_RELAXED, t.mode);
	t = other_thread(ctx, gr.x, replay, true, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL);
	EXPECT_EQ(ACL_SUCCESS, t.memcpy);
	/* the capturing thread itself */
	EXPECT_ACL(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemcpy(gr.x, 4, in, 4, ACL_MEMCPY_HOST_TO_DEVICE));

	/* what a capturing stream refuses, and its context's device synchronize */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(side));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStreamWithTimeout(side, 1000));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtStreamQuery(side, &(aclrtStreamStatus){ 0 }));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtDestroyStream(side));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtDestroyStreamForce(side));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeDevice());
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeDeviceWithTimeout(1000));
	/* other streams go on */
	EXPECT_ACL_OK(aclrtSynchronizeStream(replay));

	g = NULL;
	ASSERT_ACL_OK(aclmdlRICaptureEnd(side, &g));
	EXPECT_EQ(g_info, g);
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, status_of(side, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	/* nothing ran */
	for (i = 0; i < N; i++)
		ASSERT_EQ(0x77777777, gr.h[i]);
	ASSERT_ACL_OK(aclrtMemcpy(&flag, 8, gr.flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, flag);

	memset(want_acc, 0, sizeof(want_acc));
	for (r = 0; r < 5; r++) {
		/* new input, through the caching allocator's way: a copy before the replay */
		for (i = 0; i < N; i++)
			in[i] = (int32_t)(i * 17 + r * 1000003) ^ (r << 20);
		ASSERT_ACL_OK(aclrtMemcpy(gr.x, N * 4, in, N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclrtMemset(gr.flag, 8, 0, 8));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, replay));
		ASSERT_ACL_OK(aclrtSynchronizeStream(replay));
		for (i = 0; i < N; i++) {
			want_y[i] = (int32_t)((uint32_t)in[i] + (uint32_t)(3 * i - 7));
			want_acc[i] = (int32_t)((uint32_t)want_acc[i] + (uint32_t)want_y[i]);
		}
		for (i = 0; i < N; i++)
			ASSERT_EQ(want_y[i], gr.h[i]);
		ASSERT_ACL_OK(aclrtMemcpy(got, N * 4, gr.acc, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < N; i++)
			ASSERT_EQ(want_acc[i], got[i]);
		ASSERT_ACL_OK(aclrtMemcpy(got, 2 * N * 4, gr.z, 2 * N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
		for (k = 0; k < ROWS; k++)
			for (i = 0; i < per_row; i++) {
				ASSERT_EQ(want_y[k * per_row + i], got[2 * k * per_row + i]);
				ASSERT_EQ(0x55555555, got[(2 * k + 1) * per_row + i]);
			}
		ASSERT_ACL_OK(aclrtMemcpy(&flag, 8, gr.flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(42, flag);
	}
	/* the replay is one task of the stream it ran on */
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&task1));
	EXPECT_NE(task0, task1);
	ASSERT_ACL_OK(aclmdlRIDestroy(g));
	ASSERT_ACL_OK(aclrtDestroyStream(side));
	ASSERT_ACL_OK(aclrtDestroyStream(replay));
	graph_free(&gr);
}

struct end_arg {
	aclrtContext ctx;
	aclrtStream s;
	aclError ret;
};

static void *end_thread_fn(void *arg)
{
	struct end_arg *a = arg;
	aclmdlRI m = NULL;

	a->ret = aclrtSetCurrentContext(a->ctx);
	if (!a->ret)
		a->ret = aclmdlRICaptureEnd(a->s, &m);
	if (!a->ret)
		a->ret = aclmdlRIDestroy(m);
	return NULL;
}

/* aclmdlRICaptureEnd(@s) on another thread (and, if it succeeds, the destroy of its model). */
static aclError end_on_other_thread(aclrtContext ctx, aclrtStream s)
{
	struct end_arg a = { ctx, s, -1 };
	pthread_t th;

	if (!pthread_create(&th, NULL, end_thread_fn, &a))
		pthread_join(th, NULL);
	return a.ret;
}

/* The modes across threads (CANN's capture_mode_api tests), and who may end a capture. */
TEST(capture_modes)
{
	aclmdlRICaptureMode mode;
	struct mode_thread t;
	aclrtContext ctx;
	aclrtStream s;
	aclmdlRI m;
	void *dev;
	char host[64] = { 0 };

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&s));

	/* THREAD_LOCAL: only the capturing thread, and only while its mode is not RELAXED */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	EXPECT_ACL(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemset(dev, 64, 0, 64));
	mode = ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
	ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_ACL(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemset(dev, 64, 0, 64));
	mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL, mode);
	EXPECT_ACL_OK(aclrtMemset(dev, 64, 0, 64));
	mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
	ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
	t = other_thread(ctx, dev, NULL, false, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
	EXPECT_EQ(ACL_SUCCESS, t.memcpy);
	EXPECT_EQ(ACL_SUCCESS, t.memset);
	EXPECT_EQ(ACL_SUCCESS, t.memcpy2d);
	/* a THREAD_LOCAL capture ends on its own thread only */
	m = (aclmdlRI)1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureEnd(s, NULL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	/* no capture: nothing forbidden */
	EXPECT_ACL_OK(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE));

	/* RELAXED forbids nobody, and ends on any thread */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL_OK(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE));
	t = other_thread(ctx, dev, NULL, false, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
	EXPECT_EQ(ACL_SUCCESS, t.memcpy);
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	/* GLOBAL ended on another thread: 107038, the stream leaves it, the model cannot run */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	m = NULL;
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s, &m));
	ASSERT_NONNULL(m);
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, end_on_other_thread(ctx, s));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, status_of(s, NULL));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_EXECUTE, aclmdlRIExecuteAsync(m, s));
	EXPECT_ACL_OK(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	/* a RELAXED one ends there */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_EQ(ACL_SUCCESS, end_on_other_thread(ctx, s));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, status_of(s, NULL));

	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(dev));
}

/*
 * What a capture cannot record yet is refused with nothing done or
 * queued: a task libacl does not capture yet (207000, not the last
 * error) invalidates the capture, which then ends with 507903 and no
 * model; a pageable copy is the vendor's 107000 and leaves the capture
 * as it was.
 */
TEST(refusals_leave_nothing_queued)
{
	char pageable[256], *dev, *dev2, *pinned;
	aclrtStream s;
	aclrtEvent ev;
	aclmdlRI m;
	int calls = 0, i;
	uint32_t t0, t1;
	aclrtStreamAttrValue attr_v;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&dev2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(dev, 4096, 0x11, 4096));
	ASSERT_ACL_OK(aclrtMemset(dev2, 4096, 0x22, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateEvent(&ev));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&pinned, 4096));
	memset(pinned, 0x44, 4096);
	memset(&attr_v, 0, sizeof(attr_v));
	memset(pageable, 0x33, sizeof(pageable));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev, 64, dev2, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&t0));
	/* pageable memory: the vendor's parameter error, the capture goes on */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(dev, 256, pageable, 256, ACL_MEMCPY_HOST_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(pageable, 256, 0, 256, s));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s, NULL));
	/* the overflow status and switch, the stream tag: CANN's 107027, the capture goes on */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtGetOverflowStatus(pinned, 64, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(pinned, 63, s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtResetOverflowStatus(s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSetStreamOverflowSwitch(s, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamOverflowSwitch(s, 2));
	attr_v.overflowSwitch = 1;
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED,
		   aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &attr_v));
	attr_v.userCustomTag = 9;
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &attr_v));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s, NULL));
	/*
	 * a stream-ordered free of aclrtMalloc memory (no pool's), which the
	 * vendor would free again at each run: refused, the capture
	 * invalidated, not the last error; the memory stays
	 */
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemPoolFreeAsync(dev2, s));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED, status_of(s, NULL));
	/* then every task is refused as invalidated */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
		   aclrtMemcpyAsync(dev, 64, dev2, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	m = (aclmdlRI)1;
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(s, &m));
	EXPECT_NULL(m);
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, status_of(s, NULL));

	/*
	 * an event of aclrtCreateEvent: the vendor's 207000 (ToBeCaptured, not
	 * "new mode"), the capture going on; its model is empty
	 */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEvent(ev, s));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(s, ev));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s, NULL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, s));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	/* recorded tasks are no tasks of the thread's; nothing ran or is queued */
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&t1));
	EXPECT_EQ(t0, t1);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(0, calls);
	{
		char back[64];

		ASSERT_ACL_OK(aclrtMemcpy(back, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < 64; i++)
			ASSERT_EQ(0x11, back[i]);
	}
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclrtFreeHost(pinned));
}

/* A capture of one copy @dst = @src on a new stream; the model. */
static aclmdlRI capture_copy(void *dst, const void *src, size_t n)
{
	aclmdlRI m = NULL;
	aclrtStream s;

	if (aclrtCreateStream(&s))
		return NULL;
	if (aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) ||
	    aclrtMemcpyAsync(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s) || aclmdlRICaptureEnd(s, &m))
		m = NULL;
	aclrtDestroyStream(s);
	return m;
}

/* The memory a model names is looked up at each run: freed, its run faults; the process goes on. */
TEST(replay_after_free_faults)
{
	char *a, *b, back[4096];
	aclrtStream s;
	aclmdlRI m, m2;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&b, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(a, 4096, 0x5a, 4096));
	ASSERT_ACL_OK(aclrtMemset(b, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	m = capture_copy(b, a, 4096);
	ASSERT_NONNULL(m);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(back, 4096, b, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(0x5a, back[i]);

	ASSERT_ACL_OK(aclrtFree(a));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	/* reported once; the stream, the model and the process go on */
	EXPECT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(a, 4096, 0x6b, 4096));
	m2 = capture_copy(b, a, 4096);
	ASSERT_NONNULL(m2);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m2, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(back, 4096, b, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(0x6b, back[i]);
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m2));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtFree(b));
}

/*
 * A graph's EXTERNAL wait waits, at each run, for the user's event as it
 * was last recorded when the graph is executed; its EXTERNAL record records
 * the event at each run, after the graph's tasks before it.
 */
TEST(external_event_record_and_wait)
{
	enum { LEN = 4096 };
	char *a, *b, *c, back[LEN];
	aclrtStream gs, gs2, ext, gate;
	aclrtStreamStatus st;
	aclmdlRI waits, records;
	uint64_t *flag;
	aclrtEvent ev, out;
	int run, i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, LEN, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&b, LEN, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&c, LEN, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&flag, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&gs2));
	ASSERT_ACL_OK(aclrtCreateStream(&ext));
	ASSERT_ACL_OK(aclrtCreateStream(&gate));
	/* an event keeps the flag of its first record and wait: one for each way */
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&out, ACL_EVENT_SYNC));
	/* outside a capture EXTERNAL is refused */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
		   aclrtStreamWaitEventWithFlag(gs, ev, 0, ACL_EVENT_WAIT_EXTERNAL));

	/* graph 1: wait for the event, then copy a -> b */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(gs, ev, 0, ACL_EVENT_WAIT_EXTERNAL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(b, LEN, a, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE, gs));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(gs, &waits));
	/* graph 2: copy b -> c, record the event, then clear b */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(gs2, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtMemcpyAsync(c, LEN, b, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE, gs2));
	ASSERT_ACL_OK(aclrtRecordEventWithFlag(out, gs2, ACL_EVENT_RECORD_EXTERNAL));
	ASSERT_ACL_OK(aclrtMemsetAsync(b, LEN, 0, LEN, gs2));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(gs2, &records));

	for (run = 1; run <= 3; run++) {
		/* the event's record is held back behind a value wait */
		ASSERT_ACL_OK(aclrtMemset(flag, 8, 0, 8));
		ASSERT_ACL_OK(aclrtMemset(a, LEN, 0x10 + run, LEN));
		ASSERT_ACL_OK(aclrtValueWait(flag, 1, 0, ext));
		ASSERT_ACL_OK(aclrtRecordEvent(ev, ext));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(waits, gs));
		usleep(50000);
		ASSERT_ACL_OK(aclrtStreamQuery(gs, &st));
		EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
		ASSERT_ACL_OK(aclrtValueWrite(flag, 1, 0, gate));
		ASSERT_ACL_OK(aclrtSynchronizeStream(gs));
		/* graph 2's record releases a wait queued after its run */
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(records, gs2));
		ASSERT_ACL_OK(aclrtStreamWaitEvent(ext, out));
		ASSERT_ACL_OK(aclrtMemcpyAsync(back, LEN, c, LEN, ACL_MEMCPY_DEVICE_TO_HOST, ext));
		ASSERT_ACL_OK(aclrtSynchronizeStream(ext));
		for (i = 0; i < LEN; i++)
			if (back[i] != 0x10 + run) {
				EXPECT_EQ(0x10 + run, back[i]);
				break;
			}
		ASSERT_ACL_OK(aclrtSynchronizeStream(gs2));
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(waits));
	/* the model holds the event: destroyed first, the model's run refuses it */
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyEvent(out));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(records, gs2));
	ASSERT_ACL_OK(aclrtSynchronizeStream(gs2));
	ASSERT_ACL_OK(aclmdlRIDestroy(records));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(gs2));
	ASSERT_ACL_OK(aclrtDestroyStream(ext));
	ASSERT_ACL_OK(aclrtDestroyStream(gate));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtFree(b));
	ASSERT_ACL_OK(aclrtFree(c));
	ASSERT_ACL_OK(aclrtFree(flag));
}

/*
 * One model on several streams, each replay in its stream's order: a
 * memset before it and a copy after it on the same stream see it whole.
 */
TEST(replay_on_several_streams)
{
	enum { NS = 4, LEN = 64 * 1024 };
	char *src, *dst, *out[NS], *back;
	aclrtStream s[NS];
	aclmdlRI m;
	int k, i;

	NEED_DEVICE();
	back = malloc(LEN);
	ASSERT_NONNULL(back);
	ASSERT_ACL_OK(aclrtMalloc((void **)&src, LEN, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&dst, LEN, ACL_MEM_MALLOC_NORMAL_ONLY));
	for (i = 0; i < LEN; i++)
		back[i] = (char)(i * 7 + 1);
	ASSERT_ACL_OK(aclrtMemcpy(src, LEN, back, LEN, ACL_MEMCPY_HOST_TO_DEVICE));
	m = capture_copy(dst, src, LEN);
	ASSERT_NONNULL(m);
	for (k = 0; k < NS; k++) {
		ASSERT_ACL_OK(aclrtCreateStream(&s[k]));
		ASSERT_ACL_OK(aclrtMalloc((void **)&out[k], LEN, ACL_MEM_MALLOC_NORMAL_ONLY));
	}
	/* the default stream too */
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, NULL));
	for (k = 0; k < NS; k++) {
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, s[k]));
		ASSERT_ACL_OK(aclrtMemcpyAsync(out[k], LEN, dst, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE, s[k]));
	}
	for (k = 0; k < NS; k++)
		ASSERT_ACL_OK(aclrtSynchronizeStream(s[k]));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	for (k = 0; k < NS; k++) {
		char *h = malloc(LEN);

		ASSERT_NONNULL(h);
		ASSERT_ACL_OK(aclrtMemcpy(h, LEN, out[k], LEN, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < LEN; i++)
			ASSERT_EQ(back[i], h[i]);
		free(h);
		ASSERT_ACL_OK(aclrtFree(out[k]));
		ASSERT_ACL_OK(aclrtDestroyStream(s[k]));
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtFree(src));
	ASSERT_ACL_OK(aclrtFree(dst));
	free(back);
}

/*
 * A destroy while a replay is queued (behind a value wait): the destroy
 * returns, its callbacks run, and the replay still runs whole once the
 * stream gets to it.
 */
TEST(destroy_while_queued)
{
	char *a, *b, back[4096];
	aclrtStream s, rel;
	uint64_t *gate;
	aclmdlRI m;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&b, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&gate, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(gate, 8, 0, 8));
	ASSERT_ACL_OK(aclrtMemset(a, 4096, 0x3c, 4096));
	ASSERT_ACL_OK(aclrtMemset(b, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&rel));
	m = capture_copy(b, a, 4096);
	ASSERT_NONNULL(m);
	ASSERT_ACL_OK(aclmdlRIDestroyRegisterCallback(m, destroy_cb, &back));
	ASSERT_ACL_OK(aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, s));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, s));
	cb_calls = 0;
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_EQ(1, cb_calls);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(m, s));
	/* not run yet */
	ASSERT_ACL_OK(aclrtMemcpy(back, 4096, b, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(0, back[i]);
	ASSERT_ACL_OK(aclrtValueWrite(gate, 1, 0, rel));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(back, 4096, b, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 4096; i++)
		ASSERT_EQ(0x3c, back[i]);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(rel));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtFree(b));
	ASSERT_ACL_OK(aclrtFree(gate));
}

/* Models, one still capturing, go with their context (aclrtResetDevice); their callbacks run. */
TEST(models_go_with_the_context)
{
	aclrtStream s, s2;
	aclmdlRI m, cap;
	char *a, *b;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&b, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	m = capture_copy(b, a, 4096);
	ASSERT_NONNULL(m);
	ASSERT_ACL_OK(aclmdlRIDestroyRegisterCallback(m, destroy_cb, NULL));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, s));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(b, 64, a, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
	ASSERT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s2, &cap));
	cb_calls = 0;
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_EQ(1, cb_calls);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(m, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(cap));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureGetInfo(s2, NULL, &cap));
	/* nothing forbids synchronous copies any more */
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL_OK(aclrtMemset(a, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * After fork the child has none of the parent's models or captures (the
 * driver's belong to the parent's file): their handles are unknown, its
 * synchronous copies are not forbidden, and it captures and replays its
 * own; the parent's model and capture go on.
 */
TEST(fork_child)
{
	char *a, *b, back[64];
	aclrtStream s, s2;
	aclmdlRI m, cap;
	int status, i;
	pid_t pid;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&b, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(a, 4096, 0x21, 4096));
	m = capture_copy(b, a, 64);
	ASSERT_NONNULL(m);
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s2, &cap));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		aclmdlRI cm = NULL;
		char *c, *d;
		int bad = 0;

		bad |= (aclmdlRIDestroy(m) != ACL_ERROR_RT_INVALID_HANDLE) << 0;
		bad |= (aclmdlRIGetId(cap, &(uint32_t){ 0 }) != ACL_ERROR_RT_INVALID_HANDLE) << 1;
		bad |= (aclrtSetDevice(0) != ACL_SUCCESS) << 2;
		bad |= (aclrtMalloc((void **)&c, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS) << 3;
		bad |= (aclrtMalloc((void **)&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS) << 3;
		bad |= (aclrtMemset(c, 4096, 0x43, 4096) != ACL_SUCCESS) << 4;
		bad |= (aclrtCreateStream(&s) != ACL_SUCCESS) << 5;
		bad |= (aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) != ACL_SUCCESS) << 6;
		bad |= (aclrtMemcpyAsync(d, 64, c, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s) != ACL_SUCCESS) << 7;
		bad |= (aclmdlRICaptureEnd(s, &cm) != ACL_SUCCESS) << 8;
		bad |= (aclmdlRIExecuteAsync(cm, s) != ACL_SUCCESS) << 9;
		bad |= (aclrtSynchronizeStream(s) != ACL_SUCCESS) << 10;
		bad |= (aclrtMemcpy(back, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) << 11;
		for (i = 0; i < 64; i++)
			bad |= (back[i] != 0x43) << 12;
		bad |= (aclmdlRIDestroy(cm) != ACL_SUCCESS) << 13;
		bad |= (aclFinalize() != ACL_SUCCESS) << 14;
		if (bad)
			printf("# child: %#x\n", bad);
		fflush(stdout);
		_exit(!!bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the parent's go on */
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, status_of(s2, NULL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s2, &cap));
	ASSERT_ACL_OK(aclmdlRIDestroy(cap));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(back, 64, b, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0x21, back[i]);
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtFree(a));
	ASSERT_ACL_OK(aclrtFree(b));
}

/* Many captures and replays from several threads at once, each on its own stream. */
struct stress_arg {
	aclrtContext ctx;
	int id;
	int bad;
};

static void *stress_fn(void *arg)
{
	struct stress_arg *t = arg;
	int32_t h[256], want;
	aclrtStream s;
	aclmdlRI m;
	int32_t *d;
	int r, i;

	if (aclrtSetCurrentContext(t->ctx) || aclrtCreateStream(&s) ||
	    aclrtMalloc((void **)&d, sizeof(h), ACL_MEM_MALLOC_NORMAL_ONLY)) {
		t->bad = 1;
		return NULL;
	}
	for (r = 0; r < 20 && !t->bad; r++) {
		want = t->id * 1000 + r;
		if (aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL) ||
		    aclrtMemsetD32Async(d, sizeof(h), (uint32_t)want, 256, s) || aclmdlRICaptureEnd(s, &m)) {
			t->bad = 2;
			break;
		}
		if (aclmdlRIExecuteAsync(m, s) || aclmdlRIExecuteAsync(m, s) || aclrtSynchronizeStream(s) ||
		    aclmdlRIDestroy(m) ||
		    aclrtMemcpyAsync(h, sizeof(h), d, sizeof(h), ACL_MEMCPY_DEVICE_TO_HOST, s) ||
		    aclrtSynchronizeStream(s)) {
			t->bad = 3;
			break;
		}
		for (i = 0; i < 256; i++)
			if (h[i] != want)
				t->bad = 4;
	}
	aclrtFree(d);
	aclrtDestroyStream(s);
	return NULL;
}

TEST(threads)
{
	enum { NT = 4 };
	struct stress_arg a[NT];
	pthread_t th[NT];
	aclrtContext ctx;
	int k;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
	for (k = 0; k < NT; k++) {
		a[k] = (struct stress_arg){ .ctx = ctx, .id = k + 1 };
		ASSERT_EQ(0, pthread_create(&th[k], NULL, stress_fn, &a[k]));
	}
	for (k = 0; k < NT; k++) {
		pthread_join(th[k], NULL);
		EXPECT_EQ(0, a[k].bad);
	}
}

/* aclmdlRIBuildEnd of a model on another thread, which reports its answer. */
struct build_end_arg {
	aclrtContext ctx;
	aclmdlRI m;
	aclError ret;
};

static void *build_end_fn(void *arg)
{
	struct build_end_arg *b = arg;

	b->ret = aclrtSetCurrentContext(b->ctx);
	if (!b->ret)
		b->ret = aclmdlRIBuildEnd(b->m, NULL);
	return NULL;
}

#define RACE_CMDS	20000	/* a build MODEL_CREATE takes a while to check */

/*
 * aclmdlRIBuildEnd racing aclmdlRIDestroy of the same model on another
 * thread, the destroy landing at several points of the build (while the
 * driver makes the model, mostly): whichever wins, no driver model is
 * left behind (npu-models in the file's fdinfo) - a build the destroy
 * overtook destroys what it made and answers 107017 - and the handle is
 * gone after both.
 */
TEST(build_end_racing_destroy)
{
	struct build_end_arg b;
	long long models;
	aclrtStream ps;
	pthread_t t;
	char *dev;
	int k, i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&b.ctx));
	ASSERT_ACL_OK(aclrtMalloc((void **)&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT));
	models = npu_proc_fdinfo("/dev/npu0", "npu-models");
	ASSERT_LE(0, models);
	for (k = 0; k < 8; k++) {
		ASSERT_ACL_OK(aclmdlRIBuildBegin(&b.m, 0));
		ASSERT_ACL_OK(aclmdlRIBindStream(b.m, ps, 0));
		for (i = 0; i < RACE_CMDS; i++)
			ASSERT_ACL_OK(aclrtMemsetAsync(dev + i % 4096, 1, i & 0xFF, 1, ps));
		ASSERT_ACL_OK(aclmdlRIEndTask(b.m, ps));
		ASSERT_EQ(0, pthread_create(&t, NULL, build_end_fn, &b));
		/* the last time the build ends first */
		if (k == 7)
			ASSERT_EQ(0, pthread_join(t, NULL));
		else
			usleep(k * 300);
		EXPECT_ACL_OK(aclmdlRIDestroy(b.m));
		if (k != 7)
			ASSERT_EQ(0, pthread_join(t, NULL));
		/* built before the destroy, or overtaken by it */
		if (k == 7 || b.ret != ACL_SUCCESS)
			EXPECT_EQ(k == 7 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_HANDLE, b.ret);
		if (k == 7)
			printf("# destroy after the build: aclmdlRIBuildEnd %d\n", b.ret);
		else
			printf("# destroy after %d us: aclmdlRIBuildEnd %d\n", k * 300, b.ret);
		EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(b.m));
		EXPECT_EQ(models, npu_proc_fdinfo("/dev/npu0", "npu-models"));
		/* the stream was let go: it runs its tasks again */
		ASSERT_ACL_OK(aclrtMemsetAsync(dev, 4096, 0, 4096, ps));
		ASSERT_ACL_OK(aclrtSynchronizeStream(ps));
	}
	ASSERT_ACL_OK(aclrtDestroyStream(ps));
	ASSERT_ACL_OK(aclrtFree(dev));
}

/*
 * Capture across streams, as torch_npu's side streams do: the origin
 * records an event, a second stream waits for it and so joins the
 * capture (fork), works, records another event the origin waits for
 * (join). The model runs the lanes in an order that keeps every
 * dependency; replays with new input checked against a host model. Then
 * the refusals: a member ending the capture (107036), a member not joined
 * back (107025, and it leaves the capture), the default stream joining
 * (107031), a stream of another capture (107032), a wait for a record
 * outside the capture (107024).
 */
TEST(fork_join_across_streams)
{
	int32_t *x, *a, *b, *out, host[N], want[N];
	aclrtEvent fork, join, outside;
	aclrtStream s0, s1, s2, dflt;
	aclmdlRICaptureStatus st;
	aclmdlRI m, m2, got;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s0));
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&dflt));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&join, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&outside, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtMalloc((void **)&x, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&b, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, N * 4, ACL_MEM_MALLOC_HUGE_FIRST));

	/* out = (x + x) + (x + 7): a on s0, b on s1, summed on s0 after the join */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(a, N * 4, x, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s0));
	ASSERT_ACL_OK(aclrtRecordEvent(fork, s0));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s1, fork));
	st = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
	got = NULL;
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s1, &st, &got));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s0, NULL, &m));
	EXPECT_EQ(m, got);
	/* a member is not the origin: it neither ends the capture nor is synchronized */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, aclmdlRICaptureEnd(s1, &got));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(s1));
	ASSERT_ACL_OK(aclrtMemsetD32Async(b, N * 4, 7, N, s1));
	ASSERT_ACL_OK(aclrtReduceAsync(b, x, N * 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, s1, NULL));
	ASSERT_ACL_OK(aclrtRecordEvent(join, s1));
	ASSERT_ACL_OK(aclrtReduceAsync(a, x, N * 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, s0, NULL));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s0, join));
	ASSERT_ACL_OK(aclrtReduceAsync(a, b, N * 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, s0, NULL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(out, N * 4, a, N * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s0, &got));
	EXPECT_EQ(m, got);
	/* both streams are free again */
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s1, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);

	for (int run = 0; run < 3; run++) {
		for (int i = 0; i < N; i++)
			host[i] = i * 3 - run * 1000;
		ASSERT_ACL_OK(aclrtMemcpy(x, N * 4, host, N * 4, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run & 1 ? s1 : s2));
		ASSERT_ACL_OK(aclrtSynchronizeStream(run & 1 ? s1 : s2));
		for (int i = 0; i < N; i++)
			want[i] = 2 * host[i] + host[i] + 7;
		memset(host, 0, sizeof(host));
		/* read back in two pieces at other offsets than written */
		ASSERT_ACL_OK(aclrtMemcpy(host, N * 2 + 4, out, N * 2 + 4, ACL_MEMCPY_DEVICE_TO_HOST));
		ASSERT_ACL_OK(aclrtMemcpy(host + N / 2 + 1, N * 2 - 4, out + N / 2 + 1, N * 2 - 4,
					  ACL_MEMCPY_DEVICE_TO_HOST));
		for (int i = 0; i < N; i++)
			if (host[i] != want[i]) {
				TH_LOG("run %d: out[%d] = %d, want %d", run, i, host[i], want[i]);
				ASSERT_EQ(want[i], host[i]);
			}
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	/* refusals: the default stream, another capture, a record outside, no join back */
	ASSERT_ACL_OK(aclrtRecordEvent(outside, s2));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtRecordEvent(fork, s0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, aclrtStreamWaitEvent(dflt, fork));
	EXPECT_ACL(ACL_ERROR_STREAM_CAPTURE_CONFLICT, aclrtStreamWaitEvent(s2, fork));
	EXPECT_ACL(ACL_ERROR_RT_CAPTURE_DEPENDENCY, aclrtStreamWaitEvent(s0, outside));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s2, &m2));
	ASSERT_ACL_OK(aclmdlRIDestroy(m2));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s1, fork));
	ASSERT_ACL_OK(aclrtMemsetAsync(b, N * 4, 1, N * 4, s1));
	/* s1 ends with a memset, not a record the origin waits for */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_UNJOINED, aclmdlRICaptureEnd(s0, &got));
	EXPECT_NULL(got);
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s1, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s0, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
	/* a record on s1 that no one waits for is no join either */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtRecordEvent(fork, s0));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s1, fork));
	ASSERT_ACL_OK(aclrtRecordEvent(join, s1));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_UNJOINED, aclmdlRICaptureEnd(s0, &got));
	/* the streams run tasks again */
	ASSERT_ACL_OK(aclrtMemsetAsync(b, N * 4, 0, N * 4, s1));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s1));

	EXPECT_ACL_OK(aclrtDestroyEvent(fork));
	EXPECT_ACL_OK(aclrtDestroyEvent(join));
	EXPECT_ACL_OK(aclrtDestroyEvent(outside));
	EXPECT_ACL_OK(aclrtFree(x));
	EXPECT_ACL_OK(aclrtFree(a));
	EXPECT_ACL_OK(aclrtFree(b));
	EXPECT_ACL_OK(aclrtFree(out));
	EXPECT_ACL_OK(aclrtDestroyStream(s0));
	EXPECT_ACL_OK(aclrtDestroyStream(s1));
	EXPECT_ACL_OK(aclrtDestroyStream(s2));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
