// SPDX-License-Identifier: MIT
/*
 * tools/dcmi/dcmi_event.c - fault events: the driver's DMA faults, from
 * the netlink family's "faults" multicast group, as the vendor's DCMI
 * hands its events out: to a subscriber's callback on a thread of ours,
 * or one at a time to dcmi_get_fault_event(). A process uses one of the
 * two, as the vendor's reference says; its socket stays joined until the
 * process exits, so no event is lost between two dcmi_get_fault_event()
 * calls (at most EVENT_QUEUE wait; the oldest go first).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dcmi_internal.h"

#define EVENT_QUEUE	64

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static enum { EV_NONE, EV_SUBSCRIBED, EV_POLLING } ev_mode;
static struct npu_nl ev_nl;
static int ev_serial;

/* dcmi_get_fault_event's queue, under ev_lock. */
static struct dcmi_event queue[EVENT_QUEUE];
static int qhead, qlen;

/* The subscriber: its device (-1: all), filter and callback. */
static int sub_card;
static struct dcmi_event_filter sub_filter;
static dcmi_fault_event_callback sub_handler;

static void to_event(const struct npu_nl_fault *f, struct dcmi_event *e)
{
	struct dcmi_dms_fault_event *d = &e->event_t.dms_event;
	struct timespec now;

	memset(e, 0, sizeof(*e));
	clock_gettime(CLOCK_REALTIME, &now);
	e->type = DCMI_DMS_FAULT_EVENT;
	d->event_id = DCMI_NPU_EVENT_ID_DMA_FAULT;
	d->deviceid = f->dev;
	d->severity = 1;	/* minor: a process's command failed, the device works */
	d->assertion = 2;	/* one-off: nothing to recover from */
	d->event_serial_num = __atomic_add_fetch(&ev_serial, 1, __ATOMIC_RELAXED);
	d->notify_serial_num = d->event_serial_num;
	d->alarm_raised_time = (unsigned long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	snprintf(d->event_name, sizeof(d->event_name), "DMA fault: %s %s 0x%llx: %s (%s)",
		 f->write ? "write" : "read", f->host ? "host" : "va",
		 (unsigned long long)f->addr, f->reason, f->comm);
	snprintf(d->additional_info, sizeof(d->additional_info), "pid %u stream %u",
		 f->pid, f->stream);
}

static bool passes(const struct dcmi_event *e, int card, const struct dcmi_event_filter *flt)
{
	const struct dcmi_dms_fault_event *d = &e->event_t.dms_event;

	if (card >= 0 && d->deviceid != card)
		return false;
	if ((flt->filter_flag & DCMI_EVENT_FILTER_FLAG_EVENT_ID) && d->event_id != flt->event_id)
		return false;
	if ((flt->filter_flag & DCMI_EVENT_FILTER_FLAG_SERVERITY) && d->severity < flt->severity)
		return false;
	if ((flt->filter_flag & DCMI_EVENT_FILTER_FLAG_NODE_TYPE) && d->node_type != flt->node_type)
		return false;
	return true;
}

/* Join the group on ev_nl (ev_lock held); how the family answered. */
static int join_locked(void)
{
	int ret = npu_nl_open(&ev_nl);

	if (!ret)
		ret = npu_nl_faults_join(&ev_nl);
	if (ret)
		npu_nl_close(&ev_nl);
	return dcmi_from_errno(ret);
}

static void deliver(const struct npu_nl_fault *f, void *arg)
{
	struct dcmi_event e;

	(void)arg;
	to_event(f, &e);
	if (passes(&e, sub_card, &sub_filter))
		sub_handler(&e);
}

static void *subscriber(void *arg)
{
	struct pollfd pfd = { .fd = npu_nl_fault_fd(&ev_nl), .events = POLLIN };

	(void)arg;
	for (;;) {
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		if (npu_nl_fault_recv(&ev_nl, deliver, NULL) == -EIO)
			break;
	}
	return NULL;
}

/* The checks of both: the vendor's type check, then the logic id. */
static int check_dev(int card_id, int device_id)
{
	int logic, ret = dcmi_check_chip(card_id, device_id);

	return ret ? ret : dcmi_get_device_logic_id(&logic, card_id, device_id);
}

int dcmi_subscribe_fault_event(int card_id, int device_id, struct dcmi_event_filter filter,
			       dcmi_fault_event_callback handler)
{
	pthread_attr_t attr;
	pthread_t thread;
	int ret;

	if (!handler)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	if (card_id != -1 || device_id != -1) {
		ret = check_dev(card_id, device_id);
		if (ret)
			return ret;
	}
	pthread_mutex_lock(&ev_lock);
	if (ev_mode != EV_NONE) {
		ret = DCMI_ERR_CODE_RESOURCE_OCCUPIED;
		goto out;
	}
	ret = join_locked();
	if (ret)
		goto out;
	sub_card = card_id;
	sub_filter = filter;
	sub_handler = handler;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&thread, &attr, subscriber, NULL)) {
		npu_nl_close(&ev_nl);
		ret = DCMI_ERR_CODE_INNER_ERR;
	} else {
		ev_mode = EV_SUBSCRIBED;
	}
	pthread_attr_destroy(&attr);
