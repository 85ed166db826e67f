// SPDX-License-Identifier: GPL-2.0
/*
 * npu_model_test: models (driver 1.10) through the raw ioctls -
 * MODEL_CREATE and MODEL_DESTROY's refusals, runs checked against a model
 * of the whole buffer for each page size, waits inside a model, runs that
 * overlap and outlive their model's id, a RANDOM whose counter carries
 * from run to run, and memory freed or unregistered under a model.
 */
#include <stdlib.h>

#include "harness.h"
#include "npu_cgroup.h"
#include "npu_util.h"

#define HOST_SIZE	(4 * SZ_4K)

FIXTURE(mdl) {
	int fd;
	uint32_t stream, stream2;
	uint8_t *host;		/* HOST_SIZE, registered read-write */
	uint64_t va;		/* 4 pages of device memory, read-write */
};

FIXTURE_SETUP(mdl)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream2));
	self->host = npu_host_mem(HOST_SIZE);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, HOST_SIZE, 0, 0));
	self->va = npu_map_new_rw(self->fd, 4 * SZ_4K, SZ_4K, 0);
	ASSERT_NE(0, self->va);
}

FIXTURE_TEARDOWN(mdl)
{
	npu_expect_dma_faults(false);
	close(self->fd);
}

static int model_create_sized(int fd, const void *cmds, uint32_t n, uint32_t cmd_size,
			      uint32_t *id)
{
	struct npu_model_create c = {
		.size = sizeof(c), .count = n, .cmd_size = cmd_size, .cmds = ptr64(cmds),
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_MODEL_CREATE, &c);

	if (id)
		*id = c.model;
	return ret;
}

static int model_create(int fd, const struct npu_cmd *cmds, uint32_t n, uint32_t *id)
{
	return model_create_sized(fd, cmds, n, sizeof(*cmds), id);
}

static int model_destroy(int fd, uint32_t id)
{
	struct npu_model_destroy d = { .size = sizeof(d), .model = id };

	return npu_ioctl(fd, NPU_IOCTL_MODEL_DESTROY, &d);
}

static struct npu_cmd model_cmd(uint32_t id)
{
	return (struct npu_cmd){ .op = NPU_OP_MODEL, .src = id };
}

static int submit_model(int fd, uint32_t stream, uint32_t id, uint64_t *seqno)
{
	struct npu_cmd c = model_cmd(id);

	return npu_submit(fd, stream, &c, 1, seqno);
}

/* The file's npu-models fdinfo count, or -1. */
static long fdinfo_models(int fd)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "npu-models: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static struct npu_sync_result {
	int ret;
	uint64_t error_seqno, fault_addr;
	uint32_t fault_flags;
} sync_full(int fd, uint32_t stream)
{
	struct npu_stream_sync s = { .size = sizeof(s), .stream = stream, .timeout_ms = -1 };
	struct npu_sync_result r;

	r.ret = npu_ioctl(fd, NPU_IOCTL_STREAM_SYNC, &s);
	r.error_seqno = s.error_seqno;
	r.fault_addr = s.fault_addr;
	r.fault_flags = s.fault_flags;
	return r;
}

/* A command MODEL_CREATE refuses, and with what. */
struct refusal {
	struct npu_cmd cmd;
	int err;
};

/*
 * Each of @bad second in a model after @good: MODEL_CREATE refuses it with
 * its code (and undoes the first's check).
 */
static void expect_refused(int fd, struct npu_cmd good, const struct refusal *bad, size_t n)
{
	struct npu_cmd cmds[2] = { good };
	size_t i;

	for (i = 0; i < n; i++) {
		int ret;

		cmds[1] = bad[i].cmd;
		ret = model_create(fd, cmds, 2, NULL);
		if (ret != bad[i].err)
			TH_LOG("case %zu: %d", i, ret);
		EXPECT_EQ(bad[i].err, ret);
	}
}

