// SPDX-License-Identifier: MIT
/*
 * The public headers compile as C++ (extern "C" linkage, no C-only
 * constructs), with the same frozen values and layouts as header_c.c.
 */
#include <acl/acl.h>
#include <acl/acl_rt.h>
#include <acl/error_codes/rt_error_codes.h>
#include <acl/acl_rt_allocator.h>
#include <acl/acl_rt_memory_soma.h>

#ifndef HEADER_ONLY
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>

#define ACL_SA(cond, msg) static_assert(cond, msg)
#define ACL_SA_CONST_INT(x) std::is_same<decltype(x), const int>::value
#include "header_checks.h"

/* C linkage: the addresses must be those of the unmangled symbols. */
extern "C" aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);

int main()
{
	aclError (*mc)(void *, size_t, const void *, size_t, aclrtMemcpyKind) = aclrtMemcpy;
	aclError (*ml)(void **, size_t, aclrtMemMallocPolicy) = aclrtMalloc;
	bool ok2;

	printf("TAP version 13\n1..2\n");
	printf("%s 1 acl headers compile as C++11 with the CANN values and layouts\n",
	       mc && ml ? "ok" : "not ok");
	ok2 = !acl_check_codes();
	printf("%s 2 error codes: values, static const int or macro as in CANN\n",
	       ok2 ? "ok" : "not ok");
	return mc && ml && ok2 ? 0 : 1;
}
#else
int header_only;
#endif
