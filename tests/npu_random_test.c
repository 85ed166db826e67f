// SPDX-License-Identifier: GPL-2.0
/*
 * npu_random_test: NPU_OP_RANDOM (driver 1.9) through the raw ioctls - the
 * commands SUBMIT refuses, Philox's known answers, every distribution
 * against a model of its own (bit for bit where the arithmetic is exact,
 * within the fixed point's error for the normal one, by its statistics
 * besides), the counter carried between commands, values read from
 * device memory, output at any alignment, and faults.
 */
#include <math.h>
#include <stdlib.h>

#include "float_bits.h"
#include "harness.h"
#include "npu_util.h"

#define HOST_SIZE	(64 * SZ_4K)
#define DEV_SIZE	(64 * SZ_4K)
#define N_STATS		16384

FIXTURE(rnd) {
	int fd;
	uint32_t stream;
	uint8_t *host;		/* HOST_SIZE, registered read-write */
	uint64_t va;		/* DEV_SIZE, read-write */
	uint64_t ctr;		/* a page for counters and parameters */
};

FIXTURE_SETUP(rnd)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->host = npu_host_mem(HOST_SIZE);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, HOST_SIZE, 0, 0));
	self->va = npu_map_new_rw(self->fd, DEV_SIZE, SZ_4K, 0);
	ASSERT_NE(0, self->va);
	self->ctr = npu_map_new_rw(self->fd, SZ_4K, SZ_4K, 0);
	ASSERT_NE(0, self->ctr);
}

FIXTURE_TEARDOWN(rnd)
{
	npu_expect_dma_faults(false);
	close(self->fd);
}

static struct npu_cmd random_cmd(uint64_t dst, const struct npu_random *r)
{
	return (struct npu_cmd){ .op = NPU_OP_RANDOM, .dst = dst, .src = ptr64(r),
				 .value = sizeof(*r) };
}

static struct npu_random rnd_of(uint32_t func, uint32_t type, uint64_t p0, uint64_t p1,
				uint64_t seed, uint64_t count, uint64_t counter)
{
	return (struct npu_random){ .func = func, .type = type, .param = { p0, p1 },
				    .seed = seed, .count = count, .counter = counter };
}

/* Put the 128-bit counter (@lo, @hi) at device VA @va. */
static int put_counter(FIXTURE_DATA(rnd) *self, uint64_t va, uint64_t lo, uint64_t hi)
{
	uint64_t c[2] = { lo, hi };

	memcpy(self->host + HOST_SIZE - 16, c, 16);
	return npu_run(self->fd, self->stream,
		       npu_copy_cmd(va, ptr64(self->host + HOST_SIZE - 16), 16, NPU_CMD_SRC_HOST));
}

static void get_counter(FIXTURE_DATA(rnd) *self, uint64_t va, uint64_t c[2])
{
	uint8_t *at = self->host + HOST_SIZE - 16;

	memset(at, 0xee, 16);
	npu_run(self->fd, self->stream, npu_copy_cmd(ptr64(at), va, 16, NPU_CMD_DST_HOST));
	memcpy(c, at, 16);
}

/* Run @r into the device buffer at @off, and read @len bytes of it back into host + @off. */
static int run_rnd(FIXTURE_DATA(rnd) *self, uint64_t off, const struct npu_random *r, uint64_t len)
{
	int ret;

	ret = npu_run(self->fd, self->stream, random_cmd(self->va + off, r));
	if (ret)
		return ret;
	return npu_dev_read(self->fd, self->stream, self->va, self->host, off, len);
}

