// SPDX-License-Identifier: GPL-2.0
/*
 * tools/npu_nl.c - the generic netlink client of npu-smi and libdcmi
 * (tools/npu_nl.h), over libnl-3 and libnl-genl-3.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "uapi/npu_netlink.h"
#include "npu_nl.h"

int npu_nl_open(struct npu_nl *nl)
{
	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -ENOMEM;
	if (genl_connect(nl->sk)) {
		npu_nl_close(nl);
		return -EIO;
	}
	nl->family = genl_ctrl_resolve(nl->sk, NPU_GENL_NAME);
	if (nl->family < 0) {
		npu_nl_close(nl);
		return -ENOENT;
	}
	return 0;
}

void npu_nl_close(struct npu_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

static int err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct npu_nl *nl = arg;

	(void)nla;
	nl->status = e->error;
	return NL_STOP;
}

static int done_cb(struct nl_msg *msg, void *arg)
{
	struct npu_nl *nl = arg;

	(void)msg;
	nl->status = 0;
	return NL_STOP;
}

static void copy_str(char *dst, size_t n, struct nlattr *a)
{
	snprintf(dst, n, "%s", a ? nla_get_string(a) : "");
}

static uint64_t get_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t get_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

/* What a dump collects: a growing array of @size-byte elements. */
struct collect {
	struct npu_nl *nl;
	void *items;
	int n, cap;
	size_t size;
	int err;
	void (*parse)(struct nlattr **tb, void *item);
};

static void parse_dev(struct nlattr **tb, void *item)
{
	struct npu_nl_dev *d = item;

	d->index = get_u32(tb[NPU_NL_A_DEV_INDEX]);
	d->contexts = get_u32(tb[NPU_NL_A_DEV_CONTEXTS]);
	d->version = get_u32(tb[NPU_NL_A_DEV_DRIVER_VERSION]);
	d->total = get_u64(tb[NPU_NL_A_DEV_MEM_TOTAL]);
	d->used = get_u64(tb[NPU_NL_A_DEV_MEM_USED]);
	d->peak = get_u64(tb[NPU_NL_A_DEV_MEM_PEAK]);
	d->page_sizes = get_u64(tb[NPU_NL_A_DEV_PAGE_SIZES]);
	d->faults = get_u64(tb[NPU_NL_A_DEV_FAULTS]);
	d->busy_ns = get_u64(tb[NPU_NL_A_DEV_BUSY_NS]);
	d->util = -1;
	d->unplugged = tb[NPU_NL_A_DEV_UNPLUGGED];
	d->resetting = tb[NPU_NL_A_DEV_RESETTING];
	d->resets = get_u32(tb[NPU_NL_A_DEV_RESETS]);
	copy_str(d->name, sizeof(d->name), tb[NPU_NL_A_DEV_NAME]);
	copy_str(d->carrier, sizeof(d->carrier), tb[NPU_NL_A_DEV_CARRIER]);
	copy_str(d->iommu, sizeof(d->iommu), tb[NPU_NL_A_DEV_IOMMU]);
	copy_str(d->soc, sizeof(d->soc), tb[NPU_NL_A_DEV_SOC_NAME]);
}

static void parse_proc(struct nlattr **tb, void *item)
{
	struct npu_nl_proc *p = item;

	p->dev = get_u32(tb[NPU_NL_A_DEV_INDEX]);
	p->pid = get_u32(tb[NPU_NL_A_PROC_PID]);
	p->uid = get_u32(tb[NPU_NL_A_PROC_UID]);
	p->mappings = get_u32(tb[NPU_NL_A_PROC_MAPPINGS]);
	p->reservations = get_u32(tb[NPU_NL_A_PROC_RESERVATIONS]);
	p->streams = get_u32(tb[NPU_NL_A_PROC_STREAMS]);
	p->exported = get_u32(tb[NPU_NL_A_PROC_EXPORTED]);
	p->imported = get_u32(tb[NPU_NL_A_PROC_IMPORTED]);
	p->ctx_id = get_u64(tb[NPU_NL_A_PROC_CTX_ID]);
	p->mem = get_u64(tb[NPU_NL_A_PROC_MEM_DEVICE]);
	p->pinned = get_u64(tb[NPU_NL_A_PROC_HOST_PINNED]);
	p->memlock = get_u64(tb[NPU_NL_A_PROC_HOST_MEMLOCK]);
	p->faults = get_u64(tb[NPU_NL_A_PROC_FAULTS]);
	p->lost = tb[NPU_NL_A_PROC_LOST];
	copy_str(p->comm, sizeof(p->comm), tb[NPU_NL_A_PROC_COMM]);
}

