/* SPDX-License-Identifier: MIT */
/*
 * The bits of the float types the device computes in, for tests that
 * model its arithmetic with the host's: binary32 and binary16 through the
 * compiler (_Float16), bfloat16 rounded here as the engine rounds it.
 */
#ifndef FLOAT_BITS_H
#define FLOAT_BITS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline float f32_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* binary32 to bfloat16, nearest even (NaN stays NaN). */
static inline uint16_t bf16_of(float f)
{
	uint32_t u = f32_bits(f);

	if (isnan(f))
		return (uint16_t)(u >> 16) | 0x40;
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static inline uint16_t h_bits(_Float16 h)
{
	uint16_t u;

	memcpy(&u, &h, 2);
	return u;
}

static inline _Float16 h_of(uint16_t u)
{
	_Float16 h;

	memcpy(&h, &u, 2);
	return h;
}

#endif /* FLOAT_BITS_H */
