// SPDX-License-Identifier: MIT
/*
 * libacl: task groups of a capture - aclmdlRICaptureTaskGrpBegin/End and
 * aclmdlRICaptureTaskUpdateBegin/End: every call's bad input with the
 * vendor's codes; the state machine of a stream (SAMPLE while capturing,
 * UPDATE on a stream not captured); the tasks a group refuses (the vendor
 * takes kernel launches only: 507009, the capture invalidated), a task of
 * another stream of the capture while a group is open (107034), a group
 * left open at CaptureEnd (107033); an update window that refuses every
 * task but kernel launches (507009) and runs nothing; the handle gone
 * with its model; a stream destroyed mid-update frees its group. Kernel
 * launches in groups (the kernels of tests/ascendc/lib_kargs_kern.cpp):
 * recorded and run, replaced by an update's launches (arguments, blocks,
 * function, host or device block) that the next runs compute with, the
 * counts and kinds an update takes, runs queued before and after an
 * update, updates racing with another thread's runs. Skips without
 * /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib_util.h"

/* the kernels of lib_kargs_test, embedded (lib/lib.mk passes the binary's path) */
asm(".pushsection .rodata.lib_kargs,\"a\",@progbits\n\t.balign 64\n"
    "kern_start:\n\t.incbin \"" LIB_KARGS_NPUBIN "\"\nkern_end:\n\t.popsection");
extern const unsigned char kern_start[], kern_end[];

#define KERN_LEN	((size_t)(kern_end - kern_start))

static uint64_t read_u64(const void *dev)
{
	uint64_t v = 0xdeadbeef;

	if (aclrtMemcpy(&v, 8, dev, 8, ACL_MEMCPY_DEVICE_TO_HOST))
		return 0xbad;
	return v;
}

/* A captured model on @st with an empty task group: its handle into *@g. */
static aclmdlRI model_with_group(aclrtStream st, uint64_t *w, aclrtTaskGrp *g)
{
	aclmdlRI m = NULL;

	*g = NULL;
	if (aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED) ||
	    aclrtValueWrite(w, 7, 0, st) || aclmdlRICaptureTaskGrpBegin(st) ||
	    aclmdlRICaptureTaskGrpEnd(st, g) || aclrtValueWrite(w + 1, 8, 0, st) ||
	    aclmdlRICaptureEnd(st, &m))
		return NULL;
	return m;
}

TEST(bad_input)
{
	aclrtStream st, up, gone, bs;
	aclrtTaskGrp g = NULL, g2 = (aclrtTaskGrp)0x1;
	aclmdlRI m, built;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&up));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bs, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStream(&gone));
	ASSERT_ACL_OK(aclrtDestroyStream(gone));

	/* the acl layer's NULL checks: 100000 */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpBegin(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpEnd(NULL, &g));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpEnd(st, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(NULL, g2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(st, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateEnd(NULL));
	/* a dead stream: 107017 */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskGrpBegin(gone));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskGrpEnd(gone, &g));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(gone, g2));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateEnd(gone));
	/* a stream not captured: 107029 for the group calls */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpBegin(st));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpEnd(st, &g));
	/* the update calls: a handle that is no group (npu's 107017), no update under way (107033) */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(up, g2));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskUpdateEnd(up));

	/* capturing: GrpEnd without Begin, Begin twice, Update calls on it (107027) */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	g = g2;
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskGrpEnd(st, &g));
	EXPECT_NULL(g);
	EXPECT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskGrpBegin(st));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureTaskUpdateBegin(st, g2));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureTaskUpdateEnd(st));
	/* GrpEnd on another stream (not captured) */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpEnd(up, &g));
	EXPECT_ACL_OK(aclmdlRICaptureTaskGrpEnd(st, &g));
	EXPECT_NONNULL(g);
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskGrpEnd(st, &g2));
	EXPECT_NULL(g2);
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));

	/* a stream bound to a model being built: 107029 for groups, 107005 for updates */
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&built, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(built, bs, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpBegin(bs));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRICaptureTaskUpdateBegin(bs, g));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRICaptureTaskUpdateEnd(bs));
	ASSERT_ACL_OK(aclmdlRIUnbindStream(built, bs));
	ASSERT_ACL_OK(aclmdlRIDestroy(built));

	/* update: twice on a stream, a group updated by another stream (107033) */
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskUpdateBegin(up, g));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskUpdateBegin(bs, g));
	/* an update stream cannot record a group while it updates */
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskUpdateEnd(up));
	/* the group is free again: another stream updates it */
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(bs, g));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(bs));

	/* the handle goes with its model */
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(up, g));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskUpdateEnd(up));

	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtDestroyStream(up));
	ASSERT_ACL_OK(aclrtDestroyStream(bs));
	ASSERT_ACL_OK(aclrtFree(w));
	ASSERT_ACL_OK(aclFinalize());
}

