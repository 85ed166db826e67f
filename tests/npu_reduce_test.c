// SPDX-License-Identifier: GPL-2.0
/*
 * npu_reduce_test: NPU_OP_REDUCE (driver 1.8) through the raw ioctls - the
 * commands SUBMIT refuses, known answers of the engine's float arithmetic
 * at the rounding and range edges, host operands, and a fault part-way.
 */
#include <stdlib.h>

#include "harness.h"
#include "npu_util.h"

#define HOST_SIZE	(4 * SZ_4K)
#define DEV_SIZE	(4 * SZ_4K)

FIXTURE(red) {
	int fd;
	uint32_t stream;
	uint8_t *host;		/* HOST_SIZE, registered read-write */
	uint64_t va;		/* DEV_SIZE, read-write */
};

FIXTURE_SETUP(red)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->host = npu_host_mem(HOST_SIZE);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, HOST_SIZE, 0, 0));
	self->va = npu_map_new_rw(self->fd, DEV_SIZE, SZ_4K, 0);
	ASSERT_NE(0, self->va);
}

FIXTURE_TEARDOWN(red)
{
	npu_expect_dma_faults(false);
	close(self->fd);
}

static struct npu_cmd reduce_cmd(uint64_t dst, uint64_t src, uint64_t len, uint32_t flags)
{
	return (struct npu_cmd){ .op = NPU_OP_REDUCE, .flags = flags,
				 .dst = dst, .src = src, .length = len };
}

/* Every malformed REDUCE is -EINVAL at SUBMIT, and the stream works on. */
TEST_F(red, refused)
{
	const uint32_t f32 = NPU_REDUCE_TYPE_FP32, h = NPU_CMD_SRC_HOST;
	uint64_t va = self->va, src = ptr64(self->host);
	struct npu_cmd bad[] = {
		reduce_cmd(va, src, 8, h | 3U << 8 | f32),				/* op 3 */
		reduce_cmd(va, src, 8, h | 15U << 8 | f32),
		reduce_cmd(va, src, 8, h | 6U << 12),					/* type 6 */
		reduce_cmd(va, src, 8, h | 15U << 12),
		reduce_cmd(va, src, 8, NPU_CMD_SRC_USER | f32),
		reduce_cmd(ptr64(self->host), va, 8, NPU_CMD_DST_USER | f32),
		reduce_cmd(va, src, 8, h | NPU_CMD_DST_HOST | NPU_CMD_DST_PEER | f32),
		reduce_cmd(va, src, 0, h | f32),
		reduce_cmd(va, src, 6, h | f32),					/* not whole */
		reduce_cmd(va + 2, src, 8, h | f32),					/* unaligned */
		reduce_cmd(va, src + 1, 2, h | NPU_REDUCE_TYPE_BF16),
		reduce_cmd(va, src, 8, h | f32 | 1U << 16),				/* unknown bit */
		reduce_cmd(va, src, 8, h | f32 | NPU_WAIT_EQ),
		reduce_cmd(-8ULL, src, 16, h | f32),					/* wraps */
	};
	struct npu_cmd pitch = reduce_cmd(va, src, 8, h | f32), peerless = pitch;
	size_t i;

	pitch.height = 1;
	peerless.value = 3;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = npu_submit(self->fd, self->stream, &bad[i], 1, NULL);

		if (ret != -EINVAL)
			TH_LOG("case %zu: %d", i, ret);
		EXPECT_EQ(-EINVAL, ret);
	}
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &pitch, 1, NULL));
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &peerless, 1, NULL));
	/* a host operand outside every registration */
	bad[0] = reduce_cmd(va, src + HOST_SIZE - 4, 8, h | f32);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &bad[0], 1, NULL));
	/* nothing was queued: the stream runs a good one */
	memset(self->host, 0, 8);
	EXPECT_EQ(0, npu_run(self->fd, self->stream, reduce_cmd(va, src, 8, h | f32)));
}

struct known {
	uint32_t type;
	uint32_t op;
	uint32_t a, b, want;
};

