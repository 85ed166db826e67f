// SPDX-License-Identifier: MIT
/*
 * libacl: condition tasks of captured graphs (aclmdlRICondHandleCreate,
 * aclmdlRICondHandleGetCondPtr, aclmdlRIAddCondTask,
 * aclmdlRICaptureToModelRIBegin) and aclmdlRIAbort - every call's bad
 * input with the vendor's codes; the vendor example's IF, WHILE and SWITCH
 * flows (example/2_advanced_features/model_ri/3_cond_model) with copies,
 * memsets, value writes and reduces in place of its aclnn operators: IF
 * with one and two branches for the values 1, 0 and 1 << 32, a WHILE the
 * device counts down (0, 1, 7 and 300 rounds), a SWITCH for every index,
 * one past the end and an index with its high half set, each run several
 * times with other values and checked against a host model of the whole
 * buffers, read back whole and at another offset and length; ASSIGN_DEFAULT
 * against flag 0; a WHILE inside an IF's branch; npu's limits; an endless
 * WHILE stopped by aclmdlRIAbort and by aclrtStreamAbort; a destroy waits
 * for a queued run, which reads the value it owns, and refuses from a
 * host function of that run (107037); a forked child frees
 * its copy of the parent's condition state (counted by malloc). Skips
 * without /dev/npu0.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib_util.h"

#define LEN	4096		/* bytes of the output buffer */
#define PRE	0x5A		/* what the parent writes before its condition task */

static void put_u64(void *dev, uint64_t v)
{
	ASSERT_ACL_OK(aclrtMemcpy(dev, sizeof(v), &v, sizeof(v), ACL_MEMCPY_HOST_TO_DEVICE));
}

static uint64_t get_u64(const void *dev)
{
	uint64_t v = 0;

	EXPECT_ACL_OK(aclrtMemcpy(&v, sizeof(v), dev, sizeof(v), ACL_MEMCPY_DEVICE_TO_HOST));
	return v;
}

/* 8 bytes of device memory holding @v. */
static void *dev_word(uint64_t v)
{
	void *p = NULL;

	EXPECT_ACL_OK(aclrtMalloc(&p, 8, ACL_MEM_MALLOC_HUGE_FIRST));
	if (p)
		put_u64(p, v);
	return p;
}

/*
 * The device buffer @dev against the host model @want (LEN bytes): read
 * whole, and 300 bytes at offset 1000 into a buffer of another length.
 */
static int check_buf(const uint8_t *dev, const uint8_t *want)
{
	static uint8_t got[LEN], part[512];
	int bad = 0;

	memset(got, 0xEE, sizeof(got));
	memset(part, 0xEE, sizeof(part));
	if (aclrtMemcpy(got, LEN, dev, LEN, ACL_MEMCPY_DEVICE_TO_HOST) ||
	    aclrtMemcpy(part, sizeof(part), dev + 1000, 300, ACL_MEMCPY_DEVICE_TO_HOST))
		return -1;
	for (int i = 0; i < LEN; i++)
		bad += got[i] != want[i];
	for (int i = 0; i < 300; i++)
		bad += part[i] != want[1000 + i];
	for (int i = 300; i < (int)sizeof(part); i++)
		bad += part[i] != 0xEE;
	return bad;
}

/* The parent's capture on @s: its model, from aclmdlRICaptureGetInfo. */
static aclmdlRI capture_begin(aclrtStream s)
{
	aclmdlRICaptureStatus st;
	aclmdlRI m = NULL;

	EXPECT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	EXPECT_ACL_OK(aclmdlRICaptureGetInfo(s, &st, &m));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	return m;
}

static aclmdlRICondTaskParams params_of(aclmdlRICondHandle h, aclmdlRICondTaskType type, uint32_t size,
					aclmdlRI *subs)
{
	aclmdlRICondTaskParams p = { .handle = h, .type = type, .size = size, .modelRIArray = subs };

	return p;
}

