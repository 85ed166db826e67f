// SPDX-License-Identifier: MIT
/*
 * Events. Every record queues a TIMESTAMP command, so that the time an
 * event reports is the device's, taken when the engine reached the
 * record, and its completion is that command's. CANN's flags decide what
 * an event may be used for; the checks follow the vendor runtime.
 *
 * A wait on an event that has no record (never recorded, or reset) does
 * not block: the library waits for records it knows of, as CUDA does.
 *
 * An IPC event (ACL_EVENT_IPC) is one event in every process that holds
 * it: its records, waits, queries and synchronizes go through its shared
 * page (ipcevent.c) and take the latest record of any process; this
 * file's checks and bookkeeping are the same.
 */
#include <errno.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "event.h"
#include "ipcevent.h"
#include "slots.h"
#include "stream.h"

#define ACL_EVENT_SYNC_BITS	(ACL_EVENT_SYNC | 0x4U | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)
#define ACL_EVENT_COMBINABLE	(ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | 0x4U | \
				 ACL_EVENT_TIME_LINE)
/* aclrtCreateEvent: CAPTURE_STREAM_PROGRESS | the second sync bit | TIME_LINE */
#define ACL_EVENT_DEFAULT_FLAGS	0x0EU

static void acl_event_release(struct acl_obj *obj)
{
	struct acl_event *e = (struct acl_event *)obj;
	unsigned int i;

	if (e->rec_s)
		acl_stream_put(e->rec_s);
	for (i = 0; i < e->nwaits; i++)
		acl_stream_put(e->waits[i].s);
	if (e->ipc)
		acl_ipcev_free(e->ipc);
	acl_slot_free(e->dev, &e->dev->slots, e->gen, e->slot);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

void acl_event_teardown(struct acl_event *e)
{
	acl_obj_del(&e->obj);
	acl_obj_put(&e->obj);
}

void acl_event_forget(struct acl_event *e)
{
	list_del(&e->node);
	if (e->ipc)
		acl_ipcev_forget(e->ipc);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

/*
 * Has the last record run (and, of an IPC event, every wait of this
 * process on its page)? Caller holds e->lock.
 */
static bool acl_event_done_locked(struct acl_event *e)
{
	unsigned int i;

	if (e->recorded && !acl_stream_reached(e->rec_s, e->rec_id, e->rec_seq))
		return false;
	for (i = 0; e->ipc && i < e->nwaits; i++)
		if (!acl_stream_reached(e->waits[i].s, e->waits[i].id, e->waits[i].seq))
			return false;
	return true;
}

/* Free the events destroyed while their record was pending, once it ran. */
static void acl_events_reap(struct acl_context *ctx)
{
	struct acl_event *e, *en, *done = NULL;

	pthread_mutex_lock(&ctx->lock);
	list_for_each_entry_safe(e, en, &ctx->events, node) {
		bool gone;

		if (!e->destroyed)
			continue;
		pthread_mutex_lock(&e->lock);
		gone = acl_event_done_locked(e);
		pthread_mutex_unlock(&e->lock);
		if (gone) {
			list_del(&e->node);
			/* reuse node as a private list link */
			e->node.next = (struct list_head *)done;
			done = e;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	while (done) {
		e = done;
		done = (struct acl_event *)e->node.next;
		acl_obj_put(&e->obj);
	}
}

/*
 * A new event of the current context: an IPC event (@flags ACL_EVENT_IPC)
 * makes its page, or maps the one @open names.
 */
static int acl_event_new(aclrtEvent *event, uint32_t flags, bool ex, bool id_at_create,
			 const aclrtIpcEventHandle *open)
{
	struct acl_context *ctx;
	struct acl_event *e;
	int ret;

	ret = acl_cur_ctx(&ctx);
	if (ret)
		return ret;
	acl_events_reap(ctx);
	e = calloc(1, sizeof(*e));
	if (!e) {
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	ret = acl_slot_alloc(ctx->dev, &ctx->dev->slots, &e->slot, &e->word);
	if (ret) {
		free(e);
		if (ret == -ENOSPC)
			ret = acl_errf(ACLI_ENOEVENTRES, "no event left on device %d (%u in use)",
				       ctx->dev->id, ACL_SLOTS_PAGES * ACL_SLOTS_PER_PAGE);
		goto out;
	}
	e->ctx = ctx;
	e->dev = ctx->dev;
	e->gen = __atomic_load_n(&ctx->dev->gen, __ATOMIC_ACQUIRE);
	if (flags == ACL_EVENT_IPC) {
		ret = open ? acl_ipcev_open(ctx->dev, open, &e->ipc) : acl_ipcev_create(ctx->dev, &e->ipc);
		if (ret) {
			acl_slot_free(e->dev, &e->dev->slots, e->gen, e->slot);
			free(e);
			goto out;
		}
	}
	e->flags = flags;
	e->ex = ex;
	e->id_at_create = id_at_create;
	e->rec_flag = e->wait_flag = UINT32_MAX;
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_lock(&ctx->lock);
	if (ctx->dying) {
		pthread_mutex_unlock(&ctx->lock);
		if (e->ipc)
			acl_ipcev_free(e->ipc);
		acl_slot_free(e->dev, &e->dev->slots, e->gen, e->slot);
		pthread_mutex_destroy(&e->lock);
		free(e);
		ret = acl_errf(ACLI_ECTXRELEASE, "the context is being destroyed");
		goto out;
	}
	list_add_tail(&e->node, &ctx->events);
	pthread_mutex_unlock(&ctx->lock);
	acl_obj_add(&e->obj, ACL_OBJ_EVENT, acl_event_release);
	*event = e;
out:
	acl_ctx_put(ctx);
	return ret;
}

ACL_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
	int ret = acl_enter(NULL, event);

	if (!ret)
		ret = acl_event_new(event, ACL_EVENT_DEFAULT_FLAGS, false, false, NULL);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
	int ret = acl_enter(NULL, event);

	if (!ret && !((flag && !(flag & ~ACL_EVENT_COMBINABLE)) || flag == ACL_EVENT_DEVICE_USE_ONLY ||
		      flag == ACL_EVENT_EXTERNAL))
		ret = acl_errf(ACLI_ERTPARAM, "flag %#x must combine SYNC, CAPTURE_STREAM_PROGRESS and TIME_LINE, or be DEVICE_USE_ONLY or EXTERNAL alone",
			       flag);
	if (!ret)
		ret = acl_event_new(event, flag, false, true, NULL);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
	int ret = acl_enter(NULL, event);

	if (!ret && !((flag && !(flag & ~ACL_EVENT_COMBINABLE)) || flag == ACL_EVENT_IPC))
		ret = acl_errf(ACLI_ERTPARAM, "flag %#x must combine SYNC, CAPTURE_STREAM_PROGRESS and TIME_LINE, or be IPC alone",
			       flag);
	if (!ret && flag == ACL_EVENT_IPC)
		ret = acl_ipcev_chip();
	if (!ret)
		ret = acl_event_new(event, flag, true, true, NULL);
	return acl_ret(__func__, ret);
}

/* A live event, with a reference. */
static int acl_event_get(aclrtEvent event, struct acl_event **out)
{
	int ret = acl_enter(NULL, event);

	if (ret)
		return ret;
	*out = (struct acl_event *)acl_obj_get(event, ACL_OBJ_EVENT);
	if (!*out)
		return acl_errf(ACLI_EHANDLE, "event %p is not a live event", event);
	return 0;
}

static void acl_event_put(struct acl_event *e)
{
	acl_obj_put(&e->obj);
}

/* The start of a query: its output pointer, then the event. */
static int acl_event_query(aclrtEvent event, const void *out, struct acl_event **e)
{
	int ret = acl_enter(NULL, out);

	return ret ? ret : acl_event_get(event, e);
}

ACL_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
	struct acl_context *ctx;
	struct acl_event *e;
	bool pending, unlinked;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		goto out;
	ctx = e->ctx;
	if (!acl_obj_del(&e->obj)) {
		ret = acl_errf(ACLI_EHANDLE, "event %p is being destroyed by another thread", event);
		acl_event_put(e);
		goto out;
	}
	/*
	 * CANN does not block: a pending record keeps the event (listed in
	 * its context) until it ran. Whoever takes it off the list drops the
	 * table's reference: here, the reaper, or the context's teardown.
	 */
	pthread_mutex_lock(&ctx->lock);
	pthread_mutex_lock(&e->lock);
	pending = !acl_event_done_locked(e);
	e->destroyed = true;
	pthread_mutex_unlock(&e->lock);
	unlinked = !pending && !list_empty(&e->node);
	if (unlinked)
		list_del(&e->node);
	pthread_mutex_unlock(&ctx->lock);
	if (unlinked)
		acl_event_put(e);	/* the table's reference */
	acl_event_put(e);
out:
	return acl_ret(__func__, ret);
}

/*
 * The record or wait flag @flag (0: DEFAULT, 1: EXTERNAL) of an operation
 * on @e; *@cur is the event's flag for that operation. CANN's
 * ApiErrorDecorator::EventRecord and ::StreamWaitEvent (api_error.cc):
 * EXTERNAL takes only events of aclrtCreateEventExWithFlag(ACL_EVENT_SYNC);
 * an event keeps the flag of its first record (wait), kept even when the
 * operation fails later. ApiImpl then refuses EXTERNAL on a stream @s that
 * is not being captured into an ACL graph; on one that is, the capture
 * records the operation for each run (acl_stream_capture_ext()), and
 * refuses a DEFAULT one yet (acl_stream_uncapturable()).
 */
static int acl_event_op_flag(struct acl_event *e, struct acl_stream *s, uint32_t *cur, uint32_t flag,
			     const char *op)
{
	int ret = 0;

	if (flag && !(e->ex && e->flags == ACL_EVENT_SYNC))
		return acl_errf(ACLI_ERTNOTSUPP, "the EXTERNAL %s flag takes only events of aclrtCreateEventExWithFlag(ACL_EVENT_SYNC), not flags %#x",
				op, e->flags);
	pthread_mutex_lock(&e->lock);
	if (*cur != UINT32_MAX && *cur != flag)
		ret = acl_errf(ACLI_ERTPARAM, "event %p keeps the %s flag of its first %s (%s), not %s",
			       e, op, op, *cur ? "EXTERNAL" : "DEFAULT", flag ? "EXTERNAL" : "DEFAULT");
	else
		*cur = flag;
	pthread_mutex_unlock(&e->lock);
	if (!ret && flag && !acl_stream_capture(s, NULL))
		ret = acl_errf(ACLI_ENOTCAPTURED, "the EXTERNAL %s flag needs a stream being captured into an ACL graph (aclmdlRICaptureBegin)",
			       op);
	return ret;
}

/* CANN's ApiErrorDecorator: an IPC event is not recorded or waited for on a capturing stream. */
static int acl_event_ipc_capture(struct acl_event *e, struct acl_stream *s, const char *what)
{
	if (e->ipc && acl_stream_capture(s, NULL))
		return acl_errf(ACLI_ERTNOTSUPP, "an IPC event is not %s on a stream being captured", what);
	return 0;
}

int acl_event_record_on(struct acl_obj *event, struct acl_stream *s)
{
	struct npu_cmd cmd = { .op = NPU_OP_TIMESTAMP, .flags = NPU_CMD_DST_HOST };
	struct acl_event *e = (struct acl_event *)event;
	struct acl_stream *old = NULL;
	uint64_t seq;
	uint32_t id;
	int ret;

	cmd.dst = (uintptr_t)e->word;
	/* the event lock orders records of one event with their seqnos */
	pthread_mutex_lock(&e->lock);
	/* destroyed meanwhile by another thread: its word may be another's */
	if (e->destroyed)
		ret = acl_errf(ACLI_EHANDLE, "event %p was destroyed", e);
	else if (e->ipc)
		ret = acl_ipcev_record(e->ipc, s, &id, &seq);
	else
		ret = acl_stream_submit_at(s, &cmd, 1, &id, &seq);
	if (!ret) {
		old = e->rec_s;
		acl_obj_hold(&s->obj);
		e->ever = e->recorded = true;
		e->rec_s = s;
		e->rec_id = id;
		e->rec_seq = seq;
	}
	pthread_mutex_unlock(&e->lock);
	if (old)
		acl_stream_put(old);
	return ret;
}

/*
 * A DEFAULT record of @e on @s while @s captures: the capture's fork or
 * join point (stream.c), nothing queued, *@done true; CANN takes events of
 * aclrtCreateEventExWithFlag only (207000, the capture going on).
 */
static int acl_event_capture_record(struct acl_event *e, struct acl_stream *s, bool *done)
{
	uint64_t serial = 0;
	int ret;

	ret = acl_stream_capture_fork(s, &e->obj, e->ex, &serial);
	if (!ret && serial) {
		pthread_mutex_lock(&e->lock);
		e->cap_serial = serial;
		pthread_mutex_unlock(&e->lock);
	}
	*done = serial;
	return ret;
}

/*
 * A DEFAULT wait of @s for @e: if @e's last record was in a capture under
 * way, @s joins it (stream.c), *@done true. On a capturing stream a wait
 * for a record outside the capture is CANN's 107024 (an event never
 * recorded: nothing to wait for), and an event not of
 * aclrtCreateEventExWithFlag 207000, the capture going on.
 */
static int acl_event_capture_wait(struct acl_event *e, struct acl_stream *s, bool *done)
{
	uint64_t serial;
	bool ever;
	int ret;

	pthread_mutex_lock(&e->lock);
	serial = e->cap_serial;
	ever = e->ever;
	pthread_mutex_unlock(&e->lock);
	*done = false;
	if (serial) {
		ret = acl_stream_capture_join(s, serial, &e->obj);
		*done = ret != -ENOENT;
		if (ret != -ENOENT)
			return ret;
	}
	if (!acl_stream_recording(s))
		return 0;
	if (!e->ex && acl_stream_capture(s, NULL))
		return acl_stream_plain_event(s);
	if (!e->ex || acl_stream_capture(s, NULL) != acl_stream_recording(s))
		return acl_stream_uncapturable(s);
	*done = true;
	if (ever)
		return acl_errf(ACLI_ECAPDEP, "stream %p is being captured, and the last record of event %p is not in the capture: wait for it with ACL_EVENT_WAIT_EXTERNAL",
				s, e);
	return 0;
}

static int acl_event_record(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
	struct acl_stream *s;
	struct acl_event *e;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		return ret;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto put;
	ret = acl_event_ipc_capture(e, s, "recorded");
	if (!ret)
		ret = acl_event_op_flag(e, s, &e->rec_flag, flag, "record");
	if (!ret && flag == ACL_EVENT_RECORD_EXTERNAL) {
		/* on a capturing stream: a record at each run of the model */
		ret = acl_stream_capture_ext(s, &e->obj, true);
	} else if (!ret) {
		bool captured = false;

		/* on a capturing stream: a fork or join point of the capture */
		ret = acl_event_capture_record(e, s, &captured);
		if (!ret && !captured && (e->flags & ACL_EVENT_EXTERNAL))
			ret = acl_errf(ACLI_ERTNOTSUPP, "an EXTERNAL event is not recorded on a stream outside an ACL graph");
		if (!ret && !captured)
			ret = acl_event_record_on(&e->obj, s);
	}
	acl_stream_put(s);
put:
	acl_event_put(e);
	return ret;
}

ACL_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
	return acl_ret(__func__, acl_event_record(event, stream, ACL_EVENT_RECORD_DEFAULT));
}

ACL_EXPORT aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
	int ret = acl_enter(NULL, event);

	/* CANN's acl layer checks the flag (event.cpp): 100000, no last error */
	if (!ret && flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL)
		ret = acl_errf(-EINVAL, "flag %u must be ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL",
			       flag);
	if (!ret)
		ret = acl_event_record(event, stream, flag);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
	struct acl_stream *s;
	struct acl_event *e;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		goto out;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto put;
	if (e->ex || (e->flags & ACL_EVENT_IPC))
		ret = acl_errf(ACLI_ERTNOTSUPP, "events from aclrtCreateEventExWithFlag are not reset");
	else if (!(e->flags & ACL_EVENT_SYNC_BITS))
		ret = acl_errf(ACLI_ERTNOTSUPP, "event flags %#x have no synchronizing bit: it cannot be reset",
			       e->flags);
	/* the vendor's ToBeCaptured: no reset of an event the capture does not take, the capture going on */
	else if (acl_stream_capture(s, NULL))
		ret = acl_errf(ACLI_ERTNOTSUPP, "stream %p is being captured: an event not made by aclrtCreateEventExWithFlag is not reset in it",
			       s);
	acl_stream_put(s);
	if (!ret) {
		/* the host forgets the record: later waits find nothing to wait for */
		pthread_mutex_lock(&e->lock);
		e->recorded = false;
		pthread_mutex_unlock(&e->lock);
	}
put:
	acl_event_put(e);
out:
	return acl_ret(__func__, ret);
}

/* Snapshot of what a wait for @e waits for; false when nothing. */
static bool acl_event_target(struct acl_event *e, struct acl_stream **s, uint32_t *id, uint64_t *seq)
{
	bool pending;

	pthread_mutex_lock(&e->lock);
	pending = e->recorded;
	if (pending) {
		*s = e->rec_s;
		acl_obj_hold(&(*s)->obj);
		*id = e->rec_id;
		*seq = e->rec_seq;
	}
	pthread_mutex_unlock(&e->lock);
	return pending;
}

static int acl_event_sync(aclrtEvent event, int32_t timeout)
{
	struct acl_stream *s;
	struct acl_event *e;
	uint32_t id;
	uint64_t seq;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		return ret;
	if (e->flags & ACL_EVENT_EXTERNAL) {
		ret = acl_errf(ACLI_ERTNOTSUPP, "an EXTERNAL event cannot be synchronized on the host");
	} else if (e->ipc) {
		/* the latest record of any process */
		ret = acl_ipcev_sync(e->ipc, timeout);
		if (ret == -ETIMEDOUT)
			ret = acl_errf(ACLI_EEVENTTIMEOUT, "event %p did not complete within %d ms", event,
				       timeout);
	} else if (acl_event_target(e, &s, &id, &seq)) {
		ret = acl_stream_wait_seq(s, id, seq, timeout);
		if (ret == -ETIMEDOUT)
			ret = acl_errf(ACLI_EEVENTTIMEOUT, "event %p did not complete within %d ms", event,
				       timeout);
		acl_stream_put(s);
	}
	acl_event_put(e);
	return ret;
}

ACL_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
	return acl_ret(__func__, acl_event_sync(event, -1));
}

