// SPDX-License-Identifier: MIT
/*
 * libacl: what npu.ko's chip profile (its soc_name) decides beyond the
 * 910B class the other tests check. Each test reloads npu.ko with a
 * vendor part's name and no core or memory parameters, so that the
 * profile brings them, and puts the module back as it found it:
 *
 * - Ascend310B1, CANN's 310B class (CHIP_MINI_V3): its figures in every
 *   device query and saturation mode; no CMO tasks (aclrtCmoAsync and the
 *   descriptor calls: 207000), but the barrier CMO tasks:
 *   aclrtCmoAsyncWithBarrier and aclrtCmoWaitBarrier, their checks and
 *   codes, and that a wait holds its stream until the task that carried
 *   the barrier id (after a copy gated on the device) has run;
 * - Ascend910_9391, an A3 super-pod part: the super pod's device ids and
 *   aclrtIpcMemImportPidInterServer, whose entries for this server list
 *   importers as aclrtIpcMemSetImportPid does, and whose entries for
 *   other servers fail (the simulated super pod is one server).
 *
 * - Ascend310P1, CANN's 310P class (CHIP_DC): compute groups, of which
 *   the simulated device has none configured, and no NPU float status
 *   tasks.
 *
 * The 310B class has no task update either (aclrtTaskUpdateAsync: 207000).
 * What the other chips answer (207000) is in lib_cmo_test and
 * lib_mem3_test. Needs root, npu.ko (/lib/npu or $NPU_KO) and /dev/npu0.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib_child.h"
#include "lib_util.h"
#include "npu_mod_util.h"

#define EXPECT_LAST(code)	EXPECT_EQ((aclError)(code), aclrtGetLastError(ACL_RT_THREAD_LEVEL))

#define PREFETCH	ACL_RT_CMO_TYPE_PREFETCH
#define WRITEBACK	ACL_RT_CMO_TYPE_WRITEBACK
#define INVALIDATE	ACL_RT_CMO_TYPE_INVALID
#define FLUSH		ACL_RT_CMO_TYPE_FLUSH

/* The copy a barrier orders: big enough to take a while on the engine. */
#define BIG	(64 * MiB)

/* CANN's SDID of device @d of server @server in the simulated super pod: two dies a chip. */
#define SDID(server, d)	((uint32_t)(server) << 22 | (uint32_t)(d) / 2 << 18 | (uint32_t)(d) % 2 << 16 | (uint32_t)(d))

FIXTURE(chip) {
	struct npu_mod_params saved;	/* the module as the test found it */
	int num_devices;
	bool reloaded;
};

FIXTURE_SETUP(chip)
{
	if (geteuid() || access(npu_ko_path(), R_OK) || !have_npu(0))
		SKIP(return, "needs root, npu.ko (/lib/npu or $NPU_KO) and /dev/npu0");
	/* an importer that fails early must not end the test before its teardown */
	signal(SIGPIPE, SIG_IGN);
	ASSERT_EQ(0, npu_mod_read_params(&self->saved));
	self->num_devices = atoi(self->saved.num_devices);
	ASSERT_LT(0, self->num_devices);
}

FIXTURE_TEARDOWN(chip)
{
	char params[512];
	int ret;

	if (!self->reloaded)
		return;
	aclFinalize();
	ret = npu_mod_unload();
	if (!ret) {
		npu_mod_params_string(&self->saved, params, sizeof(params));
		ret = npu_mod_load(params);
	}
	if (!ret)
		ret = npu_mod_nodes_ready(self->num_devices);
	if (ret)
		printf("# teardown: cannot restore npu.ko: %s\n", strerror(-ret));
}

/* npu.ko again with its devices and carriers, and @soc's profile; aclInit. */
static void chip_load(struct __th_data_chip *self, const char *soc)
{
	char params[256];

	snprintf(params, sizeof(params), "num_devices=%s carrier=%s soc_name=%s",
		 self->saved.num_devices, self->saved.carrier, soc);
	self->reloaded = true;
	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_EQ(0, npu_mod_load(params));
	ASSERT_EQ(0, npu_mod_nodes_ready(self->num_devices));
	ASSERT_ACL_OK(aclInit(NULL));
}

/* ------------------------------------------------------------------ */
/* Ascend310B1: the 310B class                                         */
/* ------------------------------------------------------------------ */

