/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_VMM_H
#define LIBACL_VMM_H

#include <stdint.h>

#include "list.h"

struct acl_device;

/* What an aclrtDrvMemHandle points to. */
struct acl_handle {
	struct list_head node;		/* in dev->handles */
	struct acl_device *dev;
	uint32_t id;			/* kernel handle, valid in dev's context */
	uint64_t size;
	uint64_t page_size;
};

/* Free every handle object at context teardown. */
void acl_handles_teardown(struct acl_device *dev);

#endif /* LIBACL_VMM_H */