/* An empty group: captured, updated by nothing, the model runs as captured. */
TEST(empty_group_runs)
{
	aclrtStream st, up;
	aclrtTaskGrp g;
	aclmdlRI m;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&up));
	m = model_with_group(st, w, &g);
	ASSERT_NONNULL(m);
	ASSERT_NONNULL(g);
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, st));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	EXPECT_EQ(7U, read_u64(w));
	EXPECT_EQ(8U, read_u64(w + 1));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtDestroyStream(up));
	ASSERT_ACL_OK(aclrtFree(w));
	ASSERT_ACL_OK(aclFinalize());
}

/* A task in an open group: 507009, the capture invalidated; GrpEnd and CaptureEnd say so. */
TEST(group_refuses_non_kernel_tasks)
{
	aclrtStream st;
	aclrtTaskGrp g;
	aclmdlRI m = (aclmdlRI)0x1;
	aclmdlRICaptureStatus status;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	/* each kind npu records: a memcpy, memset, value write */
	for (int kind = 0; kind < 3; kind++) {
		aclError r;

		ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
		ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
		if (kind == 0)
			r = aclrtMemcpyAsync(w + 1, 8, w, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, st);
		else if (kind == 1)
			r = aclrtMemsetAsync(w, 8, 1, 8, st);
		else
			r = aclrtValueWrite(w, 1, 0, st);
		EXPECT_EQ(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, r);
		ASSERT_ACL_OK(aclmdlRICaptureGetInfo(st, &status, NULL));
		EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED, status);
		g = (aclrtTaskGrp)0x1;
		EXPECT_ACL(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, aclmdlRICaptureTaskGrpEnd(st, &g));
		EXPECT_NULL(g);
		/* the group ended anyway; a new one answers the same */
		EXPECT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
		EXPECT_ACL(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, aclmdlRICaptureTaskGrpEnd(st, &g));
		EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(st, &m));
		EXPECT_NULL(m);
	}
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
	ASSERT_ACL_OK(aclFinalize());
}

/* A group left open: CaptureEnd 107033, no model; the stream is free again. */
TEST(group_open_at_capture_end)
{
	aclrtStream st;
	aclrtTaskGrp g;
	aclmdlRI m = (aclmdlRI)0x1;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureEnd(st, &m));
	EXPECT_NULL(m);
	/* npu ends the group with the capture (the vendor leaves the stream in it) */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpEnd(st, &g));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
	EXPECT_ACL_OK(aclmdlRICaptureTaskGrpEnd(st, &g));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	/* the stream runs tasks as before */
	ASSERT_ACL_OK(aclrtValueWrite(w, 3, 0, st));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	EXPECT_EQ(3U, read_u64(w));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
	ASSERT_ACL_OK(aclFinalize());
}

/* A task on another stream of the capture while a group is open: 107034, invalidated. */
TEST(group_interrupted_by_another_stream)
{
	aclrtStream st, s2;
	aclrtEvent fork, join;
	aclrtTaskGrp g;
	aclmdlRI m = (aclmdlRI)0x1;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&join, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtRecordEvent(fork, st));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, fork));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_INTR, aclrtValueWrite(w, 1, 0, s2));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_INTR, aclmdlRICaptureTaskGrpEnd(st, &g));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(st, &m));
	EXPECT_NULL(m);
	ASSERT_ACL_OK(aclrtDestroyEvent(fork));
	ASSERT_ACL_OK(aclrtDestroyEvent(join));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtFree(w));
	ASSERT_ACL_OK(aclFinalize());
}