/* The model: Philox4x32-10 */
static void philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	uint32_t c[4] = { ctr[0], ctr[1], ctr[2], ctr[3] }, k[2] = { key[0], key[1] };
	int r;

	for (r = 0; r < 10; r++) {
		uint64_t p0 = (uint64_t)0xd2511f53U * c[0], p1 = (uint64_t)0xcd9e8d57U * c[2];
		uint32_t n[4] = { (uint32_t)(p1 >> 32) ^ c[1] ^ k[0], (uint32_t)p1,
				  (uint32_t)(p0 >> 32) ^ c[3] ^ k[1], (uint32_t)p0 };

		memcpy(c, n, sizeof(c));
		k[0] += 0x9e3779b9U;
		k[1] += 0xbb67ae85U;
	}
	memcpy(out, c, sizeof(c));
}

/* Block @i of counter (@lo, @hi) under @seed. */
static void block(uint64_t lo, uint64_t hi, uint64_t seed, uint64_t i, uint32_t out[4])
{
	uint64_t l = lo + i, h = hi + (l < i);
	uint32_t c[4] = { (uint32_t)l, (uint32_t)(l >> 32), (uint32_t)h, (uint32_t)(h >> 32) };
	uint32_t k[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };

	philox(c, k, out);
}

static float unit(uint32_t x)
{
	return (float)(x >> 8) * 0x1p-24f;
}

