// SPDX-License-Identifier: MIT
/*
 * IPC events: an event of aclrtCreateEventExWithFlag(ACL_EVENT_IPC) keeps
 * its state in a 4 KiB page of its device's memory, exported at creation
 * as an IPC key that any process of the exporter's user may import (CANN
 * exports its event memory without a pid list). aclrtIpcGetEventHandle
 * spells the key into the handle; aclrtIpcOpenEventHandle in another
 * process imports the page on its device (kept open for it, with peer
 * access to the opener's current device). The driver's share table gives
 * the rest: the exporter's user only, never the exporter itself, once per
 * process, and the page revoked when the exporter destroys its event.
 *
 * The page, in 64-bit words: word 0 counts the records made so far by
 * every process, and words 1..511 are a ring: record n writes n into word
 * 1 + (n - 1) % 511 when its stream reaches it. A record reads the count
 * (n - 1), queues its write, then stores n; a wait or a synchronize takes
 * the latest record, n, from the count and waits for its word to reach n
 * (a later record of the same word writes more); a query compares the
 * two. So a wait waits for the latest record made before it, by any
 * process, as CANN's currentIndex does, and a record released by another
 * one is never waited for again. Two records of different processes at
 * the same time may both take n: a wait for n then ends with the first of
 * them (CANN orders them with a lock in shared host memory, which npu's
 * driver has no way to share). A record that overtakes one 511 records
 * older on another stream is lost for it: at most 510 records of an event
 * may be in flight at once.
 *
 * Records and waits of a stream on the page's device are commands of that
 * stream (WRITE_VALUE, WAIT_VALUE >=). A record from another device
 * writes its value into a page of that device (one other device per
 * event) and copies it to the event's page through peer access; a wait
 * there waits on the host, as one for a plain event recorded on another
 * device does (event.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <acl/acl.h>

#include "copy.h"
#include "device.h"
#include "error.h"
#include "ipc.h"
#include "ipcevent.h"
#include "mm.h"
#include "peer.h"
#include "query.h"
#include "stream.h"

#define ACL_IPCEV_PAGE	4096
#define ACL_IPCEV_RING	(ACL_IPCEV_PAGE / 8 - 1)
#define ACL_IPCEV_MAGIC	0x4576706eU	/* "npvE" */

/* aclrtIpcEventHandle's 64 bytes as npu fills them. */
struct acl_ipcev_wire {
	uint64_t name;		/* the driver's name of the page: where CANN puts its share handle */
	uint32_t magic;		/* ACL_IPCEV_MAGIC */
	uint32_t dev;		/* the page's device */
	uint8_t zero[48];
};

_Static_assert(sizeof(struct acl_ipcev_wire) == ACL_IPC_EVENT_HANDLE_SIZE,
	       "aclrtIpcEventHandle is CANN's 64 bytes");

struct acl_ipcev {
	pthread_mutex_t lock;		/* orders this process's records; protects the stage */
	struct acl_device *home;	/* the page's device; constant */
	unsigned int gen;		/* home->gen when the page was made or mapped; constant */
	uint64_t va;			/* the page on @home; constant */
	uint64_t name;			/* the driver's name of it; constant */
	bool imported;			/* opened: an IPC mapping, @home held open; constant */
	struct acl_device *stage_dev;	/* NULL, or the device of @stage */
	unsigned int stage_gen;		/* stage_dev->gen when @stage was made */
	uint64_t stage;			/* a page of stage_dev: the values its records copy */
};

int acl_ipcev_chip(void)
{
	if (acl_chip_features() & ACL_SOC_IPC_EVENT)
		return 0;
	return acl_errf(ACLI_ERTNOTSUPP, "the chip has no IPC events (CANN: RT_FEATURE_IPC_EVENT)");
}

/* The byte offset of record @n's word in the page (@n > 0). */
static uint64_t acl_ipcev_slot(uint64_t n)
{
	return 8 * (1 + (n - 1) % ACL_IPCEV_RING);
}

/* @cmd on the page, run now on its device's internal stream. */
static int acl_ipcev_now(struct acl_ipcev *ev, struct npu_cmd *cmd)
{
	int ret;

	if (__atomic_load_n(&ev->home->gen, __ATOMIC_ACQUIRE) != ev->gen)
		return acl_errf(ACLI_EHANDLE, "the IPC event died with device %d's last context", ev->home->id);
	ret = acl_cmds_sync(ev->home, cmd, 1);
	if (ret == ACLI_ETASKFAULT)
		ret = acl_errf(ACLI_EHANDLE, "the IPC event was destroyed by its exporter: its page on device %d is revoked",
			       ev->home->id);
	return ret;
}