out:
	pthread_mutex_unlock(&ev_lock);
	return ret;
}

static void enqueue(const struct npu_nl_fault *f, void *arg)
{
	(void)arg;
	if (qlen == EVENT_QUEUE) {	/* full: the oldest goes */
		qhead = (qhead + 1) % EVENT_QUEUE;
		qlen--;
	}
	to_event(f, &queue[(qhead + qlen) % EVENT_QUEUE]);
	qlen++;
}

/* The first queued event for @card that passes @filter; the others before
 * it are dropped (they were not asked for). */
static bool dequeue(int card, const struct dcmi_event_filter *filter, struct dcmi_event *event)
{
	while (qlen) {
		struct dcmi_event *e = &queue[qhead];

		qhead = (qhead + 1) % EVENT_QUEUE;
		qlen--;
		if (passes(e, card, filter)) {
			*event = *e;
			return true;
		}
	}
	return false;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int dcmi_get_fault_event(int card_id, int device_id, int timeout, struct dcmi_event_filter filter,
			 struct dcmi_event *event)
{
	long long deadline = now_ms() + timeout;
	struct pollfd pfd = { .events = POLLIN };
	int ret;

	if (!event)
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	if ((timeout < 0 && timeout != -1) || timeout > DCMI_EVENT_WAIT_MAX_MS) {
		memset(event, 0, sizeof(*event));
		return DCMI_ERR_CODE_INVALID_PARAMETER;
	}
	ret = check_dev(card_id, device_id);
	if (ret) {
		memset(event, 0, sizeof(*event));
		return ret;
	}
	pthread_mutex_lock(&ev_lock);
	if (ev_mode == EV_SUBSCRIBED) {
		ret = DCMI_ERR_CODE_RESOURCE_OCCUPIED;
	} else if (ev_mode == EV_NONE) {
		ret = join_locked();
		if (!ret)
			ev_mode = EV_POLLING;
	}
	pfd.fd = ret ? -1 : npu_nl_fault_fd(&ev_nl);
	while (!ret && !dequeue(card_id, &filter, event)) {
		long long left = timeout < 0 ? -1 : deadline - now_ms();
		int r;

		if (timeout >= 0 && left < 0)
			left = 0;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno != EINTR)
			ret = DCMI_ERR_CODE_INNER_ERR;
		else if (r == 0)
			ret = DCMI_ERR_CODE_TIME_OUT;
		else if (r > 0 && npu_nl_fault_recv(&ev_nl, enqueue, NULL) == -EIO)
			ret = DCMI_ERR_CODE_RECV_MSG_FAIL;
	}
	pthread_mutex_unlock(&ev_lock);
	if (ret)
		memset(event, 0, sizeof(*event));
	return ret;
}