static int collect_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct collect *c = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NPU_NL_A_MAX, NULL))
		return NL_SKIP;
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		void *p = realloc(c->items, cap * c->size);

		if (!p) {
			c->err = -ENOMEM;
			return NL_SKIP;
		}
		c->items = p;
		c->cap = cap;
	}
	memset((char *)c->items + c->n * c->size, 0, c->size);
	c->parse(tb, (char *)c->items + c->n * c->size);
	c->n++;
	return NL_OK;
}

/* Send one request, run @cb on each reply: 0 or the kernel's -errno. */
static int request(struct npu_nl *nl, uint8_t cmd, int flags, int64_t dev,
		   nl_recvmsg_msg_cb_t cb, void *arg)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *c = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!msg || !c) {
		ret = -ENOMEM;
		goto out;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 flags | NLM_F_ACK, cmd, NPU_GENL_VERSION) ||
	    (dev >= 0 && nla_put_u32(msg, NPU_NL_A_DEV_INDEX, dev))) {
		ret = -EMSGSIZE;
		goto out;
	}
	if (cb)
		nl_cb_set(c, NL_CB_VALID, NL_CB_CUSTOM, cb, arg);
	nl_cb_err(c, NL_CB_CUSTOM, err_cb, nl);
	nl_cb_set(c, NL_CB_FINISH, NL_CB_CUSTOM, done_cb, nl);
	nl_cb_set(c, NL_CB_ACK, NL_CB_CUSTOM, done_cb, nl);
	if (nl_send_auto(nl->sk, msg) < 0) {
		ret = -EIO;
		goto out;
	}
	nl->status = 1;
	while (nl->status > 0) {
		ret = nl_recvmsgs(nl->sk, c);
		if (ret < 0 && nl->status > 0) {
			ret = -EIO;
			goto out;
		}
	}
	ret = nl->status;
out:
	nl_cb_put(c);
	nlmsg_free(msg);
	return ret;
}

static int dump(struct npu_nl *nl, uint8_t cmd, int flags, int64_t dev, size_t size,
		void (*parse)(struct nlattr **, void *), void **out, int *n)
{
	struct collect c = { .nl = nl, .size = size, .parse = parse };
	int ret = request(nl, cmd, flags, dev, collect_cb, &c);

	if (!ret)
		ret = c.err;
	if (ret) {
		free(c.items);
		return ret;
	}
	*out = c.items;
	*n = c.n;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int npu_nl_devices(struct npu_nl *nl, int64_t dev, struct npu_nl_dev **out, int *n)
{
	uint64_t t0 = mono_ns(), t;
	int ret = dump(nl, NPU_NL_CMD_DEVICE_GET, dev >= 0 ? 0 : NLM_F_DUMP, dev,
		       sizeof(**out), parse_dev, (void **)out, n);
	int i;

	if (ret)
		return ret;
	/* the kernel read each busy clock between the request and the reply */
	t = t0 + (mono_ns() - t0) / 2;
	for (i = 0; i < *n; i++)
		(*out)[i].sampled_ns = t;
	return 0;
}

int npu_nl_processes(struct npu_nl *nl, int64_t dev, struct npu_nl_proc **out, int *n)
{
	return dump(nl, NPU_NL_CMD_PROCESS_GET, NLM_F_DUMP, dev, sizeof(**out),
		    parse_proc, (void **)out, n);
}

int npu_nl_procs_by_pid(struct npu_nl_proc *p, int n)
{
	int i, j, m = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < m; j++)
			if (p[j].dev == p[i].dev && p[j].pid == p[i].pid)
				break;
		if (j < m) {
			p[j].mem += p[i].mem;
			p[j].pinned += p[i].pinned;
			p[j].memlock += p[i].memlock;
			p[j].faults += p[i].faults;
			p[j].lost |= p[i].lost;
			p[j].mappings += p[i].mappings;
			p[j].reservations += p[i].reservations;
			p[j].streams += p[i].streams;
			p[j].exported += p[i].exported;
			p[j].imported += p[i].imported;
		} else {
			p[m++] = p[i];
		}
	}
	return m;
}

