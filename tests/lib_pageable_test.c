// SPDX-License-Identifier: MIT
/*
 * libacl: synchronous copies between pageable host memory and device
 * memory, staged (through the page-locked staging buffer) or direct (the
 * driver pins the caller's pages for the copy: NPU_CMD_*_USER), as
 * ACL_NPU_PAGEABLE_COPY (staged, direct, auto) or aclInit's pageableCopy
 * says. Every test runs in each mode (the harness forks a child per test,
 * which sets the variable): the data a caller sees is the same. Which
 * mechanism ran shows in VmPin: the staging buffer is page-locked, direct
 * copies leave nothing pinned. Skips without /dev/npu0.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "lib_util.h"

/* The staging buffer when RLIMIT_MEMLOCK does not bind: 2 x 4 MiB. */
#define STAGE_KB	8192

static long long status_kb(const char *field)
{
	char line[128];
	long long kb = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			kb = atoll(line + n + 1);
	if (f)
		fclose(f);
	return kb;
}

FIXTURE(pg) { int unused; };
FIXTURE_VARIANT(pg) { const char *mode; };
FIXTURE_VARIANT_ADD(pg, staged) { "staged" };
FIXTURE_VARIANT_ADD(pg, direct) { "direct" };
FIXTURE_VARIANT_ADD(pg, auto) { "auto" };
FIXTURE_SETUP(pg)
{
	ASSERT_EQ(0, setenv("ACL_NPU_PAGEABLE_COPY", variant->mode, 1));
}
FIXTURE_TEARDOWN(pg) {}

static bool is_mode(const FIXTURE_VARIANT(pg) *variant, const char *m)
{
	return !strcmp(variant->mode, m);
}

/*
 * Random H2D writes and D2H reads at other offsets and lengths (1 byte to
 * 9 MiB, host sides unaligned), against a model of the device buffer, with
 * guard bytes around every host destination.
 */
TEST_F_TIMEOUT(pg, integrity_against_model, 300)
{
	size_t len = 12 * MiB, slack = 2 * 4096, g = 64;
	unsigned char *model = malloc(len), *src = malloc(len + slack), *dst = malloc(len + slack);
	const size_t sizes[] = { 1, 7, 4095, 4096, 4097, 65539, 256 * KiB - 1, 256 * KiB,
				 256 * KiB + 1, MiB + 7, 4 * MiB, 4 * MiB + 1, 9 * MiB + 123 };
	unsigned int seed = 777;
	char *d;

	NEED_DEVICE();
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(src);
	ASSERT_NONNULL(dst);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, len, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(model, len, 1);
	ASSERT_ACL_OK(aclrtMemcpy(d, len, model, len, ACL_MEMCPY_HOST_TO_DEVICE));
	for (int it = 0; it < 80; it++) {
		size_t n = sizes[it % (sizeof(sizes) / sizeof(sizes[0]))];
		size_t off = rand_r(&seed) % (len - n + 1);
		size_t hoff = g + rand_r(&seed) % (slack - 2 * g);

		if (it % 2 == 0) {
			fill_pattern(src + hoff, n, it);
			ASSERT_ACL_OK(aclrtMemcpy(d + off, n, src + hoff, n, ACL_MEMCPY_HOST_TO_DEVICE));
			memcpy(model + off, src + hoff, n);
		} else {
			/* read back somewhere else, another length */
			n = 1 + rand_r(&seed) % (n + 4096);
			if (n > len)
				n = len;
			off = rand_r(&seed) % (len - n + 1);
			memset(dst + hoff - g, 0xa5, n + 2 * g);
			ASSERT_ACL_OK(aclrtMemcpy(dst + hoff, n, d + off, n, ACL_MEMCPY_DEVICE_TO_HOST));
			if (memcmp(dst + hoff, model + off, n))
				TH_LOG("iteration %d: D2H of %zu at %zu differs", it, n, off);
			ASSERT_EQ(0, memcmp(dst + hoff, model + off, n));
			ASSERT_EQ(-1, check_byte(dst + hoff - g, g, 0xa5));
			ASSERT_EQ(-1, check_byte(dst + hoff + n, g, 0xa5));
		}
	}
	ASSERT_ACL_OK(aclrtMemcpy(dst, len, d, len, ACL_MEMCPY_DEVICE_TO_HOST));
	ASSERT_EQ(0, memcmp(dst, model, len));
	/* the same through DEFAULT, which infers the direction */
	fill_pattern(src, len, 99);
	ASSERT_ACL_OK(aclrtMemcpy(d, len, src, len, ACL_MEMCPY_DEFAULT));
	memset(dst, 0, len);
	ASSERT_ACL_OK(aclrtMemcpy(dst, len, d, len, ACL_MEMCPY_DEFAULT));
	EXPECT_EQ(-1, check_pattern(dst, len, 99));
	ASSERT_ACL_OK(aclrtFree(d));
	free(model);
	free(src);
	free(dst);
}

