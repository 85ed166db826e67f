// SPDX-License-Identifier: GPL-2.0
/*
 * npu_stream_test: what driver 1.3 added to streams - NPU_OP_TIMESTAMP
 * and the device clock, the prompt wake-up of WAIT_STREAM waits, and
 * STREAM_SET_MODE's NPU_STREAM_STOP_ON_FAULT - and what 1.6 added to
 * STREAM_SYNC (which command failed, where, whose), through the raw
 * ioctls.
 */
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>

#include "harness.h"
#include "npu_util.h"

#define HOST_SIZE	(4 * SZ_4K)
#define DEV_SIZE	(8 * SZ_2M)

FIXTURE(strm) {
	int fd;
	uint32_t stream;
	uint64_t *host;		/* HOST_SIZE, registered */
	uint64_t va;		/* DEV_SIZE of device memory, read-write */
};

FIXTURE_SETUP(strm)
{
	uint32_t handle;

	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->host = npu_host_mem(HOST_SIZE);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, HOST_SIZE, 0, 0));
	self->va = npu_reserve_new(self->fd, DEV_SIZE, SZ_2M);
	ASSERT_NE(0, self->va);
	ASSERT_EQ(0, npu_alloc(self->fd, DEV_SIZE, SZ_2M, &handle));
	ASSERT_EQ(0, npu_map(self->fd, self->va, DEV_SIZE, handle));
	ASSERT_EQ(0, npu_free(self->fd, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, DEV_SIZE, 0,
				    NPU_ACCESS_READWRITE));
}

FIXTURE_TEARDOWN(strm)
{
	npu_expect_dma_faults(false);
	close(self->fd);
}

static struct npu_cmd stamp_cmd(uint64_t dst, uint32_t flags)
{
	return (struct npu_cmd){ .op = NPU_OP_TIMESTAMP, .flags = flags,
				 .dst = dst };
}

static struct npu_cmd wait_stream_cmd(uint32_t stream, uint64_t seqno)
{
	return (struct npu_cmd){ .op = NPU_OP_WAIT_STREAM, .src = stream,
				 .value = seqno };
}

/* GET_INFO's device clock now, or 0. */
static uint64_t dev_clock(int fd)
{
	struct npu_get_info info;

	return npu_info(fd, &info) ? 0 : info.clock_ns;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int set_mode(int fd, uint32_t stream, uint32_t mode)
{
	struct npu_stream_mode m = {
		.size = sizeof(m), .stream = stream, .mode = mode,
	};

	return npu_ioctl(fd, NPU_IOCTL_STREAM_SET_MODE, &m);
}

/* ------------------------------------------------------------------ */
/* NPU_OP_TIMESTAMP                                                    */
/* ------------------------------------------------------------------ */

/*
 * The stamp is the device clock GET_INFO reads, taken when the command
 * runs: between the clock read before the submit and the one after the
 * sync, in a host registration and in device memory alike; stamps of one
 * stream never go back.
 */
TEST_F(strm, timestamp_writes_the_device_clock)
{
	struct npu_cmd cmds[6];
	uint64_t before, after, *h = self->host;

	for (int i = 0; i < 4; i++)
		cmds[i] = stamp_cmd(ptr64(&h[i]), NPU_CMD_DST_HOST);
	cmds[4] = stamp_cmd(self->va + 8, 0);
	cmds[5] = npu_copy_cmd(ptr64(&h[4]), self->va + 8, 8, NPU_CMD_DST_HOST);
	before = dev_clock(self->fd);
	ASSERT_NE(0, before);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 6, NULL));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	after = dev_clock(self->fd);
	TH_LOG("clock %llu, stamps %llu..%llu, clock %llu",
	       (unsigned long long)before, (unsigned long long)h[0],
	       (unsigned long long)h[4], (unsigned long long)after);
	EXPECT_LE(before, h[0]);
	for (int i = 1; i < 5; i++)
		EXPECT_LE(h[i - 1], h[i]);
	EXPECT_LE(h[4], after);
}

/*
 * Taken when the engine gets to it, not at submit: a stamp behind a wait
 * is later than the clock just before the host releases the wait.
 */
TEST_F(strm, timestamp_is_taken_when_the_command_runs)
{
	uint64_t *h = self->host, released;
	struct npu_cmd cmds[3] = {
		stamp_cmd(ptr64(&h[1]), NPU_CMD_DST_HOST),
		npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(&h[0]), 1,
			      NPU_CMD_SRC_HOST | NPU_WAIT_EQ),
		stamp_cmd(ptr64(&h[2]), NPU_CMD_DST_HOST),
	};

	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 3, NULL));
	usleep(100 * 1000);
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->stream, 0));
	released = dev_clock(self->fd);
	__atomic_store_n(&h[0], 1, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	TH_LOG("first stamp %llu, released at %llu, second stamp %llu",
	       (unsigned long long)h[1], (unsigned long long)released,
	       (unsigned long long)h[2]);
	/*
	 * The first stamp ran before the release, the second after it: each
	 * is the time the engine got there. (How long before the release the
	 * first ran depends on when the worker started, not on the usleep.)
	 */
	EXPECT_LT(h[1], released);
	EXPECT_LE(released, h[2]);
}

/*
 * The clock counts from the device's creation: CLOCK_MONOTONIC minus the
 * clock is the same instant however late one asks, and it is in the past.
 */
TEST_F(strm, clock_counts_from_device_creation)
{
	uint64_t m0 = mono_ns(), c0 = dev_clock(self->fd), m1 = mono_ns();
	uint64_t m2, c1, m3;

	ASSERT_NE(0, c0);
	EXPECT_LT(c0, m1);
	usleep(50 * 1000);
	m2 = mono_ns();
	c1 = dev_clock(self->fd);
	m3 = mono_ns();
	EXPECT_LE(c0 + 50 * 1000 * 1000ULL, c1);
	/* created at m - c, within the time each read took */
	EXPECT_LE(m0 - c0, m3 - c1);
	EXPECT_LE(m2 - c1, m1 - c0);
	TH_LOG("device created %.3f s after boot",
	       (double)(m1 - c0) / 1e9);
}

