// SPDX-License-Identifier: MIT
/*
 * The AI cores: one thread per simulated core, each with its unified
 * buffer. A kernel's blocks go to whichever core is free next, so
 * block_dim blocks run min(block_dim, cores) at a time, as the device
 * spreads them. Only that many cores are woken for a kernel: a blockDim-1
 * kernel wakes one thread, not every core's (48 on NPUSim-A1), which on a
 * machine of few CPUs cost each launch the others' wakeups. A block is one
 * guarded call of the kernel's entry with npu_block_current pointing at
 * its context; the first block that faults or traps fails the kernel, and
 * blocks not yet started are not started.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ascendc/npu_block.h>

#include "aicore.h"

/* The running block's context: what kernel_operator.h reads (exported, -rdynamic). */
__thread struct npu_block_ctx *npu_block_current;

/* the dump area of a block: a header, then its records */
struct aicore_dump_head {
	uint32_t used;			/* bytes of complete records after the header */
	uint32_t flags;			/* NPU_BLOCK_* */
};

static struct aicore_cores {
	pthread_mutex_t lock;		/* protects everything below */
	pthread_cond_t start, done;
	uint32_t ncores;
	uint64_t gen;			/* bumped for each kernel */
	uint32_t want;			/* cores still to join gen */
	uint32_t running;		/* cores in gen's blocks */
	const struct aicore_launch *launch;
	uint32_t next;			/* the next block to start */
	bool failed;
	struct aicore_outcome *out;
} aicore_cores = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.start = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

struct aicore_call {
	aicore_entry_fn entry;
	uint64_t args_va;
};

static void aicore_call_entry(void *arg)
{
	struct aicore_call *c = arg;

	c->entry((const void *)(uintptr_t)c->args_va);
}

static uint64_t aicore_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void aicore_block(struct aicore_cores *k, uint32_t core, void *ub, uint32_t b)
{
	const struct aicore_launch *l = k->launch;
	struct aicore_call call = { .entry = l->entry, .args_va = l->args_va };
	uint64_t area = l->dump_va ? l->dump_va + (uint64_t)b * l->dump_size : 0, t0;
	struct aicore_dump_head head;
	struct npu_block_ctx ctx;
	struct aicore_fault fault, hf;
	int ret;

	npu_block_ctx_init(&ctx, b, l->block_dim, ub,
			   area ? (char *)(uintptr_t)(area + sizeof(head)) : NULL,
			   area ? l->dump_size - (uint32_t)sizeof(head) : 0);
	ctx.core_id = core;
	ctx.sat_mode = l->sat_mode;
	t0 = aicore_thread_ns();
	npu_block_current = &ctx;
	ret = aicore_guarded(aicore_call_entry, &call, &fault);
	npu_block_current = NULL;
	if (area) {
		/* the records are the block's; their length is the runner's to publish */
		head.used = ctx.dump_used;
		head.flags = ctx.flags;
		if (aicore_access(area, (uint8_t *)&head, sizeof(head), true, &hf) && !ret) {
			ret = -EFAULT;
			fault = hf;
		}
	}
	pthread_mutex_lock(&k->lock);
	k->out->busy_ns += aicore_thread_ns() - t0;
	k->out->overflow |= ctx.overflow;
	if (!ret) {
		k->out->blocks_run++;
	} else if (!k->failed) {
		k->failed = true;
		k->out->status = ret;
		k->out->fault = fault;
		k->out->block = b;
	}
	pthread_mutex_unlock(&k->lock);
}

static void *aicore_core(void *arg)
{
	struct aicore_cores *k = &aicore_cores;
	uint32_t core = (uint32_t)(uintptr_t)arg, b;
	uint64_t seen = 0;
	void *ub;

	ub = aligned_alloc(32, NPU_UB_SIZE);
	if (!ub || aicore_guard_thread())
		abort();
	pthread_mutex_lock(&k->lock);
	for (;;) {
		/* a kernel this core has not joined, which wants another core */
		while (!k->want || k->gen == seen)
			pthread_cond_wait(&k->start, &k->lock);
		k->want--;
		seen = k->gen;
		k->running++;
		while (!k->failed && k->next < k->launch->block_dim) {
			b = k->next++;
			pthread_mutex_unlock(&k->lock);
			aicore_block(k, core, ub, b);
			pthread_mutex_lock(&k->lock);
		}
		if (!--k->running)
			pthread_cond_signal(&k->done);
	}
	return NULL;
}

int aicore_cores_start(uint32_t n)
{
	pthread_attr_t attr;
	pthread_t t;
	uint32_t i;
	int ret = 0;

	if (!n)
		return -EINVAL;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* kernels are C++ with locals of a few KiB; 1 MiB as a core's stack */
	pthread_attr_setstacksize(&attr, 1 << 20);
	for (i = 0; i < n; i++) {
		ret = -pthread_create(&t, &attr, aicore_core, (void *)(uintptr_t)i);
		if (ret)
			break;
		aicore_cores.ncores++;
	}
	pthread_attr_destroy(&attr);
	return aicore_cores.ncores ? 0 : ret;
}

void aicore_run(const struct aicore_launch *l, struct aicore_outcome *out)
{
	struct aicore_cores *k = &aicore_cores;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	/* the argument block goes to device memory first, as the device's launch puts it there */
	if (l->args && l->args_len &&
	    aicore_access(l->args_va, (uint8_t *)l->args, l->args_len, true, &out->fault)) {
		out->status = -EFAULT;
		out->block = UINT32_MAX;
		return;
	}
	pthread_mutex_lock(&k->lock);
	k->launch = l;
	k->next = 0;
	k->failed = false;
	k->out = out;
	k->want = l->block_dim < k->ncores ? l->block_dim : k->ncores;
	k->gen++;
	/*
	 * Every core waits on start (this thread holds the lock): one signal
	 * per core wanted, unless all are. A core that joins late finds no
	 * block left; one that never does is not waited for: the kernel is
	 * over when no block is left to start and no core is in one.
	 */
	if (k->want == k->ncores)
		pthread_cond_broadcast(&k->start);
	else
		for (i = 0; i < k->want; i++)
			pthread_cond_signal(&k->start);
	while (k->running || (!k->failed && k->next < l->block_dim))
		pthread_cond_wait(&k->done, &k->lock);
	k->want = 0;
	pthread_mutex_unlock(&k->lock);
}
