// SPDX-License-Identifier: GPL-2.0
/*
 * npu_copy2d_test: what driver 1.4 added to SUBMIT - the element size
 * (cmd_size) of the command array, NPU_OP_COPY_2D, NPU_OP_FILL32, up to
 * NPU_SUBMIT_MAX_CMDS commands per call and the npu-submits fdinfo key -
 * through the raw ioctls.
 */
#include <stdlib.h>

#include "harness.h"
#include "npu_util.h"

#define HOST_SIZE	(8 * SZ_2M)	/* registered; room for models */
#define DEV_4K_SIZE	(64 * SZ_4K)
#define DEV_2M_SIZE	(2 * SZ_2M)

FIXTURE(c2d) {
	int fd;
	uint32_t stream;
	uint8_t *host;		/* HOST_SIZE, registered read-write */
	uint64_t va4k;		/* DEV_4K_SIZE in 4 KiB pages */
	uint64_t va2m;		/* DEV_2M_SIZE in 2 MiB pages */
};

FIXTURE_SETUP(c2d)
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
	srandom(12);
}

FIXTURE_TEARDOWN(c2d)
{
	npu_expect_dma_faults(false);
	close(self->fd);
}

static struct npu_cmd copy2d_cmd(uint64_t dst, uint64_t dpitch, uint64_t src,
				 uint64_t spitch, uint64_t width,
				 uint64_t height, uint32_t flags)
{
	return (struct npu_cmd){ .op = NPU_OP_COPY_2D, .flags = flags,
				 .dst = dst, .src = src, .length = width,
				 .dst_pitch = dpitch, .src_pitch = spitch,
				 .height = height };
}

static struct npu_cmd fill32_cmd(uint64_t dst, uint32_t value, uint64_t len,
				 uint32_t flags)
{
	return (struct npu_cmd){ .op = NPU_OP_FILL32, .flags = flags,
				 .dst = dst, .value = value, .length = len };
}

/* SUBMIT with an explicit element size and argument size. */
static int submit_raw(int fd, uint32_t stream, const void *cmds,
		      uint32_t count, uint32_t cmd_size, uint32_t size)
{
	struct npu_submit s = {
		.size = size, .stream = stream, .count = count,
		.cmds = ptr64(cmds), .cmd_size = cmd_size,
	};

	return npu_ioctl(fd, NPU_IOCTL_SUBMIT, &s);
}

static int sub1(FIXTURE_DATA(c2d) *self, struct npu_cmd c)
{
	return npu_submit(self->fd, self->stream, &c, 1, NULL);
}

static void fill_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = random();
}

/* ------------------------------------------------------------------ */
/* SUBMIT: cmd_size, the old struct, the new maximum                   */
/* ------------------------------------------------------------------ */

/* The 1.3 layout: 40-byte commands, with cmd_size 0 and the 32-byte struct. */
struct cmd_v1 {
	uint32_t op, flags;
	uint64_t dst, src, length, value;
};

TEST_F(c2d, submit_old_layouts_still_work)
{
	uint64_t *h = (uint64_t *)self->host;
	struct cmd_v1 v1[2] = {
		{ .op = NPU_OP_WRITE_VALUE, .flags = NPU_CMD_DST_HOST,
		  .dst = ptr64(&h[0]), .value = 0x1111 },
		{ .op = NPU_OP_WRITE_VALUE, .flags = NPU_CMD_DST_HOST,
		  .dst = ptr64(&h[1]), .value = 0x2222 },
	};

	_Static_assert(sizeof(struct cmd_v1) == NPU_CMD_SIZE_V1, "v1 size");
	_Static_assert(sizeof(struct npu_cmd) == 64, "1.4 size");
	_Static_assert(sizeof(struct npu_submit) == 40, "submit size");
	/* the 32-byte struct of 1.0..1.3 */
	ASSERT_EQ(0, submit_raw(self->fd, self->stream, v1, 2, 0, 32));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0x1111, h[0]);
	EXPECT_EQ(0x2222, h[1]);
	/* the new struct, cmd_size 0 and 40 alike */
	v1[0].value = 0x3333;
	v1[1].value = 0x4444;
	ASSERT_EQ(0, submit_raw(self->fd, self->stream, v1, 2, 0,
				sizeof(struct npu_submit)));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0x3333, h[0]);
	EXPECT_EQ(0x4444, h[1]);
	v1[1].value = 0x5555;
	ASSERT_EQ(0, submit_raw(self->fd, self->stream, v1, 2, NPU_CMD_SIZE_V1,
				sizeof(struct npu_submit)));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0x5555, h[1]);
	/* a 40-byte COPY_2D is a plain COPY with no shape: refused */
	v1[0].op = NPU_OP_COPY_2D;
	EXPECT_EQ(-EINVAL, submit_raw(self->fd, self->stream, v1, 1, 0, 32));
}