TEST_F(strm, timestamp_bad_inputs)
{
	uint64_t *ro = npu_host_mem(SZ_4K), *plain = npu_host_mem(SZ_4K);
	uint64_t h = ptr64(self->host);
	struct npu_cmd c;

	ASSERT_NONNULL(ro);
	ASSERT_NONNULL(plain);
	ASSERT_EQ(0, npu_register(self->fd, ro, SZ_4K, NPU_HOST_READONLY, 0));
	c = stamp_cmd(h + 4, NPU_CMD_DST_HOST);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(self->va + 1, 0);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(h, NPU_CMD_DST_HOST);
	c.src = h;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(h, NPU_CMD_DST_HOST);
	c.length = 8;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(h, NPU_CMD_DST_HOST);
	c.value = 1;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(h, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(self->va, NPU_CMD_DST_PEER);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(h, NPU_CMD_DST_HOST | NPU_WAIT_EQ);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(h, 1U << 31);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	/* host operands: registered, writable */
	c = stamp_cmd(ptr64(plain), NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(h + HOST_SIZE, NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = stamp_cmd(ptr64(ro), NPU_CMD_DST_HOST);
	EXPECT_EQ(-EACCES, npu_submit(self->fd, self->stream, &c, 1, NULL));
	/* nothing was queued */
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 0));
	EXPECT_EQ(0, ro[0]);

	/* A device address is checked when it runs: unmapped, read-only. */
	npu_expect_dma_faults(true);
	c = stamp_cmd(self->va + DEV_SIZE, 0);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream, c));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, DEV_SIZE, 0,
				    NPU_ACCESS_READ));
	c = stamp_cmd(self->va, 0);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream, c));
	npu_expect_dma_faults(false);
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 0));
}

/* ------------------------------------------------------------------ */
/* WAIT_STREAM wake-up                                                 */
/* ------------------------------------------------------------------ */

/* The kernel's jiffies and CLOCK_MONOTONIC (root: /proc/timer_list). */
static bool timer_list(uint64_t *jiffies, uint64_t *now)
{
	char buf[4096], *p;
	ssize_t n;
	int fd = open("/proc/timer_list", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strstr(buf, "now at ");
	if (!p)
		return false;
	*now = strtoull(p + 7, NULL, 10);
	p = strstr(buf, "jiffies: ");
	if (!p) {
		/* the per-CPU part may be past the first read */
		fd = open("/proc/timer_list", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		while (!p && (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = 0;
			p = strstr(buf, "jiffies: ");
		}
		close(fd);
		if (!p)
			return false;
	}
	*jiffies = strtoull(p + 9, NULL, 10);
	return true;
}

/* Nanoseconds per jiffy, measured; 0 if /proc/timer_list cannot tell. */
static uint64_t jiffy_ns(void)
{
	uint64_t j0, n0, j1, n1;

	if (!timer_list(&j0, &n0))
		return 0;
	usleep(200 * 1000);
	if (!timer_list(&j1, &n1) || j1 <= j0)
		return 0;
	return (n1 - n0) / (j1 - j0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define WAKE_ROUNDS	41

/*
 * Stream B waits for the last command of stream A, which first spends a
 * while on a memset: B parks on the wait before A gets there. The engine's
 * own stamps time the wake-up: from A's last command (a TIMESTAMP) to the
 * TIMESTAMP right after B's wait. It must be well under a jiffy, the
 * interval at which waits were polled before driver 1.3.
 */
TEST_F_TIMEOUT(strm, wait_stream_wakes_at_once, 120)
{
	uint64_t lat[WAKE_ROUNDS], *h = self->host, seq, jiffy = jiffy_ns();
	bool debug = getenv("HARNESS_TIMEOUT_SCALE") &&
		     atoi(getenv("HARNESS_TIMEOUT_SCALE")) > 1;
	uint32_t b;

	ASSERT_EQ(0, npu_stream_create(self->fd, &b));
	for (int i = 0; i < WAKE_ROUNDS; i++) {
		struct npu_cmd a_cmds[2] = {
			npu_memset_cmd(self->va, (uint8_t)i, DEV_SIZE, 0),
			stamp_cmd(ptr64(&h[0]), NPU_CMD_DST_HOST),
		};
		struct npu_cmd b_cmds[2] = {
			{ .op = NPU_OP_WAIT_STREAM, .src = self->stream },
			stamp_cmd(ptr64(&h[1]), NPU_CMD_DST_HOST),
		};

		ASSERT_EQ(0, npu_submit(self->fd, self->stream, a_cmds, 2, &seq));
		b_cmds[0].value = seq;
		ASSERT_EQ(0, npu_submit(self->fd, b, b_cmds, 2, NULL));
		ASSERT_EQ(0, npu_sync(self->fd, b, -1));
		ASSERT_LE(h[0], h[1]);
		lat[i] = h[1] - h[0];
	}
	qsort(lat, WAKE_ROUNDS, sizeof(lat[0]), cmp_u64);
	TH_LOG("wake-up after the awaited command: min %llu us, median %llu us, 90%% %llu us, max %llu us; jiffy %llu us",
	       (unsigned long long)lat[0] / 1000,
	       (unsigned long long)lat[WAKE_ROUNDS / 2] / 1000,
	       (unsigned long long)lat[WAKE_ROUNDS * 9 / 10] / 1000,
	       (unsigned long long)lat[WAKE_ROUNDS - 1] / 1000,
	       (unsigned long long)jiffy / 1000);
	if (!jiffy)
		SKIP(return, "no jiffies in /proc/timer_list (not root?)");
	/*
	 * A poll would wake after half a jiffy on the median. The debug
	 * kernel (KASAN, lockdep, HZ=1000) is too slow to tell reliably.
	 */
	if (debug)
		SKIP(return, "debug kernel: latency reported, not judged");
	EXPECT_LT(lat[WAKE_ROUNDS / 2], jiffy / 4);
	EXPECT_LT(lat[WAKE_ROUNDS * 9 / 10], jiffy / 2);
}

/*
 * A wait for a stream that is destroyed, or whose context closes, ends at
 * once too; streams parked on each other in a chain all go with the file.
 */
TEST_F(strm, wait_stream_ends_when_the_stream_goes)
{
	uint64_t *h = self->host, t0;
	struct npu_cmd block = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(&h[0]), 1,
					     NPU_CMD_SRC_HOST | NPU_WAIT_EQ);
	struct npu_cmd cmds[2];
	uint32_t a, b, chain[8];
	int fd;

	ASSERT_EQ(0, npu_stream_create(self->fd, &a));
	ASSERT_EQ(0, npu_stream_create(self->fd, &b));
	ASSERT_EQ(0, npu_submit(self->fd, a, &block, 1, NULL));
	cmds[0] = wait_stream_cmd(a, 1);
	cmds[1] = stamp_cmd(ptr64(&h[1]), NPU_CMD_DST_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, b, cmds, 2, NULL));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, b, 50));
	EXPECT_EQ(0, h[1]);
	t0 = dev_clock(self->fd);
	ASSERT_EQ(0, npu_stream_destroy(self->fd, a, NPU_STREAM_DESTROY_FORCE));
	EXPECT_EQ(0, npu_sync(self->fd, b, 5000));
	EXPECT_LE(t0, h[1]);
	TH_LOG("ran %llu us after the destroy began",
	       (unsigned long long)(h[1] - t0) / 1000);

	/* A chain of parked streams, and a close with all of them parked. */
	fd = npu_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_register(fd, self->host, HOST_SIZE, 0, 0));
	for (int i = 0; i < 8; i++) {
		ASSERT_EQ(0, npu_stream_create(fd, &chain[i]));
		if (i)
			cmds[0] = wait_stream_cmd(chain[i - 1], 1);
		ASSERT_EQ(0, npu_submit(fd, chain[i], i ? cmds : &block, 1,
					NULL));
	}
	EXPECT_EQ(-ETIMEDOUT, npu_sync(fd, chain[7], 20));
	/* the middle of the chain goes: the rest follows, the head waits */
	ASSERT_EQ(0, npu_stream_destroy(fd, chain[3], NPU_STREAM_DESTROY_FORCE));
	EXPECT_EQ(0, npu_sync(fd, chain[7], 5000));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(fd, chain[2], 0));
	for (int i = 4; i < 8; i++) {
		cmds[0] = wait_stream_cmd(chain[i == 4 ? 2 : i - 1], 2);
		if (i == 4)
			cmds[0].value = 1;
		ASSERT_EQ(0, npu_submit(fd, chain[i], cmds, 1, NULL));
	}
	EXPECT_EQ(0, close(fd));
}

