/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_VMM_H
#define LIBACL_VMM_H

#include <stdbool.h>
#include <stdint.h>

#include "list.h"

struct acl_device;

/* What an aclrtDrvMemHandle points to. */
struct acl_handle {
	struct list_head node;		/* in dev->handles */
	struct acl_device *dev;
	uint32_t id;			/* kernel handle, valid in dev's context */
	uint64_t size;			/* bytes; an import reports it too */
	uint64_t page_size;
	uint64_t shareable;		/* name from SHARE_EXPORT, 0 if not exported */
	bool imported;			/* from aclrtMemImportFromShareableHandle */
	bool p2p;			/* allocated with an ACL_*_P2P_* memAttr */
	/* under dev->lock: */
	unsigned int retains;		/* aclrtMemRetainAllocationHandle references not yet freed */
	unsigned int maps;		/* its acl_vmaps */
	bool released;			/* freed (off dev->handles), kept while still mapped */
};

/* One aclrtMapMem mapping, in dev->vmaps (under dev->lock). */
struct acl_vmap {
	struct acl_vmap *next;
	uint64_t addr;			/* start; it spans h->size bytes */
	struct acl_handle *h;		/* the handle mapped (it may be released) */
};

/* The live handle object @p, or NULL. */
struct acl_handle *acl_handle_lookup(const void *p);

/* The mapping of @dev holding @addr, or NULL; dev->lock held. */
struct acl_vmap *acl_vmap_find_locked(struct acl_device *dev, uint64_t addr);

/* Free every handle and mapping object at context teardown. */
void acl_handles_teardown(struct acl_device *dev);

#endif /* LIBACL_VMM_H */
