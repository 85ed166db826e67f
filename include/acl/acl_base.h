/* SPDX-License-Identifier: MIT */
/*
 * libacl: base types and error codes of the aclrt API: the acl layer's in
 * acl_base_rt.h (static const int), the runtime's in
 * error_codes/rt_error_codes.h (macros).
 *
 * The names, numeric values and layouts here are fixed by the CANN
 * runtime headers (acl_rt.h 1.17) so that programs built against the
 * vendor's headers run against libacl unchanged.
 */
#ifndef ACL_ACL_BASE_H
#define ACL_ACL_BASE_H

#include "acl_base_rt.h"
#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Reason of the calling thread's most recent failure, then cleared;
 * NULL when there is none.  Valid until the next call in this thread.
 */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_BASE_H */
