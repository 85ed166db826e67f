// SPDX-License-Identifier: MIT
/*
 * Model runtime instances (aclmdlRI): a stream's tasks captured between
 * aclmdlRICaptureBegin and aclmdlRICaptureEnd, kept by the driver as one
 * model (MODEL_CREATE, DOC: npu models in the uapi header) and run by one
 * NPU_OP_MODEL command per aclmdlRIExecuteAsync, on any stream of the
 * context, as often as asked.
 *
 * While a stream captures, the tasks that can be recorded - copies and
 * memsets of device or registered host memory, 2D copies, MemsetD32,
 * value writes and waits, reduce and random tasks, notify records and
 * waits, batch copies (one copy each), CMO tasks, prefetches, profiling
 * markers: they queue through acl_stream_launch() - are appended to the
 * capture's command list (stream.c) instead of being submitted, and so are
 * kernel launches (kernel.c: the recording keeps their argument blocks and
 * owns device memory for them, so a model with kernels waits for its runs
 * at its destroy); the host
 * steps of a run are recorded between them: EXTERNAL event records and
 * waits (event.c), host functions and callbacks (callback.c: struct
 * acl_host_step), the library's own for the tasks whose engine reads
 * their operands from device memory (copy.c: descriptor copies); a
 * stream that waits for an event recorded in the capture joins it
 * (stream.c: fork and join across streams, their tasks in one list in
 * launch order). A record, wait or reset of an aclrtCreateEvent event
 * is the vendor's 207000, the capture going on; pool allocations act on
 * the pool at the call (mempool.c); every other task is refused (207000)
 * and invalidates the capture, and calls that would run on the host now
 * (pageable copies) are refused before they do anything. CaptureEnd hands
 * the list to the driver, one model
 * for the commands between two host steps, and a run queues the models'
 * NPU_OP_MODEL commands and the host steps in order on its stream (a
 * host function as aclrtLaunchHostFunc would queue it there, run by the
 * thread that ran the capturing stream's).
 *
 * The checks, their order and codes are the vendor's (acl layer:
 * src/acl/aclrt_impl/model_ri.cpp; runtime: api_c_standard_soc.cc,
 * feature/aclgraph/ and feature/model/model.cc; see lib/README.md, "Model
 * runtime instances"), and so are the capture modes: a capture in GLOBAL
 * mode forbids aclrtMemcpy, aclrtMemset and aclrtMemcpy2d to every thread
 * of its context, THREAD_LOCAL to the thread that began it, RELAXED to
 * nobody; a thread's exchange mode (aclmdlRICaptureThreadExchangeMode)
 * loosens that for itself.
 *
 * Explicit builds (aclmdlRIBuildBegin ...) record the tasks of a bound
 * persistent stream the same way; labels (label.c) are positions in the
 * recording and switches jumps the device takes.
 *
 * A built model keeps its recording: its tasks (model_task.c) are
 * inspected and changed there, and aclmdlRIUpdate makes new driver models
 * of it (acl_model_rebuild).
 *
 * Locks: ctx->lock (the context's models and captures) and m->lock are
 * never held together with s->lock, nor ctx->lock with m->lock - except
 * that a stream a run was queued on is polled under m->lock (its lock is
 * taken on a fault), never the other way round; a task table's lock
 * (model_task.c) may be held around m->lock, never inside.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "aicore.h"
#include "callback.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "event.h"
#include "handle.h"
#include "label.h"
#include "list.h"
#include "model.h"
#include "model_group.h"
#include "model_task.h"
#include "query.h"
#include "snapstate.h"
#include "stream.h"

enum acl_model_state {
	ACL_MODEL_CAPTURING,		/* its stream records into @cap */
	ACL_MODEL_BUILDING,		/* an explicit build: its bound stream records into @cap */
	ACL_MODEL_READY,		/* captured: runs @parts (none: nothing was captured) */
	ACL_MODEL_INVALID,		/* its capture ended without a model: it cannot run */
	ACL_MODEL_IDLE,			/* a condition task's sub-model not captured yet */
};

/* Streams let go at a time, after m->lock; the rest at a later look. */
#define ACL_MODEL_DROP	8

/*
 * A run of a model queued on stream @s, one per stream (its latest): its
 * last step, seqno @seq of kernel stream @sid. @s is held unless it is
 * the model's own (aclmdlRIExecute's), which lives as long as the model.
 */
struct acl_model_run_ref {
	struct acl_stream *s;
	bool held;
	uint32_t sid;
	uint64_t seq;
};

/*
 * A kernel launch of a driver model: its step there (from 1) and the
 * recording's launch as it was when the driver model was made (a task
 * group's update changes the launch in place meanwhile).
 */
struct acl_model_kstep {
	uint32_t step;
	uint32_t args_len;
	void *func;
	uint64_t args_va;
};

/*
 * What a run does, in order: a driver model, or a host step between two:
 * an EXTERNAL event record or wait (the vendor's graphs record and wait
 * the user's event at each run), a callback or a host function (the
 * vendor's run on the host at each run); libacl queues them between the
 * driver's models.
 */
struct acl_model_part {
	uint32_t kid;			/* the driver's model; 0: a host step, or destroyed */
	bool off;			/* its tasks were disabled (aclmdlRIUpdate): runs skip it */
	bool record;			/* @event: a record, else a wait */
	struct acl_obj *event;		/* the struct acl_event (held), or NULL */
	struct acl_host_step *host;	/* the callback or host function (callback.c, the recording's), or NULL */
	struct acl_model_kstep *ks;	/* a driver model's kernel launches (@nks), or NULL: a run */
	uint32_t nks;			/* names them for the exception of a fault */
};

/* A destroy callback (aclmdlRIDestroyRegisterCallback). */
struct acl_model_cb {
	aclrtCallback fn;
	void *data;
};

struct acl_model {
	struct acl_obj obj;		/* first: the aclmdlRI is the object */
	struct list_head node;		/* in ctx->models; under ctx->lock */
	struct list_head cap_node;	/* in ctx->captures while capturing; under ctx->lock */
	struct acl_context *ctx;	/* held; constant */
	uint32_t id;			/* aclmdlRIGetId's: unique in the process; constant */
	bool built;			/* made by aclmdlRIBuildBegin, not a capture; constant */
	bool sub;			/* a condition task's sub-model (model_cond.c); constant */
	/* while in ctx->captures, constant: */
	aclmdlRICaptureMode mode;
	pthread_t thread;		/* the thread that began the capture */
	struct acl_stream *stream;	/* the capturing or bound stream, held; under ctx->lock */
	struct acl_capture cap;		/* what the stream records (stream.c, under its lock);
					 * once READY, the task table's (under its lock): made
					 * anew only while BUILDING (BindStream after an unbind) */
	struct acl_mtab *tasks;		/* the task table (model_task.c), set once when READY */
	pthread_mutex_t lock;		/* protects the fields below */
	enum acl_model_state state;
	bool destroyed;			/* its teardown began: a build finishing now undoes itself */
	uint32_t binds;			/* aclmdlRIBindStream made the recording anew this often */
	struct acl_model_part *parts;	/* set once when READY; their kids under @lock */
	uint32_t nparts;
	struct acl_stream *exec;	/* aclmdlRIExecute's internal stream, made at its first call,
					 * freed with the model (its last reference) */
	char *name;			/* aclmdlRISetName's, or NULL */
	struct acl_model_cb *cbs;	/* sorted by function address, as the vendor's set */
	unsigned int ncbs, cbs_cap;
	void *cond;			/* model_cond.c's: condition handles, a sub-model's commands */
	struct acl_model_run_ref *runs;	/* queued and maybe not done: aclmdlRIAbort, the */
	unsigned int nruns, runs_cap;	/* task changes and a condition model's destroy wait */
	unsigned int launching;		/* runs being queued, not listed yet */
};

static const struct acl_model_cond_ops *acl_cond_ops;	/* set once by model_cond.c */

static uint32_t acl_model_serial;	/* atomic: the last id given */
static unsigned int acl_captures;	/* atomic: captures under way in the process */

/* The calling thread's capture mode (aclmdlRICaptureThreadExchangeMode): GLOBAL until set. */
static __thread aclmdlRICaptureMode acl_cap_xmode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

static const char *const acl_cap_modes[] = { "GLOBAL", "THREAD_LOCAL", "RELAXED" };

/*
 * aclmdlRIExecute's internal streams whose model went while a host step
 * of a run on them was running on the thread that let the model go: each
 * is torn down by a thread of its own once its work is done. A context's
 * teardown waits for its own (acl_models_gone()).
 */
struct acl_exec_reaper {
	struct list_head node;		/* in acl_reapers; under acl_reapers_lock */
	struct acl_context *ctx;	/* not held: its teardown waits for this */
	struct acl_stream *s;		/* the model's reference */
};

static pthread_mutex_t acl_reapers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acl_reapers_cond = PTHREAD_COND_INITIALIZER;	/* one left the list */
static struct list_head acl_reapers = LIST_HEAD_INIT(acl_reapers);

/*
 * Tear down @s, a model's internal stream: its work done and its callbacks
 * (host steps) handed over first, as any stream's teardown; a host step
 * still to run holds it past this.
 */
static void acl_exec_stream_close(struct acl_stream *s)
{
	struct acl_err_held held;

	acl_err_hold(&held);
	acl_stream_teardown(s, false);
	acl_err_resume(&held);
}

static void *acl_exec_reaper_main(void *arg)
{
	struct acl_exec_reaper *r = arg;

	acl_exec_stream_close(r->s);
	acl_err_clear();
	pthread_mutex_lock(&acl_reapers_lock);
	list_del(&r->node);
	free(r);
	pthread_cond_broadcast(&acl_reapers_cond);
	pthread_mutex_unlock(&acl_reapers_lock);
	return NULL;
}

/*
 * @m's internal stream goes with it. Released in a callback or host
 * function (of any stream: an aclmdlRIDestroy in a host function after
 * aclmdlRIExecute gave up waiting), the stream may not finish before this
 * thread returns - a host step of its run is queued on this thread, the
 * context's one host-function thread: another thread tears it down, and the run goes on, as the
 * vendor's does after its model's destroy. Without a thread for it, the
 * rest of the run is dropped (a forced teardown) rather than waited for
 * forever.
 */
