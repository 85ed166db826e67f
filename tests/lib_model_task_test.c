// SPDX-License-Identifier: MIT
/*
 * libacl: the tasks of a model runtime instance - aclmdlRIGetStreams,
 * aclmdlRIGetTasksByStream, aclmdlRITaskGetType/GetSeqId/GetParams,
 * aclmdlRIKernelTaskGetAttribute, aclmdlRITaskSetParams,
 * aclmdlRITaskDisable, aclmdlRIUpdate, aclmdlRIDebugPrint and
 * aclmdlRIDebugJsonPrint: every call's bad input with the vendor's codes;
 * a capture's tasks inspected (types, sequence ids, parameters); a value
 * write's value and address and a value wait's value changed and, after
 * aclmdlRIUpdate, seen in the next run's data; a disabled task that no
 * longer runs; no change while a run is queued; a failed change that
 * leaves the model unupdatable; the JSON print's content. Skips without
 * /dev/npu0.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib_util.h"

/* aclmdlRIDebugPrint is deprecated, and tested all the same */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static uint64_t read_u64(const void *dev)
{
	uint64_t v = 0xdeadbeef;

	if (aclrtMemcpy(&v, 8, dev, 8, ACL_MEMCPY_DEVICE_TO_HOST))
		return 0xbad;
	return v;
}

static void write_u64(void *dev, uint64_t v)
{
	aclrtMemcpy(dev, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE);
}

/* Run @m on @s to its end. */
static aclError run_sync(aclmdlRI m, aclrtStream s)
{
	aclError ret = aclmdlRIExecuteAsync(m, s);

	return ret ? ret : aclrtSynchronizeStream(s);
}

/* The codes of every call, for what needs no model, then on a model's tasks. */
TEST(bad_input)
{
	aclrtStream st, gone, ms = NULL, bs;
	aclmdlRITask t[4] = { NULL }, bt[2] = { NULL };
	aclrtLaunchKernelAttrValue av;
	aclmdlRITaskParams p;
	aclmdlRITaskType type;
	aclmdlRI m, dead, built, capturing;
	uint64_t *w;
	uint32_t n, id;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&gone));
	ASSERT_ACL_OK(aclrtDestroyStream(gone));

	/* a model of a value write and a copy */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w, 5, 0, st));
	ASSERT_ACL_OK(aclrtMemcpyAsync(w + 1, 8, w, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w, 5, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &dead));
	ASSERT_ACL_OK(aclmdlRIDestroy(dead));

	/* GetStreams: a dead handle first, then NULL count, NULL model, a short array */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetStreams(dead, &ms, &n));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetStreams(dead, &ms, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetStreams(m, &ms, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetStreams(NULL, &ms, &n));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetStreams(NULL, NULL, NULL));
	n = 0;
	EXPECT_ACL(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, aclmdlRIGetStreams(m, &ms, &n));
	EXPECT_EQ(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(0U, n);
	n = 0;
	EXPECT_ACL_OK(aclmdlRIGetStreams(m, NULL, &n));
	EXPECT_EQ(1U, n);
	{
		aclrtStream two[3] = { st, st, st };

		n = 3;
		EXPECT_ACL_OK(aclmdlRIGetStreams(m, two, &n));
		EXPECT_EQ(1U, n);
		EXPECT_NONNULL(two[0]);
		EXPECT_NULL(two[1]);
		EXPECT_NULL(two[2]);
		ms = two[0];
	}

	/* GetTasksByStream: a dead stream, NULL stream, NULL count, a stream of no model, short */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetTasksByStream(gone, t, &n));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(NULL, t, &n));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(ms, t, NULL));
	n = 4;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(st, t, &n));
	n = 1;
	EXPECT_ACL(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, aclmdlRIGetTasksByStream(ms, t, &n));
	EXPECT_EQ(1U, n);
	EXPECT_NONNULL(t[0]);
	n = 0;
	EXPECT_ACL_OK(aclmdlRIGetTasksByStream(ms, NULL, &n));
	EXPECT_EQ(2U, n);
	n = 4;
	t[2] = t[3] = (aclmdlRITask)1;
	EXPECT_ACL_OK(aclmdlRIGetTasksByStream(ms, t, &n));
	EXPECT_EQ(2U, n);
	EXPECT_NULL(t[2]);
	EXPECT_NULL(t[3]);

	/* the task getters: NULL task, NULL output, a handle that is no task */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetType(NULL, &type));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetType(t[0], NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetType((aclmdlRITask)m, &type));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetSeqId(NULL, &id));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetSeqId(t[0], NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetSeqId(ms, &id));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(NULL, &p));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(t[0], NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetParams(st, &p));
	/* a copy is a DEFAULT task: no parameters */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(t[1], &p));
	/* the acl layer's NULL checks, then no task is a kernel task */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclmdlRIKernelTaskGetAttribute(NULL, ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &av));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclmdlRIKernelTaskGetAttribute(t[0], ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
		   aclmdlRIKernelTaskGetAttribute(ms, ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &av));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclmdlRIKernelTaskGetAttribute(t[0], ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &av));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclmdlRIKernelTaskGetAttribute(t[1], ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE, &av));

	/* the changes: NULL task, NULL params, not a task */
	memset(&p, 0, sizeof(p));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(NULL, &p));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(t[0], NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskSetParams(m, &p));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskDisable(NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskDisable(st));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIUpdate(NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIUpdate(dead));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIUpdate(st));
	/* nothing changed: an update is no work */
	EXPECT_ACL_OK(aclmdlRIUpdate(m));

	/* the prints: the acl layer's NULL checks, a dead model, a path that cannot be written */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugPrint(NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDebugPrint(dead));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(NULL, "/tmp/x.json", 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(m, NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDebugJsonPrint(dead, "/tmp/x.json", 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDebugJsonPrint(m, "/nonexistent-dir/m.json", 0));

	/* a model of an explicit build: inspected, never changed (the vendor's: ACL graphs only) */
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bs, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&built, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(built, bs, 0));
	ASSERT_ACL_OK(aclrtValueWrite(w + 2, 9, 0, bs));
	ASSERT_ACL_OK(aclmdlRIEndTask(built, bs));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(built, NULL));
	EXPECT_EQ(1U, model_tasks(built, bt, 2));
	EXPECT_ACL_OK(aclmdlRITaskGetType(bt[0], &type));
	EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WRITE, type);
	EXPECT_ACL_OK(aclmdlRITaskGetParams(bt[0], &p));
	EXPECT_EQ(9U, p.valueWriteTaskParams.value);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskGetSeqId(bt[0], &id));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskSetParams(bt[0], &p));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskDisable(bt[0]));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIUpdate(built));
	ASSERT_ACL_OK(aclmdlRIDestroy(built));
	ASSERT_ACL_OK(aclrtDestroyStream(bs));

	/* a model still capturing has no stream to show, and no update */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(st, NULL, &capturing));
	n = 5;
	EXPECT_ACL_OK(aclmdlRIGetStreams(capturing, NULL, &n));
	EXPECT_EQ(0U, n);
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRIUpdate(capturing));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &capturing));
	ASSERT_ACL_OK(aclmdlRIDestroy(capturing));

	/* the model goes: its tasks and its stream are no handles any more */
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetType(t[0], &type));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskSetParams(t[0], &p));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetTasksByStream(ms, NULL, &n));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
}

