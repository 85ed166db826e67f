// SPDX-License-Identifier: GPL-2.0
/*
 * npu_kernel_test: kernel launches (NPU_OP_KERNEL, since 1.12) and the
 * executor's protocol on an aperture fd (APERTURE_KERNEL_WAIT and
 * APERTURE_KERNEL_DONE). The test is its own executor: it takes the jobs
 * (from the main thread, or from an executor thread that polls), checks
 * what it gets - the launch's fields, the argument blob, the stream and
 * seqno - and reports them done or faulted. Covered: stream order around
 * a launch, another stream going on meanwhile, faults and traps as
 * STREAM_SYNC reports them, timeouts, cancels (a FORCE destroy, a close)
 * of launches queued and taken and the late DONE, an aperture file
 * released while it holds a launch, a model's launch run twice, and the
 * bad input of the command and both ioctls.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_nl_util.h"
#include "npu_util.h"
#include "npu_proc.h"

#define HOST_SIZE	SZ_4K
#define BLOB_LEN	100

FIXTURE(kt) {
	int fd, afd;
	uint32_t s0, s1;
	uint8_t *host;		/* HOST_SIZE, registered read-write */
	uint64_t va;		/* 4 pages of device memory, read-write */
	uint8_t blob[BLOB_LEN];
	uint8_t buf[NPU_KERNEL_MAX_ARGS];
};

static int aperture_open(int fd, uint32_t flags)
{
	struct npu_aperture_open a = { .size = sizeof(a), .flags = NPU_APERTURE_CLOEXEC | flags };
	int ret = npu_ioctl(fd, NPU_IOCTL_APERTURE_OPEN, &a);

	return ret ? ret : a.fd;
}

FIXTURE_SETUP(kt)
{
	unsigned int i;

	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->s0));
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->s1));
	self->host = npu_host_mem(HOST_SIZE);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, HOST_SIZE, 0, 0));
	self->va = npu_map_new_rw(self->fd, 4 * SZ_4K, SZ_4K, 0);
	ASSERT_NE(0, self->va);
	self->afd = aperture_open(self->fd, 0);
	ASSERT_LE(0, self->afd);
	for (i = 0; i < BLOB_LEN; i++)
		self->blob[i] = (uint8_t)(i * 7 + 3);
}

FIXTURE_TEARDOWN(kt)
{
	npu_expect_dma_faults(false);
	close(self->afd);
	close(self->fd);
}

/* A launch of @blocks blocks with the blob @blob (@len bytes), args at @va. */
static struct npu_kernel kernel_of(const void *blob, uint32_t len, uint64_t va,
				   uint32_t blocks)
{
	return (struct npu_kernel){
		.func = 0x1234500000007ULL, .block_dim = blocks,
		.core_type = NPU_KERNEL_CORE_VECTOR, .args_len = len,
		.args = len ? ptr64(blob) : 0, .args_va = len ? va : 0,
	};
}

static struct npu_cmd kernel_cmd(const struct npu_kernel *k)
{
	return (struct npu_cmd){ .op = NPU_OP_KERNEL, .src = ptr64(k),
				 .value = sizeof(*k) };
}

static int submit_kernel(int fd, uint32_t stream, const struct npu_kernel *k,
			 uint64_t *seqno)
{
	struct npu_cmd c = kernel_cmd(k);

	return npu_submit(fd, stream, &c, 1, seqno);
}

/* WAIT into @w with @buf (@len bytes) for the blob. */
static int kwait_buf(int afd, struct npu_kernel_wait *w, void *buf, uint32_t len)
{
	*w = (struct npu_kernel_wait){ .size = sizeof(*w), .args_buf = ptr64(buf),
				       .args_buf_len = len };
	return npu_ioctl(afd, NPU_IOCTL_APERTURE_KERNEL_WAIT, w);
}

static int kwait(int afd, struct npu_kernel_wait *w, void *buf)
{
	return kwait_buf(afd, w, buf, NPU_KERNEL_MAX_ARGS);
}

/* WAIT that must not block: -EAGAIN when there is nothing. */
static int kwait_nb(int afd, struct npu_kernel_wait *w, void *buf)
{
	int fl = fcntl(afd, F_GETFL), ret;

	fcntl(afd, F_SETFL, fl | O_NONBLOCK);
	ret = kwait(afd, w, buf);
	fcntl(afd, F_SETFL, fl);
	return ret;
}

