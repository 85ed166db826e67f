// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/core_kernels.cpp - kernels that observe how the executor
 * runs blocks (tests/npu_aicore_test.c); built by make npucc-check too.
 */
#include <cstdint>

#include "kernel_operator.h"

/*
 * Every block arrives at a barrier in device memory and waits there until
 * all block_dim blocks have: it completes only if they run at the same
 * time. A block that waits too long traps instead of hanging.
 */
extern "C" __global__ __aicore__ void barrier_op(__gm__ uint32_t *count, __gm__ uint32_t *core_of_block)
{
	uint32_t n = AscendC::GetBlockNum();
	uint64_t spins = 0;

	__atomic_fetch_add(count, 1u, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(count, __ATOMIC_SEQ_CST) < n) {
		if (++spins > (1ull << 24))
			asm("trap");
#if defined(__x86_64__)
		__builtin_ia32_pause();
#endif
	}
	core_of_block[AscendC::GetBlockIdx()] = npu_block_current ? npu_block_current->core_id : ~0u;
}

/*
 * A kernel of one stream meets one of another: each block counts itself in
 * and waits until @want blocks have, across launches. Two launches of it on
 * two streams complete only if their kernels run at the same time.
 */
extern "C" __global__ __aicore__ void meet_op(__gm__ uint32_t *count, uint32_t want)
{
	uint64_t spins = 0;

	__atomic_fetch_add(count, 1u, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(count, __ATOMIC_SEQ_CST) < want) {
		if (++spins > (1ull << 24))
			asm("trap");
#if defined(__x86_64__)
		__builtin_ia32_pause();
#endif
	}
}

/*
 * Holds its core until *@go is set, then sets @done[block]: a kernel that
 * never ends unless told to. A cancelled launch of it must be stopped by
 * the executor, not left running (its @done stays 0).
 */
extern "C" __global__ __aicore__ void hold_op(__gm__ uint32_t *go, __gm__ uint32_t *done)
{
	while (!__atomic_load_n(go, __ATOMIC_ACQUIRE)) {
#if defined(__x86_64__)
		__builtin_ia32_pause();
#endif
	}
	done[AscendC::GetBlockIdx()] = 1;
}