/* A capture's tasks: one stream, launch order, types, sequence ids, parameters. */
TEST(inspect)
{
	aclmdlRITaskType types[5];
	aclmdlRITask t[6] = { NULL };
	aclmdlRITaskParams p;
	aclrtStream st;
	aclrtEvent ev;
	aclmdlRI m;
	uint64_t *w;
	uint32_t i, id;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(w + 4, 8, w, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtValueWrite(w + 1, 0x1234, 0, st));
	ASSERT_ACL_OK(aclrtValueWait(w + 1, 0x1234, ACL_STREAM_WAIT_VALUE_EQ, st));
	ASSERT_ACL_OK(aclrtRecordEventWithFlag(ev, st, ACL_EVENT_RECORD_EXTERNAL));
	ASSERT_ACL_OK(aclrtMemsetAsync(w + 5, 8, 0x7f, 8, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));

	ASSERT_EQ(5U, model_tasks(m, t, 6));
	EXPECT_NULL(t[5]);
	for (i = 0; i < 5; i++) {
		EXPECT_ACL_OK(aclmdlRITaskGetType(t[i], &types[i]));
		EXPECT_ACL_OK(aclmdlRITaskGetSeqId(t[i], &id));
		EXPECT_EQ(i, id);
	}
	EXPECT_EQ(ACL_MODEL_RI_TASK_DEFAULT, types[0]);
	EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WRITE, types[1]);
	EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WAIT, types[2]);
	EXPECT_EQ(ACL_MODEL_RI_TASK_EVENT_RECORD, types[3]);
	EXPECT_EQ(ACL_MODEL_RI_TASK_DEFAULT, types[4]);

	memset(&p, 0xa5, sizeof(p));
	EXPECT_ACL_OK(aclmdlRITaskGetParams(t[1], &p));
	EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WRITE, p.type);
	EXPECT_TRUE(p.valueWriteTaskParams.devAddr == (void *)(w + 1));
	EXPECT_EQ(0x1234U, p.valueWriteTaskParams.value);
	EXPECT_NULL(p.taskGrp);
	EXPECT_NULL(p.opInfoPtr);
	EXPECT_EQ(0U, p.opInfoSize);
	EXPECT_ACL_OK(aclmdlRITaskGetParams(t[2], &p));
	EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WAIT, p.type);
	EXPECT_TRUE(p.valueWaitTaskParams.devAddr == (void *)(w + 1));
	EXPECT_EQ(0x1234U, p.valueWaitTaskParams.value);
	EXPECT_EQ(ACL_STREAM_WAIT_VALUE_EQ, p.valueWaitTaskParams.flag);
	EXPECT_ACL_OK(aclmdlRITaskGetParams(t[3], &p));
	EXPECT_EQ(ACL_MODEL_RI_TASK_EVENT_RECORD, p.type);
	EXPECT_TRUE(p.eventRecordTaskParams.event == ev);
	EXPECT_EQ(ACL_EVENT_SYNC, p.eventRecordTaskParams.eventFlag);
	EXPECT_EQ(ACL_EVENT_RECORD_EXTERNAL, p.eventRecordTaskParams.recordFlag);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(t[4], &p));

	/* the model runs as captured */
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(0x1234U, read_u64(w + 1));
	EXPECT_EQ(0x7f7f7f7f7f7f7f7fULL, read_u64(w + 5));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
}

/*
 * A value write's value, then its address, changed: the next run after
 * aclmdlRIUpdate writes the new value (read back through the model's copy
 * at another offset), not the runs before the update.
 */
