// SPDX-License-Identifier: MIT
/*
 * libacl: aclsysGetVersionStr/aclsysGetVersionNum over version.info
 * files in a temporary $ASCEND_HOME_PATH. The driver and firmware paths
 * come from /etc/ascend_install.info, which only the guest's tests write
 * (as root, when there is none).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib_util.h"

FIXTURE(home) {
	char dir[64];
};

FIXTURE_SETUP(home)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/acl-home-XXXXXX");
	ASSERT_NONNULL(mkdtemp(self->dir));
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", self->dir, 1));
}

FIXTURE_TEARDOWN(home)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

/* Write <root>/<rel> (directories made), content as given. */
static int write_file(const char *root, const char *rel, const char *content)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(content, f);
	return fclose(f);
}

static int put_version(const char *home, const char *pkg, const char *content)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "share/info/%s/version.info", pkg);
	return write_file(home, rel, content);
}

TEST_F(home, runtime_string_and_number)
{
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "runtime";
	int32_t num = 0;

	ASSERT_EQ(0, put_version(self->dir, "runtime", "Version=9.0.0\nversion_dir=9.0.0\n"));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ("9.0.0", str);
	EXPECT_ACL_OK(aclsysGetVersionNum(pkg, &num));
	EXPECT_EQ(90000000, num);
}

TEST_F(home, version_line_anywhere_trimmed)
{
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "toolkit";
	int32_t num = 0;

	ASSERT_EQ(0, put_version(self->dir, "toolkit",
				 "# generated\r\npackage_name=toolkit\r\n  Version= 8.5.2-beta.3 \r\n"
				 "Version=1.0.0\r\n"));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ("8.5.2-beta.3", str);
	EXPECT_ACL_OK(aclsysGetVersionNum(pkg, &num));
	EXPECT_EQ(80502000 - 200 + 3, num);
}

TEST_F(home, number_formula)
{
	static const struct {
		const char *ver;
		int32_t num;
	} cases[] = {
		{ "9.0.0", 90000000 },
		{ "9.0.0-rc.1", 89999901 },
		{ "9.0.0-rc1", 89999901 },
		{ "9.0.0rc1", 89999901 },
		{ "9.0.0.rc.1", 89999901 },
		{ "9.0.0-RC.2", 89999902 },
		{ "9.0.0-rc", 89999900 },
		{ "8.1.0-alpha.2", 80100000 - 300 + 2 },
		{ "8.1.0-alpha002", 80100000 - 300 + 2 },
		{ "8.1.2beta", 80102000 - 200 },
		{ "1.17.3", 10000000 + 1700000 + 3000 },
		{ "0.0.0", 0 },
		{ "0.0.1-rc.5", 1000 - 100 + 5 },
		{ "214.74.83", 2147483000 },
	};
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "runtime";
	char content[160];
	int32_t num;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(content, sizeof(content), "Version=%s\n", cases[i].ver);
		ASSERT_EQ(0, put_version(self->dir, "runtime", content));
		num = -1;
		EXPECT_ACL_OK(aclsysGetVersionNum(pkg, &num));
		if (num != cases[i].num)
			TH_LOG("\"%s\"", cases[i].ver);
		EXPECT_EQ(cases[i].num, num);
		EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
		EXPECT_STREQ(cases[i].ver, str);
	}
}

TEST_F(home, unparsable_number_is_internal_error)
{
	static const char *const bad[] = {
		"abc", "9", "9.0", "9.0.", "9..0", ".9.0.0", "9.0.x", "a.0.0", "9.0.0-gamma",
		"9.0.0-rc.x", "9.0.0-rc.", "9.0.0--rc1", "9.0.0-rc.1.2", "9.0.0-rc1x", "9.0.0 rc1",
		"-9.0.0", "+9.0.0", "215.0.0", "1234567890.0.0", "8.0.RC1",
	};
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "runtime";
	char content[160];
	int32_t num;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(content, sizeof(content), "Version=%s\n", bad[i]);
		ASSERT_EQ(0, put_version(self->dir, "runtime", content));
		num = 12345;
		if (aclsysGetVersionNum(pkg, &num) != ACL_ERROR_INTERNAL_ERROR)
			TH_LOG("\"%s\" -> %d", bad[i], num);
		EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclsysGetVersionNum(pkg, &num));
		EXPECT_EQ(12345, num);
		/* the string is still the string */
		EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
		EXPECT_STREQ(bad[i], str);
	}
}

