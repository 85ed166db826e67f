/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/npu_util.h - raw ioctl helpers for the driver tests.
 *
 * Every wrapper returns 0 or -errno, so a test states the exact error it
 * expects: ASSERT_EQ(-EINVAL, npu_map(fd, va, len, h)). Structs are
 * zero-initialised with .size set, as libacl does.
 */
#ifndef NPU_TEST_UTIL_H
#define NPU_TEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "uapi/npu.h"

#include "npu_proc.h"

#define SZ_4K	0x1000UL
#define SZ_1M	0x100000UL
#define SZ_2M	0x200000UL
#define SZ_1G	0x40000000UL

/*
 * The group that owns /dev/npuN (udev/60-npu.rules; the guest's /init does
 * what the rule does): a test that drops privileges joins it to open the
 * node, as a user of the device would be in it.
 */
#define NPU_GID		990

static inline int npu_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, cmd, arg);
	while (ret == -1 && errno == EINTR);
	return ret ? -errno : 0;
}

static inline int npu_open(int index)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/npu%d", index);
	return open(path, O_RDWR | O_CLOEXEC);
}

static inline int npu_device_count(void)
{
	int n = 0;

	while (n < 64) {
		char path[32];

		snprintf(path, sizeof(path), "/dev/npu%d", n);
		if (access(path, F_OK))
			break;
		n++;
	}
	return n;
}

static inline int npu_info(int fd, struct npu_get_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return npu_ioctl(fd, NPU_IOCTL_GET_INFO, info);
}

/* Device memory in use on the device behind @fd, or -1. */
static inline long long npu_mem_used(int fd)
{
	struct npu_get_info info;

	return npu_info(fd, &info) ? -1 : (long long)info.mem_used;
}

static inline int npu_alloc(int fd, uint64_t length, uint64_t page_size,
			    uint32_t *handle)
{
	struct npu_mem_alloc a = {
		.size = sizeof(a), .length = length, .page_size = page_size,
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &a);

	*handle = a.handle;
	return ret;
}

static inline int npu_free(int fd, uint32_t handle)
{
	struct npu_mem_free f = { .size = sizeof(f), .handle = handle };

	return npu_ioctl(fd, NPU_IOCTL_MEM_FREE, &f);
}

static inline int npu_reserve(int fd, uint64_t addr, uint64_t length)
{
	struct npu_va_range r = {
		.size = sizeof(r), .addr = addr, .length = length,
	};

	return npu_ioctl(fd, NPU_IOCTL_VA_RESERVE, &r);
}

static inline int npu_release(int fd, uint64_t addr)
{
	struct npu_va_range r = { .size = sizeof(r), .addr = addr };

	return npu_ioctl(fd, NPU_IOCTL_VA_RELEASE, &r);
}

/*
 * A free, @align-aligned range of @length bytes of this process's address
 * space, kept PROT_NONE as libacl keeps device VAs.
 */
