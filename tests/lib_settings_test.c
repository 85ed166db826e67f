// SPDX-License-Identifier: MIT
/*
 * libacl: what torch_npu calls to load and initialise (issue 22, A3/A4)
 * and the exact CANN codes of their bad inputs: the saturation mode, the
 * system parameter options, operator timeouts, stream overflow switches,
 * the overflow status, data buffers, aclAppLog, the dump state machine
 * and aclrtLaunchKernelWithHostArgs. The host-only parts run without
 * /dev/npu0; the rest skip.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib_util.h"

static aclError last(void)
{
	return aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

TEST(sat_mode_process_wide_no_context)
{
	aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;

	/* no aclInit, no device: CANN needs neither; inf/nan on the 910B class (lib_chip_test: the 310B) */
	ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
	if (lib_soc_910b_class())
		EXPECT_EQ(ACL_RT_OVERFLOW_MODE_INFNAN, mode);
	ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
	ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
	EXPECT_EQ(ACL_RT_OVERFLOW_MODE_SATURATION, mode);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceSatMode((aclrtFloatOverflowMode)-1));
	ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
	EXPECT_EQ(ACL_RT_OVERFLOW_MODE_SATURATION, mode);
	ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
	ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
	EXPECT_EQ(ACL_RT_OVERFLOW_MODE_INFNAN, mode);
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceSatMode(NULL));
	/* the acl layer's 100000 is no last error */
	EXPECT_EQ(ACL_SUCCESS, last());
}

TEST(sys_param_opt_process_wide)
{
	int64_t v = -1;
	int opt;

	for (opt = ACL_OPT_DETERMINISTIC; opt <= ACL_OPT_ENABLE_KERNEL_EARLY_START; opt++) {
		v = -1;
		ASSERT_ACL_OK(aclrtGetSysParamOpt((aclSysParamOpt)opt, &v));
		EXPECT_EQ(0, v);
	}
	ASSERT_ACL_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 3));
	ASSERT_ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	EXPECT_EQ(3, v);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1));
	ASSERT_ACL_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 2));
	ASSERT_ACL_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1));
	ASSERT_ACL_OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v));
	EXPECT_EQ(1, v);
	ASSERT_ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	EXPECT_EQ(3, v);
	/* the acl layer's checks */
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetSysParamOpt((aclSysParamOpt)4, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetSysParamOpt((aclSysParamOpt)-1, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetSysParamOpt((aclSysParamOpt)4, 0));
	EXPECT_EQ(ACL_SUCCESS, last());
}

TEST(op_timeouts)
{
	uint64_t actual = 1;

	/* seconds: no context needed */
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOut(547));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetOpExecuteTimeOutV2(1000, NULL));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSetOpExecuteTimeOutV2(1000, &actual));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, last());
	EXPECT_EQ(1, actual);
	NEED_DEVICE();
	/* torch_npu: 547 s in microseconds; whole milliseconds, rounded up */
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(547ULL * 1000 * 1000, &actual));
	EXPECT_EQ(547ULL * 1000 * 1000, actual);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(1, &actual));
	EXPECT_EQ(1000, actual);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(1001, &actual));
	EXPECT_EQ(2000, actual);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(0, &actual));
	EXPECT_EQ(UINT64_MAX, actual);
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(UINT64_MAX - 1, &actual));
	EXPECT_EQ(UINT64_MAX, actual);
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(ctx_sys_param_opt)
{
	aclrtContext c2;
	int64_t v = -1;

	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	EXPECT_EQ(-1, v);
	ASSERT_ACL_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2));
	ASSERT_ACL_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	EXPECT_EQ(2, v);
	/* the process-wide value follows (CANN's rtCtxSetSysParamOpt) */
	ASSERT_ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	EXPECT_EQ(2, v);
	/* per context: another one has none */
	ASSERT_ACL_OK(aclrtCreateContext(&c2, 0));
	EXPECT_ACL(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	ASSERT_ACL_OK(aclrtDestroyContext(c2));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	(void)last();
	/* a context keeps options 0..2 only; values as process-wide */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2));
	ASSERT_ACL_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	EXPECT_EQ(2, v);
	ASSERT_ACL_OK(aclFinalize());
}

