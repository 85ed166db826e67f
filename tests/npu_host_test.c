// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_host_test.c - host memory registration: HOST_REGISTER,
 * HOST_UNREGISTER, ADDR_QUERY and COPY/MEMSET commands whose operands are
 * host memory (NPU_CMD_SRC_HOST/DST_HOST, or a MAPPED registration's
 * device VA).
 *
 * Every failing call is checked for its exact errno (include/uapi/npu.h),
 * and every failed registration for leaving nothing pinned: the system's
 * FOLL_PIN count (npu_pins_held()) and this process's VmPin are unchanged.
 *
 * Runs as root in the VM (tools/vm-run -- /tests/npu_host_test).
 */
#include "harness.h"
#include "npu_util.h"

#include <grp.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#define SZ_64K		0x10000UL
#define SZ_1M		0x100000UL

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* Device memory: allocated, mapped at a fresh VA, READWRITE; 0 on failure. */
static uint64_t devmem_new(int fd, uint32_t dev, uint64_t len, uint64_t pgsz,
			   uint32_t *handle)
{
	uint64_t va;

	if (npu_alloc(fd, len, pgsz, handle))
		return 0;
	va = npu_reserve_new(fd, len, pgsz);
	if (!va)
		return 0;
	if (npu_map(fd, va, len, *handle))
		return 0;
	if (npu_set_access(fd, va, len, dev, NPU_ACCESS_READWRITE))
		return 0;
	return va;
}

static uint32_t dev_index(int fd)
{
	struct npu_get_info info;

	return npu_info(fd, &info) ? ~0U : info.device_index;
}

/* Host -> device copy through a registration. */
static int h2d(int fd, uint32_t s, uint64_t dva, const void *src, uint64_t len)
{
	return npu_run(fd, s, npu_copy_cmd(dva, ptr64(src), len,
					   NPU_CMD_SRC_HOST));
}

/* Device -> host copy through a registration. */
static int d2h(int fd, uint32_t s, void *dst, uint64_t dva, uint64_t len)
{
	return npu_run(fd, s, npu_copy_cmd(ptr64(dst), dva, len,
					   NPU_CMD_DST_HOST));
}

static void fill(void *p, size_t len, unsigned int seed)
{
	unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = (unsigned char)(i * 131 + (i >> 12) * 7 + seed);
}

/* Offset of the first byte not as fill(seed) wrote it, or -1. */
static long long check(const void *p, size_t len, unsigned int seed)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != (unsigned char)(i * 131 + (i >> 12) * 7 + seed))
			return (long long)i;
	return -1;
}

static int kernel_version(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	return major * 100 + minor;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* In a forked child of a test: no ASSERT (it would longjmp into the test). */
#define CHILD_CHECK(cond) do {							\
	if (!(cond)) {								\
		printf("# %s:%d: child: check failed: %s\n", __FILE__,		\
		       __LINE__, #cond);					\
		fflush(stdout);							\
		_exit(1);							\
	}									\
} while (0)

/* Nothing more is pinned than at the fixture's start. */
#define ASSERT_NOTHING_PINNED(self) do {					\
	ASSERT_EQ((self)->pins0, npu_pins_held());				\
	ASSERT_EQ((self)->vmpin0, npu_status_kb("VmPin"));			\
} while (0)

/* ------------------------------------------------------------------ */
/* Fixture: a context, a stream and 4 MiB of READWRITE device memory   */
/* ------------------------------------------------------------------ */

#define DEV_LEN		(4 * SZ_1M)

FIXTURE(host) {
	int fd;
	uint32_t dev;
	uint32_t stream;
	uint32_t handle;
	uint64_t va;
	long long pins0;
	long long vmpin0;
};

FIXTURE_SETUP(host)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	self->dev = dev_index(self->fd);
	ASSERT_NE(~0U, self->dev);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->va = devmem_new(self->fd, self->dev, DEV_LEN, SZ_2M, &self->handle);
	ASSERT_NE(0, self->va);
	self->pins0 = npu_pins_held();
	ASSERT_LE(0, self->pins0);
	self->vmpin0 = npu_status_kb("VmPin");
	ASSERT_EQ(0, self->vmpin0);
}

FIXTURE_TEARDOWN(host)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* ------------------------------------------------------------------ */
/* Basics                                                              */
/* ------------------------------------------------------------------ */

TEST_F(host, register_unregister)
{
	size_t len = 16 * SZ_4K;
	void *buf = npu_host_mem(len);
	struct npu_addr_query q;

	ASSERT_NONNULL(buf);
	ASSERT_EQ(0, npu_register(self->fd, buf, len, 0, 0));
	/* One pin per page, charged as pinned_vm. */
	EXPECT_EQ(self->pins0 + 16, npu_pins_held());
	EXPECT_EQ(self->vmpin0 + 64, npu_status_kb("VmPin"));

	ASSERT_EQ(0, npu_query(self->fd, ptr64(buf) + 5 * SZ_4K + 123, &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);
	EXPECT_EQ(ptr64(buf), q.base);
	EXPECT_EQ(len, q.length);
	EXPECT_EQ(0, q.host_flags);
	EXPECT_EQ(0, q.dev_addr);
	EXPECT_EQ(0, q.mapped);

	/* First and last byte are inside, one past the end is not. */
	ASSERT_EQ(0, npu_query(self->fd, ptr64(buf), &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);
	ASSERT_EQ(0, npu_query(self->fd, ptr64(buf) + len - 1, &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);
	/* (The next page may be a device reservation mmap placed there.) */
	ASSERT_EQ(0, npu_query(self->fd, ptr64(buf) + len, &q));
	EXPECT_NE(NPU_ADDR_HOST, q.kind);

	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_EQ(0, npu_query(self->fd, ptr64(buf), &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);
	ASSERT_NOTHING_PINNED(self);

	/* The range can be registered again once it is gone. */
	ASSERT_EQ(0, npu_register(self->fd, buf, len, 0, 0));
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_NOTHING_PINNED(self);
}

/*
 * Direct DMA through swiotlb bounce buffers would show the device a copy of
 * the registered pages: refused, with nothing left pinned. Runs in the VM
 * tools/check boots with "intel_iommu=off swiotlb=force"; skips elsewhere.
 */
static bool kernel_cmdline_has(const char *word)
{
	char line[1024] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f && !fgets(line, sizeof(line), f))
		line[0] = 0;
	if (f)
		fclose(f);
	return strstr(line, word) != NULL;
}

TEST_F(host, swiotlb_bouncing_is_refused)
{
	struct npu_get_info info;
	size_t len = 16 * SZ_4K, big = 4 * SZ_1M;
	void *buf = npu_host_mem(len), *bigbuf = npu_host_mem(big);

	ASSERT_NONNULL(buf);
	ASSERT_NONNULL(bigbuf);
	ASSERT_EQ(0, npu_info(self->fd, &info));
	if (!kernel_cmdline_has("swiotlb=force") || (info.caps & NPU_CAP_IOMMU))
		SKIP(return, "needs direct DMA with swiotlb=force (tools/check boots it)");
	EXPECT_EQ(-EOPNOTSUPP, npu_register(self->fd, buf, len, 0, 0));
	EXPECT_EQ(-EOPNOTSUPP, npu_register(self->fd, buf, SZ_4K, NPU_HOST_READONLY, 0));
	EXPECT_EQ(-EOPNOTSUPP, npu_register(self->fd, buf, len, NPU_HOST_MAPPED, npu_hole(len, SZ_4K)));
	/* more than one swiotlb mapping can hold (256 KiB): the same answer */
	EXPECT_EQ(-EOPNOTSUPP, npu_register(self->fd, bigbuf, big, 0, 0));
	ASSERT_NOTHING_PINNED(self);
}

/*
 * A dma-buf the device would reach through bounce buffers (npu1's memory,
 * through host DMA) is refused as a registration is; npu's own dma-buf of
 * this device is device memory, no DMA: it imports.
 */
TEST_F(host, swiotlb_dmabuf_import_is_refused)
{
	struct npu_dmabuf_export e = { .size = sizeof(e), .flags = NPU_DMABUF_CLOEXEC };
	struct npu_dmabuf_import a = { .size = sizeof(a), .length = SZ_2M };
	struct npu_get_info info;
	int fd1;

	ASSERT_EQ(0, npu_info(self->fd, &info));
	if (!kernel_cmdline_has("swiotlb=force") || (info.caps & NPU_CAP_IOMMU))
		SKIP(return, "needs direct DMA with swiotlb=force (tools/check boots it)");
	fd1 = npu_open(1);
	if (fd1 < 0)
		SKIP(return, "no /dev/npu1");
	ASSERT_EQ(0, npu_alloc(fd1, SZ_2M, SZ_2M, &e.handle));
	ASSERT_EQ(0, npu_ioctl(fd1, NPU_IOCTL_DMABUF_EXPORT, &e));
	a.fd = e.fd;
	EXPECT_EQ(-EOPNOTSUPP, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_IMPORT, &a));
	EXPECT_EQ(0, npu_ioctl(fd1, NPU_IOCTL_DMABUF_IMPORT, &a));
	close(e.fd);
	close(fd1);
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(host, copy_h2d_d2h)
{
	size_t len = 2 * SZ_1M + 3 * SZ_4K;
	unsigned char *src = npu_host_mem(len), *dst = npu_host_mem(len);

	ASSERT_NONNULL(src);
	ASSERT_NONNULL(dst);
	fill(src, len, 1);
	memset(dst, 0xee, len);
	ASSERT_EQ(0, npu_register(self->fd, src, len, 0, 0));
	ASSERT_EQ(0, npu_register(self->fd, dst, len, 0, 0));

	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, src, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, dst, self->va, len));
	ASSERT_EQ(-1, check(dst, len, 1));

	/* Unaligned offsets and lengths, across page boundaries. */
	memset(dst, 0, len);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va + 8191, src + 4097,
			 3 * SZ_4K + 5));
	ASSERT_EQ(0, d2h(self->fd, self->stream, dst + 13, self->va + 8191,
			 3 * SZ_4K + 5));
	ASSERT_EQ(0, memcmp(dst + 13, src + 4097, 3 * SZ_4K + 5));
	ASSERT_EQ(-1, npu_check_byte(dst, 13, 0));
	ASSERT_EQ(-1, npu_check_byte(dst + 13 + 3 * SZ_4K + 5, 4096, 0));

	/* Host to host through the engine. */
	memset(dst, 0, len);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(dst), ptr64(src), len,
					  NPU_CMD_SRC_HOST | NPU_CMD_DST_HOST)));
	ASSERT_EQ(-1, check(dst, len, 1));

	/* MEMSET of host memory. */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(ptr64(dst) + 100, 0xa5, 5000,
					    NPU_CMD_DST_HOST)));
	ASSERT_EQ(-1, check(dst, 100, 1));
	ASSERT_EQ(-1, npu_check_byte(dst + 100, 5000, 0xa5));
	ASSERT_EQ(0, memcmp(dst + 5100, src + 5100, len - 5100));

	/* The host sees what the CPU wrote after registering, too. */
	fill(src, len, 9);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, src, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, dst, self->va, len));
	ASSERT_EQ(-1, check(dst, len, 9));

	ASSERT_EQ(0, npu_unregister(self->fd, src));
	ASSERT_EQ(0, npu_unregister(self->fd, dst));
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* Bad inputs                                                          */
/* ------------------------------------------------------------------ */

