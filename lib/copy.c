// SPDX-License-Identifier: MIT
/*
 * aclrtMemcpy(Async), aclrtMemcpyAsyncWithCondition and aclrtMemset(Async);
 * for the commands whose operands the engine reads from device memory
 * (copydesc.c, cmo.c), that read at a stream's point.
 *
 * Each side of a copy is classified from the memory layer's records
 * (acl_mm_query(), no system call): device memory, registered host memory
 * (the device reaches it directly: one COPY command, queued and waited
 * for in one SUBMIT when synchronous), or pageable host memory. A
 * synchronous copy of at least ACL_DIRECT_MIN bytes between pageable
 * memory and device memory is direct: COPY commands whose host side is
 * NPU_CMD_*_USER, which the driver pins for the command's duration, in
 * pieces so that pinning the next overlaps the DMA of the last. Smaller
 * ones, asynchronous ones, and all when ACL_NPU_PAGEABLE_COPY=staged (or
 * aclInit's pageableCopy) says so go through a per-device pinned staging
 * buffer of two halves, the CPU filling (or draining) one half while the
 * DMA of the other runs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "callback.h"
#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "mm.h"
#include "model.h"
#include "peer.h"
#include "snapstate.h"
#include "stream.h"

/*
 * A device's copy machinery: each busy mutex is held across its stream's
 * submits and waits, so that synchronous copies from any context or
 * thread share two internal streams.
 */
struct acl_copier {
	pthread_mutex_t copy_lock;	/* serialises synchronous direct copies */
	struct acl_stream *copy_stream;
	pthread_mutex_t stage_lock;	/* serialises staged copies; protects stage_* */
	struct acl_stream *stage_stream;
	void *stage_buf;		/* 2 * stage_half, registered, lazily */
	size_t stage_half;
};

static int acl_dev_range_check(const void *p, size_t len, const struct acl_mem_info *q,
			       const char *name)
{
	uint64_t addr = (uintptr_t)p;

	if (addr + len < addr || addr + len > q->base + q->length)
		return acl_errf(-EINVAL, "%s %p+%zu runs past the end of its device allocation (%#llx+%#llx)",
				name, p, len, (unsigned long long)q->base, (unsigned long long)q->length);
	return 0;
}

/*
 * The open device other than @dev with device memory at @addr (what it
 * says in *@q), or NULL: the one with a mapping there before one whose
 * reservation only has a hole there (mm.c's guests).
 */
static struct acl_device *acl_peer_at(struct acl_device *dev, uint64_t addr, struct acl_mem_info *q)
{
	struct acl_device *other, *hole = NULL;
	struct acl_mem_info hq;
	int pos = 0;

	while ((other = acl_dev_iter(&pos))) {
		if (other == dev || acl_mm_query(other, addr, q) || q->kind != NPU_ADDR_DEVICE)
			continue;
		if (!acl_mem_hole(q))
			return other;
		if (!hole) {
			hole = other;
			hq = *q;
		}
	}
	acl_err_clear();
	if (hole)
		*q = hq;
	return hole;
}

/*
 * What a batch's later copies may take @side's class for: @q's range, or
 * a VMM mapping's own (its neighbours may be another device's, mm.c).
 */
static void acl_side_span(struct acl_side *side, const struct acl_mem_info *q)
{
	bool map = q->rkind == ACL_REGION_VMM && q->map_len;

	side->base = map ? q->map_base : q->base;
	side->end = map ? q->map_base + q->map_len : q->base + q->length;
	/* a hole: none (another device's mapping may be next to it) */
	if (acl_mem_hole(q))
		side->base = side->end = 0;
}

/* Side @side is device memory of @other, a peer of the copying device. */
static int acl_side_peer(struct acl_side *side, struct acl_device *other, const void *p, size_t len,
			 const struct acl_mem_info *q, const char *name)
{
	side->kind = ACL_SIDE_PEER;
	side->owner = other;
	acl_side_span(side, q);
	return acl_dev_range_check(p, len, q, name);
}

/* acl_classify() with what the records say of @p in *@q already. */
static int acl_classify_as(struct acl_device *dev, const void *p, size_t len, bool dst,
			   const char *name, struct acl_mem_info *q, struct acl_side *side)
{
	uint64_t addr = (uintptr_t)p;
	struct acl_device *other;
	struct acl_mem_info pq;

	side->dev_alias = false;
	side->managed = false;
	side->owner = NULL;
	acl_side_span(side, q);
	switch (q->kind) {
	case NPU_ADDR_MIRROR:
		/* the copying device reaches it at its own address */
		side->kind = ACL_SIDE_DEVICE;
		side->managed = true;
		side->owner = dev;
		return acl_dev_range_check(p, len, q, name);
	case NPU_ADDR_DEVICE:
		/* a reservation's hole may hold another device's mapping (mm.c) */
		if (acl_mem_hole(q) && (other = acl_peer_at(dev, addr, &pq)) && !acl_mem_hole(&pq))
			return acl_side_peer(side, other, p, len, &pq, name);
		side->kind = ACL_SIDE_DEVICE;
		side->owner = dev;
		return acl_dev_range_check(p, len, q, name);
	case NPU_ADDR_HOST:
		/* a range leaving its registration, or a read-only one written, is staged */
		if (addr + len <= q->base + q->length && !(dst && (q->host_flags & NPU_HOST_READONLY))) {
			side->kind = ACL_SIDE_PINNED;
			side->dev_alias = (q->host_flags & NPU_HOST_MAPPED) && q->dev_addr == addr;
		} else {
			side->kind = ACL_SIDE_PAGEABLE;
			side->base = side->end = 0;
		}
		return 0;
	}
	/* device memory of another device is no host memory: a peer operand */
	other = acl_peer_at(dev, addr, &pq);
	if (other)
		return acl_side_peer(side, other, p, len, &pq, name);
	side->kind = ACL_SIDE_PAGEABLE;
	side->base = side->end = 0;
	return 0;
}

int acl_classify(struct acl_device *dev, const void *p, size_t len, bool dst, const char *name,
		 struct acl_side *side)
{
	struct acl_mem_info q;
	int ret = acl_mm_query(dev, (uintptr_t)p, &q);

