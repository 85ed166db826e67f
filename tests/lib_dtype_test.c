// SPDX-License-Identifier: MIT
/*
 * libacl: the pure utilities of acl_base_rt.h - aclDataTypeSize() and the
 * float16 conversions - against the runtime spec's table and the
 * compiler's own _Float16 conversions. No device, no aclInit.
 */
#include <math.h>

#include "lib_util.h"

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bitsf(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* The compiler's IEEE conversions (nearest, ties to even). */
static uint16_t ref_to_half(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t u;

	memcpy(&u, &h, sizeof(u));
	return u;
}

static float ref_to_float(uint16_t u)
{
	_Float16 h;

	memcpy(&h, &u, sizeof(h));
	return (float)h;
}

static const struct {
	aclDataType type;
	const char *name;
	size_t size;
} sizes[] = {
	{ ACL_DT_UNDEFINED, "DT_UNDEFINED", 0 },
	{ ACL_FLOAT, "FLOAT", 4 },
	{ ACL_FLOAT16, "FLOAT16", 2 },
	{ ACL_INT8, "INT8", 1 },
	{ ACL_INT32, "INT32", 4 },
	{ ACL_UINT8, "UINT8", 1 },
	{ ACL_INT16, "INT16", 2 },
	{ ACL_UINT16, "UINT16", 2 },
	{ ACL_UINT32, "UINT32", 4 },
	{ ACL_INT64, "INT64", 8 },
	{ ACL_UINT64, "UINT64", 8 },
	{ ACL_DOUBLE, "DOUBLE", 8 },
	{ ACL_BOOL, "BOOL", 1 },
	{ ACL_STRING, "STRING", 0 },
	{ ACL_COMPLEX64, "COMPLEX64", 8 },
	{ ACL_COMPLEX128, "COMPLEX128", 16 },
	{ ACL_BF16, "BF16", 2 },
	{ ACL_INT4, "INT4", 1 },
	{ ACL_UINT1, "UINT1", 1 },
	{ ACL_COMPLEX32, "COMPLEX32", 4 },
	{ ACL_HIFLOAT8, "HIFLOAT8", 1 },
	{ ACL_FLOAT8_E5M2, "FLOAT8_E5M2", 1 },
	{ ACL_FLOAT8_E4M3FN, "FLOAT8_E4M3FN", 1 },
	{ ACL_FLOAT8_E8M0, "FLOAT8_E8M0", 1 },
	{ ACL_FLOAT6_E3M2, "FLOAT6_E3M2", 8 },
	{ ACL_FLOAT6_E2M3, "FLOAT6_E2M3", 8 },
	{ ACL_FLOAT4_E2M1, "FLOAT4_E2M1", 8 },
	{ ACL_FLOAT4_E1M2, "FLOAT4_E1M2", 8 },
};

TEST(data_type_size_table)
{
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (aclDataTypeSize(sizes[i].type) != sizes[i].size)
			TH_LOG("ACL_%s", sizes[i].name);
		EXPECT_EQ(sizes[i].size, aclDataTypeSize(sizes[i].type));
	}
}

TEST(data_type_size_unassigned_is_8)
{
	static const int32_t unassigned[] = {
		5, 14, 15, 18, 19, 20, 21, 22, 23, 24, 25, 26, 28, 31, 32,
		42, 43, 100, 1000, INT32_MAX, -2, -100, INT32_MIN,
	};
	size_t i, j;
	int32_t v;

	for (i = 0; i < sizeof(unassigned) / sizeof(unassigned[0]); i++) {
		if (aclDataTypeSize((aclDataType)unassigned[i]) != 8)
			TH_LOG("value %d", unassigned[i]);
		EXPECT_EQ(8U, aclDataTypeSize((aclDataType)unassigned[i]));
	}
	/* every number from -1 to 63 is in the table or answers 8 */
	for (v = -1; v < 64; v++) {
		size_t want = 8;

		for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++)
			if ((int32_t)sizes[j].type == v)
				want = sizes[j].size;
		if (aclDataTypeSize((aclDataType)v) != want)
			TH_LOG("value %d", v);
		EXPECT_EQ(want, aclDataTypeSize((aclDataType)v));
	}
}