TEST(bad_input)
{
	aclrtStream s, sub, other, gone;
	aclmdlRICondHandle h, h2, dead_h;
	aclmdlRI m, m2, built, dead, subs[3], done;
	uint64_t *ptr;
	aclmdlRICaptureStatus st;
	int cb_data = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	ASSERT_ACL_OK(aclrtCreateStream(&gone));
	ASSERT_ACL_OK(aclrtDestroyStream(gone));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&built, 0));
	/* a model that ended its capture: dead after its destroy */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(other, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(other, &done));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(other, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(other, &dead));
	ASSERT_ACL_OK(aclmdlRIDestroy(dead));

	m = capture_begin(s);
	ASSERT_NE(NULL, m);

	/* aclmdlRICondHandleCreate */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(NULL, 0, 0, &h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(m, 0, 0, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICondHandleCreate(dead, 0, 0, &h));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICondHandleCreate(m, 0, (aclmdlRICondHandleFlag)2, &h));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICondHandleCreate(m, 0, (aclmdlRICondHandleFlag)-1, &h));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICondHandleCreate(built, 0, 0, &h));
	/* captured already: not in its capture stage */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICondHandleCreate(done, 0, 0, &h));
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 7, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 0, 0, &h2));

	/* aclmdlRICondHandleGetCondPtr: 8 bytes of device memory, zero at first */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(NULL, &ptr));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(h, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICondHandleGetCondPtr((aclmdlRICondHandle)s, &ptr));
	ptr = NULL;
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(h2, &ptr));
	ASSERT_NE(NULL, ptr);
	EXPECT_EQ(0, (uintptr_t)ptr % 8);
	{
		aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;

		/* a synchronous copy while this thread captures */
		ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
		EXPECT_EQ(0ULL, get_u64(ptr));
		ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
	}

	/* aclmdlRIAddCondTask: the acl layer, the handles, then the runtime's order */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(params_of(h, 0, 1, subs), NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
		   aclmdlRIAddCondTask(params_of((aclmdlRICondHandle)s, 0, 1, subs), s, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIAddCondTask(params_of(h, 0, 1, subs), gone, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclmdlRIAddCondTask(params_of(h, (aclmdlRICondTaskType)3, 1, subs), s, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(params_of(h, 0, 1, subs), s, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(params_of(NULL, 0, 1, subs), s, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(params_of(h, 0, 1, NULL), s, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRIAddCondTask(params_of(h, 0, 1, subs), sub, 0));
	/* a capture of another model than the handle's */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(other, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(params_of(h, 0, 1, subs), other, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(other, &m2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 0, subs), s, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 3, subs), s, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_WHILE, 2, subs), s, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_SWITCH, 0, subs), s, 0));
	/* a refused task left the capture going */
	EXPECT_ACL_OK(aclmdlRICaptureGetInfo(s, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	subs[0] = subs[1] = subs[2] = NULL;
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 2, subs), s, 0));
	ASSERT_NE(NULL, subs[0]);
	ASSERT_NE(NULL, subs[1]);
	EXPECT_EQ(NULL, subs[2]);
	/* a handle takes one task */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 1, &subs[2]), s, 0));

	/* aclmdlRICaptureToModelRIBegin */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureToModelRIBegin(NULL, subs[0], 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureToModelRIBegin(sub, NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureToModelRIBegin(gone, subs[0], 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureToModelRIBegin(sub, dead, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureToModelRIBegin(sub, subs[0], (aclmdlRICaptureMode)3));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureToModelRIBegin(sub, built, 0));
	/* a captured graph, being captured or not, is no sub-model to capture into */
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRICaptureToModelRIBegin(sub, m, 0));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRICaptureToModelRIBegin(sub, done, 0));
	/* the parent's own stream captures already */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureToModelRIBegin(s, subs[0], 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRICaptureToModelRIBegin(other, subs[0], 0));
	EXPECT_ACL_OK(aclmdlRICaptureGetInfo(sub, &st, &m2));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	EXPECT_EQ(subs[0], m2);
	ASSERT_ACL_OK(aclrtMemsetAsync(ptr, 8, 0, 8, sub));
	m2 = NULL;
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &m2));
	EXPECT_EQ(subs[0], m2);
	/* captured once */
	EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRICaptureToModelRIBegin(sub, subs[0], 0));

	/* a sub-model runs, goes and stops with its parent only */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIExecuteAsync(subs[0], other));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIDestroy(subs[1]));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIAbort(subs[0]));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclmdlRIDestroyRegisterCallback(subs[0], (aclrtCallback)free, &cb_data));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIDestroyUnregisterCallback(subs[0], (aclrtCallback)free));

	/* aclmdlRIAbort */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAbort(NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIAbort(dead));
	/* nothing runs: nothing to stop */
	EXPECT_ACL_OK(aclmdlRIAbort(done));

	/* subs[1] never captured: an empty branch */
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m2));
	EXPECT_EQ(m, m2);
	/* the parent's capture ended: too late for its sub-models */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureToModelRIBegin(sub, subs[1], 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICondHandleCreate(m, 0, 0, &dead_h));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, other));
	ASSERT_ACL_OK(aclrtSynchronizeStream(other));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	/* the handles and sub-models went with it */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICondHandleGetCondPtr(h, &ptr));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIAddCondTask(params_of(h2, 0, 1, subs), s, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(subs[0], other));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(subs[1]));

	EXPECT_ACL_OK(aclmdlRIDestroy(done));
	EXPECT_ACL_OK(aclmdlRIDestroy(built));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(other));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * The vendor example's IF: the parent memsets the output to PRE, the
 * condition picks a branch, and the parent copies the output's first half
 * to its end after it. THEN: 0x11 over [0, 1024), the value 0xA1 as a
 * uint64_t at 2048; ELSE (with two branches): 0x22 over [512, 1536).
 */