/* What MODEL_CREATE refuses, with the code SUBMIT would give; nothing is left. */
TEST_F(mdl, create_refused)
{
	uint64_t va = self->va, h = ptr64(self->host);
	struct npu_cmd ok = npu_memset_cmd(va, 1, 8, 0);
	struct npu_model_create c = { .size = sizeof(c), .count = 1, .cmds = ptr64(&ok) };
	const struct refusal bad[] = {
		{ { .op = NPU_OP_WAIT_STREAM, .src = self->stream2 }, -EINVAL },
		{ { .op = NPU_OP_COPY_BATCH, .src = h, .length = 1, .value = 32 }, -EINVAL },
		{ model_cmd(1), -EINVAL },
		{ npu_copy_cmd(va, h, 8, NPU_CMD_SRC_USER), -EINVAL },
		{ npu_copy_cmd(h, va, 8, NPU_CMD_DST_USER), -EINVAL },
		{ npu_memset_cmd(va, 1, 8, NPU_CMD_DST_USER), -EINVAL },
		{ { .op = NPU_OP_MEMSET, .dst = va, .length = 8, .value = 256 }, -EINVAL },
		{ { .op = 99, .dst = va, .length = 8 }, -EINVAL },
		{ npu_copy_cmd(va, h, 0, NPU_CMD_SRC_HOST), -EINVAL },
		{ npu_copy_cmd(va, h + HOST_SIZE - 4, 8, NPU_CMD_SRC_HOST), -ENXIO },
		{ npu_copy_cmd(va, 8, 8, NPU_CMD_SRC_HOST), -ENXIO },
		{ npu_copy_cmd(va, va, 8, NPU_CMD_SRC_PEER), -EBADF },
		{ { .op = NPU_OP_RANDOM, .dst = va, .src = 8, .value = 56 }, -EFAULT },
	};
	uint8_t big[2 * sizeof(struct npu_cmd)] = { 0 };
	uint32_t id;

	expect_refused(self->fd, ok, bad, sizeof(bad) / sizeof(bad[0]));
	/* the struct */
	c.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MODEL_CREATE, &c));
	c.flags = 0;
	c.__reserved = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MODEL_CREATE, &c));
	EXPECT_EQ(-EINVAL, model_create(self->fd, &ok, 0, NULL));
	EXPECT_EQ(-EINVAL, model_create(self->fd, &ok, NPU_MODEL_MAX_CMDS + 1, NULL));
	EXPECT_EQ(-EINVAL, model_create_sized(self->fd, &ok, 1, 32, NULL));
	EXPECT_EQ(-EINVAL, model_create_sized(self->fd, &ok, 1, 44, NULL));
	EXPECT_EQ(-E2BIG, model_create_sized(self->fd, &ok, 1, 8192, NULL));
	EXPECT_EQ(-EFAULT, model_create_sized(self->fd, NULL, 1, 0, NULL));
	EXPECT_EQ(-EFAULT, model_create(self->fd, npu_unmapped_range(SZ_4K), 1, NULL));
	/* a longer element's tail must be zero */
	memcpy(big, &ok, sizeof(ok));
	big[sizeof(ok) + 3] = 1;
	EXPECT_EQ(-E2BIG, model_create_sized(self->fd, big, 1, sizeof(big), NULL));
	big[sizeof(ok) + 3] = 0;
	EXPECT_EQ(0, model_create_sized(self->fd, big, 1, sizeof(big), &id));
	EXPECT_NE(0, id);
	EXPECT_EQ(1, fdinfo_models(self->fd));
	EXPECT_EQ(0, model_destroy(self->fd, id));
	/* a first release's 40-byte commands (cmd_size 0) */
	EXPECT_EQ(0, model_create_sized(self->fd, &ok, 1, 0, &id));
	EXPECT_EQ(0, model_destroy(self->fd, id));
	EXPECT_EQ(0, fdinfo_models(self->fd));
}

