// SPDX-License-Identifier: MIT
/*
 * Condition tasks of captured graphs (aclmdlRICondHandleCreate,
 * aclmdlRICondHandleGetCondPtr, aclmdlRIAddCondTask; the sub-models'
 * captures are model.c's aclmdlRICaptureToModelRIBegin).
 *
 * A condition handle owns a uint64_t of device memory (a page of its own,
 * zero at first, freed when its model is destroyed). aclmdlRIAddCondTask
 * makes the task's sub-models and records a placeholder command in the
 * capture; each sub-model is captured on another stream, and its capture's
 * end (model.c calls acl_cond_end()) keeps its commands instead of making
 * a driver model. When the parent's capture ends, each placeholder becomes
 * the sub-models' commands and the device's jumps between them
 * (NPU_OP_SWITCH), in the parent's one driver model:
 *
 *   IF      SWITCH lo [next, THEN]; SWITCH hi [ELSE, THEN];
 *           THEN: sub 0; (with sub 1: SWITCH lo [END]); ELSE: sub 1; END
 *   WHILE   HEAD: SWITCH lo [next, BODY]; SWITCH hi [END, BODY];
 *           BODY: sub 0; SWITCH lo [HEAD]; END
 *   SWITCH  SWITCH hi [next, END]; SWITCH lo [B0 .. Bn-1, END];
 *           Bi: sub i; SWITCH lo [END] (but after the last); END
 *
 * where lo and hi are the value's two 32-bit halves (a SWITCH reads a
 * __u32; the value is a uint64_t, so 1 << 32 is non-zero, and an index
 * with its high half set is past any table), and a table of one entry is a
 * jump whatever it reads. A sub-model's own condition tasks became its
 * commands at its end, so nesting needs nothing more; the jump tables are
 * step indexes of the list they are in, moved when a list is inlined and
 * made relative to the driver model that holds them at the root's end.
 * With ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT the root's model starts
 * with a value write of the default for each such handle of it and of its
 * sub-models, so each run begins with it (the vendor writes it from the
 * host before it queues the run).
 *
 * The checks, their order and codes are the vendor's (model_ri.cpp;
 * api_c_standard_soc.cc, feature/aclgraph/: api_error_aclgraph.cc,
 * v100/api_impl_aclgraph.cc, context_aclgraph.cc, cond_handle.cc,
 * aclgraph_cond_task.cc). npu's own limits (207000): a sub-model is
 * captured before its parent's capture ends and holds no host step (an EXTERNAL
 * event record or wait, a host function or callback) and no label switch;
 * a graph with condition tasks has no label switch.
 *
 * Locks: c->lock of one state at a time, never with m->lock or s->lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "context.h"
#include "error.h"
#include "handle.h"
#include "mm.h"
#include "model.h"
#include "stream.h"

/* A condition handle (aclmdlRICondHandle). */
struct acl_cond_handle {
	struct acl_obj obj;		/* first: the aclmdlRICondHandle is the object */
	struct acl_cond *owner;		/* the state of the model it was made on; constant */
	uint64_t va;			/* its uint64_t; constant until the teardown */
	uint32_t def;			/* defaultLaunchValue; constant */
	bool assign;			/* ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT; constant */
	/* set once by aclmdlRIAddCondTask, under owner->lock: */
	bool used;
	aclmdlRICondTaskType type;
	uint32_t nsubs;
	struct acl_model **subs;	/* held */
};

/* A model's condition state (acl_model_cond()). */
struct acl_cond {
	struct acl_model *m;		/* its model, which holds it; constant */
	struct acl_device *dev;		/* constant */
	struct acl_cond *parent;	/* a sub-model's: its parent's state (not held); constant */
	pthread_mutex_t lock;		/* protects the fields below */
	struct acl_cond_handle **handles;	/* made on it, held */
	uint32_t nhandles, handles_cap;
	bool ended;			/* a sub-model's capture ended: @cmds are its commands */
	struct npu_cmd *cmds;
	uint32_t ncmds;
	uint32_t **tabs;		/* the jump tables of its SWITCH commands */
	uint32_t ntabs, tabs_cap;
};