TEST_F(home, dash_and_underscore_are_tried_both_ways)
{
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char a[] = "ge-compiler", b[] = "bisheng_compiler", c[] = "x-y_z", d[] = "ge_compiler";
	char e[] = "no-such_pkg";

	ASSERT_EQ(0, put_version(self->dir, "ge_compiler", "Version=1.2.3\n"));
	ASSERT_EQ(0, put_version(self->dir, "bisheng-compiler", "Version=4.5.6\n"));
	ASSERT_EQ(0, put_version(self->dir, "x_y_z", "Version=7.8.9\n"));
	EXPECT_ACL_OK(aclsysGetVersionStr(a, str));
	EXPECT_STREQ("1.2.3", str);
	EXPECT_ACL_OK(aclsysGetVersionStr(d, str));
	EXPECT_STREQ("1.2.3", str);
	EXPECT_ACL_OK(aclsysGetVersionStr(b, str));
	EXPECT_STREQ("4.5.6", str);
	/* a name with both: every '-' becomes '_' */
	EXPECT_ACL_OK(aclsysGetVersionStr(c, str));
	EXPECT_STREQ("7.8.9", str);
	/* the name given wins */
	ASSERT_EQ(0, put_version(self->dir, "ge-compiler", "Version=3.2.1\n"));
	EXPECT_ACL_OK(aclsysGetVersionStr(a, str));
	EXPECT_STREQ("3.2.1", str);
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(e, str));
	/* the caller's name is left as it was */
	EXPECT_STREQ("ge-compiler", a);
	EXPECT_STREQ("no-such_pkg", e);
}

TEST_F(home, missing_file_or_line_is_invalid_file)
{
	char str[ACL_PKG_VERSION_MAX_SIZE] = "untouched";
	char pkg[] = "runtime", other[] = "opp";
	const char *msg;
	int32_t num = 7;

	/* a package not installed (runtime is libacl's own: own_version_*) */
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionNum(other, &num));
	EXPECT_EQ(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(other, str));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "/share/info/opp/version.info"));
	/* a file without the line, or with an empty value */
	ASSERT_EQ(0, put_version(self->dir, "runtime", "version_dir=9.0.0\nVersion 9.0.0\n"));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(pkg, str));
	ASSERT_EQ(0, put_version(self->dir, "runtime", "Version=  \n"));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionNum(pkg, &num));
	ASSERT_EQ(0, put_version(self->dir, "runtime", ""));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(pkg, str));
	/* ASCEND_HOME_PATH naming nothing */
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", "/nonexistent/ascend", 1));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(other, str));
	EXPECT_STREQ("untouched", str);
	EXPECT_EQ(7, num);
	/* the acl layer's answer (acl.cpp): the last error is not set */
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
}

TEST_F(home, string_must_fit_the_buffer)
{
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "runtime";
	char content[300];
	int32_t num = 0;

	/* 127 characters fit */
	snprintf(content, sizeof(content), "Version=1.2.3-rc.%0118d\n", 4);
	ASSERT_EQ(0, put_version(self->dir, "runtime", content));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
	EXPECT_EQ(127U, strlen(str));
	/* its number has too many digits */
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclsysGetVersionNum(pkg, &num));
	snprintf(content, sizeof(content), "Version=1.2.3-rc.%0119d\n", 4);
	ASSERT_EQ(0, put_version(self->dir, "runtime", content));
	EXPECT_ACL(ACL_ERROR_INTERNAL_ERROR, aclsysGetVersionStr(pkg, str));
}