TEST(stream_overflow_switch)
{
	aclrtContext c2;
	aclrtStream s;
	uint32_t flag = 7;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(s, &flag));
	EXPECT_EQ(0, flag);
	ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 1));
	ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(s, &flag));
	EXPECT_EQ(1, flag);
	/* NULL: the default stream, its own switch */
	ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(NULL, &flag));
	EXPECT_EQ(0, flag);
	ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(NULL, 1));
	ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(NULL, &flag));
	EXPECT_EQ(1, flag);
	ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 0));
	ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(s, &flag));
	EXPECT_EQ(0, flag);
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamOverflowSwitch(s, 2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetStreamOverflowSwitch(s, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* another context's stream */
	ASSERT_ACL_OK(aclrtCreateContext(&c2, 0));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtSetStreamOverflowSwitch(s, 1));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CONTEXT, last());
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtGetStreamOverflowSwitch(s, &flag));
	ASSERT_ACL_OK(aclrtDestroyContext(c2));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamOverflowSwitch(s, 1));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_HANDLE, last());
	ASSERT_ACL_OK(aclFinalize());
}

TEST(overflow_status_in_stream_order)
{
	unsigned char host[64];
	aclrtStream s;
	void *dev, *pinned;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMallocHost(&pinned, 4096));
	ASSERT_ACL_OK(aclrtMemset(dev, 4096, 0xAB, 4096));
	memset(pinned, 0xCD, 4096);
	ASSERT_ACL_OK(aclrtGetOverflowStatus(dev, 64, s));
	ASSERT_ACL_OK(aclrtGetOverflowStatus(pinned, 64, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	/* exactly 64 bytes of zeros: nothing has overflowed */
	ASSERT_ACL_OK(aclrtMemcpy(host, sizeof(host), dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(host, 64, 0));
	ASSERT_ACL_OK(aclrtMemcpy(host, sizeof(host), (char *)dev + 64, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(host, 64, 0xAB));
	EXPECT_EQ(-1, check_byte(pinned, 64, 0));
	EXPECT_EQ(-1, check_byte((char *)pinned + 64, 64, 0xCD));
	ASSERT_ACL_OK(aclrtResetOverflowStatus(s));
	ASSERT_ACL_OK(aclrtResetOverflowStatus(NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetOverflowStatus(NULL, 64, s));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(dev, 63, s));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(dev, 128, s));
	/* pageable host memory: the device cannot write it */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(host, 64, s));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetOverflowStatus(dev, 64, s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetOverflowStatus(s));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFreeHost(pinned));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetOverflowStatus(NULL));
	ASSERT_ACL_OK(aclFinalize());
}

/* Contexts made and destroyed give their status words back. */
TEST(overflow_status_per_context)
{
	aclrtContext c;
	void *dev;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	for (i = 0; i < 200; i++) {
		ASSERT_ACL_OK(aclrtCreateContext(&c, 0));
		ASSERT_ACL_OK(aclrtResetOverflowStatus(NULL));
		ASSERT_ACL_OK(aclrtGetOverflowStatus(dev, 64, NULL));
		ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
		ASSERT_ACL_OK(aclrtDestroyContext(c));
	}
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * The newer names read and clear the same per-context status: a pattern
 * stored at aclrtCtxGetFloatOverflowAddr's address (where a kernel sets
 * its bits) comes back through all three readers and is cleared by both
 * resetters. The codes where they differ from aclrtGetOverflowStatus.
 */