ACL_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
	int ret = acl_check_init();

	/* CANN's acl layer refuses < -1 before NULL, unrecorded; its runtime 0 after */
	if (!ret && timeout < -1)
		ret = acl_nolast(acl_errf(ACLI_ERTPARAM, "timeout %d must be -1 (forever) or > 0 milliseconds",
					  timeout));
	if (!ret && !event)
		ret = acl_errf(-EINVAL, "event must not be NULL");
	if (!ret && !timeout)
		ret = acl_errf(ACLI_ERTPARAM, "timeout 0 must be -1 (forever) or > 0 milliseconds");
	if (!ret)
		ret = acl_event_sync(event, timeout);
	return acl_ret(__func__, ret);
}

/* Remember a stream's wait for aclrtQueryEventWaitStatus; e->lock held. */
static void acl_event_note_wait_locked(struct acl_event *e, struct acl_stream *s, uint32_t id,
				       uint64_t seq)
{
	struct acl_event_wait *w;
	unsigned int i, kept = 0;

	/* drop waits that passed; if full, the oldest (it ends first in its stream) */
	for (i = 0; i < e->nwaits; i++) {
		w = &e->waits[i];
		if (acl_stream_reached(w->s, w->id, w->seq) ||
		    (kept == ACL_EVENT_WAITS - 1 && i == 0)) {
			acl_stream_put(w->s);
			continue;
		}
		e->waits[kept++] = *w;
	}
	e->nwaits = kept;
	if (e->nwaits == ACL_EVENT_WAITS) {
		acl_stream_put(e->waits[0].s);
		for (i = 1; i < e->nwaits; i++)
			e->waits[i - 1] = e->waits[i];
		e->nwaits--;
	}
	acl_obj_hold(&s->obj);
	e->waits[e->nwaits++] = (struct acl_event_wait){ .s = s, .id = id, .seq = seq };
}