/* The platform file's figures everywhere a program reads them; saturation mode. */
TEST_F_TIMEOUT(chip, ascend310b1_profile, 120)
{
	aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
	size_t free_mem, total;
	int32_t i32 = -1;
	int64_t v = -1;
	const char *soc;

	chip_load(self, "Ascend310B1");
	/* before any device is set, as CANN's runtime reads its chip at start */
	ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
	EXPECT_EQ(ACL_RT_OVERFLOW_MODE_SATURATION, mode);
	soc = aclrtGetSocName();
	ASSERT_NONNULL(soc);
	EXPECT_STREQ("Ascend310B1", soc);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &v));
	EXPECT_EQ(1, v);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &v));
	EXPECT_EQ(1, v);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
	EXPECT_EQ(1, v);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICPU_CORE_NUM, &v));
	EXPECT_EQ(4, v);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, &v));
	EXPECT_EQ(4 * MiB, (uint64_t)v);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_NPU_ARCH, &v));
	EXPECT_EQ(3002, v);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
	EXPECT_EQ(32 * GiB, (uint64_t)v);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_SUPER_POD_DEVICE_ID, &v));
	EXPECT_EQ(0, v);
	ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &v));
	EXPECT_EQ(1, v);
	ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &v));
	EXPECT_EQ(1, v);
	ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &v));
	EXPECT_EQ(4 * MiB, (uint64_t)v);
	/* no inf/nan mode, no bf16 */
	ASSERT_ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, &i32));
	EXPECT_EQ(0, i32);
	ASSERT_ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &i32));
	EXPECT_EQ(0, i32);
	ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend310B4", &i32));
	EXPECT_EQ(1, i32);
	ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910B1", &i32));
	EXPECT_EQ(0, i32);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_mem, &total));
	EXPECT_EQ(32 * GiB, (uint64_t)total);
	/* set, it stays what was set */
	ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
	ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
	EXPECT_EQ(ACL_RT_OVERFLOW_MODE_INFNAN, mode);
	/* no IPC notifies (RT_FEATURE_IPC_NOTIFY) */
	{
		aclrtNotify n, n2 = NULL;
		int32_t pid = getpid();
		char key[65];

		ASSERT_ACL_OK(aclrtCreateNotify(&n, 0));
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNotifyGetExportKey(n, key, sizeof(key), 0));
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNotifySetImportPid(n, &pid, 1));
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			   aclrtNotifyImportByKey(&n2, "npu0-notify0-0123456789abcdef", 0));
		ASSERT_ACL_OK(aclrtDestroyNotify(n));
	}
	/* no IPC events (RT_FEATURE_IPC_EVENT): after the flag's and the acl layer's checks */
	{
		aclrtIpcEventHandle h;
		aclrtEvent e, e2 = NULL;

		memset(&h, 0, sizeof(h));
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e2, ACL_EVENT_IPC | ACL_EVENT_SYNC));
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateEventExWithFlag(&e2, ACL_EVENT_IPC));
		EXPECT_TRUE(!e2);
		ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
		EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(e, NULL));
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcGetEventHandle(e, &h));
		EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcOpenEventHandle(h, NULL));
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcOpenEventHandle(h, &e2));
		ASSERT_ACL_OK(aclrtDestroyEvent(e));
	}
	/* no random-number task (RT_FEATURE_TASK_RAND_GENERATOR): after the acl layer's checks */
	{
		aclrtRandomNumTaskInfo t;
		void *out;

		memset(&t, 0, sizeof(t));
		t.dataType = ACL_FLOAT;
		t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
		ASSERT_ACL_OK(aclrtMalloc(&out, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
		t.randomResultAddr = out;
		t.randomCounterAddr = out;
		(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
		EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(NULL, NULL, NULL));
		/* a warning in the vendor's runtime (COND_RETURN_WARN): not the last error */
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRandomNumAsync(&t, NULL, NULL));
		EXPECT_LAST(ACL_SUCCESS);
		ASSERT_ACL_OK(aclrtFree(out));
	}
	/*
	 * No task update (RT_FEATURE_TASK_DSA_UPDATE, _MODEL_UPDATE_SQE_TILING_KEY):
	 * after the target's NULL and handle checks (the AI-core one's after
	 * all its NULL checks), recorded as the last error
	 */
	{
		aclrtTaskUpdateInfo info;
		aclrtStream s;
		int bogus;

		ASSERT_ACL_OK(aclrtCreateStream(&s));
		memset(&info, 0, sizeof(info));
		info.id = ACL_RT_UPDATE_RANDOM_TASK;
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(NULL, 0, &info, s));
		EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtTaskUpdateAsync((aclrtStream)&bogus, 0, &info, s));
		(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtTaskUpdateAsync(s, 0, &info, s));
		EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
		info.id = ACL_RT_UPDATE_AIC_AIV_TASK;
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtTaskUpdateAsync(s, 0, &info, s));
		info.val.aicAivTaskAttr.binHandle = &bogus;
		info.val.aicAivTaskAttr.funcEntryAddr = &bogus;
		info.val.aicAivTaskAttr.blockDimAddr = &bogus;
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtTaskUpdateAsync(s, 0, &info, s));
		EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
		ASSERT_ACL_OK(aclrtDestroyStream(s));
	}
}

