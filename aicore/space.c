// SPDX-License-Identifier: MIT
/*
 * npu-aicore's address space: the ranges its own mappings occupy, read
 * from /proc/self/maps without making a mapping, and the aperture mapped
 * over every other address of the device VA window (lib/aicore_proto.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aicore.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* /proc/self/maps, read into static memory: the handshake maps nothing */
static char aicore_maps_buf[256 << 10];

static uint64_t aicore_hex(const char **p)
{
	uint64_t v = 0;

	for (;; (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (uint64_t)(c - 'a' + 10);
		else
			return v;
	}
}

/* Add [start, end) to the sorted list @r of @n, merging what touches it. */
static int aicore_range_add(struct acl_aicore_range *r, unsigned int *n, uint64_t start, uint64_t end)
{
	unsigned int i = 0, j;

	if (start >= end)
		return 0;
	while (i < *n && r[i].end < start)
		i++;
	if (i < *n && r[i].start <= end) {
		/* overlaps or touches r[i]: grow it, then swallow the ones it reaches */
		if (start < r[i].start)
			r[i].start = start;
		if (end > r[i].end)
			r[i].end = end;
		for (j = i + 1; j < *n && r[j].start <= r[i].end; j++)
			if (r[j].end > r[i].end)
				r[i].end = r[j].end;
		memmove(&r[i + 1], &r[j], (*n - j) * sizeof(*r));
		*n -= j - (i + 1);
		return 0;
	}
	if (*n == ACL_AICORE_RANGES_MAX)
		return -E2BIG;
	memmove(&r[i + 1], &r[i], (*n - i) * sizeof(*r));
	r[i].start = start;
	r[i].end = end;
	(*n)++;
	return 0;
}

int aicore_own_ranges(struct acl_aicore_range *r, unsigned int *n)
{
	size_t len = 0;
	const char *p;
	ssize_t got;
	int fd, ret = 0;

	*n = 0;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		got = read(fd, aicore_maps_buf + len, sizeof(aicore_maps_buf) - 1 - len);
		if (got > 0)
			len += (size_t)got;
	} while (got > 0 || (got < 0 && errno == EINTR));
	close(fd);
	if (got < 0 || len == sizeof(aicore_maps_buf) - 1)
		return got < 0 ? -EIO : -E2BIG;
	aicore_maps_buf[len] = 0;
	for (p = aicore_maps_buf; *p && !ret; ) {
		const char *eol = strchr(p, '\n'), *line = p;
		uint64_t start, end;

		if (!eol)
			eol = p + strlen(p);
		start = aicore_hex(&p);
		if (*p++ != '-')
			return -EIO;
		end = aicore_hex(&p);
		p = *eol ? eol + 1 : eol;
		if (start >= ACL_AICORE_VA_END)
			continue;		/* [vsyscall]: not in the window */
		/* the main stack grows down: keep its room and the kernel's guard gap free */
		if (memmem(line, (size_t)(eol - line), "[stack]", 7))
			start = start > ACL_AICORE_STACK_ROOM ? start - ACL_AICORE_STACK_ROOM : 0;
		ret = aicore_range_add(r, n, start, end);
	}
	return ret;
}

bool aicore_ranges_within(const struct acl_aicore_range *now, unsigned int n_now,
			  const struct acl_aicore_range *sent, unsigned int n_sent)
{
	unsigned int i, j;

	for (i = 0; i < n_now; i++) {
		for (j = 0; j < n_sent; j++)
			if (now[i].start >= sent[j].start && now[i].end <= sent[j].end)
				break;
		if (j == n_sent)
			return false;
	}
	return true;
}

int aicore_cover(int aperture, const struct acl_aicore_range *own, unsigned int n_own,
		 uint64_t arena, uint64_t arena_len, uint64_t *covered)
{
	struct acl_aicore_range busy[ACL_AICORE_RANGES_MAX + 1];
	uint64_t at = ACL_AICORE_VA_START;
	unsigned int i, n = n_own;
	int ret;

	memcpy(busy, own, n_own * sizeof(*own));
	ret = aicore_range_add(busy, &n, arena, arena + arena_len);
	if (ret)
		return ret;
	*covered = 0;
	for (i = 0; i <= n && at < ACL_AICORE_VA_END; i++) {
		uint64_t end = i < n ? busy[i].start : ACL_AICORE_VA_END;
		void *p;

		if (end > ACL_AICORE_VA_END)
			end = ACL_AICORE_VA_END;
		if (end > at) {
			p = mmap((void *)(uintptr_t)at, end - at, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED_NOREPLACE, aperture, (off_t)at);
			if (p == MAP_FAILED)
				return -errno;
			if (p != (void *)(uintptr_t)at) {
				munmap(p, end - at);
				return -EEXIST;
			}
			*covered += end - at;
		}
		if (i < n && busy[i].end > at)
			at = busy[i].end;
	}
	return 0;
}
