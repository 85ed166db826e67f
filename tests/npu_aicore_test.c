// SPDX-License-Identifier: GPL-2.0
/*
 * npu_aicore_test: npu-aicore, the AI-core executor (aicore/), started
 * the way libacl starts it (lib/aicore_proto.h): its address space is the
 * device context's. The test plays libacl on a raw device file: it opens
 * the aperture, spawns the executor, reserves the ranges the executor
 * reports, hands it an arena, and then asks it to read and write device
 * VAs (PEEK, POKE):
 * - bytes the engine wrote read back in the executor, and the executor's
 *   writes reach the engine, at other offsets and lengths, for 4 KiB and
 *   2 MiB pages;
 * - host memory registered MAPPED: the executor writes the host pages
 *   themselves through the device VA (zero copy);
 * - what the device cannot reach faults in the executor, which reports
 *   it and goes on: an unmapped device VA, a read-only mapping written,
 *   a mapping removed after it was touched, the test's own heap and stack
 *   (host memory the device was never given);
 * - every address the executor itself uses was reserved here, so device
 *   VAs reserved afterwards never meet it, and what it maps after the
 *   handshake lies in the arena;
 * - it exits when the socket closes, and a malformed request is refused.
 */
#include <spawn.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_util.h"
#include "../include/ascendc/npu_block.h"
#include "../lib/aicore_proto.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define BUF_LEN		(4 * SZ_2M)
#define TRIES		8
#define CORES		8

extern char **environ;

struct executor {
	pid_t pid;
	int sock;
	struct acl_aicore_hello hello;	/* the ranges reserved for it */
	uint64_t arena;
	uint64_t covered;
};

static const char *executor_path(char *buf, size_t len)
{
	const char *env = getenv("NPU_AICORE");
	char self[PATH_MAX - 32];
	ssize_t n;

	if (env)
		return env;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		*strrchr(self, '/') = 0;
		snprintf(buf, len, "%s/../lib/npu/npu-aicore", self);
		if (!access(buf, X_OK))
			return buf;
	}
	return "/usr/lib/npu/npu-aicore";
}

static void reserved_release(struct executor *ex, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		munmap((void *)(uintptr_t)ex->hello.ranges[i].start,
		       ex->hello.ranges[i].end - ex->hello.ranges[i].start);
}

/* One spawn and handshake: 0, -EAGAIN (a range is ours: spawn again) or another error. */
static int executor_try(struct executor *ex, int afd)
{
	struct acl_aicore_arena arena = {
		.type = ACL_AICORE_ARENA, .cores = CORES, .len = ACL_AICORE_ARENA_LEN,
	};
	struct acl_aicore_ready ready;
	posix_spawn_file_actions_t fa;
	char path[PATH_MAX];
	char *argv[] = { (char *)"npu-aicore", NULL };
	int sv[2], status, ret;
	unsigned int i;
	void *p;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, afd, ACL_AICORE_FD_APERTURE);
	posix_spawn_file_actions_adddup2(&fa, sv[1], ACL_AICORE_FD_SOCKET);
	ret = -posix_spawn(&ex->pid, executor_path(path, sizeof(path)), &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	ex->sock = sv[0];
	if (ret) {
		close(sv[0]);
		return ret;
	}
	if (recv(ex->sock, &ex->hello, sizeof(ex->hello), 0) != sizeof(ex->hello) ||
	    ex->hello.type != ACL_AICORE_HELLO || ex->hello.version != ACL_AICORE_VERSION ||
	    ex->hello.nranges > ACL_AICORE_RANGES_MAX) {
		ret = -EPROTO;
		goto kill;
	}
	for (i = 0; i < ex->hello.nranges; i++) {
		uint64_t start = ex->hello.ranges[i].start, len = ex->hello.ranges[i].end - start;

		p = mmap((void *)(uintptr_t)start, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != (void *)(uintptr_t)start) {
			if (p != MAP_FAILED)
				munmap(p, len);
			reserved_release(ex, i);
			arena.type = ACL_AICORE_EXIT;
			send(ex->sock, &arena, sizeof(arena), MSG_NOSIGNAL);
			ret = -EAGAIN;
			goto reap;
		}
	}
	p = mmap(NULL, ACL_AICORE_ARENA_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		ret = -ENOMEM;
		goto release;
	}
	ex->arena = arena.start = (uint64_t)(uintptr_t)p;
	if (send(ex->sock, &arena, sizeof(arena), MSG_NOSIGNAL) != sizeof(arena) ||
	    recv(ex->sock, &ready, sizeof(ready), 0) != sizeof(ready) || ready.type != ACL_AICORE_READY) {
		ret = -EPROTO;
	} else {
		ret = ready.status;
		ex->covered = ready.covered;
	}
	if (!ret)
		return 0;
	munmap(p, ACL_AICORE_ARENA_LEN);
release:
	reserved_release(ex, ex->hello.nranges);
kill:
	kill(ex->pid, SIGKILL);
reap:
	close(ex->sock);
	waitpid(ex->pid, &status, 0);
	return ret;
}

static int executor_start(struct executor *ex, int afd)
{
	int i, ret = -EAGAIN;

	for (i = 0; i < TRIES && ret == -EAGAIN; i++)
		ret = executor_try(ex, afd);
	return ret;
}

