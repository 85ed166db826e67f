/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/npu_nl_util.h - a hand-rolled generic netlink client for the npu
 * family (no libnl: the tests see the kernel's exact errors and bytes),
 * a holder process with known device and pinned host memory, and a
 * process that keeps a device's DMA engine busy.
 */
#ifndef NPU_TEST_NL_UTIL_H
#define NPU_TEST_NL_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <uapi/npu_netlink.h>

#include "npu_util.h"

struct nl_sock_t {
	int fd;
	uint16_t family;
	uint32_t faults_group;
	uint32_t seq;
	char ext_msg[256];	/* the last error's extack message, if any */
};

/* Attributes of one message, by type; NULL where absent. */
struct nl_attrs {
	const struct nlattr *a[NPU_NL_A_MAX + 1];
};

static inline const void *nl_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static inline int nl_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static inline uint64_t nl_u64(const struct nlattr *a)
{
	uint64_t v = 0;

	if (a)
		memcpy(&v, nl_data(a), nl_len(a) < 8 ? nl_len(a) : 8);
	return v;
}

static inline uint32_t nl_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a)
		memcpy(&v, nl_data(a), nl_len(a) < 4 ? nl_len(a) : 4);
	return v;
}

static inline const char *nl_str(const struct nlattr *a)
{
	return a ? (const char *)nl_data(a) : "";
}

/* Parse the attributes after a genlmsghdr (@mt may be NULL for ctrl). */
static inline void nl_parse(const struct nlmsghdr *nh, const struct nlattr **tb,
			    int max)
{
	const char *p = (const char *)NLMSG_DATA(nh) + GENL_HDRLEN;
	int left = nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	while (left >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		int type = a->nla_type & NLA_TYPE_MASK;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
			break;
		if (type <= max)
			tb[type] = a;
		p += NLA_ALIGN(a->nla_len);
		left -= NLA_ALIGN(a->nla_len);
	}
}

struct nl_req {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char buf[512];
};

static inline void nl_req_init(struct nl_req *r, uint16_t type, uint8_t cmd,
			       uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->gh.cmd = cmd;
	r->gh.version = NPU_GENL_VERSION;
}

static inline void nl_req_put(struct nl_req *r, uint16_t type, const void *d,
			      uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, d, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static inline void nl_req_put_u32(struct nl_req *r, uint16_t type, uint32_t v)
{
	nl_req_put(r, type, &v, sizeof(v));
}

typedef void (*nl_msg_cb)(const struct nlmsghdr *nh, void *arg);

/*
 * Send @r, read until the ack or the end of the dump: 0, or the negative
 * errno the kernel answered (its extack message in s->ext_msg).
 */
static inline int nl_talk(struct nl_sock_t *s, struct nl_req *r,
			  nl_msg_cb cb, void *arg)
{
	static char buf[65536];

	r->nh.nlmsg_seq = ++s->seq;
	s->ext_msg[0] = 0;
	if (send(s->fd, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(s->fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0)
			return -errno;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != s->seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR ||
			    nh->nlmsg_type == NLMSG_DONE) {
				int err = *(int *)NLMSG_DATA(nh);

				if (nh->nlmsg_type == NLMSG_ERROR && err &&
				    (nh->nlmsg_flags & NLM_F_ACK_TLVS)) {
					/* TLVs after the echoed request */
					const struct nlmsgerr *e = NLMSG_DATA(nh);
					size_t off = sizeof(*e);
					const char *p;
					int left;

					if (!(nh->nlmsg_flags & NLM_F_CAPPED))
						off += e->msg.nlmsg_len - NLMSG_HDRLEN;
					p = (const char *)e + off;
					left = nh->nlmsg_len - NLMSG_HDRLEN - off;
					while (left >= NLA_HDRLEN) {
						const struct nlattr *a = (const void *)p;

						if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
							break;
						if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
							snprintf(s->ext_msg, sizeof(s->ext_msg),
								 "%.*s", nl_len(a), nl_str(a));
						p += NLA_ALIGN(a->nla_len);
						left -= NLA_ALIGN(a->nla_len);
					}
				}
				return err;
			}
			if (cb)
				cb(nh, arg);
		}
	}
}