static int acl_ipcev_read(struct acl_ipcev *ev, uint64_t off, uint64_t *v)
{
	struct npu_cmd cmd = { .op = NPU_OP_COPY, .flags = NPU_CMD_DST_USER, .dst = (uintptr_t)v,
			       .src = ev->va + off, .length = sizeof(*v) };

	return acl_ipcev_now(ev, &cmd);
}

int acl_ipcev_create(struct acl_device *dev, struct acl_ipcev **out)
{
	struct acl_ipcev *ev;
	int ret;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return acl_errf(-ENOMEM, "out of host memory");
	ret = acl_ipc_page_export(dev, ACL_IPCEV_PAGE, true, ACLI_ENOEVENTRES, &ev->va, &ev->name);
	if (ret) {
		free(ev);
		return ret;
	}
	ev->home = dev;
	ev->gen = __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE);
	pthread_mutex_init(&ev->lock, NULL);
	*out = ev;
	return 0;
}

int acl_ipcev_open(struct acl_device *cur, const aclrtIpcEventHandle *h, struct acl_ipcev **out)
{
	struct acl_ipcev_wire w;
	char key[ACL_IPC_KEY_MAX + 1];
	struct acl_device *home;
	struct acl_ipcev *ev;
	int ret;

	memcpy(&w, h, sizeof(w));
	if (w.magic != ACL_IPCEV_MAGIC || w.dev >= ACL_MAX_DEVICES || !w.name)
		return acl_errf(ACLI_ERTPARAM, "handle is not one of aclrtIpcGetEventHandle");
	ret = acl_dev_check_id(w.dev, "the handle's device");
	if (ret)
		return ret;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return acl_errf(-ENOMEM, "out of host memory");
	/* the page lives on its own device, which this process may not have set */
	ret = acl_dev_hold((int)w.dev, &home);
	if (ret) {
		free(ev);
		return ret;
	}
	acl_ipc_key_make(key, sizeof(key), ACL_IPC_KIND_EVENT, NULL, home, w.name);
	ret = acl_ipc_import(cur, home, key, w.name, ACL_IPC_KIND_EVENT, true, &ev->va);
	if (ret) {
		acl_dev_unhold(home);
		free(ev);
		return ret;
	}
	ev->home = home;
	ev->gen = __atomic_load_n(&home->gen, __ATOMIC_ACQUIRE);
	ev->name = w.name;
	ev->imported = true;
	pthread_mutex_init(&ev->lock, NULL);
	*out = ev;
	return 0;
}

void acl_ipcev_handle(const struct acl_ipcev *ev, aclrtIpcEventHandle *h)
{
	struct acl_ipcev_wire w = { .name = ev->name, .magic = ACL_IPCEV_MAGIC, .dev = (uint32_t)ev->home->id };

	memcpy(h, &w, sizeof(w));
}

/* The page of @d that records of @d's streams copy from (under ev->lock). */
static int acl_ipcev_stage_locked(struct acl_ipcev *ev, struct acl_device *d)
{
	unsigned int gen = __atomic_load_n(&d->gen, __ATOMIC_ACQUIRE);
	int ret;

	if (ev->stage_dev == d && ev->stage_gen == gen)
		return 0;
	if (ev->stage_dev && __atomic_load_n(&ev->stage_dev->gen, __ATOMIC_ACQUIRE) == ev->stage_gen)
		return acl_errf(ACLI_ERTPARAM, "the IPC event is recorded from device %d already: record it on a stream of device %d (its own) or %d",
				ev->stage_dev->id, ev->home->id, ev->stage_dev->id);
	if (!acl_peer_enabled(d, ev->home))
		return acl_no_peer(d, ev->home);
	ret = acl_mm_alloc(d, ACL_IPCEV_PAGE, ACL_IPCEV_PAGE, &ev->stage);
	if (ret)
		return ret;
	ev->stage_dev = d;
	ev->stage_gen = gen;
	return 0;
}

