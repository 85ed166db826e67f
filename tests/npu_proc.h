/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading /proc: numbers out of text files, a process's own npu files and
 * their fdinfo. No harness: the tests and the benchmarks both use it.
 */
#ifndef NPU_PROC_H
#define NPU_PROC_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The number after "@key@sep" at the start of a line of @path (relative to
 * @dirfd, or AT_FDCWD), or at the start of the first line if @key is NULL;
 * -1 if there is none. For /proc/vmstat, /proc/PID/status, fdinfo, cgroup
 * files.
 */
static inline long long npu_file_value_at(int dirfd, const char *path,
					  const char *key, char sep)
{
	char line[128];
	long long val = -1;
	size_t n = key ? strlen(key) : 0;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (val < 0 && fgets(line, sizeof(line), f))
		if (!key)
			val = atoll(line);
		else if (!strncmp(line, key, n) && line[n] == sep)
			val = atoll(line + n + 1);
	fclose(f);
	return val;
}

/* A file of this process open on @dev other than @skip (e.g. libacl's), or -1. */
static inline int npu_proc_dev_fd(const char *dev, int skip)
{
	char path[300], link[64];
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int fd = -1;

	if (!d)
		return -1;
	while (fd < 0 && (de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (!strcmp(link, dev) && atoi(de->d_name) != skip)
			fd = atoi(de->d_name);
	}
	closedir(d);
	return fd;
}

/* The npu-submits count of this process's npu file @fd, or -1. */
static inline long long npu_proc_submits(int fd)
{
	char path[64];

	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return npu_file_value_at(AT_FDCWD, path, "npu-submits", ':');
}

/* The value of @key in the fdinfo of this process's (libacl's) file on @dev, or -1. */
static inline long long npu_proc_fdinfo(const char *dev, const char *key)
{
	char path[64];
	int fd = npu_proc_dev_fd(dev, -1);

	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return npu_file_value_at(AT_FDCWD, path, key, ':');
}

#endif /* NPU_PROC_H */