static inline void nl_ctrl_cb(const struct nlmsghdr *nh, void *arg)
{
	struct nl_sock_t *s = arg;
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct nlattr *g;
	int left;

	nl_parse(nh, tb, CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID])
		memcpy(&s->family, nl_data(tb[CTRL_ATTR_FAMILY_ID]), 2);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return;
	g = nl_data(tb[CTRL_ATTR_MCAST_GROUPS]);
	left = nl_len(tb[CTRL_ATTR_MCAST_GROUPS]);
	while (left >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN) {
		const struct nlattr *a = nl_data(g);
		int in = nl_len(g);
		uint32_t id = 0;
		const char *name = "";

		while (in >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_ID)
				id = nl_u32(a);
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
				name = nl_str(a);
			in -= NLA_ALIGN(a->nla_len);
			a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
		}
		if (!strcmp(name, NPU_GENL_MCGRP_FAULTS))
			s->faults_group = id;
		left -= NLA_ALIGN(g->nla_len);
		g = (const void *)((const char *)g + NLA_ALIGN(g->nla_len));
	}
}

/* Open a socket with extended acks and resolve the family: 0 or -errno. */
static inline int nl_open(struct nl_sock_t *s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 10 };
	struct nl_req r;
	int one = 1, ret;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		ret = -errno;
		close(s->fd);
		return ret;
	}
	nl_req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	r.gh.version = 2;
	nl_req_put(&r, CTRL_ATTR_FAMILY_NAME, NPU_GENL_NAME, sizeof(NPU_GENL_NAME));
	ret = nl_talk(s, &r, nl_ctrl_cb, s);
	if (!ret && !s->family)
		ret = -ENOENT;
	if (ret)
		close(s->fd);
	return ret;
}

/*
 * Give the device page that VA @va of process @pid maps on device @dev an
 * uncorrectable error (NPU_NL_CMD_MEM_POISON, CAP_NET_ADMIN): 0 or -errno.
 */
static inline int npu_poison(int dev, pid_t pid, uint64_t va)
{
	struct nl_sock_t s;
	struct nl_req r;
	int ret = nl_open(&s);

	if (ret)
		return ret;
	nl_req_init(&r, s.family, NPU_NL_CMD_MEM_POISON, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, dev);
	nl_req_put_u32(&r, NPU_NL_A_PROC_PID, pid);
	nl_req_put(&r, NPU_NL_A_FAULT_ADDR, &va, sizeof(va));
	ret = nl_talk(&s, &r, NULL, NULL);
	close(s.fd);
	return ret;
}

/*
 * Reset device @dev (NPU_NL_CMD_DEVICE_RESET, CAP_SYS_ADMIN): 0 once its
 * contexts are lost and the reset is under way, or -errno.
 */
static inline int npu_reset_device(int dev)
{
	struct nl_sock_t s;
	struct nl_req r;
	int ret = nl_open(&s);

	if (ret)
		return ret;
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_RESET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, dev);
	ret = nl_talk(&s, &r, NULL, NULL);
	close(s.fd);
	return ret;
}

struct npu_reset_state {
	int found;
	int resetting;
	uint32_t resets;
};

static inline void npu_reset_state_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct npu_reset_state *st = arg;

	nl_parse(nh, tb, NPU_NL_A_MAX);
	st->found = 1;
	st->resetting = tb[NPU_NL_A_DEV_RESETTING] != NULL;
	st->resets = nl_u32(tb[NPU_NL_A_DEV_RESETS]);
}

