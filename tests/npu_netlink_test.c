// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_netlink_test.c - the generic netlink family "npu" over a raw
 * socket: device get / dump against GET_INFO and sysfs, exact per-process
 * figures, the faults group, restartable dumps, and bad input with the
 * exact errors (Documentation/netlink.rst).
 */
#include <libgen.h>
#include <limits.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_nl_util.h"

#define NOBODY	65534

struct dev_msg {
	int count;
	const struct nlattr *tb[NPU_NL_A_MAX + 1];	/* into last[] */
	char last[4096];
	unsigned int index[8];
};

static void dev_cb(const struct nlmsghdr *nh, void *arg)
{
	struct dev_msg *d = arg;
	/* the reply's buffer is reused for the ack: keep a copy */
	if (nh->nlmsg_len > sizeof(d->last))
		return;
	memcpy(d->last, nh, nh->nlmsg_len);
	nl_parse((struct nlmsghdr *)d->last, d->tb, NPU_NL_A_MAX);
	if (d->count < 8)
		d->index[d->count] = nl_u32(d->tb[NPU_NL_A_DEV_INDEX]);
	d->count++;
}

/* One process entry as the dump gave it. */
struct proc_ent {
	uint32_t dev, pid, uid, mappings, reservations, streams, exported,
		 imported;
	uint64_t ctx_id, mem, pinned, memlock, faults;
	char comm[32];
};

struct proc_list {
	int count;
	struct proc_ent e[1024];
};

static void proc_cb(const struct nlmsghdr *nh, void *arg)
{
	struct proc_list *l = arg;
	const struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct proc_ent *e;

	if (l->count >= 1024)
		return;
	nl_parse(nh, tb, NPU_NL_A_MAX);
	e = &l->e[l->count++];
	e->dev = nl_u32(tb[NPU_NL_A_DEV_INDEX]);
	e->pid = nl_u32(tb[NPU_NL_A_PROC_PID]);
	e->uid = nl_u32(tb[NPU_NL_A_PROC_UID]);
	e->mappings = nl_u32(tb[NPU_NL_A_PROC_MAPPINGS]);
	e->reservations = nl_u32(tb[NPU_NL_A_PROC_RESERVATIONS]);
	e->streams = nl_u32(tb[NPU_NL_A_PROC_STREAMS]);
	e->exported = nl_u32(tb[NPU_NL_A_PROC_EXPORTED]);
	e->imported = nl_u32(tb[NPU_NL_A_PROC_IMPORTED]);
	e->ctx_id = nl_u64(tb[NPU_NL_A_PROC_CTX_ID]);
	e->mem = nl_u64(tb[NPU_NL_A_PROC_MEM_DEVICE]);
	e->pinned = nl_u64(tb[NPU_NL_A_PROC_HOST_PINNED]);
	e->memlock = nl_u64(tb[NPU_NL_A_PROC_HOST_MEMLOCK]);
	e->faults = nl_u64(tb[NPU_NL_A_PROC_FAULTS]);
	snprintf(e->comm, sizeof(e->comm), "%s", nl_str(tb[NPU_NL_A_PROC_COMM]));
}

static int proc_dump(struct nl_sock_t *s, struct proc_list *l)
{
	struct nl_req r;

	memset(l, 0, sizeof(*l));
	nl_req_init(&r, s->family, NPU_NL_CMD_PROCESS_GET, NLM_F_DUMP);
	return nl_talk(s, &r, proc_cb, l);
}

static int device_get(struct nl_sock_t *s, unsigned int index,
		      struct dev_msg *d)
{
	struct nl_req r;

	memset(d, 0, sizeof(*d));
	nl_req_init(&r, s->family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, index);
	return nl_talk(s, &r, dev_cb, d);
}

static struct proc_ent *find_pid(struct proc_list *l, pid_t pid)
{
	int i;

	for (i = 0; i < l->count; i++)
		if (l->e[i].pid == (uint32_t)pid)
			return &l->e[i];
	return NULL;
}

static void release_holder(pid_t pid, int hold[2])
{
	int status;

	close(hold[1]);
	waitpid(pid, &status, 0);
}

TEST(family_resolves)
{
	struct nl_sock_t s;

	ASSERT_EQ(0, nl_open(&s));
	EXPECT_NE(0, s.family);
	EXPECT_NE(0, s.faults_group);
	close(s.fd);
}

