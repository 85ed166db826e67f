/* SPDX-License-Identifier: MIT */
/*
 * The table of live API handles (contexts, streams, events, notifies,
 * allocator descriptions, memory pools, shared buffers, models, labels,
 * label lists, a model's tasks and streams, device binaries and their
 * kernel functions).
 *
 * A handle the caller passes in is only a number until the table says
 * what it is: every object is tagged with its type, looked up here, and
 * held by a reference while a call uses it, so that a handle destroyed,
 * never created or of another type is answered (107017) instead of
 * dereferenced, and a destroy racing with a call frees nothing in use.
 */
#ifndef LIBACL_HANDLE_H
#define LIBACL_HANDLE_H

#include <stdbool.h>

enum acl_obj_type {
	ACL_OBJ_CONTEXT = 1,
	ACL_OBJ_STREAM,
	ACL_OBJ_EVENT,
	ACL_OBJ_NOTIFY,
	ACL_OBJ_ALLOCATOR_DESC,		/* aclrtAllocatorCreateDesc (allocator.c) */
	ACL_OBJ_MEMPOOL,		/* aclrtMemPoolCreate (mempool.c) */
	ACL_OBJ_MBUF,			/* aclrtAllocBuf, aclrtCopyBufRef (mbuf.c) */
	ACL_OBJ_MODEL,			/* aclmdlRI: a model runtime instance (model.c) */
	ACL_OBJ_LABEL,			/* aclrtLabel (label.c) */
	ACL_OBJ_LABEL_LIST,		/* aclrtLabelList (label.c) */
	ACL_OBJ_COND,			/* aclmdlRICondHandle (model_cond.c) */
	ACL_OBJ_MODEL_TASK,		/* aclmdlRITask: a task of a built model (model_task.c) */
	ACL_OBJ_MODEL_STREAM,		/* the aclrtStream aclmdlRIGetStreams names (model_task.c) */
	ACL_OBJ_TASK_GRP,		/* aclrtTaskGrp: a task group of a capture (model_group.c) */
	ACL_OBJ_BINARY_DESC,		/* aclrtBinary: aclrtCreateBinary's description (binary.c) */
	ACL_OBJ_BINARY,			/* aclrtBinHandle: a loaded device binary (binary.c) */
	ACL_OBJ_FUNCTION,		/* aclrtFuncHandle: a kernel of a loaded binary (binary.c) */
	ACL_OBJ_KARGS,			/* aclrtArgsHandle: a kernel's argument handle (kargs.c) */
};

struct acl_obj {
	struct acl_obj *hnext;		/* hash chain; under the table lock */
	const void *key;		/* the handle the caller passes: the object, or acl_obj_add_key()'s */
	enum acl_obj_type type;		/* constant */
	unsigned int refs;		/* atomic; the table holds one while listed */
	void (*release)(struct acl_obj *obj);	/* frees the object at the last put */
};

/* List @obj (refs 1: the table's) so that lookups find it. */
void acl_obj_add(struct acl_obj *obj, enum acl_obj_type type, void (*release)(struct acl_obj *));

/*
 * List @obj under the handle @key instead of its own address (an object
 * that stands for memory the caller owns, which libacl never writes).
 */
void acl_obj_add_key(struct acl_obj *obj, const void *key, enum acl_obj_type type,
		     void (*release)(struct acl_obj *));

/* @p as a live object of @type with a reference taken, or NULL. */
struct acl_obj *acl_obj_get(const void *p, enum acl_obj_type type);

/* Another reference to an object the caller holds. */
void acl_obj_hold(struct acl_obj *obj);

void acl_obj_put(struct acl_obj *obj);

/*
 * Unlist @obj: later lookups miss it. Returns false if another thread
 * unlisted it first (that thread owns the table's reference then).
 */
bool acl_obj_del(struct acl_obj *obj);

/* After fork: the parent's objects are not the child's; forget them all. */
void acl_objs_forget(void);

#endif /* LIBACL_HANDLE_H */
