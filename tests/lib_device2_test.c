// SPDX-License-Identifier: MIT
/*
 * libacl: the device calls of issue 22 part C - device synchronize with a
 * timeout, L2 flush, task scheduler, user/logical/physical ids, topology,
 * atomic capabilities, device state callbacks, device limits and the
 * operator timeouts - with CANN's codes for bad inputs and whether each
 * failure is the thread's last error. The argument checks run without a
 * device; the rest skip without /dev/npu0 (and /dev/npu1 where two
 * devices are needed).
 */
#include <pthread.h>
#include <time.h>

#include "lib_util.h"

static aclError last(void)
{
	return aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* An id in 0..63 with no /dev/npuN. */
static int missing_id(void)
{
	int i;

	for (i = 63; i > 0 && have_npu(i); i--)
		;
	return i;
}

/* ---- device state callbacks ---- */

#define MAX_EVENTS 32

/* What the callbacks saw: "<tag><state><device>", in order. */
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static char events[MAX_EVENTS][16];
static int nevents;
/* in RESET_PRE: the current device and context as the callback saw them */
static aclError pre_get_device_ret = -1;
static int32_t pre_device = -1;
static aclrtContext pre_ctx;

static void note_event(const char *tag, int32_t id, aclrtDeviceState state)
{
	pthread_mutex_lock(&ev_lock);
	if (nevents < MAX_EVENTS)
		snprintf(events[nevents++], sizeof(events[0]), "%s%d:%d", tag, (int)state, (int)id);
	pthread_mutex_unlock(&ev_lock);
}

/* The events so far, space-separated, then forgotten. */
static const char *take_events(void)
{
	static char out[MAX_EVENTS * 17];
	int i;

	pthread_mutex_lock(&ev_lock);
	out[0] = 0;
	for (i = 0; i < nevents; i++) {
		if (i)
			strcat(out, " ");
		strcat(out, events[i]);
	}
	nevents = 0;
	pthread_mutex_unlock(&ev_lock);
	return out;
}

static void state_cb(int32_t id, aclrtDeviceState state, void *args)
{
	note_event(args, id, state);
	if (state == ACL_RT_DEVICE_STATE_RESET_PRE) {
		/* CANN: the context being reset is current while the callbacks run */
		pre_get_device_ret = aclrtGetDevice(&pre_device);
		aclrtGetCurrentContext(&pre_ctx);
	}
}

static void state_cb2(int32_t id, aclrtDeviceState state, void *args)
{
	note_event(args, id, state);
}

TEST(reg_device_state_callback_args)
{
	(void)last();
	/* no aclInit needed; a NULL name is the acl layer's */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRegDeviceStateCallback(NULL, state_cb, "a"));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRegDeviceStateCallback(NULL, NULL, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("one", state_cb, "a"));
	/* one callback per name, whatever the function */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRegDeviceStateCallback("one", state_cb2, "b"));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("two", state_cb, "b"));
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("", state_cb2, "c"));
	/* NULL unregisters, a name never registered too */
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("one", NULL, NULL));
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("one", NULL, NULL));
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("never", NULL, NULL));
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("one", state_cb2, "d"));
	EXPECT_STREQ("", take_events());
	EXPECT_EQ(NULL, aclGetRecentErrMsg());
}

