// SPDX-License-Identifier: MIT
/*
 * libacl: custom allocators (acl_rt_allocator.h, issue 22 part C) -
 * descriptions, their registration per stream, what
 * aclrtAllocatorGetByStream answers, and CANN's codes of bad inputs
 * (src/acl/aclrt_impl/allocator.cpp). The description calls run without
 * /dev/npu0; the rest skip.
 */
#include <stdint.h>
#include <stdlib.h>

#include <acl/acl_rt_allocator.h>

#include "lib_util.h"

static aclError last(void)
{
	return aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

/* An allocator over aclrtMalloc memory: blocks know their device address and size. */
struct dev_block {
	void *dev;
	size_t size;
};

struct dev_alloc {
	unsigned int allocs, frees, advised;
	void *last_hint;
};

static void *dev_alloc_fn(aclrtAllocator allocator, size_t size)
{
	struct dev_alloc *a = allocator;
	struct dev_block *b = malloc(sizeof(*b));

	if (!b)
		return NULL;
	if (aclrtMalloc(&b->dev, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
		free(b);
		return NULL;
	}
	b->size = size;
	a->allocs++;
	return b;
}

static void dev_free_fn(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
	struct dev_alloc *a = allocator;
	struct dev_block *b = block;

	if (b) {
		aclrtFree(b->dev);
		free(b);
	}
	a->frees++;
}

static void *dev_advise_fn(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
	struct dev_alloc *a = allocator;

	a->advised++;
	a->last_hint = addr;
	return dev_alloc_fn(allocator, size);
}

static void *dev_addr_fn(aclrtAllocatorBlock block)
{
	return block ? ((struct dev_block *)block)->dev : NULL;
}

/* Other functions, to tell registrations apart. */
static void *other_alloc_fn(aclrtAllocator allocator, size_t size)
{
	(void)allocator;
	(void)size;
	return NULL;
}

static void *other_addr_fn(aclrtAllocatorBlock block)
{
	return block;
}

/* A description with all four parts of dev_alloc, on @a. */
static aclrtAllocatorDesc full_desc(struct dev_alloc *a)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	if (!d)
		return NULL;
	if (aclrtAllocatorSetObjToDesc(d, a) || aclrtAllocatorSetAllocFuncToDesc(d, dev_alloc_fn) ||
	    aclrtAllocatorSetFreeFuncToDesc(d, dev_free_fn) ||
	    aclrtAllocatorSetAllocAdviseFuncToDesc(d, dev_advise_fn) ||
	    aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, dev_addr_fn)) {
		aclrtAllocatorDestroyDesc(d);
		return NULL;
	}
	return d;
}

TEST(desc_calls_need_no_init)
{
	struct dev_alloc a = { 0 };
	aclrtAllocatorDesc d, d2;
	int not_a_desc;

	/* no aclInit: CANN's descriptions are plain acl-layer records */
	d = aclrtAllocatorCreateDesc();
	ASSERT_NONNULL(d);
	d2 = aclrtAllocatorCreateDesc();
	ASSERT_NONNULL(d2);
	EXPECT_NE(d, d2);
	ASSERT_ACL_OK(aclrtAllocatorSetObjToDesc(d, &a));
	ASSERT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, dev_alloc_fn));
	ASSERT_ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, dev_free_fn));
	ASSERT_ACL_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, dev_advise_fn));
	ASSERT_ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, dev_addr_fn));
	/* setting again replaces */
	ASSERT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, other_alloc_fn));

	/* NULL description or value: the acl layer's 100000, no last error */
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(NULL, &a));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(d, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(NULL, dev_alloc_fn));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(d, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetFreeFuncToDesc(NULL, dev_free_fn));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetFreeFuncToDesc(d, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocAdviseFuncToDesc(NULL, dev_advise_fn));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocAdviseFuncToDesc(d, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetGetAddrFromBlockFuncToDesc(NULL, dev_addr_fn));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(NULL));
	/* a pointer that is no description is never read: the same answer */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(&not_a_desc, &a));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(&not_a_desc));
	EXPECT_EQ(ACL_SUCCESS, last());

	ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d));
	/* destroyed: no description any more */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(d));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(d, dev_alloc_fn));
	EXPECT_EQ(ACL_SUCCESS, last());
	ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d2));
}

TEST(stream_calls_need_init)
{
	struct dev_alloc a = { 0 };
	aclrtAllocatorDesc d = full_desc(&a), out = NULL;
	int fake;

	ASSERT_NONNULL(d);
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtAllocatorRegister(&fake, d));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtAllocatorGetByStream(&fake, &out, NULL, NULL, NULL, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtAllocatorUnregister(&fake));
	EXPECT_EQ(ACL_SUCCESS, last());
	ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d));
}