TEST(update_value_write)
{
	aclmdlRITask t[2];
	aclmdlRITaskParams p;
	aclrtStream st;
	aclmdlRI m;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	/* w[0] = 7; w[3] = w[0] */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w, 7, 0, st));
	ASSERT_ACL_OK(aclrtMemcpyAsync(w + 3, 8, w, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_EQ(2U, model_tasks(m, t, 2));
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(7U, read_u64(w + 3));

	/* a new value: shown at once, run from the update on */
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &p));
	p.valueWriteTaskParams.value = 42;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &p));
	EXPECT_EQ(42U, p.valueWriteTaskParams.value);
	write_u64(w + 3, 0);
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(7U, read_u64(w + 3));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(42U, read_u64(w));
	EXPECT_EQ(42U, read_u64(w + 3));
	/* READY again: another update is no work */
	EXPECT_ACL_OK(aclmdlRIUpdate(m));

	/* a new address: w[6] gets the value, w[0] keeps what it has */
	write_u64(w, 1);
	memset(&p, 0, sizeof(p));
	p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
	p.valueWriteTaskParams.devAddr = w + 6;
	p.valueWriteTaskParams.value = 99;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(99U, read_u64(w + 6));
	EXPECT_EQ(1U, read_u64(w));
	EXPECT_EQ(1U, read_u64(w + 3));

	/* runs on many streams, all done: the model changes */
	{
		aclrtStream many[12];
		unsigned int i;

		/* all queued at once behind a gate (w[7]), then all done */
		write_u64(w + 7, 0);
		for (i = 0; i < 12; i++) {
			ASSERT_ACL_OK(aclrtCreateStream(&many[i]));
			ASSERT_ACL_OK(aclrtValueWait(w + 7, 1, ACL_STREAM_WAIT_VALUE_GEQ, many[i]));
			ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, many[i]));
		}
		EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRITaskSetParams(t[0], &p));
		write_u64(w + 7, 1);
		for (i = 0; i < 12; i++)
			ASSERT_ACL_OK(aclrtSynchronizeStream(many[i]));
		p.valueWriteTaskParams.value = 98;
		EXPECT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
		EXPECT_ACL_OK(aclmdlRIUpdate(m));
		for (i = 0; i < 12; i++)
			ASSERT_ACL_OK(aclrtDestroyStream(many[i]));
	}

	/* a run on a stream destroyed since is over: the model changes */
	{
		aclrtStream tmp;

		ASSERT_ACL_OK(aclrtCreateStream(&tmp));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, tmp));
		ASSERT_ACL_OK(aclrtDestroyStream(tmp));
		p.valueWriteTaskParams.value = 100;
		ASSERT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
		ASSERT_ACL_OK(aclmdlRIUpdate(m));
		ASSERT_ACL_OK(run_sync(m, st));
		EXPECT_EQ(100U, read_u64(w + 6));
	}

	/* bad parameters fail the change; the model takes no change nor update after (the vendor's FAULT) */
	p.valueWriteTaskParams.devAddr = (char *)(w + 6) + 4;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(t[0], &p));
	p.valueWriteTaskParams.devAddr = w + 6;
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRITaskSetParams(t[0], &p));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRITaskDisable(t[0]));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRIUpdate(m));
	/* it still runs as last updated */
	write_u64(w + 6, 0);
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(100U, read_u64(w + 6));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
}

/* What a change refuses: the types it takes, a DEFAULT task, the common fields; each leaves the model FAULT. */
TEST(set_params_refusals)
{
	static const aclmdlRITaskType bad_types[] = {
		ACL_MODEL_RI_TASK_DEFAULT, ACL_MODEL_RI_TASK_KERNEL, ACL_MODEL_RI_TASK_EVENT_RECORD,
		ACL_MODEL_RI_TASK_EVENT_WAIT, ACL_MODEL_RI_TASK_EVENT_RESET, (aclmdlRITaskType)7,
	};
	aclmdlRITask t[2];
	aclmdlRITaskParams p;
	aclrtStream st;
	aclmdlRI m;
	uint64_t *w;
	unsigned int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	for (i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]) + 4; i++) {
		ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
		ASSERT_ACL_OK(aclrtValueWrite(w, 7, 0, st));
		ASSERT_ACL_OK(aclrtMemsetAsync(w + 1, 8, 0, 8, st));
		ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
		ASSERT_EQ(2U, model_tasks(m, t, 2));
		memset(&p, 0, sizeof(p));
		p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
		p.valueWriteTaskParams.devAddr = w;
		if (i < sizeof(bad_types) / sizeof(bad_types[0])) {
			p.type = bad_types[i];
			EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(t[0], &p));
		} else if (i == sizeof(bad_types) / sizeof(bad_types[0])) {
			/* a DEFAULT task takes no parameters, and is not disabled */
			EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(t[1], &p));
		} else if (i == sizeof(bad_types) / sizeof(bad_types[0]) + 1) {
			EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskDisable(t[1]));
		} else if (i == sizeof(bad_types) / sizeof(bad_types[0]) + 2) {
			p.opInfoSize = 8;
			EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(t[0], &p));
		} else {
			/* a wait's flag beyond NOR */
			p.type = ACL_MODEL_RI_TASK_VALUE_WAIT;
			p.valueWaitTaskParams.devAddr = w;
			p.valueWaitTaskParams.flag = 4;
			EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(t[0], &p));
		}
		EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRIUpdate(m));
		ASSERT_ACL_OK(aclmdlRIDestroy(m));
	}
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
}

/*
 * A value wait's value changed: the run after the update waits for the
 * new value; the wait turned into a write, and back.
 */
TEST(update_value_wait)
{
	aclrtStreamStatus sst;
	aclmdlRITask t[2];
	aclmdlRITaskParams p;
	aclrtStream st, other;
	aclmdlRI m;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	/* wait for w[0] >= 5; then w[2] = w[1] */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWait(w, 5, ACL_STREAM_WAIT_VALUE_GEQ, st));
	ASSERT_ACL_OK(aclrtMemcpyAsync(w + 2, 8, w + 1, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_EQ(2U, model_tasks(m, t, 2));
	write_u64(w, 5);
	write_u64(w + 1, 11);
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(11U, read_u64(w + 2));

	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &p));
	p.valueWaitTaskParams.value = 10;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	write_u64(w + 1, 12);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, st));
	usleep(100000);
	ASSERT_ACL_OK(aclrtStreamQuery(st, &sst));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, sst);
	EXPECT_EQ(11U, read_u64(w + 2));
	/* queued and not done: no change, no update (the vendor's "running") */
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRITaskSetParams(t[0], &p));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRITaskDisable(t[0]));
	ASSERT_ACL_OK(aclrtValueWrite(w, 10, 0, other));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	EXPECT_EQ(12U, read_u64(w + 2));

	/* the wait becomes a write of w[0] (a stream-ordered write), then a wait again */
	memset(&p, 0, sizeof(p));
	p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
	p.valueWriteTaskParams.devAddr = w + 1;
	p.valueWriteTaskParams.value = 77;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(77U, read_u64(w + 2));
	{
		aclmdlRITaskType type;

		EXPECT_ACL_OK(aclmdlRITaskGetType(t[0], &type));
		EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WRITE, type);
	}
	memset(&p, 0, sizeof(p));
	p.type = ACL_MODEL_RI_TASK_VALUE_WAIT;
	p.valueWaitTaskParams.devAddr = w;
	p.valueWaitTaskParams.value = 10;
	p.valueWaitTaskParams.flag = ACL_STREAM_WAIT_VALUE_EQ;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	write_u64(w + 1, 13);
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(13U, read_u64(w + 2));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &p));
	EXPECT_EQ(ACL_STREAM_WAIT_VALUE_EQ, p.valueWaitTaskParams.flag);
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtDestroyStream(other));
	ASSERT_ACL_OK(aclrtFree(w));
}

