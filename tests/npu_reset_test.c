// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_reset_test.c - a device reset (netlink NPU_NL_CMD_DEVICE_RESET,
 * `npu-smi set -t reset -i N`; DOC: npu device reset in uapi/npu.h):
 *
 * - only CAP_SYS_ADMIN resets, a device that does not exist is -ENODEV,
 *   a reset under way makes a second one -EBUSY;
 * - with a stream busy with large copies, a wait blocked on it and a
 *   second context in another process blocked on its own wait: the waits
 *   end with -ESTALE, every later ioctl of both is -ESTALE, their pins go
 *   at once, their device memory stays charged until close and reads as
 *   zero (through a dma-buf exported before), no DMA runs after the
 *   reset; events mark its beginning and end; opens wait for the end;
 *   closing everything leaves nothing behind; a fresh context copies
 *   correctly;
 * - npu-smi's `set -t reset` in the vendor's words and exit codes, and
 *   the health npu-smi and libdcmi show while the reset is under way.
 */
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"
#include "npu_mod_util.h"
#include "npu_nl_util.h"
#include "npu_smi_util.h"
#include "npu_util.h"

#define NOBODY	65534

/* The copies a busy stream has queued when the reset comes. */
#define BIG	(64 * SZ_1M)
#define NCOPY	64

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* What DEVICE_GET says of device 0. */
struct dev_state {
	bool resetting;
	uint32_t resets, contexts;
	uint64_t mem_used;
};

static void dev_state_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct dev_state *d = arg;

	nl_parse(nh, tb, NPU_NL_A_MAX);
	d->resetting = tb[NPU_NL_A_DEV_RESETTING] != NULL;
	d->resets = nl_u32(tb[NPU_NL_A_DEV_RESETS]);
	d->contexts = nl_u32(tb[NPU_NL_A_DEV_CONTEXTS]);
	d->mem_used = nl_u64(tb[NPU_NL_A_DEV_MEM_USED]);
}

static int dev_state(struct nl_sock_t *s, struct dev_state *d)
{
	struct nl_req r;

	memset(d, 0, sizeof(*d));
	nl_req_init(&r, s->family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 0);
	return nl_talk(s, &r, dev_state_cb, d);
}

/* The contexts of one process on device 0, as PROCESS_GET lists them. */
struct proc_state {
	pid_t pid;
	int contexts, lost;
	uint64_t pinned, mem;
};

static void proc_state_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct proc_state *p = arg;

	nl_parse(nh, tb, NPU_NL_A_MAX);
	if (nl_u32(tb[NPU_NL_A_DEV_INDEX]) || (pid_t)nl_u32(tb[NPU_NL_A_PROC_PID]) != p->pid)
		return;
	p->contexts++;
	p->lost += tb[NPU_NL_A_PROC_LOST] != NULL;
	p->pinned += nl_u64(tb[NPU_NL_A_PROC_HOST_PINNED]);
	p->mem += nl_u64(tb[NPU_NL_A_PROC_MEM_DEVICE]);
}

static int proc_state(struct nl_sock_t *s, pid_t pid, struct proc_state *p)
{
	struct nl_req r;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	nl_req_init(&r, s->family, NPU_NL_CMD_PROCESS_GET, NLM_F_DUMP);
	return nl_talk(s, &r, proc_state_cb, p);
}

struct reset_ev {
	uint8_t phase;
	uint32_t dev, contexts, resets;
};

