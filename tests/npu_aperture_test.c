// SPDX-License-Identifier: GPL-2.0
/*
 * npu_aperture_test: the aperture (APERTURE_OPEN, since 1.11) - a
 * context's device VA space mapped for the CPU at the identity. The CPU
 * reaches exactly what the device's engine reaches: bytes the engine
 * wrote read back through the aperture and the other way round, checked
 * against a model of the whole buffer at other offsets and lengths than
 * they were written, for 4 KiB and 2 MiB pages; registered host memory
 * through its device VA; and SIGBUS, with nothing touched, for what the
 * engine would fault on - an unmapped VA, a write without the right, a
 * mapping gone (UNMAP, HOST_UNREGISTER, SET_ACCESS after the page was
 * mapped), a context shut down, a poisoned page - and the ioctl's and
 * mmap's bad input. Mirrored memory is the process's own pages, faulted
 * in from the process for another one that maps the aperture over it,
 * and follows what the process does to them.
 */
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_nl_util.h"
#include "npu_util.h"

#define BUF_LEN		(4 * SZ_2M)

static int aperture_open(int fd, uint32_t flags, int *afd)
{
	struct npu_aperture_open a = { .size = sizeof(a), .flags = flags, .fd = -1 };
	int ret = npu_ioctl(fd, NPU_IOCTL_APERTURE_OPEN, &a);

	if (!ret)
		*afd = a.fd;
	return ret;
}

/* Map the aperture at device VA [@va, +@len) (the identity). */
static void *aperture_map(int afd, uint64_t va, uint64_t len, int prot)
{
	return mmap((void *)(uintptr_t)va, len, prot, MAP_SHARED | MAP_FIXED,
		    afd, (off_t)va);
}

/* ---- accesses that may fault ------------------------------------------- */

static sigjmp_buf probe_env;
static volatile sig_atomic_t probe_code;
static void *volatile probe_addr;

static void probe_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	probe_code = sig == SIGBUS ? si->si_code : -sig;
	probe_addr = si->si_addr;
	siglongjmp(probe_env, 1);
}

static void probe_arm(void)
{
	struct sigaction sa = { .sa_sigaction = probe_handler, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

/*
 * Read (or write @v to) the byte at @p: 0, or the SIGBUS si_code (the
 * negated signal for another), with the faulting address checked.
 */
static int probe(volatile unsigned char *p, bool write, unsigned char v,
		 unsigned char *out)
{
	probe_code = 0;
	probe_addr = NULL;
	if (sigsetjmp(probe_env, 1)) {
		if (probe_addr != (void *)p)
			return -1000;
		return probe_code;
	}
	if (write)
		*p = v;
	else if (out)
		*out = *p;
	else
		(void)*p;
	return 0;
}

#define FAULTS(p, w)	(probe((p), (w), 0x5a, NULL) == BUS_ADRERR)

/* ---- the fixture: device memory mapped RW, a host buffer, the aperture -- */

FIXTURE(ap) {
	int fd, afd;
	uint32_t stream;
	uint64_t va;
	unsigned char *host;	/* registered, for the engine's copies */
	unsigned char *model;	/* what the device memory holds */
	unsigned char *cpu;	/* the aperture at va */
};

FIXTURE_VARIANT(ap) {
	uint64_t page;
};

FIXTURE_VARIANT_ADD(ap, p4k) { .page = NPU_PAGE_4K };
FIXTURE_VARIANT_ADD(ap, p2m) { .page = NPU_PAGE_2M };

FIXTURE_SETUP(ap)
{
	probe_arm();
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->va = npu_map_new_rw(self->fd, BUF_LEN, variant->page, 0);
	ASSERT_NE(0, self->va);
	self->host = npu_host_mem(BUF_LEN);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, BUF_LEN, 0, 0));
	self->model = calloc(1, BUF_LEN);
	ASSERT_NONNULL(self->model);
	ASSERT_EQ(0, aperture_open(self->fd, NPU_APERTURE_CLOEXEC, &self->afd));
	self->cpu = aperture_map(self->afd, self->va, BUF_LEN,
				 PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)self->va, self->cpu);
}

FIXTURE_TEARDOWN(ap)
{
	munmap(self->cpu, BUF_LEN);
	close(self->afd);
	close(self->fd);
	free(self->model);
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + seed * 29 + (i >> 12));
}

/* The engine writes [@off, +@n) from @src; the model follows. */
static int engine_write(FIXTURE_DATA(ap) *self, uint64_t off,
			const unsigned char *src, uint64_t n)
{
	memcpy(self->model + off, src + off, n);
	return npu_dev_write(self->fd, self->stream, self->va, self->host, off,
			     src, n);
}

