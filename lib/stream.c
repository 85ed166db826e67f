// SPDX-License-Identifier: MIT
/*
 * Streams, events and stream memory operations (aclrtValueWrite/Wait).
 *
 * An aclrtStream is a struct acl_stream *; NULL means the current
 * device's default stream.  An event remembers the seqno of the last
 * command its stream had queued when it was recorded: waiting for the
 * event is waiting for that seqno.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <acl/acl.h>

#include "device.h"
#include "error.h"
#include "ioctl.h"
#include "region.h"
#include "stream.h"

int acl_stream_new(struct acl_device *dev, struct acl_stream **out)
{
	struct npu_stream_create arg = { .size = sizeof(arg) };
	struct acl_stream *s;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return acl_errf(-ENOMEM, "out of host memory");
	ret = npu_ioctl(dev->fd, NPU_IOCTL_STREAM_CREATE, &arg);
	if (ret) {
		free(s);
		return ret;
	}
	s->dev = dev;
	s->id = arg.stream;
	pthread_mutex_init(&s->lock, NULL);
	list_init(&s->node);
	*out = s;
	return 0;
}

void acl_stream_free(struct acl_stream *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* @p if it is a live stream of an open device, else NULL. */
static struct acl_stream *acl_stream_lookup(const void *p)
{
	return acl_dev_find(streams, struct acl_stream, p);
}

int acl_stream_resolve(aclrtStream stream, struct acl_stream **out)
{
	struct acl_device *dev;
	int ret;

	if (!stream) {
		ret = acl_cur_dev(&dev);
		if (ret)
			return ret;
		*out = dev->default_stream;
		return 0;
	}
	*out = acl_stream_lookup(stream);
	if (!*out)
		return acl_errf(-EINVAL, "stream %p is not a live stream (destroyed, or its device reset?)",
				stream);
	return 0;
}

int acl_stream_submit(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint64_t *seq)
{
	struct npu_submit arg = {
		.size = sizeof(arg),
		.stream = s->id,
		.count = n,
		.cmds = (uintptr_t)cmds,
	};
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = npu_ioctl(s->dev->fd, NPU_IOCTL_SUBMIT, &arg);
	if (!ret)
		s->last_seq = arg.seqno;
	pthread_mutex_unlock(&s->lock);
	if (!ret && seq)
		*seq = arg.seqno;
	return ret;
}

static int64_t acl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int acl_stream_wait(struct acl_device *dev, uint32_t id, uint64_t seq, int32_t timeout_ms)
{
	struct npu_stream_sync arg = {
		.size = sizeof(arg),
		.stream = id,
		.timeout_ms = timeout_ms,
		.seqno = seq,
	};
	int64_t deadline = acl_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	int ret;

	/*
	 * A signal ends the driver's wait with -EINTR: wait on until the
	 * deadline, not for the whole timeout again, or a periodic signal
	 * would keep a bounded wait from ever timing out.
	 */
	while ((ret = npu_ioctl_once(dev->fd, NPU_IOCTL_STREAM_SYNC, &arg)) == -EINTR) {
		if (timeout_ms >= 0) {
			int64_t left = deadline - acl_now_ms();

			arg.timeout_ms = left > 0 ? (int32_t)left : 0;
		}
	}
	if (ret == -ETIMEDOUT)
		return acl_errf(ret, "stream did not complete within %d ms", timeout_ms);
	if (ret == -EIO)
		return acl_errf(ret, "a command on the stream faulted (see the kernel log)");
	return ret;
}

int acl_stream_sync(struct acl_stream *s, int32_t timeout_ms)
{
	return acl_stream_wait(s->dev, s->id, 0, timeout_ms);
}

ACL_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
	struct acl_device *dev;
	struct acl_stream *s;
	int ret;

	ret = acl_enter(&dev, stream);
	if (ret)
		goto out;
	ret = acl_stream_new(dev, &s);
	if (ret)
		goto out;
	pthread_mutex_lock(&dev->lock);
	list_add_tail(&s->node, &dev->streams);
	pthread_mutex_unlock(&dev->lock);
	*stream = s;
out:
	return acl_ret(__func__, ret);
}

