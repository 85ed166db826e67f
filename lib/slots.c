// SPDX-License-Identifier: MIT
/*
 * Pools of device-visible words: pages registered with the driver one at
 * a time as they are needed, ids handed out round-robin so that an id is
 * not reused at once.
 */
#include <errno.h>
#include <stdlib.h>

#include "device.h"
#include "error.h"
#include "mm.h"
#include "slots.h"

#define ACL_SLOTS_MAX	(ACL_SLOTS_PAGES * ACL_SLOTS_PER_PAGE)

static int acl_slots_page(struct acl_device *dev, struct acl_slots *pool, unsigned int pg)
{
	void *p;
	int ret;

	ret = acl_mm_internal(dev, 4096, 4096, 0, &p);
	if (!ret)
		pool->page[pg] = p;
	return ret;
}

int acl_slot_alloc(struct acl_device *dev, struct acl_slots **poolp, uint32_t *idx,
		   uint64_t **word)
{
	struct acl_slots *pool;
	uint32_t i, n;
	int ret = 0;

	pthread_mutex_lock(&dev->lock);
	pool = *poolp;
	if (!pool) {
		pool = calloc(1, sizeof(*pool));
		if (pool) {
			pthread_mutex_init(&pool->lock, NULL);
			*poolp = pool;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (!pool)
		return acl_errf(-ENOMEM, "out of host memory");

	pthread_mutex_lock(&pool->lock);
	for (n = 0, i = pool->next; n < ACL_SLOTS_MAX; n++, i = (i + 1) % ACL_SLOTS_MAX)
		if (!(pool->used[i / 64] & (1ULL << (i % 64))))
			break;
	if (n == ACL_SLOTS_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	if (!pool->page[i / ACL_SLOTS_PER_PAGE]) {
		ret = acl_slots_page(dev, pool, i / ACL_SLOTS_PER_PAGE);
		if (ret)
			goto out;
	}
	pool->used[i / 64] |= 1ULL << (i % 64);
	pool->next = (i + 1) % ACL_SLOTS_MAX;
	*idx = i;
	*word = &pool->page[i / ACL_SLOTS_PER_PAGE][i % ACL_SLOTS_PER_PAGE];
	__atomic_store_n(*word, 0, __ATOMIC_RELAXED);
out:
	pthread_mutex_unlock(&pool->lock);
	return ret;
}

void acl_slot_free(struct acl_device *dev, struct acl_slots **poolp, unsigned int gen, uint32_t idx)
{
	struct acl_slots *pool;

	/* the device lock keeps the pool from going (device close) meanwhile */
	pthread_mutex_lock(&dev->lock);
	pool = dev->gen == gen ? *poolp : NULL;
	if (pool) {
		pthread_mutex_lock(&pool->lock);
		pool->used[idx / 64] &= ~(1ULL << (idx % 64));
		pthread_mutex_unlock(&pool->lock);
	}
	pthread_mutex_unlock(&dev->lock);
}

void acl_slots_destroy(struct acl_slots **poolp)
{
	struct acl_slots *pool = *poolp;

	if (!pool)
		return;
	/* the registrations go with the file, the pages with the memory layer's records */
	pthread_mutex_destroy(&pool->lock);
	free(pool);
	*poolp = NULL;
}
