/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: a context's table of objects - handles, streams and models by id.
 */
#ifndef __NPU_OBJ_H__
#define __NPU_OBJ_H__

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/xarray.h>

/*
 * What an id names. The type is kept with the entry (two xarray marks and
 * a pointer tag), so a lookup finds an object only as the type it asks
 * for.
 */
enum npu_obj_type {
	NPU_OBJ_HANDLE,		/* struct npu_handle the context allocated */
	NPU_OBJ_IMPORT,		/* struct npu_handle from SHARE_/IPC_IMPORT */
	NPU_OBJ_STREAM,		/* struct npu_stream */
	NPU_OBJ_DYING,		/* struct npu_stream a STREAM_DESTROY waits for */
	NPU_OBJ_MODEL,		/* struct npu_model */
	NPU_OBJ_TYPES
};

#define NPU_OBJ_HANDLES		(BIT(NPU_OBJ_HANDLE) | BIT(NPU_OBJ_IMPORT))
#define NPU_OBJ_STREAMS		(BIT(NPU_OBJ_STREAM) | BIT(NPU_OBJ_DYING))

/**
 * struct npu_objs - the table
 * @xa: id -> object, its type in the entry's marks; a reserved id holds a zero
 *	entry, which lookups do not find (internally locked; its lock also
 *	protects @next and @count)
 * @next: where the cyclic id allocation goes on
 * @count: entries of each type, reserved ones included, within the caps
 */
struct npu_objs {
	struct xarray xa;
	u32 next;
	unsigned long count[NPU_OBJ_TYPES];
};

void npu_objs_init(struct npu_objs *objs);
void npu_objs_destroy(struct npu_objs *objs);

int npu_obj_reserve(struct npu_objs *objs, enum npu_obj_type type, u32 *id);
void npu_obj_publish(struct npu_objs *objs, u32 id, enum npu_obj_type type,
		     void *obj);
void npu_obj_abort(struct npu_objs *objs, u32 id, enum npu_obj_type type);

void *npu_obj_get(struct npu_objs *objs, u32 id, unsigned long types,
		  void (*get)(void *obj), enum npu_obj_type *type);
bool npu_obj_is(struct npu_objs *objs, u32 id, const void *obj);
void *npu_obj_retype(struct npu_objs *objs, u32 id, enum npu_obj_type from,
		     enum npu_obj_type to, void (*get)(void *obj));
void *npu_obj_remove(struct npu_objs *objs, u32 id, unsigned long types,
		     const void *obj, enum npu_obj_type *type);
void npu_obj_remove_each(struct npu_objs *objs, unsigned long types,
			 void (*fn)(void *obj, enum npu_obj_type type, void *arg),
			 void *arg);
void npu_obj_each(struct npu_objs *objs, unsigned long types,
		  void (*get)(void *obj), void (*fn)(void *obj, void *arg),
		  void *arg);
unsigned long npu_obj_count(struct npu_objs *objs, unsigned long types);

#endif /* __NPU_OBJ_H__ */