/* A wait for a command not yet submitted ends when it completes. */
TEST_F(strm, wait_stream_for_a_later_submit)
{
	uint64_t *h = self->host;
	struct npu_cmd cmds[2] = {
		wait_stream_cmd(self->stream, 3),
		stamp_cmd(ptr64(&h[1]), NPU_CMD_DST_HOST),
	};
	uint32_t b;

	ASSERT_EQ(0, npu_stream_create(self->fd, &b));
	ASSERT_EQ(0, npu_submit(self->fd, b, cmds, 2, NULL));
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, b, 20));
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     stamp_cmd(ptr64(&h[0]), NPU_CMD_DST_HOST)));
	}
	EXPECT_EQ(0, npu_sync(self->fd, b, 5000));
	EXPECT_LE(h[0], h[1]);
}

/* A WAIT_STREAM with a limit fails with -ETIME once it ran out; the stream goes on. */
TEST_F(strm, wait_stream_limit)
{
	uint64_t *h = self->host;
	struct npu_cmd cmds[2] = {
		wait_stream_cmd(self->stream, 1000),	/* never reached */
		stamp_cmd(ptr64(&h[1]), NPU_CMD_DST_HOST),
	};
	uint64_t t0, t1, seq;
	uint32_t b;

	ASSERT_EQ(0, npu_stream_create(self->fd, &b));
	cmds[0].length = 100;
	h[1] = 0;
	t0 = mono_ns();
	ASSERT_EQ(0, npu_submit(self->fd, b, cmds, 2, &seq));
	EXPECT_EQ(-ETIME, npu_sync(self->fd, b, 10000));
	t1 = mono_ns();
	TH_LOG("the wait ran out after %.1f ms", (t1 - t0) / 1e6);
	EXPECT_LE(95 * 1000000ULL, t1 - t0);
	/* reported once, and the command after it ran */
	EXPECT_EQ(0, npu_sync(self->fd, b, 0));
	EXPECT_NE(0U, h[1]);
	/* satisfied within the limit: no error */
	cmds[0] = wait_stream_cmd(self->stream, 1);
	cmds[0].length = 60000;
	ASSERT_EQ(0, npu_submit(self->fd, b, cmds, 2, NULL));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, b, 20));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, stamp_cmd(ptr64(&h[0]), NPU_CMD_DST_HOST)));
	EXPECT_EQ(0, npu_sync(self->fd, b, 5000));
	/* the limit is a __u32 of milliseconds */
	cmds[0].length = 1ULL << 32;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, b, cmds, 1, NULL));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, b, 0));
}

/* ------------------------------------------------------------------ */
/* STREAM_SYNC's error report (1.6)                                    */
/* ------------------------------------------------------------------ */

/* Sentinels for outputs the kernel must overwrite (or leave alone). */
#define JUNK64	0xa5a5a5a5a5a5a5a5ULL
#define JUNK32	0xa5a5a5a5U

/* STREAM_SYNC of @seqno with the 1.6 struct, its outputs filled with junk. */
static int sync_report(int fd, uint32_t stream, uint64_t seqno,
		       int32_t timeout_ms, struct npu_stream_sync *s)
{
	*s = (struct npu_stream_sync){
		.size = sizeof(*s), .stream = stream,
		.timeout_ms = timeout_ms, .seqno = seqno,
		.error_seqno = JUNK64, .fault_addr = JUNK64,
		.fault_flags = JUNK32, .error_tid = JUNK32,
	};
	return npu_ioctl(fd, NPU_IOCTL_STREAM_SYNC, s);
}