/* MODEL_DESTROY's and NPU_OP_MODEL's refusals; ids are typed. */
TEST_F(mdl, ids)
{
	struct npu_cmd ok = npu_memset_cmd(self->va, 1, 8, 0), run;
	struct npu_model_destroy d = { .size = sizeof(d) };
	uint32_t id, handle;

	ASSERT_EQ(0, model_create(self->fd, &ok, 1, &id));
	d.model = id;
	d.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MODEL_DESTROY, &d));
	d.flags = 0;
	d.__reserved = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MODEL_DESTROY, &d));
	/* a stream's id is no model, a model's no stream */
	EXPECT_EQ(-ENOENT, model_destroy(self->fd, self->stream));
	EXPECT_EQ(-ENOENT, npu_submit(self->fd, self->stream, &(struct npu_cmd){
		.op = NPU_OP_WAIT_STREAM, .src = id }, 1, NULL));
	EXPECT_EQ(-ENOENT, npu_stream_destroy(self->fd, id, 0));
	EXPECT_EQ(-ENOENT, npu_submit(self->fd, id, &ok, 1, NULL));
	EXPECT_EQ(-ENOENT, npu_run(self->fd, self->stream, model_cmd(self->stream)));
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_4K, SZ_4K, &handle));
	EXPECT_EQ(-ENOENT, npu_run(self->fd, self->stream, model_cmd(handle)));
	EXPECT_EQ(-ENOENT, model_destroy(self->fd, handle));
	EXPECT_EQ(0, npu_free(self->fd, handle));
	/* NPU_OP_MODEL's unused fields */
	run = model_cmd(id);
	run.flags = NPU_CMD_DST_HOST;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &run, 1, NULL));
	run = model_cmd(id);
	run.dst = 8;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &run, 1, NULL));
	run = model_cmd(id);
	run.value = 1;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &run, 1, NULL));
	run = model_cmd(id);
	run.length = 1;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &run, 1, NULL));
	run = model_cmd(id);
	run.src |= 1ULL << 32;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &run, 1, NULL));
	run = model_cmd(id);
	run.height = 1;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &run, 1, NULL));
	/* destroyed: gone for SUBMIT and for a second destroy */
	EXPECT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
	EXPECT_EQ(0, model_destroy(self->fd, id));
	EXPECT_EQ(-ENOENT, model_destroy(self->fd, id));
	EXPECT_EQ(-ENOENT, npu_run(self->fd, self->stream, model_cmd(id)));
	EXPECT_EQ(-ENOENT, npu_run(self->fd, self->stream, model_cmd(0)));
	/* another context's id names nothing here */
	{
		int fd2 = npu_open(0);
		uint32_t s2;

		ASSERT_LE(0, fd2);
		ASSERT_EQ(0, model_create(self->fd, &ok, 1, &id));
		ASSERT_EQ(0, npu_stream_create(fd2, &s2));
		EXPECT_EQ(-ENOENT, npu_run(fd2, s2, model_cmd(id)));
		EXPECT_EQ(-ENOENT, model_destroy(fd2, id));
		close(fd2);
		EXPECT_EQ(0, model_destroy(self->fd, id));
	}
}

/* Deterministic bytes for pass @pass. */
static void fill_pattern(uint8_t *p, size_t n, unsigned int pass)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + pass * 29 + (i >> 9));
}

/*
 * A model of copies in from the registered host input, a memset, a FILL32,
 * a device-to-device copy across pages and a REDUCE, run three times with
 * new input each time; after each run the whole device buffer is read
 * back in pieces of other offsets and lengths than the model wrote and
 * compared with a host model of it. For each page size.
 */
TEST_F(mdl, replay_integrity)
{
	static const uint64_t pages[] = { SZ_4K, SZ_2M };
	const uint64_t len = 3 * SZ_4K + 512;	/* the device buffer: crosses pages */
	uint8_t *in = self->host, *out = self->host + 2 * SZ_4K;
	uint8_t want[3 * SZ_4K + 512], src[SZ_4K];
	size_t p;

	for (p = 0; p < sizeof(pages) / sizeof(pages[0]); p++) {
		/* the buffer crosses a page boundary of either size */
		uint64_t va = npu_map_new_rw(self->fd, 2 * (pages[p] < SZ_2M ? 2 * SZ_4K : SZ_2M),
					     pages[p], 0);
		uint64_t dev = va + (pages[p] == SZ_4K ? 0 : SZ_2M - 2 * SZ_4K) - 256;
		struct npu_cmd cmds[] = {
			npu_memset_cmd(dev + 256, 0x5a, len, 0),
			npu_copy_cmd(dev + 300, ptr64(in), 1000, NPU_CMD_SRC_HOST),
			npu_copy_cmd(dev + SZ_4K - 100, ptr64(in + 1000), 3000, NPU_CMD_SRC_HOST),
			{ .op = NPU_OP_FILL32, .dst = dev + 2 * SZ_4K + 256, .length = 64,
			  .value = 0xa1b2c3d4 },
			npu_copy_cmd(dev + 3 * SZ_4K, dev + 300, 600, 0),
			{ .op = NPU_OP_REDUCE, .dst = dev + 2 * SZ_4K + 1024, .src = ptr64(in + 4000),
			  .length = 256, .flags = NPU_CMD_SRC_HOST | NPU_REDUCE_OP_SUM |
			  NPU_REDUCE_TYPE_INT8 },
		};
		unsigned int pass;
		uint32_t id;

		ASSERT_NE(0, va);
		ASSERT_EQ(0, model_create(self->fd, cmds, sizeof(cmds) / sizeof(cmds[0]), &id));
		for (pass = 0; pass < 3; pass++) {
			uint64_t off, n;
			size_t i;

			fill_pattern(in, 4256, pass);
			memcpy(src, in, sizeof(src));
			/* the host model, in the model's order */
			memset(want, 0x5a, len);
			memcpy(want + 44, src, 1000);
			memcpy(want + SZ_4K - 356, src + 1000, 3000);
			for (i = 0; i < 16; i++)
				memcpy(want + 2 * SZ_4K + 4 * i, &(uint32_t){ 0xa1b2c3d4 }, 4);
			memmove(want + 3 * SZ_4K - 256, want + 44, 600);
			for (i = 0; i < 256; i++)
				want[2 * SZ_4K + 768 + i] += (uint8_t)in[4000 + i];
			/* the model's run is one command of the stream */
			ASSERT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
			/* read back in pieces that straddle what it wrote */
			for (off = 0; off < len; off += n) {
				n = 700 + (off % 997);
				if (off + n > len)
					n = len - off;
				memset(out, 0xee, n);
				ASSERT_EQ(0, npu_run(self->fd, self->stream,
						     npu_copy_cmd(ptr64(out), dev + 256 + off, n,
								  NPU_CMD_DST_HOST)));
				if (memcmp(out, want + off, n)) {
					TH_LOG("page %#llx pass %u: bytes %llu+%llu differ",
					       (unsigned long long)pages[p], pass,
					       (unsigned long long)off, (unsigned long long)n);
					EXPECT_EQ(0, memcmp(out, want + off, n));
					break;
				}
			}
		}
		EXPECT_EQ(0, model_destroy(self->fd, id));
	}
}

