// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_user_copy_test.c - commands whose host operand is pageable
 * memory of the caller (NPU_CMD_DST_USER, NPU_CMD_SRC_USER): pinned and
 * charged at SUBMIT for the command only, unpinned when it ends.
 *
 * Every failing call is checked for its exact errno (include/uapi/npu.h),
 * and every test for leaving nothing pinned: the system's FOLL_PIN count
 * (npu_pins_held()) is back where it was, and VmPin/VmLck are 0 again. A
 * queued command's pins are long-term pins charged as a registration's
 * are (RLIMIT_MEMLOCK, VmPin) until the command ends (driver 1.5).
 *
 * Runs as root in the VM (tools/vm-run -- run-tests npu_user_copy_test).
 */
#include "harness.h"
#include "npu_util.h"

#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define SZ_1M		0x100000UL
#define DEV_LEN		(4 * SZ_1M)

#define DU		NPU_CMD_DST_USER
#define SU		NPU_CMD_SRC_USER

/* In a forked child of a test: no ASSERT (it would longjmp into the test). */
#define CHILD_CHECK(cond) do {							\
	if (!(cond)) {								\
		printf("# %s:%d: child: check failed: %s\n", __FILE__,		\
		       __LINE__, #cond);					\
		fflush(stdout);							\
		_exit(1);							\
	}									\
} while (0)

/* Nothing more is pinned than at the fixture's start, nothing charged. */
#define ASSERT_NOTHING_PINNED(self) do {					\
	ASSERT_EQ((self)->pins0, npu_pins_held());				\
	ASSERT_EQ(0, npu_status_kb("VmPin"));					\
	ASSERT_EQ(0, npu_status_kb("VmLck"));					\
} while (0)

static uint64_t devmem_new(int fd, uint64_t len, uint32_t *handle)
{
	struct npu_get_info info;
	uint64_t va;

	if (npu_info(fd, &info) || npu_alloc(fd, len, SZ_2M, handle))
		return 0;
	va = npu_reserve_new(fd, len, SZ_2M);
	if (!va || npu_map(fd, va, len, *handle) ||
	    npu_set_access(fd, va, len, info.device_index, NPU_ACCESS_READWRITE))
		return 0;
	return va;
}

static int h2d(int fd, uint32_t s, uint64_t dva, const void *src, uint64_t len)
{
	return npu_run(fd, s, npu_copy_cmd(dva, ptr64(src), len, SU));
}

static int d2h(int fd, uint32_t s, void *dst, uint64_t dva, uint64_t len)
{
	return npu_run(fd, s, npu_copy_cmd(ptr64(dst), dva, len, DU));
}

static unsigned char pat(size_t i, unsigned int seed)
{
	return (unsigned char)(i * 131 + (i >> 12) * 7 + seed);
}

static void fill(void *p, size_t len, unsigned int seed)
{
	unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		b[i] = pat(i, seed);
}

static long long check(const void *p, size_t len, unsigned int seed)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != pat(i, seed))
			return (long long)i;
	return -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

FIXTURE(user) {
	int fd;
	uint32_t stream;
	uint32_t handle;
	uint64_t va;
	long long pins0;
};

FIXTURE_SETUP(user)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->va = devmem_new(self->fd, DEV_LEN, &self->handle);
	ASSERT_NE(0, self->va);
	self->pins0 = npu_pins_held();
	ASSERT_LE(0, self->pins0);
	ASSERT_EQ(0, npu_status_kb("VmPin"));
}

FIXTURE_TEARDOWN(user)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* ------------------------------------------------------------------ */
/* Bad inputs                                                          */
/* ------------------------------------------------------------------ */

