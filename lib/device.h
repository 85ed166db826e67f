/* SPDX-License-Identifier: MIT */
/*
 * Process state: initialisation, the device table and the calling
 * thread's current device.
 *
 * A device is one open file of /dev/npuN, i.e. one driver context.  Its
 * struct lives for the whole process in a static table; opening and
 * closing it bumps @gen, which invalidates every thread's "current
 * device" and every library object created under the old context.
 */
#ifndef LIBACL_DEVICE_H
#define LIBACL_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "list.h"

#define ACL_MAX_DEVICES		64
/* Regions are found by start address in O(1) however many there are. */
#define ACL_REGION_BUCKETS	1024

struct acl_stream;

struct acl_device {
	pthread_mutex_t lock;		/* protects the fields below except where noted */
	int id;				/* N of /dev/npuN; constant */
	int fd;				/* -1 while not open; read unlocked by API calls */
	unsigned int gen;		/* bumped at each open and close */
	unsigned int refs;		/* aclrtSetDevice calls not yet reset */
	uint64_t va_start, va_end;	/* device VA window (GET_INFO) */
	uint64_t page_sizes;		/* NPU_PAGE_* the device supports */
	uint64_t peers;			/* bit N: PEER_ENABLE'd device N (atomic; cleared at open) */

	struct acl_stream *default_stream;	/* NULL stream of the API */
	struct list_head streams;	/* acl_stream.node: default + user streams */
	struct list_head events;	/* acl_event.node */
	struct list_head handles;	/* acl_handle.node: VMM physical handles */
	/* acl_region.node, hashed by start address: VA reservations, host memory */
	struct list_head regions[ACL_REGION_BUCKETS];

	/* Internal streams; each busy mutex is held across submit and sync. */
	pthread_mutex_t copy_lock;	/* serialises synchronous direct copies */
	struct acl_stream *copy_stream;
	pthread_mutex_t stage_lock;	/* serialises staged copies; protects stage_* */
	struct acl_stream *stage_stream;
	void *stage_buf;		/* 2 * stage_half, registered, lazily */
	size_t stage_half;
};

/* 0 when aclInit has run and aclFinalize has not, else ACLI_EUNINIT. */
int acl_check_init(void);

/* The calling thread's current device, or ACLI_ENOCTX (after acl_check_init). */
int acl_cur_dev(struct acl_device **devp);

/* acl_check_init() then acl_cur_dev(). */
int acl_enter_dev(struct acl_device **devp);

/*
 * The start of most API calls: acl_check_init(), then each pointer
 * argument must not be NULL ("<name> must not be NULL", -EINVAL), then, if
 * @devp is not NULL, acl_cur_dev(@devp). The arguments are plain names:
 * acl_enter(&dev, virPtr, handle).
 */
#define acl_enter(devp, ...)						\
	acl_enter_args((devp), #__VA_ARGS__,				\
		       sizeof((const void *[]){ __VA_ARGS__ }) / sizeof(void *), \
		       (const void *[]){ __VA_ARGS__ })
int acl_enter_args(struct acl_device **devp, const char *names, size_t n,
		   const void *const *ptrs);

/* Device N if open (some thread called aclrtSetDevice(N)), else NULL. */
struct acl_device *acl_dev_get(int id);

/* Number of /dev/npuN nodes; 0 when none. */
unsigned int acl_dev_count(void);

/* 0 if @id names an existing /dev/npuN, else -ENODEV with a reason naming @what. */
int acl_dev_check_id(long long id, const char *what);

/* Iterate over open devices. */
struct acl_device *acl_dev_iter(int *pos);
/*
 * Is @p a live object of an open device: an entry, linked by the list_head
 * at @node_off, of the device list at @list_off? (Takes each dev->lock.)
 */
bool acl_dev_holds(size_t list_off, size_t node_off, const void *p);
#define acl_dev_find(list, type, p)					\
	((type *)(acl_dev_holds(offsetof(struct acl_device, list),	\
				offsetof(type, node), (p)) ? (p) : NULL))

#endif /* LIBACL_DEVICE_H */
