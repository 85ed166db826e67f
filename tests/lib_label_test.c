// SPDX-License-Identifier: MIT
/*
 * libacl: explicit model builds (aclmdlRIBuildBegin, BindStream, EndTask,
 * BuildEnd, UnbindStream, Execute) and labels (aclrtCreateLabel,
 * SetLabel, label lists, aclrtSwitchLabelByIndex) - every call's bad
 * input with the vendor's codes; a three-way branch the device takes on an
 * index in device memory, for every index and one past the end, checked
 * against a model of the whole buffers; a loop the device runs on its own
 * (a counter decremented by a reduce task, a switch back to the body);
 * labels in a captured graph; a build that cannot resolve its labels
 * leaves an unusable model; streams let go by unbind, destroy and context
 * teardown; labels of another context. Skips without /dev/npu0.
 */
#include <stdint.h>

#include "lib_util.h"

#define LEN	4096		/* bytes of each branch's buffer */
#define HEAD	0		/* aclmdlRIBindStream's flag for the head stream */

/* A persistent stream bound to a new model. */
static void build_begin(aclmdlRI *m, aclrtStream *s)
{
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(s, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(m, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(*m, *s, HEAD));
}

static void build_end(aclmdlRI m, aclrtStream s)
{
	ASSERT_ACL_OK(aclmdlRIEndTask(m, s));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(m, NULL));
}

static void put_u32(void *dev, uint32_t v)
{
	ASSERT_ACL_OK(aclrtMemcpy(dev, sizeof(v), &v, sizeof(v), ACL_MEMCPY_HOST_TO_DEVICE));
}

