// SPDX-License-Identifier: GPL-2.0
/*
 * tools/npu_smi.c - npu-smi: devices, the processes using them and DMA
 * faults, from the driver's generic netlink family "npu" (libnl-3 and
 * libnl-genl-3; Documentation/netlink.rst).
 *
 *   npu-smi [info] [-i N] [--json]     devices and processes
 *   npu-smi watch-faults [--count N]   fault events until N or SIGINT
 *   npu-smi reset-counters [-i N]      memory peak and fault counters
 *   npu-smi module ...                 tools/npu_smi_module.c
 *
 * Exit codes (a script may rely on them): NPU_SMI_EXIT_* in npu_smi.h,
 * shared with the module commands.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "uapi/npu.h"
#include "uapi/npu_netlink.h"
#include "npu_smi.h"


#define MAX_DEVS	64
#define MAX_PROCS	4096

struct dev {
	uint32_t index, contexts, version;
	uint64_t total, used, peak, page_sizes, faults;
	bool unplugged;
	char name[32], carrier[32], iommu[16], soc[64];
};

struct proc {
	uint32_t dev, pid, uid, mappings, reservations, streams, exported,
		 imported;
	uint64_t ctx_id, mem, pinned, memlock, faults;
	char comm[32];
};

static struct dev devs[MAX_DEVS];
static int ndevs;
static struct proc *procs;
static int nprocs;

static struct nl_sock *sk;
static int family;

/* The request's outcome: 1 running, 0 done, negative errno from the kernel. */
static int req_status;

static int err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	(void)nla;
	(void)arg;
	req_status = e->error;
	return NL_STOP;
}

static int finish_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	req_status = 0;
	return NL_SKIP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	req_status = 0;
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

static int dev_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct dev *d;

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NPU_NL_A_MAX, NULL) ||
	    ndevs >= MAX_DEVS)
		return NL_SKIP;
	d = &devs[ndevs++];
	d->index = get_u32(tb[NPU_NL_A_DEV_INDEX]);
	d->contexts = get_u32(tb[NPU_NL_A_DEV_CONTEXTS]);
	d->version = get_u32(tb[NPU_NL_A_DEV_DRIVER_VERSION]);
	d->total = get_u64(tb[NPU_NL_A_DEV_MEM_TOTAL]);
	d->used = get_u64(tb[NPU_NL_A_DEV_MEM_USED]);
	d->peak = get_u64(tb[NPU_NL_A_DEV_MEM_PEAK]);
	d->page_sizes = get_u64(tb[NPU_NL_A_DEV_PAGE_SIZES]);
	d->faults = get_u64(tb[NPU_NL_A_DEV_FAULTS]);
	d->unplugged = tb[NPU_NL_A_DEV_UNPLUGGED];
	copy_str(d->name, sizeof(d->name), tb[NPU_NL_A_DEV_NAME]);
	copy_str(d->carrier, sizeof(d->carrier), tb[NPU_NL_A_DEV_CARRIER]);
	copy_str(d->iommu, sizeof(d->iommu), tb[NPU_NL_A_DEV_IOMMU]);
	copy_str(d->soc, sizeof(d->soc), tb[NPU_NL_A_DEV_SOC_NAME]);
	return NL_OK;
}

static int proc_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[NPU_NL_A_MAX + 1];
	struct proc *p;

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NPU_NL_A_MAX, NULL) ||
	    nprocs >= MAX_PROCS)
		return NL_SKIP;
	p = &procs[nprocs++];
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
	copy_str(p->comm, sizeof(p->comm), tb[NPU_NL_A_PROC_COMM]);
	return NL_OK;
}

/* Map a kernel errno to an exit code, saying what went wrong. */
static int fail(const char *what, int err)
{
	fprintf(stderr, "npu-smi: %s: %s\n", what, strerror(-err));
	switch (err) {
	case -EPERM:
	case -EACCES:
		return NPU_SMI_EXIT_PERM;
	case -ENODEV:
		return NPU_SMI_EXIT_NOENT;
	default:
		return NPU_SMI_EXIT_ERROR;
	}
}