	return ret ? ret : acl_classify_as(dev, p, len, dst, name, &q, side);
}

int acl_classify_near(struct acl_device *dev, const void *p, size_t len, bool dst, const char *name,
		      const struct acl_side *prev, struct acl_side *side)
{
	uint64_t addr = (uintptr_t)p;

	/* many copies of a batch lie in one buffer: no lookup for those */
	if (prev && prev->end && addr >= prev->base && addr <= prev->end &&
	    len <= prev->end - addr) {
		*side = *prev;
		return 0;
	}
	return acl_classify(dev, p, len, dst, name, side);
}

/* Both sides of a copy on the copying device @e. */
static int acl_classify_pair(struct acl_device *e, const void *dst, size_t dlen, struct acl_side *d,
			     const void *src, size_t slen, struct acl_side *s)
{
	struct acl_mem_info qd, qs;
	int ret = acl_mm_query_pair(e, (uintptr_t)dst, &qd, (uintptr_t)src, &qs);

	if (!ret)
		ret = acl_classify_as(e, dst, dlen, true, "dst", &qd, d);
	return ret ? ret : acl_classify_as(e, src, slen, false, "src", &qs, s);
}

/* The open device whose VA reservation holds side @s; NULL for host and managed memory. */
static struct acl_device *acl_side_owner(const struct acl_side *s)
{
	return s->kind == ACL_SIDE_DEVICE && !s->managed ? s->owner :
	       s->kind == ACL_SIDE_PEER ? s->owner : NULL;
}

/* The device whose memory a device side is, as seen from the copying device @e. */
static struct acl_device *acl_side_dev(const struct acl_side *s, struct acl_device *e)
{
	return s->kind == ACL_SIDE_PEER ? s->owner : e;
}

