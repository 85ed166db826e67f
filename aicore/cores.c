// SPDX-License-Identifier: MIT
/*
 * The AI cores: one thread per simulated core, each with its unified
 * buffer. A kernel's blocks go to whichever core is free next, so
 * block_dim blocks run min(block_dim, cores) at a time, as the device
 * spreads them. A block is one guarded call of the kernel's entry with
 * npu_block_current pointing at its context; the first block that faults
 * or traps fails the kernel, and blocks not yet started are not started.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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
	uint32_t busy;			/* cores not yet done with gen */
	const struct acl_aicore_run *run;
	void (*entry)(const void *args);
	uint32_t next;			/* the next block to start */
	bool failed;
	struct acl_aicore_run_result *res;
} aicore_cores = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.start = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

struct aicore_call {
	void (*entry)(const void *args);
	uint64_t args_va;
};

static void aicore_call_entry(void *arg)
{
	struct aicore_call *c = arg;

	c->entry((const void *)(uintptr_t)c->args_va);
}

static void aicore_block(struct aicore_cores *k, uint32_t core, void *ub, uint32_t b)
{
	const struct acl_aicore_run *run = k->run;
	struct aicore_call call = { .entry = k->entry, .args_va = run->args_va };
	uint64_t area = run->dump_va ? run->dump_va + (uint64_t)b * run->dump_size : 0;
	struct aicore_dump_head head;
	struct npu_block_ctx ctx;
	struct aicore_fault fault, hf;
	int ret;

	npu_block_ctx_init(&ctx, b, run->block_dim, ub,
			   area ? (char *)(uintptr_t)(area + sizeof(head)) : NULL,
			   area ? run->dump_size - (uint32_t)sizeof(head) : 0);
	ctx.core_id = core;
	ctx.sat_mode = run->sat_mode;
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
	k->res->overflow |= ctx.overflow;
	if (!ret) {
		k->res->blocks_run++;
	} else if (!k->failed) {
		k->failed = true;
		k->res->status = ret;
		k->res->signo = fault.signo;
		k->res->code = fault.code;
		k->res->fault_addr = fault.addr;
		k->res->block = b;
		memcpy(k->res->trap_msg, ctx.trap_msg, sizeof(k->res->trap_msg));
		k->res->trap_msg[sizeof(k->res->trap_msg) - 1] = 0;
	}
	pthread_mutex_unlock(&k->lock);
}

static void *aicore_core(void *arg)
{
	struct aicore_cores *k = &aicore_cores;
	uint32_t core = (uint32_t)(uintptr_t)arg, b;
	uint64_t seen = 0;
	bool ran;
	void *ub;

	ub = aligned_alloc(32, NPU_UB_SIZE);
	if (!ub || aicore_guard_thread())
		abort();
	pthread_mutex_lock(&k->lock);
	for (;;) {
		while (k->gen == seen)
			pthread_cond_wait(&k->start, &k->lock);
		seen = k->gen;
		ran = false;
		while (!k->failed && k->next < k->run->block_dim) {
			b = k->next++;
			pthread_mutex_unlock(&k->lock);
			aicore_block(k, core, ub, b);
			ran = true;
			pthread_mutex_lock(&k->lock);
		}
		if (ran)
			k->res->cores_used++;
		if (!--k->busy)
			pthread_cond_signal(&k->done);
	}
	return NULL;
}

int aicore_cores_start(uint32_t n)
{
	pthread_attr_t attr;
	pthread_t t;
	uint32_t i;
	int ret;

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

void aicore_run(const struct acl_aicore_run *run, struct acl_aicore_run_result *res)
{
	struct aicore_cores *k = &aicore_cores;
	struct aicore_fault fault;
	void *entry;

	memset(res, 0, sizeof(*res));
	res->type = ACL_AICORE_RUN_RESULT;
	if (!run->block_dim || run->args_len > ACL_AICORE_ARGS_MAX ||
	    !memchr(run->entry, 0, sizeof(run->entry)) ||
	    (run->dump_va && run->dump_size <= sizeof(struct aicore_dump_head))) {
		res->status = -EINVAL;
		return;
	}
	entry = aicore_binary_entry(run->id, run->entry);
	if (!entry) {
		res->status = -ENOENT;
		return;
	}
	/* the argument block goes to device memory first, as the device's launch puts it there */
	if (run->args_len &&
	    aicore_access(run->args_va, (uint8_t *)run->args, run->args_len, true, &fault)) {
		res->status = -EFAULT;
		res->signo = fault.signo;
		res->code = fault.code;
		res->fault_addr = fault.addr;
		res->block = UINT32_MAX;
		return;
	}
	pthread_mutex_lock(&k->lock);
	k->run = run;
	k->entry = (void (*)(const void *))entry;
	k->next = 0;
	k->failed = false;
	k->res = res;
	k->busy = k->ncores;
	k->gen++;
	pthread_cond_broadcast(&k->start);
	while (k->busy)
		pthread_cond_wait(&k->done, &k->lock);
	pthread_mutex_unlock(&k->lock);
}