/* A command list being made. */
struct acl_cond_out {
	struct npu_cmd *v;
	uint32_t n, cap;
};

static const struct acl_model_cond_ops acl_cond_ops;

static void acl_cond_handle_release(struct acl_obj *obj)
{
	free(obj);
}

/* Grow the array *@v of @size-byte elements to hold @n + 1 (its capacity *@cap). */
static int acl_cond_grow(void **v, uint32_t n, uint32_t *cap, size_t size)
{
	uint32_t want = *cap ? 2 * *cap : 8;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*v, (size_t)want * size);
	if (!p)
		return acl_errf(-ENOMEM, "out of host memory");
	*v = p;
	*cap = want;
	return 0;
}

/* The condition state of @m, made now if it has none (@parent: a sub-model's). */
static int acl_cond_of(struct acl_model *m, struct acl_device *dev, struct acl_cond *parent,
		       struct acl_cond **out)
{
	struct acl_cond *c = acl_model_cond(m, NULL);

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return acl_errf(-ENOMEM, "out of host memory");
		c->m = m;
		c->dev = dev;
		c->parent = parent;
		pthread_mutex_init(&c->lock, NULL);
		acl_model_set_cond_ops(&acl_cond_ops);
		if (acl_model_cond(m, c) != c) {
			pthread_mutex_destroy(&c->lock);
			free(c);
			c = acl_model_cond(m, NULL);
		}
	}
	*out = c;
	return 0;
}

/* @n commands at the end of @o. */
static int acl_cond_put(struct acl_cond_out *o, const struct npu_cmd *cmds, uint32_t n)
{
	if (n > NPU_MODEL_MAX_CMDS - o->n)
		return acl_errf(ACLI_EOVERLIMIT, "a graph with its condition tasks' sub-models holds more than the %u commands of a model",
				NPU_MODEL_MAX_CMDS);
	if (o->n + n > o->cap) {
		uint32_t cap = o->cap ? o->cap : 16;
		struct npu_cmd *v;

		while (cap < o->n + n)
			cap = cap > NPU_MODEL_MAX_CMDS / 2 ? NPU_MODEL_MAX_CMDS : 2 * cap;
		v = realloc(o->v, (size_t)cap * sizeof(*v));
		if (!v)
			return acl_errf(-ENOMEM, "out of host memory");
		o->v = v;
		o->cap = cap;
	}
	memcpy(&o->v[o->n], cmds, (size_t)n * sizeof(*cmds));
	o->n += n;
	return 0;
}

/* Is @cmd a jump of a condition task (its table ours), not a label switch or a placeholder? */
static bool acl_cond_is_jump(const struct npu_cmd *cmd)
{
	return cmd->op == NPU_OP_SWITCH && cmd->length && cmd->value;
}

/* The placeholder of a condition task, recorded by aclmdlRIAddCondTask: its handle, else NULL. */
static struct acl_cond_handle *acl_cond_placeholder(const struct npu_cmd *cmd)
{
	if (cmd->op != NPU_OP_SWITCH || cmd->length || !cmd->value)
		return NULL;
	return (struct acl_cond_handle *)(uintptr_t)cmd->value;
}

/* A SWITCH on the __u32 at @src with a table of @n entries (*@tab, @c's, filled by the caller) onto @o. */
static int acl_cond_jump(struct acl_cond *c, struct acl_cond_out *o, uint64_t src, uint32_t n, uint32_t **tab)
{
	struct npu_cmd cmd = { .op = NPU_OP_SWITCH, .src = src, .length = n };
	uint32_t *t = calloc(n, sizeof(*t));
	int ret;

	if (!t)
		return acl_errf(-ENOMEM, "out of host memory");
	pthread_mutex_lock(&c->lock);
	ret = acl_cond_grow((void **)&c->tabs, c->ntabs, &c->tabs_cap, sizeof(*c->tabs));
	if (!ret)
		c->tabs[c->ntabs++] = t;
	pthread_mutex_unlock(&c->lock);
	if (ret) {
		free(t);
		return ret;
	}
	cmd.value = (uintptr_t)t;
	*tab = t;
	return acl_cond_put(o, &cmd, 1);
}