static int kdone(int afd, uint64_t job, uint32_t status, uint64_t addr,
		 uint32_t flags)
{
	struct npu_kernel_done d = { .size = sizeof(d), .status = status, .job = job,
				     .fault_addr = addr, .fault_flags = flags,
				     .busy_ns = 1000 };

	return npu_ioctl(afd, NPU_IOCTL_APERTURE_KERNEL_DONE, &d);
}

static int sync_out(int fd, uint32_t stream, int32_t timeout, struct npu_stream_sync *s)
{
	*s = (struct npu_stream_sync){ .size = sizeof(*s), .stream = stream,
				       .timeout_ms = timeout };
	return npu_ioctl(fd, NPU_IOCTL_STREAM_SYNC, s);
}

static uint64_t host_u64(const uint8_t *host, unsigned int off)
{
	uint64_t v;

	memcpy(&v, host + off, sizeof(v));
	return v;
}

/* The command after a launch waits for its DONE; the job says what was launched. */
TEST_F(kt, order_with_copy)
{
	struct npu_kernel k = kernel_of(self->blob, BLOB_LEN, self->va + 64, 8);
	struct npu_cmd c[3] = {
		npu_memset_cmd(self->va, 0x11, 64, 0),
		kernel_cmd(&k),
		npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(self->host), 42, NPU_CMD_DST_HOST),
	};
	struct npu_kernel_wait w, none;
	uint64_t seqno;

	k.dump_va = self->va + SZ_4K;
	k.dump_size = 256;
	k.overflow_va = self->va + 2 * SZ_4K;
	k.sat_mode = NPU_KERNEL_SAT_INFNAN;
	k.core_type = NPU_KERNEL_CORE_MIX;
	memset(self->host, 0, HOST_SIZE);
	ASSERT_EQ(0, npu_submit(self->fd, self->s0, c, 3, &seqno));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	EXPECT_EQ(NPU_KERNEL_EVENT_RUN, w.event);
	EXPECT_NE(0, w.job);
	EXPECT_EQ(k.func, w.func);
	EXPECT_EQ(8, w.block_dim);
	EXPECT_EQ(NPU_KERNEL_CORE_MIX, w.core_type);
	EXPECT_EQ(0, w.kernel_flags);
	EXPECT_EQ(BLOB_LEN, w.args_len);
	EXPECT_EQ(self->va + 64, w.args_va);
	EXPECT_EQ(self->va + SZ_4K, w.dump_va);
	EXPECT_EQ(256, w.dump_size);
	EXPECT_EQ(NPU_KERNEL_SAT_INFNAN, w.sat_mode);
	EXPECT_EQ(self->va + 2 * SZ_4K, w.overflow_va);
	EXPECT_EQ(self->s0, w.stream);
	EXPECT_EQ(seqno - 1, w.seqno);
	EXPECT_EQ(0, memcmp(self->buf, self->blob, BLOB_LEN));
	/* the stream waits for the launch: the write after it has not run */
	usleep(50 * 1000);
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->s0, 0));
	EXPECT_EQ(0, host_u64(self->host, 0));
	/* nothing else is queued */
	EXPECT_EQ(-EAGAIN, kwait_nb(self->afd, &none, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
	EXPECT_EQ(42, host_u64(self->host, 0));
	/* over: a second DONE knows no such job */
	EXPECT_EQ(-ENOENT, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	/* fdinfo counts the launch and the core time DONE reported */
	{
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->fd);
		EXPECT_EQ(1, npu_file_value_at(AT_FDCWD, path, "npu-kernel-launches", ':'));
		EXPECT_EQ(1000, npu_file_value_at(AT_FDCWD, path, "npu-aicore-busy-ns", ':'));
	}
}

/* A parked stream holds up no other stream of the context. */
TEST_F(kt, other_stream_goes_on)
{
	struct npu_kernel k = kernel_of(self->blob, BLOB_LEN, self->va, 1);
	struct npu_kernel_wait w;
	struct pollfd p = { .fd = self->afd, .events = POLLIN };

	EXPECT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, NULL));
	EXPECT_EQ(1, poll(&p, 1, 5000));
	EXPECT_TRUE(p.revents & POLLIN);
	/* queued, not taken: s1's copy runs */
	memset(self->host, 0x5a, 64);
	EXPECT_EQ(0, npu_run(self->fd, self->s1, npu_copy_cmd(self->va + SZ_4K,
							      ptr64(self->host), 64,
							      NPU_CMD_SRC_HOST)));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	/* taken: s1 still runs */
	EXPECT_EQ(0, npu_dev_read(self->fd, self->s1, self->va + SZ_4K, self->host, 0, 64));
	EXPECT_EQ(-1, npu_check_byte(self->host, 64, 0x5a));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->s0, 0));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
}