/* A disabled task does not run after the update; the others do; new parameters enable it again. */
TEST(disable)
{
	aclmdlRITask t[4];
	aclmdlRITaskParams p;
	aclrtStream st;
	aclrtEvent ev;
	aclmdlRI m, one;

	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	/* w[0] = 1; w[1] = 0x01..; EXTERNAL record; w[2] = 3 */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, st));
	ASSERT_ACL_OK(aclrtMemsetAsync(w + 1, 8, 1, 8, st));
	ASSERT_ACL_OK(aclrtRecordEventWithFlag(ev, st, ACL_EVENT_RECORD_EXTERNAL));
	ASSERT_ACL_OK(aclrtValueWrite(w + 2, 3, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_EQ(4U, model_tasks(m, t, 4));

	/* the first write and the event record disabled: the run before the update does all */
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[0]));
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[2]));
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(1U, read_u64(w));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(0U, read_u64(w));
	EXPECT_EQ(0x0101010101010101ULL, read_u64(w + 1));
	EXPECT_EQ(3U, read_u64(w + 2));
	/* twice, and a disabled task keeps its type and parameters */
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(0U, read_u64(w));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &p));
	EXPECT_EQ(1U, p.valueWriteTaskParams.value);

	/* new parameters: it runs again after the next update */
	p.valueWriteTaskParams.value = 5;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(5U, read_u64(w));

	/* a model of one task, disabled: it runs nothing */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w + 7, 8, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &one));
	ASSERT_EQ(1U, model_tasks(one, t, 1));
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[0]));
	ASSERT_ACL_OK(aclmdlRIUpdate(one));
	ASSERT_ACL_OK(run_sync(one, st));
	EXPECT_EQ(0U, read_u64(w + 7));
	ASSERT_ACL_OK(aclmdlRIDestroy(one));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
}

static void count_run(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

/*
 * A host function in a graph is a DEFAULT task; a graph with a condition
 * task takes new parameters for its value writes, but no disabled task
 * (npu's limit: its jumps count the commands).
 */
TEST(host_function_and_condition_task)
{
	aclmdlRICondTaskParams cp = { 0 };
	aclmdlRITaskType type = ACL_MODEL_RI_TASK_KERNEL;
	aclmdlRITaskParams p;
	aclmdlRICaptureStatus cs;
	aclmdlRI m, parent, sub[1];
	aclmdlRICondHandle h;
	aclrtStream st, ss;
	aclmdlRITask t[8];
	uint64_t *w, *cond;
	uint32_t n, i, writes = 0;
	int runs = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&ss));

	/* w[0] = 1; host function; w[1] = 2 */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, st));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(st, count_run, &runs));
	ASSERT_ACL_OK(aclrtValueWrite(w + 1, 2, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_EQ(3U, model_tasks(m, t, 8));
	ASSERT_ACL_OK(aclmdlRITaskGetType(t[1], &type));
	EXPECT_EQ(ACL_MODEL_RI_TASK_DEFAULT, type);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(t[1], &p));
	/* the write after it disabled: the host function still runs */
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[2]));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(run_sync(m, st));
	EXPECT_EQ(1, runs);
	EXPECT_EQ(1U, read_u64(w));
	EXPECT_EQ(0U, read_u64(w + 1));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	/* IF (cond) { w[2] = 7 }; w[3] = 9 */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(st, &cs, &parent));
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(parent, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(h, &cond));
	cp.handle = h;
	cp.type = ACL_MODEL_RI_COND_TYPE_IF;
	cp.size = 1;
	cp.modelRIArray = sub;
	ASSERT_ACL_OK(aclmdlRIAddCondTask(cp, st, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(ss, sub[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtValueWrite(w + 2, 7, 0, ss));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(ss, &sub[0]));
	ASSERT_ACL_OK(aclrtValueWrite(w + 3, 9, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &parent));
	n = model_tasks(parent, t, 8);
	ASSERT_LT(2U, n);
	/* the last value write is w[3]'s: 10 from now on */
	for (i = 0; i < n; i++) {
		ASSERT_ACL_OK(aclmdlRITaskGetType(t[i], &type));
		if (type == ACL_MODEL_RI_TASK_VALUE_WRITE)
			writes = i;
	}
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[writes], &p));
	ASSERT_EQ((void *)(w + 3), p.valueWriteTaskParams.devAddr);
	p.valueWriteTaskParams.value = 10;
	ASSERT_ACL_OK(aclmdlRITaskSetParams(t[writes], &p));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskDisable(t[writes]));
	ASSERT_ACL_OK(aclmdlRIUpdate(parent));
	ASSERT_ACL_OK(run_sync(parent, st));
	EXPECT_EQ(7U, read_u64(w + 2));
	EXPECT_EQ(10U, read_u64(w + 3));
	ASSERT_ACL_OK(aclmdlRIDestroy(parent));
	ASSERT_ACL_OK(aclrtDestroyStream(ss));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
}

/*
 * A disabled task before a label: the switch's targets count only the
 * commands kept. switch (idx) { 0: a = 0x11 (disabled); b = 0x22; 1: c = 0x33 }
 */