/*
 * No CMO tasks (RT_FEATURE_TASK_CMO): aclrtCmoAsync 207000 after the acl
 * layer's checks, not recorded; the descriptor calls 207000, recorded.
 * The flush and invalidate of host-side caches are chip-independent. No
 * super pod: aclrtIpcMemImportPidInterServer is not supported either.
 */
TEST_F_TIMEOUT(chip, ascend310b1_no_cmo_tasks, 120)
{
	int32_t pid = (int32_t)getppid();
	aclrtServerPid sp = { .sdid = SDID(0, 0), .pid = &pid, .num = 1 };
	char desc[64], key[65];
	size_t size = 77;
	aclrtStream s;
	void *dev;

	chip_load(self, "Ascend310B1");
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 2 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);

	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoAsync(NULL, 64, PREFETCH, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoAsync(dev, 0, PREFETCH, s));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsync(dev, 64, PREFETCH, s));
	EXPECT_LAST(ACL_SUCCESS);
	/* the chip first: before the NULL checks of the runtime */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoGetDescSize(&size));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_EQ(77U, size);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoGetDescSize(NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoSetDesc(desc, dev, 64));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoSetDesc(NULL, NULL, 0));
	/* reserve is checked before the chip */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithDesc(desc, PREFETCH, s, desc));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsyncWithDesc(desc, PREFETCH, s, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL_OK(aclrtMemFlush(dev, 64));
	EXPECT_ACL_OK(aclrtMemInvalidate(dev, 64));

	ASSERT_ACL_OK(aclrtIpcMemGetExportKey(dev, 2 * MiB, key, sizeof(key), 0));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcMemImportPidInterServer(key, &sp, 1));
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_ACL_OK(aclrtIpcMemClose(key));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(dev));
}

/*
 * No captured graphs (RT_FEATURE_MODEL_ACL_GRAPH: the 910B, 910_93 and
 * 310P parts): the capture calls 207000 after the acl layer's checks,
 * recorded, before their handles and values are looked at.
 */
TEST_F_TIMEOUT(chip, ascend310b1_no_acl_graphs, 120)
{
	aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
	aclmdlRI m = NULL;
	aclrtStream s;

	chip_load(self, "Ascend310B1");
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)7));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureGetInfo(s, &st, &m));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureEnd(s, &m));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureThreadExchangeMode(&mode));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_MODE_RELAXED, mode);
	/* the task calls that check the chip: before their handles (none of these is one) */
	{
		aclmdlRITaskType type;
		uint32_t n = 0;

		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIGetStreams((aclmdlRI)s, NULL, &n));
		EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIGetTasksByStream(s, NULL, &n));
		EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskGetType((aclmdlRITask)s, &type));
		EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIDebugJsonPrint((aclmdlRI)s, "/tmp/m.json", 0));
		EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
		/* not the chip's: no task handle */
		EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetSeqId((aclmdlRITask)s, &n));
	}
	/* nothing forbids synchronous copies, and nothing is captured */
	EXPECT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
}

static aclrtBarrierTaskInfo barrier_info(size_t n, const uint32_t *ids)
{
	aclrtBarrierTaskInfo ti;
	size_t i;

	memset(&ti, 0, sizeof(ti));
	ti.barrierNum = n;
	for (i = 0; i < n; i++)
		ti.cmoInfo[i] = (aclrtBarrierCmoInfo){ INVALIDATE, ids[i] };
	return ti;
}