/* Every malformed RANDOM is refused at SUBMIT, and the stream works on. */
TEST_F(rnd, refused)
{
	uint64_t c = self->ctr, va = self->va;
	const uint32_t U = NPU_RANDOM_UNIFORM, F32 = NPU_RANDOM_TYPE_FP32;
	struct npu_random bad[] = {
		rnd_of(4, F32, 0, 0, 0, 1, c),						/* func */
		rnd_of(U, 7, 0, 0, 0, 1, c),						/* type */
		rnd_of(NPU_RANDOM_NORMAL, NPU_RANDOM_TYPE_INT32, 0, 1, 0, 1, c),	/* UNIFORM's */
		rnd_of(NPU_RANDOM_DROPOUT, NPU_RANDOM_TYPE_UINT64, 0, 0, 0, 1, c),
		rnd_of(NPU_RANDOM_DROPOUT, F32, 0, 1, 0, 1, c),			/* one parameter */
		rnd_of(U, NPU_RANDOM_TYPE_FP16, 0x10000, 0, 0, 1, c),			/* wider than the type */
		rnd_of(U, NPU_RANDOM_TYPE_INT32, 0, 1ULL << 32, 0, 1, c),
		rnd_of(U, F32, 0, 0, 0, 1, -8ULL),					/* counter wraps */
		rnd_of(U, F32, -2ULL, 0, 0, 1, c),					/* param VA wraps */
		rnd_of(U, F32, 0, 0, 0, 1ULL << 62, c),				/* output > 2^64 */
		rnd_of(U, F32, 0, 0, 0, (1ULL << 62) - 1, c),				/* dst wraps */
		rnd_of(U, F32, 0, 0, -4ULL, 1, c),					/* seed VA wraps */
		rnd_of(U, F32, 0, 0, 0, -4ULL, c),					/* count VA wraps */
		rnd_of(NPU_RANDOM_DROPOUT, F32, 0, 0, 0, 1, c),			/* DROPOUT's param[1] */
	};
	struct npu_random flagged = rnd_of(U, F32, 0, 0, 0, 1, c), reserved = flagged, ok = flagged;
	struct { struct npu_random r; uint64_t tail; } longer = { flagged, 1 };
	struct npu_cmd cmd;
	size_t i;

	bad[8].flags = NPU_RANDOM_PARAM0_ADDR;
	bad[11].flags = NPU_RANDOM_SEED_ADDR;
	bad[12].flags = NPU_RANDOM_COUNT_ADDR;
	bad[13].flags = NPU_RANDOM_PARAM1_ADDR;
	flagged.flags = 1U << 4;
	reserved.__reserved = 1;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret;

		cmd = random_cmd(va, &bad[i]);
		ret = npu_submit(self->fd, self->stream, &cmd, 1, NULL);
		if (ret != -EINVAL)
			TH_LOG("case %zu: %d", i, ret);
		EXPECT_EQ(-EINVAL, ret);
	}
	cmd = random_cmd(va, &flagged);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	cmd = random_cmd(va, &reserved);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	/* the command's own fields: no flags, length or shape; a size from V1 to 4 KiB */
	cmd = random_cmd(va, &ok);
	cmd.flags = NPU_CMD_DST_HOST;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	cmd = random_cmd(va, &ok);
	cmd.length = 4;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	cmd = random_cmd(va, &ok);
	cmd.height = 1;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	cmd = random_cmd(va, &ok);
	cmd.value = NPU_RANDOM_SIZE_V1 - 8;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	cmd.value = sizeof(longer);
	cmd.src = ptr64(&longer);
	EXPECT_EQ(-E2BIG, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	cmd.value = SZ_4K + 8;
	EXPECT_EQ(-E2BIG, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	cmd = random_cmd(va, &ok);
	cmd.src = ptr64(npu_unmapped_range(SZ_4K));
	EXPECT_EQ(-EFAULT, npu_submit(self->fd, self->stream, &cmd, 1, NULL));
	/* nothing was queued: the stream runs a good one, a longer struct with a zero tail too */
	longer.tail = 0;
	cmd = random_cmd(va, &ok);
	cmd.src = ptr64(&longer);
	cmd.value = sizeof(longer);
	EXPECT_EQ(0, npu_run(self->fd, self->stream, cmd));
	EXPECT_EQ(0, npu_run(self->fd, self->stream, random_cmd(va, &ok)));
}

/* Random123's three known answers, seen through a full-range UNIFORM UINT64: draw - 1. */
TEST_F(rnd, philox_known_answers)
{
	static const struct {
		uint32_t ctr[4], key[2], out[2];
	} kat[] = {
		{ { 0, 0, 0, 0 }, { 0, 0 }, { 0x6627e8d5, 0xe169c58d } },
		{ { ~0U, ~0U, ~0U, ~0U }, { ~0U, ~0U }, { 0x408f276d, 0x41c83b0e } },
		{ { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 }, { 0xa4093822, 0x299f31d0 },
		  { 0xd16cfe09, 0x94fdcceb } },
	};
	size_t i;

	for (i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
		uint64_t lo = kat[i].ctr[0] | (uint64_t)kat[i].ctr[1] << 32;
		uint64_t hi = kat[i].ctr[2] | (uint64_t)kat[i].ctr[3] << 32;
		uint64_t seed = kat[i].key[0] | (uint64_t)kat[i].key[1] << 32, got, c[2];
		struct npu_random r = rnd_of(NPU_RANDOM_UNIFORM, NPU_RANDOM_TYPE_UINT64, 0, ~0ULL,
					     seed, 1, self->ctr);

		ASSERT_EQ(0, put_counter(self, self->ctr, lo, hi));
		ASSERT_EQ(0, run_rnd(self, 0, &r, 8));
		memcpy(&got, self->host, 8);
		EXPECT_EQ((kat[i].out[0] | (uint64_t)kat[i].out[1] << 32) - 1, got);
		/* and the counter moved on by one, carrying into its high half */
		get_counter(self, self->ctr, c);
		EXPECT_EQ(lo + 1, c[0]);
		EXPECT_EQ(hi + (lo == ~0ULL), c[1]);
	}
}

/* UNIFORM of every integer type, bit for bit against the model, empty ranges too. */
TEST_F(rnd, uniform_integers)
{
	static const struct {
		uint32_t type, size;
		uint64_t min, max;
	} cases[] = {
		{ NPU_RANDOM_TYPE_INT32, 4, (uint32_t)-100, 100 },
		{ NPU_RANDOM_TYPE_INT32, 4, 5, (uint32_t)-5 },		/* max < min: min */
		{ NPU_RANDOM_TYPE_UINT32, 4, 10, 0xfffffff0 },
		{ NPU_RANDOM_TYPE_UINT32, 4, 7, 7 },
		{ NPU_RANDOM_TYPE_INT64, 8, -(1ULL << 40), 1ULL << 40 },
		{ NPU_RANDOM_TYPE_UINT64, 8, 1, ~0ULL },
	};
	const uint64_t n = 1000, seed = 0x1234567890abcdefULL;
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct npu_random r = rnd_of(NPU_RANDOM_UNIFORM, cases[k].type, cases[k].min,
					     cases[k].max, seed, n, self->ctr);
		uint64_t i, bad = 0;
		bool sgn = cases[k].type == NPU_RANDOM_TYPE_INT32 || cases[k].type == NPU_RANDOM_TYPE_INT64;

		ASSERT_EQ(0, put_counter(self, self->ctr, 77, 0));
		ASSERT_EQ(0, run_rnd(self, 0, &r, n * cases[k].size));
		for (i = 0; i < n; i++) {
			uint64_t got = 0, want, span = cases[k].max - cases[k].min;
			uint32_t b[4];
			bool empty;

			memcpy(&got, self->host + i * cases[k].size, cases[k].size);
			block(77, 0, seed, i, b);
			if (cases[k].size == 4) {
				span = (uint32_t)span;
				empty = sgn ? (int32_t)cases[k].max <= (int32_t)cases[k].min :
					      (uint32_t)cases[k].max <= (uint32_t)cases[k].min;
				want = (uint32_t)(cases[k].min +
						  (empty ? 0 : ((uint64_t)b[0] * span) >> 32));
			} else {
				uint64_t x = (uint64_t)b[1] << 32 | b[0];

				empty = sgn ? (int64_t)cases[k].max <= (int64_t)cases[k].min :
					      cases[k].max <= cases[k].min;
				want = cases[k].min +
				       (empty ? 0 : (uint64_t)(((unsigned __int128)x * span) >> 64));
			}
			if (got != want && !bad++)
				TH_LOG("case %zu element %llu: %#llx, want %#llx", k,
				       (unsigned long long)i, (unsigned long long)got,
				       (unsigned long long)want);
		}
		EXPECT_EQ(0, bad);
	}
}

