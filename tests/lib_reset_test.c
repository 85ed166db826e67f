// SPDX-License-Identifier: GPL-2.0
/*
 * lib_reset_test: a device reset (netlink NPU_NL_CMD_DEVICE_RESET, as
 * `npu-smi set -t reset` asks; the test runs as root in the VM) seen
 * through libacl. As the vendor's runtime reports a device that went down
 * (its engine marks the device RT_ERROR_LOST_HEARTBEAT), every later call
 * on the device fails with ACL_ERROR_RT_LOST_HEARTBEAT, the thread's last
 * error included, with a message that says what happened and what to do,
 * and aclrtQueryDeviceStatus says ABNORMAL; once the process resets the
 * device and sets it again, it works: copies are byte for byte.
 */
#include <pthread.h>

#include "lib_util.h"
#include "npu_nl_util.h"

#define BIG	(32 * MiB)

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 13 + seed + (i >> 12));
}

/* The message of the last failure names the reset. */
static bool says_reset(void)
{
	const char *msg = aclGetRecentErrMsg();

	if (msg)
		TH_LOG("message: %s", msg);
	return msg && strstr(msg, "device was reset") && strstr(msg, "aclrtResetDevice");
}

TEST_TIMEOUT(calls_fail_until_the_device_is_set_again, 120)
{
	unsigned char *host = malloc(BIG), *back = malloc(BIG);
	aclrtDeviceStatus status;
	aclrtStream s;
	void *dev, *dev2, *pinned;
	int i;

	NEED_DEVICE();
	ASSERT_NONNULL(host);
	ASSERT_NONNULL(back);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, BIG, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMallocHost(&pinned, BIG));
	fill(pinned, BIG, 1);
	/* the stream busy with copies when the reset comes */
	for (i = 0; i < 16; i++)
		ASSERT_ACL_OK(aclrtMemcpyAsync(dev, BIG, pinned, BIG,
					       ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_EQ(0, npu_reset_device(0));

	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtSynchronizeStream(s));
	EXPECT_EQ(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_EQ(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtMemcpy(back, BIG, dev, BIG,
							   ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_TRUE(says_reset());
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtMalloc(&dev2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtMemset(dev, BIG, 0, BIG));
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtMemcpyAsync(dev, BIG, pinned, BIG,
								 ACL_MEMCPY_HOST_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtSynchronizeDevice());
	ASSERT_ACL_OK(aclrtQueryDeviceStatus(0, &status));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_ABNORMAL, status);
	ASSERT_EQ(0, npu_reset_wait(0, 10000));
	/* the reset is over; this process's context is still the lost one */
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtMalloc(&dev2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));

	/*
	 * Its memory cannot be given back (it goes when the device is reset
	 * by the process); its stream went with the context, as with a
	 * removed device. Resetting the device and setting it again works.
	 */
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtFree(dev));
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtFreeHost(pinned));
	EXPECT_ACL_OK(aclrtDestroyStream(s));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtQueryDeviceStatus(0, &status));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, status);
	ASSERT_ACL_OK(aclrtMalloc(&dev, BIG, ACL_MEM_MALLOC_HUGE_FIRST));
	fill(host, BIG, 7);
	memset(back, 0, BIG);
	ASSERT_ACL_OK(aclrtMemcpy(dev, BIG, host, BIG, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(back, BIG, dev, BIG, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(host, back, BIG));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
	free(host);
	free(back);
}

/*
 * A reset with nothing given back first: aclrtResetDevice alone (its
 * streams and memory went with the lost context) or aclFinalize and
 * aclInit bring the device back.
 */
TEST_TIMEOUT(reset_device_alone_or_finalize, 120)
{
	unsigned char buf[4096], out[4096];
	aclrtStream s;
	void *dev;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(0, npu_reset_device(0));
	ASSERT_EQ(0, npu_reset_wait(0, 10000));
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtMemset(dev, 4096, 1, 4096));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill(buf, sizeof(buf), 3);
	ASSERT_ACL_OK(aclrtMemcpy(dev, 4096, buf, 4096, ACL_MEMCPY_HOST_TO_DEVICE));

	ASSERT_EQ(0, npu_reset_device(0));
	ASSERT_EQ(0, npu_reset_wait(0, 10000));
	EXPECT_ACL(ACL_ERROR_RT_LOST_HEARTBEAT, aclrtMemcpy(out, 4096, dev, 4096,
							   ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_ACL_OK(aclFinalize());
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemcpy(dev, 4096, buf, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(out, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(buf, out, sizeof(buf)));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