/* The commands of the sub-model @sub onto @o, its jumps' targets moved with them. */
static int acl_cond_inline(struct acl_cond_out *o, struct acl_model *sub)
{
	struct acl_cond *sc = acl_model_cond(sub, NULL);
	uint32_t base = o->n, i, k;
	int ret;

	pthread_mutex_lock(&sc->lock);
	ret = sc->ncmds ? acl_cond_put(o, sc->cmds, sc->ncmds) : 0;
	pthread_mutex_unlock(&sc->lock);
	for (i = base; !ret && i < o->n; i++) {
		uint32_t *t = (uint32_t *)(uintptr_t)o->v[i].value;

		if (acl_cond_is_jump(&o->v[i]))
			for (k = 0; k < o->v[i].length; k++)
				t[k] += base;
	}
	return ret;
}

/* The condition task of @h as commands onto @o (@c's list). */
static int acl_cond_expand(struct acl_cond *c, struct acl_cond_out *o, struct acl_cond_handle *h)
{
	uint64_t lo = h->va, hi = h->va + sizeof(uint32_t);
	uint32_t *t0, *t1, *tj = NULL, **jumps = NULL;
	uint32_t first = o->n, i, n = h->nsubs;
	int ret;

	if (h->type == ACL_MODEL_RI_COND_TYPE_SWITCH) {
		jumps = calloc(n, sizeof(*jumps));
		if (!jumps)
			return acl_errf(-ENOMEM, "out of host memory");
		ret = acl_cond_jump(c, o, hi, 2, &t0);
		if (!ret)
			ret = acl_cond_jump(c, o, lo, n + 1, &t1);
		for (i = 0; !ret && i < n; i++) {
			t1[i] = o->n;
			ret = acl_cond_inline(o, h->subs[i]);
			if (!ret && i + 1 < n)
				ret = acl_cond_jump(c, o, lo, 1, &jumps[i]);
		}
		if (!ret) {
			t0[0] = first + 1;
			t0[1] = t1[n] = o->n;
			for (i = 0; i + 1 < n; i++)
				jumps[i][0] = o->n;
		}
		free(jumps);
		return ret;
	}
	ret = acl_cond_jump(c, o, lo, 2, &t0);
	if (!ret)
		ret = acl_cond_jump(c, o, hi, 2, &t1);
	if (ret)
		return ret;
	/* IF's THEN, WHILE's BODY */
	t0[0] = first + 1;
	t0[1] = t1[1] = o->n;
	ret = acl_cond_inline(o, h->subs[0]);
	if (!ret && (h->type == ACL_MODEL_RI_COND_TYPE_WHILE || n == 2))
		ret = acl_cond_jump(c, o, lo, 1, &tj);
	if (ret)
		return ret;
	if (h->type == ACL_MODEL_RI_COND_TYPE_WHILE) {
		tj[0] = first;
		t1[0] = o->n;
		return 0;
	}
	/* IF's ELSE */
	t1[0] = o->n;
	if (n == 2)
		ret = acl_cond_inline(o, h->subs[1]);
	if (tj)
		tj[0] = o->n;
	return ret;
}

/* The value writes of ASSIGN_DEFAULT handles of @c and of its sub-models, onto @o. */
static int acl_cond_defaults(struct acl_cond *c, struct acl_cond_out *o)
{
	uint32_t i, k;
	int ret = 0;

	/* the handles are constant now: every capture of the tree ended */
	for (i = 0; !ret && i < c->nhandles; i++) {
		struct acl_cond_handle *h = c->handles[i];
		struct npu_cmd w = { .op = NPU_OP_WRITE_VALUE, .dst = h->va, .value = h->def };

		/* a handle of a sub-model whose capture failed has no page any more */
		if (!h->va)
			continue;
		if (h->assign)
			ret = acl_cond_put(o, &w, 1);
		for (k = 0; !ret && h->used && k < h->nsubs; k++)
			ret = acl_cond_defaults(acl_model_cond(h->subs[k], NULL), o);
	}
	return ret;
}

