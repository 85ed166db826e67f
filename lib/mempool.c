// SPDX-License-Identifier: MIT
/*
 * Stream-ordered memory pools (acl_rt_memory_soma.h), CANN's SOMA: the
 * acl layer's checks of src/acl/aclrt_impl/memory.cpp, the runtime's of
 * src/runtime/api/impl/api_impl_soma.cc and src/runtime/feature/soma/
 * (soma.cc, stream_mem_pool.cc: segments, attributes, trim).
 *
 * A pool reserves device VA of its size at creation (the memory layer's
 * POOL reservation) and is a list of segments over it, in address order,
 * each a whole number of ACL_MM_POOL_CHUNK pieces:
 *
 * - FREE: not backed by device memory;
 * - BUSY: allocated (aclrtMemPoolMallocAsync), backed; the allocating
 *   stream is kept for aclrtMemPoolDestroy's wait;
 * - CACHED: freed (aclrtMemPoolFreeAsync), still backed, with the point of
 *   the freeing stream (kernel stream id, seqno) after which no queued
 *   work uses it;
 * - RELEASING: CACHED memory aclrtMemPoolTrimTo is giving back, waiting
 *   for that point outside the lock.
 *
 * The vendor's device (its AI CPU and driver, halMemPoolMalloc/Free)
 * backs and unbacks memory when the stream reaches a task; here memory is
 * backed when it is allocated and unbacked only once its free point was
 * reached, which the stream cannot tell apart.
 *
 * RESERVED_MEM_CURRENT counts BUSY, CACHED and RELEASING memory,
 * USED_MEM_CURRENT BUSY memory, as the vendor's reserveSize_ and
 * busySize_.
 *
 * Locking: acl_pool_lock guards the list of pools and every pool's
 * state; it is taken before a stream's lock (reuse checks and waits
 * queue on streams) and the memory layer's. Nothing waits for a stream
 * under it: TrimTo and Destroy collect what to wait for, wait, and come
 * back; Destroy and a device's close wait for TrimTo's waiters.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <acl/acl_rt_memory_soma.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "handle.h"
#include "mempool.h"
#include "mm.h"
#include "query.h"
#include "stream.h"

#define ACL_CHUNK	ACL_MM_POOL_CHUNK

enum acl_seg_state { ACL_SEG_FREE, ACL_SEG_BUSY, ACL_SEG_CACHED, ACL_SEG_RELEASING };

struct acl_seg {
	struct list_head node;		/* in pool->segs, by address */
	uint64_t addr, len;
	enum acl_seg_state state;
	struct acl_stream *s;		/* BUSY: allocating, else freeing stream (reference); FREE: NULL */
	uint32_t sid;			/* CACHED, RELEASING: the free's point */
	uint64_t seq;
};

/* The reuse switches, by aclrtMemPoolAttr - 1. */
enum { ACL_REUSE_EVENT, ACL_REUSE_OPPORTUNISTIC, ACL_REUSE_INTERNAL, ACL_REUSE_N };

struct acl_pool {
	struct acl_obj obj;		/* first: the aclrtMemPool is the object */
	struct list_head node;		/* in acl_pools while live */
	struct acl_device *dev;		/* constant */
	unsigned int gen;		/* dev->gen at creation */
	uint64_t base, size;		/* the reservation; constant */
	/* the rest under acl_pool_lock */
	bool dead;			/* destroyed, or its device closed */
	unsigned int waiters;		/* TrimTo calls waiting outside the lock */
	struct list_head segs;
	uint64_t used, reserved, used_peak, reserved_peak;
	uint64_t threshold;
	uint32_t reuse[ACL_REUSE_N];
};

static pthread_mutex_t acl_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acl_pool_cond = PTHREAD_COND_INITIALIZER;	/* a waiter left */
static struct list_head acl_pools = LIST_HEAD_INIT(acl_pools);
static pthread_once_t acl_pool_once = PTHREAD_ONCE_INIT;

static void acl_pool_release_obj(struct acl_obj *obj)
{
	free(obj);
}