/* The barrier calls' checks, in CANN's order, with their codes and last errors. */
TEST_F_TIMEOUT(chip, ascend310b1_barrier_checks, 120)
{
	aclrtBarrierTaskInfo ti;
	aclrtContext mine, other;
	aclrtStream s, gone, theirs;
	void *dev;

	chip_load(self, "Ascend310B1");
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetCurrentContext(&mine));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&gone));
	ASSERT_ACL_OK(aclrtDestroyStream(gone));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);

	/* the acl layer: NULL, not recorded */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoAsyncWithBarrier(NULL, 64, INVALIDATE, 1, s));
	EXPECT_LAST(ACL_SUCCESS);
	/* the runtime: size, then the id the operation takes; recorded */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithBarrier(dev, 0, INVALIDATE, 1, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithBarrier(dev, 64, INVALIDATE, 0, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithBarrier(dev, 64, PREFETCH, 1, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithBarrier(dev, 64, WRITEBACK, 2, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithBarrier(dev, 64, FLUSH, 3, s));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* an operation the runtime does not know: not supported, recorded */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsyncWithBarrier(dev, 64, (aclrtCmoType)4, 0, s));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsyncWithBarrier(dev, 64, (aclrtCmoType)-1, 1, s));
	/* then the stream: not one 107017, another context's 107003 */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtCmoAsyncWithBarrier(dev, 64, INVALIDATE, 1, gone));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
	ASSERT_ACL_OK(aclrtCreateContext(&other, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&theirs));
	ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtCmoAsyncWithBarrier(dev, 64, INVALIDATE, 1, theirs));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_CONTEXT);
	/* the three other operations carry no id; NULL is the default stream */
	EXPECT_ACL_OK(aclrtCmoAsyncWithBarrier(dev, 64, PREFETCH, 0, s));
	EXPECT_ACL_OK(aclrtCmoAsyncWithBarrier(dev, 64, WRITEBACK, 0, NULL));
	EXPECT_ACL_OK(aclrtCmoAsyncWithBarrier(dev, 4096, FLUSH, 0, s));
	EXPECT_ACL_OK(aclrtCmoAsyncWithBarrier(dev, 4096, INVALIDATE, 0xffffffffU, s));

	/* the wait: the acl layer's checks, then the runtime's */
	memset(&ti, 0, sizeof(ti));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(NULL, s, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(&ti, s, 0));
	ti.barrierNum = ACL_RT_CMO_MAX_BARRIER_NUM + 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_SUCCESS);
	ti = barrier_info(2, (const uint32_t[]){ 0xffffffffU, 9 });
	ti.cmoInfo[1].cmoType = FLUSH;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ti = barrier_info(2, (const uint32_t[]){ 0xffffffffU, 0 });
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	ti = barrier_info(1, (const uint32_t[]){ 0xffffffffU });
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtCmoWaitBarrier(&ti, gone, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtCmoWaitBarrier(&ti, theirs, 0));
	/* an id no CMO task of this context carried: CANN's "stream not in model", recorded */
	ti = barrier_info(2, (const uint32_t[]){ 0xffffffffU, 9 });
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_MODEL);
	/* carried in another context only: unknown here too */
	ASSERT_ACL_OK(aclrtSetCurrentContext(other));
	ASSERT_ACL_OK(aclrtCmoAsyncWithBarrier(dev, 64, INVALIDATE, 9, theirs));
	ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_ERROR_RT_STREAM_MODEL);
	/* known: queued on any stream of the context; flag is reserved, not checked */
	ti = barrier_info(1, (const uint32_t[]){ 0xffffffffU });
	EXPECT_ACL_OK(aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_ACL_OK(aclrtCmoWaitBarrier(&ti, NULL, 7));
	ti = barrier_info(6, (const uint32_t[]){ 0xffffffffU, 0xffffffffU, 0xffffffffU,
					       0xffffffffU, 0xffffffffU, 0xffffffffU });
	EXPECT_ACL_OK(aclrtCmoWaitBarrier(&ti, s, 0));
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));

	/* a CMO task faults where the device cannot reach, at the synchronize; the stream runs on */
	npu_expect_dma_faults(true);
	EXPECT_ACL_OK(aclrtCmoAsyncWithBarrier((char *)dev + 4096 * 4, 4096, INVALIDATE, 5, s));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	EXPECT_ACL_OK(aclrtCmoAsyncWithBarrier(dev, 4096, INVALIDATE, 5, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));

	ASSERT_ACL_OK(aclrtSetCurrentContext(other));
	ASSERT_ACL_OK(aclrtDestroyStream(theirs));
	ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
	ASSERT_ACL_OK(aclrtDestroyContext(other));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(dev));
}