/* SET_PRE per open, SET_POST per aclrtSetDevice, RESET_* at the last reset only. */
TEST(device_state_callbacks_follow_set_and_reset)
{
	aclrtContext primary, c;
	int32_t dev = -1;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("a", state_cb, "a"));
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("b", state_cb2, "b"));
	ASSERT_ACL_OK(aclInit(NULL));
	/* a device that does not exist: nothing */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(missing_id()));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(64));
	EXPECT_STREQ("", take_events());
	/* registration order; SET_PRE as the device opens */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_STREQ("a0:0 b0:0 a1:0 b1:0", take_events());
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_STREQ("a1:0 b1:0", take_events());
	/* not the last reference */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_STREQ("", take_events());
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_STREQ("a1:0 b1:0", take_events());
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_STREQ("a2:0 b2:0 a3:0 b3:0", take_events());
	/* RESET_PRE ran with the primary context current; after it, none */
	EXPECT_EQ(ACL_SUCCESS, pre_get_device_ret);
	EXPECT_EQ(0, pre_device);
	EXPECT_EQ(primary, pre_ctx);
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
	/* an explicit context opens the device (SET_PRE), sets nothing (no SET_POST) */
	ASSERT_ACL_OK(aclrtCreateContext(&c, 0));
	EXPECT_STREQ("a0:0 b0:0", take_events());
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_STREQ("a1:0 b1:0", take_events());
	ASSERT_ACL_OK(aclrtDestroyContext(c));
	EXPECT_STREQ("", take_events());
	/* Force: all references at once */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_STREQ("a1:0 b1:0", take_events());
	ASSERT_ACL_OK(aclrtResetDeviceForce(0));
	EXPECT_STREQ("a2:0 b2:0 a3:0 b3:0", take_events());
	/* a reset of nothing */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
	EXPECT_STREQ("", take_events());
	/* unregistered: not called; aclFinalize (CANN's resets nothing) calls none */
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("a", NULL, NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_STREQ("b0:0 b1:0", take_events());
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_STREQ("", take_events());
}

/* Another thread's reference keeps the primary context: its last reset notifies. */
static void *reset_in_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)aclrtResetDevice(0);
}

static void *set_in_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)aclrtSetDevice(0);
}

TEST(device_state_callbacks_in_the_calling_thread)
{
	pthread_t t;
	void *ret;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("a", state_cb, "a"));
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, set_in_thread, NULL));
	ASSERT_EQ(0, pthread_join(t, &ret));
	ASSERT_EQ(ACL_SUCCESS, (aclError)(intptr_t)ret);
	EXPECT_STREQ("a0:0 a1:0", take_events());
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_STREQ("a1:0", take_events());
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_STREQ("", take_events());
	/* the other thread's reset is the last: it runs RESET_PRE with the context current */
	pre_device = -1;
	ASSERT_EQ(0, pthread_create(&t, NULL, reset_in_thread, NULL));
	ASSERT_EQ(0, pthread_join(t, &ret));
	ASSERT_EQ(ACL_SUCCESS, (aclError)(intptr_t)ret);
	EXPECT_STREQ("a2:0 a3:0", take_events());
	EXPECT_EQ(0, pre_device);
	ASSERT_ACL_OK(aclFinalize());
}

/* A SET_PRE callback may set the same device: one open, one SET_PRE. */
static void reentrant_cb(int32_t id, aclrtDeviceState state, void *args)
{
	note_event(args, id, state);
	if (state == ACL_RT_DEVICE_STATE_SET_PRE)
		note_event(aclrtSetDevice(id) == ACL_SUCCESS ? "ok" : "fail", id, state);
}

TEST(device_state_callback_sets_the_device)
{
	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("r", reentrant_cb, "r"));
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_STREQ("r0:0 r1:0 ok0:0 r1:0", take_events());
	/* two references now */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_STREQ("", take_events());
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_STREQ("r2:0 r3:0", take_events());
	ASSERT_ACL_OK(aclFinalize());
}

/* ---- synchronize with a timeout, L2 flush ---- */

