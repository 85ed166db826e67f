// SPDX-License-Identifier: MIT
/*
 * The driver's kernel jobs: AICORE_JOB_THREADS threads take them from the
 * aperture with APERTURE_KERNEL_WAIT, oldest first, each runs its job on
 * the cores and reports it with APERTURE_KERNEL_DONE (uapi: DOC: npu
 * kernel launches). The driver hands out a stream's launches one at a
 * time, in order, so the threads run the kernels of that many streams at
 * once, as the device's cores do. A job's token is libacl's (binary id <<
 * 32 | entry index, aicore_proto.h); a token no loaded binary has is a
 * fault of that launch. The executor exits when the context shuts down
 * (-EPIPE).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <ascendc/npu_block.h>
#include <uapi/npu.h>

#include "aicore.h"

/* Kernels of that many streams run at once. */
#define AICORE_JOB_THREADS	8

/* Each job thread's argument block, in the executable's own bss: never a device VA. */
static uint8_t aicore_blobs[AICORE_JOB_THREADS][NPU_KERNEL_MAX_ARGS];

/* Serialises the read-modify-write of the context's overflow words. */
static pthread_mutex_t aicore_overflow_lock = PTHREAD_MUTEX_INITIALIZER;

static void aicore_job_done(const struct npu_kernel_wait *w, const struct aicore_outcome *out, bool known)
{
	struct npu_kernel_done d = { .size = sizeof(d), .job = w->job, .busy_ns = out->busy_ns };
	const struct aicore_fault *f = &out->fault;

	if (!known) {
		d.status = NPU_KERNEL_STATUS_FAULT;
	} else if (out->status) {
		d.status = NPU_KERNEL_STATUS_FAULT;
		if (f->signo == SIGILL) {
			d.fault_flags = NPU_FAULT_TRAP;
		} else {
			d.fault_addr = f->addr;
			d.fault_flags = f->write ? NPU_FAULT_WRITE : 0;
			if (f->signo == SIGBUS && f->code == BUS_MCEERR_AR)
				d.fault_flags |= NPU_FAULT_UCE;
		}
	}
	/* -ECANCELED (the stream stopped) and -ENOENT (forgotten) need nothing more */
	if (ioctl(ACL_AICORE_FD_APERTURE, NPU_IOCTL_APERTURE_KERNEL_DONE, &d) && errno != ECANCELED &&
	    errno != ENOENT)
		fprintf(stderr, "npu-aicore: DONE of job %llu: %s\n", (unsigned long long)w->job, strerror(errno));
}

/* OR a kernel's overflow bits into the context's status words, as the device sets them. */
static void aicore_overflow(uint64_t overflow_va, uint32_t bits)
{
	struct aicore_fault f;
	uint64_t w;

	if (!overflow_va || !bits)
		return;
	pthread_mutex_lock(&aicore_overflow_lock);
	if (!aicore_access(overflow_va, (uint8_t *)&w, sizeof(w), false, &f)) {
		w |= bits;
		aicore_access(overflow_va, (uint8_t *)&w, sizeof(w), true, &f);
	}
	pthread_mutex_unlock(&aicore_overflow_lock);
}

static void aicore_job(const struct npu_kernel_wait *w, uint8_t *blob, void *ub)
{
	struct aicore_launch l = {
		.job = w->job,
		.block_dim = w->block_dim,
		.sat_mode = w->sat_mode == NPU_KERNEL_SAT_SATURATION ? NPU_SAT_ON : NPU_SAT_OFF,
		.args = (w->kernel_flags & NPU_KERNEL_ARGS_DEVICE) ? NULL : blob,
		.args_len = w->args_len,
		.args_va = w->args_va,
		.dump_va = w->dump_va,
		.dump_size = w->dump_size,
		.overflow_va = w->overflow_va,
	};
	struct aicore_outcome out = { 0 };

	l.entry = aicore_binary_get(w->func);
	/* a dump area must hold its header */
	if (!l.entry || (l.dump_va && l.dump_size <= 8)) {
		if (l.entry)
			aicore_binary_put(w->func);
		aicore_job_done(w, &out, false);
		return;
	}
	aicore_run(&l, &out, ub);
	aicore_binary_put(w->func);
	aicore_overflow(l.overflow_va, out.overflow);
	aicore_job_done(w, &out, true);
}

static void *aicore_jobs(void *arg)
{
	uint8_t *blob = arg;
	struct npu_kernel_wait w;
	/* the unified buffer of the blocks this thread runs itself */
	void *ub = aligned_alloc(32, NPU_UB_SIZE);

	if (!ub || aicore_guard_thread())
		abort();
	for (;;) {
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		w.args_buf = (uintptr_t)blob;
		w.args_buf_len = NPU_KERNEL_MAX_ARGS;
		if (ioctl(ACL_AICORE_FD_APERTURE, NPU_IOCTL_APERTURE_KERNEL_WAIT, &w)) {
			if (errno == EINTR)
				continue;
			/* -EPIPE: the context is gone, and so is the point of running */
			if (errno != EPIPE)
				fprintf(stderr, "npu-aicore: KERNEL_WAIT: %s\n", strerror(errno));
			exit(0);
		}
		if (w.event == NPU_KERNEL_EVENT_RUN)
			aicore_job(&w, blob, ub);
		else if (w.event == NPU_KERNEL_EVENT_CANCEL)
			aicore_cancel(w.job);
	}
	return NULL;
}

int aicore_jobs_start(void)
{
	pthread_attr_t attr;
	pthread_t t;
	int i, ret = 0;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (i = 0; i < AICORE_JOB_THREADS && !ret; i++)
		ret = -pthread_create(&t, &attr, aicore_jobs, aicore_blobs[i]);
	pthread_attr_destroy(&attr);
	/* one thread is enough to run every launch, in turn */
	return i > 1 || !ret ? 0 : ret;
}
