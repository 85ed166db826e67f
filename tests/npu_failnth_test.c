// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_failnth_test.c - allocation-failure sweep of every ioctl's
 * success path (and of open(/dev/npu0) itself), with the kernel's
 * per-task fault injection (/proc/self/task/<tid>/fail-nth,
 * Documentation/fault-injection/fault-injection.rst).
 *
 * For one call at a time, with everything the call needs set up first:
 * write N to fail-nth, make the call, read fail-nth back; for N = 1, 2,
 * 3, ... until a call runs with the injection left unused (fail-nth still
 * positive), which must then succeed. Every injected failure must come
 * back as a clean, documented error (-ENOMEM), leave nothing behind - the
 * same call made again at once succeeds (no half-made state in the way),
 * and what a success promises is really there - and a failure absorbed
 * inside the kernel must still give a whole success. A success is then
 * taken back through the API where there is a call for it (unregister,
 * free, unmap), which must leave nothing either. After each round the
 * device is closed and nothing may be left: device memory in use
 * (GET_INFO mem_used on a fresh fd), FOLL_PIN pins (nr_foll_pin_acquired
 * == nr_foll_pin_released) and this process's VmPin are back where they
 * started. Leaked kernel objects are kmemleak's to find: the bench scans
 * after the run (Documentation/debug-kernel.rst).
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB,
 * CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAULT_INJECTION_DEBUG_FS (the bench's
 * debug kernel); every test skips elsewhere (the Debian kernels). The
 * fixture sets failslab and fail_page_alloc to inject into sleeping
 * allocations (ignore-gfp-wait N) of any order (min-order 0), quietly
 * (verbose 0: no stack dump for the log check to trip on), and restores
 * the settings afterwards. Runs as root in the VM.
 */
#include "harness.h"
#include "npu_nl_util.h"

#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

/* More injection points than any call here has. */
#define MAX_NTH		500

/* ------------------------------------------------------------------ */
/* fail-nth and the fault-injection knobs                              */
/* ------------------------------------------------------------------ */

static int nth_fd = -1;

static int nth_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	return open(path, O_RDWR | O_CLOEXEC);
}

/*
 * Arm and disarm with pwrite/pread on an fd opened beforehand: nothing
 * between arming and the call under test may allocate in this task.
 */
static inline void nth_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		abort();
}

/* Disarm; true if the armed failure was injected. */
static inline bool nth_disarm(void)
{
	char buf[16] = "";
	ssize_t len = pread(nth_fd, buf, sizeof(buf) - 1, 0);

	if (len <= 0 || pwrite(nth_fd, "0", 1, 0) != 1)
		abort();
	return atoi(buf) == 0;
}

struct knob {
	const char *path;
	const char *value;
	char saved[32];
	bool changed;
};

static struct knob knobs[] = {
	{ .path = "/sys/kernel/debug/failslab/ignore-gfp-wait", .value = "N" },
	{ .path = "/sys/kernel/debug/failslab/verbose", .value = "0" },
	{ .path = "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", .value = "N" },
	{ .path = "/sys/kernel/debug/fail_page_alloc/verbose", .value = "0" },
	{ .path = "/sys/kernel/debug/fail_page_alloc/min-order", .value = "0" },
};

static int read_str(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void knobs_restore(void)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		if (knobs[i].changed)
			npu_write_file(knobs[i].path, knobs[i].saved);
		knobs[i].changed = false;
	}
}

/* 0, or the path of the knob that cannot be set. */
static const char *knobs_set(void)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		struct knob *k = &knobs[i];

		if (read_str(k->path, k->saved, sizeof(k->saved)))
			return k->path;
		if (npu_write_file(k->path, k->value))
			return k->path;
		k->changed = true;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The sweep                                                           */
/* ------------------------------------------------------------------ */

/*
 * What one round of the sweep works on. setup() makes everything the call
 * needs (fault injection disarmed), call() is the one call under test (0
 * or -errno), verify() checks that a successful call did all it promised,
 * check_failed() (optional) that a failed one left no trace while the
 * context is still open, undo() (optional) takes back a success or an
 * absorbed failure before the call is made again, and teardown() closes
 * everything.
 */
struct round {
	int fd, fd2;			/* contexts (fd2: a second device) */
	uint32_t handle, stream;
	uint64_t va, len, shareable;
	void *host, *host2;
	long long used_before;		/* mem_used on fd before the call */
	long long vmpin_before;		/* VmPin before the call */
	long long pins_before;		/* pins held before the call */
	int new_fd;			/* open(): the fd it returned */
	uint32_t new_handle;
	struct npu_get_info info;
};

struct sweep {
	const char *name;
	bool allocates;			/* at least one failure must be injected */
	void (*setup)(struct round *r);
	int (*call)(struct round *r);
	void (*verify)(struct round *r);
	void (*check_failed)(struct round *r);
	void (*undo)(struct round *r);
};

static void round_close(struct round *r)
{
	if (r->new_fd > 0)
		close(r->new_fd);
	if (r->fd > 0)
		close(r->fd);
	if (r->fd2 > 0)
		close(r->fd2);
	if (r->host)
		munmap(r->host, r->len);
	if (r->host2)
		munmap(r->host2, r->len);
	memset(r, 0, sizeof(*r));
}

/* Device memory in use, seen through a fresh context. */
static long long mem_used_fresh(void)
{
	int fd = npu_open(0);
	long long used;

	if (fd < 0)
		return -1;
	used = npu_mem_used(fd);
	close(fd);
	return used;
}

static bool errno_clean(int err)
{
	return err == -ENOMEM;
}

