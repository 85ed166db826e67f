// SPDX-License-Identifier: GPL-2.0
/*
 * tools/npu_smi.c - npu-smi: the command line, in the vendor tool's form
 * (`npu-smi -h`, `-v`, `info`, `set`), and what npu adds: a JSON summary
 * with exact byte counts, the live DMA fault stream, the counter reset
 * and module load/unload. Everything comes from the driver's generic
 * netlink family "npu" (tools/npu_nl.c; Documentation/netlink.rst).
 *
 *   npu-smi [info] ...                 tools/npu_smi_info.c
 *   npu-smi set -t reset -i N [-m 1]   a device reset, as the vendor's
 *   npu-smi set -t TYPE -i N           the other types: not on this device
 *   npu-smi watch-faults [--count N]   fault events until N or SIGINT
 *   npu-smi reset-counters [-i N]      memory peak and fault counters
 *   npu-smi module ...                 tools/npu_smi_module.c
 *
 * Exit codes (a script may rely on them): NPU_SMI_EXIT_* in npu_smi.h.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npu_smi.h"

int smi_fail(const char *what, int err)
{
	if (err == -ENOENT) {
		fprintf(stderr, "npu-smi: the npu driver is not loaded (no generic netlink family \"npu\")\n");
		return NPU_SMI_EXIT_NOENT;
	}
	fprintf(stderr, "npu-smi: %s: %s\n", what, strerror(-err));
	switch (err) {
	case -EPERM:
	case -EACCES:
		return NPU_SMI_EXIT_PERM;
	case -ENODEV:
		return NPU_SMI_EXIT_NOENT;
	case -EBUSY:
		return NPU_SMI_EXIT_BUSY;
	default:
		return NPU_SMI_EXIT_ERROR;
	}
}

long smi_parse_uint(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno || !*s || *end || v < 0 || v > INT32_MAX ? -1 : v;
}

int smi_snapshot(struct smi_snap *s, int64_t dev, bool procs)
{
	int ret;

	smi_snapshot_drop(s);
	if (!s->nl.sk) {
		ret = npu_nl_open(&s->nl);
		if (ret)
			return smi_fail("netlink", ret);
	}
	ret = npu_nl_devices(&s->nl, dev, &s->devs, &s->ndevs);
	if (ret)
		return smi_fail(dev >= 0 ? "device" : "devices", ret);
	if (procs) {
		ret = npu_nl_processes(&s->nl, dev, &s->procs, &s->nprocs);
		if (ret)
			return smi_fail("processes", ret);
	}
	return 0;
}

int smi_snapshot_util(struct smi_snap *s, int64_t dev)
{
	int ret = npu_nl_util_window(&s->nl, dev, &s->devs, &s->ndevs);

	return ret ? smi_fail(dev >= 0 ? "device" : "devices", ret) : 0;
}

void smi_snapshot_drop(struct smi_snap *s)
{
	free(s->devs);
	free(s->procs);
	s->devs = NULL;
	s->procs = NULL;
	s->ndevs = s->nprocs = 0;
}

void smi_snapshot_close(struct smi_snap *s)
{
	smi_snapshot_drop(s);
	npu_nl_close(&s->nl);
}

/* `npu-smi -h`: the vendor's command list, in its layout, with npu's own. */
static void usage(FILE *f)
{
	static const char *const cmds[][2] = {
		{ "-h", "This command's help information" },
		{ "--help", "This command's help information" },
		{ "-v", "Show npu-smi version information" },
		{ "info", "Show hardware details" },
		{ "set", "Modify device configuration properties" },
		{ "watch-faults", "Print each DMA fault as it happens (npu)" },
		{ "reset-counters", "Reset memory peak and fault counters (npu)" },
		{ "module", "Load, unload and describe npu.ko (npu)" },
	};
	unsigned int i;

	fprintf(f, "Usage: npu-smi <Command|-h|-v> [Options...]\n\n");
	fprintf(f, "npu-smi Command:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "\t%-12s  %s\n", cmds[i][0], cmds[i][1]);
	fprintf(f, "\nWithout a command, npu-smi runs `info`. `npu-smi <command> -h` tells more.\n"
		"Exit status: 0 ok, 1 other error, 2 usage, 3 not permitted, 4 module in use or\n"
		"reset under way, 5 bad module parameter, 6 no such device / driver or module\n"
		"not loaded, 7 module loaded already, 8 not supported by the simulated device,\n"
		"9 aborted at the confirmation.\n");
}

static int extra_arg(const char *cmd, const char *arg)
{
	fprintf(stderr, "npu-smi: %s: unexpected argument '%s'\n", cmd, arg);
	return NPU_SMI_EXIT_USAGE;
}

/* `npu-smi set -h`, as the vendor's, with the types npu knows of. */
static void set_usage(FILE *f)
{
	fprintf(f, "Usage: npu-smi set <-h|-t type> [Options...]\n\n"
		"Commands:\n"
		"       -h, --help     Show this help text and exit\n"
		"       -t type        The set type for device\n"
		"                      type: reset, clear-ecc-info, key-manage, sys-log-enable, sys-log-dump,\n"
		"                            clear-syslog-cfg, tls-cert, tls-cert-period.\n"
		"Options:\n"
		"       -i %%d          NPU ID\n"
		"       -d %%d          Config value\n"
		"       -m             By in-band reset, only can input 1\n"
		"\nThe simulated device resets (reset, CAP_SYS_ADMIN; in-band or not, the same\n"
		"reset: y or Y on stdin confirms it); it has none of the other settings: each\n"
		"answers that it is not supported (exit 8). `npu-smi reset-counters` resets\n"
		"its counters.\n");
}

/* The longest a reset may take: the driver keeps a device down 60 s at most. */
#define RESET_WAIT_MS	120000

/* Wait until device @dev's reset is done: 0 or -errno. */
static int reset_wait(struct npu_nl *nl, long dev)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	struct npu_nl_dev *d;
	int n, ret, waited;

	for (waited = 0; waited < RESET_WAIT_MS; waited += 20) {
		ret = npu_nl_devices(nl, dev, &d, &n);
		if (ret)
			return ret;
		ret = n != 1 || d->unplugged ? -ENODEV : d->resetting ? 1 : 0;
		free(d);
		if (ret <= 0)
			return ret;
		nanosleep(&nap, NULL);
	}
	return -ETIMEDOUT;
}