static const char *acl_kind_name(aclrtMemcpyKind kind)
{
	static const char *const names[] = {
		"HOST_TO_HOST", "HOST_TO_DEVICE", "DEVICE_TO_HOST", "DEVICE_TO_DEVICE",
		"DEFAULT", "HOST_TO_BUF_TO_DEVICE", "INNER_DEVICE_TO_DEVICE", "INTER_DEVICE_TO_DEVICE",
	};

	return (unsigned int)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

int acl_kind_check(aclrtMemcpyKind kind, struct acl_device *e, const struct acl_side *d,
			  const struct acl_side *s)
{
	bool dst_ok = true, src_ok = true;
	const char *want_dst = NULL, *want_src = NULL;

	switch (kind) {
	case ACL_MEMCPY_HOST_TO_HOST:
		dst_ok = acl_side_is_host(d);
		src_ok = acl_side_is_host(s);
		want_dst = want_src = "host";
		break;
	case ACL_MEMCPY_HOST_TO_DEVICE:
	case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
		dst_ok = acl_side_is_dev(d);
		src_ok = acl_side_is_host(s);
		want_dst = "device";
		want_src = "host";
		break;
	case ACL_MEMCPY_DEVICE_TO_HOST:
		dst_ok = acl_side_is_host(d);
		src_ok = acl_side_is_dev(s);
		want_dst = "host";
		want_src = "device";
		break;
	case ACL_MEMCPY_DEVICE_TO_DEVICE:
		dst_ok = acl_side_is_dev(d);
		src_ok = acl_side_is_dev(s);
		want_dst = want_src = "device";
		break;
	case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
	case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE:
		dst_ok = acl_side_is_dev(d);
		src_ok = acl_side_is_dev(s);
		want_dst = want_src = "device";
		if (dst_ok && src_ok) {
			bool same = acl_side_dev(d, e) == acl_side_dev(s, e);

			if (kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE && !same)
				return acl_errf(-EINVAL, "kind INNER_DEVICE_TO_DEVICE needs dst and src on one device; dst is on device %d, src on device %d",
						acl_side_dev(d, e)->id, acl_side_dev(s, e)->id);
			if (kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE && same)
				return acl_errf(-EINVAL, "kind INTER_DEVICE_TO_DEVICE needs dst and src on two devices; both are on device %d",
						acl_side_dev(d, e)->id);
		}
		break;
	default:
		break;
	}
	if (!dst_ok)
		return acl_errf(-EINVAL, "kind %s needs dst to be %s memory", acl_kind_name(kind), want_dst);
	if (!src_ok)
		return acl_errf(-EINVAL, "kind %s needs src to be %s memory", acl_kind_name(kind), want_src);
	return 0;
}

static int acl_copy_args(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
	int ret = acl_check_init();

	if (ret)
		return ret;
	if (!dst || !src)
		return acl_errf(-EINVAL, "%s must not be NULL", !dst ? "dst" : "src");
	if (!count)
		return acl_errf(-EINVAL, "count must be non-zero");
	if (count > destMax)
		return acl_errf(-EINVAL, "count %zu exceeds destMax %zu", count, destMax);
	if ((unsigned int)kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
		return acl_errf(-EINVAL, "kind %d is not an aclrtMemcpyKind", (int)kind);
	/* device work follows: it waits while the process is locked for a snapshot */
	acl_snap_gate();
	return 0;
}

/* Staging */

/*
 * The staging buffer starts an odd number of pages past a 2 MiB boundary,
 * so that it does not share page colour (modulo 2 MiB) with 2 MiB-aligned
 * user buffers (large mallocs, THP): the copy into or out of it would pay
 * for that on a CPU with a direct-mapped TLB, an emulated one for instance
 * (Documentation/benchmarks.rst).
 */
#define ACL_STAGE_ALIGN		(2ULL << 20)
#define ACL_STAGE_SKEW		(37 * 4096ULL)

/*
 * One per device slot, never freed: a copy racing with the device's close
 * (the last context going in another thread) finds the streams gone under
 * the copier's lock instead of freed memory.
 */
static struct acl_copier acl_copiers[ACL_MAX_DEVICES] = {
	[0 ... ACL_MAX_DEVICES - 1] = {
		.copy_lock = PTHREAD_MUTEX_INITIALIZER,
		.stage_lock = PTHREAD_MUTEX_INITIALIZER,
	},
};

int acl_copy_open(struct acl_device *dev)
{
	struct acl_copier *c = &acl_copiers[dev->id];
	struct acl_stream *cs = NULL, *ss = NULL;
	int ret;

	ret = acl_stream_new(dev, &cs);
	if (!ret)
		ret = acl_stream_new(dev, &ss);
	if (ret) {
		/* the kernel streams go with the file */
		acl_stream_free(cs);
		return ret;
	}
	pthread_mutex_lock(&c->copy_lock);
	pthread_mutex_lock(&c->stage_lock);
	c->copy_stream = cs;
	c->stage_stream = ss;
	pthread_mutex_unlock(&c->stage_lock);
	pthread_mutex_unlock(&c->copy_lock);
	dev->copier = c;
	return 0;
}

void acl_copy_close(struct acl_device *dev, bool in_child)
{
	struct acl_copier *c = dev->copier;

	if (!c)
		return;
	if (in_child) {
		/* another thread of the parent may have held them at fork */
		pthread_mutex_init(&c->copy_lock, NULL);
		pthread_mutex_init(&c->stage_lock, NULL);
	}
	/* a copy in progress ends first; the streams go with the file, the buffer with the records */
	pthread_mutex_lock(&c->copy_lock);
	pthread_mutex_lock(&c->stage_lock);
	c->stage_buf = NULL;
	acl_stream_free(c->copy_stream);
	acl_stream_free(c->stage_stream);
	c->copy_stream = c->stage_stream = NULL;
	pthread_mutex_unlock(&c->stage_lock);
	pthread_mutex_unlock(&c->copy_lock);
}

/* The copier's streams are gone: the device closed during the call. */
static int acl_copier_gone(struct acl_device *dev)
{
	return acl_errf(ACLI_ENOCTX, "device %d was reset during the copy", dev->id);
}

/* Whether the kernel lets this process pin past RLIMIT_MEMLOCK. */
static bool acl_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective & CAP_TO_MASK(CAP_IPC_LOCK);
}

/*
 * The staging buffer counts against RLIMIT_MEMLOCK like any page-locked
 * memory. Where the limit binds, it takes at most a quarter of it, so that
 * the default 8 MiB still leaves room for aclrtMallocHost and
 * aclrtHostRegister.
 */
static size_t acl_stage_half_size(void)
{
	size_t half = ACL_STAGE_HALF_MAX;
	struct rlimit rl;

	if (acl_cap_ipc_lock() || getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return half;
	while (half > ACL_STAGE_HALF_MIN && 2 * half > rl.rlim_cur / 4)
		half /= 2;
	return half;
}

/*
 * Map and pin the staging buffer on first use; dev->stage_lock held. A
 * buffer the limit does not take (the process's other registrations count
 * too) is retried at half the size, down to ACL_STAGE_HALF_MIN.
 */
static int acl_stage_get_locked(struct acl_device *dev)
{
	struct acl_copier *c = dev->copier;
	size_t half;
	void *p;
	int ret;

	if (c->stage_buf)
		return 0;
	for (half = acl_stage_half_size();; half /= 2) {
		ret = acl_mm_internal(dev, 2 * half, ACL_STAGE_ALIGN, ACL_STAGE_SKEW, false, &p);
		if (ret != -ENOMEM || half == ACL_STAGE_HALF_MIN)
			break;
	}
	if (ret == -ENOMEM)
		return acl_errf(ret, "cannot pin a %llu KiB staging buffer: over RLIMIT_MEMLOCK?",
				(unsigned long long)(2 * half >> 10));
	if (ret == -EOPNOTSUPP)
		return acl_errf(ret, "cannot register the staging buffer: the device would reach it only through swiotlb bounce buffers");
	if (ret)
		return acl_errf(ret, "cannot register the staging buffer: %s", strerror(-ret));
	c->stage_buf = p;
	c->stage_half = half;
	return 0;
}

/* Wait out whatever a failed pipeline left queued; faults report once each. */
static void acl_stage_drain(struct acl_stream *s, unsigned int queued)
{
	while (queued-- && acl_stream_sync(s, -1) == ACLI_ETASKFAULT)
		;
	acl_err_clear();
}

/*
 * Piece @k of transfer @x through halves of @half bytes: a part of the
 * single row (@x->height 1), or whole rows (@x->width <= @half). In the
 * staging buffer a piece is packed: its rows are @p->width apart.
 */
static void acl_stage_piece(const struct acl_xfer *x, size_t half, size_t k, struct acl_xfer *p)
{
	size_t rows = x->height == 1 ? 1 : half / x->width, off;

	*p = *x;
	if (x->height == 1) {
		off = k * half;
		p->dev += off;
		p->host += off;
		p->width = x->width - off < half ? x->width - off : half;
		return;
	}
	p->dev += k * rows * x->dev_pitch;
	p->host += k * rows * x->host_pitch;
	p->height = x->height - k * rows < rows ? x->height - k * rows : rows;
}

static size_t acl_stage_pieces(const struct acl_xfer *x, size_t half)
{
	size_t rows;

	if (x->height == 1)
		return (x->width + half - 1) / half;
	rows = half / x->width;
	return (x->height + rows - 1) / rows;
}

/* Move piece @p between the user's rows and its packed copy at @buf. */
static void acl_stage_pack(const struct acl_xfer *p, char *buf, bool to_buf)
{
	size_t r;

	for (r = 0; r < p->height; r++) {
		if (to_buf)
			memcpy(buf + r * p->width, p->host + r * p->host_pitch, p->width);
		else
			memcpy(p->host + r * p->host_pitch, buf + r * p->width, p->width);
	}
}

/* The command that moves piece @p between the device and @buf (@h2d: to the device). */
static struct npu_cmd acl_stage_cmd(const struct acl_xfer *p, char *buf, bool h2d)
{
	struct npu_cmd cmd = {
		.op = p->height == 1 ? NPU_OP_COPY : NPU_OP_COPY_2D,
		.flags = h2d ? NPU_CMD_SRC_HOST : NPU_CMD_DST_HOST,
		.dst = h2d ? p->dev : (uintptr_t)buf,
		.src = h2d ? (uintptr_t)buf : p->dev,
		.length = p->width,
	};

	if (p->height > 1) {
		cmd.height = p->height;
		cmd.dst_pitch = h2d ? p->dev_pitch : p->width;
		cmd.src_pitch = h2d ? p->width : p->dev_pitch;
	}
	return cmd;
}

static int acl_stage_h2d(struct acl_device *dev, const struct acl_xfer *x)
{
	struct acl_stream *s = dev->copier->stage_stream;
	size_t half = dev->copier->stage_half, n = acl_stage_pieces(x, half);
	char *buf = dev->copier->stage_buf;
	uint64_t seq[2] = { 0, 0 };
	unsigned int queued = 0, i = 0;
	struct acl_xfer p;
	struct npu_cmd cmd;
	bool waited;
	size_t k;
	int ret = 0;

	for (k = 0; k < n; k++, i ^= 1) {
		acl_stage_piece(x, half, k, &p);
		/* this half is free once its previous DMA has completed */
		if (seq[i]) {
			ret = acl_stream_wait(dev, s->id, seq[i], -1);
			if (ret)
				goto fail;
		}
		acl_stage_pack(&p, buf + i * half, true);
		cmd = acl_stage_cmd(&p, buf + i * half, true);
		if (k == n - 1) {
			/* the last piece, and the wait for all of them, in one system call */
			ret = acl_stream_submit_wait(s, &cmd, 1, &waited);
			if (waited)
				return ret;
			goto fail;
		}
		ret = acl_stream_submit(s, &cmd, 1, &seq[i]);
		if (ret)
			goto fail;
		queued++;
	}
	return 0;
fail:
	acl_stage_drain(s, queued);
	return ret;
}

static int acl_stage_d2h(struct acl_device *dev, const struct acl_xfer *x)
{
	struct acl_stream *s = dev->copier->stage_stream;
	size_t half = dev->copier->stage_half, nchunks = acl_stage_pieces(x, half);
	char *buf = dev->copier->stage_buf;
	uint64_t seq[2] = { 0, 0 };
	unsigned int queued = 0;
	struct acl_xfer p;
	struct npu_cmd cmd;
	bool waited;
	size_t k;
	int ret = 0;

	if (nchunks == 1) {
		/* one piece: queued and waited for in one system call */
		acl_stage_piece(x, half, 0, &p);
		cmd = acl_stage_cmd(&p, buf, false);
		ret = acl_stream_submit_wait(s, &cmd, 1, &waited);
		if (!ret)
			acl_stage_pack(&p, buf, false);
		return ret;
	}
	/* Keep both halves in flight: chunk k + 2 reuses the half of chunk k. */
	for (k = 0; k < nchunks + 2; k++) {
		if (k >= 2) {
			size_t d = k - 2;

			ret = acl_stream_wait(dev, s->id, seq[d & 1], -1);
			if (ret)
				goto fail;
			queued--;
			acl_stage_piece(x, half, d, &p);
			acl_stage_pack(&p, buf + (d & 1) * half, false);
		}
		if (k < nchunks) {
			acl_stage_piece(x, half, k, &p);
			cmd = acl_stage_cmd(&p, buf + (k & 1) * half, false);
			ret = acl_stream_submit(s, &cmd, 1, &seq[k & 1]);
			if (ret)
				goto fail;
			queued++;
		}
	}
	return 0;
fail:
	acl_stage_drain(s, queued);
	return ret;
}

/* Pageable copies: staged or direct */

/*
 * The mode aclInit's config file set (acl_copy_config()), which the
 * environment variable overrides; read at every synchronous pageable copy.
 */
static int acl_pageable_cfg = ACL_PAGEABLE_AUTO;

int acl_copy_mode_parse(const char *s)
{
	if (!strcmp(s, "auto"))
		return ACL_PAGEABLE_AUTO;
	if (!strcmp(s, "staged"))
		return ACL_PAGEABLE_STAGED;
	if (!strcmp(s, "direct"))
		return ACL_PAGEABLE_DIRECT;
	return -EINVAL;
}

void acl_copy_config(int mode)
{
	__atomic_store_n(&acl_pageable_cfg, mode, __ATOMIC_RELAXED);
}

static int acl_pageable_mode(void)
{
	const char *env = getenv("ACL_NPU_PAGEABLE_COPY");
	int mode = env && env[0] ? acl_copy_mode_parse(env) : -EINVAL;

	/* an unknown value is ignored, as CANN ignores its unknown settings */
	return mode >= 0 ? mode : __atomic_load_n(&acl_pageable_cfg, __ATOMIC_RELAXED);
}

/*
 * Direct: @x in commands of about ACL_DIRECT_PIECE host bytes, each a
 * SUBMIT that waits. The internal copy stream is idle, so the driver pins
 * each piece, copies it and lets it go in this thread, in one system
 * call: measured faster than queueing the pieces for the engine's
 * channel while this thread pins the next (Documentation/benchmarks.rst).
 * One row (@x->height 1) goes in pieces of the row; several rows (each
 * at most ACL_DIRECT_PIECE wide) as COPY_2D commands of as many rows as
 * fit a piece, the pitch gaps of the host side pinned with them. *@rest
 * is what is left when a SUBMIT was refused, for the caller to stage
 * (height 0: nothing): the driver cannot pin (-EFAULT: memory GUP does
 * not reach, such as a VM_IO or VM_PFNMAP mapping, or memory that is not
 * there, which staging then touches as CANN would), a piece is over its
 * max_user_pin (-ENOMEM), bounce buffers (-EOPNOTSUPP), a driver without
 * the flags (-EINVAL). copy_lock held.
 */
static int acl_direct_locked(struct acl_device *dev, const struct acl_xfer *x, bool d2h,
			     struct acl_xfer *rest)
{
	struct acl_stream *s = dev->copier->copy_stream;
	size_t rows = 1, r = 0, off = 0, chunk = x->width;
	bool queued = false;
	int ret = 0;

	*rest = *x;
	rest->height = 0;
	if (x->height > 1 && x->host_pitch)
		rows = ACL_DIRECT_PIECE / x->host_pitch ?: 1;
	if (rows > NPU_COPY_2D_MAX_HEIGHT)
		rows = NPU_COPY_2D_MAX_HEIGHT;
	while (r < x->height) {
		uint64_t dev_addr = x->dev + r * x->dev_pitch + off;
		uint64_t host = (uintptr_t)(x->host + r * x->host_pitch + off);
		struct npu_cmd cmd = {
			.op = NPU_OP_COPY,
			.flags = d2h ? NPU_CMD_DST_USER : NPU_CMD_SRC_USER,
			.dst = d2h ? host : dev_addr,
			.src = d2h ? dev_addr : host,
		};
		size_t n = rows;

		if (x->height == 1) {
			chunk = x->width - off < ACL_DIRECT_PIECE ? x->width - off : ACL_DIRECT_PIECE;
		} else {
			n = x->height - r < rows ? x->height - r : rows;
			if (n > 1) {
				cmd.op = NPU_OP_COPY_2D;
				cmd.height = n;
				cmd.dst_pitch = d2h ? x->host_pitch : x->dev_pitch;
				cmd.src_pitch = d2h ? x->dev_pitch : x->host_pitch;
			}
		}
		cmd.length = chunk;
		ret = acl_stream_submit_wait(s, &cmd, 1, &queued);
		/* a piece that ran and failed is the copy's error */
		if (ret)
			break;
		if (x->height == 1) {
			off += chunk;
			if (off == x->width)
				r = 1;
		} else {
			r += n;
		}
	}
	if (!ret || queued)
		return ret;
	acl_err_clear();
	if (ret != -EFAULT && ret != -ENOMEM && ret != -EOPNOTSUPP && ret != -EINVAL)
		return ret;
	rest->dev = x->dev + r * x->dev_pitch + off;
	rest->host = x->host + r * x->host_pitch + off;
	rest->width = x->width - off;
	rest->height = x->height - r;
	return 0;
}

/* The device and host sides of a copy between them (@d2h: to the host). */
static struct acl_xfer acl_xfer_of(void *dst, bool d2h, const void *src, const struct acl_shape *sh)
{
	struct acl_xfer x = {
		.dev = d2h ? (uintptr_t)src : (uintptr_t)dst,
		.dev_pitch = d2h ? sh->spitch : sh->dpitch,
		.host = d2h ? dst : (char *)src,
		.host_pitch = d2h ? sh->dpitch : sh->spitch,
		.width = sh->width,
		.height = sh->height,
	};

	return x;
}

/*
 * A copy between device memory and pageable host memory; returns when
 * done. Rows that fit a half travel together, as one command per half;
 * rows longer than a half, one at a time.
 */
static int acl_copy_staged(struct acl_device *dev, void *dst, const struct acl_side *d,
			   const void *src, const struct acl_shape *sh)
{
	bool d2h = d->kind == ACL_SIDE_PAGEABLE;
	struct acl_xfer x = acl_xfer_of(dst, d2h, src, sh);
	size_t rows = 1, r;
	int ret;

	pthread_mutex_lock(&dev->copier->stage_lock);
	ret = dev->copier->stage_stream ? acl_stage_get_locked(dev) : acl_copier_gone(dev);
	if (!ret && x.height > 1 && x.width > dev->copier->stage_half) {
		rows = x.height;
		x.height = 1;
	}
	for (r = 0; !ret && r < rows; r++) {
		ret = d2h ? acl_stage_d2h(dev, &x) : acl_stage_h2d(dev, &x);
		x.dev += x.dev_pitch;
		x.host += x.host_pitch;
	}
	pthread_mutex_unlock(&dev->copier->stage_lock);
	return ret;
}

/*
 * A synchronous copy between device memory and pageable host memory:
 * direct from ACL_DIRECT_MIN bytes (or always, or never, as the mode
 * says), staged otherwise and for what the driver would not pin.
 */
static int acl_copy_pageable(struct acl_device *dev, void *dst, const struct acl_side *d,
			     const void *src, const struct acl_shape *sh)
{
	struct acl_copier *c = dev->copier;
	bool d2h = d->kind == ACL_SIDE_PAGEABLE;
	struct acl_xfer x = acl_xfer_of(dst, d2h, src, sh), rest = { .height = 0 };
	struct acl_shape rsh;
	int mode = acl_pageable_mode();
	int ret = 0;

	if ((mode == ACL_PAGEABLE_DIRECT ||
	     (mode == ACL_PAGEABLE_AUTO && sh->width * sh->height >= ACL_DIRECT_MIN)) &&
	    (sh->height == 1 || sh->width <= ACL_DIRECT_PIECE)) {
		pthread_mutex_lock(&c->copy_lock);
		ret = c->copy_stream ? acl_direct_locked(dev, &x, d2h, &rest) : acl_copier_gone(dev);
		pthread_mutex_unlock(&c->copy_lock);
		if (ret || !rest.height)
			return ret;
		x = rest;
	}
	rsh = (struct acl_shape){
		.dpitch = d2h ? x.host_pitch : x.dev_pitch,
		.spitch = d2h ? x.dev_pitch : x.host_pitch,
		.width = x.width,
		.height = x.height,
	};
	return acl_copy_staged(dev, d2h ? (void *)x.host : (void *)(uintptr_t)x.dev, d,
			       d2h ? (const void *)(uintptr_t)x.dev : x.host, &rsh);
}

int acl_cmds_sync(struct acl_device *dev, struct npu_cmd *cmds, uint32_t n)
{
	struct acl_copier *c = dev->copier;
	bool queued;
	int ret;

	/* the stream is idle under the lock: the driver runs them in this thread */
	pthread_mutex_lock(&c->copy_lock);
	ret = c->copy_stream ? acl_stream_submit_wait(c->copy_stream, cmds, n, &queued) :
			       acl_copier_gone(dev);
	pthread_mutex_unlock(&c->copy_lock);
	return ret;
}

/* One command on the internal copy stream, waited for. */
static int acl_cmd_sync(struct acl_device *dev, struct npu_cmd *cmd)
{
	return acl_cmds_sync(dev, cmd, 1);
}

uint32_t acl_side_flags(const struct acl_side *d, const struct acl_side *s)
{
	return (d->kind == ACL_SIDE_PINNED ? NPU_CMD_DST_HOST : 0) |
	       (s->kind == ACL_SIDE_PINNED ? NPU_CMD_SRC_HOST : 0) |
	       (d->kind == ACL_SIDE_PEER ? NPU_CMD_DST_PEER : 0) |
	       (s->kind == ACL_SIDE_PEER ? NPU_CMD_SRC_PEER : 0);
}

/*
 * The device whose DMA engine runs a synchronous copy between memory of
 * @od (dst) and @os (src), either NULL for host memory: the owner when
 * one device is involved; between two devices, one that has peer access
 * to the other enabled, the current device @cur first.
 */
static struct acl_device *acl_copy_engine(struct acl_device *cur, struct acl_device *od,
					  struct acl_device *os)
{
	if (!od && !os)
		return cur;
	if (!od || !os || od == os)
		return od ?: os;
	if (cur == od || cur == os) {
		struct acl_device *other = cur == od ? os : od;

		if (acl_peer_enabled(cur, other) || !acl_peer_enabled(other, cur))
			return cur;
		return other;
	}
	return acl_peer_enabled(os, od) || !acl_peer_enabled(od, os) ? os : od;
}

/*
 * A command of @e with sides @d and @s: at most one other device's
 * memory, *@peer, reached with peer access enabled (its fd in @cmd).
 */
static int acl_peer_operand(struct acl_device *e, const struct acl_side *d, const struct acl_side *s,
			    struct npu_cmd *cmd, struct acl_device **peer)
{
	if (d->kind == ACL_SIDE_PEER && s->kind == ACL_SIDE_PEER && d->owner != s->owner)
		return acl_errf(-EINVAL, "dst (device %d) and src (device %d) are both memory of devices other than the stream's device %d",
				d->owner->id, s->owner->id, e->id);
	if (d->kind != ACL_SIDE_PEER && s->kind != ACL_SIDE_PEER)
		return 0;
	*peer = d->kind == ACL_SIDE_PEER ? d->owner : s->owner;
	if (!acl_peer_enabled(e, *peer))
		return acl_no_peer(e, *peer);
	cmd->value = (uint64_t)__atomic_load_n(&(*peer)->fd, __ATOMIC_ACQUIRE);
	return 0;
}

/* The driver's answer @ret to a command of @e with @peer's memory, said as such. */
static int acl_peer_result(struct acl_device *e, struct acl_device *peer, int ret)
{
	if (peer && ret == -EPERM)
		return acl_no_peer(e, peer);
	if (peer && ret == -EBADF)
		return acl_errf(ret, "device %d was reset during the command", peer->id);
	if (peer && ret == ACLI_ETASKFAULT)
		return acl_errf(ret, "the command faulted: device %d reaches device %d's aclrtMalloc memory, and VMM mappings only where they grant it (aclrtMemSetAccess with location.id %d, READWRITE to write it)",
				e->id, peer->id, e->id);
	return ret;
}

/* Bytes from the start of the first of @sh's rows to the end of the last. */
static size_t acl_span(size_t pitch, const struct acl_shape *sh)
{
	return (sh->height - 1) * pitch + sh->width;
}

/* The direction the classified sides make: ACL_DIR_*. */
static unsigned int acl_dir(const struct acl_side *d, const struct acl_side *s)
{
	if (acl_side_is_dev(d))
		return acl_side_is_dev(s) ? ACL_DIR_D2D : ACL_DIR_H2D;
	return acl_side_is_dev(s) ? ACL_DIR_D2H : ACL_DIR_H2H;
}

static const char *acl_dir_name(unsigned int dir)
{
	return dir == ACL_DIR_H2D ? "host to device" : dir == ACL_DIR_D2H ? "device to host" :
	       dir == ACL_DIR_D2D ? "device to device" : "host to host";
}

int acl_copy_shape(struct acl_device *cur, struct acl_stream *stream, void *dst, const void *src,
		   const struct acl_shape *sh, aclrtMemcpyKind kind, unsigned int default_dirs)
{
	struct npu_cmd cmd = { .op = NPU_OP_COPY };
	size_t dspan = acl_span(sh->dpitch, sh), sspan = acl_span(sh->spitch, sh), r;
	struct acl_device *e, *peer = NULL;
	struct acl_side d, s;
	int ret;

	e = stream ? stream->dev : cur;
	ret = acl_classify_pair(e, dst, dspan, &d, src, sspan, &s);
	/* synchronous: the owners of the sides choose the device that copies */
	if (!ret && !stream) {
		e = acl_copy_engine(cur, acl_side_owner(&d), acl_side_owner(&s));
		if (e != cur)
			ret = acl_classify_pair(e, dst, dspan, &d, src, sspan, &s);
	}
	if (!ret)
		ret = acl_kind_check(kind, e, &d, &s);
	if (!ret && kind == ACL_MEMCPY_DEFAULT && !(default_dirs & acl_dir(&d, &s)))
		ret = acl_errf(ACLI_ERTPARAM, "kind DEFAULT: dst and src make a %s copy, which this call does not do",
			       acl_dir_name(acl_dir(&d, &s)));
	if (ret)
		return ret;

	if (!acl_side_is_dev(&d) && !acl_side_is_dev(&s)) {
		/* host to host: the CPU copies, after the stream's earlier work */
		if (stream)
			ret = acl_capture_sync_step(stream);
		for (r = 0; !ret && r < sh->height; r++)
			memmove((char *)dst + r * sh->dpitch, (const char *)src + r * sh->spitch, sh->width);
		return ret;
	}
	if (d.kind == ACL_SIDE_PAGEABLE || s.kind == ACL_SIDE_PAGEABLE) {
		/*
		 * Run by the device that owns the other side, and synchronous:
		 * direct or staged (acl_copy_pageable()); the async form is
		 * staged after the stream's earlier work, so that it returns
		 * once the source has been consumed.
		 */
		struct acl_device *owner = acl_side_dev(d.kind == ACL_SIDE_PAGEABLE ? &s : &d, e);

		if (!stream)
			return acl_copy_pageable(owner, dst, &d, src, sh);
		ret = acl_capture_sync_step(stream);
		if (!ret)
			ret = acl_copy_staged(owner, dst, &d, src, sh);
		return ret;
	}
	ret = acl_peer_operand(e, &d, &s, &cmd, &peer);
	if (ret)
		return ret;
	cmd.flags = acl_side_flags(&d, &s);
	cmd.dst = (uintptr_t)dst;
	cmd.src = (uintptr_t)src;
	cmd.length = sh->width;
	if (sh->height > 1) {
		/* every row in one command */
		cmd.op = NPU_OP_COPY_2D;
		cmd.height = sh->height;
		cmd.dst_pitch = sh->dpitch;
		cmd.src_pitch = sh->spitch;
	}
	if (stream)
		ret = acl_stream_launch(stream, &cmd, 1);
	else
		ret = acl_cmd_sync(e, &cmd);
	return acl_peer_result(e, peer, ret);
}

/*
 * A reduce on @s (aclrtReduceAsync): NPU_OP_REDUCE with @op_flags, its
 * operands as an asynchronous copy's (the stream's device memory,
 * managed memory, registered host memory, a peer's with peer access);
 * what the engine cannot reach, pageable host memory, it faults on when
 * it runs, as the vendor's SDMA engine does.
 */
int acl_stream_reduce(struct acl_stream *s, void *dst, const void *src, uint64_t len, uint32_t op_flags)
{
	struct npu_cmd cmd = { .op = NPU_OP_REDUCE, .dst = (uintptr_t)dst, .src = (uintptr_t)src, .length = len };
	struct acl_device *peer = NULL;
	struct acl_side d, sd;
	int ret;

	ret = acl_classify_pair(s->dev, dst, len, &d, src, len, &sd);
	if (!ret)
		ret = acl_peer_operand(s->dev, &d, &sd, &cmd, &peer);
	if (ret)
		return ret;
	cmd.flags = acl_side_flags(&d, &sd) | op_flags;
	return acl_peer_result(s->dev, peer, acl_stream_launch(s, &cmd, 1));
}

/*
 * Does @e's engine reach side @sd at its address, as a device VA of its
 * own? Its memory (managed memory too), host memory registered at its own
 * address, or another device's with peer access.
 */
static bool acl_side_reached(struct acl_device *e, const struct acl_side *sd)
{
	return sd->kind == ACL_SIDE_DEVICE || (sd->kind == ACL_SIDE_PINNED && sd->dev_alias) ||
	       (sd->kind == ACL_SIDE_PEER && acl_peer_enabled(e, sd->owner));
}

/* @cmd queued on @s (recorded, on a recording stream), or, @s NULL, run on @dev's copy stream now. */
static int acl_cmd_at(struct acl_device *dev, struct acl_stream *s, struct npu_cmd *cmd)
{
	return s ? acl_stream_launch(s, cmd, 1) : acl_cmd_sync(dev, cmd);
}

int acl_touch_at(struct acl_device *dev, struct acl_stream *s, const void *p, size_t len)
{
	struct npu_cmd cmd = { .op = NPU_OP_PREFETCH, .dst = (uintptr_t)p, .length = len };

	return acl_cmd_at(dev, s, &cmd);
}

int acl_stream_touch(struct acl_stream *s, const void *p, size_t len)
{
	return acl_touch_at(s->dev, s, p, len);
}

int acl_read_at(struct acl_device *dev, struct acl_stream *s, const void *addr, void *buf, size_t len)
{
	const struct acl_shape sh = { .dpitch = len, .spitch = len, .width = len, .height = 1 };
	struct acl_side sd;
	int ret;

	if (!acl_classify(dev, addr, len, false, "the address", &sd) && acl_side_reached(dev, &sd)) {
		ret = acl_copy_shape(dev, NULL, buf, addr, &sh, ACL_MEMCPY_DEVICE_TO_HOST, ACL_DIR_D2H);
		/* a mapping without read access: the engine's read faults (below) */
		if (ret != ACLI_ETASKFAULT)
			return ret;
	}
	acl_err_clear();
	/* what the engine's read would fault on: a command that faults as it would */
	ret = acl_touch_at(dev, s, addr, len);
	return ret ? ret : 1;
}

int acl_copy_va_at(struct acl_device *dev, struct acl_stream *s, uint64_t dst, uint64_t src, uint64_t len)
{
	const struct acl_shape sh = { .dpitch = len, .spitch = len, .width = len, .height = 1 };
	struct npu_cmd cmd = { .op = NPU_OP_COPY, .dst = dst, .src = src, .length = len };
	void *d = (void *)(uintptr_t)dst;
	const void *sp = (const void *)(uintptr_t)src;
	struct acl_side ds, ss;

	if (!acl_classify_pair(dev, d, len, &ds, sp, len, &ss) &&
	    (ds.kind == ACL_SIDE_PEER || ss.kind == ACL_SIDE_PEER) &&
	    acl_side_reached(dev, &ds) && acl_side_reached(dev, &ss))
		/* another device's memory: the peer operand, as aclrtMemcpyAsync has it */
		return acl_copy_shape(dev, s, d, sp, &sh, ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_DIR_D2D);
	acl_err_clear();
	/* device VAs of the device: the engine translates them when it runs */
	return acl_cmd_at(dev, s, &cmd);
}

/* A deferred task recorded in a model: its work at each run, and what it needs. */
struct acl_deferred {
	struct acl_device *dev;
	int (*run)(struct acl_device *dev, struct acl_stream *s, const void *arg);
	max_align_t arg[];
};

/*
 * A failure of the work (a fault of the copy on the internal copy stream,
 * an operand the engine could not use) is a task error of the stream
 * that runs the model, as the engine's task would fail there: its next
 * synchronize answers it (no exception callback: the fault was the copy
 * stream's, whose kernel log names it).
 */
static void acl_deferred_step(void *p)
{
	struct acl_deferred *t = p;
	struct acl_stream *s = acl_cb_current();
	int ret;

	ret = t->run(t->dev, NULL, t->arg);
	acl_err_clear();
	if (ret && s)
		acl_stream_keep_fault(s, ret == ACLI_EMEMUCE || ret == ACLI_ETASKTIMEOUT ? ret : ACLI_ETASKFAULT);
}

int acl_stream_deferred(struct acl_stream *s, int (*run)(struct acl_device *dev, struct acl_stream *s, const void *arg),
			const void *arg, size_t size)
{
	struct acl_deferred *t;
	uint32_t id;
	uint64_t seq;
	int ret;

	if (acl_stream_recording(s)) {
		t = malloc(sizeof(*t) + size);
		if (!t)
			return acl_errf(-ENOMEM, "out of host memory");
		t->dev = s->dev;
		t->run = run;
		memcpy(t->arg, arg, size);
		return acl_host_step_record(s, acl_deferred_step, t, free);
	}
	/* the engine reads them when the stream gets here: after the earlier work */
	acl_stream_point(s, &id, &seq);
	ret = acl_stream_reach(s, id, seq, -1);
	if (ret && ret != -ENOENT)
		return ret;
	acl_err_clear();
	return run(s->dev, s, arg);
}

/* @stream NULL: synchronous copy on @cur's choice of device; else queued on @stream. */
static int acl_copy(struct acl_device *cur, struct acl_stream *stream, void *dst, const void *src,
		    size_t count, aclrtMemcpyKind kind)
{
	const struct acl_shape sh = { .dpitch = count, .spitch = count, .width = count, .height = 1 };

	return acl_copy_shape(cur, stream, dst, src, &sh, kind, ACL_DIR_ALL);
}

ACL_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
				aclrtMemcpyKind kind)
{
	struct acl_device *dev;
	int ret;

	ret = acl_copy_args(dst, destMax, src, count, kind);
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_dev_aborting(dev);
	if (!ret)
		ret = acl_capture_mode_check(ACLI_ECAPMODE);
	if (!ret)
		ret = acl_copy(dev, NULL, dst, src, count, kind);
	return acl_ret(__func__, ret);
}

/* aclrtMemcpyAsync after its argument checks. */
static int acl_copy_async(void *dst, const void *src, size_t count, aclrtMemcpyKind kind, aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret) {
		ret = acl_copy(s->dev, s, dst, src, count, kind);
		acl_stream_put(s);
	}
	return ret;
}