/* An update window runs nothing: every task 507009; after UpdateEnd the stream runs again. */
TEST(update_window_refuses_tasks)
{
	aclrtStream st, up;
	aclrtTaskGrp g;
	aclmdlRI m;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&up));
	m = model_with_group(st, w, &g);
	ASSERT_NONNULL(m);
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	EXPECT_ACL(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, aclrtValueWrite(w + 2, 5, 0, up));
	EXPECT_ACL(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, aclrtMemsetAsync(w + 3, 8, 1, 8, up));
	EXPECT_ACL(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT,
		   aclrtMemcpyAsync(w + 4, 8, w, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, up));
	/* a stream updating records no group */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpBegin(up));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	ASSERT_ACL_OK(aclrtSynchronizeStream(up));
	EXPECT_EQ(0U, read_u64(w + 2));
	EXPECT_EQ(0U, read_u64(w + 3));
	EXPECT_EQ(0U, read_u64(w + 4));
	ASSERT_ACL_OK(aclrtValueWrite(w + 2, 5, 0, up));
	ASSERT_ACL_OK(aclrtSynchronizeStream(up));
	EXPECT_EQ(5U, read_u64(w + 2));
	/* a stream destroyed while updating lets the group go to another */
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	ASSERT_ACL_OK(aclrtDestroyStream(up));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(st, g));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(st));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
	ASSERT_ACL_OK(aclFinalize());
}

/* Many groups and models made and destroyed: no handle stays, nothing leaks (the models' ids stay usable). */
TEST(groups_go_with_models)
{
	aclrtStream st;
	aclrtTaskGrp g[3];
	aclmdlRI m;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	for (int i = 0; i < 200; i++) {
		ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
		for (int j = 0; j < 3; j++) {
			ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
			ASSERT_ACL_OK(aclmdlRICaptureTaskGrpEnd(st, &g[j]));
		}
		ASSERT_ACL_OK(aclrtValueWrite(w, i, 0, st));
		ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
		ASSERT_ACL_OK(aclmdlRIDestroy(m));
		for (int j = 0; j < 3; j++)
			ASSERT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(st, g[j]));
	}
	/* a model left alive goes with the device's reset, its groups with it */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpEnd(st, &g[0]));
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_ACL_OK(aclrtFree(w));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(st, g[0]));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclFinalize());
}

/* ---- kernel launches in task groups ------------------------------------ */

/* ph_op(desc, out, bias): out[i] = desc[i] + bias, i < 4 */
struct ph_args {
	const void *desc;
	void *out;
	int64_t bias;
};

/* blocks_op(out, v): out[b] = v + numBlocks for each block b */
struct blocks_args {
	void *out;
	int64_t v;
};

/* small_op(c, out, s): out[0] = c + s */
struct small_args {
	uint8_t c;
	uint8_t pad[7];
	void *out;
	int16_t s;
};

static const int64_t data[4] = { 1, 2, 3, 4 };

/* Device memory of the kernel tests: the input, four outputs of 8 words, a block, a word. */
struct kmem {
	int64_t *in, *out1, *out2, *out3, *out4;
	void *blk;
	uint64_t *w;
};

