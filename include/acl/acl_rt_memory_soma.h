/* SPDX-License-Identifier: MIT */
/*
 * libacl: stream-ordered memory pools (CANN's SOMA) - device memory that
 * aclrtMemPoolMallocAsync hands out and aclrtMemPoolFreeAsync gives back
 * in the order of a stream, kept by the pool for reuse until it is
 * trimmed. Names, values, layouts and prototypes follow the CANN
 * acl_rt_memory_soma.h 1.17; the rules of acl_rt.h apply (aclInit first,
 * thread-safe, codes). lib/README.md ("Memory pools") has the details.
 *
 * A pool reserves device address space of its maximum size at creation
 * and backs it with device memory in 2 MiB pieces as allocations need it.
 * Sizes are rounded up to 2 MiB. A freed allocation is cached by the pool
 * with the point of its stream where it was freed; it is reused:
 *
 * - by an allocation on the same stream, at once (stream order covers it);
 * - with ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, by a stream that
 *   waited (aclrtStreamWaitEvent) for an event recorded on the freeing
 *   stream at or after the free;
 * - with ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, by any stream once the
 *   freeing stream has got past the free;
 * - with ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES, by any stream,
 *   which then waits for the freeing stream to get past the free, when
 *   nothing else fits.
 *
 * Cached memory whose free has completed goes back to the device when a
 * stream or the device is synchronized (aclrtSynchronizeStream(WithTimeout),
 * aclrtSynchronizeDevice) while the pool holds more than its release
 * threshold, and at aclrtMemPoolTrimTo.
 */
#ifndef ACL_ACL_RT_MEMORY_SOMA_H
#define ACL_ACL_RT_MEMORY_SOMA_H

#include <stddef.h>
#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *aclrtMemPool;

/*
 * The REUSE_* switches are uint32_t (0 off, anything else on; all off
 * until set), the others uint64_t bytes. RESERVED_MEM_CURRENT is the
 * memory the pool holds (allocated and cached), USED_MEM_CURRENT what is
 * allocated; both are read-only. The _HIGH ones are their peaks, which
 * only 0 may be written to (it resets them to 0). RELEASE_THRESHOLD (0
 * until set, at most the pool's size) is what the pool keeps at a
 * synchronize.
 */
typedef enum aclrtMemPoolAttr {
	ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES = 0x1,
	ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC = 0x2,
	ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 0x3,
	ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD = 0x4,
	ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT = 0x5,
	ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH = 0x6,
	ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT = 0x7,
	ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH = 0x8
} aclrtMemPoolAttr;

/*
 * allocType PINNED and location.type DEVICE only; reserved all zero;
 * handleType is not looked at. maxSize: 0 for all of the device's memory
 * (rounded down to 2 MiB), else rounded up to 2 MiB and at most the
 * device's memory.
 */
typedef struct {
	aclrtMemAllocationType allocType;
	aclrtMemHandleType handleType;
	aclrtMemLocation location;
	size_t maxSize;
	unsigned char reserved[32];
} aclrtMemPoolProps;

/*
 * A pool on device location.id, which some thread of this process must
 * have set (ACL_ERROR_RT_CONTEXT_NULL; a device id that names no device:
 * ACL_ERROR_RT_INVALID_DEVICEID). NULL arguments, and the props' type and
 * reserved checks: ACL_ERROR_INVALID_PARAM; maxSize above the device's
 * memory: ACL_ERROR_RT_PARAM_INVALID.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolCreate(aclrtMemPool *memPool, const aclrtMemPoolProps *poolProps);
/*
 * Waits for the work queued so far on the streams that allocated what is
 * still allocated and that freed what is cached, then gives all of the
 * pool's memory back; what is still allocated is gone. A pool that is not
 * live (destroyed, or its device reset): ACL_ERROR_RT_INTERNAL_ERROR.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolDestroy(const aclrtMemPool memPool);
/*
 * NULL memPool: ACL_ERROR_INVALID_PARAM; NULL value or a pool that is not
 * live: ACL_ERROR_RT_PARAM_INVALID, as a read-only attribute; an unknown
 * attribute, a threshold above the pool's size or a peak set to anything
 * but 0: ACL_ERROR_RT_INTERNAL_ERROR (CANN's codes).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value);
ACL_FUNC_VISIBILITY aclError aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value);
/*
 * *ptr: @size bytes (rounded up to 2 MiB) of @memPool, usable by work
 * queued on @stream from now on. size 0: success, *ptr untouched. NULL
 * arguments (the stream too): ACL_ERROR_INVALID_PARAM; a stream of another
 * context: ACL_ERROR_RT_STREAM_CONTEXT; of another device than the pool's:
 * ACL_ERROR_RT_PARAM_INVALID; a pool that is not live, or no room left in
 * it: ACL_ERROR_RT_INTERNAL_ERROR; no device memory left to back it:
 * ACL_ERROR_RT_MEMORY_ALLOCATION.
 */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolMallocAsync(void **ptr, size_t size, aclrtMemPool memPool,
						     aclrtStream stream);
/*
 * Give @ptr back at this point of @stream (a stream of the current context
 * and of the pool's device). @ptr must be what aclrtMemPoolMallocAsync
 * returned and not freed since, else ACL_ERROR_RT_PARAM_INVALID. A pointer
 * in no pool may be the start of an aclrtMalloc allocation of the stream's
 * device: it is freed once the stream's work queued so far is done (the
 * call waits for it). NULL ptr: ACL_ERROR_INVALID_PARAM; NULL stream:
 * ACL_ERROR_RT_INTERNAL_ERROR (CANN's runtime takes no default stream
 * here).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream);
/*
 * Give cached memory back to the device until the pool holds at most
 * minBytesToKeep (rounded to whole 2 MiB pieces, never below it), waiting
 * for the frees' streams as needed. More than the pool's size, or less
 * than what is allocated: ACL_ERROR_RT_INTERNAL_ERROR (CANN).
 */
ACL_FUNC_VISIBILITY aclError aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_RT_MEMORY_SOMA_H */
