// SPDX-License-Identifier: MIT
/*
 * The pure utilities of acl_base_rt.h: aclDataTypeSize() and the
 * float <-> float16 conversions. No aclInit, no device, no error record;
 * each answer is a function of the argument alone.
 */
#include <stdint.h>
#include <string.h>

#include <acl/acl_base_rt.h>

#include "error.h"

ACL_EXPORT size_t aclDataTypeSize(aclDataType dataType)
{
	switch (dataType) {
	case ACL_DT_UNDEFINED:
	case ACL_STRING:
		return 0;
	case ACL_INT8:
	case ACL_UINT8:
	case ACL_BOOL:
	case ACL_INT4:		/* sub-byte types count one byte */
	case ACL_UINT1:
	case ACL_HIFLOAT8:
	case ACL_FLOAT8_E5M2:
	case ACL_FLOAT8_E4M3FN:
	case ACL_FLOAT8_E8M0:
		return 1;
	case ACL_FLOAT16:
	case ACL_INT16:
	case ACL_UINT16:
	case ACL_BF16:
		return 2;
	case ACL_FLOAT:
	case ACL_INT32:
	case ACL_UINT32:
	case ACL_COMPLEX32:
		return 4;
	case ACL_INT64:
	case ACL_UINT64:
	case ACL_DOUBLE:
	case ACL_COMPLEX64:
		return 8;
	case ACL_COMPLEX128:
		return 16;
	default:
		/* as CANN: FLOAT6_*, FLOAT4_* and every unassigned value */
		return 8;
	}
}

static uint32_t acl_float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float acl_bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * Exact. As CANN, exponent field 31 is an ordinary exponent:
 * +-2^16 * (1 + m / 1024), never Inf or NaN.
 */
ACL_EXPORT float aclFloat16ToFloat(aclFloat16 value)
{
	uint32_t sign = (uint32_t)(value & 0x8000) << 16;
	uint32_t exp = (value >> 10) & 0x1f;
	uint32_t man = value & 0x3ff;

	if (exp)	/* 2^(exp - 15): float exponent field exp - 15 + 127 */
		return acl_bits_float(sign | (exp + 112) << 23 | man << 13);
	/* zero and subnormals: man * 2^-24, exact in a float */
	return acl_bits_float(sign | acl_float_bits((float)man * 0x1p-24f));
}

/*
 * Round to nearest, ties to even, for normal and subnormal results. Keeps
 * the sign bit always. Saturates: every |x| >= 65520 (what IEEE rounding
 * sends to Inf), Inf and NaN give +-65504 by the sign bit; float
 * subnormals give a signed zero.
 */
ACL_EXPORT aclFloat16 aclFloatToFloat16(float value)
{
	uint32_t bits = acl_float_bits(value);
	uint16_t sign = (uint16_t)(bits >> 16 & 0x8000);
	uint32_t mag = bits & 0x7fffffff;
	uint32_t exp = mag >> 23;
	uint32_t sig, shift, half, rest, halfway;

	if (mag >= 0x477ff000)		/* 65520.0f, Inf, NaN */
		return sign | 0x7bff;
	if (exp == 0)			/* zero, float subnormals */
		return sign;
	sig = (mag & 0x7fffff) | 0x800000;	/* value = sig * 2^(exp - 150) */
	if (exp > 112) {
		/* normal half: 13 bits go; a carry out of the mantissa bumps the exponent */
		shift = 13;
		half = (exp - 112) << 10 | (sig >> 13 & 0x3ff);
	} else {
		/* subnormal half, in units of 2^-24: sig * 2^(exp - 126) */
		shift = 126 - exp;
		if (shift > 24)		/* below 2^-25 */
			return sign;
		half = sig >> shift;
	}
	rest = sig & ((1u << shift) - 1);
	halfway = 1u << (shift - 1);
	if (rest > halfway || (rest == halfway && (half & 1)))
		half++;
	return sign | (uint16_t)half;
}
