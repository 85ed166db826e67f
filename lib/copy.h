/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_COPY_H
#define LIBACL_COPY_H

#include <stdbool.h>

struct acl_device;

/* Staging buffer: two halves, one filled by the CPU while the other's DMA runs. */
#define ACL_STAGE_HALF		(4ULL << 20)

/* Forget the staging buffer at context teardown; @unmap: also munmap it. */
void acl_stage_teardown(struct acl_device *dev, bool unmap);

#endif /* LIBACL_COPY_H */
