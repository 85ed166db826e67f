/* SPDX-License-Identifier: MIT */
/*
 * The device table, the bottom of the library: every other file may call
 * it, it calls none of them.
 *
 * A device is one open file of /dev/npuN, i.e. one driver context, shared
 * by every library context on it (context.h). Its struct lives for the
 * whole process in a static table; lifecycle.c opens it for its first
 * context and closes it with its last, and each open and close bumps
 * @gen, which invalidates every library object created under the old
 * driver context. The initialisation state (aclInit, aclFinalize) is
 * kept here too, for acl_check_init(); lifecycle.c sets it.
 */
#ifndef LIBACL_DEVICE_H
#define LIBACL_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "list.h"

#define ACL_MAX_DEVICES		64

struct acl_context;
struct acl_copier;
struct acl_slots;

struct acl_device {
	pthread_mutex_t lock;		/* protects the lists below */
	int id;				/* N of /dev/npuN; constant */
	int fd;				/* -1 while not open; read unlocked by API calls */
	unsigned int gen;		/* bumped at each open and close */
	uint64_t va_start, va_end;	/* device VA window (GET_INFO) */
	uint64_t page_sizes;		/* NPU_PAGE_* the device supports */
	uint64_t peers;			/* bit N: PEER_ENABLE'd device N (atomic; cleared at open) */
	unsigned int peer_refs[ACL_MAX_DEVICES]; /* enables of device N not disabled (peer.c; cleared at open) */
	unsigned int faults;		/* task faults reported since open (atomic) */
	bool mem_error;			/* one of them touched a bad page (atomic; aclrtRepairError clears) */
	bool task_abort;		/* aclrtDeviceTaskAbort under way or failed (atomic; abort.c) */

	/* Under acl_global_lock (lifecycle.c): */
	unsigned int users;		/* live contexts, the primary one included */
	struct acl_context *primary;	/* the primary context, or NULL */
	unsigned int refs;		/* its aclrtSetDevice references */
	bool import_hold;		/* an IPC import opened it: one user more, until aclFinalize */

	struct list_head contexts;	/* acl_context.node */

	struct acl_copier *copier;	/* copy.c's internal streams and staging buffer */
	struct acl_slots *slots;	/* event.c's timestamp slots, lazily */
	struct acl_slots *notifies;	/* notify.c's flags in device memory, lazily */
	struct acl_slots *overflow;	/* the contexts' overflow status blocks (overflow.c), lazily */
};

/*
 * acl_global_lock serialises init, finalize and the opening and closing of
 * devices; it is taken before any device's lock.
 */
extern pthread_mutex_t acl_global_lock;

/*
 * Keep device @id open for a library object that is no context (an
 * opened IPC event's page): opened if it was not, without the device
 * state callbacks; it closes at acl_dev_unhold() if no context is left
 * on it then. The work is lifecycle.c's, which hands it down at its
 * first aclInit (acl_dev_set_holder()), as nothing calls up into it.
 */
int acl_dev_hold(int id, struct acl_device **devp);
void acl_dev_unhold(struct acl_device *dev);
void acl_dev_set_holder(int (*hold)(int id, struct acl_device **devp), void (*unhold)(struct acl_device *dev));

/* Set every entry's id and lists (once, before the first aclInit). */
void acl_devs_init(void);

/* The table entry of device @id (0 <= id < ACL_MAX_DEVICES), open or not. */
struct acl_device *acl_dev_slot(int id);

/* Device N if open (some context of the process is on it), else NULL. */
struct acl_device *acl_dev_get(int id);

/* Iterate over open devices. */
struct acl_device *acl_dev_iter(int *pos);

/* Number of /dev/npuN nodes; 0 when none. */
unsigned int acl_dev_count(void);

/* 0 if @id is in the range of device ids, else -ENODEV with a reason naming @what. */
int acl_dev_check_range(long long id, const char *what);

/* 0 if @id names an existing /dev/npuN, else -ENODEV with a reason naming @what. */
int acl_dev_check_id(long long id, const char *what);

/*
 * A new aperture file of @dev's driver context (DOC: npu aperture),
 * close-on-exec, in *@fd: the one way the library opens one. Each user
 * keeps its own file: the AI-core executor's (aicore.c; @executor:
 * NPU_APERTURE_EXECUTOR, launches queue for it from its open), whose
 * release fails the launches it took, and the memory layer's for CPU
 * access to VMM mappings (mm.c).
 */
int acl_dev_aperture_open(struct acl_device *dev, bool executor, int *fd);

/* aclInit's and aclFinalize's mark (acl_global_lock held). */
enum { ACL_STATE_NEVER, ACL_STATE_INIT, ACL_STATE_FINALIZED };
int acl_init_state(void);
void acl_init_state_set(int state);

/* 0 when aclInit has run and aclFinalize has not, else ACLI_EUNINIT. */
int acl_check_init(void);

#endif /* LIBACL_DEVICE_H */
