// SPDX-License-Identifier: GPL-2.0
/*
 * lib_uce_test: aclrtGetMemUceInfo and aclrtMemUceRepair over a page made
 * bad through the netlink family (the test runs as root in the VM): the
 * copy that touches it fails with ACL_ERROR_RT_DEVICE_MEM_ERROR, the range
 * is reported, the repair gives zeros there and leaves the rest intact.
 */
#include "lib_util.h"
#include "npu_nl_util.h"

TEST(uce_reported_and_repaired)
{
	const size_t len = 64 * 1024, bad = 24 * 1024;
	unsigned char *model = malloc(len), *back = malloc(len);
	aclrtMemUceInfo info[4], fix;
	aclrtStream s;
	size_t n = 0, i;
	void *dev, *dev2;

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(back);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, len, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&dev2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(model, len, 3);
	ASSERT_ACL_OK(aclrtMemcpy(dev, len, model, len, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
	EXPECT_EQ(0U, n);

	ASSERT_EQ(0, npu_poison(0, getpid(), (uintptr_t)dev + bad + 17));
	memset(info, 0xff, sizeof(info));
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
	ASSERT_EQ(1U, n);
	EXPECT_EQ((char *)dev + bad, info[0].addr);
	EXPECT_EQ(4096U, info[0].len);
	EXPECT_EQ(0U, info[0].reserved[0]);
	/* the array must hold them all; NULLs: the acl layer's 100000, no last error */
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, info, 0, &n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, NULL, 4, &n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, info, 4, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUceInfo(4096, info, 4, &n));

	npu_expect_dma_faults(true);
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtMemcpy(back, len, dev, len, ACL_MEMCPY_DEVICE_TO_HOST));
	/* a task on a stream: its synchronize answers */
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev2, 8, (char *)dev + bad + 8, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	EXPECT_ACL(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(s));
	npu_expect_dma_faults(false);
	/* the rest reads back, at other offsets than written */
	ASSERT_ACL_OK(aclrtMemcpy(back + 3, bad - 3, (char *)dev + 3, bad - 3, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back + 3, model + 3, bad - 3));

	/* repair: bad arguments first */
	memset(&fix, 0, sizeof(fix));
	fix.addr = info[0].addr;
	fix.len = info[0].len;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, NULL, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, &fix, 129));
	fix.reserved[0] = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, &fix, 1));
	fix.reserved[0] = 0;
	{
		aclrtMemUceInfo host = { .addr = model, .len = 4096 };

		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemUceRepair(0, &host, 1));
	}
	ASSERT_ACL_OK(aclrtMemUceRepair(0, &fix, 1));
	ASSERT_ACL_OK(aclrtGetMemUceInfo(0, info, 4, &n));
	EXPECT_EQ(0U, n);
	memset(model + bad, 0, 4096);
	ASSERT_ACL_OK(aclrtMemcpy(back, len, dev, len, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < len && back[i] == model[i]; i++)
		;
	EXPECT_EQ(len, i);
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev2, 8, (char *)dev + bad + 8, 8, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtFree(dev2));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	free(model);
	free(back);
}

TEST_HARNESS_MAIN
