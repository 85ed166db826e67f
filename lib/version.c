// SPDX-License-Identifier: MIT
/*
 * aclsysGetVersionStr/aclsysGetVersionNum: the Version= line of a
 * package's version.info, as CANN lays them out.
 *
 *   $ASCEND_HOME_PATH/share/info/<pkgName>/version.info  every package but:
 *   <Driver_Install_Path_Param>/driver/version.info      "driver"
 *   <Firmware_Install_Path_Param>/firmware/version.info  "firmware"
 *
 * the two install paths being keys of /etc/ascend_install.info. With
 * ASCEND_HOME_PATH unset or empty, or no file there, "runtime" is libacl's
 * own version: share/info/runtime/version.info beside the loaded library
 * (build/share next to build/lib, PREFIX/share next to LIBDIR) or in up
 * to 8 parents, as CANN finds its own data, else the version it was built
 * as; any other package is read from libacl's DATADIR (PREFIX/share).
 * A name with '-' is tried again with '_' for each '-', one with '_' with
 * '-'. Neither call needs aclInit.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl_rt.h>

#include "error.h"

#ifndef ACL_DATADIR
#define ACL_DATADIR "/usr/local/share"
#endif
#ifndef ACL_LIB_VERSION
#error "ACL_LIB_VERSION: the library's version, from lib/lib.mk"
#endif

#define ACL_INSTALL_INFO	"/etc/ascend_install.info"

/*
 * The value of the first line "KEY..." of a file (leading blanks skipped),
 * trimmed: 0, -ENOMSG (no such line), -ENODATA (empty) or -errno.
 */
