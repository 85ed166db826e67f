// SPDX-License-Identifier: MIT
/*
 * Callbacks: per-stream queues and watchers, report threads (user-owned,
 * aclrtSubscribeReport + aclrtProcessReport) and host-function threads
 * (aclrtLaunchHostFunc: runtime-owned, one per context, unless the
 * application subscribed its own with aclrtSubscribeHostFunc and runs
 * them in aclrtProcessHostFunc).
 *
 * Locking: a stream's s->lock orders the callback's place among its
 * commands (the seqno before it and its gate are taken together); then
 * q->lock (the stream's queue), then r->lock (a runner's ready list);
 * acl_reporters_lock guards the table of report threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "callback.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "slots.h"
#include "stream.h"

/*
 * A thread that runs callbacks: subscribed by the application, or ours.
 * An application thread has one of each kind: its aclrtProcessReport
 * runs the callbacks of the streams it subscribed with
 * aclrtSubscribeReport, its aclrtProcessHostFunc the host functions of
 * those of aclrtSubscribeHostFunc.
 */
struct acl_reporter {
	struct list_head node;		/* in acl_reporters (user threads); under its lock */
	pthread_t tid;			/* constant */
	bool owned;			/* our host-function thread; constant */
	bool hostfunc;			/* runs host functions (owned ones too); constant */
	unsigned int refs;		/* under acl_reporters_lock (owned: one, the context's) */
	pthread_mutex_t lock;		/* protects the fields below */
	pthread_cond_t cond;		/* @ready grew, or @stop */
	struct list_head ready;		/* acl_cb.node: reached, to run in order */
	struct acl_device *dev;		/* device of the streams it serves, or NULL */
	unsigned int nstreams;		/* streams subscribed to it */
	bool stop;			/* owned thread: exit */
};

/* What a callback is: aclrtLaunchCallback's or aclrtLaunchHostFunc's. */
enum acl_cb_kind { ACL_CB_REPORT, ACL_CB_HOSTFUNC, ACL_CB_KINDS };

/* A stream's callbacks. */
struct acl_cbq {
	pthread_mutex_t lock;		/* protects the fields below */
	pthread_cond_t cond;		/* @pending changed, or @stop */
	struct list_head pending;	/* acl_cb.node: queued, not yet reached */
	/*
	 * Who runs them (each a reference), or NULL: callbacks a report
	 * thread (aclrtSubscribeReport), host functions an application's
	 * thread (aclrtSubscribeHostFunc) or the context's own.
	 */
	struct acl_reporter *rep[ACL_CB_KINDS];
	struct acl_stream *gate;	/* private stream the gates wait on */
	uint64_t gates;			/* gates queued so far (under the stream's lock) */
	uint32_t slot;			/* scratch word the releases write */
	uint64_t *word;
	unsigned int gen;		/* the device's gen when the word was taken */
	pthread_t watcher;
	bool watching;			/* @watcher runs */
	bool stop;			/* the stream is going: the watcher ends when @pending is empty */
	bool drop;			/* ... discarding what is pending (forced destroy) */
};

struct acl_cb {
	struct list_head node;
	aclrtCallback fn;
	void *arg;
	bool block;
	enum acl_cb_kind kind;		/* whose runner takes it */
	struct acl_stream *s;		/* holds a reference */
	struct acl_reporter *rep;	/* a model's step: its runner (held), else NULL: the queue's */
	uint32_t sid;			/* kernel stream it was queued on */
	uint64_t prior;			/* seqno of the command before it */
};

static pthread_mutex_t acl_reporters_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head acl_reporters = LIST_HEAD_INIT(acl_reporters);

/* The stream whose callback or host function the calling thread runs now, or NULL. */
static __thread const struct acl_stream *acl_cb_stream;

bool acl_cb_in_callback(void)
{
	return acl_cb_stream != NULL;
}

struct acl_stream *acl_cb_current(void)
{
	return (struct acl_stream *)acl_cb_stream;
}

static struct acl_reporter *acl_reporter_new(pthread_t tid, bool owned, bool hostfunc)
{
	struct acl_reporter *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->tid = tid;
	r->owned = owned;
	r->hostfunc = hostfunc;
	r->refs = 1;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	list_init(&r->ready);
	list_init(&r->node);
	return r;
}

static void acl_reporter_free(struct acl_reporter *r)
{
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	free(r);
}