TEST(disable_before_label)
{
	aclmdlRITask t[4];
	aclrtLabel lab[2];
	aclrtLabelList list;
	aclmdlRITaskType type;
	uint32_t *idx, i;
	aclrtStream st;
	aclmdlRI m;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&idx, 4, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateLabel(&lab[0]));
	ASSERT_ACL_OK(aclrtCreateLabel(&lab[1]));
	ASSERT_ACL_OK(aclrtCreateLabelList(lab, 2, &list));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(idx, 2, list, st));
	ASSERT_ACL_OK(aclrtSetLabel(lab[0], st));
	ASSERT_ACL_OK(aclrtValueWrite(w, 0x11, 0, st));
	ASSERT_ACL_OK(aclrtValueWrite(w + 1, 0x22, 0, st));
	ASSERT_ACL_OK(aclrtSetLabel(lab[1], st));
	ASSERT_ACL_OK(aclrtValueWrite(w + 2, 0x33, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_EQ(4U, model_tasks(m, t, 4));
	/* the switch is a DEFAULT task: it is not disabled, and the model is FAULT then */
	EXPECT_ACL_OK(aclmdlRITaskGetType(t[0], &type));
	EXPECT_EQ(ACL_MODEL_RI_TASK_DEFAULT, type);
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[1]));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	for (i = 0; i < 2; i++) {
		ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
		ASSERT_ACL_OK(aclrtMemcpy(idx, 4, &i, 4, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(run_sync(m, st));
		EXPECT_EQ(0U, read_u64(w));
		EXPECT_EQ(i ? 0U : 0x22U, read_u64(w + 1));
		EXPECT_EQ(0x33U, read_u64(w + 2));
	}
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskDisable(t[0]));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRIUpdate(m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyLabelList(list));
	ASSERT_ACL_OK(aclrtDestroyLabel(lab[0]));
	ASSERT_ACL_OK(aclrtDestroyLabel(lab[1]));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(idx));
	ASSERT_ACL_OK(aclrtFree(w));
}

/*
 * A disabled EXTERNAL event wait: the run before the update waits for the
 * event's record, held behind a value wait; the run after it does not.
 */
TEST(disable_event_wait)
{
	aclrtStreamStatus sst;
	aclrtStream st, ext, gate;
	aclmdlRITaskParams p;
	aclmdlRITask t[2];
	aclrtEvent ev;
	aclmdlRI m;
	uint64_t *w;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&ext));
	ASSERT_ACL_OK(aclrtCreateStream(&gate));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(st, ev, 0, ACL_EVENT_WAIT_EXTERNAL));
	ASSERT_ACL_OK(aclrtValueWrite(w + 1, 6, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_EQ(2U, model_tasks(m, t, 2));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &p));
	EXPECT_EQ(ACL_MODEL_RI_TASK_EVENT_WAIT, p.type);
	EXPECT_TRUE(p.eventWaitTaskParams.event == ev);
	EXPECT_EQ(ACL_EVENT_WAIT_EXTERNAL, p.eventWaitTaskParams.waitFlag);
	/* an event task does not become a value task on npu (the model stays updatable) */
	memset(&p, 0, sizeof(p));
	p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
	p.valueWriteTaskParams.devAddr = w;
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskSetParams(t[0], &p));

	/* the record is held back: the run waits */
	ASSERT_ACL_OK(aclrtValueWait(w, 1, 0, ext));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, ext));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, st));
	usleep(100000);
	ASSERT_ACL_OK(aclrtStreamQuery(st, &sst));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, sst);
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, gate));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	EXPECT_EQ(6U, read_u64(w + 1));

	/* disabled: the next run does not wait for the record held back again */
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[0]));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtValueWait(w, 1, 0, ext));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, ext));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, st));
	ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(st, 5000));
	EXPECT_EQ(6U, read_u64(w + 1));
	ASSERT_ACL_OK(aclrtStreamQuery(ext, &sst));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, sst);
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, gate));
	ASSERT_ACL_OK(aclrtSynchronizeStream(ext));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtDestroyStream(ext));
	ASSERT_ACL_OK(aclrtDestroyStream(gate));
	ASSERT_ACL_OK(aclrtFree(w));
}

struct runner {
	aclrtContext ctx;
	aclmdlRI m;
	aclrtStream s;
	int runs;
	aclError err;
	int done;			/* atomic */
};

static void *runner_fn(void *arg)
{
	struct runner *r = arg;
	int i;

	if (aclrtSetCurrentContext(r->ctx))
		return NULL;
	for (i = 0; i < r->runs && !r->err; i++)
		r->err = run_sync(r->m, r->s);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Runs on another thread while this one changes and updates the model:
 * every run succeeds (one racing an update takes the new driver model),
 * every change and update succeeds or answers 107040 while a run is
 * queued, and the last value taken is the one written at the end.
 */
TEST(update_while_running_threads)
{
	struct runner r = { .runs = 50 };
	aclmdlRITaskParams p;
	aclmdlRITask t[1];
	uint64_t *w, last = 1;
	unsigned int ok = 0, busy = 0, i;
	pthread_t th;
	aclError e;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&r.s));
	ASSERT_ACL_OK(aclrtGetCurrentContext(&r.ctx));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(r.s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, r.s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(r.s, &r.m));
	ASSERT_EQ(1U, model_tasks(r.m, t, 1));
	ASSERT_EQ(0, pthread_create(&th, NULL, runner_fn, &r));
	/* as long as the runs go on */
	for (i = 2; i < 1000000 && !__atomic_load_n(&r.done, __ATOMIC_ACQUIRE); i++) {
		memset(&p, 0, sizeof(p));
		p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
		p.valueWriteTaskParams.devAddr = w;
		p.valueWriteTaskParams.value = i;
		e = aclmdlRITaskSetParams(t[0], &p);
		if (!e)
			e = aclmdlRIUpdate(r.m);
		if (e == ACL_ERROR_RT_MODEL_UPDATE_FAILED) {
			busy++;
			continue;
		}
		EXPECT_EQ(ACL_SUCCESS, e);
		if (e)
			break;
		ok++;
		last = i;
	}
	pthread_join(th, NULL);
	EXPECT_EQ(ACL_SUCCESS, r.err);
	TH_LOG("%u updates taken, %u refused while a run was queued", ok, busy);
	EXPECT_TRUE(ok > 0);
	ASSERT_ACL_OK(run_sync(r.m, r.s));
	EXPECT_EQ(last, read_u64(w));
	ASSERT_ACL_OK(aclmdlRIDestroy(r.m));
	ASSERT_ACL_OK(aclrtDestroyStream(r.s));
	ASSERT_ACL_OK(aclrtFree(w));
}