static void kmem_get(struct kmem *k)
{
	char *p = NULL;

	ASSERT_ACL_OK(aclrtMalloc((void **)&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(p, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtMemcpy(p, sizeof(data), data, sizeof(data), ACL_MEMCPY_HOST_TO_DEVICE));
	*k = (struct kmem){
		.in = (int64_t *)p, .out1 = (int64_t *)(p + 256), .out2 = (int64_t *)(p + 512),
		.out3 = (int64_t *)(p + 768), .out4 = (int64_t *)(p + 1024), .blk = p + 2048,
		.w = (uint64_t *)(p + 3072),
	};
}

/* The outputs zeroed. */
static void kmem_clear(struct kmem *k)
{
	ASSERT_ACL_OK(aclrtMemset(k->out1, 1024, 0, 1024));
}

static void read_n(int64_t *host, const void *dev, int n)
{
	ASSERT_ACL_OK(aclrtMemcpy(host, 8 * n, dev, 8 * n, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* ph_op's output at @out is data + @bias (@bias 0: never written, all 0). */
static bool ph_out_is(const int64_t *out, int64_t bias)
{
	int64_t v[4];

	read_n(v, out, 4);
	for (int i = 0; i < 4; i++)
		if (v[i] != (bias ? data[i] + bias : 0))
			return false;
	return true;
}

/* blocks_op's output at @out: @blocks blocks of @v (the next word 0). */
static bool blocks_out_is(const int64_t *out, uint32_t blocks, int64_t v)
{
	int64_t o[9];

	read_n(o, out, blocks + 1);
	for (uint32_t i = 0; i < blocks; i++)
		if (o[i] != v + blocks)
			return false;
	return o[blocks] == 0;
}

static void load(aclrtBinHandle *h, aclrtFuncHandle *ph, aclrtFuncHandle *blocks, aclrtFuncHandle *small)
{
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(*h, "ph_op", ph));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(*h, "blocks_op", blocks));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(*h, "small_op", small));
}

/* The start of a kernel test: the binary and its kernels, the memory, @n streams. */
static void kernels_setup(aclrtBinHandle *h, aclrtFuncHandle *ph, aclrtFuncHandle *blocks, aclrtFuncHandle *small,
			  struct kmem *k, aclrtStream *const *streams, int n)
{
	int i;

	load(h, ph, blocks, small);
	kmem_get(k);
	for (i = 0; i < n; i++)
		ASSERT_ACL_OK(aclrtCreateStream(streams[i]));
}

/* The end of a kernel test: its @n streams, its memory, its binary, the library. */
static void kernels_done(const aclrtStream *streams, int n, struct kmem *k, aclrtBinHandle h)
{
	int i;

	for (i = 0; i < n; i++)
		ASSERT_ACL_OK(aclrtDestroyStream(streams[i]));
	ASSERT_ACL_OK(aclrtFree(k->in));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * A model on @st: a value write, a group of two kernels (ph_op into out1
 * with bias 10, blocks_op over 2 blocks into out2 with 100), then ph_op
 * into out3 (bias 30) outside the group.
 */
static aclmdlRI model_with_kernels(aclrtStream st, aclrtFuncHandle ph, aclrtFuncHandle blocks, struct kmem *k,
				   aclrtTaskGrp *g)
{
	struct ph_args a1 = { k->in, k->out1, 10 }, a3 = { k->in, k->out3, 30 };
	struct blocks_args b = { k->out2, 100 };
	aclmdlRI m = NULL;

	*g = NULL;
	if (aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED) || aclrtValueWrite(k->w, 7, 0, st) ||
	    aclmdlRICaptureTaskGrpBegin(st) ||
	    aclrtLaunchKernelWithHostArgs(ph, 1, st, NULL, &a1, sizeof(a1), NULL, 0) ||
	    aclrtLaunchKernelWithHostArgs(blocks, 2, st, NULL, &b, sizeof(b), NULL, 0) ||
	    aclmdlRICaptureTaskGrpEnd(st, g) ||
	    aclrtLaunchKernelWithHostArgs(ph, 1, st, NULL, &a3, sizeof(a3), NULL, 0) || aclmdlRICaptureEnd(st, &m))
		return NULL;
	return m;
}

/* Run @m on @st after zeroing the outputs. */
static void run(aclmdlRI m, aclrtStream st, struct kmem *k)
{
	kmem_clear(k);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, st));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
}

/*
 * A group of kernel launches: recorded and run with the model; its tasks
 * name it (taskGrp), the one after it does not. An update on a stream
 * not captured replaces them - new blocks, a block in device memory, a
 * function of another kernel - running nothing itself; the next run runs
 * the new launches, the task outside the group as captured.
 */