static int acl_stream_destroy(aclrtStream stream, uint32_t flags)
{
	struct npu_stream_destroy arg = { .size = sizeof(arg), .flags = flags };
	struct acl_device *dev;
	struct acl_stream *s;
	int ret;

	ret = acl_check_init();
	if (ret)
		return ret;
	if (!stream)
		return acl_errf(-EINVAL, "stream must not be NULL (the default stream cannot be destroyed)");
	s = acl_stream_lookup(stream);
	if (!s)
		return acl_errf(-EINVAL, "stream %p is not a live stream", stream);
	if (s->is_default)
		return acl_errf(-EINVAL, "stream %p is a default stream and cannot be destroyed", stream);
	dev = s->dev;
	/* Unlink first so no other call finds it while the kernel waits. */
	pthread_mutex_lock(&dev->lock);
	list_del(&s->node);
	pthread_mutex_unlock(&dev->lock);
	arg.stream = s->id;
	ret = npu_ioctl(dev->fd, NPU_IOCTL_STREAM_DESTROY, &arg);
	acl_stream_free(s);
	return ret;
}

ACL_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
	return acl_ret(__func__, acl_stream_destroy(stream, 0));
}

ACL_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
	return acl_ret(__func__, acl_stream_destroy(stream, NPU_STREAM_DESTROY_FORCE));
}

static int acl_sync_stream(aclrtStream stream, int32_t timeout)
{
	struct acl_stream *s;
	int ret;

	ret = acl_check_init();
	if (ret)
		return ret;
	ret = acl_stream_resolve(stream, &s);
	if (ret)
		return ret;
	return acl_stream_sync(s, timeout);
}

ACL_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
	return acl_ret(__func__, acl_sync_stream(stream, -1));
}

ACL_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
	int ret = acl_check_init();

	/* CANN: -1 waits forever, > 0 is milliseconds; nothing else */
	if (!ret && (timeout == 0 || timeout < -1))
		ret = acl_errf(-EINVAL, "timeout %d must be -1 (forever) or > 0 milliseconds", timeout);
	if (!ret)
		ret = acl_sync_stream(stream, timeout);
	return acl_ret(__func__, ret);
}

/* Events */

static struct acl_event *acl_event_lookup(const void *p)
{
	return acl_dev_find(events, struct acl_event, p);
}

static int acl_event_get(aclrtEvent event, struct acl_event **out)
{
	int ret = acl_check_init();

	if (ret)
		return ret;
	if (!event)
		return acl_errf(-EINVAL, "event must not be NULL");
	*out = acl_event_lookup(event);
	if (!*out)
		return acl_errf(-EINVAL, "event %p is not a live event", event);
	return 0;
}

ACL_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
	struct acl_device *dev;
	struct acl_event *e;
	int ret;

	ret = acl_enter(&dev, event);
	if (ret)
		goto out;
	e = calloc(1, sizeof(*e));
	if (!e) {
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	e->dev = dev;
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_lock(&dev->lock);
	list_add_tail(&e->node, &dev->events);
	pthread_mutex_unlock(&dev->lock);
	*event = e;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
	struct acl_event *e;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		goto out;
	pthread_mutex_lock(&e->dev->lock);
	list_del(&e->node);
	pthread_mutex_unlock(&e->dev->lock);
	pthread_mutex_destroy(&e->lock);
	free(e);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
	struct acl_stream *s;
	struct acl_event *e;
	uint64_t seq;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		goto out;
	ret = acl_stream_resolve(stream, &s);
	if (ret)
		goto out;
	pthread_mutex_lock(&s->lock);
	seq = s->last_seq;
	pthread_mutex_unlock(&s->lock);

	pthread_mutex_lock(&e->lock);
	e->recorded = true;
	e->rec_dev = s->dev;
	e->rec_gen = s->dev->gen;
	e->rec_stream = s->id;
	e->rec_seq = seq;
	pthread_mutex_unlock(&e->lock);
out:
	return acl_ret(__func__, ret);
}

/* Snapshot of what an event waits for; false when there is nothing to wait for. */
static bool acl_event_target(struct acl_event *e, struct acl_device **dev, uint32_t *stream,
			     uint64_t *seq)
{
	bool pending;

	pthread_mutex_lock(&e->lock);
	pending = e->recorded && e->rec_seq &&
		  __atomic_load_n(&e->rec_dev->gen, __ATOMIC_ACQUIRE) == e->rec_gen;
	*dev = e->rec_dev;
	*stream = e->rec_stream;
	*seq = e->rec_seq;
	pthread_mutex_unlock(&e->lock);
	return pending;
}