/* The device's busy time now, or ~0 if it cannot be read. */
static uint64_t busy_ns(struct nl_sock_t *s, int dev)
{
	struct dev_msg d;

	if (device_get(s, dev, &d) || !d.tb[NPU_NL_A_DEV_BUSY_NS])
		return ~0ULL;
	return nl_u64(d.tb[NPU_NL_A_DEV_BUSY_NS]);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * NPU_NL_A_DEV_BUSY_NS grows while the engine works for the device and
 * stands still while it idles; two streams moving data at once count
 * once, so it never grows faster than the wall clock.
 */
TEST(busy_time_counts_work_once)
{
	const uint64_t len = 64ULL << 20;
	struct npu_cmd set[2];
	uint64_t b0, b1, t0, t1, va;
	uint32_t st[2];
	struct nl_sock_t s;
	int fd = npu_open(0), i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nl_open(&s));
	va = npu_map_new_rw(fd, 2 * len, SZ_2M, 0);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_stream_create(fd, &st[0]));
	ASSERT_EQ(0, npu_stream_create(fd, &st[1]));
	/* back every page first: the timed runs only move data */
	ASSERT_EQ(0, npu_run(fd, st[0], npu_memset_cmd(va, 1, 2 * len, 0)));

	/*
	 * The turn that completed the memset may still be ending when the
	 * sync returns (the woken waiter can run first): its tail is busy
	 * time. Idle is measured once that turn has surely ended.
	 */
	usleep(200 * 1000);
	b0 = busy_ns(&s, 0);
	ASSERT_NE(~0ULL, b0);
	usleep(200 * 1000);
	b1 = busy_ns(&s, 0);
	EXPECT_EQ(b0, b1);	/* nothing queued: idle */

	t0 = mono_ns();
	b0 = busy_ns(&s, 0);
	for (i = 0; i < 2; i++) {
		set[i] = npu_memset_cmd(va + i * len, (uint8_t)(i + 2), len, 0);
		ASSERT_EQ(0, npu_submit(fd, st[i], &set[i], 1, NULL));
	}
	EXPECT_EQ(0, npu_sync(fd, st[0], -1));
	EXPECT_EQ(0, npu_sync(fd, st[1], -1));
	b1 = busy_ns(&s, 0);
	t1 = mono_ns();
	TH_LOG("busy %llu ns of %llu ns wall", (unsigned long long)(b1 - b0),
	       (unsigned long long)(t1 - t0));
	EXPECT_LT(0, (long long)(b1 - b0));
	/* the kernel's clock is local_clock(): allow it 5% of drift */
	EXPECT_LE(b1 - b0, (t1 - t0) + (t1 - t0) / 20);
	/* an inline (NPU_SUBMIT_WAIT) run counts too */
	b0 = busy_ns(&s, 0);
	{
		struct npu_submit sub = {
			.size = sizeof(sub), .flags = NPU_SUBMIT_WAIT, .stream = st[0],
			.count = 1, .cmds = ptr64(&set[0]), .cmd_size = sizeof(set[0]),
		};

		EXPECT_EQ(0, npu_ioctl(fd, NPU_IOCTL_SUBMIT, &sub));
	}
	EXPECT_LT(b0, busy_ns(&s, 0));
	close(s.fd);
	close(fd);
}