/* @p as a live pool, with a reference; else @code ("not created or destroyed"). */
static int acl_pool_get(aclrtMemPool p, int code, struct acl_pool **out)
{
	struct acl_pool *pool = (struct acl_pool *)acl_obj_get(p, ACL_OBJ_MEMPOOL);

	if (pool) {
		pthread_mutex_lock(&acl_pool_lock);
		if (!pool->dead) {
			*out = pool;
			return 0;	/* with the lock held */
		}
		pthread_mutex_unlock(&acl_pool_lock);
		acl_obj_put(&pool->obj);
	}
	return acl_errf(code, "memPool %p is not a live pool (never created, destroyed, or its device reset)", p);
}

/* Done with a pool acl_pool_get() answered. */
static void acl_pool_done(struct acl_pool *pool)
{
	pthread_mutex_unlock(&acl_pool_lock);
	acl_obj_put(&pool->obj);
}

/* Segments */

static void acl_seg_stream(struct acl_seg *g, struct acl_stream *s)
{
	if (s)
		acl_obj_hold(&s->obj);
	if (g->s)
		acl_stream_put(g->s);
	g->s = s;
}

static void acl_seg_free(struct acl_seg *g, bool put)
{
	list_del(&g->node);
	if (g->s && put)
		acl_stream_put(g->s);
	free(g);
}

/* Cut @g to @len bytes; the rest becomes a segment after it, alike. */
static int acl_seg_split(struct acl_seg *g, uint64_t len)
{
	struct acl_seg *rest;

	if (g->len == len)
		return 0;
	rest = malloc(sizeof(*rest));
	if (!rest)
		return acl_errf(-ENOMEM, "out of host memory");
	*rest = *g;
	rest->addr = g->addr + len;
	rest->len = g->len - len;
	if (rest->s)
		acl_obj_hold(&rest->s->obj);
	list_add_tail(&rest->node, g->node.next);
	g->len = len;
	return 0;
}

/* Can @a and its successor @b be one segment? */
static bool acl_seg_mergeable(const struct acl_seg *a, const struct acl_seg *b)
{
	if (a->state != b->state)
		return false;
	/* cached memory of one stream: the later free point covers both */
	return a->state == ACL_SEG_FREE ||
	       (a->state == ACL_SEG_CACHED && a->s == b->s && a->sid == b->sid);
}

/* Merge every pair of neighbours that can be merged. */
static void acl_pool_coalesce(struct acl_pool *pool)
{
	struct acl_seg *g, *n;

	list_for_each_entry_safe(g, n, &pool->segs, node) {
		if (&n->node == &pool->segs || !acl_seg_mergeable(g, n))
			continue;
		n->addr = g->addr;
		n->len += g->len;
		if (g->seq > n->seq)
			n->seq = g->seq;
		acl_seg_free(g, true);
	}
}

static struct acl_seg *acl_seg_at(struct acl_pool *pool, uint64_t addr)
{
	struct acl_seg *g;

	list_for_each_entry(g, &pool->segs, node)
		if (g->addr == addr)
			return g;
	return NULL;
}

/* Has the free of @g's memory been reached by its stream? */
static bool acl_seg_settled(struct acl_seg *g)
{
	return acl_stream_reached(g->s, g->sid, g->seq);
}

/* May @s take cached @g without waiting, by @pool's rules? */
static bool acl_seg_reusable(struct acl_pool *pool, struct acl_seg *g, struct acl_stream *s)
{
	/* for a model (recording @s), whose runs are queued anywhere, later: a free that is done */
	if (acl_stream_recording(s) && !acl_seg_settled(g))
		return false;
	/* the vendor's single-stream reuse: the free is before it in stream order */
	if (g->s == s)
		return true;
	if (pool->reuse[ACL_REUSE_EVENT] && g->s->dev == s->dev && acl_stream_depends(s, g->sid, g->seq))
		return true;
	return pool->reuse[ACL_REUSE_OPPORTUNISTIC] && acl_seg_settled(g);
}

