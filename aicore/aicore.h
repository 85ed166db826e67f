/* SPDX-License-Identifier: MIT */
/* npu-aicore: the pieces of the executor (aicore/). */
#ifndef NPU_AICORE_H
#define NPU_AICORE_H

#include <signal.h>
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

/* A fault caught in guarded code: its signal, si_code and address. */
struct aicore_fault {
	int32_t signo, code;
	uint64_t addr;
	bool write;			/* a page fault of a write */
};

/* Catch SIGBUS, SIGSEGV and SIGILL for guarded code; this thread's alternate stack. */
int aicore_guard_init(void);

/* The alternate signal stack of a new thread that runs guarded code. */
int aicore_guard_thread(void);

/* Run @fn(@arg); a fault in it ends it: -EFAULT and *@fault. */
int aicore_guarded(void (*fn)(void *arg), void *arg, struct aicore_fault *fault);

/*
 * The signal that stops a block of a cancelled kernel (AICORE_STOP_SIGNAL,
 * sent to its thread with pthread_kill()): it ends the guarded code it
 * arrives in, as a fault does (signo AICORE_STOP_SIGNAL), only while
 * *aicore_guard_stop (this thread's; NULL: never) is set.
 */
#define AICORE_STOP_SIGNAL	SIGUSR1
extern __thread volatile sig_atomic_t *aicore_guard_stop;

/*
 * Read (@write false) or write @len bytes at device VA @addr through the
 * aperture, a byte at a time, guarded.
 */
int aicore_access(uint64_t addr, uint8_t *buf, uint32_t len, bool write, struct aicore_fault *fault);

/* A kernel's entry: called once per block with the argument block's device VA. */
typedef void (*aicore_entry_fn)(const void *args);

/* Device binaries (binary.c): dlopen()ed from the fd libacl sent. */
int aicore_binary_load(const struct acl_aicore_load *req, int fd);
int aicore_binary_unload(uint32_t id);
/* The entry of token @func (id << 32 | index), held until aicore_binary_put(); NULL if none. */
aicore_entry_fn aicore_binary_get(uint64_t func);
void aicore_binary_put(uint64_t func);

/* One kernel launch, as the driver hands it over. */
struct aicore_launch {
	uint64_t job;			/* the driver's id of it */
	aicore_entry_fn entry;
	uint32_t block_dim;
	uint32_t sat_mode;		/* NPU_SAT_* */
	const void *args;		/* the blob to store at args_va, or NULL (already there) */
	uint32_t args_len;
	uint32_t dump_size;
	uint64_t args_va, dump_va, overflow_va;
};

/* How it went. */
struct aicore_outcome {
	int status;			/* 0, or -EFAULT: fault (block, fault) */
	struct aicore_fault fault;
	uint32_t block;			/* the block that faulted; UINT32_MAX: storing the blob */
	uint32_t overflow;		/* NPU_OVF_* bits the blocks set */
	uint32_t blocks_run;
	uint64_t busy_ns;		/* core time of the blocks */
};

/*
 * The cores (cores.c): @n cores, a thread each; aicore_run() from several
 * threads at once, each with its own unified buffer @ub (NPU_UB_SIZE
 * bytes, 32-byte aligned) for the blocks it runs itself.
 */
int aicore_cores_start(uint32_t n);
void aicore_run(const struct aicore_launch *l, struct aicore_outcome *out, void *ub);
/*
 * The driver cancelled job @job (its stream stopped, or its timeout
 * passed): its blocks not started never start, its running ones are
 * stopped; a job not running yet is not started (-ECANCELED).
 */
void aicore_cancel(uint64_t job);

/* The driver's jobs (jobs.c): the threads that take, run and report them. */
int aicore_jobs_start(void);

#endif /* NPU_AICORE_H */