/*
 * `npu-smi set -t reset -i N [-m 1]`: the vendor's confirmation and lines
 * (its npu_set_print.c); the simulated device has one kind of reset, which
 * either channel asks for. The answer is read from stdin as the vendor's
 * tool reads it: a word, "Y" or "y" to go on.
 */
static int set_reset(long dev, bool inband)
{
	const char *chan = inband ? "inband" : "outband";
	struct smi_snap s = { 0 };
	char answer[16];
	int ret;

	/* a device that does not exist is that error, before the question */
	ret = smi_snapshot(&s, dev, false);
	if (ret) {
		smi_snapshot_close(&s);
		return ret;
	}
	printf("Resetting the standard PCIe card or NPU chip may cause a system hang or"
	       " abnormal reset during service running.\n");
	printf("Are you sure you want to continue resetting?(Y/N)\n");
	fflush(stdout);
	if (scanf("%15s", answer) != 1 || (strcmp(answer, "Y") && strcmp(answer, "y"))) {
		smi_snapshot_close(&s);
		printf("\t%-30s : %s\n", "Status", "Fail");
		printf("\t%-30s : User aborts reset card by %s.\n", "Message", chan);
		return NPU_SMI_EXIT_ABORTED;
	}
	printf("\t%-30s : %s\n", "Message", "resetting ...");
	fflush(stdout);
	ret = npu_nl_device_reset(&s.nl, dev);
	if (!ret)
		ret = reset_wait(&s.nl, dev);
	smi_snapshot_close(&s);
	if (ret) {
		printf("\t%-30s : %s\n", "Status", "Fail");
		printf("\t%-30s : Failed to reset card\n", "Message");
		fflush(stdout);
		return smi_fail("reset", ret);
	}
	printf("\t%-30s : %s\n", "Status", "OK");
	printf("\t%-30s : Reset card successfully.\n", "Message");
	return NPU_SMI_EXIT_OK;
}

