// SPDX-License-Identifier: MIT
/*
 * The device binary format (include/ascendc/npu_fatbin.h,
 * Documentation/npu-cc.rst), read from an image the caller gives: an
 * x86-64 ELF shared object whose .npu_kernels section holds one struct
 * npu_kernel_rec per kernel and whose .note.npu note names the SoC it was
 * built for; each kernel's entry symbol is in .dynsym. A section
 * .npu_printf (any contents) says its kernels may call AscendC::printf:
 * their launches get a printf area (kprint.c).
 *
 * Nothing of the image is trusted: every offset and size is checked
 * against the image before it is read, the sections must not overlap each
 * other, the ELF header or the section table, strings must end inside
 * their section, and records are copied out (the image may be unaligned).
 * A failure is ACLI_ERTPARAM (CANN answers a binary it cannot register
 * with RT_ERROR_INVALID_VALUE, 107000) with what is wrong recorded.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "error.h"

/* A section's bytes in the image, checked. */
struct acl_elf {
	const unsigned char *p;
	size_t len;
	Elf64_Ehdr eh;
	const unsigned char *shdrs;	/* e_shnum headers */
	Elf64_Shdr shstr;		/* the section name table */
};

static int acl_elf_bad(const char *what, ...) __acl_printf(1, 2);

static int acl_elf_bad(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return acl_errf(ACLI_ERTPARAM, "not a valid device binary: %s", msg);
}

static bool acl_elf_in(const struct acl_elf *e, uint64_t off, uint64_t size)
{
	return off <= e->len && size <= e->len - off;
}

static void acl_elf_shdr(const struct acl_elf *e, uint32_t i, Elf64_Shdr *sh)
{
	memcpy(sh, e->shdrs + (size_t)i * sizeof(*sh), sizeof(*sh));
}

/* The NUL-terminated string at @off of string table @tab, or NULL. */
static const char *acl_elf_str(const struct acl_elf *e, const Elf64_Shdr *tab, uint64_t off)
{
	const char *s = (const char *)e->p + tab->sh_offset;

	if (off >= tab->sh_size || !memchr(s + off, '\0', tab->sh_size - off))
		return NULL;
	return s + off;
}

static int acl_elf_cmp_off(const void *a, const void *b)
{
	const Elf64_Shdr *x = a, *y = b;

	return x->sh_offset < y->sh_offset ? -1 : x->sh_offset > y->sh_offset;
}