/* The user thread @tid as a runner of @hostfunc's kind, with a reference; made if @create. */
static struct acl_reporter *acl_reporter_find(pthread_t tid, bool hostfunc, bool create)
{
	struct acl_reporter *r;

	pthread_mutex_lock(&acl_reporters_lock);
	list_for_each_entry(r, &acl_reporters, node) {
		if (pthread_equal(r->tid, tid) && r->hostfunc == hostfunc) {
			r->refs++;
			goto out;
		}
	}
	r = create ? acl_reporter_new(tid, false, hostfunc) : NULL;
	if (r) {
		list_add_tail(&r->node, &acl_reporters);
		r->refs++;	/* the table's */
	}
out:
	pthread_mutex_unlock(&acl_reporters_lock);
	return r;
}

/* Drop a reference; a user thread serving nothing leaves the table. */
static void acl_reporter_put(struct acl_reporter *r)
{
	bool free_it;

	if (!r)
		return;
	pthread_mutex_lock(&acl_reporters_lock);
	if (!r->owned && r->refs == 2 && !list_empty(&r->node)) {
		pthread_mutex_lock(&r->lock);
		if (!r->nstreams && list_empty(&r->ready)) {
			list_del(&r->node);
			list_init(&r->node);
			r->refs--;
		}
		pthread_mutex_unlock(&r->lock);
	}
	free_it = !--r->refs;
	pthread_mutex_unlock(&acl_reporters_lock);
	if (free_it)
		acl_reporter_free(r);
}

/* Another reference to @r (the table's or a queue's keeps it alive meanwhile). */
static struct acl_reporter *acl_reporter_hold(struct acl_reporter *r)
{
	pthread_mutex_lock(&acl_reporters_lock);
	r->refs++;
	pthread_mutex_unlock(&acl_reporters_lock);
	return r;
}

/* Let the stream pass the gate of a blocking callback. */
static void acl_cb_release(struct acl_cbq *q)
{
	struct npu_cmd cmd = {
		.op = NPU_OP_WRITE_VALUE,
		.flags = NPU_CMD_DST_HOST,
		.dst = (uintptr_t)q->word,
	};

	/* a gate stream already gone (stream destroyed) needs no release */
	if (acl_stream_submit(q->gate, &cmd, 1, NULL))
		acl_err_clear();
}

static void acl_cb_free(struct acl_cb *cb)
{
	acl_reporter_put(cb->rep);
	acl_stream_put(cb->s);
	free(cb);
}

/* Run what is ready on @r, in order; 0 if something ran. */
static int acl_reporter_run(struct acl_reporter *r, int32_t timeout_ms)
{
	const struct acl_stream *prev;
	struct list_head todo;
	struct timespec ts;
	struct acl_cb *cb, *n;
	int err = 0;

	if (timeout_ms > 0) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += timeout_ms / 1000;
		ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
	}
	pthread_mutex_lock(&r->lock);
	while (list_empty(&r->ready) && !r->stop && err != ETIMEDOUT)
		err = timeout_ms < 0 ? pthread_cond_wait(&r->cond, &r->lock) :
				       pthread_cond_timedwait(&r->cond, &r->lock, &ts);
	/* take the whole list: callbacks may queue more while they run */
	list_init(&todo);
	if (!list_empty(&r->ready)) {
		todo = r->ready;
		todo.next->prev = &todo;
		todo.prev->next = &todo;
		list_init(&r->ready);
	}
	pthread_mutex_unlock(&r->lock);
	if (list_empty(&todo))
		return -ETIMEDOUT;
	list_for_each_entry_safe(cb, n, &todo, node) {
		list_del(&cb->node);
		prev = acl_cb_stream;
		acl_cb_stream = cb->s;
		cb->fn(cb->arg);
		acl_cb_stream = prev;
		if (cb->block)
			acl_cb_release(cb->s->cbq);
		acl_cb_free(cb);
	}
	return 0;
}

static void *acl_hostfunc_main(void *arg)
{
	struct acl_reporter *r = arg;
	bool stop;

	do {
		acl_reporter_run(r, -1);
		pthread_mutex_lock(&r->lock);
		stop = r->stop && list_empty(&r->ready);
		pthread_mutex_unlock(&r->lock);
	} while (!stop);
	return NULL;
}

