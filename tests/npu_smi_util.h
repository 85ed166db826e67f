/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/npu_smi_util.h - running the guest's /usr/bin/npu-smi from a test
 * (as root or as another user) and reading its `key : value` pages.
 */
#ifndef NPU_TEST_SMI_UTIL_H
#define NPU_TEST_SMI_UTIL_H

#include <ctype.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NPU_SMI	"/usr/bin/npu-smi"

/*
 * Run npu-smi with @argv (NULL-terminated, argv[0] included), as @uid
 * when not 0 (with the npu group, @gid); its stdout into @out (up to @n
 * bytes, NUL-terminated). Returns the exit status, or -1.
 */
static inline int run_smi_as(char *const argv[], uid_t uid, gid_t gid, char *out, size_t n)
{
	int pfd[2], status;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		if (uid && (setgroups(gid ? 1 : 0, &gid) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(120);
		execv(NPU_SMI, argv);
		_exit(127);
	}
	close(pfd[1]);
	while (out && len + 1 < n && (r = read(pfd[0], out + len, n - 1 - len)) > 0)
		len += r;
	if (out)
		out[len] = 0;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static inline int run_smi(char *const argv[], uid_t uid, char *out, size_t n)
{
	return run_smi_as(argv, uid, 0, out, n);
}

/*
 * The value of the first "\t<key> ... : <value>" line of a page (the
 * vendor's "\t%-30s : %s" layout) into @val; 0, or -1 if there is none.
 */
static inline int smi_field(const char *page, const char *key, char *val, size_t n)
{
	size_t klen = strlen(key);
	const char *p = page;

	while (p && *p) {
		const char *line = p, *end = strchr(p, '\n'), *q;

		p = end ? end + 1 : NULL;
		while (*line == '\t' || *line == ' ')
			line++;
		if (strncmp(line, key, klen))
			continue;
		for (q = line + klen; *q == ' '; q++)
			;
		if (*q != ':')
			continue;
		for (q++; *q == ' '; q++)
			;
		snprintf(val, n, "%.*s", (int)((end ? end : q + strlen(q)) - q), q);
		return 0;
	}
	return -1;
}

/* @s as a percentage: a decimal 0..100 and nothing else, or -1. */
static inline int smi_percent(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtol(s, &end, 10);
	return *end || v > 100 ? -1 : (int)v;
}

#define NEED_SMI() do {								\
	if (access(NPU_SMI, X_OK))						\
		SKIP(return, NPU_SMI " is not in the image (make tools)");	\
} while (0)

#endif /* NPU_TEST_SMI_UTIL_H */
