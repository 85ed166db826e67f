// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's floating point, in integer arithmetic: the engine runs in
 * kernel context, where the FPU is not ours to use. binary32 addition and
 * multiplication round to nearest even and keep subnormals; binary16 and
 * bfloat16 are widened to binary32 exactly and rounded back from it.
 * Computed in binary32 and rounded once to binary16 or bfloat16, a sum or
 * a product is correctly rounded: binary32 carries more than twice their
 * precision plus two bits, so the double rounding cannot differ from one.
 */
#include <linux/bitops.h>
#include <linux/kernel.h>

#include "npu_float.h"

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
u32 npu_f16_to_f32(u16 h)
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
u16 npu_f32_to_f16(u32 x)
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
u16 npu_f32_to_bf16(u32 x)
{
	if (npu_f32_nan(x))
		return (x >> 16) | 0x40;
	return (x + 0x7fff + ((x >> 16) & 1)) >> 16;
}

/*
 * @m at exponent @e as npu_f32_pack() takes it, where @e may be below the
 * normal range: shifted into a subnormal first, the bits shifted out
 * kept as a sticky bit.
 */
static u32 npu_f32_round(u32 sign, int e, u64 m)
{
	if (e < 1) {
		u32 d = 1 - e;

		m = d >= 40 ? m != 0 : (m >> d) | ((m & (BIT_ULL(d) - 1)) != 0);
		e = 1;
	}
	return npu_f32_pack(sign, e, m);
}

/*
 * Move the top bit of non-zero *@m to bit 31, as npu_f32_pack() takes a
 * significand, bits shifted out kept as a sticky bit; returns where the
 * top bit was.
 */
static int npu_f32_top_to_31(u64 *m)
{
	int p = fls64(*m) - 1;

	if (p > 31)
		*m = (*m >> (p - 31)) | ((*m & (BIT_ULL(p - 31) - 1)) != 0);
	else
		*m <<= 31 - p;
	return p;
}

/**
 * npu_f32_mul() - IEEE binary32 multiplication, rounding to nearest even
 * @a: an operand's bits
 * @b: the other's
 *
 * Return: the product's bits; a NaN operand's NaN (quieted), or the
 * default NaN for an infinity times a zero.
 */
u32 npu_f32_mul(u32 a, u32 b)
{
	u32 ea = (a & F32_EXP) >> 23, eb = (b & F32_EXP) >> 23;
	u32 sign = (a ^ b) & F32_SIGN;
	u64 m;
	int p;

	if (npu_f32_nan(a))
		return a | F32_QUIET;
	if (npu_f32_nan(b))
		return b | F32_QUIET;
	if (ea == 0xff || eb == 0xff) {
		if (!(a & ~F32_SIGN) || !(b & ~F32_SIGN))
			return F32_EXP | F32_QUIET;
		return sign | F32_EXP;
	}
	if (!(a & ~F32_SIGN) || !(b & ~F32_SIGN))
		return sign;
	/* x = significand * 2^(max(e, 1) - 150): the product is m * 2^(ea + eb - 300) */
	m = (u64)((a & 0x7fffff) | (ea ? BIT(23) : 0)) *
	    ((b & 0x7fffff) | (eb ? BIT(23) : 0));
	ea = ea ? ea : 1;
	eb = eb ? eb : 1;
	p = npu_f32_top_to_31(&m);
	return npu_f32_round(sign, p + (int)(ea + eb) - 173, m);
}

/**
 * npu_f32_from_fixed() - a fixed-point number as the nearest binary32
 * @v: the number times 2^@frac
 * @frac: its fraction bits, at most 64
 *
 * Return: the binary32 bits of @v * 2^-@frac, rounded to nearest even.
 */
u32 npu_f32_from_fixed(s64 v, unsigned int frac)
{
	u32 sign = v < 0 ? F32_SIGN : 0;
	u64 m = v < 0 ? -(u64)v : (u64)v;
	int p;

	if (!m)
		return 0;
	p = npu_f32_top_to_31(&m);
	return npu_f32_round(sign, p - (int)frac + 127, m);
}

/*
 * A float's bits (sign bit @sign) as an unsigned key in its numeric order
 * (-0 below +0).
 */
u32 npu_float_key(u32 x, u32 sign)
{
	return x & sign ? ~x & (sign | (sign - 1)) : x | sign;
}