TEST(device_get_matches_get_info_and_sysfs)
{
	int n = npu_device_count(), i;
	struct nl_sock_t s;

	ASSERT_LT(0, n);
	ASSERT_EQ(0, nl_open(&s));
	for (i = 0; i < n; i++) {
		char name[16], carrier[32], path[64], link[PATH_MAX];
		struct npu_get_info info;
		struct dev_msg d;
		ssize_t len;
		int fd = npu_open(i);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, npu_info(fd, &info));
		ASSERT_EQ(0, device_get(&s, i, &d));
		ASSERT_EQ(1, d.count);
		snprintf(name, sizeof(name), "npu%d", i);
		EXPECT_EQ((uint32_t)i, nl_u32(d.tb[NPU_NL_A_DEV_INDEX]));
		EXPECT_STREQ(name, nl_str(d.tb[NPU_NL_A_DEV_NAME]));
		EXPECT_EQ(info.mem_total, nl_u64(d.tb[NPU_NL_A_DEV_MEM_TOTAL]));
		EXPECT_EQ(info.mem_used, nl_u64(d.tb[NPU_NL_A_DEV_MEM_USED]));
		EXPECT_EQ(info.mem_peak, nl_u64(d.tb[NPU_NL_A_DEV_MEM_PEAK]));
		EXPECT_EQ(info.page_sizes, nl_u64(d.tb[NPU_NL_A_DEV_PAGE_SIZES]));
		EXPECT_EQ(info.driver_version,
			  nl_u32(d.tb[NPU_NL_A_DEV_DRIVER_VERSION]));
		EXPECT_STREQ((char *)info.soc_name,
			     nl_str(d.tb[NPU_NL_A_DEV_SOC_NAME]));
		/* this test's own context at least */
		EXPECT_LE(1, nl_u32(d.tb[NPU_NL_A_DEV_CONTEXTS]));
		EXPECT_NULL(d.tb[NPU_NL_A_DEV_UNPLUGGED]);
		if (info.caps & NPU_CAP_PCI_CARRIER)
			snprintf(carrier, sizeof(carrier), "%04x:%02x:%02x.%x",
				 info.pci_domain, info.pci_bus,
				 info.pci_devfn >> 3, info.pci_devfn & 7);
		else
			snprintf(carrier, sizeof(carrier), "platform");
		EXPECT_STREQ(carrier, nl_str(d.tb[NPU_NL_A_DEV_CARRIER]));
		/* sysfs: the misc device's parent is the carrier */
		snprintf(path, sizeof(path), "/sys/class/misc/%s/device", name);
		len = readlink(path, link, sizeof(link) - 1);
		ASSERT_LT(0, len);
		link[len] = 0;
		if (info.caps & NPU_CAP_PCI_CARRIER) {
			EXPECT_STREQ(carrier, basename(link));
		} else {
			snprintf(path, sizeof(path), "npu-sim.%d", i);
			EXPECT_STREQ(path, basename(link));
		}
		if (info.caps & NPU_CAP_IOMMU) {
			const char *t = nl_str(d.tb[NPU_NL_A_DEV_IOMMU]);

			EXPECT_TRUE(!strcmp(t, "dma") || !strcmp(t, "dma-fq") ||
				    !strcmp(t, "unmanaged"));
		} else {
			EXPECT_STRNE("dma", nl_str(d.tb[NPU_NL_A_DEV_IOMMU]));
		}
		close(fd);
	}
	close(s.fd);
}

TEST(device_dump_lists_every_device_in_order)
{
	int n = npu_device_count(), i;
	struct nl_sock_t s;
	struct nl_req r;
	static struct dev_msg d;

	ASSERT_EQ(0, nl_open(&s));
	memset(&d, 0, sizeof(d));
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, NLM_F_DUMP);
	ASSERT_EQ(0, nl_talk(&s, &r, dev_cb, &d));
	ASSERT_EQ(n, d.count);
	for (i = 0; i < n && i < 8; i++)
		EXPECT_EQ((unsigned int)i, d.index[i]);
	/* a dump of one device */
	memset(&d, 0, sizeof(d));
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, NLM_F_DUMP);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, n - 1);
	ASSERT_EQ(0, nl_talk(&s, &r, dev_cb, &d));
	ASSERT_EQ(1, d.count);
	EXPECT_EQ((unsigned int)n - 1, d.index[0]);
	close(s.fd);
}

/* 64 MiB of device memory and 16 MiB pinned: exactly those figures. */
TEST(process_shows_exact_memory)
{
	static struct proc_list l;
	struct nl_sock_t s;
	struct proc_ent *e;
	int hold[2];
	pid_t pid;

	pid = npu_holder(0, 64 << 20, 16 << 20, 0, hold);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, nl_open(&s));
	ASSERT_EQ(0, proc_dump(&s, &l));
	e = find_pid(&l, pid);
	ASSERT_NONNULL(e);
	EXPECT_EQ(0, e->dev);
	EXPECT_EQ(0, e->uid);
	EXPECT_EQ(64ULL << 20, e->mem);
	EXPECT_EQ(16ULL << 20, e->pinned);
	EXPECT_EQ(16ULL << 20, e->memlock);
	EXPECT_EQ(0, e->mappings);
	EXPECT_EQ(0, e->reservations);
	EXPECT_EQ(0, e->streams);
	EXPECT_EQ(0, e->exported);
	EXPECT_EQ(0, e->imported);
	EXPECT_EQ(0, e->faults);
	EXPECT_STREQ("npu_netlink_tes", e->comm);
	release_holder(pid, hold);
	/* gone with its file */
	ASSERT_EQ(0, proc_dump(&s, &l));
	EXPECT_NULL(find_pid(&l, pid));
	close(s.fd);
}