/* The header and the section table: the file is an x86-64 ET_DYN ELF with sane sections. */
static int acl_elf_headers(struct acl_elf *e)
{
	Elf64_Shdr *sorted;
	uint64_t end;
	uint32_t i, n = 0;
	int ret = 0;

	if (e->len < EI_NIDENT || memcmp(e->p, ELFMAG, SELFMAG))
		return acl_elf_bad("no ELF magic (%zu bytes)", e->len);
	if (e->len < sizeof(e->eh))
		return acl_elf_bad("the ELF header is truncated (%zu of %zu bytes)", e->len, sizeof(e->eh));
	memcpy(&e->eh, e->p, sizeof(e->eh));
	if (e->eh.e_ident[EI_CLASS] != ELFCLASS64 || e->eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return acl_elf_bad("not a 64-bit little-endian ELF (class %u, data %u)",
				   e->eh.e_ident[EI_CLASS], e->eh.e_ident[EI_DATA]);
	if (e->eh.e_ident[EI_VERSION] != EV_CURRENT || e->eh.e_version != EV_CURRENT)
		return acl_elf_bad("ELF version %u", e->eh.e_version);
	if (e->eh.e_machine != EM_X86_64)
		return acl_elf_bad("machine %u, not x86-64 (%u)", e->eh.e_machine, EM_X86_64);
	if (e->eh.e_type != ET_DYN)
		return acl_elf_bad("ELF type %u, not a shared object (%u)", e->eh.e_type, ET_DYN);
	if (e->eh.e_shentsize != sizeof(Elf64_Shdr) || !e->eh.e_shnum || e->eh.e_shnum >= SHN_LORESERVE)
		return acl_elf_bad("section table: %u entries of %u bytes", e->eh.e_shnum, e->eh.e_shentsize);
	if (e->eh.e_shoff < sizeof(e->eh) ||
	    !acl_elf_in(e, e->eh.e_shoff, (uint64_t)e->eh.e_shnum * sizeof(Elf64_Shdr)))
		return acl_elf_bad("the section table (offset %llu, %u entries) is outside the file (%zu bytes)",
				   (unsigned long long)e->eh.e_shoff, e->eh.e_shnum, e->len);
	if (e->eh.e_shstrndx == SHN_UNDEF || e->eh.e_shstrndx >= e->eh.e_shnum)
		return acl_elf_bad("no section name table (index %u)", e->eh.e_shstrndx);
	e->shdrs = e->p + e->eh.e_shoff;

	sorted = calloc(e->eh.e_shnum, sizeof(*sorted));
	if (!sorted)
		return acl_errf(-ENOMEM, "out of host memory");
	for (i = 1; i < e->eh.e_shnum; i++) {
		Elf64_Shdr sh;

		acl_elf_shdr(e, i, &sh);
		if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL || !sh.sh_size)
			continue;
		if (!acl_elf_in(e, sh.sh_offset, sh.sh_size)) {
			ret = acl_elf_bad("section %u (offset %llu, %llu bytes) is outside the file (%zu bytes): truncated?",
					  i, (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size, e->len);
			goto out;
		}
		sorted[n++] = sh;
	}
	/* the section table itself, and the ELF header, as sections that must not overlap */
	sorted[n].sh_offset = e->eh.e_shoff;
	sorted[n++].sh_size = (uint64_t)e->eh.e_shnum * sizeof(Elf64_Shdr);
	qsort(sorted, n, sizeof(*sorted), acl_elf_cmp_off);
	end = sizeof(e->eh);
	for (i = 0; i < n; i++) {
		if (sorted[i].sh_offset < end) {
			ret = acl_elf_bad("sections overlap at offset %llu", (unsigned long long)sorted[i].sh_offset);
			goto out;
		}
		end = sorted[i].sh_offset + sorted[i].sh_size;
	}
	acl_elf_shdr(e, e->eh.e_shstrndx, &e->shstr);
	if (e->shstr.sh_type != SHT_STRTAB || !e->shstr.sh_size)
		ret = acl_elf_bad("the section name table is no string table");
out:
	free(sorted);
	return ret;
}

/* The one section named @name (its header in *@sh): 1, 0 if none, or an error. */
static int acl_elf_section(const struct acl_elf *e, const char *name, Elf64_Shdr *sh)
{
	bool found = false;
	uint32_t i;

	for (i = 1; i < e->eh.e_shnum; i++) {
		Elf64_Shdr s;
		const char *n;

		acl_elf_shdr(e, i, &s);
		n = acl_elf_str(e, &e->shstr, s.sh_name);
		if (!n)
			return acl_elf_bad("section %u has a name outside the name table", i);
		if (strcmp(n, name))
			continue;
		if (found)
			return acl_elf_bad("two sections %s", name);
		found = true;
		*sh = s;
	}
	return found;
}

/* .note.npu: one note "NPU", type NPU_NOTE_TYPE, with a struct npu_note_desc. */
static int acl_elf_note(const struct acl_elf *e, char soc[NPU_NOTE_SOC_MAX])
{
	const unsigned char *p;
	struct npu_note_desc d;
	Elf64_Nhdr nh;
	Elf64_Shdr sh;
	uint64_t need;
	int ret;

	ret = acl_elf_section(e, ".note.npu", &sh);
	if (ret <= 0)
		return ret ? ret : acl_elf_bad("no .note.npu: not a device binary of npu-cc --link-fatbin");
	if (sh.sh_type != SHT_NOTE || sh.sh_size < sizeof(nh))
		return acl_elf_bad(".note.npu is no note (type %u, %llu bytes)", sh.sh_type,
				   (unsigned long long)sh.sh_size);
	p = e->p + sh.sh_offset;
	memcpy(&nh, p, sizeof(nh));
	need = sizeof(nh) + ((nh.n_namesz + 3ULL) & ~3ULL) + nh.n_descsz;
	if (nh.n_namesz != sizeof(NPU_NOTE_NAME) || need > sh.sh_size ||
	    memcmp(p + sizeof(nh), NPU_NOTE_NAME, sizeof(NPU_NOTE_NAME)))
		return acl_elf_bad(".note.npu: not an \"%s\" note that fits its section", NPU_NOTE_NAME);
	if (nh.n_type != NPU_NOTE_TYPE || nh.n_descsz < sizeof(d))
		return acl_elf_bad(".note.npu: type %u with %u bytes, not type %u with %zu", nh.n_type,
				   nh.n_descsz, NPU_NOTE_TYPE, sizeof(d));
	memcpy(&d, p + sizeof(nh) + ((sizeof(NPU_NOTE_NAME) + 3) & ~3), sizeof(d));
	if (d.magic != NPU_NOTE_MAGIC || d.version != NPU_NOTE_VERSION)
		return acl_elf_bad(".note.npu: magic %#x version %u, not %#x version %u", d.magic, d.version,
				   NPU_NOTE_MAGIC, NPU_NOTE_VERSION);
	if (!memchr(d.soc_version, '\0', sizeof(d.soc_version)))
		return acl_elf_bad(".note.npu: soc_version is not NUL-terminated");
	memcpy(soc, d.soc_version, NPU_NOTE_SOC_MAX);
	return 0;
}

static bool acl_elf_cstr(const char *s, size_t max)
{
	return s[0] && memchr(s, '\0', max);
}

/* Record @i of .npu_kernels into *@r, checked. */
static int acl_elf_rec(const struct acl_elf *e, const Elf64_Shdr *sh, uint32_t i, struct npu_kernel_rec *r)
{
	uint32_t k, end = 0;

	memcpy(r, e->p + sh->sh_offset + (uint64_t)i * sizeof(*r), sizeof(*r));
	if (r->magic != NPU_KREC_MAGIC || r->version != NPU_KREC_VERSION || r->rec_size != sizeof(*r))
		return acl_elf_bad(".npu_kernels record %u: magic %#x version %u size %u, not %#x version %u size %zu",
				   i, r->magic, r->version, r->rec_size, NPU_KREC_MAGIC, NPU_KREC_VERSION, sizeof(*r));
	if (!acl_elf_cstr(r->name, sizeof(r->name)) || !acl_elf_cstr(r->entry, sizeof(r->entry)))
		return acl_elf_bad(".npu_kernels record %u: its name or entry is empty or not NUL-terminated", i);
	if (r->core_type != NPU_CORE_VECTOR || r->flags)
		return acl_elf_bad("kernel %s: core type %u, flags %#x (a vector kernel without flags expected)",
				   r->name, r->core_type, r->flags);
	if (r->param_count > NPU_KREC_PARAMS_MAX)
		return acl_elf_bad("kernel %s: %u parameters (at most %u)", r->name, r->param_count,
				   NPU_KREC_PARAMS_MAX);
	for (k = 0; k < r->param_count; k++) {
		const struct npu_param_rec *p = &r->params[k];

		if (p->offset % 8 || p->offset < end || !p->size || p->kind > NPU_PARAM_OTHER ||
		    (uint64_t)p->offset + p->size > r->args_size)
			return acl_elf_bad("kernel %s: parameter %u (offset %u, size %u, kind %u) does not fit its argument block of %u bytes",
					   r->name, k, p->offset, p->size, p->kind, r->args_size);
		end = p->offset + p->size;
	}
	return 0;
}

/* The defined function @name of .dynsym: its value and size; 0 if found. */
static int acl_elf_dynsym(const struct acl_elf *e, const Elf64_Shdr *sym, const Elf64_Shdr *str,
			  const char *name, uint64_t *value, uint64_t *size)
{
	uint64_t i, n = sym->sh_size / sizeof(Elf64_Sym);

	for (i = 1; i < n; i++) {
		Elf64_Shdr sec;
		const char *sn;
		Elf64_Sym s;

		memcpy(&s, e->p + sym->sh_offset + i * sizeof(s), sizeof(s));
		sn = acl_elf_str(e, str, s.st_name);
		if (!sn || strcmp(sn, name))
			continue;
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF || s.st_shndx >= e->eh.e_shnum)
			return acl_elf_bad("entry %s is no function the binary defines", name);
		acl_elf_shdr(e, s.st_shndx, &sec);
		/* in its code section, and in the image as loaded byte for byte (address = offset) */
		if (!(sec.sh_flags & SHF_EXECINSTR) || sec.sh_type != SHT_PROGBITS || s.st_value < sec.sh_addr ||
		    s.st_size > sec.sh_size || s.st_value - sec.sh_addr > sec.sh_size - s.st_size ||
		    sec.sh_addr != sec.sh_offset)
			return acl_elf_bad("entry %s (%#llx, %llu bytes) is not inside a code section at its file offset",
					   name, (unsigned long long)s.st_value, (unsigned long long)s.st_size);
		*value = s.st_value;
		*size = s.st_size;
		return 0;
	}
	return acl_elf_bad("entry %s is not in .dynsym (built with -fvisibility=hidden?)", name);
}

