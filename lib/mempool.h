/* SPDX-License-Identifier: MIT */
/*
 * Stream-ordered memory pools (mempool.c, acl_rt_memory_soma.h), for the
 * top of the library: a pool lives on one device and goes with it.
 */
#ifndef LIBACL_MEMPOOL_H
#define LIBACL_MEMPOOL_H

#include <stdbool.h>

struct acl_device;

/*
 * @dev was closed (its file released every kernel object): its pools are
 * dead, their handles answer as destroyed ones. @in_child: after fork,
 * forget them without touching anything of the parent's.
 */
void acl_mempool_dev_closed(struct acl_device *dev, bool in_child);

/* After fork, in the child, before acl_mempool_dev_closed(): the lock is free again. */
void acl_mempool_forget(void);

#endif /* LIBACL_MEMPOOL_H */