/* UNIFORM floats, bit for bit: min + u * (max - min) in binary32, rounded to the type. */
TEST_F(rnd, uniform_floats)
{
	const uint64_t n = 2048, seed = 42;
	const float lo = -1.5f, hi = 3.25f;
	static const uint32_t types[] = { NPU_RANDOM_TYPE_FP32, NPU_RANDOM_TYPE_FP16, NPU_RANDOM_TYPE_BF16 };
	size_t k;

	for (k = 0; k < 3; k++) {
		uint32_t t = types[k], size = t == NPU_RANDOM_TYPE_FP32 ? 4 : 2;
		uint64_t p0 = t == NPU_RANDOM_TYPE_FP32 ? f32_bits(lo) :
			      t == NPU_RANDOM_TYPE_FP16 ? h_bits((_Float16)lo) : bf16_of(lo);
		uint64_t p1 = t == NPU_RANDOM_TYPE_FP32 ? f32_bits(hi) :
			      t == NPU_RANDOM_TYPE_FP16 ? h_bits((_Float16)hi) : bf16_of(hi);
		struct npu_random r = rnd_of(NPU_RANDOM_UNIFORM, t, p0, p1, seed, n, self->ctr);
		uint64_t i, bad = 0;

		ASSERT_EQ(0, put_counter(self, self->ctr, 0, 5));
		ASSERT_EQ(0, run_rnd(self, 0, &r, n * size));
		for (i = 0; i < n; i++) {
			volatile float d, v;
			uint32_t b[4], got = 0, want;

			block(0, 5, seed, i, b);
			d = hi - lo;
			v = lo + unit(b[0]) * d;
			want = t == NPU_RANDOM_TYPE_FP32 ? f32_bits(v) :
			       t == NPU_RANDOM_TYPE_FP16 ? h_bits((_Float16)v) : bf16_of(v);
			memcpy(&got, self->host + i * size, size);
			if (got != want && !bad++)
				TH_LOG("type %u element %llu: %#x, want %#x", t,
				       (unsigned long long)i, got, want);
		}
		EXPECT_EQ(0, bad);
	}
}

