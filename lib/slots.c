// SPDX-License-Identifier: MIT
/*
 * Pools of device-visible words: pages registered with the driver one at
 * a time as they are needed, ids handed out round-robin so that an id is
 * not reused at once.
 */
#include <errno.h>
#include <stdbool.h>
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

	/* at their own device address too: a kernel sets the overflow status in its words */
	ret = acl_mm_internal(dev, 4096, 4096, 0, true, &p);
	if (!ret)
		pool->page[pg] = p;
	return ret;
}

/* @n consecutive free bits from @i (a multiple of @n, a power of two up to 64)? */
static uint64_t acl_slots_mask(uint32_t i, uint32_t n)
{
	return (n == 64 ? ~0ULL : (1ULL << n) - 1) << (i % 64);
}

int acl_slots_alloc(struct acl_device *dev, struct acl_slots **poolp, uint32_t n, uint32_t *idx,
		    uint64_t **word)
{
	struct acl_slots *pool;
	uint32_t i, k;
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
	for (k = 0, i = pool->next / n * n; k < ACL_SLOTS_MAX; k += n, i = (i + n) % ACL_SLOTS_MAX)
		if (!(pool->used[i / 64] & acl_slots_mask(i, n)))
			break;
	if (k >= ACL_SLOTS_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	if (!pool->page[i / ACL_SLOTS_PER_PAGE]) {
		ret = acl_slots_page(dev, pool, i / ACL_SLOTS_PER_PAGE);
		if (ret)
			goto out;
	}
	pool->used[i / 64] |= acl_slots_mask(i, n);
	pool->next = (i + n) % ACL_SLOTS_MAX;
	*idx = i;
	*word = &pool->page[i / ACL_SLOTS_PER_PAGE][i % ACL_SLOTS_PER_PAGE];
	for (k = 0; k < n; k++)
		__atomic_store_n(&(*word)[k], 0, __ATOMIC_RELAXED);
out:
	pthread_mutex_unlock(&pool->lock);
	return ret;
}

int acl_slot_alloc(struct acl_device *dev, struct acl_slots **poolp, uint32_t *idx,
		   uint64_t **word)
{
	return acl_slots_alloc(dev, poolp, 1, idx, word);
}

void acl_slots_free(struct acl_device *dev, struct acl_slots **poolp, unsigned int gen, uint32_t idx,
		    uint32_t n)
{
	struct acl_slots *pool;

	/* the device lock keeps the pool from going (device close) meanwhile */
	pthread_mutex_lock(&dev->lock);
	pool = dev->gen == gen ? *poolp : NULL;
	if (pool) {
		pthread_mutex_lock(&pool->lock);
		pool->used[idx / 64] &= ~acl_slots_mask(idx, n);
		pthread_mutex_unlock(&pool->lock);
	}
	pthread_mutex_unlock(&dev->lock);
}

void acl_slot_free(struct acl_device *dev, struct acl_slots **poolp, unsigned int gen, uint32_t idx)
{
	acl_slots_free(dev, poolp, gen, idx, 1);
}

int acl_slot_keep(struct acl_device *dev, struct acl_slots **poolp, struct acl_slot_kept *k,
		  uint64_t **word)
{
	unsigned int gen;
	uint64_t *w;
	uint32_t idx;
	bool lost;
	int ret;

	pthread_mutex_lock(&dev->lock);
	gen = dev->gen;
	w = k->word && k->gen == gen ? k->word : NULL;
	pthread_mutex_unlock(&dev->lock);
	if (w)
		goto out;
	/* taken unlocked (the pool takes the device lock): another thread may win */
	ret = acl_slot_alloc(dev, poolp, &idx, &w);
	if (ret)
		return ret;
	pthread_mutex_lock(&dev->lock);
	lost = k->word && k->gen == dev->gen;
	if (lost) {
		w = k->word;
	} else if (dev->gen == gen) {
		/* (else the device closed meanwhile, and the word went with it) */
		k->word = w;
		k->gen = gen;
	}
	pthread_mutex_unlock(&dev->lock);
	if (lost)
		acl_slot_free(dev, poolp, gen, idx);
out:
	*word = w;
	return 0;
}

uint32_t acl_slots_avail(struct acl_device *dev, struct acl_slots **poolp)
{
	struct acl_slots *pool;
	uint32_t n = ACL_SLOTS_MAX;
	unsigned int i;

	pthread_mutex_lock(&dev->lock);
	pool = *poolp;
	if (pool) {
		pthread_mutex_lock(&pool->lock);
		for (i = 0; i < ACL_SLOTS_MAX / 64; i++)
			n -= (uint32_t)__builtin_popcountll(pool->used[i]);
		pthread_mutex_unlock(&pool->lock);
	}
	pthread_mutex_unlock(&dev->lock);
	return n;
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