static int acl_file_value(const char *path, const char *key, char **value)
{
	size_t cap = 0, klen = strlen(key);
	char *line = NULL, *v, *end;
	int ret = -ENOMSG;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) >= 0) {
		v = line + strspn(line, " \t");
		if (strncmp(v, key, klen))
			continue;
		v += klen;
		v += strspn(v, " \t");
		end = v + strlen(v);
		while (end > v && isspace((unsigned char)end[-1]))
			end--;
		*end = '\0';
		ret = *v ? 0 : -ENODATA;
		if (!ret) {
			*value = strdup(v);
			if (!*value)
				ret = -ENOMEM;
		}
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

/* ACLI_EFILE with the reason acl_file_value() failed, or -ENOMEM. */
static int acl_file_err(int err, const char *path, const char *key)
{
	if (err == -ENOMEM)
		return err;
	if (err == -ENOMSG)
		return acl_errf(ACLI_EFILE, "%s has no %s line", path, key);
	if (err == -ENODATA)
		return acl_errf(ACLI_EFILE, "%s has an empty %s", path, key);
	return acl_errf(ACLI_EFILE, "%s: %s", path, strerror(-err));
}

/*
 * The first <dir>/share/info/runtime/version.info in the directory of the
 * loaded libacl and up to 8 parents (CANN's CannInfoUtils finds its own
 * data files so): a build tree has it in build/share, an install in
 * PREFIX/share. -ENOENT when there is none.
 */
static int acl_version_own(char **version)
{
	char *lib, *slash, path[PATH_MAX + 64];
	Dl_info info;
	int i, ret = -ENOENT;

	if (!dladdr((void *)acl_version_own, &info) || !info.dli_fname)
		return -ENOENT;
	lib = realpath(info.dli_fname, NULL);
	if (!lib)
		return errno == ENOMEM ? -ENOMEM : -ENOENT;
	for (i = 0; i <= 8 && ret == -ENOENT; i++) {
		slash = strrchr(lib, '/');
		if (!slash)
			break;
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/share/info/runtime/version.info", lib);
		ret = acl_file_value(path, "Version=", version);
		if (ret && ret != -ENOENT)
			ret = acl_file_err(ret, path, "Version=");
	}
	free(lib);
	return ret;
}

/* A file that is not there, as opposed to one that cannot be read. */
static bool acl_version_missing(int err)
{
	return err == -ENOENT || err == -ENOTDIR;
}

/*
 * The version string of one package name; ACLI_EFILE when there is none.
 * $ASCEND_HOME_PATH's file wins; without it (unset, or no file there)
 * "runtime" is libacl's own (acl_version_own(), else the version it was
 * built as) and any other package is read from DATADIR.
 */
static int acl_version_of(const char *pkg, char **version)
{
	const char *home = getenv("ASCEND_HOME_PATH");
	char *path = NULL, *dir = NULL;
	bool driver = !strcmp(pkg, "driver"), firmware = !strcmp(pkg, "firmware");
	int ret;

	if (driver || firmware) {
		const char *key = driver ? "Driver_Install_Path_Param=" : "Firmware_Install_Path_Param=";

		ret = acl_file_value(ACL_INSTALL_INFO, key, &dir);
		if (ret)
			return acl_file_err(ret, ACL_INSTALL_INFO, key);
		if (asprintf(&path, "%s/%s/version.info", dir, pkg) < 0)
			path = NULL;
		free(dir);
		if (!path)
			return -ENOMEM;
		ret = acl_file_value(path, "Version=", version);
		if (ret)
			ret = acl_file_err(ret, path, "Version=");
		free(path);
		return ret;
	}
	if (home && home[0]) {
		if (asprintf(&path, "%s/share/info/%s/version.info", home, pkg) < 0)
			return -ENOMEM;
		ret = acl_file_value(path, "Version=", version);
		if (!acl_version_missing(ret)) {
			if (ret)
				ret = acl_file_err(ret, path, "Version=");
			free(path);
			return ret;
		}
	}
	if (!strcmp(pkg, "runtime")) {
		free(path);
		ret = acl_version_own(version);
		if (ret != -ENOENT)
			return ret;
		/* moved away from its data file: the library still knows itself */
		*version = strdup(ACL_LIB_VERSION);
		return *version ? 0 : -ENOMEM;
	}
	dir = path;
	if (asprintf(&path, "%s/info/%s/version.info", ACL_DATADIR, pkg) < 0) {
		free(dir);
		return -ENOMEM;
	}
	ret = acl_file_value(path, "Version=", version);
	if (acl_version_missing(ret) && dir)
		ret = acl_errf(ACLI_EFILE, "neither %s nor %s exists", dir, path);
	else if (ret)
		ret = acl_file_err(ret, path, "Version=");
	free(dir);
	free(path);
	return ret;
}

/* pkgName as given, else with '-' and '_' swapped as CANN does. */
static int acl_version_read(const char *pkg, char **version)
{
	const char from = strchr(pkg, '-') ? '-' : '_', to = from == '-' ? '_' : '-';
	char *alt, *c;
	int ret;

	ret = acl_version_of(pkg, version);
	if (ret != ACLI_EFILE || !strchr(pkg, from))
		return ret;
	alt = strdup(pkg);
	if (!alt)
		return -ENOMEM;
	for (c = alt; *c; c++)
		if (*c == from)
			*c = to;
	ret = acl_version_of(alt, version);
	free(alt);
	return ret;
}

/* Digits at *s, at most 9 of them (so no overflow); advances *s. */
static int acl_parse_digits(const char **s, long *v)
{
	const char *p = *s;

	*v = 0;
	while (isdigit((unsigned char)*p) && p - *s < 9)
		*v = *v * 10 + (*p++ - '0');
	if (p == *s || isdigit((unsigned char)*p))
		return -EINVAL;
	*s = p;
	return 0;
}

/*
 * CANN's version number: major * 10^7 + minor * 10^5 + patch * 10^3 for
 * "major.minor.patch"; a pre-release suffix of at most one separator ('-'
 * or '.'), a keyword and an optional number ("-rc.1", "beta2", ".alpha")
 * subtracts 300 (alpha), 200 (beta) or 100 (rc) and adds its number.
 */
static int acl_version_number(const char *ver, int32_t *num)
{
	static const struct {
		const char *word;
		int weight;
	} pre[] = { { "alpha", 300 }, { "beta", 200 }, { "rc", 100 } };
	const char *s = ver;
	long major, minor, patch, n = 0;
	long long val;
	size_t i, len;

	if (acl_parse_digits(&s, &major) || *s++ != '.' ||
	    acl_parse_digits(&s, &minor) || *s++ != '.' ||
	    acl_parse_digits(&s, &patch))
		goto bad;
	val = major * 10000000LL + minor * 100000LL + patch * 1000LL;
	if (*s) {
		if (*s == '-' || *s == '.')
			s++;
		for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
			len = strlen(pre[i].word);
			if (!strncasecmp(s, pre[i].word, len))
				break;
		}
		if (i == sizeof(pre) / sizeof(pre[0]))
			goto bad;
		s += len;
		if (*s == '-' || *s == '.')
			s++;
		if (*s || s[-1] == '-' || s[-1] == '.') {
			if (acl_parse_digits(&s, &n) || *s)
				goto bad;
		}
		val += n - pre[i].weight;
	}
	if (val < 0 || val > INT32_MAX)
		goto bad;
	*num = (int32_t)val;
	return 0;
bad:
	return acl_errf(ACLI_EVERSION, "version \"%s\" is not major.minor.patch[-{alpha|beta|rc}[.N]]",
			ver);
}

static int acl_version_args(const char *pkgName, const void *out, const char *outName)
{
	if (!pkgName)
		return acl_errf(-EINVAL, "pkgName must not be NULL");
	if (!out)
		return acl_errf(-EINVAL, "%s must not be NULL", outName);
	return 0;
}