static void run_sweep(const struct sweep *s)
{
	long long mem0, pins0, vmpin0;
	int injected = 0, absorbed = 0, n;
	bool done = false;
	struct round r;

	mem0 = mem_used_fresh();
	pins0 = npu_pins_held();
	vmpin0 = npu_status_kb("VmPin");
	ASSERT_LE(0, mem0);
	ASSERT_LE(0, pins0);
	ASSERT_LE(0, vmpin0);

	for (n = 1; n <= MAX_NTH && !done; n++) {
		bool hit;
		int ret;

		memset(&r, 0, sizeof(r));
		r.fd = -1;
		r.fd2 = -1;
		r.new_fd = -1;
		s->setup(&r);
		r.used_before = r.fd >= 0 ? npu_mem_used(r.fd) : -1;
		r.vmpin_before = npu_status_kb("VmPin");
		r.pins_before = npu_pins_held();

		nth_arm(n);
		ret = s->call(&r);
		hit = nth_disarm();

		if (!hit) {
			/* Nothing injected: the call must just work. */
			if (ret)
				TH_LOG("%s: fails with %d (%s) with no fault injected",
				       s->name, ret, strerror(-ret));
			ASSERT_EQ(0, ret);
			s->verify(&r);
			done = true;
		} else if (ret == 0) {
			/* The failure was absorbed (a retry, a fallback). */
			absorbed++;
			s->verify(&r);
		} else {
			injected++;
			if (!errno_clean(ret))
				TH_LOG("%s: failure %d gave %d (%s), not -ENOMEM",
				       s->name, n, ret, strerror(-ret));
			EXPECT_TRUE(errno_clean(ret));
			if (s->check_failed)
				s->check_failed(&r);
			/* Nothing half-made may be in the way of a retry. */
			ret = s->call(&r);
			if (ret)
				TH_LOG("%s: retry after failure %d gives %d (%s)",
				       s->name, n, ret, strerror(-ret));
			ASSERT_EQ(0, ret);
			s->verify(&r);
		}
		/* Take the success back through the API, then close. */
		if (s->undo)
			s->undo(&r);
		round_close(&r);

		/* Closed: nothing of the round may be left. */
		EXPECT_EQ(mem0, mem_used_fresh());
		EXPECT_EQ(pins0, npu_pins_held());
		EXPECT_EQ(vmpin0, npu_status_kb("VmPin"));
		if (__th_sh->failed) {
			TH_LOG("%s: round %d left state behind", s->name, n);
			ASSERT_FALSE(true);
		}
	}
	TH_LOG("%s: %d injected failures, %d absorbed, success at fail-nth %d",
	       s->name, injected, absorbed, n - 1);
	ASSERT_TRUE(done);
	if (s->allocates)
		ASSERT_LT(0, injected + absorbed);
}

/* ------------------------------------------------------------------ */
/* Building blocks                                                     */
/* ------------------------------------------------------------------ */

#define ASSERT_SETUP(expr) do {							\
	int __e = (expr);							\
	if (__e)								\
		TH_LOG("setup: %s: %d (%s)", #expr, __e, strerror(-__e));	\
	ASSERT_EQ(0, __e);							\
} while (0)

static void open_dev(struct round *r)
{
	r->fd = npu_open(0);
	ASSERT_LE(0, r->fd);
}

/* 4 MiB of 2 MiB pages, reserved and mapped; access set by the caller. */
static void devmem(struct round *r, bool map)
{
	r->len = 2 * SZ_2M;
	ASSERT_SETUP(npu_alloc(r->fd, r->len, SZ_2M, &r->handle));
	r->va = npu_reserve_new(r->fd, r->len, SZ_2M);
	ASSERT_NE(0, r->va);
	if (map)
		ASSERT_SETUP(npu_map(r->fd, r->va, r->len, r->handle));
}

static uint32_t dev_index(int fd)
{
	struct npu_get_info info;

	return npu_info(fd, &info) ? ~0U : info.device_index;
}

/* Host bytes at @p are @v, and the device reaches them: copy round trip. */
static void expect_bytes(const void *p, size_t len, unsigned char v)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++) {
		if (b[i] != v) {
			TH_LOG("byte %zu is %#x, expected %#x", i, b[i], v);
			ASSERT_EQ(v, b[i]);
		}
	}
}

/* ------------------------------------------------------------------ */
/* open                                                                */
/* ------------------------------------------------------------------ */

static void open_setup(struct round *r)
{
	(void)r;
}

static int open_call(struct round *r)
{
	if (r->new_fd >= 0)
		close(r->new_fd);
	r->new_fd = open("/dev/npu0", O_RDWR | O_CLOEXEC);
	return r->new_fd < 0 ? -errno : 0;
}