static void if_model(uint8_t *want, uint64_t v, bool two, bool assign, uint32_t def)
{
	bool taken = (assign ? def : v) != 0;

	memset(want, PRE, LEN);
	if (taken) {
		uint64_t a1 = 0xA1;

		memset(want, 0x11, 1024);
		memcpy(want + 2048, &a1, 8);
	} else if (two) {
		memset(want + 512, 0x22, 1024);
	}
	memcpy(want + 3072, want, 1024);
}

/* @ev: an EXTERNAL record of it after the parent's memset (the graph is two driver models then). */
static void if_case(bool two, bool assign, uint32_t def, aclrtEvent ev)
{
	static const uint64_t values[] = { 1, 0, 1ULL << 32, 0, 0xFFFFFFFF00000000ULL, 2 };
	aclrtStream s, sub, run;
	aclmdlRICondHandle h;
	aclmdlRI m, subs[2] = { 0 };
	static uint8_t want[LEN];
	uint64_t *cond;
	uint8_t *out;

	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, LEN, ACL_MEM_MALLOC_HUGE_FIRST));

	m = capture_begin(s);
	ASSERT_ACL_OK(aclrtMemsetAsync(out, LEN, PRE, LEN, s));
	if (ev)
		ASSERT_ACL_OK(aclrtRecordEventWithFlag(ev, s, ACL_EVENT_RECORD_EXTERNAL));
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, def, assign ? ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT : 0, &h));
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(h, &cond));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, two ? 2 : 1, subs), s, 0));
	ASSERT_ACL_OK(aclrtMemcpyAsync(out + 3072, 1024, out, 1024, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	/* the sub-models after the parent's last task: still captured in their place */
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtMemsetAsync(out, 1024, 0x11, 1024, sub));
	ASSERT_ACL_OK(aclrtValueWrite(out + 2048, 0xA1, 0, sub));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &subs[0]));
	if (two) {
		ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[1], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
		ASSERT_ACL_OK(aclrtMemsetAsync(out + 512, 1024, 0x22, 1024, sub));
		ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &subs[1]));
	}
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	/* nothing ran yet */
	EXPECT_EQ(0ULL, get_u64(cond));

	for (unsigned int i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		put_u64(cond, values[i]);
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
		ASSERT_ACL_OK(aclrtSynchronizeStream(run));
		if_model(want, values[i], two, assign, def);
		if (check_buf(out, want))
			TH_LOG("IF (%s branch%s, %s %u%s): value %#llx", two ? "two" : "one", two ? "es" : "",
			       assign ? "ASSIGN_DEFAULT" : "flag 0, default", def, ev ? ", an event before" : "",
			       (unsigned long long)values[i]);
		EXPECT_EQ(0, check_buf(out, want));
		/* ASSIGN_DEFAULT: the run began with the default; flag 0: the value stays */
		EXPECT_EQ(assign ? (uint64_t)def : values[i], get_u64(cond));
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtFree(out));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
}