/* aclsysGetCANNVersion: the same files, CANN's package names and split */
TEST_F(home, cann_version_packages_and_parts)
{
	aclCANNPackageVersion v;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	/* nothing installed (CANN and RUNTIME are libacl's own: own_version_*) */
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v));
	/* the acl layer's answer: not the last error */
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_EQ(0, put_version(self->dir, "runtime", "Version=8.3.RC1\n"));
	memset(&v, 0x55, sizeof(v));
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v));
	EXPECT_STREQ("8.3.RC1", v.version);
	EXPECT_STREQ("8", v.majorVersion);
	EXPECT_STREQ("3", v.minorVersion);
	EXPECT_STREQ("RC1", v.releaseVersion);
	EXPECT_STREQ("0", v.patchVersion);
	EXPECT_EQ(0, v.reserved[0]);
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &v));
	EXPECT_STREQ("8.3.RC1", v.version);
	/* "bisheng-compiler" found as bisheng_compiler; after '-' the dots go */
	ASSERT_EQ(0, put_version(self->dir, "bisheng_compiler", "Version=9.0.0-beta.2\n"));
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_COMPILER, &v));
	EXPECT_STREQ("9.0.0.beta2", v.version);
	EXPECT_STREQ("9", v.majorVersion);
	EXPECT_STREQ("0", v.minorVersion);
	EXPECT_STREQ("0", v.releaseVersion);
	EXPECT_STREQ("beta2", v.patchVersion);
	/* more than four parts: the first four, the whole string */
	ASSERT_EQ(0, put_version(self->dir, "hccl", "Version=7.1.0.1.2\n"));
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v));
	EXPECT_STREQ("7.1.0.1.2", v.version);
	EXPECT_STREQ("1", v.patchVersion);
	ASSERT_EQ(0, put_version(self->dir, "ops-legacy", "Version=8.5\n"));
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_OPP, &v));
	EXPECT_STREQ("8.5", v.version);
	EXPECT_STREQ("0", v.releaseVersion);
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_OPP_KERNEL, &v));
	EXPECT_STREQ("5", v.minorVersion);
	/* fewer than two parts, an empty part: not a version */
	ASSERT_EQ(0, put_version(self->dir, "oam-tools", "Version=8\n"));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_TOOLKIT, &v));
	ASSERT_EQ(0, put_version(self->dir, "oam-tools", "Version=8..1\n"));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_TOOLKIT, &v));
	/* the acl layer's checks */
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion(ACL_PKG_NAME_CANN, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion((aclCANNPackageName)8, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion((aclCANNPackageName)-1, &v));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
#pragma GCC diagnostic pop
}

TEST(null_arguments)
{
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "runtime";
	int32_t num;

	/* no aclInit needed; acl-layer rejections leave the last error */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetVersionStr(NULL, str));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetVersionStr(pkg, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetVersionNum(NULL, &num));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetVersionNum(pkg, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
}

TEST(unset_home_reads_the_install_prefix)
{
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "no-such-package-here";
	const char *msg;
	char first[512];

	/* the prefix compiled in; an empty value counts as unset */
	ASSERT_EQ(0, unsetenv("ASCEND_HOME_PATH"));
	EXPECT_EQ(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(pkg, str));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	TH_LOG("%s", msg);
	EXPECT_NONNULL(strstr(msg, "/share/info/no_such_package_here/version.info"));
	EXPECT_NULL(strstr(msg, "//"));
	snprintf(first, sizeof(first), "%s", msg);
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", "", 1));
	EXPECT_EQ(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ(first, aclGetRecentErrMsg());
}

/*
 * "runtime" is libacl's own package: without $ASCEND_HOME_PATH's file it
 * is share/info/runtime/version.info beside the loaded library (or up to
 * 8 parents up), else the version libacl was built as.
 */

/* The directory of the libacl this program runs with. */
static int libacl_dir(char *dir, size_t n)
{
	Dl_info info;
	char *real, *slash;

	if (!dladdr((void *)aclsysGetVersionStr, &info) || !info.dli_fname)
		return -1;
	real = realpath(info.dli_fname, NULL);
	if (!real)
		return -1;
	slash = strrchr(real, '/');
	*slash = '\0';
	snprintf(dir, n, "%s", real);
	free(real);
	return 0;
}

/* What "runtime" answers with no ASCEND_HOME_PATH, last error untouched. */
static int own_version(char *str)
{
	char pkg[] = "runtime";

	if (unsetenv("ASCEND_HOME_PATH"))
		return -1;
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	if (aclsysGetVersionStr(pkg, str) != ACL_SUCCESS)
		return -1;
	return aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS ? 0 : -1;
}

TEST(own_version_without_home)
{
	char str[ACL_PKG_VERSION_MAX_SIZE], want[ACL_PKG_VERSION_MAX_SIZE] = "";
	char dir[PATH_MAX], path[PATH_MAX + 64], pkg[] = "runtime";
	aclCANNPackageVersion v;
	int32_t num = 0;
	FILE *f;

	ASSERT_EQ(0, libacl_dir(dir, sizeof(dir)));
	ASSERT_EQ(0, own_version(str));
	TH_LOG("libacl in %s answers runtime %s", dir, str);
	/* run from the build tree: build/share beside build/lib */
	snprintf(path, sizeof(path), "%s/../share/info/runtime/version.info", dir);
	f = fopen(path, "r");
	if (f) {
		EXPECT_EQ(1, fscanf(f, "Version=%127s", want));
		fclose(f);
		EXPECT_STREQ(want, str);
	}
	EXPECT_ACL_OK(aclsysGetVersionNum(pkg, &num));
	EXPECT_LT(0, num);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v));
	EXPECT_STREQ(str, v.version);
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &v));
	EXPECT_STREQ(str, v.version);