ACL_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
	struct acl_device *dev;
	struct acl_event *e;
	uint32_t stream;
	uint64_t seq;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		goto out;
	/* never recorded, or recorded on an idle stream: complete */
	if (!acl_event_target(e, &dev, &stream, &seq))
		goto out;
	ret = acl_stream_wait(dev, stream, seq, -1);
	/* the stream was destroyed since, which waited for its work */
	if (ret == -ENOENT)
		ret = 0;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
	struct acl_device *dev;
	struct acl_stream *s;
	struct acl_event *e;
	struct npu_cmd cmd = { .op = NPU_OP_WAIT_STREAM };
	uint32_t src;
	uint64_t seq;
	int ret;

	ret = acl_event_get(event, &e);
	if (ret)
		goto out;
	ret = acl_stream_resolve(stream, &s);
	if (ret)
		goto out;
	if (!acl_event_target(e, &dev, &src, &seq))
		goto out;
	if (dev != s->dev) {
		/* stream ids are per context: wait on the host instead */
		ret = acl_stream_wait(dev, src, seq, -1);
		if (ret == -ENOENT)
			ret = 0;
		goto out;
	}
	cmd.src = src;
	cmd.value = seq;
	ret = acl_stream_submit(s, &cmd, 1, NULL);
	if (ret == -ENOENT)
		ret = acl_errf(ret, "the stream event %p was recorded on no longer exists", event);
out:
	return acl_ret(__func__, ret);
}

/* Stream memory operations */

static int acl_value_addr(struct acl_stream *s, void *devAddr, uint32_t *cmd_flags, bool host_ok)
{
	struct npu_addr_query q;
	int ret;

	ret = acl_addr_query(s->dev, (uintptr_t)devAddr, &q);
	if (ret)
		return ret;
	if (q.kind == NPU_ADDR_DEVICE)
		return 0;
	if (q.kind == NPU_ADDR_HOST && host_ok) {
		*cmd_flags = NPU_CMD_DST_HOST;
		return 0;
	}
	return acl_errf(-EINVAL, "devAddr %p is not device memory of device %d%s", devAddr, s->dev->id,
			host_ok ? " nor registered host memory" : "");
}

ACL_EXPORT aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_WRITE_VALUE, .value = value };
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, devAddr);
	if (ret)
		goto out;
	if ((uintptr_t)devAddr & 7) {
		ret = acl_errf(-EINVAL, "devAddr %p must be 8-byte aligned", devAddr);
		goto out;
	}
	if (flag) {
		ret = acl_errf(-EINVAL, "flag %#x must be 0", flag);
		goto out;
	}
	ret = acl_stream_resolve(stream, &s);
	if (ret)
		goto out;
	ret = acl_value_addr(s, devAddr, &cmd.flags, true);
	if (ret)
		goto out;
	cmd.dst = (uintptr_t)devAddr;
	ret = acl_stream_submit(s, &cmd, 1, NULL);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
	static const uint32_t cond[] = {
		[ACL_STREAM_WAIT_VALUE_GEQ] = NPU_WAIT_GEQ,
		[ACL_STREAM_WAIT_VALUE_EQ] = NPU_WAIT_EQ,
		[ACL_STREAM_WAIT_VALUE_AND] = NPU_WAIT_AND,
		[ACL_STREAM_WAIT_VALUE_NOR] = NPU_WAIT_NOR,
	};
	struct npu_cmd cmd = { .op = NPU_OP_WAIT_VALUE, .value = value };
	struct acl_stream *s;
	uint32_t host = 0;
	int ret;

	ret = acl_enter(NULL, devAddr);
	if (ret)
		goto out;
	if ((uintptr_t)devAddr & 7) {
		ret = acl_errf(-EINVAL, "devAddr %p must be 8-byte aligned", devAddr);
		goto out;
	}
	if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
		ret = acl_errf(-EINVAL, "flag %u must be ACL_STREAM_WAIT_VALUE_GEQ/EQ/AND/NOR (0..3)", flag);
		goto out;
	}
	ret = acl_stream_resolve(stream, &s);
	if (ret)
		goto out;
	/* the device polls a device address: no host operand for WAIT_VALUE */
	ret = acl_value_addr(s, devAddr, &host, false);
	if (ret)
		goto out;
	cmd.flags = cond[flag];
	cmd.src = (uintptr_t)devAddr;
	ret = acl_stream_submit(s, &cmd, 1, NULL);
out:
	return acl_ret(__func__, ret);
}