static void open_verify(struct round *r)
{
	struct npu_get_info info;
	uint64_t va;

	ASSERT_LE(0, r->new_fd);
	ASSERT_OK(npu_info(r->new_fd, &info));
	/* The context works: its page tables exist. */
	va = npu_reserve_new(r->new_fd, SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_OK(npu_release(r->new_fd, va));
}

/* ------------------------------------------------------------------ */
/* GET_INFO                                                            */
/* ------------------------------------------------------------------ */

static int get_info_call(struct round *r)
{
	return npu_info(r->fd, &r->info);
}

static void get_info_verify(struct round *r)
{
	EXPECT_LT(0, r->info.mem_total);
	EXPECT_NE(0, r->info.page_sizes);
}

/* ------------------------------------------------------------------ */
/* MEM_ALLOC                                                           */
/* ------------------------------------------------------------------ */

/*
 * The kernel's GPU buddy allocator cannot take a failure of its own: when
 * the slab allocation in split_block() fails, alloc_from_freetree()'s
 * err_undo frees a block that is still linked in its free tree (KASAN:
 * slab-use-after-free in rb_last(), then BUG at drivers/gpu/buddy.c),
 * in Debian's 6.12 as upstream. That is no npu error path, so the call
 * under test must not split: an anchor handle allocated first splits a
 * root block down to 2 MiB, which leaves the anchor's free 2 MiB buddy for
 * the 2 MiB the call asks for.
 */
static void mem_alloc_setup(struct round *r)
{
	open_dev(r);
	ASSERT_SETUP(npu_alloc(r->fd, SZ_2M, SZ_2M, &r->handle));
}

static int mem_alloc_call(struct round *r)
{
	r->len = SZ_2M;
	return npu_alloc(r->fd, r->len, SZ_2M, &r->new_handle);
}

static void mem_alloc_verify(struct round *r)
{
	ASSERT_NE(0, r->new_handle);
	EXPECT_EQ(r->used_before + (long long)r->len, npu_mem_used(r->fd));
	/* A real handle: it maps. */
	r->va = npu_reserve_new(r->fd, r->len, SZ_2M);
	ASSERT_NE(0, r->va);
	ASSERT_OK(npu_map(r->fd, r->va, r->len, r->new_handle));
	ASSERT_OK(npu_unmap(r->fd, r->va));
	ASSERT_OK(npu_free(r->fd, r->new_handle));
	EXPECT_EQ(r->used_before, npu_mem_used(r->fd));
}

static void mem_alloc_failed(struct round *r)
{
	EXPECT_EQ(r->used_before, npu_mem_used(r->fd));
}

/* ------------------------------------------------------------------ */
/* VA_RESERVE                                                          */
/* ------------------------------------------------------------------ */

static void va_reserve_setup(struct round *r)
{
	open_dev(r);
	r->len = 4 * SZ_2M;
	r->va = npu_hole(r->len, SZ_2M);
	ASSERT_NE(0, r->va);
}

static int va_reserve_call(struct round *r)
{
	return npu_reserve(r->fd, r->va, r->len);
}

static void va_reserve_verify(struct round *r)
{
	struct npu_addr_query q;

	ASSERT_OK(npu_query(r->fd, r->va + SZ_4K, &q));
	EXPECT_EQ(NPU_ADDR_DEVICE, q.kind);
	EXPECT_EQ(r->va, q.base);
	EXPECT_EQ(r->len, q.length);
}

static void va_reserve_failed(struct round *r)
{
	struct npu_addr_query q;

	ASSERT_OK(npu_query(r->fd, r->va, &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);
}

/* ------------------------------------------------------------------ */
/* MAP (4 KiB pages: page tables down to level 0; 2 MiB leaves)        */
/* ------------------------------------------------------------------ */

static void map_setup_4k(struct round *r)
{
	open_dev(r);
	r->len = 16 * SZ_4K;
	ASSERT_SETUP(npu_alloc(r->fd, r->len, SZ_4K, &r->handle));
	r->va = npu_reserve_new(r->fd, r->len, SZ_2M);
	ASSERT_NE(0, r->va);
}

static void map_setup_2m(struct round *r)
{
	open_dev(r);
	devmem(r, false);
}

static int map_call(struct round *r)
{
	return npu_map(r->fd, r->va, r->len, r->handle);
}

static void map_verify(struct round *r)
{
	struct npu_addr_query q;
	uint32_t s;

	ASSERT_OK(npu_query(r->fd, r->va + r->len - SZ_4K, &q));
	EXPECT_EQ(1, q.mapped);
	/* The page tables are whole: the device reaches every page. */
	ASSERT_OK(npu_set_access(r->fd, r->va, r->len, dev_index(r->fd),
				 NPU_ACCESS_READWRITE));
	ASSERT_OK(npu_stream_create(r->fd, &s));
	ASSERT_OK(npu_run(r->fd, s, npu_memset_cmd(r->va, 0x5a, r->len, 0)));
}

static void map_failed(struct round *r)
{
	struct npu_addr_query q;

	ASSERT_OK(npu_query(r->fd, r->va, &q));
	EXPECT_EQ(0, q.mapped);
	EXPECT_EQ(-ENOENT, npu_unmap(r->fd, r->va));
}

/* ------------------------------------------------------------------ */
/* SET_ACCESS                                                          */
/* ------------------------------------------------------------------ */

static void set_access_setup(struct round *r)
{
	open_dev(r);
	devmem(r, true);
}

static int set_access_call(struct round *r)
{
	return npu_set_access(r->fd, r->va, r->len, dev_index(r->fd),
			      NPU_ACCESS_READWRITE);
}

static void set_access_verify(struct round *r)
{
	uint32_t access = 0;

	ASSERT_OK(npu_get_access(r->fd, r->va + SZ_2M, dev_index(r->fd), &access));
	EXPECT_EQ(NPU_ACCESS_READWRITE, access);
}

/* ------------------------------------------------------------------ */
/* HOST_REGISTER, plain and MAPPED                                     */
/* ------------------------------------------------------------------ */

#define HOST_LEN	(64 * SZ_4K)

static void host_setup(struct round *r)
{
	open_dev(r);
	r->len = HOST_LEN;
	r->host = npu_host_mem(r->len);
	ASSERT_NONNULL(r->host);
	ASSERT_SETUP(npu_stream_create(r->fd, &r->stream));
}

static int host_call(struct round *r)
{
	return npu_register(r->fd, r->host, r->len, 0, 0);
}

static void host_expect_pinned(struct round *r, bool pinned)
{
	long long kb = pinned ? (long long)(r->len >> 10) : 0;
	long long pages = pinned ? (long long)(r->len / SZ_4K) : 0;

	EXPECT_EQ(r->vmpin_before + kb, npu_status_kb("VmPin"));
	EXPECT_EQ(r->pins_before + pages, npu_pins_held());
}

static void host_verify(struct round *r)
{
	struct npu_addr_query q;

	ASSERT_OK(npu_query(r->fd, ptr64(r->host) + SZ_4K, &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);
	EXPECT_EQ(ptr64(r->host), q.base);
	host_expect_pinned(r, true);
	/* The device reaches it: the DMA mapping is whole. */
	ASSERT_OK(npu_run(r->fd, r->stream,
			  npu_memset_cmd(ptr64(r->host), 0xa5, r->len,
					 NPU_CMD_DST_HOST)));
	expect_bytes(r->host, r->len, 0xa5);
}

static void host_undo(struct round *r)
{
	ASSERT_OK(npu_unregister(r->fd, r->host));
	host_expect_pinned(r, false);
}

static void host_failed(struct round *r)
{
	struct npu_addr_query q;

	ASSERT_OK(npu_query(r->fd, ptr64(r->host), &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);
	host_expect_pinned(r, false);
	EXPECT_EQ(-ENXIO, npu_unregister(r->fd, r->host));
}

static void host_mapped_setup(struct round *r)
{
	host_setup(r);
	r->va = npu_hole(r->len, SZ_2M);
	ASSERT_NE(0, r->va);
}

static int host_mapped_call(struct round *r)
{
	return npu_register(r->fd, r->host, r->len, NPU_HOST_MAPPED, r->va);
}

static void host_mapped_verify(struct round *r)
{
	struct npu_addr_query q;

	ASSERT_OK(npu_query(r->fd, ptr64(r->host), &q));
	EXPECT_EQ(NPU_ADDR_HOST, q.kind);
	EXPECT_EQ(1, q.mapped);
	EXPECT_EQ(r->va, q.dev_addr);
	host_expect_pinned(r, true);
	/* Through the device VA: the page tables are whole. */
	ASSERT_OK(npu_run(r->fd, r->stream,
			  npu_memset_cmd(r->va, 0x3c, r->len, 0)));
	expect_bytes(r->host, r->len, 0x3c);
}

static void host_mapped_failed(struct round *r)
{
	struct npu_addr_query q;

	host_failed(r);
	ASSERT_OK(npu_query(r->fd, r->va, &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);
}

/* ------------------------------------------------------------------ */
/* STREAM_CREATE                                                       */
/* ------------------------------------------------------------------ */

static int stream_create_call(struct round *r)
{
	return npu_stream_create(r->fd, &r->stream);
}

static void stream_create_verify(struct round *r)
{
	uint64_t *p;

	ASSERT_NE(0, r->stream);
	r->len = SZ_4K;
	r->host = npu_host_mem(r->len);
	ASSERT_NONNULL(r->host);
	p = r->host;
	ASSERT_OK(npu_register(r->fd, r->host, r->len, 0, 0));
	ASSERT_OK(npu_run(r->fd, r->stream,
			  (struct npu_cmd){ .op = NPU_OP_WRITE_VALUE,
					    .flags = NPU_CMD_DST_HOST,
					    .dst = ptr64(p), .value = 42 }));
	EXPECT_EQ(42, *p);
	ASSERT_OK(npu_stream_destroy(r->fd, r->stream, 0));
	ASSERT_OK(npu_unregister(r->fd, r->host));
}

/* ------------------------------------------------------------------ */
/* MIRROR_MAP with POPULATE: the device page-fault path, in this task   */
/* ------------------------------------------------------------------ */

/*
 * The fault path (hmm_range_fault, DMA mapping, page tables, entries)
 * normally runs in the DMA engine's worker, out of reach of this task's
 * fail-nth; POPULATE runs the same npu_mirror_fault() in the ioctl. The
 * pages are touched first, so that the walk itself needs no page (a CPU
 * fault that fails for memory reads as -EFAULT to HMM).
 */
static void mirror_setup(struct round *r)
{
	open_dev(r);
	r->len = SZ_2M;
	r->host = npu_hole_anon(r->len);
	ASSERT_NONNULL(r->host);
	r->va = (uintptr_t)r->host;
	memset(r->host, 0x3c, r->len);
	r->host2 = npu_host_mem(r->len);
	ASSERT_NONNULL(r->host2);
	ASSERT_SETUP(npu_register(r->fd, r->host2, r->len, 0, 0));
	ASSERT_SETUP(npu_stream_create(r->fd, &r->stream));
}

static int mirror_call(struct round *r)
{
	struct npu_mirror_map m = {
		.size = sizeof(m), .flags = NPU_MIRROR_POPULATE,
		.addr = ptr64(r->host), .length = r->len,
	};

	return npu_ioctl(r->fd, NPU_IOCTL_MIRROR_MAP, &m);
}

static void mirror_verify(struct round *r)
{
	struct npu_addr_query q;

	ASSERT_OK(npu_query(r->fd, ptr64(r->host), &q));
	EXPECT_EQ(NPU_ADDR_MIRROR, q.kind);
	/* The device reads the process's pages at their own address. */
	ASSERT_OK(npu_run(r->fd, r->stream,
			  npu_copy_cmd(ptr64(r->host2), ptr64(r->host), r->len,
				       NPU_CMD_DST_HOST)));
	expect_bytes(r->host2, r->len, 0x3c);
	/* Nothing is pinned by a mirror. */
	EXPECT_EQ(r->pins_before, npu_pins_held());
}

static void mirror_failed(struct round *r)
{
	struct npu_addr_query q;

	ASSERT_OK(npu_query(r->fd, ptr64(r->host), &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);
}

static void mirror_undo(struct round *r)
{
	struct npu_mirror_unmap u = { .size = sizeof(u), .addr = ptr64(r->host) };

	ASSERT_OK(npu_ioctl(r->fd, NPU_IOCTL_MIRROR_UNMAP, &u));
}

/* ------------------------------------------------------------------ */
/* SUBMIT: a copy from a host registration to device memory            */
/* ------------------------------------------------------------------ */

static void submit_setup(struct round *r)
{
	open_dev(r);
	devmem(r, true);
	ASSERT_SETUP(npu_set_access(r->fd, r->va, r->len, dev_index(r->fd),
				    NPU_ACCESS_READWRITE));
	r->host = npu_host_mem(r->len);
	r->host2 = npu_host_mem(r->len);
	ASSERT_NONNULL(r->host);
	ASSERT_NONNULL(r->host2);
	memset(r->host, 0x77, r->len);
	ASSERT_SETUP(npu_register(r->fd, r->host, r->len, NPU_HOST_READONLY, 0));
	ASSERT_SETUP(npu_register(r->fd, r->host2, r->len, 0, 0));
	ASSERT_SETUP(npu_stream_create(r->fd, &r->stream));
}

static int submit_call(struct round *r)
{
	struct npu_cmd cmd = npu_copy_cmd(r->va, ptr64(r->host), r->len,
					  NPU_CMD_SRC_HOST);

	return npu_submit(r->fd, r->stream, &cmd, 1, NULL);
}

static void submit_verify(struct round *r)
{
	ASSERT_OK(npu_sync(r->fd, r->stream, -1));
	ASSERT_OK(npu_run(r->fd, r->stream,
			  npu_copy_cmd(ptr64(r->host2), r->va, r->len,
				       NPU_CMD_DST_HOST)));
	expect_bytes(r->host2, r->len, 0x77);
}

static void submit_failed(struct round *r)
{
	/* Nothing was queued. */
	ASSERT_OK(npu_sync(r->fd, r->stream, 0));
}

/* SUBMIT of a RANDOM: its task, read and kept at SUBMIT. */
static int submit_random_call(struct round *r)
{
	struct npu_random rn = {
		.func = NPU_RANDOM_UNIFORM, .type = NPU_RANDOM_TYPE_UINT32,
		.param = { 0, 100 }, .seed = 1, .count = 64, .counter = r->va,
	};
	struct npu_cmd cmd = { .op = NPU_OP_RANDOM, .dst = r->va + 64,
			       .src = ptr64(&rn), .value = sizeof(rn) };

	return npu_submit(r->fd, r->stream, &cmd, 1, NULL);
}

/* It ran: the counter, 0 in new memory, moved on by the count. */
static void submit_random_verify(struct round *r)
{
	uint64_t c[2];

	ASSERT_OK(npu_sync(r->fd, r->stream, -1));
	ASSERT_OK(npu_run(r->fd, r->stream,
			  npu_copy_cmd(ptr64(r->host2), r->va, 16, NPU_CMD_DST_HOST)));
	memcpy(c, r->host2, 16);
	EXPECT_EQ(64, c[0]);
	EXPECT_EQ(0, c[1]);
}

/* ------------------------------------------------------------------ */
/* MODEL_CREATE: the steps, a RANDOM's task, the id; a model's run      */
/* ------------------------------------------------------------------ */

static struct npu_random model_random = {
	.func = NPU_RANDOM_UNIFORM, .type = NPU_RANDOM_TYPE_UINT32,
	.param = { 0, 100 }, .seed = 1, .count = 64,
};

static long long models_of(struct round *r)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", r->fd);
	return npu_file_value_at(AT_FDCWD, path, "npu-models", ':');
}

/* A model: a copy in from the registration, a RANDOM whose counter is at r->va. */
static int model_create_call(struct round *r)
{
	struct npu_cmd cmds[2] = {
		npu_copy_cmd(r->va + SZ_4K, ptr64(r->host), SZ_4K, NPU_CMD_SRC_HOST),
		{ .op = NPU_OP_RANDOM, .dst = r->va + 64, .src = ptr64(&model_random),
		  .value = sizeof(model_random) },
	};
	struct npu_model_create c = {
		.size = sizeof(c), .count = 2, .cmds = ptr64(cmds), .cmd_size = sizeof(cmds[0]),
	};
	int ret;

	model_random.counter = r->va;
	ret = npu_ioctl(r->fd, NPU_IOCTL_MODEL_CREATE, &c);
	r->new_handle = c.model;
	return ret;
}

/* It runs: the copy lands, the counter moves on by the count each run. */
static void model_run_verify(struct round *r, uint64_t runs)
{
	uint64_t c[2];

	ASSERT_OK(npu_sync(r->fd, r->stream, -1));
	ASSERT_OK(npu_run(r->fd, r->stream,
			  npu_copy_cmd(ptr64(r->host2), r->va, 2 * SZ_4K, NPU_CMD_DST_HOST)));
	memcpy(c, r->host2, 16);
	EXPECT_EQ(64 * runs, c[0]);
	EXPECT_EQ(0, c[1]);
	expect_bytes((uint8_t *)r->host2 + SZ_4K, SZ_4K, 0x77);
}

static void model_create_verify(struct round *r)
{
	struct npu_cmd run = { .op = NPU_OP_MODEL, .src = r->new_handle };

	EXPECT_EQ(1, models_of(r));
	ASSERT_OK(npu_run(r->fd, r->stream, npu_memset_cmd(r->va, 0, 16, 0)));
	ASSERT_OK(npu_submit(r->fd, r->stream, &run, 1, NULL));
	ASSERT_OK(npu_submit(r->fd, r->stream, &run, 1, NULL));
	model_run_verify(r, 2);
}

static void model_create_failed(struct round *r)
{
	EXPECT_EQ(0, models_of(r));
}

static void model_create_undo(struct round *r)
{
	struct npu_model_destroy d = { .size = sizeof(d), .model = r->new_handle };

	ASSERT_OK(npu_ioctl(r->fd, NPU_IOCTL_MODEL_DESTROY, &d));
}

/* SUBMIT of a model's run (its progress and RANDOM task are allocated). */
static void submit_model_setup(struct round *r)
{
	submit_setup(r);
	ASSERT_SETUP(npu_run(r->fd, r->stream, npu_memset_cmd(r->va, 0, 16, 0)));
	ASSERT_SETUP(model_create_call(r));
}

static int submit_model_call(struct round *r)
{
	struct npu_cmd run = { .op = NPU_OP_MODEL, .src = r->new_handle };

	return npu_submit(r->fd, r->stream, &run, 1, NULL);
}

static void submit_model_verify(struct round *r)
{
	model_run_verify(r, 1);
}

/*
 * SUBMIT with pageable operands (NPU_CMD_SRC_USER, NPU_CMD_DST_USER): the
 * pins, sg tables and DMA mappings made at SUBMIT for the command only.
 */
static void submit_user_setup(struct round *r)
{
	open_dev(r);
	devmem(r, true);
	ASSERT_SETUP(npu_set_access(r->fd, r->va, r->len, dev_index(r->fd),
				    NPU_ACCESS_READWRITE));
	r->host = npu_host_mem(r->len);
	r->host2 = npu_host_mem(r->len);
	ASSERT_NONNULL(r->host);
	ASSERT_NONNULL(r->host2);
	memset(r->host, 0x5a, r->len);
	ASSERT_SETUP(npu_stream_create(r->fd, &r->stream));
}

static int submit_user_call(struct round *r)
{
	struct npu_cmd cmds[2] = {
		npu_copy_cmd(r->va, ptr64(r->host) + 1, r->len - 1,
			     NPU_CMD_SRC_USER),
		npu_copy_cmd(ptr64(r->host2), r->va, r->len - 1,
			     NPU_CMD_DST_USER),
	};

	return npu_submit(r->fd, r->stream, cmds, 2, NULL);
}

static void submit_user_verify(struct round *r)
{
	ASSERT_OK(npu_sync(r->fd, r->stream, -1));
	expect_bytes(r->host2, r->len - 1, 0x5a);
	/* The command's end let go of its pins. */
	EXPECT_EQ(r->pins_before, npu_pins_held());
	EXPECT_EQ(0, npu_status_kb("VmPin"));
}

static void submit_user_failed(struct round *r)
{
	/* Nothing was queued, nothing stays pinned. */
	ASSERT_OK(npu_sync(r->fd, r->stream, 0));
	EXPECT_EQ(r->pins_before, npu_pins_held());
}

/* ------------------------------------------------------------------ */
/* SHARE_EXPORT                                                        */
/* ------------------------------------------------------------------ */

static void export_setup(struct round *r)
{
	open_dev(r);
	r->len = SZ_2M;
	ASSERT_SETUP(npu_alloc(r->fd, r->len, SZ_2M, &r->handle));
}

static int export_call(struct round *r)
{
	struct npu_share_export e = {
		.size = sizeof(e), .flags = NPU_SHARE_ANY_PID,
		.handle = r->handle,
	};
	int ret = npu_ioctl(r->fd, NPU_IOCTL_SHARE_EXPORT, &e);

	r->shareable = e.shareable;
	return ret;
}

static void export_verify(struct round *r)
{
	EXPECT_NE(0, r->shareable);
	/* Exported once: the name exists. */
	EXPECT_EQ(-EBUSY, export_call(r));
}

static void export_undo(struct round *r)
{
	/* Freeing the handle revokes the name and frees the memory. */
	ASSERT_OK(npu_free(r->fd, r->handle));
	EXPECT_EQ(r->used_before - (long long)r->len, npu_mem_used(r->fd));
}

/* ------------------------------------------------------------------ */
/* DMABUF_EXPORT: backs every page, makes a dma-buf, reserves an fd     */
/* ------------------------------------------------------------------ */

static long long dmabufs_of(struct round *r)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", r->fd);
	return npu_file_value_at(AT_FDCWD, path, "npu-dmabufs", ':');
}

static void dmabuf_setup(struct round *r)
{
	open_dev(r);
	/* two 2 MiB granules, never written: export backs both */
	devmem(r, false);
}

static int dmabuf_call(struct round *r)
{
	struct npu_dmabuf_export e = {
		.size = sizeof(e), .flags = NPU_DMABUF_CLOEXEC,
		.handle = r->handle, .fd = -1,
	};
	int ret = npu_ioctl(r->fd, NPU_IOCTL_DMABUF_EXPORT, &e);

	r->new_fd = ret ? -1 : e.fd;
	return ret;
}

static void dmabuf_verify(struct round *r)
{
	unsigned char *p;

	ASSERT_LE(0, r->new_fd);
	EXPECT_EQ(1, dmabufs_of(r));
	EXPECT_EQ((off_t)r->len, lseek(r->new_fd, 0, SEEK_END));
	p = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->new_fd, 0);
	ASSERT_NE(MAP_FAILED, (void *)p);
	expect_bytes(p, r->len, 0);
	munmap(p, r->len);
}

static void dmabuf_failed(struct round *r)
{
	EXPECT_EQ(0, dmabufs_of(r));
}

static void dmabuf_undo(struct round *r)
{
	ASSERT_OK(close(r->new_fd));
	r->new_fd = -1;
	EXPECT_EQ(0, dmabufs_of(r));
	ASSERT_OK(npu_free(r->fd, r->handle));
	EXPECT_EQ(r->used_before - (long long)r->len, npu_mem_used(r->fd));
}

/* ------------------------------------------------------------------ */
/* DMABUF_IMPORT: another driver's buffer (a udmabuf of a memfd)       */
/* ------------------------------------------------------------------ */

static long long imports_of(struct round *r)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", r->fd);
	return npu_file_value_at(AT_FDCWD, path, "npu-shares-imported", ':');
}

/*
 * 4 MiB of a memfd as a udmabuf (r->fd2), its pages shown at r->host;
 * attaching, mapping it for the NPU and the handle are the call's.
 */
static void dmabuf_import_setup(struct round *r)
{
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC };
	int dev, memfd;

	open_dev(r);
	r->len = 2 * SZ_2M;
	c.size = r->len;
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	memfd = memfd_create("failnth-import", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	ASSERT_LE(0, memfd);
	ASSERT_OK(ftruncate(memfd, r->len));
	ASSERT_OK(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK));
	r->host = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ASSERT_NE(MAP_FAILED, r->host);
	memset(r->host, 0x5a, r->len);
	c.memfd = memfd;
	r->fd2 = ioctl(dev, UDMABUF_CREATE, &c);
	close(memfd);
	close(dev);
	ASSERT_LE(0, r->fd2);
}

static int dmabuf_import_call(struct round *r)
{
	struct npu_dmabuf_import a = {
		.size = sizeof(a), .fd = r->fd2, .length = r->len,
	};
	int ret = npu_ioctl(r->fd, NPU_IOCTL_DMABUF_IMPORT, &a);

	r->new_handle = ret ? 0 : a.handle;
	if (!ret && a.page_size != SZ_4K)
		ret = -EBADE;
	return ret;
}

/* A real handle: it maps, and the engine's bytes are the memfd's. */
static void dmabuf_import_verify(struct round *r)
{
	ASSERT_NE(0, r->new_handle);
	EXPECT_EQ(1, imports_of(r));
	EXPECT_EQ(r->used_before, npu_mem_used(r->fd));
	r->va = npu_reserve_new(r->fd, r->len, SZ_2M);
	ASSERT_NE(0, r->va);
	ASSERT_OK(npu_map(r->fd, r->va, r->len, r->new_handle));
	ASSERT_OK(npu_set_access(r->fd, r->va, r->len, dev_index(r->fd),
				 NPU_ACCESS_READWRITE));
	if (!r->stream)
		ASSERT_OK(npu_stream_create(r->fd, &r->stream));
	ASSERT_OK(npu_run(r->fd, r->stream,
			  npu_memset_cmd(r->va + 1, 0xa7, r->len - 2, 0)));
	expect_bytes((unsigned char *)r->host + 1, r->len - 2, 0xa7);
	ASSERT_OK(npu_unmap(r->fd, r->va));
	ASSERT_OK(npu_release(r->fd, r->va));
}

static void dmabuf_import_failed(struct round *r)
{
	EXPECT_EQ(0, imports_of(r));
}

static void dmabuf_import_undo(struct round *r)
{
	ASSERT_OK(npu_free(r->fd, r->new_handle));
	EXPECT_EQ(0, imports_of(r));
}

/* ------------------------------------------------------------------ */
/* SHARE_IMPORT: the exporter is a child process                       */
/* ------------------------------------------------------------------ */

static uint64_t import_key;
static bool import_ipc;		/* import_key is an IPC_EXPORT key */

static int import_call(struct round *r)
{
	struct npu_share_import i = {
		.size = sizeof(i), .shareable = import_key,
	};
	int ret = npu_ioctl(r->fd, import_ipc ? NPU_IOCTL_IPC_IMPORT :
				   NPU_IOCTL_SHARE_IMPORT, &i);

	r->new_handle = i.handle;
	if (!ret && (i.length != SZ_2M * (import_ipc ? 1 : 2) ||
		     i.page_size != SZ_2M))
		ret = -EBADE;
	return ret;
}

static void import_verify(struct round *r)
{
	ASSERT_NE(0, r->new_handle);
	r->len = SZ_2M * (import_ipc ? 1 : 2);
	r->va = npu_reserve_new(r->fd, r->len, SZ_2M);
	ASSERT_NE(0, r->va);
	ASSERT_OK(npu_map(r->fd, r->va, r->len, r->new_handle));
}

static void import_undo(struct round *r)
{
	ASSERT_OK(npu_unmap(r->fd, r->va));
	ASSERT_OK(npu_free(r->fd, r->new_handle));
	ASSERT_OK(npu_release(r->fd, r->va));
}

/* ------------------------------------------------------------------ */
/* PEER_ENABLE                                                         */
/* ------------------------------------------------------------------ */

static int peer_call(struct round *r)
{
	struct npu_peer_enable p = { .size = sizeof(p), .device = 1 };

	return npu_ioctl(r->fd, NPU_IOCTL_PEER_ENABLE, &p);
}

static void peer_verify(struct round *r)
{
	EXPECT_EQ(-EALREADY, peer_call(r));
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Netlink dumps (the npu family)                                      */
/* ------------------------------------------------------------------ */

/* The socket of a round: r->fd2, opened unarmed; family from setup. */
static struct nl_sock_t nl_round;
static int nl_msgs;

static void nl_count_cb(const struct nlmsghdr *nh, void *arg)
{
	(void)nh;
	(void)arg;
	nl_msgs++;
}

static void nl_dump_setup(struct round *r)
{
	open_dev(r);
	ASSERT_SETUP(nl_open(&nl_round));
	r->fd2 = nl_round.fd;
}

/*
 * One whole dump: the request and every reply. A dump that failed part
 * way may still be marked running on its socket (the next request would
 * get -EBUSY), so a failed call drops the socket and the retry gets a new
 * one. Netlink reports a socket buffer it could not allocate as ENOBUFS:
 * that is this call's -ENOMEM.
 */
static int nl_dump_call(struct round *r, uint8_t cmd)
{
	struct nl_req req;
	int ret;

	if (r->fd2 < 0) {
		ret = nl_open(&nl_round);
		if (ret)
			return ret;
		r->fd2 = nl_round.fd;
	}
	nl_msgs = 0;
	nl_req_init(&req, nl_round.family, cmd, NLM_F_DUMP);
	ret = nl_talk(&nl_round, &req, nl_count_cb, NULL);
	if (ret) {
		close(r->fd2);
		r->fd2 = -1;
	}
	return ret == -ENOBUFS ? -ENOMEM : ret;
}

static int nl_device_dump_call(struct round *r)
{
	return nl_dump_call(r, NPU_NL_CMD_DEVICE_GET);
}

static int nl_process_dump_call(struct round *r)
{
	return nl_dump_call(r, NPU_NL_CMD_PROCESS_GET);
}

static void nl_device_dump_verify(struct round *r)
{
	(void)r;
	EXPECT_EQ(npu_device_count(), nl_msgs);
}

/* Root sees every context: this round's at least. */
static void nl_process_dump_verify(struct round *r)
{
	(void)r;
	EXPECT_LE(1, nl_msgs);
}

FIXTURE(failnth) {
	int unused;
};

FIXTURE_SETUP(failnth)
{
	const char *bad;
	int fd;

	nth_fd = nth_open();
	if (nth_fd < 0)
		SKIP(return, "no /proc/self/task/<tid>/fail-nth (kernel without CONFIG_FAULT_INJECTION)");
	if (access("/sys/kernel/debug/failslab", F_OK) ||
	    access("/sys/kernel/debug/fail_page_alloc", F_OK))
		SKIP(return, "no failslab/fail_page_alloc in debugfs");
	fd = npu_open(0);
	if (fd < 0 && errno == ENOENT)
		SKIP(return, "no /dev/npu0");
	ASSERT_LE(0, fd);
	close(fd);
	/*
	 * Fault every page of this process in now: a page fault between
	 * arming fail-nth and the call would take the injected failure.
	 */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	bad = knobs_set();
	if (bad)
		TH_LOG("cannot set %s", bad);
	ASSERT_NULL(bad);
}

FIXTURE_TEARDOWN(failnth)
{
	knobs_restore();
	if (nth_fd >= 0) {
		if (pwrite(nth_fd, "0", 1, 0) != 1)
			TH_LOG("cannot clear fail-nth");
		close(nth_fd);
	}
	nth_fd = -1;
}

#define SWEEP_TIMEOUT	300

TEST_F_TIMEOUT(failnth, open, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "open", .allocates = true,
		.setup = open_setup, .call = open_call, .verify = open_verify,
	});
}

