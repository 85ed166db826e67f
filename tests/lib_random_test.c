// SPDX-License-Identifier: MIT
/*
 * libacl: aclrtRandomNumAsync - the vendor's codes for bad input, in its
 * order, with nothing queued; the vendor example's sequence of tasks on
 * one counter; reproducibility from seed and counter; values given by
 * address read in stream order; randomParaAddr; what the device cannot
 * reach faults; tasks captured into a graph, replayed and rebuilt. (The
 * draws bit for bit: npu_random_test.) Skips without /dev/npu0.
 */
#include <math.h>
#include <stdint.h>

#include "float_bits.h"
#include "lib_util.h"
#include "lib_random.h"

static void get_counter(const void *ctr, uint64_t c[2])
{
	ASSERT_ACL_OK(aclrtMemcpy(c, 16, ctr, 16, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* The vendor's codes, acl layer (100000) before the runtime's (107xxx), and nothing queued. */
TEST(bad_input)
{
	aclrtRandomNumTaskInfo good, t;
	aclrtStream st, gone;
	uint64_t c[2];
	char *out, *ctr;
	int x;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&ctr, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(ctr, 16, 0, 16));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&gone));
	ASSERT_ACL_OK(aclrtDestroyStream(gone));
	good = task(ACL_FLOAT, UNIFORM, f32_bits(0), f32_bits(1), 4, 1, 16, out, ctr);

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(NULL, st, NULL));
	EXPECT_NONNULL(strstr(aclGetRecentErrMsg() ?: "", "aclrtRandomNumAsync: taskInfo must not be NULL"));
	t = good;
	t.dataType = ACL_DOUBLE;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, st, NULL));
	t.dataType = ACL_INT16;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, st, NULL));
	/* the type before the stream, the stream before reserve */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&t, gone, &x));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRandomNumAsync(&good, gone, &x));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&good, st, &x));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&good, NULL, &x));
	/* reserve before the stream's context, as the vendor's decorator checks it first */
	{
		aclrtContext mine, other;
		aclrtStream theirs;

		ASSERT_ACL_OK(aclrtGetCurrentContext(&mine));
		ASSERT_ACL_OK(aclrtCreateContext(&other, 0));
		ASSERT_ACL_OK(aclrtCreateStream(&theirs));
		ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&good, theirs, &x));
		EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRandomNumAsync(&good, theirs, NULL));
		ASSERT_ACL_OK(aclrtSetCurrentContext(other));
		ASSERT_ACL_OK(aclrtDestroyStream(theirs));
		ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
		ASSERT_ACL_OK(aclrtDestroyContext(other));
	}
	t = good;
	t.randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)4;
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	/* the runtime's codes are the last error, the acl layer's are not */
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(NULL, st, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	t = good;
	t.dataType = ACL_INT32;
	t.randomNumFuncParaInfo.funcType = NORMAL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t.randomNumFuncParaInfo.funcType = DROPOUT;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t = good;
	t.randomCounterAddr = NULL;
	t.randomResultAddr = NULL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t = good;
	t.randomResultAddr = NULL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	/* seed, num, then the parameters: isAddr 0 or 1, size 1..8 (the type's size for a value) */
	t = good;
	t.randomSeed.isAddr = 2;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t = good;
	t.randomSeed.size = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t = good;
	t.randomNum.size = 9;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t = good;
	t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = 8;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t = good;
	t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.isAddr = 3;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t = task(ACL_FLOAT16, NORMAL, 0x3c00, 0x3c00, 4, 1, 16, out, ctr);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	t = task(ACL_FLOAT16, DROPOUT, 0x3c00, 0, 2, 1, 16, out, ctr);
	t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation.isAddr = 2;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, st, NULL));
	/* nothing was queued: the counter has not moved; rsv and the second parameter of DROPOUT are not looked at */
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	get_counter(ctr, c);
	EXPECT_EQ(0, c[0]);
	t = task(ACL_FLOAT16, DROPOUT, 0x3c00, 0, 2, 1, 16, out, ctr);
	memset(t.rsv, 0xa5, sizeof(t.rsv));
	t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.isAddr = 7;
	EXPECT_ACL_OK(aclrtRandomNumAsync(&t, st, NULL));
	EXPECT_ACL_OK(aclrtRandomNumAsync(&good, st, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	get_counter(ctr, c);
	EXPECT_EQ(32, c[0]);
	EXPECT_EQ(ACL_FLOAT, good.dataType);
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(out));
	ASSERT_ACL_OK(aclrtFree(ctr));
}

/*
 * The vendor example's tasks in turn on one stream and one counter, the
 * default stream too: each continues the sequence, and the numbers lie
 * where their distribution puts them.
 */
