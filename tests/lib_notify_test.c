// SPDX-License-Identifier: MIT
/*
 * libacl notifies: one-bit device flags set by a record and consumed by a
 * wait, in stream order. Skips without /dev/npu0.
 */
#include <pthread.h>

#include "lib_util.h"

FIXTURE(nt) {
	aclrtNotify n;
	aclrtStream a, b;
	uint64_t *dev;
};
FIXTURE_SETUP(nt)
{
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateNotify(&self->n, ACL_NOTIFY_DEFAULT));
	ASSERT_ACL_OK(aclrtCreateStream(&self->a));
	ASSERT_ACL_OK(aclrtCreateStream(&self->b));
	ASSERT_ACL_OK(aclrtMalloc((void **)&self->dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(self->dev, 4096, 0, 4096));
}
FIXTURE_TEARDOWN(nt)
{
	if (self->b)
		aclrtDestroyStreamForce(self->b);
}

/* "b waits for a": the wait blocks until the record, and each record releases one wait. */
TEST_F(nt, one_record_releases_one_wait)
{
	uint64_t v[2] = { 0, 0 };

	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->b, 0));
	ASSERT_ACL_OK(aclrtValueWrite(self->dev, 1, 0, self->b));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->b, 0));
	ASSERT_ACL_OK(aclrtValueWrite(self->dev + 1, 2, 0, self->b));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->b, 50));
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->a));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->a));
	/* the first wait passes and clears the flag; the second stays */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->b, 200));
	ASSERT_ACL_OK(aclrtMemcpy(v, 16, self->dev, 16, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(1U, v[0]);
	EXPECT_EQ(0U, v[1]);
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->a));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->b));
	ASSERT_ACL_OK(aclrtMemcpy(v, 16, self->dev, 16, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(2U, v[1]);
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

/* A record before the wait is kept; records do not accumulate. */
TEST_F(nt, records_do_not_accumulate)
{
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->a));
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->a));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->a));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->b, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->b));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->b, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->b, 100));
	/* a batch reset clears a set flag: the next wait blocks again */
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->a));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->b));
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->a));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->a));
	ASSERT_ACL_OK(aclrtNotifyBatchReset(&self->n, 1));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->b, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(self->b, 100));
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, self->a));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->b));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

/* A notify is the device's: another context on it may use it. */
TEST_F(nt, any_context_of_the_device)
{
	aclrtContext primary, ctx;
	aclrtStream s;
	uint32_t id = 0, id2 = 0;

	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtGetNotifyId(self->n, &id));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtGetNotifyId(self->n, &id2));
	EXPECT_EQ(id, id2);
	ASSERT_ACL_OK(aclrtRecordNotify(self->n, s));
	/* the stream is checked against the current context */
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordNotify(self->n, self->a));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtWaitAndResetNotify(self->n, self->b, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(self->b));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

static void *no_ctx_thread(void *arg)
{
	aclError *e = arg;
	aclrtNotify n;
	uint32_t id;

	e[0] = aclrtCreateNotify(&n, 0);
	e[1] = aclrtGetNotifyId(*(aclrtNotify *)(e + 4), &id);
	return NULL;
}

TEST_F(nt, bad_arguments)
{
	aclrtNotify n2, arr[2];
	aclError e[6];
	uint32_t id, id2;
	pthread_t t;

	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateNotify(NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateNotify(&n2, 2));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateNotify(&n2, ACL_NOTIFY_DEVICE_USE_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(self->n, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(NULL, &id));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(NULL, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtWaitAndResetNotify(NULL, NULL, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyNotify(NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify((aclrtNotify)self->a, NULL));
	ASSERT_ACL_OK(aclrtCreateNotify(&n2, 0));
	ASSERT_ACL_OK(aclrtGetNotifyId(self->n, &id));
	ASSERT_ACL_OK(aclrtGetNotifyId(n2, &id2));
	EXPECT_NE(id, id2);
	/* a thread without a context */
	memcpy(e + 4, &n2, sizeof(n2));
	ASSERT_EQ(0, pthread_create(&t, NULL, no_ctx_thread, e));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, e[0]);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, e[1]);
	/* batch reset: in order, stopping at the first bad element */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyBatchReset(NULL, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyBatchReset(arr, 0));
	arr[0] = n2;
	arr[1] = NULL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyBatchReset(arr, 2));
	ASSERT_ACL_OK(aclrtDestroyNotify(n2));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyNotify(n2));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetNotifyId(n2, &id));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNotifyBatchReset(arr, 1));
	/* no count notifies on the simulated chip (IPC notifies: lib_ipc_notify_test) */
	{
		aclrtCntNotify c;
		aclrtCntNotifyRecordInfo ri = { ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1 };

		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyCreate(&c, 0));
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyRecord(NULL, NULL, &ri));
	}
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

/* The simulated plain notify is one device's: another device's stream is refused. */
TEST_F(nt, other_device_stream)
{
	aclrtContext c1;
	aclrtStream s1;

	if (!have_npu(1))
		SKIP(return, "no /dev/npu1");
	ASSERT_ACL_OK(aclrtCreateContext(&c1, 1));
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRecordNotify(self->n, s1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtWaitAndResetNotify(self->n, s1, 0));
	ASSERT_ACL_OK(aclrtDestroyContext(c1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDestroyNotify(self->n));
}

TEST_HARNESS_MAIN