TEST(group_kernels_updated)
{
	aclrtFuncHandle ph, blocks, small;
	struct ph_args a = { 0 };
	struct blocks_args b;
	struct small_args sa = { .c = 5, .s = 6 };
	aclmdlRITaskParams p;
	aclmdlRITask t[8];
	aclrtBinHandle h;
	aclrtStream st, up;
	aclrtTaskGrp g;
	struct kmem k;
	int64_t v[2];
	aclmdlRI m;

	NEED_DEVICE();
	kernels_setup(&h, &ph, &blocks, &small, &k, (aclrtStream *[]){ &st, &up }, 2);
	m = model_with_kernels(st, ph, blocks, &k, &g);
	ASSERT_NONNULL(m);
	ASSERT_NONNULL(g);
	run(m, st, &k);
	EXPECT_TRUE(ph_out_is(k.out1, 10));
	EXPECT_TRUE(blocks_out_is(k.out2, 2, 100));
	EXPECT_TRUE(ph_out_is(k.out3, 30));
	EXPECT_EQ(7U, read_u64(k.w));

	/* the tasks: a value write, the group's two kernels, one more */
	ASSERT_EQ(4U, model_tasks(m, t, 8));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &p));
	EXPECT_NULL(p.taskGrp);
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[1], &p));
	EXPECT_EQ(ACL_MODEL_RI_TASK_KERNEL, p.type);
	EXPECT_TRUE(p.taskGrp == g);
	EXPECT_TRUE(p.kernelTaskParams.funcHandle == ph);
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[2], &p));
	EXPECT_TRUE(p.taskGrp == g);
	EXPECT_EQ(2U, p.kernelTaskParams.numBlocks);
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[3], &p));
	EXPECT_NULL(p.taskGrp);

	/* replaced: ph_op into out4 (bias 1000), blocks_op over 4 blocks from a device block */
	b = (struct blocks_args){ k.out2, 200 };
	ASSERT_ACL_OK(aclrtMemcpy(k.blk, sizeof(b), &b, sizeof(b), ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	a = (struct ph_args){ k.in, k.out4, 1000 };
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL_OK(aclrtLaunchKernel(blocks, 4, k.blk, sizeof(b), up));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	/* the update ran nothing */
	ASSERT_ACL_OK(aclrtSynchronizeStream(up));
	kmem_clear(&k);
	ASSERT_ACL_OK(aclrtSynchronizeStream(up));
	EXPECT_TRUE(ph_out_is(k.out4, 0));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[2], &p));
	EXPECT_EQ(4U, p.kernelTaskParams.numBlocks);
	EXPECT_TRUE(p.kernelTaskParams.args == k.blk);
	EXPECT_EQ(sizeof(b), p.kernelTaskParams.argsSize);
	EXPECT_TRUE(p.taskGrp == g);
	run(m, st, &k);
	EXPECT_TRUE(ph_out_is(k.out1, 0));
	EXPECT_TRUE(ph_out_is(k.out4, 1000));
	EXPECT_TRUE(blocks_out_is(k.out2, 4, 200));
	EXPECT_TRUE(ph_out_is(k.out3, 30));
	EXPECT_EQ(7U, read_u64(k.w));
	/* the device block is read where it is at each run */
	b.v = 300;
	ASSERT_ACL_OK(aclrtMemcpy(k.blk, sizeof(b), &b, sizeof(b), ACL_MEMCPY_HOST_TO_DEVICE));
	run(m, st, &k);
	EXPECT_TRUE(blocks_out_is(k.out2, 4, 300));

	/* another kernel's function, and host arguments again over one block */
	sa.out = k.out1;
	b = (struct blocks_args){ k.out2, 400 };
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(small, 1, up, NULL, &sa, sizeof(sa), NULL, 0));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(blocks, 1, up, NULL, &b, sizeof(b), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	run(m, st, &k);
	read_n(v, k.out1, 2);
	EXPECT_EQ(11, v[0]);
	EXPECT_EQ(0, v[1]);
	EXPECT_TRUE(ph_out_is(k.out4, 0));
	EXPECT_TRUE(blocks_out_is(k.out2, 1, 400));
	EXPECT_TRUE(ph_out_is(k.out3, 30));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[1], &p));
	EXPECT_TRUE(p.kernelTaskParams.funcHandle == small);
	EXPECT_EQ(sizeof(sa), p.kernelTaskParams.argsSize);
	/* a run on another stream (the update's) runs them too */
	run(m, up, &k);
	read_n(v, k.out1, 1);
	EXPECT_EQ(11, v[0]);

	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(up, g));
	kernels_done((aclrtStream[]){ st, up }, 2, &k, h);
}

/*
 * An update's launches count: as many as the group's tasks (a launch
 * more 507000, fewer: UpdateEnd 507000, the tasks replaced staying
 * replaced); a launch refused by its own checks (107000) counts for
 * nothing, another task is 507009; a kernel on another stream runs as
 * ever; the update stream captured since UpdateBegin 107027 (not
 * counted); the model destroyed mid-update 107017 (counted, as the
 * vendor's AllocTask counts a task it took).
 */