/*
 * @limit_ms: 0, or the longest the stream waits before its wait task
 * fails; @flag: ACL_EVENT_WAIT_DEFAULT or _EXTERNAL.
 */
int acl_event_wait_on(struct acl_obj *event, struct acl_stream *s, uint32_t limit_ms)
{
	struct acl_event *e = (struct acl_event *)event;
	struct npu_cmd cmd = { .op = NPU_OP_WAIT_STREAM };
	struct acl_stream *rs;
	uint32_t id, wid;
	uint64_t seq, wseq;
	int ret = 0;

	if (e->ipc) {
		ret = acl_ipcev_wait(e->ipc, s, limit_ms, &wid, &wseq);
		if (ret == 1) {
			/* its page stays until the wait ran */
			pthread_mutex_lock(&e->lock);
			acl_event_note_wait_locked(e, s, wid, wseq);
			pthread_mutex_unlock(&e->lock);
			ret = 0;
		} else if (ret == -ETIMEDOUT) {
			ret = acl_errf(ACLI_ETASKTIMEOUT, "event %p did not complete within %u ms", e, limit_ms);
		}
		return ret;
	}
	if (!acl_event_target(e, &rs, &id, &seq)) {
		bool ever;

		pthread_mutex_lock(&e->lock);
		ever = e->ever;
		pthread_mutex_unlock(&e->lock);
		/*
		 * CANN's Event::Wait: an event of aclrtCreateEvent(WithFlag)
		 * without ACL_EVENT_SYNC that was never recorded is an error;
		 * reset after a record, or of aclrtCreateEventExWithFlag, it is
		 * nothing to wait for.
		 */
		if (!e->ex && !(e->flags & ACL_EVENT_SYNC) && !ever)
			ret = acl_errf(ACLI_ERTPARAM, "event %p has not been recorded: record it on a stream first",
				       e);
		return ret;
	}
	if (rs->dev != s->dev) {
		/* stream ids are per device: wait on the host instead */
		ret = acl_stream_wait_seq(rs, id, seq, limit_ms ? (int32_t)limit_ms : -1);
		if (ret == -ETIMEDOUT)
			ret = acl_errf(ACLI_ETASKTIMEOUT, "event %p did not complete within %u ms",
				       e, limit_ms);
	} else if (rs != s) {
		cmd.src = id;
		cmd.value = seq;
		cmd.length = limit_ms;
		ret = acl_stream_submit_at(s, &cmd, 1, &wid, &wseq);
		/* the recording stream is gone (aborted, destroyed): nothing to wait for */
		if (ret == -ENOENT) {
			acl_err_clear();
			ret = 0;
		} else if (!ret) {
			pthread_mutex_lock(&e->lock);
			acl_event_note_wait_locked(e, s, wid, wseq);
			pthread_mutex_unlock(&e->lock);
			/* memory pools reuse what the recording stream freed before this point */
			acl_stream_note_dep(s, id, seq);
		}
	}
	acl_stream_put(rs);
	return ret;
}