TEST_F(user, bad_flags_einval)
{
	unsigned char *buf = npu_host_mem(SZ_4K);
	uint64_t b = ptr64(buf), va = self->va;
	struct npu_cmd bad[] = {
		npu_copy_cmd(b, va, 16, DU | NPU_CMD_DST_HOST),
		npu_copy_cmd(b, va, 16, DU | NPU_CMD_DST_PEER),
		npu_copy_cmd(va, b, 16, SU | NPU_CMD_SRC_HOST),
		npu_copy_cmd(va, b, 16, SU | NPU_CMD_SRC_PEER),
		npu_copy_cmd(b, va, 0, DU),
		npu_memset_cmd(b, 1, 16, SU),
		npu_memset_cmd(b, 1, 16, DU | NPU_CMD_DST_HOST),
		npu_value_cmd(NPU_OP_WRITE_VALUE, b, 1, SU),
		npu_value_cmd(NPU_OP_WAIT_VALUE, b, 1, DU),
		npu_value_cmd(NPU_OP_WAIT_VALUE, b, 1, SU | NPU_CMD_SRC_HOST),
		{ .op = NPU_OP_WAIT_STREAM, .flags = SU, .src = self->stream + 1 },
		/* longer than a registration may be */
		npu_copy_cmd(va, b, NPU_HOST_MAX_LENGTH + 1, SU),
		/* wraps */
		npu_copy_cmd(va, ~0ULL - 8, 16, SU),
	};

	ASSERT_NE(NULL, buf);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TH_LOG("command %zu", i);
		EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &bad[i], 1, NULL));
	}
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, 0));
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(user, unmapped_efault)
{
	unsigned char *ro = mmap(NULL, 2 * SZ_4K, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *none = mmap(NULL, SZ_4K, PROT_NONE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *half = npu_host_mem(2 * SZ_4K);
	void *hole = npu_unmapped_range(SZ_1M);
	uint64_t top = 0x800000000000ULL - SZ_4K, va = self->va;

	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_NE(MAP_FAILED, none);
	ASSERT_NE(NULL, half);
	ASSERT_NE(NULL, hole);
	/* the second page of @half goes away: a range half mapped */
	ASSERT_EQ(0, munmap(half + SZ_4K, SZ_4K));

	EXPECT_EQ(-EFAULT, h2d(self->fd, self->stream, va, hole, SZ_4K));
	EXPECT_EQ(-EFAULT, d2h(self->fd, self->stream, hole, va, SZ_4K));
	EXPECT_EQ(-EFAULT, h2d(self->fd, self->stream, va, none, 16));
	EXPECT_EQ(-EFAULT, h2d(self->fd, self->stream, va, half, 2 * SZ_4K));
	EXPECT_EQ(-EFAULT, d2h(self->fd, self->stream, half + 100, va, SZ_4K));
	/* beyond the user address space */
	EXPECT_EQ(-EFAULT, h2d(self->fd, self->stream, va, (void *)(uintptr_t)top, 2 * SZ_4K));
	EXPECT_EQ(-EFAULT, d2h(self->fd, self->stream, (void *)(uintptr_t)(1ULL << 63), va, 8));
	/* a device write into a read-only mapping */
	EXPECT_EQ(-EFAULT, d2h(self->fd, self->stream, ro, va, 16));
	EXPECT_EQ(-EFAULT, npu_run(self->fd, self->stream, npu_memset_cmd(ptr64(ro), 1, 16, DU)));
	EXPECT_EQ(-EFAULT, npu_run(self->fd, self->stream,
				   npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(ro), 1, DU)));
	/* reading it is fine: the zero page */
	EXPECT_EQ(0, h2d(self->fd, self->stream, va, ro, 2 * SZ_4K));

	/* A batch with one bad command queues none. */
	{
		struct npu_cmd cmds[3] = {
			npu_memset_cmd(va, 7, 64, 0),
			npu_copy_cmd(va, ptr64(half), 64, SU),
			npu_copy_cmd(va, ptr64(hole), 64, SU),
		};
		uint64_t seq = 0;

		EXPECT_EQ(-EFAULT, npu_submit(self->fd, self->stream, cmds, 3, &seq));
		EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));
	}
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* Integrity                                                           */
/* ------------------------------------------------------------------ */

/* Random H2D writes and D2H reads at other offsets and lengths, checked
 * against a model of the whole device buffer; host sides unaligned, with
 * guard bytes around every destination. */
TEST_F_TIMEOUT(user, integrity_against_model, 300)
{
	size_t len = DEV_LEN, glen = 64;
	unsigned char *model = malloc(len);
	unsigned char *src = npu_host_mem(len + 2 * SZ_4K);
	unsigned char *dst = npu_host_mem(len + 2 * SZ_4K);
	unsigned int seed = 12345;

	ASSERT_NE(NULL, model);
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	fill(model, len, 3);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, model, len));
	for (int it = 0; it < 300; it++) {
		size_t off = rand_r(&seed) % len, n, hoff = rand_r(&seed) % (2 * SZ_4K);
		int kind = rand_r(&seed) % 8;

		if (kind == 0)
			n = 1 + rand_r(&seed) % 16;
		else if (kind < 5)
			n = 1 + rand_r(&seed) % (3 * SZ_4K);
		else
			n = 1 + rand_r(&seed) % (len / 2);
		if (off + n > len)
			n = len - off;
		if (it % 2 == 0) {
			fill(src + hoff, n, it);
			ASSERT_EQ(0, h2d(self->fd, self->stream, self->va + off, src + hoff, n));
			memcpy(model + off, src + hoff, n);
		} else {
			if (hoff < glen)
				hoff = glen;
			if (hoff + n + glen > len + 2 * SZ_4K)
				n = len + 2 * SZ_4K - glen - hoff;
			memset(dst + hoff - glen, 0xa5, n + 2 * glen);
			ASSERT_EQ(0, d2h(self->fd, self->stream, dst + hoff, self->va + off, n));
			if (memcmp(dst + hoff, model + off, n))
				TH_LOG("iteration %d: d2h off %zu len %zu", it, off, n);
			ASSERT_EQ(0, memcmp(dst + hoff, model + off, n));
			ASSERT_EQ(-1, npu_check_byte(dst + hoff - glen, glen, 0xa5));
			ASSERT_EQ(-1, npu_check_byte(dst + hoff + n, glen, 0xa5));
		}
	}
	/* the whole buffer at the end */
	memset(dst, 0, len);
	ASSERT_EQ(0, d2h(self->fd, self->stream, dst, self->va, len));
	ASSERT_EQ(0, memcmp(dst, model, len));
	free(model);
	ASSERT_NOTHING_PINNED(self);
}

