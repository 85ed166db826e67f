/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The interface of npu_test_exporter.ko (kernel/tests/npu_test_exporter.c),
 * a dma-buf exporter that moves its buffers on request, for
 * tests/npu_dmabuf_import_test.c. Test code only: no stable ABI.
 */
#ifndef NPU_TEST_EXPORTER_H
#define NPU_TEST_EXPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NPU_TEXP_DEV		"/dev/npu_test_exporter"
#define NPU_TEXP_TYPE		0xCF

/* What the pages a buffer moved away from are filled with. */
#define NPU_TEXP_POISON		0xd7

/**
 * struct npu_texp_create - NPU_TEXP_CREATE: a new dynamic dma-buf
 * @size: bytes, a non-zero multiple of 4 KiB (at most 64 MiB)
 * @fd: out, its fd (O_RDWR, close-on-exec)
 * @__pad: 0
 */
struct npu_texp_create {
	__u64 size;
	__s32 fd;
	__u32 __pad;
};

/* The next map of the buffer after the move fails with -ENOMEM. */
#define NPU_TEXP_MOVE_FAIL_MAP	(1U << 0)

/**
 * struct npu_texp_move - NPU_TEXP_MOVE: give the buffer new pages
 * @fd: a buffer of this exporter
 * @flags: NPU_TEXP_MOVE_*
 * @delay_ms: 0: the bytes are copied before the call returns; else by a
 *	work item that long later, behind a fence of the buffer's
 *	reservation (DMA_RESV_USAGE_KERNEL) that it signals once done
 * @__pad: 0
 */
struct npu_texp_move {
	__s32 fd;
	__u32 flags;
	__u32 delay_ms;
	__u32 __pad;
};

/**
 * struct npu_texp_rw - NPU_TEXP_RW: the CPU reads or writes the buffer's
 *	current pages (after a move's copy)
 * @fd: a buffer of this exporter
 * @write: 0 read into @ptr, 1 write from it
 * @offset: first byte
 * @length: bytes (at most 64 MiB)
 * @ptr: user buffer
 */
struct npu_texp_rw {
	__s32 fd;
	__u32 write;
	__u64 offset;
	__u64 length;
	__u64 ptr;
};

/**
 * struct npu_texp_stat - NPU_TEXP_STAT: what happened to a buffer (after
 *	a move's copy)
 * @fd: a buffer of this exporter
 * @moves: out, moves so far
 * @stale: out, bytes of the pages it moved away from that are no longer
 *	NPU_TEXP_POISON: written after the move
 * @maps: out, DMA mappings of it alive
 * @pins: out, pins of it alive
 */
struct npu_texp_stat {
	__s32 fd;
	__u32 moves;
	__u64 stale;
	__u32 maps;
	__u32 pins;
};

#define NPU_TEXP_CREATE	_IOWR(NPU_TEXP_TYPE, 1, struct npu_texp_create)
#define NPU_TEXP_MOVE	_IOW(NPU_TEXP_TYPE, 2, struct npu_texp_move)
#define NPU_TEXP_RW	_IOW(NPU_TEXP_TYPE, 3, struct npu_texp_rw)
#define NPU_TEXP_STAT	_IOWR(NPU_TEXP_TYPE, 4, struct npu_texp_stat)

#endif /* NPU_TEST_EXPORTER_H */