/* The engine's float arithmetic where rounding and range decide. */
static const struct known known[] = {
	/* binary32: ties to even, carries, overflow, cancellation, subnormals, zeros, NaN */
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x3f800000, 0x33800000, 0x3f800000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x3f800001, 0x33800000, 0x3f800002 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x3f800000, 0x33800001, 0x3f800001 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x3fffffff, 0x34000000, 0x40000000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x7f7fffff, 0x7f7fffff, 0x7f800000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x7f7fffff, 0x73000000, 0x7f800000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x7f7fffff, 0x72800000, 0x7f7fffff },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x3f800000, 0xbf7fffff, 0x33800000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x00000001, 0x80000001, 0x00000000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x007fffff, 0x00000001, 0x00800000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x00800000, 0x80000001, 0x007fffff },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x80000000, 0x80000000, 0x80000000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x80000000, 0x00000000, 0x00000000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x7f800000, 0xff800000, 0x7fc00000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0xff800000, 0x7f7fffff, 0xff800000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_SUM, 0x3f800000, 0x7f800001, 0x7fc00001 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_MAX, 0x80000000, 0x00000000, 0x00000000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_MIN, 0x00000000, 0x80000000, 0x80000000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_MAX, 0xbf800000, 0xc0000000, 0xbf800000 },
	{ NPU_REDUCE_TYPE_FP32, NPU_REDUCE_OP_MIN, 0x3f800000, 0x7fc00000, 0x7fc00000 },
	/* binary16 */
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x3c00, 0x1000, 0x3c00 },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x3c01, 0x1000, 0x3c02 },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x7bff, 0x7bff, 0x7c00 },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x7bff, 0x4fff, 0x7c00 },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x7bff, 0x4bff, 0x7bff },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x0001, 0x0001, 0x0002 },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x03ff, 0x0001, 0x0400 },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x0400, 0x8001, 0x03ff },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_SUM, 0x3c00, 0xbc00, 0x0000 },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_MAX, 0x8001, 0x0000, 0x0000 },
	{ NPU_REDUCE_TYPE_FP16, NPU_REDUCE_OP_MIN, 0xfc00, 0x7bff, 0xfc00 },
	/* bfloat16 */
	{ NPU_REDUCE_TYPE_BF16, NPU_REDUCE_OP_SUM, 0x3f80, 0x3b80, 0x3f80 },
	{ NPU_REDUCE_TYPE_BF16, NPU_REDUCE_OP_SUM, 0x3f81, 0x3b80, 0x3f82 },
	{ NPU_REDUCE_TYPE_BF16, NPU_REDUCE_OP_SUM, 0x7f7f, 0x7f7f, 0x7f80 },
	{ NPU_REDUCE_TYPE_BF16, NPU_REDUCE_OP_SUM, 0x0001, 0x8001, 0x0000 },
	{ NPU_REDUCE_TYPE_BF16, NPU_REDUCE_OP_MIN, 0x8000, 0x0000, 0x8000 },
	/* integers wrap, and are signed */
	{ NPU_REDUCE_TYPE_INT8, NPU_REDUCE_OP_SUM, 0x7f, 0x01, 0x80 },
	{ NPU_REDUCE_TYPE_INT8, NPU_REDUCE_OP_MAX, 0x80, 0x7f, 0x7f },
	{ NPU_REDUCE_TYPE_INT16, NPU_REDUCE_OP_SUM, 0xffff, 0x0001, 0x0000 },
	{ NPU_REDUCE_TYPE_INT16, NPU_REDUCE_OP_MIN, 0x8000, 0x7fff, 0x8000 },
	{ NPU_REDUCE_TYPE_INT32, NPU_REDUCE_OP_SUM, 0x7fffffff, 0x00000001, 0x80000000 },
	{ NPU_REDUCE_TYPE_INT32, NPU_REDUCE_OP_MAX, 0xffffffff, 0x00000000, 0x00000000 },
};

static unsigned int elem_of(uint32_t type)
{
	return type == NPU_REDUCE_TYPE_INT8 ? 1 :
	       type == NPU_REDUCE_TYPE_INT32 || type == NPU_REDUCE_TYPE_FP32 ? 4 : 2;
}

/* Each known answer with a device dst and a host src, one command each, all at once. */
TEST_F(red, known_answers)
{
	size_t n = sizeof(known) / sizeof(known[0]), i;
	struct npu_cmd cmds[sizeof(known) / sizeof(known[0])];
	uint8_t *a = self->host + SZ_4K, *b = self->host, *got = self->host + 2 * SZ_4K;

	for (i = 0; i < n; i++) {
		unsigned int e = elem_of(known[i].type);

		memcpy(a + i * 4, &known[i].a, e);
		memcpy(b + i * 4, &known[i].b, e);
		cmds[i] = reduce_cmd(self->va + i * 4, ptr64(b + i * 4), e,
				     NPU_CMD_SRC_HOST | known[i].op | known[i].type);
	}
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(self->va, ptr64(a), n * 4, NPU_CMD_SRC_HOST)));
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, n, NULL));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, got, 0, n * 4));
	for (i = 0; i < n; i++) {
		uint32_t r = 0;

		memcpy(&r, got + i * 4, elem_of(known[i].type));
		if (r != known[i].want)
			TH_LOG("case %zu: %#x OP %#x = %#x", i, known[i].a, known[i].b, r);
		EXPECT_EQ(known[i].want, r);
	}
}

/* A source that runs off its mapping: the elements before the fault reduced, the rest not. */
TEST_F(red, fault_part_way)
{
	uint64_t src = npu_map_new_rw(self->fd, SZ_4K, SZ_4K, 0);
	uint32_t *h = (uint32_t *)self->host, *got = (uint32_t *)(self->host + SZ_4K);
	size_t i;

	ASSERT_NE(0, src);
	for (i = 0; i < 8; i++)
		h[i] = 100 + i;
	h[8] = 1;
	h[9] = 2;
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(self->va, ptr64(h), 32, NPU_CMD_SRC_HOST)));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(src + SZ_4K - 8, ptr64(h + 8), 8, NPU_CMD_SRC_HOST)));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				reduce_cmd(self->va, src + SZ_4K - 8, 32,
					   NPU_REDUCE_OP_SUM | NPU_REDUCE_TYPE_INT32)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, (uint8_t *)got, 0, 32));
	EXPECT_EQ(101U, got[0]);
	EXPECT_EQ(103U, got[1]);
	for (i = 2; i < 8; i++)
		EXPECT_EQ(100 + i, got[i]);
}

TEST_HARNESS_MAIN
