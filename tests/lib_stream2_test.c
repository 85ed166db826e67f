// SPDX-License-Identifier: MIT
/*
 * libacl streams, continued: config handles and aclrtCreateStreamV2, the
 * stream attributes, aclrtGetStreamAvailableNum, stream state callbacks,
 * task ids and what is cached for a task, profiling markers,
 * aclrtPersistentTaskClean, aclrtGetHardwareSyncAddr. Those that need a
 * device skip without /dev/npu0.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "lib_util.h"

/* The thread's last error is @code, and taking it leaves none. */
#define EXPECT_LAST(code) do {								\
	EXPECT_EQ((aclError)(code), aclrtGetLastError(ACL_RT_THREAD_LEVEL));		\
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));		\
} while (0)

/* A word of device memory no one writes: a stream waiting for it holds. */
static uint64_t *zero_word(void)
{
	uint64_t *w = NULL;

	EXPECT_EQ(ACL_SUCCESS, aclrtMalloc((void **)&w, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_EQ(ACL_SUCCESS, aclrtMemset(w, 4096, 0, 4096));
	return w;
}

/* Config handles need neither aclInit nor a device. */
TEST(config_handle_options)
{
	aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
	uint32_t prio = 7, big = 8, flag32 = ACL_STREAM_FAST_LAUNCH;
	size_t flag = ACL_STREAM_PERSISTENT, size = 4096;
	void *ptr = &size;

	ASSERT_NONNULL(h);
	EXPECT_EQ(NULL, h->workptr);
	EXPECT_EQ(0U, h->workSize);
	EXPECT_EQ(0U, h->flag);
	EXPECT_EQ(0U, h->priority);
	ASSERT_ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)));
	EXPECT_EQ(7U, h->priority);
	ASSERT_ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof(flag)));
	EXPECT_EQ((size_t)ACL_STREAM_PERSISTENT, h->flag);
	/* CANN's own example passes a uint32_t flag */
	ASSERT_ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag32, sizeof(flag32)));
	EXPECT_EQ((size_t)ACL_STREAM_FAST_LAUNCH, h->flag);
	ASSERT_ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, &ptr, sizeof(ptr)));
	EXPECT_EQ(ptr, h->workptr);
	ASSERT_ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &size, sizeof(size)));
	EXPECT_EQ(4096U, h->workSize);

	/* every refusal is the acl layer's: 100000, no last error */
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &big, sizeof(big)));
	EXPECT_EQ(7U, h->priority);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &flag, sizeof(flag)));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, 2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &prio, sizeof(prio)));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, &prio, 4));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)4, &prio, sizeof(prio)));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)-1, &prio, sizeof(prio)));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio, 4));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, NULL, 4));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamConfigHandle(NULL));
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_ACL_OK(aclrtDestroyStreamConfigHandle(h));
}

TEST(create_stream_v2)
{
	aclrtStreamConfigHandle *h;
	aclrtStream s;
	uint32_t v, prio = 5;
	size_t flag = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_PERSISTENT | (1ULL << 40) | 0x1000;

	NEED_DEVICE();
	h = aclrtCreateStreamConfigHandle();
	ASSERT_NONNULL(h);
	/* no handle: priority 0, no flags */
	ASSERT_ACL_OK(aclrtCreateStreamV2(&s, NULL));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &v));
	EXPECT_EQ(0U, v);
	ASSERT_ACL_OK(aclrtStreamGetFlags(s, &v));
	EXPECT_EQ(0U, v);
	ASSERT_ACL_OK(aclrtMemsetAsync(zero_word(), 8, 1, 8, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	/* known flags kept, unknown dropped, as aclrtCreateStreamWithConfig */
	ASSERT_ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)));
	ASSERT_ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof(flag)));
	ASSERT_ACL_OK(aclrtCreateStreamV2(&s, h));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &v));
	EXPECT_EQ(5U, v);
	ASSERT_ACL_OK(aclrtStreamGetFlags(s, &v));
	EXPECT_EQ(ACL_STREAM_FAST_LAUNCH | ACL_STREAM_PERSISTENT, v);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	/* a priority written into the struct directly is clamped */
	h->priority = 100;
	h->flag = 0;
	ASSERT_ACL_OK(aclrtCreateStreamV2(&s, h));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &v));
	EXPECT_EQ(7U, v);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	/* DEVICE_USE_ONLY with another flag: the runtime's 107000, the last error */
	h->flag = ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_SYNC;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateStreamV2(&s, h));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamV2(NULL, h));
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_ACL_OK(aclrtDestroyStreamConfigHandle(h));
}

