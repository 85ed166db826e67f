// SPDX-License-Identifier: MIT
/*
 * aclrtMemcpy2d(Async) and aclrtMemcpyBatch(Async)(V2): many copies, one
 * device submission.
 *
 * A 2D copy is one NPU_OP_COPY_2D command (acl_copy_shape() in copy.c,
 * which aclrtMemcpy shares). A batch is one descriptor list the device
 * walks, as the vendor's halMemcpyBatch() is: an NPU_OP_COPY_BATCH
 * command per run of copies in the same address spaces, all in one
 * SUBMIT (an asynchronous batch: one SUBMIT per NPU_COPY_BATCH_MAX
 * copies, which the driver counts as that many commands against its
 * queue).
 * Pageable host memory, which the device cannot reach, goes through the
 * staging buffer and is done when the call returns.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "context.h"
#include "copy.h"
#include "device.h"
#include "error.h"
#include "model.h"
#include "snapstate.h"
#include "stream.h"

/* The runtime's limits for a 2D copy (MemCopy2DCheckParam). */
#define ACL_2D_MAX_HEIGHT	5242880
#define ACL_2D_MAX_WIDTH	5000000

/* The synchronous batch's limit, which is also one SUBMIT's. */
#define ACL_BATCH_SYNC_MAX	4096

_Static_assert(ACL_BATCH_SYNC_MAX <= NPU_SUBMIT_MAX_CMDS && ACL_BATCH_SYNC_MAX <= NPU_COPY_BATCH_MAX,
	       "a synchronous batch is one SUBMIT");

/* Does [@p, + (@height - 1) * @pitch + @width) fit the address space? */
static bool acl_2d_fits(const void *p, size_t pitch, size_t width, size_t height)
{
	size_t span;

	return !__builtin_mul_overflow(pitch, height - 1, &span) &&
	       !__builtin_add_overflow(span, width, &span) &&
	       (uintptr_t)p + span >= (uintptr_t)p;
}

/* > 0: nothing to do; else 0 or the error, in the spec's order. */
static int acl_2d_args(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		       size_t height, aclrtMemcpyKind kind, bool sync)
{
	int ret;

	if (!width || !height)
		return 1;
	ret = acl_check_init();
	if (ret)
		return ret;
	if (!dst || !src)
		return acl_errf(-EINVAL, "%s must not be NULL", !dst ? "dst" : "src");
	if (width > spitch || width > dpitch)
		return acl_errf(-EINVAL, "width %zu exceeds %s %zu", width, width > spitch ? "spitch" : "dpitch",
				width > spitch ? spitch : dpitch);
	if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST &&
	    kind != ACL_MEMCPY_DEVICE_TO_DEVICE && kind != ACL_MEMCPY_DEFAULT)
		return acl_errf(-EINVAL, "kind %d is not HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE or DEFAULT",
				(int)kind);
	if (!spitch || !dpitch)
		return acl_errf(ACLI_ERTPARAM, "%s must be non-zero", !spitch ? "spitch" : "dpitch");
	if (height > ACL_2D_MAX_HEIGHT)
		return acl_errf(ACLI_ERTPARAM, "height %zu exceeds %d", height, ACL_2D_MAX_HEIGHT);
	if (width > ACL_2D_MAX_WIDTH)
		return acl_errf(ACLI_ERTPARAM, "width %zu exceeds %d", width, ACL_2D_MAX_WIDTH);
	if (sync && kind == ACL_MEMCPY_DEVICE_TO_DEVICE)
		return acl_errf(ACLI_ERTNOTSUPP, "aclrtMemcpy2d copies host to device and device to host only: use aclrtMemcpy2dAsync for DEVICE_TO_DEVICE");
	if (!acl_2d_fits(dst, dpitch, width, height) || !acl_2d_fits(src, spitch, width, height))
		return acl_errf(-EINVAL, "the rows of %s run past the end of the address space",
				acl_2d_fits(dst, dpitch, width, height) ? "src" : "dst");
	/* device work follows: it waits while the process is locked for a snapshot */
	acl_snap_gate();
	return 0;
}

