// SPDX-License-Identifier: GPL-2.0
/*
 * npu: a context's table of objects.
 *
 * Every object a context names by id - the physical handles it allocated
 * or imported, its streams, its models - is in one xarray, with its type
 * in the entry: lookups are typed, ids are allocated cyclically from one space
 * (a freed object's id is not the next one's), the per-context caps are
 * counted and checked here, and the context's release empties the table
 * by type.
 *
 * Creating ioctls reserve, respond, then publish, as iommufd's objects
 * do: npu_obj_reserve() takes an id (a zero entry no lookup finds) and
 * charges the cap, the ioctl answers with the id, and once the answer is
 * copied out npu_obj_publish() stores the object - or npu_obj_abort()
 * gives the id back if the copy failed. No other thread of the process
 * can reach an object whose creator never learnt its id.
 */
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/xarray.h>

#include "npu_obj.h"

/* Per-context caps on what a user can make the kernel hold. */
static unsigned int max_handles = 65536;
module_param(max_handles, uint, 0644);
MODULE_PARM_DESC(max_handles, "Physical handles per context, imports included (default 65536)");

static unsigned int max_imports = 4096;
module_param(max_imports, uint, 0644);
MODULE_PARM_DESC(max_imports, "Handles per context from SHARE_IMPORT or IPC_IMPORT (default 4096)");

static unsigned int max_streams = 1024;
module_param(max_streams, uint, 0644);
MODULE_PARM_DESC(max_streams, "Streams per context (default 1024)");

static unsigned int max_models = 4096;
module_param(max_models, uint, 0644);
MODULE_PARM_DESC(max_models, "Models per context (default 4096)");

