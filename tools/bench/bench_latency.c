// SPDX-License-Identifier: GPL-2.0
/*
 * bench_latency - small copies at the latency limit (issue 21):
 *
 *  a) a synchronous 4 KiB aclrtMemcpy between aclrtMallocHost memory and
 *     device memory, H2D and D2H, against the cheapest ioctl round trip
 *     measured in the same run: NPU_IOCTL_GET_INFO and NPU_IOCTL_ADDR_QUERY
 *     of address 0 on a /dev/npu0 file the program opens itself (the
 *     cheaper of the two medians is the "null ioctl"). Samples of each
 *     kind are interleaved, each the mean of -n back-to-back calls; the
 *     medians of -s samples are compared. Target: the mean of the H2D and
 *     D2H ratios <= 4.00. Beside it, no target: the same copies from
 *     pageable (malloc) memory (staged through the library's pinned
 *     buffer), and the driver alone: the same copy as one SUBMIT with
 *     NPU_SUBMIT_WAIT on a stream, memory and registration of the
 *     program's own file (what the library adds is the difference).
 *  b) system calls per synchronous copy. The driver counts SUBMITs only
 *     (npu-submits in fdinfo), which would miss an ADDR_QUERY or a
 *     STREAM_SYNC, so the program counts every system call itself: it
 *     forks a child that does the copies, and traces it (PTRACE_TRACEME,
 *     PTRACE_SYSCALL, PTRACE_GET_SYSCALL_INFO at each entry, its threads
 *     too) from the parent. The child marks where each phase starts with
 *     a write(2) to fd -1, which nothing else makes; every system call
 *     between two marks counts, each ioctl also by request. Tracing slows
 *     the child, not what it counts; the timings of a) are taken untraced.
 *     Target: ioctls per pinned 4 KiB copy (H2D and D2H, the larger)
 *     <= 1.00. As a cross-check the untraced copies of a) are counted with
 *     npu-submits of the library's own /dev/npu0 file (found through
 *     /proc/self/fd), reported as info.
 *
 * usage: bench_latency [-n CALLS_PER_SAMPLE] [-s SAMPLES] [-c COUNTED_COPIES]
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <uapi/npu.h>

#include "bench.h"
#include "npu_proc.h"

#define COPY_SIZE	(4 * KiB)

static int calls = 20;		/* per sample */
static int samples = 201;
static int counted = 200;	/* copies per traced phase */

enum kind {
	K_GET_INFO, K_ADDR_QUERY, K_DRV_H2D, K_DRV_D2H,
	K_PIN_H2D, K_PIN_D2H, K_PAGE_H2D, K_PAGE_D2H, NKINDS
};
static const char *const kind_name[NKINDS] = {
	"null_get_info", "null_addr_query", "driver_submit_wait_4KiB_h2d", "driver_submit_wait_4KiB_d2h",
	"sync_copy_4KiB_pinned_h2d", "sync_copy_4KiB_pinned_d2h",
	"sync_copy_4KiB_pageable_h2d", "sync_copy_4KiB_pageable_d2h",
};

struct bufs {
	void *dev;
	void *pinned;
	void *page;
	/* the driver alone, on the program's own file */
	uint32_t stream;
	uint64_t drv_dev;
	void *drv_host;
};

/* A request of the program's own that must succeed. */
#define DRV_CHECK(fd, req, arg)	SYS_CHECK(ioctl(fd, req, arg))