/* Mappings, reservations, streams, an export: each counted. */
TEST(process_counts_objects)
{
	static struct proc_list l;
	struct npu_share_export ex = { .size = sizeof(ex) };
	struct nl_sock_t s;
	struct proc_ent *e;
	uint32_t handle, stream;
	uint64_t va;
	int fd = npu_open(0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_alloc(fd, SZ_2M, SZ_2M, &handle));
	va = npu_reserve_new(fd, 2 * SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_map(fd, va, SZ_2M, handle));
	ASSERT_EQ(0, npu_stream_create(fd, &stream));
	ex.handle = handle;
	ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &ex));
	ASSERT_EQ(0, nl_open(&s));
	ASSERT_EQ(0, proc_dump(&s, &l));
	e = find_pid(&l, getpid());
	ASSERT_NONNULL(e);
	EXPECT_EQ((uint64_t)SZ_2M, e->mem);
	EXPECT_EQ(1, e->mappings);
	EXPECT_EQ(1, e->reservations);
	EXPECT_EQ(1, e->streams);
	EXPECT_EQ(1, e->exported);
	EXPECT_EQ(0, e->imported);
	close(s.fd);
	close(fd);
}

/* More contexts than one message holds: the dump resumes, none twice. */
TEST(process_dump_restarts)
{
	static struct proc_list l;
	enum { N = 400 };
	struct nl_sock_t s;
	int fds[N], i, mine = 0;
	uint64_t last = 0;
	bool ordered = true;

	for (i = 0; i < N; i++) {
		fds[i] = npu_open(0);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, nl_open(&s));
	ASSERT_EQ(0, proc_dump(&s, &l));
	for (i = 0; i < l.count; i++) {
		if (l.e[i].pid != (uint32_t)getpid())
			continue;
		mine++;
		if (l.e[i].ctx_id <= last)
			ordered = false;
		last = l.e[i].ctx_id;
	}
	EXPECT_EQ(N, mine);
	EXPECT_TRUE(ordered);
	for (i = 0; i < N; i++)
		close(fds[i]);
	close(s.fd);
}

struct fault_ev {
	int count;
	uint8_t cmd;
	uint32_t dev, pid, stream;
	uint64_t addr;
	uint8_t access, space;
	char reason[128], comm[32];
};

static int recv_fault(struct nl_sock_t *s, struct fault_ev *ev)
{
	static char buf[8192];
	const struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	ssize_t n = recv(s->fd, buf, sizeof(buf), 0);

	if (n < 0)
		return -errno;
	if (!NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type != s->family)
		return -EPROTO;
	nl_parse(nh, tb, NPU_NL_A_MAX);
	ev->count++;
	ev->cmd = ((struct genlmsghdr *)NLMSG_DATA(nh))->cmd;
	ev->dev = nl_u32(tb[NPU_NL_A_DEV_INDEX]);
	ev->pid = nl_u32(tb[NPU_NL_A_PROC_PID]);
	ev->stream = nl_u32(tb[NPU_NL_A_FAULT_STREAM]);
	ev->addr = nl_u64(tb[NPU_NL_A_FAULT_ADDR]);
	ev->access = tb[NPU_NL_A_FAULT_ACCESS] ?
		     *(uint8_t *)nl_data(tb[NPU_NL_A_FAULT_ACCESS]) : 0xff;
	ev->space = tb[NPU_NL_A_FAULT_SPACE] ?
		    *(uint8_t *)nl_data(tb[NPU_NL_A_FAULT_SPACE]) : 0xff;
	snprintf(ev->reason, sizeof(ev->reason), "%s",
		 nl_str(tb[NPU_NL_A_FAULT_REASON]));
	snprintf(ev->comm, sizeof(ev->comm), "%s",
		 nl_str(tb[NPU_NL_A_PROC_COMM]));
	return 0;
}

/*
 * A copy between unmapped VAs: the listener gets that fault, field by
 * field (the engine translates the destination first: a write).
 */
