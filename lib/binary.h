/* SPDX-License-Identifier: MIT */
/*
 * Device binaries (binary.c) and their kernel functions (function.c), and
 * the parser of the device binary format (binelf.c).
 *
 * A loaded binary keeps a host copy of its image (what an executor maps
 * and runs) and a copy in device memory (aclrtBinaryGetDevAddress). Each
 * kernel record of its .npu_kernels section is a struct acl_kfunc, an
 * object of its own in the handle table (the aclrtFuncHandle) that lives
 * inside the binary's allocation and holds a reference to the binary
 * while it is referenced itself: a launch that got a function with
 * acl_kfunc_get() may read everything below until acl_kfunc_put(), even
 * if the binary is unloaded meanwhile (then @loaded is false and the
 * device image is gone).
 */
#ifndef LIBACL_BINARY_H
#define LIBACL_BINARY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <acl/acl_rt.h>
#include <ascendc/npu_fatbin.h>

#include "handle.h"
#include "list.h"

struct acl_context;
struct acl_device;
struct acl_binary;

/* One kernel of a binary, from its npu_kernel_rec and its entry's .dynsym symbol. */
struct acl_kfunc {
	struct acl_obj obj;		/* first: the aclrtFuncHandle is the object */
	struct acl_binary *bin;		/* constant; held while this is referenced */
	char name[NPU_KREC_NAME_MAX];	/* the kernel's name, NUL-terminated */
	char entry[NPU_KREC_ENTRY_MAX];	/* its entry symbol: void entry(const void *args) */
	uint64_t tiling_key;
	uint32_t core_type;		/* enum npu_core_type */
	uint32_t param_count;		/* <= NPU_KREC_PARAMS_MAX */
	uint32_t args_size;		/* bytes of the argument block */
	struct npu_param_rec params[NPU_KREC_PARAMS_MAX];	/* offset (8-aligned), size, kind */
	uint64_t entry_value;		/* the entry symbol's st_value (an address of the image) */
	uint64_t entry_size;		/* its st_size */
	bool prints;			/* its binary has .npu_printf: launches get a printf area (kprint.c) */
};

/* What binelf.c makes of an image: the kernels (their obj and bin not set). */
struct acl_elf_info {
	char soc[NPU_NOTE_SOC_MAX];	/* the note's soc_version, NUL-terminated */
	uint32_t nfuncs;		/* at least 1 */
	struct acl_kfunc *funcs;	/* malloc'ed, in section order; the caller frees it */
};

/*
 * Check the whole device binary @img (@len bytes: ELF header, section
 * table, .note.npu, .npu_kernels, .dynsym) and read its kernels into
 * @info: 0, or ACLI_ERTPARAM (-ENOMEM) with the reason recorded and
 * nothing to free.
 */
int acl_elf_read(const void *img, size_t len, struct acl_elf_info *info);

struct acl_binary {
	struct acl_obj obj;		/* first: the aclrtBinHandle is the object */
	struct acl_device *dev;		/* constant: the device of its context */
	struct acl_context *ctx;	/* the context it was loaded in, held; constant */
	struct list_head node;		/* in ctx->binaries; under ctx->lock */
	bool loaded;			/* atomic: until unloaded (or its context went) */
	void *image;			/* the host copy; constant */
	size_t size;			/* bytes of the image; constant */
	uint64_t dev_addr;		/* its copy in device memory (4 KiB pages); constant */
	char soc[NPU_NOTE_SOC_MAX];	/* the note's soc_version */
	pthread_mutex_t lock;		/* protects the callback and aicore_id */
	int32_t aicore_id;		/* its id in the device's executor; -1 until its first launch */
	uint32_t aicore_epoch;		/* ...of that executor: started again, it has no such id */
	aclrtOpExceptionCallback exc_cb;	/* aclrtBinarySetExceptionCallback's, or NULL */
	void *exc_data;
	uint32_t nfuncs;		/* constant */
	struct acl_kfunc funcs[];	/* constant, in section order */
};

/*
 * @p as a function of a loaded binary, with a reference (acl_kfunc_put):
 * ACLI_EHANDLE (recorded) if it is none. The caller launching it reads
 * @f->entry, @f->params/@f->args_size (the argument block's layout) and
 * @f->bin->image/@f->bin->dev_addr, and checks @f->bin->loaded.
 */
int acl_kfunc_get(const void *p, struct acl_kfunc **out);
void acl_kfunc_put(struct acl_kfunc *f);

/* @p as a loaded binary, with a reference (acl_obj_put()), or ACLI_EHANDLE recorded. */
int acl_binary_get(const void *p, struct acl_binary **out);
/* function.c's: @b's kernel named @name, or (@name NULL) its first of tiling key @key; NULL if none. */
struct acl_kfunc *acl_binary_kernel(struct acl_binary *b, const char *name, uint64_t key);

/*
 * The exception callback of @f's binary and its user data, for a kernel
 * fault of @f: false if none was set.
 */
bool acl_kfunc_exc_callback(struct acl_kfunc *f, aclrtOpExceptionCallback *cb, void **data);

#endif /* LIBACL_BINARY_H */