ACL_EXPORT aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
				  size_t height, aclrtMemcpyKind kind)
{
	const struct acl_shape sh = { .dpitch = dpitch, .spitch = spitch, .width = width, .height = height };
	struct acl_device *dev;
	int ret;

	ret = acl_2d_args(dst, dpitch, src, spitch, width, height, kind, true);
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_capture_mode_check(ACLI_ECAPMODE);
	if (!ret)
		ret = acl_copy_shape(dev, NULL, dst, src, &sh, kind, ACL_DIR_H2D | ACL_DIR_D2H);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
				       size_t width, size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
	const struct acl_shape sh = { .dpitch = dpitch, .spitch = spitch, .width = width, .height = height };
	struct acl_stream *s;
	int ret;

	ret = acl_2d_args(dst, dpitch, src, spitch, width, height, kind, false);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret) {
		ret = acl_copy_shape(s->dev, s, dst, src, &sh, kind, ACL_DIR_H2D | ACL_DIR_D2H | ACL_DIR_D2D);
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}

/* Batch */

struct acl_batch {
	void **dsts;
	size_t *destMaxs;
	void **srcs;
	size_t *sizes;
	size_t n;
	aclrtMemcpyBatchAttr *attrs;
	size_t *attrsIndexes;
	size_t numAttrs;
	size_t *failIndex;
};

/* > 0: nothing to do; else 0 or the error, in the spec's order. */
static int acl_batch_args(const struct acl_batch *b, bool sync)
{
	size_t i, j;
	int ret;

	ret = acl_check_init();
	if (ret)
		return ret;
	if (!b->failIndex || !b->sizes)
		return acl_errf(-EINVAL, "%s must not be NULL", !b->failIndex ? "failIndex" : "sizes");
	if (!b->n)
		return acl_errf(-EINVAL, "numBatches must be non-zero");
	for (i = 0; i < b->n && !b->sizes[i]; i++)
		;
	if (i == b->n) {
		*b->failIndex = SIZE_MAX;
		return 1;
	}
	/* the acl layer's checks leave *failIndex alone (CANN's ValidateMemcpyBatchParams) */
	if (!b->dsts || !b->srcs || !b->destMaxs || !b->attrs || !b->attrsIndexes)
		return acl_errf(-EINVAL, "%s must not be NULL",
				!b->dsts ? "dsts" : !b->srcs ? "srcs" : !b->destMaxs ? "destMaxs" :
				!b->attrs ? "attrs" : "attrsIndexes");
	for (i = 0; i < b->n; i++) {
		if (b->destMaxs[i] < b->sizes[i])
			return acl_errf(-EINVAL, "sizes[%zu] %zu exceeds destMaxs[%zu] %zu", i, b->sizes[i], i,
					b->destMaxs[i]);
	}
	/* attrs beyond numBatches are refused below, unread */
	for (j = 0; j < b->numAttrs && j < b->n; j++) {
		for (i = 0; i < sizeof(b->attrs[j].rsv); i++)
			if (b->attrs[j].rsv[i])
				return acl_errf(-EINVAL, "attrs[%zu].rsv must be zero", j);
	}
	/* the runtime's: *failIndex is SIZE_MAX until a copy fails */
	*b->failIndex = SIZE_MAX;
	for (i = 0; i < b->n; i++) {
		if (b->sizes[i] && (!b->dsts[i] || !b->srcs[i]))
			return acl_errf(-EINVAL, "%s[%zu] must not be NULL", !b->dsts[i] ? "dsts" : "srcs", i);
	}
	if (!b->numAttrs || b->numAttrs > b->n)
		return acl_errf(ACLI_ERTPARAM, "numAttrs %zu must be 1..numBatches (%zu)", b->numAttrs, b->n);
	if (b->attrsIndexes[0])
		return acl_errf(ACLI_ERTPARAM, "attrsIndexes[0] is %zu, must be 0", b->attrsIndexes[0]);
	for (j = 1; j < b->numAttrs; j++) {
		if (b->attrsIndexes[j] <= b->attrsIndexes[j - 1] || b->attrsIndexes[j] >= b->n)
			return acl_errf(ACLI_ERTPARAM, "attrsIndexes[%zu] %zu: indexes must increase and stay below numBatches %zu",
					j, b->attrsIndexes[j], b->n);
	}
	if (sync && b->n > ACL_BATCH_SYNC_MAX)
		return acl_errf(ACLI_ERTPARAM, "numBatches %zu exceeds %d for aclrtMemcpyBatch", b->n,
				ACL_BATCH_SYNC_MAX);
	/* device work follows: it waits while the process is locked for a snapshot */
	acl_snap_gate();
	return 0;
}

static const char *acl_loc_name(const aclrtMemLocation *l)
{
	return l->type == ACL_MEM_LOCATION_TYPE_HOST ? "HOST" : l->type == ACL_MEM_LOCATION_TYPE_DEVICE ? "DEVICE" :
	       "neither HOST nor DEVICE";
}