static void acl_model_exec_close(struct acl_model *m)
{
	struct acl_exec_reaper *r;
	pthread_attr_t attr;
	pthread_t tid;
	int err = -1;

	if (!acl_cb_in_callback()) {
		acl_exec_stream_close(m->exec);
		return;
	}
	r = malloc(sizeof(*r));
	if (r) {
		*r = (struct acl_exec_reaper){ .ctx = m->ctx, .s = m->exec };
		pthread_mutex_lock(&acl_reapers_lock);
		list_add_tail(&r->node, &acl_reapers);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = pthread_create(&tid, &attr, acl_exec_reaper_main, r);
		pthread_attr_destroy(&attr);
		if (err)
			list_del(&r->node);
		pthread_mutex_unlock(&acl_reapers_lock);
	}
	if (!err)
		return;
	free(r);
	acl_stream_teardown(m->exec, true);
	acl_err_clear();
}

/* A context goes: its internal streams being torn down are gone first. */
static void acl_exec_reapers_wait(struct acl_context *ctx)
{
	struct acl_exec_reaper *r;
	bool busy;

	pthread_mutex_lock(&acl_reapers_lock);
	do {
		busy = false;
		list_for_each_entry(r, &acl_reapers, node)
			busy |= r->ctx == ctx;
		if (busy)
			pthread_cond_wait(&acl_reapers_cond, &acl_reapers_lock);
	} while (busy);
	pthread_mutex_unlock(&acl_reapers_lock);
}

/*
 * After fork (lifecycle.c's child handler, whether or not a model
 * exists): the parent's reapers are no threads of the child, and the
 * lock may have been held by a thread that did not fork.
 */
void acl_exec_reapers_forget(void)
{
	struct acl_exec_reaper *r, *n;

	list_for_each_entry_safe(r, n, &acl_reapers, node)
		free(r);
	list_init(&acl_reapers);
	pthread_mutex_init(&acl_reapers_lock, NULL);
	pthread_cond_init(&acl_reapers_cond, NULL);
}

/* Free @p, @n parts (their kernel lists; not their driver models nor events). */
static void acl_model_parts_free(struct acl_model_part *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; p && i < n; i++)
		free(p[i].ks);
	free(p);
}

static void acl_model_release(struct acl_obj *obj)
{
	struct acl_model *m = (struct acl_model *)obj;
	uint32_t i;

	/* no aclmdlRIExecute is under way: it held a reference */
	if (m->exec)
		acl_model_exec_close(m);
	/* a bind that raced with the teardown: the stream records no more */
	if (m->stream) {
		acl_stream_capture_end(m->stream, &m->cap);
		acl_stream_put(m->stream);
	}
	for (i = 0; i < m->nruns; i++)
		if (m->runs[i].held)
			acl_stream_put(m->runs[i].s);
	free(m->runs);
	if (m->cond)
		acl_cond_ops->release(m->cond);
	acl_ctx_put(m->ctx);
	acl_mtab_put(m->tasks);
	acl_capture_free(&m->cap);
	for (i = 0; i < m->nparts; i++)
		if (m->parts[i].event)
			acl_obj_put(m->parts[i].event);
	acl_model_parts_free(m->parts, m->nparts);
	free(m->name);
	free(m->cbs);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

int acl_graph_chip(void)
{
	if (acl_chip_features() & ACL_SOC_ACL_GRAPH)
		return 0;
	return acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no ACL graphs (the A2, A3 and 310P parts have them)"));
}

int acl_model_get(aclmdlRI modelRI, struct acl_model **out)
{
	struct acl_model *m = (struct acl_model *)acl_obj_get(modelRI, ACL_OBJ_MODEL);

	if (!m)
		return acl_errf(ACLI_EHANDLE, "modelRI %p is not a live model runtime instance (destroyed, or its context released?)",
				modelRI);
	*out = m;
	return 0;
}

void acl_model_put(struct acl_model *m)
{
	acl_obj_put(&m->obj);
}

static int acl_model_table(aclmdlRI modelRI, struct acl_mtab **tab);
static int acl_model_rebuild(struct acl_model *m, const bool *off);

/* What the task calls (model_task.c) ask of this file. */
static bool acl_model_busy(struct acl_model *m);

static const struct acl_mtab_hooks acl_model_task_hooks = {
	.lookup = acl_model_table,
	.rebuild = acl_model_rebuild,
	.busy = acl_model_busy,
};

/*
 * The start of the calls that change or run a model: the acl layer's
 * NULL check, the vendor's GLOBAL_STATE_WAIT_IF_LOCKED, then the handle.
 */
static int acl_model_enter(aclmdlRI modelRI, struct acl_model **out)
{
	int ret = acl_enter(NULL, modelRI);

	if (!ret)
		acl_snap_gate();
	return ret ? ret : acl_model_get(modelRI, out);
}

int acl_model_current(struct acl_model *m)
{
	struct acl_context *ctx;
	int ret = acl_cur_ctx(&ctx);

	if (ret)
		return ret;
	if (m->ctx != ctx)
		ret = acl_errf(ACLI_EMODELCTX, "model %p belongs to another context than the current one", m);
	acl_ctx_put(ctx);
	return ret;
}

/* A condition task's sub-model is run, destroyed, aborted by its parent only: 207000, as the vendor's. */
static int acl_model_not_sub(struct acl_model *m, const char *what)
{
	if (!m->sub)
		return 0;
	return acl_errf(ACLI_ERTNOTSUPP, "model %p is a condition task's sub-model (aclmdlRIAddCondTask): it cannot be %s on its own, only as part of its parent",
			m, what);
}

/* A captured graph takes no stream of the build API: 107000 (the vendor's "ACL Graph mode is not supported"). */
static int acl_model_of_build(struct acl_model *m)
{
	if (m->built)
		return 0;
	return acl_errf(ACLI_ERTPARAM, "model %p is a captured graph (ACL graph mode), not one of aclmdlRIBuildBegin", m);
}

/* What CaptureBegin and CaptureEnd refuse of @s, in the vendor's order after its handle. */
static int acl_capture_stream_check(struct acl_stream *s)
{
	int ret;

	/* CANN's StreamFlagIsSupportCapture: RT_ERROR_STREAM_INVALID */
	if (s->flags & ACL_STREAM_DEVICE_USE_ONLY)
		return acl_errf(ACLI_EINTERNAL, "stream %p is ACL_STREAM_DEVICE_USE_ONLY, which cannot be captured", s);
	ret = acl_stream_current(s);
	if (!ret && s->is_default)
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "stream %p is its context's default stream, which cannot be captured",
					   s));
	return ret;
}

/* The capture of @m ends: @m leaves its context's captures, its stream is let go (not s->lock). */
static void acl_model_uncapture(struct acl_model *m, enum acl_model_state state)
{
	struct acl_context *ctx = m->ctx;
	struct acl_stream *s;

	/* the streams that joined the capture leave it too */
	acl_capture_close(&m->cap, false);
	pthread_mutex_lock(&ctx->lock);
	if (!list_empty(&m->cap_node)) {
		list_del(&m->cap_node);
		list_init(&m->cap_node);
		__atomic_sub_fetch(&acl_captures, 1, __ATOMIC_RELEASE);
	}
	s = m->stream;
	m->stream = NULL;
	pthread_mutex_unlock(&ctx->lock);
	pthread_mutex_lock(&m->lock);
	m->state = state;
	pthread_mutex_unlock(&m->lock);
	if (s)
		acl_stream_put(s);
}

/* The stream bound to @m, if any, records no more and leaves it (not s->lock). */
static void acl_model_unbind(struct acl_model *m)
{
	struct acl_stream *s;

	pthread_mutex_lock(&m->ctx->lock);
	s = m->stream;
	m->stream = NULL;
	pthread_mutex_unlock(&m->ctx->lock);
	if (s) {
		acl_stream_capture_end(s, &m->cap);
		acl_stream_put(s);
	}
}

static int acl_model_kdestroy(struct acl_device *dev, uint32_t kid)
{
	struct npu_model_destroy arg = { .size = sizeof(arg), .model = kid };
	int ret = acl_ioctl(__atomic_load_n(&dev->fd, __ATOMIC_ACQUIRE), NPU_IOCTL_MODEL_DESTROY, &arg);

	/* the device's context went (removed, reset, closed): the model with it */
	if (ret == -ENODEV || ret == -ESTALE || ret == -EBADF) {
		acl_err_clear();
		return 0;
	}
	if (ret)
		return acl_errf(ret, "the driver did not destroy model %u (MODEL_DESTROY: %d)", kid, ret);
	return 0;
}

/*
 * Forget the runs of @m that reached their end (m->lock held): their held
 * streams into @drop (*@n of them, at most ACL_MODEL_DROP: the rest stay
 * listed until the next look). Whether a run is still to end.
 */
static bool acl_model_runs_prune(struct acl_model *m, struct acl_stream **drop, unsigned int *n)
{
	bool busy = false;
	unsigned int i = 0;

	*n = 0;
	while (i < m->nruns) {
		struct acl_model_run_ref *r = &m->runs[i];

		if (!acl_stream_reached(r->s, r->sid, r->seq)) {
			busy = true;
			i++;
		} else if (!r->held || *n < ACL_MODEL_DROP) {
			if (r->held)
				drop[(*n)++] = r->s;
			*r = m->runs[--m->nruns];
		} else {
			i++;
		}
	}
	return busy;
}

static void acl_model_runs_drop(struct acl_stream **drop, unsigned int n)
{
	while (n)
		acl_stream_put(drop[--n]);
}

/*
 * The launch of a run of @m on @s ends (acl_model_run() raised
 * m->launching); if it @queued anything, up to the stream's last seqno,
 * the run is listed (@s held unless it is @m's own) until it reached its
 * end. A run not listed for want of memory is not waited for by a
 * destroy, stopped by an abort, nor does it hold a change back.
 */