TEST(group_update_counts)
{
	aclrtFuncHandle ph, blocks, small;
	struct ph_args a;
	struct blocks_args b;
	aclrtBinHandle h;
	aclrtStream st, up, other;
	aclrtTaskGrp g;
	aclmdlRI m, m2;
	struct kmem k;

	NEED_DEVICE();
	kernels_setup(&h, &ph, &blocks, &small, &k, (aclrtStream *[]){ &st, &up, &other }, 3);
	m = model_with_kernels(st, ph, blocks, &k, &g);
	ASSERT_NONNULL(m);

	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	a = (struct ph_args){ k.in, k.out1, 50 };
	b = (struct blocks_args){ k.out2, 500 };
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(ph, 0, up, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(ph, 1, (char *)k.blk + 4, sizeof(a), up));
	EXPECT_ACL(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, aclrtMemsetAsync(k.out3, 8, 1, 8, up));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	/* a kernel on another stream runs now */
	a.out = k.out3;
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, other, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(other));
	EXPECT_TRUE(ph_out_is(k.out3, 50));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(blocks, 3, up, NULL, &b, sizeof(b), NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR,
		   aclrtLaunchKernelWithHostArgs(blocks, 1, up, NULL, &b, sizeof(b), NULL, 0));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	run(m, st, &k);
	EXPECT_TRUE(ph_out_is(k.out1, 50));
	EXPECT_TRUE(blocks_out_is(k.out2, 3, 500));
	EXPECT_TRUE(ph_out_is(k.out3, 30));

	/* fewer: the first replaced all the same */
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	a = (struct ph_args){ k.in, k.out1, 60 };
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRICaptureTaskUpdateEnd(up));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_STATUS, aclmdlRICaptureTaskUpdateEnd(up));
	run(m, st, &k);
	EXPECT_TRUE(ph_out_is(k.out1, 60));
	EXPECT_TRUE(blocks_out_is(k.out2, 3, 500));

	/* the update stream captured meanwhile: 107027, the window going on */
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(up, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED,
		   aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(up, &m2));
	ASSERT_ACL_OK(aclmdlRIDestroy(m2));
	a.bias = 70;
	b.v = 700;
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(blocks, 2, up, NULL, &b, sizeof(b), NULL, 0));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	run(m, st, &k);
	EXPECT_TRUE(ph_out_is(k.out1, 70));
	EXPECT_TRUE(blocks_out_is(k.out2, 2, 700));

	/* the model destroyed mid-update */
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRICaptureTaskUpdateEnd(up));
	/* the stream launches as ever */
	a.out = k.out4;
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(up));
	EXPECT_TRUE(ph_out_is(k.out4, 70));

	kernels_done((aclrtStream[]){ st, up, other }, 3, &k, h);
}

/*
 * Updates and runs: a run queued before the update (held back by a value
 * wait) runs the tasks as they were, the run queued after it the new
 * ones; no task of a group is replaced while its model has changes
 * waiting for aclmdlRIUpdate, nor while its capture is under way (107040,
 * counted), the model running as captured.
 */
TEST(group_update_and_runs)
{
	aclrtFuncHandle ph, blocks, small;
	struct ph_args a = { 0 };
	aclmdlRITask t[8];
	aclrtBinHandle h;
	aclrtStream st, up, gate;
	aclrtTaskGrp g, g2;
	aclmdlRI m;
	struct kmem k;

	NEED_DEVICE();
	kernels_setup(&h, &ph, &blocks, &small, &k, (aclrtStream *[]){ &st, &up, &gate }, 3);
	m = model_with_kernels(st, ph, blocks, &k, &g);
	ASSERT_NONNULL(m);
	kmem_clear(&k);
	ASSERT_ACL_OK(aclrtValueWait(k.w + 1, 1, 0, st));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, st));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	a = (struct ph_args){ k.in, k.out4, 40 };
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(blocks, 1, up, NULL, &(struct blocks_args){ k.out2 + 4, 1 },
						    sizeof(struct blocks_args), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, st));
	ASSERT_ACL_OK(aclrtValueWrite(k.w + 1, 1, 0, gate));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	EXPECT_TRUE(ph_out_is(k.out1, 10));
	EXPECT_TRUE(ph_out_is(k.out4, 40));
	EXPECT_TRUE(blocks_out_is(k.out2, 2, 100));
	EXPECT_TRUE(blocks_out_is(k.out2 + 4, 1, 1));

	/* changes waiting for aclmdlRIUpdate: 107040 (counted); after the update the window goes on */
	ASSERT_EQ(4U, model_tasks(m, t, 8));
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[0]));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	a.bias = 41;
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED,
		   aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(blocks, 2, up, NULL, &(struct blocks_args){ k.out2 + 4, 2 },
						    sizeof(struct blocks_args), NULL, 0));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	ASSERT_ACL_OK(aclrtMemset(k.w, 8, 0, 8));
	run(m, st, &k);
	EXPECT_EQ(0U, read_u64(k.w));
	EXPECT_TRUE(ph_out_is(k.out4, 40));
	EXPECT_TRUE(blocks_out_is(k.out2 + 4, 2, 2));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	/* a group of a capture under way */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
	a = (struct ph_args){ k.in, k.out1, 5 };
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, st, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpEnd(st, &g2));
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g2));
	a.bias = 6;
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED,
		   aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	run(m, st, &k);
	EXPECT_TRUE(ph_out_is(k.out1, 5));
	/* once made, it is */
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g2));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	run(m, st, &k);
	EXPECT_TRUE(ph_out_is(k.out1, 6));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	kernels_done((aclrtStream[]){ st, up, gate }, 3, &k, h);
}