TEST(half_to_float_every_finite_half)
{
	unsigned int h, bad = 0;

	for (h = 0; h <= 0xffff; h++) {
		if ((h & 0x7c00) == 0x7c00)
			continue;
		/* exact, subnormals and the sign of zero included */
		if (fbits(aclFloat16ToFloat((aclFloat16)h)) != fbits(ref_to_float((uint16_t)h))) {
			if (bad++ < 10)
				TH_LOG("half 0x%04x: %a, want %a", h, aclFloat16ToFloat((aclFloat16)h),
				       ref_to_float((uint16_t)h));
		}
	}
	EXPECT_EQ(0U, bad);
	EXPECT_EQ(0x80000000U, fbits(aclFloat16ToFloat(0x8000)));
	EXPECT_EQ(0x1p-24f, aclFloat16ToFloat(0x0001));
	EXPECT_EQ(-0x1p-24f, aclFloat16ToFloat(0x8001));
	EXPECT_EQ(0x3ffp-24f, aclFloat16ToFloat(0x03ff));
	EXPECT_EQ(65504.0f, aclFloat16ToFloat(0x7bff));
	EXPECT_EQ(1.0f, aclFloat16ToFloat(0x3c00));
}

TEST(half_to_float_exponent_31_is_a_number)
{
	unsigned int m, bad = 0;

	EXPECT_EQ(65536.0f, aclFloat16ToFloat(0x7c00));
	EXPECT_EQ(-65536.0f, aclFloat16ToFloat(0xfc00));
	EXPECT_EQ(98304.0f, aclFloat16ToFloat(0x7e00));
	EXPECT_EQ(131008.0f, aclFloat16ToFloat(0x7fff));
	for (m = 0; m < 1024; m++) {
		float want = (1.0f + (float)m / 1024.0f) * 65536.0f;

		if (aclFloat16ToFloat((aclFloat16)(0x7c00 | m)) != want ||
		    aclFloat16ToFloat((aclFloat16)(0xfc00 | m)) != -want)
			bad++;
	}
	EXPECT_EQ(0U, bad);
}

/* 6.2 million patterns, twice: about a second here, far more under emulation */
TEST_TIMEOUT(float_to_half_matches_compiler_below_65520, 120)
{
	const uint32_t limit = fbits(65520.0f);
	unsigned long n = 0, bad = 0;
	uint32_t u;

	/* every 193rd bit pattern, both signs (the ties are all checked below) */
	for (u = 0; u < limit; u += 193, n++) {
		float f = bitsf(u);

		if (aclFloatToFloat16(f) != ref_to_half(f) ||
		    aclFloatToFloat16(-f) != ref_to_half(-f)) {
			if (bad++ < 10)
				TH_LOG("%a: 0x%04x, want 0x%04x", f, aclFloatToFloat16(f), ref_to_half(f));
		}
	}
	TH_LOG("%lu patterns", n);
	EXPECT_EQ(0UL, bad);
}

TEST(float_to_half_every_tie_and_its_neighbours)
{
	unsigned int h, bad = 0;

	/* the midpoint of each two neighbouring finite halves, and one ulp off it */
	for (h = 0; h < 0x7bff; h++) {
		float mid = (aclFloat16ToFloat((aclFloat16)h) + aclFloat16ToFloat((aclFloat16)(h + 1))) / 2;
		float probe[3] = { mid, bitsf(fbits(mid) - 1), bitsf(fbits(mid) + 1) };
		int i;

		for (i = 0; i < 3; i++) {
			if (aclFloatToFloat16(probe[i]) != ref_to_half(probe[i]) ||
			    aclFloatToFloat16(-probe[i]) != ref_to_half(-probe[i])) {
				if (bad++ < 10)
					TH_LOG("%a: 0x%04x, want 0x%04x", probe[i],
					       aclFloatToFloat16(probe[i]), ref_to_half(probe[i]));
			}
		}
	}
	EXPECT_EQ(0U, bad);
}