TEST(sync_device_with_timeout_args)
{
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtSynchronizeDeviceWithTimeout(-1));
	ASSERT_ACL_OK(aclInit(NULL));
	(void)last();
	/* below -1: CANN's acl layer, a runtime code that is no last error */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(-2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(INT32_MIN));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* 0: the runtime's */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(0));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDeviceWithTimeout(-1));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, last());
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDeviceWithTimeout(100));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(sync_device_with_timeout)
{
	aclrtStream waiter, writer, other;
	aclrtContext primary, c2;
	uint64_t *flag;
	double t0, took;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtSynchronizeDeviceWithTimeout(-1));
	ASSERT_ACL_OK(aclrtSynchronizeDeviceWithTimeout(10));
	ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
	ASSERT_ACL_OK(aclrtMalloc((void **)&flag, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(flag, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&waiter));
	ASSERT_ACL_OK(aclrtCreateStream(&writer));
	ASSERT_ACL_OK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_GEQ, waiter));
	(void)last();
	t0 = now_s();
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(100));
	took = now_s() - t0;
	EXPECT_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, last());
	TH_LOG("timed out after %.3f s", took);
	EXPECT_LE(0.095, took);
	/* the work stays queued: release it, then the device completes */
	ASSERT_ACL_OK(aclrtValueWrite(flag, 1, 0, writer));
	ASSERT_ACL_OK(aclrtSynchronizeDeviceWithTimeout(5000));
	ASSERT_ACL_OK(aclrtValueWait(flag, 2, ACL_STREAM_WAIT_VALUE_GEQ, waiter));
	/* as aclrtSynchronizeDevice: every context on the device */
	ASSERT_ACL_OK(aclrtCreateContext(&c2, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(50));
	ASSERT_ACL_OK(aclrtValueWrite(flag, 2, 0, other));
	ASSERT_ACL_OK(aclrtSynchronizeDeviceWithTimeout(5000));
	ASSERT_ACL_OK(aclrtDestroyStream(other));
	ASSERT_ACL_OK(aclrtDestroyContext(c2));
	ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
	ASSERT_ACL_OK(aclrtDestroyStream(waiter));
	ASSERT_ACL_OK(aclrtDestroyStream(writer));
	ASSERT_ACL_OK(aclrtFree(flag));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(l2_cache_flush)
{
	int dummy;

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtDeviceL2CacheFlush(NULL));
	ASSERT_ACL_OK(aclInit(NULL));
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceL2CacheFlush(&dummy));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceL2CacheFlush(NULL));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, last());
	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDeviceL2CacheFlush(NULL));
	/* rsv is checked first, with a device too */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceL2CacheFlush(&dummy));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceL2CacheFlush(NULL));
	ASSERT_ACL_OK(aclFinalize());
}

/* ---- task scheduler ---- */

TEST(set_ts_device)
{
	/* no aclInit needed; the chip has one scheduler */
	ASSERT_ACL_OK(aclrtSetTsDevice(ACL_TS_ID_AICORE));
	ASSERT_ACL_OK(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR));
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetTsDevice(ACL_TS_ID_RESERVED));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetTsDevice((aclrtTsId)-1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetTsDevice((aclrtTsId)100));
	EXPECT_EQ(ACL_SUCCESS, last());
	NEED_DEVICE();
	/* the device works as before */
	ASSERT_ACL_OK(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	ASSERT_ACL_OK(aclFinalize());
}

/* ---- device ids ---- */

typedef aclError (*devid_fn)(const int32_t, int32_t *const);

static const struct {
	const char *name;
	devid_fn fn;
	aclError missing;	/* an id no device has */
} devid_fns[] = {
	{ "LogicByUser", aclrtGetLogicDevIdByUserDevId, ACL_ERROR_RT_INVALID_DEVICEID },
	{ "UserByLogic", aclrtGetUserDevIdByLogicDevId, ACL_ERROR_RT_INVALID_DEVICEID },
	{ "LogicByPhy", aclrtGetLogicDevIdByPhyDevId, ACL_ERROR_RT_PARAM_INVALID },
	{ "PhyByLogic", aclrtGetPhyDevIdByLogicDevId, ACL_ERROR_RT_PARAM_INVALID },
	{ "UserByPhy", aclrtGetUserDevIdByPhyDevId, ACL_ERROR_RT_PARAM_INVALID },
	{ "PhyByUser", aclrtGetPhyDevIdByUserDevId, ACL_ERROR_RT_PARAM_INVALID },
};