TEST_F(host, register_bad_args)
{
	size_t len = 4 * SZ_4K;
	char *buf = npu_host_mem(len);
	uint64_t hole = npu_hole(len, SZ_4K);
	struct npu_host_register r;

	ASSERT_NONNULL(buf);
	ASSERT_NE(0, hole);

	/* Unaligned address. */
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf + 1, len - SZ_4K, 0, 0));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf + 2048, SZ_4K, 0, 0));
	/* Zero and unaligned lengths. */
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, 0, 0, 0));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, 1, 0, 0));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, SZ_4K + 512, 0, 0));
	/* A range that wraps around the top of the address space. */
	EXPECT_EQ(-EINVAL, npu_register(self->fd, (void *)(uintptr_t)0xfffffffffffff000ULL,
					2 * SZ_4K, 0, 0));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, 0xfffffffffffff000ULL, 0, 0));
	/* Unknown flags. */
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, 1U << 2, 0));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, 1U << 31, 0));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len,
					NPU_HOST_READONLY | (1U << 7), 0));
	/* MAPPED needs a valid, aligned device address. */
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, NPU_HOST_MAPPED, 0));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, NPU_HOST_MAPPED,
					hole + 1));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, NPU_HOST_MAPPED,
					hole + 2048));
	/* Below the device VA window, or running past its end. */
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, NPU_HOST_MAPPED,
					SZ_4K));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, NPU_HOST_MAPPED,
					(1ULL << 47) - SZ_4K));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, NPU_HOST_MAPPED,
					0xfffffffffffff000ULL));
	/* A device address without MAPPED. */
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, 0, hole));
	EXPECT_EQ(-EINVAL, npu_register(self->fd, buf, len, NPU_HOST_READONLY,
					hole));

	/* A longer struct with non-zero extra bytes; a too short one. */
	struct {
		struct npu_host_register r;
		uint64_t extra;
	} big = {
		.r = { .size = sizeof(big), .addr = ptr64(buf), .length = len },
		.extra = 1,
	};
	EXPECT_EQ(-E2BIG, npu_ioctl(self->fd, NPU_IOCTL_HOST_REGISTER, &big));
	memset(&r, 0, sizeof(r));
	r.size = offsetof(struct npu_host_register, dev_addr);
	r.addr = ptr64(buf);
	r.length = len;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_HOST_REGISTER, &r));

	ASSERT_NOTHING_PINNED(self);
	/* And the range is still free. */
	ASSERT_EQ(0, npu_register(self->fd, buf, len, 0, 0));
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_NOTHING_PINNED(self);
}

/*
 * A registration longer than NPU_HOST_MAX_LENGTH is refused before anything
 * is pinned or charged, whatever RLIMIT_MEMLOCK allows (root here). Once
 * 16 TiB + 2 MiB truncated the scatter-gather table's page hint to zero
 * and oopsed on the second batch of pins.
 */
TEST_F(host, register_over_the_cap)
{
	const uint64_t lens[] = {
		(16ULL << 40) + SZ_2M, NPU_HOST_MAX_LENGTH + SZ_4K,
	};

	ASSERT_EQ(0, geteuid());
	for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		void *p = mmap(NULL, lens[i], PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		ASSERT_NE(MAP_FAILED, p);
		EXPECT_EQ(-EINVAL, npu_register(self->fd, p, lens[i], 0, 0));
		EXPECT_EQ(-EINVAL, npu_register(self->fd, p, lens[i],
						NPU_HOST_READONLY, 0));
		ASSERT_NOTHING_PINNED(self);
		ASSERT_OK(munmap(p, lens[i]));
	}
}