void acl_reporter_stop(struct acl_reporter *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->tid, NULL);
	acl_reporter_free(r);
}

void acl_reporter_forget(struct acl_reporter *r)
{
	if (r)
		free(r);
}

/*
 * Hand a reached callback to its runner; q->lock held, in the section
 * that took it off @pending, so that an unsubscribe waiting for @pending
 * to empty finds it delivered. False: no runner any more.
 */
static bool acl_cb_deliver_locked(struct acl_cbq *q, struct acl_cb *cb)
{
	struct acl_reporter *r = cb->rep ?: q->rep[cb->kind];

	if (!r)
		return false;
	pthread_mutex_lock(&r->lock);
	list_add_tail(&cb->node, &r->ready);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return true;
}

static void *acl_cbq_main(void *arg)
{
	struct acl_stream *s = arg;
	struct acl_cbq *q = s->cbq;
	struct acl_cb *cb;
	bool delivered;
	int ret;

	for (;;) {
		pthread_mutex_lock(&q->lock);
		while (list_empty(&q->pending) && !q->stop)
			pthread_cond_wait(&q->cond, &q->lock);
		if (list_empty(&q->pending)) {
			pthread_mutex_unlock(&q->lock);
			break;
		}
		cb = list_entry(q->pending.next, struct acl_cb, node);
		pthread_mutex_unlock(&q->lock);

		ret = acl_stream_reach(s, cb->sid, cb->prior, -1);

		pthread_mutex_lock(&q->lock);
		list_del(&cb->node);
		/* aborted or force-destroyed before it got there: discarded */
		delivered = !ret && acl_stream_id(s) == cb->sid && !q->drop &&
			    acl_cb_deliver_locked(q, cb);
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
		if (!delivered) {
			if (cb->block)
				acl_cb_release(q);
			acl_cb_free(cb);
		}
	}
	return NULL;
}

/* @s's callback queue, made on first use (gate stream, scratch word). */
static int acl_cbq_get(struct acl_stream *s, struct acl_cbq **out)
{
	struct acl_cbq *q;
	bool dead;
	int ret;

	pthread_mutex_lock(&s->lock);
	q = s->cbq;
	dead = s->dead;
	pthread_mutex_unlock(&s->lock);
	if (dead)
		return acl_errf(ACLI_EHANDLE, "the stream is being destroyed");
	if (q)
		goto out;
	q = calloc(1, sizeof(*q));
	if (!q)
		return acl_errf(-ENOMEM, "out of host memory");
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	list_init(&q->pending);
	q->gen = __atomic_load_n(&s->dev->gen, __ATOMIC_ACQUIRE);
	ret = acl_slot_alloc(s->dev, &s->dev->slots, &q->slot, &q->word);
	if (ret) {
		free(q);
		return ret == -ENOSPC ? acl_errf(ACLI_ENOEVENTRES, "no device word left for a callback gate") : ret;
	}
	ret = acl_stream_new(s->dev, &q->gate);
	if (ret)
		goto err;
	pthread_mutex_lock(&s->lock);
	if (!s->cbq && !s->dead) {
		s->cbq = q;
		q = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	if (q) {
		/* another thread made one first */
		acl_stream_kill(q->gate, false);
		acl_stream_free(q->gate);
		goto err;
	}
	q = s->cbq;
out:
	*out = q;
	return 0;
err:
	acl_slot_free(s->dev, &s->dev->slots, q->gen, q->slot);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q);
	if (ret)
		return ret;
	*out = s->cbq;
	return 0;
}

/* The watcher runs while the stream has callbacks; start it once. */
static int acl_cbq_watch_locked(struct acl_stream *s, struct acl_cbq *q)
{
	int ret;

	if (q->watching)
		return 0;
	ret = pthread_create(&q->watcher, NULL, acl_cbq_main, s);
	if (ret)
		return acl_errf(-ret, "cannot start the callback thread of the stream");
	q->watching = true;
	return 0;
}

/*
 * Queue @fn in @s's order; the caller checked the subscription, or named
 * the runner @rep (held from now on by the callback), else NULL.
 */