/* Close the socket: the executor exits by itself; its exit status. */
static int executor_stop(struct executor *ex)
{
	int status = -1;

	close(ex->sock);
	if (waitpid(ex->pid, &status, 0) != ex->pid)
		return -1;
	reserved_release(ex, ex->hello.nranges);
	munmap((void *)(uintptr_t)ex->arena, ACL_AICORE_ARENA_LEN);
	return status;
}

/* PEEK (@write false) or POKE @len bytes at device VA @va through the executor. */
static int executor_access(struct executor *ex, uint64_t va, void *buf, uint32_t len, bool write,
			   struct acl_aicore_result *res)
{
	struct acl_aicore_access req = {
		.type = write ? ACL_AICORE_POKE : ACL_AICORE_PEEK, .len = len, .addr = va,
	};

	if (write)
		memcpy(req.data, buf, len);
	if (send(ex->sock, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req) ||
	    recv(ex->sock, res, sizeof(*res), 0) != sizeof(*res) || res->type != ACL_AICORE_RESULT)
		return -EPROTO;
	if (!res->status && !write)
		memcpy(buf, res->data, len);
	return res->status;
}

/* Does an access at @va fault in the executor (-EFAULT with SIGBUS at @va)? */
static bool executor_faults(struct executor *ex, uint64_t va, bool write)
{
	struct acl_aicore_result res;
	unsigned char b = 0x5a;

	return executor_access(ex, va, &b, 1, write, &res) == -EFAULT &&
	       res.signo == SIGBUS && res.fault_addr == va;
}

/* The test kernels' binary (tests/tests.mk), embedded. */
__asm__(".pushsection .rodata\n\t.balign 8\n"
	"aicore_kernels_start:\n\t.incbin \"" AICORE_KERNELS "\"\naicore_kernels_end:\n\t.popsection");
extern const unsigned char aicore_kernels_start[], aicore_kernels_end[];

/* A memfd holding the test kernels' binary, as libacl hands one over. */
static int kernels_fd(void)
{
	size_t len = (size_t)(aicore_kernels_end - aicore_kernels_start);
	int fd = memfd_create("kernels", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, aicore_kernels_start, len) != (ssize_t)len) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The test kernels, in the order of the LOAD's entries: a launch's token is (0 << 32 | index). */
static const char *const kernel_names[] = { "write_op", "vec_add_float", "barrier_op", "trap_op", "ub_overflow",
					     "meet_op", "hold_op" };
enum { K_WRITE, K_VEC_ADD, K_BARRIER, K_TRAP, K_UB_OVERFLOW, K_MEET, K_HOLD, K_COUNT };

/*
 * LOAD binary @id from @fd (-1: none) with the entries of @names (the
 * test kernels if NULL), or UNLOAD it (@load false): the RESULT status.
 */
static int executor_binary(struct executor *ex, uint32_t id, int fd, bool load, const char *const *names,
			   unsigned int n)
{
	static struct acl_aicore_load req;
	struct acl_aicore_binary unload = { .type = ACL_AICORE_UNLOAD, .id = id };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = &req, .iov_len = sizeof(req) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct acl_aicore_result res;
	unsigned int i;

	memset(&req, 0, sizeof(req));
	req.type = ACL_AICORE_LOAD;
	req.id = id;
	if (!names) {
		names = kernel_names;
		n = K_COUNT;
	}
	req.nentries = n;
	for (i = 0; i < n; i++)
		snprintf(req.entries[i], sizeof(req.entries[i]), "__npu_entry_%s", names[i]);
	if (!load) {
		iov.iov_base = &unload;
		iov.iov_len = sizeof(unload);
	}
	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = &ctl;
		msg.msg_controllen = sizeof(ctl);
		CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &fd, sizeof(int));
	}
	if (sendmsg(ex->sock, &msg, MSG_NOSIGNAL) != (ssize_t)iov.iov_len ||
	    recv(ex->sock, &res, sizeof(res), 0) != sizeof(res) || res.type != ACL_AICORE_RESULT)
		return -EPROTO;
	return res.status;
}

FIXTURE(ex) {
	int fd, afd;
	uint32_t stream;
	uint64_t va;
	unsigned char *host;	/* registered, for the engine's copies */
	unsigned char *model;	/* what the device memory holds */
	struct executor ex;
};

FIXTURE_VARIANT(ex) {
	uint64_t page;
};

FIXTURE_VARIANT_ADD(ex, p4k) { .page = NPU_PAGE_4K };
FIXTURE_VARIANT_ADD(ex, p2m) { .page = NPU_PAGE_2M };

FIXTURE_SETUP(ex)
{
	struct npu_aperture_open a = {
		.size = sizeof(a), .flags = NPU_APERTURE_CLOEXEC | NPU_APERTURE_EXECUTOR, .fd = -1,
	};

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
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_APERTURE_OPEN, &a));
	self->afd = a.fd;
	ASSERT_EQ(0, executor_start(&self->ex, self->afd));
	/* as libacl does: the executor holds the file alone, so that its end releases it */
	close(self->afd);
	self->afd = -1;
}

