// SPDX-License-Identifier: MIT
/*
 * The AI cores: the simulated cores are ids, each with its unified
 * buffer where a block runs; the threads that run blocks are one per core
 * plus the job threads (jobs.c). Kernels of several streams run at once,
 * as on the device: each launch the driver hands over (one per job
 * thread) joins a queue, oldest first, and a block starts when a core id
 * is free, from the oldest kernel that has blocks left to start. So
 * block_dim blocks run min(block_dim, free cores) at a time, and a later
 * kernel's blocks start as soon as the earlier ones have all started.
 *
 * A launch's own job thread runs its kernel's blocks itself while its
 * kernel is the oldest and a core is free, and wakes only as many core
 * threads as there are blocks left for free cores: a blockDim-1 kernel
 * then wakes no other thread at all, which on a machine of few CPUs is
 * what a launch costs most. A block is one guarded call of the kernel's
 * entry with npu_block_current pointing at its context; the first block
 * that faults or traps fails its kernel, whose blocks not yet started are
 * not started.
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

/* One kernel on the cores: aicore_run()'s, on its stack until it returns. */
struct aicore_kernel {
	const struct aicore_launch *launch;
	struct aicore_outcome *out;
	uint32_t next;			/* the next block to start */
	uint32_t running;		/* its blocks on cores now */
	bool failed;
	pthread_cond_t done;		/* no block running, none to start */
	struct aicore_kernel *link;	/* in the queue */
};

static struct aicore_cores {
	pthread_mutex_t lock;		/* protects everything below and every queued kernel */
	pthread_cond_t start;		/* a core thread waits here for a block and a free core */
	uint32_t ncores;
	uint32_t *free_ids;		/* the free cores' ids, nfree of them */
	uint32_t nfree;
	/* kernels with blocks to start (!failed, next < block_dim), oldest first */
	struct aicore_kernel *head, **tail;
} aicore_cores = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.start = PTHREAD_COND_INITIALIZER,
	.tail = &aicore_cores.head,
};

/* Take @kr off the queue (it is there). */
static void aicore_unqueue_locked(struct aicore_cores *k, struct aicore_kernel *kr)
{
	struct aicore_kernel **p;

	for (p = &k->head; *p != kr; p = &(*p)->link)
		;
	*p = kr->link;
	if (k->tail == &kr->link)
		k->tail = p;
	kr->link = NULL;
}

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

/*
 * The next block of @kr, the head of the queue, on a free core: its
 * index, and the core's id in @core.
 */
static uint32_t aicore_take_locked(struct aicore_cores *k, struct aicore_kernel *kr, uint32_t *core)
{
	uint32_t b = kr->next++;

	*core = k->free_ids[--k->nfree];
	kr->running++;
	if (kr->next == kr->launch->block_dim)
		aicore_unqueue_locked(k, kr);
	return b;
}

/* Run block @b of @kr on core @core with @ub; the core is free again after (the lock is dropped). */
static void aicore_block_locked(struct aicore_cores *k, struct aicore_kernel *kr, uint32_t core, void *ub,
				uint32_t b)
{
	const struct aicore_launch *l = kr->launch;
	struct aicore_call call = { .entry = l->entry, .args_va = l->args_va };
	uint64_t area = l->dump_va ? l->dump_va + (uint64_t)b * l->dump_size : 0, t0;
	struct aicore_dump_head head;
	struct npu_block_ctx ctx;
	struct aicore_fault fault, hf;
	int ret;

	pthread_mutex_unlock(&k->lock);
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
	k->free_ids[k->nfree++] = core;
	kr->out->busy_ns += aicore_thread_ns() - t0;
	kr->out->overflow |= ctx.overflow;
	if (!ret) {
		kr->out->blocks_run++;
	} else if (!kr->failed) {
		/* its blocks not yet started never will be */
		if (kr->next < l->block_dim)
			aicore_unqueue_locked(k, kr);
		kr->failed = true;
		kr->out->status = ret;
		kr->out->fault = fault;
		kr->out->block = b;
	}
	if (!--kr->running && (kr->failed || kr->next == l->block_dim))
		pthread_cond_signal(&kr->done);
}

static void *aicore_core(void *arg)
{
	struct aicore_cores *k = &aicore_cores;
	struct aicore_kernel *kr;
	uint32_t core, b;
	void *ub;

	(void)arg;
	ub = aligned_alloc(32, NPU_UB_SIZE);
	if (!ub || aicore_guard_thread())
		abort();
	pthread_mutex_lock(&k->lock);
	for (;;) {
		while (!k->head || !k->nfree)
			pthread_cond_wait(&k->start, &k->lock);
		kr = k->head;
		b = aicore_take_locked(k, kr, &core);
		aicore_block_locked(k, kr, core, ub, b);
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
	aicore_cores.free_ids = calloc(n, sizeof(*aicore_cores.free_ids));
	if (!aicore_cores.free_ids)
		return -ENOMEM;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* kernels are C++ with locals of a few KiB; 1 MiB as a core's stack */
	pthread_attr_setstacksize(&attr, 1 << 20);
	pthread_mutex_lock(&aicore_cores.lock);
	for (i = 0; i < n; i++) {
		ret = -pthread_create(&t, &attr, aicore_core, NULL);
		if (ret)
			break;
		/* a core for each thread: job threads borrow the ids of sleeping ones */
		aicore_cores.free_ids[aicore_cores.nfree++] = n - 1 - i;
		aicore_cores.ncores++;
	}
	pthread_mutex_unlock(&aicore_cores.lock);
	pthread_attr_destroy(&attr);
	return aicore_cores.ncores ? 0 : ret;
}

void aicore_run(const struct aicore_launch *l, struct aicore_outcome *out, void *ub)
{
	struct aicore_kernel kr = { .launch = l, .out = out };
	struct aicore_cores *k = &aicore_cores;
	uint32_t i, want, core, b, self;
	bool ran = false;

	memset(out, 0, sizeof(*out));
	/* the argument block goes to device memory first, as the device's launch puts it there */
	if (l->args && l->args_len &&
	    aicore_access(l->args_va, (uint8_t *)l->args, l->args_len, true, &out->fault)) {
		out->status = -EFAULT;
		out->block = UINT32_MAX;
		return;
	}
	pthread_cond_init(&kr.done, NULL);
	pthread_mutex_lock(&k->lock);
	*k->tail = &kr;
	k->tail = &kr.link;
	/*
	 * This thread runs a block itself if the kernel is the oldest and a
	 * core is free; core threads are woken for the blocks left, one per
	 * free core left, and a core busy with another kernel's block comes
	 * to this one's when it is done.
	 */
	self = k->head == &kr && k->nfree;
	want = l->block_dim - self;
	if (want > k->nfree - self)
		want = k->nfree - self;
	if (want && want + self >= k->ncores)
		pthread_cond_broadcast(&k->start);
	else
		for (i = 0; i < want; i++)
			pthread_cond_signal(&k->start);
	for (;;) {
		if (k->head == &kr && k->nfree) {
			b = aicore_take_locked(k, &kr, &core);
			aicore_block_locked(k, &kr, core, ub, b);
			ran = true;
			continue;
		}
		/* the core this thread freed may be what a younger kernel waits for */
		if (ran && k->head && k->nfree)
			pthread_cond_signal(&k->start);
		ran = false;
		if (!kr.running && (kr.failed || kr.next == l->block_dim))
			break;
		pthread_cond_wait(&kr.done, &k->lock);
	}
	pthread_mutex_unlock(&k->lock);
	pthread_cond_destroy(&kr.done);
}
