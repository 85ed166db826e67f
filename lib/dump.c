// SPDX-License-Identifier: MIT
/*
 * Operator dump configuration: CANN's state machine
 * (src/acl/aclrt_impl/toolchain/dump.cpp) over a chip that dumps nothing.
 *
 * aclmdlInitDump starts a dump session once after aclInit;
 * aclmdlSetDump checks its configuration file as CANN reads it and
 * records it; aclmdlFinalizeDump ends the session. As in CANN the session
 * is process-wide and outlives aclFinalize. What SetDump checks, in order
 * (lib/README.md, "Dump"):
 *   1. the path resolves (realpath) to a regular file of at most 10 MiB
 *      that can be read: else ACL_ERROR_INVALID_FILE (100003);
 *   2. an empty file: accepted (CANN: nothing to configure);
 *   3. '{' and '[' nest at most 10 deep each, counted as CANN counts them
 *      (every one up to the first NUL byte, inside strings too): else
 *      ACL_ERROR_PARSE_FILE (100006);
 *   4. the file is one JSON object: '{' first (after blanks), brackets
 *      and braces matched outside strings, strings closed, nothing but
 *      blanks after the closing '}': else ACL_ERROR_INVALID_DUMP_CONFIG
 *      (100009, CANN's answer when its dump component rejects the
 *      configuration). Keys and values are not interpreted.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <acl/acl.h>

#include "device.h"
#include "error.h"

#define ACL_DUMP_FILE_MAX	(10 << 20)	/* CANN's MAX_CONFIG_FILE_BYTE */
#define ACL_DUMP_DEPTH_MAX	10		/* MAX_CONFIG_OBJ_DEPTH, _ARRAY_DEPTH */

static pthread_mutex_t acl_dump_lock = PTHREAD_MUTEX_INITIALIZER;
static bool acl_dump_on;		/* between InitDump and FinalizeDump */
static char *acl_dump_cfg;		/* the last file SetDump accepted (resolved) */

/* Step 1: the whole file at @path (resolved into @real), NUL-terminated. */
static int acl_dump_read(const char *path, char *real, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd, ret = 0;

	if (!realpath(path, real))
		return acl_errf(ACLI_EFILE, "%s: %s", path, strerror(errno));
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return acl_errf(ACLI_EFILE, "%s: %s", real, strerror(errno));
	if (fstat(fd, &st)) {
		ret = acl_errf(ACLI_EFILE, "%s: %s", real, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ret = acl_errf(ACLI_EFILE, "%s is not a regular file", real);
	} else if (st.st_size > ACL_DUMP_FILE_MAX) {
		ret = acl_errf(ACLI_EFILE, "%s has %lld bytes, more than %d", real, (long long)st.st_size,
			       ACL_DUMP_FILE_MAX);
	} else {
		*buf = malloc((size_t)st.st_size + 1);
		if (!*buf)
			ret = -ENOMEM;
	}
	while (!ret && got < (size_t)st.st_size) {
		n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = acl_errf(ACLI_EFILE, "%s: %s", real, n ? strerror(errno) : "shorter than its size");
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (ret) {
		free(*buf);
		*buf = NULL;
		return ret;
	}
	(*buf)[got] = '\0';
	*len = got;
	return 0;
}

/* Step 3: CANN's depth count (json_parser.cpp CountDepth). */
static int acl_dump_depth(const char *buf, const char *path)
{
	size_t obj = 0, arr = 0, max_obj = 0, max_arr = 0;
	const char *p;

	for (p = buf; *p; p++) {
		if (*p == '{' && ++obj > max_obj)
			max_obj = obj;
		else if (*p == '}' && obj)
			obj--;
		else if (*p == '[' && ++arr > max_arr)
			max_arr = arr;
		else if (*p == ']' && arr)
			arr--;
	}
	if (max_obj > ACL_DUMP_DEPTH_MAX || max_arr > ACL_DUMP_DEPTH_MAX)
		return acl_errf(ACLI_EPARSEFILE, "%s nests objects %zu and arrays %zu deep, more than %d",
				path, max_obj, max_arr, ACL_DUMP_DEPTH_MAX);
	return 0;
}

static bool acl_dump_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Step 4: one JSON object, as far as brackets, braces and strings go. */
static int acl_dump_object(const char *buf, size_t len, const char *path)
{
	char stack[ACL_DUMP_DEPTH_MAX * 2 + 1];
	size_t i = 0, depth = 0;
	bool in_str = false;

	while (i < len && acl_dump_blank(buf[i]))
		i++;
	if (i == len || buf[i] != '{')
		return acl_errf(ACLI_EDUMPCFG, "%s is not a JSON object (it must start with '{')", path);
	for (; i < len; i++) {
		char c = buf[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			else if ((unsigned char)c < 0x20)
				break;
			continue;
		}
		if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[') {
			if (depth == sizeof(stack))
				break;
			stack[depth++] = c == '{' ? '}' : ']';
		} else if (c == '}' || c == ']') {
			if (!depth || stack[depth - 1] != c)
				break;
			if (!--depth) {
				i++;
				break;
			}
		}
	}
	while (i < len && acl_dump_blank(buf[i]))
		i++;
	if (depth || in_str || i != len)
		return acl_errf(ACLI_EDUMPCFG, "%s is not one JSON object (unmatched bracket or quote, or text after it, at byte %zu)",
				path, i);
	return 0;
}

/* aclInit done, and the session in the state @on (under acl_dump_lock). */
static int acl_dump_state(bool on, const char *api)
{
	int ret = acl_check_init();

	if (ret)
		return acl_errf(ret, "aclInit must be called before %s", api);
	if (on && !acl_dump_on)
		return acl_errf(ACLI_EDUMPNOTRUN, "aclmdlInitDump must be called before %s", api);
	return 0;
}

ACL_EXPORT aclError aclmdlInitDump(void)
{
	int ret;

	pthread_mutex_lock(&acl_dump_lock);
	ret = acl_dump_state(false, __func__);
	if (!ret && acl_dump_on)
		ret = acl_errf(ACLI_EREPEAT_INIT, "aclmdlInitDump was already called (aclmdlFinalizeDump ends it)");
	if (!ret)
		acl_dump_on = true;
	pthread_mutex_unlock(&acl_dump_lock);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlSetDump(const char *dumpCfgPath)
{
	char real[PATH_MAX], *buf = NULL, *copy;
	size_t len = 0;
	int ret;

	pthread_mutex_lock(&acl_dump_lock);
	ret = acl_dump_state(true, __func__);
	if (!ret && !dumpCfgPath)
		ret = acl_errf(-EINVAL, "dumpCfgPath must not be NULL");
	if (!ret)
		ret = acl_dump_read(dumpCfgPath, real, &buf, &len);
	if (!ret && len)
		ret = acl_dump_depth(buf, real);
	if (!ret && len)
		ret = acl_dump_object(buf, len, real);
	if (!ret) {
		copy = strdup(real);
		if (!copy) {
			ret = -ENOMEM;
		} else {
			free(acl_dump_cfg);
			acl_dump_cfg = copy;
		}
	}
	pthread_mutex_unlock(&acl_dump_lock);
	free(buf);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlFinalizeDump(void)
{
	int ret;

	pthread_mutex_lock(&acl_dump_lock);
	ret = acl_dump_state(true, __func__);
	if (!ret) {
		acl_dump_on = false;
		free(acl_dump_cfg);
		acl_dump_cfg = NULL;
	}
	pthread_mutex_unlock(&acl_dump_lock);
	return acl_ret(__func__, ret);
}