/* DROPOUT: bit i is 1 when u >= ratio, LSB first, and the last byte's spare bits 0. */
TEST_F(rnd, dropout_bits)
{
	const uint64_t n = 8 * 1000 + 5, seed = 9;
	struct npu_random r = rnd_of(NPU_RANDOM_DROPOUT, NPU_RANDOM_TYPE_FP32, f32_bits(0.4f), 0,
				     seed, n, self->ctr);
	uint64_t i, bad = 0, kept = 0;

	ASSERT_EQ(0, put_counter(self, self->ctr, 0, 0));
	/* the byte after the mask keeps its value */
	memset(self->host, 0x5a, 1002);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(self->va, ptr64(self->host), 1002, NPU_CMD_SRC_HOST)));
	ASSERT_EQ(0, run_rnd(self, 0, &r, 1002));
	for (i = 0; i < n; i++) {
		uint32_t b[4];
		int bit = self->host[i / 8] >> (i % 8) & 1;

		block(0, 0, seed, i, b);
		kept += bit;
		if (bit != (unit(b[0]) >= 0.4f) && !bad++)
			TH_LOG("bit %llu is %d", (unsigned long long)i, bit);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, self->host[1000] >> 5);
	EXPECT_EQ(0x5a, self->host[1001]);
	/* about 60% kept: 3 standard errors are 1.6% */
	EXPECT_LT(llabs((long long)(kept * 1000 / n) - 600), 16);
	/* a bfloat16 ratio: 0.5 keeps about half */
	r.type = NPU_RANDOM_TYPE_BF16;
	r.param[0] = 0x3f00;
	ASSERT_EQ(0, run_rnd(self, 0, &r, 1001));
	for (i = 0, kept = 0; i < n; i++)
		kept += self->host[i / 8] >> (i % 8) & 1;
	EXPECT_LT(llabs((long long)(kept * 1000 / n) - 500), 17);
}

/* NORMAL against Box-Muller in double: within the fixed point's error, and its moments. */
TEST_F(rnd, normal_model_and_moments)
{
	const uint64_t n = N_STATS, seed = 0xfeed;
	struct npu_random r = rnd_of(NPU_RANDOM_NORMAL, NPU_RANDOM_TYPE_FP32, f32_bits(3.0f),
				     f32_bits(2.0f), seed, n, self->ctr);
	double sum = 0, sq = 0, worst = 0;
	uint64_t i, in1 = 0;

	ASSERT_EQ(0, put_counter(self, self->ctr, 1000, 0));
	ASSERT_EQ(0, run_rnd(self, 0, &r, n * 4));
	for (i = 0; i < n; i++) {
		uint32_t b[4], got;
		double z, x, err;

		memcpy(&got, self->host + i * 4, 4);
		x = f32_of(got);
		block(1000, 0, seed, i, b);
		z = sqrt(-2 * log(((double)b[0] + 1) * 0x1p-32)) * cos(2 * M_PI * b[1] * 0x1p-32);
		err = fabs(x - (3 + 2 * z));
		if (err > worst)
			worst = err;
		sum += x;
		sq += (x - 3) * (x - 3);
		in1 += fabs(x - 3) <= 2;
	}
	TH_LOG("largest difference from the model %.3g; mean %.4f, variance %.4f, within 1 sd %.4f",
	       worst, sum / n, sq / n, (double)in1 / n);
	/* binary32 of values up to ~17 is 2^-20 apart; the fixed point adds less than that */
	EXPECT_LT(worst, 4e-6);
	EXPECT_LT(fabs(sum / n - 3), 0.05);
	EXPECT_LT(fabs(sq / n - 4), 0.2);
	EXPECT_LT(fabs((double)in1 / n - 0.6827), 0.015);
}