TEST(float_overflow_names_share_the_status)
{
	unsigned char pattern[64], host[64];
	void *addr = NULL, *dev;
	aclrtStream s;
	int i;

	NEED_DEVICE();
	for (i = 0; i < 64; i++)
		pattern[i] = (unsigned char)(0x11 * (i % 15 + 1));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtCtxGetFloatOverflowAddr(&addr));
	ASSERT_NONNULL(addr);
	/* the same address every time: the context's one status */
	{
		void *again = NULL;

		ASSERT_ACL_OK(aclrtCtxGetFloatOverflowAddr(&again));
		EXPECT_EQ(addr, again);
	}
	ASSERT_ACL_OK(aclrtMemcpy(addr, 64, pattern, 64, ACL_MEMCPY_DEFAULT));
	ASSERT_ACL_OK(aclrtGetFloatOverflowStatus(dev, 64, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(host, pattern, 64));
	ASSERT_ACL_OK(aclrtMemset(dev, 64, 0, 64));
	ASSERT_ACL_OK(aclrtNpuGetFloatOverFlowStatus(dev, 64, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(host, pattern, 64));
	ASSERT_ACL_OK(aclrtNpuClearFloatOverFlowStatus(0, s));
	ASSERT_ACL_OK(aclrtGetOverflowStatus(dev, 64, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(host, 64, 0));
	ASSERT_ACL_OK(aclrtMemcpy(addr, 64, pattern, 64, ACL_MEMCPY_DEFAULT));
	ASSERT_ACL_OK(aclrtResetFloatOverflowStatus(s));
	ASSERT_ACL_OK(aclrtGetFloatOverflowStatus(dev, 64, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(host, 64, 0));

	/* no acl-layer check: NULL is the runtime's code, and the last error */
	(void)last();
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFloatOverflowStatus(NULL, 64, s));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNpuGetFloatOverFlowStatus(NULL, 64, 0, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFloatOverflowStatus(dev, 63, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNpuGetFloatOverFlowStatus(dev, 65, 1, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCtxGetFloatOverflowAddr(NULL));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetFloatOverflowStatus(dev, 64, s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetFloatOverflowStatus(s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNpuGetFloatOverFlowStatus(dev, 64, 0, s));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNpuClearFloatOverFlowStatus(0, s));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCtxGetFloatOverflowAddr(&addr));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtNpuClearFloatOverFlowStatus(0, NULL));
	ASSERT_ACL_OK(aclFinalize());
}

/* The 910B class has no compute groups: 207000 after the acl layer's NULL checks. */
TEST(compute_groups_not_on_the_910b_class)
{
	uint64_t fake[8] = { 0 };
	uint32_t count = 7;
	size_t ret_size = 0;
	int32_t v;

	NEED_DEVICE();
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetGroupCount(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetAllGroupInfo(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyGroupInfo(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtGetGroupInfoDetail(NULL, 0, ACL_GROUP_AICORE_INT, &v, sizeof(v), &ret_size));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtGetGroupInfoDetail((aclrtGroupInfo *)fake, 0, ACL_GROUP_AICORE_INT, NULL, sizeof(v), &ret_size));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtGetGroupInfoDetail((aclrtGroupInfo *)fake, 0, ACL_GROUP_AICORE_INT, &v, sizeof(v), NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetGroup(0));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, last());
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetGroup(-1));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetGroupCount(&count));
	EXPECT_EQ(7u, count);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetAllGroupInfo((aclrtGroupInfo *)fake));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtGetGroupInfoDetail((aclrtGroupInfo *)fake, 0, ACL_GROUP_AICORE_INT, &v, sizeof(v), &ret_size));
	EXPECT_EQ(0u, ret_size);
	EXPECT_NULL(aclrtCreateGroupInfo());
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, last());
	EXPECT_NONNULL(strstr(aclGetRecentErrMsg(), "compute groups"));
	/* never made by libacl: refused, not freed */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyGroupInfo((aclrtGroupInfo *)fake));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(launch_with_host_args_unknown_handle)
{
	uint64_t args[4] = { 0 };
	/* not a handle at all: it must not be read */
	aclrtFuncHandle bogus = (aclrtFuncHandle)(uintptr_t)0x10;

	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtLaunchKernelWithHostArgs(NULL, 1, NULL, NULL, args, sizeof(args), NULL, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtLaunchKernelWithHostArgs(bogus, 1, NULL, NULL, NULL, 0, NULL, 0));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
		   aclrtLaunchKernelWithHostArgs(bogus, 1, NULL, NULL, args, sizeof(args), NULL, 0));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_HANDLE, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
		   aclrtLaunchKernelWithHostArgs((aclrtFuncHandle)args, 8, NULL, NULL, args, sizeof(args), NULL, 0));
}