/* Send one request, run @cb on each reply: 0 or the kernel's -errno. */
static int request(uint8_t cmd, int flags, int64_t dev,
		   nl_recvmsg_msg_cb_t cb)
{
	struct nl_cb *c;
	struct nl_msg *msg;
	int ret;

	msg = nlmsg_alloc();
	c = nl_cb_alloc(NL_CB_DEFAULT);
	if (!msg || !c) {
		nlmsg_free(msg);
		nl_cb_put(c);
		return -ENOMEM;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 flags | NLM_F_ACK, cmd, NPU_GENL_VERSION) ||
	    (dev >= 0 && nla_put_u32(msg, NPU_NL_A_DEV_INDEX, dev))) {
		ret = -EMSGSIZE;
		goto out;
	}
	if (cb)
		nl_cb_set(c, NL_CB_VALID, NL_CB_CUSTOM, cb, NULL);
	nl_cb_err(c, NL_CB_CUSTOM, err_cb, NULL);
	nl_cb_set(c, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, NULL);
	nl_cb_set(c, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, NULL);
	ret = nl_send_auto(sk, msg);
	if (ret < 0) {
		ret = -EIO;
		goto out;
	}
	req_status = 1;
	while (req_status > 0) {
		ret = nl_recvmsgs(sk, c);
		if (ret < 0 && req_status > 0) {
			ret = -EIO;
			goto out;
		}
	}
	ret = req_status;
out:
	nl_cb_put(c);
	nlmsg_free(msg);
	return ret;
}

/* Connect and find the family: 0 or an exit code. */
static int connect_family(void)
{
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "npu-smi: cannot open a generic netlink socket\n");
		return NPU_SMI_EXIT_ERROR;
	}
	family = genl_ctrl_resolve(sk, NPU_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "npu-smi: the npu driver is not loaded (no generic netlink family \"%s\")\n",
			NPU_GENL_NAME);
		return NPU_SMI_EXIT_NOENT;
	}
	return 0;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json(void)
{
	int i;

	printf("{\n  \"devices\": [");
	for (i = 0; i < ndevs; i++) {
		struct dev *d = &devs[i];
		const char *sep = "";
		int b;

		printf("%s\n    {\"index\": %" PRIu32 ", \"name\": ", i ? "," : "",
		       d->index);
		json_str(d->name);
		printf(", \"carrier\": ");
		json_str(d->carrier);
		printf(", \"iommu\": ");
		json_str(d->iommu);
		printf(", \"soc_name\": ");
		json_str(d->soc);
		printf(", \"driver_version\": \"%u.%u.%u\"", d->version >> 16,
		       (d->version >> 8) & 0xff, d->version & 0xff);
		printf(", \"memory_total\": %" PRIu64 ", \"memory_used\": %" PRIu64
		       ", \"memory_peak\": %" PRIu64, d->total, d->used, d->peak);
		printf(", \"contexts\": %" PRIu32 ", \"page_sizes\": [", d->contexts);
		for (b = 0; b < 64; b++) {
			if (d->page_sizes & (1ULL << b)) {
				printf("%s%llu", sep, 1ULL << b);
				sep = ", ";
			}
		}
		printf("], \"dma_faults\": %" PRIu64 ", \"unplugged\": %s}",
		       d->faults, d->unplugged ? "true" : "false");
	}
	printf("\n  ],\n  \"processes\": [");
	for (i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];

		printf("%s\n    {\"pid\": %" PRIu32 ", \"comm\": ", i ? "," : "",
		       p->pid);
		json_str(p->comm);
		printf(", \"uid\": %" PRIu32 ", \"device\": %" PRIu32
		       ", \"context_id\": %" PRIu64, p->uid, p->dev, p->ctx_id);
		printf(", \"device_memory\": %" PRIu64 ", \"host_pinned\": %" PRIu64
		       ", \"host_memlock\": %" PRIu64, p->mem, p->pinned, p->memlock);
		printf(", \"mappings\": %" PRIu32 ", \"reservations\": %" PRIu32
		       ", \"streams\": %" PRIu32 ", \"exported\": %" PRIu32
		       ", \"imported\": %" PRIu32 ", \"dma_faults\": %" PRIu64 "}",
		       p->mappings, p->reservations, p->streams, p->exported,
		       p->imported, p->faults);
	}
	printf("\n  ]\n}\n");
}

static double mib(uint64_t b)
{
	return b / 1048576.0;
}