TEST(faults_group_gets_bad_copy)
{
	static struct proc_list l;
	struct nl_sock_t s, ls;
	struct fault_ev ev = { 0 };
	struct proc_ent *e;
	struct dev_msg d;
	uint64_t src, dst, before;
	uint32_t stream;
	int fd = npu_open(0);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nl_open(&s));
	ASSERT_EQ(0, nl_open(&ls));
	ASSERT_EQ(0, setsockopt(ls.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				&ls.faults_group, sizeof(ls.faults_group)));
	ASSERT_EQ(0, device_get(&s, 0, &d));
	before = nl_u64(d.tb[NPU_NL_A_DEV_FAULTS]);
	src = npu_hole(SZ_2M, SZ_2M);
	dst = npu_hole(SZ_2M, SZ_2M);
	ASSERT_NE(0, src);
	ASSERT_NE(0, dst);
	ASSERT_EQ(0, npu_stream_create(fd, &stream));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(fd, stream, npu_copy_cmd(dst, src, SZ_4K, 0)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, recv_fault(&ls, &ev));
	EXPECT_EQ(NPU_NL_CMD_FAULT, ev.cmd);
	EXPECT_EQ(0, ev.dev);
	EXPECT_EQ((uint32_t)getpid(), ev.pid);
	EXPECT_EQ(stream, ev.stream);
	EXPECT_EQ(dst, ev.addr);
	EXPECT_EQ(NPU_NL_ACCESS_WRITE, ev.access);
	EXPECT_EQ(NPU_NL_SPACE_VA, ev.space);
	EXPECT_STRNE("", ev.reason);
	EXPECT_STREQ("npu_netlink_tes", ev.comm);
	TH_LOG("fault reason: %s", ev.reason);
	/* counted on the context and the device */
	ASSERT_EQ(0, proc_dump(&s, &l));
	e = find_pid(&l, getpid());
	ASSERT_NONNULL(e);
	EXPECT_EQ(1, e->faults);
	ASSERT_EQ(0, device_get(&s, 0, &d));
	EXPECT_EQ(before + 1, nl_u64(d.tb[NPU_NL_A_DEV_FAULTS]));
	/* the reset clears both, and the peak goes back to what is used */
	{
		struct nl_req r;

		nl_req_init(&r, s.family, NPU_NL_CMD_COUNTERS_RESET, 0);
		ASSERT_EQ(0, nl_talk(&s, &r, NULL, NULL));
	}
	ASSERT_EQ(0, proc_dump(&s, &l));
	e = find_pid(&l, getpid());
	ASSERT_NONNULL(e);
	EXPECT_EQ(0, e->faults);
	ASSERT_EQ(0, device_get(&s, 0, &d));
	EXPECT_EQ(0, nl_u64(d.tb[NPU_NL_A_DEV_FAULTS]));
	EXPECT_EQ(nl_u64(d.tb[NPU_NL_A_DEV_MEM_USED]),
		  nl_u64(d.tb[NPU_NL_A_DEV_MEM_PEAK]));
	close(ls.fd);
	close(s.fd);
	close(fd);
}

/* Send @r and expect @err with a non-empty extack message if @msg. */
static int expect_err(struct nl_sock_t *s, struct nl_req *r, int err,
		      bool msg)
{
	int ret = nl_talk(s, r, NULL, NULL);

	if (ret != err || (msg && !s->ext_msg[0])) {
		printf("# got %d (%s), extack '%s'; want %d\n", ret,
		       strerror(-ret), s->ext_msg, err);
		return -1;
	}
	return 0;
}

TEST(bad_input_exact_errors)
{
	struct nl_sock_t s;
	struct nl_req r;
	uint8_t u8 = 0;

	ASSERT_EQ(0, nl_open(&s));
	/* unknown command, and the event's command as a request */
	nl_req_init(&r, s.family, 99, 0);
	EXPECT_EQ(0, expect_err(&s, &r, -EOPNOTSUPP, false));
	nl_req_init(&r, s.family, NPU_NL_CMD_FAULT, 0);
	EXPECT_EQ(0, expect_err(&s, &r, -EOPNOTSUPP, false));
	nl_req_init(&r, s.family, NPU_NL_CMD_UNSPEC, 0);
	EXPECT_EQ(0, expect_err(&s, &r, -EOPNOTSUPP, false));
	/* PROCESS_GET has no doit */
	nl_req_init(&r, s.family, NPU_NL_CMD_PROCESS_GET, 0);
	EXPECT_EQ(0, expect_err(&s, &r, -EOPNOTSUPP, false));
	/* missing device index */
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, 0);
	EXPECT_EQ(0, expect_err(&s, &r, -EINVAL, true));
	/* wrong-typed: a u8 where a u32 belongs */
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put(&r, NPU_NL_A_DEV_INDEX, &u8, 1);
	EXPECT_EQ(0, expect_err(&s, &r, -EINVAL, true));
	/* an attribute the command does not take, and one beyond the max */
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 0);
	nl_req_put_u32(&r, NPU_NL_A_PROC_PID, 1);
	EXPECT_EQ(0, expect_err(&s, &r, -EINVAL, true));
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 0);
	nl_req_put_u32(&r, NPU_NL_A_MAX + 5, 1);
	EXPECT_EQ(0, expect_err(&s, &r, -EINVAL, true));
	/* same in a dump */
	nl_req_init(&r, s.family, NPU_NL_CMD_PROCESS_GET, NLM_F_DUMP);
	nl_req_put_u32(&r, NPU_NL_A_FAULT_ADDR, 1);
	EXPECT_EQ(0, expect_err(&s, &r, -EINVAL, true));
	/* bad device index: doit, dump, reset */
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 99);
	EXPECT_EQ(0, expect_err(&s, &r, -ENODEV, true));
	EXPECT_STREQ("no such device", s.ext_msg);
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, npu_device_count());
	EXPECT_EQ(0, expect_err(&s, &r, -ENODEV, true));
	/* 6.1 does not pass a dump's start() extack message on: errno only */
	nl_req_init(&r, s.family, NPU_NL_CMD_PROCESS_GET, NLM_F_DUMP);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 99);
	EXPECT_EQ(0, expect_err(&s, &r, -ENODEV, false));
	nl_req_init(&r, s.family, NPU_NL_CMD_COUNTERS_RESET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 99);
	EXPECT_EQ(0, expect_err(&s, &r, -ENODEV, true));
	/* non-zero reserved header field */
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 0);
	r.gh.reserved = 1;
	EXPECT_EQ(0, expect_err(&s, &r, -EINVAL, false));
	close(s.fd);
}

