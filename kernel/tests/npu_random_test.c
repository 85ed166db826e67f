// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the engine's random numbers and the binary32 product
 * they use (kernel/npu_random.c, kernel/npu_float.c): Random123's known
 * answers for Philox4x32-10, products where rounding, range and special
 * values decide (the answers an x86 CPU gives, but for the default NaN,
 * which is the engine's positive one), and output written in pieces that
 * split elements equal to output written at once.
 *
 * Built only against a kernel with CONFIG_KUNIT=y (the bench's debug
 * kernel) into npu_engine_kunit.ko; the suite runs when the module loads.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "npu_float.h"
#include "npu_random.h"

static void npu_random_test_philox_known_answers(struct kunit *test)
{
	static const struct {
		u32 ctr[4], key[2], out[4];
	} kat[] = {
		{ { 0, 0, 0, 0 }, { 0, 0 },
		  { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
		{ { ~0U, ~0U, ~0U, ~0U }, { ~0U, ~0U },
		  { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
		{ { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 },
		  { 0xa4093822, 0x299f31d0 },
		  { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
	};
	u32 out[4];
	int i, j;

	for (i = 0; i < ARRAY_SIZE(kat); i++) {
		npu_philox(kat[i].ctr, kat[i].key, out);
		for (j = 0; j < 4; j++)
			KUNIT_EXPECT_EQ_MSG(test, kat[i].out[j], out[j], "vector %d", i);
	}
}

static void npu_random_test_f32_products(struct kunit *test)
{
	static const u32 v[][3] = {
		{ 0x3f800001, 0x3f800001, 0x3f800002 },	/* rounds up */
		{ 0x3fffffff, 0x3fffffff, 0x407ffffe },
		{ 0x00800000, 0x3f000000, 0x00400000 },	/* into subnormals */
		{ 0x00800001, 0x3f000000, 0x00400000 },	/* a tie, to even */
		{ 0x00000001, 0x3f000000, 0x00000000 },
		{ 0x00000003, 0x3f000000, 0x00000002 },
		{ 0x00000001, 0x00000001, 0x00000000 },
		{ 0x7f7fffff, 0x40000000, 0x7f800000 },	/* overflow */
		{ 0x7f7fffff, 0x3f800001, 0x7f800000 },
		{ 0x80000000, 0x3f800000, 0x80000000 },	/* signed zeros */
		{ 0x00000000, 0xff800000, 0x7fc00000 },	/* 0 * inf */
		{ 0x7f800000, 0xbf800000, 0xff800000 },
		{ 0x7fc00001, 0x3f800000, 0x7fc00001 },	/* NaNs pass, quieted */
		{ 0x3f800000, 0xff800001, 0xffc00001 },
		{ 0x007fffff, 0x40000000, 0x00fffffe },	/* out of subnormals */
		{ 0x00400000, 0x4b000000, 0x0b800000 },
		{ 0xc0400000, 0x40400000, 0xc1100000 },
		{ 0x33800000, 0x33800000, 0x27800000 },
		{ 0x0c000000, 0x33000000, 0x00200000 },
		{ 0x00000001, 0x7f000000, 0x34800000 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		KUNIT_EXPECT_EQ_MSG(test, v[i][2], npu_f32_mul(v[i][0], v[i][1]),
				    "%#x * %#x", v[i][0], v[i][1]);
		KUNIT_EXPECT_EQ_MSG(test, v[i][2], npu_f32_mul(v[i][1], v[i][0]),
				    "%#x * %#x", v[i][1], v[i][0]);
	}
	/* fixed point: exact values, and a tie to even */
	KUNIT_EXPECT_EQ(test, 0x3f800000U, npu_f32_from_fixed(1 << 28, 28));
	KUNIT_EXPECT_EQ(test, 0xc0400000U, npu_f32_from_fixed(-3LL << 28, 28));
	KUNIT_EXPECT_EQ(test, 0x33800000U, npu_f32_from_fixed(1, 24));
	KUNIT_EXPECT_EQ(test, 0x4c000000U, npu_f32_from_fixed((1 << 25) - 1, 0));
	KUNIT_EXPECT_EQ(test, 0x4b800002U, npu_f32_from_fixed((1 << 24) + 3, 0));
}

/* Every function and type, written in pieces of 1 to 13 bytes, equals one piece. */
static void npu_random_test_pieces(struct kunit *test)
{
	static const u32 ft[][2] = {
		{ NPU_RANDOM_UNIFORM, NPU_RANDOM_TYPE_INT64 },
		{ NPU_RANDOM_UNIFORM, NPU_RANDOM_TYPE_FP16 },
		{ NPU_RANDOM_NORMAL, NPU_RANDOM_TYPE_FP32 },
		{ NPU_RANDOM_TRUNCATED_NORMAL, NPU_RANDOM_TYPE_BF16 },
		{ NPU_RANDOM_DROPOUT, NPU_RANDOM_TYPE_FP32 },
	};
	u8 *whole = kunit_kzalloc(test, 800, GFP_KERNEL);
	u8 *split = kunit_kzalloc(test, 800, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, whole);
	KUNIT_ASSERT_NOT_NULL(test, split);
	for (i = 0; i < ARRAY_SIZE(ft); i++) {
		struct npu_random_run r = {
			.func = ft[i][0], .type = ft[i][1], .param = { 0x3e00, 0x4400 },
			.seed = 99, .count = 100, .ctr = { ~0ULL - 7, 3 },
		};
		size_t off = 0, n = 1;

		if (r.type == NPU_RANDOM_TYPE_FP32)
			r.param[1] = 0x3f000000;
		npu_random_fn(whole, NULL, 800, &r);
		r.off = 0;
		while (off < 800) {
			n = min_t(size_t, n % 13 + 1, 800 - off);
			npu_random_fn(split + off, NULL, n, &r);
			off += n;
		}
		KUNIT_EXPECT_MEMEQ_MSG(test, whole, split, 800, "function %u type %u",
				       ft[i][0], ft[i][1]);
	}
}

static struct kunit_case npu_random_cases[] = {
	KUNIT_CASE(npu_random_test_philox_known_answers),
	KUNIT_CASE(npu_random_test_f32_products),
	KUNIT_CASE(npu_random_test_pieces),
	{}
};

static struct kunit_suite npu_random_suite = {
	.name = "npu_random",
	.test_cases = npu_random_cases,
};

kunit_test_suite(npu_random_suite);

