// SPDX-License-Identifier: GPL-2.0
/*
 * npu_copy_batch_test: NPU_OP_COPY_BATCH (driver 1.5) - one command for a
 * list of copies, read at SUBMIT - through the raw ioctls: what it
 * writes against a model of every buffer, its order, resuming across
 * turns, a fault in a later copy, what SUBMIT refuses (and that a refusal
 * holds nothing), and its weight against max_queued.
 */
#include <stdlib.h>

#include "harness.h"
#include "npu_util.h"

#define HOST_SIZE	(8 * SZ_2M)	/* registered: sources, models, results */
#define DEV_4K_SIZE	(64 * SZ_4K)
#define DEV_2M_SIZE	(2 * SZ_2M)
#define NCOPIES		300

FIXTURE(cb) {
	int fd;
	uint32_t stream;
	uint8_t *host;		/* HOST_SIZE, registered read-write */
	uint64_t va4k;		/* DEV_4K_SIZE in 4 KiB pages */
	uint64_t va2m;		/* DEV_2M_SIZE in 2 MiB pages */
	struct npu_copy_desc d[NCOPIES];
};

FIXTURE_SETUP(cb)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->host = npu_host_mem(HOST_SIZE);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, HOST_SIZE, 0, 0));
	self->va4k = npu_map_new_rw(self->fd, DEV_4K_SIZE, SZ_4K, 0);
	ASSERT_NE(0, self->va4k);
	self->va2m = npu_map_new_rw(self->fd, DEV_2M_SIZE, SZ_2M, 0);
	ASSERT_NE(0, self->va2m);
	srandom(21);
}

FIXTURE_TEARDOWN(cb)
{
	npu_expect_dma_faults(false);
	close(self->fd);
}

static struct npu_cmd batch_cmd(const struct npu_copy_desc *d, uint64_t n,
				uint32_t flags)
{
	return (struct npu_cmd){ .op = NPU_OP_COPY_BATCH, .flags = flags,
				 .src = ptr64(d), .length = n,
				 .value = sizeof(*d) };
}

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = random();
}

/* @len bytes between registered host memory and device memory. */
static int dev_load(FIXTURE_DATA(cb) *self, uint64_t va, const void *src,
		    uint64_t len)
{
	return npu_run(self->fd, self->stream,
		       npu_copy_cmd(va, ptr64(src), len, NPU_CMD_SRC_HOST));
}

static int dev_store(FIXTURE_DATA(cb) *self, void *dst, uint64_t va,
		     uint64_t len)
{
	return npu_run(self->fd, self->stream,
		       npu_copy_cmd(ptr64(dst), va, len, NPU_CMD_DST_HOST));
}

/*
 * @n random copies inside a @len-byte area at both ends, overlapping
 * each other on purpose (array order decides), offsets and lengths not
 * aligned to anything.
 */
static void random_copies(struct npu_copy_desc *d, int n, uint64_t dst,
			  uint64_t src, uint64_t len)
{
	for (int i = 0; i < n; i++) {
		uint64_t l = 1 + random() % (i % 7 ? 3000 : 40000);
		uint64_t doff = random() % (len - l), soff = random() % (len - l);

		d[i] = (struct npu_copy_desc){ dst + doff, src + soff, l };
	}
}

/* The model: each copy in array order, from @src's bytes to @model's. */
static void model_copies(uint8_t *model, uint64_t dst, const uint8_t *src,
			 uint64_t srcbase, const struct npu_copy_desc *d, int n)
{
	for (int i = 0; i < n; i++)
		memmove(model + (d[i].dst - dst), src + (d[i].src - srcbase),
			d[i].length);
}