#define CHILD_CHECK(cond) do {							\
	if (!(cond)) {								\
		printf("# %s:%d: child: check failed: %s\n", __FILE__,		\
		       __LINE__, #cond);					\
		fflush(stdout);							\
		_exit(1);							\
	}									\
} while (0)

/*
 * As nobody: reset is -EPERM; root's holder is not listed, the caller's
 * own context is. Root lists both.
 */
TEST(unprivileged_sees_own_only)
{
	static struct proc_list l;
	int hold[2], status;
	struct nl_sock_t s;
	struct proc_ent *e;
	pid_t holder, child;

	holder = npu_holder(0, SZ_2M, 0, 0, hold);
	ASSERT_LT(0, holder);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int devfd = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
		struct nl_sock_t cs;
		struct nl_req r;
		int fd;

		CHILD_CHECK(devfd >= 0);
		CHILD_CHECK(setgroups(1, (gid_t[]){ NPU_GID }) == 0);
		CHILD_CHECK(setresgid(NOBODY, NOBODY, NOBODY) == 0);
		CHILD_CHECK(setresuid(NOBODY, NOBODY, NOBODY) == 0);
		fd = openat(devfd, "npu0", O_RDWR | O_CLOEXEC);
		CHILD_CHECK(fd >= 0);
		CHILD_CHECK(nl_open(&cs) == 0);
		nl_req_init(&r, cs.family, NPU_NL_CMD_COUNTERS_RESET, 0);
		CHILD_CHECK(nl_talk(&cs, &r, NULL, NULL) == -EPERM);
		/* fault events name every user's processes: admins only */
		CHILD_CHECK(setsockopt(cs.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				       &cs.faults_group, sizeof(cs.faults_group)) == -1 &&
			    errno == EPERM);
		/* device information is for everyone */
		nl_req_init(&r, cs.family, NPU_NL_CMD_DEVICE_GET, 0);
		nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 0);
		CHILD_CHECK(nl_talk(&cs, &r, NULL, NULL) == 0);
		CHILD_CHECK(proc_dump(&cs, &l) == 0);
		CHILD_CHECK(!find_pid(&l, holder));
		CHILD_CHECK(!find_pid(&l, getppid()));
		e = find_pid(&l, getpid());
		CHILD_CHECK(e && e->uid == NOBODY);
		for (int i = 0; i < l.count; i++)
			CHILD_CHECK(l.e[i].uid == NOBODY);
		printf("# child: %d entries, all uid %d\n", l.count, NOBODY);
		fflush(stdout);
		/* stay until the parent has seen this context */
		kill(getpid(), SIGSTOP);
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(0, nl_open(&s));
	ASSERT_EQ(0, proc_dump(&s, &l));
	EXPECT_NONNULL(find_pid(&l, holder));
	e = find_pid(&l, child);
	ASSERT_NONNULL(e);
	EXPECT_EQ(NOBODY, e->uid);
	kill(child, SIGCONT);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	release_holder(holder, hold);
	close(s.fd);
}

TEST_HARNESS_MAIN