int npu_nl_counters_reset(struct npu_nl *nl, int64_t dev)
{
	return request(nl, NPU_NL_CMD_COUNTERS_RESET, 0, dev, NULL, NULL);
}

int npu_nl_device_reset(struct npu_nl *nl, int64_t dev)
{
	return request(nl, NPU_NL_CMD_DEVICE_RESET, 0, dev, NULL, NULL);
}

int npu_nl_faults_join(struct npu_nl *nl)
{
	int grp = genl_ctrl_resolve_grp(nl->sk, NPU_GENL_NAME, NPU_GENL_MCGRP_FAULTS);
	int ret;

	if (grp < 0)
		return -ENOENT;
	ret = nl_socket_add_membership(nl->sk, grp);
	if (ret)
		return ret == -NLE_PERM ? -EPERM : -EIO;
	nl_socket_disable_seq_check(nl->sk);
	return 0;
}

int npu_nl_fault_fd(struct npu_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

struct fault_arg {
	void (*fn)(const struct npu_nl_fault *f, void *arg);
	void *arg;
};

static int fault_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct fault_arg *fa = arg;
	struct npu_nl_fault f = { 0 };

	if (gh->cmd != NPU_NL_CMD_FAULT ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, NPU_NL_A_MAX, NULL))
		return NL_SKIP;
	f.dev = get_u32(tb[NPU_NL_A_DEV_INDEX]);
	f.pid = get_u32(tb[NPU_NL_A_PROC_PID]);
	f.stream = get_u32(tb[NPU_NL_A_FAULT_STREAM]);
	f.addr = get_u64(tb[NPU_NL_A_FAULT_ADDR]);
	f.write = tb[NPU_NL_A_FAULT_ACCESS] &&
		  nla_get_u8(tb[NPU_NL_A_FAULT_ACCESS]) == NPU_NL_ACCESS_WRITE;
	f.host = tb[NPU_NL_A_FAULT_SPACE] &&
		 nla_get_u8(tb[NPU_NL_A_FAULT_SPACE]) == NPU_NL_SPACE_HOST;
	copy_str(f.comm, sizeof(f.comm), tb[NPU_NL_A_PROC_COMM]);
	copy_str(f.reason, sizeof(f.reason), tb[NPU_NL_A_FAULT_REASON]);
	fa->fn(&f, fa->arg);
	return NL_OK;
}