TEST_F(host, register_unmapped_efault)
{
	size_t len = 4 * SZ_1M;
	char *gone = npu_unmapped_range(len);
	char *buf, *none;

	ASSERT_NONNULL(gone);
	EXPECT_EQ(-EFAULT, npu_register(self->fd, gone, len, 0, 0));
	EXPECT_EQ(-EFAULT, npu_register(self->fd, gone, SZ_4K, NPU_HOST_READONLY, 0));
	ASSERT_NOTHING_PINNED(self);

	/* PROT_NONE memory cannot be pinned either. */
	none = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, none);
	EXPECT_EQ(-EFAULT, npu_register(self->fd, none, len, 0, 0));
	EXPECT_EQ(-EFAULT, npu_register(self->fd, none, len, NPU_HOST_READONLY, 0));
	ASSERT_NOTHING_PINNED(self);

	/*
	 * Mapped at the start, unmapped after 2 MiB + 4 KiB: the pages pinned
	 * in the first batches must be released again.
	 */
	buf = npu_host_mem(len);
	ASSERT_NONNULL(buf);
	ASSERT_OK(munmap(buf + 2 * SZ_1M + SZ_4K, len - 2 * SZ_1M - SZ_4K));
	EXPECT_EQ(-EFAULT, npu_register(self->fd, buf, len, 0, 0));
	ASSERT_NOTHING_PINNED(self);
	EXPECT_EQ(-EFAULT, npu_register(self->fd, buf, len, NPU_HOST_MAPPED,
					npu_hole(len, SZ_2M)));
	ASSERT_NOTHING_PINNED(self);
	/* A hole in the middle. */
	ASSERT_OK(munmap(buf + SZ_1M, SZ_4K));
	EXPECT_EQ(-EFAULT, npu_register(self->fd, buf, 2 * SZ_1M, 0, 0));
	ASSERT_NOTHING_PINNED(self);

	/* No registration was left behind: the mapped part registers. */
	ASSERT_EQ(0, npu_register(self->fd, buf, SZ_1M, 0, 0));
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(host, register_overlap_eexist)
{
	size_t len = 16 * SZ_4K;
	char *buf = npu_host_mem(4 * len);
	char *reg;

	ASSERT_NONNULL(buf);
	reg = buf + len;	/* [len, 2 len) of buf */
	ASSERT_EQ(0, npu_register(self->fd, reg, len, 0, 0));
	long long pins = npu_pins_held(), vmpin = npu_status_kb("VmPin");

	EXPECT_EQ(-EEXIST, npu_register(self->fd, reg, len, 0, 0));
	EXPECT_EQ(-EEXIST, npu_register(self->fd, reg, len, NPU_HOST_READONLY, 0));
	EXPECT_EQ(-EEXIST, npu_register(self->fd, reg, SZ_4K, 0, 0));
	EXPECT_EQ(-EEXIST, npu_register(self->fd, reg + len - SZ_4K, SZ_4K, 0, 0));
	EXPECT_EQ(-EEXIST, npu_register(self->fd, reg + 4 * SZ_4K, 2 * SZ_4K, 0, 0));
	EXPECT_EQ(-EEXIST, npu_register(self->fd, buf, len + SZ_4K, 0, 0));
	EXPECT_EQ(-EEXIST, npu_register(self->fd, reg + len - SZ_4K, len, 0, 0));
	EXPECT_EQ(-EEXIST, npu_register(self->fd, buf, 4 * len, 0, 0));
	EXPECT_EQ(-EEXIST, npu_register(self->fd, reg, len, NPU_HOST_MAPPED,
					npu_hole(len, SZ_4K)));
	EXPECT_EQ(pins, npu_pins_held());
	EXPECT_EQ(vmpin, npu_status_kb("VmPin"));

	/* Adjacent on both sides is no overlap. */
	ASSERT_EQ(0, npu_register(self->fd, buf, len, 0, 0));
	ASSERT_EQ(0, npu_register(self->fd, reg + len, len, 0, 0));
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_EQ(0, npu_unregister(self->fd, reg + len));
	ASSERT_EQ(0, npu_unregister(self->fd, reg));
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(host, register_mapped_eaddrinuse)
{
	size_t len = 16 * SZ_4K;
	char *a = npu_host_mem(len), *b = npu_host_mem(len);
	uint64_t area = npu_hole(4 * len, SZ_4K);
	struct npu_addr_query q;

	ASSERT_NONNULL(a);
	ASSERT_NONNULL(b);
	ASSERT_NE(0, area);
	/* A device reservation at [area, area + len). */
	ASSERT_EQ(0, npu_reserve(self->fd, area, len));

	EXPECT_EQ(-EADDRINUSE, npu_register(self->fd, a, len, NPU_HOST_MAPPED, area));
	EXPECT_EQ(-EADDRINUSE, npu_register(self->fd, a, len, NPU_HOST_MAPPED,
					    area + len - SZ_4K));
	EXPECT_EQ(-EADDRINUSE, npu_register(self->fd, a, 2 * SZ_4K, NPU_HOST_MAPPED,
					    area + 3 * SZ_4K));
	/* Also the device memory of the fixture. */
	EXPECT_EQ(-EADDRINUSE, npu_register(self->fd, a, len, NPU_HOST_MAPPED,
					    self->va + SZ_1M));
	/* Nothing pinned, nothing registered: the host range is free. */
	ASSERT_NOTHING_PINNED(self);
	ASSERT_EQ(0, npu_query(self->fd, ptr64(a), &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);

	/* Right after the reservation it fits. */
	ASSERT_EQ(0, npu_register(self->fd, a, len, NPU_HOST_MAPPED, area + len));
	/* And now its device VA is in use, for registrations and VA_RESERVE. */
	EXPECT_EQ(-EADDRINUSE, npu_register(self->fd, b, len, NPU_HOST_MAPPED,
					    area + len + SZ_4K));
	EXPECT_EQ(-EADDRINUSE, npu_register(self->fd, b, SZ_4K, NPU_HOST_MAPPED,
					    area + 2 * len - SZ_4K));
	EXPECT_EQ(-EADDRINUSE, npu_reserve(self->fd, area + len, SZ_4K));
	EXPECT_EQ(-EADDRINUSE, npu_reserve(self->fd, area + len - SZ_4K, 2 * SZ_4K));
	/* Its VA is the registration's: not released or unmapped by hand. */
	EXPECT_EQ(-EBUSY, npu_release(self->fd, area + len));
	EXPECT_EQ(-ENOENT, npu_unmap(self->fd, area + len));
	ASSERT_EQ(0, npu_query(self->fd, ptr64(b), &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);
	EXPECT_EQ(self->pins0 + 16, npu_pins_held());

	ASSERT_EQ(0, npu_register(self->fd, b, len, NPU_HOST_MAPPED, area + 2 * len));
	ASSERT_EQ(0, npu_unregister(self->fd, a));
	ASSERT_EQ(0, npu_unregister(self->fd, b));
	/* The device VA is free again. */
	ASSERT_EQ(0, npu_reserve(self->fd, area + len, 2 * len));
	ASSERT_EQ(0, npu_release(self->fd, area + len));
	ASSERT_EQ(0, npu_release(self->fd, area));
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(host, unregister_errors)
{
	size_t len = 8 * SZ_4K;
	char *buf = npu_host_mem(2 * len);
	struct npu_host_unregister u;

	ASSERT_NONNULL(buf);
	/* Nothing registered at all. */
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, buf));
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, NULL));

	ASSERT_EQ(0, npu_register(self->fd, buf, len, 0, 0));
	/* Inside, at the end, one past the end, before the start. */
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, buf + SZ_4K));
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, buf + 1));
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, buf + len - 1));
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, buf + len));
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, buf - SZ_4K));
	/* A device VA is not a registration either. */
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, (void *)(uintptr_t)self->va));

	/* Flags must be 0; a longer struct must have zero extra bytes. */
	memset(&u, 0, sizeof(u));
	u.size = sizeof(u);
	u.addr = ptr64(buf);
	u.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_HOST_UNREGISTER, &u));
	u.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_HOST_UNREGISTER, &u));
	struct {
		struct npu_host_unregister u;
		uint32_t extra;
	} big = { .u = { .size = sizeof(big), .addr = ptr64(buf) }, .extra = 1 };
	EXPECT_EQ(-E2BIG, npu_ioctl(self->fd, NPU_IOCTL_HOST_UNREGISTER, &big));
	u.flags = 0;
	u.size = offsetof(struct npu_host_unregister, addr);
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_HOST_UNREGISTER, &u));
	/* None of these took it away. */
	EXPECT_EQ(self->pins0 + 8, npu_pins_held());

	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, buf));
	ASSERT_NOTHING_PINNED(self);

	/* A registration from another context is not this one's. */
	int fd2 = npu_open(0);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, npu_register(fd2, buf, len, 0, 0));
	EXPECT_EQ(-ENXIO, npu_unregister(self->fd, buf));
	ASSERT_EQ(0, npu_unregister(fd2, buf));
	close(fd2);
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* MAPPED registrations                                                */
/* ------------------------------------------------------------------ */

static void mapped_case(FIXTURE_DATA(host) *self, bool same_addr)
{
	size_t len = 64 * SZ_4K;
	unsigned char *buf = npu_host_mem(len);
	uint64_t dva = same_addr ? ptr64(buf) : npu_hole(len, SZ_4K);
	struct npu_addr_query q;
	uint32_t access;

	ASSERT_NONNULL(buf);
	ASSERT_NE(0, dva);
	fill(buf, len, 3);
	ASSERT_EQ(0, npu_register(self->fd, buf, len, NPU_HOST_MAPPED, dva));

	/* ADDR_QUERY on the host address. */
	ASSERT_EQ(0, npu_query(self->fd, ptr64(buf) + 3 * SZ_4K + 8, &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);
	EXPECT_EQ(ptr64(buf), q.base);
	EXPECT_EQ(len, q.length);
	EXPECT_EQ(NPU_HOST_MAPPED, q.host_flags);
	EXPECT_EQ(dva + 3 * SZ_4K + 8, q.dev_addr);
	EXPECT_EQ(1, q.mapped);
	EXPECT_EQ(NPU_ACCESS_READWRITE, q.access);
	if (!same_addr) {
		/* The device VA itself is a device range that is mapped. */
		ASSERT_EQ(0, npu_query(self->fd, dva + SZ_4K, &q));
		EXPECT_EQ(NPU_ADDR_DEVICE, q.kind);
		EXPECT_EQ(dva, q.base);
		EXPECT_EQ(len, q.length);
		EXPECT_EQ(1, q.mapped);
		EXPECT_EQ(NPU_ACCESS_READWRITE, q.access);
	}
	ASSERT_EQ(0, npu_get_access(self->fd, dva, self->dev, &access));
	EXPECT_EQ(NPU_ACCESS_READWRITE, access);

	/* A device MEMSET through the device VA reaches the host pages. */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(dva + SZ_4K + 10, 0x5a, 2 * SZ_4K, 0)));
	ASSERT_EQ(-1, check(buf, SZ_4K + 10, 3));
	ASSERT_EQ(-1, npu_check_byte(buf + SZ_4K + 10, 2 * SZ_4K, 0x5a));
	{
		unsigned char *ref = npu_host_mem(len);

		ASSERT_NONNULL(ref);
		fill(ref, len, 3);
		ASSERT_EQ(0, memcmp(buf + 3 * SZ_4K + 10, ref + 3 * SZ_4K + 10,
				    len - 3 * SZ_4K - 10));
		munmap(ref, len);
	}

	/* Device reads through it, into device memory and back to the host. */
	fill(buf, len, 4);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(self->va, dva, len, 0)));
	memset(buf, 0, len);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(dva, self->va, len, 0)));
	ASSERT_EQ(-1, check(buf, len, 4));

	/* Access NONE stops the device, READWRITE gives it back. */
	ASSERT_EQ(0, npu_set_access(self->fd, dva, len, self->dev, NPU_ACCESS_NONE));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_memset_cmd(dva, 0x11, 16, 0)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(-1, check(buf, len, 4));
	ASSERT_EQ(0, npu_set_access(self->fd, dva, len, self->dev,
				    NPU_ACCESS_READWRITE));
	/* Still the host pages behind it after the access changes. */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(dva + len - 16, 0x22, 16, 0)));
	ASSERT_EQ(-1, npu_check_byte(buf + len - 16, 16, 0x22));
	ASSERT_EQ(-1, check(buf, len - 16, 4));

	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_NOTHING_PINNED(self);
	ASSERT_EQ(0, npu_query(self->fd, dva, &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);

	/* The same device VA now faults, and the host pages are untouched. */
	memset(buf, 0x77, len);
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_memset_cmd(dva, 0x5a, SZ_4K, 0)));
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_copy_cmd(self->va, dva + len - SZ_4K, SZ_4K, 0)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(-1, npu_check_byte(buf, len, 0x77));
	/* And the stream still works. */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(self->va, 1, SZ_4K, 0)));
}

TEST_F(host, mapped_memset_then_unregister_faults)
{
	mapped_case(self, false);
}

TEST_F(host, mapped_at_host_address)
{
	mapped_case(self, true);
}

/* ------------------------------------------------------------------ */
/* READONLY registrations                                              */
/* ------------------------------------------------------------------ */