static int cmd_set(int argc, char **argv)
{
	static const char *const types[] = {
		"reset", "clear-ecc-info", "key-manage", "sys-log-enable",
		"sys-log-dump", "clear-syslog-cfg", "tls-cert", "tls-cert-period",
	};
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *type = NULL;
	struct smi_snap s = { 0 };
	bool inband = false;
	long dev = -1;
	unsigned int i;
	int c, ret;

	while ((c = getopt_long(argc, argv, "ht:i:d:m:s:f:", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			type = optarg;
			break;
		case 'i':
			dev = smi_parse_uint(optarg);
			if (dev < 0) {
				fprintf(stderr, "npu-smi: -i %s: not an NPU ID\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		case 'm':
			/* the vendor's: in-band, and only 1 */
			if (strcmp(optarg, "1")) {
				fprintf(stderr, "npu-smi: -m %s: only 1 (in-band) is accepted\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			inband = true;
			break;
		case 'd': case 's': case 'f':
			break;
		case 'h':
			set_usage(stdout);
			return NPU_SMI_EXIT_OK;
		default:
			set_usage(stderr);
			return NPU_SMI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return extra_arg("set", argv[optind]);
	for (i = 0; type && i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i]))
			break;
	if (!type || i == sizeof(types) / sizeof(types[0]) || dev < 0) {
		set_usage(stderr);
		return NPU_SMI_EXIT_USAGE;
	}
	if (!strcmp(type, "reset"))
		return set_reset(dev, inband);
	/* a device that does not exist is that error, not "not supported" */
	ret = smi_snapshot(&s, dev, false);
	smi_snapshot_close(&s);
	if (ret)
		return ret;
	printf("This device does not support setting %s.\n", type);
	return NPU_SMI_EXIT_NOTSUP;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long fault_count, fault_limit;

static void print_fault(const struct npu_nl_fault *f, void *arg)
{
	(void)arg;
	printf("npu%" PRIu32 " pid %" PRIu32 " (%s) stream %" PRIu32 " %s %s 0x%" PRIx64 ": %s\n",
	       f->dev, f->pid, f->comm, f->stream, f->write ? "write" : "read",
	       f->host ? "host" : "va", f->addr, f->reason);
	fflush(stdout);
	fault_count++;
}

static int cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct npu_nl nl;
	struct pollfd pfd;
	int c, ret;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			fault_limit = smi_parse_uint(optarg);
			if (fault_limit <= 0) {
				fprintf(stderr, "npu-smi: --count %s: not a positive number\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		case 'h':
			printf("Usage: npu-smi watch-faults [--count N]\n\n"
			       "Print each DMA fault as it happens (CAP_SYS_ADMIN), until N faults,\n"
			       "SIGINT or SIGTERM.\n");
			return NPU_SMI_EXIT_OK;
		default:
			usage(stderr);
			return NPU_SMI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return extra_arg("watch-faults", argv[optind]);
	ret = npu_nl_open(&nl);
	if (ret)
		return smi_fail("netlink", ret);
	ret = npu_nl_faults_join(&nl);
	if (ret) {
		fprintf(stderr, "npu-smi: cannot join the faults group: %s\n",
			ret == -ENOENT ? "the driver has no such group" : strerror(-ret));
		npu_nl_close(&nl);
		return ret == -EPERM ? NPU_SMI_EXIT_PERM :
		       ret == -ENOENT ? NPU_SMI_EXIT_NOENT : NPU_SMI_EXIT_ERROR;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Tell a waiting script (or test) that events are being listened for. */
	fprintf(stderr, "npu-smi: watching DMA faults\n");
	pfd.fd = npu_nl_fault_fd(&nl);
	pfd.events = POLLIN;
	while (!stop && (!fault_limit || fault_count < fault_limit)) {
		ret = poll(&pfd, 1, -1);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			ret = smi_fail("poll", -errno);
			npu_nl_close(&nl);
			return ret;
		}
		ret = npu_nl_fault_recv(&nl, print_fault, NULL);
		if (ret && ret != -EINTR) {
			fprintf(stderr, "npu-smi: receive: %s\n", strerror(-ret));
			npu_nl_close(&nl);
			return NPU_SMI_EXIT_ERROR;
		}
	}
	npu_nl_close(&nl);
	return NPU_SMI_EXIT_OK;
}

static int cmd_reset(int argc, char **argv)
{
	struct npu_nl nl;
	long dev = -1;
	int c, ret;

	while ((c = getopt(argc, argv, "i:h")) != -1) {
		switch (c) {
		case 'i':
			dev = smi_parse_uint(optarg);
			if (dev < 0) {
				fprintf(stderr, "npu-smi: -i %s: not a device index\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		case 'h':
			printf("Usage: npu-smi reset-counters [-i N]\n\n"
			       "Memory peak back to the memory in use, DMA fault counters (and so\n"
			       "the Warning health they cause) to zero; CAP_NET_ADMIN.\n");
			return NPU_SMI_EXIT_OK;
		default:
			usage(stderr);
			return NPU_SMI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return extra_arg("reset-counters", argv[optind]);
	ret = npu_nl_open(&nl);
	if (ret)
		return smi_fail("netlink", ret);
	ret = npu_nl_counters_reset(&nl, dev);
	npu_nl_close(&nl);
	return ret ? smi_fail("reset-counters", ret) : NPU_SMI_EXIT_OK;
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
	static char *info_argv[] = { "info", NULL };
	const char *cmd = argc > 1 ? argv[1] : "info";
	int ret;

	if (argc <= 1) {
		ret = smi_info(1, info_argv);
	} else if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		ret = NPU_SMI_EXIT_OK;
	} else if (!strcmp(cmd, "-v")) {
		printf("npu-smi version: %s\n", NPU_SMI_VERSION);
		ret = argc > 2 ? extra_arg("-v", argv[2]) : NPU_SMI_EXIT_OK;
	} else if (argc > 1 && cmd[0] == '-') {
		/* options of the default command: npu-smi -i 0 --json */
		argv[0] = "info";
		ret = smi_info(argc, argv);
	} else if (!strcmp(cmd, "info")) {
		ret = smi_info(argc - 1, argv + 1);
	} else if (!strcmp(cmd, "set")) {
		ret = cmd_set(argc - 1, argv + 1);
	} else if (!strcmp(cmd, "watch-faults")) {
		ret = cmd_watch(argc - 1, argv + 1);
	} else if (!strcmp(cmd, "reset-counters")) {
		ret = cmd_reset(argc - 1, argv + 1);
	} else if (!strcmp(cmd, "module")) {
		ret = npu_smi_module(argc - 1, argv + 1);
	} else {
		/* the vendor's words, then its help; ours go to stderr */
		fprintf(stderr, "Command or option is not found.\n");
		usage(stderr);
		ret = NPU_SMI_EXIT_USAGE;
	}
	if (fflush(stdout) && !ret)
		ret = NPU_SMI_EXIT_ERROR;
	return ret;
}
