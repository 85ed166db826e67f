/* SPDX-License-Identifier: MIT */
/*
 * libacl: base types and error codes of the aclrt API.
 *
 * The names, numeric values and layouts here are fixed by the CANN
 * runtime headers (acl_rt.h 1.17) so that programs built against the
 * vendor's headers run against libacl unchanged.
 */
#ifndef ACL_ACL_BASE_H
#define ACL_ACL_BASE_H

#include <stdint.h>
#include <stddef.h>

#ifndef ACL_FUNC_VISIBILITY
#if defined(_WIN32)
#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __declspec(dllexport)
#else
#define ACL_FUNC_VISIBILITY
#endif
#elif defined(__GNUC__)
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif
#endif

#ifdef __GNUC__
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;

/*
 * Error codes.  An anonymous enum keeps them integer constant
 * expressions (usable in case labels and static asserts in C) without
 * turning them into macros.
 */
enum {
	ACL_SUCCESS = 0,
	ACL_ERROR_NONE = 0,

	ACL_ERROR_INVALID_PARAM = 100000,
	ACL_ERROR_UNINITIALIZE = 100001,
	ACL_ERROR_REPEAT_INITIALIZE = 100002,
	ACL_ERROR_REPEAT_FINALIZE = 100037,

	ACL_ERROR_BAD_ALLOC = 200000,
	ACL_ERROR_API_NOT_SUPPORT = 200001,
	ACL_ERROR_INVALID_DEVICE = 200002,
	ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003,
	ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005,
	ACL_ERROR_FEATURE_UNSUPPORTED = 200006,

	ACL_ERROR_STORAGE_OVER_LIMIT = 300000,

	ACL_ERROR_INTERNAL_ERROR = 500000,
	ACL_ERROR_FAILURE = 500001,
	ACL_ERROR_RT_FAILURE = 500003,
	ACL_ERROR_DRV_FAILURE = 500004,

	/* runtime codes (error_codes/rt_error_codes.h in CANN) */
	ACL_ERROR_RT_PARAM_INVALID = 107000,
	ACL_ERROR_RT_INVALID_DEVICEID = 107001,
	ACL_ERROR_RT_CONTEXT_NULL = 107002,
	ACL_ERROR_RT_ADDR_UNALIGNED = 107008,
	ACL_ERROR_RT_INVALID_MEMORY_TYPE = 107016,
	ACL_ERROR_RT_INVALID_HANDLE = 107017,
	ACL_ERROR_RT_INVALID_MALLOC_TYPE = 107018,
	ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000,
	ACL_ERROR_RT_MEMORY_ALLOCATION = 207001,
	ACL_ERROR_RT_MEMORY_FREE = 207002,
	ACL_ERROR_RT_NO_DEVICE = 207004,
	ACL_ERROR_RT_INTERNAL_ERROR = 507000,
	ACL_ERROR_RT_STREAM_SYNC_TIMEOUT = 507046,
	ACL_ERROR_RT_DRV_INTERNAL_ERROR = 507899,
	ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 507910,
	ACL_ERROR_HOST_MEMORY_NOT_REGISTERED = 507911,
};

/*
 * Reason of the calling thread's most recent failure, then cleared;
 * NULL when there is none.  Valid until the next call in this thread.
 */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_BASE_H */