TEST(bad_input)
{
	aclrtStream plain, ps, ps2, gone;
	aclrtLabel l[3], dead, lx;
	aclrtLabelList list, dead_list;
	aclmdlRICaptureStatus st;
	aclmdlRI m, m2, cap;
	uint32_t *idx;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&plain));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&ps2, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStream(&gone));
	ASSERT_ACL_OK(aclrtDestroyStream(gone));
	ASSERT_ACL_OK(aclrtMalloc((void **)&idx, 64, ACL_MEM_MALLOC_HUGE_FIRST));

	/* labels */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateLabel(NULL));
	ASSERT_ACL_OK(aclrtCreateLabel(&l[0]));
	ASSERT_ACL_OK(aclrtCreateLabel(&l[1]));
	ASSERT_ACL_OK(aclrtCreateLabel(&l[2]));
	ASSERT_ACL_OK(aclrtCreateLabel(&dead));
	ASSERT_ACL_OK(aclrtDestroyLabel(dead));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyLabel(NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyLabel(dead));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyLabel((aclrtLabel)plain));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetLabel(NULL, ps));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetLabel(l[0], NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetLabel(dead, ps));

	/* label lists */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateLabelList(NULL, 1, &list));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateLabelList(l, 1, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateLabelList(l, 0, &list));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateLabelList(l, 65536, &list));
	{
		aclrtLabel mixed[2] = { l[0], dead };

		EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtCreateLabelList(mixed, 2, &list));
	}
	ASSERT_ACL_OK(aclrtCreateLabel(&lx));
	ASSERT_ACL_OK(aclrtCreateLabelList(&lx, 1, &dead_list));
	ASSERT_ACL_OK(aclrtDestroyLabelList(dead_list));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyLabelList(NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyLabelList(dead_list));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyLabelList((aclrtLabelList)l[0]));

	/* a label in one list at most (the vendor's 507000), nor twice in one; l[2] stays unlisted */
	{
		aclrtLabel twice[2] = { l[1], l[1] };

		EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtCreateLabelList(twice, 2, &list));
	}
	ASSERT_ACL_OK(aclrtCreateLabelList(l, 2, &list));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtCreateLabelList(&l[1], 1, &dead_list));

	/* a stream that records nothing: 107005, before the switch's other checks */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtSetLabel(l[0], plain));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtSetLabel(l[0], ps));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtSwitchLabelByIndex(idx, 2, list, ps));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtSwitchLabelByIndex(idx, 0, list, ps));

	/* switch: NULLs (100000), handles */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(NULL, 2, list, ps));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(idx, 2, NULL, ps));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(idx, 2, list, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSwitchLabelByIndex(idx, 2, list, gone));

	/* BuildBegin */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildBegin(NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildBegin(&m, 1));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));

	/* BindStream: NULL, flag, handles, a stream that is not persistent (the default one neither) */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIBindStream(NULL, ps, HEAD));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(m, ps, 1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIBindStream((aclmdlRI)ps, ps, HEAD));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIBindStream(m, gone, HEAD));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(m, plain, HEAD));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(m, NULL, HEAD));

	/* nothing bound yet: EndTask 507000 (the vendor's STREAM_INVALID), Unbind and BuildEnd 107005; Execute 507011 */
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIEndTask(m, ps));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(m, ps));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildEnd(m, (void *)1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildEnd(NULL, NULL));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIBuildEnd(m, NULL));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_EXECUTE, aclmdlRIExecute(m, -1));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_EXECUTE, aclmdlRIExecuteAsync(m, plain));

	ASSERT_ACL_OK(aclmdlRIBindStream(m, ps, 0x7FFFFFFF));
	/* one stream a model (npu's), one model a stream */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIBindStream(m, ps2, HEAD));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&m2, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIBindStream(m2, ps, HEAD));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIEndTask(m2, ps));
	/* a bound stream is not captured: CaptureEnd leaves the build alone */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(ps, &cap));
	/* npu's checks of a switch on a recording stream: the list, maxValue, alignment */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSwitchLabelByIndex(idx, 2, dead_list, ps));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSwitchLabelByIndex(idx, 0, list, ps));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSwitchLabelByIndex(idx, 3, list, ps));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSwitchLabelByIndex((char *)idx + 2, 2, list, ps));
	/* a bound stream executes no model, and is not captured */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecuteAsync(m2, ps));
	st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
	EXPECT_ACL_OK(aclmdlRICaptureGetInfo(ps, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);

	/* SetLabel: a label in no list (507000), then set once (507000) */
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSetLabel(l[2], ps));
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(idx, 2, list, ps));
	ASSERT_ACL_OK(aclrtSetLabel(l[0], ps));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSetLabel(l[0], ps));
	ASSERT_ACL_OK(aclrtSetLabel(l[1], ps));

	/* not ended: 507011; ended: the stream takes no more */
	EXPECT_ACL(ACL_ERROR_RT_MODEL_EXECUTE, aclmdlRIBuildEnd(m, NULL));
	ASSERT_ACL_OK(aclmdlRIEndTask(m, ps));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIEndTask(m, ps));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(idx, 64, 0, 64, ps));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(m, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBuildEnd(m, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBindStream(m, ps2, HEAD));

	/* Execute: timeouts 0 and below -1; a captured graph is not executed synchronously */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIExecute(NULL, -1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(m, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(m, -2));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(plain, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(plain, &cap));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(cap, -1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(cap, ps2, HEAD));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIEndTask(cap, ps));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(cap, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIUnbindStream(cap, ps));
	ASSERT_ACL_OK(aclmdlRIDestroy(cap));

	/* index 0: label 0 at the end; the model runs */
	put_u32(idx, 0);
	EXPECT_ACL_OK(aclmdlRIExecute(m, 10000));
	EXPECT_ACL_OK(aclmdlRIExecuteAsync(m, plain));
	EXPECT_ACL_OK(aclrtSynchronizeStream(plain));

	/* Unbind: NULL, not bound, then bound; the stream runs its tasks again */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIUnbindStream(NULL, ps));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(m, ps2));
	ASSERT_ACL_OK(aclmdlRIUnbindStream(m, ps));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(m, ps));
	EXPECT_ACL_OK(aclrtMemsetAsync(idx, 64, 0, 64, ps));
	EXPECT_ACL_OK(aclrtSynchronizeStream(ps));
	/* the model runs without its stream */
	EXPECT_ACL_OK(aclmdlRIExecute(m, -1));

	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m2));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecute(m, -1));
	EXPECT_ACL_OK(aclrtDestroyLabelList(list));
	for (int i = 0; i < 3; i++)
		EXPECT_ACL_OK(aclrtDestroyLabel(l[i]));
	EXPECT_ACL_OK(aclrtDestroyLabel(lx));
	EXPECT_ACL_OK(aclrtFree(idx));
	EXPECT_ACL_OK(aclrtDestroyStream(plain));
	EXPECT_ACL_OK(aclrtDestroyStream(ps));
	EXPECT_ACL_OK(aclrtDestroyStream(ps2));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * switch(idx) { 0: A = 0x11; goto end; 1: A = 0x22; goto end; default: A = 0x33; }
 * end: B = 0x44 - the gotos are switches on a word that holds 0. Every
 * index, one past the end, synchronous and stream-ordered executions, new
 * input each time; A and B checked whole, and read back at offsets.
 */