static uint32_t my_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/*
 * A fault in the middle of a submission: -EIO names that command (not
 * the last of the submission), the first byte it could not write (not
 * the command's start: the part before it was mapped), the access and
 * the submitting thread. A success zeroes every output.
 */
TEST_F(strm, sync_reports_the_faulting_command)
{
	uint8_t *b = (uint8_t *)self->host;
	struct npu_cmd cmds[3] = {
		npu_memset_cmd(ptr64(b), 0x11, 64, NPU_CMD_DST_HOST),
		npu_memset_cmd(self->va + DEV_SIZE - 64, 0x22, 128, 0),
		npu_memset_cmd(ptr64(b + 64), 0x33, 64, NPU_CMD_DST_HOST),
	};
	struct npu_stream_sync s;
	uint64_t seq, first;

	/* something ran on the stream before: seqnos do not start at 1 */
	ASSERT_EQ(0, npu_run(self->fd, self->stream, cmds[0]));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 3, &seq));
	first = seq - 2;
	EXPECT_EQ(-EIO, sync_report(self->fd, self->stream, 0, -1, &s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(first + 1, s.error_seqno);
	EXPECT_EQ(self->va + DEV_SIZE, s.fault_addr);
	EXPECT_EQ(NPU_FAULT_WRITE, s.fault_flags);
	EXPECT_EQ(my_tid(), s.error_tid);
	/* the inputs come back as they were */
	EXPECT_EQ(sizeof(s), s.size);
	EXPECT_EQ(self->stream, s.stream);
	EXPECT_EQ(0U, s.seqno);
	/* the stream ran on */
	EXPECT_EQ(0x33, b[64]);
	/* reported once: the next sync succeeds and zeroes the outputs */
	EXPECT_EQ(0, sync_report(self->fd, self->stream, seq, -1, &s));
	EXPECT_EQ(0U, s.error_seqno);
	EXPECT_EQ(0U, s.fault_addr);
	EXPECT_EQ(0U, s.fault_flags);
	EXPECT_EQ(0U, s.error_tid);

	/* a read fault: the source's address, no WRITE bit */
	npu_expect_dma_faults(true);
	cmds[1] = npu_copy_cmd(ptr64(b), self->va + DEV_SIZE + SZ_4K, 64,
			       NPU_CMD_DST_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &cmds[1], 1, &seq));
	EXPECT_EQ(-EIO, sync_report(self->fd, self->stream, seq, -1, &s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(seq, s.error_seqno);
	EXPECT_EQ(self->va + DEV_SIZE + SZ_4K, s.fault_addr);
	EXPECT_EQ(0U, s.fault_flags);
	EXPECT_EQ(my_tid(), s.error_tid);
}

/*
 * Only the first fault not yet reported is kept: a second one before
 * the sync is in the log, not in the answer. A sync up to a seqno before
 * the fault says nothing and writes nothing of it.
 */
TEST_F(strm, sync_reports_the_first_unreported_fault)
{
	struct npu_cmd cmds[4] = {
		npu_memset_cmd(self->va, 1, 64, 0),
		npu_memset_cmd(self->va + DEV_SIZE, 2, 64, 0),
		npu_memset_cmd(self->va + 64, 3, 64, 0),
		npu_memset_cmd(self->va + DEV_SIZE + SZ_2M, 4, 64, 0),
	};
	struct npu_stream_sync s;
	uint64_t seq;

	npu_expect_dma_faults(true);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 4, &seq));
	EXPECT_EQ(0, sync_report(self->fd, self->stream, seq - 3, -1, &s));
	EXPECT_EQ(0U, s.error_seqno);
	EXPECT_EQ(0U, s.fault_addr);
	EXPECT_EQ(-EIO, sync_report(self->fd, self->stream, seq, -1, &s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(seq - 2, s.error_seqno);
	EXPECT_EQ(self->va + DEV_SIZE, s.fault_addr);
	EXPECT_EQ(0, sync_report(self->fd, self->stream, seq, -1, &s));
	EXPECT_EQ(0U, s.error_seqno);
}

struct submitter {
	int fd;
	uint32_t stream;
	struct npu_cmd cmd;
	uint64_t seq;
	uint32_t tid;
	int ret;
};

static void *submitter_main(void *arg)
{
	struct submitter *sub = arg;

	sub->tid = my_tid();
	sub->ret = npu_submit(sub->fd, sub->stream, &sub->cmd, 1, &sub->seq);
	return NULL;
}

/*
 * The thread is the one that submitted the command, not the one that
 * syncs; a WAIT_STREAM past its limit names its command and thread too,
 * with no fault address.
 */
TEST_F(strm, sync_reports_who_submitted)
{
	struct submitter sub = {
		.fd = self->fd, .stream = self->stream,
		.cmd = npu_memset_cmd(self->va + DEV_SIZE, 5, 8, 0),
	};
	struct npu_stream_sync s;
	pthread_t t;
	uint32_t b;

	npu_expect_dma_faults(true);
	ASSERT_EQ(0, pthread_create(&t, NULL, submitter_main, &sub));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, sub.ret);
	EXPECT_EQ(-EIO, sync_report(self->fd, self->stream, 0, -1, &s));
	npu_expect_dma_faults(false);
	EXPECT_NE(my_tid(), sub.tid);
	EXPECT_EQ(sub.tid, s.error_tid);
	EXPECT_EQ(sub.seq, s.error_seqno);

	ASSERT_EQ(0, npu_stream_create(self->fd, &b));
	sub.stream = b;
	sub.cmd = wait_stream_cmd(self->stream, 1000);	/* never reached */
	sub.cmd.length = 20;
	ASSERT_EQ(0, pthread_create(&t, NULL, submitter_main, &sub));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, sub.ret);
	EXPECT_EQ(-ETIME, sync_report(self->fd, b, sub.seq, 10000, &s));
	EXPECT_EQ(sub.seq, s.error_seqno);
	EXPECT_EQ(sub.tid, s.error_tid);
	EXPECT_EQ(0U, s.fault_addr);
	EXPECT_EQ(0U, s.fault_flags);
	ASSERT_EQ(0, npu_stream_destroy(self->fd, b, 0));
}

