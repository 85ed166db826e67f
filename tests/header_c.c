// SPDX-License-Identifier: MIT
/*
 * The public headers compile as strict C, and the values and layouts that
 * the CANN ABI fixes hold (checked at compile time; the acl-layer error
 * codes, static const int and so no C constant expressions, at run time).
 * Built with -DHEADER_ONLY it is a plain C99 syntax check of the headers.
 */
#include <acl/acl.h>
#include <acl/acl_base.h>	/* each header stands alone and twice */
#include <acl/acl_rt.h>
#include <acl/acl_base_rt.h>
#include <acl/error_codes/rt_error_codes.h>
#include <acl/acl_rt_allocator.h>
#include <acl/acl_rt_memory_soma.h>

#ifndef HEADER_ONLY
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define ACL_SA(cond, msg) _Static_assert(cond, msg)
#define ACL_SA_CONST_INT(x) _Generic(&(x), const int *: 1, default: 0)
#include "header_checks.h"

int main(void)
{
	const char *(*msg)(void) = aclGetRecentErrMsg;
	aclError (*mc)(void *, size_t, const void *, size_t, aclrtMemcpyKind) = aclrtMemcpy;
	aclError (*hr)(void *, uint64_t, aclrtHostRegisterType, void **) = aclrtHostRegister;
	aclError (*mp)(aclrtDrvMemHandle *, size_t, const aclrtPhysicalMemProp *, uint64_t) =
		aclrtMallocPhysical;
	aclError (*sa)(void *, size_t, aclrtMemAccessDesc *, size_t) = aclrtMemSetAccess;
	/* CANN's prototype (acl_rt.h) */
	aclError (*mn)(void *, size_t, size_t, aclrtDrvMemHandle, uint64_t) = aclrtMemMapNoAccess;
	aclError (*in)(const char *) = aclInit;
	aclError (*le)(aclrtLastErrLevel) = aclrtGetLastError;
	int ok1 = msg && mc && hr && mp && sa && mn && in && le, ok2;

	printf("TAP version 13\n1..2\n");
	printf("%s 1 acl headers compile as C11 with the CANN values and layouts\n",
	       ok1 ? "ok" : "not ok");
	ok2 = !acl_check_codes();
	printf("%s 2 error codes: values, static const int or macro as in CANN\n",
	       ok2 ? "ok" : "not ok");
	return ok1 && ok2 ? 0 : 1;
}
#else
int header_only;
#endif