FIXTURE_TEARDOWN(ex)
{
	int status = 0;

	if (self->ex.pid > 0) {
		status = executor_stop(&self->ex);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	} else {
		/* reaped by the test */
		close(self->ex.sock);
		reserved_release(&self->ex, self->ex.hello.nranges);
		munmap((void *)(uintptr_t)self->ex.arena, ACL_AICORE_ARENA_LEN);
	}
	close(self->fd);
	free(self->model);
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + seed * 29 + (i >> 12));
}

/*
 * The engine's bytes read back in the executor, and the executor's writes
 * reach the engine: at odd offsets and lengths, the whole buffer checked
 * against the model.
 */
TEST_F(ex, executor_and_engine_see_the_same_bytes)
{
	static const uint64_t offs[] = { 0, 4093, SZ_2M - 7, SZ_2M + 4096 * 3 + 1, BUF_LEN - 256 };
	static unsigned char src[BUF_LEN];
	struct acl_aicore_result res;
	unsigned char buf[ACL_AICORE_DATA_MAX];
	unsigned int i;

	fill(src, BUF_LEN, 1);
	memcpy(self->model, src, BUF_LEN);
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0, src, BUF_LEN));
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		uint32_t len = (uint32_t)(ACL_AICORE_DATA_MAX - i * 37);

		ASSERT_EQ(0, executor_access(&self->ex, self->va + offs[i], buf, len, false, &res));
		EXPECT_EQ(0, memcmp(buf, self->model + offs[i], len));
	}
	/* writes at other offsets and lengths than the reads */
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		uint64_t off = offs[i] ? offs[i] - 100 : 3;
		uint32_t len = 100 + i * 29;

		fill(buf, len, 7 + i);
		memcpy(self->model + off, buf, len);
		ASSERT_EQ(0, executor_access(&self->ex, self->va + off, buf, len, true, &res));
	}
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, 0, BUF_LEN));
	EXPECT_EQ(0, memcmp(self->host, self->model, BUF_LEN));
}

/* MAPPED host memory: the executor writes the host pages through the device VA. */
TEST_F(ex, mapped_registration_is_zero_copy)
{
	struct acl_aicore_result res;
	unsigned char *h = npu_host_mem(3 * SZ_4K);
	uint64_t dva = npu_hole(3 * SZ_4K, SZ_4K);
	unsigned char buf[64];

	ASSERT_NONNULL(h);
	ASSERT_NE(0, dva);
	memset(h, 0x11, 3 * SZ_4K);
	ASSERT_EQ(0, npu_register(self->fd, h, 3 * SZ_4K, NPU_HOST_MAPPED, dva));
	ASSERT_EQ(0, executor_access(&self->ex, dva + SZ_4K - 8, buf, 16, false, &res));
	EXPECT_EQ(-1, npu_check_byte(buf, 16, 0x11));
	memset(buf, 0x77, sizeof(buf));
	ASSERT_EQ(0, executor_access(&self->ex, dva + 2 * SZ_4K + 5, buf, 40, true, &res));
	EXPECT_EQ(-1, npu_check_byte(h + 2 * SZ_4K + 5, 40, 0x77));
	EXPECT_EQ(0x11, h[2 * SZ_4K + 4]);
	EXPECT_EQ(0x11, h[2 * SZ_4K + 45]);
	ASSERT_EQ(0, npu_unregister(self->fd, h));
	/* gone from the device: gone from the executor, the host pages untouched */
	EXPECT_TRUE(executor_faults(&self->ex, dva + 2 * SZ_4K + 5, true));
	EXPECT_EQ(0x77, h[2 * SZ_4K + 5]);
	munmap(h, 3 * SZ_4K);
}

/*
 * What the device cannot reach faults in the executor, which reports the
 * fault and serves the next request; nothing is written.
 */
TEST_F(ex, unreachable_memory_faults_and_the_executor_goes_on)
{
	struct acl_aicore_result res;
	unsigned char stack_byte = 0x42, buf[8];
	unsigned char *heap = malloc(64);
	uint64_t hole = npu_hole(SZ_2M, SZ_2M);

	ASSERT_NONNULL(heap);
	heap[0] = 0x24;
	ASSERT_NE(0, hole);
	/* a device VA reserved by no one, the test's heap and stack */
	EXPECT_TRUE(executor_faults(&self->ex, hole + 100, false));
	EXPECT_EQ(-EFAULT, executor_access(&self->ex, (uintptr_t)heap, buf, 1, true, &res));
	EXPECT_EQ(-EFAULT, executor_access(&self->ex, (uintptr_t)&stack_byte, buf, 1, true, &res));
	EXPECT_EQ(0x24, heap[0]);
	EXPECT_EQ(0x42, stack_byte);
	/* read-only: reads work, writes fault */
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0, NPU_ACCESS_READ));
	EXPECT_EQ(0, executor_access(&self->ex, self->va + 5, buf, 8, false, &res));
	EXPECT_TRUE(executor_faults(&self->ex, self->va + 5, true));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0, NPU_ACCESS_READWRITE));
	memset(buf, 0x3c, sizeof(buf));
	EXPECT_EQ(0, executor_access(&self->ex, self->va + 5, buf, 8, true, &res));
	/* unmapped after the executor touched it */
	ASSERT_EQ(0, npu_unmap(self->fd, self->va));
	EXPECT_TRUE(executor_faults(&self->ex, self->va + 5, false));
	free(heap);
	munmap((void *)(uintptr_t)hole, SZ_2M);
}