/*
 * The 24-byte struct of 1.0 to 1.5 still works: the same errors, and
 * nothing is written past it (nor into it: its fields are all inputs).
 * Other failures write nothing back either.
 */
TEST_F(strm, sync_old_struct_size_still_works)
{
	struct {
		struct npu_stream_sync s;
		uint8_t canary[16];
	} buf;
	struct npu_stream_sync s;
	uint64_t seq;

	ASSERT_EQ(24U, offsetof(struct npu_stream_sync, error_seqno));
	memset(&buf, 0x5a, sizeof(buf));
	buf.s.size = 24;
	buf.s.flags = 0;
	buf.s.stream = self->stream;
	buf.s.timeout_ms = -1;
	buf.s.seqno = 0;
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(self->va, 6, 64, 0)));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream,
				&(struct npu_cmd){ .op = NPU_OP_MEMSET,
						   .dst = self->va + DEV_SIZE,
						   .length = 8 }, 1, &seq));
	/* the kernel reads only 24 bytes: the junk after them is not its business */
	EXPECT_EQ(-EIO, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &buf.s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(24U, buf.s.size);
	EXPECT_EQ(self->stream, buf.s.stream);
	EXPECT_EQ(-1, buf.s.timeout_ms);
	EXPECT_EQ(0U, buf.s.seqno);
	EXPECT_EQ(-1, npu_check_byte(&buf.s.error_seqno, 24, 0x5a));
	EXPECT_EQ(-1, npu_check_byte(buf.canary, sizeof(buf.canary), 0x5a));
	EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &buf.s));
	EXPECT_EQ(-1, npu_check_byte(&buf.s.error_seqno, 24, 0x5a));
	/* shorter than the first release is still refused */
	buf.s.size = 20;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &buf.s));
	/* a failure without outputs writes nothing back */
	EXPECT_EQ(-EINVAL, sync_report(self->fd, self->stream, seq + 100, 0, &s));
	EXPECT_EQ(JUNK64, s.error_seqno);
	EXPECT_EQ(JUNK32, s.error_tid);
	EXPECT_EQ(-ENOENT, sync_report(self->fd, 9999, 0, 0, &s));
	EXPECT_EQ(JUNK64, s.fault_addr);
}

/* ------------------------------------------------------------------ */
/* STREAM_SET_MODE                                                     */
/* ------------------------------------------------------------------ */

/* A fault, then work queued behind it and submitted later. */
TEST_F(strm, stop_on_fault_drops_later_commands)
{
	uint8_t *b = (uint8_t *)self->host;
	uint64_t seq;
	struct npu_cmd cmds[3] = {
		npu_memset_cmd(ptr64(b), 0x11, 64, NPU_CMD_DST_HOST),
		npu_copy_cmd(ptr64(b + 64), self->va + DEV_SIZE, 64,
			     NPU_CMD_DST_HOST),
		npu_memset_cmd(ptr64(b + 128), 0x33, 64, NPU_CMD_DST_HOST),
	};
	uint32_t w;

	ASSERT_EQ(0, set_mode(self->fd, self->stream, NPU_STREAM_STOP_ON_FAULT));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 3, &seq));
	EXPECT_EQ(-EIO, npu_sync(self->fd, self->stream, -1));
	npu_expect_dma_faults(false);
	EXPECT_EQ(0x11, b[0]);
	EXPECT_EQ(0, b[128]);
	/* every later sync says the rest was dropped */
	EXPECT_EQ(-ECANCELED, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(-ECANCELED, npu_sync(self->fd, self->stream, 0));
	/* up to the fault, nothing more to say */
	{
		struct npu_stream_sync s = {
			.size = sizeof(s), .stream = self->stream,
			.timeout_ms = -1, .seqno = seq - 1,
		};

		EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &s));
		s.seqno = seq - 2;
		EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &s));
	}
	/* submitted later: accepted, dropped */
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &cmds[2], 1, &seq));
	EXPECT_EQ(-ECANCELED, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0, b[128]);
	/* a stream waiting for the stopped one goes on */
	ASSERT_EQ(0, npu_stream_create(self->fd, &w));
	cmds[0] = wait_stream_cmd(self->stream, seq);
	cmds[1] = npu_memset_cmd(ptr64(b + 192), 0x44, 64, NPU_CMD_DST_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, w, cmds, 2, NULL));
	EXPECT_EQ(0, npu_sync(self->fd, w, 5000));
	EXPECT_EQ(0x44, b[192]);
	/* setting the mode again changes nothing */
	EXPECT_EQ(0, set_mode(self->fd, self->stream, NPU_STREAM_STOP_ON_FAULT));
	EXPECT_EQ(-ECANCELED, npu_sync(self->fd, self->stream, -1));
}

/*
 * Commands queued before the mode was set are dropped too once one
 * faults; without the mode, the stream goes on after a fault.
 */
TEST_F(strm, stop_on_fault_applies_to_queued_commands)
{
	uint64_t *h = self->host;
	uint8_t *b = (uint8_t *)&h[8];
	struct npu_cmd cmds[4] = {
		npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(&h[0]), 1,
			      NPU_CMD_SRC_HOST | NPU_WAIT_EQ),
		npu_copy_cmd(ptr64(b), self->va + DEV_SIZE, 64,
			     NPU_CMD_DST_HOST),
		npu_memset_cmd(ptr64(b + 64), 0x55, 64, NPU_CMD_DST_HOST),
		stamp_cmd(ptr64(&h[1]), NPU_CMD_DST_HOST),
	};
	uint32_t other;

	/* the default: a fault is reported, the rest runs */
	ASSERT_EQ(0, npu_stream_create(self->fd, &other));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, npu_submit(self->fd, other, &cmds[1], 3, NULL));
	EXPECT_EQ(-EIO, npu_sync(self->fd, other, -1));
	EXPECT_EQ(0x55, b[64]);
	EXPECT_NE(0, h[1]);
	EXPECT_EQ(0, npu_sync(self->fd, other, -1));

	b[64] = 0;
	h[1] = 0;
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 4, NULL));
	ASSERT_EQ(0, set_mode(self->fd, self->stream, NPU_STREAM_STOP_ON_FAULT));
	__atomic_store_n(&h[0], 1, __ATOMIC_SEQ_CST);
	EXPECT_EQ(-EIO, npu_sync(self->fd, self->stream, -1));
	npu_expect_dma_faults(false);
	EXPECT_EQ(-ECANCELED, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0, b[64]);
	EXPECT_EQ(0, h[1]);
	/* the other stream of the context is not stopped */
	EXPECT_EQ(0, npu_run(self->fd, other, cmds[2]));
	EXPECT_EQ(0x55, b[64]);
}