/* TRUNCATED_NORMAL stays within two deviations, with the truncated moments, in every type. */
TEST_F(rnd, truncated_normal)
{
	static const uint32_t types[] = { NPU_RANDOM_TYPE_FP32, NPU_RANDOM_TYPE_FP16, NPU_RANDOM_TYPE_BF16 };
	const uint64_t n = N_STATS;
	size_t k;

	for (k = 0; k < 3; k++) {
		uint32_t t = types[k], size = t == NPU_RANDOM_TYPE_FP32 ? 4 : 2;
		uint64_t p0 = t == NPU_RANDOM_TYPE_FP32 ? f32_bits(1.0f) :
			      t == NPU_RANDOM_TYPE_FP16 ? 0x3c00 : 0x3f80;
		uint64_t p1 = t == NPU_RANDOM_TYPE_FP32 ? f32_bits(2.0f) :
			      t == NPU_RANDOM_TYPE_FP16 ? 0x4000 : 0x4000;
		struct npu_random r = rnd_of(NPU_RANDOM_TRUNCATED_NORMAL, t, p0, p1, k, n, self->ctr);
		double sum = 0, sq = 0, far = 0;
		uint64_t i;

		ASSERT_EQ(0, put_counter(self, self->ctr, 0, 0));
		ASSERT_EQ(0, run_rnd(self, 0, &r, n * size));
		for (i = 0; i < n; i++) {
			uint32_t got = 0;
			double x;

			memcpy(&got, self->host + i * size, size);
			x = t == NPU_RANDOM_TYPE_FP32 ? f32_of(got) :
			    t == NPU_RANDOM_TYPE_FP16 ? (float)h_of(got) : f32_of(got << 16);
			if (fabs(x - 1) > far)
				far = fabs(x - 1);
			sum += x;
			sq += (x - 1) * (x - 1);
		}
		TH_LOG("type %u: farthest %.4f, mean %.4f, variance %.4f", t, far, sum / n, sq / n);
		/* 4 + the type's rounding near 5 */
		EXPECT_LE(far, t == NPU_RANDOM_TYPE_BF16 ? 4.02 : 4.002);
		EXPECT_LT(fabs(sum / n - 1), 0.05);
		/* a normal truncated at 2 sd has variance 0.7737 sd^2 */
		EXPECT_LT(fabs(sq / n - 4 * 0.7737), 0.15);
	}
}

/*
 * Counter based: n elements in one command equal n/3 and 2n/3 with the
 * counter carried between; and written at an odd offset, read back at
 * others, the bytes are the same.
 */
TEST_F(rnd, counter_carries_and_any_alignment)
{
	const uint64_t n = 3 * 333;
	struct npu_random r = rnd_of(NPU_RANDOM_NORMAL, NPU_RANDOM_TYPE_FP32, f32_bits(0.0f),
				     f32_bits(1.0f), 5, n, self->ctr);
	uint8_t *whole = malloc(n * 4);
	uint64_t c[2];

	ASSERT_NONNULL(whole);
	ASSERT_EQ(0, put_counter(self, self->ctr, ~0ULL - 400, 0));
	ASSERT_EQ(0, run_rnd(self, 0, &r, n * 4));
	memcpy(whole, self->host, n * 4);
	get_counter(self, self->ctr, c);
	EXPECT_EQ(~0ULL - 400 + n, c[0]);	/* carried past 2^64 */
	EXPECT_EQ(1, c[1]);

	ASSERT_EQ(0, put_counter(self, self->ctr, ~0ULL - 400, 0));
	r.count = n / 3;
	ASSERT_EQ(0, npu_run(self->fd, self->stream, random_cmd(self->va + 4096 + 3, &r)));
	r.count = n - n / 3;
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     random_cmd(self->va + 4096 + 3 + n / 3 * 4, &r)));
	/* read back in two pieces of other lengths */
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va + 4096 + 3 - 1000, self->host,
				  1000, 1001));
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va + 4096 + 3 - 1000, self->host,
				  2001, n * 4 - 1001));
	EXPECT_EQ(0, memcmp(whole, self->host + 1000, n * 4));
	get_counter(self, self->ctr, c);
	EXPECT_EQ(~0ULL - 400 + n, c[0]);
	free(whole);
}