static int acl_cb_queue(struct acl_stream *s, struct acl_cbq *q, aclrtCallback fn, void *arg,
			bool block, enum acl_cb_kind kind, struct acl_reporter *rep)
{
	struct npu_cmd gate = { .op = NPU_OP_WAIT_STREAM };
	struct acl_cb *cb;
	int ret;

	cb = calloc(1, sizeof(*cb));
	if (!cb) {
		acl_reporter_put(rep);
		return acl_errf(-ENOMEM, "out of host memory");
	}
	cb->fn = fn;
	cb->arg = arg;
	cb->block = block;
	cb->kind = kind;
	cb->rep = rep;
	cb->s = s;
	acl_obj_hold(&s->obj);

	pthread_mutex_lock(&s->lock);
	cb->sid = s->id;
	cb->prior = s->last_seq;
	if (block) {
		/* passes once the runner wrote the release for this gate */
		gate.src = q->gate->id;
		gate.value = q->gates + 1;
		ret = acl_stream_submit_locked(s, &gate, 1, NULL);
		if (ret)
			goto unlock;
		q->gates++;
	}
	pthread_mutex_lock(&q->lock);
	ret = q->stop ? acl_errf(ACLI_EHANDLE, "the stream is being destroyed") :
			acl_cbq_watch_locked(s, q);
	if (!ret) {
		list_add_tail(&cb->node, &q->pending);
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	if (ret && block) {
		/* the gate is queued: let it pass */
		acl_cb_release(q);
	}
unlock:
	pthread_mutex_unlock(&s->lock);
	if (ret)
		acl_cb_free(cb);
	return ret;
}

void acl_cbq_drain(struct acl_stream *s)
{
	struct acl_cbq *q;

	pthread_mutex_lock(&s->lock);
	q = s->cbq;
	pthread_mutex_unlock(&s->lock);
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	while (!list_empty(&q->pending) && q->watching)
		pthread_cond_wait(&q->cond, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

void acl_reporters_forget(void)
{
	pthread_mutex_init(&acl_reporters_lock, NULL);
	list_init(&acl_reporters);
}

void acl_cbq_drop(struct acl_stream *s)
{
	struct acl_cbq *q = s->cbq;

	if (q)
		__atomic_store_n(&q->drop, true, __ATOMIC_RELEASE);
}

/* @r, an application's thread, serves one stream less. */
static void acl_reporter_unbind(struct acl_reporter *r)
{
	pthread_mutex_lock(&r->lock);
	if (!--r->nstreams)
		r->dev = NULL;
	pthread_mutex_unlock(&r->lock);
	acl_reporter_put(r);
}

void acl_cbq_stop(struct acl_stream *s)
{
	struct acl_cbq *q = s->cbq;
	struct acl_reporter *r;
	bool joined;
	int k;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_broadcast(&q->cond);
	joined = q->watching;
	q->watching = false;
	pthread_mutex_unlock(&q->lock);
	if (joined)
		pthread_join(q->watcher, NULL);
	/* releases of callbacks still to run find no stream: fine */
	acl_stream_kill(q->gate, true);
	acl_err_clear();
	for (k = 0; k < ACL_CB_KINDS; k++) {
		pthread_mutex_lock(&q->lock);
		r = q->rep[k];
		q->rep[k] = NULL;
		pthread_mutex_unlock(&q->lock);
		if (r && !r->owned)
			acl_reporter_unbind(r);
	}
}

void acl_cbq_free(struct acl_cbq *q)
{
	if (!q)
		return;
	acl_slot_free(q->gate->dev, &q->gate->dev->slots, q->gen, q->slot);
	acl_stream_free(q->gate);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q);
}

void acl_cbq_forget(struct acl_cbq *q)
{
	if (!q)
		return;
	acl_stream_free(q->gate);
	free(q);
}

/*
 * Bind @s to the application's thread @threadId: its callbacks, or with
 * @hostfunc its host functions. A stream has a runner of each kind at most.
 */
static int acl_subscribe(uint64_t threadId, struct acl_stream *s, bool hostfunc)
{
	enum acl_cb_kind kind = hostfunc ? ACL_CB_HOSTFUNC : ACL_CB_REPORT;
	struct acl_reporter *r;
	struct acl_cbq *q;
	int ret;

	ret = acl_cbq_get(s, &q);
	if (ret)
		return ret;
	r = acl_reporter_find((pthread_t)threadId, hostfunc, true);
	if (!r)
		return acl_errf(-ENOMEM, "out of host memory");
	pthread_mutex_lock(&q->lock);
	pthread_mutex_lock(&r->lock);
	/* the context's own thread took the host functions: no runner of either kind joins */
	if (q->rep[ACL_CB_HOSTFUNC] && q->rep[ACL_CB_HOSTFUNC]->owned)
		ret = acl_errf(ACLI_ESTREAMSUB, "the stream's host functions run on the context's thread (aclrtLaunchHostFunc)");
	else if (q->rep[kind])
		ret = acl_errf(ACLI_ESTREAMSUB, "the stream is already subscribed to a thread%s",
			       hostfunc ? " for host functions (aclrtSubscribeHostFunc)" : " (aclrtSubscribeReport)");
	/* a report thread serves one device (CANN); host functions have no such rule */
	else if (!hostfunc && r->dev && r->dev != s->dev)
		ret = acl_errf(ACLI_ETHREADSUB, "thread %#llx already serves streams of device %d",
			       (unsigned long long)threadId, r->dev->id);
	if (!ret) {
		r->dev = s->dev;
		r->nstreams++;
		q->rep[kind] = r;
	}
	pthread_mutex_unlock(&r->lock);
	pthread_mutex_unlock(&q->lock);
	/* on success the queue keeps the reference */
	if (ret)
		acl_reporter_put(r);
	return ret;
}

/*
 * Unbind @s from @threadId once its queued callbacks were handed over.
 * Mismatches are CANN's: for report threads 107011 (stream) or 107012
 * (thread), for host functions (its compact runtime) 107011 either way.
 */
static int acl_unsubscribe(uint64_t threadId, struct acl_stream *s, bool hostfunc)
{
	enum acl_cb_kind kind = hostfunc ? ACL_CB_HOSTFUNC : ACL_CB_REPORT;
	struct acl_reporter *r = NULL;
	struct acl_cbq *q;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	q = s->cbq;
	pthread_mutex_unlock(&s->lock);
	if (!q)
		return acl_errf(ACLI_ESTREAMSUB, "the stream is not subscribed");
	pthread_mutex_lock(&q->lock);
	if (!q->rep[kind] || q->rep[kind]->owned)
		ret = acl_errf(ACLI_ESTREAMSUB, "the stream is not subscribed to a thread %s",
			       hostfunc ? "for host functions (aclrtSubscribeHostFunc)" : "for reports (aclrtSubscribeReport)");
	else if (!pthread_equal(q->rep[kind]->tid, (pthread_t)threadId))
		ret = acl_errf(hostfunc ? ACLI_ESTREAMSUB : ACLI_ETHREADSUB,
			       "the stream is subscribed to another thread");
	/* callbacks already queued are delivered first */
	while (!ret && !list_empty(&q->pending))
		pthread_cond_wait(&q->cond, &q->lock);
	if (!ret) {
		r = q->rep[kind];
		q->rep[kind] = NULL;
	}
	pthread_mutex_unlock(&q->lock);
	if (r)
		acl_reporter_unbind(r);
	return ret;
}

/* The calling thread runs what is ready for it as a runner of @hostfunc's kind. */
static int acl_process(int32_t timeout, bool hostfunc)
{
	const char *sub = hostfunc ? "aclrtSubscribeHostFunc" : "aclrtSubscribeReport";
	struct acl_reporter *r;
	int ret = 0;

	r = acl_reporter_find(pthread_self(), hostfunc, false);
	if (r) {
		pthread_mutex_lock(&r->lock);
		if (!r->nstreams && list_empty(&r->ready))
			ret = acl_errf(ACLI_ETHREADSUB, "the calling thread serves no stream any more (%s)", sub);
		pthread_mutex_unlock(&r->lock);
	} else {
		ret = acl_errf(ACLI_ETHREADSUB, "the calling thread is not subscribed (%s)", sub);
	}
	if (!ret && acl_reporter_run(r, timeout))
		ret = acl_errf(ACLI_EREPORTTIMEOUT, "no %s arrived within %d ms",
			       hostfunc ? "host function" : "callback", timeout);
	acl_reporter_put(r);
	return ret;
}

ACL_EXPORT aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_USE, &s);
	if (ret)
		goto out;
	ret = acl_subscribe(threadId, s, false);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_USE, &s);
	if (ret)
		goto out;
	ret = acl_unsubscribe(threadId, s, false);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtProcessReport(int32_t timeout)
{
	int ret;

	ret = acl_check_init();
	if (!ret && (timeout == 0 || timeout < -1))
		ret = acl_errf(-EINVAL, "timeout %d must be -1 (forever) or > 0 milliseconds", timeout);
	if (!ret)
		ret = acl_process(timeout, false);
	return acl_ret(__func__, ret);
}