TEST_F(strm, set_mode_bad_inputs)
{
	struct npu_stream_mode m = {
		.size = sizeof(m), .stream = self->stream,
	};
	uint32_t s;

	/* a new stream has no mode: setting none is setting the same */
	EXPECT_EQ(0, set_mode(self->fd, self->stream, 0));
	EXPECT_EQ(-EINVAL, set_mode(self->fd, self->stream, 1U << 1));
	EXPECT_EQ(-EINVAL, set_mode(self->fd, self->stream,
				    NPU_STREAM_STOP_ON_FAULT | 1U << 31));
	EXPECT_EQ(-ENOENT, set_mode(self->fd, 999, NPU_STREAM_STOP_ON_FAULT));
	EXPECT_EQ(-ENOENT, set_mode(self->fd, 0, NPU_STREAM_STOP_ON_FAULT));
	m.flags = 1;
	m.mode = NPU_STREAM_STOP_ON_FAULT;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SET_MODE, &m));
	m.flags = 0;
	m.__reserved = 1ULL << 32;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SET_MODE, &m));
	m.__reserved = 0;
	EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SET_MODE, &m));
	/* set, then cleared: refused; set again: fine */
	EXPECT_EQ(-EINVAL, set_mode(self->fd, self->stream, 0));
	EXPECT_EQ(0, set_mode(self->fd, self->stream, NPU_STREAM_STOP_ON_FAULT));
	/* a destroyed stream */
	ASSERT_EQ(0, npu_stream_create(self->fd, &s));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, s, 0));
	EXPECT_EQ(-ENOENT, set_mode(self->fd, s, NPU_STREAM_STOP_ON_FAULT));
	/* streams are per context */
	{
		int fd = npu_open(0);

		ASSERT_LE(0, fd);
		EXPECT_EQ(-ENOENT, set_mode(fd, self->stream,
					    NPU_STREAM_STOP_ON_FAULT));
		close(fd);
	}
}

/* ------------------------------------------------------------------ */
/* SUBMIT with NPU_SUBMIT_WAIT                                         */
/* ------------------------------------------------------------------ */

static int submit_wait(int fd, uint32_t stream, struct npu_cmd *cmds,
		       uint32_t count, uint64_t *seqno)
{
	struct npu_submit s = {
		.size = sizeof(s), .flags = NPU_SUBMIT_WAIT, .stream = stream,
		.count = count, .cmds = ptr64(cmds), .cmd_size = sizeof(*cmds),
	};
	/* not npu_ioctl(): its retry after a signal would queue them again */
	int ret = ioctl(fd, NPU_IOCTL_SUBMIT, &s) ? -errno : 0;

	if (seqno)
		*seqno = s.seqno;
	return ret;
}

/*
 * One call queues and waits: the commands are done when it returns, it
 * says what STREAM_SYNC would (a fault: -EIO, reported once), and an
 * unknown flag is still refused.
 */
TEST_F(strm, submit_wait_runs_and_reports)
{
	struct npu_cmd cmds[3] = {
		npu_memset_cmd(self->va, 0x3c, SZ_2M, 0),
		npu_copy_cmd(self->va + SZ_2M, self->va, SZ_2M, 0),
		npu_copy_cmd(ptr64(self->host), self->va + SZ_2M + 64, 64,
			     NPU_CMD_DST_HOST),
	};
	struct npu_submit bad = { .size = sizeof(bad), .flags = 2,
				  .stream = self->stream, .count = 1,
				  .cmds = ptr64(cmds) };
	uint64_t seq = 0;

	memset(self->host, 0, 64);
	ASSERT_EQ(0, submit_wait(self->fd, self->stream, cmds, 3, &seq));
	EXPECT_EQ(3, seq);
	EXPECT_EQ(-1, npu_check_byte(self->host, 64, 0x3c));
	/* done already: a poll of the stream finds nothing left */
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 0));

	/* a fault is the call's error, once */
	npu_expect_dma_faults(true);
	cmds[0] = npu_copy_cmd(self->va + DEV_SIZE, self->va, 64, 0);
	EXPECT_EQ(-EIO, submit_wait(self->fd, self->stream, cmds, 1, NULL));
	npu_expect_dma_faults(false);
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 0));
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, &bad));
	EXPECT_EQ(-ENOENT, submit_wait(self->fd, 9999, cmds, 1, NULL));
}

/*
 * SUBMIT reads its commands from the caller's memory, an element at a
 * time: an array that runs into memory the process cannot read is
 * -EFAULT with nothing queued, whether an element lies wholly there or
 * only its tail does; an element need not be aligned; a longer element
 * must have a zero tail.
 */