TEST(if_task)
{
	aclrtEvent ev;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	if_case(false, false, 1, NULL);
	if_case(true, false, 1, NULL);
	if_case(true, true, 0, NULL);
	if_case(true, true, 1, NULL);
	if_case(false, true, 5, NULL);
	if_case(true, false, 0, ev);
	if_case(true, true, 1, ev);
	EXPECT_ACL_OK(aclrtDestroyEvent(ev));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * The vendor example's WHILE, counted down on the device: the parent
 * copies the counter (an int32_t in a zeroed 8 bytes) into the condition,
 * the body adds 1 to acc and -1 to the counter (reduces) and copies the
 * counter into the condition again; after the loop, the parent writes 0xE0
 * to done. The device alone decides how often the body runs.
 */
TEST(while_task)
{
	static const int32_t rounds[] = { 0, 1, 7, 300, 2 };
	int32_t *counter, *acc, *one, *minus_one, got;
	aclrtStream s, sub, run;
	aclmdlRICondHandle h;
	aclmdlRI m, body[1];
	uint64_t *cond, *done;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	counter = dev_word(0);
	acc = dev_word(0);
	one = dev_word(1);
	minus_one = dev_word(0xFFFFFFFF);
	done = dev_word(0);

	m = capture_begin(s);
	/* ASSIGN_DEFAULT 9: overwritten by the parent's copy before the loop */
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 9, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(h, &cond));
	ASSERT_ACL_OK(aclrtMemcpyAsync(cond, 8, counter, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, body[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtReduceAsync(acc, one, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, sub, NULL));
	ASSERT_ACL_OK(aclrtReduceAsync(counter, minus_one, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, sub, NULL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(cond, 8, counter, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, sub));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &body[0]));
	ASSERT_ACL_OK(aclrtValueWrite(done, 0xE0, 0, s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));

	for (unsigned int i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
		put_u64(counter, (uint32_t)rounds[i]);
		put_u64(acc, 1000);
		put_u64(done, 0);
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
		ASSERT_ACL_OK(aclrtSynchronizeStream(run));
		ASSERT_ACL_OK(aclrtMemcpy(&got, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(1000 + rounds[i], got);
		EXPECT_EQ(0ULL, get_u64(counter));
		EXPECT_EQ(0ULL, get_u64(cond));
		EXPECT_EQ(0xE0ULL, get_u64(done));
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtFree(counter));
	EXPECT_ACL_OK(aclrtFree(acc));
	EXPECT_ACL_OK(aclrtFree(one));
	EXPECT_ACL_OK(aclrtFree(minus_one));
	EXPECT_ACL_OK(aclrtFree(done));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * The vendor example's SWITCH over three cases: case i memsets
 * [i * 1024, +1024) to 0x31 + i and writes i + 1 as a uint64_t at 3584;
 * an index past them runs none (the vendor's rule), as does one with its
 * high half set. The parent zeroes the output first.
 */
TEST(switch_task)
{
	static const uint64_t values[] = { 0, 1, 2, 3, (1ULL << 32) + 1, 1, 0xFFFFFFFFFFFFFFFFULL, 2 };
	static uint8_t want[LEN];
	aclrtStream s, sub, run;
	aclmdlRICondHandle h;
	aclmdlRI m, cases[3];
	uint64_t *cond;
	uint8_t *out;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, LEN, ACL_MEM_MALLOC_HUGE_FIRST));

	m = capture_begin(s);
	ASSERT_ACL_OK(aclrtMemsetAsync(out, LEN, 0, LEN, s));
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(h, &cond));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_SWITCH, 3, cases), s, 0));
	for (int i = 0; i < 3; i++) {
		ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, cases[i], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
		ASSERT_ACL_OK(aclrtMemsetAsync(out + i * 1024, 1024, 0x31 + i, 1024, sub));
		ASSERT_ACL_OK(aclrtValueWrite(out + 3584, i + 1, 0, sub));
		ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &cases[i]));
	}
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));

	for (unsigned int i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		put_u64(cond, values[i]);
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
		ASSERT_ACL_OK(aclrtSynchronizeStream(run));
		memset(want, 0, LEN);
		if (values[i] < 3) {
			uint64_t tag = values[i] + 1;

			memset(want + values[i] * 1024, 0x31 + (int)values[i], 1024);
			memcpy(want + 3584, &tag, 8);
		}
		if (check_buf(out, want))
			TH_LOG("SWITCH: value %#llx", (unsigned long long)values[i]);
		EXPECT_EQ(0, check_buf(out, want));
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtFree(out));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * A WHILE inside an IF's THEN (a sub-model's own condition task, its
 * handle made during the sub-model's capture), with ASSIGN_DEFAULT on the
 * inner handle: each run of THEN counts acc up by the counter's value.
 */
