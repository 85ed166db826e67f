// SPDX-License-Identifier: MIT
/*
 * The public headers compile as C++ (extern "C" linkage, no C-only
 * constructs), with the same frozen values and layouts as header_c.c.
 */
#include <acl/acl.h>
#include <acl/acl_rt.h>

#ifndef HEADER_ONLY
#include <cstddef>
#include <cstdio>

#define ACL_SA(cond, msg) static_assert(cond, msg)
#include "header_checks.h"

/* C linkage: the addresses must be those of the unmangled symbols. */
extern "C" aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);

int main()
{
	aclError (*mc)(void *, size_t, const void *, size_t, aclrtMemcpyKind) = aclrtMemcpy;
	aclError (*ml)(void **, size_t, aclrtMemMallocPolicy) = aclrtMalloc;

	std::printf("TAP version 13\n1..1\n");
	std::printf("%s 1 acl headers compile as C++11 with the CANN values and layouts\n",
		    mc && ml ? "ok" : "not ok");
	return 0;
}
#else
int header_only;
#endif