TEST(example_sequence)
{
	const uint64_t num = 128;
	aclrtRandomNumTaskInfo t;
	union {
		float f[128];
		uint16_t h[128];
		int32_t i[128];
		uint8_t b[16];
	} r;
	aclrtStream st;
	uint64_t c[2];
	char *out, *ctr;
	float mean = 0;
	int i, kept = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, num * 8, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&ctr, 16, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(ctr, 16, 0, 16));
	ASSERT_ACL_OK(aclrtCreateStream(&st));

	t = task(ACL_FLOAT, NORMAL, f32_bits(3.0f), f32_bits(2.0f), 4, 0, num, out, ctr);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, st, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	ASSERT_ACL_OK(aclrtMemcpy(&r, sizeof(r), out, num * 4, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 128; i++)
		mean += r.f[i] / 128;
	EXPECT_LT(fabsf(mean - 3.0f), 0.6f);	/* 3.4 standard errors */

	t = task(ACL_BF16, TNORMAL, 0x3f80, 0x4000, 2, 0, num, out, ctr);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, st, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	ASSERT_ACL_OK(aclrtMemcpy(&r, sizeof(r), out, num * 2, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 128; i++) {
		uint32_t u = (uint32_t)r.h[i] << 16;
		float v;

		memcpy(&v, &u, 4);
		ASSERT_TRUE(v >= -3.0f && v <= 5.0f);
	}

	t = task(ACL_FLOAT16, UNIFORM, 0x3c00, 0x4000, 2, 0, num, out, ctr);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(&r, sizeof(r), out, num * 2, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 128; i++)
		ASSERT_TRUE(r.h[i] >= 0x3c00 && r.h[i] <= 0x4000);

	t = task(ACL_INT32, UNIFORM, 1, 100, 4, 0, num, out, ctr);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, st, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	ASSERT_ACL_OK(aclrtMemcpy(&r, sizeof(r), out, num * 4, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 128; i++)
		ASSERT_TRUE(r.i[i] >= 1 && r.i[i] < 100);

	t = task(ACL_FLOAT, DROPOUT, f32_bits(0.4f), 0, 4, 0, num, out, ctr);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, st, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	ASSERT_ACL_OK(aclrtMemcpy(&r, sizeof(r), out, 16, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 128; i++)
		kept += r.b[i / 8] >> (i % 8) & 1;
	EXPECT_TRUE(kept > 128 * 6 / 10 - 20 && kept < 128 * 6 / 10 + 20);

	get_counter(ctr, c);
	EXPECT_EQ(5 * num, c[0]);
	EXPECT_EQ(0, c[1]);
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(out));
	ASSERT_ACL_OK(aclrtFree(ctr));
}

/* Seed and counter decide: the same again is the same numbers, another seed other ones. */
TEST(reproducible)
{
	static uint32_t a[1000], b[1000];
	aclrtRandomNumTaskInfo t;
	char *out, *ctr;
	int same = 0, i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, 4000, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&ctr, 16, ACL_MEM_MALLOC_NORMAL_ONLY));
	t = task(ACL_UINT32, UNIFORM, 0, 0xffffffff, 4, 12345, 1000, out, ctr);
	ASSERT_ACL_OK(aclrtMemset(ctr, 16, 0, 16));
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(a, 4000, out, 4000, ACL_MEMCPY_DEVICE_TO_HOST));
	ASSERT_ACL_OK(aclrtMemset(ctr, 16, 0, 16));
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(b, 4000, out, 4000, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(a, b, 4000));
	/* the counter moved on: the next task draws other numbers */
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(b, 4000, out, 4000, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 1000; i++)
		same += a[i] == b[i];
	EXPECT_LT(same, 3);
	para(&t.randomSeed, 54321, 8);
	ASSERT_ACL_OK(aclrtMemset(ctr, 16, 0, 16));
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(b, 4000, out, 4000, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0, same = 0; i < 1000; i++)
		same += a[i] == b[i];
	EXPECT_LT(same, 3);
	ASSERT_ACL_OK(aclrtFree(out));
	ASSERT_ACL_OK(aclrtFree(ctr));
}

/*
 * Values by address are read when the task runs: a count and a minimum
 * copied there by the task before it on the stream. randomParaAddr
 * receives the parameters (a value, an address) at the call.
 */