TEST(data_buffers)
{
	char mem[16];
	aclDataBuffer *b = aclCreateDataBuffer(mem, sizeof(mem));
	aclDataBuffer *empty = aclCreateDataBuffer(NULL, 0);

	ASSERT_NONNULL(b);
	ASSERT_NONNULL(empty);
	EXPECT_EQ((void *)mem, aclGetDataBufferAddr(b));
	EXPECT_EQ(sizeof(mem), aclGetDataBufferSizeV2(b));
	EXPECT_EQ(NULL, aclGetDataBufferAddr(empty));
	EXPECT_EQ(0, aclGetDataBufferSizeV2(empty));
	ASSERT_ACL_OK(aclUpdateDataBuffer(b, mem + 4, (1ULL << 32) + 5));
	EXPECT_EQ((void *)(mem + 4), aclGetDataBufferAddr(b));
	EXPECT_EQ((1ULL << 32) + 5, aclGetDataBufferSizeV2(b));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	/* the deprecated getter: the low 32 bits, as CANN */
	EXPECT_EQ(5, aclGetDataBufferSize(b));
	EXPECT_EQ(0, aclGetDataBufferSize(NULL));
#pragma GCC diagnostic pop
	EXPECT_EQ(NULL, aclGetDataBufferAddr(NULL));
	EXPECT_EQ(0, aclGetDataBufferSizeV2(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclUpdateDataBuffer(NULL, mem, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclDestroyDataBuffer(NULL));
	EXPECT_ACL_OK(aclDestroyDataBuffer(b));
	EXPECT_ACL_OK(aclDestroyDataBuffer(empty));
}

/* Run aclAppLog with stderr into a file; its content in @out. */
static void app_log(char *out, size_t len, aclLogLevel level, const char *func, const char *file,
		    const char *fmt, const char *arg)
{
	char path[] = "/tmp/acl-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	out[0] = 0;
	if (fd < 0 || saved < 0)
		return;
	unlink(path);
	dup2(fd, 2);
	aclAppLog(level, func, file, 42, fmt, arg);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = 0;
	close(fd);
}

TEST(app_log_levels_and_format)
{
	char out[4096], want[128], *big;

	unsetenv("ASCEND_GLOBAL_LOG_LEVEL");
	app_log(out, sizeof(out), ACL_ERROR, "fn", "file.c", "[PTA]: %s", "broke");
	snprintf(want, sizeof(want), "[ERROR] APP(%d): ", getpid());
	EXPECT_EQ(0, strncmp(out, want, strlen(want)));
	EXPECT_NONNULL(strstr(out, " fn:file.c:42: \"[PTA]: broke\"\n"));
	/* below the default threshold (ERROR): nothing */
	app_log(out, sizeof(out), ACL_WARNING, "fn", "file.c", "%s", "w");
	EXPECT_STREQ("", out);
	setenv("ASCEND_GLOBAL_LOG_LEVEL", "1", 1);
	app_log(out, sizeof(out), ACL_INFO, "fn", "file.c", "%s", "i");
	EXPECT_EQ(0, strncmp(out, "[INFO] APP(", 11));
	app_log(out, sizeof(out), ACL_DEBUG, "fn", "file.c", "%s", "d");
	EXPECT_STREQ("", out);
	setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 1);
	app_log(out, sizeof(out), ACL_ERROR, "fn", "file.c", "%s", "e");
	EXPECT_STREQ("", out);
	setenv("ASCEND_GLOBAL_LOG_LEVEL", "0", 1);
	/* NULL func, file or fmt: silently nothing */
	app_log(out, sizeof(out), ACL_ERROR, NULL, "file.c", "%s", "x");
	EXPECT_STREQ("", out);
	app_log(out, sizeof(out), ACL_ERROR, "fn", NULL, "%s", "x");
	EXPECT_STREQ("", out);
	app_log(out, sizeof(out), ACL_ERROR, "fn", "file.c", NULL, "x");
	EXPECT_STREQ("", out);
	/* a long body: cut to 1023 bytes from the tid on, marked */
	big = malloc(3000);
	ASSERT_NONNULL(big);
	memset(big, 'a', 2999);
	big[2999] = 0;
	app_log(out, sizeof(out), ACL_DEBUG, "fn", "file.c", "%s", big);
	free(big);
	ASSERT_NONNULL(strstr(out, "): "));
	EXPECT_EQ(1023 + 1, strlen(strstr(out, "): ") + 3));
	EXPECT_EQ(0, strcmp(out + strlen(out) - 15, "...[truncated]\n"));
	/* no failure is recorded */
	EXPECT_EQ(NULL, aclGetRecentErrMsg());
}

/* Write @content to a new file in /tmp; its path in @path. */
static void tmp_file(char *path, size_t len, const char *content)
{
	int fd;

	snprintf(path, len, "/tmp/acl-dump-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return;
	if (write(fd, content, strlen(content)) < 0)
		path[0] = 0;
	close(fd);
}

TEST(dump_state_machine)
{
	char path[64];

	tmp_file(path, sizeof(path), "{\"dump\": {\"dump_path\": \"/tmp\", \"dump_list\": []}}\n");
	ASSERT_NE(0, path[0]);
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclmdlInitDump());
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclmdlSetDump(path));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclmdlFinalizeDump());
	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_DUMP_NOT_RUN, aclmdlSetDump(path));
	EXPECT_ACL(ACL_ERROR_DUMP_NOT_RUN, aclmdlFinalizeDump());
	/* before the NULL check, as CANN */
	EXPECT_ACL(ACL_ERROR_DUMP_NOT_RUN, aclmdlSetDump(NULL));
	ASSERT_ACL_OK(aclmdlInitDump());
	EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclmdlInitDump());
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlSetDump(NULL));
	ASSERT_ACL_OK(aclmdlSetDump(path));
	ASSERT_ACL_OK(aclmdlSetDump(path));
	ASSERT_ACL_OK(aclmdlFinalizeDump());
	EXPECT_ACL(ACL_ERROR_DUMP_NOT_RUN, aclmdlFinalizeDump());
	/* again, and the session outlives aclFinalize (CANN's flag does) */
	ASSERT_ACL_OK(aclmdlInitDump());
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclmdlInitDump());
	ASSERT_ACL_OK(aclmdlFinalizeDump());
	ASSERT_ACL_OK(aclFinalize());
	unlink(path);
}