/* Is a reset of device @dev under way (1) or not (0); -errno. */
static inline int npu_reset_state(int dev, uint32_t *resets)
{
	struct npu_reset_state st = { 0 };
	struct nl_sock_t s;
	struct nl_req r;
	int ret = nl_open(&s);

	if (ret)
		return ret;
	nl_req_init(&r, s.family, NPU_NL_CMD_DEVICE_GET, 0);
	nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, dev);
	ret = nl_talk(&s, &r, npu_reset_state_cb, &st);
	close(s.fd);
	if (!ret && !st.found)
		ret = -ENOENT;
	if (ret)
		return ret;
	if (resets)
		*resets = st.resets;
	return st.resetting;
}

/* Wait until no reset of device @dev is under way, up to @ms: 0 or -errno. */
static inline int npu_reset_wait(int dev, int ms)
{
	int ret;

	for (; ms >= 0; ms -= 10) {
		ret = npu_reset_state(dev, NULL);
		if (ret <= 0)
			return ret;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/*
 * A child that opens /dev/npu@dev, allocates @dev_bytes of device memory
 * and registers (pins) @pin_bytes of host memory, optionally as @uid (not
 * 0), then tells the parent and waits until the parent closes @hold[1].
 * Returns its pid, or -1; the caller reaps it after closing the pipe.
 */
static inline pid_t npu_holder(int dev, uint64_t dev_bytes, uint64_t pin_bytes,
			       uid_t uid, int hold[2])
{
	int ready[2];
	pid_t pid;
	char ch;

	if (pipe(ready) || pipe(hold))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int devfd = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
		char name[16];
		uint32_t handle;
		void *host;
		int fd;

		close(ready[0]);
		close(hold[1]);
		if (uid && (setgroups(1, (gid_t[]){ NPU_GID }) ||
			    setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(1);
		snprintf(name, sizeof(name), "npu%d", dev);
		fd = openat(devfd, name, O_RDWR | O_CLOEXEC);
		if (fd < 0 || (dev_bytes && npu_alloc(fd, dev_bytes, SZ_2M, &handle)))
			_exit(2);
		host = pin_bytes ? npu_host_mem(pin_bytes) : NULL;
		if (pin_bytes && (!host || npu_register(fd, host, pin_bytes, 0, 0)))
			_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		while (read(hold[0], &ch, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (read(ready[0], &ch, 1) != 1) {
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	return pid;
}

/*
 * A process that keeps device @dev's DMA engine busy: device-to-device
 * copies of 16 MiB on two streams, one always queued while the other is
 * waited for, until @hold[1] is closed. Returns its pid once copies run,
 * or -1. Close @hold[1] and wait for it to stop it.
 */
static inline pid_t npu_busy_loop(int dev, int hold[2])
{
	int ready[2];
	pid_t pid;
	char ch;

	/* npu-smi, run meanwhile, must not keep the loop going */
	if (pipe(ready) || pipe2(hold, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		const uint64_t len = 16 << 20;
		struct pollfd pfd = { .fd = hold[0], .events = POLLIN };
		struct npu_cmd copy[2];
		uint32_t st[2];
		uint64_t va;
		int fd = npu_open(dev), i;

		close(ready[0]);
		close(hold[1]);
		va = fd < 0 ? 0 : npu_map_new_rw(fd, 4 * len, SZ_2M, dev);
		if (!va || npu_stream_create(fd, &st[0]) || npu_stream_create(fd, &st[1]))
			_exit(2);
		/* back every page first: the loop only moves data */
		if (npu_run(fd, st[0], npu_memset_cmd(va, 1, 4 * len, 0)))
			_exit(3);
		copy[0] = npu_copy_cmd(va + len, va, len, 0);
		copy[1] = npu_copy_cmd(va + 3 * len, va + 2 * len, len, 0);
		if (npu_submit(fd, st[0], &copy[0], 1, NULL) || write(ready[1], "r", 1) != 1)
			_exit(4);
		for (i = 1; !poll(&pfd, 1, 0); i ^= 1)
			if (npu_submit(fd, st[i], &copy[i], 1, NULL) || npu_sync(fd, st[!i], -1))
				_exit(5);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (read(ready[0], &ch, 1) != 1) {
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	return pid;
}

#endif /* NPU_TEST_NL_UTIL_H */