/* CANN's compact runtime: a NULL stream is no stream here, not the default one. */
static int acl_hostfunc_stream(aclrtStream stream, struct acl_stream **out)
{
	int ret = acl_check_init();

	if (!ret && !stream)
		ret = acl_errf(ACLI_ERTPARAM, "exeStream must not be NULL");
	return ret ? ret : acl_stream_resolve(stream, ACL_STREAM_USE, out);
}

ACL_EXPORT aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_hostfunc_stream(exeStream, &s);
	if (ret)
		goto out;
	ret = acl_subscribe(hostFuncThreadId, s, true);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_hostfunc_stream(exeStream, &s);
	if (ret)
		goto out;
	ret = acl_unsubscribe(hostFuncThreadId, s, true);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtProcessHostFunc(int32_t timeout)
{
	int ret;

	ret = acl_check_init();
	/* the compact runtime's own check: a runtime code, unlike aclrtProcessReport's */
	if (!ret && (timeout == 0 || timeout < -1))
		ret = acl_errf(ACLI_ERTPARAM, "timeout %d must be -1 (forever) or > 0 milliseconds", timeout);
	if (!ret)
		ret = acl_process(timeout, true);
	return acl_ret(__func__, ret);
}

/*
 * A callback or host function recorded in a model (model.c runs it at
 * each run of the model, in its place among the model's parts).
 */
