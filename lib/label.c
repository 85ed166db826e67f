// SPDX-License-Identifier: MIT
/*
 * Labels: positions in a model's task list, and the device-side switch
 * that jumps to one of them (aclrtSwitchLabelByIndex, the driver's
 * NPU_OP_SWITCH).
 *
 * A label is set once, on a stream that records into a model (bound to a
 * model being built, or captured): it names the number of commands
 * recorded before it. A switch is recorded as a SWITCH command whose
 * targets are its label list's labels; they are resolved when the model
 * is made (acl_label_targets(), from model.c), since labels are usually
 * set after the switch that jumps to them.
 *
 * The checks and codes are the vendor's (acl layer: label.cpp; runtime:
 * api_c_model.cc, api_error.cc, api_impl.cc and launch/label.cc): a label
 * is of its context (507031 in another), joins a list before it is set
 * (507000), is set once (507000), on a stream of a model (107005). The
 * vendor's list is device memory holding where each label is; npu's is a
 * library object, so a label destroyed while listed stays what the list
 * needs (the list holds it).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "context.h"
#include "error.h"
#include "handle.h"
#include "label.h"
#include "stream.h"

/* The vendor's label ids and list lengths are 16-bit. */
#define ACL_LABELS_MAX	65535U

struct acl_label {
	struct acl_obj obj;		/* first: the aclrtLabel is the object */
	uint64_t ctx_serial;		/* its context's; constant */
	pthread_mutex_t lock;		/* protects the fields below */
	bool listed;			/* in a label list: it may be set */
	bool set;			/* aclrtSetLabel ran: @serial and @at hold */
	uint64_t serial;		/* the recording it was set in */
	uint32_t at;			/* the commands recorded before it */
};

struct acl_label_list {
	struct acl_obj obj;		/* first: the aclrtLabelList is the object */
	uint64_t ctx_serial;		/* its context's; constant */
	uint32_t n;			/* constant */
	struct acl_label *labels[];	/* held; constant */
};

static unsigned int acl_nlabels;	/* atomic: live labels in the process */

static void acl_label_release(struct acl_obj *obj)
{
	struct acl_label *l = (struct acl_label *)obj;

	pthread_mutex_destroy(&l->lock);
	free(l);
	__atomic_sub_fetch(&acl_nlabels, 1, __ATOMIC_RELAXED);
}

static void acl_label_list_release(struct acl_obj *obj)
{
	struct acl_label_list *list = (struct acl_label_list *)obj;
	uint32_t i;

	for (i = 0; i < list->n; i++)
		acl_obj_put(&list->labels[i]->obj);
	free(list);
}

/* @label as a live label (a reference): 107017 if not. */
static int acl_label_get(aclrtLabel label, struct acl_label **out)
{
	*out = (struct acl_label *)acl_obj_get(label, ACL_OBJ_LABEL);
	if (!*out)
		return acl_errf(ACLI_EHANDLE, "label %p is not a live label (destroyed, or never created?)", label);
	return 0;
}

/* @l is of the current context: 107002 without one, 507031 if of another. */
static int acl_label_current(const struct acl_label *l)
{
	struct acl_context *ctx;
	int ret = acl_cur_ctx(&ctx);

	if (ret)
		return ret;
	if (l->ctx_serial != ctx->serial)
		ret = acl_errf(ACLI_ELABELCTX, "label %p belongs to another context than the current one", (void *)l);
	acl_ctx_put(ctx);
	return ret;
}

ACL_EXPORT aclError aclrtCreateLabel(aclrtLabel *label)
{
	struct acl_context *ctx;
	struct acl_label *l;
	int ret;

	ret = acl_enter(NULL, label);
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret)
		return acl_ret(__func__, ret);
	if (__atomic_add_fetch(&acl_nlabels, 1, __ATOMIC_RELAXED) > ACL_LABELS_MAX) {
		__atomic_sub_fetch(&acl_nlabels, 1, __ATOMIC_RELAXED);
		ret = acl_errf(ACLI_EINTERNAL, "the process holds %u labels, as many as the runtime's label ids allow",
			       ACL_LABELS_MAX);
		goto out;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		__atomic_sub_fetch(&acl_nlabels, 1, __ATOMIC_RELAXED);
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	l->ctx_serial = ctx->serial;
	pthread_mutex_init(&l->lock, NULL);
	acl_obj_add(&l->obj, ACL_OBJ_LABEL, acl_label_release);
	*label = l;
out:
	acl_ctx_put(ctx);
	return acl_ret(__func__, ret);
}