/* Can the sub-models of @h be inlined (their captures ended, or never began)? */
static int acl_cond_subs_ready(struct acl_cond_handle *h)
{
	uint32_t i;

	for (i = 0; i < h->nsubs; i++) {
		struct acl_cond *sc = acl_model_cond(h->subs[i], NULL);
		bool ended;

		pthread_mutex_lock(&sc->lock);
		ended = sc->ended;
		pthread_mutex_unlock(&sc->lock);
		if (ended)
			continue;
		if (acl_model_capturing(h->subs[i]))
			return acl_errf(ACLI_ERTNOTSUPP, "sub-model %p of a condition task is still being captured: npu makes the sub-models part of their parent when its capture ends, so end theirs first",
					(void *)h->subs[i]);
	}
	return 0;
}

/* The jump tables of @o's commands, step indexes of @o, relative to the driver model of each (@cap's parts). */
static void acl_cond_rebase(struct acl_cond_out *o, const struct acl_capture *cap)
{
	uint32_t i, j = 0, first = 0, k;

	for (i = 0; i < o->n; i++) {
		uint32_t *t = (uint32_t *)(uintptr_t)o->v[i].value;

		while (j < cap->next && cap->ext[j].at <= i)
			first = cap->ext[j++].at;
		if (acl_cond_is_jump(&o->v[i]) && first)
			for (k = 0; k < o->v[i].length; k++)
				t[k] -= first;
	}
}

/* model.c's: the capture @cap of @arg's model ended. */
static int acl_cond_end(void *arg, struct acl_capture *cap)
{
	struct acl_cond *c = arg;
	struct acl_cond_out o = { 0 };
	struct acl_cond_handle *h;
	uint32_t i, j = 0, nph = 0;
	int ret = 0;

	for (i = 0; i < cap->n; i++)
		if (acl_cond_placeholder(&cap->cmds[i]))
			nph++;
	if (c->parent && (cap->next || cap->nsw))
		return acl_errf(ACLI_ERTNOTSUPP, "the sub-model %p of a condition task holds %s, which npu cannot make part of its parent",
				(void *)c->m, !cap->next ? "a label switch" : cap->ext[0].host ?
				"a host function or callback" : "an EXTERNAL event record or wait");
	if (nph && cap->nsw)
		return acl_errf(ACLI_ERTNOTSUPP, "model %p holds both condition tasks and label switches, which npu cannot have in one graph",
				(void *)c->m);
	for (i = 0; !ret && i < cap->n; i++) {
		h = acl_cond_placeholder(&cap->cmds[i]);
		if (h)
			ret = acl_cond_subs_ready(h);
	}
	if (!ret && !c->parent)
		ret = acl_cond_defaults(c, &o);
	for (i = 0; !ret && i < cap->n; i++) {
		while (j < cap->next && cap->ext[j].at == i)
			cap->ext[j++].at = o.n;
		h = acl_cond_placeholder(&cap->cmds[i]);
		ret = h ? acl_cond_expand(c, &o, h) : acl_cond_put(&o, &cap->cmds[i], 1);
	}
	if (ret) {
		free(o.v);
		return ret;
	}
	while (j < cap->next)
		cap->ext[j++].at = o.n;
	free(cap->cmds);
	cap->cmds = NULL;
	cap->n = cap->cap = 0;
	if (c->parent) {
		/* the parent's now */
		pthread_mutex_lock(&c->lock);
		c->cmds = o.v;
		c->ncmds = o.n;
		c->ended = true;
		pthread_mutex_unlock(&c->lock);
		return 0;
	}
	acl_cond_rebase(&o, cap);
	cap->cmds = o.v;
	cap->n = o.n;
	cap->cap = o.cap;
	return 0;
}

