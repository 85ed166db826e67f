// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_trace_test.c - the npu tracepoints (kernel/npu_trace.h).
 *
 * As root: a trace instance of its own under tracefs with the npu events
 * on, then a registration (pin, DMA map), a map and SET_ACCESS, a pinned
 * copy, a deliberately faulting copy, unmap and unregister; each event is
 * found in the instance's buffer and its fields checked exactly. Skips
 * with the reason where tracefs or the npu events are missing.
 */
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "harness.h"
#include "npu_util.h"

#define LEN	(64 * SZ_4K)	/* the registration: 16 pages */
#define COPY	(8 * SZ_4K)	/* the copy */

/* The tracefs mount, mounting it if needed; NULL if there is none. */
static const char *tracefs(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	struct stat st;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/instances", dirs[i]);
		if (!stat(path, &st))
			return dirs[i];
	}
	if (!mount("tracefs", dirs[0], "tracefs", 0, NULL))
		return dirs[0];
	return NULL;
}

/* All of @path (up to @size - 1 bytes); the length or -1. */
static ssize_t read_all(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return len;
}

/* The value of "key=" in a trace line, up to the next blank (or end). */
static bool field(const char *line, const char *key, char *val, size_t size)
{
	size_t n = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[n] == '=') {
			const char *v = p + n + 1;
			size_t len = strcspn(v, " \n");

			if (!strcmp(key, "reason"))
				len = strcspn(v, "\n");
			if (len >= size)
				return false;
			memcpy(val, v, len);
			val[len] = 0;
			return true;
		}
		p += n;
	}
	return false;
}

/*
 * The first line of event @event in @buf whose fields match every
 * "key=value" of @want (blank-separated, values without blanks); copied
 * to @line.
 */
static bool find_event(const char *buf, const char *event, const char *want,
		       char *line, size_t size)
{
	char tag[64], w[512], *save, *kv, val[128];
	const char *p = buf;

	snprintf(tag, sizeof(tag), ": %s: ", event);
	while ((p = strstr(p, tag))) {
		const char *start = p, *end = strchr(p, '\n');
		size_t len;
		bool ok = true;

		while (start > buf && start[-1] != '\n')
			start--;
		len = end ? (size_t)(end - start) : strlen(start);
		if (len >= size)
			len = size - 1;
		memcpy(line, start, len);
		line[len] = 0;
		snprintf(w, sizeof(w), "%s", want);
		for (kv = strtok_r(w, " ", &save); kv && ok;
		     kv = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(kv, '=');

			if (!eq)
				return false;
			*eq = 0;
			ok = field(line, kv, val, sizeof(val)) &&
			     !strcmp(val, eq + 1);
		}
		if (ok)
			return true;
		p += strlen(tag);
	}
	return false;
}

static long long npu_fdinfo_value(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return npu_file_value_at(AT_FDCWD, path, key, ':');
}

FIXTURE(trace) {
	char inst[256];
	char *buf;
	int fd;
};

FIXTURE_SETUP(trace)
{
	const char *root;
	char path[300];

	self->inst[0] = 0;
	self->fd = -1;
	self->buf = NULL;
	if (geteuid())
		SKIP(return, "needs root (tracefs)");
	root = tracefs();
	if (!root)
		SKIP(return, "no tracefs: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/events/npu/npu_host_pin", root);
	if (access(path, F_OK))
		SKIP(return, "%s: %s (npu.ko without tracepoints?)", path,
		     strerror(errno));
	snprintf(self->inst, sizeof(self->inst), "%s/instances/npu_trace_test_%d",
		 root, getpid());
	ASSERT_EQ(0, mkdir(self->inst, 0700));
	snprintf(path, sizeof(path), "%s/buffer_size_kb", self->inst);
	ASSERT_EQ(0, npu_write_file(path, "1024"));
	snprintf(path, sizeof(path), "%s/events/npu/enable", self->inst);
	ASSERT_EQ(0, npu_write_file(path, "1"));
	self->buf = malloc(1 << 20);
	ASSERT_NONNULL(self->buf);
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(trace)
{
	char path[300];

	if (self->fd >= 0)
		close(self->fd);
	if (self->inst[0]) {
		snprintf(path, sizeof(path), "%s/events/npu/enable", self->inst);
		npu_write_file(path, "0");
		rmdir(self->inst);
	}
	free(self->buf);
}

static ssize_t read_trace(const char *inst, char *buf)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/trace", inst);
	return read_all(path, buf, 1 << 20);
}

#define EXPECT_EVENT(event, ...) do {					\
	char __want[512], __line[1024];					\
	snprintf(__want, sizeof(__want), __VA_ARGS__);			\
	if (!find_event(self->buf, event, __want, __line, sizeof(__line))) \
		TH_LOG("no %s with %s", event, __want);			\
	EXPECT_TRUE(find_event(self->buf, event, __want, __line,	\
			       sizeof(__line)));			\
} while (0)