TEST_F(host, readonly)
{
	size_t len = 32 * SZ_4K;
	unsigned char *ro = npu_host_mem(len);
	unsigned char *rw = npu_host_mem(len);
	uint64_t dva = npu_hole(len, SZ_4K);
	struct npu_addr_query q;
	struct npu_cmd wv = {
		.op = NPU_OP_WRITE_VALUE, .flags = NPU_CMD_DST_HOST,
		.value = 0x1234,
	};

	ASSERT_NONNULL(ro);
	ASSERT_NONNULL(rw);
	ASSERT_NE(0, dva);
	fill(ro, len, 5);
	ASSERT_OK(mprotect(ro, len, PROT_READ));

	/* A read-only mapping cannot be pinned for writing. */
	EXPECT_EQ(-EFAULT, npu_register(self->fd, ro, len, 0, 0));
	EXPECT_EQ(-EFAULT, npu_register(self->fd, ro, len, NPU_HOST_MAPPED, dva));
	ASSERT_NOTHING_PINNED(self);

	ASSERT_EQ(0, npu_register(self->fd, ro, len,
				  NPU_HOST_READONLY | NPU_HOST_MAPPED, dva));
	ASSERT_EQ(0, npu_register(self->fd, rw, len, 0, 0));
	ASSERT_EQ(0, npu_query(self->fd, ptr64(ro) + SZ_4K, &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);
	EXPECT_EQ(NPU_HOST_READONLY | NPU_HOST_MAPPED, q.host_flags);
	EXPECT_EQ(dva + SZ_4K, q.dev_addr);
	EXPECT_EQ(NPU_ACCESS_READ, q.access);

	/* Commands that write it as a host operand are refused at submit. */
	EXPECT_EQ(-EACCES, npu_submit(self->fd, self->stream,
				      &(struct npu_cmd){ .op = NPU_OP_COPY,
					.flags = NPU_CMD_DST_HOST,
					.dst = ptr64(ro), .src = self->va,
					.length = SZ_4K }, 1, NULL));
	EXPECT_EQ(-EACCES, npu_submit(self->fd, self->stream,
				      &(struct npu_cmd){ .op = NPU_OP_COPY,
					.flags = NPU_CMD_DST_HOST | NPU_CMD_SRC_HOST,
					.dst = ptr64(ro), .src = ptr64(rw),
					.length = len }, 1, NULL));
	struct npu_cmd ms = npu_memset_cmd(ptr64(ro) + 8, 0, 8, NPU_CMD_DST_HOST);
	EXPECT_EQ(-EACCES, npu_submit(self->fd, self->stream, &ms, 1, NULL));
	wv.dst = ptr64(ro) + len - 8;
	EXPECT_EQ(-EACCES, npu_submit(self->fd, self->stream, &wv, 1, NULL));

	/* Through its device VA the write faults; the host data is unchanged. */
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_memset_cmd(dva, 0x5a, len, 0)));
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_copy_cmd(dva + SZ_4K, self->va, 64, 0)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(-1, check(ro, len, 5));

	/* Access cannot be raised to READWRITE; READ or NONE are fine. */
	EXPECT_EQ(-EACCES, npu_set_access(self->fd, dva, len, self->dev,
					  NPU_ACCESS_READWRITE));
	EXPECT_EQ(0, npu_set_access(self->fd, dva, len, self->dev, NPU_ACCESS_READ));

	/* Reading it works both ways: as a host operand and by device VA. */
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, ro, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, rw, self->va, len));
	ASSERT_EQ(-1, check(rw, len, 5));
	memset(rw, 0, len);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(rw), dva, len, NPU_CMD_DST_HOST)));
	ASSERT_EQ(-1, check(rw, len, 5));

	/* A READONLY registration of writable memory is read-only too. */
	ASSERT_EQ(0, npu_unregister(self->fd, rw));
	ASSERT_EQ(0, npu_register(self->fd, rw, len, NPU_HOST_READONLY, 0));
	EXPECT_EQ(-EACCES, npu_submit(self->fd, self->stream,
				      &(struct npu_cmd){ .op = NPU_OP_COPY,
					.flags = NPU_CMD_DST_HOST,
					.dst = ptr64(rw), .src = self->va,
					.length = SZ_4K }, 1, NULL));
	ASSERT_EQ(0, npu_unregister(self->fd, rw));
	ASSERT_EQ(0, npu_unregister(self->fd, ro));
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* Host operands must be inside one registration                       */
/* ------------------------------------------------------------------ */

/*
 * A READONLY registration of a writable private mapping sees the process's
 * later writes. Never-written anonymous memory (the zero page; with THP,
 * the huge zero page) and a MAP_PRIVATE file's page cache are unshared
 * when pinned; 6.1's GUP pinned the shared page, and the process's next
 * write went to a copy the device never saw.
 */
TEST_F(host, readonly_sees_later_writes)
{
	const size_t len = 2 * SZ_1M;
	unsigned char *out = npu_host_mem(len);
	char path[] = "/tmp/npu-private-XXXXXX";
	int fd = mkstemp(path);

	ASSERT_NONNULL(out);
	ASSERT_LE(0, fd);
	ASSERT_OK(unlink(path));
	ASSERT_OK(ftruncate(fd, len));
	ASSERT_EQ((ssize_t)len, pwrite(fd, out, len, 0));	/* page cache, zeros */
	ASSERT_EQ(0, npu_register(self->fd, out, len, 0, 0));
	for (int kind = 0; kind < 3; kind++) {
		unsigned char *raw, *buf;
		volatile unsigned char sum = 0;

		if (kind < 2) {
			raw = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			ASSERT_NE(MAP_FAILED, raw);
			buf = (unsigned char *)(((uintptr_t)raw + len - 1) & ~(len - 1));
			madvise(buf, len, kind ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		} else {
			raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
			ASSERT_NE(MAP_FAILED, raw);
			buf = raw;
		}
		/* Read only: the shared page is what is mapped now. */
		for (size_t i = 0; i < len; i += SZ_4K)
			sum += buf[i];
		ASSERT_EQ(0, sum);
		ASSERT_EQ(0, npu_register(self->fd, buf, len, NPU_HOST_READONLY, 0));
		fill(buf, len, 0x31 + kind);
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_copy_cmd(self->va, ptr64(buf), len, NPU_CMD_SRC_HOST)));
		memset(out, 0, len);
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_copy_cmd(ptr64(out), self->va, len, NPU_CMD_DST_HOST)));
		if (memcmp(out, buf, len))
			TH_LOG("kind %d: the device read what was there before the write", kind);
		EXPECT_EQ(0, memcmp(out, buf, len));
		ASSERT_EQ(0, npu_unregister(self->fd, buf));
		ASSERT_OK(munmap(raw, kind < 2 ? 2 * len : len));
	}
	ASSERT_EQ(0, npu_unregister(self->fd, out));
	close(fd);
	ASSERT_NOTHING_PINNED(self);
}

/*
 * A writable long-term pin of a shared mapping of a file that its file
 * system writes back (ext4 here) is refused, -EFAULT, as 6.12's GUP
 * refuses it: the file system may write back and clean pages while the
 * device writes them. 6.1's GUP allowed it. Read-only is fine, and so is
 * shmem (register_tmpfs_file_shared).
 */
TEST_F(host, register_shared_writeback_file)
{
	const size_t len = 16 * SZ_4K;
	unsigned char *p;
	int fd;

	if (system("mkdir -p /mnt/npu-ext4 && mke2fs -q /dev/ram0 >/dev/null 2>&1 && "
		   "mount -t ext4 /dev/ram0 /mnt/npu-ext4 2>/dev/null"))
		SKIP(return, "no ext4 on /dev/ram0 (make check loads brd and ext4)");
	fd = open("/mnt/npu-ext4/f", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_OK(ftruncate(fd, len));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0x42, len);
	EXPECT_EQ(-EFAULT, npu_register(self->fd, p, len, 0, 0));
	EXPECT_EQ(-EFAULT, npu_register(self->fd, p, len, NPU_HOST_MAPPED,
					npu_hole(len, SZ_4K)));
	ASSERT_NOTHING_PINNED(self);
	EXPECT_EQ(0, npu_register(self->fd, p, len, NPU_HOST_READONLY, 0));
	EXPECT_EQ(0, npu_unregister(self->fd, p));
	ASSERT_OK(munmap(p, len));
	close(fd);
	EXPECT_EQ(0, system("umount /mnt/npu-ext4"));
	ASSERT_NOTHING_PINNED(self);
}

/*
 * The same pages registered in several contexts at once (two on one NPU,
 * one on another), as aclrtHostRegister on two devices does: every
 * registration works and every device reads what the process wrote. The
 * debug kernel's DMA-API checks once reported the second mapping
 * ("overlapping mappings aren't supported").
 */