/*
 * The executor's own ranges are this process's reservations, so a device
 * VA reserved after the handshake is never one of them; all of the rest
 * of the window but the arena is aperture.
 */
TEST_F(ex, own_ranges_are_reserved_here)
{
	uint64_t window = ACL_AICORE_VA_END - ACL_AICORE_VA_START, own = 0;
	unsigned int i;
	uint64_t va;

	ASSERT_LT(0u, self->ex.hello.nranges);
	for (i = 0; i < self->ex.hello.nranges; i++) {
		const struct acl_aicore_range *r = &self->ex.hello.ranges[i];
		void *p;

		ASSERT_LT(r->start, r->end);
		if (i)
			ASSERT_LT(self->ex.hello.ranges[i - 1].end, r->start);
		/* still held here: a fixed mapping there is refused */
		p = mmap((void *)(uintptr_t)r->start, SZ_4K, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		EXPECT_EQ(MAP_FAILED, p);
		if (p != MAP_FAILED)
			munmap(p, SZ_4K);
		if (r->end > ACL_AICORE_VA_START)
			own += r->end - (r->start > ACL_AICORE_VA_START ? r->start : ACL_AICORE_VA_START);
	}
	EXPECT_EQ(window - own - ACL_AICORE_ARENA_LEN, self->ex.covered);
	for (i = 0; i < 64; i++) {
		unsigned int j;

		va = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
		ASSERT_NE(0, va);
		for (j = 0; j < self->ex.hello.nranges; j++)
			EXPECT_TRUE(va + SZ_2M <= self->ex.hello.ranges[j].start ||
				    va >= self->ex.hello.ranges[j].end);
		ASSERT_EQ(0, npu_release(self->fd, va));
		munmap((void *)(uintptr_t)va, SZ_2M);
	}
}

/*
 * The executor's address space after the handshake: every mapping in the
 * window is one of its own ranges, the arena, or the aperture.
 */
TEST_F(ex, executor_sees_only_its_ranges_the_arena_and_the_aperture)
{
	char path[64], line[512];
	unsigned int aperture = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)self->ex.pid);
	f = fopen(path, "r");
	ASSERT_NONNULL(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end;
		bool inside = false;

		ASSERT_EQ(2, sscanf(line, "%llx-%llx", &start, &end));
		if (start >= ACL_AICORE_VA_END || end <= ACL_AICORE_VA_START)
			continue;
		if (strstr(line, "[npu_aperture]")) {
			aperture++;
			continue;
		}
		for (i = 0; i < self->ex.hello.nranges; i++)
			inside |= start >= self->ex.hello.ranges[i].start && end <= self->ex.hello.ranges[i].end;
		inside |= start >= self->ex.arena && end <= self->ex.arena + ACL_AICORE_ARENA_LEN;
		EXPECT_TRUE(inside);
		if (!inside)
			printf("# outside: %s", line);
	}
	fclose(f);
	EXPECT_LT(0u, aperture);
}

/* ---- kernels ------------------------------------------------------------- */

#define ARGS_OFF	(BUF_LEN - SZ_4K)	/* where the tests put a launch's argument block */
#define DUMP_OFF	(BUF_LEN - SZ_2M)	/* and the blocks' printf records */

/* Load the test kernels as binary 0. */
#define LOAD_KERNELS(ex) do {							\
	int __kfd = kernels_fd();						\
										\
	ASSERT_LE(0, __kfd);							\
	ASSERT_EQ(0, executor_binary((ex), 0, __kfd, true, NULL, 0));		\
	close(__kfd);								\
} while (0)

/*
 * Launch test kernel @k over @block_dim blocks with the parameters @args
 * (one 8-byte slot each, stored at ARGS_OFF) on the fixture's stream, as
 * libacl does (NPU_OP_KERNEL), and wait: STREAM_SYNC's result, *@sync its
 * fault outputs.
 */
static int launch(FIXTURE_DATA(ex) *self, unsigned int k, uint32_t block_dim, const uint64_t *args,
		  uint32_t nargs, uint64_t dump_va, uint32_t dump_size, struct npu_stream_sync *sync)
{
	struct npu_kernel kern = {
		.func = k, .block_dim = block_dim, .args_len = nargs * 8, .args = ptr64(args),
		.args_va = self->va + ARGS_OFF, .dump_va = dump_va, .dump_size = dump_size,
		.sat_mode = NPU_KERNEL_SAT_INFNAN,
	};
	struct npu_cmd cmd = { .op = NPU_OP_KERNEL, .src = ptr64(&kern), .value = sizeof(kern) };
	int ret;

	if (!nargs) {
		kern.args = 0;
		kern.args_va = 0;
	}
	ret = npu_submit(self->fd, self->stream, &cmd, 1, NULL);
	if (ret)
		return ret;
	memset(sync, 0, sizeof(*sync));
	sync->size = sizeof(*sync);
	sync->stream = self->stream;
	sync->timeout_ms = 60000;
	return npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, sync);
}

/*
 * A kernel's blocks write device memory through their device pointers:
 * the engine reads exactly the blocks' writes and the argument block, the
 * rest of the buffer as it was; the launch is ordered with the stream's
 * copies before and after it.
 */
