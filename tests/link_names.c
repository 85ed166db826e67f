// SPDX-License-Identifier: MIT
/*
 * One program, built several ways (tests/tests.mk, tests/install-check):
 * linked with -lascendcl, with -lacl_rt, and against a stub library whose
 * soname is libacl_rt.so, as a program linked against CANN's own
 * libraries would be (tests/link_stub.c). Each build must run on libacl.
 *
 * LINK_OBJECT is the name the dynamic linker loads libacl by: the
 * binary's NEEDED entry (libascendcl.so.1 for -lascendcl and -lacl_rt, whose
 * symlinks lead the linker to the soname; libacl_rt.so for the stub).
 * With LINK_RUNTIME_VERSION, aclsysGetVersionStr("runtime") must answer it
 * without ASCEND_HOME_PATH (an installed libacl reads its own prefix).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "harness.h"

#ifndef LINK_OBJECT
#error "build with -DLINK_OBJECT='\"name the binary needs\"'"
#endif

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name, *want = "/" LINK_OBJECT;
	size_t n = strlen(name), w = strlen(want);

	(void)size;
	if (n >= w && !strcmp(name + n - w, want)) {
		*(const char **)data = name;
		return 1;
	}
	return 0;
}

TEST(libacl_is_loaded_by_the_needed_name)
{
	const char *path = NULL;
	Dl_info info;
	void *h;

	ASSERT_NE(0, dl_iterate_phdr(find_object, &path));
	TH_LOG("loaded %s", path);
	/* the API comes from that object ... */
	ASSERT_NE(0, dladdr((void *)aclInit, &info));
	EXPECT_STREQ(path, info.dli_fname);
	/* ... and it is libacl: its soname is libascendcl.so.1 */
	h = dlopen("libascendcl.so.1", RTLD_NOW | RTLD_NOLOAD);
	ASSERT_NONNULL(h);
	EXPECT_EQ((void *)aclInit, dlsym(h, "aclInit"));
	dlclose(h);
}

TEST(answers_are_libacl_s)
{
	uint32_t count = 99;
	aclError err;

	EXPECT_EQ(2U, aclDataTypeSize(ACL_FLOAT16));
	EXPECT_EQ(0x3c00, aclFloatToFloat16(1.0f));
	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	err = aclrtGetDeviceCount(&count);
	if (err == ACL_ERROR_RT_NO_DEVICE)
		EXPECT_EQ(0U, count);
	else
		EXPECT_EQ(ACL_SUCCESS, err);
	EXPECT_EQ(ACL_SUCCESS, aclFinalize());
	EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
	EXPECT_NONNULL(aclGetRecentErrMsg());
}

#ifdef LINK_RUNTIME_VERSION
TEST(runtime_version_of_the_install)
{
	char str[ACL_PKG_VERSION_MAX_SIZE], pkg[] = "runtime";

	ASSERT_EQ(0, unsetenv("ASCEND_HOME_PATH"));
	ASSERT_EQ(ACL_SUCCESS, aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ(LINK_RUNTIME_VERSION, str);
}
#endif

TEST_HARNESS_MAIN