/* model.c's: a sub-model is captured into, which its parent must still be. */
static int acl_cond_begin(void *arg)
{
	struct acl_cond *c = arg;

	if (c->parent && !acl_model_capturing(c->parent->m))
		return acl_errf(ACLI_ERTNOTSUPP, "the capture of the parent %p of sub-model %p ended: npu makes the sub-models part of their parent when its capture ends, so capture them before",
				(void *)c->parent->m, (void *)c->m);
	return 0;
}

/* model.c's: the model is destroyed, its runs ended: its handles' memory and its sub-models go. */
static void acl_cond_teardown(void *arg)
{
	struct acl_cond *c = arg;
	uint32_t i, k;

	/* no call adds a handle or a task now: the model is out of the table */
	for (i = 0; i < c->nhandles; i++) {
		struct acl_cond_handle *h = c->handles[i];

		if (acl_obj_del(&h->obj))
			acl_obj_put(&h->obj);
		for (k = 0; h->used && k < h->nsubs; k++)
			acl_model_drop(h->subs[k]);
		if (h->va)
			acl_mm_free(c->dev, h->va, ACL_REGION_MALLOC);
		h->va = 0;
	}
	acl_err_clear();
}

/* Free @c's own memory, its handles let go already. */
static void acl_cond_free(struct acl_cond *c)
{
	uint32_t i;

	for (i = 0; i < c->ntabs; i++)
		free(c->tabs[i]);
	free(c->tabs);
	free(c->handles);
	free(c->cmds);
	free(c);
}

/* model.c's: the last reference to the model went. */
static void acl_cond_release(void *arg)
{
	struct acl_cond *c = arg;
	uint32_t i, k;

	for (i = 0; i < c->nhandles; i++) {
		struct acl_cond_handle *h = c->handles[i];

		for (k = 0; h->used && k < h->nsubs; k++)
			acl_model_put(h->subs[k]);
		free(h->subs);
		acl_obj_put(&h->obj);
	}
	pthread_mutex_destroy(&c->lock);
	acl_cond_free(c);
}

/*
 * model.c's, in a forked child: the parent's state, host memory only.
 * The handle table was reset and the sub-models are the context's list's
 * to free (each with its own state), so nothing is counted down: the
 * handles are freed as they are; @c->lock may be held by a thread that
 * did not fork, so it is not touched.
 */
static void acl_cond_forget(void *arg)
{
	struct acl_cond *c = arg;
	uint32_t i;

	for (i = 0; i < c->nhandles; i++) {
		free(c->handles[i]->subs);
		free(c->handles[i]);
	}
	acl_cond_free(c);
}

static const struct acl_model_cond_ops acl_cond_ops = {
	.begin = acl_cond_begin,
	.end = acl_cond_end,
	.teardown = acl_cond_teardown,
	.release = acl_cond_release,
	.forget = acl_cond_forget,
};

/* @handle as a live condition handle, with a reference (acl_obj_put), or 107017. */
static int acl_cond_handle_get(aclmdlRICondHandle handle, struct acl_cond_handle **out)
{
	*out = (struct acl_cond_handle *)acl_obj_get(handle, ACL_OBJ_COND);
	if (!*out)
		return acl_errf(ACLI_EHANDLE, "handle %p is not a live condition handle (its model destroyed?)", handle);
	return 0;
}

/*
 * The vendor's order: the acl layer's NULL checks, the model's handle,
 * the flag, a captured graph (207000), being captured (107000), the
 * context (107002, 107004), the chip (207000).
 */
static int acl_cond_create(struct acl_model *m, uint32_t def, aclmdlRICondHandleFlag flag,
			   struct acl_cond_handle **out)
{
	struct acl_cond_handle *h;
	struct acl_context *ctx;
	struct acl_cond *c;
	int ret;