static void print_table(void)
{
	int i;

	if (ndevs)
		printf("npu-smi  driver %u.%u.%u\n\n", devs[0].version >> 16,
		       (devs[0].version >> 8) & 0xff, devs[0].version & 0xff);
	printf("%-4s %-6s %-13s %-9s %-12s %21s %10s %4s %6s\n", "NPU", "Name",
	       "Carrier", "IOMMU", "SoC", "Memory used/total MiB", "Peak MiB",
	       "Ctx", "Faults");
	for (i = 0; i < ndevs; i++) {
		struct dev *d = &devs[i];
		char mem[48];

		snprintf(mem, sizeof(mem), "%.1f / %.0f", mib(d->used), mib(d->total));
		printf("%-4" PRIu32 " %-6s %-13s %-9s %-12s %21s %10.1f %4" PRIu32
		       " %6" PRIu64 "%s\n", d->index, d->name, d->carrier, d->iommu,
		       d->soc, mem, mib(d->peak), d->contexts, d->faults,
		       d->unplugged ? "  (unplugged)" : "");
	}
	printf("\nProcesses:\n%-4s %-8s %-6s %-16s %10s %10s %10s %5s %5s %7s %4s %4s %6s\n",
	       "NPU", "PID", "UID", "Name", "Dev MiB", "Pinned MiB", "Memlock",
	       "Maps", "Resv", "Streams", "Exp", "Imp", "Faults");
	if (!nprocs)
		printf("  no processes (of yours; CAP_SYS_ADMIN sees everyone's)\n");
	for (i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];

		printf("%-4" PRIu32 " %-8" PRIu32 " %-6" PRIu32 " %-16s %10.1f %10.1f %10.1f %5"
		       PRIu32 " %5" PRIu32 " %7" PRIu32 " %4" PRIu32 " %4" PRIu32 " %6"
		       PRIu64 "\n", p->dev, p->pid, p->uid, p->comm, mib(p->mem),
		       mib(p->pinned), mib(p->memlock), p->mappings,
		       p->reservations, p->streams, p->exported, p->imported,
		       p->faults);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npu-smi [info] [-i N] [--json]\n"
		"       npu-smi watch-faults [--count N]\n"
		"       npu-smi reset-counters [-i N]\n"
		"       npu-smi module ...\n"
		"       npu-smi --help\n"
		"\n"
		"  info            devices and the processes using them (default)\n"
		"    -i, --id N    only device N\n"
		"    --json        one JSON document instead of the tables\n"
		"  watch-faults    print each DMA fault as it happens, until Ctrl-C\n"
		"    --count N     stop after N faults\n"
		"  reset-counters  memory peak and fault counters (CAP_NET_ADMIN)\n"
		"  module          load, unload, status of npu.ko\n"
		"\n"
		"Without CAP_SYS_ADMIN only your own processes are listed.\n"
		"Exit status: 0 ok, 1 other error, 2 usage, 3 not permitted, 4 module in use,\n"
		"5 bad module parameter, 6 no such device / driver or module not loaded,\n"
		"7 module loaded already.\n");
}

static int parse_uint(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || !*s || *end || *v < 0 || *v > INT32_MAX ? -1 : 0;
}


/* -h and an unknown option of a command's getopt loop. */
static int opt_end(int c)
{
	if (c == 'h') {
		usage(stdout);
		return NPU_SMI_EXIT_OK;
	}
	usage(stderr);
	return NPU_SMI_EXIT_USAGE;
}

static int extra_arg(const char *cmd, const char *arg)
{
	fprintf(stderr, "npu-smi: %s: unexpected argument '%s'\n", cmd, arg);
	return NPU_SMI_EXIT_USAGE;
}

static int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "id", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool json = false;
	long dev = -1;
	int c, ret;

	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_uint(optarg, &dev)) {
				fprintf(stderr, "npu-smi: -i %s: not a device index\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		default:
			return opt_end(c);
		}
	}
	if (optind < argc)
		return extra_arg("info", argv[optind]);
	ret = connect_family();
	if (ret)
		return ret;
	procs = calloc(MAX_PROCS, sizeof(*procs));
	if (!procs)
		return fail("info", -ENOMEM);
	ret = request(NPU_NL_CMD_DEVICE_GET, dev >= 0 ? 0 : NLM_F_DUMP, dev,
		      dev_cb);
	if (ret)
		return fail(dev >= 0 ? "device" : "devices", ret);
	ret = request(NPU_NL_CMD_PROCESS_GET, NLM_F_DUMP, dev, proc_cb);
	if (ret)
		return fail("processes", ret);
	if (json)
		print_json();
	else
		print_table();
	return fflush(stdout) ? NPU_SMI_EXIT_ERROR : NPU_SMI_EXIT_OK;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long fault_count, fault_limit;