/* Device memory, a registered host page and a stream on @fd, for K_DRV_*. */
static void drv_setup(int fd, struct bufs *b)
{
	struct npu_mem_alloc alloc = {
		.size = sizeof(alloc), .length = COPY_SIZE, .page_size = NPU_PAGE_4K,
	};
	struct npu_va_range va = { .size = sizeof(va), .length = COPY_SIZE };
	struct npu_map map = { .size = sizeof(map), .length = COPY_SIZE };
	struct npu_access acc = {
		.size = sizeof(acc), .length = COPY_SIZE, .access = NPU_ACCESS_READWRITE,
	};
	struct npu_mem_free mfree = { .size = sizeof(mfree) };
	struct npu_host_register reg = { .size = sizeof(reg), .length = COPY_SIZE };
	struct npu_stream_create sc = { .size = sizeof(sc) };
	struct npu_get_info info = { .size = sizeof(info) };
	/* a PROT_NONE hole of the process holds the device VA, as libacl does it */
	void *hole = mmap(NULL, COPY_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			  -1, 0);

	if (hole == MAP_FAILED)
		bench_die("mmap: %s", strerror(errno));
	DRV_CHECK(fd, NPU_IOCTL_GET_INFO, &info);
	va.addr = map.addr = acc.addr = (uintptr_t)hole;
	acc.device = info.device_index;
	DRV_CHECK(fd, NPU_IOCTL_VA_RESERVE, &va);
	DRV_CHECK(fd, NPU_IOCTL_MEM_ALLOC, &alloc);
	map.handle = mfree.handle = alloc.handle;
	DRV_CHECK(fd, NPU_IOCTL_MAP, &map);
	DRV_CHECK(fd, NPU_IOCTL_SET_ACCESS, &acc);
	DRV_CHECK(fd, NPU_IOCTL_MEM_FREE, &mfree);
	b->drv_dev = va.addr;
	b->drv_host = host_alloc(COPY_SIZE, 7);
	reg.addr = (uintptr_t)b->drv_host;
	DRV_CHECK(fd, NPU_IOCTL_HOST_REGISTER, &reg);
	DRV_CHECK(fd, NPU_IOCTL_STREAM_CREATE, &sc);
	b->stream = sc.stream;
}

/* One 4 KiB copy between @b's own memory, queued and waited for in one SUBMIT. */
static void drv_copy(int fd, const struct bufs *b, bool h2d)
{
	struct npu_cmd cmd = {
		.op = NPU_OP_COPY,
		.flags = h2d ? NPU_CMD_SRC_HOST : NPU_CMD_DST_HOST,
		.dst = h2d ? b->drv_dev : (uintptr_t)b->drv_host,
		.src = h2d ? (uintptr_t)b->drv_host : b->drv_dev,
		.length = COPY_SIZE,
	};
	struct npu_submit sub = {
		.size = sizeof(sub),
		.flags = NPU_SUBMIT_WAIT,
		.stream = b->stream,
		.count = 1,
		.cmds = (uintptr_t)&cmd,
		.cmd_size = sizeof(cmd),
	};

	DRV_CHECK(fd, NPU_IOCTL_SUBMIT, &sub);
}