TEST(nested)
{
	int32_t *counter, *acc, *one, *minus_one, got;
	aclrtStream s, sub, sub2, run;
	aclmdlRICondHandle outer, inner;
	aclmdlRI m, then[1], body[1];
	uint64_t *ocond, *icond;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&sub2));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	counter = dev_word(0);
	acc = dev_word(0);
	one = dev_word(1);
	minus_one = dev_word(0xFFFFFFFF);

	m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 0, 0, &outer));
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(outer, &ocond));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(outer, ACL_MODEL_RI_COND_TYPE_IF, 1, then), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, then[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	/* the inner handle is the sub-model's: its default 1 at every run of the root */
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(then[0], 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &inner));
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(inner, &icond));
	/* a handle of the sub-model is no task of its parent's stream */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIAddCondTask(params_of(inner, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body), s, 0));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(inner, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body), sub, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub2, body[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtReduceAsync(acc, one, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, sub2, NULL));
	ASSERT_ACL_OK(aclrtReduceAsync(counter, minus_one, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, sub2, NULL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(icond, 8, counter, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, sub2));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub2, &body[0]));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &then[0]));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));

	for (int32_t n = 1; n <= 5; n += 2) {
		for (uint64_t v = 0; v < 2; v++) {
			put_u64(counter, (uint32_t)n);
			put_u64(acc, 0);
			put_u64(ocond, v);
			put_u64(icond, 0);
			ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
			ASSERT_ACL_OK(aclrtSynchronizeStream(run));
			ASSERT_ACL_OK(aclrtMemcpy(&got, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
			/* the inner value starts at its default 1: the body runs down the counter */
			EXPECT_EQ(v ? n : 0, got);
			EXPECT_EQ(v ? 0ULL : 1ULL, get_u64(icond));
		}
	}
	/* the model, its sub-models and handles go with the context */
	EXPECT_ACL_OK(aclrtFree(counter));
	EXPECT_ACL_OK(aclrtFree(acc));
	EXPECT_ACL_OK(aclrtFree(one));
	EXPECT_ACL_OK(aclrtFree(minus_one));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(sub2));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* A host function that counts its runs. */
static void host_count(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

/*
 * npu's limits: a parent ends after its sub-models; a sub-model holds no
 * host step (an EXTERNAL event, a host function).
 */
TEST(limits)
{
	int hosts = 0;
	aclrtStream s, sub;
	aclmdlRICondHandle h;
	aclmdlRI m, subs[1], got;
	aclmdlRICaptureStatus st;
	aclrtEvent ev;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));

	m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 1, subs), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	got = m;
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureEnd(s, &got));
	EXPECT_EQ(NULL, got);
	/* the model and its sub-model went: the sub-model's stream is free again */
	EXPECT_ACL_OK(aclmdlRICaptureGetInfo(sub, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(m));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICondHandleGetCondPtr(h, (uint64_t **)&got));

	/* an EXTERNAL event record in a sub-model */
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 1, subs), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtRecordEventWithFlag(ev, sub, ACL_EVENT_RECORD_EXTERNAL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureEnd(sub, &got));
	/* the parent goes on without it: its branch is empty */
	got = NULL;
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &got));
	EXPECT_EQ(m, got);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, sub));
	ASSERT_ACL_OK(aclrtSynchronizeStream(sub));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	/* a host function in a sub-model: the same */
	m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 1, subs), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(sub, host_count, &hosts));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureEnd(sub, &got));
	/* the parent's own host function around the task is kept */
	ASSERT_ACL_OK(aclrtLaunchHostFunc(s, host_count, &hosts));
	got = NULL;
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &got));
	EXPECT_EQ(m, got);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, sub));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, sub));
	ASSERT_ACL_OK(aclrtSynchronizeStream(sub));
	EXPECT_EQ(2, hosts);
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtDestroyEvent(ev));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * A WHILE whose body never clears its value runs until it is stopped:
 * by aclmdlRIAbort (its stream then takes new work, and the model runs
 * again), and by aclrtStreamAbort of the stream it runs on.
 */