/* Unlist @obj, the @what the caller holds a reference to, and drop both. */
static int acl_label_obj_destroy(struct acl_obj *obj, const char *what)
{
	int ret = 0;

	if (!acl_obj_del(obj))
		ret = acl_errf(ACLI_EHANDLE, "%s %p is being destroyed by another thread", what, (void *)obj);
	else
		acl_obj_put(obj);	/* the table's; a model recording a list holds its own */
	acl_obj_put(obj);
	return ret;
}

ACL_EXPORT aclError aclrtDestroyLabel(aclrtLabel label)
{
	struct acl_label *l;
	int ret;

	ret = acl_enter(NULL, label);
	if (!ret)
		ret = acl_label_get(label, &l);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_label_current(l);
	if (!ret)
		ret = acl_label_obj_destroy(&l->obj, "label");
	else
		acl_obj_put(&l->obj);
	return acl_ret(__func__, ret);
}

/* @list's first @n labels leave it (they may join another). */
static void acl_label_list_unmark(struct acl_label_list *list, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&list->labels[i]->lock);
		list->labels[i]->listed = false;
		pthread_mutex_unlock(&list->labels[i]->lock);
	}
}

/*
 * The vendor's order: num (107000), the labels' handles (107017), the
 * context; a label in a list already, or twice in this one, 507000 (its
 * RT_ERROR_SAME_LABELS_IN_SWITCH: the list holds where each label is).
 */
ACL_EXPORT aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
	struct acl_label_list *list = NULL;
	struct acl_context *ctx;
	uint32_t marked = 0;
	size_t i;
	int ret;

	ret = acl_enter(NULL, labels, labelList);
	if (!ret && (!num || num > ACL_LABELS_MAX))
		ret = acl_errf(ACLI_ERTPARAM, "num %zu is not in (0, %u]", num, ACL_LABELS_MAX);
	if (ret)
		return acl_ret(__func__, ret);
	list = calloc(1, sizeof(*list) + num * sizeof(list->labels[0]));
	if (!list)
		return acl_ret(__func__, acl_errf(-ENOMEM, "out of host memory"));
	for (i = 0; i < num && !ret; i++) {
		struct acl_label *l = (struct acl_label *)acl_obj_get(labels[i], ACL_OBJ_LABEL);

		if (l)
			list->labels[list->n++] = l;
		else
			ret = acl_errf(ACLI_EHANDLE, "labels[%zu] %p is not a live label", i, labels[i]);
	}
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret)
		goto fail;
	list->ctx_serial = ctx->serial;
	acl_ctx_put(ctx);
	for (; marked < num && !ret; marked++) {
		struct acl_label *l = list->labels[marked];

		pthread_mutex_lock(&l->lock);
		if (l->listed)
			ret = acl_errf(ACLI_EINTERNAL, "labels[%u] %p is in a label list already (this one, or another)",
				       marked, (void *)l);
		l->listed = true;
		pthread_mutex_unlock(&l->lock);
	}
	if (ret) {
		/* the one that failed was listed before: not by this call */
		acl_label_list_unmark(list, marked - 1);
		goto fail;
	}
	acl_obj_add(&list->obj, ACL_OBJ_LABEL_LIST, acl_label_list_release);
	*labelList = list;
	return acl_ret(__func__, 0);