TEST_F(ex, kernel_writes_device_memory)
{
	static unsigned char src[BUF_LEN];
	struct npu_stream_sync sync;
	uint64_t args[2] = { self->va + 4096 + 12, 0x5a5a1234 };
	unsigned int b;

	LOAD_KERNELS(&self->ex);
	fill(src, BUF_LEN, 3);
	memcpy(self->model, src, BUF_LEN);
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0, src, BUF_LEN));
	ASSERT_EQ(0, launch(self, K_WRITE, 6, args, 2, 0, 0, &sync));
	for (b = 0; b < 6; b++)
		memcpy(self->model + 4096 + 12 + b * 4, &args[1], 4);
	memcpy(self->model + ARGS_OFF, args, sizeof(args));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, 0, BUF_LEN));
	EXPECT_EQ(0, memcmp(self->host, self->model, BUF_LEN));
}

/* The vendor's vector style (TPipe, TQue, DataCopy, Add) over device memory, 4 blocks. */
TEST_F(ex, vector_kernel_over_device_memory)
{
	const uint32_t n = 4 * 2048;
	struct npu_stream_sync sync;
	static float x[8192], y[8192], z[8192];
	uint64_t args[5] = { self->va, self->va + SZ_2M / 2, self->va + SZ_2M, n, 4 };
	uint32_t i;

	LOAD_KERNELS(&self->ex);
	for (i = 0; i < n; i++) {
		x[i] = (float)i * 0.5f;
		y[i] = 1000.0f - (float)i;
	}
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0, (unsigned char *)x, n * 4));
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, SZ_2M / 2,
				   (unsigned char *)y - SZ_2M / 2, n * 4));
	ASSERT_EQ(0, launch(self, K_VEC_ADD, 4, args, 5, 0, 0, &sync));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, SZ_2M, n * 4));
	memcpy(z, self->host + SZ_2M, n * 4);
	for (i = 0; i < n; i++)
		if (z[i] != x[i] + y[i])
			break;
	EXPECT_EQ(n, i);
}

/* A kernel writes MAPPED host memory through its device VA: the host pages themselves. */
TEST_F(ex, kernel_writes_mapped_host_memory)
{
	struct npu_stream_sync sync;
	int *h = npu_host_mem(SZ_4K);
	uint64_t dva = npu_hole(SZ_4K, SZ_4K);
	uint64_t args[2] = { dva + 64, 77 };
	unsigned int i;

	ASSERT_NONNULL(h);
	memset(h, 0, SZ_4K);
	ASSERT_EQ(0, npu_register(self->fd, h, SZ_4K, NPU_HOST_MAPPED, dva));
	LOAD_KERNELS(&self->ex);
	ASSERT_EQ(0, launch(self, K_WRITE, 3, args, 2, 0, 0, &sync));
	for (i = 0; i < SZ_4K / 4; i++)
		EXPECT_EQ(i >= 16 && i < 19 ? 77 : 0, h[i]);
	ASSERT_EQ(0, npu_unregister(self->fd, h));
	munmap(h, SZ_4K);
}

/*
 * Blocks run on the cores at the same time: 8 blocks that wait for each
 * other at a barrier in device memory complete (they would trap), each on
 * its own core. So do 3 and 2 blocks, for which the executor wakes only as
 * many cores as there are blocks; and 1.
 */
TEST_F(ex, blocks_spread_over_the_cores)
{
	static const uint32_t dims[] = { CORES, 3, 2, 1, CORES };
	struct npu_stream_sync sync;
	uint64_t args[2] = { self->va, self->va + 64 };
	uint32_t cores[CORES], zero[CORES + 16] = { 0 };
	unsigned int d, i, j;

	LOAD_KERNELS(&self->ex);
	for (d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
		ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0,
					   (unsigned char *)zero, sizeof(zero)));
		ASSERT_EQ(0, launch(self, K_BARRIER, dims[d], args, 2, 0, 0, &sync));
		ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, 64, sizeof(cores)));
		memcpy(cores, self->host + 64, sizeof(cores));
		for (i = 0; i < CORES; i++) {
			if (i >= dims[d]) {
				EXPECT_EQ(0u, cores[i]);
				continue;
			}
			EXPECT_LT(cores[i], (uint32_t)CORES);
			for (j = 0; j < i; j++)
				EXPECT_NE(cores[j], cores[i]);
		}
	}
}

/*
 * Kernels of different streams run at the same time: a kernel on each of
 * two streams (one block, then two each) waits until the blocks of both
 * have started; they complete (with one launch at a time they would trap).
 * Then 4 streams at once.
 */
