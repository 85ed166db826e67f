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
 * A captured (and a built) model's kernel task updated with
 * ACL_RT_UPDATE_AIC_AIV_TASK: the binary's kernel of the function entry at
 * funcEntryAddr over the blocks at blockDimAddr, seen in the runs' data;
 * the bad inputs with their codes, the task as it was after each.
 * Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>

#include "float_bits.h"
#include "lib_util.h"
#include "lib_random.h"

#define RN	1024		/* values of the captured task */

/* the kernels of the AI-core updates, embedded (lib/lib.mk passes the binary's path) */
asm(".pushsection .rodata.lib_task_update,\"a\",@progbits\n\t.balign 64\n"
    "kern_start:\n\t.incbin \"" LIB_TASK_UPDATE_NPUBIN "\"\nkern_end:\n\t.popsection");
extern const unsigned char kern_start[], kern_end[];

#define KERN_LEN	((size_t)(kern_end - kern_start))

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
	return capture_finish(gs, e, m);
}

/* The current context's: what a thread without one answers. */
struct noctx {
	aclrtStream ms, es;
	aclrtTaskUpdateInfo *info;
	aclError ret;
};

static void *update_without_context(void *arg)
{
	struct noctx *a = arg;

	a->ret = aclrtTaskUpdateAsync(a->ms, 0, a->info, a->es);
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

	/* AI-core tasks: the vendor's checks up to the streams bound (aic_bad_input: the rest) */
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

/* blocks_op(out, v) and twice_op(out, v): out[b] = v (2 * v) + numBlocks for each block b */
struct blocks_args {
	void *out;
	int64_t v;
};

/* Device memory of the AI-core tests: 16 output words, the entry and block words, a flag, a gate. */
struct kmem {
	int64_t *out;
	uint64_t *key, *blocks, *flag, *gate;
};

static void kmem_get(struct kmem *k)
{
	char *p;

	ASSERT_NONNULL(p = dev_zero(4096));
	*k = (struct kmem){ .out = (int64_t *)p, .key = (uint64_t *)(p + 1024), .blocks = (uint64_t *)(p + 1032),
			    .flag = (uint64_t *)(p + 2048), .gate = (uint64_t *)(p + 2056) };
}

/* @k's entry and block words hold @key and @blocks; @info names them and binary @h. */
static aclError put_aic(const struct kmem *k, aclrtBinHandle h, uint64_t key, uint64_t blocks, aclrtTaskUpdateInfo *info)
{
	aclError e;

	memset(info, 0, sizeof(*info));
	info->id = ACL_RT_UPDATE_AIC_AIV_TASK;
	info->val.aicAivTaskAttr.binHandle = h;
	info->val.aicAivTaskAttr.funcEntryAddr = k->key;
	info->val.aicAivTaskAttr.blockDimAddr = k->blocks;
	e = aclrtMemcpy(k->key, 8, &key, 8, ACL_MEMCPY_HOST_TO_DEVICE);
	return e ? e : aclrtMemcpy(k->blocks, 8, &blocks, 8, ACL_MEMCPY_HOST_TO_DEVICE);
}

/* @out holds @blocks words of @v, then zeros up to 16 words. */
static int out_is(const int64_t *out, uint32_t blocks, int64_t v)
{
	int64_t o[16];
	uint32_t i;

	if (aclrtMemcpy(o, sizeof(o), out, sizeof(o), ACL_MEMCPY_DEVICE_TO_HOST))
		return 0;
	for (i = 0; i < 16; i++)
		if (o[i] != (i < blocks ? v : 0))
			return 0;
	return 1;
}

/* A run of @m on @s, its output cleared first, waited for. */
static aclError run(aclmdlRI m, aclrtStream s, const struct kmem *k)
{
	aclError e = aclrtMemset(k->out, 128, 0, 128);

	if (!e)
		e = aclmdlRIExecuteAsync(m, s);
	return e ? e : aclrtSynchronizeStream(s);
}

/* The graph of the AI-core tests: task 0 twice_op @f over 2 blocks into k->out (v 100), task 1 a value write. */
static aclError capture_kernel(aclrtStream gs, aclrtFuncHandle f, const struct kmem *k, aclmdlRI *m)
{
	struct blocks_args a = { .out = k->out, .v = 100 };
	aclError e;

	e = aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
	if (e)
		return e;
	e = aclrtLaunchKernelWithHostArgs(f, 2, gs, NULL, &a, sizeof(a), NULL, 0);
	if (!e)
		e = aclrtValueWrite(k->flag, 1, 0, gs);
	return capture_finish(gs, e, m);
}

/* @task's kernel: its function and blocks. */
static int kernel_is(aclmdlRITask task, aclrtFuncHandle f, uint32_t blocks)
{
	aclmdlRITaskParams p;

	memset(&p, 0, sizeof(p));
	if (aclmdlRITaskGetParams(task, &p))
		return 0;
	return p.type == ACL_MODEL_RI_TASK_KERNEL && p.kernelTaskParams.funcHandle == f &&
	       p.kernelTaskParams.numBlocks == blocks;
}

/*
 * A captured kernel task (twice_op) updated: the function of entry 0
 * (blocks_op, the binary's first) over 4 blocks, then over 3, the runs
 * after each writing what that launch writes, with the task's arguments;
 * execStream the model's own stream, then a stream bound to a model being
 * built. A built model's kernel task updated the same way.
 */
TEST(aic_update)
{
	aclrtFuncHandle bf, tf;
	aclrtTaskUpdateInfo info;
	aclrtStream gs, rs, bs, ps, ms, bms;
	aclmdlRITask tasks[2];
	aclrtBinHandle h;
	aclmdlRI m, bm, em;
	struct blocks_args a;
	struct kmem k;
	char name[32];
	uint32_t n;

	NEED_DEVICE();
	kmem_get(&k);
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "twice_op", &bf));
	ASSERT_ACL_OK(aclrtBinaryGetFunctionByEntry(h, 0, &tf));
	ASSERT_ACL_OK(aclrtGetFunctionName(tf, sizeof(name), name));
	ASSERT_EQ(0, strcmp(name, "blocks_op"));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bs, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(capture_kernel(gs, bf, &k, &m));
	ASSERT_NONNULL(ms = model_stream(m));
	n = 2;
	ASSERT_ACL_OK(aclmdlRIGetTasksByStream(ms, tasks, &n));
	ASSERT_EQ(2U, n);
	ASSERT_ACL_OK(run(m, rs, &k));
	EXPECT_TRUE(out_is(k.out, 2, 202));
	EXPECT_TRUE(kernel_is(tasks[0], bf, 2));

	/* entry 0 over 4 blocks, on the model's own stream */
	ASSERT_ACL_OK(put_aic(&k, h, 0, 4, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, ms));
	EXPECT_TRUE(kernel_is(tasks[0], tf, 4));
	ASSERT_ACL_OK(run(m, rs, &k));
	EXPECT_TRUE(out_is(k.out, 4, 104));
	EXPECT_EQ(1U, dev_u64(k.flag));
	/* the runs keep it */
	ASSERT_ACL_OK(run(m, gs, &k));
	EXPECT_TRUE(out_is(k.out, 4, 104));

	/* over 3 blocks, on a stream bound to a model being built */
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&em, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(em, ps, 0));
	ASSERT_ACL_OK(put_aic(&k, h, 0, 3, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &info, ps));
	ASSERT_ACL_OK(aclmdlRIUnbindStream(em, ps));
	ASSERT_ACL_OK(aclmdlRIDestroy(em));
	EXPECT_TRUE(kernel_is(tasks[0], tf, 3));
	ASSERT_ACL_OK(run(m, rs, &k));
	EXPECT_TRUE(out_is(k.out, 3, 103));

	/* a built model's kernel task: twice_op over 1 block (v 7), then entry 0 over 5 */
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&bm, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(bm, bs, 0));
	a = (struct blocks_args){ .out = k.out, .v = 7 };
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(bf, 1, bs, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclmdlRIEndTask(bm, bs));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(bm, NULL));
	ASSERT_NONNULL(bms = model_stream(bm));
	ASSERT_ACL_OK(run(bm, rs, &k));
	EXPECT_TRUE(out_is(k.out, 1, 15));
	ASSERT_ACL_OK(put_aic(&k, h, 0, 5, &info));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(bms, 0, &info, ms));
	ASSERT_ACL_OK(run(bm, rs, &k));
	EXPECT_TRUE(out_is(k.out, 5, 12));
	/* the captured graph's task as its last update left it */
	ASSERT_ACL_OK(run(m, rs, &k));
	EXPECT_TRUE(out_is(k.out, 3, 103));

	ASSERT_ACL_OK(aclmdlRIUnbindStream(bm, bs));
	ASSERT_ACL_OK(aclmdlRIDestroy(bm));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	ASSERT_ACL_OK(aclrtDestroyStream(bs));
	ASSERT_ACL_OK(aclrtDestroyStream(ps));
	aclrtFree(k.out);
}