/* Parameters, seed and count read from device memory when the command runs give the same. */
TEST_F(rnd, values_by_address)
{
	const uint64_t n = 500, seed = 0xabcdef;
	struct npu_random byval = rnd_of(NPU_RANDOM_UNIFORM, NPU_RANDOM_TYPE_FP16, 0xbc00, 0x4400,
					 seed, n, self->ctr);
	struct npu_random byaddr = byval;
	uint8_t want[1000];
	uint64_t vals[4] = { 0xbc00, 0x4400, seed, n }, c[2];

	ASSERT_EQ(0, put_counter(self, self->ctr, 3, 4));
	ASSERT_EQ(0, run_rnd(self, 0, &byval, n * 2));
	memcpy(want, self->host, n * 2);
	/* the values at ctr + 64 on: the halves at odd places, the count last */
	memcpy(self->host + 64, vals, 32);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(self->ctr + 64, ptr64(self->host + 64), 32, NPU_CMD_SRC_HOST)));
	byaddr.flags = NPU_RANDOM_PARAM0_ADDR | NPU_RANDOM_PARAM1_ADDR | NPU_RANDOM_SEED_ADDR |
		       NPU_RANDOM_COUNT_ADDR;
	byaddr.param[0] = self->ctr + 64;
	byaddr.param[1] = self->ctr + 72;
	byaddr.seed = self->ctr + 80;
	byaddr.count = self->ctr + 88;
	ASSERT_EQ(0, put_counter(self, self->ctr, 3, 4));
	ASSERT_EQ(0, run_rnd(self, 4096, &byaddr, n * 2));
	EXPECT_EQ(0, memcmp(want, self->host + 4096, n * 2));
	get_counter(self, self->ctr, c);
	EXPECT_EQ(3 + n, c[0]);
	EXPECT_EQ(4, c[1]);
}

/* Faults: an output running off its mapping, an unmapped counter, a count read too large. */
TEST_F(rnd, faults)
{
	uint64_t out = npu_map_new_rw(self->fd, SZ_4K, SZ_4K, 0), c[2], huge = 1ULL << 62;
	struct npu_random r = rnd_of(NPU_RANDOM_UNIFORM, NPU_RANDOM_TYPE_UINT32, 0, 100, 1, 2048,
				     self->ctr);

	ASSERT_NE(0, out);
	ASSERT_EQ(0, put_counter(self, self->ctr, 10, 0));
	npu_expect_dma_faults(true);
	/* 8 KiB into a 4 KiB mapping: the first page written, the counter kept */
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream, random_cmd(out, &r)));
	get_counter(self, self->ctr, c);
	EXPECT_EQ(10, c[0]);
	/* a counter nowhere mapped */
	r.counter = out + SZ_4K;
	r.count = 1;
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream, random_cmd(out, &r)));
	/* a count read from memory whose output wraps */
	memcpy(self->host, &huge, 8);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(self->ctr + 128, ptr64(self->host), 8, NPU_CMD_SRC_HOST)));
	r.counter = self->ctr;
	r.flags = NPU_RANDOM_COUNT_ADDR;
	r.count = self->ctr + 128;
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream, random_cmd(out, &r)));
	npu_expect_dma_faults(false);
	get_counter(self, self->ctr, c);
	EXPECT_EQ(10, c[0]);
	/* what the first command wrote before its fault: the model's first 1024 elements */
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, out, self->host, 0, SZ_4K));
	{
		uint32_t b[4], got;

		block(10, 0, 1, 1023, b);
		memcpy(&got, self->host + 4092, 4);
		EXPECT_EQ((uint32_t)(((uint64_t)b[0] * 100) >> 32), got);
	}
}