/* Many commands in one SUBMIT, some pageable, some device-only. */
TEST_F(user, batch_mixed)
{
	unsigned char *src = npu_host_mem(SZ_1M), *dst = npu_host_mem(SZ_1M);
	struct npu_cmd cmds[64];
	size_t piece = SZ_1M / 32;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	fill(src, SZ_1M, 9);
	for (int i = 0; i < 32; i++)
		cmds[i] = npu_copy_cmd(self->va + i * piece, ptr64(src + i * piece), piece, SU);
	for (int i = 0; i < 32; i++)
		cmds[32 + i] = i % 2 ?
			npu_copy_cmd(ptr64(dst + i * piece), self->va + i * piece, piece, DU) :
			npu_copy_cmd(self->va + SZ_2M + i * piece, self->va + i * piece, piece, 0);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 64, NULL));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	for (int i = 0; i < 32; i++) {
		if (i % 2 == 0)
			ASSERT_EQ(0, d2h(self->fd, self->stream, dst + i * piece,
					 self->va + SZ_2M + i * piece, piece));
	}
	ASSERT_EQ(-1, check(dst, SZ_1M, 9));
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(user, memset_write_value_timestamp_wait_value)
{
	unsigned char *buf = npu_host_mem(3 * SZ_4K);
	uint64_t *val = (uint64_t *)(buf + 2 * SZ_4K);
	uint32_t s2;

	ASSERT_NE(NULL, buf);
	memset(buf, 0x11, 3 * SZ_4K);
	/* across a page boundary, unaligned */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(ptr64(buf + 100), 0x5a, SZ_4K + 50, DU)));
	EXPECT_EQ(-1, npu_check_byte(buf, 100, 0x11));
	EXPECT_EQ(-1, npu_check_byte(buf + 100, SZ_4K + 50, 0x5a));
	EXPECT_EQ(-1, npu_check_byte(buf + 150 + SZ_4K, SZ_4K - 150, 0x11));

	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(val), 0x1234567890ULL, DU)));
	EXPECT_EQ(0x1234567890ULL, *val);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     (struct npu_cmd){ .op = NPU_OP_TIMESTAMP, .flags = DU,
					       .dst = ptr64(val + 1) }));
	EXPECT_NE(0, val[1]);

	/* a WAIT_VALUE on pageable memory sees the CPU's later write */
	val[2] = 0;
	ASSERT_EQ(0, npu_stream_create(self->fd, &s2));
	{
		struct npu_cmd w = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(&val[2]), 5,
						 SU | NPU_WAIT_GEQ);

		ASSERT_EQ(0, npu_submit(self->fd, s2, &w, 1, NULL));
	}
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, s2, 50));
	__atomic_store_n(&val[2], 7, __ATOMIC_RELEASE);
	EXPECT_EQ(0, npu_sync(self->fd, s2, 10000));
	ASSERT_NOTHING_PINNED(self);
}

/* Queue a WAIT_VALUE for 1 at @flag; write it from the CPU; 0 if seen. */
static int wait_sees_write(int fd, uint32_t s, uint64_t *flag)
{
	struct npu_cmd w = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(flag), 1,
					 SU | NPU_WAIT_GEQ);
	int ret = npu_submit(fd, s, &w, 1, NULL);

	if (ret)
		return ret;
	usleep(20000);
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	return npu_sync(fd, s, 5000);
}

/*
 * A WAIT_VALUE on pageable memory that the process has only read, or not
 * touched at all, still sees the CPU's later write (second kernel review,
 * finding 6: a short-term read pin held the shared zero page, or the page
 * cache's page of a private file mapping, while the CPU's write went to a
 * new page - the wait timed out).
 */
TEST_F(user, wait_value_on_untouched_and_private_file_pages)
{
	int mfd = memfd_create("npu_wait", MFD_CLOEXEC);
	uint64_t *anon, *file;
	uint32_t s;

	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, SZ_4K));
	anon = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)anon);
	file = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE, MAP_PRIVATE, mfd, 0);
	ASSERT_NE(MAP_FAILED, (void *)file);
	/* read only: the zero page, and the file's page-cache page */
	EXPECT_EQ(0, *(volatile uint64_t *)anon);
	EXPECT_EQ(0, *(volatile uint64_t *)file);

	ASSERT_EQ(0, npu_stream_create(self->fd, &s));
	EXPECT_EQ(0, wait_sees_write(self->fd, s, anon + 1));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, s, NPU_STREAM_DESTROY_FORCE));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s));
	EXPECT_EQ(0, wait_sees_write(self->fd, s, file + 1));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, s, NPU_STREAM_DESTROY_FORCE));
	/* the file itself was never written */
	{
		uint64_t v = 7;

		ASSERT_EQ((ssize_t)sizeof(v), pread(mfd, &v, sizeof(v), 8));
		EXPECT_EQ(0, v);
	}
	munmap(anon, SZ_4K);
	munmap(file, SZ_4K);
	close(mfd);
	ASSERT_NOTHING_PINNED(self);
}

