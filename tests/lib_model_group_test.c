// SPDX-License-Identifier: MIT
/*
 * libacl: task groups of a capture - aclmdlRICaptureTaskGrpBegin/End and
 * aclmdlRICaptureTaskUpdateBegin/End: every call's bad input with the
 * vendor's codes; the state machine of a stream (SAMPLE while capturing,
 * UPDATE on a stream not captured); the tasks a group refuses (the vendor
 * takes kernel launches only, which npu has not: 507009, the capture
 * invalidated), a task of another stream of the capture while a group is
 * open (107034), a group left open at CaptureEnd (107033); an update
 * window that refuses every task (507009) and runs nothing; the handle
 * gone with its model; a stream destroyed mid-update frees its group.
 * Skips without /dev/npu0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib_util.h"

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

TEST_HARNESS_MAIN