TEST(abort_endless_while)
{
	int32_t *acc, *one, a1, a2;
	aclrtStream s, sub, run;
	aclmdlRICondHandle h;
	aclmdlRI m, body[1];
	uint64_t *cond, *after;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	acc = dev_word(0);
	one = dev_word(1);
	after = dev_word(0);

	m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(h, &cond));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, body[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtReduceAsync(acc, one, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, sub, NULL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &body[0]));
	ASSERT_ACL_OK(aclrtValueWrite(after, 0xAF, 0, s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));

	for (int how = 0; how < 2; how++) {
		aclrtStreamStatus status;

		put_u64(acc, 0);
		put_u64(after, 0);
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
		/* it starts (within 10 s however slow the machine), and keeps counting */
		a1 = 0;
		for (int t = 0; t < 1000 && a1 < 3; t++) {
			usleep(10 * 1000);
			ASSERT_ACL_OK(aclrtMemcpy(&a1, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
		}
		EXPECT_GE(a1, 3);
		a2 = a1;
		for (int t = 0; t < 1000 && a2 == a1; t++) {
			usleep(10 * 1000);
			ASSERT_ACL_OK(aclrtMemcpy(&a2, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
		}
		EXPECT_GT(a2, a1);
		ASSERT_ACL_OK(aclrtStreamQuery(run, &status));
		EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status);
		if (how == 0)
			ASSERT_ACL_OK(aclmdlRIAbort(m));
		else
			ASSERT_ACL_OK(aclrtStreamAbort(run));
		ASSERT_ACL_OK(aclrtSynchronizeStream(run));
		ASSERT_ACL_OK(aclrtMemcpy(&a1, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
		usleep(20 * 1000);
		ASSERT_ACL_OK(aclrtMemcpy(&a2, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(a1, a2);
		ASSERT_ACL_OK(aclrtStreamQuery(run, &status));
		EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, status);
		/* the loop never left: the parent's write after it did not run */
		EXPECT_EQ(0ULL, get_u64(after));
		/* the stream takes new work */
		ASSERT_ACL_OK(aclrtMemsetAsync(acc, 4, 0, 4, run));
		ASSERT_ACL_OK(aclrtSynchronizeStream(run));
		ASSERT_ACL_OK(aclrtMemcpy(&a1, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(0, a1);
	}
	/* nothing runs now: an abort stops nothing */
	EXPECT_ACL_OK(aclmdlRIAbort(m));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtFree(acc));
	EXPECT_ACL_OK(aclrtFree(one));
	EXPECT_ACL_OK(aclrtFree(after));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* aclmdlRIAbort stops an endless WHILE running on many streams at once, every one. */
TEST(abort_on_many_streams)
{
	enum { NRUN = 11 };
	aclrtStream s, sub, run[NRUN];
	aclrtStreamStatus status;
	aclmdlRICondHandle h;
	aclmdlRI m, body[1];
	int32_t *acc, *one, a1, a2;
	uint64_t *cond;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	for (i = 0; i < NRUN; i++)
		ASSERT_ACL_OK(aclrtCreateStream(&run[i]));
	acc = dev_word(0);
	one = dev_word(1);
	m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRICondHandleGetCondPtr(h, &cond));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, body[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtReduceAsync(acc, one, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, sub, NULL));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &body[0]));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));

	for (i = 0; i < NRUN; i++)
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run[i]));
	a1 = 0;
	for (int t = 0; t < 1000 && a1 < 3 * NRUN; t++) {
		usleep(10 * 1000);
		ASSERT_ACL_OK(aclrtMemcpy(&a1, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
	}
	EXPECT_GE(a1, 3 * NRUN);
	ASSERT_ACL_OK(aclmdlRIAbort(m));
	/* each stream's run stopped, the first ones too */
	for (i = 0; i < NRUN; i++) {
		EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(run[i], 10000));
		ASSERT_ACL_OK(aclrtStreamQuery(run[i], &status));
		EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, status);
	}
	ASSERT_ACL_OK(aclrtMemcpy(&a1, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
	usleep(20 * 1000);
	ASSERT_ACL_OK(aclrtMemcpy(&a2, 4, acc, 4, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(a1, a2);
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtFree(acc));
	EXPECT_ACL_OK(aclrtFree(one));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	for (i = 0; i < NRUN; i++)
		EXPECT_ACL_OK(aclrtDestroyStream(run[i]));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

static void *open_gate(void *gate)
{
	uint64_t one = 1;

	usleep(300 * 1000);
	aclrtSetDevice(0);
	aclrtMemcpy(gate, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * aclmdlRIDestroy of a graph with a condition task whose run is queued
 * behind a wait: the run reads the value the model owns, so the destroy
 * returns after it, which took its branch.
 */
TEST(destroy_waits_for_queued_run)
{
	aclrtStream s, sub, run;
	aclmdlRICondHandle h;
	aclmdlRI m, subs[2];
	uint64_t *gate, *out;
	pthread_t t;
	double t0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	gate = dev_word(0);
	out = dev_word(0);

	m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 2, subs), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtValueWrite(out, 0x7E, 0, sub));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &subs[0]));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[1], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtValueWrite(out, 0xEE, 0, sub));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &subs[1]));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));

	ASSERT_ACL_OK(aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_EQ, run));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
	ASSERT_EQ(0, pthread_create(&t, NULL, open_gate, gate));
	t0 = now_s();
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_GE(now_s() - t0, 0.2);
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(run));
	EXPECT_EQ(0x7EULL, get_u64(out));
	EXPECT_ACL_OK(aclrtFree(gate));
	EXPECT_ACL_OK(aclrtFree(out));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * aclmdlRIDestroy of a graph with a condition task from a host function
 * of its own run: the destroy waits for the graph's queued runs (their
 * values go with it), and this one cannot end before the host function
 * returns - the vendor's destroy polls its running graph for 10 s and
 * answers ACL_ERROR_RT_MODEL_RUNNING, the model staying; so does
 * libacl's, at once. The run then completes (its branch and the work
 * after the host function), and the model is destroyed after it.
 */