static void acl_model_note_run(struct acl_model *m, struct acl_stream *s, bool queued)
{
	struct acl_stream *drop[ACL_MODEL_DROP];
	struct acl_model_run_ref *v;
	struct acl_err_held held;
	unsigned int i, n;
	uint32_t sid;
	uint64_t seq;

	acl_stream_point(s, &sid, &seq);
	/* the polls must not take the run's own failure message */
	acl_err_hold(&held);
	pthread_mutex_lock(&m->lock);
	acl_model_runs_prune(m, drop, &n);
	for (i = 0; queued && i < m->nruns && m->runs[i].s != s; i++)
		;
	if (queued && i == m->nruns && m->nruns == m->runs_cap) {
		v = realloc(m->runs, (m->runs_cap ? 2 * m->runs_cap : 4) * sizeof(*v));
		if (v) {
			m->runs = v;
			m->runs_cap = m->runs_cap ? 2 * m->runs_cap : 4;
		}
	}
	if (!queued) {
		/* nothing to list */
	} else if (i < m->nruns) {
		m->runs[i].sid = sid;
		m->runs[i].seq = seq;
	} else if (m->nruns < m->runs_cap) {
		bool own = s == m->exec;

		if (!own)
			acl_obj_hold(&s->obj);
		m->runs[m->nruns++] = (struct acl_model_run_ref){ .s = s, .held = !own, .sid = sid, .seq = seq };
	}
	m->launching--;
	pthread_mutex_unlock(&m->lock);
	acl_model_runs_drop(drop, n);
	acl_err_resume(&held);
}

/* The runs of @m still to end (*@n of them, each stream held), or NULL. */
static struct acl_model_run_ref *acl_model_runs(struct acl_model *m, unsigned int *n)
{
	struct acl_stream *drop[ACL_MODEL_DROP];
	struct acl_model_run_ref *runs = NULL;
	unsigned int i, ndrop;

	*n = 0;
	pthread_mutex_lock(&m->lock);
	acl_model_runs_prune(m, drop, &ndrop);
	if (m->nruns)
		runs = malloc(m->nruns * sizeof(*runs));
	if (runs) {
		*n = m->nruns;
		memcpy(runs, m->runs, *n * sizeof(*runs));
		for (i = 0; i < *n; i++)
			acl_obj_hold(&runs[i].s->obj);
	}
	pthread_mutex_unlock(&m->lock);
	acl_model_runs_drop(drop, ndrop);
	return runs;
}

/*
 * model_task.c's hook, under its table's lock: is a run of @m being
 * queued, or queued and not done? (Only polls: no stream is let go here.)
 */
static bool acl_model_busy(struct acl_model *m)
{
	struct acl_err_held held;
	bool busy = false;
	unsigned int i;

	acl_err_hold(&held);
	pthread_mutex_lock(&m->lock);
	busy = m->launching;
	for (i = 0; !busy && i < m->nruns; i++)
		busy = !acl_stream_reached(m->runs[i].s, m->runs[i].sid, m->runs[i].seq);
	pthread_mutex_unlock(&m->lock);
	acl_err_resume(&held);
	return busy;
}

/*
 * Is the calling thread in a callback or host function (of any stream)
 * while a run of @m is queued and not done? The run may not end before
 * this thread returns: a host step of it waits for this very thread, the
 * context's one host-function thread (or the report thread it runs on).
 */
static bool acl_model_runs_here(struct acl_model *m)
{
	struct acl_err_held held;
	bool here = false;
	unsigned int i;

	if (!acl_cb_in_callback())
		return false;
	acl_err_hold(&held);
	pthread_mutex_lock(&m->lock);
	/* a run being queued may have reached this step before it is listed */
	here = m->launching;
	for (i = 0; !here && i < m->nruns; i++)
		here = !acl_stream_reached(m->runs[i].s, m->runs[i].sid, m->runs[i].seq);
	pthread_mutex_unlock(&m->lock);
	acl_err_resume(&held);
	return here;
}

/*
 * Does @m own device memory its runs use: condition values
 * (model_cond.c), kernels' argument blocks and printf areas (kernel.c)?
 * Its destroy waits for its runs then, as the vendor's destroy of a
 * captured model waits for its runs.
 */
static bool acl_model_owns_dmem(struct acl_model *m)
{
	return acl_model_cond(m, NULL) || acl_capture_owns_dmem(&m->cap);
}

/*
 * A model that owns device memory is destroyed: its queued runs use it,
 * so they end first (an endless loop: aclmdlRIAbort before; not in the
 * context's forced teardown, which destroys the streams next).
 */