TEST_F_TIMEOUT(failnth, get_info, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "GET_INFO", .setup = open_dev,
		.call = get_info_call, .verify = get_info_verify,
	});
}

TEST_F_TIMEOUT(failnth, mem_alloc, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "MEM_ALLOC", .allocates = true, .setup = mem_alloc_setup,
		.call = mem_alloc_call, .verify = mem_alloc_verify,
		.check_failed = mem_alloc_failed,
	});
}

TEST_F_TIMEOUT(failnth, va_reserve, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "VA_RESERVE", .allocates = true,
		.setup = va_reserve_setup, .call = va_reserve_call,
		.verify = va_reserve_verify, .check_failed = va_reserve_failed,
	});
}

TEST_F_TIMEOUT(failnth, map_4k, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "MAP 4K", .allocates = true, .setup = map_setup_4k,
		.call = map_call, .verify = map_verify,
		.check_failed = map_failed,
	});
}

TEST_F_TIMEOUT(failnth, map_2m, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "MAP 2M", .allocates = true, .setup = map_setup_2m,
		.call = map_call, .verify = map_verify,
		.check_failed = map_failed,
	});
}

TEST_F_TIMEOUT(failnth, set_access, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "SET_ACCESS", .setup = set_access_setup,
		.call = set_access_call, .verify = set_access_verify,
	});
}