TEST(register_checks_the_description)
{
	struct dev_alloc a = { 0 };
	aclrtAllocatorDesc d, out;
	aclrtStream s;
	int fake;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	d = aclrtAllocatorCreateDesc();
	ASSERT_NONNULL(d);
	(void)last();
	/* CANN's order: stream, description, then obj, alloc, free, get-address */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(NULL, d));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, &fake));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, d));
	ASSERT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, dev_alloc_fn));
	ASSERT_ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, dev_free_fn));
	ASSERT_ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, dev_addr_fn));
	/* still no object */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, d));
	ASSERT_ACL_OK(aclrtAllocatorSetObjToDesc(d, &a));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* nothing registered by the failures */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL));
	/* the advise function is optional */
	ASSERT_ACL_OK(aclrtAllocatorRegister(s, d));
	/* a pointer that is no live stream: the runtime's handle check, a last error */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtAllocatorRegister(&fake, d));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_HANDLE, last());
	ASSERT_ACL_OK(aclrtAllocatorUnregister(s));
	ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(get_by_stream_answers_the_registration)
{
	struct dev_alloc a = { 0 }, b = { 0 };
	aclrtAllocatorGetAddrFromBlockFunc addr_fn = NULL;
	aclrtAllocatorAllocAdviseFunc advise_fn = NULL;
	aclrtAllocatorAllocFunc alloc_fn = NULL;
	aclrtAllocatorFreeFunc free_fn = NULL;
	aclrtAllocatorDesc d, d2, out = NULL;
	aclrtAllocator obj = NULL;
	aclrtStream s1, s2;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	d = full_desc(&a);
	ASSERT_NONNULL(d);
	(void)last();
	/* nothing registered yet: CANN's acl layer answers 100000 */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s1, &out, &obj, NULL, NULL, NULL, NULL));
	EXPECT_NULL(out);
	EXPECT_EQ(ACL_SUCCESS, last());

	ASSERT_ACL_OK(aclrtAllocatorRegister(s1, d));
	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s1, &out, &obj, &alloc_fn, &free_fn, &advise_fn, &addr_fn));
	EXPECT_EQ(d, out);
	EXPECT_EQ((void *)&a, obj);
	EXPECT_TRUE(alloc_fn == dev_alloc_fn);
	EXPECT_TRUE(free_fn == dev_free_fn);
	EXPECT_TRUE(advise_fn == dev_advise_fn);
	EXPECT_TRUE(addr_fn == dev_addr_fn);
	/* every output but the description may be NULL */
	out = NULL;
	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s1, &out, NULL, NULL, NULL, NULL, NULL));
	EXPECT_EQ(d, out);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s1, NULL, &obj, NULL, NULL, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(NULL, &out, &obj, NULL, NULL, NULL, NULL));
	/* per stream: the other one has none */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s2, &out, &obj, NULL, NULL, NULL, NULL));
	EXPECT_EQ(ACL_SUCCESS, last());

	/* a copy was registered: changing or destroying the description changes nothing */
	ASSERT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, other_alloc_fn));
	ASSERT_ACL_OK(aclrtAllocatorSetObjToDesc(d, &b));
	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s1, &out, &obj, &alloc_fn, NULL, NULL, NULL));
	EXPECT_EQ((void *)&a, obj);
	EXPECT_TRUE(alloc_fn == dev_alloc_fn);
	/* the same description on another stream: its parts now */
	ASSERT_ACL_OK(aclrtAllocatorRegister(s2, d));
	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s2, &out, &obj, &alloc_fn, NULL, NULL, NULL));
	EXPECT_EQ((void *)&b, obj);
	EXPECT_TRUE(alloc_fn == other_alloc_fn);
	ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d));
	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s1, &out, &obj, &alloc_fn, &free_fn, NULL, &addr_fn));
	EXPECT_EQ(d, out);	/* the pointer as registered, dead or not (CANN) */
	EXPECT_EQ((void *)&a, obj);
	EXPECT_TRUE(free_fn == dev_free_fn);

	/* registering again replaces */
	d2 = aclrtAllocatorCreateDesc();
	ASSERT_NONNULL(d2);
	ASSERT_ACL_OK(aclrtAllocatorSetObjToDesc(d2, &b));
	ASSERT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d2, other_alloc_fn));
	ASSERT_ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d2, dev_free_fn));
	ASSERT_ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d2, other_addr_fn));
	ASSERT_ACL_OK(aclrtAllocatorRegister(s1, d2));
	advise_fn = dev_advise_fn;
	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s1, &out, &obj, &alloc_fn, NULL, &advise_fn, &addr_fn));
	EXPECT_EQ(d2, out);
	EXPECT_EQ((void *)&b, obj);
	EXPECT_TRUE(alloc_fn == other_alloc_fn);
	EXPECT_TRUE(addr_fn == other_addr_fn);
	EXPECT_TRUE(advise_fn == NULL);		/* never set on d2 */

	/* unregister: gone; again, or a stream that never had one: success */
	ASSERT_ACL_OK(aclrtAllocatorUnregister(s1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s1, &out, NULL, NULL, NULL, NULL, NULL));
	ASSERT_ACL_OK(aclrtAllocatorUnregister(s1));
	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s2, &out, NULL, NULL, NULL, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorUnregister(NULL));
	EXPECT_EQ(ACL_SUCCESS, last());
	ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d2));
	ASSERT_ACL_OK(aclrtDestroyStream(s1));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(stream_destruction_forgets_it)
{
	struct dev_alloc a = { 0 };
	aclrtAllocatorDesc d, out;
	aclrtContext ctx;
	aclrtStream s, t;

	NEED_DEVICE();
	d = full_desc(&a);
	ASSERT_NONNULL(d);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtAllocatorRegister(s, d));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	(void)last();
	/* a stream that is gone has no registration; unregistering it is success */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL));
	ASSERT_ACL_OK(aclrtAllocatorUnregister(s));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtAllocatorRegister(s, d));
	/* a new stream, perhaps at the same address, starts with none */
	ASSERT_ACL_OK(aclrtCreateStream(&t));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(t, &out, NULL, NULL, NULL, NULL, NULL));
	ASSERT_ACL_OK(aclrtDestroyStream(t));

	/* the streams of a destroyed context go with it, registrations too */
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtAllocatorRegister(s, d));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL));

	/* any context's stream may be registered and asked about */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtAllocatorRegister(s, d));
	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL));
	EXPECT_EQ(d, out);
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	/* and aclFinalize takes every stream */
	ASSERT_ACL_OK(aclFinalize());
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL));
	ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * What CANN's 3_memory_advanced/allocator/0_custom_allocator sample shows,
 * done our way: the caller of the registration (the operator layer, in
 * CANN) finds the allocator through the stream and takes device memory
 * from it, which holds data.
 */