static int seq_ok(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

int npu_nl_fault_recv(struct npu_nl *nl,
		      void (*fn)(const struct npu_nl_fault *f, void *arg), void *arg)
{
	struct fault_arg fa = { fn, arg };
	struct nl_cb *c = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	if (!c)
		return -ENOMEM;
	nl_cb_set(c, NL_CB_VALID, NL_CB_CUSTOM, fault_cb, &fa);
	/* events carry no sequence number of ours */
	nl_cb_set(c, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, seq_ok, NULL);
	ret = nl_recvmsgs(nl->sk, c);
	nl_cb_put(c);
	if (ret == -NLE_INTR || ret == -NLE_AGAIN)
		return -EINTR;
	return ret < 0 ? -EIO : 0;
}

unsigned int npu_nl_health(const struct npu_nl_dev *d)
{
	if (d->unplugged)
		return NPU_NL_HEALTH_CRITICAL;
	if (d->resetting)
		return NPU_NL_HEALTH_ALARM;
	return d->faults ? NPU_NL_HEALTH_WARNING : NPU_NL_HEALTH_OK;
}

const char *npu_nl_health_name(unsigned int health)
{
	static const char *const names[] = { "OK", "Warning", "Alarm", "Critical" };

	return health < 4 ? names[health] : "UNKNOWN";
}

int npu_nl_errcodes(const struct npu_nl_dev *d, unsigned int *codes)
{
	int n = 0;

	if (d->faults)
		codes[n++] = NPU_NL_ERRCODE_DMA_FAULT;
	if (d->unplugged)
		codes[n++] = NPU_NL_ERRCODE_UNPLUGGED;
	if (d->resetting)
		codes[n++] = NPU_NL_ERRCODE_RESETTING;
	return n;
}

const char *npu_nl_errcode_text(unsigned int code)
{
	switch (code) {
	case NPU_NL_ERRCODE_DMA_FAULT:
		return "DMA fault: a command accessed an address it may not (since load or counter reset)";
	case NPU_NL_ERRCODE_UNPLUGGED:
		return "device removed: the PCI carrier was unplugged";
	case NPU_NL_ERRCODE_RESETTING:
		return "device reset in progress: its contexts were lost, it takes new ones when the reset is done";
	default:
		return NULL;
	}
}

/* One hex value from a sysfs file. */
static int read_hex(const char *dir, const char *name, unsigned int *v)
{
	char path[160];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ok = fscanf(f, "%x", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

int npu_nl_pci(const struct npu_nl_dev *d, struct npu_nl_pci *pci)
{
	char dir[96];
	int ret;

	memset(pci, 0, sizeof(*pci));
	if (sscanf(d->carrier, "%x:%x:%x.%x", &pci->domain, &pci->bus, &pci->dev,
		   &pci->fn) != 4)
		return -ENODEV;
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", d->carrier);
	ret = read_hex(dir, "vendor", &pci->vendor);
	if (!ret)
		ret = read_hex(dir, "device", &pci->device);
	if (!ret)
		ret = read_hex(dir, "subsystem_vendor", &pci->subvendor);
	if (!ret)
		ret = read_hex(dir, "subsystem_device", &pci->subdevice);
	/* an unplugged carrier has no sysfs directory: the address stays */
	pci->ids = !ret;
	return 0;
}

static int read_uint(const char *path, unsigned int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%u", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

int npu_nl_cores(unsigned int *cube, unsigned int *vector)
{
	int ret = read_uint("/sys/module/npu/parameters/cube_cores", cube);

	return ret ? ret : read_uint("/sys/module/npu/parameters/vector_cores", vector);
}

void npu_nl_version_str(uint32_t version, char *buf, unsigned int len)
{
	snprintf(buf, len, "%u.%u.%u", version >> 16, (version >> 8) & 0xff,
		 version & 0xff);
}

unsigned long long npu_nl_mib(uint64_t bytes)
{
	return bytes >> 20;
}

unsigned int npu_nl_hbm_rate(const struct npu_nl_dev *d)
{
	unsigned long long total = npu_nl_mib(d->total);

	return total ? npu_nl_mib(d->used) * 100 / total : 0;
}

/* Busy over wall time in whole percent, rounded, clamped to 0..100. */
static int util_rate(const struct npu_nl_dev *before, const struct npu_nl_dev *after)
{
	/* the kernel's clock is local_clock(): never trust it to be monotonic */
	int64_t busy = (int64_t)(after->busy_ns - before->busy_ns);
	int64_t wall = (int64_t)(after->sampled_ns - before->sampled_ns);

	if (wall <= 0 || busy <= 0)
		return 0;
	if (busy >= wall)
		return 100;
	return (busy * 100 + wall / 2) / wall;
}

void npu_nl_util(struct npu_nl_dev *after, int na, const struct npu_nl_dev *before, int nb)
{
	int i, j;

	for (i = 0; i < na; i++) {
		after[i].util = -1;
		for (j = 0; j < nb; j++) {
			if (before[j].index == after[i].index) {
				after[i].util = util_rate(&before[j], &after[i]);
				break;
			}
		}
	}
}

void npu_nl_util_wait(const struct npu_nl_dev *before)
{
	uint64_t end = before->sampled_ns + NPU_NL_UTIL_WINDOW_MS * 1000000ULL, now;
	struct timespec ts;

	while ((now = mono_ns()) < end) {
		ts.tv_sec = (end - now) / 1000000000ULL;
		ts.tv_nsec = (end - now) % 1000000000ULL;
		nanosleep(&ts, NULL);
	}
}

int npu_nl_util_window(struct npu_nl *nl, int64_t dev, struct npu_nl_dev **devs, int *n)
{
	struct npu_nl_dev *after;
	int ret, na;

	if (*n)
		npu_nl_util_wait(&(*devs)[0]);
	ret = npu_nl_devices(nl, dev, &after, &na);
	if (ret)
		return ret;
	npu_nl_util(after, na, *devs, *n);
	free(*devs);
	*devs = after;
	*n = na;
	return 0;
}