TEST_F(host, same_pages_in_several_contexts)
{
	const size_t len = 64 * SZ_1M / 64;
	unsigned char *buf = npu_host_mem(len), *out = npu_host_mem(len);
	int fds[3] = { self->fd, npu_open(0), npu_open(1) };
	int n = fds[2] >= 0 ? 3 : 2;

	ASSERT_NONNULL(buf);
	ASSERT_NONNULL(out);
	ASSERT_LE(0, fds[1]);
	fill(buf, len, 0x77);
	for (int i = 0; i < n; i++)
		ASSERT_EQ(0, npu_register(fds[i], buf, len, 0, 0));
	for (int i = 0; i < n; i++) {
		uint32_t dev = dev_index(fds[i]), s, h;
		uint64_t va = devmem_new(fds[i], dev, 2 * SZ_1M, SZ_2M, &h);

		ASSERT_NE(0, va);
		ASSERT_EQ(0, npu_stream_create(fds[i], &s));
		ASSERT_EQ(0, npu_register(fds[i], out, len, 0, 0));
		memset(out, 0, len);
		ASSERT_EQ(0, npu_run(fds[i], s, npu_copy_cmd(va, ptr64(buf), len,
							    NPU_CMD_SRC_HOST)));
		ASSERT_EQ(0, npu_run(fds[i], s, npu_copy_cmd(ptr64(out), va, len,
							    NPU_CMD_DST_HOST)));
		EXPECT_EQ(0, memcmp(out, buf, len));
		ASSERT_EQ(0, npu_unregister(fds[i], out));
	}
	for (int i = 0; i < n; i++)
		EXPECT_EQ(0, npu_unregister(fds[i], buf));
	close(fds[1]);
	if (fds[2] >= 0)
		close(fds[2]);
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(host, submit_unregistered_enxio)
{
	size_t len = 16 * SZ_4K;
	unsigned char *buf = npu_host_mem(3 * len), *plain = npu_host_mem(len);
	struct npu_cmd c;
	uint64_t seq = 0;

	ASSERT_NONNULL(buf);
	ASSERT_NONNULL(plain);
	ASSERT_EQ(0, npu_register(self->fd, buf, len, 0, 0));
	ASSERT_EQ(0, npu_register(self->fd, buf + len, len, 0, 0));

	/* Unregistered memory, as source, destination, memset target. */
	c = npu_copy_cmd(self->va, ptr64(plain), 64, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_copy_cmd(ptr64(plain), self->va, 64, NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_memset_cmd(ptr64(plain), 1, 64, NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_copy_cmd(ptr64(buf), ptr64(plain), 64,
			 NPU_CMD_SRC_HOST | NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_copy_cmd(ptr64(plain), ptr64(buf), 64,
			 NPU_CMD_SRC_HOST | NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	/* Just before a registration. */
	c = npu_copy_cmd(self->va, ptr64(buf) - 1, 2, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));

	/* Running past the end of the last registration... */
	c = npu_copy_cmd(self->va, ptr64(buf) + 2 * len - 64, 65, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_memset_cmd(ptr64(buf) + 2 * len - SZ_4K, 1, 2 * SZ_4K,
			   NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	/* ...or across two adjacent registrations. */
	c = npu_copy_cmd(self->va, ptr64(buf) + len - 8, 16, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));

	/* A batch with one bad command queues nothing. */
	struct npu_cmd batch[2] = {
		npu_memset_cmd(ptr64(buf), 0x42, 64, NPU_CMD_DST_HOST),
		npu_copy_cmd(self->va, ptr64(plain), 64, NPU_CMD_SRC_HOST),
	};
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, batch, 2, NULL));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	ASSERT_EQ(-1, npu_check_byte(buf, 64, 0));

	/* Exactly up to the end is fine. */
	c = npu_copy_cmd(self->va, ptr64(buf) + 2 * len - 64, 64, NPU_CMD_SRC_HOST);
	EXPECT_EQ(0, npu_submit(self->fd, self->stream, &c, 1, &seq));
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));

	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	/* Once unregistered it is unregistered memory. */
	c = npu_copy_cmd(self->va, ptr64(buf), 64, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	ASSERT_EQ(0, npu_unregister(self->fd, buf + len));
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* fork                                                                */
/* ------------------------------------------------------------------ */

TEST_F(host, fork_device_keeps_parent_pages)
{
	size_t len = 64 * SZ_4K;
	unsigned char *buf = npu_host_mem(len), *out = npu_host_mem(len);
	int status;
	pid_t pid;

	ASSERT_NONNULL(buf);
	ASSERT_NONNULL(out);
	fill(buf, len, 0x10);
	ASSERT_EQ(0, npu_register(self->fd, buf, len, 0, 0));
	ASSERT_EQ(0, npu_register(self->fd, out, len, 0, 0));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* The child's copy-on-write pages are its own. */
		memset(buf, 0xcc, len);
		CHILD_CHECK(npu_check_byte(buf, len, 0xcc) == -1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(-1, check(buf, len, 0x10));

	/* The device sees the parent's data, not the child's. */
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, buf, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, out, self->va, len));
	ASSERT_EQ(-1, check(out, len, 0x10));

	/* Parent writes after the fork reach the device... */
	fill(buf, len, 0x20);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, buf, len));
	memset(out, 0, len);
	ASSERT_EQ(0, d2h(self->fd, self->stream, out, self->va, len));
	ASSERT_EQ(-1, check(out, len, 0x20));
	/* ...and device writes reach the parent. */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(ptr64(buf), 0x3c, len, NPU_CMD_DST_HOST)));
	ASSERT_EQ(-1, npu_check_byte(buf, len, 0x3c));

	/* Same with a child that keeps running while the device writes. */
	int p2c[2], c2p[2];
	char ch;

	ASSERT_OK(pipe(p2c));
	ASSERT_OK(pipe(c2p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CHILD_CHECK(npu_check_byte(buf, len, 0x3c) == -1);
		memset(buf, 0xdd, len / 2);
		CHILD_CHECK(write(c2p[1], "w", 1) == 1);
		CHILD_CHECK(read(p2c[0], &ch, 1) == 1);
		/* The parent's device memset is not in the child's pages. */
		CHILD_CHECK(npu_check_byte(buf, len / 2, 0xdd) == -1);
		CHILD_CHECK(npu_check_byte(buf + len / 2, len / 2, 0x3c) == -1);
		_exit(0);
	}
	close(c2p[1]);
	close(p2c[0]);
	ASSERT_EQ(1, read(c2p[0], &ch, 1));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(ptr64(buf), 0x99, len, NPU_CMD_DST_HOST)));
	ASSERT_EQ(-1, npu_check_byte(buf, len, 0x99));
	ASSERT_EQ(1, write(p2c[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);

	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_EQ(0, npu_unregister(self->fd, out));
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(host, fork_child_gets_eperm)
{
	size_t len = 16 * SZ_4K;
	unsigned char *buf = npu_host_mem(len), *cbuf = npu_host_mem(len);
	int status;
	pid_t pid;

	ASSERT_NONNULL(buf);
	ASSERT_NONNULL(cbuf);
	ASSERT_EQ(0, npu_register(self->fd, buf, len, 0, 0));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct npu_get_info info;
		struct npu_addr_query q;
		struct npu_cmd c = npu_memset_cmd(ptr64(buf), 1, 64,
						  NPU_CMD_DST_HOST);
		uint32_t h, s;
		int fd2;

		CHILD_CHECK(npu_info(self->fd, &info) == -EPERM);
		CHILD_CHECK(npu_query(self->fd, ptr64(buf), &q) == -EPERM);
		CHILD_CHECK(npu_register(self->fd, cbuf, len, 0, 0) == -EPERM);
		CHILD_CHECK(npu_unregister(self->fd, buf) == -EPERM);
		CHILD_CHECK(npu_submit(self->fd, self->stream, &c, 1, NULL) == -EPERM);
		CHILD_CHECK(npu_sync(self->fd, self->stream, 0) == -EPERM);
		CHILD_CHECK(npu_stream_create(self->fd, &s) == -EPERM);
		CHILD_CHECK(npu_alloc(self->fd, SZ_2M, SZ_2M, &h) == -EPERM);
		CHILD_CHECK(npu_reserve(self->fd, self->va + DEV_LEN, SZ_2M) == -EPERM);
		CHILD_CHECK(npu_set_access(self->fd, self->va, DEV_LEN, self->dev,
					   NPU_ACCESS_NONE) == -EPERM);
		CHILD_CHECK(npu_unmap(self->fd, self->va) == -EPERM);
		CHILD_CHECK(npu_free(self->fd, self->handle) == -EPERM);
		/* The child's pins were not charged anywhere. */
		CHILD_CHECK(npu_status_kb("VmPin") == 0);
		/* Its own context works. */
		fd2 = npu_open(0);
		CHILD_CHECK(fd2 >= 0);
		CHILD_CHECK(npu_register(fd2, cbuf, len, 0, 0) == 0);
		CHILD_CHECK(npu_status_kb("VmPin") == (long long)(len >> 10));
		CHILD_CHECK(npu_unregister(fd2, cbuf) == 0);
		close(fd2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);

	/* The parent's context is intact. */
	struct npu_addr_query q;

	ASSERT_EQ(0, npu_query(self->fd, ptr64(buf), &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, DEV_LEN, self->dev,
				    NPU_ACCESS_READWRITE));
	fill(buf, len, 7);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, buf, len));
	memset(buf, 0, len);
	ASSERT_EQ(0, d2h(self->fd, self->stream, buf, self->va, len));
	ASSERT_EQ(-1, check(buf, len, 7));
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* munmap of a registered range                                        */
/* ------------------------------------------------------------------ */

TEST_F(host, munmap_keeps_pages_until_unregister)
{
	size_t len = SZ_1M;
	unsigned char *buf = npu_host_mem(len), *out = npu_host_mem(len);
	uint64_t dva = npu_hole(len, SZ_4K);
	struct npu_addr_query q;

	ASSERT_NONNULL(buf);
	ASSERT_NONNULL(out);
	ASSERT_NE(0, dva);
	fill(buf, len, 0x33);
	ASSERT_EQ(0, npu_register(self->fd, buf, len, NPU_HOST_MAPPED, dva));
	ASSERT_EQ(0, npu_register(self->fd, out, len, 0, 0));
	ASSERT_OK(munmap(buf, len));
	/* Still pinned. */
	EXPECT_EQ(self->pins0 + 2 * (long long)(len / SZ_4K), npu_pins_held());
	ASSERT_EQ(0, npu_query(self->fd, ptr64(buf), &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);

	/* The device still reads the old data, by host address and by VA. */
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, buf, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, out, self->va, len));
	ASSERT_EQ(-1, check(out, len, 0x33));
	memset(out, 0, len);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(out), dva, len, NPU_CMD_DST_HOST)));
	ASSERT_EQ(-1, check(out, len, 0x33));
	/* And writes into the orphaned pages harm nobody. */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(ptr64(buf), 0x44, len, NPU_CMD_DST_HOST)));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(out), ptr64(buf), len,
					  NPU_CMD_SRC_HOST | NPU_CMD_DST_HOST)));
	ASSERT_EQ(-1, npu_check_byte(out, len, 0x44));

	/* New memory at the same address cannot be registered over it. */
	void *again = mmap(buf, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (again == buf) {
		memset(again, 0x55, len);
		EXPECT_EQ(-EEXIST, npu_register(self->fd, again, len, 0, 0));
		/* And the device still sees the old pages, not the new ones. */
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_copy_cmd(ptr64(out), ptr64(buf), len,
						  NPU_CMD_SRC_HOST | NPU_CMD_DST_HOST)));
		ASSERT_EQ(-1, npu_check_byte(out, len, 0x44));
		ASSERT_EQ(-1, npu_check_byte(again, len, 0x55));
	}

	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_EQ(0, npu_unregister(self->fd, out));
	ASSERT_NOTHING_PINNED(self);
	if (again == buf) {
		ASSERT_EQ(0, npu_register(self->fd, again, len, 0, 0));
		ASSERT_EQ(0, npu_unregister(self->fd, again));
		ASSERT_NOTHING_PINNED(self);
	}
}