TEST(values_by_address_and_para_addr)
{
	int64_t vals[2] = { 1000, 64 }, got[64], pa[2];
	aclrtRandomNumTaskInfo t;
	aclrtStream st;
	char *out, *ctr, *dv, *pd;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, 1024, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&ctr, 16, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&dv, 16, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&pd, 16, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(ctr, 16, 0, 16));
	ASSERT_ACL_OK(aclrtMemset(dv, 16, 0, 16));
	ASSERT_ACL_OK(aclrtMemset(out, 1024, 0xff, 1024));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	t = task(ACL_INT64, UNIFORM, 0, 2000, 8, 7, 0, out, ctr);
	para_addr(&t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, dv);
	para_addr(&t.randomNum, dv + 8);
	t.randomParaAddr = pd;
	/* the values land in dv only on the stream, before the task */
	ASSERT_ACL_OK(aclrtMemcpyAsync(dv, 16, vals, 16, ACL_MEMCPY_HOST_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, st, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	ASSERT_ACL_OK(aclrtMemcpy(got, sizeof(got), out, sizeof(got), ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 64; i++)
		ASSERT_TRUE(got[i] >= 1000 && got[i] < 2000);
	ASSERT_ACL_OK(aclrtMemcpy(got, 8, out + 512, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, got[0]);
	ASSERT_ACL_OK(aclrtMemcpy(pa, 16, pd, 16, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ((int64_t)(uintptr_t)dv, pa[0]);
	EXPECT_EQ(2000, pa[1]);
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(out));
	ASSERT_ACL_OK(aclrtFree(ctr));
	ASSERT_ACL_OK(aclrtFree(dv));
	ASSERT_ACL_OK(aclrtFree(pd));
}

/* A result the device cannot reach (pageable memory) faults when the task runs, untouched. */
TEST(unreachable_result_faults)
{
	uint32_t *pg = malloc(4096);
	aclrtRandomNumTaskInfo t;
	uint64_t c[2];
	char *ctr;
	int i;

	NEED_DEVICE();
	ASSERT_NONNULL(pg);
	for (i = 0; i < 1024; i++)
		pg[i] = 5;
	ASSERT_ACL_OK(aclrtMalloc((void **)&ctr, 16, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(ctr, 16, 0, 16));
	t = task(ACL_UINT32, UNIFORM, 0, 10, 4, 1, 1024, pg, ctr);
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(NULL));
	npu_expect_dma_faults(false);
	for (i = 0; i < 1024; i++)
		ASSERT_EQ(5, pg[i]);
	get_counter(ctr, c);
	EXPECT_EQ(0, c[0]);
	ASSERT_ACL_OK(aclrtFree(ctr));
	free(pg);
}

/*
 * Managed memory as counter, value and result: the engine faults its
 * pages in as it reads the counter and the count, writes the numbers and
 * stores the counter (each phase going on after the fault), and the CPU
 * reads them at their address. The counter straddles two pages.
 */
TEST(managed_counter_values_and_result)
{
	const uint64_t n = 3000;
	aclrtRandomNumTaskInfo t;
	uint64_t *cnt, *ctr;
	int32_t *out;
	char *m;
	uint64_t i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&m, 4 * 4096, ACL_RT_MEM_ATTACH_GLOBAL));
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&out, n * 4, ACL_RT_MEM_ATTACH_GLOBAL));
	ctr = (uint64_t *)(m + 4096 - 8);
	cnt = (uint64_t *)(m + 3 * 4096);
	ctr[0] = 5;
	ctr[1] = 0;
	*cnt = n;
	t = task(ACL_INT32, UNIFORM, (uint32_t)-50, 50, 4, 77, 0, out, ctr);
	para_addr(&t.randomNum, cnt);
	ASSERT_ACL_OK(aclrtRandomNumAsync(&t, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	for (i = 0; i < n; i++)
		ASSERT_TRUE(out[i] >= -50 && out[i] < 50);
	EXPECT_EQ(5 + n, ctr[0]);
	EXPECT_EQ(0, ctr[1]);
	ASSERT_ACL_OK(aclrtFree(out));
	ASSERT_ACL_OK(aclrtFree(m));
}

/* An address range that wraps past 2^64 is refused at the call. */
TEST(wrapping_counter_refused)
{
	aclrtRandomNumTaskInfo t;
	char *out;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	t = task(ACL_FLOAT, UNIFORM, 0, 0x3f800000, 4, 1, 4, out, (void *)(uintptr_t)-8);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtFree(out));
}

#define RN	1000	/* values of a captured task */
#define RUNS	3

/* The two tasks of a graph on @s, uniform then normal, on counter @ctr into @u and @n. */
static aclError two_tasks(aclrtStream s, float *u, float *n, void *ctr)
{
	aclrtRandomNumTaskInfo t = task(ACL_FLOAT, UNIFORM, f32_bits(-2.0f), f32_bits(5.0f), 4, 777, RN, u, ctr);
	aclError e = aclrtRandomNumAsync(&t, s, NULL);

	if (!e) {
		t = task(ACL_FLOAT, NORMAL, f32_bits(1.0f), f32_bits(3.0f), 4, 4242, RN, n, ctr);
		e = aclrtRandomNumAsync(&t, s, NULL);
	}
	return e;
}

/* Overwrite the stack below the caller's frame: what the calls before left there is gone. */
static void __attribute__((noinline)) scribble_stack(void)
{
	volatile unsigned char buf[16384];
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = 0xa5;
}

/* @dev (@len bytes) equals @ref on the device; the run named in a failure. */
static int same_on_device(const void *dev, const void *ref, size_t len, int run)
{
	static char a[RN * 4], b[RN * 4];

	if (aclrtMemcpy(a, sizeof(a), dev, len, ACL_MEMCPY_DEVICE_TO_HOST) ||
	    aclrtMemcpy(b, sizeof(b), ref, len, ACL_MEMCPY_DEVICE_TO_HOST))
		return 0;
	if (!memcmp(a, b, len))
		return 1;
	fprintf(stderr, "# run %d: the graph's numbers differ from the fresh task's\n", run);
	return 0;
}

/*
 * Random tasks captured into a graph (issue 23): each replay draws what
 * the same tasks launched anew draw, on a counter of their own started
 * alike - the counter moves on with each replay as with each launch (the
 * vendor's: the task reads and stores it when it runs). The parameters
 * are the recording's own: the stack the calls left them on is
 * overwritten before the capture ends, and again before aclmdlRIUpdate
 * makes the driver models anew (a value write of the graph changed).
 */
TEST(captured_tasks_replay)
{
	float *mu, *mn, *fu, *fn;
	aclmdlRITaskParams p;
	aclmdlRITask tasks[4];
	aclrtStream gs, rs, ms;
	uint64_t c[2], d[2], *flag;
	uint32_t n;
	char *mctr, *fctr;
	aclmdlRI m;
	int run;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&mu, RN * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&mn, RN * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&fu, RN * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&fn, RN * 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&mctr, 16, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&fctr, 16, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&flag, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mctr, 16, 0, 16));
	ASSERT_ACL_OK(aclrtMemset(fctr, 16, 0, 16));
	ASSERT_ACL_OK(aclrtMemset(mu, RN * 4, 0, RN * 4));
	ASSERT_ACL_OK(aclrtCreateStream(&gs));
	ASSERT_ACL_OK(aclrtCreateStream(&rs));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(gs, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(two_tasks(gs, mu, mn, mctr));
	ASSERT_ACL_OK(aclrtValueWrite(flag, 1, 0, gs));
	scribble_stack();
	ASSERT_ACL_OK(aclmdlRICaptureEnd(gs, &m));
	/* nothing ran at capture */
	get_counter(mctr, c);
	EXPECT_EQ(0, c[0]);

	for (run = 0; run < 2 * RUNS; run++) {
		if (run == RUNS) {
			ms = NULL;
			n = 1;
			ASSERT_ACL_OK(aclmdlRIGetStreams(m, &ms, &n));
			n = 4;
			ASSERT_ACL_OK(aclmdlRIGetTasksByStream(ms, tasks, &n));
			ASSERT_EQ(3, n);
			memset(&p, 0, sizeof(p));
			p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
			p.valueWriteTaskParams.devAddr = flag;
			p.valueWriteTaskParams.value = 2;
			ASSERT_ACL_OK(aclmdlRITaskSetParams(tasks[2], &p));
			scribble_stack();
			ASSERT_ACL_OK(aclmdlRIUpdate(m));
		}
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, rs));
		ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
		ASSERT_ACL_OK(two_tasks(rs, fu, fn, fctr));
		ASSERT_ACL_OK(aclrtSynchronizeStream(rs));
		EXPECT_TRUE(same_on_device(mu, fu, RN * 4, run));
		EXPECT_TRUE(same_on_device(mn, fn, RN * 4, run));
		get_counter(mctr, c);
		get_counter(fctr, d);
		EXPECT_EQ(2 * RN * (uint64_t)(run + 1), c[0]);
		EXPECT_EQ(d[0], c[0]);
		EXPECT_EQ(d[1], c[1]);
		ASSERT_ACL_OK(aclrtMemcpy(c, 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(run < RUNS ? 1 : 2, c[0]);
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(gs));
	ASSERT_ACL_OK(aclrtDestroyStream(rs));
	ASSERT_ACL_OK(aclrtFree(mu));
	ASSERT_ACL_OK(aclrtFree(mn));
	ASSERT_ACL_OK(aclrtFree(fu));
	ASSERT_ACL_OK(aclrtFree(fn));
	ASSERT_ACL_OK(aclrtFree(mctr));
	ASSERT_ACL_OK(aclrtFree(fctr));
	ASSERT_ACL_OK(aclrtFree(flag));
}

TEST_HARNESS_MAIN