/* The engine reads back all of the buffer: -1 if it is the model. */
static long long engine_check(FIXTURE_DATA(ap) *self)
{
	if (npu_dev_read(self->fd, self->stream, self->va, self->host, 0,
			 BUF_LEN))
		return -2;
	return memcmp(self->host, self->model, BUF_LEN) ? 0 : -1;
}

/*
 * The engine's bytes show through the aperture and the CPU's reach the
 * engine: written at odd offsets and lengths, read back whole.
 */
TEST_F(ap, engine_and_cpu_see_the_same_bytes)
{
	unsigned char *src = malloc(BUF_LEN);
	const uint64_t offs[] = { 0, 4095, SZ_2M - 7, 3 * SZ_2M + 12345 };
	unsigned int i;

	ASSERT_NONNULL(src);
	/* never-written memory reads as zeros through either */
	EXPECT_EQ(-1, npu_check_byte(self->cpu, BUF_LEN, 0));
	for (i = 0; i < 4; i++) {
		fill(src, BUF_LEN, i + 1);
		ASSERT_EQ(0, engine_write(self, offs[i], src, SZ_2M / 3 + i * 4099));
		EXPECT_EQ(0, memcmp(self->cpu, self->model, BUF_LEN));
	}
	for (i = 0; i < 4; i++) {
		uint64_t off = offs[3 - i] + 17, n = SZ_2M / 5 + i * 333;

		fill(self->model + off, n, 40 + i);
		memcpy(self->cpu + off, self->model + off, n);
		EXPECT_EQ(-1, engine_check(self));
	}
	free(src);
}

/* An access outside every mapping is SIGBUS, in the middle and at the ends. */
TEST_F(ap, unmapped_is_sigbus)
{
	uint64_t hole = npu_hole(2 * SZ_2M, SZ_2M);
	unsigned char *p;
	int afd2;

	ASSERT_NE(0, hole);
	ASSERT_EQ(0, npu_reserve(self->fd, hole, 2 * SZ_2M));
	p = aperture_map(self->afd, hole, 2 * SZ_2M, PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)hole, p);
	EXPECT_TRUE(FAULTS(p, false));
	EXPECT_TRUE(FAULTS(p + SZ_2M + 1, true));
	EXPECT_TRUE(FAULTS(p + 2 * SZ_2M - 1, false));
	/*
	 * A second file of the same context reaches the same memory: it
	 * takes the place of the fixture's mapping over the first 2 MiB.
	 */
	self->cpu[5] = 77;
	self->model[5] = 77;
	ASSERT_EQ(0, aperture_open(self->fd, 0, &afd2));
	ASSERT_EQ(0, munmap(p, 2 * SZ_2M));
	p = aperture_map(afd2, self->va, SZ_2M, PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)self->va, p);
	EXPECT_EQ(77, p[5]);
	p[6] = 78;
	self->model[6] = 78;
	close(afd2);	/* the mapping holds the file */
	EXPECT_EQ(-1, engine_check(self));
}

/*
 * SET_ACCESS read-only: reads go on, a write is SIGBUS and changes
 * nothing, whether the page was mapped writable before or not; back to
 * read-write, the write goes through.
 */
TEST_F(ap, rights_follow_set_access)
{
	unsigned char v = 0;

	self->cpu[100] = 1;		/* mapped writable */
	self->model[100] = 1;
	(void)self->cpu[SZ_2M + 100];	/* mapped, maybe read-only */
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0,
				    NPU_ACCESS_READ));
	EXPECT_EQ(0, probe(self->cpu + 100, false, 0, &v));
	EXPECT_EQ(1, v);
	EXPECT_TRUE(FAULTS(self->cpu + 100, true));
	EXPECT_TRUE(FAULTS(self->cpu + SZ_2M + 100, true));
	EXPECT_TRUE(FAULTS(self->cpu + 3 * SZ_2M, true));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0,
				    NPU_ACCESS_READWRITE));
	EXPECT_EQ(-1, engine_check(self));
	EXPECT_EQ(0, probe(self->cpu + 100, true, 9, NULL));
	self->model[100] = 9;
	EXPECT_EQ(-1, engine_check(self));
	/* the CPU's own protection comes first: SIGSEGV, not SIGBUS */
	EXPECT_EQ(0, mprotect(self->cpu, SZ_2M, PROT_READ));
	EXPECT_EQ(-SIGSEGV, probe(self->cpu + 8, true, 1, NULL));
	EXPECT_EQ(0, mprotect(self->cpu, SZ_2M, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, probe(self->cpu + 8, true, 1, NULL));
}