struct acl_host_step {
	aclrtCallback fn;
	void *arg;
	void (*release)(void *arg);	/* the library's own step: frees @arg with the step */
	bool block;
	enum acl_cb_kind kind;
	struct acl_reporter *rep;	/* its runner, held; NULL: the context's host-function thread */
};

/*
 * @fn on the recording stream @s, checked as a launch: a step of the
 * model, run by the thread that runs @s's callbacks of @kind now (the
 * vendor's capture subscribes its capture stream to that thread).
 */
static int acl_cb_record(struct acl_stream *s, struct acl_cbq *q, aclrtCallback fn, void *arg, bool block,
			 enum acl_cb_kind kind)
{
	struct acl_host_step *h = calloc(1, sizeof(*h));
	struct acl_reporter *r;

	if (!h)
		return acl_errf(-ENOMEM, "out of host memory");
	*h = (struct acl_host_step){ .fn = fn, .arg = arg, .block = block, .kind = kind };
	pthread_mutex_lock(&q->lock);
	r = q->rep[kind];
	if (r && !r->owned)
		h->rep = acl_reporter_hold(r);
	pthread_mutex_unlock(&q->lock);
	return acl_stream_capture_host(s, h);
}

int acl_host_step_record(struct acl_stream *s, aclrtCallback fn, void *arg, void (*release)(void *arg))
{
	struct acl_host_step *h = calloc(1, sizeof(*h));

	if (!h) {
		release(arg);
		return acl_errf(-ENOMEM, "out of host memory");
	}
	*h = (struct acl_host_step){
		.fn = fn, .arg = arg, .release = release, .block = true, .kind = ACL_CB_HOSTFUNC,
	};
	return acl_stream_capture_host(s, h);
}

static int acl_hostfunc_reporter(struct acl_context *ctx, struct acl_reporter **out);

int acl_host_step_queue(const struct acl_host_step *h, struct acl_stream *s)
{
	struct acl_reporter *r = h->rep;
	struct acl_cbq *q;
	int ret;

	ret = acl_cbq_get(s, &q);
	if (!ret && !r)
		ret = acl_hostfunc_reporter(s->ctx, &r);
	if (ret)
		return ret;
	return acl_cb_queue(s, q, h->fn, h->arg, h->block, h->kind, acl_reporter_hold(r));
}

void acl_host_step_free(struct acl_host_step *h, bool forget)
{
	if (!h)
		return;
	if (!forget)
		acl_reporter_put(h->rep);
	if (h->release)
		h->release(h->arg);
	free(h);
}