TEST_F(strm, submit_reads_commands_from_user_memory)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const struct npu_cmd fill = npu_memset_cmd(self->va, 0x3c, 64, 0);
	const struct npu_cmd copy = npu_copy_cmd(ptr64(self->host), self->va,
						 64, NPU_CMD_DST_HOST);
	struct npu_cmd *cmds;
	uint64_t seq = 0, last;
	char *odd;

	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + pg, pg, PROT_NONE));
	ASSERT_EQ(0, submit_wait(self->fd, self->stream,
				 (struct npu_cmd *)&fill, 1, &last));

	/* the second element lies in the unreadable page */
	cmds = (struct npu_cmd *)(map + pg) - 1;
	cmds[0] = copy;
	memset(self->host, 0, 64);
	EXPECT_EQ(-EFAULT, submit_wait(self->fd, self->stream, cmds, 2, NULL));
	/* only the tail of the element does */
	cmds = (struct npu_cmd *)(map + pg - sizeof(*cmds) / 2);
	memcpy(cmds, &copy, sizeof(*cmds) / 2);
	EXPECT_EQ(-EFAULT, submit_wait(self->fd, self->stream, cmds, 1, NULL));
	EXPECT_EQ(-EFAULT, submit_wait(self->fd, self->stream, NULL, 1, NULL));
	EXPECT_EQ(-1, npu_check_byte(self->host, 64, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 0));

	/* an odd address: read all the same, and nothing above was queued */
	odd = map + 3;
	memcpy(odd, &copy, sizeof(copy));
	EXPECT_EQ(0, submit_wait(self->fd, self->stream,
				 (struct npu_cmd *)odd, 1, &seq));
	EXPECT_EQ(last + 1, seq);
	EXPECT_EQ(-1, npu_check_byte(self->host, 64, 0x3c));

	/* a longer element: its tail must be zero */
	{
		struct { struct npu_cmd cmd; uint64_t tail; } big = {
			.cmd = copy,
		};
		struct npu_submit s = {
			.size = sizeof(s), .flags = NPU_SUBMIT_WAIT,
			.stream = self->stream, .count = 1,
			.cmds = ptr64(&big), .cmd_size = sizeof(big),
		};

		memset(self->host, 0, 64);
		EXPECT_EQ(0, ioctl(self->fd, NPU_IOCTL_SUBMIT, &s) ? -errno : 0);
		EXPECT_EQ(-1, npu_check_byte(self->host, 64, 0x3c));
		big.tail = 1;
		EXPECT_EQ(-E2BIG, ioctl(self->fd, NPU_IOCTL_SUBMIT, &s) ? -errno : 0);
	}
	munmap(map, 2 * pg);
}

/* Voluntary context switches of the calling thread so far. */
static long thread_sleeps(void)
{
	return (long)npu_file_value_at(AT_FDCWD, "/proc/thread-self/status",
				       "voluntary_ctxt_switches", ':');
}

struct sync_call {
	int fd;
	uint32_t stream;
	int ret;
	long sleeps;
};

static void *sync_thread(void *arg)
{
	struct sync_call *c = arg;
	long before = thread_sleeps();

	c->ret = npu_sync(c->fd, c->stream, -1);
	c->sleeps = thread_sleeps() - before;
	return NULL;
}

/*
 * A STREAM_SYNC for the last of many commands sleeps until that one is
 * done: the commands before it complete one at a time, each waking the
 * stream's waiters, and none of those wake-ups gets the caller back onto
 * a CPU.
 */
TEST_F(strm, sync_sleeps_until_its_command_is_done)
{
	enum { STEPS = 16 };
	uint64_t *flag = self->host;
	struct npu_cmd cmds[STEPS];
	struct sync_call c = { .fd = self->fd, .stream = self->stream };
	pthread_t t;
	int i;

	*flag = 0;
	for (i = 0; i < STEPS; i++)
		cmds[i] = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(flag), i + 1,
					NPU_CMD_SRC_HOST | NPU_WAIT_GEQ);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, STEPS, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, sync_thread, &c));
	for (i = 1; i <= STEPS; i++) {
		usleep(20 * 1000);
		__atomic_store_n(flag, i, __ATOMIC_SEQ_CST);
	}
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, c.ret);
	TH_LOG("the waiter slept %ld times for %d completions", c.sleeps, STEPS);
	EXPECT_LE(0, c.sleeps);
	/* one sleep, and a little slack for the scheduler */
	EXPECT_GT(4, c.sleeps);
}

struct waiter_call {
	int fd;
	uint32_t stream;
	struct npu_cmd cmd;
	int ret;
	uint64_t end_ns;
};

static void *submit_wait_thread(void *arg)
{
	struct waiter_call *w = arg;

	w->ret = submit_wait(w->fd, w->stream, &w->cmd, 1, NULL);
	w->end_ns = mono_ns();
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * On a stream that is busy - a WAIT_VALUE at its head - the caller sleeps
 * until its command ran after it; a signal ends the sleep with -EINTR,
 * the command staying queued.
 */
TEST_F(strm, submit_wait_behind_other_work)
{
	uint64_t *flag = self->host;
	struct npu_cmd w = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(flag), 1,
					 NPU_CMD_SRC_HOST | NPU_WAIT_GEQ);
	struct waiter_call c = {
		.fd = self->fd, .stream = self->stream, .ret = 1,
		.cmd = npu_memset_cmd(self->va, 0x71, 64, 0),
	};
	struct sigaction sa = { .sa_handler = on_usr1 };
	uint64_t t_write;
	pthread_t t;

	*flag = 0;
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &w, 1, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, submit_wait_thread, &c));
	usleep(200000);
	EXPECT_EQ(1, __atomic_load_n(&c.ret, __ATOMIC_SEQ_CST));
	t_write = mono_ns();
	__atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, c.ret);
	EXPECT_LT(t_write, c.end_ns);

	/* interrupted: -EINTR, and the command still runs later */
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	*flag = 0;
	w.value = 2;
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &w, 1, NULL));
	c.ret = 1;
	c.cmd = npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(flag + 1), 0x99,
			      NPU_CMD_DST_HOST);
	flag[1] = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, submit_wait_thread, &c));
	usleep(200000);
	pthread_kill(t, SIGUSR1);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-EINTR, c.ret);
	EXPECT_EQ(0, flag[1]);
	__atomic_store_n(flag, 2, __ATOMIC_SEQ_CST);
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 10000));
	EXPECT_EQ(0x99, flag[1]);
}

struct signaller {
	pthread_t target;
	int stop;
};

/* Signal the target every 5 ms until told to stop. */
static void *signal_until_stopped(void *arg)
{
	struct signaller *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_SEQ_CST)) {
		usleep(5000);
		pthread_kill(s->target, SIGUSR1);
	}
	return NULL;
}

#define LONG_RUN_CMDS	128

/*
 * On an idle stream the caller runs its commands itself; a signal stops
 * that too: -EINTR at once, and the engine does the rest.
 */