int acl_ipcev_record(struct acl_ipcev *ev, struct acl_stream *s, uint32_t *id, uint64_t *seq)
{
	struct npu_cmd cmds[2], count = { .op = NPU_OP_WRITE_VALUE, .dst = ev->va };
	uint32_t ncmds = 1;
	uint64_t n, off;
	int ret;

	pthread_mutex_lock(&ev->lock);
	ret = acl_ipcev_read(ev, 0, &n);
	if (ret)
		goto out;
	off = acl_ipcev_slot(++n);
	if (s->dev == ev->home) {
		cmds[0] = (struct npu_cmd){ .op = NPU_OP_WRITE_VALUE, .dst = ev->va + off, .value = n };
	} else {
		ret = acl_ipcev_stage_locked(ev, s->dev);
		if (ret)
			goto out;
		cmds[0] = (struct npu_cmd){ .op = NPU_OP_WRITE_VALUE, .dst = ev->stage + off, .value = n };
		cmds[1] = (struct npu_cmd){ .op = NPU_OP_COPY, .flags = NPU_CMD_DST_PEER, .dst = ev->va + off,
					    .src = ev->stage + off, .length = sizeof(n),
					    .value = (uint64_t)__atomic_load_n(&ev->home->fd, __ATOMIC_ACQUIRE) };
		ncmds = 2;
	}
	ret = acl_stream_submit_at(s, cmds, ncmds, id, seq);
	if (ret == -EPERM && s->dev != ev->home)
		ret = acl_no_peer(s->dev, ev->home);
	/* queued: from now on waits wait for it */
	if (!ret) {
		count.value = n;
		ret = acl_ipcev_now(ev, &count);
	}
out:
	pthread_mutex_unlock(&ev->lock);
	return ret;
}

/* Wait on the host until record @n's word reaches it: -ETIMEDOUT after @timeout ms (-1: none). */
static int acl_ipcev_poll(struct acl_ipcev *ev, uint64_t n, int32_t timeout)
{
	struct timespec t0, t;
	useconds_t nap = 50;
	uint64_t v;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ret = acl_ipcev_read(ev, acl_ipcev_slot(n), &v);
		if (ret || v >= n)
			return ret;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (timeout >= 0 &&
		    (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= timeout)
			return -ETIMEDOUT;
		usleep(nap);
		nap = nap < 1000 ? 2 * nap : 1000;
	}
}

int acl_ipcev_wait(struct acl_ipcev *ev, struct acl_stream *s, uint32_t limit_ms, uint32_t *id, uint64_t *seq)
{
	struct npu_cmd cmd = { .op = NPU_OP_WAIT_VALUE, .flags = NPU_WAIT_GEQ };
	uint64_t n;
	int ret;

	ret = acl_ipcev_read(ev, 0, &n);
	if (ret || !n)
		return ret;
	if (s->dev != ev->home)
		return acl_ipcev_poll(ev, n, limit_ms ? (int32_t)limit_ms : -1);
	cmd.src = ev->va + acl_ipcev_slot(n);
	cmd.value = n;
	ret = acl_stream_submit_at(s, &cmd, 1, id, seq);
	return ret ? ret : 1;
}

int acl_ipcev_query(struct acl_ipcev *ev, bool *done)
{
	uint64_t n, v = 0;
	int ret;

	ret = acl_ipcev_read(ev, 0, &n);
	if (!ret && n)
		ret = acl_ipcev_read(ev, acl_ipcev_slot(n), &v);
	if (!ret)
		*done = v >= n;
	return ret;
}

int acl_ipcev_sync(struct acl_ipcev *ev, int32_t timeout)
{
	uint64_t n;
	int ret;

	ret = acl_ipcev_read(ev, 0, &n);
	return ret || !n ? ret : acl_ipcev_poll(ev, n, timeout);
}

void acl_ipcev_free(struct acl_ipcev *ev)
{
	struct acl_device *d = ev->stage_dev;

	if (d && __atomic_load_n(&d->gen, __ATOMIC_ACQUIRE) == ev->stage_gen)
		acl_mm_free(d, ev->stage, ACL_REGION_MALLOC);
	/* the exporter's free revokes the key: its importers' accesses fault from now on */
	if (__atomic_load_n(&ev->home->gen, __ATOMIC_ACQUIRE) == ev->gen)
		acl_mm_free(ev->home, ev->va, ev->imported ? ACL_REGION_IPC : ACL_REGION_MALLOC);
	if (ev->imported)
		acl_dev_unhold(ev->home);
	acl_ipcev_forget(ev);
}

void acl_ipcev_forget(struct acl_ipcev *ev)
{
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}