TEST(dump_config_checks)
{
	static const struct {
		const char *content;
		aclError want;
	} cases[] = {
		{ "", ACL_SUCCESS },
		{ "  {\"a\": [1, {\"b\": \"}]\\\"\"}]}\n", ACL_SUCCESS },
		{ "{}", ACL_SUCCESS },
		{ "   ", ACL_ERROR_INVALID_DUMP_CONFIG },
		{ "[1]", ACL_ERROR_INVALID_DUMP_CONFIG },
		{ "{\"a\": 1", ACL_ERROR_INVALID_DUMP_CONFIG },
		{ "{\"a\": [1}", ACL_ERROR_INVALID_DUMP_CONFIG },
		{ "{\"a\": \"x}", ACL_ERROR_INVALID_DUMP_CONFIG },
		{ "{} {}", ACL_ERROR_INVALID_DUMP_CONFIG },
		{ "dump_path=/tmp", ACL_ERROR_INVALID_DUMP_CONFIG },
		/* 10 deep is fine, 11 is not: objects and arrays each */
		{ "{{{{{{{{{{}}}}}}}}}}", ACL_SUCCESS },
		{ "{{{{{{{{{{{}}}}}}}}}}}", ACL_ERROR_PARSE_FILE },
		{ "{\"a\":[[[[[[[[[[[]]]]]]]]]]]}", ACL_ERROR_PARSE_FILE },
		/* counted as CANN counts: inside strings too */
		{ "{\"a\": \"{{{{{{{{{{{\"}", ACL_ERROR_PARSE_FILE },
	};
	char path[64];
	size_t i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclmdlInitDump());
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TH_LOG("case %zu: %s", i, cases[i].content);
		tmp_file(path, sizeof(path), cases[i].content);
		ASSERT_NE(0, path[0]);
		EXPECT_ACL(cases[i].want, aclmdlSetDump(path));
		unlink(path);
	}
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclmdlSetDump("/nonexistent/acl.json"));
	/* the acl layer's answers (dump.cpp) are not the last error */
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclmdlSetDump("/tmp"));
	ASSERT_ACL_OK(aclmdlFinalizeDump());
	ASSERT_ACL_OK(aclFinalize());
}

/* aclGetRecentErrMsg says which argument and why */
TEST(messages_name_the_cause)
{
	uint64_t args[2] = { 0 };
	const char *msg;

	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "aclrtSetDeviceSatMode: mode 2"));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 9));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "value 9"));
	EXPECT_NONNULL(strstr(msg, "[0, 4)"));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_HANDLE,
		  aclrtLaunchKernelWithHostArgs((aclrtFuncHandle)args, 1, NULL, NULL, args, 8, NULL, 0));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "not a function handle of libacl"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclDestroyDataBuffer(NULL));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "aclDestroyDataBuffer: dataBuffer must not be NULL"));
}

TEST_HARNESS_MAIN
