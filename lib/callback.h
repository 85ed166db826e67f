/* SPDX-License-Identifier: MIT */
/*
 * Host functions in stream order (aclrtLaunchCallback, aclrtLaunchHostFunc).
 *
 * A callback is a point in its stream: a watcher thread per stream waits
 * until the stream's kernel queue reached the commands queued before it,
 * then hands it to the thread that runs it (the one the application
 * subscribed with aclrtSubscribeReport or aclrtSubscribeHostFunc, or the
 * context's own host-function thread). A blocking callback also queues a gate in the stream, a
 * WAIT_STREAM on a private gate stream that the runner releases once the
 * function returned, so that nothing queued later starts before.
 */
#ifndef LIBACL_CALLBACK_H
#define LIBACL_CALLBACK_H

#include <stdbool.h>

struct acl_cbq;
struct acl_host_step;
struct acl_reporter;
struct acl_stream;

/* Stream teardown, after its tasks ran: wait until the watcher handed every callback over. */
void acl_cbq_drain(struct acl_stream *s);
/* Stream teardown, before a forced kernel destroy: pending callbacks are discarded. */
void acl_cbq_drop(struct acl_stream *s);
/* Stream teardown, after its kernel stream is gone: stop its watcher. */
void acl_cbq_stop(struct acl_stream *s);
/* Stream release: free what acl_cbq_stop left. */
void acl_cbq_free(struct acl_cbq *q);
/* After fork (no threads of the parent exist): free memory only. */
void acl_cbq_forget(struct acl_cbq *q);
/*
 * Is the calling thread running a callback, host function or host step
 * (of any stream)? Then it must not wait for a stream's work: host steps
 * of every stream of a context run on its one host-function thread (and
 * a report thread serves several streams), so the work waited for may be
 * queued behind the caller itself.
 */
bool acl_cb_in_callback(void);
/* The stream whose callback, host function or host step the calling thread runs now, or NULL. */
struct acl_stream *acl_cb_current(void);

/*
 * A callback or host function a model recorded (aclrtLaunchCallback,
 * aclrtLaunchHostFunc on a recording stream): queued on @s as its launch
 * would queue it there, run by the thread that ran the recording stream's
 * (the context's host-function thread when that was the context's).
 */
int acl_host_step_queue(const struct acl_host_step *h, struct acl_stream *s);
/* Let go of @h (@forget: after fork, memory only). */
void acl_host_step_free(struct acl_host_step *h, bool forget);
/*
 * A host step of the library's own on the recording stream @s: @fn(@arg)
 * at each run of the model, on the context's host-function thread,
 * holding the executing stream until it returned; @arg is the
 * recording's from now on, freed by @release with it (at once on a
 * failure).
 */
int acl_host_step_record(struct acl_stream *s, aclrtCallback fn, void *arg, void (*release)(void *arg));

/* Context teardown: end its host-function thread. */
void acl_reporter_stop(struct acl_reporter *r);
void acl_reporter_forget(struct acl_reporter *r);
/* After fork: the parent's report threads are not the child's. */
void acl_reporters_forget(void);

#endif /* LIBACL_CALLBACK_H */
