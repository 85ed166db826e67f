// SPDX-License-Identifier: MIT
/*
 * libacl: aclrtTaskUpdateAsync (issue 23) - a model's random-number task
 * updated from an aclrtRandomNumTaskInfo in device memory: the replays
 * after it draw what a task launched anew with the new result, counter,
 * seed, count and parameter address draws, the old result untouched;
 * updates in a row (randomParaAddr twice: parameters as captured, by
 * value); the exec stream's task errors and a capture elsewhere
 * left alone; a built model's task; and the vendor's codes for bad
 * input in its order (the chips without the update: lib_chip_test).
 * Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>

#include "float_bits.h"
#include "lib_util.h"
#include "lib_random.h"

#define RN	1024		/* values of the captured task */

/* Device memory of @n bytes, zeroed. */
static void *dev_zero(size_t n)
{
	void *p = NULL;

	if (aclrtMalloc(&p, n, ACL_MEM_MALLOC_NORMAL_ONLY) || aclrtMemset(p, n, 0, n))
		return NULL;
	return p;
}

/* @n bytes at @a equal those at @b, both device memory. */
static int dev_same(const void *a, const void *b, size_t n)
{
	static char x[RN * 4], y[RN * 4];

	if (n > sizeof(x) || aclrtMemcpy(x, n, a, n, ACL_MEMCPY_DEVICE_TO_HOST) ||
	    aclrtMemcpy(y, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST))
		return 0;
	return !memcmp(x, y, n);
}

/* @n bytes of device memory @a are all zero. */
static int dev_zeroed(const void *a, size_t n)
{
	static char x[RN * 4];
	size_t i;

	if (n > sizeof(x) || aclrtMemcpy(x, n, a, n, ACL_MEMCPY_DEVICE_TO_HOST))
		return 0;
	for (i = 0; i < n; i++)
		if (x[i])
			return 0;
	return 1;
}

static uint64_t dev_u64(const void *a)
{
	uint64_t v = 0xbad;

	if (aclrtMemcpy(&v, 8, a, 8, ACL_MEMCPY_DEVICE_TO_HOST))
		return 0xbad;
	return v;
}

/* The model's one stream. */
static aclrtStream model_stream(aclmdlRI m)
{
	aclrtStream ms = NULL;
	uint32_t n = 1;

	if (aclmdlRIGetStreams(m, &ms, &n) || n != 1)
		return NULL;
	return ms;
}

/* @t into device memory @src, and @info naming it. */
static aclError put_update(void *src, const aclrtRandomNumTaskInfo *t, aclrtTaskUpdateInfo *info)
{
	memset(info, 0, sizeof(*info));
	info->id = ACL_RT_UPDATE_RANDOM_TASK;
	info->val.randomTaskAttr.srcAddr = src;
	info->val.randomTaskAttr.size = sizeof(*t);
	return aclrtMemcpy(src, sizeof(*t), t, sizeof(*t), ACL_MEMCPY_HOST_TO_DEVICE);
}

/* A fresh launch of @t on @s, waited for. */
static aclError fresh(const aclrtRandomNumTaskInfo *t, aclrtStream s)
{
	aclError e = aclrtRandomNumAsync(t, s, NULL);

	return e ? e : aclrtSynchronizeStream(s);
}

/*
 * The graph of the tests: task 0 a uniform random task into @out on
 * counter @ctr, task 1 a copy of its first 64 bytes to @copy, task 2 a
 * value write of 1 to @flag.
 */