static void bufs_get(struct bufs *b)
{
	ACL_CHECK(aclrtMalloc(&b->dev, COPY_SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_CHECK(aclrtMallocHost(&b->pinned, COPY_SIZE));
	b->page = host_alloc(COPY_SIZE, 3);
	memset(b->pinned, 0x5a, COPY_SIZE);
	ACL_CHECK(aclrtMemcpy(b->dev, COPY_SIZE, b->pinned, COPY_SIZE, ACL_MEMCPY_HOST_TO_DEVICE));
}

static void bufs_put(struct bufs *b)
{
	ACL_CHECK(aclrtFree(b->dev));
	ACL_CHECK(aclrtFreeHost(b->pinned));
}

/* One call of @k; @fd: the program's own /dev/npu0 file. */
static void one(enum kind k, int fd, const struct bufs *b)
{
	struct npu_get_info info = { .size = sizeof(info) };
	struct npu_addr_query q = { .size = sizeof(q) };

	const aclrtMemcpyKind h2d = ACL_MEMCPY_HOST_TO_DEVICE, d2h = ACL_MEMCPY_DEVICE_TO_HOST;

	switch (k) {
	case K_GET_INFO:
		SYS_CHECK(ioctl(fd, NPU_IOCTL_GET_INFO, &info));
		break;
	case K_ADDR_QUERY:
		SYS_CHECK(ioctl(fd, NPU_IOCTL_ADDR_QUERY, &q));
		break;
	case K_DRV_H2D:
	case K_DRV_D2H:
		drv_copy(fd, b, k == K_DRV_H2D);
		break;
	case K_PIN_H2D:
		ACL_CHECK(aclrtMemcpy(b->dev, COPY_SIZE, b->pinned, COPY_SIZE, h2d));
		break;
	case K_PIN_D2H:
		ACL_CHECK(aclrtMemcpy(b->pinned, COPY_SIZE, b->dev, COPY_SIZE, d2h));
		break;
	case K_PAGE_H2D:
		ACL_CHECK(aclrtMemcpy(b->dev, COPY_SIZE, b->page, COPY_SIZE, h2d));
		break;
	case K_PAGE_D2H:
		ACL_CHECK(aclrtMemcpy(b->page, COPY_SIZE, b->dev, COPY_SIZE, d2h));
		break;
	default:
		break;
	}
}

/* a) interleaved samples of every kind; per-call medians into @med. */
static void bench_times(int fd, const struct bufs *b, double med[NKINDS])
{
	double *t = malloc(sizeof(*t) * NKINDS * samples);
	long long sub[NKINDS] = { 0 }, s0;
	int lib_fd = npu_proc_dev_fd("/dev/npu0", fd);
	int k, s, i;

	if (!t)
		bench_die("out of memory");
	/* warm: the staging buffer is registered at the first pageable copy */
	for (k = 0; k < NKINDS; k++)
		one(k, fd, b);
	for (s = 0; s < samples; s++) {
		for (k = 0; k < NKINDS; k++) {
			double t0;

			s0 = lib_fd >= 0 ? npu_proc_submits(lib_fd) : -1;
			t0 = now_s();
			for (i = 0; i < calls; i++)
				one(k, fd, b);
			t[k * samples + s] = (now_s() - t0) / calls;
			if (s0 >= 0)
				sub[k] += npu_proc_submits(lib_fd) - s0;
		}
	}
	for (k = 0; k < NKINDS; k++) {
		char name[80];

		med[k] = median(t + k * samples, samples);
		report_us(kind_name[k], med[k]);
		if (k >= K_PIN_H2D && lib_fd >= 0) {
			snprintf(name, sizeof(name), "submits_per_%s", kind_name[k] + strlen("sync_"));
			report_info(name, (double)sub[k] / ((double)samples * calls),
				    "(npu-submits of the library's file per call, untraced)");
		}
	}
	free(t);
}

/* b) the traced child: marks, then @counted copies of each kind. */
static void count_child(void)
{
	struct bufs b;
	int k, i;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(3);
	raise(SIGSTOP);
	/* after fork the child has no device set: a context of its own */
	ACL_CHECK(aclrtSetDevice(0));
	bufs_get(&b);
	for (k = K_PIN_H2D; k < NKINDS; k++)
		one(k, -1, &b);
	for (k = K_PIN_H2D; k < NKINDS; k++) {
		syscall(SYS_write, -1, NULL, (size_t)k);
		for (i = 0; i < counted; i++)
			one(k, -1, &b);
	}
	syscall(SYS_write, -1, NULL, (size_t)NKINDS);
	bufs_put(&b);
	ACL_CHECK(aclrtResetDevice(0));
	_exit(0);
}

struct counts {
	long long syscalls, ioctls, submit, sync, addr_query;
};

/* A system call's entry @si, counted into @c. */
static void count_one(struct counts *c, const struct __ptrace_syscall_info *si)
{
	unsigned long req = si->entry.args[1];

	c->syscalls++;
	if (si->entry.nr != SYS_ioctl)
		return;
	c->ioctls++;
	c->submit += req == NPU_IOCTL_SUBMIT;
	c->sync += req == NPU_IOCTL_STREAM_SYNC;
	c->addr_query += req == NPU_IOCTL_ADDR_QUERY;
}

/*
 * Trace @child to its end: system calls counted per phase (the mark's
 * number); false if it could not be traced.
 */
static bool count_trace(pid_t child, struct counts c[NKINDS + 1])
{
	int status, phase = -1;
	bool stopped = false;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL)) > 0) {
		struct __ptrace_syscall_info si;
		int sig = 0;

		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (tid != child)
				continue;
			if (stopped && (!WIFEXITED(status) || WEXITSTATUS(status)))
				bench_die("the traced child failed (status %#x)", status);
			return stopped;
		}
		if (!stopped) {
			/* the first stop: trace system calls and the threads to come */
			stopped = true;
			if (ptrace(PTRACE_SETOPTIONS, tid, NULL,
				   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE |
						  PTRACE_O_EXITKILL)))
				bench_die("PTRACE_SETOPTIONS: %s", strerror(errno));
		} else if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(si), &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY) {
				struct counts *p = phase >= 0 ? &c[phase] : NULL;

				if (si.entry.nr == SYS_write && (int)si.entry.args[0] == -1) {
					phase = (int)si.entry.args[2];
					if (phase < 0 || phase > NKINDS)
						phase = -1;
					p = NULL;
				}
				if (p)
					count_one(p, &si);
			}
		} else if (status >> 8 != (SIGTRAP | (PTRACE_EVENT_CLONE << 8)) &&
			   WSTOPSIG(status) != SIGSTOP) {
			/* a signal of the program's own: deliver it */
			sig = WSTOPSIG(status);
		}
		ptrace(PTRACE_SYSCALL, tid, NULL, (void *)(long)sig);
	}
	return false;
}