static void *avail_no_context(void *arg)
{
	aclError *e = arg;
	uint32_t n;

	e[0] = aclrtGetStreamAvailableNum(&n);
	e[1] = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	return NULL;
}

TEST(stream_available_num)
{
	aclError e[2] = { 0, 0 };
	uint32_t n0, n1, n2;
	aclrtStream s;
	pthread_t t;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetStreamAvailableNum(&n0));
	/* npu.ko's default max_streams is 1024; the default stream and the copy streams hold some */
	EXPECT_LT(0U, n0);
	EXPECT_GT(1024U, n0);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtGetStreamAvailableNum(&n1));
	EXPECT_EQ(n0 - 1, n1);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtGetStreamAvailableNum(&n2));
	EXPECT_EQ(n0, n2);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAvailableNum(NULL));
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_EQ(0, pthread_create(&t, NULL, avail_no_context, e));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, e[0]);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, e[1]);
}

/* Set and read back every attribute, on the stream and on NULL. */
TEST(stream_attributes)
{
	aclrtStreamAttrValue v;
	aclrtStream s;
	uint32_t u;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));

	memset(&v, 0, sizeof(v));
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_EQ((uint64_t)ACL_CONTINUE_ON_FAILURE, v.failureMode);
	v.failureMode = ACL_STOP_ON_FAILURE;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	memset(&v, 0, sizeof(v));
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_EQ((uint64_t)ACL_STOP_ON_FAILURE, v.failureMode);
	/* STOP back to CONTINUE: 207000, which CANN records through this call */
	v.failureMode = ACL_CONTINUE_ON_FAILURE;
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* ... and not through aclrtSetStreamFailureMode (its NOLOG return) */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);

	/* the overflow switch is aclrtSetStreamOverflowSwitch's */
	v.overflowSwitch = 1;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
	ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(s, &u));
	EXPECT_EQ(1U, u);
	ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 0));
	v.overflowSwitch = 7;
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
	EXPECT_EQ(0U, v.overflowSwitch);
	v.overflowSwitch = 2;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	v.overflowSwitch = 1;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
	ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(NULL, &u));
	EXPECT_EQ(1U, u);

	/* the user tag: any value; NULL is the default stream */
	v.userCustomTag = 0xdeadbeef;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	v.userCustomTag = 5;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	v.userCustomTag = 0;
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	EXPECT_EQ(0xdeadbeefU, v.userCustomTag);
	ASSERT_ACL_OK(aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	EXPECT_EQ(5U, v.userCustomTag);

	/* the op-info cache switch: 0 or 1, no NULL stream */
	v.cacheOpInfoSwitch = 1;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	v.cacheOpInfoSwitch = 0;
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	EXPECT_EQ(1U, v.cacheOpInfoSwitch);
	v.cacheOpInfoSwitch = 2;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	v.cacheOpInfoSwitch = 1;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));

	/* the priority: clamped as at creation, then the stream's */
	v.streamPriority = 3;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &u));
	EXPECT_EQ(3U, u);
	v.streamPriority = 100;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	v.streamPriority = 0;
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	EXPECT_EQ(7U, v.streamPriority);
	v.streamPriority = UINT32_MAX;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	ASSERT_ACL_OK(aclrtStreamGetPriority(s, &u));
	EXPECT_EQ(0U, u);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_PRIORITY, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_PRIORITY, &v));

	/* other attributes: the runtime's 107000 (last error); value NULL: 100000 (not) */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, (aclrtStreamAttr)0, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamAttribute(s, (aclrtStreamAttr)6, &v));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, NULL));
	EXPECT_LAST(ACL_SUCCESS);

	/* a dead handle is found before the attribute */
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamAttribute(s, (aclrtStreamAttr)0, &v));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	v.overflowSwitch = 9;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
}