#define NDEVID_FNS (sizeof(devid_fns) / sizeof(devid_fns[0]))

TEST(device_id_mapping_args)
{
	int32_t out;
	size_t i;

	for (i = 0; i < NDEVID_FNS; i++) {
		TH_LOG("%s", devid_fns[i].name);
		out = 77;
		EXPECT_EQ(ACL_ERROR_UNINITIALIZE, devid_fns[i].fn(0, &out));
		aclGetRecentErrMsg();
	}
	ASSERT_ACL_OK(aclInit(NULL));
	for (i = 0; i < NDEVID_FNS; i++) {
		TH_LOG("%s", devid_fns[i].name);
		(void)last();
		EXPECT_EQ(ACL_ERROR_INVALID_PARAM, devid_fns[i].fn(0, NULL));
		EXPECT_EQ(ACL_ERROR_INVALID_PARAM, devid_fns[i].fn(-1, NULL));
		EXPECT_EQ(ACL_SUCCESS, last());
		/* negative: the runtime's own check, 107000, before any device */
		out = 77;
		EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, devid_fns[i].fn(-1, &out));
		EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
		EXPECT_EQ(77, out);
		EXPECT_EQ(devid_fns[i].missing, devid_fns[i].fn(missing_id(), &out));
		EXPECT_EQ(devid_fns[i].missing, last());
		EXPECT_EQ(devid_fns[i].missing, devid_fns[i].fn(64, &out));
		EXPECT_EQ(devid_fns[i].missing, devid_fns[i].fn(INT32_MAX, &out));
		EXPECT_EQ(77, out);
		aclGetRecentErrMsg();
	}
	ASSERT_ACL_OK(aclFinalize());
}

TEST(device_id_mapping)
{
	int32_t out;
	size_t i;
	int id;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclInit(NULL));
	/* no device needs to be set; every /dev/npuN is N in all three numberings */
	for (id = 0; id < 64; id++) {
		if (!have_npu(id))
			continue;
		for (i = 0; i < NDEVID_FNS; i++) {
			out = -5;
			EXPECT_ACL_OK(devid_fns[i].fn(id, &out));
			EXPECT_EQ(id, out);
		}
	}
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetPhyDevIdByLogicDevId(0, &out));
	EXPECT_EQ(0, out);
	ASSERT_ACL_OK(aclFinalize());
}

/* ---- topology, atomic capabilities ---- */

TEST(devices_topo)
{
	uint64_t v = 99;

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtGetDevicesTopo(0, 0, &v));
	ASSERT_ACL_OK(aclInit(NULL));
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDevicesTopo(0, 0, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* an id naming no device: the driver's 107000 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDevicesTopo(missing_id(), 0, &v));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDevicesTopo(0, UINT32_MAX, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDevicesTopo(64, 64, &v));
	EXPECT_EQ(99, v);
	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	/* no device needs to be set */
	ASSERT_ACL_OK(aclrtGetDevicesTopo(0, 0, &v));
	EXPECT_EQ(ACL_RT_DEVS_TOPOLOGY_HCCS, v);
	if (have_npu(1)) {
		v = 0;
		ASSERT_ACL_OK(aclrtGetDevicesTopo(0, 1, &v));
		EXPECT_EQ(ACL_RT_DEVS_TOPOLOGY_PIX, v);
		v = 0;
		ASSERT_ACL_OK(aclrtGetDevicesTopo(1, 0, &v));
		EXPECT_EQ(ACL_RT_DEVS_TOPOLOGY_PIX, v);
		ASSERT_ACL_OK(aclrtGetDevicesTopo(1, 1, &v));
		EXPECT_EQ(ACL_RT_DEVS_TOPOLOGY_HCCS, v);
	}
	ASSERT_ACL_OK(aclFinalize());
}