/* Longer than a direct piece (32 MiB): several SUBMITs, unaligned ends. */
TEST_F_TIMEOUT(pg, several_pieces, 120)
{
	size_t n = 70 * MiB + 3;
	unsigned char *src = malloc(n + 1), *dst = malloc(n + 2);
	char *d;

	NEED_DEVICE();
	ASSERT_NONNULL(src);
	ASSERT_NONNULL(dst);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n + 1, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(src + 1, n, 81);
	ASSERT_ACL_OK(aclrtMemcpy(d + 1, n, src + 1, n, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(dst, 0xa5, n + 2);
	ASSERT_ACL_OK(aclrtMemcpy(dst + 1, n, d + 1, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(dst + 1, n, 81));
	EXPECT_EQ(0xa5, dst[0]);
	EXPECT_EQ(0xa5, dst[n + 1]);
	EXPECT_EQ(is_mode(variant, "staged") ? STAGE_KB : 0, status_kb("VmPin"));
	ASSERT_ACL_OK(aclrtFree(d));
	free(src);
	free(dst);
}

/*
 * aclrtMemcpy2d between pageable rows and device memory (direct: COPY_2D
 * commands with the pageable side pinned over its span), the host side's
 * gaps untouched; rows over several commands (more than 32 MiB of span).
 */
TEST_F_TIMEOUT(pg, memcpy2d, 120)
{
	const size_t shapes[][3] = {	/* width, host pitch, height */
		{ 1000, 4096, 300 }, { 4097, 4099, 1000 }, { 65536, 70000, 600 },
	};

	NEED_DEVICE();
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		size_t w = shapes[k][0], hp = shapes[k][1], h = shapes[k][2], dp = w + 64;
		size_t span = (h - 1) * hp + w;
		unsigned char *src = malloc(span), *dst = malloc(span);
		char *d;

		ASSERT_NONNULL(src);
		ASSERT_NONNULL(dst);
		ASSERT_ACL_OK(aclrtMalloc((void **)&d, dp * h, ACL_MEM_MALLOC_HUGE_FIRST));
		fill_pattern(src, span, 100 + k);
		memset(dst, 0xee, span);
		ASSERT_ACL_OK(aclrtMemcpy2d(d, dp, src, hp, w, h, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclrtMemcpy2d(dst, hp, d, dp, w, h, ACL_MEMCPY_DEVICE_TO_HOST));
		for (size_t r = 0; r < h; r++) {
			if (memcmp(dst + r * hp, src + r * hp, w))
				TH_LOG("shape %zu row %zu differs", k, r);
			ASSERT_EQ(0, memcmp(dst + r * hp, src + r * hp, w));
			if (r + 1 < h)
				ASSERT_EQ(-1, check_byte(dst + r * hp + w, hp - w, 0xee));
		}
		ASSERT_ACL_OK(aclrtFree(d));
		free(src);
		free(dst);
	}
	/* 2 MiB of rows went direct unless told to stage */
	EXPECT_EQ(is_mode(variant, "staged") ? STAGE_KB : 0, status_kb("VmPin"));
}

#define PIN_PARAM	"/sys/module/npu/parameters/max_user_pin"

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f && fscanf(f, "%lld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static int write_ll(const char *path, long long v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%lld\n", v) > 0 ? 0 : -1;
	return fclose(f) || ret ? -1 : 0;
}

/*
 * What the driver will not pin is staged: here a copy over the driver's
 * max_user_pin (1 MiB for the test). The data is the same.
 */
TEST_F(pg, refused_pin_is_staged)
{
	size_t n = 3 * MiB + 11;
	long long old = read_ll(PIN_PARAM);
	unsigned char *h = malloc(n);
	char *d;

	NEED_DEVICE();
	if (old < 0 || geteuid() != 0)
		SKIP(return, "needs root and npu.ko's max_user_pin");
	ASSERT_NONNULL(h);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_EQ(0, write_ll(PIN_PARAM, MiB));
	fill_pattern(h, n, 91);
	EXPECT_ACL_OK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(h, 0, n);
	EXPECT_ACL_OK(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	ASSERT_EQ(0, write_ll(PIN_PARAM, old));
	EXPECT_EQ(-1, check_pattern(h, n, 91));
	/* staged, whatever the mode */
	EXPECT_EQ(STAGE_KB, status_kb("VmPin"));
	ASSERT_ACL_OK(aclrtFree(d));
	free(h);
}

/* Which mechanism ran, as VmPin shows it; VmLck stays 0 either way. */
TEST_F(pg, mechanism)
{
	size_t n = 2 * MiB;
	char *h = malloc(n), *d;

	NEED_DEVICE();
	ASSERT_NONNULL(h);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(h, n, 5);
	EXPECT_EQ(0, status_kb("VmPin"));
	ASSERT_ACL_OK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(h, n, 5));
	/* 2 MiB: staged only when told so */
	EXPECT_EQ(is_mode(variant, "staged") ? STAGE_KB : 0, status_kb("VmPin"));
	/* 4 KiB: direct only when told so */
	ASSERT_ACL_OK(aclrtMemcpy(d, 4096, h, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(is_mode(variant, "direct") ? 0 : STAGE_KB, status_kb("VmPin"));
	EXPECT_EQ(0, status_kb("VmLck"));
	ASSERT_ACL_OK(aclrtFree(d));
	free(h);
}

/* An asynchronous copy from pageable memory is staged in every mode. */
TEST_F(pg, async_is_staged)
{
	size_t n = 2 * MiB;
	char *h = malloc(n), *d;
	aclrtStream s;

	NEED_DEVICE();
	ASSERT_NONNULL(h);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	fill_pattern(h, n, 6);
	ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
	/* the source has been consumed when the call returns */
	memset(h, 0, n);
	EXPECT_EQ(STAGE_KB, status_kb("VmPin"));
	ASSERT_ACL_OK(aclrtMemcpyAsync(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(-1, check_pattern(h, n, 6));
	ASSERT_ACL_OK(aclrtDestroyStream(s));
	ASSERT_ACL_OK(aclrtFree(d));
	free(h);
}

/* Sources and destinations in tmpfs files, shared anonymous and read-only mappings. */
TEST_F(pg, kinds_of_memory)
{
	size_t n = 3 * MiB + 5;
	int fd = memfd_create("acl_pg", MFD_CLOEXEC);
	unsigned char *rw, *ro, *sh, *back = malloc(n);
	char *d;

	NEED_DEVICE();
	ASSERT_LE(0, fd);
	ASSERT_NONNULL(back);
	ASSERT_EQ(0, ftruncate(fd, n));
	rw = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ro = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, 0);
	sh = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rw);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_NE(MAP_FAILED, sh);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));

	/* H2D from a read-only mapping of a tmpfs file */
	fill_pattern(rw, n, 31);
	ASSERT_ACL_OK(aclrtMemcpy(d, n, ro, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(back, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(back, n, 31));
	/* D2H into the file's shared mapping: the file has it */
	fill_pattern(back, n, 32);
	ASSERT_ACL_OK(aclrtMemcpy(d, n, back, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(rw, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	memset(back, 0, n);
	ASSERT_EQ((ssize_t)n, pread(fd, back, n, 0));
	EXPECT_EQ(-1, check_pattern(back, n, 32));
	/* shared anonymous both ways */
	fill_pattern(sh, n, 33);
	ASSERT_ACL_OK(aclrtMemcpy(d, n, sh, n, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(sh, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(sh, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(sh, n, 33));
	/* never-written private memory reads as zeros */
	{
		char *z = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, z);
		ASSERT_ACL_OK(aclrtMemcpy(d, n, z, n, ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclrtMemcpy(back, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(-1, check_byte(back, n, 0));
		munmap(z, n);
	}
	ASSERT_ACL_OK(aclrtFree(d));
	munmap(rw, n);
	munmap(ro, n);
	munmap(sh, n);
	close(fd);
	free(back);
}

/* MAP_PRIVATE after fork: a D2H into memory the child shares leaves the child's copy. */
TEST_F(pg, private_after_fork)
{
	size_t n = 2 * MiB + 100;
	unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int go[2], status;
	char ch, *d;
	pid_t pid;

	NEED_DEVICE();
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(p, n, 41);
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (read(go[0], &ch, 1) != 1)
			_exit(2);
		_exit(check_pattern(p, n, 41) == -1 ? 0 : 1);
	}
	/* H2D from pages shared with the child, then D2H of other data into them */
	ASSERT_ACL_OK(aclrtMemcpy(d, n, p, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemset(d, n, 0x42, n));
	ASSERT_ACL_OK(aclrtMemcpy(p, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(p, n, 0x42));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	ASSERT_ACL_OK(aclrtFree(d));
	munmap(p, n);
}

static long long pins_acquired(void)
{
	char line[128];
	long long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "nr_foll_pin_acquired ", 21))
			v = atoll(line + 21);
	if (f)
		fclose(f);
	return v;
}

struct unmapper {
	void *p;
	size_t n;
	long long pins0;
	int ret;
};

/* munmap the source once the driver has pinned it (a piece's pages). */
static void *unmap_when_pinned(void *arg)
{
	struct unmapper *u = arg;

	while (pins_acquired() < u->pins0 + 1024)
		usleep(100);
	u->ret = munmap(u->p, u->n);
	return NULL;
}

/*
 * Another thread munmaps the source during a direct copy, once its pages
 * are pinned: the pins keep them and the copy completes with the data as
 * it was. (Staged, the CPU's copy out of the buffer would fault, as with
 * CANN.)
 */
TEST_F_TIMEOUT(pg, munmap_during_copy, 120)
{
	size_t n = 4 * MiB;
	unsigned char *src = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *back = malloc(n);
	struct unmapper u = { .p = src, .n = n };
	pthread_t t;
	aclError r;
	char *d;

	if (is_mode(variant, "staged"))
		SKIP(return, "a staged copy reads the source with the CPU: it would fault");
	NEED_DEVICE();
	ASSERT_NE(MAP_FAILED, src);
	ASSERT_NONNULL(back);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(src, n, 51);
	u.pins0 = pins_acquired();
	ASSERT_LE(0, u.pins0);
	ASSERT_EQ(0, pthread_create(&t, NULL, unmap_when_pinned, &u));
	/* one piece: pinned at once, before the other thread can unmap it */
	r = aclrtMemcpy(d, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, u.ret);
	EXPECT_EQ(ACL_SUCCESS, r);
	ASSERT_ACL_OK(aclrtMemcpy(back, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(back, n, 51));
	EXPECT_EQ(0, status_kb("VmPin"));
	ASSERT_ACL_OK(aclrtFree(d));
	free(back);
}

static int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i = CAP_TO_INDEX(CAP_IPC_LOCK);

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[i].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	data[i].permitted &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	data[i].inheritable &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	return syscall(SYS_capset, &hdr, data);
}

/*
 * Under an RLIMIT_MEMLOCK too small for the staging buffer, without
 * CAP_IPC_LOCK: the direct path pins pageable memory charged to the same
 * limit (driver 1.5; before, its pins were a way around it), so no path
 * can pin what the copy needs. The copy fails with a memory error in every
 * mode and leaves nothing pinned.
 */
TEST_F(pg, rlimit_memlock_tiny)
{
	int res[2], status;
	long long r[3];
	pid_t pid;

	NEED_DEVICE();
	if (geteuid() != 0)
		SKIP(return, "needs root: it sets the hard RLIMIT_MEMLOCK and drops CAP_IPC_LOCK");
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { .rlim_cur = 32 * KiB, .rlim_max = 32 * KiB };
		size_t n = 5 * MiB + 3;
		char *src = malloc(n), *dst = calloc(1, n);
		void *d;

		if (!src || !dst || setrlimit(RLIMIT_MEMLOCK, &rl) || drop_cap_ipc_lock() ||
		    aclrtSetDevice(0) || aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST))
			_exit(2);
		fill_pattern(src, n, 61);
		r[0] = aclrtMemcpy(d, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE);
		if (r[0] == ACL_SUCCESS)
			r[0] = aclrtMemcpy(dst, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST);
		r[1] = check_pattern(dst, n, 61);
		r[2] = status_kb("VmPin");
		_exit(write(res[1], r, sizeof(r)) == sizeof(r) ? 0 : 5);
	}
	close(res[1]);
	ASSERT_EQ((ssize_t)sizeof(r), read(res[0], r, sizeof(r)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, r[0]);
	EXPECT_EQ(0, r[2]);
}

/* Four threads copying at once, each its own buffers. */
struct copier {
	int id;
	aclError err;
	long long bad;
};

static void *copier_thread(void *arg)
{
	struct copier *c = arg;
	size_t n = (1 + c->id) * MiB + 17 * c->id;
	char *h = malloc(n), *b = malloc(n);
	void *d = NULL;

	c->bad = 0;
	c->err = aclrtSetDevice(0);
	if (!c->err)
		c->err = aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST);
	for (int i = 0; i < 10 && !c->err && c->bad == 0; i++) {
		fill_pattern(h, n, c->id * 16 + i);
		c->err = aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE);
		if (!c->err) {
			memset(b, 0, n);
			c->err = aclrtMemcpy(b, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST);
		}
		if (!c->err && check_pattern(b, n, c->id * 16 + i) != -1)
			c->bad = 1;
	}
	if (!c->bad)
		c->bad = -1;
	if (d)
		aclrtFree(d);
	free(h);
	free(b);
	return NULL;
}

TEST_F_TIMEOUT(pg, threads, 120)
{
	struct copier c[4];
	pthread_t t[4];

	NEED_DEVICE();
	for (int i = 0; i < 4; i++) {
		c[i].id = i;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, copier_thread, &c[i]));
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(ACL_SUCCESS, c[i].err);
		EXPECT_EQ(-1, c[i].bad);
	}
}

/* aclInit's {"pageableCopy":{"mode":...}}; the environment variable wins. */
static aclError init_with(const char *json, char *path)
{
	int fd;

	strcpy(path, "/tmp/acl_pg_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, json, strlen(json)) != (ssize_t)strlen(json))
		return (aclError)-1;
	close(fd);
	return aclInit(path);
}

TEST(config_key)
{
	size_t n = 2 * MiB;
	char *h = malloc(n), *d, path[64];

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_NONNULL(h);
	unsetenv("ACL_NPU_PAGEABLE_COPY");
	ASSERT_EQ(ACL_ERROR_INVALID_PARAM, init_with("{\"pageableCopy\":{\"mode\":\"fast\"}}", path));
	EXPECT_NONNULL(strstr(aclGetRecentErrMsg(), "pageableCopy mode must be"));
	unlink(path);
	ASSERT_EQ(ACL_ERROR_INVALID_PARAM, init_with("{\"pageableCopy\":{}}", path));
	unlink(path);
	ASSERT_ACL_OK(init_with("{\"defaultDevice\":{\"default_device\":\"0\"},\n"
				" \"pageableCopy\": {\"mode\": \"staged\"}}", path));
	unlink(path);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(h, n, 71);
	ASSERT_ACL_OK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(STAGE_KB, status_kb("VmPin"));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	/* the variable wins over the file; an unknown value is ignored */
	ASSERT_EQ(0, setenv("ACL_NPU_PAGEABLE_COPY", "direct", 1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(h, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(h, n, 71));
	EXPECT_EQ(0, status_kb("VmPin"));
	ASSERT_EQ(0, setenv("ACL_NPU_PAGEABLE_COPY", "bogus", 1));
	ASSERT_ACL_OK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(STAGE_KB, status_kb("VmPin"));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
	/* a later aclInit without the key: auto again */
	unsetenv("ACL_NPU_PAGEABLE_COPY");
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(0, status_kb("VmPin"));
	free(h);
}

TEST_HARNESS_MAIN