/* A WAIT_VALUE inside a model waits in each run; the stream goes on after. */
TEST_F(mdl, waits_in_runs)
{
	uint64_t flag = self->va, data = self->va + 64;
	struct npu_cmd cmds[] = {
		npu_value_cmd(NPU_OP_WAIT_VALUE, flag, 1, NPU_WAIT_GEQ),
		npu_value_cmd(NPU_OP_WRITE_VALUE, flag, 0, 0),
		npu_copy_cmd(ptr64(self->host), data, 8, NPU_CMD_DST_HOST),
	};
	struct npu_stream_sync s = { .size = sizeof(s), .stream = self->stream, .timeout_ms = 50 };
	uint64_t v;
	uint32_t id;
	int run;

	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_value_cmd(NPU_OP_WRITE_VALUE, flag, 0, 0)));
	ASSERT_EQ(0, model_create(self->fd, cmds, 3, &id));
	for (run = 1; run <= 2; run++) {
		memset(self->host, 0, 8);
		ASSERT_EQ(0, npu_run(self->fd, self->stream2,
				     npu_value_cmd(NPU_OP_WRITE_VALUE, data, 100 + run, 0)));
		ASSERT_EQ(0, submit_model(self->fd, self->stream, id, NULL));
		/* it waits */
		EXPECT_EQ(-ETIMEDOUT, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &s));
		memcpy(&v, self->host, 8);
		EXPECT_EQ(0, v);
		/* another stream releases it */
		ASSERT_EQ(0, npu_run(self->fd, self->stream2,
				     npu_value_cmd(NPU_OP_WRITE_VALUE, flag, 1, 0)));
		EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));
		memcpy(&v, self->host, 8);
		EXPECT_EQ(100 + run, v);
	}
	EXPECT_EQ(0, model_destroy(self->fd, id));
}

/*
 * Runs of one model queued on two streams at once and destroyed while
 * they are: every run completes, each its own progress; then the id is
 * gone. A model of many small commands spans many turns.
 */
TEST_F(mdl, overlapping_runs_outlive_destroy)
{
	enum { N = 3000 };
	struct npu_cmd *cmds = calloc(N, sizeof(*cmds));
	uint32_t *words = (uint32_t *)self->host, id, i;
	uint64_t seq1 = 0, seq2 = 0;
	int r;

	ASSERT_NONNULL(cmds);
	for (i = 0; i < N; i++)
		cmds[i] = (struct npu_cmd){ .op = NPU_OP_FILL32, .flags = NPU_CMD_DST_HOST,
					    .dst = ptr64(&words[i]), .length = 4,
					    .value = 0x1000000u + i };
	ASSERT_EQ(0, model_create(self->fd, cmds, N, &id));
	EXPECT_EQ(1, fdinfo_models(self->fd));
	memset(words, 0, N * 4);
	for (r = 0; r < 4; r++) {
		ASSERT_EQ(0, submit_model(self->fd, self->stream, id, &seq1));
		ASSERT_EQ(0, submit_model(self->fd, self->stream2, id, &seq2));
	}
	EXPECT_EQ(0, model_destroy(self->fd, id));
	EXPECT_EQ(0, fdinfo_models(self->fd));
	EXPECT_EQ(-ENOENT, submit_model(self->fd, self->stream, id, NULL));
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0, npu_sync(self->fd, self->stream2, -1));
	for (i = 0; i < N; i++)
		if (words[i] != 0x1000000u + i) {
			EXPECT_EQ(0x1000000u + i, words[i]);
			break;
		}
	/* one seqno a run */
	EXPECT_EQ(4, seq1);
	EXPECT_EQ(4, seq2);
	free(cmds);
}