TEST_F(ex, kernels_of_streams_run_at_once)
{
	static const uint32_t cases[][2] = { { 2, 1 }, { 2, 2 }, { 4, 1 } };
	uint32_t streams[4] = { self->stream }, zero = 0, count;
	struct npu_stream_sync sync;
	unsigned int c, i;

	LOAD_KERNELS(&self->ex);
	for (i = 1; i < 4; i++)
		ASSERT_EQ(0, npu_stream_create(self->fd, &streams[i]));
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint32_t n = cases[c][0], dim = cases[c][1];
		uint64_t args[4][2];
		struct npu_kernel kern[4];
		struct npu_cmd cmd[4];

		ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0,
					   (unsigned char *)&zero, sizeof(zero)));
		for (i = 0; i < n; i++) {
			args[i][0] = self->va;
			args[i][1] = n * dim;
			kern[i] = (struct npu_kernel){
				.func = K_MEET, .block_dim = dim, .args_len = sizeof(args[i]),
				.args = ptr64(args[i]), .args_va = self->va + ARGS_OFF + i * 64,
				.sat_mode = NPU_KERNEL_SAT_INFNAN,
			};
			cmd[i] = (struct npu_cmd){ .op = NPU_OP_KERNEL, .src = ptr64(&kern[i]),
						   .value = sizeof(kern[i]) };
			ASSERT_EQ(0, npu_submit(self->fd, streams[i], &cmd[i], 1, NULL));
		}
		for (i = 0; i < n; i++) {
			memset(&sync, 0, sizeof(sync));
			sync.size = sizeof(sync);
			sync.stream = streams[i];
			sync.timeout_ms = 120000;
			EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &sync));
			if (sync.fault_flags)
				TH_LOG("%u streams of %u blocks: stream %u faulted (flags %#x)", n, dim, i,
				       (unsigned int)sync.fault_flags);
		}
		ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, 0, sizeof(count)));
		memcpy(&count, self->host, sizeof(count));
		EXPECT_EQ(n * dim, count);
	}
}

/*
 * A kernel touching memory the device cannot reach fails as that launch:
 * STREAM_SYNC's -EIO with the address and NPU_FAULT_AICORE (| WRITE);
 * nothing is written, and the next launch runs.
 */
TEST_F(ex, kernel_fault_is_the_launch_s_error)
{
	struct npu_stream_sync sync;
	uint64_t hole = npu_hole(SZ_2M, SZ_2M);
	uint64_t args[2] = { hole + 8, 5 };
	int on_stack = 0;

	npu_expect_dma_faults(true);
	ASSERT_NE(0, hole);
	LOAD_KERNELS(&self->ex);
	EXPECT_EQ(-EIO, launch(self, K_WRITE, 1, args, 2, 0, 0, &sync));
	EXPECT_EQ(hole + 8, sync.fault_addr);
	EXPECT_EQ(NPU_FAULT_AICORE | NPU_FAULT_WRITE, sync.fault_flags);
	EXPECT_EQ((uint32_t)gettid(), sync.error_tid);
	/* this process's own memory is not the device's */
	args[0] = (uintptr_t)&on_stack;
	EXPECT_EQ(-EIO, launch(self, K_WRITE, 2, args, 2, 0, 0, &sync));
	EXPECT_EQ(0, on_stack);
	/* a read-only mapping is not written: not even the argument block */
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0, NPU_ACCESS_READ));
	args[0] = self->va + 256;
	EXPECT_EQ(-EIO, launch(self, K_WRITE, 1, args, 2, 0, 0, &sync));
	EXPECT_EQ(self->va + ARGS_OFF, sync.fault_addr);
	EXPECT_EQ(NPU_FAULT_AICORE | NPU_FAULT_WRITE, sync.fault_flags);
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0, NPU_ACCESS_READWRITE));
	EXPECT_EQ(0, launch(self, K_WRITE, 2, args, 2, 0, 0, &sync));
	munmap((void *)(uintptr_t)hole, SZ_2M);
}

/* Traps, asm("trap") and kernel_operator.h's checks: NPU_FAULT_TRAP, and the reason in the dump area. */
TEST_F(ex, traps)
{
	struct npu_stream_sync sync;
	uint64_t args[1] = { 1 << 20 };
	const struct npu_rec *rec;
	uint32_t head[2];

	npu_expect_dma_faults(true);
	LOAD_KERNELS(&self->ex);
	EXPECT_EQ(-EIO, launch(self, K_TRAP, 3, NULL, 0, 0, 0, &sync));
	EXPECT_EQ(NPU_FAULT_AICORE | NPU_FAULT_TRAP, sync.fault_flags);
	EXPECT_EQ(0u, sync.fault_addr);
	EXPECT_EQ(-EIO, launch(self, K_UB_OVERFLOW, 1, args, 1, self->va + DUMP_OFF, 4096, &sync));
	EXPECT_EQ(NPU_FAULT_AICORE | NPU_FAULT_TRAP, sync.fault_flags);
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, DUMP_OFF, 4096));
	memcpy(head, self->host + DUMP_OFF, sizeof(head));
	ASSERT_LT(sizeof(*rec), head[0]);
	rec = (const struct npu_rec *)(self->host + DUMP_OFF + 8);
	EXPECT_EQ(NPU_REC_TRAP, rec->kind);
	EXPECT_LT(0u, rec->len);
	args[0] = 1024;
	EXPECT_EQ(0, launch(self, K_UB_OVERFLOW, 1, args, 1, 0, 0, &sync));
}