/* A fault DONE reports is STREAM_SYNC's -EIO, with NPU_FAULT_AICORE. */
TEST_F(kt, fault_and_trap)
{
	static const struct {
		uint32_t flags;
		int err;
	} c[] = {
		{ 0, -EIO },
		{ NPU_FAULT_WRITE, -EIO },
		{ NPU_FAULT_TRAP, -EIO },
		{ NPU_FAULT_UCE, -EHWPOISON },
	};
	struct npu_kernel k = kernel_of(NULL, 0, 0, 2);
	struct npu_kernel_wait w;
	struct npu_stream_sync s;
	uint64_t seqno;
	unsigned int i;

	npu_expect_dma_faults(true);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t addr = c[i].flags == NPU_FAULT_TRAP ? 0 : self->va + 0x100 * i;

		ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, &seqno));
		ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
		EXPECT_EQ(0, w.args_len);
		ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_FAULT, addr,
				   c[i].flags));
		EXPECT_EQ(c[i].err, sync_out(self->fd, self->s0, 5000, &s));
		EXPECT_EQ(seqno, s.error_seqno);
		EXPECT_EQ(addr, s.fault_addr);
		EXPECT_EQ(c[i].flags | NPU_FAULT_AICORE, s.fault_flags);
		EXPECT_EQ(gettid(), (pid_t)s.error_tid);
		/* no model run: no step */
		EXPECT_EQ(0, s.error_step);
		/* reported once; the stream goes on */
		EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
	}
	/* STOP_ON_FAULT: what comes after the faulted launch is dropped */
	{
		struct npu_stream_mode m = { .size = sizeof(m), .stream = self->s1,
					     .mode = NPU_STREAM_STOP_ON_FAULT };
		struct npu_cmd cmds[2] = {
			kernel_cmd(&k),
			npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(self->host), 9,
				      NPU_CMD_DST_HOST),
		};

		memset(self->host, 0, 8);
		ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SET_MODE, &m));
		ASSERT_EQ(0, npu_submit(self->fd, self->s1, cmds, 2, &seqno));
		ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
		ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_FAULT,
				   self->va, 0));
		EXPECT_EQ(-EIO, sync_out(self->fd, self->s1, 5000, &s));
		EXPECT_EQ(seqno - 1, s.error_seqno);
		EXPECT_EQ(-ECANCELED, npu_sync(self->fd, self->s1, 5000));
		EXPECT_EQ(0, host_u64(self->host, 0));
	}
}

/* A launch not DONE within its timeout is -ETIME; a taken one is cancelled. */
TEST_F(kt, timeout)
{
	struct npu_kernel k = kernel_of(self->blob, 8, self->va, 1);
	struct npu_kernel_wait w, c;
	struct npu_stream_sync s;
	uint64_t seqno;

	k.timeout_ms = 100;
	/* never taken */
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, &seqno));
	EXPECT_EQ(-ETIME, sync_out(self->fd, self->s0, 10000, &s));
	EXPECT_EQ(seqno, s.error_seqno);
	EXPECT_EQ(0, s.fault_flags);
	/* dropped from the queue: nothing to take */
	EXPECT_EQ(-EAGAIN, kwait_nb(self->afd, &w, self->buf));
	/* taken, not reported in time: a cancel event, and DONE is late */
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, &seqno));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	EXPECT_EQ(NPU_KERNEL_EVENT_RUN, w.event);
	EXPECT_EQ(-ETIME, sync_out(self->fd, self->s0, 10000, &s));
	EXPECT_EQ(seqno, s.error_seqno);
	ASSERT_EQ(0, kwait(self->afd, &c, self->buf));
	EXPECT_EQ(NPU_KERNEL_EVENT_CANCEL, c.event);
	EXPECT_EQ(w.job, c.job);
	EXPECT_EQ(0, c.func);
	EXPECT_EQ(-ECANCELED, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(-ENOENT, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	/* DONE in time wins */
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, NULL));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
}

