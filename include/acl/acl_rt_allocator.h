/* SPDX-License-Identifier: MIT */
/*
 * libacl: custom allocators - an application's own allocator, described
 * by its object and four functions and registered per stream, for the
 * parts of CANN that need workspace on that stream (its operator and
 * model layer asks aclrtAllocatorGetByStream before it allocates). Names,
 * types and prototypes follow the CANN acl_rt_allocator.h 1.17; acl_rt.h
 * includes this header.
 *
 * libacl runs no operators or models, so nothing in the library calls the
 * registered functions: a registration is what aclrtAllocatorGetByStream
 * answers (lib/README.md, "Custom allocators").
 *
 * - A description (aclrtAllocatorCreateDesc) is a record of the library:
 *   every call that takes one checks that it is a live description, and
 *   answers ACL_ERROR_INVALID_PARAM for NULL, a destroyed one or any other
 *   pointer (the library never reads through it). None of the description
 *   calls needs aclInit.
 * - aclrtAllocatorRegister copies the description: destroying or changing
 *   the description afterwards leaves the registration as it was.
 *   Registering again on a stream replaces its registration.
 * - A registration belongs to its stream and goes with it: after
 *   aclrtDestroyStream (or the destruction of its context) the stream has
 *   none.
 */
#ifndef ACL_ACL_RT_ALLOCATOR_H
#define ACL_ACL_RT_ALLOCATOR_H

#include <stddef.h>
#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A block of @size bytes from @allocator, or NULL */
typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
/* Give @block back to @allocator */
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
/* A block of @size bytes, preferably at @addr, or NULL */
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr);
/* The device address a block holds */
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/* A new description, all of it unset; NULL only when out of memory */
ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
/* Free a description; registrations made from it stay */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);

/*
 * Set one part of a description; a NULL description, allocator object or
 * function is ACL_ERROR_INVALID_PARAM and changes nothing.
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							      aclrtAllocatorAllocFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							     aclrtAllocatorFreeFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
								    aclrtAllocatorAllocAdviseFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
									 aclrtAllocatorGetAddrFromBlockFunc func);

/*
 * Register a copy of @allocatorDesc for @stream, replacing an earlier one.
 * NULL stream or description, a description that is not live, or one
 * whose object, alloc, free or get-address function is unset:
 * ACL_ERROR_INVALID_PARAM (the advise function may stay unset, as in
 * CANN). Then, as every stream call, aclInit (ACL_ERROR_UNINITIALIZE) and
 * a live stream of any context (ACL_ERROR_RT_INVALID_HANDLE: CANN keys its
 * table by the pointer without looking at it).
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);

/*
 * What @stream has registered: the description as registered (the
 * pointer, which may have been destroyed since) in *@allocatorDesc, and
 * the copied object and functions in each output that is not NULL.
 * NULL @allocatorDesc or @stream, or a stream without a registration (a
 * destroyed stream included): ACL_ERROR_INVALID_PARAM, as CANN's acl
 * layer answers (no last error).
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
						       aclrtAllocator *allocator,
						       aclrtAllocatorAllocFunc *allocFunc,
						       aclrtAllocatorFreeFunc *freeFunc,
						       aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
						       aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);

/*
 * Forget @stream's registration. NULL: ACL_ERROR_INVALID_PARAM; a stream
 * without one, or not live any more: success, nothing done (CANN).
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_RT_ALLOCATOR_H */