TEST_F_TIMEOUT(failnth, host_register, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "HOST_REGISTER", .allocates = true, .setup = host_setup,
		.call = host_call, .verify = host_verify,
		.check_failed = host_failed, .undo = host_undo,
	});
}

TEST_F_TIMEOUT(failnth, host_register_mapped, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "HOST_REGISTER MAPPED", .allocates = true,
		.setup = host_mapped_setup, .call = host_mapped_call,
		.verify = host_mapped_verify,
		.check_failed = host_mapped_failed, .undo = host_undo,
	});
}

TEST_F_TIMEOUT(failnth, mirror_map_populate, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "MIRROR_MAP POPULATE", .allocates = true,
		.setup = mirror_setup, .call = mirror_call,
		.verify = mirror_verify, .check_failed = mirror_failed,
		.undo = mirror_undo,
	});
}

TEST_F_TIMEOUT(failnth, stream_create, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "STREAM_CREATE", .allocates = true, .setup = open_dev,
		.call = stream_create_call, .verify = stream_create_verify,
	});
}

TEST_F_TIMEOUT(failnth, submit, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "SUBMIT", .allocates = true, .setup = submit_setup,
		.call = submit_call, .verify = submit_verify,
		.check_failed = submit_failed,
	});
}

TEST_F_TIMEOUT(failnth, submit_random, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "SUBMIT RANDOM", .allocates = true, .setup = submit_setup,
		.call = submit_random_call, .verify = submit_random_verify,
		.check_failed = submit_failed,
	});
}