ACL_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
				     aclrtMemcpyKind kind, aclrtStream stream)
{
	int ret = acl_copy_args(dst, destMax, src, count, kind);

	return acl_ret(__func__, ret ? ret : acl_copy_async(dst, src, count, kind, stream));
}

/*
 * The deprecated aclrtMemcpyAsync with CANN's CHECK_MEMORY_PINNED
 * condition (memory.cpp: checkBitmap 2): the runtime looks at whether the
 * host side is page-locked and, if not, waits for the stream and copies
 * synchronously - which aclrtMemcpyAsync always does here (every pointer
 * is in the memory layer's records). The acl layer takes count 0 first,
 * and only the kinds its MemcpyKindTranslate() knows: not the two
 * device-to-device ones of one or two devices.
 */
ACL_EXPORT aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
						  aclrtMemcpyKind kind, aclrtStream stream)
{
	int ret;

	if (!count)
		return ACL_SUCCESS;
	ret = acl_copy_args(dst, destMax, src, count, kind);
	if (!ret && (kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE || kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE))
		ret = acl_errf(-EINVAL, "kind %s: this call takes HOST_TO_HOST, HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE, DEFAULT or HOST_TO_BUF_TO_DEVICE",
			       acl_kind_name(kind));
	/* CANN's asynchronous copy refuses host to host on a host-attached card (no last error) */
	if (!ret && kind == ACL_MEMCPY_HOST_TO_HOST)
		ret = acl_errf(ACLI_ERTNOTSUPP, "kind HOST_TO_HOST: an asynchronous copy needs a device side");
	if (!ret)
		ret = acl_copy_async(dst, src, count, kind, stream);
	return acl_ret(__func__, ret);
}