/*
 * While a group is open: a kernel of another stream of the capture
 * interrupts it (107034, the capture invalidated), as any task does.
 */
TEST(group_interrupted_by_a_kernel)
{
	aclrtFuncHandle ph, blocks, small;
	struct ph_args a;
	aclrtBinHandle h;
	aclrtStream st, s2;
	aclrtEvent fork;
	aclrtTaskGrp g;
	aclmdlRI m = (aclmdlRI)0x1;
	struct kmem k;

	NEED_DEVICE();
	kernels_setup(&h, &ph, &blocks, &small, &k, (aclrtStream *[]){ &st, &s2 }, 2);
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&fork, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtRecordEvent(fork, st));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, fork));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(st));
	a = (struct ph_args){ k.in, k.out1, 1 };
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, st, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_INTR,
		   aclrtLaunchKernelWithHostArgs(ph, 1, s2, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL(ACL_ERROR_STREAM_TASK_GROUP_INTR, aclmdlRICaptureTaskGrpEnd(st, &g));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(st, &m));
	EXPECT_NULL(m);
	ASSERT_ACL_OK(aclrtDestroyEvent(fork));
	kernels_done((aclrtStream[]){ st, s2 }, 2, &k, h);
}

struct runner {
	aclrtContext ctx;
	aclmdlRI m;
	aclrtStream st;
	int runs;
	aclError ret;
};

static void *run_loop(void *arg)
{
	struct runner *r = arg;

	r->ret = aclrtSetCurrentContext(r->ctx);
	for (int i = 0; !r->ret && i < r->runs; i++) {
		r->ret = aclmdlRIExecuteAsync(r->m, r->st);
		if (!r->ret && i % 16 == 15)
			r->ret = aclrtSynchronizeStream(r->st);
	}
	if (!r->ret)
		r->ret = aclrtSynchronizeStream(r->st);
	return NULL;
}

/*
 * Updates while another thread queues runs of the model: every update
 * goes through (a run being queued meanwhile takes the driver models all
 * old or all new, the update waiting for it), and the runs after the last
 * one compute with its arguments.
 */
TEST(group_updates_race_runs)
{
	aclrtFuncHandle ph, blocks, small;
	struct runner r = { .runs = 400 };
	struct blocks_args b;
	struct ph_args a;
	aclrtBinHandle h;
	aclrtStream st, up;
	aclrtTaskGrp g;
	struct kmem k;
	pthread_t t;
	int i;

	NEED_DEVICE();
	kernels_setup(&h, &ph, &blocks, &small, &k, (aclrtStream *[]){ &st, &up }, 2);
	r.m = model_with_kernels(st, ph, blocks, &k, &g);
	ASSERT_NONNULL(r.m);
	r.st = st;
	ASSERT_ACL_OK(aclrtGetCurrentContext(&r.ctx));
	ASSERT_EQ(0, pthread_create(&t, NULL, run_loop, &r));
	for (i = 1; i <= 100; i++) {
		a = (struct ph_args){ k.in, k.out4, i };
		b = (struct blocks_args){ k.out2, i };
		ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
		EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(ph, 1, up, NULL, &a, sizeof(a), NULL, 0));
		EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(blocks, 1 + i % 3, up, NULL, &b, sizeof(b), NULL, 0));
		ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	}
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_ACL_OK(r.ret);
	run(r.m, st, &k);
	EXPECT_TRUE(ph_out_is(k.out4, 100));
	EXPECT_TRUE(blocks_out_is(k.out2, 2, 100));
	EXPECT_TRUE(ph_out_is(k.out1, 0));
	ASSERT_ACL_OK(aclmdlRIDestroy(r.m));
	kernels_done((aclrtStream[]){ st, up }, 2, &k, h);
}

TEST_HARNESS_MAIN
