// SPDX-License-Identifier: MIT
/*
 * libacl contexts: the primary context's reference count, explicit
 * contexts, the per-thread current context, what a context owns and what
 * its destruction takes. Skips without /dev/npu0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib_util.h"

TEST(primary_is_reference_counted)
{
	aclrtContext ctx, again;
	int32_t active = -1;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	EXPECT_EQ(1, active);
	ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetCurrentContext(&again));
	EXPECT_EQ(ctx, again);
	ASSERT_ACL_OK(aclrtResetDevice(0));
	/* one reference left, but this thread's selection is gone */
	ASSERT_ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	EXPECT_EQ(1, active);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&again));
	EXPECT_EQ(NULL, aclGetRecentErrMsg());	/* quiet */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	EXPECT_EQ(0, active);
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
	/* the primary's handle died with it */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetCurrentContext(ctx));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtResetDeviceForce(0));
	ASSERT_ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	EXPECT_EQ(0, active);
}

TEST(bad_arguments)
{
	aclrtContext ctx;
	aclrtStream s;
	uint32_t flags = 0;
	int32_t active;
	char junk[64];

	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateContext(NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&ctx, -1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&ctx, 64));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&ctx, 63));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(NULL));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDestroyContext((aclrtContext)junk));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetCurrentContext((aclrtContext)junk));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetCurrentContext(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCtxGetCurrentDefaultStream(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetPrimaryCtxState(0, &flags, &active));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetPrimaryCtxState(0, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetPrimaryCtxState(-1, NULL, &active));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetPrimaryCtxState(64, NULL, &active));
	/* the primary context is not destroyed by aclrtDestroyContext */
	ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(explicit_context_owns_its_streams)
{
	aclrtContext primary, ctx, cur;
	aclrtStream s, def, def2;
	aclrtEvent e;
	int32_t active;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	EXPECT_NE(primary, ctx);
	ASSERT_ACL_OK(aclrtGetCurrentContext(&cur));
	EXPECT_EQ(ctx, cur);
	ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
	EXPECT_NE(NULL, def);
	ASSERT_ACL_OK(aclrtSynchronizeStream(def));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateEvent(&e));
	ASSERT_ACL_OK(aclrtRecordEvent(e, s));
	/* another context may not submit to or manage it; it may synchronize */
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def2));
	EXPECT_NE(def, def2);
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(e, s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEvent(s, e));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamAbort(s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtMemsetAsync(&active, 4, 0, 4, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	/* the primary's reference count does not move */
	ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateStream(&s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(e));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDestroyContext(ctx));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetCurrentContext(ctx));
	ASSERT_ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	EXPECT_EQ(1, active);
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST(memory_belongs_to_the_device)
{
	aclrtContext a, b;
	uint32_t *d, v = 0x5a5a1234, back = 0;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateContext(&a, 0));
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemcpy(d, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtCreateContext(&b, 0));
	ASSERT_ACL_OK(aclrtMemcpy(&back, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(v, back);
	/* destroying the context that allocated it leaves the memory */
	ASSERT_ACL_OK(aclrtDestroyContext(a));
	back = 0;
	ASSERT_ACL_OK(aclrtMemcpy(&back, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(v, back);
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtDestroyContext(b));
}

/* The device stays open while an explicit context is on it. */
TEST(explicit_context_keeps_the_device)
{
	aclrtContext ctx;
	uint32_t *d, v = 7, back = 0;
	int32_t active;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemcpy(d, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	EXPECT_EQ(0, active);
	ASSERT_ACL_OK(aclrtMemcpy(&back, 4, d, 4, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(v, back);
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
}

static void *no_context_thread(void *arg)
{
	aclrtContext ctx;
	aclrtStream s;
	aclError *err = arg;

	err[0] = aclrtCreateStream(&s);
	err[1] = aclrtGetCurrentContext(&ctx);
	err[2] = aclGetRecentErrMsg() ? 1 : 0;	/* the first left one, the second none */
	err[3] = aclrtSynchronizeDevice();
	return NULL;
}

TEST(new_thread_has_no_context)
{
	aclError err[4];
	pthread_t t;

	NEED_DEVICE();
	ASSERT_EQ(0, pthread_create(&t, NULL, no_context_thread, err));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, err[0]);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, err[1]);
	EXPECT_EQ(1, err[2]);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, err[3]);
}

struct ctx_user {
	aclrtContext ctx;
	pthread_barrier_t *bar;
	aclError before, after;
};

static void *ctx_user_thread(void *arg)
{
	struct ctx_user *u = arg;
	aclrtStream s;

	u->before = aclrtSetCurrentContext(u->ctx);
	if (!u->before)
		u->before = aclrtCreateStream(&s);
	if (!u->before)
		u->before = aclrtDestroyStream(s);
	pthread_barrier_wait(u->bar);	/* the main thread destroys the context */
	pthread_barrier_wait(u->bar);
	u->after = aclrtCreateStream(&s);
	return NULL;
}

TEST(context_destroyed_by_another_thread)
{
	pthread_barrier_t bar;
	struct ctx_user u = { .bar = &bar };
	pthread_t t;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateContext(&u.ctx, 0));
	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, 2));
	ASSERT_EQ(0, pthread_create(&t, NULL, ctx_user_thread, &u));
	pthread_barrier_wait(&bar);
	ASSERT_ACL_OK(aclrtDestroyContext(u.ctx));
	pthread_barrier_wait(&bar);
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_SUCCESS, u.before);
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, u.after);
	/* this thread had it current too: no current context now */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDevice());
}

static void *set_reset_thread(void *arg)
{
	aclError *err = arg;

	err[0] = aclrtSetDevice(0);
	err[1] = aclrtResetDevice(0);
	return NULL;
}

TEST(reset_drops_only_the_callers_selection)
{
	aclError err[2];
	aclrtStream s;
	pthread_t t;

	NEED_DEVICE();
	ASSERT_EQ(0, pthread_create(&t, NULL, set_reset_thread, err));
	pthread_join(t, NULL);
	EXPECT_EQ(ACL_SUCCESS, err[0]);
	EXPECT_EQ(ACL_SUCCESS, err[1]);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
}

/* Destroying a context waits for its queued work, then frees its streams. */
TEST(destroy_waits_for_queued_work)
{
	const size_t n = 16 * MiB;
	aclrtContext ctx;
	aclrtStream s;
	void *host, *back, *d;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost(&host, n));
	ASSERT_ACL_OK(aclrtMallocHost(&back, n));
	fill_pattern(host, n, 3);
	memset(back, 0, n);
	ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(back, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	EXPECT_EQ(-1, check_pattern(back, n, 3));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtFreeHost(host));
	ASSERT_ACL_OK(aclrtFreeHost(back));
}

/* aclInit's {"defaultDevice":{"default_device":"0"}} selects device 0 implicitly. */
TEST(init_config_default_device)
{
	char path[] = "/tmp/acl_cfg_XXXXXX";
	aclrtStream s;
	int32_t id = -1;
	FILE *f;
	int fd;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0");
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "{\n  \"defaultDevice\": { \"default_device\": \"0\" }\n}\n");
	fclose(f);
	ASSERT_ACL_OK(aclInit(path));
	unlink(path);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtGetDevice(&id));
	EXPECT_EQ(0, id);
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclFinalize());
	/* a file without it selects nothing */
	strcpy(path, "/tmp/acl_cfg_XXXXXX");
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	ASSERT_EQ(3, write(fd, "{}\n", 3));
	close(fd);
	ASSERT_ACL_OK(aclInit(path));
	unlink(path);
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&id));
}

TEST_HARNESS_MAIN