/* Does side @s, of the copying device @e, lie where @l says? */
static bool acl_loc_agrees(const aclrtMemLocation *l, const struct acl_side *s, struct acl_device *e)
{
	if (l->type == ACL_MEM_LOCATION_TYPE_HOST)
		return acl_side_is_host(s);
	return l->type == ACL_MEM_LOCATION_TYPE_DEVICE && s->kind == ACL_SIDE_DEVICE && l->id == (uint32_t)e->id;
}

/*
 * Copy @i against its attr @a on device @e: into *@desc with the address
 * spaces in *@flags, or *@staged when a side is pageable host memory. The
 * failure is the copy's: *failIndex.
 */
static int acl_batch_entry(const struct acl_batch *b, size_t i, const aclrtMemcpyBatchAttr *a,
			   struct acl_device *e, struct acl_side side[2], struct npu_copy_desc *desc,
			   uint32_t *flags, bool *staged)
{
	struct acl_side d, s;
	bool again = side[0].end;	/* the previous copy's sides, to find these near */
	int ret;

	ret = acl_classify_near(e, b->dsts[i], b->sizes[i], true, "dst", again ? &side[0] : NULL, &d);
	if (!ret)
		ret = acl_classify_near(e, b->srcs[i], b->sizes[i], false, "src", again ? &side[1] : NULL,
					&s);
	if (!ret && (!acl_loc_agrees(&a->dstLoc, &d, e) || !acl_loc_agrees(&a->srcLoc, &s, e)))
		ret = acl_errf(ACLI_ERTPARAM, "copy %zu: dst %p and src %p are not where its attr says (dst %s %u, src %s %u), or not memory of device %d",
			       i, b->dsts[i], b->srcs[i], acl_loc_name(&a->dstLoc), a->dstLoc.id,
			       acl_loc_name(&a->srcLoc), a->srcLoc.id, e->id);
	/* the sides agree with the attr: it says the direction */
	if (!ret && a->dstLoc.type == a->srcLoc.type)
		ret = acl_errf(ACLI_ERTPARAM, "copy %zu is %s: a batch copies host to device or device to host",
			       i, a->dstLoc.type == ACL_MEM_LOCATION_TYPE_DEVICE ? "device to device" : "host to host");
	if (ret) {
		*b->failIndex = i;
		return ret;
	}
	side[0] = d;
	side[1] = s;
	*staged = d.kind == ACL_SIDE_PAGEABLE || s.kind == ACL_SIDE_PAGEABLE;
	*flags = *staged ? 0 : acl_side_flags(&d, &s);
	*desc = (struct npu_copy_desc){
		.dst = (uintptr_t)b->dsts[i],
		.src = (uintptr_t)b->srcs[i],
		.length = b->sizes[i],
	};
	return 0;
}

/*
 * Append copy @desc, in the address spaces @flags, to the device's work
 * @cmds (*@n of them): consecutive copies in the same spaces are one
 * COPY_BATCH, the descriptor list the driver reads at SUBMIT.
 */
static void acl_batch_append(struct npu_cmd *cmds, size_t *n, struct npu_copy_desc *desc,
			     uint32_t flags)
{
	struct npu_cmd *last = *n ? &cmds[*n - 1] : NULL;

	if (!last || last->flags != flags || last->length == NPU_COPY_BATCH_MAX) {
		last = &cmds[(*n)++];
		*last = (struct npu_cmd){
			.op = NPU_OP_COPY_BATCH,
			.flags = flags,
			.src = (uintptr_t)desc,
			.value = sizeof(*desc),
		};
	}
	last->length++;
}

/*
 * The batch's @n COPY_BATCH @cmds (their copies in @descs, in order) on
 * the recording stream @s: one COPY each copy, all recorded at once.
 */
static int acl_batch_record(struct acl_stream *s, const struct npu_copy_desc *descs, const struct npu_cmd *cmds,
			    size_t n)
{
	struct npu_cmd *one;
	size_t i, k, total = 0;
	int ret;

	for (i = 0; i < n; i++)
		total += cmds[i].length;
	one = calloc(total, sizeof(*one));
	if (!one)
		return acl_errf(-ENOMEM, "out of host memory for %zu copies", total);
	for (i = 0, total = 0; i < n; i++)
		for (k = 0; k < cmds[i].length; k++, total++)
			one[total] = (struct npu_cmd){ .op = NPU_OP_COPY, .flags = cmds[i].flags,
						       .dst = descs[total].dst, .src = descs[total].src,
						       .length = descs[total].length };
	ret = acl_stream_launch(s, one, (uint32_t)total);
	free(one);
	return ret;
}