/* FORCE destroy: the queued launch is dropped, the taken one cancelled. */
TEST_F(kt, destroy_cancels)
{
	struct npu_kernel k = kernel_of(self->blob, BLOB_LEN, self->va, 4);
	struct npu_kernel_wait w, c;

	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, NULL));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, submit_kernel(self->fd, self->s1, &k, NULL));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, self->s1, NPU_STREAM_DESTROY_FORCE));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, self->s0, NPU_STREAM_DESTROY_FORCE));
	ASSERT_EQ(0, kwait(self->afd, &c, self->buf));
	EXPECT_EQ(NPU_KERNEL_EVENT_CANCEL, c.event);
	EXPECT_EQ(w.job, c.job);
	/* s1's never reached the executor */
	EXPECT_EQ(-EAGAIN, kwait_nb(self->afd, &c, self->buf));
	EXPECT_EQ(-ECANCELED, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(-ENOENT, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(-ENOENT, kdone(self->afd, w.job + 100, NPU_KERNEL_STATUS_OK, 0, 0));
}

/* Closing the context: its launches cancelled, then WAIT says -EPIPE. */
TEST_F(kt, close_cancels)
{
	struct npu_kernel k = kernel_of(self->blob, BLOB_LEN, self->va, 4);
	struct npu_kernel_wait w, c;
	struct pollfd p;

	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, NULL));
	ASSERT_EQ(0, submit_kernel(self->fd, self->s1, &k, NULL));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, kwait(self->afd, &c, self->buf));
	EXPECT_EQ(NPU_KERNEL_EVENT_CANCEL, c.event);
	EXPECT_EQ(w.job, c.job);
	EXPECT_EQ(-EPIPE, kwait(self->afd, &c, self->buf));
	p = (struct pollfd){ .fd = self->afd, .events = POLLIN };
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_TRUE(p.revents & POLLHUP);
	EXPECT_EQ(-ECANCELED, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
}

/*
 * An aperture file released with a launch taken fails it: no stream waits
 * for good. Files opened for an executor (NPU_APERTURE_EXECUTOR) say
 * more: with the last of them gone, launches fail at once until another
 * is opened.
 */
TEST_F(kt, executor_gone)
{
	struct npu_kernel k = kernel_of(self->blob, BLOB_LEN, self->va, 1);
	struct npu_kernel_wait w;
	struct npu_stream_sync s;
	uint64_t seqno;
	int afd2 = aperture_open(self->fd, 0);
	pid_t pid;
	int st, p[2];
	char ch;

	ASSERT_LE(0, afd2);
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, &seqno));
	ASSERT_EQ(0, kwait(afd2, &w, self->buf));
	close(afd2);
	EXPECT_EQ(-EIO, sync_out(self->fd, self->s0, 5000, &s));
	EXPECT_EQ(seqno, s.error_seqno);
	EXPECT_EQ(0, s.fault_addr);
	EXPECT_EQ(NPU_FAULT_AICORE, s.fault_flags);
	/* another file could not report it either */
	EXPECT_EQ(-ENOENT, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));

	/* without NPU_APERTURE_EXECUTOR nothing more: the next launch waits for a taker */
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, &seqno));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->s0, 50));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));

	/*
	 * An executor process killed while it holds a launch, its file
	 * opened for an executor (the launch is submitted before the
	 * child's first WAIT: it queues for it).
	 */
	afd2 = aperture_open(self->fd, NPU_APERTURE_EXECUTOR);
	ASSERT_LE(0, afd2);
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, &seqno));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct npu_kernel_wait cw;
		static uint8_t cbuf[NPU_KERNEL_MAX_ARGS];

		close(self->afd);
		if (kwait(afd2, &cw, cbuf) || write(p[1], "t", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(afd2);
	close(p[1]);
	/* taken by the child: the stream waits until the child dies */
	ASSERT_EQ(1, read(p[0], &ch, 1));
	close(p[0]);
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->s0, 50));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	EXPECT_EQ(-EIO, sync_out(self->fd, self->s0, 5000, &s));
	EXPECT_EQ(seqno, s.error_seqno);
	EXPECT_EQ(NPU_FAULT_AICORE, s.fault_flags);
	/* the last executor is gone: a launch fails at once... */
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, &seqno));
	EXPECT_EQ(-EIO, sync_out(self->fd, self->s0, 50, &s));
	EXPECT_EQ(seqno, s.error_seqno);
	EXPECT_EQ(NPU_FAULT_AICORE, s.fault_flags);
	/* ...until another is opened, for which it queues */
	afd2 = aperture_open(self->fd, NPU_APERTURE_EXECUTOR);
	ASSERT_LE(0, afd2);
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, &seqno));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->s0, 50));
	ASSERT_EQ(0, kwait(afd2, &w, self->buf));
	ASSERT_EQ(0, kdone(afd2, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
	close(afd2);
}

/* ---- a model's launch, with an executor thread --------------------------- */

struct executor {
	int afd;
	volatile int stop;
	int jobs, bad;
	uint64_t seqno[4];
	const uint8_t *blob;
	uint8_t buf[NPU_KERNEL_MAX_ARGS];
};

static void *executor_main(void *arg)
{
	struct executor *e = arg;

	while (!e->stop) {
		struct pollfd p = { .fd = e->afd, .events = POLLIN };
		struct npu_kernel_wait w;

		if (poll(&p, 1, 20) <= 0)
			continue;
		if (kwait(e->afd, &w, e->buf) || w.event != NPU_KERNEL_EVENT_RUN ||
		    w.args_len != BLOB_LEN || memcmp(e->buf, e->blob, BLOB_LEN)) {
			e->bad++;
			continue;
		}
		if (e->jobs < 4)
			e->seqno[e->jobs] = w.seqno;
		e->jobs++;
		if (kdone(e->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0))
			e->bad++;
	}
	return NULL;
}

TEST_F(kt, model_runs_twice)
{
	struct npu_kernel k = kernel_of(self->blob, BLOB_LEN, self->va, 2);
	struct npu_cmd steps[3] = {
		npu_memset_cmd(self->va + SZ_4K, 0x22, 16, 0),
		kernel_cmd(&k),
		npu_copy_cmd(ptr64(self->host), self->va + SZ_4K, 16, NPU_CMD_DST_HOST),
	};
	struct npu_model_create mc = { .size = sizeof(mc), .count = 3,
				       .cmd_size = sizeof(steps[0]), .cmds = ptr64(steps) };
	struct npu_cmd run;
	struct executor *e = calloc(1, sizeof(*e));
	pthread_t t;
	uint64_t s1, s2;

	ASSERT_NONNULL(e);
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MODEL_CREATE, &mc));
	/* read at MODEL_CREATE: the caller's blob may change */
	memset(&k, 0, sizeof(k));
	e->afd = self->afd;
	e->blob = self->blob;
	ASSERT_EQ(0, pthread_create(&t, NULL, executor_main, e));
	run = (struct npu_cmd){ .op = NPU_OP_MODEL, .src = mc.model };
	memset(self->host, 0, 16);
	ASSERT_EQ(0, npu_submit(self->fd, self->s0, &run, 1, &s1));
	ASSERT_EQ(0, npu_submit(self->fd, self->s0, &run, 1, &s2));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 10000));
	e->stop = 1;
	pthread_join(t, NULL);
	EXPECT_EQ(2, e->jobs);
	EXPECT_EQ(0, e->bad);
	EXPECT_EQ(s1, e->seqno[0]);
	EXPECT_EQ(s2, e->seqno[1]);
	EXPECT_EQ(-1, npu_check_byte(self->host, 16, 0x22));
	free(e);
}

