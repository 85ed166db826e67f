/* SPDX-License-Identifier: MIT */
/*
 * Kernel argument handles (aclrtKernelArgs*, kargs.c): an argument block
 * built parameter by parameter, which aclrtLaunchKernelWithConfig
 * launches (kernel.c).
 */
#ifndef LIBACL_KARGS_H
#define LIBACL_KARGS_H

#include <stddef.h>

#include <acl/acl_rt.h>

/*
 * The block of the finalized argument handle @handle for a launch: a
 * malloc'ed copy in *@blob (*@len bytes, at least 1) and its placeholders
 * in *@ph (*@nph, malloc'ed, NULL if none); the caller frees both.
 * ACLI_EHANDLE if @handle is none, ACLI_ERTPARAM if it is not finalized
 * or a parameter was updated since (all recorded).
 */
int acl_kargs_block(const void *handle, void **blob, size_t *len, aclrtPlaceHolderInfo **ph, size_t *nph);

#endif /* LIBACL_KARGS_H */