/* Elements longer than the known struct: a zero tail is fine, else -E2BIG. */
TEST_F(c2d, submit_cmd_size_rules)
{
	uint64_t *h = (uint64_t *)self->host;
	struct {
		struct npu_cmd c;
		uint64_t tail[3];
	} big[2] = {
		{ .c = npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(&h[0]), 7,
				     NPU_CMD_DST_HOST) },
		{ .c = npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(&h[1]), 8,
				     NPU_CMD_DST_HOST) },
	};
	struct npu_cmd c = npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(&h[2]), 9,
					 NPU_CMD_DST_HOST);
	uint32_t sz = sizeof(struct npu_submit);
	static uint8_t page[2 * 4096 + 8];

	ASSERT_EQ(0, submit_raw(self->fd, self->stream, big, 2, sizeof(big[0]),
				sz));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(7, h[0]);
	EXPECT_EQ(8, h[1]);
	/* a non-zero byte past struct npu_cmd, in the second element */
	big[1].tail[2] = 1;
	EXPECT_EQ(-E2BIG, submit_raw(self->fd, self->stream, big, 2,
				     sizeof(big[0]), sz));
	big[1].tail[2] = 0;
	big[1].tail[0] = 1ULL << 63;
	EXPECT_EQ(-E2BIG, submit_raw(self->fd, self->stream, big, 2,
				     sizeof(big[0]), sz));
	/* too small, not a multiple of 8 */
	EXPECT_EQ(-EINVAL, submit_raw(self->fd, self->stream, &c, 1, 32, sz));
	EXPECT_EQ(-EINVAL, submit_raw(self->fd, self->stream, &c, 1, 8, sz));
	EXPECT_EQ(-EINVAL, submit_raw(self->fd, self->stream, &c, 1, 44, sz));
	EXPECT_EQ(-EINVAL, submit_raw(self->fd, self->stream, &c, 1, 65, sz));
	EXPECT_EQ(-EINVAL, submit_raw(self->fd, self->stream, &c, 1, 4097, sz));
	/* a shorter element than this header's: the rest reads as zero */
	c.height = 5;		/* not read with cmd_size 48 */
	EXPECT_EQ(0, submit_raw(self->fd, self->stream, &c, 1, 48, sz));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(9, h[2]);
	/* ... and a 64-byte one with it is refused: not a COPY_2D */
	EXPECT_EQ(-EINVAL, submit_raw(self->fd, self->stream, &c, 1, 64, sz));
	/* the largest element, 4096 bytes, zero tail; one more word: -E2BIG */
	memcpy(page, &big[0].c, sizeof(struct npu_cmd));
	EXPECT_EQ(0, submit_raw(self->fd, self->stream, page, 1, 4096, sz));
	EXPECT_EQ(-E2BIG, submit_raw(self->fd, self->stream, page, 1, 4104, sz));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	/* reserved, flags, an unreadable array */
	{
		struct npu_submit s = {
			.size = sz, .stream = self->stream, .count = 1,
			.cmds = ptr64(&c), .__reserved = 1,
		};

		c.height = 0;
		EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, &s));
		s.__reserved = 0;
		s.flags = ~NPU_SUBMIT_FLAGS_MASK;
		EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, &s));
		s.flags = 0;
		s.cmds = 8;
		EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, &s));
		s.cmds = ptr64(&c);
		s.stream = 999;
		EXPECT_EQ(-ENOENT, npu_ioctl(self->fd, NPU_IOCTL_SUBMIT, &s));
	}
}