#pragma GCC diagnostic pop
	/* an empty value counts as unset */
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", "", 1));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, want));
	EXPECT_STREQ(str, want);
}

TEST_F(home, own_version_when_home_lacks_the_file)
{
	char own[ACL_PKG_VERSION_MAX_SIZE], str[ACL_PKG_VERSION_MAX_SIZE];
	char pkg[] = "runtime";
	aclCANNPackageVersion v;

	ASSERT_EQ(0, own_version(own));
	/* a home with other packages but no runtime */
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", self->dir, 1));
	ASSERT_EQ(0, put_version(self->dir, "hccl", "Version=9.1.0\n"));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ(own, str);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v));
#pragma GCC diagnostic pop
	EXPECT_STREQ(own, v.version);
	/* a home that is not there */
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", "/nonexistent/ascend", 1));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ(own, str);
	/* a home that is a file */
	ASSERT_EQ(0, write_file(self->dir, "plain", "x\n"));
	snprintf(str, sizeof(str), "%s/plain", self->dir);
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", str, 1));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ(own, str);
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
}

TEST_F(home, own_version_home_file_wins)
{
	char own[ACL_PKG_VERSION_MAX_SIZE], str[ACL_PKG_VERSION_MAX_SIZE], path[128];
	char pkg[] = "runtime";
	aclCANNPackageVersion v;
	int32_t num = 0;

	ASSERT_EQ(0, own_version(own));
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", self->dir, 1));
	ASSERT_EQ(0, put_version(self->dir, "runtime", "Version=9.1.0\n"));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ("9.1.0", str);
	EXPECT_ACL_OK(aclsysGetVersionNum(pkg, &num));
	EXPECT_EQ(90100000, num);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v));
#pragma GCC diagnostic pop
	EXPECT_STREQ("9.1.0", v.version);
	/* a present file that says nothing is an answer, not a miss */
	ASSERT_EQ(0, put_version(self->dir, "runtime", "version_dir=9.1.0\n"));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(pkg, str));
	/* gone again: libacl's own */
	snprintf(path, sizeof(path), "%s/share/info/runtime/version.info", self->dir);
	ASSERT_EQ(0, unlink(path));
	EXPECT_ACL_OK(aclsysGetVersionStr(pkg, str));
	EXPECT_STREQ(own, str);
}

/* Copy @src to @dst. */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	FILE *in, *out;
	size_t n;
	int ret = 0;

	in = fopen(src, "r");
	if (!in)
		return -1;
	out = fopen(dst, "w");
	if (!out) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -1;
	fclose(in);
	return fclose(out) || ret ? -1 : 0;
}