static int fault_cb(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[NPU_NL_A_MAX + 1];
	uint8_t access, space;

	(void)arg;
	if (gh->cmd != NPU_NL_CMD_FAULT ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, NPU_NL_A_MAX, NULL))
		return NL_SKIP;
	access = tb[NPU_NL_A_FAULT_ACCESS] ? nla_get_u8(tb[NPU_NL_A_FAULT_ACCESS]) : 0;
	space = tb[NPU_NL_A_FAULT_SPACE] ? nla_get_u8(tb[NPU_NL_A_FAULT_SPACE]) : 0;
	printf("npu%" PRIu32 " pid %" PRIu32 " (%s) stream %" PRIu32 " %s %s 0x%" PRIx64 ": %s\n",
	       get_u32(tb[NPU_NL_A_DEV_INDEX]), get_u32(tb[NPU_NL_A_PROC_PID]),
	       tb[NPU_NL_A_PROC_COMM] ? nla_get_string(tb[NPU_NL_A_PROC_COMM]) : "",
	       get_u32(tb[NPU_NL_A_FAULT_STREAM]),
	       access == NPU_NL_ACCESS_WRITE ? "write" : "read",
	       space == NPU_NL_SPACE_HOST ? "host" : "va",
	       get_u64(tb[NPU_NL_A_FAULT_ADDR]),
	       tb[NPU_NL_A_FAULT_REASON] ? nla_get_string(tb[NPU_NL_A_FAULT_REASON]) : "");
	fflush(stdout);
	fault_count++;
	return NL_OK;
}

static int cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pfd;
	int c, ret, grp;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_uint(optarg, &fault_limit) || !fault_limit) {
				fprintf(stderr, "npu-smi: --count %s: not a positive number\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		default:
			return opt_end(c);
		}
	}
	if (optind < argc)
		return extra_arg("watch-faults", argv[optind]);
	ret = connect_family();
	if (ret)
		return ret;
	grp = genl_ctrl_resolve_grp(sk, NPU_GENL_NAME, NPU_GENL_MCGRP_FAULTS);
	if (grp < 0) {
		fprintf(stderr, "npu-smi: the driver has no \"%s\" group\n",
			NPU_GENL_MCGRP_FAULTS);
		return NPU_SMI_EXIT_NOENT;
	}
	ret = nl_socket_add_membership(sk, grp);
	if (ret) {
		fprintf(stderr, "npu-smi: cannot join the faults group: %s\n",
			nl_geterror(ret));
		return ret == -NLE_PERM ? NPU_SMI_EXIT_PERM : NPU_SMI_EXIT_ERROR;
	}
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, fault_cb, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Tell a waiting script (or test) that events are being listened for. */
	fprintf(stderr, "npu-smi: watching DMA faults\n");
	pfd.fd = nl_socket_get_fd(sk);
	pfd.events = POLLIN;
	while (!stop && (!fault_limit || fault_count < fault_limit)) {
		ret = poll(&pfd, 1, -1);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return fail("poll", -errno);
		}
		ret = nl_recvmsgs_default(sk);
		if (ret < 0 && ret != -NLE_INTR) {
			fprintf(stderr, "npu-smi: receive: %s\n", nl_geterror(ret));
			return NPU_SMI_EXIT_ERROR;
		}
	}
	return NPU_SMI_EXIT_OK;
}

static int cmd_reset(int argc, char **argv)
{
	long dev = -1;
	int c, ret;

	while ((c = getopt(argc, argv, "i:h")) != -1) {
		switch (c) {
		case 'i':
			if (parse_uint(optarg, &dev)) {
				fprintf(stderr, "npu-smi: -i %s: not a device index\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		default:
			return opt_end(c);
		}
	}
	if (optind < argc)
		return extra_arg("reset-counters", argv[optind]);
	ret = connect_family();
	if (ret)
		return ret;
	ret = request(NPU_NL_CMD_COUNTERS_RESET, 0, dev, NULL);
	return ret ? fail("reset-counters", ret) : NPU_SMI_EXIT_OK;
}

/* Replaced by tools/npu_smi_module.c when it is built in. */
__attribute__((weak)) int npu_smi_module(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "npu-smi: module: not built\n");
	return NPU_SMI_EXIT_NOENT;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "info";
	int ret;

	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return NPU_SMI_EXIT_OK;
	}
	if (argc > 1 && cmd[0] == '-') {
		/* options of the default command */
		ret = cmd_info(argc, argv);
	} else if (!strcmp(cmd, "info")) {
		ret = cmd_info(argc - 1, argv + 1);
	} else if (!strcmp(cmd, "watch-faults")) {
		ret = cmd_watch(argc - 1, argv + 1);
	} else if (!strcmp(cmd, "reset-counters")) {
		ret = cmd_reset(argc - 1, argv + 1);
	} else if (!strcmp(cmd, "module")) {
		return npu_smi_module(argc - 1, argv + 1);
	} else {
		fprintf(stderr, "npu-smi: unknown command '%s' (npu-smi --help)\n", cmd);
		return NPU_SMI_EXIT_USAGE;
	}
	if (sk)
		nl_socket_free(sk);
	free(procs);
	return ret;
}