/*
 * The AI-core update's bad inputs, each with its code and the task as it
 * was after it (the runs write twice_op's 2 blocks): the streams, no
 * current context, binHandle no loaded binary (bogus, unloaded), the
 * target no kernel task, no kernel of the entry, a block count out of
 * range, a run queued and not done, changes waiting for aclmdlRIUpdate,
 * the model destroyed.
 */
TEST(aic_bad_input)
{
	aclrtTaskUpdateInfo info, good;
	aclrtStream gs, rs, es, ms;
	aclmdlRITaskParams p;
	aclmdlRITask tasks[2];
	aclrtBinHandle h, gone;
	aclrtFuncHandle bf;
	struct noctx nc;
	struct kmem k;
	pthread_t th;
	aclmdlRI m;
	uint32_t n;
	int bogus;

	NEED_DEVICE();
	kmem_get(&k);
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &gone));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(gone));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "twice_op", &bf));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));
	ASSERT_ACL_OK(aclrtCreateStream(&es));
	ASSERT_ACL_OK(capture_kernel(gs, bf, &k, &m));
	ASSERT_NONNULL(ms = model_stream(m));
	ASSERT_ACL_OK(put_aic(&k, h, 0, 4, &good));

	/* the streams: handles, NULL, execStream bound to no model, taskStream no model's */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync((aclrtStream)&bogus, 0, &good, ms));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(ms, 0, &good, (aclrtStream)&bogus));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(NULL, 0, &good, ms));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &good, NULL));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtTaskUpdateAsync(ms, 0, &good, es));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtTaskUpdateAsync(es, 0, &good, ms));
	/* no current context */
	nc = (struct noctx){ .ms = ms, .es = ms, .info = &good, .ret = 0 };
	ASSERT_EQ(0, pthread_create(&th, NULL, update_without_context, &nc));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, nc.ret);
	/* binHandle: no binary, an unloaded one, a function handle */
	info = good;
	info.val.aicAivTaskAttr.binHandle = &bogus;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(ms, 0, &info, ms));
	info.val.aicAivTaskAttr.binHandle = gone;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(ms, 0, &info, ms));
	info.val.aicAivTaskAttr.binHandle = bf;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(ms, 0, &info, ms));
	/* the target: the value write, a task id past the tasks */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 1, &good, ms));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 2, &good, ms));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, UINT32_MAX, &good, ms));
	/* the values: no kernel of entry 1, block counts 0, 65536 and 2 + 2^32 (8 bytes read) */
	ASSERT_ACL_OK(put_aic(&k, h, 1, 4, &info));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, ms));
	ASSERT_ACL_OK(put_aic(&k, h, 0, 0, &info));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, ms));
	ASSERT_ACL_OK(put_aic(&k, h, 0, 65536, &info));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, ms));
	ASSERT_ACL_OK(put_aic(&k, h, 0, 2 + (1ULL << 32), &info));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(ms, 0, &info, ms));
	n = 2;
	ASSERT_ACL_OK(aclmdlRIGetTasksByStream(ms, tasks, &n));
	EXPECT_TRUE(kernel_is(tasks[0], bf, 2));
	ASSERT_ACL_OK(run(m, rs, &k));
	EXPECT_TRUE(out_is(k.out, 2, 202));

	/* a run of the model queued and not done (held by a value wait): 107040, it runs the old task */
	ASSERT_ACL_OK(put_aic(&k, h, 0, 4, &good));
	ASSERT_ACL_OK(aclrtMemset(k.out, 128, 0, 128));
	ASSERT_ACL_OK(aclrtValueWait(k.gate, 1, 0, rs));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclrtTaskUpdateAsync(ms, 0, &good, ms));
	ASSERT_ACL_OK(aclrtValueWrite(k.gate, 1, 0, es));
	ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
	EXPECT_TRUE(out_is(k.out, 2, 202));

	/* changes that wait for aclmdlRIUpdate: 107040 until it took them */
	memset(&p, 0, sizeof(p));
	p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
	p.valueWriteTaskParams.devAddr = k.flag;
	p.valueWriteTaskParams.value = 2;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(tasks[1], &p));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclrtTaskUpdateAsync(ms, 0, &good, ms));
	EXPECT_TRUE(kernel_is(tasks[0], bf, 2));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(aclrtTaskUpdateAsync(ms, 0, &good, ms));
	ASSERT_ACL_OK(run(m, rs, &k));
	EXPECT_TRUE(out_is(k.out, 4, 104));
	EXPECT_EQ(2U, dev_u64(k.flag));

	/* the model destroyed: its stream is no handle any more */
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync(ms, 0, &good, es));

	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	ASSERT_ACL_OK(aclrtDestroyStream(es));
	aclrtFree(k.out);
}

TEST_HARNESS_MAIN
