/* SPDX-License-Identifier: MIT */
/*
 * include/ascendc/npu_fatbin.h - the simulated chip's device binary format:
 * the records npu-cc writes and a loader (libacl) reads.
 * Documentation/npu-cc.rst describes the whole format.
 *
 * A device binary is an x86-64 ELF shared object (ET_DYN, what g++ -shared
 * makes) with
 *   - one entry function per kernel, extern "C" void __npu_entry_NAME(const
 *     void *args), which reads the kernel's parameters from args (each at the
 *     next 8-byte boundary after the previous one: the ArgsAppend rule) and
 *     calls the kernel;
 *   - section .npu_kernels: one struct npu_kernel_rec per kernel, back to
 *     back (walk by rec_size); the records hold no pointers, so they need
 *     no relocation and can be read straight from the file;
 *   - section .note.npu: one ELF note, name "NPU", type NPU_NOTE_TYPE, desc
 *     struct npu_note_desc. Only a linked binary (npu-cc --link-fatbin) has
 *     it; a loader refuses an ELF without it;
 *   - optionally section .npu_printf (any bytes): some code of the binary
 *     may call AscendC::printf (kernel_operator.h puts it there), so a
 *     loader gives its kernels' launches a printf area.
 */
#ifndef NPU_ASCENDC_NPU_FATBIN_H
#define NPU_ASCENDC_NPU_FATBIN_H

#include <stdint.h>

#define NPU_KREC_MAGIC		0x4b55504eu	/* "NPUK" little endian */
#define NPU_KREC_VERSION	1u
#define NPU_KREC_NAME_MAX	128		/* name and entry, NUL included */
#define NPU_KREC_ENTRY_MAX	160
#define NPU_KREC_PARAMS_MAX	64

#define NPU_NOTE_NAME		"NPU"
#define NPU_NOTE_TYPE		1u
#define NPU_NOTE_MAGIC		0x4e55504eu	/* "NPUN" little endian */
#define NPU_NOTE_VERSION	1u		/* the format version of this file */
#define NPU_NOTE_SOC_MAX	32

enum npu_param_kind {
	NPU_PARAM_INT = 0,	/* signed integer, enum, bool */
	NPU_PARAM_UINT = 1,	/* unsigned integer */
	NPU_PARAM_FLOAT = 2,	/* float, double, half (by size) */
	NPU_PARAM_POINTER = 3,	/* a pointer (device address) */
	NPU_PARAM_OTHER = 4,	/* a trivially copyable struct passed by value */
};

enum npu_core_type {
	NPU_CORE_VECTOR = 0,	/* everything npu-cc builds today */
};

struct npu_param_rec {
	uint32_t offset;	/* in the argument block, a multiple of 8 */
	uint16_t size;		/* sizeof the parameter type */
	uint16_t kind;		/* enum npu_param_kind */
};

struct npu_kernel_rec {
	uint32_t magic;			/* NPU_KREC_MAGIC */
	uint16_t version;		/* NPU_KREC_VERSION */
	uint16_t rec_size;		/* sizeof(struct npu_kernel_rec) */
	char name[NPU_KREC_NAME_MAX];	/* the kernel's name (aclrtBinaryGetFunction) */
	char entry[NPU_KREC_ENTRY_MAX];	/* its entry symbol, __npu_entry_NAME */
	uint64_t tiling_key;		/* aclrtBinaryGetFunctionByEntry: 0 today */
	uint32_t core_type;		/* enum npu_core_type */
	uint32_t param_count;
	uint32_t args_size;		/* bytes of the argument block */
	uint32_t flags;			/* 0 */
	struct npu_param_rec params[NPU_KREC_PARAMS_MAX];
};

struct npu_note_desc {
	uint32_t magic;			/* NPU_NOTE_MAGIC */
	uint32_t version;		/* NPU_NOTE_VERSION */
	char soc_version[NPU_NOTE_SOC_MAX];	/* SOC_VERSION it was built for, NUL-padded */
};

#endif /* NPU_ASCENDC_NPU_FATBIN_H */