/* H2D, D2H and D2D into 4 KiB and 2 MiB pages, read back at other offsets. */
TEST_F_TIMEOUT(cb, copies_match_the_model, 120)
{
	const uint64_t len = DEV_4K_SIZE;
	uint8_t *src = self->host, *model = self->host + SZ_2M,
		*back = self->host + 2 * SZ_2M, *hdst = self->host + 3 * SZ_2M;
	uint64_t vas[2] = { self->va4k, self->va2m };

	for (int v = 0; v < 2; v++) {
		uint64_t va = vas[v], other = vas[!v];

		/* H2D: the device area starts as @model */
		fill_random(src, len);
		fill_random(model, len);
		ASSERT_EQ(0, dev_load(self, va, model, len));
		random_copies(self->d, NCOPIES, va, ptr64(src), len);
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     batch_cmd(self->d, NCOPIES,
					       NPU_CMD_SRC_HOST)));
		model_copies(model, va, src, ptr64(src), self->d, NCOPIES);
		memset(back, 0, len);
		ASSERT_EQ(0, dev_store(self, back, va, len));
		EXPECT_EQ(0, memcmp(back, model, len));
		memset(back, 0, len);
		ASSERT_EQ(0, dev_store(self, back, va + 4095, 7777));
		EXPECT_EQ(0, memcmp(back, model + 4095, 7777));

		/* D2H: from the device area (now @model) into @hdst */
		fill_random(hdst, len);
		memcpy(back, hdst, len);
		random_copies(self->d, NCOPIES, ptr64(hdst), va, len);
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     batch_cmd(self->d, NCOPIES,
					       NPU_CMD_DST_HOST)));
		model_copies(back, ptr64(hdst), model, va, self->d, NCOPIES);
		EXPECT_EQ(0, memcmp(hdst, back, len));

		/* D2D: from the device area into the other handle's */
		fill_random(src, len);
		ASSERT_EQ(0, dev_load(self, other, src, len));
		random_copies(self->d, NCOPIES, other, va, len);
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     batch_cmd(self->d, NCOPIES, 0)));
		model_copies(src, other, model, va, self->d, NCOPIES);
		memset(back, 0, len);
		ASSERT_EQ(0, dev_store(self, back, other, len));
		EXPECT_EQ(0, memcmp(back, src, len));
		/* the source area is untouched */
		ASSERT_EQ(0, dev_store(self, back, va, len));
		EXPECT_EQ(0, memcmp(back, model, len));
	}
}

/*
 * Copies longer than a turn's budget (4 MiB) and a chunk (1 MiB): the
 * command goes on where the last turn left off, inside a copy and at the
 * next one; a larger element with a zero tail reads the same.
 */
TEST_F_TIMEOUT(cb, long_copies_resume_across_turns, 120)
{
	struct {
		struct npu_copy_desc d;
		uint64_t tail;
	} big[3];
	uint8_t *src = self->host, *back = self->host + 4 * SZ_2M;
	uint64_t va = self->va2m;
	struct npu_cmd c;

	fill_random(src, 4 * SZ_2M);
	memset(big, 0, sizeof(big));
	big[0].d = (struct npu_copy_desc){ va + 3, ptr64(src + 5), 3 * SZ_1M + 7 };
	big[1].d = (struct npu_copy_desc){ va + 3 * SZ_1M + 10, ptr64(src + SZ_2M), 17 };
	big[2].d = (struct npu_copy_desc){ va + 3 * SZ_1M + 27, ptr64(src + 7), SZ_1M - 100 };
	c = batch_cmd(&big[0].d, 3, NPU_CMD_SRC_HOST);
	c.value = sizeof(big[0]);
	ASSERT_EQ(0, npu_run(self->fd, self->stream, c));
	memset(back, 0, DEV_2M_SIZE);
	ASSERT_EQ(0, dev_store(self, back, va, DEV_2M_SIZE));
	EXPECT_EQ(0, memcmp(back + 3, src + 5, 3 * SZ_1M + 7));
	EXPECT_EQ(0, memcmp(back + 3 * SZ_1M + 10, src + SZ_2M, 17));
	EXPECT_EQ(0, memcmp(back + 3 * SZ_1M + 27, src + 7, SZ_1M - 100));
}