/*
 * An output over 1 MiB (many slices and turns) against the model at every
 * 997th element and the last; a counter across a page boundary.
 */
TEST_F(rnd, long_output_and_split_counter)
{
	const uint64_t n = 300000, seed = 3;
	uint64_t big = npu_map_new_rw(self->fd, SZ_2M, SZ_4K, 0), c[2], i;
	uint64_t ctr2 = npu_map_new_rw(self->fd, 2 * SZ_4K, SZ_4K, 0);
	struct npu_random r = rnd_of(NPU_RANDOM_UNIFORM, NPU_RANDOM_TYPE_UINT32, 0, 1000, seed, n,
				     ctr2 + SZ_4K - 8);

	ASSERT_NE(0, big);
	ASSERT_NE(0, ctr2);
	ASSERT_EQ(0, put_counter(self, r.counter, 1ULL << 40, 9));
	ASSERT_EQ(0, npu_run(self->fd, self->stream, random_cmd(big, &r)));
	for (i = 0; i < n + 997; i += 997) {
		uint64_t k = i < n ? i : n - 1;
		uint32_t b[4], got, want;

		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_copy_cmd(ptr64(self->host), big + k * 4, 4, NPU_CMD_DST_HOST)));
		memcpy(&got, self->host, 4);
		block(1ULL << 40, 9, seed, k, b);
		want = (uint32_t)(((uint64_t)b[0] * 1000) >> 32);
		if (got != want) {
			TH_LOG("element %llu: %u, want %u", (unsigned long long)k, got, want);
			EXPECT_EQ(want, got);
			break;
		}
	}
	get_counter(self, r.counter, c);
	EXPECT_EQ((1ULL << 40) + n, c[0]);
	EXPECT_EQ(9, c[1]);
}

/*
 * A counter the engine may read but not write faults before any output
 * is written; so does a parameter address nowhere mapped. The output and
 * the counter stay as they were.
 */
TEST_F(rnd, unstorable_counter_and_unmapped_value)
{
	uint64_t ro = npu_map_new_rw(self->fd, SZ_4K, SZ_4K, 0), c[2];
	struct npu_random r = rnd_of(NPU_RANDOM_UNIFORM, NPU_RANDOM_TYPE_FP32, 0, 0x3f800000, 1, 256,
				     ro);

	ASSERT_NE(0, ro);
	ASSERT_EQ(0, put_counter(self, ro, 21, 0));
	ASSERT_EQ(0, npu_set_access(self->fd, ro, SZ_4K, 0, NPU_ACCESS_READ));
	memset(self->host + 8192, 0x5a, 1024);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(self->va, ptr64(self->host + 8192), 1024, NPU_CMD_SRC_HOST)));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream, random_cmd(self->va, &r)));
	ASSERT_EQ(0, put_counter(self, self->ctr, 22, 0));
	r.counter = self->ctr;
	r.flags = NPU_RANDOM_PARAM1_ADDR;
	r.param[1] = self->va + DEV_SIZE;	/* past the mapping */
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream, random_cmd(self->va, &r)));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, npu_dev_read(self->fd, self->stream, self->va, self->host, 0, 1024));
	EXPECT_EQ(-1, npu_check_byte(self->host, 1024, 0x5a));
	get_counter(self, ro, c);
	EXPECT_EQ(21, c[0]);
	get_counter(self, self->ctr, c);
	EXPECT_EQ(22, c[0]);
}

TEST_HARNESS_MAIN