/*
 * A RANDOM in a model reads and stores its counter in device memory at
 * each run: two runs give what one RANDOM of twice the count gives.
 */
TEST_F(mdl, random_counter_carries)
{
	uint64_t ctr = self->va, out = self->va + SZ_4K;
	struct npu_random r = {
		.func = NPU_RANDOM_UNIFORM, .type = NPU_RANDOM_TYPE_UINT32,
		.param = { 0, 1000000 }, .seed = 12345, .count = 256, .counter = ctr,
	};
	struct npu_cmd rnd = { .op = NPU_OP_RANDOM, .dst = out, .src = ptr64(&r),
			       .value = sizeof(r) };
	uint8_t twice[2048], runs[2048];
	uint32_t id;

	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(ctr, 0, 16, 0)));
	ASSERT_EQ(0, model_create(self->fd, &rnd, 1, &id));
	/* the struct was read at MODEL_CREATE: changing it now changes nothing */
	r.seed = 999;
	ASSERT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, out, self->host, 0, 1024));
	memcpy(runs, self->host, 1024);
	ASSERT_EQ(0, npu_run(self->fd, self->stream2, model_cmd(id)));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, out, self->host, 0, 1024));
	memcpy(runs + 1024, self->host, 1024);
	/* the same draws at once from the same counter */
	r.seed = 12345;
	r.count = 512;
	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(ctr, 0, 16, 0)));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, rnd));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, out, self->host, 0, 2048));
	memcpy(twice, self->host, 2048);
	EXPECT_EQ(0, memcmp(twice, runs, 2048));
	EXPECT_NE(0, memcmp(runs, runs + 1024, 1024));
	EXPECT_EQ(0, model_destroy(self->fd, id));
}

/*
 * What a model names is looked up at each run: device memory unmapped
 * under it faults the run at the first command that reaches it (those
 * before it done, none after), as does a host operand unregistered; once
 * the memory is back, the next run reaches it.
 */
TEST_F(mdl, freed_memory_faults_cleanly)
{
	uint64_t gone = npu_reserve_new(self->fd, SZ_4K, SZ_4K);
	uint8_t *h2 = npu_host_mem(SZ_4K);
	struct npu_cmd cmds[] = {
		npu_value_cmd(NPU_OP_WRITE_VALUE, self->va, 0x11, 0),
		npu_value_cmd(NPU_OP_WRITE_VALUE, gone + 8, 0x22, 0),
		npu_copy_cmd(ptr64(h2), self->va, 8, NPU_CMD_DST_HOST),
		npu_value_cmd(NPU_OP_WRITE_VALUE, self->va + 8, 0x33, 0),
	};
	struct npu_sync_result res;
	uint32_t id, handle;
	uint64_t seq, v;

	ASSERT_NE(0, gone);
	ASSERT_NONNULL(h2);
	ASSERT_EQ(0, npu_register(self->fd, h2, SZ_4K, 0, 0));
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_4K, SZ_4K, &handle));
	ASSERT_EQ(0, npu_map(self->fd, gone, SZ_4K, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, gone, SZ_4K, 0, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, model_create(self->fd, cmds, 4, &id));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
	memcpy(&v, h2, 8);
	EXPECT_EQ(0x11, v);

	/* the device page goes */
	ASSERT_EQ(0, npu_unmap(self->fd, gone));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(self->va, 0, 16, 0)));
	memset(h2, 0, 8);
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, submit_model(self->fd, self->stream, id, &seq));
	res = sync_full(self->fd, self->stream);
	EXPECT_EQ(-EIO, res.ret);
	EXPECT_EQ(seq, res.error_seqno);
	EXPECT_EQ(gone + 8, res.fault_addr);
	EXPECT_EQ(NPU_FAULT_WRITE, res.fault_flags);
	/* the first command ran, none after the fault */
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, 0, 16));
	memcpy(&v, self->host, 8);
	EXPECT_EQ(0x11, v);
	memcpy(&v, self->host + 8, 8);
	EXPECT_EQ(0, v);
	EXPECT_EQ(-1, npu_check_byte(h2, 8, 0));

	/* mapped again: the next run reaches the new memory */
	ASSERT_EQ(0, npu_map(self->fd, gone, SZ_4K, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, gone, SZ_4K, 0, NPU_ACCESS_READWRITE));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, gone, self->host, 8, 8));
	memcpy(&v, self->host + 8, 8);
	EXPECT_EQ(0x22, v);

	/* the host registration goes: a host fault at its address */
	ASSERT_EQ(0, npu_unregister(self->fd, h2));
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, submit_model(self->fd, self->stream, id, &seq));
	res = sync_full(self->fd, self->stream);
	EXPECT_EQ(-EIO, res.ret);
	EXPECT_EQ(seq, res.error_seqno);
	EXPECT_EQ(ptr64(h2), res.fault_addr);
	EXPECT_EQ(NPU_FAULT_WRITE | NPU_FAULT_HOST, res.fault_flags);
	npu_expect_dma_faults(false);
	/* registered again (read-only: still no writable registration) */
	ASSERT_EQ(0, npu_register(self->fd, h2, SZ_4K, NPU_HOST_READONLY, 0));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream, model_cmd(id)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, npu_unregister(self->fd, h2));
	ASSERT_EQ(0, npu_register(self->fd, h2, SZ_4K, 0, 0));
	memset(h2, 0, 8);
	EXPECT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
	memcpy(&v, h2, 8);
	EXPECT_EQ(0x11, v);
	EXPECT_EQ(0, model_destroy(self->fd, id));
	EXPECT_EQ(0, npu_unregister(self->fd, h2));
}