static const aclrtAtomicOperation all_ops[] = {
	ACL_RT_ATOMIC_OPERATION_INTEGER_ADD, ACL_RT_ATOMIC_OPERATION_INTEGER_MIN,
	ACL_RT_ATOMIC_OPERATION_INTEGER_MAX, ACL_RT_ATOMIC_OPERATION_INTEGER_INCREMENT,
	ACL_RT_ATOMIC_OPERATION_INTEGER_DECREMENT, ACL_RT_ATOMIC_OPERATION_AND,
	ACL_RT_ATOMIC_OPERATION_OR, ACL_RT_ATOMIC_OPERATION_XOR, ACL_RT_ATOMIC_OPERATION_EXCHANGE,
	ACL_RT_ATOMIC_OPERATION_CAS, ACL_RT_ATOMIC_OPERATION_FLOAT_ADD, ACL_RT_ATOMIC_OPERATION_FLOAT_MIN,
	ACL_RT_ATOMIC_OPERATION_FLOAT_MAX, (aclrtAtomicOperation)13, ACL_RT_ATOMIC_OPERATION_DMA_ADD,
	ACL_RT_ATOMIC_OPERATION_DMA_MIN, ACL_RT_ATOMIC_OPERATION_DMA_MAX,
	ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD, ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MIN,
	ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MAX, ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_CAS,
	ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH,
};
#define NOPS (sizeof(all_ops) / sizeof(all_ops[0]))

TEST(atomic_capabilities_args)
{
	aclrtAtomicOperation bad[2] = { ACL_RT_ATOMIC_OPERATION_DMA_ADD, (aclrtAtomicOperation)45 };
	aclrtAtomicOperation neg[1] = { (aclrtAtomicOperation)-1 };
	uint32_t caps[NOPS];
	int none = missing_id();

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtDeviceGetHostAtomicCapabilities(caps, all_ops, 1, 0));
	ASSERT_ACL_OK(aclInit(NULL));
	/* all the runtime's: 107000 for NULL and count 0, each the last error */
	(void)last();
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(NULL, all_ops, 1, 0));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(caps, NULL, 1, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(caps, all_ops, 0, 0));
	/* before the device */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(NULL, all_ops, 1, none));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetHostAtomicCapabilities(caps, all_ops, 1, none));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetHostAtomicCapabilities(caps, all_ops, 1, -1));
	/* the device before the operations */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetHostAtomicCapabilities(caps, bad, 2, none));

	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetP2PAtomicCapabilities(NULL, all_ops, 1, 0, 1));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetP2PAtomicCapabilities(caps, NULL, 1, 0, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetP2PAtomicCapabilities(caps, all_ops, 0, 0, 1));
	/* the same id twice is a device id error (CANN), before either is looked at */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetP2PAtomicCapabilities(caps, all_ops, 1, 0, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
		   aclrtDeviceGetP2PAtomicCapabilities(caps, all_ops, 1, none, none));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetP2PAtomicCapabilities(caps, all_ops, 1, none, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetP2PAtomicCapabilities(caps, bad, 2, -1, 0));
	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	/* an operation outside 0..44: after the device, the runtime's 107000 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(caps, bad, 2, 0));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(caps, neg, 1, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetP2PAtomicCapabilities(caps, all_ops, 1, 0, none));
	if (have_npu(1))
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetP2PAtomicCapabilities(caps, bad, 2, 0, 1));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(atomic_capabilities)
{
	uint32_t caps[NOPS];
	size_t i;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclInit(NULL));
	/* no device needs to be set; every answer is 0: PCIe to the host, no atomic engine */
	memset(caps, 0xA5, sizeof(caps));
	ASSERT_ACL_OK(aclrtDeviceGetHostAtomicCapabilities(caps, all_ops, NOPS, 0));
	for (i = 0; i < NOPS; i++)
		EXPECT_EQ(0U, caps[i]);
	/* only count entries are written */
	memset(caps, 0xA5, sizeof(caps));
	ASSERT_ACL_OK(aclrtDeviceGetHostAtomicCapabilities(caps, all_ops, 2, 0));
	EXPECT_EQ(0U, caps[0]);
	EXPECT_EQ(0U, caps[1]);
	EXPECT_EQ(0xA5A5A5A5U, caps[2]);
	if (!have_npu(1))
		SKIP(goto out, "needs /dev/npu1");
	/* PIX peers: none either, also for the DMA operations CANN's HCCS links have */
	memset(caps, 0xA5, sizeof(caps));
	ASSERT_ACL_OK(aclrtDeviceGetP2PAtomicCapabilities(caps, all_ops, NOPS, 0, 1));
	for (i = 0; i < NOPS; i++)
		EXPECT_EQ(0U, caps[i]);
	memset(caps, 0xA5, sizeof(caps));
	ASSERT_ACL_OK(aclrtDeviceGetP2PAtomicCapabilities(caps, all_ops, NOPS, 1, 0));
	EXPECT_EQ(0U, caps[NOPS - 1]);