/* NPU_SUBMIT_MAX_CMDS commands in one call, in order; one more is refused. */
TEST_F(c2d, submit_max_commands)
{
	static struct npu_cmd cmds[NPU_SUBMIT_MAX_CMDS + 1];
	uint32_t *w = (uint32_t *)self->host;
	uint64_t seq0, seq;

	ASSERT_EQ(4096, NPU_SUBMIT_MAX_CMDS);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(w), 0,
					   NPU_CMD_DST_HOST)));
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, cmds, 0, NULL));
	for (int i = 0; i <= NPU_SUBMIT_MAX_CMDS; i++)
		cmds[i] = fill32_cmd(ptr64(&w[i]), 0xa5000000u + i, 4,
				     NPU_CMD_DST_HOST);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, cmds,
				      NPU_SUBMIT_MAX_CMDS + 1, NULL));
	/* nothing of the refused call ran */
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0, w[5]);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &cmds[0], 1, &seq0));
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds,
				NPU_SUBMIT_MAX_CMDS, &seq));
	EXPECT_EQ(seq0 + NPU_SUBMIT_MAX_CMDS, seq);
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	for (int i = 0; i < NPU_SUBMIT_MAX_CMDS; i++)
		if (w[i] != 0xa5000000u + i) {
			EXPECT_EQ(0xa5000000u + i, w[i]);
			break;
		}
	EXPECT_EQ(0, w[NPU_SUBMIT_MAX_CMDS]);
}

/* npu-submits counts SUBMIT calls, refused ones too, not commands. */
TEST_F(c2d, fdinfo_counts_submits)
{
	static struct npu_cmd cmds[1000];
	uint32_t *w = (uint32_t *)self->host;
	long long n0 = npu_proc_submits(self->fd);
	struct npu_cmd bad = fill32_cmd(ptr64(w) + 1, 0, 4, NPU_CMD_DST_HOST);

	ASSERT_LE(0, n0);
	for (int i = 0; i < 1000; i++)
		cmds[i] = fill32_cmd(ptr64(&w[i]), i, 4, NPU_CMD_DST_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 1000, NULL));
	EXPECT_EQ(n0 + 1, npu_proc_submits(self->fd));
	EXPECT_EQ(-EINVAL, sub1(self, bad));
	EXPECT_EQ(n0 + 2, npu_proc_submits(self->fd));
	/* other ioctls do not count */
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(n0 + 2, npu_proc_submits(self->fd));
	EXPECT_EQ(999, w[999]);
	/* another file has its own count */
	{
		int fd2 = npu_open(0);

		ASSERT_LE(0, fd2);
		EXPECT_EQ(0, npu_proc_submits(fd2));
		close(fd2);
	}
}

/* ------------------------------------------------------------------ */
/* COPY_2D and FILL32: bad input                                       */
/* ------------------------------------------------------------------ */

