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
};

/* The live handle object @p, or NULL. */
struct acl_handle *acl_handle_lookup(const void *p);

/* Free every handle object at context teardown. */
void acl_handles_teardown(struct acl_device *dev);

#endif /* LIBACL_VMM_H */