/*
 * aclmdlRIBindStream on a model whose task table is live: a built model
 * (bound stream still there, or unbound after the build) 507000, a
 * captured graph 107000; neither takes the stream (it runs its tasks
 * itself), and the model's recording - what its tasks show, change and
 * run - is as it was.
 */
TEST(bind_after_build_keeps_the_tasks)
{
	aclrtStream bs1, bs2, st;
	aclmdlRITaskParams p;
	aclmdlRITask t[3] = { NULL }, ct[1] = { NULL };
	aclmdlRI m, cm;
	uint64_t *w;
	uint32_t i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(w, 64, 0, 64));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bs1, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bs2, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(m, bs1, 0));
	ASSERT_ACL_OK(aclrtValueWrite(w, 11, 0, bs1));
	ASSERT_ACL_OK(aclrtValueWrite(w + 1, 22, 0, bs1));
	ASSERT_ACL_OK(aclmdlRIEndTask(m, bs1));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(m, NULL));
	ASSERT_EQ(2U, model_tasks(m, t, 3));

	/* its stream still bound, then unbound: no stream is taken */
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBindStream(m, bs2, 0));
	ASSERT_ACL_OK(aclmdlRIUnbindStream(m, bs1));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBindStream(m, bs2, 0));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBindStream(m, bs1, 0x7FFFFFFF));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(m, bs2));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIEndTask(m, bs2));
	/* the streams run their own tasks */
	ASSERT_ACL_OK(aclrtValueWrite(w + 2, 33, 0, bs2));
	ASSERT_ACL_OK(aclrtValueWrite(w + 3, 44, 0, bs1));
	ASSERT_ACL_OK(aclrtSynchronizeStream(bs2));
	ASSERT_ACL_OK(aclrtSynchronizeStream(bs1));
	EXPECT_EQ(33U, read_u64(w + 2));
	EXPECT_EQ(44U, read_u64(w + 3));

	/* the tasks are the recording's still */
	for (i = 0; i < 2; i++) {
		memset(&p, 0xa5, sizeof(p));
		EXPECT_ACL_OK(aclmdlRITaskGetParams(t[i], &p));
		EXPECT_EQ(ACL_MODEL_RI_TASK_VALUE_WRITE, p.type);
		EXPECT_TRUE(p.valueWriteTaskParams.devAddr == (void *)(w + i));
		EXPECT_EQ(11U * (i + 1), p.valueWriteTaskParams.value);
	}
	ASSERT_ACL_OK(aclrtMemset(w, 16, 0, 16));
	EXPECT_ACL_OK(aclmdlRIExecute(m, -1));
	EXPECT_EQ(11U, read_u64(w));
	EXPECT_EQ(22U, read_u64(w + 1));

	/* a captured graph: 107000, and its tasks still change and update */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w + 4, 55, 0, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &cm));
	ASSERT_EQ(1U, model_tasks(cm, ct, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(cm, bs2, 0));
	memset(&p, 0xa5, sizeof(p));
	EXPECT_ACL_OK(aclmdlRITaskGetParams(ct[0], &p));
	EXPECT_TRUE(p.valueWriteTaskParams.devAddr == (void *)(w + 4));
	EXPECT_EQ(55U, p.valueWriteTaskParams.value);
	p.valueWriteTaskParams.value = 66;
	EXPECT_ACL_OK(aclmdlRITaskSetParams(ct[0], &p));
	EXPECT_ACL_OK(aclmdlRIUpdate(cm));
	ASSERT_ACL_OK(run_sync(cm, st));
	EXPECT_EQ(66U, read_u64(w + 4));

	ASSERT_ACL_OK(aclmdlRIDestroy(cm));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetParams(t[0], &p));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtDestroyStream(bs2));
	ASSERT_ACL_OK(aclrtDestroyStream(bs1));
	ASSERT_ACL_OK(aclrtFree(w));
}

#define BINDERS		6	/* more threads than the machine's CPUs: they are preempted anywhere */
#define BIND_ROUNDS	150
#define BIND_SECONDS	5	/* or as many rounds as fit in this time */
#define BIND_WRITES	8

struct binder {
	aclrtContext ctx;
	aclrtStream s;			/* persistent, its own */
	aclmdlRI m;			/* this round's */
	unsigned int *spinning;		/* atomic: binders in their loop */
	aclError ret;			/* binder_fn: the first answer other than 207000 */
	unsigned long tries;
	unsigned long binds;		/* rebinder_fn: binds that succeeded */
	aclError odd;			/* rebinder_fn: an answer of neither kind, or 0 */
};

/* BINDERS binders of the current context into @b, each with a persistent stream. */
static aclError binders_new(struct binder *b, unsigned int *spinning)
{
	aclrtContext ctx;
	aclError ret;
	unsigned int i;

	ret = aclrtGetCurrentContext(&ctx);
	for (i = 0; !ret && i < BINDERS; i++) {
		memset(&b[i], 0, sizeof(b[i]));
		b[i].ctx = ctx;
		b[i].spinning = spinning;
		ret = aclrtCreateStreamWithConfig(&b[i].s, 0, ACL_STREAM_PERSISTENT);
	}
	return ret;
}