/* b): ioctls per copy, the larger of the pinned H2D and D2H figures; < 0 if untraceable. */
static double bench_count(void)
{
	struct counts c[NKINDS + 1] = { { 0 } };
	double worst = 0;
	pid_t child;
	int k;

	fflush(stdout);
	child = fork();
	if (child < 0)
		bench_die("fork: %s", strerror(errno));
	if (!child)
		count_child();
	if (!count_trace(child, c)) {
		printf("note the copies could not be traced (ptrace refused?): no system call count\n");
		return -1;
	}
	for (k = K_PIN_H2D; k < NKINDS; k++) {
		char name[80];
		double n = counted;

		snprintf(name, sizeof(name), "ioctls_per_%s", kind_name[k] + strlen("sync_"));
		report_info(name, c[k].ioctls / n, "(traced: every ioctl of the process per call)");
		snprintf(name, sizeof(name), "syscalls_per_%s", kind_name[k] + strlen("sync_"));
		report_info(name, c[k].syscalls / n, "(traced: every system call per call)");
		printf("note %s per call: SUBMIT %.2f STREAM_SYNC %.2f ADDR_QUERY %.2f other ioctls %.2f\n",
		       kind_name[k], c[k].submit / n, c[k].sync / n, c[k].addr_query / n,
		       (c[k].ioctls - c[k].submit - c[k].sync - c[k].addr_query) / n);
		if (k <= K_PIN_D2H && c[k].ioctls / n > worst)
			worst = c[k].ioctls / n;
	}
	fflush(stdout);
	return worst;
}

int main(int argc, char **argv)
{
	double med[NKINDS], null, h2d, d2h, drv, per_copy;
	struct bufs b;
	int opt, fd;

	while ((opt = getopt(argc, argv, "n:s:c:")) != -1) {
		switch (opt) {
		case 'n':
			calls = atoi(optarg);
			break;
		case 's':
			samples = atoi(optarg);
			break;
		case 'c':
			counted = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n CALLS_PER_SAMPLE] [-s SAMPLES] [-c COUNTED_COPIES]\n",
				argv[0]);
			return 2;
		}
	}
	if (calls < 1 || samples < 1 || counted < 1)
		bench_die("-n, -s and -c must be at least 1");
	bench_start("bench_latency");
	fd = open("/dev/npu0", O_RDWR | O_CLOEXEC);
	SYS_CHECK(fd);
	bufs_get(&b);
	drv_setup(fd, &b);

	bench_times(fd, &b, med);
	null = med[K_GET_INFO] < med[K_ADDR_QUERY] ? med[K_GET_INFO] : med[K_ADDR_QUERY];
	h2d = med[K_PIN_H2D] / null;
	d2h = med[K_PIN_D2H] / null;
	report_info("sync_copy_4KiB_h2d_vs_null_ioctl", h2d, "(pinned, aclrtMallocHost)");
	report_info("sync_copy_4KiB_d2h_vs_null_ioctl", d2h, "(pinned, aclrtMallocHost)");
	drv = (med[K_DRV_H2D] + med[K_DRV_D2H]) / 2;
	report_info("sync_copy_4KiB_pageable_vs_null_ioctl",
		    (med[K_PAGE_H2D] + med[K_PAGE_D2H]) / 2 / null, "(malloc, staged; mean of H2D and D2H)");
	report_info("driver_submit_wait_4KiB_vs_null_ioctl", drv / null,
		    "(the driver alone: one SUBMIT with NPU_SUBMIT_WAIT; mean of H2D and D2H)");
	report_info("library_us_per_sync_copy", ((med[K_PIN_H2D] + med[K_PIN_D2H]) / 2 - drv) * 1e6,
		    "(pinned copy minus the driver alone, mean of H2D and D2H)");

	per_copy = bench_count();

	report_ratio("sync_copy_4KiB_vs_null_ioctl", (h2d + d2h) / 2, "<=", 4.00);
	if (per_copy >= 0)
		report_ratio("ioctls_per_sync_copy", per_copy, "<=", 1.00);

	bufs_put(&b);
	close(fd);
	bench_end();
	return 0;
}