static void acl_model_runs_wait(struct acl_model *m)
{
	struct acl_model_run_ref *runs = NULL;
	unsigned int i, n = 0;

	/* a launch under way (the model is no longer READY: no new one) lists its run */
	pthread_mutex_lock(&m->lock);
	while (m->launching) {
		pthread_mutex_unlock(&m->lock);
		usleep(1000);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	/* a forced context teardown: its streams are killed next, and the runs with them */
	if (!__atomic_load_n(&m->ctx->dying_force, __ATOMIC_ACQUIRE))
		runs = acl_model_runs(m, &n);
	for (i = 0; i < n; i++) {
		/* an error of the run stays for the stream's next synchronize */
		acl_stream_reach(runs[i].s, runs[i].sid, runs[i].seq, -1);
		acl_stream_put(runs[i].s);
	}
	free(runs);
	acl_err_clear();
}

/*
 * Destroy @m, unlisted from the handle table by the caller (whose
 * reference that was): the driver's model (queued runs finish), then the
 * destroy callbacks, on the calling thread, in the order of their
 * functions' addresses (the vendor's std::set).
 */
static int acl_model_teardown(struct acl_model *m)
{
	struct acl_context *ctx = m->ctx;
	struct acl_model_cb *cbs;
	struct acl_err_held held;
	struct acl_mtab *tab;
	unsigned int n, i;
	uint32_t kid;
	int ret = 0;

	pthread_mutex_lock(&ctx->lock);
	if (!list_empty(&m->node)) {
		list_del(&m->node);
		list_init(&m->node);
	}
	pthread_mutex_unlock(&ctx->lock);
	pthread_mutex_lock(&m->lock);
	m->state = ACL_MODEL_INVALID;	/* first: a BindStream under way undoes itself */
	m->destroyed = true;		/* and a build under way (acl_model_build, acl_model_ready) */
	tab = m->tasks;
	cbs = m->cbs;
	n = m->ncbs;
	m->cbs = NULL;
	m->ncbs = m->cbs_cap = 0;
	pthread_mutex_unlock(&m->lock);
	/* the task and task group handles go first: no update makes new driver models now */
	acl_mtab_close(tab);
	acl_grps_close(&m->cap);
	/* a build's stream is let go (a capture's ended before) */
	acl_model_unbind(m);
	if (acl_model_owns_dmem(m))
		acl_model_runs_wait(m);
	/* its condition values and sub-models go */
	if (m->cond)
		acl_cond_ops->teardown(m->cond);
	/* the driver's models go, one at a time; the parts stay for a run that has them */
	for (i = 0;; i++) {
		bool more;

		pthread_mutex_lock(&m->lock);
		more = i < m->nparts;
		kid = more ? m->parts[i].kid : 0;
		if (more)
			m->parts[i].kid = 0;
		pthread_mutex_unlock(&m->lock);
		if (!more)
			break;
		if (kid) {
			int err = acl_model_kdestroy(ctx->dev, kid);

			ret = ret ?: err;
		}
	}
	if (n) {
		/* their API calls must not clear this call's failure */
		acl_err_hold(&held);
		for (i = 0; i < n; i++)
			cbs[i].fn(cbs[i].data);
		acl_err_resume(&held);
	}
	free(cbs);
	acl_model_put(m);
	return ret;
}

/* acl_model_drop() with @m's stream @s (held, or NULL) taken already. */
static void acl_model_drop_held(struct acl_model *m, struct acl_stream *s)
{
	/* a capture under way ends: its stream goes next */
	if (s) {
		acl_stream_capture_end(s, &m->cap);
		acl_model_uncapture(m, ACL_MODEL_INVALID);
		acl_stream_put(s);
	}
	/* else an aclmdlRIDestroy of another thread has it */
	if (acl_obj_del(&m->obj))
		acl_model_teardown(m);
}

void acl_model_drop(struct acl_model *m)
{
	struct acl_stream *s;

	pthread_mutex_lock(&m->ctx->lock);
	s = m->stream;
	if (s)
		acl_obj_hold(&s->obj);
	pthread_mutex_unlock(&m->ctx->lock);
	acl_model_drop_held(m, s);
}

/*
 * The context's models go with it (context.c's hook): each destroyed as
 * aclmdlRIDestroy would (a capture under way ends), or, after fork
 * (@forget), freed without a word to the driver.
 */
static void acl_models_gone(struct acl_context *ctx, bool forget)
{
	struct acl_model *m, *n;
	uint32_t i;

	if (forget) {
		list_for_each_entry_safe(m, n, &ctx->models, node) {
			if (!list_empty(&m->cap_node))
				__atomic_sub_fetch(&acl_captures, 1, __ATOMIC_RELEASE);
			/* the events went with the fork too */
			for (i = 0; i < m->cap.next; i++)
				acl_host_step_free(m->cap.ext[i].host, true);
			free(m->cap.cmds);
			free(m->cap.ext);
			free(m->cap.sw);
			acl_capture_free_owned(&m->cap);
			free(m->cap.members);
			/* its callback queue's locks may be held by a thread that did not fork */
			if (m->exec)
				acl_stream_forget(m->exec);
			acl_mtab_forget(m->tasks);
			if (m->cond)
				acl_cond_ops->forget(m->cond);
			acl_grps_forget(&m->cap);
			acl_model_parts_free(m->parts, m->nparts);
			free(m->runs);
			free(m->name);
			free(m->cbs);
			pthread_mutex_destroy(&m->lock);
			free(m);
		}
		list_init(&ctx->models);
		list_init(&ctx->captures);
		acl_captures_forget();
		return;
	}
	for (;;) {
		struct acl_stream *s = NULL;

		pthread_mutex_lock(&ctx->lock);
		m = list_empty(&ctx->models) ? NULL : list_entry(ctx->models.next, struct acl_model, node);
		if (m) {
			list_del(&m->node);
			list_init(&m->node);
			acl_obj_hold(&m->obj);
			s = m->stream;
			if (s)
				acl_obj_hold(&s->obj);
		}
		pthread_mutex_unlock(&ctx->lock);
		if (!m)
			break;
		acl_model_drop_held(m, s);
		acl_model_put(m);
	}
	acl_exec_reapers_wait(ctx);
	acl_err_clear();
}

/*
 * A new model of @ctx, listed in the context (not yet a handle): capturing
 * @s in @mode, or, without @s, an explicit build with no stream yet.
 */
static int acl_model_new(struct acl_context *ctx, struct acl_stream *s, aclmdlRICaptureMode mode,
			 struct acl_model **out)
{
	struct acl_model *m = calloc(1, sizeof(*m));

	if (!m)
		return acl_errf(-ENOMEM, "out of host memory");
	pthread_mutex_init(&m->lock, NULL);
	list_init(&m->node);
	list_init(&m->cap_node);
	m->id = __atomic_add_fetch(&acl_model_serial, 1, __ATOMIC_RELAXED);
	m->mode = mode;
	m->thread = pthread_self();
	m->built = !s;
	m->cap.build = !s;
	m->state = s ? ACL_MODEL_CAPTURING : ACL_MODEL_BUILDING;
	acl_obj_hold(&ctx->obj);
	m->ctx = ctx;
	if (s)
		acl_obj_hold(&s->obj);
	m->stream = s;
	acl_ctx_set_hook(ACL_CTX_HOOK_MODELS, acl_models_gone);
	acl_mtab_set_hooks(&acl_model_task_hooks);
	pthread_mutex_lock(&ctx->lock);
	if (ctx->dying) {
		pthread_mutex_unlock(&ctx->lock);
		if (s)
			acl_stream_put(s);
		acl_model_release(&m->obj);
		return acl_errf(ACLI_ECTXRELEASE, "the context is being destroyed");
	}
	list_add_tail(&m->node, &ctx->models);
	if (s) {
		list_add_tail(&m->cap_node, &ctx->captures);
		__atomic_add_fetch(&acl_captures, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ctx->lock);
	*out = m;
	return 0;
}

int acl_model_sub_new(struct acl_model *parent, struct acl_model **out)
{
	struct acl_model *m;
	int ret = acl_model_new(parent->ctx, NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, &m);

	if (ret)
		return ret;
	pthread_mutex_lock(&m->lock);
	m->built = false;
	m->cap.build = false;
	m->sub = true;
	m->state = ACL_MODEL_IDLE;
	pthread_mutex_unlock(&m->lock);
	acl_obj_add(&m->obj, ACL_OBJ_MODEL, acl_model_release);
	/* the caller's, besides the table's */
	acl_obj_hold(&m->obj);
	*out = m;
	return 0;
}

void *acl_model_cond(struct acl_model *m, void *set)
{
	void *cond;

	pthread_mutex_lock(&m->lock);
	if (!m->cond && set)
		m->cond = set;
	cond = m->cond;
	pthread_mutex_unlock(&m->lock);
	return cond;
}

bool acl_model_capturing(struct acl_model *m)
{
	bool capturing;

	pthread_mutex_lock(&m->lock);
	capturing = m->state == ACL_MODEL_CAPTURING;
	pthread_mutex_unlock(&m->lock);
	return capturing;
}

bool acl_model_built(struct acl_model *m)
{
	return m->built;
}

struct acl_model *acl_model_of_capture(struct acl_capture *cap)
{
	return cap && !cap->build ? container_of(cap, struct acl_model, cap) : NULL;
}

void acl_model_set_cond_ops(const struct acl_model_cond_ops *ops)
{
	__atomic_store_n(&acl_cond_ops, ops, __ATOMIC_RELEASE);
}

static int acl_capture_begin(struct acl_stream *s, aclmdlRICaptureMode mode)
{
	struct acl_model *m = NULL;
	int ret;

	if ((uint32_t)mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
		return acl_errf(ACLI_ERTPARAM, "mode %d is not an aclmdlRICaptureMode (0..2)", (int)mode);
	ret = acl_capture_stream_check(s);
	if (ret)
		return ret;
	ret = acl_model_new(s->ctx, s, mode, &m);
	if (ret)
		return ret;
	ret = acl_stream_capture_begin(s, &m->cap);
	if (ret) {
		acl_model_uncapture(m, ACL_MODEL_INVALID);
		pthread_mutex_lock(&m->ctx->lock);
		list_del(&m->node);
		pthread_mutex_unlock(&m->ctx->lock);
		acl_model_release(&m->obj);
		return ret;
	}
	acl_obj_add(&m->obj, ACL_OBJ_MODEL, acl_model_release);
	return 0;
}

/*
 * The start of CaptureBegin and CaptureEnd: the acl layer's NULL check,
 * the vendor's GLOBAL_STATE_WAIT_IF_LOCKED (not while a snapshot holds the
 * process), the chip, then the stream (a reference).
 */
static int acl_capture_enter(aclrtStream stream, struct acl_stream **s)
{
	int ret = acl_enter(NULL, stream);

	if (!ret)
		acl_snap_gate();
	if (!ret)
		ret = acl_graph_chip();
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, s);
	return ret;
}

ACL_EXPORT aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
	struct acl_stream *s;
	int ret;

	ret = acl_capture_enter(stream, &s);
	if (!ret) {
		ret = acl_capture_begin(s, mode);
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}

/*
 * aclmdlRICaptureToModelRIBegin after the handles: @s records into @m, a
 * condition task's sub-model not captured yet. The vendor's order: the
 * mode, then (StreamBeginCapture) a model captured already (107026: any
 * but a fresh sub-model), then the stream.
 */
static int acl_capture_into(struct acl_stream *s, struct acl_model *m, aclmdlRICaptureMode mode)
{
	struct acl_context *ctx = m->ctx;
	bool idle;
	int ret;

	if ((uint32_t)mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
		return acl_errf(ACLI_ERTPARAM, "mode %d is not an aclmdlRICaptureMode (0..2)", (int)mode);
	if (m->built)
		return acl_errf(ACLI_ERTPARAM, "model %p is one of aclmdlRIBuildBegin, not a condition task's sub-model",
				m);
	ret = acl_model_current(m);
	if (ret)
		return ret;
	pthread_mutex_lock(&m->lock);
	idle = m->sub && m->state == ACL_MODEL_IDLE;
	if (idle)
		m->state = ACL_MODEL_CAPTURING;	/* taken: a second begin finds it captured */
	pthread_mutex_unlock(&m->lock);
	if (!idle)
		return acl_errf(ACLI_EMODELCAPTURED, "model %p is captured already (only a condition task's sub-model, once, is captured into)",
				m);
	ret = acl_capture_stream_check(s);
	if (!ret)
		ret = acl_cond_ops->begin(m->cond);
	if (ret) {
		acl_model_uncapture(m, ACL_MODEL_IDLE);
		return ret;
	}
	m->mode = mode;
	m->thread = pthread_self();
	acl_obj_hold(&s->obj);
	pthread_mutex_lock(&ctx->lock);
	m->stream = s;
	list_add_tail(&m->cap_node, &ctx->captures);
	__atomic_add_fetch(&acl_captures, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->lock);
	ret = acl_stream_capture_begin(s, &m->cap);
	if (ret)
		acl_model_uncapture(m, ACL_MODEL_IDLE);
	return ret;
}

ACL_EXPORT aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI, aclmdlRICaptureMode mode)
{
	struct acl_model *m = NULL;
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, stream, modelRI);
	if (!ret)
		ret = acl_capture_enter(stream, &s);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_model_get(modelRI, &m);
	if (!ret)
		ret = acl_capture_into(s, m, mode);
	if (m)
		acl_model_put(m);
	acl_stream_put(s);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI)
{
	struct acl_capture *cap;
	struct acl_stream *s;
	bool invalid;
	int ret;

	ret = acl_enter(NULL, stream);
	if (!ret && !status && !modelRI)
		ret = acl_errf(-EINVAL, "status and modelRI must not both be NULL");
	if (!ret)
		ret = acl_graph_chip();
	/* any stream, from any thread: no context needed */
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (ret)
		return acl_ret(__func__, ret);
	cap = acl_stream_capture(s, &invalid);
	if (status)
		*status = !cap ? ACL_MODEL_RI_CAPTURE_STATUS_NONE :
			  invalid ? ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED : ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
	if (modelRI)
		*modelRI = cap ? container_of(cap, struct acl_model, cap) : NULL;
	acl_stream_put(s);
	return ACL_SUCCESS;
}

/* MODEL_CREATE of the @n commands @cmds of @m: its kid into *@kid. */
static int acl_model_kcreate(struct acl_model *m, const struct npu_cmd *cmds, uint32_t n, uint32_t *kid)
{
	struct npu_model_create arg = {
		.size = sizeof(arg),
		.count = n,
		.cmd_size = sizeof(*cmds),
		.cmds = (uintptr_t)cmds,
	};
	int ret;

	ret = acl_ioctl(m->ctx->dev->fd, NPU_IOCTL_MODEL_CREATE, &arg);
	if (ret == -ENOSPC)
		return acl_errf(ACLI_ENOMODELRES, "no model left: the context holds the driver's max_models models");
	if (ret == -ENOTTY)
		return acl_errf(ACLI_ERTNOTSUPP, "the npu driver has no models (1.10 or later has)");
	if (ret == -EINVAL)
		return acl_errf(ACLI_ERTPARAM, "the driver refused a captured task of the model (MODEL_CREATE: -EINVAL)");
	if (ret)
		return acl_errf(ret, "the driver did not make the model of %u commands (MODEL_CREATE: %d)", n, ret);
	*kid = arg.model;
	return 0;
}

/*
 * The targets of the label switches among the commands [@first, @end) of
 * @m's recording, one driver model: into @tab (from *@used on), which the
 * switch commands point at until MODEL_CREATE read them. With @pos (tasks
 * left out: the step of command @first + i is @pos[i]), they are steps
 * among the commands kept.
 */
static int acl_model_switches(struct acl_model *m, uint32_t first, uint32_t end, const uint32_t *pos,
			      uint32_t *tab, size_t *used)
{
	struct acl_capture *cap = &m->cap;
	uint32_t i, j;
	int ret = 0;

	for (i = 0; i < cap->nsw && !ret; i++) {
		struct npu_cmd *cmd = &cap->cmds[cap->sw[i].at];

		if (cap->sw[i].at < first || cap->sw[i].at >= end)
			continue;
		ret = acl_label_targets(cap->sw[i].list, cap->serial, first, end, cmd->length, &tab[*used]);
		for (j = 0; pos && !ret && j < cmd->length; j++)
			tab[*used + j] = pos[tab[*used + j]];
		cmd->value = (uintptr_t)&tab[*used];
		*used += cmd->length;
	}
	return ret;
}

/* Destroy the driver models of @p[0..@n) (on a failure: its message stays). */
static void acl_model_parts_undo(struct acl_model *m, struct acl_model_part *p, uint32_t n)
{
	struct acl_err_held held;
	uint32_t i;

	acl_err_hold(&held);
	for (i = 0; i < n; i++) {
		if (p[i].kid)
			acl_model_kdestroy(m->ctx->dev, p[i].kid);
		p[i].kid = 0;
	}
	acl_err_resume(&held);
}

/* The kernel launches among the @count commands @cmds of the driver model of @p. */
static int acl_model_part_kernels(struct acl_model_part *p, const struct npu_cmd *cmds, uint32_t count)
{
	uint32_t j, n = 0;

	p->ks = NULL;
	p->nks = 0;
	for (j = 0; j < count; j++)
		n += cmds[j].op == NPU_OP_KERNEL;
	if (!n)
		return 0;
	p->ks = calloc(n, sizeof(*p->ks));
	if (!p->ks)
		return acl_errf(-ENOMEM, "out of host memory for a model's parts");
	for (j = 0; j < count; j++) {
		const struct acl_kcap *kc = (const struct acl_kcap *)(uintptr_t)cmds[j].src;

		if (cmds[j].op == NPU_OP_KERNEL)
			p->ks[p->nks++] = (struct acl_model_kstep){
				.step = j + 1, .func = kc->func, .args_va = kc->args_va, .args_len = kc->args_len,
			};
	}
	return 0;
}

/*
 * @m's parts from its recording into @p (*@np of them): the commands
 * between two host steps (EXTERNAL event operations, host functions,
 * callbacks) are one driver model each, each host step a part of its own
 * (the recording keeps the event or host function: the part borrows it).
 * With @off (aclmdlRIUpdate) the commands it marks (@off[i] for command
 * i), then the host steps (@off[n + j]), are
 * left out, and a part left without any is off; the parts are the same.
 * What was made is destroyed on a failure.
 */
static int acl_model_parts(struct acl_model *m, const bool *off, struct acl_model_part *p, uint32_t *np)
{
	struct acl_capture *cap = &m->cap;
	struct npu_cmd *kept = NULL;
	uint32_t first = 0, i, j, k, n = 0;
	uint32_t *tab = NULL, *pos = NULL;
	size_t ntab = 0;
	int ret = 0;

	for (i = 0; i < cap->nsw; i++)
		ntab += cap->cmds[cap->sw[i].at].length;
	if (ntab)
		tab = malloc(ntab * sizeof(*tab));
	if (off) {
		kept = malloc((cap->n + 1) * sizeof(*kept));
		pos = malloc((cap->n + 1) * sizeof(*pos));
	}
	if ((ntab && !tab) || (off && (!kept || !pos))) {
		ret = acl_errf(-ENOMEM, "out of host memory for model %p", m);
		goto out;
	}
	ntab = 0;
	for (i = 0; i <= cap->next && !ret; i++) {
		uint32_t end = i < cap->next ? cap->ext[i].at : cap->n;
		const struct npu_cmd *cmds = &cap->cmds[first];
		uint32_t count = end - first;

		if (end > first) {
			for (j = first, k = 0; off && j <= end; j++) {
				pos[j - first] = k;
				k += j < end && !off[j];
			}
			if (off)
				count = pos[end - first];
			ret = acl_model_switches(m, first, end, off ? pos : NULL, tab, &ntab);
			for (j = first, k = 0; off && !ret && j < end; j++)
				if (!off[j])
					kept[k++] = cap->cmds[j];
			if (off)
				cmds = kept;
			p[n].off = !count;
			if (!ret)
				ret = acl_model_part_kernels(&p[n], cmds, count);
			if (!ret && count)
				ret = acl_model_kcreate(m, cmds, count, &p[n].kid);
			n++;
		}
		first = end;
		if (!ret && i < cap->next) {
			p[n].record = cap->ext[i].record;
			p[n].event = cap->ext[i].event;
			p[n].host = cap->ext[i].host;
			p[n++].off = off && off[cap->n + i];
		}
	}
	if (ret) {
		acl_model_parts_undo(m, p, n);
		for (i = 0; i < n; i++) {
			free(p[i].ks);
			p[i].ks = NULL;
		}
	}
	*np = n;
out:
	free(kept);
	free(pos);
	free(tab);
	return ret;
}

/* The answer of a build step that found @m destroyed by another thread. */
static int acl_model_overtaken(struct acl_model *m)
{
	return acl_errf(ACLI_EHANDLE, "model %p was destroyed by another thread meanwhile", m);
}

/*
 * @m's parts from its recording, at its build; the parts hold their
 * events. A teardown that began meanwhile (another thread's
 * aclmdlRIDestroy) has looked at the parts already: the driver models
 * made go here, not with the context (107017).
 */
static int acl_model_build(struct acl_model *m)
{
	struct acl_model_part *p;
	uint32_t i, n = 0;
	bool gone;
	int ret;

	p = calloc(2 * m->cap.next + 1, sizeof(*p));
	if (!p)
		return acl_errf(-ENOMEM, "out of host memory for model %p", m);
	ret = acl_model_parts(m, NULL, p, &n);
	pthread_mutex_lock(&m->lock);
	gone = m->destroyed;
	if (!gone) {
		m->parts = p;
		m->nparts = n;
	}
	pthread_mutex_unlock(&m->lock);
	if (gone) {
		acl_model_parts_undo(m, p, n);
		acl_model_parts_free(p, n);
		return ret ?: acl_model_overtaken(m);
	}
	for (i = 0; i < n; i++)
		if (p[i].event)
			acl_obj_hold(p[i].event);
	return ret;
}

/* model_task.c's hook: aclmdlRIUpdate's new driver models. */
static int acl_model_rebuild(struct acl_model *m, const bool *off)
{
	struct acl_model_part *p;
	uint32_t i, n = 0, nparts;
	bool ready;
	int ret;

	pthread_mutex_lock(&m->lock);
	ready = m->state == ACL_MODEL_READY;
	nparts = m->nparts;
	pthread_mutex_unlock(&m->lock);
	if (!ready)
		return acl_model_overtaken(m);
	p = calloc(nparts + 1, sizeof(*p));
	if (!p)
		return acl_errf(-ENOMEM, "out of host memory for model %p", m);
	ret = acl_model_parts(m, off, p, &n);
	if (!ret) {
		/* the same parts: only their driver models change */
		pthread_mutex_lock(&m->lock);
		if (m->launching) {
			/* a run being queued takes the parts one by one: all old or all new */
			ret = acl_errf(ACLI_EMODELUPDATE, "model %p is being queued to run by another thread: synchronize its streams first",
				       m);
		} else if (m->state != ACL_MODEL_READY || n != m->nparts) {
			ret = acl_model_overtaken(m);
		} else {
			for (i = 0; i < n; i++) {
				struct acl_model_kstep *ks = m->parts[i].ks;
				uint32_t kid = m->parts[i].kid, nks = m->parts[i].nks;

				m->parts[i].kid = p[i].kid;
				m->parts[i].off = p[i].off;
				m->parts[i].ks = p[i].ks;
				m->parts[i].nks = p[i].nks;
				p[i].kid = kid;
				p[i].ks = ks;
				p[i].nks = nks;
			}
		}
		pthread_mutex_unlock(&m->lock);
		/* the old ones go (a queued run finishes with them), or the new ones */
		acl_model_parts_undo(m, p, n);
	}
	acl_model_parts_free(p, n);
	return ret;
}

/* model_task.c's hook: @modelRI's task table, held, or NULL when it has none. */
static int acl_model_table(aclmdlRI modelRI, struct acl_mtab **tab)
{
	struct acl_model *m = NULL;
	int ret = acl_model_get(modelRI, &m);

	if (ret)
		return ret;
	pthread_mutex_lock(&m->lock);
	*tab = m->tasks;
	if (*tab)
		acl_mtab_hold(*tab);
	pthread_mutex_unlock(&m->lock);
	acl_model_put(m);
	return 0;
}

/*
 * @m was made: it runs, and its recording is its task table's; unless a
 * teardown began meanwhile, which did not see the table (107017).
 */
static int acl_model_ready(struct acl_model *m)
{
	struct acl_mtab *tab = acl_mtab_new(m, &m->cap, m->ctx, m->id, m->built);
	bool gone;

	pthread_mutex_lock(&m->lock);
	m->tasks = tab;
	gone = m->destroyed;
	if (!gone)
		m->state = ACL_MODEL_READY;
	pthread_mutex_unlock(&m->lock);
	/* READY: its task groups' updates change the table's recording (none once a teardown closed them) */
	if (!gone) {
		acl_grps_ready(&m->cap, tab, m->sub);
		return 0;
	}
	acl_mtab_close(tab);
	return acl_model_overtaken(m);
}

/*
 * The capture on @s ends: its model into *@out on success; NULL there when
 * the end itself failed (the capture was invalidated, no model was made),
 * as the vendor's end procedure leaves it.
 */
static int acl_capture_end(struct acl_stream *s, aclmdlRI *out)
{
	struct acl_capture *cap;
	struct acl_model *m = NULL;
	int ret;

	ret = acl_capture_stream_check(s);
	if (ret)
		return ret;
	if (acl_stream_capture(s, NULL) && !acl_stream_capture_origin(s))
		return acl_errf(ACLI_ECAPUNMATCHED, "stream %p joined a capture begun on another stream: end it there", s);
	/* taken now: a second end, racing with this one, finds none */
	cap = acl_stream_capture_end(s, NULL);
	if (!cap)
		return acl_errf(ACLI_ENOTCAPTURED, "stream %p is not being captured (aclmdlRICaptureBegin)", s);
	m = container_of(cap, struct acl_model, cap);
	if (m->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && !pthread_equal(m->thread, pthread_self())) {
		/* the vendor's: the stream leaves the capture, the model stays */
		acl_model_uncapture(m, ACL_MODEL_INVALID);
		return acl_errf(ACLI_ECAPTHREAD, "the capture of stream %p was begun by another thread in mode %s (only a RELAXED capture ends on another thread): the stream leaves it, and model %p stays, unusable, until aclmdlRIDestroy",
				s, acl_cap_modes[m->mode], m);
	}
	if (cap->invalid)
		ret = acl_errf(ACLI_ECAPINVALID, "the capture of stream %p was invalidated by a task it could not record (see that task's failure): its model is destroyed",
			       s);
	/* the vendor's CheckCaptureModelValidity: a task group left open (its stream's ends with the capture) */
	else if (__atomic_load_n(&cap->grp_open, __ATOMIC_ACQUIRE))
		ret = acl_errf(ACLI_ETASKGRPSTATUS, "a task group of the capture of stream %p is still open (aclmdlRICaptureTaskGrpEnd): its model is destroyed",
			       s);
	/* the streams that joined leave it, joined back or not */
	else
		ret = acl_capture_close(cap, true);
	/* still CAPTURING for Destroy and ExecuteAsync until the driver has it */
	acl_model_uncapture(m, ACL_MODEL_CAPTURING);
	/* condition tasks inlined; a sub-model's commands are its parent's now */
	if (!ret && m->cond)
		ret = acl_cond_ops->end(m->cond, cap);
	if (!ret && (cap->n || cap->next))
		ret = acl_model_build(m);
	if (!ret)
		ret = acl_model_ready(m);
	if (!ret) {
		*out = m;
		return 0;
	}
	acl_capture_free(cap);
	*out = NULL;
	if (acl_obj_del(&m->obj))
		acl_model_teardown(m);
	return ret;
}

ACL_EXPORT aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
	struct acl_stream *s;
	int ret;

	ret = acl_capture_enter(stream, &s);
	if (ret)
		goto out;
	/* the runtime's check, before anything is done: the capture goes on */
	if (!modelRI)
		ret = acl_errf(ACLI_ERTPARAM, "modelRI must not be NULL");
	else
		ret = acl_capture_end(s, modelRI);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
	struct acl_context *ctx;
	aclmdlRICaptureMode old;
	int ret;

	ret = acl_enter(NULL, mode);
	if (!ret)
		ret = acl_graph_chip();
	if (!ret && (uint32_t)*mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
		ret = acl_errf(ACLI_ERTPARAM, "*mode %d is not an aclmdlRICaptureMode (0..2)", (int)*mode);
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret)
		return acl_ret(__func__, ret);
	acl_ctx_put(ctx);
	old = acl_cap_xmode;
	acl_cap_xmode = *mode;
	*mode = old;
	return ACL_SUCCESS;
}