	if ((uint32_t)flag > ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT)
		return acl_errf(ACLI_ERTPARAM, "flag %u must be 0 or ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT (1)", (uint32_t)flag);
	if (acl_model_built(m))
		return acl_errf(ACLI_ERTNOTSUPP, "model %p is one of aclmdlRIBuildBegin: only a captured graph has condition handles",
				(void *)m);
	if (!acl_model_capturing(m))
		return acl_errf(ACLI_ERTPARAM, "model %p is not being captured: a condition handle is made during its capture",
				(void *)m);
	ret = acl_model_current(m);
	if (!ret)
		ret = acl_graph_chip();
	if (ret)
		return ret;
	ret = acl_cur_ctx(&ctx);
	if (ret)
		return ret;
	ret = acl_cond_of(m, ctx->dev, NULL, &c);
	h = ret ? NULL : calloc(1, sizeof(*h));
	if (!ret && !h)
		ret = acl_errf(-ENOMEM, "out of host memory");
	/* a page of its own, zero as the driver gives it (the vendor's memset) */
	if (!ret)
		ret = acl_mm_alloc(ctx->dev, NPU_PAGE_4K, NPU_PAGE_4K, &h->va);
	acl_ctx_put(ctx);
	if (ret) {
		free(h);
		return ret;
	}
	h->owner = c;
	h->def = def;
	h->assign = flag == ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT;
	pthread_mutex_lock(&c->lock);
	ret = acl_cond_grow((void **)&c->handles, c->nhandles, &c->handles_cap, sizeof(*c->handles));
	if (!ret)
		c->handles[c->nhandles++] = h;
	pthread_mutex_unlock(&c->lock);
	if (ret) {
		acl_mm_free(c->dev, h->va, ACL_REGION_MALLOC);
		free(h);
		return ret;
	}
	acl_obj_add(&h->obj, ACL_OBJ_COND, acl_cond_handle_release);
	/* the model's reference, besides the table's */
	acl_obj_hold(&h->obj);
	*out = h;
	return 0;
}

ACL_EXPORT aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
					     aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle)
{
	struct acl_cond_handle *h = NULL;
	struct acl_model *m;
	int ret;

	ret = acl_enter(NULL, modelRI, handle);
	if (!ret)
		ret = acl_model_get(modelRI, &m);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_cond_create(m, defaultLaunchValue, flag, &h);
	if (!ret)
		*handle = h;
	acl_model_put(m);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
	struct acl_cond_handle *h;
	struct acl_context *ctx;
	int ret;

	ret = acl_enter(NULL, handle, ptr);
	if (!ret)
		ret = acl_cond_handle_get(handle, &h);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_cur_ctx(&ctx);
	if (!ret) {
		acl_ctx_put(ctx);
		ret = acl_graph_chip();
	}
	if (!ret)
		*ptr = (uint64_t *)(uintptr_t)h->va;
	acl_obj_put(&h->obj);
	return acl_ret(__func__, ret);
}

/* The sizes CheckCondTaskParamsSize takes: 107000 if not. */
static int acl_cond_size_check(const aclmdlRICondTaskParams *p)
{
	bool ok = p->type == ACL_MODEL_RI_COND_TYPE_IF ? p->size == 1 || p->size == 2 :
		  p->type == ACL_MODEL_RI_COND_TYPE_WHILE ? p->size == 1 : p->size > 0;

	if (ok)
		return 0;
	return acl_errf(ACLI_ERTPARAM, "size %u is not one a condition task of type %d takes (IF 1 or 2, WHILE 1, SWITCH at least 1)",
			p->size, (int)p->type);
}

/*
 * What aclmdlRIAddCondTask refuses of @p on @s after the handles, in the
 * vendor's order: the type, flags, NULL handle or array (107000); a
 * handle used already (107000), the context (107002, 107003), a stream not
 * being captured (107029), the chip, a capture of another model than the
 * handle's (107000), the size (107000).
 */