/* The next reset event on @s (joined to "faults"): 0 or -errno. */
static int recv_reset(struct nl_sock_t *s, struct reset_ev *ev)
{
	static char buf[8192];
	const struct nlattr *tb[NPU_NL_A_MAX + 1];

	for (;;) {
		ssize_t n = recv(s->fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;

		if (n < 0)
			return -errno;
		if (!NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type != s->family ||
		    ((struct genlmsghdr *)NLMSG_DATA(nh))->cmd != NPU_NL_CMD_DEVICE_RESET)
			continue;
		nl_parse(nh, tb, NPU_NL_A_MAX);
		ev->dev = nl_u32(tb[NPU_NL_A_DEV_INDEX]);
		ev->phase = tb[NPU_NL_A_RESET_PHASE] ?
			    *(const uint8_t *)nl_data(tb[NPU_NL_A_RESET_PHASE]) : 0xff;
		ev->contexts = nl_u32(tb[NPU_NL_A_RESET_CONTEXTS]);
		ev->resets = nl_u32(tb[NPU_NL_A_DEV_RESETS]);
		return 0;
	}
}

static int nl_join_faults(struct nl_sock_t *s)
{
	int ret = nl_open(s);

	if (ret)
		return ret;
	if (setsockopt(s->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
		       &s->faults_group, sizeof(s->faults_group)))
		return -errno;
	return 0;
}

/* DEVICE_RESET with @attrs set by the caller: the kernel's answer. */
static int reset_req(struct nl_sock_t *s, struct nl_req *r)
{
	return nl_talk(s, r, NULL, NULL);
}

/*
 * Only CAP_SYS_ADMIN resets: an unprivileged caller is -EPERM and resets
 * nothing. A missing index, a device that does not exist and an attribute
 * the command does not take are refused with a message.
 */
TEST(admin_only_and_bad_requests)
{
	struct dev_state before, after;
	struct nl_sock_t s;
	struct nl_req r;
	int status, fd;
	pid_t pid;

	ASSERT_EQ(0, nl_open(&s));
	ASSERT_EQ(0, dev_state(&s, &before));
	fd = npu_open(0);
	ASSERT_LE(0, fd);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nl_sock_t u;
		struct nl_req ur;

		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY) || nl_open(&u))
			_exit(10);
		nl_req_init(&ur, u.family, NPU_NL_CMD_DEVICE_RESET, 0);
		nl_req_put_u32(&ur, NPU_NL_A_DEV_INDEX, 0);
		_exit(reset_req(&u, &ur) == -EPERM ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_RESET, 0);
	EXPECT_EQ(-EINVAL, reset_req(&s, &r));
	EXPECT_STREQ("device index required", s.ext_msg);
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_RESET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 99);
	EXPECT_EQ(-ENODEV, reset_req(&s, &r));
	EXPECT_STREQ("no such device", s.ext_msg);
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_RESET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, npu_device_count());
	EXPECT_EQ(-ENODEV, reset_req(&s, &r));
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_RESET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 0);
	nl_req_put_u32(&r, NPU_NL_A_PROC_PID, 1);
	EXPECT_EQ(-EINVAL, reset_req(&s, &r));
	EXPECT_STRNE("", s.ext_msg);

	/* nothing was reset: the context works, the count did not move */
	{
		struct npu_get_info info;

		EXPECT_EQ(0, npu_info(fd, &info));
	}
	ASSERT_EQ(0, dev_state(&s, &after));
	EXPECT_EQ(before.resets, after.resets);
	EXPECT_FALSE(after.resetting);
	close(fd);
	close(s.fd);
}

/* A reset of a device nobody uses: the events say so, and it is done. */
TEST(idle_device)
{
	struct reset_ev ev;
	struct dev_state d0, d;
	struct nl_sock_t s, ls;

	ASSERT_EQ(0, nl_open(&s));
	ASSERT_EQ(0, nl_join_faults(&ls));
	ASSERT_EQ(0, dev_state(&s, &d0));
	ASSERT_EQ(0, npu_reset_device(0));
	ASSERT_EQ(0, recv_reset(&ls, &ev));
	EXPECT_EQ(0, ev.dev);
	EXPECT_EQ(NPU_NL_RESET_BEGIN, ev.phase);
	EXPECT_EQ(d0.contexts, ev.contexts);
	ASSERT_EQ(0, recv_reset(&ls, &ev));
	EXPECT_EQ(NPU_NL_RESET_DONE, ev.phase);
	EXPECT_EQ(d0.resets + 1, ev.resets);
	ASSERT_EQ(0, dev_state(&s, &d));
	EXPECT_FALSE(d.resetting);
	EXPECT_EQ(d0.resets + 1, d.resets);
	close(ls.fd);
	close(s.fd);
}