ACL_EXPORT aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
	char *ver = NULL;
	int ret;

	ret = acl_version_args(pkgName, versionStr, "versionStr");
	if (!ret)
		ret = acl_version_read(pkgName, &ver);
	if (!ret && strlen(ver) >= ACL_PKG_VERSION_MAX_SIZE)
		ret = acl_errf(ACLI_EVERSION, "version \"%.32s...\" does not fit ACL_PKG_VERSION_MAX_SIZE (%d)",
			       ver, ACL_PKG_VERSION_MAX_SIZE);
	if (!ret)
		strcpy(versionStr, ver);
	free(ver);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
	char *ver = NULL;
	int ret;

	ret = acl_version_args(pkgName, versionNum, "versionNum");
	if (!ret)
		ret = acl_version_read(pkgName, &ver);
	if (!ret)
		ret = acl_version_number(ver, versionNum);
	free(ver);
	return acl_ret(__func__, ret);
}

/* aclCANNPackageName -> the package directory CANN reads (src/acl/aclrt_impl/acl.cpp) */
static const char *const acl_cann_pkgs[] = {
	[ACL_PKG_NAME_CANN] = "runtime",
	[ACL_PKG_NAME_RUNTIME] = "runtime",
	[ACL_PKG_NAME_COMPILER] = "bisheng-compiler",
	[ACL_PKG_NAME_HCCL] = "hccl",
	[ACL_PKG_NAME_TOOLKIT] = "oam-tools",
	[ACL_PKG_NAME_OPP] = "ops-legacy",
	[ACL_PKG_NAME_OPP_KERNEL] = "ops-legacy",
	[ACL_PKG_NAME_DRIVER] = "driver",
};

/* Copy at most @cap - 1 bytes of [@s, +@n) and a NUL; false for nothing to copy. */
static bool acl_cann_part(char *dst, size_t cap, const char *s, size_t n)
{
	if (!n)
		return false;
	if (n > cap - 1)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

/*
 * CANN's FillinPackageVersion: "A-B.C" is read as "A.BC" (the part after
 * the first '-' loses its dots), then split at '.': at least two parts,
 * the first four (missing ones "0") must not be empty.
 */
static int acl_cann_fill(const char *pkg, const char *ver, aclCANNPackageVersion *out)
{
	char alt[ACL_PKG_VERSION_MAX_SIZE * 2];
	const char *dash = strchr(ver, '-'), *p, *dot;
	size_t i, n = 0, parts = 0;
	char *dst[4] = { out->majorVersion, out->minorVersion, out->releaseVersion, out->patchVersion };

	for (p = ver; *p && n < sizeof(alt) - 2; p++) {
		if (dash && p == dash)
			alt[n++] = '.';
		else if (!(dash && p > dash && *p == '.'))
			alt[n++] = *p;
	}
	alt[n] = '\0';
	memset(out, 0, sizeof(*out));
	for (p = alt; p; p = dot ? dot + 1 : NULL)
		dot = strchr(p, '.'), parts++;
	if (parts < 2)
		goto bad;
	for (i = 0, p = alt; i < 4; i++) {
		if (!p) {
			strcpy(dst[i], "0");
			continue;
		}
		dot = strchr(p, '.');
		if (!acl_cann_part(dst[i], ACL_PKG_VERSION_PARTS_MAX_SIZE, p, dot ? (size_t)(dot - p) : strlen(p)))
			goto bad;
		p = dot ? dot + 1 : NULL;
	}
	acl_cann_part(out->version, ACL_PKG_VERSION_MAX_SIZE, alt, n);
	return 0;
bad:
	return acl_errf(ACLI_EFILE, "version \"%.64s\" of %s is not major.minor[.release[.patch]]", ver, pkg);
}

ACL_EXPORT aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
	char *ver = NULL;
	int ret = 0;

	if (!version)
		ret = acl_errf(-EINVAL, "version must not be NULL");
	else if ((unsigned int)name >= sizeof(acl_cann_pkgs) / sizeof(acl_cann_pkgs[0]))
		ret = acl_errf(-EINVAL, "name %d is not an aclCANNPackageName", (int)name);
	if (!ret)
		ret = acl_version_read(acl_cann_pkgs[name], &ver);
	if (!ret)
		ret = acl_cann_fill(acl_cann_pkgs[name], ver, version);
	free(ver);
	return acl_ret(__func__, ret);
}

/* The acl_rt.h version libacl implements (CANN: acl_rt_impl_base.cpp aclrtGetVersionImpl). */
ACL_EXPORT aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
	int ret = 0;

	if (!majorVersion)
		ret = acl_errf(-EINVAL, "majorVersion must not be NULL");
	else if (!minorVersion)
		ret = acl_errf(-EINVAL, "minorVersion must not be NULL");
	else if (!patchVersion)
		ret = acl_errf(-EINVAL, "patchVersion must not be NULL");
	if (!ret) {
		*majorVersion = ACL_MAJOR_VERSION;
		*minorVersion = ACL_MINOR_VERSION;
		*patchVersion = ACL_PATCH_VERSION;
	}
	return acl_ret(__func__, ret);
}