/* ------------------------------------------------------------------ */
/* Shared and file-backed mappings                                     */
/* ------------------------------------------------------------------ */

/*
 * What HOST_REGISTER answers for MAP_SHARED memory, per kernel.
 *
 * A tmpfs file and MAP_SHARED|MAP_ANONYMOUS memory are both shmem. Pinning
 * shmem FOLL_LONGTERM | FOLL_WRITE is allowed on 6.1 (only fsdax is
 * refused there) and on 6.12 too: the 6.5+ rule against long-term
 * writable pins of file mappings (writable_file_mapping_allowed(), and
 * folio_fast_pin_allowed() for GUP-fast) exempts shmem, which needs no
 * dirty tracking. Seen on both bench kernels: 0. A file on a filesystem
 * with writeback (ext4, ...) should get -EFAULT on 6.5+ (not
 * testable here: the VM has only tmpfs).
 */
static int expected_shared_result(void)
{
	switch (kernel_version()) {
	case 601:	/* 6.1: fsdax only is refused */
	case 612:	/* 6.12: shmem is exempt from the 6.5+ file rule */
	default:
		return 0;
	}
}

static void shared_case(FIXTURE_DATA(host) *self, unsigned char *buf,
			size_t len, int fd)
{
	int want = expected_shared_result();
	unsigned char *out = npu_host_mem(len);
	int ret;

	ASSERT_NONNULL(out);
	ASSERT_EQ(0, npu_register(self->fd, out, len, 0, 0));
	fill(buf, len, 0x61);
	ret = npu_register(self->fd, buf, len, 0, 0);
	TH_LOG("kernel %d: register of the shared mapping: %d (%s)",
	       kernel_version(), ret, ret ? strerror(-ret) : "ok");
	ASSERT_EQ(want, ret);
	if (ret) {
		EXPECT_EQ(self->pins0 + (long long)(len / SZ_4K), npu_pins_held());
		ASSERT_EQ(0, npu_unregister(self->fd, out));
		ASSERT_NOTHING_PINNED(self);
		return;
	}
	/* Reads and writes go to the shared pages (and the file). */
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, buf, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, out, self->va, len));
	ASSERT_EQ(-1, check(out, len, 0x61));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(ptr64(buf) + SZ_4K, 0x7e, SZ_4K,
					    NPU_CMD_DST_HOST)));
	ASSERT_EQ(-1, npu_check_byte(buf + SZ_4K, SZ_4K, 0x7e));
	if (fd >= 0) {
		unsigned char page[4096];

		ASSERT_EQ((ssize_t)sizeof(page), pread(fd, page, sizeof(page), SZ_4K));
		ASSERT_EQ(-1, npu_check_byte(page, sizeof(page), 0x7e));
	}
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_EQ(0, npu_unregister(self->fd, out));
	ASSERT_NOTHING_PINNED(self);

	/* READONLY of a shared mapping also works. */
	ASSERT_EQ(0, npu_register(self->fd, buf, len, NPU_HOST_READONLY, 0));
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(host, register_tmpfs_file_shared)
{
	size_t len = 64 * SZ_4K;
	char path[] = "/tmp/npu_host_test.XXXXXX";
	int fd = mkstemp(path);
	unsigned char *buf;

	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_OK(ftruncate(fd, len));
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, buf);
	shared_case(self, buf, len, fd);
	close(fd);
}

TEST_F(host, register_shared_anonymous)
{
	size_t len = 64 * SZ_4K;
	unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, buf);
	shared_case(self, buf, len, -1);
}

/* ------------------------------------------------------------------ */
/* More than 2 GiB in one registration                                 */
/* ------------------------------------------------------------------ */

TEST_F_TIMEOUT(host, register_over_2g, 400)
{
	const size_t len = 2048 * SZ_1M + 64 * SZ_1M;
	const size_t offs[] = { 0, len / 2 - 32, 1ULL << 31, len - 64 };
	unsigned char *buf, *out = npu_host_mem(SZ_4K);
	double t0 = now_s();
	uint64_t dva;

	ASSERT_NONNULL(out);
	buf = mmap(NULL, len + SZ_2M, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	/* 2 MiB aligned, so THP can back all of it. */
	buf = (unsigned char *)(((uintptr_t)buf + SZ_2M - 1) & ~(SZ_2M - 1));
	madvise(buf, len, MADV_HUGEPAGE);
	for (size_t i = 0; i < len; i += SZ_4K)
		buf[i] = 1;
	for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++)
		fill(buf + offs[k], 64, 0x40 + k);
	TH_LOG("touched %zu MiB in %.1f s", len >> 20, now_s() - t0);

	dva = npu_hole(len, SZ_1G);
	ASSERT_NE(0, dva);
	t0 = now_s();
	ASSERT_EQ(0, npu_register(self->fd, buf, len, NPU_HOST_MAPPED, dva));
	TH_LOG("registered in %.2f s", now_s() - t0);
	ASSERT_EQ(0, npu_register(self->fd, out, SZ_4K, 0, 0));
	EXPECT_EQ(self->pins0 + (long long)(len / SZ_4K) + 1, npu_pins_held());
	EXPECT_EQ((long long)((len + SZ_4K) >> 10), npu_status_kb("VmPin"));

	for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
		uint64_t dev = self->va + k * SZ_4K;	/* device memory */

		/* Host -> device -> a small buffer. */
		ASSERT_EQ(0, h2d(self->fd, self->stream, dev, buf + offs[k], 64));
		memset(out, 0, 64);
		ASSERT_EQ(0, d2h(self->fd, self->stream, out, dev, 64));
		ASSERT_EQ(-1, check(out, 64, 0x40 + k));
		/* Device -> the big registration, at the same place. */
		memset(buf + offs[k], 0, 64);
		ASSERT_EQ(0, d2h(self->fd, self->stream, buf + offs[k], dev, 64));
		ASSERT_EQ(-1, check(buf + offs[k], 64, 0x40 + k));
		/* The same bytes through the MAPPED device VA. */
		memset(out, 0, 64);
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_copy_cmd(ptr64(out), dva + offs[k], 64,
						  NPU_CMD_DST_HOST)));
		ASSERT_EQ(-1, check(out, 64, 0x40 + k));
	}
	/* A device write through the VA, across the middle. */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(dva + (1ULL << 31) - 8, 0xcd, 16, 0)));
	ASSERT_EQ(-1, npu_check_byte(buf + (1ULL << 31) - 8, 16, 0xcd));
	/* The last byte, and one past it. */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(ptr64(buf) + len - 1, 0xab, 1,
					    NPU_CMD_DST_HOST)));
	ASSERT_EQ(0xab, buf[len - 1]);
	struct npu_cmd c = npu_memset_cmd(ptr64(buf) + len - 1, 0xab, 2,
					  NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));

	t0 = now_s();
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	TH_LOG("unregistered in %.2f s", now_s() - t0);
	ASSERT_EQ(0, npu_unregister(self->fd, out));
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* A process killed with registrations and DMA in flight               */
/* ------------------------------------------------------------------ */

#define KILL_LEN	(64 * SZ_1M)
#define KILL_ROUNDS	64

/*
 * The child: a context with device memory, a registration and big copies
 * queued; if @block_in_unregister, the copies wait behind a WAIT_VALUE
 * that never completes and the child sits in HOST_UNREGISTER.
 */