out:
	ASSERT_ACL_OK(aclFinalize());
}

/* ---- device limits ---- */

TEST(device_limits)
{
	size_t v = 0;

	/* no aclInit needed; the defaults */
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	EXPECT_EQ(32768, v);
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
	EXPECT_EQ(32768, v);
	/* the acl layer's: type, then value (even for a SIMT type), NULL first in Get */
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit((aclrtDeviceLimit)5, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit((aclrtDeviceLimit)-1, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE,
								(size_t)UINT32_MAX + 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE,
								(size_t)UINT32_MAX + 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetLimit((aclrtDeviceLimit)5, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetLimit((aclrtDeviceLimit)5, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* no SIMT: 207000, a NOLOG return of CANN's runtime */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 4096));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE, 4096));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, 4096));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, &v));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE, &v));
	EXPECT_EQ(ACL_SUCCESS, last());

	/* printf FIFO: 1 KiB .. 64 MiB, rounded up to 8 bytes */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1023));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 64 * MiB + 1));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
	EXPECT_EQ(32768, v);
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1025));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
	EXPECT_EQ(1032, v);
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1024));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
	EXPECT_EQ(1024, v);
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 64 * MiB));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
	EXPECT_EQ(64 * MiB, v);

	/* stack: kept only above 32 KiB, in 16 KiB steps; a smaller one changes nothing */
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 1000));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	EXPECT_EQ(32768, v);
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 32769));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	EXPECT_EQ(49152, v);
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 32768));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	EXPECT_EQ(49152, v);
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 196608));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	EXPECT_EQ(196608, v);
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, UINT32_MAX));
	ASSERT_ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	EXPECT_EQ(UINT32_MAX / 16384 * 16384, v);
}

/* CANN refuses a stack above the chip's 192 KiB when a device starts. */
TEST(device_stack_limit_checked_at_open)
{
	aclrtContext c;
	int32_t dev;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclrtRegDeviceStateCallback("a", state_cb2, "a"));
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 196608));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 196609));
	/* an open device goes on */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtResetDeviceForce(0));
	(void)take_events();
	(void)last();
	EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtSetDevice(0));
	EXPECT_EQ(ACL_ERROR_RT_DEV_SETUP_ERROR, last());
	/* as CANN's: SET_PRE came before the device failed to start */
	EXPECT_STREQ("a0:0", take_events());
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
	EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtCreateContext(&c, 0));
	EXPECT_FALSE(npu_proc_dev_fd("/dev/npu0", -1) >= 0);
	ASSERT_ACL_OK(aclFinalize());
}

/* ---- operator timeouts ---- */

