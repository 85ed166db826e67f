/* SPDX-License-Identifier: MIT */
/*
 * The protocol between libacl and npu-aicore, the process that runs a
 * device context's AI-core kernels (Documentation/proposals/aicore.md,
 * "Executor address space"). One SOCK_SEQPACKET socket, one message per
 * packet, each starting with a u32 type. The executor starts with the
 * context's aperture as fd 3 and its end of the socket as fd 4.
 *
 * The handshake makes every address the executor itself uses one the
 * application has reserved, so that it is never a device VA, and then
 * gives the executor the aperture at every other address:
 *   executor -> HELLO: the ranges its own mappings occupy (its stack
 *     with room to grow included), read before it made any other mapping;
 *   libacl reserves each range PROT_NONE in the application (an overlap
 *     with anything there: EXIT, and libacl spawns again), reserves an
 *     arena and sends -> ARENA;
 *   the executor maps the aperture over every gap of the device VA window
 *     but its own ranges and the arena, so that whatever it maps from then
 *     on (malloc, thread stacks, kernel binaries) lands in the arena, and
 *     answers -> READY (status 0 or a negative errno).
 * After READY, libacl may send PEEK or POKE (a guarded read or write of
 * device VAs through the aperture: the executor's own check of its view of
 * device memory) and gets RESULT; LOAD (a device binary, as a memfd in
 * SCM_RIGHTS, with an id libacl chooses and the entry symbols of its
 * kernels) and UNLOAD, answered by RESULT. Kernels themselves come from
 * the driver: the executor takes them with APERTURE_KERNEL_WAIT on the
 * aperture, whose @func token is (binary id << 32 | entry index), runs
 * them and reports APERTURE_KERNEL_DONE (uapi: DOC: npu kernel launches).
 * The executor exits on EOF, or when the context shuts down.
 *
 * A block's dump area (struct npu_kernel's dump_va + block * dump_size)
 * starts with two u32, the bytes of complete records after them and the
 * block's NPU_BLOCK_* flags, then its records (include/ascendc/npu_block.h).
 */
#ifndef LIBACL_AICORE_PROTO_H
#define LIBACL_AICORE_PROTO_H

#include <stdint.h>

#define ACL_AICORE_VERSION	1
#define ACL_AICORE_FD_APERTURE	3
#define ACL_AICORE_FD_SOCKET	4
#define ACL_AICORE_RANGES_MAX	200
#define ACL_AICORE_DATA_MAX	256
/* the device VA window (npu.ko's NPU_VA_START .. the top of user space) */
#define ACL_AICORE_VA_START	(2ULL << 20)
#define ACL_AICORE_VA_END	0x7ffffffff000ULL
/* room below the executor's stack it may grow into, and the kernel's guard gap */
#define ACL_AICORE_STACK_ROOM	(9ULL << 20)
#define ACL_AICORE_ARENA_LEN	(1ULL << 30)

enum acl_aicore_type {
	ACL_AICORE_HELLO = 1,
	ACL_AICORE_ARENA,
	ACL_AICORE_READY,
	ACL_AICORE_EXIT,
	ACL_AICORE_PEEK,
	ACL_AICORE_POKE,
	ACL_AICORE_RESULT,
	ACL_AICORE_LOAD,
	ACL_AICORE_UNLOAD,
};

#define ACL_AICORE_BINARIES	4096		/* binary ids 0 .. 4095 */
#define ACL_AICORE_ENTRY_MAX	160		/* npu_fatbin.h's NPU_KREC_ENTRY_MAX */
#define ACL_AICORE_ENTRIES	256		/* kernels of one binary */

struct acl_aicore_range {
	uint64_t start, end;
};

struct acl_aicore_hello {
	uint32_t type;			/* ACL_AICORE_HELLO */
	uint32_t version;		/* ACL_AICORE_VERSION */
	uint32_t nranges;
	uint32_t pad;
	struct acl_aicore_range ranges[ACL_AICORE_RANGES_MAX];
};

struct acl_aicore_arena {
	uint32_t type;			/* ACL_AICORE_ARENA */
	uint32_t cores;			/* the device's AI cores: core threads to run blocks on */
	uint64_t start, len;
};

struct acl_aicore_ready {
	uint32_t type;			/* ACL_AICORE_READY */
	int32_t status;			/* 0 or a negative errno */
	uint64_t covered;		/* bytes of aperture mapped */
};

/* PEEK (read len bytes at addr) and POKE (write data there) */
struct acl_aicore_access {
	uint32_t type;
	uint32_t len;			/* 1 .. ACL_AICORE_DATA_MAX */
	uint64_t addr;
	uint8_t data[ACL_AICORE_DATA_MAX];
};

struct acl_aicore_result {
	uint32_t type;			/* ACL_AICORE_RESULT */
	int32_t status;			/* 0, -EFAULT (a fault: signo, code, addr) or -EINVAL */
	int32_t signo, code;		/* the fault's signal and si_code */
	uint64_t fault_addr;
	uint32_t len;
	uint32_t pad;
	uint8_t data[ACL_AICORE_DATA_MAX];
};

/* UNLOAD */
struct acl_aicore_binary {
	uint32_t type;			/* ACL_AICORE_UNLOAD */
	uint32_t id;			/* < ACL_AICORE_BINARIES */
};

/* LOAD, with the binary's fd: entry i is the function of token (id << 32 | i) */
struct acl_aicore_load {
	uint32_t type;			/* ACL_AICORE_LOAD */
	uint32_t id;			/* < ACL_AICORE_BINARIES */
	uint32_t nentries;		/* 1 .. ACL_AICORE_ENTRIES */
	uint32_t pad;
	char entries[ACL_AICORE_ENTRIES][ACL_AICORE_ENTRY_MAX];	/* NUL-terminated */
};

#endif /* LIBACL_AICORE_PROTO_H */