TEST(float_to_half_special_cases)
{
	static const struct {
		uint32_t in;
		uint16_t out;
		const char *what;
	} cases[] = {
		{ 0x00000000, 0x0000, "+0" },
		{ 0x80000000, 0x8000, "-0 keeps its sign" },
		{ 0x3f800000, 0x3c00, "1" },
		{ 0xc0000000, 0xc000, "-2" },
		{ 0x477fe000, 0x7bff, "65504, the largest half" },
		{ 0x477fefff, 0x7bff, "just below 65520" },
		{ 0x477ff000, 0x7bff, "65520 saturates" },
		{ 0xc77ff000, 0xfbff, "-65520 saturates" },
		{ 0x47800000, 0x7bff, "65536" },
		{ 0x501502f9, 0x7bff, "1e10" },
		{ 0x7f7fffff, 0x7bff, "FLT_MAX" },
		{ 0xff7fffff, 0xfbff, "-FLT_MAX" },
		{ 0x7f800000, 0x7bff, "+Inf" },
		{ 0xff800000, 0xfbff, "-Inf" },
		{ 0x7fc00000, 0x7bff, "quiet NaN" },
		{ 0xffc00000, 0xfbff, "NaN with the sign bit" },
		{ 0x7f800001, 0x7bff, "signalling NaN" },
		{ 0xffffffff, 0xfbff, "NaN, every bit" },
		{ 0x33000000, 0x0000, "2^-25 is a tie: to even 0" },
		{ 0xb3000000, 0x8000, "-2^-25" },
		{ 0x33000001, 0x0001, "just above 2^-25" },
		{ 0xb3000001, 0x8001, "just above 2^-25, negative" },
		{ 0x32ffffff, 0x0000, "just below 2^-25" },
		{ 0x32000000, 0x0000, "2^-27" },
		{ 0x33800000, 0x0001, "2^-24, the smallest subnormal" },
		{ 0x33c00000, 0x0002, "1.5 * 2^-24: tie to even 2" },
		{ 0x34200000, 0x0002, "2.5 * 2^-24: tie to even 2" },
		{ 0x34600000, 0x0004, "3.5 * 2^-24: tie to even 4" },
		{ 0x00000001, 0x0000, "the smallest float subnormal" },
		{ 0x80000001, 0x8000, "the smallest float subnormal, negative" },
		{ 0x007fffff, 0x0000, "the largest float subnormal" },
		{ 0x00800000, 0x0000, "FLT_MIN" },
		{ 0x387fe000, 0x0400, "1023.5 * 2^-24: up past the largest subnormal" },
		{ 0x387fdfff, 0x03ff, "just below 1023.5 * 2^-24" },
		{ 0x38800000, 0x0400, "2^-14, the smallest normal half" },
		{ 0x3f801000, 0x3c00, "1 + 2^-11: tie to even 1" },
		{ 0x3f803000, 0x3c02, "1 + 3 * 2^-11: tie to even" },
		{ 0x3f801001, 0x3c01, "just above 1 + 2^-11" },
		{ 0x3f801fff, 0x3c01, "just below 1 + 2^-10" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		aclFloat16 got = aclFloatToFloat16(bitsf(cases[i].in));

		if (got != cases[i].out)
			TH_LOG("%s (0x%08x): 0x%04x, want 0x%04x", cases[i].what, cases[i].in, got,
			       cases[i].out);
		EXPECT_EQ(cases[i].out, got);
	}
}

TEST(round_trips)
{
	unsigned int h, bad = 0;

	for (h = 0; h <= 0xffff; h++) {
		aclFloat16 back = aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h));
		/* a finite half comes back; exponent 31 reads >= 65536 and saturates */
		aclFloat16 want = (h & 0x7c00) != 0x7c00 ? (aclFloat16)h : (h & 0x8000) | 0x7bff;

		if (back != want && bad++ < 10)
			TH_LOG("0x%04x -> 0x%04x, want 0x%04x", h, back, want);
	}
	EXPECT_EQ(0U, bad);
}

TEST(utilities_leave_error_records_alone)
{
	const char *msg;

	/* a runtime failure leaves a message and a last error */
	ASSERT_EQ(ACL_SUCCESS, aclInit(NULL));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
	EXPECT_EQ(2U, aclDataTypeSize(ACL_FLOAT16));
	EXPECT_EQ(8U, aclDataTypeSize((aclDataType)5));
	EXPECT_EQ(0x7bff, aclFloatToFloat16(NAN));
	EXPECT_EQ(65536.0f, aclFloat16ToFloat(0x7c00));
	EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NULL(strchr(msg, '\n'));
	EXPECT_EQ(0, strncmp(msg, "aclrtSetDevice: ", 16));
}

TEST_HARNESS_MAIN
