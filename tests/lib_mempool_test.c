// SPDX-License-Identifier: MIT
/*
 * libacl: stream-ordered memory pools (acl_rt_memory_soma.h, issue 22
 * part C) - creation and its checks, attributes as CANN's SOMA defines
 * them, allocations that hold data, reuse after a free in stream order
 * (one stream, event dependencies, opportunistic, internal dependencies),
 * release at synchronize and trim (device memory really returned),
 * destroy, and CANN's codes of bad inputs; allocations and frees in a
 * stream capture, replayed. Needs /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <acl/acl_rt_memory_soma.h>

#include "lib_util.h"

#define CHUNK	(2 * MiB)

static aclError last(void)
{
	return aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static aclrtMemPoolProps props_for(uint32_t dev, size_t max)
{
	aclrtMemPoolProps p;

	memset(&p, 0, sizeof(p));
	p.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
	p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	p.maxSize = max;
	return p;
}

static uint64_t attr64(aclrtMemPool pool, aclrtMemPoolAttr attr)
{
	uint64_t v = UINT64_MAX;

	if (aclrtMemPoolGetAttr(pool, attr, &v) != ACL_SUCCESS)
		return UINT64_MAX - 1;
	return v;
}

#define RESERVED(p)	attr64(p, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT)
#define USED(p)		attr64(p, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT)

/* Device memory in use on device 0, all processes (aclrtGetMemInfo). */
static size_t dev_used(void)
{
	size_t free_b = 0, total = 0;

	if (aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total) != ACL_SUCCESS)
		return 0;
	return total - free_b;
}

static void set_reuse(aclrtMemPool pool, aclrtMemPoolAttr attr, uint32_t on)
{
	aclrtMemPoolSetAttr(pool, attr, &on);
}

static void keep_all(aclrtMemPool pool)
{
	uint64_t v = 64 * MiB;

	aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v);
}