/* Which attributes take another context's stream. */
TEST(stream_attributes_of_another_context)
{
	aclrtStreamAttrValue v;
	aclrtContext ctx;
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	memset(&v, 0, sizeof(v));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_CONTEXT);
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	v.cacheOpInfoSwitch = 1;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	v.streamPriority = 2;
	ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	v.streamPriority = 0;
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	EXPECT_EQ(2U, v.streamPriority);
	ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	EXPECT_EQ(1U, v.cacheOpInfoSwitch);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
}

/* What the stream state callbacks saw. */
#define MAX_SEEN 32
static struct seen {
	aclrtStream stm;
	aclrtStreamState state;
	const char *who;
	int32_t id;		/* aclrtStreamGetId from inside the callback */
	aclError id_err;
} seen[MAX_SEEN];
static atomic_int nseen;

static void state_cb(aclrtStream stm, aclrtStreamState state, void *args)
{
	int i = atomic_fetch_add(&nseen, 1);

	if (i >= MAX_SEEN)
		return;
	seen[i].stm = stm;
	seen[i].state = state;
	seen[i].who = args;
	/* the stream is live during the call, and the library holds no lock */
	seen[i].id_err = aclrtStreamGetId(stm, &seen[i].id);
}

static void reset_seen(void)
{
	memset(seen, 0, sizeof(seen));
	atomic_store(&nseen, 0);
}

TEST(stream_state_callbacks)
{
	aclrtStream s, def;
	aclrtContext ctx;
	int32_t id;
	int i;

	NEED_DEVICE();
	/* registered under names "b" and "a": called in name order */
	ASSERT_ACL_OK(aclrtRegStreamStateCallback("b", state_cb, "b"));
	ASSERT_ACL_OK(aclrtRegStreamStateCallback("a", state_cb, "a"));
	reset_seen();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtStreamGetId(s, &id));
	ASSERT_EQ(2, atomic_load(&nseen));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(s, seen[i].stm);
		EXPECT_EQ(ACL_RT_STREAM_STATE_CREATE_POST, seen[i].state);
		EXPECT_EQ(ACL_SUCCESS, seen[i].id_err);
		EXPECT_EQ(id, seen[i].id);
	}
	EXPECT_STREQ("a", seen[0].who);
	EXPECT_STREQ("b", seen[1].who);
	reset_seen();
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_EQ(2, atomic_load(&nseen));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(s, seen[i].stm);
		EXPECT_EQ(ACL_RT_STREAM_STATE_DESTROY_PRE, seen[i].state);
		EXPECT_EQ(ACL_SUCCESS, seen[i].id_err);
		EXPECT_EQ(id, seen[i].id);
	}

	/* a name twice: the runtime's 107000, the last error */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRegStreamStateCallback("a", state_cb, NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRegStreamStateCallback(NULL, state_cb, NULL));
	EXPECT_LAST(ACL_SUCCESS);
	/* NULL drops a name, registered or not */
	ASSERT_ACL_OK(aclrtRegStreamStateCallback("b", NULL, NULL));
	ASSERT_ACL_OK(aclrtRegStreamStateCallback("none", NULL, NULL));

	/* a context's default stream is announced with the context, and goes with it */
	reset_seen();
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 1, 0));
	ASSERT_EQ(2, atomic_load(&nseen));
	EXPECT_EQ(def, seen[0].stm);
	EXPECT_EQ(ACL_RT_STREAM_STATE_CREATE_POST, seen[0].state);
	EXPECT_EQ(ACL_SUCCESS, seen[0].id_err);
	EXPECT_EQ(s, seen[1].stm);
	EXPECT_STREQ("a", seen[1].who);
	reset_seen();
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_EQ(2, atomic_load(&nseen));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(ACL_RT_STREAM_STATE_DESTROY_PRE, seen[i].state);
		EXPECT_EQ(ACL_SUCCESS, seen[i].id_err);
		EXPECT_TRUE(seen[i].stm == def || seen[i].stm == s);
	}
	EXPECT_NE(seen[0].stm, seen[1].stm);

	/* the primary context's too: reset and set the device again */
	reset_seen();
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_EQ(1, atomic_load(&nseen));
	EXPECT_EQ(ACL_RT_STREAM_STATE_DESTROY_PRE, seen[0].state);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_EQ(2, atomic_load(&nseen));
	ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
	EXPECT_EQ(def, seen[1].stm);
	EXPECT_EQ(ACL_RT_STREAM_STATE_CREATE_POST, seen[1].state);
	EXPECT_EQ(ACL_SUCCESS, seen[1].id_err);

	/* aclFinalize destroys the contexts: their streams are announced */
	reset_seen();
	ASSERT_ACL_OK(aclFinalize());
	ASSERT_EQ(1, atomic_load(&nseen));
	EXPECT_EQ(def, seen[0].stm);
	EXPECT_EQ(ACL_RT_STREAM_STATE_DESTROY_PRE, seen[0].state);
	/* the registry needs no aclInit and outlives aclFinalize */
	ASSERT_ACL_OK(aclrtRegStreamStateCallback("c", state_cb, "c"));
	reset_seen();
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_EQ(2, atomic_load(&nseen));
	EXPECT_STREQ("a", seen[0].who);
	EXPECT_STREQ("c", seen[1].who);
	ASSERT_ACL_OK(aclrtRegStreamStateCallback("a", NULL, NULL));
	ASSERT_ACL_OK(aclrtRegStreamStateCallback("c", NULL, NULL));
	reset_seen();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_EQ(0, atomic_load(&nseen));
}