/* UNMAP takes the pages out of the aperture: the next access is SIGBUS. */
TEST_F(ap, unmap_takes_the_pages_away)
{
	unsigned char v = 0;
	uint32_t h;

	self->cpu[SZ_2M + 3] = 0x42;
	ASSERT_EQ(0, npu_unmap(self->fd, self->va));
	EXPECT_TRUE(FAULTS(self->cpu + SZ_2M + 3, false));
	EXPECT_TRUE(FAULTS(self->cpu, true));
	/* new memory mapped there: the CPU sees it, not the old bytes */
	ASSERT_EQ(0, npu_alloc(self->fd, BUF_LEN, variant->page, &h));
	ASSERT_EQ(0, npu_map(self->fd, self->va, BUF_LEN, h));
	ASSERT_EQ(0, npu_free(self->fd, h));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0,
				    NPU_ACCESS_READWRITE));
	EXPECT_EQ(0, probe(self->cpu + SZ_2M + 3, false, 0, &v));
	EXPECT_EQ(0, v);
}

/*
 * Host memory registered with a device VA: the aperture reaches the host
 * pages themselves (zero copy), until HOST_UNREGISTER.
 */
TEST_F(ap, registered_host_memory)
{
	unsigned char *h = npu_host_mem(3 * SZ_4K);
	uint64_t dva = npu_hole(3 * SZ_4K, SZ_4K);
	unsigned char *p;

	ASSERT_NONNULL(h);
	ASSERT_NE(0, dva);
	memset(h, 0x11, 3 * SZ_4K);
	ASSERT_EQ(0, npu_register(self->fd, h, 3 * SZ_4K, NPU_HOST_MAPPED, dva));
	p = aperture_map(self->afd, dva, 3 * SZ_4K, PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)dva, p);
	EXPECT_EQ(0x11, p[SZ_4K + 9]);
	p[2 * SZ_4K + 1] = 0x99;
	EXPECT_EQ(0x99, h[2 * SZ_4K + 1]);
	h[7] = 0x33;
	EXPECT_EQ(0x33, p[7]);
	ASSERT_EQ(0, npu_unregister(self->fd, h));
	EXPECT_TRUE(FAULTS(p + 7, false));
	EXPECT_EQ(0x33, h[7]);
	munmap(p, 3 * SZ_4K);
	munmap(h, 3 * SZ_4K);
}

/* A read-only registration is read-only through the aperture too. */
TEST_F(ap, readonly_registration)
{
	unsigned char *h = npu_host_mem(SZ_4K);
	uint64_t dva = npu_hole(SZ_4K, SZ_4K);
	unsigned char *p, v = 0;

	ASSERT_NONNULL(h);
	memset(h, 0x21, SZ_4K);
	ASSERT_EQ(0, npu_register(self->fd, h, SZ_4K,
				  NPU_HOST_MAPPED | NPU_HOST_READONLY, dva));
	p = aperture_map(self->afd, dva, SZ_4K, PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)dva, p);
	EXPECT_EQ(0, probe(p + 1, false, 0, &v));
	EXPECT_EQ(0x21, v);
	EXPECT_TRUE(FAULTS(p + 1, true));
	EXPECT_EQ(0x21, h[1]);
	munmap(p, SZ_4K);
	ASSERT_EQ(0, npu_unregister(self->fd, h));
	munmap(h, SZ_4K);
}

/*
 * The context shuts down (its file closed): every access through the
 * aperture, which outlives it, is SIGBUS.
 */
TEST_F(ap, closed_context_is_sigbus)
{
	self->cpu[10] = 1;
	close(self->fd);
	self->fd = -1;
	EXPECT_TRUE(FAULTS(self->cpu + 10, false));
	EXPECT_TRUE(FAULTS(self->cpu + 3 * SZ_2M, true));
}

/*
 * Another process reaches the same memory: a child after fork through the
 * mapping it inherited (its PTEs copied) and through one it makes itself
 * from the inherited fd; the parent's UNMAP takes the child's pages away
 * too, both kinds.
 */