TEST(switch_branches)
{
	static const uint8_t want[] = { 0x11, 0x22, 0x33, 0x33, 0x33 };
	aclrtLabel br[3], end;
	aclrtLabelList list, to_end;
	aclrtStream ps, run;
	uint8_t *a, *b, *host;
	uint32_t *idx, *zero;
	aclmdlRI m;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, LEN, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&b, LEN, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&idx, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&zero, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&host, LEN));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	put_u32(zero, 0);
	for (int i = 0; i < 3; i++)
		ASSERT_ACL_OK(aclrtCreateLabel(&br[i]));
	ASSERT_ACL_OK(aclrtCreateLabel(&end));
	ASSERT_ACL_OK(aclrtCreateLabelList(br, 3, &list));
	ASSERT_ACL_OK(aclrtCreateLabelList(&end, 1, &to_end));

	build_begin(&m, &ps);
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(idx, 3, list, ps));
	ASSERT_ACL_OK(aclrtSetLabel(br[0], ps));
	ASSERT_ACL_OK(aclrtMemsetAsync(a + 64, LEN - 128, 0x11, LEN - 128, ps));
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(zero, 1, to_end, ps));
	ASSERT_ACL_OK(aclrtSetLabel(br[1], ps));
	ASSERT_ACL_OK(aclrtMemsetAsync(a + 64, LEN - 128, 0x22, LEN - 128, ps));
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(zero, 1, to_end, ps));
	ASSERT_ACL_OK(aclrtSetLabel(br[2], ps));
	ASSERT_ACL_OK(aclrtMemsetAsync(a + 64, LEN - 128, 0x33, LEN - 128, ps));
	ASSERT_ACL_OK(aclrtSetLabel(end, ps));
	ASSERT_ACL_OK(aclrtMemsetAsync(b, LEN, 0x44, LEN, ps));
	build_end(m, ps);
	/* the labels may go: the model and its lists keep what they need */
	ASSERT_ACL_OK(aclrtDestroyLabelList(list));
	for (int i = 0; i < 3; i++)
		ASSERT_ACL_OK(aclrtDestroyLabel(br[i]));

	for (uint32_t i = 0; i < 2 * sizeof(want); i++) {
		uint32_t index = i % sizeof(want);

		ASSERT_ACL_OK(aclrtMemset(a, LEN, 0, LEN));
		ASSERT_ACL_OK(aclrtMemset(b, LEN, 0, LEN));
		if (i < sizeof(want)) {
			put_u32(idx, index);
			ASSERT_ACL_OK(aclmdlRIExecute(m, -1));
		} else {
			/* the index written in stream order just before the run */
			ASSERT_ACL_OK(aclrtMemcpyAsync(idx, 4, &index, 4, ACL_MEMCPY_HOST_TO_DEVICE, run));
			ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
			ASSERT_ACL_OK(aclrtSynchronizeStream(run));
		}
		ASSERT_ACL_OK(aclrtMemcpy(host, LEN, a, LEN, ACL_MEMCPY_DEVICE_TO_HOST));
		for (int j = 0; j < LEN; j++) {
			uint8_t exp = j >= 64 && j < LEN - 64 ? want[index] : 0;

			if (host[j] != exp) {
				TH_LOG("index %u: A[%d] = %#x, want %#x", index, j, host[j], exp);
				ASSERT_EQ(exp, host[j]);
			}
		}
		/* B at another offset and length than written */
		memset(host, 0, LEN);
		ASSERT_ACL_OK(aclrtMemcpy(host, 100, b + 1000, 100, ACL_MEMCPY_DEVICE_TO_HOST));
		for (int j = 0; j < 100; j++)
			ASSERT_EQ(0x44, host[j]);
	}
	ASSERT_ACL_OK(aclmdlRIUnbindStream(m, ps));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtDestroyLabelList(to_end));
	EXPECT_ACL_OK(aclrtDestroyLabel(end));
	EXPECT_ACL_OK(aclrtDestroyStream(ps));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtFree(a));
	EXPECT_ACL_OK(aclrtFree(b));
	EXPECT_ACL_OK(aclrtFree(idx));
	EXPECT_ACL_OK(aclrtFree(zero));
	EXPECT_ACL_OK(aclrtFreeHost(host));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * do { acc += 1; counter -= 1; } while (counter) - on the device alone:
 * the decrement is a reduce (SUM of -1), the loop a switch back to its
 * body while the counter is not 0 (index 0: the exit; past it: the body).
 */