/* A callback may register others: they are called from the next stream on. */
static void registering_cb(aclrtStream stm, aclrtStreamState state, void *args)
{
	(void)stm;
	(void)args;
	if (state == ACL_RT_STREAM_STATE_CREATE_POST)
		aclrtRegStreamStateCallback("z-late", state_cb, "late");
}

TEST(stream_state_callback_registers)
{
	aclrtStream s1, s2;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtRegStreamStateCallback("reg", registering_cb, NULL));
	reset_seen();
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	EXPECT_EQ(0, atomic_load(&nseen));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_EQ(1, atomic_load(&nseen));
	EXPECT_EQ(s2, seen[0].stm);
	EXPECT_STREQ("late", seen[0].who);
	ASSERT_ACL_OK(aclrtDestroyStream(s1));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	EXPECT_EQ(3, atomic_load(&nseen));
}

static void *last_task_of_new_thread(void *arg)
{
	uint32_t *id = arg;

	if (aclrtGetThreadLastTaskId(id) != ACL_SUCCESS)
		*id = 0;
	return NULL;
}

/* Task ids count a stream's tasks from 0; the thread's last one is reported. */
TEST(thread_last_task_id)
{
	uint64_t *w, host = 7;
	aclrtStream s1, s2;
	uint32_t id, other = 0;
	int32_t sid1, sid2;
	char mark[18] = { 0 };
	pthread_t t;

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetThreadLastTaskId(NULL));
	/* before any task: UINT32_MAX */
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(UINT32_MAX, id);
	w = zero_word();
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtMemsetAsync(w, 8, 1, 8, s1));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(0U, id);
	/* (pageable memory is copied through the library's staging stream: no task of s1) */
	ASSERT_ACL_OK(aclrtMemcpyAsync(w, 8, &host, 8, ACL_MEMCPY_HOST_TO_DEVICE, s1));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(0U, id);
	ASSERT_ACL_OK(aclrtMemcpyAsync(w + 1, 8, w, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(1U, id);
	ASSERT_ACL_OK(aclrtProfTrace(mark, sizeof(mark), s1));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(2U, id);
	/* per stream */
	ASSERT_ACL_OK(aclrtValueWrite(w, 3, 0, s2));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(0U, id);
	ASSERT_ACL_OK(aclrtMemsetAsync(w, 8, 1, 8, s1));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(3U, id);
	/* a synchronous copy is no task of the application's streams */
	ASSERT_ACL_OK(aclrtMemcpy(&host, 8, w, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(3U, id);
	/* per thread */
	ASSERT_EQ(0, pthread_create(&t, NULL, last_task_of_new_thread, &other));
	pthread_join(t, NULL);
	EXPECT_EQ(UINT32_MAX, other);
	/* an abort gives the stream a new queue: its tasks count from 0 again */
	ASSERT_ACL_OK(aclrtStreamGetId(s1, &sid1));
	ASSERT_ACL_OK(aclrtStreamAbort(s1));
	ASSERT_ACL_OK(aclrtStreamGetId(s1, &sid2));
	EXPECT_NE(sid1, sid2);
	ASSERT_ACL_OK(aclrtMemsetAsync(w, 8, 1, 8, s1));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(0U, id);
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	ASSERT_ACL_OK(aclrtDestroyStream(s1));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	/* it outlives its stream, as CANN's */
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(0U, id);
}

TEST(prof_trace)
{
	char mark[18] = { 1, 2, 3 };
	aclrtStreamStatus st;
	aclrtContext ctx;
	aclrtStream s, writer;
	uint64_t *w;
	uint32_t id;

	NEED_DEVICE();
	w = zero_word();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtProfTrace(NULL, 18, s));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtProfTrace(mark, 0, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtProfTrace(mark, -1, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtProfTrace(mark, 19, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* any length up to CANN's record; NULL is the default stream */
	ASSERT_ACL_OK(aclrtProfTrace(mark, 1, NULL));
	ASSERT_ACL_OK(aclrtProfTrace(mark, 18, NULL));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	/* in stream order: behind a wait that holds, it has not run */
	ASSERT_ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
	ASSERT_ACL_OK(aclrtProfTrace(mark, 18, s));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(1U, id);
	usleep(50 * 1000);
	ASSERT_ACL_OK(aclrtStreamQuery(s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	ASSERT_ACL_OK(aclrtCreateStream(&writer));
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, writer));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtStreamQuery(s, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	/* the current context's streams only */
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtProfTrace(mark, 18, s));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_CONTEXT);
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtProfTrace(mark, 18, NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDestroyStream(writer));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtProfTrace(mark, 18, s));
}

static void *cache_without_task(void *arg)
{
	aclError *e = arg;
	char info[8] = { 0 };

	e[0] = aclrtSetDevice(0);
	e[1] = aclrtCacheLastTaskOpInfo(info, sizeof(info));
	e[2] = aclrtCacheLastTaskExtendInfo(info, sizeof(info));
	e[3] = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	e[4] = aclrtResetDevice(0);
	return NULL;
}

TEST(cache_last_task_info)
{
	static char big[64 * 1024 + 1];
	aclError e[5] = { -1, -1, -1, -1, -1 };
	aclrtContext ctx;
	aclrtStream s;
	pthread_t t;
	uint64_t *w;

	NEED_DEVICE();
	w = zero_word();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemsetAsync(w, 8, 1, 8, s));
	/* the acl layer's checks of the op info: 100000, no last error */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCacheLastTaskOpInfo(NULL, 8));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCacheLastTaskOpInfo(big, 0));
	EXPECT_LAST(ACL_SUCCESS);
	/* the runtime's: 107000, the last error */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCacheLastTaskOpInfo(big, sizeof(big)));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCacheLastTaskExtendInfo(NULL, 8));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCacheLastTaskExtendInfo(big, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* kept for the last task, again and again; extended info beyond 4 KiB is cut */
	ASSERT_ACL_OK(aclrtCacheLastTaskOpInfo(big, sizeof(big) - 1));
	ASSERT_ACL_OK(aclrtCacheLastTaskOpInfo("op", 3));
	ASSERT_ACL_OK(aclrtCacheLastTaskExtendInfo(big, 5000));
	ASSERT_ACL_OK(aclrtCacheLastTaskExtendInfo("ext", 4));
	/* a thread that queued no task */
	ASSERT_EQ(0, pthread_create(&t, NULL, cache_without_task, e));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_SUCCESS, e[0]);
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, e[1]);
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, e[2]);
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, e[3]);
	EXPECT_EQ(ACL_SUCCESS, e[4]);
	/* the last task's stream is another context's */
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtCacheLastTaskOpInfo("op", 3));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtCacheLastTaskExtendInfo("ext", 4));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_CONTEXT);
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	/* no current context */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCacheLastTaskOpInfo("op", 3));
	EXPECT_LAST(ACL_ERROR_RT_CONTEXT_NULL);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	/* the stream is gone */
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtCacheLastTaskOpInfo("op", 3));
	EXPECT_LAST(ACL_ERROR_RT_INTERNAL_ERROR);
	/* a stream made at the freed one's address is not its task's */
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtCacheLastTaskExtendInfo("ext", 4));
	/* the default stream's task */
	ASSERT_ACL_OK(aclrtMemsetAsync(w, 8, 1, 8, NULL));
	ASSERT_ACL_OK(aclrtCacheLastTaskOpInfo("op", 3));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(persistent_task_clean)
{
	aclrtStream p, plain, writer;
	aclrtContext ctx;
	uint64_t *w;
	uint32_t id;

	NEED_DEVICE();
	w = zero_word();
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&p, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclrtCreateStream(&plain));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtPersistentTaskClean(NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtPersistentTaskClean(plain));
	EXPECT_LAST(ACL_ERROR_RT_INTERNAL_ERROR);
	/* three tasks, done: cleaned, the next is task 0 again */
	ASSERT_ACL_OK(aclrtMemsetAsync(w + 1, 8, 1, 8, p));
	ASSERT_ACL_OK(aclrtMemsetAsync(w + 1, 8, 2, 8, p));
	ASSERT_ACL_OK(aclrtMemsetAsync(w + 1, 8, 3, 8, p));
	ASSERT_ACL_OK(aclrtCacheLastTaskOpInfo("op", 3));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(2U, id);
	ASSERT_ACL_OK(aclrtSynchronizeStream(p));
	ASSERT_ACL_OK(aclrtPersistentTaskClean(p));
	ASSERT_ACL_OK(aclrtMemsetAsync(w + 1, 8, 4, 8, p));
	ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&id));
	EXPECT_EQ(0U, id);
	ASSERT_ACL_OK(aclrtSynchronizeStream(p));
	/* a task not done: its queue is not idle */
	ASSERT_ACL_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_EQ, p));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtPersistentTaskClean(p));
	ASSERT_ACL_OK(aclrtCreateStream(&writer));
	ASSERT_ACL_OK(aclrtValueWrite(w, 1, 0, writer));
	ASSERT_ACL_OK(aclrtSynchronizeStream(p));
	ASSERT_ACL_OK(aclrtPersistentTaskClean(p));
	/* another context's stream */
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtPersistentTaskClean(p));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_CONTEXT);
	/* (not persistent is found first) */
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtPersistentTaskClean(plain));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDestroyStream(writer));
	ASSERT_ACL_OK(aclrtDestroyStream(plain));
	ASSERT_ACL_OK(aclrtDestroyStream(p));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtPersistentTaskClean(p));
}