int acl_elf_read(const void *img, size_t len, struct acl_elf_info *info)
{
	struct acl_elf e = { .p = img, .len = len };
	Elf64_Shdr kr, sym, str, pr;
	uint32_t i, j, n;
	int ret, prints;

	ret = acl_elf_headers(&e);
	if (!ret)
		ret = acl_elf_note(&e, info->soc);
	if (ret)
		return ret;
	ret = acl_elf_section(&e, ".npu_kernels", &kr);
	if (ret <= 0)
		return ret ? ret : acl_elf_bad("no .npu_kernels section: no kernels");
	if (kr.sh_type != SHT_PROGBITS || !kr.sh_size || kr.sh_size % sizeof(struct npu_kernel_rec) ||
	    kr.sh_size / sizeof(struct npu_kernel_rec) > UINT32_MAX)
		return acl_elf_bad(".npu_kernels: %llu bytes, not a whole number of %zu-byte records",
				   (unsigned long long)kr.sh_size, sizeof(struct npu_kernel_rec));
	n = (uint32_t)(kr.sh_size / sizeof(struct npu_kernel_rec));
	ret = acl_elf_section(&e, ".dynsym", &sym);
	if (ret <= 0)
		return ret ? ret : acl_elf_bad("no .dynsym: the entries cannot be found");
	if (sym.sh_type != SHT_DYNSYM || sym.sh_entsize != sizeof(Elf64_Sym) || sym.sh_size % sizeof(Elf64_Sym) ||
	    !sym.sh_link || sym.sh_link >= e.eh.e_shnum)
		return acl_elf_bad(".dynsym is no symbol table with its string table");
	acl_elf_shdr(&e, sym.sh_link, &str);
	if (str.sh_type != SHT_STRTAB || !str.sh_size)
		return acl_elf_bad(".dynsym's string table is none");
	/* a kernel of the binary may call AscendC::printf (kernel_operator.h marks it) */
	prints = acl_elf_section(&e, ".npu_printf", &pr);
	if (prints < 0)
		return prints;
	info->funcs = calloc(n, sizeof(*info->funcs));
	if (!info->funcs)
		return acl_errf(-ENOMEM, "out of host memory for %u kernels", n);
	for (i = 0; i < n; i++) {
		struct acl_kfunc *f = &info->funcs[i];
		struct npu_kernel_rec r;
		uint64_t value = 0, size = 0;

		ret = acl_elf_rec(&e, &kr, i, &r);
		if (!ret)
			ret = acl_elf_dynsym(&e, &sym, &str, r.entry, &value, &size);
		for (j = 0; !ret && j < i; j++)
			if (!strcmp(info->funcs[j].name, r.name))
				ret = acl_elf_bad("two kernels named %s", r.name);
		if (ret) {
			free(info->funcs);
			info->funcs = NULL;
			return ret;
		}
		memcpy(f->name, r.name, sizeof(f->name));
		memcpy(f->entry, r.entry, sizeof(f->entry));
		f->tiling_key = r.tiling_key;
		f->core_type = r.core_type;
		f->param_count = r.param_count;
		f->args_size = r.args_size;
		memcpy(f->params, r.params, sizeof(f->params));
		f->entry_value = value;
		f->entry_size = size;
		f->prints = prints;
	}
	info->nfuncs = n;
	return 0;
}