TEST_F(ap, another_process_maps_it)
{
	unsigned char *half = self->cpu + BUF_LEN / 2;
	int to_child[2], to_parent[2];
	char c = 0;
	pid_t pid;
	int status;

	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	self->cpu[SZ_2M] = 0x61;		/* mapped before the fork */
	self->model[SZ_2M] = 0x61;
	half[5] = 0x71;
	self->model[BUF_LEN / 2 + 5] = 0x71;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned char *p;
		int bad;

		/* the second half mapped anew from the fd */
		munmap(half, BUF_LEN / 2);
		p = aperture_map(self->afd, self->va + BUF_LEN / 2, BUF_LEN / 2,
				 PROT_READ | PROT_WRITE);
		bad = p != half || self->cpu[SZ_2M] != 0x61 || half[5] != 0x71;
		if (!bad) {
			self->cpu[SZ_2M + 1] = 0x62;
			half[6] = 0x72;
		}
		c = bad ? 'x' : 'w';
		if (write(to_parent[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(2);
		if (bad)
			_exit(3);
		_exit(FAULTS(self->cpu + SZ_2M, false) && FAULTS(half + 5, true) ?
		      0 : 4);
	}
	ASSERT_EQ(1, read(to_parent[0], &c, 1));
	EXPECT_EQ('w', c);
	self->model[SZ_2M + 1] = 0x62;
	self->model[BUF_LEN / 2 + 6] = 0x72;
	EXPECT_EQ(-1, engine_check(self));
	ASSERT_EQ(0, npu_unmap(self->fd, self->va));
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A page never written, read by the CPU first: zeros, then the engine's
 * bytes once it writes there, and the CPU's write lands where the engine
 * reads it.
 */
TEST_F(ap, write_after_read_of_an_unwritten_page)
{
	unsigned char v = 1, src[64];

	EXPECT_EQ(0, probe(self->cpu + 2 * SZ_2M + 77, false, 0, &v));
	EXPECT_EQ(0, v);
	memset(src, 0x2b, sizeof(src));
	memcpy(self->model + 2 * SZ_2M + 64, src, sizeof(src));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(self->va + 2 * SZ_2M + 64, ptr64(src),
					  sizeof(src), NPU_CMD_SRC_USER)));
	EXPECT_EQ(0x2b, self->cpu[2 * SZ_2M + 77]);
	EXPECT_EQ(0, probe(self->cpu + 2 * SZ_2M + 78, true, 0x3c, NULL));
	self->model[2 * SZ_2M + 78] = 0x3c;
	EXPECT_EQ(-1, engine_check(self));
	EXPECT_EQ(0x3c, self->cpu[2 * SZ_2M + 78]);
	/* a page read only, then made read-only: the write is SIGBUS */
	EXPECT_EQ(0, probe(self->cpu + 3 * SZ_2M + 77, false, 0, &v));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0,
				    NPU_ACCESS_READ));
	EXPECT_TRUE(FAULTS(self->cpu + 3 * SZ_2M + 78, true));
	EXPECT_EQ(-1, engine_check(self));
}

/* ---- mirrors: the process's own memory, reached by another process ---- */

/*
 * A mirror's range is the process's own memory at its own addresses, so
 * the aperture over it is mapped by another process, as the executor
 * does: a child, told what to do next through a pipe.
 */
#define MCHUNK		SZ_1M
#define MLEN		(5 * MCHUNK)	/* rw, munmap, mprotect, dontneed, ro */

static void step_send(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(99);
}

static char step_wait(int fd)
{
	char c = 0;

	if (read(fd, &c, 1) != 1)
		return 0;
	return c;
}

/* 2 MiB aligned anonymous memory, written with fill(@seed). */
static unsigned char *mirror_mem(size_t len, unsigned int seed)
{
	unsigned char *p = npu_hole_anon(len);

	if (!p)
		return NULL;
	fill(p, len, seed);
	return p;
}

static int mirror_map(int fd, void *p, uint64_t len)
{
	struct npu_mirror_map mm = { .size = sizeof(mm), .addr = ptr64(p),
				     .length = len };

	return npu_ioctl(fd, NPU_IOCTL_MIRROR_MAP, &mm);
}

/*
 * The child: the aperture over the parent's mirrored range, every access
 * checked against @model, which follows the parent's steps. Returns 0 or
 * the number of the first check that failed.
 */
static int mirror_child(int afd, unsigned char *m, unsigned char *model,
			int in, int out)
{
	volatile unsigned char *p;
	unsigned char v = 0xee;
	size_t i;

	p = aperture_map(afd, ptr64(m), MLEN, PROT_READ | PROT_WRITE);
	if (p != m)
		return 1;
	/* the parent's bytes, read at every offset */
	if (memcmp((void *)p, model, 4 * MCHUNK))
		return 2;
	/* written through the aperture, across page ends, in chunks 0 and 2 */
	fill(model + 4095, 5000, 8);
	memcpy((void *)(p + 4095), model + 4095, 5000);
	fill(model + 2 * MCHUNK + 100, 3 * SZ_4K, 9);
	memcpy((void *)(p + 2 * MCHUNK + 100), model + 2 * MCHUNK + 100,
	       3 * SZ_4K);
	step_send(out, 'A');
	/* the parent wrote chunks 0 and 3 */
	if (step_wait(in) != 'B')
		return 3;
	fill(model + MCHUNK - 3, 10000, 10);
	fill(model + 3 * MCHUNK + 5, 777, 11);
	if (memcmp((void *)p, model, 4 * MCHUNK))
		return 4;
	step_send(out, 'C');
	/* the parent: munmap 1, mprotect(PROT_READ) 2, MADV_DONTNEED 3 */
	if (step_wait(in) != 'D')
		return 5;
	for (i = 0; i < MCHUNK; i += 3 * SZ_4K + 17)
		if (!FAULTS(p + MCHUNK + i, false))
			return 6;
	if (!FAULTS(p + 2 * MCHUNK + 100, true) ||
	    !FAULTS(p + 2 * MCHUNK + MCHUNK - 1, true))
		return 7;
	if (memcmp((void *)(p + 2 * MCHUNK), model + 2 * MCHUNK, MCHUNK))
		return 8;
	if (npu_check_byte((void *)(p + 3 * MCHUNK), MCHUNK, 0) != -1)
		return 9;
	p[3 * MCHUNK + 4096 + 3] = 0x77;
	step_send(out, 'E');
	/* mapped read-only in the parent from the start: zeros, no write */
	if (probe(p + 4 * MCHUNK + 5, false, 0, &v) || v)
		return 10;
	if (!FAULTS(p + 4 * MCHUNK + 6, true))
		return 11;
	return 0;
}

