/* SPDX-License-Identifier: MIT */
/*
 * Process state: initialisation and the device table.
 *
 * A device is one open file of /dev/npuN, i.e. one driver context, shared
 * by every library context on it (context.h). Its struct lives for the
 * whole process in a static table; it is opened for its first context and
 * closed with its last, and each open and close bumps @gen, which
 * invalidates every library object created under the old driver context.
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

struct acl_context;
struct acl_copier;
struct acl_slots;
struct acl_vmap;

/* Kinds of device memory the library accounts per device (aclrtGetMemUsageInfo). */
enum acl_mem_kind {
	ACL_MEM_KIND_MALLOC,		/* aclrtMalloc* allocations */
	ACL_MEM_KIND_PHYSICAL,		/* aclrtMallocPhysical handles, until freed and unmapped */
	ACL_MEM_KINDS,
};

struct acl_mem_usage {
	uint64_t cur, peak;		/* bytes, as the device allocated them */
};

struct acl_device {
	pthread_mutex_t lock;		/* protects the lists below */
	int id;				/* N of /dev/npuN; constant */
	int fd;				/* -1 while not open; read unlocked by API calls */
	unsigned int gen;		/* bumped at each open and close */
	uint64_t va_start, va_end;	/* device VA window (GET_INFO) */
	uint64_t page_sizes;		/* NPU_PAGE_* the device supports */
	uint64_t peers;			/* bit N: PEER_ENABLE'd device N (atomic; cleared at open) */
	unsigned int faults;		/* task faults reported since open (atomic) */

	/* Under acl_global_lock (acl_dev_acquire/release): */
	unsigned int users;		/* live contexts, the primary one included */
	struct acl_context *primary;	/* the primary context, or NULL */
	unsigned int refs;		/* its aclrtSetDevice references */

	struct list_head contexts;	/* acl_context.node */
	struct list_head handles;	/* acl_handle.node: VMM physical handles */
	struct acl_vmap *vmaps;		/* vmm.c: aclrtMapMem mappings */
	/* memquery.c's accounting of this process's memory; valid while usage_gen == gen */
	struct acl_mem_usage usage[ACL_MEM_KINDS];
	unsigned int usage_gen;
	/* acl_region.node, hashed by start address: VA reservations, host memory */
	struct list_head regions[ACL_REGION_BUCKETS];

	struct acl_copier *copier;	/* copy.c's internal streams and staging buffer */
	struct acl_slots *slots;	/* event.c's timestamp slots, lazily */
	struct acl_slots *notifies;	/* notify.c's flags in device memory, lazily */
};

/*
 * acl_global_lock serialises init, finalize and the opening and closing of
 * devices; it is taken before any device's lock.
 */
extern pthread_mutex_t acl_global_lock;

/* A device for one more context: opened if it was not (acl_global_lock held). */
int acl_dev_acquire_locked(int id, struct acl_device **devp);
/* Its context is gone: closed with the last one (takes acl_global_lock). */
void acl_dev_release(struct acl_device *dev);
void acl_dev_release_locked(struct acl_device *dev);

/* The table entry of device @id (0 <= id < ACL_MAX_DEVICES), open or not. */
struct acl_device *acl_dev_slot(int id);

/* 0 when aclInit has run and aclFinalize has not, else ACLI_EUNINIT. */
int acl_check_init(void);

/* The device of the calling thread's current context, or ACLI_ENOCTX (context.c). */
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

/* Wait for every stream of every context of @dev (aclrtSynchronizeDevice). */
int acl_dev_sync(struct acl_device *dev);

/* Device N if open (some context of the process is on it), else NULL. */
struct acl_device *acl_dev_get(int id);

/* Number of /dev/npuN nodes; 0 when none. */
unsigned int acl_dev_count(void);

/* 0 if @id is in the range of device ids, else -ENODEV with a reason naming @what. */
int acl_dev_check_range(long long id, const char *what);

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