TEST_F(c2d, copy2d_bad_inputs)
{
	uint64_t h = ptr64(self->host), va = self->va2m;
	uint8_t *ro = npu_host_mem(4 * SZ_4K), *plain = npu_host_mem(SZ_4K);
	struct npu_cmd c;

	ASSERT_NONNULL(ro);
	ASSERT_NONNULL(plain);
	ASSERT_EQ(0, npu_register(self->fd, ro, 4 * SZ_4K, NPU_HOST_READONLY, 0));
	/* the good one, as a reference */
	EXPECT_EQ(0, sub1(self, copy2d_cmd(va, 64, va + SZ_2M, 128, 64, 16, 0)));
	/* pitch shorter than a row, on either side */
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 63, va + SZ_2M, 128, 64, 16, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 64, va + SZ_2M, 63, 64, 16, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 0, va + SZ_2M, 0, 64, 1, 0)));
	/* no rows, no width, too many rows */
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 64, va + SZ_2M, 64, 64, 0, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 64, va + SZ_2M, 64, 0, 16, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 1, va + SZ_2M, 1, 1,
						 NPU_COPY_2D_MAX_HEIGHT + 1, 0)));
	/* a span that wraps: the address, pitch * rows, or the last row's end */
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 1ULL << 62, va + SZ_2M, 64,
						 64, 16, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 64, UINT64_MAX - 4096,
						 4096, 64, 2, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(UINT64_MAX - 63 - 64, 64, va,
						 64, 64, 2, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, UINT64_MAX, va, 64, 64, 2, 0)));
	/* unknown flags, WAIT bits, HOST and PEER on one side */
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 64, va + SZ_2M, 64, 64, 2,
						 1U << 10)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 64, va + SZ_2M, 64, 64, 2,
						 NPU_WAIT_EQ)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(h, 64, va, 64, 64, 2,
						 NPU_CMD_DST_HOST | NPU_CMD_DST_PEER)));
	EXPECT_EQ(-EINVAL, sub1(self, copy2d_cmd(va, 64, h, 64, 64, 2,
						 NPU_CMD_SRC_HOST | NPU_CMD_SRC_PEER)));
	/* value is the peer fd: must be 0 without a peer operand */
	c = copy2d_cmd(va, 64, va + SZ_2M, 64, 64, 2, 0);
	c.value = 3;
	EXPECT_EQ(-EINVAL, sub1(self, c));
	/* a peer fd that is no npu context */
	c = copy2d_cmd(va, 64, va + SZ_2M, 64, 64, 2, NPU_CMD_SRC_PEER);
	c.value = 0;
	EXPECT_EQ(-EBADF, sub1(self, c));
	/* the same device is no peer */
	c.value = self->fd;
	EXPECT_EQ(-EBADF, sub1(self, c));
	/*
	 * Host spans: the first row is registered, the last is not (the
	 * whole strided span must lie in one registration), on either side.
	 */
	EXPECT_EQ(0, sub1(self, copy2d_cmd(h, SZ_4K, va, 64, 64, HOST_SIZE / SZ_4K,
					   NPU_CMD_DST_HOST)));
	EXPECT_EQ(-ENXIO, sub1(self, copy2d_cmd(h, SZ_4K, va, 64, 64,
						HOST_SIZE / SZ_4K + 1,
						NPU_CMD_DST_HOST)));
	EXPECT_EQ(-ENXIO, sub1(self, copy2d_cmd(h, SZ_4K + 4, va, 64, 64,
						HOST_SIZE / SZ_4K,
						NPU_CMD_DST_HOST)));
	EXPECT_EQ(-ENXIO, sub1(self, copy2d_cmd(va, 64, h + HOST_SIZE - SZ_4K,
						2 * SZ_4K, 64, 2,
						NPU_CMD_SRC_HOST)));
	/* a host side in no registration (pageable memory) */
	EXPECT_EQ(-ENXIO, sub1(self, copy2d_cmd(va, 64, ptr64(plain), 64, 64, 2,
						NPU_CMD_SRC_HOST)));
	EXPECT_EQ(-ENXIO, sub1(self, copy2d_cmd(ptr64(plain), 64, va, 64, 64, 2,
						NPU_CMD_DST_HOST)));
	/* a read-only registration is a source, never a destination */
	EXPECT_EQ(0, sub1(self, copy2d_cmd(va, 64, ptr64(ro), SZ_4K, 64, 4,
					   NPU_CMD_SRC_HOST)));
	EXPECT_EQ(-EACCES, sub1(self, copy2d_cmd(ptr64(ro), SZ_4K, va, 64, 64, 4,
						 NPU_CMD_DST_HOST)));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	ASSERT_EQ(0, npu_unregister(self->fd, ro));
	munmap(ro, 4 * SZ_4K);
	munmap(plain, SZ_4K);
}

/* The shape fields are COPY_2D's: every other op must have them zero. */
TEST_F(c2d, shape_fields_are_reserved_for_other_ops)
{
	uint64_t h = ptr64(self->host), va = self->va4k;
	struct npu_cmd ok[] = {
		npu_copy_cmd(va, h, 64, NPU_CMD_SRC_HOST),
		npu_memset_cmd(va, 1, 64, 0),
		npu_value_cmd(NPU_OP_WRITE_VALUE, va, 1, 0),
		npu_value_cmd(NPU_OP_WAIT_VALUE, va, 1, NPU_WAIT_GEQ),
		fill32_cmd(va, 1, 64, 0),
		{ .op = NPU_OP_TIMESTAMP, .dst = va + 64 },
	};

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct npu_cmd c = ok[i];

		c.dst_pitch = 64;
		EXPECT_EQ(-EINVAL, sub1(self, c));
		c = ok[i];
		c.src_pitch = 64;
		EXPECT_EQ(-EINVAL, sub1(self, c));
		c = ok[i];
		c.height = 1;
		EXPECT_EQ(-EINVAL, sub1(self, c));
		EXPECT_EQ(0, sub1(self, ok[i]));
	}
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
}