static aclError capture_graph(aclrtStream gs, void *out, void *ctr, void *copy, void *flag, aclmdlRI *m)
{
	aclrtRandomNumTaskInfo t = task(ACL_FLOAT, UNIFORM, f32_bits(-2.0f), f32_bits(5.0f), 4, 777, RN, out, ctr);
	aclError e;

	e = aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
	if (e)
		return e;
	e = aclrtRandomNumAsync(&t, gs, NULL);
	if (!e)
		e = aclrtMemcpyAsync(copy, 64, out, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, gs);
	if (!e)
		e = aclrtValueWrite(flag, 1, 0, gs);
	if (e) {
		aclmdlRI dead = NULL;

		aclmdlRICaptureEnd(gs, &dead);
		aclmdlRIDestroy(dead);
		return e;
	}
	return aclmdlRICaptureEnd(gs, m);
}

/* The current context's: what a thread without one answers. */
struct noctx {
	aclrtStream ms;
	aclrtTaskUpdateInfo *info;
	aclError ret;
};

static void *update_without_context(void *arg)
{
	struct noctx *a = arg;

	a->ret = aclrtTaskUpdateAsync(a->ms, 0, a->info, NULL);
	return NULL;
}

/* The vendor's codes, in its order (acl layer, rtsLaunchUpdateTask, LaunchSqeUpdateTask). */
TEST(bad_input)
{
	char *out, *ctr, *copy, *o2, *c2, *src, *gate;
	aclrtStream gs, es, bs, cs, xs, dead;
	aclrtContext c1, cx;
	aclrtTaskUpdateInfo info, good;
	aclrtRandomNumTaskInfo t;
	aclmdlRITaskParams p;
	aclmdlRITask tasks[3];
	uint64_t *flag;
	aclmdlRI m, bm, cm;
	aclrtStream ms;
	struct noctx nc;
	pthread_t th;
	uint32_t n;
	int bogus;

	NEED_DEVICE();
	ASSERT_NONNULL(out = dev_zero(RN * 4));
	ASSERT_NONNULL(o2 = dev_zero(RN * 4));
	ASSERT_NONNULL(ctr = dev_zero(16));
	ASSERT_NONNULL(c2 = dev_zero(16));
	ASSERT_NONNULL(copy = dev_zero(64));
	ASSERT_NONNULL(flag = dev_zero(8));
	ASSERT_NONNULL(src = dev_zero(sizeof(t)));
	ASSERT_NONNULL(gate = dev_zero(8));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&es));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bs, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStream(&cs));
	ASSERT_ACL_OK(aclrtCreateStream(&dead));
	ASSERT_ACL_OK(aclrtDestroyStream(dead));
	ASSERT_ACL_OK(capture_graph(gs, out, ctr, copy, flag, &m));
	ASSERT_NONNULL(ms = model_stream(m));
	t = task(ACL_FLOAT, UNIFORM, f32_bits(0.0f), f32_bits(1.0f), 4, 5, 100, o2, c2);
	ASSERT_ACL_OK(put_update(src, &t, &good));

	/* acl layer: info NULL */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtTaskUpdateAsync(ms, 0, NULL, es));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtTaskUpdateAsync(NULL, 0, NULL, NULL));
	/* the id */
	info = good;
	info.id = (aclrtUpdateTaskAttrId)0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	info.id = (aclrtUpdateTaskAttrId)3;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	/* the target stream: NULL, then its handle */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(NULL, 0, &good, (aclrtStream)&bogus));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync((aclrtStream)&bogus, 0, &good, es));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(dead, 0, &good, es));
	/* the exec stream's handle, before the struct's checks */
	info = good;
	info.val.randomTaskAttr.srcAddr = NULL;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(ms, 0, &info, (aclrtStream)&bogus));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(ms, 0, &info, dead));
	/* srcAddr NULL, size not the struct's */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	info = good;
	info.val.randomTaskAttr.size = sizeof(t) - 8;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	info.val.randomTaskAttr.size = sizeof(t) + 8;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	/* no current context */
	nc = (struct noctx){ .ms = ms, .info = &good, .ret = 0 };
	ASSERT_EQ(0, pthread_create(&th, NULL, update_without_context, &nc));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, nc.ret);
	/* the exec stream: a model's, one bound to a model being built, a capturing one, another context's */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &good, ms));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&bm, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(bm, bs, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &good, bs));
	ASSERT_ACL_OK(aclmdlRIUnbindStream(bm, bs));
	ASSERT_ACL_OK(aclmdlRIDestroy(bm));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(cs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtTaskUpdateAsync(ms, 0, &good, cs));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(cs, &cm));
	ASSERT_ACL_OK(aclmdlRIDestroy(cm));
	ASSERT_ACL_OK(aclrtGetCurrentContext(&c1));
	ASSERT_ACL_OK(aclrtCreateContext(&cx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&xs));
	ASSERT_ACL_OK(aclrtSetCurrentContext(c1));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtTaskUpdateAsync(ms, 0, &good, xs));
	/* the target: no model's stream, a task id past its tasks, tasks of other kinds */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(es, 0, &good, es));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 3, &good, es));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, UINT32_MAX, &good, es));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 1, &good, es));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 2, &good, es));
	/* the struct read: counter, result NULL; a seed or count of bad size */
	t.randomCounterAddr = NULL;
	ASSERT_ACL_OK(put_update(src, &t, &info));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	t.randomCounterAddr = c2;
	t.randomResultAddr = NULL;
	ASSERT_ACL_OK(put_update(src, &t, &info));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	t.randomResultAddr = o2;
	t.randomSeed.size = 9;
	ASSERT_ACL_OK(put_update(src, &t, &info));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	t.randomSeed.size = 8;
	t.randomNum.isAddr = 2;
	ASSERT_ACL_OK(put_update(src, &t, &info));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, es));
	t.randomNum.isAddr = 0;
	ASSERT_ACL_OK(put_update(src, &t, &good));

	/* a run of the model queued and not done (held by a value wait): 107040, as aclmdlRIUpdate */
	ASSERT_ACL_OK(aclrtValueWait(gate, 1, 0, gs));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, gs));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclrtTaskUpdateAsync(ms, 0, &good, es));
	ASSERT_ACL_OK(aclrtValueWrite(gate, 1, 0, es));
	ASSERT_ACL_OK(aclrtSynchronizeStream(gs));
	/* the model's first run drew into out: nothing of the update was taken */
	EXPECT_EQ(RN, dev_u64(ctr));
	EXPECT_TRUE(dev_zeroed(o2, RN * 4));
	EXPECT_EQ(0, dev_u64(c2));

	/* changes that wait for aclmdlRIUpdate: 107040 until it took them */
	n = 3;
	ASSERT_ACL_OK(aclmdlRIGetTasksByStream(ms, tasks, &n));
	memset(&p, 0, sizeof(p));
	p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
	p.valueWriteTaskParams.devAddr = flag;
	p.valueWriteTaskParams.value = 2;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(tasks[2], &p));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclrtTaskUpdateAsync(ms, 0, &good, es));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &good, es));

	/* the model destroyed: its stream is no handle any more */
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(ms, 0, &good, es));

	/* AI-core tasks: the vendor's checks, then no kernel binary is loaded */
	memset(&info, 0, sizeof(info));
	info.id = ACL_RT_UPDATE_AIC_AIV_TASK;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync((aclrtStream)&bogus, 0, &info, es));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(es, 0, &info, (aclrtStream)&bogus));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(NULL, 0, &info, es));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(es, 0, &info, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(es, 0, &info, es));
	info.val.aicAivTaskAttr.funcEntryAddr = &bogus;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(es, 0, &info, es));
	info.val.aicAivTaskAttr.blockDimAddr = &bogus;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(es, 0, &info, es));
	info.val.aicAivTaskAttr.binHandle = &bogus;
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtTaskUpdateAsync(es, 0, &info, es));

	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(es));
	ASSERT_ACL_OK(aclrtDestroyStream(bs));
	ASSERT_ACL_OK(aclrtDestroyStream(cs));
	ASSERT_ACL_OK(aclrtDestroyContext(cx));
	ASSERT_ACL_OK(aclrtSetCurrentContext(c1));
	aclrtFree(out);
	aclrtFree(o2);
	aclrtFree(ctr);
	aclrtFree(c2);
	aclrtFree(copy);
	aclrtFree(flag);
	aclrtFree(src);
	aclrtFree(gate);
}

