/* SPDX-License-Identifier: GPL-2.0 */
/* The engine's floating point in integer arithmetic (npu_float.c). */
#ifndef NPU_FLOAT_H
#define NPU_FLOAT_H

#include <linux/bits.h>
#include <linux/types.h>

#define F32_SIGN	BIT(31)
#define F32_EXP		0x7f800000U
#define F32_QUIET	BIT(22)

static inline bool npu_f32_nan(u32 x)
{
	return (x & ~F32_SIGN) > F32_EXP;
}

static inline bool npu_f16_nan(u16 x)
{
	return (x & 0x7fff) > 0x7c00;
}

static inline bool npu_bf16_nan(u16 x)
{
	return (x & 0x7fff) > 0x7f80;
}

u32 npu_f32_add(u32 a, u32 b);
u32 npu_f32_mul(u32 a, u32 b);
u32 npu_f32_from_fixed(s64 v, unsigned int frac);
u32 npu_f16_to_f32(u16 h);
u16 npu_f32_to_f16(u32 x);
u16 npu_f32_to_bf16(u32 x);
u32 npu_float_key(u32 x, u32 sign);

#endif /* NPU_FLOAT_H */