TEST_F_TIMEOUT(failnth, model_create, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "MODEL_CREATE", .allocates = true, .setup = submit_setup,
		.call = model_create_call, .verify = model_create_verify,
		.check_failed = model_create_failed, .undo = model_create_undo,
	});
}

TEST_F_TIMEOUT(failnth, submit_model, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "SUBMIT MODEL", .allocates = true, .setup = submit_model_setup,
		.call = submit_model_call, .verify = submit_model_verify,
		.check_failed = submit_failed,
	});
}

TEST_F_TIMEOUT(failnth, submit_user, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "SUBMIT USER", .allocates = true,
		.setup = submit_user_setup, .call = submit_user_call,
		.verify = submit_user_verify,
		.check_failed = submit_user_failed,
	});
}

TEST_F_TIMEOUT(failnth, share_export, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "SHARE_EXPORT", .allocates = true, .setup = export_setup,
		.call = export_call, .verify = export_verify,
		.undo = export_undo,
	});
}

TEST_F_TIMEOUT(failnth, dmabuf_export, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "DMABUF_EXPORT", .allocates = true,
		.setup = dmabuf_setup, .call = dmabuf_call,
		.verify = dmabuf_verify, .check_failed = dmabuf_failed,
		.undo = dmabuf_undo,
	});
}