/*
 * A captured random task updated, twice in a row: the replays after each
 * update draw what a task launched with the new parameters draws on a
 * counter of its own (the second update's parameters read at
 * randomParaAddr when the task runs), the earlier results and counters
 * untouched; the graph's other tasks as they were.
 */
TEST(update_and_replay)
{
	char *o1, *o2, *o3, *c1, *c2, *c3, *f, *fc, *copy, *src, *para;
	aclrtRandomNumTaskInfo t, ref;
	aclrtTaskUpdateInfo info;
	aclrtStream gs, es, rs;
	uint32_t prm[4];
	uint64_t *flag;
	aclmdlRI m;
	aclrtStream ms;

	NEED_DEVICE();
	ASSERT_NONNULL(o1 = dev_zero(RN * 4));
	ASSERT_NONNULL(o2 = dev_zero(RN * 4));
	ASSERT_NONNULL(o3 = dev_zero(RN * 4));
	ASSERT_NONNULL(f = dev_zero(RN * 4));
	ASSERT_NONNULL(c1 = dev_zero(16));
	ASSERT_NONNULL(c2 = dev_zero(16));
	ASSERT_NONNULL(c3 = dev_zero(16));
	ASSERT_NONNULL(fc = dev_zero(16));
	ASSERT_NONNULL(copy = dev_zero(64));
	ASSERT_NONNULL(flag = dev_zero(8));
	ASSERT_NONNULL(src = dev_zero(sizeof(t)));
	ASSERT_NONNULL(para = dev_zero(16));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&es));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));
	ASSERT_ACL_OK(capture_graph(gs, o1, c1, copy, flag, &m));
	ASSERT_NONNULL(ms = model_stream(m));

	/* as captured */
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
	ref = task(ACL_FLOAT, UNIFORM, f32_bits(-2.0f), f32_bits(5.0f), 4, 777, RN, f, fc);
	ASSERT_ACL_OK(fresh(&ref, rs));
	EXPECT_TRUE(dev_same(o1, f, RN * 4));
	EXPECT_TRUE(dev_same(copy, o1, 64));
	EXPECT_EQ(RN, dev_u64(c1));
	EXPECT_EQ(1, dev_u64(flag));

	/* new result, counter, seed and count; the distribution's parameters stay */
	t = task(ACL_FLOAT, NORMAL, 0, 0, 4, 999, RN / 2, o2, c2);
	ASSERT_ACL_OK(put_update(src, &t, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, es));
	/* the struct was read at the call: changing it now changes nothing */
	t.randomResultAddr = o3;
	ASSERT_ACL_OK(aclrtMemcpy(src, sizeof(t), &t, sizeof(t), ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemset(copy, 64, 0, 64));
	ASSERT_ACL_OK(aclrtMemcpy(f, RN * 4, o1, RN * 4, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
	EXPECT_TRUE(dev_same(o1, f, RN * 4));	/* the old destination untouched */
	EXPECT_EQ(RN, dev_u64(c1));
	EXPECT_TRUE(dev_zeroed(o3, RN * 4));
	EXPECT_EQ(RN / 2, dev_u64(c2));
	EXPECT_TRUE(dev_same(copy, o1, 64));	/* the copy task still copies from o1 */
	ASSERT_ACL_OK(aclrtMemset(fc, 16, 0, 16));
	ASSERT_ACL_OK(aclrtMemset(f, RN * 4, 0, RN * 4));
	ref = task(ACL_FLOAT, UNIFORM, f32_bits(-2.0f), f32_bits(5.0f), 4, 999, RN / 2, f, fc);
	ASSERT_ACL_OK(fresh(&ref, rs));
	EXPECT_TRUE(dev_same(o2, f, RN * 4));

	/* again, on the default stream: the parameters now at randomParaAddr, [10, 20) */
	prm[0] = f32_bits(10.0f);
	prm[1] = 0;
	prm[2] = f32_bits(20.0f);
	prm[3] = 0;
	ASSERT_ACL_OK(aclrtMemcpy(para, 16, prm, 16, ACL_MEMCPY_HOST_TO_DEVICE));
	t = task(ACL_FLOAT, UNIFORM, 0, 0, 4, 31337, 200, o3, c3);
	t.randomParaAddr = para;
	ASSERT_ACL_OK(put_update(src, &t, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, NULL));
	ASSERT_ACL_OK(aclrtMemcpy(f, RN * 4, o2, RN * 4, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
	EXPECT_TRUE(dev_same(o2, f, RN * 4));	/* the first update's destination untouched */
	EXPECT_EQ(RN / 2, dev_u64(c2));
	EXPECT_EQ(200, dev_u64(c3));
	ASSERT_ACL_OK(aclrtMemset(fc, 16, 0, 16));
	ASSERT_ACL_OK(aclrtMemset(f, RN * 4, 0, RN * 4));
	ref = task(ACL_FLOAT, UNIFORM, f32_bits(10.0f), f32_bits(20.0f), 4, 31337, 200, f, fc);
	ASSERT_ACL_OK(fresh(&ref, rs));
	EXPECT_TRUE(dev_same(o3, f, RN * 4));
	/* read when the task runs: new values there, the next replay takes them (the counter going on) */
	prm[0] = f32_bits(-1.0f);
	prm[2] = f32_bits(1.0f);
	ASSERT_ACL_OK(aclrtMemcpy(para, 16, prm, 16, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
	ref = task(ACL_FLOAT, UNIFORM, f32_bits(-1.0f), f32_bits(1.0f), 4, 31337, 200, f, fc);
	ASSERT_ACL_OK(fresh(&ref, rs));
	EXPECT_TRUE(dev_same(o3, f, 200 * 4));
	EXPECT_EQ(400, dev_u64(c3));

	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(es));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	aclrtFree(o1);
	aclrtFree(o2);
	aclrtFree(o3);
	aclrtFree(f);
	aclrtFree(c1);
	aclrtFree(c2);
	aclrtFree(c3);
	aclrtFree(fc);
	aclrtFree(copy);
	aclrtFree(flag);
	aclrtFree(src);
	aclrtFree(para);
}

/*
 * A task captured with its parameters by value, updated with
 * randomParaAddr twice in a row: each update's parameters are read at its
 * own randomParaAddr as values (the task's nature as captured), never a
 * value there taken as an address; an update without randomParaAddr
 * after them keeps the last one's.
 */
TEST(para_addr_twice)
{
	char *o, *c, *f, *fc, *copy, *src, *p1, *p2;
	aclrtRandomNumTaskInfo t, ref;
	aclrtTaskUpdateInfo info;
	aclrtStream gs, rs, ms;
	uint32_t prm[4] = { 0 };
	uint64_t *flag;
	aclmdlRI m;

	NEED_DEVICE();
	ASSERT_NONNULL(o = dev_zero(RN * 4));
	ASSERT_NONNULL(f = dev_zero(RN * 4));
	ASSERT_NONNULL(c = dev_zero(16));
	ASSERT_NONNULL(fc = dev_zero(16));
	ASSERT_NONNULL(copy = dev_zero(64));
	ASSERT_NONNULL(flag = dev_zero(8));
	ASSERT_NONNULL(src = dev_zero(sizeof(t)));
	ASSERT_NONNULL(p1 = dev_zero(16));
	ASSERT_NONNULL(p2 = dev_zero(16));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));
	ASSERT_ACL_OK(capture_graph(gs, o, c, copy, flag, &m));
	ASSERT_NONNULL(ms = model_stream(m));

	/* first update: [10, 20) at p1 */
	prm[0] = f32_bits(10.0f);
	prm[2] = f32_bits(20.0f);
	ASSERT_ACL_OK(aclrtMemcpy(p1, 16, prm, 16, ACL_MEMCPY_HOST_TO_DEVICE));
	t = task(ACL_FLOAT, UNIFORM, 0, 0, 4, 4242, RN, o, c);
	t.randomParaAddr = p1;
	ASSERT_ACL_OK(put_update(src, &t, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, rs));
	ASSERT_ACL_OK(aclrtMemset(c, 16, 0, 16));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
	ref = task(ACL_FLOAT, UNIFORM, f32_bits(10.0f), f32_bits(20.0f), 4, 4242, RN, f, fc);
	ASSERT_ACL_OK(fresh(&ref, rs));
	EXPECT_TRUE(dev_same(o, f, RN * 4));

	/* second update: [30, 40) at p2, values again (p1 changed: not read any more) */
	prm[0] = f32_bits(30.0f);
	prm[2] = f32_bits(40.0f);
	ASSERT_ACL_OK(aclrtMemcpy(p2, 16, prm, 16, ACL_MEMCPY_HOST_TO_DEVICE));
	t.randomParaAddr = p2;
	ASSERT_ACL_OK(put_update(src, &t, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, rs));
	ASSERT_ACL_OK(aclrtMemset(p1, 16, 0, 16));
	ASSERT_ACL_OK(aclrtMemset(o, RN * 4, 0, RN * 4));
	ASSERT_ACL_OK(aclrtMemset(c, 16, 0, 16));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	EXPECT_ACL_OK(aclrtSynchronizeStream(rs));
	ASSERT_ACL_OK(aclrtMemset(fc, 16, 0, 16));
	ref = task(ACL_FLOAT, UNIFORM, f32_bits(30.0f), f32_bits(40.0f), 4, 4242, RN, f, fc);
	ASSERT_ACL_OK(fresh(&ref, rs));
	EXPECT_TRUE(dev_same(o, f, RN * 4));
	EXPECT_EQ(RN, dev_u64(c));

	/* an update without randomParaAddr: the parameters stay p2's */
	t.randomParaAddr = NULL;
	ASSERT_ACL_OK(put_update(src, &t, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, rs));
	ASSERT_ACL_OK(aclrtMemset(o, RN * 4, 0, RN * 4));
	ASSERT_ACL_OK(aclrtMemset(c, 16, 0, 16));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	EXPECT_ACL_OK(aclrtSynchronizeStream(rs));
	EXPECT_TRUE(dev_same(o, f, RN * 4));

	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	aclrtFree(o);
	aclrtFree(f);
	aclrtFree(c);
	aclrtFree(fc);
	aclrtFree(copy);
	aclrtFree(flag);
	aclrtFree(src);
	aclrtFree(p1);
	aclrtFree(p2);
}

/*
 * The update reads its struct after the exec stream's earlier work, but
 * is no synchronize: a task error of that work stays the stream's (the
 * next synchronize answers it), and a global capture of another stream
 * does not refuse it (no synchronous call).
 */
TEST(update_keeps_exec_errors)
{
	char *o, *c, *f, *fc, *copy, *src;
	aclrtRandomNumTaskInfo t, bad;
	aclrtTaskUpdateInfo info;
	aclrtStream gs, es, cs, ms;
	uint64_t *flag;
	aclmdlRI m, cm = NULL;
	void *res;

	NEED_DEVICE();
	ASSERT_NONNULL(o = dev_zero(RN * 4));
	ASSERT_NONNULL(f = dev_zero(RN * 4));
	ASSERT_NONNULL(c = dev_zero(16));
	ASSERT_NONNULL(fc = dev_zero(16));
	ASSERT_NONNULL(copy = dev_zero(64));
	ASSERT_NONNULL(flag = dev_zero(8));
	ASSERT_NONNULL(src = dev_zero(sizeof(t)));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&res, 2 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&es));
	ASSERT_ACL_OK(aclrtCreateStream(&cs));
	ASSERT_ACL_OK(capture_graph(gs, o, c, copy, flag, &m));
	ASSERT_NONNULL(ms = model_stream(m));
	t = task(ACL_FLOAT, UNIFORM, f32_bits(1.0f), f32_bits(2.0f), 4, 5, RN, f, fc);
	ASSERT_ACL_OK(put_update(src, &t, &info));

	/* a task of es faults (its counter where nothing is mapped) before the update */
	bad = task(ACL_FLOAT, UNIFORM, f32_bits(1.0f), f32_bits(2.0f), 4, 5, 16, o, res);
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&bad, es, NULL));
	EXPECT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, es));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(es));
	npu_expect_dma_faults(false);
	ASSERT_ACL_OK(aclrtSynchronizeStream(es));

	/* a global capture of another stream meanwhile */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(cs, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, es));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(cs, &cm));
	if (cm)
		ASSERT_ACL_OK(aclmdlRIDestroy(cm));
	ASSERT_ACL_OK(aclrtSynchronizeStream(es));

	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(es));
	ASSERT_ACL_OK(aclrtDestroyStream(cs));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(res));
	aclrtFree(o);
	aclrtFree(f);
	aclrtFree(c);
	aclrtFree(fc);
	aclrtFree(copy);
	aclrtFree(flag);
	aclrtFree(src);
}