/* aclsysGetVersionStr("runtime") of a copy of libacl at @root/@rel/libascendcl.so.1. */
static int copy_answers(const char *root, const char *rel, char *str)
{
	char dir[PATH_MAX], src[PATH_MAX + 32], dst[2 * PATH_MAX];
	aclError (*get)(char *, char *);
	char pkg[] = "runtime", file[PATH_MAX];
	void *h;

	if (libacl_dir(dir, sizeof(dir)))
		return -1;
	snprintf(src, sizeof(src), "%s/libascendcl.so.1", dir);
	snprintf(file, sizeof(file), "%s/libascendcl.so.1", rel);
	if (write_file(root, file, ""))	/* makes the directories */
		return -1;
	snprintf(dst, sizeof(dst), "%s/%s", root, file);
	if (copy_file(src, dst))
		return -1;
	/* a second copy (another inode), not the loaded one */
	h = dlopen(dst, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	get = (aclError (*)(char *, char *))dlsym(h, "aclsysGetVersionStr");
	if (!get || unsetenv("ASCEND_HOME_PATH"))
		return -1;
	return get(pkg, str) == ACL_SUCCESS ? 0 : -1;
}

TEST_F(home, own_version_found_up_to_8_parents)
{
	char own[ACL_PKG_VERSION_MAX_SIZE], str[ACL_PKG_VERSION_MAX_SIZE];

	ASSERT_EQ(0, own_version(own));
	/* <root>/share next to <root>/lib, as make install and the build lay it */
	ASSERT_EQ(0, write_file(self->dir, "a/share/info/runtime/version.info", "Version=7.1.0\n"));
	ASSERT_EQ(0, copy_answers(self->dir, "a/lib", str));
	EXPECT_STREQ("7.1.0", str);
	/* the library's own directory */
	ASSERT_EQ(0, write_file(self->dir, "b/share/info/runtime/version.info", "Version=7.2.0\n"));
	ASSERT_EQ(0, copy_answers(self->dir, "b", str));
	EXPECT_STREQ("7.2.0", str);
	/* the 8th parent */
	ASSERT_EQ(0, write_file(self->dir, "c/share/info/runtime/version.info", "Version=7.3.0\n"));
	ASSERT_EQ(0, copy_answers(self->dir, "c/1/2/3/4/5/6/7/8", str));
	EXPECT_STREQ("7.3.0", str);
}

TEST_F(home, own_version_beyond_8_parents_is_built_in)
{
	char own[ACL_PKG_VERSION_MAX_SIZE], str[ACL_PKG_VERSION_MAX_SIZE];

	ASSERT_EQ(0, own_version(own));
	ASSERT_EQ(0, write_file(self->dir, "d/share/info/runtime/version.info", "Version=7.4.0\n"));
	ASSERT_EQ(0, copy_answers(self->dir, "d/1/2/3/4/5/6/7/8/9", str));
	/* the version libacl was built as, which its build tree's file holds */
	EXPECT_STREQ(own, str);
}

/*
 * /etc/ascend_install.info: only where nothing else owns it - in the
 * guest, as root, when there is none (removed again at the end).
 */
FIXTURE(install_info) {
	char dir[64];
	bool wrote;
};

#define INSTALL_INFO "/etc/ascend_install.info"

FIXTURE_SETUP(install_info)
{
	char content[256];

	snprintf(self->dir, sizeof(self->dir), "/tmp/acl-drv-XXXXXX");
	ASSERT_NONNULL(mkdtemp(self->dir));
	if (access(INSTALL_INFO, F_OK) == 0)
		SKIP(return, INSTALL_INFO " exists: not ours to change");
	if (!getenv("NPU_VM") || geteuid() != 0)
		return;	/* the tests check that there is none */
	snprintf(content, sizeof(content),
		 "UserName=root\nDriver_Install_Path_Param= %s/drv \nFirmware_Install_Path_Param=%s/fw\n",
		 self->dir, self->dir);
	ASSERT_EQ(0, write_file("/etc", "ascend_install.info", content));
	self->wrote = true;
}

FIXTURE_TEARDOWN(install_info)
{
	char cmd[128];

	if (self->wrote)
		unlink(INSTALL_INFO);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

TEST_F(install_info, driver_and_firmware)
{
	char str[ACL_PKG_VERSION_MAX_SIZE];
	char drv[] = "driver", fw[] = "firmware";
	const char *msg;
	int32_t num = 0;

	if (!self->wrote) {
		/* no install info at all */
		EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(drv, str));
		EXPECT_EQ(ACL_ERROR_INVALID_FILE, aclsysGetVersionNum(fw, &num));
		msg = aclGetRecentErrMsg();
		ASSERT_NONNULL(msg);
		EXPECT_NONNULL(strstr(msg, INSTALL_INFO));
		SKIP(return, "only the guest writes " INSTALL_INFO);
	}
	/* ASCEND_HOME_PATH plays no part */
	ASSERT_EQ(0, setenv("ASCEND_HOME_PATH", "/nonexistent", 1));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(drv, str));
	ASSERT_EQ(0, write_file(self->dir, "drv/driver/version.info", "Version=24.1.0\n"));
	ASSERT_EQ(0, write_file(self->dir, "fw/firmware/version.info", "Version=7.5.0-rc.3\n"));
	EXPECT_ACL_OK(aclsysGetVersionStr(drv, str));
	EXPECT_STREQ("24.1.0", str);
	EXPECT_ACL_OK(aclsysGetVersionNum(drv, &num));
	EXPECT_EQ(240100000, num);
	{
		aclCANNPackageVersion v;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		EXPECT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_DRIVER, &v));
#pragma GCC diagnostic pop
		EXPECT_STREQ("24.1.0", v.version);
		EXPECT_STREQ("24", v.majorVersion);
		EXPECT_STREQ("1", v.minorVersion);
		EXPECT_STREQ("0", v.releaseVersion);
		EXPECT_STREQ("0", v.patchVersion);
	}
	EXPECT_ACL_OK(aclsysGetVersionStr(fw, str));
	EXPECT_STREQ("7.5.0-rc.3", str);
	EXPECT_ACL_OK(aclsysGetVersionNum(fw, &num));
	EXPECT_EQ(70500000 - 100 + 3, num);
	/* a key missing from the install info */
	ASSERT_EQ(0, write_file("/etc", "ascend_install.info", "UserName=root\n"));
	EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(drv, str));
}

TEST_HARNESS_MAIN