static inline uint64_t npu_hole(uint64_t length, uint64_t align)
{
	uint64_t span = length + align, start, va;
	void *p = mmap(NULL, span, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	start = (uint64_t)(uintptr_t)p;
	va = (start + align - 1) & ~(align - 1);
	if (va > start)
		munmap(p, va - start);
	if (start + span > va + length)
		munmap((void *)(uintptr_t)(va + length), start + span - va - length);
	return va;
}

/* @length bytes of 2 MiB-aligned anonymous read-write memory, not touched; NULL on failure. */
static inline void *npu_hole_anon(uint64_t length)
{
	uint64_t va = npu_hole(length, SZ_2M);
	void *p;

	if (!va)
		return NULL;
	p = mmap((void *)(uintptr_t)va, length, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Reserve a fresh device VA range; 0 on failure. */
static inline uint64_t npu_reserve_new(int fd, uint64_t length, uint64_t align)
{
	uint64_t va = npu_hole(length, align);

	if (!va || npu_reserve(fd, va, length))
		return 0;
	return va;
}

static inline int npu_map(int fd, uint64_t addr, uint64_t length,
			  uint32_t handle)
{
	struct npu_map m = {
		.size = sizeof(m), .addr = addr, .length = length,
		.handle = handle,
	};

	return npu_ioctl(fd, NPU_IOCTL_MAP, &m);
}

static inline int npu_unmap(int fd, uint64_t addr)
{
	struct npu_unmap u = { .size = sizeof(u), .addr = addr };

	return npu_ioctl(fd, NPU_IOCTL_UNMAP, &u);
}

static inline int npu_set_access(int fd, uint64_t addr, uint64_t length,
				 uint32_t device, uint32_t access)
{
	struct npu_access a = {
		.size = sizeof(a), .addr = addr, .length = length,
		.device = device, .access = access,
	};

	return npu_ioctl(fd, NPU_IOCTL_SET_ACCESS, &a);
}

/* @len bytes of new device memory of @page pages, mapped read-write for device @dev: its VA, or 0. */
static inline uint64_t npu_map_new_rw(int fd, uint64_t len, uint64_t page, uint32_t dev)
{
	uint64_t va = npu_reserve_new(fd, len, SZ_2M);
	uint32_t h;

	if (!va || npu_alloc(fd, len, page, &h) || npu_map(fd, va, len, h) ||
	    npu_free(fd, h) ||
	    npu_set_access(fd, va, len, dev, NPU_ACCESS_READWRITE))
		return 0;
	return va;
}

static inline int npu_get_access(int fd, uint64_t addr, uint32_t device,
				 uint32_t *access)
{
	struct npu_access a = {
		.size = sizeof(a), .addr = addr, .device = device,
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_GET_ACCESS, &a);

	*access = a.access;
	return ret;
}

static inline int npu_query(int fd, uint64_t addr, struct npu_addr_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->addr = addr;
	return npu_ioctl(fd, NPU_IOCTL_ADDR_QUERY, q);
}

static inline int npu_register(int fd, void *addr, uint64_t length,
			       uint32_t flags, uint64_t dev_addr)
{
	struct npu_host_register r = {
		.size = sizeof(r), .flags = flags,
		.addr = (uint64_t)(uintptr_t)addr, .length = length,
		.dev_addr = dev_addr,
	};

	return npu_ioctl(fd, NPU_IOCTL_HOST_REGISTER, &r);
}

static inline int npu_unregister(int fd, void *addr)
{
	struct npu_host_unregister u = {
		.size = sizeof(u), .addr = (uint64_t)(uintptr_t)addr,
	};

	return npu_ioctl(fd, NPU_IOCTL_HOST_UNREGISTER, &u);
}

static inline int npu_stream_create(int fd, uint32_t *stream)
{
	struct npu_stream_create c = { .size = sizeof(c) };
	int ret = npu_ioctl(fd, NPU_IOCTL_STREAM_CREATE, &c);

	*stream = c.stream;
	return ret;
}

static inline int npu_stream_destroy(int fd, uint32_t stream, uint32_t flags)
{
	struct npu_stream_destroy d = {
		.size = sizeof(d), .flags = flags, .stream = stream,
	};

	return npu_ioctl(fd, NPU_IOCTL_STREAM_DESTROY, &d);
}

static inline int npu_submit(int fd, uint32_t stream, struct npu_cmd *cmds,
			     uint32_t count, uint64_t *seqno)
{
	struct npu_submit s = {
		.size = sizeof(s), .stream = stream, .count = count,
		.cmds = (uint64_t)(uintptr_t)cmds,
		.cmd_size = sizeof(*cmds),
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_SUBMIT, &s);

	if (seqno)
		*seqno = s.seqno;
	return ret;
}

static inline int npu_sync(int fd, uint32_t stream, int32_t timeout_ms)
{
	struct npu_stream_sync s = {
		.size = sizeof(s), .stream = stream, .timeout_ms = timeout_ms,
	};

	return npu_ioctl(fd, NPU_IOCTL_STREAM_SYNC, &s);
}

/* Submit one command and wait for it: 0, or the error of either step. */
static inline int npu_run(int fd, uint32_t stream, struct npu_cmd cmd)
{
	int ret = npu_submit(fd, stream, &cmd, 1, NULL);

	return ret ? ret : npu_sync(fd, stream, -1);
}

static inline struct npu_cmd npu_copy_cmd(uint64_t dst, uint64_t src,
					  uint64_t len, uint32_t flags)
{
	return (struct npu_cmd){ .op = NPU_OP_COPY, .flags = flags,
				 .dst = dst, .src = src, .length = len };
}

static inline struct npu_cmd npu_memset_cmd(uint64_t dst, uint8_t value,
					    uint64_t len, uint32_t flags)
{
	return (struct npu_cmd){ .op = NPU_OP_MEMSET, .flags = flags,
				 .dst = dst, .value = value, .length = len };
}

/* WRITE_VALUE at @addr, or WAIT_VALUE on @addr (its source). */
static inline struct npu_cmd npu_value_cmd(uint32_t op, uint64_t addr,
					   uint64_t value, uint32_t flags)
{
	struct npu_cmd c = { .op = op, .flags = flags, .value = value };

	if (op == NPU_OP_WAIT_VALUE)
		c.src = addr;
	else
		c.dst = addr;
	return c;
}

static inline uint64_t ptr64(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/*
 * The device copies @n bytes between device VA @va + @off and the
 * registered host buffer @host at the same offset (@host + @off):
 * npu_dev_write() from @src + @off (put there first), npu_dev_read() into
 * @host + @off (which it first fills with 0xee, so stale bytes show).
 */
static inline int npu_dev_write(int fd, uint32_t stream, uint64_t va,
				unsigned char *host, uint64_t off,
				const unsigned char *src, uint64_t n)
{
	memcpy(host + off, src + off, n);
	return npu_run(fd, stream, npu_copy_cmd(va + off, ptr64(host + off), n,
						NPU_CMD_SRC_HOST));
}

static inline int npu_dev_read(int fd, uint32_t stream, uint64_t va,
			       unsigned char *host, uint64_t off, uint64_t n)
{
	memset(host + off, 0xee, n);
	return npu_run(fd, stream, npu_copy_cmd(ptr64(host + off), va + off, n,
						NPU_CMD_DST_HOST));
}

/* Offset of the first byte of [@p, @p + @len) that is not @v, or -1. */
static inline long long npu_check_byte(const void *p, size_t len, unsigned char v)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != v)
			return (long long)i;
	return -1;
}

/* A user range of @len bytes that is not mapped at all. */
static inline void *npu_unmapped_range(size_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, len);
	return p;
}

/* Anonymous RW memory, touched so every page exists. */
static inline void *npu_host_mem(size_t length)
{
	void *p = mmap(NULL, length, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, length);
	return p;
}

/* Write @s to the file @path (sysfs, procfs, cgroupfs): 0 or -errno. */
static inline int npu_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* Module parameter @name of npu.ko, or -1. */
static inline long long npu_param_get(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/npu/parameters/%s", name);
	return npu_file_value_at(AT_FDCWD, path, NULL, 0);
}

/* Set module parameter @name of npu.ko (root): 0 or -errno. */
static inline int npu_param_set(const char *name, long long value)
{
	char path[128], v[32];

	snprintf(path, sizeof(path), "/sys/module/npu/parameters/%s", name);
	snprintf(v, sizeof(v), "%lld", value);
	return npu_write_file(path, v);
}

/* A /proc/vmstat counter after folding the per-CPU deltas, or -1. */
static inline long long npu_vmstat(const char *name)
{
	/* Fold the per-CPU deltas; an unprivileged reader sees stale counts. */
	npu_write_file("/proc/sys/vm/stat_refresh", "1");
	return npu_file_value_at(AT_FDCWD, "/proc/vmstat", name, ' ');
}

/* Pins taken and not released, system-wide. */
static inline long long npu_pins_held(void)
{
	return npu_vmstat("nr_foll_pin_acquired") -
	       npu_vmstat("nr_foll_pin_released");
}

/*
 * A field of the status file (VmPin, VmLck) in kB, or -1: of the /proc/PID
 * directory open as @dirfd, or with AT_FDCWD of /proc/self.
 */
static inline long long npu_status_kb_at(int dirfd, const char *field)
{
	return npu_file_value_at(dirfd, dirfd == AT_FDCWD ? "/proc/self/status" : "status",
				 field, ':');
}

static inline long long npu_status_kb(const char *field)
{
	return npu_status_kb_at(AT_FDCWD, field);
}

/*
 * In a forked child: become nobody (uid/gid 65534) in the device's group
 * with RLIMIT_MEMLOCK @memlock, and open /dev/npu0 as that user. The
 * VM's / is mode 0700, so /dev and /proc/self are looked up first, while
 * still root; *@procfd is the latter (for npu_status_kb_at()). The fd, or
 * -errno.
 */
static inline int npu_open_as_nobody(unsigned long long memlock, int *procfd)
{
	struct rlimit rl = { memlock, memlock };
	int devfd = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	*procfd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (devfd < 0 || *procfd < 0 || setrlimit(RLIMIT_MEMLOCK, &rl) ||
	    setgroups(1, (gid_t[]){ NPU_GID }) || setgid(65534) ||
	    setuid(65534))
		return -errno;
	fd = openat(devfd, "npu0", O_RDWR | O_CLOEXEC);
	close(devfd);
	return fd < 0 ? -errno : fd;
}

#endif /* NPU_TEST_UTIL_H */