/* A built model's random task (aclmdlRIBuildBegin, BindStream): its model stream names it as well. */
TEST(built_model_task)
{
	char *o1, *o2, *c1, *c2, *f, *fc, *src;
	aclrtRandomNumTaskInfo t;
	aclrtTaskUpdateInfo info;
	aclrtStream bs, rs, ms;
	aclmdlRI m;

	NEED_DEVICE();
	ASSERT_NONNULL(o1 = dev_zero(RN * 4));
	ASSERT_NONNULL(o2 = dev_zero(RN * 4));
	ASSERT_NONNULL(f = dev_zero(RN * 4));
	ASSERT_NONNULL(c1 = dev_zero(16));
	ASSERT_NONNULL(c2 = dev_zero(16));
	ASSERT_NONNULL(fc = dev_zero(16));
	ASSERT_NONNULL(src = dev_zero(sizeof(t)));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bs, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(m, bs, 0));
	t = task(ACL_INT32, UNIFORM, 0, 1000, 4, 1, RN, o1, c1);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, bs, NULL));
	ASSERT_ACL_OK(aclmdlRIEndTask(m, bs));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(m, NULL));
	ASSERT_NONNULL(ms = model_stream(m));

	t = task(ACL_INT32, UNIFORM, 0, 0, 4, 2, RN, o2, c2);
	ASSERT_ACL_OK(put_update(src, &t, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, rs));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
	EXPECT_TRUE(dev_zeroed(o1, RN * 4));
	EXPECT_EQ(0, dev_u64(c1));
	t = task(ACL_INT32, UNIFORM, 0, 1000, 4, 2, RN, f, fc);
	ASSERT_ACL_OK(fresh(&t, rs));
	EXPECT_TRUE(dev_same(o2, f, RN * 4));
	EXPECT_EQ(RN, dev_u64(c2));

	ASSERT_ACL_OK(aclmdlRIUnbindStream(m, bs));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(bs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	aclrtFree(o1);
	aclrtFree(o2);
	aclrtFree(f);
	aclrtFree(c1);
	aclrtFree(c2);
	aclrtFree(fc);
	aclrtFree(src);
}

TEST_HARNESS_MAIN