/*
 * @limit_ms: 0, or the longest the stream waits before its wait task
 * fails; @flag: ACL_EVENT_WAIT_DEFAULT or _EXTERNAL.
 */
static int acl_stream_wait_event(aclrtStream stream, aclrtEvent event, uint32_t limit_ms, uint32_t flag)
{
	struct acl_stream *s;
	struct acl_event *e;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		return ret;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto put;
	ret = acl_event_ipc_capture(e, s, "waited for");
	if (ret)
		goto put_s;
	if (!(e->flags & ACL_EVENT_SYNC_BITS) || (e->flags & ACL_EVENT_EXTERNAL)) {
		ret = acl_errf(ACLI_ERTNOTSUPP, "event flags %#x: the event cannot be waited for by a stream",
			       e->flags);
		goto put_s;
	}
	ret = acl_event_op_flag(e, s, &e->wait_flag, flag, "wait");
	if (!ret && flag == ACL_EVENT_WAIT_EXTERNAL) {
		/* on a capturing stream: a wait at each run of the model */
		ret = acl_stream_capture_ext(s, &e->obj, false);
	} else if (!ret) {
		bool captured = false;

		/* a wait for a captured record joins the capture */
		ret = acl_event_capture_wait(e, s, &captured);
		if (!ret && !captured)
			ret = acl_event_wait_on(&e->obj, s, limit_ms);
	}
put_s:
	acl_stream_put(s);
put:
	acl_event_put(e);
	return ret;
}