TEST_F(strm, submit_wait_running_here_stops_for_a_signal)
{
	struct npu_cmd *cmds = calloc(LONG_RUN_CMDS + 1, sizeof(*cmds));
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct signaller sig = { .target = pthread_self() };
	uint64_t *flag = self->host;
	pthread_t t;
	int i, ret;

	ASSERT_NONNULL(cmds);
	/* 256 MiB of stores, then a mark the caller can look for */
	for (i = 0; i < LONG_RUN_CMDS; i++)
		cmds[i] = npu_memset_cmd(self->va + (i % 8) * SZ_2M, i, SZ_2M, 0);
	cmds[i] = npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(flag), 0x5a,
				NPU_CMD_DST_HOST);
	*flag = 0;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, signal_until_stopped, &sig));
	ret = submit_wait(self->fd, self->stream, cmds, LONG_RUN_CMDS + 1,
			  NULL);
	__atomic_store_n(&sig.stop, 1, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-EINTR, ret);
	EXPECT_EQ(0, __atomic_load_n(flag, __ATOMIC_SEQ_CST));
	/* the engine finishes what was queued */
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, 60000));
	EXPECT_EQ(0x5a, *flag);
	free(cmds);
}

/* ------------------------------------------------------------------ */
/* Fairness between users                                              */
/* ------------------------------------------------------------------ */

#define HOG_STREAMS	24
#define HOG_COPIES	128

/* HARNESS_TIMEOUT_SCALE (the debug kernel's slowness), at least 1. */
static double time_scale(void)
{
	const char *s = getenv("HARNESS_TIMEOUT_SCALE");

	return s && atof(s) > 1 ? atof(s) : 1;
}

/*
 * As another user (nobody, in the device's group): the worst of a few
 * submit-to-completion latencies of an 8-byte WRITE_VALUE, and how long
 * closing a context with one such command queued takes, in ms; -errno on
 * failure. Written to @wr as two doubles.
 */
static void other_user_main(int wr)
{
	double r[2] = { -1, -1 };
	uint32_t s, h;
	uint64_t va;
	int fd;

	if (setgroups(1, (gid_t[]){ NPU_GID }) || setgid(65534) || setuid(65534))
		_exit(2);
	fd = npu_open(0);
	if (fd < 0 || npu_stream_create(fd, &s) || npu_alloc(fd, SZ_2M, SZ_2M, &h))
		_exit(3);
	va = npu_reserve_new(fd, SZ_2M, SZ_2M);
	if (!va || npu_map(fd, va, SZ_2M, h) ||
	    npu_set_access(fd, va, SZ_2M, 0, NPU_ACCESS_READWRITE))
		_exit(4);
	r[0] = 0;
	for (int i = 0; i < 5; i++) {
		struct npu_cmd c = npu_value_cmd(NPU_OP_WRITE_VALUE, va, i, 0);
		uint64_t t0 = mono_ns();
		int ret = npu_submit(fd, s, &c, 1, NULL);

		if (!ret)
			ret = npu_sync(fd, s, 30000);
		if (ret) {
			r[0] = ret;
			break;
		}
		if ((mono_ns() - t0) / 1e6 > r[0])
			r[0] = (mono_ns() - t0) / 1e6;
		usleep(20000);
	}
	if (r[0] >= 0) {
		struct npu_cmd c = npu_value_cmd(NPU_OP_WRITE_VALUE, va, 9, 0);
		uint64_t t0 = mono_ns();

		if (npu_submit(fd, s, &c, 1, NULL))
			_exit(5);
		close(fd);
		r[1] = (mono_ns() - t0) / 1e6;
	}
	if (write(wr, r, sizeof(r)) != sizeof(r))
		_exit(6);
	_exit(0);
}

/*
 * One user's streams, kept fed with long copies, hold no channel of the
 * engine from another user (second kernel review, finding 2: a worker ran
 * its stream until the queue was empty, so a few fed streams held every
 * channel; another user's 8-byte write waited for all of them, and its
 * close waited in D state). Here HOG_STREAMS streams of this context each
 * queue HOG_COPIES 8 MiB copies (seconds of work); meanwhile nobody's
 * small commands complete, and its close returns, within a bound (idle:
 * a few ms).
 */
TEST_F_TIMEOUT(strm, another_users_command_is_not_starved, 240)
{
	double bound = 1500 * time_scale(), r[2];
	struct npu_cmd *cmds = calloc(HOG_COPIES, sizeof(*cmds));
	uint32_t hog[HOG_STREAMS];
	int pfd[2], status;
	uint64_t t0;
	pid_t pid;

	ASSERT_NONNULL(cmds);
	for (int i = 0; i < HOG_COPIES; i++)
		cmds[i] = npu_copy_cmd(self->va + DEV_SIZE / 2, self->va,
				       DEV_SIZE / 2, 0);
	for (int i = 0; i < HOG_STREAMS; i++) {
		ASSERT_EQ(0, npu_stream_create(self->fd, &hog[i]));
		ASSERT_EQ(0, npu_submit(self->fd, hog[i], cmds, HOG_COPIES, NULL));
	}
	/* every hog stream has started */
	usleep(200000);
	ASSERT_OK(pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pfd[0]);
		other_user_main(pfd[1]);
	}
	close(pfd[1]);
	ASSERT_EQ((ssize_t)sizeof(r), read(pfd[0], r, sizeof(r)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	TH_LOG("other user: worst command %.1f ms, close %.1f ms (bound %.0f ms)",
	       r[0], r[1], bound);
	EXPECT_LE(0, r[0]);
	EXPECT_GT(bound, r[0]);
	EXPECT_GT(bound, r[1]);
	/* the hog's work was still queued: it was kept fed all along */
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, hog[HOG_STREAMS - 1], 0));
	t0 = mono_ns();
	close(self->fd);
	self->fd = npu_open(0);
	TH_LOG("closing the hog took %.1f ms", (mono_ns() - t0) / 1e6);
	EXPECT_GT(bound, (mono_ns() - t0) / 1e6);
	free(cmds);
}

TEST_HARNESS_MAIN