TEST_F(c2d, fill32_bad_inputs)
{
	uint64_t h = ptr64(self->host), va = self->va4k;
	uint8_t *ro = npu_host_mem(SZ_4K);
	struct npu_cmd c;

	ASSERT_NONNULL(ro);
	ASSERT_EQ(0, npu_register(self->fd, ro, SZ_4K, NPU_HOST_READONLY, 0));
	EXPECT_EQ(0, sub1(self, fill32_cmd(va + 4, 1, 8, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, fill32_cmd(va + 2, 1, 8, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, fill32_cmd(va + 1, 1, 8, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, fill32_cmd(va, 1, 6, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, fill32_cmd(va, 1, 0, 0)));
	EXPECT_EQ(-EINVAL, sub1(self, fill32_cmd(UINT64_MAX - 3, 1, 8, 0)));
	c = fill32_cmd(va, 1, 8, 0);
	c.value = 1ULL << 32;
	EXPECT_EQ(-EINVAL, sub1(self, c));
	c = fill32_cmd(va, 1, 8, 0);
	c.src = h;
	EXPECT_EQ(-EINVAL, sub1(self, c));
	EXPECT_EQ(-EINVAL, sub1(self, fill32_cmd(va, 1, 8, NPU_CMD_SRC_HOST)));
	EXPECT_EQ(-EINVAL, sub1(self, fill32_cmd(va, 1, 8, NPU_CMD_DST_PEER)));
	EXPECT_EQ(-EINVAL, sub1(self, fill32_cmd(va, 1, 8, 1U << 9)));
	EXPECT_EQ(-ENXIO, sub1(self, fill32_cmd(h + HOST_SIZE - 4, 1, 8,
						NPU_CMD_DST_HOST)));
	EXPECT_EQ(-EACCES, sub1(self, fill32_cmd(ptr64(ro), 1, 8,
						 NPU_CMD_DST_HOST)));
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	ASSERT_EQ(0, npu_unregister(self->fd, ro));
	munmap(ro, SZ_4K);
}

/* ------------------------------------------------------------------ */
/* COPY_2D and FILL32: what they write                                 */
/* ------------------------------------------------------------------ */

/* @len bytes from registered host memory to device memory at @va, and back. */
static int dev_load(FIXTURE_DATA(c2d) *self, uint64_t va, const void *src,
		    uint64_t len)
{
	return npu_run(self->fd, self->stream,
		       npu_copy_cmd(va, ptr64(src), len, NPU_CMD_SRC_HOST));
}

static int dev_store(FIXTURE_DATA(c2d) *self, void *dst, uint64_t va,
		     uint64_t len)
{
	return npu_run(self->fd, self->stream,
		       npu_copy_cmd(ptr64(dst), va, len, NPU_CMD_DST_HOST));
}

/* The model: row i of @w bytes from @src + i * @sp to @dst + i * @dp. */
static void model_2d(uint8_t *dst, uint64_t dp, const uint8_t *src,
		     uint64_t sp, uint64_t w, uint64_t hgt)
{
	for (uint64_t i = 0; i < hgt; i++)
		memcpy(dst + i * dp, src + i * sp, w);
}

struct shape {
	uint64_t dst_off, dp, src_off, sp, w, h;
};

/*
 * Shapes within 512 KiB: narrow and wide rows, equal and different
 * pitches, rows crossing 4 KiB pages, a pitch of exactly the width, a
 * single row, offsets that are not aligned.
 */
static const struct shape shapes[] = {
	{ 0, 64, 0, 64, 64, 100 },
	{ 3, 100, 5, 77, 77, 500 },
	{ 0, 4096, 0, 1000, 1000, 64 },
	{ 1, 8191, 4095, 4097, 4097, 30 },
	{ 100, 300, 7, 300, 257, 800 },
	{ 4093, 1, 11, 1, 1, 3000 },
	{ 0, 65536, 12, 70000, 65536, 3 },
	{ 8, 200000, 0, 150000, 150000, 1 },
};

#define AREA	(512 * 1024)

/*
 * D2D between and within the 4 KiB and the 2 MiB handle: the whole
 * destination area read back against the model, and again at an offset
 * and length unrelated to the rows.
 */
TEST_F_TIMEOUT(c2d, copy2d_d2d_matches_model, 120)
{
	uint8_t *src = self->host, *model = self->host + AREA,
		*back = self->host + 2 * AREA;
	uint64_t vas[2] = { self->va4k, self->va2m };

	for (unsigned int k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		const struct shape *s = &shapes[k];
		/* src in one handle, dst in the other, then both in the 2M one */
		for (int pair = 0; pair < 3; pair++) {
			uint64_t sva = pair == 2 ? self->va2m + SZ_2M : vas[pair];
			uint64_t dva = pair == 2 ? self->va2m : vas[!pair];
			uint64_t span_d = (s->h - 1) * s->dp + s->w;
			uint64_t span_s = (s->h - 1) * s->sp + s->w;
			uint64_t dlen = AREA < DEV_4K_SIZE ? AREA : DEV_4K_SIZE;

			ASSERT_GE(dlen, s->dst_off + span_d);
			ASSERT_GE(dlen, s->src_off + span_s);
			fill_random(src, dlen);
			fill_random(model, dlen);
			ASSERT_EQ(0, dev_load(self, sva, src, dlen));
			ASSERT_EQ(0, dev_load(self, dva, model, dlen));
			ASSERT_EQ(0, npu_run(self->fd, self->stream,
					     copy2d_cmd(dva + s->dst_off, s->dp,
							sva + s->src_off, s->sp,
							s->w, s->h, 0)));
			model_2d(model + s->dst_off, s->dp, src + s->src_off,
				 s->sp, s->w, s->h);
			memset(back, 0, dlen);
			ASSERT_EQ(0, dev_store(self, back, dva, dlen));
			if (memcmp(back, model, dlen))
				TH_LOG("shape %u pair %d differs", k, pair);
			EXPECT_EQ(0, memcmp(back, model, dlen));
			memset(back, 0, dlen);
			ASSERT_EQ(0, dev_store(self, back, dva + 333, 9999));
			EXPECT_EQ(0, memcmp(back, model + 333, 9999));
			/* the source is untouched */
			ASSERT_EQ(0, dev_store(self, back, sva, dlen));
			EXPECT_EQ(0, memcmp(back, src, dlen));
		}
	}
}

/* H2D and D2H from registered memory, 4 KiB and 2 MiB handles. */
TEST_F_TIMEOUT(c2d, copy2d_host_matches_model, 120)
{
	uint8_t *src = self->host, *model = self->host + AREA,
		*back = self->host + 2 * AREA, *hdst = self->host + 3 * AREA;
	uint64_t vas[2] = { self->va4k, self->va2m };
	const uint64_t len = DEV_4K_SIZE;

	for (unsigned int k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		const struct shape *s = &shapes[k];

		for (int v = 0; v < 2; v++) {
			uint64_t va = vas[v];

			/* H2D */
			fill_random(src, len);
			fill_random(model, len);
			ASSERT_EQ(0, dev_load(self, va, model, len));
			ASSERT_EQ(0, npu_run(self->fd, self->stream,
					     copy2d_cmd(va + s->dst_off, s->dp,
							ptr64(src + s->src_off),
							s->sp, s->w, s->h,
							NPU_CMD_SRC_HOST)));
			model_2d(model + s->dst_off, s->dp, src + s->src_off,
				 s->sp, s->w, s->h);
			memset(back, 0, len);
			ASSERT_EQ(0, dev_store(self, back, va, len));
			if (memcmp(back, model, len))
				TH_LOG("H2D shape %u handle %d differs", k, v);
			EXPECT_EQ(0, memcmp(back, model, len));
			ASSERT_EQ(0, dev_store(self, back, va + 4095, 7777));
			EXPECT_EQ(0, memcmp(back, model + 4095, 7777));

			/* D2H: the device now holds src; hdst gets rows of it */
			ASSERT_EQ(0, dev_load(self, va, src, len));
			fill_random(hdst, len);
			memcpy(model, hdst, len);
			ASSERT_EQ(0, npu_run(self->fd, self->stream,
					     copy2d_cmd(ptr64(hdst + s->dst_off),
							s->dp, va + s->src_off,
							s->sp, s->w, s->h,
							NPU_CMD_DST_HOST)));
			model_2d(model + s->dst_off, s->dp, src + s->src_off,
				 s->sp, s->w, s->h);
			if (memcmp(hdst, model, len))
				TH_LOG("D2H shape %u handle %d differs", k, v);
			EXPECT_EQ(0, memcmp(hdst, model, len));
		}
	}
}

/* One row over 2 MiB pages and a 1 MiB chunk: 1500 KiB rows, 2 of them. */
TEST_F_TIMEOUT(c2d, copy2d_long_rows_cross_chunks, 120)
{
	uint8_t *src = self->host, *model = self->host + 2 * SZ_2M;
	const uint64_t w = 1500 * 1024, dp = SZ_2M - 4096, sp = w + 13;

	fill_random(src, 2 * SZ_2M);
	fill_random(model, DEV_2M_SIZE);
	ASSERT_EQ(0, dev_load(self, self->va2m, model, DEV_2M_SIZE));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     copy2d_cmd(self->va2m + 100, dp, ptr64(src + 5), sp,
					w, 2, NPU_CMD_SRC_HOST)));
	model_2d(model + 100, dp, src + 5, sp, w, 2);
	memset(src, 0, DEV_2M_SIZE);
	ASSERT_EQ(0, dev_store(self, src, self->va2m, DEV_2M_SIZE));
	EXPECT_EQ(0, memcmp(src, model, DEV_2M_SIZE));
}

/* A fault in a later row fails the command; the rows before are copied. */
TEST_F(c2d, copy2d_fault_in_a_later_row)
{
	uint8_t *src = self->host, *back = self->host + SZ_2M;
	uint64_t end = self->va4k + DEV_4K_SIZE;

	fill_random(src, 8 * SZ_4K);
	memset(back, 0, 8 * SZ_4K);
	ASSERT_EQ(0, dev_load(self, self->va4k, back, DEV_4K_SIZE));
	npu_expect_dma_faults(true);
	/* rows of 4 KiB, the third beyond the mapping's end */
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				copy2d_cmd(end - 2 * SZ_4K, SZ_4K, ptr64(src),
					   SZ_4K, SZ_4K, 3, NPU_CMD_SRC_HOST)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, dev_store(self, back, end - 2 * SZ_4K, 2 * SZ_4K));
	EXPECT_EQ(0, memcmp(back, src, 2 * SZ_4K));
	/* the stream goes on */
	EXPECT_EQ(0, npu_run(self->fd, self->stream,
			     copy2d_cmd(self->va4k, 64, ptr64(src), 64, 64, 2,
					NPU_CMD_SRC_HOST)));
}

/*
 * Peer operands as COPY has them: rows into and out of another device's
 * context (its fd in @value), once PEER_ENABLE allowed that device.
 */
TEST_F(c2d, copy2d_peer_operands)
{
	uint8_t *src = self->host, *model = self->host + SZ_2M,
		*back = npu_host_mem(DEV_4K_SIZE);
	struct npu_peer_enable pe = { .size = sizeof(pe), .device = 1 };
	struct npu_cmd c;
	uint64_t pva;
	uint32_t ps;
	int pfd;

	if (npu_device_count() < 2)
		SKIP(return, "needs two npu devices");
	pfd = npu_open(1);
	ASSERT_LE(0, pfd);
	ASSERT_EQ(0, npu_stream_create(pfd, &ps));
	pva = npu_map_new_rw(pfd, DEV_4K_SIZE, SZ_4K, 1);
	ASSERT_NE(0, pva);
	/* device 0's engine may write and read it */
	ASSERT_EQ(0, npu_set_access(pfd, pva, DEV_4K_SIZE, 0, NPU_ACCESS_READWRITE));
	ASSERT_NONNULL(back);
	ASSERT_EQ(0, npu_register(pfd, back, DEV_4K_SIZE, 0, 0));
	fill_random(src, DEV_4K_SIZE);
	fill_random(model, DEV_4K_SIZE);
	memcpy(back, model, DEV_4K_SIZE);
	ASSERT_EQ(0, npu_run(pfd, ps, npu_copy_cmd(pva, ptr64(back), DEV_4K_SIZE,
						   NPU_CMD_SRC_HOST)));
	ASSERT_EQ(0, dev_load(self, self->va4k, src, DEV_4K_SIZE));
	c = copy2d_cmd(pva + 7, 300, self->va4k + 1, 257, 250, 500,
		       NPU_CMD_DST_PEER);
	c.value = pfd;
	EXPECT_EQ(-EPERM, sub1(self, c));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_PEER_ENABLE, &pe));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, c));
	model_2d(model + 7, 300, src + 1, 257, 250, 500);
	ASSERT_EQ(0, npu_run(pfd, ps, npu_copy_cmd(ptr64(back), pva, DEV_4K_SIZE,
						   NPU_CMD_DST_HOST)));
	EXPECT_EQ(0, memcmp(back, model, DEV_4K_SIZE));
	/* and out of the peer, into registered host memory of this context */
	memset(src, 0, DEV_4K_SIZE);
	c = copy2d_cmd(ptr64(src) + 3, 1000, pva + 5, 999, 999, 200,
		       NPU_CMD_DST_HOST | NPU_CMD_SRC_PEER);
	c.value = pfd;
	ASSERT_EQ(0, npu_run(self->fd, self->stream, c));
	memset(back, 0, DEV_4K_SIZE);
	model_2d(back + 3, 1000, model + 5, 999, 999, 200);
	EXPECT_EQ(0, memcmp(back, src, DEV_4K_SIZE));
	close(pfd);
	munmap(back, DEV_4K_SIZE);
}