/* Queue on @s a copy of @n bytes from @src to @dst that waits until *@gate >= 1. */
static void gated_copy(aclrtStream s, void *gate, void *dst, const void *src, size_t n, aclrtMemcpyKind kind)
{
	ASSERT_ACL_OK(aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(dst, n, src, n, kind, s));
}

static void open_gate(void *gate)
{
	uint64_t one = 1;

	ASSERT_ACL_OK(aclrtMemcpy(gate, sizeof(one), &one, sizeof(one), ACL_MEMCPY_HOST_TO_DEVICE));
}

static aclrtStreamStatus stream_status(aclrtStream s)
{
	aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;

	if (aclrtStreamQuery(s, &st) != ACL_SUCCESS)
		return ACL_STREAM_STATUS_RESERVED;
	return st;
}

/*
 * The wait holds its stream: stream A copies BIG bytes of a pattern into
 * X only when the device's gate word opens, then invalidates X carrying
 * barrier 7; stream B waits for barrier 7, then copies X to the host.
 * While the gate is shut B does not run (its copy has not happened),
 * though a stream that does not wait reads X's old bytes; opened, B's
 * copy sees the whole pattern.
 */
TEST_F_TIMEOUT(chip, ascend310b1_barrier_wait_waits, 120)
{
	const uint32_t id = 7;
	aclrtBarrierTaskInfo ti = barrier_info(1, &id);
	aclrtStream a, b, c;
	void *gate, *x, *h, *r, *r2;

	chip_load(self, "Ascend310B1");
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&a));
	ASSERT_ACL_OK(aclrtCreateStream(&b));
	ASSERT_ACL_OK(aclrtCreateStream(&c));
	ASSERT_ACL_OK(aclrtMalloc(&gate, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(gate, 8, 0, 8));
	ASSERT_ACL_OK(aclrtMalloc(&x, BIG, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMemset(x, BIG, 0, BIG));
	ASSERT_ACL_OK(aclrtMallocHost(&h, BIG));
	ASSERT_ACL_OK(aclrtMallocHost(&r, BIG));
	ASSERT_ACL_OK(aclrtMallocHost(&r2, BIG));
	fill_pattern(h, BIG, 11);
	memset(r, 0xee, BIG);
	memset(r2, 0xee, BIG);

	gated_copy(a, gate, x, h, BIG, ACL_MEMCPY_HOST_TO_DEVICE);
	ASSERT_ACL_OK(aclrtCmoAsyncWithBarrier(x, BIG, INVALIDATE, id, a));
	ASSERT_ACL_OK(aclrtCmoWaitBarrier(&ti, b, 0));
	ASSERT_ACL_OK(aclrtMemcpyAsync(r, BIG, x, BIG, ACL_MEMCPY_DEVICE_TO_HOST, b));
	/* without the wait: runs at once, and reads what X held */
	ASSERT_ACL_OK(aclrtMemcpyAsync(r2, BIG, x, BIG, ACL_MEMCPY_DEVICE_TO_HOST, c));
	ASSERT_ACL_OK(aclrtSynchronizeStream(c));
	EXPECT_EQ(-1, check_byte(r2, BIG, 0));
	usleep(300 * 1000);
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status(a));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status(b));
	EXPECT_EQ(-1, check_byte(r, BIG, 0xee));

	open_gate(gate);
	ASSERT_ACL_OK(aclrtSynchronizeStream(b));
	EXPECT_EQ(-1, check_pattern(r, BIG, 11));
	ASSERT_ACL_OK(aclrtSynchronizeStream(a));

	ASSERT_ACL_OK(aclrtFreeHost(r2));
	ASSERT_ACL_OK(aclrtFreeHost(r));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	ASSERT_ACL_OK(aclrtFree(x));
	ASSERT_ACL_OK(aclrtFree(gate));
	ASSERT_ACL_OK(aclrtDestroyStream(c));
	ASSERT_ACL_OK(aclrtDestroyStream(b));
	ASSERT_ACL_OK(aclrtDestroyStream(a));
}

/*
 * Several ids in one wait: it waits for every one (two gated streams,
 * opened one at a time). An id carried again is the newer task's. The
 * carrying stream's own wait is no wait (stream order). A carrying
 * stream destroyed (its work done) leaves nothing to wait for.
 */