/*
 * A model's kernel that faults: STREAM_SYNC names the run and, with
 * @error_step, the step of the model that faulted (from 1); the run ends
 * there, and a run whose first step faults names step 1.
 */
TEST_F(kt, model_fault_names_step)
{
	struct npu_kernel k = kernel_of(NULL, 0, 0, 1);
	struct npu_cmd steps[4] = {
		npu_memset_cmd(self->va + SZ_4K, 0x22, 16, 0),
		kernel_cmd(&k),
		kernel_cmd(&k),
		npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(self->host), 9, NPU_CMD_DST_HOST),
	};
	struct npu_model_create mc = { .size = sizeof(mc), .count = 4,
				       .cmd_size = sizeof(steps[0]), .cmds = ptr64(steps) };
	struct npu_model_create mc1 = { .size = sizeof(mc1), .count = 2,
					.cmd_size = sizeof(steps[0]), .cmds = ptr64(&steps[1]) };
	struct npu_kernel_wait w;
	struct npu_stream_sync s;
	struct npu_cmd run;
	uint64_t seqno;

	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MODEL_CREATE, &mc));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MODEL_CREATE, &mc1));
	memset(self->host, 0, 8);
	npu_expect_dma_faults(true);
	run = (struct npu_cmd){ .op = NPU_OP_MODEL, .src = mc.model };
	ASSERT_EQ(0, npu_submit(self->fd, self->s0, &run, 1, &seqno));
	/* step 2 runs, step 3 faults */
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	EXPECT_EQ(seqno, w.seqno);
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_FAULT, self->va, NPU_FAULT_WRITE));
	EXPECT_EQ(-EIO, sync_out(self->fd, self->s0, 5000, &s));
	EXPECT_EQ(seqno, s.error_seqno);
	EXPECT_EQ(3, s.error_step);
	EXPECT_EQ(NPU_FAULT_AICORE | NPU_FAULT_WRITE, s.fault_flags);
	EXPECT_EQ(0, s.__reserved);
	/* the run ended at the fault */
	EXPECT_EQ(0, host_u64(self->host, 0));
	/* a fault of the first step */
	run.src = mc1.model;
	ASSERT_EQ(0, npu_submit(self->fd, self->s0, &run, 1, &seqno));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_FAULT, 0, NPU_FAULT_TRAP));
	EXPECT_EQ(-EIO, sync_out(self->fd, self->s0, 5000, &s));
	EXPECT_EQ(seqno, s.error_seqno);
	EXPECT_EQ(1, s.error_step);
	npu_expect_dma_faults(false);
	/* the model ran to its end: nothing to name */
	run.src = mc.model;
	ASSERT_EQ(0, npu_submit(self->fd, self->s0, &run, 1, &seqno));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, sync_out(self->fd, self->s0, 5000, &s));
	EXPECT_EQ(0, s.error_step);
	EXPECT_EQ(9, host_u64(self->host, 0));
}