TEST(create_checks)
{
	aclrtMemPoolProps p = props_for(0, 64 * MiB);
	aclrtMemPool pool = NULL;
	void *a = NULL, *b = NULL;
	size_t free_b, total;
	aclrtStream s;

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtMemPoolCreate(&pool, &p));
	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
	(void)last();
	/* the acl layer's checks (memory.cpp): 100000, no last error */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolCreate(NULL, &p));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolCreate(&pool, NULL));
	p.allocType = (aclrtMemAllocationType)1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolCreate(&pool, &p));
	p = props_for(0, 64 * MiB);
	p.location.type = ACL_MEM_LOCATION_TYPE_HOST;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolCreate(&pool, &p));
	p = props_for(0, 64 * MiB);
	p.reserved[31] = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolCreate(&pool, &p));
	EXPECT_EQ(ACL_SUCCESS, last());
	EXPECT_NULL(pool);
	/* the runtime's: no such device, a size above the device's memory */
	p = props_for(64, 64 * MiB);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemPoolCreate(&pool, &p));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, last());
	p = props_for(0, total + 1);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolCreate(&pool, &p));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	if (have_npu(1)) {
		/* device 1 exists but no thread of this process set it */
		p = props_for(1, 64 * MiB);
		EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMemPoolCreate(&pool, &p));
	}
	EXPECT_NULL(pool);

	/* 0: all of the device's memory, as address space; nothing backed yet */
	p = props_for(0, 0);
	p.handleType = ACL_MEM_HANDLE_TYPE_POSIX;	/* not looked at */
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	ASSERT_NONNULL(pool);
	EXPECT_EQ(0, RESERVED(pool));
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	/* a size rounds up to 2 MiB: 1 byte holds one allocation */
	p = props_for(0, 1);
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, 1, pool, s));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolMallocAsync(&b, 1, pool, s));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, CHUNK, pool, s));
	EXPECT_EQ(a, b);
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	/* destroyed: CANN's RT_ERROR_MEM_POOL_NULL, its internal error */
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolDestroy(pool));
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, last());
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolDestroy(NULL));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(attributes)
{
	aclrtMemPoolProps p = props_for(0, 64 * MiB);
	aclrtMemPool pool;
	uint32_t u = 7;
	uint64_t v = 7;
	int fake;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	/* the vendor's defaults: every reuse switch off, threshold 0, nothing held */
	ASSERT_ACL_OK(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, &u));
	EXPECT_EQ(0, u);
	ASSERT_ACL_OK(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &u));
	EXPECT_EQ(0, u);
	ASSERT_ACL_OK(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &u));
	EXPECT_EQ(0, u);
	EXPECT_EQ(0, attr64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD));
	EXPECT_EQ(0, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT));
	EXPECT_EQ(0, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH));
	EXPECT_EQ(0, attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT));
	EXPECT_EQ(0, attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH));

	/* switches: any non-zero is on */
	u = 5;
	ASSERT_ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &u));
	ASSERT_ACL_OK(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &u));
	EXPECT_EQ(1, u);
	u = 0;
	ASSERT_ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &u));
	ASSERT_ACL_OK(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &u));
	EXPECT_EQ(0, u);
	/* the threshold: up to the pool's size */
	v = 64 * MiB;
	ASSERT_ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
	EXPECT_EQ(64 * MiB, attr64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD));
	(void)last();
	v = 64 * MiB + 1;
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, last());
	EXPECT_EQ(64 * MiB, attr64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD));
	/* read-only: the runtime's 107000 */
	v = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT, &v));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v));
	/* peaks take 0 only */
	ASSERT_ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH, &v));
	ASSERT_ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v));
	v = 1;
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH, &v));
	/* an unknown attribute: the vendor's RT_ERROR_POOL_PROP_INVALID */
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolSetAttr(pool, (aclrtMemPoolAttr)0, &v));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)9, &v));
	/* NULL value: the runtime's 107000; NULL pool: the acl layer's 100000 */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, NULL));
	(void)last();
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolSetAttr(NULL, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolGetAttr(NULL, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
	EXPECT_EQ(ACL_SUCCESS, last());
	/* no pool (never created, destroyed): 107000 here */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolGetAttr(&fake, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(allocations_hold_data)
{
	aclrtMemPoolProps p = props_for(0, 64 * MiB);
	const size_t n = 3 * MiB + 100;
	unsigned char *host, *back;
	void *a = NULL, *b = NULL;
	aclrtMemPool pool;
	aclrtStream s;
	size_t before;

	NEED_DEVICE();
	host = malloc(n);
	back = malloc(n);
	ASSERT_TRUE(host && back);
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	before = dev_used();
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, n, pool, s));
	ASSERT_NONNULL(a);
	/* 2 MiB pieces, backed by device memory now */
	EXPECT_EQ(4 * MiB, USED(pool));
	EXPECT_EQ(4 * MiB, RESERVED(pool));
	EXPECT_EQ(before + 4 * MiB, dev_used());
	EXPECT_EQ(0, (uintptr_t)a % CHUNK);

	/* write, read back whole and at other offsets */
	fill_pattern(host, n, 3);
	ASSERT_ACL_OK(aclrtMemcpy(a, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(back, n, a, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(back, n, 3));
	ASSERT_ACL_OK(aclrtMemcpy(back, 4096, (char *)a + 2 * MiB - 100, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(back, host + 2 * MiB - 100, 4096));
	/* stream order: copy into a second allocation and out, all on the stream */
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, MiB, pool, s));
	ASSERT_NONNULL(b);
	EXPECT_TRUE((char *)b >= (char *)a + 4 * MiB || (char *)b + 2 * MiB <= (char *)a);
	ASSERT_ACL_OK(aclrtMemsetAsync(b, MiB, 0x5A, MiB, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync((char *)b + 1000, 5000, (char *)a + 2 * MiB + 12345, 5000,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(back, MiB, b, MiB, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(-1, check_byte(back, 1000, 0x5A));
	EXPECT_EQ(0, memcmp(back + 1000, host + 2 * MiB + 12345, 5000));
	EXPECT_EQ(-1, check_byte(back + 6000, MiB - 6000, 0x5A));
	/* pool memory is device memory of device 0 */
	{
		aclrtPtrAttributes at;

		ASSERT_ACL_OK(aclrtPointerGetAttributes(b, &at));
		EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, at.location.type);
		EXPECT_EQ(0, at.location.id);
	}
	/* aclrtFree takes no pool memory */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(a));
	EXPECT_EQ(6 * MiB, USED(pool));
	EXPECT_EQ(6 * MiB, attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH));

	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(b, s));
	/* cached: still held until the stream got past the frees and synchronized */
	EXPECT_EQ(0, USED(pool));
	EXPECT_EQ(6 * MiB, RESERVED(pool));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	/* threshold 0: all of it went back to the device */
	EXPECT_EQ(0, RESERVED(pool));
	EXPECT_EQ(6 * MiB, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH));
	EXPECT_EQ(before, dev_used());
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	free(host);
	free(back);
	ASSERT_ACL_OK(aclFinalize());
}

TEST(reuse_on_one_stream)
{
	aclrtMemPoolProps p = props_for(0, 64 * MiB);
	void *a = NULL, *b = NULL, *c = NULL;
	unsigned char host[4096], back[4096];
	aclrtMemPool pool;
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, 4 * MiB, pool, s));
	fill_pattern(host, sizeof(host), 9);
	ASSERT_ACL_OK(aclrtMemcpyAsync(a, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s));
	/* the same stream takes it again at once (its free comes first in stream order) */
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, 4 * MiB, pool, s));
	EXPECT_EQ(a, b);
	EXPECT_EQ(4 * MiB, RESERVED(pool));
	/* a part of it too: best fit, split */
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(b, s));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&c, 1, pool, s));
	EXPECT_EQ(a, c);
	EXPECT_EQ(2 * MiB, USED(pool));
	EXPECT_EQ(4 * MiB, RESERVED(pool));
	/* what the stream wrote before the free is there for what follows it */
	ASSERT_ACL_OK(aclrtMemcpyAsync(back, sizeof(back), c, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(0, memcmp(back, host, sizeof(back)));
	/* the uncached half went back at the synchronize */
	EXPECT_EQ(2 * MiB, RESERVED(pool));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(c, s));
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclFinalize());
}