/* The smallest segment of @state of at least @len bytes; with @s, one @s may reuse as it is. */
static struct acl_seg *acl_seg_fit(struct acl_pool *pool, enum acl_seg_state state, uint64_t len,
				   struct acl_stream *s)
{
	struct acl_seg *g, *best = NULL;

	list_for_each_entry(g, &pool->segs, node) {
		if (g->state != state || g->len < len || (best && g->len >= best->len))
			continue;
		if (s && !acl_seg_reusable(pool, g, s))
			continue;
		best = g;
	}
	return best;
}

static void acl_pool_count(struct acl_pool *pool, int64_t used, int64_t reserved)
{
	pool->used += (uint64_t)used;
	pool->reserved += (uint64_t)reserved;
	if (pool->used > pool->used_peak)
		pool->used_peak = pool->used;
	if (pool->reserved > pool->reserved_peak)
		pool->reserved_peak = pool->reserved;
}

/* Unback cached @g (its free reached) and make it FREE. */
static void acl_seg_release(struct acl_pool *pool, struct acl_seg *g)
{
	acl_mm_pool_unback(pool->dev, g->addr, g->len);
	acl_pool_count(pool, 0, -(int64_t)g->len);
	g->state = ACL_SEG_FREE;
	acl_seg_stream(g, NULL);
}

/*
 * Give back cached memory whose free was reached, smallest first, while
 * the pool holds more than @keep; whole chunks, never below @keep.
 */
static void acl_pool_release_idle(struct acl_pool *pool, uint64_t keep)
{
	struct acl_seg *g, *best;
	uint64_t excess;

	while (pool->reserved > keep) {
		excess = (pool->reserved - keep) & ~(ACL_CHUNK - 1);
		best = NULL;
		list_for_each_entry(g, &pool->segs, node)
			if (g->state == ACL_SEG_CACHED && (!best || g->len < best->len) &&
			    acl_seg_settled(g))
				best = g;
		if (!best || !excess || acl_seg_split(best, best->len < excess ? best->len : excess))
			break;
		acl_seg_release(pool, best);
	}
	acl_err_clear();
	acl_pool_coalesce(pool);
}

/* A synchronize of @dev succeeded: its pools keep at most their thresholds. */
static void acl_pool_synced(struct acl_device *dev)
{
	struct acl_pool *pool;

	pthread_mutex_lock(&acl_pool_lock);
	list_for_each_entry(pool, &acl_pools, node)
		if (pool->dev == dev && pool->reserved > pool->threshold)
			acl_pool_release_idle(pool, pool->threshold);
	pthread_mutex_unlock(&acl_pool_lock);
}

static void acl_pool_init_once(void)
{
	acl_stream_set_sync_hook(acl_pool_synced);
}

/* Create and destroy */

/* The pool's size: 0 for the device's memory (rounded down), else rounded up; at most that. */
static int acl_pool_size(const aclrtMemPoolProps *props, struct acl_device *dev, uint64_t *size)
{
	struct npu_get_info info = { .size = sizeof(info) };
	uint64_t total;
	int ret;

	ret = acl_query_info(dev->id, &info, "poolProps->location.id");
	if (ret)
		return ret;
	total = info.mem_total;
	if (!props->maxSize) {
		*size = total & ~(ACL_CHUNK - 1);
	} else if (props->maxSize > total) {
		return acl_errf(ACLI_ERTPARAM, "poolProps->maxSize %zu exceeds device %d's memory of %llu bytes",
				props->maxSize, dev->id, (unsigned long long)total);
	} else {
		*size = acl_round_up(props->maxSize, ACL_CHUNK);
		if (*size > total)
			return acl_errf(ACLI_ERTPARAM, "poolProps->maxSize %zu rounded up to 2 MiB (%llu) exceeds device %d's memory of %llu bytes",
					props->maxSize, (unsigned long long)*size, dev->id,
					(unsigned long long)total);
	}
	if (!*size)
		return acl_errf(ACLI_ERTPARAM, "device %d has less than 2 MiB of memory", dev->id);
	return 0;
}