TEST(device_loop)
{
	static const uint32_t rounds[] = { 1, 7, 300 };
	int32_t *counter, *acc, *one, *minus_one, got;
	aclrtLabel lab[2];
	aclrtLabelList list;
	aclrtStream ps;
	aclmdlRI m;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&counter, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&acc, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&one, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&minus_one, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	put_u32(one, 1);
	put_u32(minus_one, (uint32_t)-1);
	ASSERT_ACL_OK(aclrtCreateLabel(&lab[0]));	/* the exit */
	ASSERT_ACL_OK(aclrtCreateLabel(&lab[1]));	/* the body */
	ASSERT_ACL_OK(aclrtCreateLabelList(lab, 2, &list));

	build_begin(&m, &ps);
	ASSERT_ACL_OK(aclrtSetLabel(lab[1], ps));
	ASSERT_ACL_OK(aclrtReduceAsync(acc, one, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, ps, NULL));
	ASSERT_ACL_OK(aclrtReduceAsync(counter, minus_one, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, ps, NULL));
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(counter, 2, list, ps));
	ASSERT_ACL_OK(aclrtSetLabel(lab[0], ps));
	build_end(m, ps);

	for (unsigned int i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
		put_u32(counter, rounds[i]);
		put_u32(acc, 1000);
		ASSERT_ACL_OK(aclmdlRIExecute(m, -1));
		ASSERT_ACL_OK(aclrtMemcpy(&got, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(1000 + (int32_t)rounds[i], got);
		ASSERT_ACL_OK(aclrtMemcpy(&got, 4, counter, 4, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(0, got);
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	/* destroyed with its stream bound: the stream is let go, and runs tasks */
	ASSERT_ACL_OK(aclrtMemsetAsync(acc, 4, 0, 4, ps));
	ASSERT_ACL_OK(aclrtSynchronizeStream(ps));
	EXPECT_ACL_OK(aclrtDestroyLabelList(list));
	EXPECT_ACL_OK(aclrtDestroyLabel(lab[0]));
	EXPECT_ACL_OK(aclrtDestroyLabel(lab[1]));
	EXPECT_ACL_OK(aclrtDestroyStream(ps));
	EXPECT_ACL_OK(aclrtFree(counter));
	EXPECT_ACL_OK(aclrtFree(acc));
	EXPECT_ACL_OK(aclrtFree(one));
	EXPECT_ACL_OK(aclrtFree(minus_one));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* Labels and switches recorded by a capture (aclmdlRICaptureBegin) run as in a build. */
TEST(labels_in_capture)
{
	aclrtLabel lab[2], end;
	aclrtLabelList list, to_end;
	uint32_t *idx, *zero;
	uint8_t *a, host[16];
	aclrtStream s;
	aclmdlRI m;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc((void **)&a, LEN, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&idx, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc((void **)&zero, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	put_u32(zero, 0);
	ASSERT_ACL_OK(aclrtCreateLabel(&lab[0]));
	ASSERT_ACL_OK(aclrtCreateLabel(&lab[1]));
	ASSERT_ACL_OK(aclrtCreateLabelList(lab, 2, &list));
	ASSERT_ACL_OK(aclrtCreateLabel(&end));
	ASSERT_ACL_OK(aclrtCreateLabelList(&end, 1, &to_end));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	/* if (idx) a = 0x5a; else a = 0xa5; */
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(idx, 2, list, s));
	ASSERT_ACL_OK(aclrtSetLabel(lab[0], s));
	ASSERT_ACL_OK(aclrtMemsetAsync(a, LEN, 0xa5, LEN, s));
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(zero, 1, to_end, s));
	ASSERT_ACL_OK(aclrtSetLabel(lab[1], s));
	ASSERT_ACL_OK(aclrtMemsetAsync(a, LEN, 0x5a, LEN, s));
	ASSERT_ACL_OK(aclrtSetLabel(end, s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));

	for (uint32_t i = 0; i < 4; i++) {
		ASSERT_ACL_OK(aclrtMemcpyAsync(idx, 4, &i, 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, s));
		ASSERT_ACL_OK(aclrtSynchronizeStream(s));
		ASSERT_ACL_OK(aclrtMemcpy(host, sizeof(host), a + LEN - sizeof(host), sizeof(host),
					  ACL_MEMCPY_DEVICE_TO_HOST));
		for (unsigned int j = 0; j < sizeof(host); j++)
			ASSERT_EQ(i ? 0x5a : 0xa5, host[j]);
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	/* labels are set once: a second capture cannot set them again */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSetLabel(lab[0], s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtDestroyLabelList(list));
	EXPECT_ACL_OK(aclrtDestroyLabelList(to_end));
	EXPECT_ACL_OK(aclrtDestroyLabel(lab[0]));
	EXPECT_ACL_OK(aclrtDestroyLabel(lab[1]));
	EXPECT_ACL_OK(aclrtDestroyLabel(end));
	EXPECT_ACL_OK(aclrtFree(a));
	EXPECT_ACL_OK(aclrtFree(idx));
	EXPECT_ACL_OK(aclrtFree(zero));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * A switch to a label never set, or set in another model, fails the
 * build (npu's: the vendor's device would jump through an invalid entry);
 * the model cannot run then, and is destroyed as any.
 */
TEST(unresolved_labels)
{
	aclrtLabel lab[3];
	aclrtLabelList list, list2;
	aclrtStream ps, ps2, ps3;
	aclmdlRI m, m2;
	uint32_t *idx;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&idx, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	for (int i = 0; i < 3; i++)
		ASSERT_ACL_OK(aclrtCreateLabel(&lab[i]));
	ASSERT_ACL_OK(aclrtCreateLabelList(lab, 2, &list));
	ASSERT_ACL_OK(aclrtCreateLabelList(&lab[2], 1, &list2));

	/* lab[1] and lab[2] are set in m2, lab[0] nowhere */
	build_begin(&m2, &ps2);
	ASSERT_ACL_OK(aclrtSetLabel(lab[1], ps2));
	ASSERT_ACL_OK(aclrtSetLabel(lab[2], ps2));
	build_end(m2, ps2);
	build_begin(&m, &ps);
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(idx, 2, list, ps));
	ASSERT_ACL_OK(aclmdlRIEndTask(m, ps));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBuildEnd(m, NULL));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_EXECUTE, aclmdlRIExecute(m, -1));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBuildEnd(m, NULL));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m2));

	/* a list of a label set in m2 only: still not m's */
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&ps3, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(m, ps3, HEAD));
	ASSERT_ACL_OK(aclrtSwitchLabelByIndex(idx, 1, list2, ps3));
	ASSERT_ACL_OK(aclmdlRIEndTask(m, ps3));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBuildEnd(m, NULL));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	EXPECT_ACL_OK(aclrtDestroyLabelList(list));
	EXPECT_ACL_OK(aclrtDestroyLabelList(list2));
	EXPECT_ACL_OK(aclrtDestroyStream(ps3));
	for (int i = 0; i < 3; i++)
		EXPECT_ACL_OK(aclrtDestroyLabel(lab[i]));
	EXPECT_ACL_OK(aclrtDestroyStream(ps));
	EXPECT_ACL_OK(aclrtDestroyStream(ps2));
	EXPECT_ACL_OK(aclrtFree(idx));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* Labels, lists and models are their context's: 507031 and 107004 in another. */