TEST_F_TIMEOUT(chip, ascend310b1_barrier_ids, 120)
{
	const size_t n = 8 * MiB;
	aclrtBarrierTaskInfo ti = barrier_info(2, (const uint32_t[]){ 1, 2 });
	void *gate1, *gate2, *gate3, *x1, *x2, *y, *h1, *h2, *r;
	aclrtStream a1, a2, b, t;

	chip_load(self, "Ascend310B1");
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&a1));
	ASSERT_ACL_OK(aclrtCreateStream(&a2));
	ASSERT_ACL_OK(aclrtCreateStream(&b));
	ASSERT_ACL_OK(aclrtMalloc(&gate1, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&gate2, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&gate3, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(gate1, 8, 0, 8));
	ASSERT_ACL_OK(aclrtMemset(gate2, 8, 0, 8));
	ASSERT_ACL_OK(aclrtMemset(gate3, 8, 0, 8));
	ASSERT_ACL_OK(aclrtMalloc(&x1, n, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&x2, n, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&y, 2 * n, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&h1, n));
	ASSERT_ACL_OK(aclrtMallocHost(&h2, n));
	ASSERT_ACL_OK(aclrtMallocHost(&r, 2 * n));
	fill_pattern(h1, n, 21);
	fill_pattern(h2, n, 22);

	gated_copy(a1, gate1, x1, h1, n, ACL_MEMCPY_HOST_TO_DEVICE);
	ASSERT_ACL_OK(aclrtCmoAsyncWithBarrier(x1, n, INVALIDATE, 1, a1));
	gated_copy(a2, gate2, x2, h2, n, ACL_MEMCPY_HOST_TO_DEVICE);
	ASSERT_ACL_OK(aclrtCmoAsyncWithBarrier(x2, n, INVALIDATE, 2, a2));
	ASSERT_ACL_OK(aclrtCmoWaitBarrier(&ti, b, 0));
	ASSERT_ACL_OK(aclrtMemcpyAsync(y, n, x1, n, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)y + n, n, x2, n, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
	ASSERT_ACL_OK(aclrtMemcpyAsync(r, 2 * n, y, 2 * n, ACL_MEMCPY_DEVICE_TO_HOST, b));
	open_gate(gate2);
	ASSERT_ACL_OK(aclrtSynchronizeStream(a2));
	usleep(200 * 1000);
	/* barrier 2 is done, barrier 1 is not: still waiting */
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status(b));
	open_gate(gate1);
	ASSERT_ACL_OK(aclrtSynchronizeStream(b));
	EXPECT_EQ(-1, check_pattern(r, n, 21));
	EXPECT_EQ(-1, check_pattern((char *)r + n, n, 22));

	/* id 1 carried again, by a newer task behind a shut gate */
	ti = barrier_info(1, (const uint32_t[]){ 1 });
	fill_pattern(h1, n, 23);
	gated_copy(a1, gate3, x1, h1, n, ACL_MEMCPY_HOST_TO_DEVICE);
	ASSERT_ACL_OK(aclrtCmoAsyncWithBarrier(x1, n, INVALIDATE, 1, a1));
	ASSERT_ACL_OK(aclrtCmoWaitBarrier(&ti, b, 0));
	ASSERT_ACL_OK(aclrtMemcpyAsync(r, n, x1, n, ACL_MEMCPY_DEVICE_TO_HOST, b));
	usleep(200 * 1000);
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status(b));
	open_gate(gate3);
	ASSERT_ACL_OK(aclrtSynchronizeStream(b));
	EXPECT_EQ(-1, check_pattern(r, n, 23));

	/* the carrying stream waits on itself: nothing to queue, order holds */
	ASSERT_ACL_OK(aclrtCmoWaitBarrier(&ti, a1, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(a1));
	/* the carrier destroyed after its work: the wait has nothing left to wait for */
	ASSERT_ACL_OK(aclrtCreateStream(&t));
	ASSERT_ACL_OK(aclrtCmoAsyncWithBarrier(x2, n, INVALIDATE, 3, t));
	ASSERT_ACL_OK(aclrtDestroyStream(t));
	ti = barrier_info(1, (const uint32_t[]){ 3 });
	ASSERT_ACL_OK(aclrtCmoWaitBarrier(&ti, b, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(b));

	ASSERT_ACL_OK(aclrtFreeHost(r));
	ASSERT_ACL_OK(aclrtFreeHost(h2));
	ASSERT_ACL_OK(aclrtFreeHost(h1));
	ASSERT_ACL_OK(aclrtFree(y));
	ASSERT_ACL_OK(aclrtFree(x2));
	ASSERT_ACL_OK(aclrtFree(x1));
	ASSERT_ACL_OK(aclrtFree(gate3));
	ASSERT_ACL_OK(aclrtFree(gate2));
	ASSERT_ACL_OK(aclrtFree(gate1));
	ASSERT_ACL_OK(aclrtDestroyStream(b));
	ASSERT_ACL_OK(aclrtDestroyStream(a2));
	ASSERT_ACL_OK(aclrtDestroyStream(a1));
}

/* ------------------------------------------------------------------ */
/* Ascend910_9391: an A3 super-pod part                                */
/* ------------------------------------------------------------------ */

struct job {
	char key[65];
	int32_t want;		/* what the import answers */
	unsigned int seed;	/* the pattern it reads, if it imports */
};

/* Importer: take a job, import its key expecting job.want, check the pattern, report 1. */
static void importer(int rd, int wr, void *arg)
{
	struct job j;
	void *p = NULL;
	char *buf;
	aclError r;

	(void)arg;
	r = aclInit(NULL);
	CK(r == ACL_SUCCESS || r == ACL_ERROR_REPEAT_INITIALIZE);
	CK(read(rd, &j, sizeof(j)) == (ssize_t)sizeof(j));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(j.want, aclrtIpcMemImportByKey(&p, j.key, 0));
	if (j.want == ACL_SUCCESS) {
		buf = malloc(4096);
		CK(buf);
		CK_ACL(ACL_SUCCESS, aclrtMemcpy(buf, 4096, p, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
		CK(check_pattern(buf, 4096, j.seed) == -1);
		free(buf);
		CK_ACL(ACL_SUCCESS, aclrtIpcMemClose(j.key));
	}
	put_u64(wr, 1);
}

/* Start an importer; its pid is listed (or not) before it is given the job. */
static void start_importer(struct child *c)
{
	ASSERT_EQ(0, spawn(c, importer, NULL));
}

/* Give the importer its job: its exit status (0: it did what the job said). */
static int finish_importer(struct child *c, const char *key, int32_t want, unsigned int seed)
{
	struct job j = { .want = want, .seed = seed };
	uint64_t done = 0;
	int st;

	memcpy(j.key, key, sizeof(j.key));
	/* a child that died early closed its pipe: no signal, no reply (SIGPIPE is ignored) */
	if (write(c->wr, &j, sizeof(j)) == (ssize_t)sizeof(j) &&
	    read(c->rd, &done, sizeof(done)) != (ssize_t)sizeof(done))
		done = 0;
	st = reap(c);
	return st ? st : done == 1 ? 0 : -1;
}

/* The super pod's ids: one server (0), two dies a chip. */
TEST_F_TIMEOUT(chip, ascend910_9391_super_pod_ids, 120)
{
	int64_t v;
	int d;

	chip_load(self, "Ascend910_9391");
	for (d = 0; d < self->num_devices; d++) {
		v = -1;
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_SUPER_POD_DEVICE_ID, &v));
		EXPECT_EQ((int64_t)SDID(0, d), v);
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_SUPER_POD_SERVER_ID, &v));
		EXPECT_EQ(0, v);
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_SUPER_POD_ID, &v));
		EXPECT_EQ(0, v);
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_AICORE_CORE_NUM, &v));
		EXPECT_EQ(24, v);
	}
}