/* Start @fn on each binder of @b for model @m; back once they all spin. */
static int binders_start(struct binder *b, pthread_t *th, aclmdlRI m, void *(*fn)(void *))
{
	unsigned int i;

	__atomic_store_n(b[0].spinning, 0, __ATOMIC_RELEASE);
	for (i = 0; i < BINDERS; i++) {
		b[i].m = m;
		b[i].tries = 0;
		if (pthread_create(&th[i], NULL, fn, &b[i]))
			return -1;
	}
	while (__atomic_load_n(b[0].spinning, __ATOMIC_ACQUIRE) < BINDERS)
		sched_yield();
	return 0;
}

/* Bind this round's model as long as its build stream holds it (207000). */
static void *binder_fn(void *arg)
{
	struct binder *b = arg;

	b->ret = aclrtSetCurrentContext(b->ctx);
	if (b->ret)
		return NULL;
	__atomic_add_fetch(b->spinning, 1, __ATOMIC_RELEASE);
	do {
		b->ret = aclmdlRIBindStream(b->m, b->s, 0);
		b->tries++;
	} while (b->ret == ACL_ERROR_RT_FEATURE_NOT_SUPPORT && b->tries < 100000000UL);
	return NULL;
}

/*
 * Threads bind streams to a model being built while this one ends the
 * build and unbinds its stream: a bind that checked the model before the
 * build ended and takes it after the unbind must not make the recording -
 * which the built model's tasks show - anew. Every bind answers 507000
 * (built already), the tasks keep their parameters, the model runs them.
 */
TEST_TIMEOUT(bind_racing_build_end, 120)
{
	struct binder b[BINDERS];
	unsigned int spinning, round, i, bad = 0;
	aclmdlRITask t[BIND_WRITES + 1];
	pthread_t th[BINDERS];
	aclmdlRITaskParams p;
	struct timespec t0, now;
	aclrtStream bs;
	uint64_t *w;
	aclmdlRI m;

	NEED_DEVICE();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 8 * BIND_WRITES, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bs, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(binders_new(b, &spinning));
	for (round = 0; round < BIND_ROUNDS; round++) {
		ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));
		ASSERT_ACL_OK(aclmdlRIBindStream(m, bs, 0));
		for (i = 0; i < BIND_WRITES; i++)
			ASSERT_ACL_OK(aclrtValueWrite(w + i, round * 100 + i + 1, 0, bs));
		ASSERT_ACL_OK(aclmdlRIEndTask(m, bs));
		ASSERT_EQ(0, binders_start(b, th, m, binder_fn));
		ASSERT_ACL_OK(aclmdlRIBuildEnd(m, NULL));
		ASSERT_ACL_OK(aclmdlRIUnbindStream(m, bs));
		for (i = 0; i < BINDERS; i++) {
			pthread_join(th[i], NULL);
			EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, b[i].ret);
			bad += b[i].ret != ACL_ERROR_RT_INTERNAL_ERROR;
		}
		/* the recording the tasks show is the build's */
		ASSERT_EQ(BIND_WRITES, model_tasks(m, t, BIND_WRITES + 1));
		for (i = 0; i < BIND_WRITES; i++) {
			memset(&p, 0xa5, sizeof(p));
			EXPECT_ACL_OK(aclmdlRITaskGetParams(t[i], &p));
			EXPECT_TRUE(p.valueWriteTaskParams.devAddr == (void *)(w + i));
			EXPECT_EQ(round * 100 + i + 1, p.valueWriteTaskParams.value);
			bad += p.valueWriteTaskParams.value != round * 100 + i + 1;
		}
		ASSERT_ACL_OK(aclrtMemset(w, 8 * BIND_WRITES, 0, 8 * BIND_WRITES));
		ASSERT_ACL_OK(aclmdlRIExecute(m, -1));
		for (i = 0; i < BIND_WRITES; i++)
			EXPECT_EQ(round * 100 + i + 1, read_u64(w + i));
		ASSERT_ACL_OK(aclmdlRIDestroy(m));
		/* no binder's stream was left bound or recording */
		for (i = 0; i < BINDERS; i++) {
			EXPECT_ACL_OK(aclrtValueWrite(w, 7, 0, b[i].s));
			EXPECT_ACL_OK(aclrtSynchronizeStream(b[i].s));
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (bad || now.tv_sec - t0.tv_sec >= BIND_SECONDS)
			break;
	}
	TH_LOG("%u rounds", round < BIND_ROUNDS ? round + 1 : round);
	for (i = 0; i < BINDERS; i++)
		ASSERT_ACL_OK(aclrtDestroyStream(b[i].s));
	ASSERT_ACL_OK(aclrtDestroyStream(bs));
	ASSERT_ACL_OK(aclrtFree(w));
}

/* Bind and unbind this round's model until it is gone (107017). */
static void *rebinder_fn(void *arg)
{
	struct binder *b = arg;
	unsigned long n;
	aclError ret;

	if (aclrtSetCurrentContext(b->ctx))
		return NULL;
	__atomic_add_fetch(b->spinning, 1, __ATOMIC_RELEASE);
	for (n = 0; n < 100000000UL; n++) {
		/* 207000: another stream is bound now; 507000: the destroy began (no longer BUILDING) */
		ret = aclmdlRIBindStream(b->m, b->s, 0);
		if (ret == ACL_ERROR_RT_INVALID_HANDLE)
			break;
		if (ret != ACL_SUCCESS && ret != ACL_ERROR_RT_FEATURE_NOT_SUPPORT &&
		    ret != ACL_ERROR_RT_INTERNAL_ERROR && !b->odd)
			b->odd = ret;
		if (ret)
			continue;
		b->binds++;
		/* 107005: the destroy let the stream go first */
		ret = aclmdlRIUnbindStream(b->m, b->s);
		if (ret == ACL_ERROR_RT_INVALID_HANDLE)
			break;
		if (ret != ACL_SUCCESS && ret != ACL_ERROR_RT_STREAM_MODEL && !b->odd)
			b->odd = ret;
	}
	return NULL;
}