/*
 * A mirror is reached through the aperture as the engine reaches it: its
 * pages are the process's own, read and written both ways, and follow
 * the process's munmap (SIGBUS), mprotect(PROT_READ) (reads only) and
 * MADV_DONTNEED (the new zero page, then the process's new page); a
 * read-only mapping of the process is read but not written.
 */
TEST_F(ap, mirror_both_ways)
{
	unsigned char *m = mirror_mem(MLEN, 7), *model = malloc(MLEN);
	int to_child[2], to_parent[2], status;
	pid_t pid;

	ASSERT_NONNULL(m);
	ASSERT_NONNULL(model);
	ASSERT_EQ(0, mprotect(m + 4 * MCHUNK, MCHUNK, PROT_READ));
	ASSERT_EQ(0, madvise(m + 4 * MCHUNK, MCHUNK, MADV_DONTNEED));
	memcpy(model, m, 4 * MCHUNK);
	memset(model + 4 * MCHUNK, 0, MCHUNK);
	ASSERT_EQ(0, mirror_map(self->fd, m, MLEN));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(to_child[1]);
		close(to_parent[0]);
		_exit(mirror_child(self->afd, m, model, to_child[0],
				   to_parent[1]));
	}
	close(to_child[0]);
	close(to_parent[1]);

	/* the child's writes are in the process's pages, and the engine's */
	ASSERT_EQ('A', step_wait(to_parent[0]));
	fill(model + 4095, 5000, 8);
	fill(model + 2 * MCHUNK + 100, 3 * SZ_4K, 9);
	EXPECT_EQ(0, memcmp(m, model, 4 * MCHUNK));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(self->host), ptr64(m),
					  4 * MCHUNK, NPU_CMD_DST_HOST)));
	EXPECT_EQ(0, memcmp(self->host, model, 4 * MCHUNK));
	/* the process writes; the child reads it through the aperture */
	fill(m + MCHUNK - 3, 10000, 10);
	fill(m + 3 * MCHUNK + 5, 777, 11);
	fill(model + MCHUNK - 3, 10000, 10);
	fill(model + 3 * MCHUNK + 5, 777, 11);
	step_send(to_child[1], 'B');

	ASSERT_EQ('C', step_wait(to_parent[0]));
	ASSERT_EQ(0, munmap(m + MCHUNK, MCHUNK));
	ASSERT_EQ(0, mprotect(m + 2 * MCHUNK, MCHUNK, PROT_READ));
	ASSERT_EQ(0, madvise(m + 3 * MCHUNK, MCHUNK, MADV_DONTNEED));
	step_send(to_child[1], 'D');

	/* the child's write after MADV_DONTNEED is in the new page */
	ASSERT_EQ('E', step_wait(to_parent[0]));
	EXPECT_EQ(0x77, m[3 * MCHUNK + 4096 + 3]);
	EXPECT_EQ(-1, npu_check_byte(m + 3 * MCHUNK, 4096 + 3, 0));
	EXPECT_EQ(0, memcmp(m + 2 * MCHUNK, model + 2 * MCHUNK, MCHUNK));
	EXPECT_EQ(0, memcmp(m, model, MCHUNK));

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(to_child[1]);
	close(to_parent[0]);
	free(model);
	munmap(m, MLEN);
}

/*
 * MIRROR_UNMAP takes the mirror's pages out of the aperture's mappings:
 * the next access is SIGBUS, and the process's pages keep what was
 * written through the aperture before.
 */