/* ---- bad input ---------------------------------------------------------- */

TEST_F(kt, submit_refused)
{
	struct npu_kernel ok = kernel_of(self->blob, BLOB_LEN, self->va, 1), k;
	struct npu_cmd c;
	uint8_t big[sizeof(ok) + 8] = { 0 };
	struct npu_model_create mc = { .size = sizeof(mc), .count = 1,
				       .cmd_size = sizeof(c), .cmds = ptr64(&c) };
	int r;

#define REFUSED(err, field, val) do {						\
		k = ok;								\
		k.field = (val);						\
		r = submit_kernel(self->fd, self->s0, &k, NULL);		\
		if (r != (err))							\
			TH_LOG(#field " = " #val);				\
		EXPECT_EQ(err, r);						\
	} while (0)
	REFUSED(-EINVAL, __reserved, 1);
	REFUSED(-EINVAL, flags, 2);
	REFUSED(-EINVAL, block_dim, 0);
	REFUSED(-EINVAL, block_dim, NPU_KERNEL_MAX_BLOCKS + 1);
	REFUSED(-EINVAL, core_type, 3);
	REFUSED(-EINVAL, sat_mode, 2);
	REFUSED(-EINVAL, args_len, NPU_KERNEL_MAX_ARGS + 1);
	REFUSED(-EINVAL, args, 0);
	REFUSED(-EINVAL, args_va, 0);
	REFUSED(-EINVAL, args_va, self->va + 4);
	REFUSED(-EINVAL, args_va, ~0ULL - 8 - 7);
	REFUSED(-EINVAL, flags, NPU_KERNEL_ARGS_DEVICE);	/* with @args */
	REFUSED(-EINVAL, dump_size, 64);
	REFUSED(-EINVAL, dump_va, self->va);
	REFUSED(-EFAULT, args, ptr64(npu_unmapped_range(SZ_4K)));
	k = ok;
	k.args_len = 0;		/* @args without a blob */
	EXPECT_EQ(-EINVAL, submit_kernel(self->fd, self->s0, &k, NULL));
	k = ok;
	k.dump_va = ~0ULL - 100;
	k.dump_size = 4096;
	EXPECT_EQ(-EINVAL, submit_kernel(self->fd, self->s0, &k, NULL));

	/* the command's own fields */
	c = kernel_cmd(&ok);
	c.flags = NPU_CMD_DST_HOST;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->s0, &c, 1, NULL));
	c = kernel_cmd(&ok);
	c.dst = 8;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->s0, &c, 1, NULL));
	c = kernel_cmd(&ok);
	c.length = 1;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->s0, &c, 1, NULL));
	c = kernel_cmd(&ok);
	c.value = NPU_KERNEL_SIZE_V1 - 8;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->s0, &c, 1, NULL));
	c.value = 8192;
	EXPECT_EQ(-E2BIG, npu_submit(self->fd, self->s0, &c, 1, NULL));
	memcpy(big, &ok, sizeof(ok));
	big[sizeof(ok)] = 1;
	c = (struct npu_cmd){ .op = NPU_OP_KERNEL, .src = ptr64(big), .value = sizeof(big) };
	EXPECT_EQ(-E2BIG, npu_submit(self->fd, self->s0, &c, 1, NULL));
	big[sizeof(ok)] = 0;
	c.src = ptr64(npu_unmapped_range(SZ_4K));
	EXPECT_EQ(-EFAULT, npu_submit(self->fd, self->s0, &c, 1, NULL));
	/* a longer struct with a zero tail, and ARGS_DEVICE, are fine */
	memcpy(big, &ok, sizeof(ok));
	c = (struct npu_cmd){ .op = NPU_OP_KERNEL, .src = ptr64(big), .value = sizeof(big) };
	EXPECT_EQ(0, npu_submit(self->fd, self->s0, &c, 1, NULL));
	/* a model refuses what SUBMIT refuses */
	k = ok;
	k.block_dim = 0;
	c = kernel_cmd(&k);
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MODEL_CREATE, &mc));
	/* nothing refused was queued: only the good one */
	{
		struct npu_kernel_wait w, none;

		ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
		EXPECT_EQ(BLOB_LEN, w.args_len);
		EXPECT_EQ(-EAGAIN, kwait_nb(self->afd, &none, self->buf));
		EXPECT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
		EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
	}
}