int acl_capture_mode_check(int err)
{
	aclmdlRICaptureMode xmode = acl_cap_xmode;
	pthread_t self = pthread_self();
	struct acl_context *ctx;
	struct acl_stream *s = NULL;
	aclmdlRICaptureMode mode = 0;
	struct acl_model *m = NULL;
	bool by = false, own = false;

	if (!__atomic_load_n(&acl_captures, __ATOMIC_ACQUIRE) || xmode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
		return 0;
	/* no context: the call fails on its own */
	if (acl_cur_ctx(&ctx)) {
		acl_err_clear();
		return 0;
	}
	pthread_mutex_lock(&ctx->lock);
	list_for_each_entry(m, &ctx->captures, cap_node) {
		own = pthread_equal(m->thread, self);
		if (xmode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ?
		    m->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
		    (own && m->mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL) :
		    own && m->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
			by = true;
			s = m->stream;
			mode = m->mode;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	acl_ctx_put(ctx);
	if (!by)
		return 0;
	return acl_errf(err, "stream %p of the current context is being captured in mode %s%s, which forbids this call to this thread (its capture mode %s: aclmdlRICaptureThreadExchangeMode)",
			s, acl_cap_modes[mode], own ? " by this thread" : "", acl_cap_modes[xmode]);
}

int acl_capture_sync_step(struct acl_stream *s)
{
	int ret;

	if (acl_stream_recording(s))
		return acl_errf(ACLI_ERTPARAM, "stream %p records into a model (captured, or bound to a model being built): this copy or memset (pageable host memory, another device's memory, or host to host) runs synchronously here and cannot be recorded",
				s);
	ret = acl_capture_mode_check(ACLI_ECAPBLOCK);
	return ret ? ret : acl_stream_sync(s, -1);
}

/* One run of @m on @s: its parts in order. */
static int acl_model_run(struct acl_model *m, struct acl_stream *s)
{
	struct npu_cmd cmd = { .op = NPU_OP_MODEL };
	struct acl_model_part part;
	uint32_t i, k, epoch = 0;
	bool looked = false;
	int ret = 0;

	/* until it is listed, a launch holds an update and a destroy's wait back */
	pthread_mutex_lock(&m->lock);
	if (m->state != ACL_MODEL_READY)
		ret = acl_model_overtaken(m);
	else
		m->launching++;
	pthread_mutex_unlock(&m->lock);
	if (ret)
		return ret;
	/* READY: @parts is set for good, their kids and offs change under @lock */
	for (i = 0; !ret && i < m->nparts; i++) {
		pthread_mutex_lock(&m->lock);
		part = m->parts[i];
		pthread_mutex_unlock(&m->lock);
		if (part.off)
			continue;
		if (part.host) {
			ret = acl_host_step_queue(part.host, s);
		} else if (part.event && part.record) {
			ret = acl_event_record_on(part.event, s);
		} else if (part.event) {
			ret = acl_event_wait_on(part.event, s, 0);
		} else {
			uint32_t sid;
			uint64_t seq;

			/* its kernels' binaries in the executor (started again if it died) */
			if (part.nks && !looked) {
				ret = acl_aicore_epoch(s->dev, &epoch);
				looked = true;
			}
			for (k = 0; !ret && k < part.nks; k++)
				ret = acl_kcap_ready(part.ks[k].func, epoch);
			if (ret)
				break;
			cmd.src = part.kid;
			ret = part.kid ? acl_stream_submit_at(s, &cmd, 1, &sid, &seq) : -ENOENT;
			/* a kernel's fault in this run names its launch, as a launch's does */
			for (k = 0; !ret && k < part.nks; k++)
				acl_stream_note_launch(s, sid, seq, part.ks[k].step, part.ks[k].func,
						       part.ks[k].args_va, part.ks[k].args_len);
			/* no update changes the parts while a launch is under way */
			if (ret == -ENOENT)
				ret = acl_model_overtaken(m);
		}
	}
	/* what was queued runs: a destroy, an abort and the task calls know */
	acl_model_note_run(m, s, i);
	return ret;
}

/* @m runs on @s (of its context), if its state lets it. */
static int acl_model_execute(struct acl_model *m, struct acl_stream *s)
{
	enum acl_model_state state;

	pthread_mutex_lock(&m->lock);
	state = m->state;
	pthread_mutex_unlock(&m->lock);
	if (state == ACL_MODEL_CAPTURING)
		return acl_errf(ACLI_EMODELCAPTURED, "model %p is still being captured (aclmdlRICaptureEnd)", m);
	if (state == ACL_MODEL_BUILDING)
		return acl_errf(ACLI_EMODELEXEC, "model %p is still being built (aclmdlRIBuildEnd)", m);
	if (state == ACL_MODEL_INVALID)
		return acl_errf(ACLI_EMODELEXEC, "model %p cannot run: its capture ended on another thread, or its build failed",
				m);
	return acl_model_run(m, s);
}

ACL_EXPORT aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
	struct acl_stream *s;
	struct acl_model *m = NULL;
	int ret;

	ret = acl_enter(NULL, modelRI);
	if (!ret)
		ret = acl_model_get(modelRI, &m);
	if (ret)
		goto out;
	ret = acl_model_not_sub(m, "executed");
	if (ret)
		goto put;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto put;
	/* the vendor's: a model's own stream runs no model */
	if (!acl_stream_capture(s, NULL) && acl_stream_recording(s))
		ret = acl_errf(ACLI_ERTPARAM, "stream %p is bound to a model (aclmdlRIBindStream): it cannot execute one", s);
	if (!ret)
		ret = acl_stream_not_capturing(s, "executing a model on");
	if (!ret && m->ctx != s->ctx)
		ret = acl_errf(ACLI_EMODELCTX, "model %p belongs to another context than stream %p", m, s);
	if (!ret)
		ret = acl_model_execute(m, s);
	acl_stream_put(s);
put:
	acl_model_put(m);
out:
	return acl_ret(__func__, ret);
}

/* @m's internal stream for aclmdlRIExecute, made at the first call; it lives as long as @m. */
static int acl_model_exec_stream(struct acl_model *m, struct acl_stream **out)
{
	int ret = 0;

	pthread_mutex_lock(&m->lock);
	if (!m->exec) {
		ret = acl_stream_new(m->ctx->dev, &m->exec);
		/* not one of the context's streams; its faults are the context's */
		if (!ret)
			m->exec->ctx = m->ctx;
	}
	*out = m->exec;
	pthread_mutex_unlock(&m->lock);
	return ret;
}

ACL_EXPORT aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
	struct acl_stream *s = NULL;
	struct acl_model *m = NULL;
	int ret;

	ret = acl_model_enter(modelRI, &m);
	if (ret)
		goto out;
	if (timeout < -1 || !timeout)
		ret = acl_errf(ACLI_ERTPARAM, "timeout %d must be -1 (no limit) or positive (ms)", timeout);
	else if (!m->built)
		ret = acl_errf(ACLI_ERTPARAM, "model %p is a captured graph: it runs on a stream (aclmdlRIExecuteAsync)", m);
	else
		ret = acl_model_current(m);
	if (!ret)
		ret = acl_model_exec_stream(m, &s);
	if (!ret)
		ret = acl_model_execute(m, s);
	if (!ret)
		ret = acl_stream_sync(s, timeout);
	acl_model_put(m);
out:
	return acl_ret(__func__, ret);
}

/*
 * The start of the build calls on @modelRI: the acl layer's NULL check,
 * then the handle (107017), a model of the build API (107000: a captured
 * graph has no streams to bind), of the current context (107004).
 */
static int acl_build_enter(aclmdlRI modelRI, struct acl_model **out)
{
	int ret = acl_model_enter(modelRI, out);

	if (ret)
		return ret;
	ret = acl_model_of_build(*out);
	if (!ret)
		ret = acl_model_current(*out);
	if (ret)
		acl_model_put(*out);
	return ret;
}

ACL_EXPORT aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
	struct acl_context *ctx;
	struct acl_model *m;
	int ret;

	ret = acl_enter(NULL, modelRI);
	if (!ret && flag)
		ret = acl_errf(ACLI_ERTPARAM, "flag %#x must be 0", flag);
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_model_new(ctx, NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, &m);
	acl_ctx_put(ctx);
	if (!ret) {
		acl_obj_add(&m->obj, ACL_OBJ_MODEL, acl_model_release);
		*modelRI = m;
	}
	return acl_ret(__func__, ret);
}