/* A host function that holds its stream until the test opens the gate. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
};

static void gate_wait(void *arg)
{
	struct gate *g = arg;

	pthread_mutex_lock(&g->lock);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static void gate_init(struct gate *g)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->open = false;
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

TEST(reuse_across_streams)
{
	aclrtMemPoolProps p = props_for(0, 64 * MiB);
	void *a = NULL, *b = NULL, *c = NULL;
	aclrtStream s1, s2;
	aclrtMemPool pool;
	struct gate g;
	aclrtEvent ev;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s1));
	ASSERT_ACL_OK(aclrtCreateStream(&s2));
	ASSERT_ACL_OK(aclrtCreateEvent(&ev));
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	keep_all(pool);

	/* no switch on: another stream never takes it, even once its free is done */
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, CHUNK, pool, s1));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s1));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s1));
	EXPECT_EQ(CHUNK, RESERVED(pool));	/* under the threshold: kept */
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, CHUNK, pool, s2));
	EXPECT_NE(a, b);
	EXPECT_EQ(2 * CHUNK, RESERVED(pool));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(b, s2));
	ASSERT_ACL_OK(aclrtMemPoolTrimTo(pool, 0));
	EXPECT_EQ(0, RESERVED(pool));

	/* opportunistic: only once s1 got past the free */
	set_reuse(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, 1);
	gate_init(&g);
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, CHUNK, pool, s1));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(s1, gate_wait, &g));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s1));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, CHUNK, pool, s2));
	EXPECT_NE(a, b);	/* s1 is held before its free */
	EXPECT_EQ(2 * CHUNK, RESERVED(pool));
	gate_open(&g);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s1));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&c, CHUNK, pool, s2));
	EXPECT_EQ(a, c);	/* done now: taken, nothing new */
	EXPECT_EQ(2 * CHUNK, RESERVED(pool));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(b, s2));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(c, s2));
	EXPECT_EQ(2 * CHUNK, RESERVED(pool));
	set_reuse(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, 0);
	ASSERT_ACL_OK(aclrtMemPoolTrimTo(pool, 0));

	/* event dependencies: s2 waits for an event s1 records after its free */
	set_reuse(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, 1);
	gate_init(&g);
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, CHUNK, pool, s1));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(s1, gate_wait, &g));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s1));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, CHUNK, pool, s2));
	EXPECT_NE(a, b);	/* no wait yet */
	ASSERT_ACL_OK(aclrtRecordEvent(ev, s1));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, ev));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&c, CHUNK, pool, s2));
	EXPECT_EQ(a, c);	/* s1 has not even got there: the wait orders it */
	EXPECT_EQ(2 * CHUNK, RESERVED(pool));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(b, s2));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(c, s2));
	gate_open(&g);
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	set_reuse(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, 0);
	ASSERT_ACL_OK(aclrtMemPoolTrimTo(pool, 0));

	/* internal dependencies: when nothing else fits, s2 takes it and waits for s1's free */
	{
		aclrtMemPoolProps small = props_for(0, CHUNK);
		unsigned char *host, *back;
		aclrtMemPool tiny;

		/* page-locked: async copies of pageable memory wait for the stream first */
		ASSERT_ACL_OK(aclrtMallocHost((void **)&host, 4096));
		ASSERT_ACL_OK(aclrtMallocHost((void **)&back, 4096));
		gate_init(&g);
		ASSERT_ACL_OK(aclrtMemPoolCreate(&tiny, &small));
		ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, CHUNK, tiny, s1));
		fill_pattern(host, 4096, 5);
		ASSERT_ACL_OK(aclrtLaunchHostFunc(s1, gate_wait, &g));
		ASSERT_ACL_OK(aclrtMemcpyAsync(a, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE, s1));
		ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s1));
		/* full, and the switch is off: no room (CANN's RT_ERROR_MEM_POOL_ALLOC) */
		(void)last();
		EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolMallocAsync(&b, CHUNK, tiny, s2));
		EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, last());
		set_reuse(tiny, ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, 1);
		ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, CHUNK, tiny, s2));
		EXPECT_EQ(a, b);
		/* s2 runs after s1's copy, which waits for the gate: it reads what s1 wrote */
		ASSERT_ACL_OK(aclrtMemcpyAsync(back, 4096, b, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s2));
		EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s2, 100));
		gate_open(&g);
		ASSERT_ACL_OK(aclrtSynchronizeStream(s2));
		EXPECT_EQ(0, memcmp(back, host, 4096));
		ASSERT_ACL_OK(aclrtMemPoolFreeAsync(b, s2));
		ASSERT_ACL_OK(aclrtMemPoolDestroy(tiny));
		ASSERT_ACL_OK(aclrtFreeHost(host));
		ASSERT_ACL_OK(aclrtFreeHost(back));
	}
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	ASSERT_ACL_OK(aclrtDestroyStream(s1));
	ASSERT_ACL_OK(aclrtDestroyStream(s2));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(threshold_and_trim_release)
{
	aclrtMemPoolProps p = props_for(0, 64 * MiB);
	void *a = NULL, *b = NULL, *c = NULL;
	aclrtMemPool pool;
	aclrtStream s;
	size_t before;
	uint64_t v;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	before = dev_used();
	v = 4 * MiB;
	ASSERT_ACL_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &v));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, 2 * MiB, pool, s));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, 4 * MiB, pool, s));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&c, 6 * MiB, pool, s));
	EXPECT_EQ(12 * MiB, RESERVED(pool));
	EXPECT_EQ(before + 12 * MiB, dev_used());
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(c, s));
	/* TrimTo checks first (SegmentManager::TrimTo) */
	(void)last();
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolTrimTo(pool, 64 * MiB + 1));
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, last());
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolTrimTo(pool, 4 * MiB - 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolTrimTo(NULL, 0));
	/* at least what it holds: nothing to do */
	ASSERT_ACL_OK(aclrtMemPoolTrimTo(pool, 12 * MiB));
	EXPECT_EQ(12 * MiB, RESERVED(pool));
	/* the smallest cached first, whole pieces; waits for the frees */
	ASSERT_ACL_OK(aclrtMemPoolTrimTo(pool, 9 * MiB));
	EXPECT_EQ(10 * MiB, RESERVED(pool));
	EXPECT_EQ(before + 10 * MiB, dev_used());
	EXPECT_EQ(4 * MiB, USED(pool));
	/* a synchronize keeps the threshold: 4 MiB allocated, nothing cached above it */
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(4 * MiB, RESERVED(pool));
	EXPECT_EQ(before + 4 * MiB, dev_used());
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(b, s));
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	EXPECT_EQ(4 * MiB, RESERVED(pool));	/* at the threshold: kept */
	ASSERT_ACL_OK(aclrtMemPoolTrimTo(pool, 0));
	EXPECT_EQ(0, RESERVED(pool));
	EXPECT_EQ(before, dev_used());
	EXPECT_EQ(12 * MiB, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH));
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(malloc_and_free_checks)
{
	aclrtMemPoolProps p = props_for(0, 4 * MiB);
	void *a = NULL, *b = (void *)0x1, *d = NULL;
	aclrtContext ctx;
	aclrtMemPool pool;
	aclrtStream s, other;
	int fake;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	(void)last();
	/* the acl layer: NULL pointers (the stream too), then size 0 is success */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolMallocAsync(NULL, 1, pool, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolMallocAsync(&a, 1, NULL, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolMallocAsync(&a, 1, pool, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemPoolFreeAsync(NULL, s));
	EXPECT_EQ(ACL_SUCCESS, last());
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, 0, pool, s));
	EXPECT_EQ((void *)0x1, b);
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, 0, &fake, &fake));
	/* the runtime: handles, size, room */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemPoolMallocAsync(&a, 1, pool, &fake));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolMallocAsync(&a, 1, &fake, s));
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, last());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolMallocAsync(&a, SIZE_MAX, pool, s));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolMallocAsync(&a, 4 * MiB + 1, pool, s));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, 4 * MiB, pool, s));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolMallocAsync(&b, 1, pool, s));
	EXPECT_EQ(4 * MiB, USED(pool));
	/* another context's stream: 107003 */
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtMemPoolMallocAsync(&b, 1, pool, s));
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtMemPoolFreeAsync(a, s));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_CONTEXT, last());
	ASSERT_ACL_OK(aclrtDestroyStream(other));
	ASSERT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetDevice(0));

	/* free: NULL stream is CANN's RT_ERROR_STREAM_NULL, then the pointer's checks */
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolFreeAsync(a, NULL));
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, last());
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemPoolFreeAsync(a, &fake));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync((char *)a + CHUNK, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync((char *)a + 64, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync(&fake, s));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, last());
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync(a, s));

	/* CANN frees aclrtMalloc memory too, in stream order */
	ASSERT_ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemsetAsync(d, 4096, 1, 4096, s));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync((char *)d + 32, s));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(d, s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(d));

	/* a destroyed pool: RT_ERROR_MEM_POOL_NULL */
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolMallocAsync(&a, 1, pool, s));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolTrimTo(pool, 0));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(destroy_and_reset_give_memory_back)
{
	aclrtMemPoolProps p = props_for(0, 64 * MiB);
	aclrtDrvMemHandle h;
	aclrtPhysicalMemProp pp = prop_for(ACL_HBM_MEM_HUGE);
	aclrtMemPool pool;
	aclrtStream s;
	void *a = NULL, *b = NULL;
	size_t before;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	before = dev_used();
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, 8 * MiB, pool, s));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&b, 2 * MiB, pool, s));
	ASSERT_ACL_OK(aclrtMemsetAsync(a, 8 * MiB, 0, 8 * MiB, s));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(b, s));
	/* the pool's range is no aclrtReserveMemAddress range: aclrtMapMem refuses it */
	ASSERT_ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &pp, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem((char *)a + 16 * MiB, 2 * MiB, 0, h, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(a));
	ASSERT_ACL_OK(aclrtFreePhysical(h));
	/* destroy waits for the stream, then gives everything back, allocated or not */
	EXPECT_EQ(before + 10 * MiB, dev_used());
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	EXPECT_EQ(before, dev_used());
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync(a, s));

	/* a device reset takes its pools with it */
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, CHUNK, pool, s));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolMallocAsync(&a, CHUNK, pool, s));
	EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemPoolDestroy(pool));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &before));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclFinalize());
}