TEST_F(trace, events)
{
	struct npu_get_info info;
	uint64_t va, ro_va, seq_copy, seq_fault;
	uint32_t handle, stream;
	pid_t pid = getpid();
	long long client;
	char line[1024], val[64];
	uint8_t *host;

	ASSERT_EQ(0, npu_info(self->fd, &info));
	client = npu_fdinfo_value(self->fd, "npu-client-id");
	ASSERT_LT(0, client);
	host = npu_host_mem(LEN);
	ASSERT_NONNULL(host);

	/* registration: pin, then DMA map */
	ASSERT_EQ(0, npu_register(self->fd, host, LEN, 0, 0));
	/* device memory, mapped, then readable and writable */
	ASSERT_EQ(0, npu_alloc(self->fd, LEN, SZ_4K, &handle));
	va = npu_reserve_new(self->fd, 2 * LEN, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_map(self->fd, va, LEN, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va, LEN, 0, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_stream_create(self->fd, &stream));
	/* a pinned copy, host to device */
	{
		struct npu_cmd c = npu_copy_cmd(va, ptr64(host) + SZ_4K, COPY,
						NPU_CMD_SRC_HOST);

		ASSERT_EQ(0, npu_submit(self->fd, stream, &c, 1, &seq_copy));
		ASSERT_EQ(0, npu_sync(self->fd, stream, -1));
	}
	/* a copy to the unmapped half of the reservation faults */
	npu_expect_dma_faults(true);
	{
		struct npu_cmd c = npu_copy_cmd(va + LEN, ptr64(host), SZ_4K,
						NPU_CMD_SRC_HOST);

		ASSERT_EQ(0, npu_submit(self->fd, stream, &c, 1, &seq_fault));
		EXPECT_EQ(-EIO, npu_sync(self->fd, stream, -1));
	}
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, npu_unmap(self->fd, va));
	ASSERT_EQ(0, npu_unregister(self->fd, host));
	/* a MAPPED read-only registration: its own mapping, read-only */
	ro_va = npu_hole(2 * SZ_4K, SZ_4K);
	ASSERT_NE(0, ro_va);
	ASSERT_EQ(0, npu_register(self->fd, host, 2 * SZ_4K,
				  NPU_HOST_MAPPED | NPU_HOST_READONLY, ro_va));
	ASSERT_EQ(0, npu_unregister(self->fd, host));
	ASSERT_LT(0, read_trace(self->inst, self->buf));

	EXPECT_EVENT("npu_host_pin",
		     "pid=%d client=%lld addr=%#llx length=%lu pages=%lu readonly=0",
		     pid, client, (unsigned long long)ptr64(host), LEN,
		     LEN / SZ_4K);
	EXPECT_EVENT("npu_host_unpin",
		     "pid=%d client=%lld addr=%#llx length=%lu pages=%lu readonly=0",
		     pid, client, (unsigned long long)ptr64(host), LEN,
		     LEN / SZ_4K);
	EXPECT_EVENT("npu_dma_map", "pid=%d length=%lu iommu=%d", pid, LEN,
		     !!(info.caps & NPU_CAP_IOMMU));
	EXPECT_EVENT("npu_dma_unmap", "pid=%d length=%lu iommu=%d", pid, LEN,
		     !!(info.caps & NPU_CAP_IOMMU));
	/* map and unmap name the same DMA address and segment count */
	if (find_event(self->buf, "npu_dma_map", "length=262144", line,
		       sizeof(line))) {
		char dma[64], nents[32];

		ASSERT_TRUE(field(line, "dma", dma, sizeof(dma)));
		ASSERT_TRUE(field(line, "nents", nents, sizeof(nents)));
		EXPECT_STRNE("0", dma);
		EXPECT_LE(1, atoi(nents));
		EXPECT_GE(LEN / SZ_4K, (unsigned long)atoi(nents));
		EXPECT_EVENT("npu_dma_unmap", "dma=%s nents=%s", dma, nents);
	}
	EXPECT_EVENT("npu_va_map",
		     "pid=%d client=%lld va=%#llx length=%lu page_size=4096 access=none host=0 peers=0",
		     pid, client, (unsigned long long)va, LEN);
	EXPECT_EVENT("npu_va_set_access",
		     "pid=%d client=%lld va=%#llx length=%lu access=rw peer=%u",
		     pid, client, (unsigned long long)va, LEN,
		     info.device_index);
	EXPECT_EVENT("npu_va_unmap",
		     "pid=%d client=%lld va=%#llx length=%lu page_size=4096 access=rw host=0",
		     pid, client, (unsigned long long)va, LEN);
	EXPECT_EVENT("npu_cmd_submit",
		     "pid=%d stream=%u seqno=%llu op=copy flags=0x2 dst=%#llx src=%#llx bytes=%lu",
		     pid, stream, (unsigned long long)seq_copy,
		     (unsigned long long)va,
		     (unsigned long long)ptr64(host) + SZ_4K, COPY);
	EXPECT_EVENT("npu_cmd_complete",
		     "pid=%d stream=%u seqno=%llu op=copy bytes=%lu result=0",
		     pid, stream, (unsigned long long)seq_copy, COPY);
	if (find_event(self->buf, "npu_cmd_complete", "result=0", line,
		       sizeof(line))) {
		ASSERT_TRUE(field(line, "start_ns", val, sizeof(val)));
		EXPECT_LT(0, atoll(val));
		ASSERT_TRUE(field(line, "duration_ns", val, sizeof(val)));
		EXPECT_LT(0, atoll(val));
	}
	EXPECT_EVENT("npu_cmd_submit",
		     "pid=%d stream=%u seqno=%llu op=copy bytes=4096",
		     pid, stream, (unsigned long long)seq_fault);
	EXPECT_EQ(seq_copy + 1, seq_fault);
	EXPECT_EVENT("npu_dma_fault",
		     "pid=%d stream=%u addr=%#llx host=0 access=write",
		     pid, stream, (unsigned long long)(va + LEN));
	if (find_event(self->buf, "npu_dma_fault", "host=0", line,
		       sizeof(line))) {
		ASSERT_TRUE(field(line, "reason", val, sizeof(val)));
		EXPECT_STREQ("not mapped", val);
	}
	EXPECT_EVENT("npu_cmd_complete",
		     "pid=%d stream=%u seqno=%llu op=copy bytes=4096 result=%d",
		     pid, stream, (unsigned long long)seq_fault, -EIO);
	EXPECT_EVENT("npu_host_pin",
		     "pid=%d addr=%#llx length=%lu pages=2 readonly=1", pid,
		     (unsigned long long)ptr64(host), 2 * SZ_4K);
	EXPECT_EVENT("npu_va_map",
		     "pid=%d va=%#llx length=%lu page_size=4096 access=r host=1",
		     pid, (unsigned long long)ro_va, 2 * SZ_4K);
	EXPECT_EVENT("npu_va_unmap",
		     "pid=%d va=%#llx length=%lu page_size=4096 access=r host=1",
		     pid, (unsigned long long)ro_va, 2 * SZ_4K);
	EXPECT_EVENT("npu_host_unpin",
		     "pid=%d addr=%#llx length=%lu pages=2 readonly=1", pid,
		     (unsigned long long)ptr64(host), 2 * SZ_4K);
	/* every event names the device */
	EXPECT_NULL(strstr(self->buf, "npu1 pid="));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, stream, 0));
	ASSERT_EQ(0, npu_free(self->fd, handle));
	munmap(host, LEN);
}