static void kill_child(int ready_fd, bool block_in_unregister)
{
	int fd = npu_open(0);
	uint32_t h, s, dev;
	uint64_t va;
	unsigned char *buf = npu_host_mem(KILL_LEN);
	uint64_t *flag = npu_host_mem(SZ_4K);
	/* Enough copying (8 GiB) to outlast the parent's wait many times over. */
	struct npu_cmd cmds[1 + 2 * KILL_ROUNDS];
	int n = 0;

	CHILD_CHECK(fd >= 0 && buf && flag);
	dev = dev_index(fd);
	va = devmem_new(fd, dev, KILL_LEN, SZ_2M, &h);
	CHILD_CHECK(va != 0);
	CHILD_CHECK(npu_stream_create(fd, &s) == 0);
	CHILD_CHECK(npu_register(fd, buf, KILL_LEN, NPU_HOST_MAPPED,
				 npu_hole(KILL_LEN, SZ_2M)) == 0);
	CHILD_CHECK(npu_register(fd, flag, SZ_4K, 0, 0) == 0);
	if (block_in_unregister)
		cmds[n++] = (struct npu_cmd){ .op = NPU_OP_WAIT_VALUE,
			.flags = NPU_CMD_SRC_HOST | NPU_WAIT_EQ,
			.src = ptr64(flag), .value = 1 };
	for (int i = 0; i < KILL_ROUNDS; i++) {
		cmds[n++] = npu_copy_cmd(va, ptr64(buf), KILL_LEN, NPU_CMD_SRC_HOST);
		cmds[n++] = npu_copy_cmd(ptr64(buf), va, KILL_LEN, NPU_CMD_DST_HOST);
	}
	CHILD_CHECK(npu_submit(fd, s, cmds, n, NULL) == 0);
	CHILD_CHECK(write(ready_fd, "r", 1) == 1);
	if (block_in_unregister) {
		/* Waits for the queued copies: forever. */
		npu_unregister(fd, buf);
		printf("# child: unregister returned\n");
		_exit(3);
	}
	npu_sync(fd, s, -1);
	_exit(2);
}

FIXTURE(killed) {
	int fd;
	long long pins0;
	long long used0;
};

FIXTURE_VARIANT(killed) {
	bool block_in_unregister;
};

FIXTURE_VARIANT_ADD(killed, dma_running) { .block_in_unregister = false };
FIXTURE_VARIANT_ADD(killed, in_unregister) { .block_in_unregister = true };

FIXTURE_SETUP(killed)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	self->pins0 = npu_pins_held();
	self->used0 = npu_mem_used(self->fd);
	ASSERT_LE(0, self->used0);
}

FIXTURE_TEARDOWN(killed)
{
	close(self->fd);
}

TEST_F_TIMEOUT(killed, sigkill, 120)
{
	int pfd[2], status;
	long long pins = -1, used = -1;
	char ch;
	pid_t pid;

	ASSERT_OK(pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(pfd[0]);
		kill_child(pfd[1], variant->block_in_unregister);
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &ch, 1));
	/* Let the child get into the copies / into the unregister wait. */
	usleep(300 * 1000);
	EXPECT_LT(self->pins0, npu_pins_held());
	EXPECT_LT(self->used0, npu_mem_used(self->fd));
	ASSERT_OK(kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));

	/* Released by the time the parent reaped it; allow a little slack. */
	for (int i = 0; i < 100; i++) {
		pins = npu_pins_held();
		used = npu_mem_used(self->fd);
		if (pins == self->pins0 && used == self->used0)
			break;
		if (i == 0)
			TH_LOG("not released when waitpid returned: pins %lld used %lld",
			       pins, used);
		usleep(100 * 1000);
	}
	ASSERT_EQ(self->pins0, pins);
	ASSERT_EQ(self->used0, used);
}

/* ------------------------------------------------------------------ */
/* RLIMIT_MEMLOCK                                                      */
/* ------------------------------------------------------------------ */

enum { R_4M, R_VMPIN_FAIL, R_512K, R_VMPIN_512, R_512K_B, R_VMPIN_1M,
       R_4K_OVER, R_UNREG_A, R_UNREG_B, R_VMPIN_END, R_4K_AFTER, R_UID, R_NUM };

TEST_F(host, rlimit_memlock_unprivileged)
{
	int res_pipe[2], step_pipe[2], ack_pipe[2], status;
	long long r[R_NUM];
	char ch;
	pid_t pid;

	ASSERT_OK(pipe(res_pipe));
	ASSERT_OK(pipe(step_pipe));
	ASSERT_OK(pipe(ack_pipe));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned char *big, *a, *b, *c;
		int fd, procfd;

		/* the open of /dev/npu0 (0660, group npu) and of status as nobody */
		close(self->fd);
		fd = npu_open_as_nobody(SZ_1M, &procfd);
		if (fd < 0)
			printf("# child: open /dev/npu0 as nobody: %s\n", strerror(-fd));
		CHILD_CHECK(fd >= 0);
		big = npu_host_mem(4 * SZ_1M);
		a = npu_host_mem(SZ_1M / 2);
		b = npu_host_mem(SZ_1M / 2);
		c = npu_host_mem(SZ_4K);
		CHILD_CHECK(big && a && b && c);
		r[R_UID] = getuid();
		r[R_4M] = npu_register(fd, big, 4 * SZ_1M, 0, 0);
		r[R_VMPIN_FAIL] = npu_status_kb_at(procfd, "VmPin");
		/* The parent checks the pin count now. */
		CHILD_CHECK(write(step_pipe[1], "s", 1) == 1);
		CHILD_CHECK(read(ack_pipe[0], &ch, 1) == 1);
		r[R_512K] = npu_register(fd, a, SZ_1M / 2, 0, 0);
		r[R_VMPIN_512] = npu_status_kb_at(procfd, "VmPin");
		/* Exactly the limit is allowed, one page more is not. */
		r[R_512K_B] = npu_register(fd, b, SZ_1M / 2, NPU_HOST_READONLY, 0);
		r[R_VMPIN_1M] = npu_status_kb_at(procfd, "VmPin");
		r[R_4K_OVER] = npu_register(fd, c, SZ_4K, 0, 0);
		r[R_UNREG_A] = npu_unregister(fd, a);
		r[R_UNREG_B] = npu_unregister(fd, b);
		r[R_VMPIN_END] = npu_status_kb_at(procfd, "VmPin");
		r[R_4K_AFTER] = npu_register(fd, c, SZ_4K, 0, 0);
		CHILD_CHECK(write(res_pipe[1], r, sizeof(r)) == sizeof(r));
		_exit(0);
	}
	close(res_pipe[1]);
	close(step_pipe[1]);
	close(ack_pipe[0]);
	ASSERT_EQ(1, read(step_pipe[0], &ch, 1));
	EXPECT_EQ(self->pins0, npu_pins_held());
	ASSERT_EQ(1, write(ack_pipe[1], "a", 1));
	ASSERT_EQ((ssize_t)sizeof(r), read(res_pipe[0], r, sizeof(r)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);

	EXPECT_EQ(65534, r[R_UID]);
	EXPECT_EQ(-ENOMEM, r[R_4M]);
	EXPECT_EQ(0, r[R_VMPIN_FAIL]);
	EXPECT_EQ(0, r[R_512K]);
	EXPECT_EQ(512, r[R_VMPIN_512]);
	EXPECT_EQ(0, r[R_512K_B]);
	EXPECT_EQ(1024, r[R_VMPIN_1M]);
	EXPECT_EQ(-ENOMEM, r[R_4K_OVER]);
	EXPECT_EQ(0, r[R_UNREG_A]);
	EXPECT_EQ(0, r[R_UNREG_B]);
	EXPECT_EQ(0, r[R_VMPIN_END]);
	EXPECT_EQ(0, r[R_4K_AFTER]);
	/* The child's close released its last registration. */
	ASSERT_NOTHING_PINNED(self);
}

