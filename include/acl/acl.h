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

/* configPath: NULL, or a readable file (its content is not interpreted) */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_H */
