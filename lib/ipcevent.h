/* SPDX-License-Identifier: MIT */
/*
 * IPC events' shared state (ipcevent.c): a page of device memory on the
 * exporter's device, named by an IPC key, that every process holding the
 * event records into and waits on. event.c owns the aclrtEvent and its
 * checks and calls in here for what an IPC event does differently.
 */
#ifndef LIBACL_IPCEVENT_H
#define LIBACL_IPCEVENT_H

#include <stdbool.h>
#include <stdint.h>

#include <acl/acl.h>

struct acl_device;
struct acl_ipcev;
struct acl_stream;

/* 0 if the chip has IPC events (CANN: RT_FEATURE_IPC_EVENT), else 207000. */
int acl_ipcev_chip(void);

/* A new event's page on @dev, exported: *@out. */
int acl_ipcev_create(struct acl_device *dev, struct acl_ipcev **out);
/*
 * The page @h names (aclrtIpcGetEventHandle of another process), for an
 * event of the current device @cur: its home device is kept open and,
 * if it is not @cur, peer access enabled both ways.
 */
int acl_ipcev_open(struct acl_device *cur, const aclrtIpcEventHandle *h, struct acl_ipcev **out);
/* The handle that names @ev's page. */
void acl_ipcev_handle(const struct acl_ipcev *ev, aclrtIpcEventHandle *h);

/* Queue a record on @s: *@id, *@seq its kernel stream and seqno. */
int acl_ipcev_record(struct acl_ipcev *ev, struct acl_stream *s, uint32_t *id, uint64_t *seq);
/*
 * Make @s wait for the latest record any process made: 1 and *@id,
 * *@seq when a wait was queued, 0 when none was needed (nothing
 * recorded, or @s is of another device: then the call waited on the host,
 * at most @limit_ms if not 0: -ETIMEDOUT after).
 */
int acl_ipcev_wait(struct acl_ipcev *ev, struct acl_stream *s, uint32_t limit_ms, uint32_t *id, uint64_t *seq);
/* *@done: the latest record of any process has run (or there is none). */
int acl_ipcev_query(struct acl_ipcev *ev, bool *done);
/* Wait on the host until it has: -ETIMEDOUT after @timeout ms (-1: none). */
int acl_ipcev_sync(struct acl_ipcev *ev, int32_t timeout);

/* Unmap the page (the exporter's: revoking its key) and free @ev. */
void acl_ipcev_free(struct acl_ipcev *ev);
/* After fork: free the library object only. */
void acl_ipcev_forget(struct acl_ipcev *ev);

#endif /* LIBACL_IPCEVENT_H */