/* /dev/npuN is root:npu 0660: a user outside the group cannot open it. */
TEST(node_needs_the_npu_group)
{
	int status, devfd = open("/dev", O_PATH | O_DIRECTORY);
	struct stat st;
	pid_t pid;

	ASSERT_LE(0, devfd);
	ASSERT_OK(stat("/dev/npu0", &st));
	EXPECT_EQ(0660, st.st_mode & 07777);
	EXPECT_EQ(NPU_GID, st.st_gid);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		CHILD_CHECK(setgroups(0, NULL) == 0);
		CHILD_CHECK(setgid(65534) == 0);
		CHILD_CHECK(setuid(65534) == 0);
		fd = openat(devfd, "npu0", O_RDWR | O_CLOEXEC);
		CHILD_CHECK(fd < 0 && errno == EACCES);
		CHILD_CHECK(setgroups(1, (gid_t[]){ NPU_GID }) == -1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CHILD_CHECK(setgroups(1, (gid_t[]){ NPU_GID }) == 0);
		CHILD_CHECK(setgid(65534) == 0);
		CHILD_CHECK(setuid(65534) == 0);
		CHILD_CHECK(openat(devfd, "npu0", O_RDWR | O_CLOEXEC) >= 0);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	close(devfd);
}

/*
 * The exec'd half of rlimit_memlock_is_the_users: runs from a constructor
 * when NPU_TEST_EXEC_HELPER="RESFD,ACKFD" is set, before the harness.
 * Each step registers 1 MiB (the whole limit) on a new file and reports
 * the result; the parent counts the pins between the steps.
 */
static void memlock_step(int res, int ack, int ret)
{
	char ch;

	if (write(res, &ret, sizeof(ret)) != sizeof(ret) || read(ack, &ch, 1) != 1)
		_exit(3);
}

static void memlock_register_1m(int res, int ack)
{
	void *buf = npu_host_mem(SZ_1M);
	int fd = open("/dev/npu0", O_RDWR);	/* kept across the fork */

	if (fd < 0 || !buf)
		memlock_step(res, ack, fd < 0 ? -errno : -ENOMEM);
	else
		memlock_step(res, ack, npu_register(fd, buf, SZ_1M, 0, 0));
}

__attribute__((constructor)) static void memlock_exec_helper(void)
{
	const char *env = getenv("NPU_TEST_EXEC_HELPER");
	int res, ack, gone[2];
	pid_t pid;
	char ch;

	if (!env || sscanf(env, "%d,%d", &res, &ack) != 2)
		return;
	/* After exec: the old image's file is still open, its mm is gone. */
	memlock_register_1m(res, ack);
	/* Fork, then exit: the child keeps both files open. */
	if (pipe(gone))
		_exit(4);
	pid = fork();
	if (pid < 0)
		_exit(5);
	if (pid > 0)
		_exit(0);
	close(gone[1]);
	/* EOF once the parent, the only writer left, has exited. */
	while (read(gone[0], &ch, 1) > 0)
		;
	memlock_register_1m(res, ack);
	_exit(0);
}

/*
 * RLIMIT_MEMLOCK binds the user, not one mm: a file that outlives its
 * process (kept open across exec, or inherited by a child after the
 * parent exited) once let an unprivileged process tree pin the limit
 * again in every new mm. Now pins go when the mm that made them goes, and
 * what is pinned never exceeds the limit.
 */
TEST_F(host, rlimit_memlock_is_the_users)
{
	int res[2], ack[2], r, status;
	pid_t pid;

	ASSERT_OK(pipe(res));
	ASSERT_OK(pipe(ack));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { .rlim_cur = SZ_1M, .rlim_max = SZ_1M };
		void *a = npu_host_mem(SZ_1M), *c = npu_host_mem(SZ_4K);
		char env[64];
		int fd, fd2;

		CHILD_CHECK(a && c);
		close(self->fd);
		CHILD_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
		CHILD_CHECK(setgroups(1, (gid_t[]){ NPU_GID }) == 0);
		CHILD_CHECK(setgid(65533) == 0);
		CHILD_CHECK(setuid(65533) == 0);
		fd = open("/dev/npu0", O_RDWR);		/* no O_CLOEXEC */
		fd2 = open("/dev/npu0", O_RDWR | O_CLOEXEC);
		CHILD_CHECK(fd >= 0 && fd2 >= 0);
		r = npu_register(fd, a, SZ_1M, 0, 0);
		/* The limit is the user's, across files. */
		CHILD_CHECK(npu_register(fd2, c, SZ_4K, 0, 0) == -ENOMEM);
		memlock_step(res[1], ack[0], r);
		snprintf(env, sizeof(env), "NPU_TEST_EXEC_HELPER=%d,%d", res[1], ack[0]);
		execle("/tests/npu_host_test", "npu_host_test", (char *)NULL,
		       (char *[]){ env, NULL });
		_exit(6);
	}
	close(res[1]);
	close(ack[0]);
	/* Before exec, after exec, in the child of the exited process. */
	for (int step = 0; step < 3; step++) {
		long long held;

		ASSERT_EQ((ssize_t)sizeof(r), read(res[0], &r, sizeof(r)));
		held = npu_pins_held() - self->pins0;
		TH_LOG("step %d: register %d, %lld pages pinned", step, r, held);
		EXPECT_EQ(0, r);
		/* 256 pages: one registration of 1 MiB, never two. */
		EXPECT_EQ(256, held);
		ASSERT_EQ(1, write(ack[1], "a", 1));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	/* EOF: the last process exited and took its pins with it. */
	ASSERT_EQ(0, read(res[0], &r, sizeof(r)));
	for (int i = 0; i < 100 && npu_pins_held() != self->pins0; i++)
		usleep(20 * 1000);
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(host, rlimit_memlock_root_cap_ipc_lock)
{
	struct rlimit rl = { .rlim_cur = SZ_1M, .rlim_max = SZ_1M };
	unsigned char *big = npu_host_mem(4 * SZ_1M);

	ASSERT_NONNULL(big);
	ASSERT_EQ(0, geteuid());
	ASSERT_OK(setrlimit(RLIMIT_MEMLOCK, &rl));
	ASSERT_EQ(0, npu_register(self->fd, big, 4 * SZ_1M, 0, 0));
	EXPECT_EQ(4096, npu_status_kb("VmPin"));
	EXPECT_EQ(self->pins0 + 1024, npu_pins_held());
	ASSERT_EQ(0, npu_unregister(self->fd, big));
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* Unregister waits for DMA in flight                                  */
/* ------------------------------------------------------------------ */

#define WAIT_LEN	(64 * SZ_1M)

static void *set_flag_later(void *arg)
{
	usleep(500 * 1000);
	__atomic_store_n((uint64_t *)arg, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

TEST_F_TIMEOUT(host, unregister_waits_for_dma, 120)
{
	unsigned char *buf = npu_host_mem(WAIT_LEN), *out = npu_host_mem(WAIT_LEN);
	uint64_t *flag = npu_host_mem(SZ_4K);
	uint32_t h;
	uint64_t va = devmem_new(self->fd, self->dev, WAIT_LEN, SZ_2M, &h), seq;
	pthread_t thr;
	double t0, dt;

	ASSERT_NONNULL(buf);
	ASSERT_NONNULL(out);
	ASSERT_NONNULL(flag);
	ASSERT_NE(0, va);
	fill(buf, WAIT_LEN, 0x71);
	ASSERT_EQ(0, npu_register(self->fd, buf, WAIT_LEN, 0, 0));
	ASSERT_EQ(0, npu_register(self->fd, flag, SZ_4K, 0, 0));

	/* 1: a plain big copy, unregistered right after submit. */
	struct npu_cmd c = npu_copy_cmd(va, ptr64(buf), WAIT_LEN, NPU_CMD_SRC_HOST);

	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &c, 1, &seq));
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	/* Unregister returned after the copy completed. */
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 0));
	ASSERT_EQ(0, npu_register(self->fd, out, WAIT_LEN, 0, 0));
	ASSERT_EQ(0, d2h(self->fd, self->stream, out, va, WAIT_LEN));
	ASSERT_EQ(-1, check(out, WAIT_LEN, 0x71));

	/*
	 * 2: the copy waits behind a WAIT_VALUE that a thread releases after
	 * 500 ms, so it is certainly still queued when unregister starts.
	 */
	fill(buf, WAIT_LEN, 0x72);
	ASSERT_EQ(0, npu_register(self->fd, buf, WAIT_LEN, 0, 0));
	struct npu_cmd cmds[2] = {
		{ .op = NPU_OP_WAIT_VALUE, .flags = NPU_CMD_SRC_HOST | NPU_WAIT_GEQ,
		  .src = ptr64(flag), .value = 1 },
		npu_copy_cmd(va, ptr64(buf), WAIT_LEN, NPU_CMD_SRC_HOST),
	};
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 2, &seq));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->stream, 0));
	ASSERT_EQ(0, pthread_create(&thr, NULL, set_flag_later, flag));
	t0 = now_s();
	ASSERT_EQ(0, npu_unregister(self->fd, buf));
	dt = now_s() - t0;
	pthread_join(thr, NULL);
	TH_LOG("unregister waited %.2f s", dt);
	EXPECT_LE(0.4, dt);
	/* Already done, without waiting; the data arrived. */
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 0));
	/* And the registration was gone as soon as unregister started. */
	c = npu_copy_cmd(va, ptr64(buf), 64, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	memset(out, 0, WAIT_LEN);
	ASSERT_EQ(0, d2h(self->fd, self->stream, out, va, WAIT_LEN));
	ASSERT_EQ(-1, check(out, WAIT_LEN, 0x72));

	ASSERT_EQ(0, npu_unregister(self->fd, out));
	ASSERT_EQ(0, npu_unregister(self->fd, flag));
	ASSERT_NOTHING_PINNED(self);
}

/*
 * An UNREGISTER that waited for a command returns after the command is
 * recorded complete, every time: the engine lets go of the registration
 * only after the record (it once did so before, and a poll right after
 * the unregister could miss the completion).
 */
#define RACE_ROUNDS	1000
#define RACE_LEN	(256 * 1024)

TEST_F(host, unregister_returns_after_the_completion)
{
	unsigned char *buf = npu_host_mem(RACE_LEN);
	int i, missed = 0;

	ASSERT_NONNULL(buf);
	for (i = 0; i < RACE_ROUNDS; i++) {
		struct npu_cmd c = npu_copy_cmd(self->va, ptr64(buf), RACE_LEN,
						NPU_CMD_SRC_HOST);

		ASSERT_EQ(0, npu_register(self->fd, buf, RACE_LEN, 0, 0));
		ASSERT_EQ(0, npu_submit(self->fd, self->stream, &c, 1, NULL));
		ASSERT_EQ(0, npu_unregister(self->fd, buf));
		if (npu_sync(self->fd, self->stream, 0)) {
			missed++;
			ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
		}
	}
	if (missed)
		TH_LOG("%d of %d polls after UNREGISTER missed the completion",
		       missed, RACE_ROUNDS);
	EXPECT_EQ(0, missed);
	ASSERT_NOTHING_PINNED(self);
}

TEST_HARNESS_MAIN