static int acl_cond_task_check(const aclmdlRICondTaskParams *p, struct acl_cond_handle *h, struct acl_stream *s,
			       uint32_t flags)
{
	struct acl_capture *cap;
	bool used;
	int ret;

	if ((uint32_t)p->type > ACL_MODEL_RI_COND_TYPE_SWITCH)
		return acl_errf(ACLI_ERTPARAM, "params.type %d is not an aclmdlRICondTaskType (0..2)", (int)p->type);
	if (flags)
		return acl_errf(ACLI_ERTPARAM, "flags %#x must be 0 (reserved)", flags);
	if (!h)
		return acl_errf(ACLI_ERTPARAM, "params.handle must not be NULL");
	if (!p->modelRIArray)
		return acl_errf(ACLI_ERTPARAM, "params.modelRIArray must not be NULL");
	pthread_mutex_lock(&h->owner->lock);
	used = h->used;
	pthread_mutex_unlock(&h->owner->lock);
	if (used)
		return acl_errf(ACLI_ERTPARAM, "handle %p has a condition task already: create another handle for another task",
				(void *)h);
	ret = acl_stream_current(s);
	if (ret)
		return ret;
	cap = acl_stream_capture(s, NULL);
	if (!cap)
		return acl_errf(ACLI_ENOTCAPTURED, "stream %p is not being captured: a condition task is added to a capture",
				(void *)s);
	ret = acl_graph_chip();
	if (ret)
		return ret;
	if (acl_model_of_capture(cap) != h->owner->m)
		return acl_errf(ACLI_ERTPARAM, "stream %p is captured into model %p, handle %p was made on model %p",
				(void *)s, (void *)acl_model_of_capture(cap), (void *)h, (void *)h->owner->m);
	return acl_cond_size_check(p);
}

/* The task of @h: its sub-models into @p->modelRIArray, its placeholder recorded on @s. */
static int acl_cond_task_add(const aclmdlRICondTaskParams *p, struct acl_cond_handle *h, struct acl_stream *s)
{
	struct npu_cmd ph = { .op = NPU_OP_SWITCH, .src = h->va, .value = (uintptr_t)h };
	struct acl_cond *c = h->owner, *sc;
	struct acl_model **subs;
	uint32_t n = 0, i;
	bool taken;
	int ret = 0;

	subs = calloc(p->size, sizeof(*subs));
	if (!subs)
		return acl_errf(-ENOMEM, "out of host memory");
	pthread_mutex_lock(&c->lock);
	taken = h->used;
	h->used = true;
	pthread_mutex_unlock(&c->lock);
	if (taken) {
		free(subs);
		return acl_errf(ACLI_ERTPARAM, "handle %p was given a condition task by another thread meanwhile",
				(void *)h);
	}
	for (; n < p->size && !ret; n++) {
		ret = acl_model_sub_new(c->m, &subs[n]);
		if (!ret) {
			ret = acl_cond_of(subs[n], c->dev, c, &sc);
			if (ret)
				n++;	/* made: undone below */
		}
		if (ret)
			break;
	}
	if (!ret) {
		/* complete before the placeholder is: a CaptureEnd may expand it at once */
		pthread_mutex_lock(&c->lock);
		h->type = p->type;
		h->nsubs = p->size;
		h->subs = subs;
		pthread_mutex_unlock(&c->lock);
		ret = acl_stream_launch(s, &ph, 1);
	}
	if (ret) {
		pthread_mutex_lock(&c->lock);
		h->used = false;
		h->nsubs = 0;
		h->subs = NULL;
		pthread_mutex_unlock(&c->lock);
		for (i = 0; i < n; i++) {
			acl_model_drop(subs[i]);
			acl_model_put(subs[i]);
		}
		free(subs);
		memset(p->modelRIArray, 0, (size_t)p->size * sizeof(*p->modelRIArray));
		return ret;
	}
	for (i = 0; i < n; i++)
		p->modelRIArray[i] = subs[i];
	return 0;
}

ACL_EXPORT aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags)
{
	struct acl_cond_handle *h = NULL;
	struct acl_stream *s = NULL;
	int ret;

	ret = acl_enter(NULL, stream);
	if (!ret && params.handle)
		ret = acl_cond_handle_get(params.handle, &h);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (!ret)
		ret = acl_cond_task_check(&params, h, s, flags);
	if (!ret)
		ret = acl_cond_task_add(&params, h, s);
	if (s)
		acl_stream_put(s);
	if (h)
		acl_obj_put(&h->obj);
	return acl_ret(__func__, ret);
}