void npu_objs_init(struct npu_objs *objs)
{
	xa_init_flags(&objs->xa, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	objs->next = 0;
	memset(objs->count, 0, sizeof(objs->count));
}

/* The context is released: every object is out already. */
void npu_objs_destroy(struct npu_objs *objs)
{
	xa_destroy(&objs->xa);
}

/* Is there room for one more @type? The table's lock held. */
static bool npu_obj_room_locked(struct npu_objs *objs, enum npu_obj_type type)
{
	unsigned long *n = objs->count;

	lockdep_assert_held(&objs->xa.xa_lock);
	switch (type) {
	case NPU_OBJ_IMPORT:
		if (n[NPU_OBJ_IMPORT] >= READ_ONCE(max_imports))
			return false;
		fallthrough;
	case NPU_OBJ_HANDLE:
		return n[NPU_OBJ_HANDLE] + n[NPU_OBJ_IMPORT] <
		       READ_ONCE(max_handles);
	case NPU_OBJ_MODEL:
		return n[NPU_OBJ_MODEL] < READ_ONCE(max_models);
	default:
		return n[NPU_OBJ_STREAM] + n[NPU_OBJ_DYING] <
		       READ_ONCE(max_streams);
	}
}

static void npu_obj_count_locked(struct npu_objs *objs, enum npu_obj_type type,
				 long n)
{
	lockdep_assert_held(&objs->xa.xa_lock);
	WRITE_ONCE(objs->count[type], objs->count[type] + n);
}

/**
 * npu_obj_reserve() - take an id for a new object of @type
 * @objs: the table
 * @type: NPU_OBJ_HANDLE, NPU_OBJ_IMPORT, NPU_OBJ_STREAM or NPU_OBJ_MODEL
 * @id: out, the id
 *
 * Return: 0, -ENOSPC at the type's cap (max_handles, max_imports,
 * max_streams, max_models) or with every id taken, -ENOMEM.
 */
int npu_obj_reserve(struct npu_objs *objs, enum npu_obj_type type, u32 *id)
{
	int ret = -ENOSPC;

	xa_lock(&objs->xa);
	if (npu_obj_room_locked(objs, type)) {
		/*
		 * Counted before the allocation, which may drop the lock to
		 * sleep: another reserve meanwhile sees the room taken.
		 */
		npu_obj_count_locked(objs, type, 1);
		ret = __xa_alloc_cyclic(&objs->xa, id, XA_ZERO_ENTRY,
					xa_limit_32b, &objs->next,
					GFP_KERNEL_ACCOUNT);
		if (ret >= 0) {
			ret = 0;
		} else {
			npu_obj_count_locked(objs, type, -1);
			if (ret == -EBUSY)
				ret = -ENOSPC;
		}
	}
	xa_unlock(&objs->xa);
	return ret;
}

/*
 * An entry's type is in two marks and a pointer tag (XA_MARK_0 is the
 * allocator's): bit 0 of the type in XA_MARK_1, bit 1 in XA_MARK_2, bit 2
 * in the entry's tag (0 or 1: objects are at least 4-byte aligned).
 */
static void *npu_obj_entry(void *obj, enum npu_obj_type type)
{
	return xa_tag_pointer(obj, type >> 2);
}

static void npu_obj_set_type_locked(struct npu_objs *objs, u32 id, void *obj,
				    enum npu_obj_type type)
{
	lockdep_assert_held(&objs->xa.xa_lock);
	/* replaces the entry there: no allocation */
	__xa_store(&objs->xa, id, npu_obj_entry(obj, type), GFP_ATOMIC);
	if (type & 1)
		__xa_set_mark(&objs->xa, id, XA_MARK_1);
	else
		__xa_clear_mark(&objs->xa, id, XA_MARK_1);
	if (type & 2)
		__xa_set_mark(&objs->xa, id, XA_MARK_2);
	else
		__xa_clear_mark(&objs->xa, id, XA_MARK_2);
}

/* The reserved @id now names @obj: lookups find it. */
void npu_obj_publish(struct npu_objs *objs, u32 id, enum npu_obj_type type,
		     void *obj)
{
	xa_lock(&objs->xa);
	npu_obj_set_type_locked(objs, id, obj, type);
	xa_unlock(&objs->xa);
}

/* The reserved @id goes back unused. */
void npu_obj_abort(struct npu_objs *objs, u32 id, enum npu_obj_type type)
{
	xa_lock(&objs->xa);
	__xa_erase(&objs->xa, id);
	npu_obj_count_locked(objs, type, -1);
	xa_unlock(&objs->xa);
}

/*
 * The object @id names if its type is one of @types, else NULL: one walk,
 * the marks read from the node it ends at.
 */
static void *npu_obj_load_locked(struct npu_objs *objs, u32 id,
				 unsigned long types, enum npu_obj_type *type)
{
	XA_STATE(xas, &objs->xa, id);
	enum npu_obj_type t;
	void *entry;

	lockdep_assert_held(&objs->xa.xa_lock);
	entry = xas_load(&xas);
	if (!entry || xa_is_zero(entry))
		return NULL;
	t = (xas_get_mark(&xas, XA_MARK_1) ? 1 : 0) |
	    (xas_get_mark(&xas, XA_MARK_2) ? 2 : 0) |
	    xa_pointer_tag(entry) << 2;
	if (!(types & BIT(t)))
		return NULL;
	if (type)
		*type = t;
	return xa_untag_pointer(entry);
}

/**
 * npu_obj_get() - the object @id names, if it is of one of @types
 * @objs: the table
 * @id: the id
 * @types: NPU_OBJ_* bits
 * @get: takes the caller's reference, under the table's lock (so that a
 *	concurrent removal waits for it)
 * @type: out, its type (or NULL)
 *
 * Return: the object, or NULL.
 */
void *npu_obj_get(struct npu_objs *objs, u32 id, unsigned long types,
		  void (*get)(void *obj), enum npu_obj_type *type)
{
	void *obj;

	xa_lock(&objs->xa);
	obj = npu_obj_load_locked(objs, id, types, type);
	if (obj)
		get(obj);
	xa_unlock(&objs->xa);
	return obj;
}

/* Does @id still name @obj? (Only compared: no reference.) */
bool npu_obj_is(struct npu_objs *objs, u32 id, const void *obj)
{
	return xa_untag_pointer(xa_load(&objs->xa, id)) == obj;
}

/*
 * @id's object of type @from becomes of type @to (a stream being
 * destroyed), with a reference for the caller; NULL if it is not @from.
 */
void *npu_obj_retype(struct npu_objs *objs, u32 id, enum npu_obj_type from,
		     enum npu_obj_type to, void (*get)(void *obj))
{
	void *obj;

	xa_lock(&objs->xa);
	obj = npu_obj_load_locked(objs, id, BIT(from), NULL);
	if (obj) {
		get(obj);
		npu_obj_set_type_locked(objs, id, obj, to);
		npu_obj_count_locked(objs, from, -1);
		npu_obj_count_locked(objs, to, 1);
	}
	xa_unlock(&objs->xa);
	return obj;
}

/**
 * npu_obj_remove() - take @id out of the table
 * @objs: the table
 * @id: the id
 * @types: only if it names an object of one of these types...
 * @obj: ...and, if not NULL, this very object
 * @type: out, its type (or NULL)
 *
 * Return: the object, with the table's reference now the caller's, or
 * NULL.
 */
void *npu_obj_remove(struct npu_objs *objs, u32 id, unsigned long types,
		     const void *obj, enum npu_obj_type *type)
{
	enum npu_obj_type t;
	void *found;

	xa_lock(&objs->xa);
	found = npu_obj_load_locked(objs, id, types, &t);
	if (found && (!obj || found == obj)) {
		__xa_erase(&objs->xa, id);
		npu_obj_count_locked(objs, t, -1);
		if (type)
			*type = t;
	} else {
		found = NULL;
	}
	xa_unlock(&objs->xa);
	return found;
}

/**
 * npu_obj_remove_each() - take every object of @types out (the context's
 *	release)
 * @objs: the table
 * @types: NPU_OBJ_* bits
 * @fn: gets each object with the table's reference, outside the lock
 * @arg: for @fn
 */
void npu_obj_remove_each(struct npu_objs *objs, unsigned long types,
			 void (*fn)(void *obj, enum npu_obj_type type, void *arg),
			 void *arg)
{
	enum npu_obj_type type;
	unsigned long id;
	void *entry, *obj;

	xa_for_each(&objs->xa, id, entry) {
		obj = npu_obj_remove(objs, id, types, NULL, &type);
		if (obj)
			fn(obj, type, arg);
		cond_resched();
	}
}

/**
 * npu_obj_each() - call @fn for every object of @types, each with a
 *	reference taken by @get (which @fn drops), outside the lock
 * @objs: the table
 * @types: NPU_OBJ_* bits
 * @get: as for npu_obj_get()
 * @fn: gets each object
 * @arg: for @fn
 */
void npu_obj_each(struct npu_objs *objs, unsigned long types,
		  void (*get)(void *obj), void (*fn)(void *obj, void *arg),
		  void *arg)
{
	unsigned long id;
	void *entry, *obj;

	xa_for_each(&objs->xa, id, entry) {
		obj = npu_obj_get(objs, id, types, get, NULL);
		if (obj)
			fn(obj, arg);
	}
}

/* How many objects of @types (reserved ones included): a snapshot. */
unsigned long npu_obj_count(struct npu_objs *objs, unsigned long types)
{
	unsigned long n = 0;
	int t;

	for (t = 0; t < NPU_OBJ_TYPES; t++)
		if (types & BIT(t))
			n += READ_ONCE(objs->count[t]);
	return n;
}