/*
 * A model's copy into and out of a mirror: its pages are faulted in
 * while the run waits, as for a queued copy; each run sees the process's
 * memory as it is then.
 */
TEST_F(mdl, mirror_faults_in_during_a_run)
{
	const size_t len = 3 * SZ_4K;
	uint8_t *m = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	struct npu_mirror_map mm = { .size = sizeof(mm), .addr = ptr64(m), .length = 2 * len };
	struct npu_cmd cmds[] = {
		npu_copy_cmd(self->va, ptr64(m), len, 0),		/* in from the mirror */
		npu_copy_cmd(ptr64(m) + len + 100, self->va, len - 200, 0),	/* and back out */
	};
	unsigned int pass;
	uint32_t id;

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MIRROR_MAP, &mm));
	ASSERT_EQ(0, model_create(self->fd, cmds, 2, &id));
	for (pass = 0; pass < 3; pass++) {
		fill_pattern(m, len, pass);
		memset(m + len, 0, len);
		ASSERT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
		EXPECT_EQ(0, memcmp(m + len + 100, m, len - 200));
		EXPECT_EQ(-1, npu_check_byte(m + len, 100, 0));
		EXPECT_EQ(-1, npu_check_byte(m + 2 * len - 100, 100, 0));
	}
	EXPECT_EQ(0, model_destroy(self->fd, id));
	munmap(m, 2 * len);
}

static struct npu_cmd switch_cmd(uint64_t index_va, const uint32_t *targets, uint32_t n)
{
	return (struct npu_cmd){ .op = NPU_OP_SWITCH, .src = index_va, .length = n,
				  .value = ptr64(targets) };
}

/* What a SWITCH may not be; SUBMIT takes none. */
TEST_F(mdl, switch_refused)
{
	static const uint32_t to_end[] = { 2 }, past[] = { 0, 3 };
	struct npu_cmd cmds[2] = { npu_memset_cmd(self->va, 0, 8, 0) };
	const struct refusal bad[] = {
		{ switch_cmd(self->va + 2, to_end, 1), -EINVAL },		/* unaligned */
		{ switch_cmd(self->va, to_end, 0), -EINVAL },			/* no entry */
		{ switch_cmd(self->va, to_end, NPU_MODEL_MAX_CMDS + 1), -EINVAL },
		{ switch_cmd(self->va, past, 2), -EINVAL },			/* past the end */
		{ switch_cmd(-4ULL, to_end, 1), -EINVAL },			/* wraps */
		{ switch_cmd(self->va, NULL, 1), -EFAULT },
	};
	size_t i;

	expect_refused(self->fd, cmds[0], bad, sizeof(bad) / sizeof(bad[0]));
	for (i = 0; i < 4; i++) {
		cmds[1] = switch_cmd(self->va, to_end, 1);
		if (i == 0)
			cmds[1].flags = 1;
		else if (i == 1)
			cmds[1].dst = self->va;
		else if (i == 2)
			cmds[1].height = 1;
		else
			cmds[1].src_pitch = 4;
		EXPECT_EQ(-EINVAL, model_create(self->fd, cmds, 2, NULL));
	}
	cmds[1] = switch_cmd(self->va, to_end, 1);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &cmds[1], 1, NULL));
	EXPECT_EQ(0, fdinfo_models(self->fd));
}

