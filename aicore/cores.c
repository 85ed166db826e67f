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
 * not started. A kernel the driver cancels (its stream stopped, its
 * timeout passed) fails the same way, and its running blocks are stopped
 * by a signal to their threads (guard.c), so that a kernel that never
 * ends holds its cores no longer than the device would.
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
	volatile sig_atomic_t stopped;	/* cancelled: its running blocks stop (guard.c) */
	pthread_cond_t done;		/* no block running, none to start */
	struct aicore_kernel *link;	/* in the queue */
	struct aicore_kernel *active;	/* in the list of kernels being run */
};

/* What a core is doing: a block of @kr on @thread, or nothing (@kr NULL). */
struct aicore_core {
	pthread_t thread;
	struct aicore_kernel *kr;
};

/* Cancels of jobs not started yet, remembered for when they start. */
#define AICORE_EARLY_CANCELS	64

static struct aicore_cores {
	pthread_mutex_t lock;		/* protects everything below and every queued kernel */
	pthread_cond_t start;		/* a core thread waits here for a block and a free core */
	uint32_t ncores;
	uint32_t *free_ids;		/* the free cores' ids, nfree of them */
	uint32_t nfree;
	struct aicore_core *cores;	/* by id */
	/* kernels with blocks to start (!failed, next < block_dim), oldest first */
	struct aicore_kernel *head, **tail;
	struct aicore_kernel *active;	/* every kernel in aicore_run() */
	uint64_t early[AICORE_EARLY_CANCELS];
	uint32_t early_next;
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

/* @kr failed (@status, the first failure wins): its blocks not started never will be. */
static void aicore_fail_locked(struct aicore_cores *k, struct aicore_kernel *kr, int status,
			       const struct aicore_fault *fault, uint32_t block)
{
	if (kr->failed)
		return;
	if (kr->next < kr->launch->block_dim)
		aicore_unqueue_locked(k, kr);
	kr->failed = true;
	kr->out->status = status;
	kr->out->fault = *fault;
	kr->out->block = block;
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

	k->cores[core] = (struct aicore_core){ .thread = pthread_self(), .kr = kr };
	pthread_mutex_unlock(&k->lock);
	aicore_guard_stop = &kr->stopped;
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
	aicore_guard_stop = NULL;
	pthread_mutex_lock(&k->lock);
	k->cores[core].kr = NULL;
	k->free_ids[k->nfree++] = core;
	kr->out->busy_ns += aicore_thread_ns() - t0;
	kr->out->overflow |= ctx.overflow;
	if (!ret)
		kr->out->blocks_run++;
	else
		aicore_fail_locked(k, kr, ret, &fault, b);
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
	aicore_cores.cores = calloc(n, sizeof(*aicore_cores.cores));
	if (!aicore_cores.free_ids || !aicore_cores.cores)
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

/* Was @job cancelled before it started? (It is forgotten then.) */
static bool aicore_early_cancel_locked(struct aicore_cores *k, uint64_t job)
{
	uint32_t i;

	for (i = 0; i < AICORE_EARLY_CANCELS; i++) {
		if (k->early[i] == job) {
			k->early[i] = 0;
			return true;
		}
	}
	return false;
}

void aicore_cancel(uint64_t job)
{
	struct aicore_cores *k = &aicore_cores;
	const struct aicore_fault none = { .signo = AICORE_STOP_SIGNAL };
	struct aicore_kernel *kr;
	uint32_t c;

	pthread_mutex_lock(&k->lock);
	for (kr = k->active; kr && kr->launch->job != job; kr = kr->active)
		;
	if (!kr) {
		/* taken, not started yet (or over: then it is never asked for) */
		k->early[k->early_next++ % AICORE_EARLY_CANCELS] = job;
	} else if (!kr->stopped) {
		kr->stopped = 1;
		aicore_fail_locked(k, kr, -ECANCELED, &none, UINT32_MAX);
		/* the handler stops the block only while kr->stopped is its thread's stop word */
		for (c = 0; c < k->ncores; c++)
			if (k->cores[c].kr == kr)
				pthread_kill(k->cores[c].thread, AICORE_STOP_SIGNAL);
		if (!kr->running)
			pthread_cond_signal(&kr->done);
	}
	pthread_mutex_unlock(&k->lock);
}

void aicore_run(const struct aicore_launch *l, struct aicore_outcome *out, void *ub)
{
	struct aicore_kernel kr = { .launch = l, .out = out };
	struct aicore_cores *k = &aicore_cores;
	uint32_t i, want, core, b, self;
	struct aicore_kernel **p;
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
	if (aicore_early_cancel_locked(k, l->job)) {
		pthread_mutex_unlock(&k->lock);
		pthread_cond_destroy(&kr.done);
		out->status = -ECANCELED;
		out->block = UINT32_MAX;
		return;
	}
	kr.active = k->active;
	k->active = &kr;
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
	for (p = &k->active; *p != &kr; p = &(*p)->active)
		;
	*p = kr.active;
	pthread_mutex_unlock(&k->lock);
	pthread_cond_destroy(&kr.done);
}
