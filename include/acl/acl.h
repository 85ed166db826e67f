/* SPDX-License-Identifier: MIT */
/*
 * libacl: umbrella header, process-wide init and finalize.
 */
#ifndef ACL_ACL_H
#define ACL_ACL_H

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * configPath: NULL, or a readable file (acl_rt.h says which options it
 * reads). Each aclInit counts a reference, a repeated one too (which
 * still answers ACL_ERROR_REPEAT_INITIALIZE); aclFinalize drops them all.
 */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/*
 * Drop one aclInit reference; the last finalizes as aclFinalize does.
 * refCount (may be NULL): the references left. None left (before aclInit,
 * after finalizing): ACL_ERROR_REPEAT_FINALIZE.
 */
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_H */