#define CAP_N	4096	/* int32 elements of the capture's buffers */

/*
 * Pool allocations and frees on a capturing stream, as the vendor's
 * (api_impl_soma.cc MemPoolMallocAsync / MemPoolFreeAsync: the pool's
 * host side at the call, its AICPU task, which maps and unmaps, is what
 * the graph records): the allocation is made at the call and the free
 * gives it back at the call (the pool's counts say so), npu's device
 * work between them is recorded, and each replay runs it on the same
 * address with new input. A capture takes only memory whose free is done
 * (its runs are queued later, on any stream): not the capturing stream's
 * own free still queued. A free of aclrtMalloc memory (no pool's), which
 * the vendor would free again at each run, is refused (207000) and
 * invalidates the capture.
 */
TEST(capture)
{
	aclrtMemPoolProps p = props_for(0, 64 * MiB);
	int32_t *in, *out, *plain, host[CAP_N], back[CAP_N];
	void *a = NULL, *q = NULL;
	aclmdlRICaptureStatus st;
	aclrtStream s, run;
	aclrtMemPool pool;
	struct gate g;
	aclmdlRI m;
	int r, i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	ASSERT_ACL_OK(aclrtMemPoolCreate(&pool, &p));
	keep_all(pool);
	ASSERT_ACL_OK(aclrtMalloc((void **)&in, sizeof(host), ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&out, sizeof(host), ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&plain, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));

	/* the stream's own free, still queued behind a gate */
	gate_init(&g);
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&q, CHUNK, pool, s));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(s, gate_wait, &g));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(q, s));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ASSERT_ACL_OK(aclrtMemPoolMallocAsync(&a, CHUNK, pool, s));
	ASSERT_NONNULL(a);
	EXPECT_NE(q, a);
	EXPECT_EQ(CHUNK, USED(pool));
	EXPECT_EQ(2 * CHUNK, RESERVED(pool));
	ASSERT_ACL_OK(aclrtMemcpyAsync(a, sizeof(host), in, sizeof(host), ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(out, sizeof(host), a, sizeof(host), ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemPoolFreeAsync(a, s));
	EXPECT_EQ(0, USED(pool));
	/* bad input is refused before anything is done, the capture going on */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync(a, s));
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
	ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &m));
	gate_open(&g);
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));

	for (r = 0; r < 4; r++) {
		for (i = 0; i < CAP_N; i++)
			host[i] = r * 1000003 + 7 * i;
		ASSERT_ACL_OK(aclrtMemcpy(in, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, r & 1 ? run : s));
		ASSERT_ACL_OK(aclrtSynchronizeStream(r & 1 ? run : s));
		ASSERT_ACL_OK(aclrtMemcpy(back, sizeof(back), out, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < CAP_N; i++)
			ASSERT_EQ(host[i], back[i]);
		ASSERT_ACL_OK(aclrtMemcpy(back, 400, out + 1234, 400, ACL_MEMCPY_DEVICE_TO_HOST));
		for (i = 0; i < 100; i++)
			ASSERT_EQ(host[1234 + i], back[i]);
	}
	ASSERT_ACL_OK(aclmdlRIDestroy(m));

	/* a free of no pool's memory: refused, the capture invalidated; the memory stays */
	ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemPoolFreeAsync(plain, s));
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &st, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED, st);
	m = (aclmdlRI)1;
	EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(s, &m));
	EXPECT_NULL(m);

	ASSERT_ACL_OK(aclrtFree(plain));
	ASSERT_ACL_OK(aclrtFree(in));
	ASSERT_ACL_OK(aclrtFree(out));
	ASSERT_ACL_OK(aclrtMemPoolDestroy(pool));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtDestroyStream(run));
}

TEST_HARNESS_MAIN