/*
 * Every command names its operation in submit and complete events (the
 * second kernel review found COPY_2D, FILL32 and PREFETCH printed as
 * bare numbers), with the bytes it moves.
 */
TEST_F(trace, every_op_is_named)
{
	struct {
		struct npu_cmd cmd;
		const char *name;
		unsigned long bytes;
	} ops[] = {
		{ { .op = NPU_OP_COPY, .length = 64 }, "copy", 64 },
		{ { .op = NPU_OP_MEMSET, .length = 32 }, "memset", 32 },
		{ { .op = NPU_OP_WRITE_VALUE }, "write_value", 8 },
		{ { .op = NPU_OP_WAIT_VALUE, .flags = NPU_WAIT_GEQ }, "wait_value", 8 },
		{ { .op = NPU_OP_TIMESTAMP }, "timestamp", 8 },
		{ { .op = NPU_OP_COPY_2D, .length = 16, .height = 4,
		    .dst_pitch = 64, .src_pitch = 32 }, "copy_2d", 64 },
		{ { .op = NPU_OP_FILL32, .length = 64, .value = 7 }, "fill32", 64 },
		{ { .op = NPU_OP_PREFETCH, .length = SZ_4K }, "prefetch", 4096 },
		/* bytes: all of its copies */
		{ { .op = NPU_OP_COPY_BATCH, .length = 2,
		    .value = sizeof(struct npu_copy_desc) }, "copy_batch", 100 },
	};
	enum { NOPS = sizeof(ops) / sizeof(ops[0]) };
	struct npu_copy_desc descs[2];
	uint32_t handle, stream;
	uint64_t va, seq[NOPS];
	pid_t pid = getpid();

	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &handle));
	va = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_map(self->fd, va, SZ_2M, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 0, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_stream_create(self->fd, &stream));
	descs[0] = (struct npu_copy_desc){ va + SZ_4K, va, 36 };
	descs[1] = (struct npu_copy_desc){ va + 2 * SZ_4K, va, 64 };
	for (int i = 0; i < NOPS; i++) {
		struct npu_cmd c = ops[i].cmd;

		c.dst = c.op == NPU_OP_WAIT_VALUE ? 0 : va + SZ_4K;
		if (c.op == NPU_OP_COPY || c.op == NPU_OP_COPY_2D ||
		    c.op == NPU_OP_WAIT_VALUE)
			c.src = va;
		if (c.op == NPU_OP_COPY_BATCH) {
			c.dst = 0;
			c.src = ptr64(descs);
		}
		ASSERT_EQ(0, npu_submit(self->fd, stream, &c, 1, &seq[i]));
		ASSERT_EQ(0, npu_sync(self->fd, stream, -1));
	}
	ASSERT_LT(0, read_trace(self->inst, self->buf));
	for (int i = 0; i < NOPS; i++) {
		EXPECT_EVENT("npu_cmd_submit", "pid=%d stream=%u seqno=%llu op=%s ",
			     pid, stream, (unsigned long long)seq[i], ops[i].name);
		EXPECT_EVENT("npu_cmd_complete",
			     "pid=%d stream=%u seqno=%llu op=%s bytes=%lu result=0",
			     pid, stream, (unsigned long long)seq[i], ops[i].name,
			     ops[i].bytes);
	}
	ASSERT_EQ(0, npu_stream_destroy(self->fd, stream, 0));
	ASSERT_EQ(0, npu_unmap(self->fd, va));
	ASSERT_EQ(0, npu_free(self->fd, handle));
}