TEST_F(ap, mirror_unmap_takes_the_pages_away)
{
	unsigned char *m = mirror_mem(MCHUNK, 12), *model = malloc(MCHUNK);
	struct npu_mirror_unmap u = { .size = sizeof(u) };
	int to_child[2], to_parent[2], status;
	pid_t pid;

	ASSERT_NONNULL(m);
	ASSERT_NONNULL(model);
	memcpy(model, m, MCHUNK);
	ASSERT_EQ(0, mirror_map(self->fd, m, MCHUNK));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		volatile unsigned char *p;
		int ret = 0;

		p = aperture_map(self->afd, ptr64(m), MCHUNK,
				 PROT_READ | PROT_WRITE);
		if (p != m || memcmp((void *)p, model, MCHUNK))
			ret = 1;
		p[5] = 0x99;
		step_send(to_parent[1], 'A');
		if (step_wait(to_child[0]) != 'B')
			ret = ret ?: 2;
		if (!ret && (!FAULTS(p + 5, false) || !FAULTS(p + 9000, true)))
			ret = 3;
		_exit(ret);
	}
	close(to_child[0]);
	close(to_parent[1]);
	ASSERT_EQ('A', step_wait(to_parent[0]));
	EXPECT_EQ(0x99, m[5]);
	u.addr = ptr64(m);
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MIRROR_UNMAP, &u));
	step_send(to_child[1], 'B');
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0x99, m[5]);
	close(to_child[1]);
	close(to_parent[0]);
	free(model);
	munmap(m, MCHUNK);
}

/*
 * A device page with an uncorrectable error: SIGBUS with BUS_MCEERR_AR
 * (BUS_ADRERR on a kernel without memory-failure handling) at the CPU's
 * first access, the other pages go on.
 */
TEST_F(ap, poisoned_page)
{
	unsigned char *src = malloc(BUF_LEN);
	unsigned char v = 0;

	ASSERT_NONNULL(src);
	fill(src, BUF_LEN, 3);
	ASSERT_EQ(0, engine_write(self, SZ_2M, src, 2 * SZ_4K));
	ASSERT_EQ(0, npu_poison(0, getpid(), self->va + SZ_2M + SZ_4K));
	/* BUS_MCEERR_AR needs CONFIG_MEMORY_FAILURE (not the debug kernel's) */
	EXPECT_EQ(access("/proc/sys/vm/memory_failure_early_kill", F_OK) ?
		  BUS_ADRERR : BUS_MCEERR_AR,
		  probe(self->cpu + SZ_2M + SZ_4K + 5, false, 0, NULL));
	EXPECT_EQ(0, probe(self->cpu + SZ_2M + 5, false, 0, &v));
	EXPECT_EQ(self->model[SZ_2M + 5], v);
	free(src);
}

/* ---- bad input ---------------------------------------------------------- */