/* @stream NULL: the synchronous form, on the current device @cur. */
static int acl_batch_run(const struct acl_batch *b, struct acl_device *cur, struct acl_stream *stream)
{
	struct acl_device *e = stream ? stream->dev : cur;
	size_t i, j = 0, n = 0, nd = 0, nstaged = 0, *staged;
	struct acl_side side[2] = { { .end = 0 } };
	struct npu_copy_desc *descs;
	struct npu_cmd *cmds;
	int ret = 0;

	cmds = malloc(b->n * (sizeof(*cmds) + sizeof(*descs) + sizeof(*staged)));
	if (!cmds)
		return acl_errf(-ENOMEM, "out of host memory for %zu copies", b->n);
	descs = (struct npu_copy_desc *)(cmds + b->n);
	staged = (size_t *)(descs + b->n);
	for (i = 0; i < b->n && !ret; i++) {
		uint32_t flags;
		bool pageable;

		while (j + 1 < b->numAttrs && b->attrsIndexes[j + 1] <= i)
			j++;
		if (!b->sizes[i])
			continue;
		ret = acl_batch_entry(b, i, &b->attrs[j], e, side, &descs[nd], &flags, &pageable);
		if (ret)
			break;
		if (pageable)
			staged[nstaged++] = i;
		else
			acl_batch_append(cmds, &n, &descs[nd++], flags);
	}
	/* every copy the device reaches: one SUBMIT (asynchronous: one per COPY_BATCH) */
	if (!ret && n && !stream)
		ret = acl_cmds_sync(e, cmds, n);
	/* recorded (a model has no COPY_BATCH): pageable memory refused before anything is */
	if (!ret && stream && acl_stream_recording(stream)) {
		ret = nstaged ? acl_capture_sync_step(stream) : acl_batch_record(stream, descs, cmds, n);
		n = 0;
	}
	for (i = 0; !ret && stream && i < n; i++)
		ret = acl_stream_submit(stream, &cmds[i], 1, NULL);
	/* pageable memory: staged, after the stream's work, done on return */
	if (!ret && nstaged && stream)
		ret = acl_capture_sync_step(stream);
	for (i = 0; !ret && i < nstaged; i++) {
		size_t k = staged[i];
		const struct acl_shape sh = {
			.dpitch = b->sizes[k], .spitch = b->sizes[k], .width = b->sizes[k], .height = 1,
		};

		ret = acl_copy_shape(e, NULL, b->dsts[k], b->srcs[k], &sh, ACL_MEMCPY_DEFAULT, ACL_DIR_ALL);
	}
	free(cmds);
	return ret;
}

/* The synchronous batch on the current device, or (@stream) the asynchronous one. */
static int acl_batch(const struct acl_batch *b, aclrtStream stream, bool async)
{
	struct acl_device *dev;
	struct acl_stream *s;
	int ret;

	ret = acl_batch_args(b, !async);
	if (ret)
		return ret;
	if (!async) {
		ret = acl_cur_dev(&dev);
		return ret ? ret : acl_batch_run(b, dev, NULL);
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret) {
		ret = acl_batch_run(b, NULL, s);
		acl_stream_put(s);
	}
	return ret;
}

ACL_EXPORT aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
				     aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs,
				     size_t *failIndex)
{
	const struct acl_batch b = {
		dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex,
	};

	return acl_ret(__func__, acl_batch(&b, NULL, false));
}

ACL_EXPORT aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
					  size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
					  size_t numAttrs, size_t *failIndex, aclrtStream stream)
{
	const struct acl_batch b = {
		dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex,
	};

	return acl_ret(__func__, acl_batch(&b, stream, true));
}

/*
 * The V2 forms are the batches without failIndex (CANN passes none to its
 * runtime, which then reports no index): a copy's failure still names its
 * index in the message.
 */
ACL_EXPORT aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
				       size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
				       size_t numAttrs)
{
	size_t fail;
	const struct acl_batch b = {
		dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, &fail,
	};

	return acl_ret(__func__, acl_batch(&b, NULL, false));
}

ACL_EXPORT aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
					    size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
					    size_t numAttrs, aclrtStream stream)
{
	size_t fail;
	const struct acl_batch b = {
		dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, &fail,
	};

	return acl_ret(__func__, acl_batch(&b, stream, true));
}