/*
 * Threads bind and unbind streams of their own to a model being built
 * while this one destroys it: a bind whose stream the destroy let go
 * before it began to record must not record into the model after all.
 * Every stream runs its own tasks afterwards.
 */
TEST_TIMEOUT(bind_racing_destroy, 120)
{
	struct binder b[BINDERS];
	unsigned int spinning, round, i, bad = 0;
	pthread_t th[BINDERS];
	struct timespec t0, now;
	unsigned long binds = 0;
	uint64_t *w;

	NEED_DEVICE();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 8 * BINDERS, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(binders_new(b, &spinning));
	for (round = 0; round < BIND_ROUNDS; round++) {
		aclmdlRI m;

		ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));
		ASSERT_EQ(0, binders_start(b, th, m, rebinder_fn));
		usleep(round % 7 * 100);
		ASSERT_ACL_OK(aclmdlRIDestroy(m));
		for (i = 0; i < BINDERS; i++) {
			pthread_join(th[i], NULL);
			EXPECT_EQ(ACL_SUCCESS, b[i].odd);
			bad += b[i].odd != ACL_SUCCESS;
		}
		/* no stream records into the destroyed model: each runs its own task */
		ASSERT_ACL_OK(aclrtMemset(w, 8 * BINDERS, 0, 8 * BINDERS));
		for (i = 0; i < BINDERS; i++) {
			EXPECT_ACL_OK(aclrtValueWrite(w + i, round + 1, 0, b[i].s));
			EXPECT_ACL_OK(aclrtSynchronizeStream(b[i].s));
			EXPECT_EQ(round + 1, read_u64(w + i));
			bad += read_u64(w + i) != round + 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (bad || now.tv_sec - t0.tv_sec >= BIND_SECONDS)
			break;
	}
	for (i = 0; i < BINDERS; i++)
		binds += b[i].binds;
	TH_LOG("%u rounds, %lu binds", round < BIND_ROUNDS ? round + 1 : round, binds);
	for (i = 0; i < BINDERS; i++)
		ASSERT_ACL_OK(aclrtDestroyStream(b[i].s));
	ASSERT_ACL_OK(aclrtFree(w));
}

/* How often @needle occurs in @hay. */
static unsigned int count_of(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* The file at @path, NUL-terminated (malloc'ed), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = calloc(1, 65536);
	n = buf ? fread(buf, 1, 65535, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = 0;
	return buf;
}

/* Do the brackets and braces outside strings pair up? */
static bool json_balanced(const char *s)
{
	int depth = 0;
	bool str = false;

	for (; *s; s++) {
		if (str) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				str = false;
			continue;
		}
		if (*s == '"')
			str = true;
		else if (*s == '[' || *s == '{')
			depth++;
		else if ((*s == ']' || *s == '}') && --depth < 0)
			return false;
	}
	return !depth && !str;
}

/* The debug prints: the log one succeeds, the JSON one writes the vendor's trace events. */
TEST(debug_print)
{
	char path[] = "/tmp/mdltask-XXXXXX";
	aclmdlRITask t[3];
	aclrtStream st;
	aclmdlRI m, empty;
	uint64_t *w;
	char *s;
	int fd;

	NEED_DEVICE();
	fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0);
	close(fd);
	ASSERT_ACL_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtValueWrite(w, 0x55, 0, st));
	ASSERT_ACL_OK(aclrtMemcpyAsync(w + 1, 8, w, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtValueWait(w, 0x55, ACL_STREAM_WAIT_VALUE_EQ, st));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &m));
	ASSERT_EQ(3U, model_tasks(m, t, 3));
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[2]));

	EXPECT_ACL_OK(aclmdlRIDebugPrint(m));
	ASSERT_ACL_OK(aclmdlRIDebugJsonPrint(m, path, ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY));
	s = slurp(path);
	ASSERT_NONNULL(s);
	EXPECT_EQ('[', s[0]);
	EXPECT_TRUE(json_balanced(s));
	EXPECT_EQ(3U, count_of(s, "\"ph\":\"X\""));
	EXPECT_EQ(1U, count_of(s, "\"Task Type\":\"MEM_WRITE_VALUE\""));
	EXPECT_EQ(1U, count_of(s, "\"Task Type\":\"MEMCPY_ASYNC\""));
	EXPECT_EQ(1U, count_of(s, "\"Task Type\":\"MEM_WAIT_VALUE\""));
	EXPECT_EQ(3U, count_of(s, "\"Model Id\":"));
	EXPECT_EQ(1U, count_of(s, "\"Task Id\":2,"));
	EXPECT_EQ(1U, count_of(s, "\"Disabled\":true"));
	EXPECT_EQ(0U, count_of(s, "ExtendInfo"));
	/* objects separated by commas, none after the last */
	EXPECT_EQ(2U, count_of(s, "}},\n"));
	EXPECT_EQ(0U, count_of(s, ",\n]"));
	free(s);
	ASSERT_ACL_OK(aclmdlRIDebugJsonPrint(m, path, ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE));
	s = slurp(path);
	ASSERT_NONNULL(s);
	EXPECT_TRUE(json_balanced(s));
	EXPECT_EQ(3U, count_of(s, "\"ExtendInfo\":"));
	/* the write's and the wait's value */
	EXPECT_EQ(2U, count_of(s, "value=0x55 "));
	/* the copy's length */
	EXPECT_EQ(1U, count_of(s, " length=8 "));
	free(s);

	/* a model of nothing: an empty array */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(st, &empty));
	ASSERT_ACL_OK(aclmdlRIDebugJsonPrint(empty, path, 0));
	s = slurp(path);
	ASSERT_NONNULL(s);
	EXPECT_STREQ("[\n]\n", s);
	free(s);
	EXPECT_ACL_OK(aclmdlRIDebugPrint(empty));
	unlink(path);
	ASSERT_ACL_OK(aclmdlRIDestroy(empty));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(w));
}

TEST_HARNESS_MAIN