/*
 * aclrtIpcMemImportPidInterServer on the simulated super pod: an entry of
 * this server lets its processes import, one of another server fails
 * (107017) after the entries before it took effect; the checks and codes.
 * The barrier calls are the 310B class's: not here.
 */
TEST_F_TIMEOUT(chip, ascend910_9391_import_pid_inter_server, 120)
{
	int32_t pids[32], bad;
	aclrtServerPid sp[2];
	struct child c1, c2, c3;
	char key[65];
	void *dev, *h;

	chip_load(self, "Ascend910_9391");
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 2 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtMallocHost(&h, 2 * MiB));
	fill_pattern(h, 2 * MiB, 31);
	ASSERT_ACL_OK(aclrtMemcpy(dev, 2 * MiB, h, 2 * MiB, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtIpcMemGetExportKey(dev, 2 * MiB, key, sizeof(key), 0));
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);

	/* this server (device 1's sdid: any device of server 0) */
	start_importer(&c1);
	pids[0] = c1.pid;
	sp[0] = (aclrtServerPid){ .sdid = SDID(0, 1), .pid = pids, .num = 1 };
	ASSERT_ACL_OK(aclrtIpcMemImportPidInterServer(key, sp, 1));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_EQ(0, finish_importer(&c1, key, ACL_SUCCESS, 31));

	/* entry 0 this server's, entry 1 another server's: 107017, entry 0 listed */
	start_importer(&c2);
	start_importer(&c3);
	pids[0] = c2.pid;
	pids[1] = c3.pid;
	sp[0] = (aclrtServerPid){ .sdid = SDID(0, 0), .pid = &pids[0], .num = 1 };
	sp[1] = (aclrtServerPid){ .sdid = SDID(1, 0), .pid = &pids[1], .num = 1 };
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcMemImportPidInterServer(key, sp, 2));
	EXPECT_LAST(ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_EQ(0, finish_importer(&c2, key, ACL_SUCCESS, 31));
	EXPECT_EQ(0, finish_importer(&c3, key, ACL_ERROR_RT_NO_PERMISSION, 0));

	/* the runtime's and the driver's checks: 107000, recorded */
	sp[0] = (aclrtServerPid){ .sdid = SDID(0, 0), .pid = pids, .num = 1 };
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(NULL, sp, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, NULL, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer("", sp, 1));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	sp[0].pid = NULL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 1));
	sp[0].pid = pids;
	sp[0].num = 32;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 1));
	sp[0].num = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 1));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* this server's pids as aclrtIpcMemSetImportPid takes them */
	sp[0].num = 1;
	bad = 0;
	sp[0].pid = &bad;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 1));
	bad = 0x7ffffff0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 1));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	/* a key this process did not export */
	sp[0].pid = pids;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtIpcMemImportPidInterServer("npu0-ipc-0123456789abcdef", sp, 1));
	/* the entries in order: a bad entry 1 after a good entry 0 is still refused */
	sp[1] = (aclrtServerPid){ .sdid = SDID(0, 0), .pid = NULL, .num = 1 };
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, sp, 2));

	/* no barrier CMO tasks on this chip; its CMO tasks work */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCmoAsyncWithBarrier(dev, 64, INVALIDATE, 1, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_ACL_OK(aclrtCmoAsync(dev, 64, PREFETCH, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));

	ASSERT_ACL_OK(aclrtIpcMemClose(key));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	ASSERT_ACL_OK(aclrtFree(dev));
}

