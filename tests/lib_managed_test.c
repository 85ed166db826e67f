// SPDX-License-Identifier: MIT
/*
 * lib_managed_test: managed memory (aclrtMemAllocManaged, aclrtFree,
 * aclrtMemManagedAdvise/GetAttr/PrefetchAsync, pointer attributes, copies
 * with managed pointers on every device). Codes per the runtime spec,
 * section 9.
 */
#include <stdint.h>
#include <sys/mman.h>

#include "lib_util.h"

static const aclrtMemManagedLocation dev0 = { ACL_MEM_LOCATIONTYPE_DEVICE, 0 };
static const aclrtMemManagedLocation host = { ACL_MEM_LOCATIONTYPE_HOST, 0 };

static bool all_bytes(const void *p, int c, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)c)
			return false;
	return true;
}

TEST(alloc_bad_args)
{
	void *p;

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtMemAllocManaged(&p, 4096, ACL_RT_MEM_ATTACH_GLOBAL));
	NEED_DEVICE();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged(NULL, 4096, ACL_RT_MEM_ATTACH_GLOBAL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged(&p, 4096, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged(&p, 4096, 2));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemAllocManaged(&p, 0, ACL_RT_MEM_ATTACH_GLOBAL));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(alloc_rounds_aligns_and_frees)
{
	aclrtPtrAttributes a;
	char *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&p, 100, ACL_RT_MEM_ATTACH_GLOBAL));
	EXPECT_EQ(0, (uintptr_t)p % (2 * MiB));
	/* host memory: usable at once, all of the rounded 2 MiB */
	memset(p, 0x5c, 2 * MiB);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(p + 12345, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_MANAGED, a.location.type);
	EXPECT_EQ(0, a.location.id);
	/* the allocation as rounded: 2 MiB from its start */
	void *base = NULL;
	size_t sz = 0;

	ASSERT_ACL_OK(aclrtMemGetAddressRange(p + 12345, &base, &sz));
	EXPECT_EQ((void *)p, base);
	EXPECT_EQ(2 * MiB, sz);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(p + 4096));
	ASSERT_ACL_OK(aclrtFree(p));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(p));
	ASSERT_ACL_OK(aclFinalize());
}