/*
 * aclrtSetOpWaitTimeout's limit in seconds (0: none) of the waits that
 * name none, as CANN's runtime gives its wait timeout to rtStreamWaitEvent
 * and to a wait with timeout UINT32_MAX (api_c_stream.cc). Atomic.
 */
static uint32_t acl_op_wait_timeout;

ACL_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
	/* the 910B sets it without a context (SET_OP_WAIT_TIMEOUT_CONFIG) */
	__atomic_store_n(&acl_op_wait_timeout, timeout, __ATOMIC_RELAXED);
	return acl_ret(__func__, 0);
}

/* A wait limit in seconds, as CANN's docs say; the engine takes at most 2^32 - 1 ms. */
static uint32_t acl_wait_limit_ms(uint32_t s)
{
	if (s == UINT32_MAX)
		s = __atomic_load_n(&acl_op_wait_timeout, __ATOMIC_RELAXED);
	return s > INT32_MAX / 1000 ? INT32_MAX : s * 1000;
}

ACL_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
	return acl_ret(__func__, acl_stream_wait_event(stream, event, acl_wait_limit_ms(UINT32_MAX),
						       ACL_EVENT_WAIT_DEFAULT));
}

ACL_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
	int ret = acl_check_init();

	/* CANN's acl layer refuses it (event.cpp): its runtime code, no last error */
	if (!ret && timeout < 0)
		ret = acl_nolast(acl_errf(ACLI_ERTPARAM, "timeout %d must be >= 0 seconds (0: no limit)",
					  timeout));
	if (!ret)
		ret = acl_stream_wait_event(stream, event, acl_wait_limit_ms((uint32_t)timeout),
					    ACL_EVENT_WAIT_DEFAULT);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
						 uint32_t flag)
{
	int ret = acl_enter(NULL, event);

	/* CANN's acl layer (stream.cpp): 100000, no last error */
	if (!ret && flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL)
		ret = acl_errf(-EINVAL, "flag %u must be ACL_EVENT_WAIT_DEFAULT or ACL_EVENT_WAIT_EXTERNAL", flag);
	if (!ret && flag == ACL_EVENT_WAIT_EXTERNAL && timeout)
		ret = acl_errf(-EINVAL, "timeout %u must be 0 with ACL_EVENT_WAIT_EXTERNAL", timeout);
	/* DEFAULT is aclrtStreamWaitEventWithTimeout's wait (api_c_stream.cc) */
	if (!ret)
		ret = acl_stream_wait_event(stream, event, acl_wait_limit_ms(timeout), flag);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
	struct acl_event *e;
	int ret;

	ret = acl_event_query(event, status, &e);
	if (ret)
		return acl_ret(__func__, ret);
	if (e->ex) {
		ret = acl_errf(ACLI_ERTNOTSUPP, "aclrtQueryEvent does not take events from aclrtCreateEventExWithFlag");
	} else {
		pthread_mutex_lock(&e->lock);
		*status = acl_event_done_locked(e) ? ACL_EVENT_STATUS_COMPLETE :
						     ACL_EVENT_STATUS_NOT_READY;
		pthread_mutex_unlock(&e->lock);
	}
	acl_event_put(e);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
	struct acl_event *e;
	int ret;

	ret = acl_event_query(event, status, &e);
	if (ret)
		return acl_ret(__func__, ret);
	if (e->flags & ACL_EVENT_EXTERNAL) {
		ret = acl_errf(ACLI_ERTNOTSUPP, "an EXTERNAL event has no host-visible status");
	} else if (e->ipc) {
		bool done = false;

		/* the latest record of any process; none is COMPLETE, as for every Ex event */
		ret = acl_ipcev_query(e->ipc, &done);
		if (!ret)
			*status = done ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
	} else {
		pthread_mutex_lock(&e->lock);
		/* an event never recorded (or reset) is not ready; an Ex one is complete */
		if (!e->recorded)
			*status = e->ex ? ACL_EVENT_RECORDED_STATUS_COMPLETE :
					  ACL_EVENT_RECORDED_STATUS_NOT_READY;
		else
			*status = acl_event_done_locked(e) ? ACL_EVENT_RECORDED_STATUS_COMPLETE :
							     ACL_EVENT_RECORDED_STATUS_NOT_READY;
		pthread_mutex_unlock(&e->lock);
	}
	acl_event_put(e);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
	struct acl_event *e;
	unsigned int i;
	int ret;

	ret = acl_event_query(event, status, &e);
	if (ret)
		return acl_ret(__func__, ret);
	if (e->ex) {
		ret = acl_errf(ACLI_ERTNOTSUPP, "aclrtQueryEventWaitStatus does not take events from aclrtCreateEventExWithFlag");
	} else {
		*status = ACL_EVENT_WAIT_STATUS_COMPLETE;
		pthread_mutex_lock(&e->lock);
		for (i = 0; i < e->nwaits; i++)
			if (!acl_stream_reached(e->waits[i].s, e->waits[i].id, e->waits[i].seq))
				*status = ACL_EVENT_WAIT_STATUS_NOT_READY;
		pthread_mutex_unlock(&e->lock);
	}
	acl_event_put(e);
	return acl_ret(__func__, ret);
}