/*
 * What aclmdlRIBindStream refuses of @s and @m after their handles, in the
 * vendor's order (api_c_model.cc, api_error.cc, api_impl.cc; the stream's
 * context is not checked).
 */
static int acl_bind_check(struct acl_model *m, struct acl_stream *s)
{
	bool capturing = acl_stream_capture(s, NULL);
	int ret;

	if (!(s->flags & ACL_STREAM_PERSISTENT))
		return acl_errf(ACLI_ERTPARAM, "stream %p is not ACL_STREAM_PERSISTENT: only a persistent stream is bound to a model",
				s);
	if (!capturing && acl_stream_recording(s))
		return acl_errf(ACLI_ESTREAMMODEL, "stream %p is bound to a model already", s);
	ret = acl_model_of_build(m);
	if (!ret && capturing)
		ret = acl_errf(ACLI_ESTREAMCAPTURED, "stream %p is being captured", s);
	if (!ret && (s->flags & ACL_STREAM_DEVICE_USE_ONLY))
		ret = acl_errf(ACLI_EINTERNAL, "stream %p is ACL_STREAM_DEVICE_USE_ONLY, which cannot be bound to a model", s);
	if (!ret && s->stop_on_failure)
		ret = acl_errf(ACLI_ERTNOTSUPP, "stream %p is in STOP failure mode, which a model's stream cannot be", s);
	return ret ? ret : acl_model_current(m);
}