struct sync_call {
	int fd;
	uint32_t stream;
	int ret;
};

static void *sync_call(void *arg)
{
	struct sync_call *c = arg;

	c->ret = npu_sync(c->fd, c->stream, -1);
	return NULL;
}

struct open_call {
	int fd;
	long long at;
};

static void *open_call(void *arg)
{
	struct open_call *c = arg;

	c->fd = npu_open(0);
	c->at = now_ms();
	return NULL;
}

/*
 * The second context, in another process: device memory, a registration,
 * a stream blocked on a value nobody writes and a thread waiting for it.
 * Once the parent says (after the reset), it checks what a lost context
 * answers and exits 0 if all is as documented, else the number of the
 * first check that failed.
 */
static pid_t other_process(int ready[2], int go[2])
{
	pid_t pid;

	if (pipe(ready) || pipe(go))
		return -1;
	pid = fork();
	if (pid)
		return pid;

	struct sync_call c = { .ret = 1 };
	struct npu_cmd cmd;
	struct npu_get_info info;
	void *host = npu_host_mem(SZ_1M);
	uint32_t h, s2;
	uint64_t va;
	pthread_t t;
	char ch;
	int fd;

	close(ready[0]);
	close(go[1]);
	fd = npu_open(0);
	if (fd < 0 || !host)
		_exit(2);
	va = npu_map_new_rw(fd, 8 * SZ_1M, SZ_2M, 0);
	if (!va || npu_register(fd, host, SZ_1M, 0, 0) ||
	    npu_stream_create(fd, &c.stream))
		_exit(3);
	cmd = npu_value_cmd(NPU_OP_WAIT_VALUE, va, 1, NPU_WAIT_EQ);
	if (npu_submit(fd, c.stream, &cmd, 1, NULL))
		_exit(4);
	c.fd = fd;
	if (pthread_create(&t, NULL, sync_call, &c))
		_exit(5);
	if (write(ready[1], "r", 1) != 1)
		_exit(6);
	if (read(go[0], &ch, 1) != 1)
		_exit(7);
	pthread_join(t, NULL);
	if (c.ret != -ESTALE)
		_exit(10);
	if (npu_info(fd, &info) != -ESTALE)
		_exit(11);
	if (npu_submit(fd, c.stream, &cmd, 1, NULL) != -ESTALE)
		_exit(12);
	if (npu_alloc(fd, SZ_2M, SZ_2M, &h) != -ESTALE)
		_exit(13);
	if (npu_stream_create(fd, &s2) != -ESTALE)
		_exit(14);
	if (npu_sync(fd, c.stream, 0) != -ESTALE)
		_exit(15);
	if (npu_unregister(fd, host) != -ESTALE)
		_exit(16);
	close(fd);
	_exit(0);
}

static long long first_nonzero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return (long long)i;
	return -1;
}

/*
 * The reset with DMA in flight: see the file's comment. reset_ms keeps
 * the device down long enough to see it from outside.
 */