static void *sync_addr_no_context(void *arg)
{
	aclError *e = arg;
	void *a;

	e[0] = aclrtGetHardwareSyncAddr(&a);
	e[1] = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	return NULL;
}

TEST(hardware_sync_addr)
{
	aclError e[2] = { 0, 0 };
	uint32_t before, after;
	void *a = NULL, *b = NULL;
	uint64_t v = 0x1122334455667788ULL, back = 0;
	aclrtStream s;
	pthread_t t;

	NEED_DEVICE();
	/* the runtime checks the pointer: 107000, the last error */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetHardwareSyncAddr(NULL));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* one word of the device's pool, taken once */
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&before));
	ASSERT_ACL_OK(aclrtGetHardwareSyncAddr(&a));
	ASSERT_ACL_OK(aclrtGetHardwareSyncAddr(&b));
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&after));
	EXPECT_NONNULL(a);
	EXPECT_EQ(a, b);
	EXPECT_EQ(before - 1, after);
	EXPECT_EQ(0U, (uintptr_t)a % 8);
	/* the device reaches it */
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtValueWrite(a, v, 0, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(&back, 8, a, 8, ACL_MEMCPY_HOST_TO_HOST));
	EXPECT_EQ(v, back);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_EQ(0, pthread_create(&t, NULL, sync_addr_no_context, e));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, e[0]);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, e[1]);
	/* a new word after the device was closed and opened again */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&before));
	ASSERT_ACL_OK(aclrtGetHardwareSyncAddr(&b));
	ASSERT_ACL_OK(aclrtGetEventAvailNum(&after));
	EXPECT_NONNULL(b);
	EXPECT_EQ(before - 1, after);
}

TEST_HARNESS_MAIN
