/* SPDX-License-Identifier: MIT */
/* Streams (kernel command queues) and events (points in a stream). */
#ifndef LIBACL_STREAM_H
#define LIBACL_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <acl/acl_base.h>
#include <uapi/npu.h>

#include "list.h"

struct acl_device;

struct acl_stream {
	struct list_head node;		/* in dev->streams; internal streams are in no list */
	struct acl_device *dev;
	uint32_t id;			/* kernel stream id */
	bool is_default;
	pthread_mutex_t lock;		/* orders submits: protects last_seq */
	uint64_t last_seq;		/* seqno of the last command queued */
};

struct acl_event {
	struct list_head node;		/* in dev->events of the creating device */
	struct acl_device *dev;
	pthread_mutex_t lock;		/* protects the fields below */
	bool recorded;
	struct acl_device *rec_dev;	/* device of the stream it was recorded on */
	unsigned int rec_gen;		/* rec_dev->gen when recorded */
	uint32_t rec_stream;		/* kernel id of that stream */
	uint64_t rec_seq;		/* its last seqno then; 0: nothing to wait for */
};

/* Create a kernel stream for @dev; the caller links it where it belongs. */
int acl_stream_new(struct acl_device *dev, struct acl_stream **out);
/* Free the library object only (the kernel object goes with the context). */
void acl_stream_free(struct acl_stream *s);

/* NULL -> the current device's default stream; else a live stream. */
int acl_stream_resolve(aclrtStream stream, struct acl_stream **out);

/* Queue @n commands; *seq (optional) gets the seqno of the last one. */
int acl_stream_submit(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint64_t *seq);

/* Wait for @seq (0: all queued so far) on kernel stream @id of @dev. */
int acl_stream_wait(struct acl_device *dev, uint32_t id, uint64_t seq, int32_t timeout_ms);

/* Wait for everything queued on @s. */
int acl_stream_sync(struct acl_stream *s, int32_t timeout_ms);

#endif /* LIBACL_STREAM_H */