/*
 * A label switch as the vendor's example builds it: the index in device
 * memory picks one of three branches, each ending in a jump to the end;
 * an index past the table takes its last entry. The index is read when
 * the run gets there, so one model serves every index.
 */
TEST_F(mdl, switch_picks_a_branch)
{
	uint64_t idx = self->va, zero = self->va + 8, out = self->va + 64;
	static const uint32_t branch[] = { 1, 3, 5 }, end[] = { 6 };
	struct npu_cmd cmds[] = {
		switch_cmd(idx, branch, 3),
		npu_value_cmd(NPU_OP_WRITE_VALUE, out, 100, 0),
		switch_cmd(zero, end, 1),
		npu_value_cmd(NPU_OP_WRITE_VALUE, out + 8, 200, 0),
		switch_cmd(zero, end, 1),
		npu_value_cmd(NPU_OP_WRITE_VALUE, out + 16, 300, 0),
	};
	static const uint32_t index[] = { 0, 1, 2, 7, 0xffffffff, 1 };
	uint64_t got[3];
	uint32_t id;
	size_t i;

	ASSERT_EQ(0, model_create(self->fd, cmds, 6, &id));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(zero, 0, 8, 0)));
	for (i = 0; i < sizeof(index) / sizeof(index[0]); i++) {
		uint32_t b = index[i] < 3 ? index[i] : 2;
		int k;

		ASSERT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(out, 0, 24, 0)));
		/* the upper half of the word is not the index's */
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_value_cmd(NPU_OP_WRITE_VALUE, idx,
						   index[i] | 0x500000000ULL, 0)));
		ASSERT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
		ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, out, self->host, 0, 24));
		memcpy(got, self->host, 24);
		for (k = 0; k < 3; k++)
			EXPECT_EQ(k == (int)b ? 100u * (k + 1) : 0, got[k]);
	}
	EXPECT_EQ(0, model_destroy(self->fd, id));
}

/*
 * A loop the device runs on its own: a counter in device memory counted
 * down by a REDUCE, a SWITCH back while it is not 0. 1000 rounds of
 * three steps span many turns.
 */
TEST_F(mdl, switch_loops_on_device)
{
	uint64_t ctr = self->va, acc = self->va + 4, one = self->va + 8, minus1 = self->va + 12;
	static const uint32_t back[] = { 3, 0 };	/* 0: the end; else: again */
	const uint32_t i32 = NPU_REDUCE_OP_SUM | NPU_REDUCE_TYPE_INT32;
	struct npu_cmd cmds[] = {
		{ .op = NPU_OP_REDUCE, .dst = acc, .src = one, .length = 4, .flags = i32 },
		{ .op = NPU_OP_REDUCE, .dst = ctr, .src = minus1, .length = 4, .flags = i32 },
		switch_cmd(ctr, back, 2),
	};
	uint32_t id, v[2];

	ASSERT_EQ(0, model_create(self->fd, cmds, 3, &id));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_value_cmd(NPU_OP_WRITE_VALUE, ctr, 1000, 0)));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_value_cmd(NPU_OP_WRITE_VALUE, one, 0xffffffff00000001ULL, 0)));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, model_cmd(id)));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, ctr, self->host, 0, 8));
	memcpy(v, self->host, 8);
	EXPECT_EQ(0, v[0]);
	EXPECT_EQ(1000, v[1]);
	EXPECT_EQ(0, model_destroy(self->fd, id));
}

/*
 * A model's SWITCH tables are kernel memory it holds for its life: they
 * are charged to the caller's memory cgroup, and one model's hold at most
 * NPU_MODEL_MAX_CMDS entries together.
 */