/* The acl layer's checks of the props (ACL_ERROR_INVALID_PARAM). */
static int acl_pool_props_check(const aclrtMemPoolProps *props)
{
	size_t i;

	if (props->allocType != ACL_MEM_ALLOCATION_TYPE_PINNED)
		return acl_errf(-EINVAL, "poolProps->allocType %d must be ACL_MEM_ALLOCATION_TYPE_PINNED (0)",
				(int)props->allocType);
	if (props->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return acl_errf(-EINVAL, "poolProps->location.type %d must be ACL_MEM_LOCATION_TYPE_DEVICE (1)",
				(int)props->location.type);
	for (i = 0; i < sizeof(props->reserved); i++)
		if (props->reserved[i])
			return acl_errf(-EINVAL, "poolProps->reserved is reserved and must be all zero");
	return 0;
}

ACL_EXPORT aclError aclrtMemPoolCreate(aclrtMemPool *memPool, const aclrtMemPoolProps *poolProps)
{
	struct acl_device *dev;
	struct acl_pool *pool;
	struct acl_seg *g;
	uint64_t size = 0;
	int ret;

	ret = acl_enter(NULL, memPool, poolProps);
	if (!ret)
		ret = acl_pool_props_check(poolProps);
	if (!ret)
		ret = acl_dev_check_id(poolProps->location.id, "poolProps->location.id");
	if (ret)
		goto out;
	/* the memory lives in the device's context, which some thread must have opened */
	dev = acl_dev_get((int)poolProps->location.id);
	if (!dev) {
		ret = acl_errf(ACLI_ENOCTX, "poolProps->location.id %u: device %u is not set in this process (aclrtSetDevice(%u) in any thread)",
			       poolProps->location.id, poolProps->location.id, poolProps->location.id);
		goto out;
	}
	ret = acl_pool_size(poolProps, dev, &size);
	if (ret)
		goto out;
	pool = calloc(1, sizeof(*pool));
	g = calloc(1, sizeof(*g));
	if (!pool || !g) {
		free(pool);
		free(g);
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	ret = acl_mm_pool_reserve(dev, size, &pool->base);
	if (ret) {
		free(pool);
		free(g);
		goto out;
	}
	pthread_once(&acl_pool_once, acl_pool_init_once);
	pool->dev = dev;
	pool->gen = __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE);
	pool->size = size;
	list_init(&pool->segs);
	g->addr = pool->base;
	g->len = size;
	g->state = ACL_SEG_FREE;
	list_add_tail(&g->node, &pool->segs);
	acl_obj_add(&pool->obj, ACL_OBJ_MEMPOOL, acl_pool_release_obj);
	pthread_mutex_lock(&acl_pool_lock);
	list_add_tail(&pool->node, &acl_pools);
	pthread_mutex_unlock(&acl_pool_lock);
	*memPool = pool;
out:
	return acl_ret(__func__, ret);
}

/* Unlist @pool (lock held): its handle is dead from now on; wait for TrimTo's waiters. */
static void acl_pool_kill_locked(struct acl_pool *pool)
{
	pool->dead = true;
	list_del(&pool->node);
	if (acl_obj_del(&pool->obj))
		acl_obj_put(&pool->obj);	/* the table's reference; the caller holds one */
	while (pool->waiters)
		pthread_cond_wait(&acl_pool_cond, &acl_pool_lock);
}

/* A point to wait for before @pool's memory may go. */
struct acl_pool_wait {
	struct acl_stream *s;
	uint32_t sid;
	uint64_t seq;
};

ACL_EXPORT aclError aclrtMemPoolDestroy(const aclrtMemPool memPool)
{
	struct acl_pool_wait *w = NULL;
	struct acl_seg *g, *n;
	struct acl_pool *pool;
	size_t nw = 0, i;
	int ret;

	ret = acl_enter(NULL, memPool);
	if (ret)
		goto out;
	ret = acl_pool_get(memPool, ACLI_EINTERNAL, &pool);
	if (ret)
		goto out;
	list_for_each_entry(g, &pool->segs, node)
		nw++;
	w = calloc(nw, sizeof(*w));
	if (!w) {
		acl_pool_done(pool);
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	acl_pool_kill_locked(pool);
	nw = 0;
	/* allocated memory: the work queued so far on its stream; cached: its free */
	list_for_each_entry(g, &pool->segs, node) {
		if (g->state == ACL_SEG_FREE)
			continue;
		w[nw].s = g->s;
		acl_obj_hold(&g->s->obj);
		if (g->state == ACL_SEG_BUSY) {
			acl_stream_point(g->s, &w[nw].sid, &w[nw].seq);
		} else {
			w[nw].sid = g->sid;
			w[nw].seq = g->seq;
		}
		nw++;
	}
	pthread_mutex_unlock(&acl_pool_lock);

	/* the pool is unreachable now: nothing else touches it */
	for (i = 0; i < nw; i++) {
		acl_stream_reach(w[i].s, w[i].sid, w[i].seq, -1);
		acl_stream_put(w[i].s);
	}
	free(w);
	acl_err_clear();
	/* a device closed (and opened again) meanwhile took the memory with it */
	if (__atomic_load_n(&pool->dev->gen, __ATOMIC_ACQUIRE) == pool->gen) {
		list_for_each_entry(g, &pool->segs, node)
			if (g->state != ACL_SEG_FREE)
				acl_mm_pool_unback(pool->dev, g->addr, g->len);
		ret = acl_mm_pool_release(pool->dev, pool->base);
	}
	list_for_each_entry_safe(g, n, &pool->segs, node)
		acl_seg_free(g, true);
	acl_obj_put(&pool->obj);
out:
	return acl_ret(__func__, ret);
}

void acl_mempool_dev_closed(struct acl_device *dev, bool in_child)
{
	struct acl_pool *pool, *p;
	struct acl_seg *g, *n;

	pthread_mutex_lock(&acl_pool_lock);
	list_for_each_entry_safe(pool, p, &acl_pools, node) {
		if (pool->dev != dev)
			continue;
		/* the table's reference keeps it until its segments are gone */
		acl_obj_hold(&pool->obj);
		if (in_child) {
			pool->dead = true;
			list_del(&pool->node);
		} else {
			acl_pool_kill_locked(pool);
		}
		/* the device's file took the memory, the memory layer forgets the range */
		list_for_each_entry_safe(g, n, &pool->segs, node)
			acl_seg_free(g, !in_child);
		if (!in_child)
			acl_obj_put(&pool->obj);
	}
	pthread_mutex_unlock(&acl_pool_lock);
}

void acl_mempool_forget(void)
{
	pthread_mutex_init(&acl_pool_lock, NULL);
	pthread_cond_init(&acl_pool_cond, NULL);
}

/* Attributes */

/*
 * The pool an attribute call names, held (acl_pool_done()); the runtime's
 * checks: 107000 for a NULL value or a dead pool.
 */
static int acl_pool_attr_open(aclrtMemPool memPool, void *value, struct acl_pool **pool)
{
	int ret = acl_enter(NULL, memPool);

	if (ret)
		return ret;
	if (!value)
		return acl_errf(ACLI_ERTPARAM, "value must not be NULL");
	return acl_pool_get(memPool, ACLI_ERTPARAM, pool);
}

ACL_EXPORT aclError aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value)
{
	struct acl_pool *pool;
	uint64_t v = 0;
	int ret;

	ret = acl_pool_attr_open(memPool, value, &pool);
	if (ret)
		goto out;
	if (attr >= ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD && attr <= ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH)
		v = *(const uint64_t *)value;
	switch (attr) {
	case ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES:
	case ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC:
	case ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		pool->reuse[attr - 1] = *(const uint32_t *)value ? 1 : 0;
		break;
	case ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD:
		if (v > pool->size)
			ret = acl_errf(ACLI_EINTERNAL, "release threshold %llu exceeds the pool's size %llu",
				       (unsigned long long)v, (unsigned long long)pool->size);
		else
			pool->threshold = v;
		break;
	case ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT:
	case ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT:
		ret = acl_errf(ACLI_ERTPARAM, "attribute %d is read-only", (int)attr);
		break;
	case ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH:
	case ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH:
		/* the vendor resets a peak to 0 only */
		if (v)
			ret = acl_errf(ACLI_EINTERNAL, "attribute %d takes only 0 (reset), not %llu",
				       (int)attr, (unsigned long long)v);
		else if (attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH)
			pool->reserved_peak = 0;
		else
			pool->used_peak = 0;
		break;
	default:
		ret = acl_errf(ACLI_EINTERNAL, "attr %d is not an aclrtMemPoolAttr", (int)attr);
		break;
	}
	acl_pool_done(pool);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value)
{
	struct acl_pool *pool;
	uint64_t v = 0;
	int ret;

	ret = acl_pool_attr_open(memPool, value, &pool);
	if (ret)
		goto out;
	switch (attr) {
	case ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES:
	case ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC:
	case ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		*(uint32_t *)value = pool->reuse[attr - 1];
		break;
	case ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD:
		v = pool->threshold;
		break;
	case ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT:
		v = pool->reserved;
		break;
	case ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH:
		v = pool->reserved_peak;
		break;
	case ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT:
		v = pool->used;
		break;
	case ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH:
		v = pool->used_peak;
		break;
	default:
		ret = acl_errf(ACLI_EINTERNAL, "attr %d is not an aclrtMemPoolAttr", (int)attr);
		break;
	}
	if (!ret && attr >= ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD)
		*(uint64_t *)value = v;
	acl_pool_done(pool);
out:
	return acl_ret(__func__, ret);
}

/* Allocation */

/* Take @len bytes of @g (cached or backed fresh) as @s's allocation. */
static int acl_seg_take(struct acl_pool *pool, struct acl_seg *g, uint64_t len, struct acl_stream *s)
{
	int ret = acl_seg_split(g, len);

	if (ret)
		return ret;
	if (g->state == ACL_SEG_FREE) {
		ret = acl_mm_pool_back(pool->dev, g->addr, len);
		if (ret)
			return ret;
		acl_pool_count(pool, 0, (int64_t)len);
	}
	g->state = ACL_SEG_BUSY;
	acl_seg_stream(g, s);
	acl_pool_count(pool, (int64_t)len, 0);
	return 0;
}

/*
 * @s's allocation of @len bytes: cached memory it may take as it is, else
 * fresh memory (giving settled cached memory back to the device if the
 * device has none left), else, with internal dependencies, cached memory
 * @s first waits for.
 */
static int acl_pool_alloc_locked(struct acl_pool *pool, uint64_t len, struct acl_stream *s,
				 uint64_t *addr)
{
	struct npu_cmd cmd = { .op = NPU_OP_WAIT_STREAM };
	struct acl_seg *g;
	int ret, attempt;

	g = acl_seg_fit(pool, ACL_SEG_CACHED, len, s);
	acl_err_clear();
	if (g)
		goto take;
	for (attempt = 0; attempt < 2; attempt++) {
		g = acl_seg_fit(pool, ACL_SEG_FREE, len, NULL);
		if (!g)
			break;
		ret = acl_seg_take(pool, g, len, s);
		if (!ret) {
			*addr = g->addr;
			return 0;
		}
		acl_pool_coalesce(pool);
		if (ret != -ENOMEM || attempt)
			return ret;
		/* device memory is out: what the pool caches and no one uses goes first */
		acl_pool_release_idle(pool, 0);
	}
	/* a model records no wait for another stream's free: its runs would not need one */
	g = pool->reuse[ACL_REUSE_INTERNAL] && !acl_stream_recording(s) ?
		    acl_seg_fit(pool, ACL_SEG_CACHED, len, NULL) : NULL;
	if (!g)
		return acl_errf(ACLI_EINTERNAL, "no %llu bytes left in the pool (size %llu, %llu allocated, %llu cached%s)",
				(unsigned long long)len, (unsigned long long)pool->size,
				(unsigned long long)pool->used,
				(unsigned long long)(pool->reserved - pool->used),
				acl_stream_recording(s) ? ", none of it free for a model's capture yet" : "");
	if (g->s != s && !acl_seg_settled(g)) {
		/* the vendor's internal dependency: @s waits for the free */
		cmd.src = g->sid;
		cmd.value = g->seq;
		ret = acl_stream_submit(s, &cmd, 1, NULL);
		if (ret == -ENOENT)
			acl_err_clear();	/* the freeing stream is gone: nothing to wait for */
		else if (ret)
			return ret;
	}
take:
	ret = acl_seg_take(pool, g, len, s);
	if (ret)
		return ret;
	*addr = g->addr;
	return 0;
}

ACL_EXPORT aclError aclrtMemPoolMallocAsync(void **ptr, size_t size, aclrtMemPool memPool, aclrtStream stream)
{
	struct acl_stream *s = NULL;
	struct acl_pool *pool;
	uint64_t addr = 0;
	int ret;

	ret = acl_enter(NULL, ptr, memPool, stream);
	/* CANN's acl layer: nothing to do, success */
	if (ret || !size)
		goto out;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	if (size > UINT64_MAX - (ACL_CHUNK - 1)) {
		ret = acl_errf(ACLI_ERTPARAM, "size %zu overflows when rounded up to 2 MiB", size);
		goto put;
	}
	ret = acl_pool_get(memPool, ACLI_EINTERNAL, &pool);
	if (ret)
		goto put;
	if (s->dev != pool->dev)
		ret = acl_errf(ACLI_ERTPARAM, "stream %p is of device %d, the pool of device %d", stream,
			       s->dev->id, pool->dev->id);
	else
		ret = acl_pool_alloc_locked(pool, acl_round_up(size, ACL_CHUNK), s, &addr);
	acl_pool_done(pool);
	if (!ret)
		*ptr = (void *)(uintptr_t)addr;
put:
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

/* The live pool whose range holds @addr, lock held; or NULL. */
static struct acl_pool *acl_pool_holding_locked(uint64_t addr)
{
	struct acl_pool *pool;

	list_for_each_entry(pool, &acl_pools, node)
		if (addr >= pool->base && addr - pool->base < pool->size)
			return pool;
	return NULL;
}

/* Free @addr of @pool at @s's current point (lock held). */
static int acl_pool_free_locked(struct acl_pool *pool, uint64_t addr, struct acl_stream *s)
{
	struct acl_seg *g = acl_seg_at(pool, addr);

	if (s->dev != pool->dev)
		return acl_errf(ACLI_ERTPARAM, "stream of device %d, the pool's memory of device %d",
				s->dev->id, pool->dev->id);
	if (!g || g->state != ACL_SEG_BUSY)
		return acl_errf(ACLI_ERTPARAM, "ptr %#llx is no allocation of the pool (freed already, or inside one?)",
				(unsigned long long)addr);
	g->state = ACL_SEG_CACHED;
	acl_seg_stream(g, s);
	/*
	 * On a recording stream the point is the stream's before the
	 * recording: settled at once, though every replay writes the memory
	 * (the vendor's FreeToMemPool at the call; lib/README.md).
	 */
	acl_stream_point(s, &g->sid, &g->seq);
	acl_pool_count(pool, -(int64_t)g->len, 0);
	acl_pool_coalesce(pool);
	return 0;
}

/*
 * CANN frees a pointer of no pool as aclrtFree memory, in a host function
 * on the stream; here: the start of an aclrtMalloc allocation of the
 * stream's device, freed once the stream's work queued so far is done.
 */
static int acl_pool_free_plain(void *ptr, struct acl_stream *s)
{
	struct acl_mem_info q;
	uint32_t id;
	uint64_t seq;
	int ret;

	ret = acl_mm_query(s->dev, (uintptr_t)ptr, &q);
	if (ret)
		return ret;
	if (q.kind != NPU_ADDR_DEVICE || q.rkind != ACL_REGION_MALLOC || q.rbase != (uintptr_t)ptr)
		return acl_errf(ACLI_ERTPARAM, "ptr %p is in no pool and is not an aclrtMalloc allocation of device %d",
				ptr, s->dev->id);
	acl_stream_point(s, &id, &seq);
	ret = acl_stream_reach(s, id, seq, -1);
	if (ret && ret != -ENOENT)
		return ret;
	acl_err_clear();
	ret = acl_mm_free(s->dev, (uintptr_t)ptr, ACL_REGION_MALLOC);
	if (ret == -ENOENT)
		ret = acl_errf(ACLI_ERTPARAM, "ptr %p was freed meanwhile", ptr);
	return ret;
}

ACL_EXPORT aclError aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream)
{
	struct acl_stream *s = NULL;
	struct acl_pool *pool;
	int ret;

	ret = acl_enter(NULL, ptr);
	if (ret)
		goto out;
	/* CANN's runtime: RT_ERROR_STREAM_NULL, its internal error */
	if (!stream) {
		ret = acl_errf(ACLI_EINTERNAL, "stream must not be NULL (no default stream here)");
		goto out;
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	pthread_mutex_lock(&acl_pool_lock);
	pool = acl_pool_holding_locked((uintptr_t)ptr);
	if (pool)
		ret = acl_pool_free_locked(pool, (uintptr_t)ptr, s);
	pthread_mutex_unlock(&acl_pool_lock);
	/*
	 * Not the pool's: the vendor's free in a host function, which a
	 * model would run at each run (a second free): not captured
	 */
	if (!pool)
		ret = acl_stream_uncapturable(s);
	if (!pool && !ret)
		ret = acl_pool_free_plain(ptr, s);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep)
{
	struct acl_seg **v = NULL, *g, *best;
	struct acl_pool *pool;
	uint64_t excess;
	size_t n = 0, i;
	int ret;

	ret = acl_enter(NULL, memPool);
	if (ret)
		goto out;
	ret = acl_pool_get(memPool, ACLI_EINTERNAL, &pool);
	if (ret)
		goto out;
	/* the vendor's SegmentManager::TrimTo checks */
	if (minBytesToKeep > pool->size) {
		ret = acl_errf(ACLI_EINTERNAL, "minBytesToKeep %zu exceeds the pool's size %llu", minBytesToKeep,
			       (unsigned long long)pool->size);
	} else if (minBytesToKeep < pool->reserved && minBytesToKeep < pool->used) {
		ret = acl_errf(ACLI_EINTERNAL, "minBytesToKeep %zu is less than the %llu bytes allocated",
			       minBytesToKeep, (unsigned long long)pool->used);
	} else if (minBytesToKeep < pool->reserved) {
		list_for_each_entry(g, &pool->segs, node)
			n++;
		v = calloc(n, sizeof(*v));
		if (!v)
			ret = acl_errf(-ENOMEM, "out of host memory");
	}
	n = 0;
	/* cached memory, smallest first, in whole chunks, as the vendor trims */
	while (v && (excess = (pool->reserved - minBytesToKeep) & ~(ACL_CHUNK - 1))) {
		uint64_t taken = 0;

		for (i = 0; i < n; i++)
			taken += v[i]->len;
		if (taken >= excess)
			break;
		best = NULL;
		list_for_each_entry(g, &pool->segs, node)
			if (g->state == ACL_SEG_CACHED && (!best || g->len < best->len))
				best = g;
		if (!best || acl_seg_split(best, best->len < excess - taken ? best->len : excess - taken))
			break;
		best->state = ACL_SEG_RELEASING;
		v[n++] = best;
	}
	if (!n) {
		acl_pool_done(pool);
		free(v);
		goto out;
	}
	pool->waiters++;
	pthread_mutex_unlock(&acl_pool_lock);

	/* a RELEASING segment stays as it is until this call comes back for it */
	for (i = 0; i < n; i++)
		acl_stream_reach(v[i]->s, v[i]->sid, v[i]->seq, -1);
	acl_err_clear();

	pthread_mutex_lock(&acl_pool_lock);
	if (!pool->dead) {
		for (i = 0; i < n; i++)
			acl_seg_release(pool, v[i]);
		acl_pool_coalesce(pool);
	}
	pool->waiters--;
	pthread_cond_broadcast(&acl_pool_cond);
	acl_pool_done(pool);
	free(v);
out:
	return acl_ret(__func__, ret);
}
