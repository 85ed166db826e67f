/* SPDX-License-Identifier: MIT */
/*
 * Events: points in a stream. A record is a TIMESTAMP command that writes
 * the device's clock into the event's word when the engine reaches it;
 * waiting for the event is waiting for that command. An IPC event's
 * records and waits go through its shared page instead (ipcevent.h); the
 * fields below track this process's own, for its destruction.
 */
#ifndef LIBACL_EVENT_H
#define LIBACL_EVENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "handle.h"
#include "list.h"

struct acl_context;
struct acl_ipcev;
struct acl_stream;

/* A stream's wait on the event, for aclrtQueryEventWaitStatus. */
struct acl_event_wait {
	struct acl_stream *s;		/* holds a reference */
	uint32_t id;
	uint64_t seq;
};

#define ACL_EVENT_WAITS	8		/* waits remembered; older ones complete first */

struct acl_event {
	struct acl_obj obj;		/* first: the aclrtEvent is the object */
	struct list_head node;		/* in ctx->events; under ctx->lock */
	struct acl_context *ctx;	/* constant; valid while the handle is */
	struct acl_device *dev;		/* constant: the device of its word */
	unsigned int gen;		/* dev->gen at creation */
	uint32_t flags;			/* ACL_EVENT_* as created; constant */
	bool ex;			/* aclrtCreateEventExWithFlag; constant */
	bool id_at_create;		/* aclrtGetEventId answers before the first record */
	uint32_t slot;			/* its word in dev->slots: the event id; constant */
	uint64_t *word;			/* the device time of the last record, ns */
	struct acl_ipcev *ipc;		/* an IPC event's shared page (ipcevent.h), else NULL; constant */
	pthread_mutex_t lock;		/* protects the fields below */
	bool ever;			/* recorded at least once */
	bool recorded;			/* recorded since creation or the last reset */
	bool destroyed;			/* handle gone; freed once the record (an IPC event's waits too) ran */
	struct acl_stream *rec_s;	/* stream of the last record (reference) */
	uint32_t rec_id;		/* its kernel id then */
	uint64_t rec_seq;		/* the record's seqno */
	struct acl_event_wait waits[ACL_EVENT_WAITS];
	unsigned int nwaits;
	/* ACL_EVENT_RECORD_* / _WAIT_* of the first record / wait; UINT32_MAX: none yet */
	uint32_t rec_flag, wait_flag;
	uint64_t cap_serial;		/* the capture of its last record (stream.c's fork/join); 0: none */
};

/*
 * Record the event @event (a struct acl_event) on @s, as aclrtRecordEvent
 * does after its checks (a model's EXTERNAL record at each run).
 */
int acl_event_record_on(struct acl_obj *event, struct acl_stream *s);
/*
 * Queue on @s a wait for @event's last record (none: nothing to wait for),
 * as aclrtStreamWaitEvent does after its checks; @limit_ms: 0 or the
 * wait's limit.
 */
int acl_event_wait_on(struct acl_obj *event, struct acl_stream *s, uint32_t limit_ms);

/* Context teardown: free @e (its streams are drained). */
void acl_event_teardown(struct acl_event *e);
/* After fork: free the library object only. */
void acl_event_forget(struct acl_event *e);

#endif /* LIBACL_EVENT_H */