static int acl_memset_args(void *devPtr, size_t maxCount, size_t count)
{
	int ret = acl_check_init();

	if (ret)
		return ret;
	if (!devPtr)
		return acl_errf(-EINVAL, "devPtr must not be NULL");
	if (!count)
		return acl_errf(-EINVAL, "count must be non-zero");
	if (count > maxCount)
		return acl_errf(-EINVAL, "count %zu exceeds maxCount %zu", count, maxCount);
	/* device work follows: it waits while the process is locked for a snapshot */
	acl_snap_gate();
	return 0;
}

static int acl_memset(struct acl_device *dev, struct acl_stream *stream, void *p, int32_t value,
		      size_t count)
{
	struct npu_cmd cmd = { .op = NPU_OP_MEMSET, .value = (uint8_t)value };
	struct acl_side d;
	int ret;

	ret = acl_classify(dev, p, count, true, "devPtr", &d);
	if (!ret && d.kind == ACL_SIDE_PEER) {
		/* another device's memory: that device sets it, synchronously */
		if (stream)
			ret = acl_capture_sync_step(stream);
		dev = d.owner;
		stream = NULL;
		if (!ret)
			ret = acl_classify(dev, p, count, true, "devPtr", &d);
	}
	if (ret)
		return ret;
	if (d.kind == ACL_SIDE_PAGEABLE) {
		if (stream)
			ret = acl_capture_sync_step(stream);
		if (!ret)
			memset(p, (uint8_t)value, count);
		return ret;
	}
	cmd.flags = d.kind == ACL_SIDE_PINNED ? NPU_CMD_DST_HOST : 0;
	cmd.dst = (uintptr_t)p;
	cmd.length = count;
	if (stream)
		return acl_stream_launch(stream, &cmd, 1);
	return acl_cmd_sync(dev, &cmd);
}

ACL_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
	struct acl_device *dev;
	int ret;

	ret = acl_memset_args(devPtr, maxCount, count);
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_dev_aborting(dev);
	if (!ret)
		ret = acl_capture_mode_check(ACLI_ECAPMODE);
	if (!ret)
		ret = acl_memset(dev, NULL, devPtr, value, count);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
				     aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_memset_args(devPtr, maxCount, count);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret) {
		ret = acl_memset(s->dev, s, devPtr, value, count);
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}