ACL_EXPORT aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
					aclrtStream stream)
{
	struct acl_stream *s;
	struct acl_cbq *q;
	bool ok, hostfunc;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK) {
		ret = acl_errf(-EINVAL, "blockType %d must be ACL_CALLBACK_NO_BLOCK or ACL_CALLBACK_BLOCK",
			       (int)blockType);
		goto out;
	}
	if (!fn) {
		ret = acl_errf(ACLI_ERTPARAM, "fn must not be NULL");
		goto out;
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	pthread_mutex_lock(&s->lock);
	q = s->cbq;
	pthread_mutex_unlock(&s->lock);
	ok = false;
	hostfunc = false;
	if (q) {
		pthread_mutex_lock(&q->lock);
		ok = q->rep[ACL_CB_REPORT];
		hostfunc = q->rep[ACL_CB_HOSTFUNC] && q->rep[ACL_CB_HOSTFUNC]->owned;
		pthread_mutex_unlock(&q->lock);
	}
	/* CANN checks a named stream's host-function binding first (api_error.cc) */
	if (hostfunc && stream)
		ret = acl_errf(ACLI_ESTREAMSUB, "the stream runs aclrtLaunchHostFunc's functions: it takes no aclrtLaunchCallback");
	else if (!ok)
		ret = acl_errf(ACLI_ENOCBREG, "the stream has no report thread (aclrtSubscribeReport)");
	/* captured: its report thread runs it at each run of the model */
	else if (acl_stream_recording(s))
		ret = acl_cb_record(s, q, fn, userData, blockType == ACL_CALLBACK_BLOCK, ACL_CB_REPORT);
	else
		ret = acl_cb_queue(s, q, fn, userData, blockType == ACL_CALLBACK_BLOCK, ACL_CB_REPORT, NULL);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

/* The context's host-function thread, started on first use. */
static int acl_hostfunc_reporter(struct acl_context *ctx, struct acl_reporter **out)
{
	struct acl_reporter *r;
	int ret = 0;

	pthread_mutex_lock(&ctx->lock);
	r = ctx->hostfunc;
	if (ctx->dying) {
		ret = acl_errf(ACLI_ECTXRELEASE, "the context is being destroyed");
	} else if (!r) {
		r = acl_reporter_new(0, true, true);
		if (!r) {
			ret = acl_errf(-ENOMEM, "out of host memory");
		} else if ((ret = pthread_create(&r->tid, NULL, acl_hostfunc_main, r))) {
			acl_reporter_free(r);
			ret = acl_errf(-ret, "cannot start the host-function thread");
		} else {
			ctx->hostfunc = r;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	if (!ret)
		*out = r;
	return ret;
}

ACL_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
	struct acl_reporter *r;
	struct acl_stream *s;
	struct acl_cbq *q;
	bool unbound;
	int ret;

	ret = acl_check_init();
	if (!ret && !fn)
		ret = acl_errf(ACLI_ERTPARAM, "fn must not be NULL");
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	ret = acl_cbq_get(s, &q);
	if (ret)
		goto put;
	/*
	 * An application's thread of aclrtSubscribeHostFunc, else the
	 * context's, started unlocked (it takes the context's lock) and bound
	 * on the next round.
	 */
	for (r = NULL;;) {
		pthread_mutex_lock(&q->lock);
		if (q->rep[ACL_CB_HOSTFUNC]) {
			/* an application's thread (aclrtSubscribeHostFunc), or the context's */
		} else if (q->rep[ACL_CB_REPORT]) {
			ret = acl_errf(ACLI_ESTREAMSUB, "the stream is subscribed to a report thread (aclrtLaunchCallback's model) and to no host-function thread");
		} else if (r) {
			/* the context's thread holds no count: it lives with the context */
			q->rep[ACL_CB_HOSTFUNC] = r;
		}
		unbound = !ret && !q->rep[ACL_CB_HOSTFUNC];
		pthread_mutex_unlock(&q->lock);
		if (!unbound)
			break;
		ret = acl_hostfunc_reporter(s->ctx, &r);
		if (ret)
			break;
	}
	/* captured: the stream's host-function thread runs it at each run of the model */
	if (!ret && acl_stream_recording(s))
		ret = acl_cb_record(s, q, (aclrtCallback)fn, args, true, ACL_CB_HOSTFUNC);
	else if (!ret)
		ret = acl_cb_queue(s, q, (aclrtCallback)fn, args, true, ACL_CB_HOSTFUNC, NULL);
put:
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}