/* The same pointer on both devices, the second opened after the allocation. */
TEST(copies_on_every_device)
{
	const size_t n = 3 * MiB;
	char *m, *m2, *check = malloc(n);
	void *d0, *d1;

	NEED_DEVICE();
	ASSERT_NONNULL(check);
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&m, n, ACL_RT_MEM_ATTACH_GLOBAL));
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&m2, n, ACL_RT_MEM_ATTACH_GLOBAL));
	fill_pattern(m, n, 7);
	ASSERT_ACL_OK(aclrtMalloc(&d0, n, ACL_MEM_MALLOC_NORMAL_ONLY));
	/* managed is host memory and device memory: any fitting kind copies */
	ASSERT_ACL_OK(aclrtMemcpy(d0, n, m, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(m2, n, d0, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(m, m2, n));
	ASSERT_ACL_OK(aclrtMemset(m2, n, 0x3d, n));
	EXPECT_TRUE(all_bytes(m2, 0x3d, n));
	ASSERT_ACL_OK(aclrtMemcpy(m2, n, m, n, ACL_MEMCPY_DEFAULT));
	EXPECT_EQ(0, memcmp(m, m2, n));
	ASSERT_ACL_OK(aclrtMemcpy(check, n, d0, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(m, check, n));
	if (have_npu(1)) {
		/* device 1 opens now: it mirrors both allocations */
		ASSERT_ACL_OK(aclrtSetDevice(1));
		ASSERT_ACL_OK(aclrtMalloc(&d1, n, ACL_MEM_MALLOC_NORMAL_ONLY));
		m[5] = 0x77;
		ASSERT_ACL_OK(aclrtMemcpy(d1, n, m, n, ACL_MEMCPY_DEFAULT));
		ASSERT_ACL_OK(aclrtMemcpy(check, n, d1, n, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(0, memcmp(m, check, n));
		ASSERT_ACL_OK(aclrtMemset(m2, n, 0x4e, 4096));
		EXPECT_TRUE(all_bytes(m2, 0x4e, 4096));
		/* and device 0 sees device 1's write at the same pointer */
		ASSERT_ACL_OK(aclrtSetDevice(0));
		ASSERT_ACL_OK(aclrtMemcpy(d0, n, m2, n, ACL_MEMCPY_DEFAULT));
		ASSERT_ACL_OK(aclrtMemcpy(check, n, d0, n, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_TRUE(all_bytes(check, 0x4e, 4096));
		ASSERT_ACL_OK(aclrtSetDevice(1));
		ASSERT_ACL_OK(aclrtFree(d1));
		ASSERT_ACL_OK(aclrtSetDevice(0));
	}
	/* a copy running past the allocation's end is refused */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d0, n, m + 4 * MiB - 4096, 8192,
						       ACL_MEMCPY_DEFAULT));
	ASSERT_ACL_OK(aclrtFree(d0));
	ASSERT_ACL_OK(aclrtFree(m));
	ASSERT_ACL_OK(aclrtFree(m2));
	free(check);
	ASSERT_ACL_OK(aclFinalize());
}

TEST(advise_and_get_attr)
{
	aclrtMemManagedLocation bad = { (aclrtMemManagedLocationType)9, 0 };
	aclrtMemManagedLocation nodev = { ACL_MEM_LOCATIONTYPE_DEVICE, 63 };
	int32_t v, ids[4];
	char *p, other[16];

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&p, 4 * MiB, ACL_RT_MEM_ATTACH_GLOBAL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise(NULL, 4096, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise(p, 0, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise(p, 4096, (aclrtMemManagedAdviseType)6, dev0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise(p, 4096, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, bad));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
		   aclrtMemManagedAdvise(p, 4096, ACL_MEM_ADVISE_SET_ACCESSED_BY, nodev));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemManagedAdvise(other, 4, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemManagedAdvise(p, 4 * MiB + 1, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));

	/* nothing advised yet */
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4 * MiB, &v, 4));
	EXPECT_EQ(0, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 4096, &v, 4));
	EXPECT_EQ(-2, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, 4096, &v, 4));
	EXPECT_EQ(ACL_MEM_LOCATIONTYPE_INVALID, v);

	ASSERT_ACL_OK(aclrtMemManagedAdvise(p, 4 * MiB, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4 * MiB, &v, 4));
	EXPECT_EQ(1, v);
	ASSERT_ACL_OK(aclrtMemManagedAdvise(p + 2 * MiB, 1, ACL_MEM_ADVISE_UNSET_READ_MOSTLY, dev0));
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4 * MiB, &v, 4));
	EXPECT_EQ(0, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 2 * MiB, &v, 4));
	EXPECT_EQ(1, v);

	/* preferred: device 0 on the first granule, host on the second: mixed */
	ASSERT_ACL_OK(aclrtMemManagedAdvise(p, 2 * MiB, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0));
	ASSERT_ACL_OK(aclrtMemManagedAdvise(p + 2 * MiB, 2 * MiB, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 2 * MiB, &v, 4));
	EXPECT_EQ(0, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, 4096, &v, 4));
	EXPECT_EQ(ACL_MEM_LOCATIONTYPE_DEVICE, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p, 4096, &v, 4));
	EXPECT_EQ(0, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p + 2 * MiB, 4096, &v, 4));
	EXPECT_EQ(-1, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 4 * MiB, &v, 4));
	EXPECT_EQ(-2, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, 4 * MiB, &v, 4));
	EXPECT_EQ(ACL_MEM_LOCATIONTYPE_INVALID, v);
	ASSERT_ACL_OK(aclrtMemManagedAdvise(p, 4 * MiB, ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION, dev0));
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 4 * MiB, &v, 4));
	EXPECT_EQ(-2, v);

	/* accessed by: the devices set on the whole range, the rest -2 */
	ASSERT_ACL_OK(aclrtMemManagedAdvise(p, 4 * MiB, ACL_MEM_ADVISE_SET_ACCESSED_BY, dev0));
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, 4 * MiB, ids, sizeof(ids)));
	EXPECT_EQ(0, ids[0]);
	EXPECT_EQ(-2, ids[1]);
	EXPECT_EQ(-2, ids[3]);
	ASSERT_ACL_OK(aclrtMemManagedAdvise(p, 4096, ACL_MEM_ADVISE_UNSET_ACCESSED_BY, dev0));
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, 4 * MiB, ids, 4));
	EXPECT_EQ(-2, ids[0]);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemManagedAdvise(p, 4096, ACL_MEM_ADVISE_SET_ACCESSED_BY, host));

	/* GetAttr's own checks */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, NULL, 4096, &v, 4));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4096, NULL, 4));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 0, &v, 4));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4096, &v, 8));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, 4096, ids, 6));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)0, p, 4096, &v, 4));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)9, p, 4096, &v, 4));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, other, 4, &v, 4));
	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(prefetch)
{
	aclrtMemManagedLocation dev1 = { ACL_MEM_LOCATIONTYPE_DEVICE, 1 };
	aclrtStream s;
	int32_t v;
	char *p;
	void *d;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&p, 4 * MiB, ACL_RT_MEM_ATTACH_GLOBAL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(NULL, 4096, dev0, 0, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(p, 0, dev0, 0, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(p, 4096, dev0, 1, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchAsync(p, 8 * MiB, dev0, 0, s));
	if (have_npu(1))
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchAsync(p, 4096, dev1, 0, s));
	memset(p, 0x21, 4 * MiB);
	ASSERT_ACL_OK(aclrtMemManagedPrefetchAsync(p + 100, 3 * MiB, dev0, 0, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 4096, &v, 4));
	EXPECT_EQ(0, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, 4096, &v, 4));
	EXPECT_EQ(ACL_MEM_LOCATIONTYPE_DEVICE, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 4 * MiB, &v, 4));
	EXPECT_EQ(0, v);
	/* to the host: nothing to move, in order on the default stream */
	ASSERT_ACL_OK(aclrtMemManagedPrefetchAsync(p, 2 * MiB, host, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 4096, &v, 4));
	EXPECT_EQ(-1, v);
	ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 4 * MiB, &v, 4));
	EXPECT_EQ(-2, v);
	/* the data is the host's throughout */
	ASSERT_ACL_OK(aclrtMalloc(&d, 4 * MiB, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemcpyAsync(d, 4 * MiB, p, 4 * MiB, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemsetAsync(p, 4 * MiB, 0, 4 * MiB, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(p, 4 * MiB, d, 4 * MiB, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_TRUE(all_bytes(p, 0x21, 4 * MiB));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclFinalize());
}

/* Freed memory is unmapped from the process and from every device. */
TEST(free_unmaps_everywhere)
{
	aclrtPtrAttributes a;
	char *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&p, 2 * MiB, ACL_RT_MEM_ATTACH_GLOBAL));
	ASSERT_ACL_OK(aclrtMemset(p, 2 * MiB, 1, 2 * MiB));
	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclrtPointerGetAttributes(p, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, a.location.type);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(p, NULL, &(size_t){ 0 }));
	/* the address space is free again: mincore says unmapped */
	unsigned char vec;

	EXPECT_EQ(-1, mincore(p, 4096, &vec));
	ASSERT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
