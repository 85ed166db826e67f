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
 * SCM_RIGHTS; an id libacl chooses) and UNLOAD, answered by RESULT; RUN (a
 * kernel's blocks over the cores), answered by RUN_RESULT. The executor
 * exits on EOF.
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
	ACL_AICORE_RUN,
	ACL_AICORE_RUN_RESULT,
};

#define ACL_AICORE_BINARIES	256		/* binary ids 0 .. 255 */
#define ACL_AICORE_ENTRY_MAX	160		/* npu_fatbin.h's NPU_KREC_ENTRY_MAX */
#define ACL_AICORE_ARGS_MAX	4096
#define ACL_AICORE_TRAP_MAX	256

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

/* LOAD (with the binary's fd) and UNLOAD */
struct acl_aicore_binary {
	uint32_t type;
	uint32_t id;			/* < ACL_AICORE_BINARIES */
};

/*
 * RUN: block_dim calls of the binary's entry, spread over the cores; the
 * argument block is stored at args_va (device memory) first and each call
 * gets args_va. Block i's printf records go to dump_va + i * dump_size
 * when dump_va is not 0.
 */
struct acl_aicore_run {
	uint32_t type;			/* ACL_AICORE_RUN */
	uint32_t id;			/* a loaded binary */
	char entry[ACL_AICORE_ENTRY_MAX];	/* its entry symbol, NUL-terminated */
	uint32_t block_dim;		/* >= 1 */
	uint32_t sat_mode;		/* NPU_SAT_* */
	uint64_t args_va;
	uint32_t args_len;		/* <= ACL_AICORE_ARGS_MAX */
	uint32_t dump_size;
	uint64_t dump_va;
	uint8_t args[ACL_AICORE_ARGS_MAX];
};

struct acl_aicore_run_result {
	uint32_t type;			/* ACL_AICORE_RUN_RESULT */
	int32_t status;			/* 0; -EFAULT: a block faulted or trapped; -EINVAL, -ENOENT */
	int32_t signo, code;		/* the first fault's signal (SIGILL: a trap) and si_code */
	uint64_t fault_addr;
	uint32_t block;			/* the block that faulted */
	uint32_t overflow;		/* NPU_OVF_* bits the blocks set */
	uint32_t blocks_run;		/* blocks that ran to their end */
	uint32_t cores_used;		/* distinct core threads that ran blocks */
	char trap_msg[ACL_AICORE_TRAP_MAX];	/* kernel_operator.h's reason for a trap */
};

#endif /* LIBACL_AICORE_PROTO_H */