TEST(destroy_from_own_run_refused)
{
	struct destroy_own d = { 0 };
	aclrtStream s, sub, run;
	aclmdlRICondHandle h;
	aclmdlRI subs[1];
	uint64_t *out, *after;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&d.ctx));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	out = dev_word(0);
	after = dev_word(0);

	d.m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(d.m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 1, subs), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtValueWrite(out, 0x7E, 0, sub));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &subs[0]));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(s, hf_destroy_own, &d));
	ASSERT_ACL_OK(aclrtValueWrite(after, 0xAF, 0, s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &d.m));

	ASSERT_ACL_OK(aclmdlRIExecuteAsync(d.m, run));
	ASSERT_ACL_OK(aclrtSynchronizeStream(run));
	EXPECT_EQ(1, d.calls);
	EXPECT_EQ(ACL_ERROR_RT_MODEL_RUNNING, d.ret);
	EXPECT_EQ(0x7EULL, get_u64(out));
	EXPECT_EQ(0xAFULL, get_u64(after));
	/* it stayed: it runs again, and goes now */
	put_u64(after, 0);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(d.m, run));
	ASSERT_ACL_OK(aclrtSynchronizeStream(run));
	EXPECT_EQ(2, d.calls);
	EXPECT_EQ(ACL_ERROR_RT_MODEL_RUNNING, d.ret);
	EXPECT_EQ(0xAFULL, get_u64(after));
	ASSERT_ACL_OK(aclmdlRIDestroy(d.m));
	EXPECT_ACL_OK(aclrtFree(out));
	EXPECT_ACL_OK(aclrtFree(after));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* A host function of another stream that destroys a graph once its run is queued. */
struct other_destroy {
	aclrtContext ctx;
	aclmdlRI m;
	aclError ret;
	int started;		/* atomic: the host function holds the thread */
	int go;			/* atomic: the graph's run is queued */
};

static void hf_noop(void *arg)
{
	(void)arg;
}