/* A fault in a later copy fails the command; the copies before it are done. */
TEST_F(cb, fault_in_a_later_copy)
{
	uint8_t *src = self->host, *back = self->host + SZ_2M;
	uint64_t end = self->va4k + DEV_4K_SIZE;
	struct npu_copy_desc d[3] = {
		{ self->va4k, ptr64(src), 100 },
		{ self->va4k + 200, ptr64(src + 100), 100 },
		{ end - 50, ptr64(src), 100 },	/* runs past the mapping */
	};

	fill_random(src, SZ_4K);
	memset(back, 0, SZ_4K);
	ASSERT_EQ(0, dev_load(self, self->va4k, back, SZ_4K));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				batch_cmd(d, 3, NPU_CMD_SRC_HOST)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, dev_store(self, back, self->va4k, 300));
	EXPECT_EQ(0, memcmp(back, src, 100));
	EXPECT_EQ(0, memcmp(back + 200, src + 100, 100));
	/* the stream goes on */
	EXPECT_EQ(0, npu_run(self->fd, self->stream,
			     batch_cmd(d, 2, NPU_CMD_SRC_HOST)));
}

static int submit1(FIXTURE_DATA(cb) *self, struct npu_cmd c)
{
	return npu_submit(self->fd, self->stream, &c, 1, NULL);
}

/* What SUBMIT refuses; a refused SUBMIT queues nothing and holds nothing. */
TEST_F(cb, bad_inputs)
{
	uint8_t *h = self->host, *ro;
	uint64_t va = self->va4k;
	struct {
		struct npu_copy_desc d;
		uint64_t tail[2];
	} wide = { { va, ptr64(h), 8 }, { 0, 0 } };
	struct npu_copy_desc d[2] = {
		{ va, ptr64(h), 64 }, { va + 64, ptr64(h + 64), 64 },
	};
	struct npu_copy_desc *edge;
	struct npu_cmd c;
	uint64_t seq0, seq;

	ASSERT_EQ(0, npu_submit(self->fd, self->stream,
				&(struct npu_cmd){ .op = NPU_OP_TIMESTAMP,
						   .dst = va }, 1, &seq0));
	/* the command's own fields */
	c = batch_cmd(d, 2, NPU_CMD_SRC_HOST);
	c.flags |= NPU_CMD_SRC_USER;
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c.flags = NPU_CMD_SRC_PEER;
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c = batch_cmd(d, 2, NPU_CMD_SRC_HOST);
	c.dst = va;
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c = batch_cmd(d, 0, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c = batch_cmd(d, NPU_COPY_BATCH_MAX + 1, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c = batch_cmd(d, 2, NPU_CMD_SRC_HOST);
	c.value = 16;
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c.value = 0;
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c.value = 28;
	EXPECT_EQ(-EINVAL, submit1(self, c));
	c.value = SZ_4K + 8;
	EXPECT_EQ(-E2BIG, submit1(self, c));
	c = batch_cmd(d, 2, NPU_CMD_SRC_HOST);
	c.height = 1;
	EXPECT_EQ(-EINVAL, submit1(self, c));
	/* an element larger than the kernel's: its tail must be zero */
	c = batch_cmd(&wide.d, 1, NPU_CMD_SRC_HOST);
	c.value = sizeof(wide);
	wide.tail[1] = 1;
	EXPECT_EQ(-E2BIG, submit1(self, c));
	wide.tail[1] = 0;
	EXPECT_EQ(0, submit1(self, c));
	/* the array itself: unreadable, or its last element beyond a mapping */
	c = batch_cmd((void *)8, 2, NPU_CMD_SRC_HOST);
	EXPECT_EQ(-EFAULT, submit1(self, c));
	edge = mmap(NULL, 2 * SZ_4K, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, edge);
	ASSERT_EQ(0, munmap((char *)edge + SZ_4K, SZ_4K));
	edge = (void *)((char *)edge + SZ_4K - sizeof(*edge));
	*edge = d[0];
	EXPECT_EQ(0, submit1(self, batch_cmd(edge, 1, NPU_CMD_SRC_HOST)));
	EXPECT_EQ(-EFAULT, submit1(self, batch_cmd(edge, 2, NPU_CMD_SRC_HOST)));
	/* one bad copy refuses all: zero length, wrap, host not registered */
	d[1].length = 0;
	EXPECT_EQ(-EINVAL, submit1(self, batch_cmd(d, 2, NPU_CMD_SRC_HOST)));
	d[1] = (struct npu_copy_desc){ ~0ULL - 10, ptr64(h), 64 };
	EXPECT_EQ(-EINVAL, submit1(self, batch_cmd(d, 2, NPU_CMD_SRC_HOST)));
	d[1] = (struct npu_copy_desc){ va, ~0ULL - 10, 64 };
	EXPECT_EQ(-EINVAL, submit1(self, batch_cmd(d, 2, 0)));
	d[1] = (struct npu_copy_desc){ va, ptr64(h + HOST_SIZE - 8), 64 };
	EXPECT_EQ(-ENXIO, submit1(self, batch_cmd(d, 2, NPU_CMD_SRC_HOST)));
	d[1] = (struct npu_copy_desc){ va, ptr64(&seq), 8 };
	EXPECT_EQ(-ENXIO, submit1(self, batch_cmd(d, 2, NPU_CMD_SRC_HOST)));
	/* a read-only registration is no destination */
	ro = npu_host_mem(SZ_4K);
	ASSERT_NONNULL(ro);
	ASSERT_EQ(0, npu_register(self->fd, ro, SZ_4K, NPU_HOST_READONLY, 0));
	d[1] = (struct npu_copy_desc){ ptr64(ro), va, 64 };
	d[0] = (struct npu_copy_desc){ ptr64(h), va, 64 };
	EXPECT_EQ(-EACCES, submit1(self, batch_cmd(d, 2, NPU_CMD_DST_HOST)));
	/* no refusal kept a registration: it unregisters at once */
	EXPECT_EQ(0, npu_unregister(self->fd, ro));
	/* nothing was queued by the refusals: two good ones and the first */
	ASSERT_EQ(0, npu_submit(self->fd, self->stream,
				&(struct npu_cmd){ .op = NPU_OP_TIMESTAMP,
						   .dst = va }, 1, &seq));
	EXPECT_EQ(seq0 + 3, seq);
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));
	munmap((char *)edge + sizeof(*edge) - SZ_4K, SZ_4K);
}