static struct npu_cmd copy2d_cmd(uint64_t dst, uint64_t dpitch, uint64_t src,
				  uint64_t spitch, uint64_t width, uint64_t height,
				  uint32_t flags)
{
	return (struct npu_cmd){ .op = NPU_OP_COPY_2D, .flags = flags,
				 .dst = dst, .src = src, .length = width,
				 .dst_pitch = dpitch, .src_pitch = spitch,
				 .height = height };
}

/*
 * COPY_2D with a pageable side: the whole span is pinned (gaps too), the
 * rows land where the pitches say, the gaps of a destination stay; FILL32
 * into pageable memory.
 */
TEST_F(user, copy_2d_and_fill32)
{
	size_t w = 3000, hp = 5000, dp = 4096, rows = 300;
	size_t span = (rows - 1) * hp + w;
	unsigned char *src = npu_host_mem(span), *dst = npu_host_mem(span);
	uint32_t *words = (uint32_t *)npu_host_mem(SZ_4K * 2);

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	ASSERT_NE(NULL, words);
	fill(src, span, 91);
	memset(dst, 0xee, span);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     copy2d_cmd(self->va, dp, ptr64(src), hp, w, rows, SU)));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     copy2d_cmd(ptr64(dst), hp, self->va, dp, w, rows, DU)));
	for (size_t r = 0; r < rows; r++) {
		ASSERT_EQ(0, memcmp(dst + r * hp, src + r * hp, w));
		if (r + 1 < rows)
			ASSERT_EQ(-1, npu_check_byte(dst + r * hp + w, hp - w, 0xee));
	}
	/* a span running into what is not mapped: -EFAULT, nothing pinned */
	{
		size_t l = (span + SZ_4K - 1) & ~(SZ_4K - 1);
		unsigned char *r = mmap(NULL, 2 * l, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, r);
		ASSERT_EQ(0, munmap(r + l, l));
		EXPECT_EQ(-EFAULT, npu_run(self->fd, self->stream,
					   copy2d_cmd(ptr64(r), hp, self->va, dp, w,
						      2 * rows - 10, DU)));
		munmap(r, l);
	}
	EXPECT_EQ(-EINVAL, npu_run(self->fd, self->stream,
				   copy2d_cmd(ptr64(dst), hp, self->va, dp, w, rows,
					      DU | NPU_CMD_DST_HOST)));

	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     (struct npu_cmd){ .op = NPU_OP_FILL32, .flags = DU,
					       .dst = ptr64(words + 4), .value = 0xdeadbeef,
					       .length = SZ_4K }));
	EXPECT_EQ(0, words[3]);
	for (size_t i = 4; i < 4 + SZ_4K / 4; i++)
		ASSERT_EQ(0xdeadbeefU, words[i]);
	EXPECT_EQ(0, words[4 + SZ_4K / 4]);
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* Kinds of memory                                                     */
/* ------------------------------------------------------------------ */

static void file_case(FIXTURE_DATA(user) *self, int fd, size_t len)
{
	unsigned char *rw, *ro, *back = npu_host_mem(len);

	ASSERT_NE(NULL, back);
	ASSERT_EQ(0, ftruncate(fd, len));
	rw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ro = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, rw);
	ASSERT_NE(MAP_FAILED, ro);
	fill(rw, len, 21);
	/* H2D from the read-only shared mapping of the file */
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, ro + 1, len - 1));
	ASSERT_EQ(0, d2h(self->fd, self->stream, back, self->va, len - 1));
	ASSERT_EQ(0, memcmp(back, rw + 1, len - 1));
	/* D2H into the read-only mapping: -EFAULT; into the writable one: */
	EXPECT_EQ(-EFAULT, d2h(self->fd, self->stream, ro, self->va, 16));
	fill(back, len, 22);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, back, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, rw, self->va, len));
	EXPECT_EQ(-1, check(ro, len, 22));
	/* the file has it: read back through the file, not the mapping */
	memset(back, 0, len);
	ASSERT_EQ((ssize_t)len, pread(fd, back, len, 0));
	EXPECT_EQ(-1, check(back, len, 22));
	munmap(rw, len);
	munmap(ro, len);
	munmap(back, len);
	close(fd);
	ASSERT_NOTHING_PINNED(self);
}