static void hf_destroy_other(void *arg)
{
	struct other_destroy *d = arg;
	int i;

	__atomic_store_n(&d->started, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 5000 && !__atomic_load_n(&d->go, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	d->ret = aclrtSetCurrentContext(d->ctx);
	if (!d->ret)
		d->ret = aclmdlRIDestroy(d->m);
}

/*
 * The same from a host function of ANOTHER stream: the context's one
 * host-function thread runs it, and the graph's run has a host step
 * queued behind it on that thread - the destroy cannot wait for the run
 * here either: ACL_ERROR_RT_MODEL_RUNNING, not a hang. The run completes
 * once the host function returned.
 */
TEST(destroy_from_other_stream_hostfunc_refused)
{
	struct other_destroy d = { 0 };
	aclrtStream s, sub, run, other;
	aclmdlRICondHandle h;
	aclmdlRI subs[1];
	uint64_t *out, *after;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&d.ctx));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	out = dev_word(0);
	after = dev_word(0);

	d.m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(d.m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 1, subs), s, 0));
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	ASSERT_ACL_OK(aclrtValueWrite(out, 0x7E, 0, sub));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &subs[0]));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(s, hf_noop, NULL));
	ASSERT_ACL_OK(aclrtValueWrite(after, 0xAF, 0, s));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &d.m));

	ASSERT_ACL_OK(aclrtLaunchHostFunc(other, hf_destroy_other, &d));
	/* the host-function thread runs it before the run's step arrives */
	while (!__atomic_load_n(&d.started, __ATOMIC_ACQUIRE))
		usleep(1000);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(d.m, run));
	__atomic_store_n(&d.go, 1, __ATOMIC_RELEASE);
	ASSERT_ACL_OK(aclrtSynchronizeStream(other));
	EXPECT_EQ(ACL_ERROR_RT_MODEL_RUNNING, d.ret);
	ASSERT_ACL_OK(aclrtSynchronizeStream(run));
	EXPECT_EQ(0x7EULL, get_u64(out));
	EXPECT_EQ(0xAFULL, get_u64(after));
	ASSERT_ACL_OK(aclmdlRIDestroy(d.m));
	EXPECT_ACL_OK(aclrtFree(out));
	EXPECT_ACL_OK(aclrtFree(after));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtDestroyStream(other));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* Bytes of host memory malloc has handed out and not got back. */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

#define FORK_CMDS	40000	/* the sub-model's commands: 64 bytes each in its condition state */

/*
 * After fork the child has none of the parent's models (the driver's are
 * the parent's file's): it frees its copy of their host state, the
 * condition state included - here a sub-model's commands, kept for its
 * parent (2.5 MB), which the child's heap no longer holds. The parent's
 * capture goes on and its graph runs.
 */
TEST(fork_child_frees_condition_state)
{
	aclrtStream s, sub;
	aclmdlRICondHandle h;
	aclmdlRI m, subs[1];
	size_t before, after, grown;
	uint8_t *out, want[LEN];
	int i, status;
	pid_t pid;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&sub));
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, LEN, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(out, LEN, 0, LEN));

	m = capture_begin(s);
	ASSERT_ACL_OK(aclmdlRICondHandleCreate(m, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &h));
	ASSERT_ACL_OK(aclmdlRIAddCondTask(params_of(h, ACL_MODEL_RI_COND_TYPE_IF, 1, subs), s, 0));
	before = heap_in_use();
	ASSERT_ACL_OK(aclmdlRICaptureToModelRIBegin(sub, subs[0], ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
	for (i = 0; i < FORK_CMDS; i++)
		ASSERT_ACL_OK(aclrtMemsetAsync(out + i % 64, 1, (int32_t)(i & 0xFF), 1, sub));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(sub, &subs[0]));
	after = heap_in_use();
	grown = after - before;
	ASSERT_GE(grown, (size_t)FORK_CMDS * 64);

	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* the fork handlers ran: the parent's models are gone from the child's heap */
		size_t now = heap_in_use();

		if (now > after || after - now < grown * 3 / 4) {
			printf("# child: %zu bytes in use, %zu before the fork: the %zu of the sub-model's commands are still held\n",
			       now, after, grown);
			fflush(stdout);
			_exit(1);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* the parent's capture goes on: each run writes the last value of each byte */
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	memset(want, 0, sizeof(want));
	for (i = 0; i < FORK_CMDS; i++)
		want[i % 64] = (uint8_t)(i & 0xFF);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, sub));
	ASSERT_ACL_OK(aclrtSynchronizeStream(sub));
	EXPECT_EQ(0, check_buf(out, want));
	ASSERT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtFree(out));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtDestroyStream(sub));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