/* The device time of @e's record in ns; the checks of the timing calls. */
static int acl_event_time(struct acl_event *e, const char *name, bool need_timeline, uint64_t *ns)
{
	int ret = 0;

	if (e->flags & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC))
		return acl_errf(ACLI_ERTNOTSUPP, "%s: EXTERNAL and IPC events have no timestamp", name);
	pthread_mutex_lock(&e->lock);
	if (!e->ever || !e->recorded)
		ret = acl_errf(ACLI_EINTERNAL, "%s %p has not been recorded", name, e);
	else if (!acl_event_done_locked(e))
		ret = acl_errf(ACLI_ETIMESTAMP, "%s %p is not complete yet", name, e);
	else if (need_timeline && !(e->flags & ACL_EVENT_TIME_LINE))
		ret = acl_errf(ACLI_ETIMESTAMP, "%s %p was created without ACL_EVENT_TIME_LINE", name, e);
	else
		*ns = __atomic_load_n(e->word, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&e->lock);
	return ret;
}

ACL_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
	struct acl_event *a = NULL, *b = NULL;
	uint64_t t0, t1;
	int ret;

	ret = acl_enter(NULL, ms, startEvent, endEvent);
	if (!ret)
		ret = acl_event_get(startEvent, &a);
	if (!ret)
		ret = acl_event_get(endEvent, &b);
	if (!ret)
		ret = acl_event_time(a, "startEvent", true, &t0);
	if (!ret)
		ret = acl_event_time(b, "endEvent", true, &t1);
	if (!ret)
		*ms = (float)((double)(int64_t)(t1 - t0) / 1e6);
	if (a)
		acl_event_put(a);
	if (b)
		acl_event_put(b);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
	struct acl_event *e;
	uint64_t ns;
	int ret;

	ret = acl_event_query(event, timestamp, &e);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_event_time(e, "event", false, &ns);
	if (!ret)
		*timestamp = ns / 1000;	/* CANN: microseconds since device boot */
	acl_event_put(e);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
	struct acl_event *e;
	int ret;

	ret = acl_event_query(event, eventId, &e);
	if (ret)
		return acl_ret(__func__, ret);
	pthread_mutex_lock(&e->lock);
	if (e->flags & ACL_EVENT_IPC)
		ret = acl_errf(ACLI_ERTNOTSUPP, "an IPC event has no id");
	else if (!e->id_at_create && !e->ever)
		ret = acl_errf(ACLI_EINTERNAL, "an event from aclrtCreateEvent gets its id at its first record");
	else
		*eventId = e->slot;
	pthread_mutex_unlock(&e->lock);
	acl_event_put(e);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetEventAvailNum(uint32_t *eventCount)
{
	struct acl_context *ctx;
	int ret = acl_enter(NULL, eventCount);

	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret)
		return acl_ret(__func__, ret);
	/* events destroyed with their record run give their ids back first, as at creation */
	acl_events_reap(ctx);
	/* the device's pool, shared with the host-function queues (callback.c) */
	*eventCount = acl_slots_avail(ctx->dev, &ctx->dev->slots);
	acl_ctx_put(ctx);
	return acl_ret(__func__, 0);
}

ACL_EXPORT aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
	struct acl_event *e;
	int ret;

	/* CANN's acl layer: handle, then event (100000); its runtime: the chip, the event */
	ret = acl_enter(NULL, handle, event);
	if (!ret)
		ret = acl_ipcev_chip();
	if (!ret)
		ret = acl_event_get(event, &e);
	if (ret)
		return acl_ret(__func__, ret);
	if (!e->ipc)
		ret = acl_errf(ACLI_ERTPARAM, "event %p was not created with ACL_EVENT_IPC (flags %#x)", event, e->flags);
	else
		acl_ipcev_handle(e->ipc, handle);
	acl_event_put(e);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
	int ret = acl_enter(NULL, event);

	if (!ret)
		ret = acl_ipcev_chip();
	if (!ret)
		ret = acl_event_new(event, ACL_EVENT_IPC, true, true, &handle);
	return acl_ret(__func__, ret);
}