/* ------------------------------------------------------------------ */
/* Ascend310P1: the 310P class (CHIP_DC)                               */
/* ------------------------------------------------------------------ */

/*
 * Compute groups exist on the class, and the simulated device has none
 * configured; the NPU float status tasks do not (207000, before the
 * stream is looked at), while the context's status itself works.
 */
TEST_F_TIMEOUT(chip, ascend310p1_groups_and_float_status, 120)
{
	uint64_t fake[8] = { 0 };
	uint32_t count = 7;
	size_t ret_size = 0;
	void *dev, *addr;
	int32_t v;

	chip_load(self, "Ascend310P1");
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetGroupCount(&count));
	EXPECT_EQ(0u, count);
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_NULL(aclrtCreateGroupInfo());
	/* CANN warns and allocates nothing; no last error */
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_GROUP_NOT_CREATE, aclrtSetGroup(0));
	EXPECT_LAST(ACL_ERROR_RT_GROUP_NOT_CREATE);
	EXPECT_ACL(ACL_ERROR_RT_GROUP_NOT_CREATE, aclrtSetGroup(3));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetGroup(4));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetGroup(-1));
	EXPECT_ACL(ACL_ERROR_RT_GROUP_NOT_CREATE, aclrtGetAllGroupInfo((aclrtGroupInfo *)fake));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtGetGroupInfoDetail((aclrtGroupInfo *)fake, 0, ACL_GROUP_AICORE_INT, &v, sizeof(v), &ret_size));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtGetGroupInfoDetail((aclrtGroupInfo *)fake, -1, ACL_GROUP_GROUPID_INT, &v, sizeof(v), &ret_size));
	EXPECT_EQ(0u, ret_size);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyGroupInfo((aclrtGroupInfo *)fake));

	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNpuGetFloatOverFlowStatus(dev, 64, 0, NULL));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* the feature first: a bad size does not get as far */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNpuGetFloatOverFlowStatus(dev, 63, 0, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNpuClearFloatOverFlowStatus(0, NULL));
	ASSERT_ACL_OK(aclrtCtxGetFloatOverflowAddr(&addr));
	ASSERT_ACL_OK(aclrtGetFloatOverflowStatus(dev, 64, NULL));
	ASSERT_ACL_OK(aclrtResetFloatOverflowStatus(NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtFree(dev));
}

TEST_HARNESS_MAIN