TEST_F(user, tmpfs_file_shared)
{
	char path[] = "/dev/shm/npu_user_XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		fd = memfd_create("npu_user", MFD_CLOEXEC);
	} else {
		unlink(path);
	}
	ASSERT_LE(0, fd);
	file_case(self, fd, 3 * SZ_1M / 2);
}

TEST_F(user, memfd_shared)
{
	int fd = memfd_create("npu_user", MFD_CLOEXEC);

	ASSERT_LE(0, fd);
	file_case(self, fd, SZ_1M + 3 * SZ_4K);
}

TEST_F(user, shared_anonymous)
{
	size_t len = SZ_1M;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned char *back = npu_host_mem(len);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, back);
	fill(p, len, 31);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, p, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, back, self->va, len));
	EXPECT_EQ(-1, check(back, len, 31));
	fill(back, len, 32);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, back, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, p, self->va, len));
	EXPECT_EQ(-1, check(p, len, 32));
	ASSERT_NOTHING_PINNED(self);
}

/* A source made read-only after it was written, and one never written. */
TEST_F(user, readonly_source)
{
	size_t len = 256 * 1024;
	unsigned char *p = npu_host_mem(len), *z, *back = npu_host_mem(len);

	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, back);
	fill(p, len, 41);
	ASSERT_EQ(0, mprotect(p, len, PROT_READ));
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, p, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, back, self->va, len));
	EXPECT_EQ(-1, check(back, len, 41));
	EXPECT_EQ(-EFAULT, d2h(self->fd, self->stream, p, self->va, len));
	EXPECT_EQ(-1, check(p, len, 41));

	z = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, z);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, z, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, back, self->va, len));
	EXPECT_EQ(-1, npu_check_byte(back, len, 0));
	/* the zero page was read; the process's write now goes to its own page */
	memset(z, 3, len);
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, z, len));
	ASSERT_EQ(0, d2h(self->fd, self->stream, back, self->va, len));
	EXPECT_EQ(-1, npu_check_byte(back, len, 3));
	ASSERT_NOTHING_PINNED(self);
}

/* A private file mapping: the device's write is the process's, not the file's. */
TEST_F(user, private_file_mapping)
{
	size_t len = 64 * 1024;
	int fd = memfd_create("npu_user", MFD_CLOEXEC);
	unsigned char *p, *file = npu_host_mem(len);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, file);
	fill(file, len, 51);
	ASSERT_EQ((ssize_t)len, pwrite(fd, file, len, 0));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	/* read through the page cache */
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, p, len));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(ptr64(p), 0x77, len, DU)));
	EXPECT_EQ(-1, npu_check_byte(p, len, 0x77));
	ASSERT_EQ((ssize_t)len, pread(fd, file, len, 0));
	EXPECT_EQ(-1, check(file, len, 51));
	ASSERT_EQ(0, d2h(self->fd, self->stream, file, self->va, len));
	EXPECT_EQ(-1, check(file, len, 51));
	munmap(p, len);
	close(fd);
	ASSERT_NOTHING_PINNED(self);
}

/*
 * MAP_PRIVATE after fork: a device write into the parent's buffer breaks
 * COW as a CPU write would (the child keeps the old data), and a source
 * still shared with the child reads right; likewise in the child, with
 * its own context.
 */