/* printf records land in each block's dump area in device memory. */
TEST_F(ex, printf_records_in_device_memory)
{
	struct npu_stream_sync sync;
	uint64_t args[2] = { self->va, 7 };
	const uint32_t size = 4096;
	const struct npu_rec *rec;
	const char *want = "Source data: 7 of 2\n";
	uint32_t head[2];
	unsigned int b;

	LOAD_KERNELS(&self->ex);
	ASSERT_EQ(0, launch(self, K_WRITE, 2, args, 2, self->va + DUMP_OFF, size, &sync));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, DUMP_OFF, 2 * size));
	for (b = 0; b < 2; b++) {
		const unsigned char *area = self->host + DUMP_OFF + b * size;

		memcpy(head, area, sizeof(head));
		ASSERT_EQ(sizeof(*rec) + ((strlen(want) + 7) & ~7ul), head[0]);
		rec = (const struct npu_rec *)(area + 8);
		EXPECT_EQ(NPU_REC_PRINTF, rec->kind);
		EXPECT_EQ(b, rec->blk_idx);
		ASSERT_EQ(strlen(want), rec->len);
		EXPECT_EQ(0, memcmp(rec + 1, want, rec->len));
	}
}

/* A token no loaded binary has fails its launch; unloading takes a binary's kernels away. */
TEST_F(ex, unknown_and_unloaded_kernels_fail)
{
	struct npu_stream_sync sync;
	uint64_t args[2] = { self->va, 1 };

	npu_expect_dma_faults(true);
	LOAD_KERNELS(&self->ex);
	EXPECT_EQ(0, launch(self, K_WRITE, 1, args, 2, 0, 0, &sync));
	EXPECT_EQ(-EIO, launch(self, K_COUNT, 1, args, 2, 0, 0, &sync));
	EXPECT_EQ(NPU_FAULT_AICORE, sync.fault_flags);
	ASSERT_EQ(0, executor_binary(&self->ex, 0, -1, false, NULL, 0));
	EXPECT_EQ(-EIO, launch(self, K_WRITE, 1, args, 2, 0, 0, &sync));
	EXPECT_EQ(NPU_FAULT_AICORE, sync.fault_flags);
}

/*
 * The executor's end: a stream's launch fails instead of waiting for good.
 * A launch queued when the executor dies (stopped first, so that it takes
 * nothing) fails with it, as the launches it had taken do, and so does
 * every later one, at once: there is nobody to run it.
 */
TEST_F(ex, executor_killed_with_a_launch_queued)
{
	struct npu_stream_sync sync;
	uint64_t args[2] = { self->va, 1 };
	struct npu_kernel kern = { .func = K_WRITE, .block_dim = 1, .args_len = 16, .args = ptr64(args),
				   .args_va = self->va + ARGS_OFF };
	struct npu_cmd cmd = { .op = NPU_OP_KERNEL, .src = ptr64(&kern), .value = sizeof(kern) };
	int status;

	npu_expect_dma_faults(true);
	LOAD_KERNELS(&self->ex);
	/* its job threads wait for launches: it is the context's executor */
	ASSERT_EQ(0, launch(self, K_WRITE, 1, args, 2, 0, 0, &sync));
	ASSERT_EQ(0, kill(self->ex.pid, SIGSTOP));
	ASSERT_EQ(self->ex.pid, waitpid(self->ex.pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	/* queued with nobody to take it: it waits, and the stream's other work with it */
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->stream, 100));
	kill(self->ex.pid, SIGKILL);
	ASSERT_EQ(self->ex.pid, waitpid(self->ex.pid, &status, 0));
	/* the teardown's stop finds it gone */
	self->ex.pid = -1;
	memset(&sync, 0, sizeof(sync));
	sync.size = sizeof(sync);
	sync.stream = self->stream;
	sync.timeout_ms = 10000;
	EXPECT_EQ(-EIO, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &sync));
	EXPECT_EQ(NPU_FAULT_AICORE, sync.fault_flags);
	EXPECT_EQ(0ull, (unsigned long long)sync.fault_addr);
	/* later launches fail at once */
	EXPECT_EQ(-EIO, launch(self, K_WRITE, 1, args, 2, 0, 0, &sync));
	EXPECT_EQ(NPU_FAULT_AICORE, sync.fault_flags);
}

/* Submit hold_op over every core on @stream (go at self->va, done[] at +64), timing out after @timeout_ms. */
static int hold_cores(FIXTURE_DATA(ex) *self, uint32_t stream, uint32_t timeout_ms)
{
	uint64_t args[2] = { self->va, self->va + 64 };
	struct npu_kernel kern = {
		.func = K_HOLD, .block_dim = CORES, .args_len = sizeof(args), .args = ptr64(args),
		.args_va = self->va + ARGS_OFF, .sat_mode = NPU_KERNEL_SAT_INFNAN, .timeout_ms = timeout_ms,
	};
	struct npu_cmd cmd = { .op = NPU_OP_KERNEL, .src = ptr64(&kern), .value = sizeof(kern) };

	return npu_submit(self->fd, stream, &cmd, 1, NULL);
}

/*
 * A launch that ends before its kernel does (its timeout passed, its
 * stream destroyed) frees its cores: the executor stops the kernel's
 * blocks, as the device aborts the task. hold_op over every core never
 * ends by itself; afterwards barrier_op over every core (which needs all
 * of them at once) runs, and the held blocks never went on. (Before the
 * executor stopped cancelled kernels, barrier_op waited for good.)
 */