TEST(bad_input)
{
	struct npu_aperture_open a = { .size = sizeof(a) };
	int fd = npu_open(0), afd, i, fds[16];
	uint64_t va = npu_hole(2 * SZ_2M, SZ_2M);
	void *p;

	ASSERT_LE(0, fd);
	ASSERT_NE(0, va);
	a.flags = ~NPU_APERTURE_FLAGS_MASK;
	EXPECT_EQ(-EINVAL, npu_ioctl(fd, NPU_IOCTL_APERTURE_OPEN, &a));
	a.flags = 0;
	a.__reserved = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(fd, NPU_IOCTL_APERTURE_OPEN, &a));
	a.__reserved = 0;
	a.size = 8;
	EXPECT_EQ(-EINVAL, npu_ioctl(fd, NPU_IOCTL_APERTURE_OPEN, &a));
	/* CLOEXEC asked or not */
	ASSERT_EQ(0, aperture_open(fd, 0, &afd));
	EXPECT_EQ(0, fcntl(afd, F_GETFD) & FD_CLOEXEC);
	/* not at the identity, private, outside the VA window */
	EXPECT_EQ(MAP_FAILED, mmap((void *)(uintptr_t)va, SZ_2M, PROT_READ,
				   MAP_SHARED | MAP_FIXED, afd, va + SZ_2M));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap((void *)(uintptr_t)va, SZ_2M, PROT_READ,
				   MAP_PRIVATE | MAP_FIXED, afd, va));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED, afd, 0));
	EXPECT_EQ(EINVAL, errno);
	/* never code, not even later */
	EXPECT_EQ(MAP_FAILED, aperture_map(afd, va, SZ_2M, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EINVAL, errno);
	/* mremap cannot move it off the identity */
	p = aperture_map(afd, va, SZ_2M, PROT_READ);
	ASSERT_EQ((void *)(uintptr_t)va, p);
	EXPECT_EQ(MAP_FAILED, mremap(p, SZ_2M, SZ_2M, MREMAP_MAYMOVE | MREMAP_FIXED,
				     (void *)(uintptr_t)(va + SZ_2M)));
	EXPECT_EQ(MAP_FAILED, mremap(p, SZ_2M, 2 * SZ_2M, 0));
	EXPECT_EQ(-1, mprotect(p, SZ_2M, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	munmap(p, SZ_2M);
	/* the file has no read(): mmap() is the way in */
	EXPECT_EQ(-1, read(afd, &i, sizeof(i)));
	/* the cap: 16 files at a time, a closed one makes room */
	for (i = 0; i < 15; i++)
		ASSERT_EQ(0, aperture_open(fd, NPU_APERTURE_CLOEXEC, &fds[i]));
	EXPECT_EQ(-ENOSPC, aperture_open(fd, 0, &fds[15]));
	close(fds[0]);
	EXPECT_EQ(0, aperture_open(fd, 0, &fds[0]));
	for (i = 0; i < 15; i++)
		close(fds[i]);
	close(afd);
	/* another process cannot open one of this context */
	if (!fork()) {
		int x;

		_exit(aperture_open(fd, 0, &x) == -EPERM ? 0 : 1);
	} else {
		int status;

		wait(&status);
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	close(fd);
}

/* ---- IPC imports and peers' memory (no fixture) ----------------------- */

static int peer_enable(int fd, uint32_t device, bool on)
{
	struct npu_peer_enable a = { .size = sizeof(a), .device = device };

	return npu_ioctl(fd, on ? NPU_IOCTL_PEER_ENABLE : NPU_IOCTL_PEER_DISABLE, &a);
}

/*
 * The importer's side of ipc_import_until_revoked, in a child: import
 * @key, map it, read @v at byte 7 through its own aperture and write @v + 1
 * at byte 8; after the parent's revocation ('r' on @rd) both are SIGBUS.
 * Its exit status says which step failed.
 */
static int ipc_importer(uint64_t key, unsigned char v, int rd, int wr)
{
	struct npu_share_import imp = { .size = sizeof(imp), .shareable = key };
	unsigned char got = 0, *p;
	int fd = npu_open(0), afd;
	uint64_t va;
	char c;
	int rc;

	if (fd < 0 || npu_ioctl(fd, NPU_IOCTL_IPC_IMPORT, &imp))
		return 10;
	va = npu_reserve_new(fd, imp.length, SZ_2M);
	if (!va || npu_map(fd, va, imp.length, imp.handle) ||
	    npu_set_access(fd, va, imp.length, 0, NPU_ACCESS_READWRITE) ||
	    aperture_open(fd, 0, &afd))
		return 11;
	p = aperture_map(afd, va, imp.length, PROT_READ | PROT_WRITE);
	if (p != (void *)(uintptr_t)va)
		return 12;
	rc = probe(p + 7, false, 0, &got);
	if (rc || got != v) {
		printf("# importer: read %d, got %#x\n", rc, got);
		return 13;
	}
	if (probe(p + 8, true, v + 1, NULL))
		return 14;
	c = 'w';
	if (write(wr, &c, 1) != 1 || read(rd, &c, 1) != 1 || c != 'r')
		return 15;
	/* the pages mapped before the revocation are gone too */
	if (!FAULTS(p + 7, false) || !FAULTS(p + 8, true))
		return 16;
	return 0;
}

/*
 * An IPC import reaches the exporter's memory through the importer's
 * aperture, both ways, until the exporter revokes its key: from then on
 * every access is SIGBUS, also to the pages mapped already.
 */
TEST(ipc_import_until_revoked)
{
	int fd, afd, to_child[2], to_parent[2], status;
	unsigned char *cpu;
	uint64_t va, key;
	pid_t pid;
	char c = 0;

	probe_arm();
	fd = npu_open(0);
	ASSERT_LE(0, fd);
	va = npu_map_new_rw(fd, SZ_2M, NPU_PAGE_4K, 0);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, aperture_open(fd, 0, &afd));
	cpu = aperture_map(afd, va, SZ_2M, PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)va, cpu);
	cpu[7] = 0x41;
	struct npu_ipc_export e = {
		.size = sizeof(e), .flags = NPU_SHARE_ANY_PID, .addr = va,
		.length = SZ_2M,
	};
	ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_IPC_EXPORT, &e));
	key = e.key;
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(ipc_importer(key, 0x41, to_child[0], to_parent[1]));
	close(to_parent[1]);
	EXPECT_EQ(1, read(to_parent[0], &c, 1));
	EXPECT_EQ('w', c);
	/* the importer's write is in the exporter's memory */
	EXPECT_EQ(0x42, cpu[8]);
	struct npu_ipc_destroy d = { .size = sizeof(d), .key = key };
	EXPECT_EQ(0, npu_ioctl(fd, NPU_IOCTL_IPC_DESTROY, &d));
	c = 'r';
	EXPECT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the exporter's own access goes on */
	EXPECT_EQ(0x42, cpu[8]);
	munmap(cpu, SZ_2M);
	close(afd);
	close(fd);
}