TEST_F(mdl, switch_tables_charged_and_capped)
{
	enum { N = 16, LEN = 1 << 20 };
	/* file pages left out: reclaim may take them meanwhile (a debug-kernel run once saw memory.current 1.75 MiB short) */
	const long long slack = 2 * memcg_slack();
	static struct npu_cmd cmds[N];
	static uint32_t table[LEN];
	long long base, used;
	char cg[64];
	uint32_t id;
	int i;

	/* two tables of half the cap and one more entry */
	for (i = 0; i < 2; i++)
		cmds[i] = switch_cmd(self->va, table, LEN / 2 + i);
	EXPECT_EQ(-EINVAL, model_create(self->fd, cmds, 2, NULL));
	cmds[1].length = LEN / 2;
	EXPECT_EQ(0, model_create(self->fd, cmds, 2, &id));
	EXPECT_EQ(0, model_destroy(self->fd, id));

	i = cg_enter_own(cg, sizeof(cg), "npu-model");
	if (i == 1)
		SKIP(return, "no cgroup2 memory controller at " CGROOT);
	ASSERT_EQ(0, i);
	/* N models of one full table each; the user's table is charged already */
	memset(table, 0, sizeof(table));
	cmds[0] = switch_cmd(self->va, table, LEN);
	base = cg_current_unfiled(cg);
	ASSERT_LE(0, base);
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, model_create(self->fd, cmds, 1, NULL));
	used = cg_current_unfiled(cg) - base;
	TH_LOG("%d SWITCH tables of %d entries: memcg +%lld KiB", N, LEN, used >> 10);
	EXPECT_LE(N * 4LL * SZ_1M - slack, used);
	/* closing the file frees them */
	close(self->fd);
	self->fd = npu_open(0);
	EXPECT_GE(base + slack, cg_current_unfiled(cg));
	EXPECT_EQ(0, cg_leave(cg));
}

/* A run that never leaves its loop holds nothing up: a FORCE destroy ends it. */
TEST_F(mdl, endless_loop_is_stopped)
{
	static const uint32_t self_[] = { 0 };
	struct npu_cmd loop = switch_cmd(self->va, self_, 1);
	struct npu_stream_sync s = { .size = sizeof(s), .stream = self->stream, .timeout_ms = 100 };
	uint32_t id;

	ASSERT_EQ(0, model_create(self->fd, &loop, 1, &id));
	ASSERT_EQ(0, submit_model(self->fd, self->stream, id, NULL));
	EXPECT_EQ(-ETIMEDOUT, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &s));
	/* the other stream runs meanwhile */
	EXPECT_EQ(0, npu_run(self->fd, self->stream2, npu_memset_cmd(self->va + 64, 1, 8, 0)));
	EXPECT_EQ(0, npu_stream_destroy(self->fd, self->stream, NPU_STREAM_DESTROY_FORCE));
	EXPECT_EQ(0, model_destroy(self->fd, id));
}

/* A file closed with runs waiting forever, and models never destroyed. */
TEST_F(mdl, close_with_runs_waiting)
{
	int fd = npu_open(0);
	struct npu_cmd wait, cmds[2];
	uint32_t s, id, i;
	uint64_t va;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_stream_create(fd, &s));
	va = npu_map_new_rw(fd, SZ_4K, SZ_4K, 0);
	ASSERT_NE(0, va);
	wait = npu_value_cmd(NPU_OP_WAIT_VALUE, va, 1, NPU_WAIT_EQ);
	cmds[0] = npu_memset_cmd(va + 64, 1, 64, 0);
	cmds[1] = wait;
	ASSERT_EQ(0, npu_run(fd, s, npu_memset_cmd(va, 0, 8, 0)));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, model_create(fd, cmds, 2, &id));
		ASSERT_EQ(0, submit_model(fd, s, id, NULL));
	}
	EXPECT_EQ(5, fdinfo_models(fd));
	EXPECT_EQ(0, close(fd));
}

/* max_models caps a context's models, before any command is read; a destroy makes room. */
TEST_F(mdl, cap)
{
	struct npu_cmd ok = npu_memset_cmd(self->va, 1, 8, 0);
	long long old = npu_param_get("max_models");
	uint32_t id[3];

	ASSERT_LT(0, old);
	ASSERT_EQ(0, npu_param_set("max_models", 2));
	EXPECT_EQ(0, model_create(self->fd, &ok, 1, &id[0]));
	EXPECT_EQ(0, model_create(self->fd, &ok, 1, &id[1]));
	EXPECT_EQ(-ENOSPC, model_create(self->fd, &ok, 1, &id[2]));
	EXPECT_EQ(-ENOSPC, model_create(self->fd, npu_unmapped_range(SZ_4K), 1, NULL));
	EXPECT_EQ(0, model_destroy(self->fd, id[0]));
	EXPECT_EQ(0, model_create(self->fd, &ok, 1, &id[2]));
	EXPECT_NE(id[0], id[2]);
	EXPECT_EQ(0, npu_param_set("max_models", old));
}

TEST_HARNESS_MAIN