TEST_F(kt, ioctls_refused)
{
	struct npu_kernel k = kernel_of(self->blob, BLOB_LEN, self->va, 1);
	struct npu_kernel_wait w;
	struct npu_kernel_done d;
	uint64_t job;
	int r;

	/* the aperture's ioctls are the aperture's; the device's are the device's */
	EXPECT_EQ(-ENOTTY, kwait(self->fd, &w, self->buf));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->afd, NPU_IOCTL_GET_INFO, &w));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->afd,
				     _IO(NPU_TYPE, NPU_CMD_APERTURE_KERNEL_DONE + 1), &w));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->afd, _IOWR(NPU_TYPE, NPU_CMD_APERTURE_KERNEL_WAIT,
						      struct npu_kernel_wait), &w));
	/* WAIT's own */
	w = (struct npu_kernel_wait){ .size = sizeof(w), .flags = 1 };
	EXPECT_EQ(-EINVAL, npu_ioctl(self->afd, NPU_IOCTL_APERTURE_KERNEL_WAIT, &w));
	w = (struct npu_kernel_wait){ .size = sizeof(w) - 8 };
	EXPECT_EQ(-EINVAL, npu_ioctl(self->afd, NPU_IOCTL_APERTURE_KERNEL_WAIT, &w));
	w = (struct npu_kernel_wait){ .size = 8192 };
	EXPECT_EQ(-E2BIG, npu_ioctl(self->afd, NPU_IOCTL_APERTURE_KERNEL_WAIT, &w));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->afd, NPU_IOCTL_APERTURE_KERNEL_WAIT, NULL));
	/* a blob longer than the buffer, or a buffer that cannot be written: not taken */
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, NULL));
	EXPECT_EQ(-ENOSPC, kwait_buf(self->afd, &w, self->buf, BLOB_LEN - 1));
	EXPECT_EQ(-EFAULT, kwait_buf(self->afd, &w, npu_unmapped_range(SZ_4K), SZ_4K));
	ASSERT_EQ(0, kwait_buf(self->afd, &w, self->buf, BLOB_LEN));
	EXPECT_EQ(0, memcmp(self->buf, self->blob, BLOB_LEN));
	job = w.job;
	/* DONE's own */