TEST_TIMEOUT(streams_in_flight, 240)
{
	struct npu_dmabuf_export e = { .size = sizeof(e), .fd = -1 };
	struct npu_share_export se = { .size = sizeof(se), .flags = NPU_SHARE_ANY_PID };
	struct sync_call c = { .ret = 1 };
	struct open_call oc = { .fd = -1 };
	long long pins0 = npu_pins_held(), t0, t_done;
	struct dev_state d0, d;
	struct proc_state p;
	struct nl_sock_t s, ls;
	struct reset_ev ev;
	struct npu_cmd cmds[NCOPY];
	struct npu_get_info info;
	int ready[2], go[2], fd, status, i;
	unsigned char *host, *dbuf, *back;
	uint32_t h, h2, s2;
	pthread_t t, ot;
	uint64_t va, va2;
	pid_t other;
	char ch;

	ASSERT_EQ(0, nl_open(&s));
	ASSERT_EQ(0, nl_join_faults(&ls));
	ASSERT_EQ(0, dev_state(&s, &d0));
	ASSERT_EQ(0, d0.contexts);
	ASSERT_EQ(0, npu_param_set("reset_ms", 1500));

	/* this process: a stream busy with large copies, and a wait for it */
	fd = npu_open(0);
	ASSERT_LE(0, fd);
	host = npu_host_mem(BIG);
	ASSERT_NONNULL(host);
	memset(host, 0xa5, BIG);
	ASSERT_EQ(0, npu_register(fd, host, BIG, 0, 0));
	va = npu_hole(BIG, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_reserve(fd, va, BIG));
	ASSERT_EQ(0, npu_alloc(fd, BIG, SZ_2M, &h));
	ASSERT_EQ(0, npu_map(fd, va, BIG, h));
	ASSERT_EQ(0, npu_set_access(fd, va, BIG, 0, NPU_ACCESS_READWRITE));
	/* the destination's bytes, through a dma-buf exported before */
	e.handle = h;
	ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_DMABUF_EXPORT, &e));
	dbuf = mmap(NULL, BIG, PROT_READ, MAP_SHARED, e.fd, 0);
	ASSERT_NE(MAP_FAILED, dbuf);
	/* a name others could import */
	va2 = npu_map_new_rw(fd, SZ_2M, SZ_2M, 0);
	ASSERT_NE(0, va2);
	ASSERT_EQ(0, npu_alloc(fd, SZ_2M, SZ_2M, &h2));
	se.handle = h2;
	ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &se));
	ASSERT_EQ(0, npu_stream_create(fd, &c.stream));
	ASSERT_EQ(0, npu_run(fd, c.stream, npu_copy_cmd(va, ptr64(host), SZ_2M, NPU_CMD_SRC_HOST)));
	EXPECT_EQ(0xa5, dbuf[SZ_2M - 1]);
	for (i = 0; i < NCOPY; i++)
		cmds[i] = npu_copy_cmd(va, ptr64(host), BIG, NPU_CMD_SRC_HOST);
	ASSERT_EQ(0, npu_submit(fd, c.stream, cmds, NCOPY, NULL));
	c.fd = fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, sync_call, &c));

	/* another process's context, blocked on its own wait */
	other = other_process(ready, go);
	ASSERT_LT(0, other);
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	ASSERT_LT(pins0, npu_pins_held());

	/* the copies are still running when the reset comes */
	EXPECT_EQ(-ETIMEDOUT, npu_sync(fd, c.stream, 0));
	t0 = now_ms();
	ASSERT_EQ(0, npu_reset_device(0));
	/* answered once the streams are aborted, not after the reset's end */
	EXPECT_GT(1500, now_ms() - t0);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-ESTALE, c.ret);

	/* every call of the lost context, whatever it is */
	EXPECT_EQ(-ESTALE, npu_info(fd, &info));
	EXPECT_EQ(-ESTALE, npu_submit(fd, c.stream, cmds, 1, NULL));
	EXPECT_EQ(-ESTALE, npu_sync(fd, c.stream, -1));
	EXPECT_EQ(-ESTALE, npu_alloc(fd, SZ_2M, SZ_2M, &h2));
	EXPECT_EQ(-ESTALE, npu_free(fd, h));
	EXPECT_EQ(-ESTALE, npu_stream_create(fd, &s2));
	EXPECT_EQ(-ESTALE, npu_stream_destroy(fd, c.stream, 0));
	EXPECT_EQ(-ESTALE, npu_unmap(fd, va));
	EXPECT_EQ(-ESTALE, npu_unregister(fd, host));
	EXPECT_EQ(-ESTALE, npu_register(fd, host, SZ_4K, 0, 0));

	/* under way: seen, opens wait (or say so), a second reset is refused */
	ASSERT_EQ(0, dev_state(&s, &d));
	EXPECT_TRUE(d.resetting);
	{
		int nb = open("/dev/npu0", O_RDWR | O_NONBLOCK | O_CLOEXEC);

		EXPECT_EQ(-1, nb);
		EXPECT_EQ(EAGAIN, errno);
		if (nb >= 0)
			close(nb);
	}
	ASSERT_EQ(0, pthread_create(&ot, NULL, open_call, &oc));
	{
		struct nl_req r;

		nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_RESET, 0);
		nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 0);
		EXPECT_EQ(-EBUSY, reset_req(&s, &r));
		EXPECT_STREQ("a reset of the device is under way", s.ext_msg);
	}

	/* the events: the beginning with both contexts, then the end */
	ASSERT_EQ(0, recv_reset(&ls, &ev));
	EXPECT_EQ(NPU_NL_RESET_BEGIN, ev.phase);
	EXPECT_EQ(2, ev.contexts);
	EXPECT_EQ(d0.resets, ev.resets);
	ASSERT_EQ(0, recv_reset(&ls, &ev));
	t_done = now_ms();
	EXPECT_EQ(NPU_NL_RESET_DONE, ev.phase);
	EXPECT_EQ(2, ev.contexts);
	EXPECT_EQ(d0.resets + 1, ev.resets);
	EXPECT_LE(1500, t_done - t0);
	ASSERT_EQ(0, pthread_join(ot, NULL));
	ASSERT_LE(0, oc.fd);
	/* the open waited for the end */
	EXPECT_LE(1400, oc.at - t0);
	ASSERT_EQ(0, dev_state(&s, &d));
	EXPECT_FALSE(d.resetting);
	EXPECT_EQ(d0.resets + 1, d.resets);

	/* host memory went with the reset; device memory stays until close */
	EXPECT_EQ(pins0, npu_pins_held());
	ASSERT_EQ(0, proc_state(&s, getpid(), &p));
	EXPECT_EQ(2, p.contexts);	/* the lost one and the new one */
	EXPECT_EQ(1, p.lost);
	EXPECT_EQ(0, p.pinned);
	EXPECT_EQ(BIG + 2 * SZ_2M, p.mem);
	ASSERT_EQ(0, proc_state(&s, other, &p));
	EXPECT_EQ(1, p.contexts);
	EXPECT_EQ(1, p.lost);
	EXPECT_EQ(0, p.pinned);
	EXPECT_EQ(d0.mem_used + BIG + 2 * SZ_2M + 8 * SZ_1M, d.mem_used);
	{
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		EXPECT_EQ(0, npu_file_value_at(AT_FDCWD, path, "npu-memory-host-pinned", ':'));
		EXPECT_EQ(0, npu_file_value_at(AT_FDCWD, path, "npu-streams", ':'));
		EXPECT_EQ((BIG + 2 * SZ_2M) >> 10,
			  npu_file_value_at(AT_FDCWD, path, "npu-memory-device", ':'));
		{
			char buf[2048] = "";
			int ffd = open(path, O_RDONLY | O_CLOEXEC);

			ASSERT_LE(0, ffd);
			EXPECT_LT(0, read(ffd, buf, sizeof(buf) - 1));
			close(ffd);
			EXPECT_NONNULL(strstr(buf, "npu-state:\treset\n"));
		}
	}

	/* the contents are lost, and nothing writes them any more */
	EXPECT_EQ(-1, first_nonzero(dbuf, BIG));
	usleep(300 * 1000);
	EXPECT_EQ(-1, first_nonzero(dbuf, BIG));

	/* the other process's context answers as this one */
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(other, waitpid(other, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	/* the lost context's name imports no more, in a fresh context */
	{
		pid_t imp = fork();

		ASSERT_LE(0, imp);
		if (imp == 0) {
			struct npu_share_import si = {
				.size = sizeof(si), .shareable = se.shareable,
			};
			int ifd = npu_open(0);

			_exit(ifd >= 0 &&
			      npu_ioctl(ifd, NPU_IOCTL_SHARE_IMPORT, &si) == -ENOENT ? 0 : 1);
		}
		ASSERT_EQ(imp, waitpid(imp, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}

	/* a new context works as on a fresh device: copies, byte for byte */
	back = npu_host_mem(4 * SZ_1M);
	ASSERT_NONNULL(back);
	for (i = 0; i < 4 * (int)SZ_1M; i++)
		host[i] = (unsigned char)(i * 7 + (i >> 12));
	va2 = npu_map_new_rw(oc.fd, 4 * SZ_1M, SZ_2M, 0);
	ASSERT_NE(0, va2);
	ASSERT_EQ(0, npu_stream_create(oc.fd, &s2));
	ASSERT_EQ(0, npu_run(oc.fd, s2, npu_copy_cmd(va2, ptr64(host), 4 * SZ_1M,
						      NPU_CMD_SRC_USER)));
	ASSERT_EQ(0, npu_run(oc.fd, s2, npu_copy_cmd(ptr64(back), va2, 4 * SZ_1M,
						      NPU_CMD_DST_USER)));
	EXPECT_EQ(0, memcmp(host, back, 4 * SZ_1M));
	ASSERT_EQ(0, proc_state(&s, getpid(), &p));
	EXPECT_EQ(1, p.lost);

	/* closing everything leaves nothing behind */
	close(oc.fd);
	close(fd);
	munmap(dbuf, BIG);
	close(e.fd);
	EXPECT_EQ(pins0, npu_pins_held());
	ASSERT_EQ(0, dev_state(&s, &d));
	EXPECT_EQ(d0.mem_used, d.mem_used);
	EXPECT_EQ(0, d.contexts);
	EXPECT_EQ(0, npu_status_kb("VmPin"));
	ASSERT_EQ(0, proc_state(&s, getpid(), &p));
	EXPECT_EQ(0, p.contexts);
	EXPECT_EQ(0, npu_param_set("reset_ms", 0));
	close(ls.fd);
	close(s.fd);
}

struct racer {
	int fd;
	uint64_t va;
	int ret;
	long calls;
};

/* Streams made, used and destroyed until the context is lost. */
static void *race_calls(void *arg)
{
	struct racer *r = arg;
	struct npu_cmd cmd = npu_memset_cmd(r->va, 0x3c, SZ_1M, 0);
	uint32_t stream;

	for (;;) {
		r->ret = npu_stream_create(r->fd, &stream);
		if (!r->ret)
			r->ret = npu_submit(r->fd, stream, &cmd, 1, NULL);
		if (!r->ret)
			r->ret = npu_stream_destroy(r->fd, stream, 0);
		if (r->ret)
			return NULL;
		r->calls++;
	}
}

/*
 * Calls racing the reset from several threads - streams being created,
 * fed and destroyed while it aborts them - end with -ESTALE, none hangs,
 * and the reset ends.
 */
TEST_TIMEOUT(calls_racing_reset, 60)
{
	struct racer r[3];
	pthread_t t[3];
	int fd = npu_open(0), i;
	uint64_t va;

	ASSERT_LE(0, fd);
	va = npu_map_new_rw(fd, SZ_2M, SZ_2M, 0);
	ASSERT_NE(0, va);
	for (i = 0; i < 3; i++) {
		r[i] = (struct racer){ .fd = fd, .va = va };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, race_calls, &r[i]));
	}
	usleep(200 * 1000);
	ASSERT_EQ(0, npu_reset_device(0));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		TH_LOG("thread %d: %ld rounds, then %d", i, r[i].calls, r[i].ret);
		EXPECT_EQ(-ESTALE, r[i].ret);
	}
	ASSERT_EQ(0, npu_reset_wait(0, 10000));
	close(fd);
}