TEST_F(user, private_after_fork)
{
	size_t len = 512 * 1024;
	unsigned char *p = npu_host_mem(len), *q = npu_host_mem(len);
	int go[2], done[2], status;
	char ch;
	pid_t pid;

	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, q);
	fill(p, len, 61);
	fill(q, len, 62);
	ASSERT_OK(pipe(go));
	ASSERT_OK(pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;
		uint32_t s, h;
		uint64_t va;

		CHILD_CHECK(read(go[0], &ch, 1) == 1);
		/* the parent's device write did not reach the child's pages */
		CHILD_CHECK(check(p, len, 61) == -1);
		fd = npu_open(0);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(npu_stream_create(fd, &s) == 0);
		va = devmem_new(fd, SZ_2M, &h);
		CHILD_CHECK(va);
		/* q is still shared with the parent: the device writes the child's own copy */
		CHILD_CHECK(npu_run(fd, s, npu_memset_cmd(ptr64(q), 0x99, len, DU)) == 0);
		CHILD_CHECK(npu_check_byte(q, len, 0x99) == -1);
		CHILD_CHECK(npu_run(fd, s, npu_copy_cmd(va, ptr64(p), len, SU)) == 0);
		memset(q, 0, len);
		CHILD_CHECK(npu_run(fd, s, npu_copy_cmd(ptr64(q), va, len, DU)) == 0);
		CHILD_CHECK(check(q, len, 61) == -1);
		CHILD_CHECK(write(done[1], "d", 1) == 1);
		_exit(0);
	}
	/* H2D from pages the child shares: the data as written */
	ASSERT_EQ(0, h2d(self->fd, self->stream, self->va, p, len));
	/* D2H into them: the parent gets its own copy, the child keeps 61 */
	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(self->va + SZ_2M, 0x42, len, 0)));
	ASSERT_EQ(0, d2h(self->fd, self->stream, p, self->va + SZ_2M, len));
	EXPECT_EQ(-1, npu_check_byte(p, len, 0x42));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(1, read(done[0], &ch, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	/* the child's device write did not reach the parent's q */
	EXPECT_EQ(-1, check(q, len, 62));
	/* and what the parent copied in before still reads as 61 */
	ASSERT_EQ(0, d2h(self->fd, self->stream, q, self->va, len));
	EXPECT_EQ(-1, check(q, len, 61));
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                            */
/* ------------------------------------------------------------------ */

struct unmapper {
	void *addr;
	size_t len;
	int ret;
};

static void *unmap_thread(void *arg)
{
	struct unmapper *u = arg;

	u->ret = munmap(u->addr, u->len);
	return NULL;
}

/*
 * The caller's other thread munmaps the buffer while a long copy runs:
 * the pins keep the pages, the copy completes, VmPin and VmLck stay 0
 * meanwhile, and everything is unpinned after.
 */
TEST_F_TIMEOUT(user, munmap_during_copy, 300)
{
	size_t len = 64 * SZ_1M;
	uint32_t h;
	uint64_t va = devmem_new(self->fd, len, &h), seq;
	unsigned char *src = npu_host_mem(len), *dst = npu_host_mem(len);
	struct npu_cmd cmds[2];
	struct unmapper u;
	pthread_t t;

	ASSERT_NE(0, va);
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	fill(src, len, 71);
	cmds[0] = npu_copy_cmd(va, ptr64(src), len, SU);
	cmds[1] = npu_copy_cmd(ptr64(dst), va, len, DU);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 2, &seq));
	/* pinned now, and charged as pins are: VmPin, not VmLck (mlock) */
	EXPECT_LE(self->pins0 + 1, npu_pins_held());
	EXPECT_EQ((long long)(2 * len) >> 10, npu_status_kb("VmPin"));
	EXPECT_EQ(0, npu_status_kb("VmLck"));
	u = (struct unmapper){ .addr = src, .len = len };
	ASSERT_EQ(0, pthread_create(&t, NULL, unmap_thread, &u));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, u.ret);
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	/* the device got what src held */
	EXPECT_EQ(-1, check(dst, len, 71));

	/* the same for a destination */
	dst[0] = 0;
	cmds[0] = npu_copy_cmd(ptr64(dst), va, len, DU);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 1, &seq));
	u = (struct unmapper){ .addr = dst, .len = len };
	ASSERT_EQ(0, pthread_create(&t, NULL, unmap_thread, &u));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, u.ret);
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	ASSERT_NOTHING_PINNED(self);
	EXPECT_EQ(0, npu_unmap(self->fd, va));
}

/* Queue pinned commands behind a WAIT_VALUE that is never satisfied. */
static int queue_blocked(int fd, uint32_t s, uint64_t flag_va, void *buf, uint64_t va,
			 size_t len)
{
	struct npu_cmd cmds[3] = {
		npu_value_cmd(NPU_OP_WAIT_VALUE, flag_va, 1, NPU_WAIT_GEQ),
		npu_copy_cmd(va, ptr64(buf), len, SU),
		npu_copy_cmd(ptr64(buf), va, len, DU),
	};

	return npu_submit(fd, s, cmds, 3, NULL);
}

/* FORCE destroy, and close, drop queued commands and their pins. */
TEST_F(user, cancel_unpins)
{
	unsigned char *buf = npu_host_mem(SZ_1M);
	uint32_t s;
	int fd2;
	uint64_t va2;
	uint32_t h2;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(self->va, 0, 8, 0)));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s));
	ASSERT_EQ(0, queue_blocked(self->fd, s, self->va, buf, self->va + SZ_1M, SZ_1M));
	EXPECT_LT(self->pins0, npu_pins_held());
	ASSERT_EQ(0, npu_stream_destroy(self->fd, s, NPU_STREAM_DESTROY_FORCE));
	ASSERT_NOTHING_PINNED(self);

	fd2 = npu_open(0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, npu_stream_create(fd2, &s));
	va2 = devmem_new(fd2, SZ_2M, &h2);
	ASSERT_NE(0, va2);
	ASSERT_EQ(0, npu_run(fd2, s, npu_memset_cmd(va2, 0, 8, 0)));
	ASSERT_EQ(0, queue_blocked(fd2, s, va2, buf, va2 + SZ_1M, SZ_1M));
	EXPECT_LT(self->pins0, npu_pins_held());
	close(fd2);
	ASSERT_NOTHING_PINNED(self);
}