/* Is @m still being built (under m->lock)? */
static bool acl_model_building(struct acl_model *m)
{
	bool building;

	pthread_mutex_lock(&m->lock);
	building = m->state == ACL_MODEL_BUILDING;
	pthread_mutex_unlock(&m->lock);
	return building;
}

/* Has @m's teardown begun (under m->lock)? */
static bool acl_model_gone(struct acl_model *m)
{
	bool gone;

	pthread_mutex_lock(&m->lock);
	gone = m->destroyed;
	pthread_mutex_unlock(&m->lock);
	return gone;
}

/*
 * aclmdlRIBindStream's undo: @s (held by the caller) leaves @m if it is
 * still its stream, and records into @m no more in any case (a teardown
 * may have taken it from @m before it began to).
 */
static void acl_model_unclaim(struct acl_model *m, struct acl_stream *s)
{
	bool mine;

	pthread_mutex_lock(&m->ctx->lock);
	mine = m->stream == s;
	if (mine)
		m->stream = NULL;
	pthread_mutex_unlock(&m->ctx->lock);
	acl_stream_capture_end(s, &m->cap);
	if (mine)
		acl_stream_put(s);
}

ACL_EXPORT aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
	struct acl_stream *s = NULL;
	struct acl_model *m = NULL;
	bool taken, building, gone, mine;
	int ret;

	ret = acl_enter(NULL, modelRI);
	if (!ret)
		acl_snap_gate();
	if (!ret && flag != 0 && flag != 0x7FFFFFFFU)
		ret = acl_errf(ACLI_ERTPARAM, "flag %#x must be 0 (the head stream) or 0x7FFFFFFF", flag);
	if (!ret)
		ret = acl_model_get(modelRI, &m);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (!ret)
		ret = acl_bind_check(m, s);
	if (!ret && !acl_model_building(m))
		ret = acl_errf(ACLI_EINTERNAL, "model %p is built already (aclmdlRIBuildEnd): it takes no more streams", m);
	if (ret)
		goto out;
	pthread_mutex_lock(&m->ctx->lock);
	taken = m->stream;
	if (!taken) {
		acl_obj_hold(&s->obj);
		m->stream = s;
	}
	pthread_mutex_unlock(&m->ctx->lock);
	if (taken) {
		ret = acl_errf(ACLI_ERTNOTSUPP, "model %p has a stream bound already: npu's models have one stream", m);
		goto out;
	}
	/*
	 * The check above was before the stream was taken: the model may have
	 * been built (and its stream unbound) or destroyed meanwhile. Its
	 * recording is made anew only while it is still being built; a
	 * BuildEnd that looked at the stream before this does not build it.
	 */
	pthread_mutex_lock(&m->lock);
	building = m->state == ACL_MODEL_BUILDING;
	gone = m->destroyed;
	if (building)
		m->binds++;
	pthread_mutex_unlock(&m->lock);
	if (!building) {
		acl_model_unclaim(m, s);
		ret = gone ? acl_model_overtaken(m) :
		      acl_errf(ACLI_EINTERNAL, "model %p was built meanwhile (aclmdlRIBuildEnd): it takes no more streams", m);
		goto out;
	}
	/* a rebind after an unbind records anew */
	acl_capture_free(&m->cap);
	m->cap.ended = false;
	ret = acl_stream_capture_begin(s, &m->cap);
	if (ret) {
		/* bound or captured meanwhile by another thread */
		if (!acl_stream_capture(s, NULL))
			ret = acl_errf(ACLI_ESTREAMMODEL, "stream %p was bound to another model meanwhile", s);
		acl_model_unclaim(m, s);
	} else {
		/* a teardown or an unbind may have let the stream go before it recorded */
		pthread_mutex_lock(&m->ctx->lock);
		mine = m->stream == s;
		pthread_mutex_unlock(&m->ctx->lock);
		gone = acl_model_gone(m);
		if (gone || !mine) {
			acl_model_unclaim(m, s);
			ret = gone ? acl_model_overtaken(m) :
			      acl_errf(ACLI_ESTREAMMODEL, "stream %p was unbound from model %p by another thread meanwhile", s, m);
		}
	}
out:
	if (s)
		acl_stream_put(s);
	if (m)
		acl_model_put(m);
	return acl_ret(__func__, ret);
}

/*
 * aclmdlRIEndTask (@unbind false): the bound @stream takes no more tasks;
 * aclmdlRIUnbindStream: its tasks run to their end first, as the vendor's
 * unbind waits, then it leaves the model (recorded anew if bound again
 * before aclmdlRIBuildEnd). The vendor's order: both handles, a captured
 * graph (107000), a capturing stream (107027), EndTask's stream of another
 * context (107003), the model's context (107004), then a stream not bound
 * to the model (EndTask 507000, Unbind 107005).
 */
static int acl_bound_op(aclmdlRI modelRI, aclrtStream stream, bool unbind)
{
	struct acl_stream *s = NULL;
	struct acl_model *m = NULL;
	bool bound;
	int ret;

	ret = acl_model_enter(modelRI, &m);
	if (ret)
		return ret;
	ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (!ret)
		ret = acl_model_of_build(m);
	if (!ret)
		ret = acl_stream_not_capturing(s, unbind ? "unbinding a model from" : "ending a model's tasks on");
	if (!ret && !unbind)
		ret = acl_stream_current(s);
	if (!ret)
		ret = acl_model_current(m);
	if (!ret) {
		pthread_mutex_lock(&m->ctx->lock);
		bound = m->stream == s;
		pthread_mutex_unlock(&m->ctx->lock);
		if (!bound)
			ret = acl_errf(unbind ? ACLI_ESTREAMMODEL : ACLI_EINTERNAL,
				       "stream %p is not bound to model %p (aclmdlRIBindStream)", s, m);
	}
	if (!ret)
		ret = unbind ? acl_stream_sync(s, -1) : acl_stream_capture_finish(s, &m->cap);
	if (!ret && unbind)
		acl_model_unbind(m);
	if (s)
		acl_stream_put(s);
	acl_model_put(m);
	return ret;
}

ACL_EXPORT aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
	return acl_ret(__func__, acl_bound_op(modelRI, stream, false));
}