fail:
	acl_label_list_release(&list->obj);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
	struct acl_obj *list;
	int ret;

	ret = acl_enter(NULL, labelList);
	if (ret)
		return acl_ret(__func__, ret);
	list = acl_obj_get(labelList, ACL_OBJ_LABEL_LIST);
	if (!list)
		ret = acl_errf(ACLI_EHANDLE, "labelList %p is not a live label list", labelList);
	else
		ret = acl_label_obj_destroy(list, "labelList");
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
	struct acl_stream *s = NULL;
	struct acl_label *l;
	uint64_t serial;
	uint32_t at;
	int ret;

	ret = acl_enter(NULL, label, stream);
	if (!ret)
		ret = acl_label_get(label, &l);
	if (ret)
		return acl_ret(__func__, ret);
	/* the vendor's order: both handles, the label's context, the stream's, a model's stream */
	ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (!ret)
		ret = acl_label_current(l);
	if (!ret)
		ret = acl_stream_current(s);
	if (!ret)
		ret = acl_stream_capture_mark(s, &serial, &at);
	if (ret)
		goto put;
	pthread_mutex_lock(&l->lock);
	if (!l->listed)
		ret = acl_errf(ACLI_EINTERNAL, "label %p is in no label list: create the list (aclrtCreateLabelList) before the label is set",
			       label);
	else if (l->set)
		ret = acl_errf(ACLI_EINTERNAL, "label %p is set already: a label is set once", label);
	if (!ret) {
		l->set = true;
		l->serial = serial;
		l->at = at;
	}
	pthread_mutex_unlock(&l->lock);
put:
	if (s)
		acl_stream_put(s);
	acl_obj_put(&l->obj);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
					    aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_SWITCH, .src = (uintptr_t)ptr, .length = maxValue };
	struct acl_label_list *list;
	struct acl_context *ctx;
	struct acl_stream *s;
	uint64_t serial;
	uint32_t at;
	int ret;

	ret = acl_enter(NULL, ptr, labelList, stream);
	if (ret)
		return acl_ret(__func__, ret);
	/* the vendor's order: the stream, the context, a stream of it (107003), a model's (107005) */
	ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_cur_ctx(&ctx);
	if (ret) {
		acl_stream_put(s);
		return acl_ret(__func__, ret);
	}
	ret = acl_stream_current(s);
	if (!ret)
		ret = acl_stream_capture_mark(s, &serial, &at);
	if (ret)
		goto put_s;
	list = (struct acl_label_list *)acl_obj_get(labelList, ACL_OBJ_LABEL_LIST);
	if (!list) {
		ret = acl_errf(ACLI_EHANDLE, "labelList %p is not a live label list", labelList);
		goto put_s;
	}
	if (list->ctx_serial != ctx->serial)
		ret = acl_errf(ACLI_ELABELCTX, "labelList %p belongs to another context than the current one", labelList);
	/* npu's: the device reads maxValue entries of the list, which must hold them */
	else if (!maxValue || maxValue > list->n)
		ret = acl_errf(ACLI_ERTPARAM, "maxValue %u must be 1 to the %u labels of labelList %p", maxValue,
			       list->n, labelList);
	else if ((uintptr_t)ptr % sizeof(uint32_t))
		ret = acl_errf(ACLI_ERTPARAM, "ptr %p is not 4-byte aligned: the device reads a uint32_t there", ptr);
	else
		ret = acl_stream_capture_switch(s, &cmd, &list->obj);
	acl_obj_put(&list->obj);
put_s:
	acl_stream_put(s);
	acl_ctx_put(ctx);
	return acl_ret(__func__, ret);
}

int acl_label_targets(struct acl_obj *obj, uint64_t serial, uint32_t first, uint32_t end, uint32_t n,
		      uint32_t *targets)
{
	struct acl_label_list *list = (struct acl_label_list *)obj;
	uint32_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		struct acl_label *l = list->labels[i];

		pthread_mutex_lock(&l->lock);
		if (!l->set || l->serial != serial)
			ret = acl_errf(ACLI_EINTERNAL, "label %u of label list %p is %s: a switch jumps to labels set on the model's stream",
				       i, (void *)list, l->set ? "set in another model" : "not set");
		else if (l->at < first || l->at > end)
			ret = acl_errf(ACLI_ERTNOTSUPP, "label %u of label list %p lies across an EXTERNAL event record or wait from its switch, which npu cannot jump over",
				       i, (void *)list);
		else
			targets[i] = l->at - first;
		pthread_mutex_unlock(&l->lock);
	}
	return ret;
}