/*
 * Unloading the module while a reset keeps the device down waits for the
 * reset's end, and leaves nothing behind (the VM's log check sees any
 * splat). The module comes back with the parameters it had.
 */
TEST_TIMEOUT(unload_while_resetting, 90)
{
	struct npu_mod_params saved;
	long long t0;

	ASSERT_EQ(0, npu_mod_read_params(&saved));
	ASSERT_EQ(0, npu_param_set("reset_ms", 2000));
	ASSERT_EQ(0, npu_reset_device(0));
	t0 = now_ms();
	EXPECT_EQ(0, npu_mod_unload());
	EXPECT_LE(1500, now_ms() - t0);
	ASSERT_EQ(0, npu_mod_restore(&saved));
	EXPECT_EQ(0, npu_param_get("reset_ms"));
	EXPECT_EQ(0, npu_reset_state(0, NULL));
}

/* --- npu-smi ------------------------------------------------------------ */

/*
 * Run npu-smi with @argv as @uid (not 0: with the device's group), @input
 * on its stdin; its stdout into @out. The exit status, or -1.
 */
static int smi_in(char *const argv[], uid_t uid, const char *input, char *out, size_t n)
{
	int in[2], pfd[2], status;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(in) || pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		gid_t gid = NPU_GID;

		dup2(in[0], 0);
		dup2(pfd[1], 1);
		close(in[0]);
		close(in[1]);
		close(pfd[0]);
		close(pfd[1]);
		if (uid && (setgroups(1, &gid) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(120);
		execv(NPU_SMI, argv);
		_exit(127);
	}
	close(in[0]);
	close(pfd[1]);
	if (input && write(in[1], input, strlen(input)) != (ssize_t)strlen(input))
		return -1;
	close(in[1]);
	while (out && len + 1 < n && (r = read(pfd[0], out + len, n - 1 - len)) > 0)
		len += r;
	if (out)
		out[len] = 0;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#define RISK	"Resetting the standard PCIe card or NPU chip may cause a system hang or" \
		" abnormal reset during service running.\n" \
		"Are you sure you want to continue resetting?(Y/N)\n"

/*
 * `npu-smi set -t reset -i 0`: the vendor's question, lines and result;
 * an open context is lost by it; "n" aborts (exit 9) and resets nothing.
 */
TEST(smi_set_reset)
{
	char *set[] = { "npu-smi", "set", "-t", "reset", "-i", "0", NULL };
	char *set_m[] = { "npu-smi", "set", "-t", "reset", "-i", "0", "-m", "1", NULL };
	static char out[4096];
	struct npu_get_info info;
	uint32_t r0, r1;
	int fd;

	NEED_SMI();
	ASSERT_EQ(0, npu_reset_state(0, &r0));
	fd = npu_open(0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, smi_in(set, 0, "y\n", out, sizeof(out)));
	EXPECT_STREQ(RISK
		     "\tMessage                        : resetting ...\n"
		     "\tStatus                         : OK\n"
		     "\tMessage                        : Reset card successfully.\n", out);
	EXPECT_EQ(-ESTALE, npu_info(fd, &info));
	close(fd);
	ASSERT_EQ(0, npu_reset_state(0, &r1));
	EXPECT_EQ(r0 + 1, r1);
	/* in-band: the same reset */
	EXPECT_EQ(0, smi_in(set_m, 0, "Y\n", out, sizeof(out)));
	EXPECT_NONNULL(strstr(out, "Reset card successfully."));

	/* not confirmed: nothing happens */
	EXPECT_EQ(9, smi_in(set, 0, "n\n", out, sizeof(out)));
	EXPECT_STREQ(RISK
		     "\tStatus                         : Fail\n"
		     "\tMessage                        : User aborts reset card by outband.\n", out);
	EXPECT_EQ(9, smi_in(set_m, 0, "", out, sizeof(out)));
	EXPECT_NONNULL(strstr(out, "User aborts reset card by inband.\n"));
	ASSERT_EQ(0, npu_reset_state(0, &r0));
	EXPECT_EQ(r1 + 1, r0);
}

/* Bad arguments and refusals, with the documented exit codes. */
TEST(smi_set_reset_errors)
{
	char *bad_m[] = { "npu-smi", "set", "-t", "reset", "-i", "0", "-m", "2", NULL };
	char *no_m[] = { "npu-smi", "set", "-t", "reset", "-i", "0", "-m", NULL };
	char *no_id[] = { "npu-smi", "set", "-t", "reset", NULL };
	char *bad_id[] = { "npu-smi", "set", "-t", "reset", "-i", "x", NULL };
	char *no_dev[] = { "npu-smi", "set", "-t", "reset", "-i", "99", NULL };
	char *extra[] = { "npu-smi", "set", "-t", "reset", "-i", "0", "more", NULL };
	char *set[] = { "npu-smi", "set", "-t", "reset", "-i", "0", NULL };
	static char out[4096];
	uint32_t r0, r1;

	NEED_SMI();
	ASSERT_EQ(0, npu_reset_state(0, &r0));
	EXPECT_EQ(2, smi_in(bad_m, 0, "y\n", NULL, 0));
	EXPECT_EQ(2, smi_in(no_m, 0, "y\n", NULL, 0));
	EXPECT_EQ(2, smi_in(no_id, 0, "y\n", NULL, 0));
	EXPECT_EQ(2, smi_in(bad_id, 0, "y\n", NULL, 0));
	EXPECT_EQ(2, smi_in(extra, 0, "y\n", NULL, 0));
	/* no such device: said before the question */
	EXPECT_EQ(6, smi_in(no_dev, 0, "y\n", out, sizeof(out)));
	EXPECT_STREQ("", out);
	/* not the administrator: asked, then refused by the driver */
	EXPECT_EQ(3, smi_in(set, NOBODY, "y\n", out, sizeof(out)));
	EXPECT_NONNULL(strstr(out, "\tStatus                         : Fail\n"
				   "\tMessage                        : Failed to reset card\n"));
	ASSERT_EQ(0, npu_reset_state(0, &r1));
	EXPECT_EQ(r0, r1);
}

/* dcmi_get_device_health() from libdcmi, as a DCMI program calls it. */
struct dcmi {
	void *so;
	int (*init)(void);
	int (*health)(int card, int dev, unsigned int *health);
};

static int dcmi_open(struct dcmi *d)
{
	d->so = dlopen("libdcmi.so.1", RTLD_NOW);
	if (!d->so)
		return -1;
	d->init = (int (*)(void))dlsym(d->so, "dcmi_init");
	d->health = (int (*)(int, int, unsigned int *))dlsym(d->so, "dcmi_get_device_health");
	return d->init && d->health && !d->init() ? 0 : -1;
}

/*
 * While a reset is under way npu-smi's health page says Alarm with npu's
 * code 4E500003 and libdcmi's health is 2 (major alarm); both are back to
 * OK when it is done.
 */
TEST_TIMEOUT(health_while_resetting, 60)
{
	char *set[] = { "npu-smi", "set", "-t", "reset", "-i", "0", NULL };
	char *health[] = { "npu-smi", "info", "-t", "health", "-i", "0", NULL };
	static char out[4096], page[4096];
	char val[128];
	unsigned int dh = 99;
	struct dcmi dcmi;
	int status, seen = 0, i;
	pid_t pid;

	NEED_SMI();
	if (dcmi_open(&dcmi))
		SKIP(return, "libdcmi.so.1 cannot be loaded: %s", dlerror() ?: "no dcmi_init");
	ASSERT_EQ(0, npu_param_set("reset_ms", 3000));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(smi_in(set, 0, "y\n", out, sizeof(out)));
	for (i = 0; i < 200 && !seen; i++) {
		ASSERT_EQ(0, run_smi(health, 0, page, sizeof(page)));
		ASSERT_EQ(0, smi_field(page, "Health", val, sizeof(val)));
		seen = !strcmp(val, "Alarm");
		if (!seen)
			usleep(10 * 1000);
	}
	EXPECT_TRUE(seen);
	EXPECT_EQ(0, smi_field(page, "Error Code", val, sizeof(val)));
	EXPECT_NONNULL(strstr(val, "4E500003"));
	EXPECT_EQ(0, dcmi.health(0, 0, &dh));
	EXPECT_EQ(2, dh);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, run_smi(health, 0, page, sizeof(page)));
	ASSERT_EQ(0, smi_field(page, "Health", val, sizeof(val)));
	EXPECT_STRNE("Alarm", val);
	EXPECT_EQ(0, dcmi.health(0, 0, &dh));
	EXPECT_NE(2, dh);
	EXPECT_EQ(0, npu_param_set("reset_ms", 0));
	dlclose(dcmi.so);
}

TEST_HARNESS_MAIN