TEST_F(ex, cancelled_kernels_give_their_cores_back)
{
	uint32_t zero[CORES + 16] = { 0 }, done[CORES], other, go = 1;
	uint64_t args[2] = { self->va, self->va + 64 };
	struct npu_stream_sync sync;
	unsigned int i;

	LOAD_KERNELS(&self->ex);
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0, (unsigned char *)zero,
				   sizeof(zero)));
	/* the launch's own limit */
	ASSERT_EQ(0, hold_cores(self, self->stream, 300));
	memset(&sync, 0, sizeof(sync));
	sync.size = sizeof(sync);
	sync.stream = self->stream;
	sync.timeout_ms = 10000;
	EXPECT_EQ(-ETIME, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &sync));
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0, (unsigned char *)zero,
				   sizeof(zero)));
	EXPECT_EQ(0, launch(self, K_BARRIER, CORES, args, 2, 0, 0, &sync));
	/* the stream's end */
	ASSERT_EQ(0, npu_stream_create(self->fd, &other));
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0, (unsigned char *)zero,
				   sizeof(zero)));
	ASSERT_EQ(0, hold_cores(self, other, 0));
	usleep(200 * 1000);
	ASSERT_EQ(0, npu_stream_destroy(self->fd, other, NPU_STREAM_DESTROY_FORCE));
	EXPECT_EQ(0, launch(self, K_BARRIER, CORES, args, 2, 0, 0, &sync));
	/* a held block let go now would still write its done word */
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0, (unsigned char *)zero,
				   sizeof(zero)));
	ASSERT_EQ(0, npu_dev_write(self->fd, self->stream, self->va, self->host, 0, (unsigned char *)&go,
				   sizeof(go)));
	usleep(200 * 1000);
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, 64, sizeof(done)));
	memcpy(done, self->host + 64, sizeof(done));
	for (i = 0; i < CORES; i++)
		EXPECT_EQ(0u, done[i]);
}

/* The binary requests' bad input. */
TEST_F(ex, bad_binary_requests)
{
	static const char *const missing[] = { "write_op", "no_such_kernel" };
	int fd = kernels_fd(), junk;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBADF, executor_binary(&self->ex, 0, -1, true, NULL, 0));
	EXPECT_EQ(-EINVAL, executor_binary(&self->ex, ACL_AICORE_BINARIES, fd, true, NULL, 0));
	EXPECT_EQ(-EINVAL, executor_binary(&self->ex, 1, fd, true, missing, 0));
	EXPECT_EQ(-ENOENT, executor_binary(&self->ex, 1, fd, true, missing, 2));
	EXPECT_EQ(-ENOENT, executor_binary(&self->ex, 1, -1, false, NULL, 0));
	ASSERT_EQ(0, executor_binary(&self->ex, 1, fd, true, NULL, 0));
	EXPECT_EQ(-EEXIST, executor_binary(&self->ex, 1, fd, true, NULL, 0));
	/* not an ELF */
	junk = memfd_create("junk", MFD_CLOEXEC);
	ASSERT_LE(0, junk);
	ASSERT_EQ(5, write(junk, "hello", 5));
	EXPECT_EQ(-ENOEXEC, executor_binary(&self->ex, 2, junk, true, NULL, 0));
	close(junk);
	ASSERT_EQ(0, executor_binary(&self->ex, 1, -1, false, NULL, 0));
	close(fd);
}

/* A malformed request is refused and the executor serves the next. */
TEST_F(ex, bad_requests)
{
	struct acl_aicore_access req = { .type = ACL_AICORE_PEEK, .len = 0, .addr = self->va };
	struct acl_aicore_result res;
	unsigned char buf[4];

	ASSERT_EQ((ssize_t)sizeof(req), send(self->ex.sock, &req, sizeof(req), 0));
	ASSERT_EQ((ssize_t)sizeof(res), recv(self->ex.sock, &res, sizeof(res), 0));
	EXPECT_EQ(-EINVAL, res.status);
	req.len = ACL_AICORE_DATA_MAX + 1;
	ASSERT_EQ((ssize_t)sizeof(req), send(self->ex.sock, &req, sizeof(req), 0));
	ASSERT_EQ((ssize_t)sizeof(res), recv(self->ex.sock, &res, sizeof(res), 0));
	EXPECT_EQ(-EINVAL, res.status);
	req.type = 99;
	req.len = 4;
	ASSERT_EQ((ssize_t)sizeof(req), send(self->ex.sock, &req, sizeof(req), 0));
	ASSERT_EQ((ssize_t)sizeof(res), recv(self->ex.sock, &res, sizeof(res), 0));
	EXPECT_EQ(-EINVAL, res.status);
	/* short */
	ASSERT_EQ(8, send(self->ex.sock, &req, 8, 0));
	ASSERT_EQ((ssize_t)sizeof(res), recv(self->ex.sock, &res, sizeof(res), 0));
	EXPECT_EQ(-EINVAL, res.status);
	EXPECT_EQ(0, executor_access(&self->ex, self->va, buf, 4, false, &res));
}

/* Started by hand, without its descriptors, it refuses to run. */
TEST(not_started_by_libacl)
{
	char path[PATH_MAX];
	const char *exe = executor_path(path, sizeof(path));
	int status, null;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(3);
		close(4);
		null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		execl(exe, "npu-aicore", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(2, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
