/* SPDX-License-Identifier: MIT */
/*
 * Device-visible 64-bit words in registered host memory, numbered: event
 * timestamps (event.c), notify flags (notify.c) and the contexts'
 * overflow status blocks (overflow.c). The engine writes and
 * polls them (TIMESTAMP, WRITE_VALUE, WAIT_VALUE with a host operand),
 * kernels set the overflow bits through the words' device address (their
 * own address: the pages are registered MAPPED at it); the library reads
 * them. A word's number is the id CANN reports.
 */
#ifndef LIBACL_SLOTS_H
#define LIBACL_SLOTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct acl_device;

#define ACL_SLOTS_PER_PAGE	512
#define ACL_SLOTS_PAGES		128	/* 65536 words per pool and device */

struct acl_slots {
	pthread_mutex_t lock;		/* protects the fields below */
	uint64_t *page[ACL_SLOTS_PAGES];	/* registered lazily */
	uint64_t used[ACL_SLOTS_PAGES * ACL_SLOTS_PER_PAGE / 64];	/* bitmap */
	uint32_t next;			/* where the next search starts */
};

/*
 * Take a free word of @dev's pool at *@poolp (made on first use), set to
 * 0; -ENOSPC when all are in use.
 */
int acl_slot_alloc(struct acl_device *dev, struct acl_slots **poolp, uint32_t *idx,
		   uint64_t **word);
/*
 * Give the word back, if the pool is the one of device generation @gen
 * (a device closed since took the pool and its words with it).
 */
void acl_slot_free(struct acl_device *dev, struct acl_slots **poolp, unsigned int gen, uint32_t idx);

/*
 * The same for @n consecutive words (@n a power of two, at most 64),
 * aligned to @n words: *@idx is the first, *@word points at them.
 */
int acl_slots_alloc(struct acl_device *dev, struct acl_slots **poolp, uint32_t n, uint32_t *idx,
		    uint64_t **word);
void acl_slots_free(struct acl_device *dev, struct acl_slots **poolp, unsigned int gen, uint32_t idx,
		    uint32_t n);

/* A word kept while its device stays open: see acl_slot_keep(). */
struct acl_slot_kept {
	uint64_t *word;			/* under the device's lock */
	unsigned int gen;		/* the device generation it was taken in */
};

/*
 * The word of @dev's pool at *@poolp that @k keeps: taken at the first
 * call after each open of the device, the same one until it closes (it
 * goes with the pool then).
 */
int acl_slot_keep(struct acl_device *dev, struct acl_slots **poolp, struct acl_slot_kept *k,
		  uint64_t **word);

/* How many words of the pool at *@poolp are free (all, before its first use). */
uint32_t acl_slots_avail(struct acl_device *dev, struct acl_slots **poolp);

/* Free the pool at device close (its pages go with the memory layer's records). */
void acl_slots_destroy(struct acl_slots **poolp);

#endif /* LIBACL_SLOTS_H */