TEST(other_context)
{
	aclrtContext c1, c2;
	aclrtLabel lab;
	aclrtLabelList list;
	aclrtStream ps;
	aclmdlRI m;
	uint32_t *idx;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateContext(&c1, 0));
	ASSERT_ACL_OK(aclrtMalloc((void **)&idx, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtCreateLabel(&lab));
	ASSERT_ACL_OK(aclrtCreateLabelList(&lab, 1, &list));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));
	ASSERT_ACL_OK(aclrtCreateContext(&c2, 0));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&ps, 0, ACL_STREAM_PERSISTENT));
	EXPECT_ACL(ACL_ERROR_RT_LABEL_CONTEXT, aclrtSetLabel(lab, ps));
	EXPECT_ACL(ACL_ERROR_RT_LABEL_CONTEXT, aclrtDestroyLabel(lab));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CONTEXT, aclmdlRIBindStream(m, ps, HEAD));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&m, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(m, ps, HEAD));
	EXPECT_ACL(ACL_ERROR_RT_LABEL_CONTEXT, aclrtSwitchLabelByIndex(idx, 1, list, ps));
	/* c2 goes with its model, its stream bound */
	ASSERT_ACL_OK(aclrtDestroyContext(c2));
	ASSERT_ACL_OK(aclrtSetCurrentContext(c1));
	EXPECT_ACL_OK(aclrtDestroyLabelList(list));
	EXPECT_ACL_OK(aclrtDestroyLabel(lab));
	EXPECT_ACL_OK(aclrtFree(idx));
	ASSERT_ACL_OK(aclrtDestroyContext(c1));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
