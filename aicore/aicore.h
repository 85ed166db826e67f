/* SPDX-License-Identifier: MIT */
/* npu-aicore: the pieces of the executor (aicore/). */
#ifndef NPU_AICORE_H
#define NPU_AICORE_H

#include <stdbool.h>
#include <stdint.h>

#include "aicore_proto.h"

/*
 * The ranges this process's mappings occupy in the device VA window,
 * sorted and merged, the main stack's room to grow included. Maps nothing.
 */
int aicore_own_ranges(struct acl_aicore_range *r, unsigned int *n);

/* Does every range of @now lie inside one of @sent? */
bool aicore_ranges_within(const struct acl_aicore_range *now, unsigned int n_now,
			  const struct acl_aicore_range *sent, unsigned int n_sent);

/*
 * Map the aperture (its file offset is the address) over every gap of the
 * device VA window but @own and the arena; *@covered: the bytes mapped.
 */
int aicore_cover(int aperture, const struct acl_aicore_range *own, unsigned int n_own,
		 uint64_t arena, uint64_t arena_len, uint64_t *covered);

/*
 * Read (@write false) or write @len bytes at device VA @addr through the
 * aperture, a byte at a time; a fault is caught: -EFAULT with its signal,
 * si_code and address.
 */
int aicore_access(uint64_t addr, uint8_t *buf, uint32_t len, bool write,
		  int32_t *signo, int32_t *code, uint64_t *fault_addr);

/* Catch SIGBUS and SIGSEGV for aicore_access(). */
int aicore_guard_init(void);

#endif /* NPU_AICORE_H */