/* FILL32 writes the pattern, nothing before or after, host and device. */
TEST_F(c2d, fill32_writes_the_pattern)
{
	uint8_t *model = self->host, *back = self->host + 2 * SZ_2M;
	uint8_t *hd = self->host + 4 * SZ_2M;
	const struct { uint64_t off, len; } f[] = {
		{ 0, 4 }, { 4, 8 }, { 4092, 8 }, { 100, 3 * 4096 + 12 },
		{ SZ_2M - 2048, 200000 },
	};
	uint64_t vas[2] = { self->va4k, self->va2m };
	uint32_t pat = 0xdeadbeef;

	for (unsigned int k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		for (int v = 0; v < 2; v++) {
			uint64_t len = v ? DEV_2M_SIZE : DEV_4K_SIZE;

			if (f[k].off + f[k].len > len)
				continue;
			fill_random(model, len);
			ASSERT_EQ(0, dev_load(self, vas[v], model, len));
			ASSERT_EQ(0, npu_run(self->fd, self->stream,
					     fill32_cmd(vas[v] + f[k].off, pat,
							f[k].len, 0)));
			for (uint64_t i = 0; i < f[k].len; i += 4)
				memcpy(model + f[k].off + i, &pat, 4);
			ASSERT_EQ(0, dev_store(self, back, vas[v], len));
			EXPECT_EQ(0, memcmp(back, model, len));
			pat = pat * 2654435761u + 1;
		}
		/* registered host memory */
		fill_random(hd, SZ_2M + 4096);
		memcpy(model, hd, SZ_2M + 4096);
		if (f[k].off + f[k].len <= SZ_2M + 4096) {
			ASSERT_EQ(0, npu_run(self->fd, self->stream,
					     fill32_cmd(ptr64(hd + f[k].off), pat,
							f[k].len,
							NPU_CMD_DST_HOST)));
			for (uint64_t i = 0; i < f[k].len; i += 4)
				memcpy(model + f[k].off + i, &pat, 4);
		}
		EXPECT_EQ(0, memcmp(hd, model, SZ_2M + 4096));
	}
}

TEST_HARNESS_MAIN
