// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's reduce (NPU_OP_REDUCE): dst[i] = dst[i] OP src[i], element
 * by element, as an SDMA engine reduces inline while it copies.
 *
 * Floating point is integer arithmetic here: the engine runs in kernel
 * context, where the FPU is not ours to use. binary32 addition rounds to
 * nearest even and keeps subnormals; binary16 and bfloat16 are widened to
 * binary32 (exactly), added there and rounded back, which is their
 * correctly rounded sum: binary32 carries more than twice their precision
 * plus two bits, so the double rounding cannot differ from one.
 */
#include <linux/bits.h>
#include <linux/kernel.h>

#include "npu_reduce.h"

#define F32_SIGN	BIT(31)
#define F32_EXP		0x7f800000U
#define F32_QUIET	BIT(22)

static bool npu_f32_nan(u32 x)
{
	return (x & ~F32_SIGN) > F32_EXP;
}

static bool npu_f16_nan(u16 x)
{
	return (x & 0x7fff) > 0x7c00;
}

static bool npu_bf16_nan(u16 x)
{
	return (x & 0x7fff) > 0x7f80;
}

/* @m (a significand in bits 31..0, bit 31 set when normal) at exponent @e, rounded and packed. */
static u32 npu_f32_pack(u32 sign, int e, u64 m)
{
	u32 frac, round = m & 0xff;

	frac = m >> 8;
	if (round > 0x80 || (round == 0x80 && (frac & 1)))
		frac++;
	if (frac & BIT(24)) {
		frac >>= 1;
		e++;
	}
	if (e >= 0xff)
		return sign | F32_EXP;
	/* a subnormal (only at e 1) has no hidden bit: exponent field 0 */
	if (!(frac & BIT(23)))
		e = 0;
	return sign | (u32)e << 23 | (frac & 0x7fffff);
}

/**
 * npu_f32_add() - IEEE binary32 addition, rounding to nearest even
 * @a: an operand's bits
 * @b: the other's
 *
 * Return: the sum's bits; a NaN operand's NaN (quieted), or the default
 * NaN for infinities of opposite signs.
 */
u32 npu_f32_add(u32 a, u32 b)
{
	u32 ea = (a & F32_EXP) >> 23, eb = (b & F32_EXP) >> 23;
	u32 sa = a & F32_SIGN, sb = b & F32_SIGN;
	u64 ma, mb, m;
	int e, d;

	if (npu_f32_nan(a))
		return a | F32_QUIET;
	if (npu_f32_nan(b))
		return b | F32_QUIET;
	if (ea == 0xff || eb == 0xff) {
		if (ea == 0xff && eb == 0xff && sa != sb)
			return F32_EXP | F32_QUIET;
		return ea == 0xff ? a : b;
	}
	if (!(a & ~F32_SIGN) && !(b & ~F32_SIGN))
		return sa & sb;		/* -0 only for -0 + -0 */
	/* the significands in bits 31..8, 8 bits below for rounding */
	ma = (u64)((a & 0x7fffff) | (ea ? BIT(23) : 0)) << 8;
	mb = (u64)((b & 0x7fffff) | (eb ? BIT(23) : 0)) << 8;
	ea = ea ? ea : 1;
	eb = eb ? eb : 1;
	/* @a the larger in magnitude */
	if (eb > ea || (eb == ea && mb > ma)) {
		swap(ea, eb);
		swap(ma, mb);
		swap(sa, sb);
	}
	d = ea - eb;
	if (d >= 40)
		mb = mb != 0;		/* all of it is sticky */
	else if (d)
		mb = (mb >> d) | ((mb & (BIT_ULL(d) - 1)) != 0);
	e = ea;
	if (sa == sb) {
		m = ma + mb;
		if (m & BIT_ULL(32)) {
			m = (m >> 1) | (m & 1);
			e++;
		}
	} else {
		m = ma - mb;
		if (!m)
			return 0;	/* an exact zero difference is +0 */
		while (!(m & BIT_ULL(31)) && e > 1) {
			m <<= 1;
			e--;
		}
	}
	return npu_f32_pack(sa, e, m);
}

/* binary16 to binary32, exactly. */
static u32 npu_f16_to_f32(u16 h)
{
	u32 sign = (u32)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;

	if (e == 0x1f)
		return sign | F32_EXP | m << 13;
	if (!e) {
		if (!m)
			return sign;
		e = 113;	/* 2^-14 as a binary32 exponent, plus one */
		while (!(m & 0x400)) {
			m <<= 1;
			e--;
		}
		return sign | e << 23 | (m & 0x3ff) << 13;
	}
	return sign | (e + 112) << 23 | m << 13;
}

/* binary32 to binary16, rounding to nearest even. */
static u16 npu_f32_to_f16(u32 x)
{
	u32 sign = (x >> 16) & 0x8000, e = (x & F32_EXP) >> 23, m = x & 0x7fffff;
	u32 r, rem, half, shift;
	int exp = (int)e - 112;

	if (e == 0xff)
		return sign | 0x7c00 | (m ? 0x200 | m >> 13 : 0);
	if (exp >= 0x1f)
		return sign | 0x7c00;
	if (exp <= 0) {
		/* a binary16 subnormal (or zero): units of 2^-24 */
		shift = 14 - exp;
		if (shift > 24)
			return sign;
		m |= e ? BIT(23) : 0;
		r = m >> shift;
		rem = m & (BIT(shift) - 1);
		half = BIT(shift - 1);
		if (rem > half || (rem == half && (r & 1)))
			r++;
		return sign | r;
	}
	r = (u32)exp << 10 | m >> 13;
	rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (r & 1)))
		r++;		/* a carry into the exponent is right, up to infinity */
	return sign | r;
}

