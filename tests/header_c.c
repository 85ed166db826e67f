// SPDX-License-Identifier: MIT
/*
 * The public headers compile as strict C, and the values and layouts that
 * the CANN ABI fixes hold (checked at compile time).  Built with
 * -DHEADER_ONLY it is a plain C99 syntax check of the headers.
 */
#include <acl/acl.h>
#include <acl/acl_base.h>	/* each header stands alone and twice */
#include <acl/acl_rt.h>

#ifndef HEADER_ONLY
#include <stddef.h>
#include <stdio.h>

#define ACL_SA(cond, msg) _Static_assert(cond, msg)
#include "header_checks.h"

int main(void)
{
	const char *(*msg)(void) = aclGetRecentErrMsg;
	aclError (*mc)(void *, size_t, const void *, size_t, aclrtMemcpyKind) = aclrtMemcpy;
	aclError (*hr)(void *, uint64_t, aclrtHostRegisterType, void **) = aclrtHostRegister;
	aclError (*mp)(aclrtDrvMemHandle *, size_t, const aclrtPhysicalMemProp *, uint64_t) =
		aclrtMallocPhysical;
	aclError (*sa)(void *, size_t, aclrtMemAccessDesc *, size_t) = aclrtMemSetAccess;
	aclError (*in)(const char *) = aclInit;

	printf("TAP version 13\n1..1\n");
	printf("%s 1 acl headers compile as C11 with the CANN values and layouts\n",
	       msg && mc && hr && mp && sa && in ? "ok" : "not ok");
	return 0;
}
#else
int header_only;
#endif