/*
 * A kernel launch: its command's submit and complete name it "kernel",
 * and the launch and its DONE have events of their own (since 1.12). The
 * test takes the launch itself, as the executor would.
 */
TEST_F(trace, kernel_launch)
{
	struct npu_aperture_open ap = { .size = sizeof(ap), .flags = NPU_APERTURE_CLOEXEC };
	struct npu_kernel k = { .func = 0xabc0000000001ULL, .block_dim = 3 };
	struct npu_cmd c = { .op = NPU_OP_KERNEL, .src = ptr64(&k), .value = sizeof(k) };
	struct npu_kernel_wait w = { .size = sizeof(w) };
	struct npu_kernel_done d = { .size = sizeof(d), .busy_ns = 777 };
	uint32_t stream;
	uint64_t seq;
	pid_t pid = getpid();

	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_APERTURE_OPEN, &ap));
	ASSERT_EQ(0, npu_stream_create(self->fd, &stream));
	ASSERT_EQ(0, npu_submit(self->fd, stream, &c, 1, &seq));
	ASSERT_EQ(0, npu_ioctl(ap.fd, NPU_IOCTL_APERTURE_KERNEL_WAIT, &w));
	d.job = w.job;
	ASSERT_EQ(0, npu_ioctl(ap.fd, NPU_IOCTL_APERTURE_KERNEL_DONE, &d));
	ASSERT_EQ(0, npu_sync(self->fd, stream, -1));
	ASSERT_LT(0, read_trace(self->inst, self->buf));
	EXPECT_EVENT("npu_cmd_submit", "pid=%d stream=%u seqno=%llu op=kernel ",
		     pid, stream, (unsigned long long)seq);
	EXPECT_EVENT("npu_kernel_launch",
		     "pid=%d stream=%u seqno=%llu job=%llu func=0xabc0000000001 blocks=3",
		     pid, stream, (unsigned long long)seq, (unsigned long long)w.job);
	EXPECT_EVENT("npu_kernel_done",
		     "pid=%d stream=%u seqno=%llu job=%llu result=0 addr=0x0 flags=0x0 busy_ns=777",
		     pid, stream, (unsigned long long)seq, (unsigned long long)w.job);
	EXPECT_EVENT("npu_cmd_complete",
		     "pid=%d stream=%u seqno=%llu op=kernel bytes=0 result=0",
		     pid, stream, (unsigned long long)seq);
	ASSERT_EQ(0, npu_stream_destroy(self->fd, stream, 0));
	close(ap.fd);
}

/* Events that are off record nothing. */
TEST_F(trace, disabled)
{
	char path[300];
	uint8_t *host = npu_host_mem(SZ_4K);
	int fd;

	ASSERT_NONNULL(host);
	snprintf(path, sizeof(path), "%s/events/npu/enable", self->inst);
	ASSERT_EQ(0, npu_write_file(path, "0"));
	snprintf(path, sizeof(path), "%s/trace", self->inst);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);	/* clears it */
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, npu_register(self->fd, host, SZ_4K, 0, 0));
	ASSERT_EQ(0, npu_unregister(self->fd, host));
	ASSERT_LE(0, read_trace(self->inst, self->buf));
	EXPECT_NULL(strstr(self->buf, ": npu_"));
	munmap(host, SZ_4K);
}

TEST_HARNESS_MAIN