TEST_F_TIMEOUT(failnth, dmabuf_import, SWEEP_TIMEOUT)
{
	if (access("/dev/udmabuf", F_OK))
		SKIP(return, "no /dev/udmabuf (CONFIG_UDMABUF)");
	run_sweep(&(struct sweep){
		.name = "DMABUF_IMPORT", .allocates = true,
		.setup = dmabuf_import_setup, .call = dmabuf_import_call,
		.verify = dmabuf_import_verify,
		.check_failed = dmabuf_import_failed,
		.undo = dmabuf_import_undo,
	});
}

/*
 * The exporter: a child that allocates, exports to anyone - a handle, or
 * with @ipc the second half of a mapping (IPC_EXPORT) - and waits.
 */
static pid_t exporter_start(int *to_child, bool ipc)
{
	int c2p[2], p2c[2];
	uint64_t key = 0;
	pid_t pid;

	if (pipe(c2p) || pipe(p2c))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct npu_share_export e = { .size = sizeof(e),
					      .flags = NPU_SHARE_ANY_PID };
		int fd = npu_open(0);
		char c;

		close(c2p[0]);
		close(p2c[1]);
		struct npu_ipc_export x = {
			.size = sizeof(x), .flags = NPU_SHARE_ANY_PID,
			.length = SZ_2M,
		};

		if (fd < 0 || npu_alloc(fd, 2 * SZ_2M, SZ_2M, &e.handle))
			e.shareable = 0;
		else if (!ipc && npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &e))
			e.shareable = 0;
		if (ipc && e.handle) {
			x.addr = npu_reserve_new(fd, 2 * SZ_2M, SZ_2M);
			if (!x.addr || npu_map(fd, x.addr, 2 * SZ_2M, e.handle))
				_exit(1);
			x.addr += SZ_2M;
			e.shareable = npu_ioctl(fd, NPU_IOCTL_IPC_EXPORT, &x) ? 0 : x.key;
		}
		if (write(c2p[1], &e.shareable, sizeof(e.shareable)) < 0)
			_exit(1);
		/* Hold the export until the parent is done (or gone). */
		if (read(p2c[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(c2p[1]);
	close(p2c[0]);
	if (read(c2p[0], &key, sizeof(key)) != sizeof(key))
		key = 0;
	close(c2p[0]);
	*to_child = p2c[1];
	import_key = key;
	return pid;
}

/* Sweep an import of a child's export (@ipc: an IPC key). */
static void import_sweep(bool ipc)
{
	long long mem0 = mem_used_fresh();
	int to_child = -1, status;
	pid_t pid;

	pid = exporter_start(&to_child, ipc);
	ASSERT_LT(0, pid);
	ASSERT_NE(0, import_key);
	import_ipc = ipc;
	run_sweep(&(struct sweep){
		.name = ipc ? "IPC_IMPORT" : "SHARE_IMPORT", .allocates = true,
		.setup = open_dev, .call = import_call,
		.verify = import_verify, .undo = import_undo,
	});
	import_ipc = false;
	close(to_child);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	/* The exporter is gone: so is the memory every import held. */
	EXPECT_EQ(mem0, mem_used_fresh());
}

TEST_F_TIMEOUT(failnth, share_import, SWEEP_TIMEOUT)
{
	import_sweep(false);
}

/* ------------------------------------------------------------------ */
/* IPC_EXPORT and IPC_IMPORT                                           */
/* ------------------------------------------------------------------ */

static void ipc_export_setup(struct round *r)
{
	open_dev(r);
	devmem(r, true);
}

static int ipc_export_call(struct round *r)
{
	struct npu_ipc_export x = {
		.size = sizeof(x), .flags = NPU_SHARE_ANY_PID,
		.addr = r->va + SZ_2M, .length = SZ_2M,
	};
	int ret = npu_ioctl(r->fd, NPU_IOCTL_IPC_EXPORT, &x);

	r->shareable = x.key;
	return ret;
}

static int ipc_destroy_key(struct round *r)
{
	struct npu_ipc_destroy d = { .size = sizeof(d), .key = r->shareable };

	return npu_ioctl(r->fd, NPU_IOCTL_IPC_DESTROY, &d);
}

static void ipc_export_verify(struct round *r)
{
	EXPECT_NE(0, r->shareable);
}

static void ipc_export_undo(struct round *r)
{
	/* The key existed, once; unmapping then frees the memory. */
	ASSERT_OK(ipc_destroy_key(r));
	EXPECT_EQ(-ENOENT, ipc_destroy_key(r));
	ASSERT_OK(npu_unmap(r->fd, r->va));
}

TEST_F_TIMEOUT(failnth, ipc_export, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "IPC_EXPORT", .allocates = true,
		.setup = ipc_export_setup, .call = ipc_export_call,
		.verify = ipc_export_verify, .undo = ipc_export_undo,
	});
}

TEST_F_TIMEOUT(failnth, ipc_import, SWEEP_TIMEOUT)
{
	import_sweep(true);
}

static void peer_setup(struct round *r)
{
	open_dev(r);
}

TEST_F_TIMEOUT(failnth, peer_enable, SWEEP_TIMEOUT)
{
	if (npu_device_count() < 2)
		SKIP(return, "one NPU only (load npu.ko with num_devices=2)");
	run_sweep(&(struct sweep){
		.name = "PEER_ENABLE", .setup = peer_setup,
		.call = peer_call, .verify = peer_verify,
	});
}

TEST_F_TIMEOUT(failnth, netlink_device_dump, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "netlink DEVICE_GET dump", .allocates = true,
		.setup = nl_dump_setup, .call = nl_device_dump_call,
		.verify = nl_device_dump_verify,
	});
}

TEST_F_TIMEOUT(failnth, netlink_process_dump, SWEEP_TIMEOUT)
{
	run_sweep(&(struct sweep){
		.name = "netlink PROCESS_GET dump", .allocates = true,
		.setup = nl_dump_setup, .call = nl_process_dump_call,
		.verify = nl_process_dump_verify,
	});
}

TEST_HARNESS_MAIN