TEST(allocator_found_through_the_stream_serves_memory)
{
	struct dev_alloc a = { 0 };
	aclrtAllocatorGetAddrFromBlockFunc addr_fn;
	aclrtAllocatorAllocAdviseFunc advise_fn;
	aclrtAllocatorAllocFunc alloc_fn;
	aclrtAllocatorFreeFunc free_fn;
	aclrtAllocatorBlock blk, blk2;
	aclrtAllocatorDesc d, out;
	unsigned char host[8192], back[8192];
	aclrtAllocator obj;
	aclrtContext ctx;
	aclrtStream s;
	void *dev, *dev2, *hint = (void *)(uintptr_t)0x1000;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	d = full_desc(&a);
	ASSERT_NONNULL(d);
	ASSERT_ACL_OK(aclrtAllocatorRegister(s, d));

	ASSERT_ACL_OK(aclrtAllocatorGetByStream(s, &out, &obj, &alloc_fn, &free_fn, &advise_fn, &addr_fn));
	ASSERT_TRUE(alloc_fn && free_fn && advise_fn && addr_fn);
	blk = alloc_fn(obj, sizeof(host));
	ASSERT_NONNULL(blk);
	dev = addr_fn(blk);
	ASSERT_NONNULL(dev);
	fill_pattern(host, sizeof(host), 7);
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE, s));
	blk2 = advise_fn(obj, 4096, hint);
	ASSERT_NONNULL(blk2);
	EXPECT_EQ(hint, a.last_hint);
	dev2 = addr_fn(blk2);
	ASSERT_NONNULL(dev2);
	/* device to device on the stream, then back at an offset */
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev2, 4096, (char *)dev + 1024, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(back, 4096, dev2, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back, host + 1024, 4096));
	ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(back, sizeof(back), 7));
	free_fn(obj, blk2);
	free_fn(obj, blk);
	EXPECT_EQ(2, a.allocs);
	EXPECT_EQ(2, a.frees);
	EXPECT_EQ(1, a.advised);

	ASSERT_ACL_OK(aclrtAllocatorUnregister(s));
	ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtResetDeviceForce(0));
	ASSERT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