/*
 * Device 1's aperture reaches device 0's memory of the same process as
 * device 1's engine does: only after PEER_ENABLE and with the mapping's
 * peer right; a page mapped before goes when the right narrows, at
 * PEER_DISABLE and at the peer's UNMAP.
 */
TEST(peer_memory_follows_the_peer)
{
	unsigned char v = 0, *p, *own;
	int fd0, fd1, afd0, afd1;
	uint64_t va;

	if (npu_device_count() < 2)
		SKIP(return, "needs two NPUs");
	probe_arm();
	fd0 = npu_open(0);
	fd1 = npu_open(1);
	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	va = npu_map_new_rw(fd0, SZ_2M, NPU_PAGE_4K, 0);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, aperture_open(fd0, 0, &afd0));
	ASSERT_EQ(0, aperture_open(fd1, 0, &afd1));
	own = aperture_map(afd0, va, SZ_2M, PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)va, own);
	own[3] = 0x51;
	/* device 1's view of the same VA, in a second mapping of it */
	p = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, afd1, (off_t)va);
	EXPECT_EQ(MAP_FAILED, p);	/* the identity only */
	ASSERT_EQ(0, munmap(own, SZ_2M));
	p = aperture_map(afd1, va, SZ_2M, PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)va, p);

	/* the right alone is not enough, nor PEER_ENABLE alone */
	ASSERT_EQ(0, npu_set_access(fd0, va, SZ_2M, 1, NPU_ACCESS_READWRITE));
	EXPECT_TRUE(FAULTS(p + 3, false));
	ASSERT_EQ(0, npu_set_access(fd0, va, SZ_2M, 1, NPU_ACCESS_NONE));
	ASSERT_EQ(0, peer_enable(fd1, 0, true));
	EXPECT_TRUE(FAULTS(p + 3, false));
	ASSERT_EQ(0, npu_set_access(fd0, va, SZ_2M, 1, NPU_ACCESS_READ));
	EXPECT_EQ(0, probe(p + 3, false, 0, &v));
	EXPECT_EQ(0x51, v);
	EXPECT_TRUE(FAULTS(p + 4, true));
	ASSERT_EQ(0, npu_set_access(fd0, va, SZ_2M, 1, NPU_ACCESS_READWRITE));
	EXPECT_EQ(0, probe(p + 4, true, 0x52, NULL));
	/* narrowed: the writable page goes */
	ASSERT_EQ(0, npu_set_access(fd0, va, SZ_2M, 1, NPU_ACCESS_READ));
	EXPECT_TRUE(FAULTS(p + 4, true));
	EXPECT_EQ(0, probe(p + 4, false, 0, &v));
	EXPECT_EQ(0x52, v);
	/* PEER_DISABLE, then again */
	ASSERT_EQ(0, peer_enable(fd1, 0, false));
	EXPECT_TRUE(FAULTS(p + 4, false));
	ASSERT_EQ(0, peer_enable(fd1, 0, true));
	EXPECT_EQ(0, probe(p + 4, false, 0, &v));
	EXPECT_EQ(0x52, v);
	/* the peer unmaps */
	ASSERT_EQ(0, npu_unmap(fd0, va));
	EXPECT_TRUE(FAULTS(p + 4, false));
	munmap(p, SZ_2M);
	close(afd0);
	close(afd1);
	close(fd1);
	close(fd0);
}

/* The peer context closes: its pages leave the accessor's aperture. */
TEST(peer_context_closes)
{
	unsigned char v = 1, *p;
	int fd0, fd1, afd1;
	uint64_t va;

	if (npu_device_count() < 2)
		SKIP(return, "needs two NPUs");
	probe_arm();
	fd0 = npu_open(0);
	fd1 = npu_open(1);
	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	va = npu_map_new_rw(fd0, SZ_2M, NPU_PAGE_2M, 1);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, peer_enable(fd1, 0, true));
	ASSERT_EQ(0, aperture_open(fd1, 0, &afd1));
	p = aperture_map(afd1, va, SZ_2M, PROT_READ | PROT_WRITE);
	ASSERT_EQ((void *)(uintptr_t)va, p);
	EXPECT_EQ(0, probe(p + SZ_1M, true, 0x61, NULL));
	EXPECT_EQ(0, probe(p + SZ_1M, false, 0, &v));
	EXPECT_EQ(0x61, v);
	close(fd0);
	EXPECT_TRUE(FAULTS(p + SZ_1M, false));
	munmap(p, SZ_2M);
	close(afd1);
	close(fd1);
}

TEST_HARNESS_MAIN