/*
 * A COPY_BATCH counts as its copies against max_queued: a SUBMIT heavier
 * than the cap by itself never fits (-ENOMEM), one that fits runs.
 */
TEST_F(cb, copies_count_against_max_queued)
{
	static struct npu_copy_desc many[NPU_COPY_BATCH_MAX];
	long long old = npu_param_get("max_queued");
	struct npu_cmd c[2];

	ASSERT_LT(0, old);
	for (int i = 0; i < NPU_COPY_BATCH_MAX; i++)
		many[i] = (struct npu_copy_desc){ self->va4k + i % 64 * 64,
						  self->va2m + i * 8, 8 };
	c[0] = batch_cmd(many, NPU_COPY_BATCH_MAX, 0);
	c[1] = c[0];
	/* the floor of the cap is one full SUBMIT: 4096 */
	ASSERT_EQ(0, npu_param_set("max_queued", 1));
	EXPECT_EQ(-ENOMEM, npu_submit(self->fd, self->stream, c, 2, NULL));
	EXPECT_EQ(0, npu_submit(self->fd, self->stream, c, 1, NULL));
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));
	ASSERT_EQ(0, npu_param_set("max_queued", old));
	EXPECT_EQ(0, npu_submit(self->fd, self->stream, c, 2, NULL));
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));
}

/* A stream destroyed while a long COPY_BATCH runs: it stops, nothing leaks. */
TEST_F(cb, destroy_while_running)
{
	static struct npu_copy_desc many[NPU_COPY_BATCH_MAX];
	struct npu_cmd c[8];
	uint32_t s;

	for (int i = 0; i < NPU_COPY_BATCH_MAX; i++)
		many[i] = (struct npu_copy_desc){ self->va2m,
						  ptr64(self->host + i * 1024),
						  SZ_1M };
	for (int i = 0; i < 8; i++)
		c[i] = batch_cmd(many, 1024, NPU_CMD_SRC_HOST);
	ASSERT_EQ(0, npu_stream_create(self->fd, &s));
	ASSERT_EQ(0, npu_submit(self->fd, s, c, 8, NULL));
	usleep(20000);
	EXPECT_EQ(0, npu_stream_destroy(self->fd, s, NPU_STREAM_DESTROY_FORCE));
	/* the registrations it held are let go: unregister does not wait */
	EXPECT_EQ(0, npu_unregister(self->fd, self->host));
}

TEST_HARNESS_MAIN
