// SPDX-License-Identifier: MIT
/*
 * libacl: shared buffers (aclrtMbuf, issue 22 part C) - data blocks shared
 * by reference copies, data lengths, the private area and its 96-byte
 * window, chains of at most 128, and the codes CANN's acl layer and
 * buffer manager answer (src/acl/aclrt_impl/memory.cpp, hicann/driver
 * drv_buff_mbuf.c). Host only, except the copy to and from a device.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lib_util.h"

static aclError last(void)
{
	return aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void *data_of(aclrtMbuf b, size_t *size)
{
	void *p = NULL;

	if (aclrtGetBufData(b, &p, size) != ACL_SUCCESS)
		return NULL;
	return p;
}

TEST(alloc_checks)
{
	aclrtMbuf b = NULL;

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtAllocBuf(&b, 100));
	ASSERT_ACL_OK(aclInit(NULL));
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocBuf(NULL, 100));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocBuf(&b, 0));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* "not above 4G" */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtAllocBuf(&b, 4 * GiB + 1));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_NULL(b);
	ASSERT_ACL_OK(aclrtAllocBuf(&b, 1));
	ASSERT_ACL_OK(aclrtFreeBuf(b));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(data_and_length)
{
	unsigned char *p;
	aclrtMbuf b, c;
	size_t size = 0, len = 7;

	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtAllocBuf(&b, 1000));
	ASSERT_ACL_OK(aclrtAllocBuf(&c, 1000));
	p = data_of(b, &size);
	ASSERT_NONNULL(p);
	EXPECT_EQ(1000, size);
	EXPECT_EQ(0, (uintptr_t)p % 64);
	EXPECT_NE(p, data_of(c, &size));
	fill_pattern(p, 1000, 1);
	EXPECT_EQ(-1, check_pattern(data_of(b, &size), 1000, 1));
	/* 0 until set */
	ASSERT_ACL_OK(aclrtGetBufDataLen(b, &len));
	EXPECT_EQ(0, len);
	ASSERT_ACL_OK(aclrtSetBufDataLen(b, 500));
	ASSERT_ACL_OK(aclrtGetBufDataLen(b, &len));
	EXPECT_EQ(500, len);
	ASSERT_ACL_OK(aclrtSetBufDataLen(b, 1000));
	/* halMbufSetDataLen: 1 up to the size, else the driver's invalid value */
	(void)last();
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetBufDataLen(b, 0));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetBufDataLen(b, 1001));
	ASSERT_ACL_OK(aclrtGetBufDataLen(b, &len));
	EXPECT_EQ(1000, len);
	/* NULL: the acl layer's */
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufData(NULL, (void **)&p, &size));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufData(b, NULL, &size));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufData(b, (void **)&p, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufDataLen(NULL, &len));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufDataLen(b, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetBufDataLen(NULL, 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeBuf(NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	ASSERT_ACL_OK(aclrtFreeBuf(b));
	ASSERT_ACL_OK(aclrtFreeBuf(c));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(user_data_window)
{
	unsigned char in[96], out[96], zero[96] = { 0 };
	aclrtMbuf b;
	int i;

	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtAllocBuf(&b, 64));
	for (i = 0; i < 96; i++)
		in[i] = (unsigned char)(200 - i);
	/* zero at first */
	ASSERT_ACL_OK(aclrtGetBufUserData(b, out, 96, 0));
	EXPECT_EQ(0, memcmp(out, zero, 96));
	ASSERT_ACL_OK(aclrtSetBufUserData(b, in, 96, 0));
	ASSERT_ACL_OK(aclrtGetBufUserData(b, out, 96, 0));
	EXPECT_EQ(0, memcmp(out, in, 96));
	/* at offsets, up to 96 together */
	ASSERT_ACL_OK(aclrtSetBufUserData(b, zero, 16, 80));
	ASSERT_ACL_OK(aclrtGetBufUserData(b, out, 20, 76));
	EXPECT_EQ(0, memcmp(out, in + 76, 4));
	EXPECT_EQ(0, memcmp(out + 4, zero, 16));
	ASSERT_ACL_OK(aclrtGetBufUserData(b, out, 1, 95));
	EXPECT_EQ(0, out[0]);

	(void)last();
	/* size + offset above 96: the acl layer's check, first of all */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetBufUserData(b, in, 97, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetBufUserData(b, in, 1, 96));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufUserData(b, out, 50, 47));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufUserData(NULL, NULL, 97, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetBufUserData(b, in, SIZE_MAX, 2));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetBufUserData(NULL, in, 1, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetBufUserData(b, NULL, 1, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufUserData(b, NULL, 1, 0));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* 0 bytes: CANN's memcpy_s takes it into the area, not out of it */
	ASSERT_ACL_OK(aclrtSetBufUserData(b, in, 0, 96));
	EXPECT_ACL(ACL_ERROR_FAILURE, aclrtGetBufUserData(b, out, 0, 0));
	EXPECT_EQ(ACL_SUCCESS, last());
	ASSERT_ACL_OK(aclrtFreeBuf(b));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(reference_copies_share_the_data)
{
	unsigned char in[32], out[32];
	void *pb, *pc;
	aclrtMbuf b, c, d;
	size_t size, len;
	uint32_t n;

	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtAllocBuf(&b, 4096));
	pb = data_of(b, &size);
	ASSERT_NONNULL(pb);
	fill_pattern(pb, 4096, 4);
	ASSERT_ACL_OK(aclrtSetBufDataLen(b, 300));
	memset(in, 0x3C, sizeof(in));
	ASSERT_ACL_OK(aclrtSetBufUserData(b, in, sizeof(in), 10));

	ASSERT_ACL_OK(aclrtCopyBufRef(b, &c));
	ASSERT_NONNULL(c);
	EXPECT_NE(b, c);
	pc = data_of(c, &size);
	EXPECT_EQ(pb, pc);
	EXPECT_EQ(4096, size);
	/* the header's state comes along */
	ASSERT_ACL_OK(aclrtGetBufDataLen(c, &len));
	EXPECT_EQ(300, len);
	ASSERT_ACL_OK(aclrtGetBufUserData(c, out, sizeof(out), 10));
	EXPECT_EQ(0, memcmp(in, out, sizeof(out)));
	ASSERT_ACL_OK(aclrtGetBufChainNum(c, &n));
	EXPECT_EQ(1, n);
	/* ... and is its own from then on; the data is one */
	ASSERT_ACL_OK(aclrtSetBufDataLen(c, 17));
	ASSERT_ACL_OK(aclrtGetBufDataLen(b, &len));
	EXPECT_EQ(300, len);
	ASSERT_ACL_OK(aclrtSetBufUserData(c, "x", 1, 10));
	ASSERT_ACL_OK(aclrtGetBufUserData(b, out, 1, 10));
	EXPECT_EQ(0x3C, out[0]);
	((unsigned char *)pc)[5] = 0xEE;
	EXPECT_EQ(0xEE, ((unsigned char *)pb)[5]);

	/* the data lives while any header does */
	ASSERT_ACL_OK(aclrtCopyBufRef(c, &d));
	ASSERT_ACL_OK(aclrtFreeBuf(b));
	ASSERT_ACL_OK(aclrtFreeBuf(c));
	EXPECT_EQ(pb, data_of(d, &size));
	((unsigned char *)pb)[5] = (unsigned char)(5 * 131 + 4);
	EXPECT_EQ(-1, check_pattern(data_of(d, &size), 4096, 4));
	/* freed headers are no buffers: the driver's invalid value */
	(void)last();
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufData(b, &pb, &size));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeBuf(c));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCopyBufRef(b, &c));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCopyBufRef(NULL, &c));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCopyBufRef(d, NULL));
	ASSERT_ACL_OK(aclrtFreeBuf(d));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(chains)
{
	aclrtMbuf a, b, c, x, v[128], got, copy;
	size_t size;
	uint32_t n = 0;
	int i, fake;

	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtAllocBuf(&a, 10));
	ASSERT_ACL_OK(aclrtAllocBuf(&b, 20));
	ASSERT_ACL_OK(aclrtAllocBuf(&c, 30));
	ASSERT_ACL_OK(aclrtAppendBufChain(a, b));
	ASSERT_ACL_OK(aclrtAppendBufChain(a, c));
	ASSERT_ACL_OK(aclrtGetBufChainNum(a, &n));
	EXPECT_EQ(3, n);
	ASSERT_ACL_OK(aclrtGetBufFromChain(a, 0, &got));
	EXPECT_EQ(a, got);
	ASSERT_ACL_OK(aclrtGetBufFromChain(a, 2, &got));
	EXPECT_EQ(c, got);
	(void)last();
	/* past the end: the driver's PARA_ERROR, 507899; 128 up: invalid value */
	EXPECT_ACL(ACL_ERROR_RT_DRV_INTERNAL_ERROR, aclrtGetBufFromChain(a, 3, &got));
	EXPECT_EQ(ACL_ERROR_RT_DRV_INTERNAL_ERROR, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufFromChain(a, 128, &got));
	/* a member is no head */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufChainNum(b, &n));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufFromChain(b, 0, &got));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeBuf(b));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtAppendBufChain(b, c));
	ASSERT_ACL_OK(aclrtAllocBuf(&x, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtAppendBufChain(x, b));
	/* the same buffer twice: compared before anything (PARA_ERROR) */
	EXPECT_ACL(ACL_ERROR_RT_DRV_INTERNAL_ERROR, aclrtAppendBufChain(a, a));
	EXPECT_ACL(ACL_ERROR_RT_DRV_INTERNAL_ERROR, aclrtAppendBufChain(&fake, &fake));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtAppendBufChain(&fake, x));
	/* but members work as buffers */
	ASSERT_ACL_OK(aclrtSetBufDataLen(b, 20));
	ASSERT_NONNULL(data_of(b, &size));
	EXPECT_EQ(20, size);
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAppendBufChain(NULL, b));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAppendBufChain(a, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufChainNum(NULL, &n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufChainNum(a, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufFromChain(NULL, 0, &got));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetBufFromChain(a, 0, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());

	/* a reference copy of a head copies its chain */
	ASSERT_ACL_OK(aclrtCopyBufRef(a, &copy));
	ASSERT_ACL_OK(aclrtGetBufChainNum(copy, &n));
	EXPECT_EQ(3, n);
	for (i = 0; i < 3; i++) {
		aclrtMbuf o, k;
		size_t so, sk;

		ASSERT_ACL_OK(aclrtGetBufFromChain(a, i, &o));
		ASSERT_ACL_OK(aclrtGetBufFromChain(copy, i, &k));
		EXPECT_NE(o, k);
		EXPECT_EQ(data_of(o, &so), data_of(k, &sk));
		EXPECT_EQ(so, sk);
	}
	/* a chain joins another whole: 3 + 1 */
	ASSERT_ACL_OK(aclrtAppendBufChain(x, copy));
	ASSERT_ACL_OK(aclrtGetBufChainNum(x, &n));
	EXPECT_EQ(4, n);

	/* freeing the head frees the chain */
	ASSERT_ACL_OK(aclrtFreeBuf(a));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufDataLen(b, &size));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufDataLen(c, &size));
	/* the copies keep their (shared) data */
	ASSERT_ACL_OK(aclrtGetBufFromChain(x, 2, &got));
	ASSERT_NONNULL(data_of(got, &size));
	EXPECT_EQ(20, size);
	ASSERT_ACL_OK(aclrtFreeBuf(x));

	/* 128 at most */
	for (i = 0; i < 128; i++)
		ASSERT_ACL_OK(aclrtAllocBuf(&v[i], 8));
	for (i = 1; i < 127; i++)
		ASSERT_ACL_OK(aclrtAppendBufChain(v[0], v[i]));
	ASSERT_ACL_OK(aclrtAllocBuf(&a, 8));
	ASSERT_ACL_OK(aclrtAppendBufChain(a, v[127]));
	(void)last();
	/* 127 + 2: the driver's OVER_LIMIT */
	EXPECT_ACL(ACL_ERROR_RT_OVER_LIMIT, aclrtAppendBufChain(v[0], a));
	EXPECT_EQ(ACL_ERROR_RT_OVER_LIMIT, last());
	/* a's chain goes with it, v[127] too */
	ASSERT_ACL_OK(aclrtFreeBuf(a));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufChainNum(v[127], &n));
	ASSERT_ACL_OK(aclrtGetBufChainNum(v[0], &n));
	EXPECT_EQ(127, n);
	ASSERT_ACL_OK(aclrtAllocBuf(&v[127], 8));
	ASSERT_ACL_OK(aclrtAppendBufChain(v[0], v[127]));
	ASSERT_ACL_OK(aclrtGetBufChainNum(v[0], &n));
	EXPECT_EQ(128, n);
	ASSERT_ACL_OK(aclrtGetBufFromChain(v[0], 127, &got));
	EXPECT_EQ(v[127], got);
	ASSERT_ACL_OK(aclrtFreeBuf(v[0]));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeBuf(v[64]));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(foreign_pointers_and_finalize)
{
	void *p = NULL;
	size_t size = 0;
	aclrtMbuf b;
	uint32_t n;
	int fake;

	/* no aclInit needed but for allocating; a pointer that is no buffer is never read */
	(void)last();
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufData(&fake, &p, &size));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeBuf(&fake));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetBufChainNum(&fake, &n));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetBufUserData(&fake, &n, 4, 0));
	/* buffers outlive aclFinalize */
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtAllocBuf(&b, 4096));
	ASSERT_ACL_OK(aclFinalize());
	ASSERT_ACL_OK(aclrtGetBufData(b, &p, &size));
	EXPECT_EQ(4096, size);
	memset(p, 1, size);
	ASSERT_ACL_OK(aclrtFreeBuf(b));
}

TEST(data_goes_to_the_device_and_back)
{
	unsigned char *p, *q;
	aclrtMbuf b, c;
	aclrtStream s;
	size_t size;
	void *dev;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtAllocBuf(&b, 64 * KiB));
	ASSERT_ACL_OK(aclrtAllocBuf(&c, 64 * KiB));
	p = data_of(b, &size);
	q = data_of(c, &size);
	ASSERT_TRUE(p && q);
	fill_pattern(p, 64 * KiB, 11);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMalloc(&dev, 64 * KiB, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev, 64 * KiB, p, 64 * KiB, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(q, 32 * KiB, (char *)dev + 32 * KiB, 32 * KiB, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(0, memcmp(q, p + 32 * KiB, 32 * KiB));
	ASSERT_ACL_OK(aclrtSetBufDataLen(c, 32 * KiB));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFreeBuf(b));
	ASSERT_ACL_OK(aclrtFreeBuf(c));
	ASSERT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