/* binary32 to bfloat16, rounding to nearest even. */
static u16 npu_f32_to_bf16(u32 x)
{
	if (npu_f32_nan(x))
		return (x >> 16) | 0x40;
	return (x + 0x7fff + ((x >> 16) & 1)) >> 16;
}

/* A float's bits (sign bit @sign) as an unsigned key in its numeric order (-0 below +0). */
static u32 npu_fkey(u32 x, u32 sign)
{
	return x & sign ? ~x & (sign | (sign - 1)) : x | sign;
}

/* MAX or MIN of two non-NaN floats of sign bit @sign. */
static u32 npu_fpick(u32 a, u32 b, u32 sign, bool max)
{
	bool a_above = npu_fkey(a, sign) > npu_fkey(b, sign);

	return a_above == max ? a : b;
}

static u32 npu_reduce_f32(u32 a, u32 b, u32 op)
{
	if (op == NPU_REDUCE_OP_SUM)
		return npu_f32_add(a, b);
	if (npu_f32_nan(a) || npu_f32_nan(b))
		return (npu_f32_nan(a) ? a : b) | F32_QUIET;
	return npu_fpick(a, b, F32_SIGN, op == NPU_REDUCE_OP_MAX);
}

static u16 npu_reduce_f16(u16 a, u16 b, u32 op)
{
	if (op == NPU_REDUCE_OP_SUM)
		return npu_f32_to_f16(npu_f32_add(npu_f16_to_f32(a),
						  npu_f16_to_f32(b)));
	if (npu_f16_nan(a) || npu_f16_nan(b))
		return (npu_f16_nan(a) ? a : b) | 0x200;
	return npu_fpick(a, b, 0x8000, op == NPU_REDUCE_OP_MAX);
}

static u16 npu_reduce_bf16(u16 a, u16 b, u32 op)
{
	if (op == NPU_REDUCE_OP_SUM)
		return npu_f32_to_bf16(npu_f32_add((u32)a << 16, (u32)b << 16));
	if (npu_bf16_nan(a) || npu_bf16_nan(b))
		return (npu_bf16_nan(a) ? a : b) | 0x40;
	return npu_fpick(a, b, 0x8000, op == NPU_REDUCE_OP_MAX);
}

/*
 * Signed integers, sign-extended from their width: SUM wraps once the
 * caller truncates it back (two's complement, computed unsigned).
 */
static s32 npu_reduce_int(s32 a, s32 b, u32 op)
{
	if (op == NPU_REDUCE_OP_SUM)
		return (s32)((u32)a + (u32)b);
	return (a > b) == (op == NPU_REDUCE_OP_MAX) ? a : b;
}

/**
 * npu_reduce_elem() - the element size of a REDUCE's flags
 * @flags: struct npu_cmd's flags
 *
 * Return: 1, 2 or 4 bytes; 0 if the operation or type is not one there is.
 */
u32 npu_reduce_elem(u32 flags)
{
	if ((flags & NPU_REDUCE_OP_MASK) > NPU_REDUCE_OP_MIN)
		return 0;
	switch (flags & NPU_REDUCE_TYPE_MASK) {
	case NPU_REDUCE_TYPE_INT8:
		return 1;
	case NPU_REDUCE_TYPE_INT16:
	case NPU_REDUCE_TYPE_FP16:
	case NPU_REDUCE_TYPE_BF16:
		return 2;
	case NPU_REDUCE_TYPE_INT32:
	case NPU_REDUCE_TYPE_FP32:
		return 4;
	default:
		return 0;
	}
}

/**
 * npu_reduce_fn() - reduce @n bytes of whole elements of @src into @dst
 * @dst: destination elements, aligned to their size
 * @src: source elements, aligned alike
 * @n: bytes, a multiple of the element size
 * @arg: the command's flags (a u32)
 */
void npu_reduce_fn(void *dst, const void *src, size_t n, void *arg)
{
	u32 flags = *(u32 *)arg, op = flags & NPU_REDUCE_OP_MASK;
	size_t i;

	switch (flags & NPU_REDUCE_TYPE_MASK) {
	case NPU_REDUCE_TYPE_INT8:
		for (i = 0; i < n; i++)
			((s8 *)dst)[i] = npu_reduce_int(((s8 *)dst)[i],
							((const s8 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_INT16:
		for (i = 0; i < n / 2; i++)
			((s16 *)dst)[i] = npu_reduce_int(((s16 *)dst)[i],
							 ((const s16 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_INT32:
		for (i = 0; i < n / 4; i++)
			((s32 *)dst)[i] = npu_reduce_int(((s32 *)dst)[i],
							 ((const s32 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_FP16:
		for (i = 0; i < n / 2; i++)
			((u16 *)dst)[i] = npu_reduce_f16(((u16 *)dst)[i],
							 ((const u16 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_FP32:
		for (i = 0; i < n / 4; i++)
			((u32 *)dst)[i] = npu_reduce_f32(((u32 *)dst)[i],
							 ((const u32 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_BF16:
		for (i = 0; i < n / 2; i++)
			((u16 *)dst)[i] = npu_reduce_bf16(((u16 *)dst)[i],
							  ((const u16 *)src)[i], op);
		break;
	}
}