ACL_EXPORT aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
	struct acl_stream *s;
	struct acl_model *m = NULL;
	uint32_t binds;
	bool ended;
	int ret;

	ret = acl_enter(NULL, modelRI);
	if (!ret && reserve)
		ret = acl_errf(-EINVAL, "reserve must be NULL");
	if (!ret)
		ret = acl_build_enter(modelRI, &m);
	if (ret)
		return acl_ret(__func__, ret);
	/* a bind from now on (after an unbind) records anew: not the recording looked at here */
	pthread_mutex_lock(&m->lock);
	binds = m->binds;
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_lock(&m->ctx->lock);
	s = m->stream;
	pthread_mutex_unlock(&m->ctx->lock);
	ended = s && acl_stream_capture_ended(s, &m->cap);
	pthread_mutex_lock(&m->lock);
	if (m->destroyed)
		ret = acl_model_overtaken(m);
	else if (m->state != ACL_MODEL_BUILDING)
		ret = acl_errf(ACLI_EINTERNAL, "model %p is built already", m);
	else if (!s)
		ret = acl_errf(ACLI_ESTREAMMODEL, "model %p has no stream: bind one first (aclmdlRIBindStream)", m);
	else if (!ended || m->binds != binds)
		ret = acl_errf(ACLI_EMODELEXEC, "the tasks of model %p were not ended: call aclmdlRIEndTask on its stream first%s",
			       m, ended ? " (a stream was bound to it anew meanwhile)" : "");
	else
		m->state = ACL_MODEL_INVALID;	/* taken: another BuildEnd finds it built */
	pthread_mutex_unlock(&m->lock);
	if (ret)
		goto put;
	/* the bound stream takes no more (ended): the recording is the model's */
	if (m->cap.n || m->cap.next)
		ret = acl_model_build(m);
	/* a failed build leaves the model unusable, as the vendor's load does */
	if (!ret)
		ret = acl_model_ready(m);
	if (ret)
		acl_capture_free(&m->cap);
put:
	acl_model_put(m);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
	return acl_ret(__func__, acl_bound_op(modelRI, stream, true));
}

ACL_EXPORT aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
	struct acl_model *m = NULL;
	bool capturing;
	int ret;

	ret = acl_model_enter(modelRI, &m);
	if (ret)
		goto out;
	ret = acl_model_not_sub(m, "destroyed");
	if (!ret)
		ret = acl_model_current(m);
	if (ret)
		goto put;
	pthread_mutex_lock(&m->lock);
	capturing = m->state == ACL_MODEL_CAPTURING;
	pthread_mutex_unlock(&m->lock);
	if (capturing)
		ret = acl_errf(ACLI_EMODELCAPTURED, "model %p is still being captured: end the capture first (aclmdlRICaptureEnd)",
			       m);
	/* its destroy waits for its runs (their memory goes with it): not in a callback, which they may wait for */
	else if (acl_model_owns_dmem(m) && acl_model_runs_here(m))
		ret = acl_errf(ACLI_EMODELRUNNING, "model %p has condition tasks or kernel launches and a run of it is not done: the destroy would wait for that run from a host function or callback, which the run may wait for (its own steps, or host steps behind it on the same thread); the model stays (destroy it after the run)",
			       m);
	else if (!acl_obj_del(&m->obj))
		ret = acl_errf(ACLI_EHANDLE, "model %p is being destroyed by another thread", m);
	else
		ret = acl_model_teardown(m);
put:
	acl_model_put(m);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRISetName(aclmdlRI modelRI, const char *name)
{
	struct acl_model *m = NULL;
	char *copy, *old;
	int ret;

	ret = acl_enter(NULL, modelRI, name);
	if (!ret)
		ret = acl_model_get(modelRI, &m);
	if (ret)
		return acl_ret(__func__, ret);
	copy = strdup(name);
	if (copy) {
		pthread_mutex_lock(&m->lock);
		old = m->name;
		m->name = copy;
		pthread_mutex_unlock(&m->lock);
		free(old);
	} else {
		ret = acl_errf(-ENOMEM, "out of host memory");
	}
	acl_model_put(m);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name)
{
	struct acl_model *m = NULL;
	size_t len;
	int ret;

	ret = acl_enter(NULL, modelRI, name);
	if (!ret)
		ret = acl_model_get(modelRI, &m);
	if (ret)
		return acl_ret(__func__, ret);
	if (!maxLen) {
		ret = acl_errf(ACLI_ERTPARAM, "maxLen must be non-zero");
	} else {
		pthread_mutex_lock(&m->lock);
		len = m->name ? strlen(m->name) : 0;
		/* the vendor's memcpy_s fails on a short buffer: no truncation */
		if (len >= maxLen)
			ret = acl_errf(ACLI_EINTERNAL, "the name of model %p has %zu bytes with its NUL, more than maxLen %u",
				       m, len + 1, maxLen);
		else
			memcpy(name, m->name ? m->name : "", len + 1);
		pthread_mutex_unlock(&m->lock);
	}
	acl_model_put(m);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId)
{
	struct acl_model *m = NULL;
	int ret;

	ret = acl_enter(NULL, modelRI, modelRIId);
	if (!ret)
		ret = acl_model_get(modelRI, &m);
	if (ret)
		return acl_ret(__func__, ret);
	*modelRIId = m->id;
	acl_model_put(m);
	return ACL_SUCCESS;
}

/*
 * The start of the destroy-callback calls: no acl-layer check; the
 * handle (107017), then NULL model or function (the runtime's 107000).
 */
static int acl_model_cb_enter(aclmdlRI modelRI, aclrtCallback func, struct acl_model **out)
{
	int ret = acl_check_init();

	if (!ret && modelRI)
		ret = acl_model_get(modelRI, out);
	if (ret)
		return ret;
	if (!modelRI)
		return acl_errf(ACLI_ERTPARAM, "modelRI must not be NULL");
	ret = acl_model_not_sub(*out, "given destroy callbacks");
	if (!ret && !func)
		ret = acl_errf(ACLI_ERTPARAM, "func must not be NULL");
	if (ret)
		acl_model_put(*out);
	return ret;
}

/* The slot of @fn in @m's callbacks, or where it would go (m->lock held). */
static unsigned int acl_model_cb_find(const struct acl_model *m, aclrtCallback fn, bool *found)
{
	unsigned int i;

	for (i = 0; i < m->ncbs && (uintptr_t)m->cbs[i].fn < (uintptr_t)fn; i++)
		;
	*found = i < m->ncbs && m->cbs[i].fn == fn;
	return i;
}

ACL_EXPORT aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func, void *userData)
{
	struct acl_model_cb *v;
	struct acl_model *m = NULL;
	unsigned int i;
	bool found;
	int ret;

	ret = acl_model_cb_enter(modelRI, func, &m);
	if (ret)
		return acl_ret(__func__, ret);
	pthread_mutex_lock(&m->lock);
	i = acl_model_cb_find(m, func, &found);
	if (found) {
		ret = acl_errf(ACLI_ERTPARAM, "func %p is registered for model %p already", (void *)(uintptr_t)func, m);
	} else if (m->ncbs == m->cbs_cap) {
		v = realloc(m->cbs, (m->cbs_cap ? 2 * m->cbs_cap : 4) * sizeof(*v));
		if (v) {
			m->cbs = v;
			m->cbs_cap = m->cbs_cap ? 2 * m->cbs_cap : 4;
		} else {
			ret = acl_errf(-ENOMEM, "out of host memory");
		}
	}
	if (!ret) {
		memmove(&m->cbs[i + 1], &m->cbs[i], (m->ncbs - i) * sizeof(*m->cbs));
		m->cbs[i] = (struct acl_model_cb){ .fn = func, .data = userData };
		m->ncbs++;
	}
	pthread_mutex_unlock(&m->lock);
	acl_model_put(m);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func)
{
	struct acl_model *m = NULL;
	unsigned int i;
	bool found;
	int ret;

	ret = acl_model_cb_enter(modelRI, func, &m);
	if (ret)
		return acl_ret(__func__, ret);
	pthread_mutex_lock(&m->lock);
	i = acl_model_cb_find(m, func, &found);
	if (found) {
		memmove(&m->cbs[i], &m->cbs[i + 1], (m->ncbs - i - 1) * sizeof(*m->cbs));
		m->ncbs--;
	} else {
		ret = acl_errf(ACLI_ERTPARAM, "func %p is not registered for model %p", (void *)(uintptr_t)func, m);
	}
	pthread_mutex_unlock(&m->lock);
	acl_model_put(m);
	return acl_ret(__func__, ret);
}

/*
 * aclmdlRIAbort: the runs of @modelRI queued or running now stop. npu's
 * device stops a model's run only with its stream: each stream a run of
 * it is queued on and has not reached that run's end is aborted as
 * aclrtStreamAbort does - what
 * else was queued on it goes too - and the internal stream of
 * aclmdlRIExecute with it. The vendor's order: the handle (NULL: 107000),
 * a sub-model (207000), the context (107004).
 */
ACL_EXPORT aclError aclmdlRIAbort(aclmdlRI modelRI)
{
	struct acl_model_run_ref *runs = NULL;
	struct acl_stream *exec = NULL;
	struct acl_model *m = NULL;
	unsigned int i, n = 0;
	int ret, err;

	ret = acl_check_init();
	if (!ret) {
		acl_snap_gate();
		ret = modelRI ? acl_model_get(modelRI, &m) : acl_errf(ACLI_ERTPARAM, "modelRI must not be NULL");
	}
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_model_not_sub(m, "aborted");
	if (!ret)
		ret = acl_model_current(m);
	if (ret)
		goto put;
	runs = acl_model_runs(m, &n);
	pthread_mutex_lock(&m->lock);
	exec = m->exec;
	pthread_mutex_unlock(&m->lock);
	for (i = 0; i < n; i++) {
		struct acl_stream *s = runs[i].s;

		if (s != exec && acl_stream_id(s) == runs[i].sid &&
		    !acl_stream_reached(s, runs[i].sid, runs[i].seq)) {
			err = acl_stream_abort(s);
			ret = ret ?: err;
		}
		acl_stream_put(s);
	}
	free(runs);
	/* an aclmdlRIExecute under way holds a reference: the stream stays */
	if (exec) {
		err = acl_stream_abort(exec);
		ret = ret ?: err;
	}
put:
	acl_model_put(m);
	return acl_ret(__func__, ret);
}
