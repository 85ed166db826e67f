// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the engine's reduce arithmetic (kernel/npu_reduce.c):
 * identities that hold for every binary16 and bfloat16 value, binary32
 * identities over a pseudo-random sample, and integer wrap-around.
 *
 * Built only against a kernel with CONFIG_KUNIT=y (the bench's debug
 * kernel) into npu_engine_kunit.ko, with its own copy of npu_reduce.o; the
 * suite runs when the module loads (Documentation/debug-kernel.rst).
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/prandom.h>

#include "npu_float.h"
#include "npu_reduce.h"

#define F16	NPU_REDUCE_TYPE_FP16
#define BF16	NPU_REDUCE_TYPE_BF16

static u32 sum16(u32 type, u16 a, u16 b)
{
	u32 flags = NPU_REDUCE_OP_SUM | type;

	npu_reduce_fn(&a, &b, sizeof(a), &flags);
	return a;
}

/* x + x is x one exponent up, exactly, and x + -x is +0, for every finite half. */
static void npu_reduce_test_f16_identities(struct kunit *test)
{
	u32 x;

	for (x = 0; x < 0x10000; x++) {
		u16 mag = x & 0x7fff, sign = x & 0x8000;
		u32 twice;

		if (mag >= 0x7c00)
			continue;
		twice = mag < 0x7800 ? (mag < 0x400 ? mag << 1 : mag + 0x400) : 0x7c00;
		KUNIT_EXPECT_EQ_MSG(test, sign | twice, sum16(F16, x, x), "x %#x", x);
		KUNIT_EXPECT_EQ_MSG(test, 0, sum16(F16, x, x ^ 0x8000), "x %#x", x);
		/* +0 leaves x, but -0 + +0 is +0 */
		KUNIT_EXPECT_EQ_MSG(test, mag ? x : 0, sum16(F16, x, 0), "x %#x", x);
	}
}

/* The same for every finite bfloat16 (its exponent field is binary32's). */
static void npu_reduce_test_bf16_identities(struct kunit *test)
{
	u32 x;

	for (x = 0; x < 0x10000; x++) {
		u16 mag = x & 0x7fff, sign = x & 0x8000;
		u32 twice;

		if (mag >= 0x7f80)
			continue;
		twice = mag < 0x7f00 ? (mag < 0x80 ? mag << 1 : mag + 0x80) : 0x7f80;
		KUNIT_EXPECT_EQ_MSG(test, sign | twice, sum16(BF16, x, x), "x %#x", x);
		KUNIT_EXPECT_EQ_MSG(test, 0, sum16(BF16, x, x ^ 0x8000), "x %#x", x);
	}
}

/* binary32: commutative, x + -x = +0, x + x one exponent up, over a sample. */
static void npu_reduce_test_f32_sample(struct kunit *test)
{
	struct rnd_state rnd;
	int i;

	prandom_seed_state(&rnd, 0x6e7075);
	for (i = 0; i < 200000; i++) {
		u32 a = prandom_u32_state(&rnd), b = prandom_u32_state(&rnd);
		u32 mag = a & 0x7fffffff;

		/* a NaN's payload is the first operand's: only non-NaNs commute bit for bit */
		if ((a & 0x7fffffff) <= 0x7f800000 && (b & 0x7fffffff) <= 0x7f800000)
			KUNIT_EXPECT_EQ_MSG(test, npu_f32_add(a, b), npu_f32_add(b, a),
					    "%#x + %#x", a, b);
		if (mag >= 0x7f000000)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, 0, npu_f32_add(a, a ^ 0x80000000), "%#x", a);
		KUNIT_EXPECT_EQ_MSG(test, (a & 0x80000000) |
				    (mag < 0x800000 ? mag << 1 : mag + 0x800000),
				    npu_f32_add(a, a), "%#x", a);
	}
}

/* Integers are signed and wrap; MAX and MIN compare them signed. */
static void npu_reduce_test_ints(struct kunit *test)
{
	u32 sum = NPU_REDUCE_OP_SUM | NPU_REDUCE_TYPE_INT32;
	u32 max = NPU_REDUCE_OP_MAX | NPU_REDUCE_TYPE_INT8;
	s32 d[2] = { S32_MAX, -1 }, s[2] = { 1, S32_MIN };
	s8 d8[3] = { -128, 127, -1 }, s8v[3] = { 127, -128, 0 };

	npu_reduce_fn(d, s, sizeof(d), &sum);
	KUNIT_EXPECT_EQ(test, S32_MIN, d[0]);
	KUNIT_EXPECT_EQ(test, S32_MAX, d[1]);
	npu_reduce_fn(d8, s8v, sizeof(d8), &max);
	KUNIT_EXPECT_EQ(test, 127, d8[0]);
	KUNIT_EXPECT_EQ(test, 127, d8[1]);
	KUNIT_EXPECT_EQ(test, 0, d8[2]);
}

/* The element sizes, and 0 for what is not an operation or a type. */
static void npu_reduce_test_elem(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1U, npu_reduce_elem(NPU_REDUCE_TYPE_INT8));
	KUNIT_EXPECT_EQ(test, 2U, npu_reduce_elem(NPU_REDUCE_OP_MIN | NPU_REDUCE_TYPE_BF16));
	KUNIT_EXPECT_EQ(test, 4U, npu_reduce_elem(NPU_REDUCE_OP_MAX | NPU_REDUCE_TYPE_FP32));
	KUNIT_EXPECT_EQ(test, 0U, npu_reduce_elem(3U << 8 | NPU_REDUCE_TYPE_FP32));
	KUNIT_EXPECT_EQ(test, 0U, npu_reduce_elem(6U << 12));
}

static struct kunit_case npu_reduce_test_cases[] = {
	KUNIT_CASE(npu_reduce_test_f16_identities),
	KUNIT_CASE(npu_reduce_test_bf16_identities),
	KUNIT_CASE(npu_reduce_test_f32_sample),
	KUNIT_CASE(npu_reduce_test_ints),
	KUNIT_CASE(npu_reduce_test_elem),
	{}
};

static struct kunit_suite npu_reduce_test_suite = {
	.name = "npu_reduce",
	.test_cases = npu_reduce_test_cases,
};

kunit_test_suite(npu_reduce_test_suite);