TEST(op_execute_timeouts)
{
	uint64_t interval = 7, actual;
	uint32_t ms = 0;

	/* no aclInit, no context: the 910B's default until one is set */
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(1090922U, ms);
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetOpExecuteTimeout(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetOpTimeOutInterval(NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetOpTimeOutInterval(&interval));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, last());
	EXPECT_EQ(7, interval);
	/* every setter writes the one value the getter reads */
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOut(547));
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(547000U, ms);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutWithMs(1500));
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(1500U, ms);
	/* at most 1000 s (CANN's RT_MAX_OP_TIMEOUT_FOR_MS) */
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutWithMs(1000001));
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(1000000U, ms);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutWithMs(UINT32_MAX));
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(1000000U, ms);
	/* 0: never, UINT32_MAX */
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutWithMs(0));
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(UINT32_MAX, ms);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOut(1));
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOut(0));
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(UINT32_MAX, ms);
	/* seconds beyond 32 bits of milliseconds */
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOut(UINT32_MAX));
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(UINT32_MAX, ms);

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetOpTimeOutInterval(&interval));
	EXPECT_EQ(1000U, interval);
	/* V2 in microseconds: whole milliseconds, as *actualTimeout says */
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(1001, &actual));
	EXPECT_EQ(2000U, actual);
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(2U, ms);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(547ULL * 1000 * 1000, &actual));
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(547000U, ms);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(0, &actual));
	EXPECT_EQ(UINT64_MAX, actual);
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(UINT32_MAX, ms);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(UINT64_MAX, &actual));
	EXPECT_EQ(UINT64_MAX, actual);
	ASSERT_ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	EXPECT_EQ(UINT32_MAX, ms);
	/* the interval is the current context's device's: any context */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetOpTimeOutInterval(&interval));
	ASSERT_ACL_OK(aclFinalize());
}

/* aclrtSetOpWaitTimeout limits the waits of aclrtStreamWaitEvent queued after it. */
TEST_TIMEOUT(op_wait_timeout_limits_stream_waits, 60)
{
	aclrtStream waiter, s2, s3, writer;
	aclrtEvent ev;
	uint64_t *flag;
	double t0, took;

	/* no aclInit or context needed */
	ASSERT_ACL_OK(aclrtSetOpWaitTimeout(0));
	ASSERT_ACL_OK(aclrtSetOpWaitTimeout(UINT32_MAX));
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&flag, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(flag, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&waiter));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtCreateStream(&s3));
	ASSERT_ACL_OK(aclrtCreateStream(&writer));
	ASSERT_ACL_OK(aclrtCreateEvent(&ev));
	/* the event completes when waiter gets past a value nobody wrote yet */
	ASSERT_ACL_OK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_GEQ, waiter));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, waiter));

	ASSERT_ACL_OK(aclrtSetOpWaitTimeout(1));
	t0 = now_s();
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, ev));
	EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(s2));
	took = now_s() - t0;
	TH_LOG("the wait ran out after %.3f s", took);
	EXPECT_LE(0.9, took);
	/* WithFlag's UINT32_MAX is the same limit; an explicit one is its own */
	ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(s2, ev, UINT32_MAX, ACL_EVENT_WAIT_DEFAULT));
	EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(s2));
	ASSERT_ACL_OK(aclrtStreamWaitEventWithTimeout(s3, ev, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s3, 1500));

	/* 0: no limit for the waits queued after it */
	ASSERT_ACL_OK(aclrtSetOpWaitTimeout(0));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, ev));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s2, 1500));
	ASSERT_ACL_OK(aclrtValueWrite(flag, 1, 0, writer));
	ASSERT_ACL_OK(aclrtSynchronizeStream(writer));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s3));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyStream(waiter));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclrtDestroyStream(s3));
	ASSERT_ACL_OK(aclrtDestroyStream(writer));
	ASSERT_ACL_OK(aclrtFree(flag));
	ASSERT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