#define DONE_REFUSED(field, val) do {						\
		d = (struct npu_kernel_done){ .size = sizeof(d), .job = job,	\
					      .status = NPU_KERNEL_STATUS_FAULT }; \
		d.field = (val);						\
		r = npu_ioctl(self->afd, NPU_IOCTL_APERTURE_KERNEL_DONE, &d);	\
		if (r != -EINVAL)						\
			TH_LOG(#field " = " #val);				\
		EXPECT_EQ(-EINVAL, r);						\
	} while (0)
	DONE_REFUSED(status, 2);
	DONE_REFUSED(fault_flags, NPU_FAULT_HOST);
	DONE_REFUSED(fault_flags, NPU_FAULT_AICORE);
	DONE_REFUSED(fault_flags, 1U << 10);
	DONE_REFUSED(__reserved, 1);
	d = (struct npu_kernel_done){ .size = sizeof(d), .job = job, .fault_addr = 8 };
	EXPECT_EQ(-EINVAL, npu_ioctl(self->afd, NPU_IOCTL_APERTURE_KERNEL_DONE, &d));
	d = (struct npu_kernel_done){ .size = sizeof(d), .job = job,
				      .fault_flags = NPU_FAULT_WRITE };
	EXPECT_EQ(-EINVAL, npu_ioctl(self->afd, NPU_IOCTL_APERTURE_KERNEL_DONE, &d));
	d = (struct npu_kernel_done){ .size = 16, .job = job };
	EXPECT_EQ(-EINVAL, npu_ioctl(self->afd, NPU_IOCTL_APERTURE_KERNEL_DONE, &d));
	/* refused DONEs left the launch running */
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, self->s0, 0));
	EXPECT_EQ(0, kdone(self->afd, job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
}

/* max_kernel_args caps the blobs a context holds: SUBMIT's -ENOMEM past it. */
TEST_F(kt, args_cap)
{
	struct npu_kernel k = kernel_of(self->blob, BLOB_LEN, self->va, 1), km = k;
	long long old = npu_param_get("max_kernel_args");
	struct npu_kernel_wait w;
	uint32_t model;
	struct npu_cmd c = kernel_cmd(&km);
	struct npu_model_create mc = { .size = sizeof(mc), .count = 1,
				       .cmd_size = sizeof(c), .cmds = ptr64(&c) };

	ASSERT_LT(0, old);
	ASSERT_EQ(0, npu_param_set("max_kernel_args", BLOB_LEN + BLOB_LEN / 2));
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, NULL));
	EXPECT_EQ(-ENOMEM, submit_kernel(self->fd, self->s1, &k, NULL));
	EXPECT_EQ(-ENOMEM, npu_ioctl(self->fd, NPU_IOCTL_MODEL_CREATE, &mc));
	/* a launch without a blob holds none */
	k.args_len = 0;
	k.args = 0;
	k.args_va = 0;
	EXPECT_EQ(0, submit_kernel(self->fd, self->s1, &k, NULL));
	/* the first one's completion gives its bytes back (either may come first) */
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	ASSERT_EQ(0, npu_sync(self->fd, self->s0, 5000));
	ASSERT_EQ(0, npu_sync(self->fd, self->s1, 5000));
	EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MODEL_CREATE, &mc));
	model = mc.model;
	/* the model holds its blob */
	k = kernel_of(self->blob, BLOB_LEN, self->va, 1);
	EXPECT_EQ(-ENOMEM, submit_kernel(self->fd, self->s0, &k, NULL));
	{
		struct npu_model_destroy d = { .size = sizeof(d), .model = model };

		EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MODEL_DESTROY, &d));
	}
	EXPECT_EQ(0, submit_kernel(self->fd, self->s0, &k, NULL));
	EXPECT_EQ(0, npu_param_set("max_kernel_args", old));
	ASSERT_EQ(0, kwait(self->afd, &w, self->buf));
	ASSERT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
}

/* ARGS_DEVICE: the blob is in device memory already; nothing is copied. */
TEST_F(kt, args_device)
{
	struct npu_kernel k = kernel_of(NULL, 0, 0, 3);
	struct npu_kernel_wait w;

	k.flags = NPU_KERNEL_ARGS_DEVICE;
	k.args_len = 512;
	k.args_va = self->va + 128;
	ASSERT_EQ(0, submit_kernel(self->fd, self->s0, &k, NULL));
	memset(self->buf, 0xcc, 16);
	ASSERT_EQ(0, kwait_buf(self->afd, &w, self->buf, 0));
	EXPECT_EQ(NPU_KERNEL_ARGS_DEVICE, w.kernel_flags);
	EXPECT_EQ(512, w.args_len);
	EXPECT_EQ(self->va + 128, w.args_va);
	EXPECT_EQ(-1, npu_check_byte(self->buf, 16, 0xcc));
	EXPECT_EQ(0, kdone(self->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_sync(self->fd, self->s0, 5000));
}

/* A reset ends a WAIT that sleeps; the executor then hears -ESTALE. */
struct waiter {
	int afd, ret;
	struct npu_kernel_wait w;
	uint8_t buf[NPU_KERNEL_MAX_ARGS];
};

static void *waiter_main(void *arg)
{
	struct waiter *t = arg;

	t->ret = kwait(t->afd, &t->w, t->buf);
	return NULL;
}

TEST_F(kt, reset_ends_wait)
{
	struct waiter *t = calloc(1, sizeof(*t));
	pthread_t th;

	ASSERT_NONNULL(t);
	t->afd = self->afd;
	t->ret = 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, waiter_main, t));
	usleep(100 * 1000);
	EXPECT_EQ(1, t->ret);	/* asleep */
	ASSERT_EQ(0, npu_reset_device(0));
	pthread_join(th, NULL);
	EXPECT_EQ(-ESTALE, t->ret);
	EXPECT_EQ(-ESTALE, kdone(self->afd, 1, NPU_KERNEL_STATUS_OK, 0, 0));
	EXPECT_EQ(0, npu_reset_wait(0, 10000));
	free(t);
}

TEST_HARNESS_MAIN