/* A process that exits with pinned commands queued leaves nothing pinned. */
TEST_F(user, exit_unpins)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned char *buf = npu_host_mem(SZ_1M);
		int fd = npu_open(0);
		uint32_t s, h;
		uint64_t va;

		CHILD_CHECK(buf && fd >= 0);
		CHILD_CHECK(npu_stream_create(fd, &s) == 0);
		va = devmem_new(fd, SZ_2M, &h);
		CHILD_CHECK(va);
		CHILD_CHECK(npu_run(fd, s, npu_memset_cmd(va, 0, 8, 0)) == 0);
		CHILD_CHECK(queue_blocked(fd, s, va, buf, va + SZ_1M, SZ_1M) == 0);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_NOTHING_PINNED(self);
}

/* ------------------------------------------------------------------ */
/* Limits                                                              */
/* ------------------------------------------------------------------ */

/*
 * As nobody with RLIMIT_MEMLOCK 0: pageable operands are pinned as a
 * registration is, so both are refused (second kernel review, finding 3:
 * uncharged pins of commands that the caller can keep queued were a way
 * around RLIMIT_MEMLOCK).
 */
TEST_F(user, rlimit_memlock_zero_unprivileged)
{
	int res[2], status;
	long long r[6] = { 0 };
	pid_t pid;

	ASSERT_OK(pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		size_t len = 8 * SZ_1M;
		unsigned char *src, *dst;
		int fd, procfd;
		uint32_t s, h;
		uint64_t va;

		close(self->fd);
		fd = npu_open_as_nobody(0, &procfd);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(npu_stream_create(fd, &s) == 0);
		va = devmem_new(fd, len, &h);
		CHILD_CHECK(va);
		src = npu_host_mem(len);
		dst = npu_host_mem(len);
		CHILD_CHECK(src && dst);
		fill(src, len, 81);
		r[0] = getuid();
		r[1] = npu_register(fd, src, SZ_4K, 0, 0);
		r[2] = npu_run(fd, s, npu_copy_cmd(va, ptr64(src), len, SU));
		r[3] = npu_run(fd, s, npu_copy_cmd(ptr64(dst), va, len, DU));
		r[4] = check(dst, len, 81);
		r[5] = npu_status_kb_at(procfd, "VmLck") + npu_status_kb_at(procfd, "VmPin");
		CHILD_CHECK(write(res[1], r, sizeof(r)) == sizeof(r));
		_exit(0);
	}
	close(res[1]);
	ASSERT_EQ((ssize_t)sizeof(r), read(res[0], r, sizeof(r)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_EQ(65534, r[0]);
	EXPECT_EQ(-ENOMEM, r[1]);
	EXPECT_EQ(-ENOMEM, r[2]);
	EXPECT_EQ(-ENOMEM, r[3]);
	EXPECT_EQ(0, r[5]);
	ASSERT_NOTHING_PINNED(self);
}

/* fdinfo key @key of @fd, or -1. */
static long long fdinfo_kib(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return npu_file_value_at(AT_FDCWD, path, key, ':');
}

/*
 * The pins of queued commands are charged as registrations are: to the
 * user's RLIMIT_MEMLOCK (nobody, 2 MiB here: a 1 MiB operand fits, a
 * second 2 MiB one does not) and the process's VmPin, and fdinfo counts
 * them; all of it goes when the commands end.
 */
TEST_F(user, queued_pins_are_charged_and_counted)
{
	int res[2], status;
	long long r[8] = { 0 };
	pid_t pid;

	ASSERT_OK(pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned char *buf;
		int fd, procfd;
		uint32_t s, s2, h;
		uint64_t va;

		close(self->fd);
		fd = npu_open_as_nobody(2 * SZ_1M, &procfd);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(npu_stream_create(fd, &s) == 0);
		CHILD_CHECK(npu_stream_create(fd, &s2) == 0);
		va = devmem_new(fd, DEV_LEN, &h);
		CHILD_CHECK(va);
		buf = npu_host_mem(4 * SZ_1M);
		CHILD_CHECK(buf);
		/* a flag in device memory that nobody sets: the queue stays */
		CHILD_CHECK(npu_run(fd, s, npu_memset_cmd(va, 0, 8, 0)) == 0);
		{
			struct npu_cmd held[2] = {
				npu_value_cmd(NPU_OP_WAIT_VALUE, va, 1, NPU_WAIT_GEQ),
				npu_copy_cmd(va + SZ_1M, ptr64(buf), SZ_1M, SU),
			};

			r[0] = npu_submit(fd, s, held, 2, NULL);
		}
		r[1] = npu_status_kb_at(procfd, "VmPin");
		r[2] = fdinfo_kib(fd, "npu-memory-host-pinned");
		r[3] = fdinfo_kib(fd, "npu-memory-host-locked");
		/* 1 MiB charged: 2 MiB more is over the limit */
		r[4] = npu_run(fd, s2, npu_copy_cmd(va + SZ_2M, ptr64(buf + SZ_1M),
						    2 * SZ_1M, SU));
		/* the wait ends, the copy runs, the pins go */
		r[5] = npu_run(fd, s2, npu_value_cmd(NPU_OP_WRITE_VALUE, va, 1, 0));
		r[6] = npu_sync(fd, s, 10000);
		r[7] = npu_status_kb_at(procfd, "VmPin") +
		       fdinfo_kib(fd, "npu-memory-host-pinned");
		CHILD_CHECK(write(res[1], r, sizeof(r)) == sizeof(r));
		_exit(0);
	}
	close(res[1]);
	ASSERT_EQ((ssize_t)sizeof(r), read(res[0], r, sizeof(r)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_EQ(0, r[0]);
	EXPECT_EQ(1024, r[1]);
	EXPECT_EQ(1024, r[2]);
	EXPECT_EQ(1024, r[3]);
	EXPECT_EQ(-ENOMEM, r[4]);
	EXPECT_EQ(0, r[5]);
	EXPECT_EQ(0, r[6]);
	EXPECT_EQ(0, r[7]);
	ASSERT_NOTHING_PINNED(self);
}

struct releaser {
	int fd;
	uint32_t stream;
	uint64_t flag_va;
	int delay_ms;
	int ret;
};

static void *release_later(void *arg)
{
	struct releaser *r = arg;

	usleep(r->delay_ms * 1000);
	r->ret = npu_run(r->fd, r->stream,
			 npu_value_cmd(NPU_OP_WRITE_VALUE, r->flag_va, 1, 0));
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * max_user_pin: a SUBMIT needing more than the cap fails -ENOMEM; one that
 * needs room waits until queued commands let go of theirs (or a signal:
 * -EINTR); partial pages count whole.
 */
TEST_F_TIMEOUT(user, cap, 120)
{
	long long old = npu_param_get("max_user_pin");
	unsigned char *buf = npu_host_mem(2 * SZ_1M), *hole = npu_unmapped_range(SZ_1G);
	struct releaser rel;
	struct npu_cmd c;
	struct sigaction sa = { .sa_handler = on_alarm };
	struct npu_submit sub = { .size = sizeof(sub), .count = 1 };
	uint32_t s1, s2;
	pthread_t t;
	double t0;
	int ret;

	ASSERT_LT(0, old);
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, hole);
	ASSERT_EQ(0, npu_param_set("max_user_pin", SZ_1M));
	/* too big by itself: refused before anything is pinned, mapped or not */
	EXPECT_EQ(-ENOMEM, h2d(self->fd, self->stream, self->va, buf, SZ_1M + 1));
	EXPECT_EQ(-ENOMEM, h2d(self->fd, self->stream, self->va, hole, SZ_1G));
	EXPECT_EQ(-ENOMEM, h2d(self->fd, self->stream, self->va, buf + 1, SZ_1M));
	{
		struct npu_cmd two[2] = {
			npu_copy_cmd(self->va, ptr64(buf), SZ_1M / 2, SU),
			npu_copy_cmd(ptr64(buf + SZ_1M / 2), self->va, SZ_1M / 2 + 1, DU),
		};

		EXPECT_EQ(-ENOMEM, npu_submit(self->fd, self->stream, two, 2, NULL));
	}
	EXPECT_EQ(0, h2d(self->fd, self->stream, self->va, buf, SZ_1M));

	/* hold 1 MiB pinned behind a WAIT_VALUE */
	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(self->va, 0, 8, 0)));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s1));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s2));
	{
		struct npu_cmd held[2] = {
			npu_value_cmd(NPU_OP_WAIT_VALUE, self->va, 1, NPU_WAIT_GEQ),
			npu_copy_cmd(self->va + SZ_1M, ptr64(buf), SZ_1M, SU),
		};

		ASSERT_EQ(0, npu_submit(self->fd, s1, held, 2, NULL));
	}
	/* a signal ends the wait for room */
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	c = npu_copy_cmd(self->va + 2 * SZ_1M, ptr64(buf + SZ_1M), 1, SU);
	sub.stream = s2;
	sub.cmds = ptr64(&c);
	alarm(1);
	t0 = now_s();
	ret = ioctl(self->fd, NPU_IOCTL_SUBMIT, &sub);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINTR, errno);
	EXPECT_LT(0.5, now_s() - t0);
	alarm(0);

	/* the release of the held pins lets the waiting SUBMIT go on */
	rel = (struct releaser){ .fd = self->fd, .stream = self->stream,
				 .flag_va = self->va, .delay_ms = 300 };
	ASSERT_EQ(0, pthread_create(&t, NULL, release_later, &rel));
	t0 = now_s();
	EXPECT_EQ(0, npu_run(self->fd, s2, c));
	EXPECT_LT(0.2, now_s() - t0);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, rel.ret);
	EXPECT_EQ(0, npu_sync(self->fd, s1, -1));

	ASSERT_EQ(0, npu_param_set("max_user_pin", old));
	ASSERT_NOTHING_PINNED(self);
}

TEST_HARNESS_MAIN
