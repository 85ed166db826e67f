/* SPDX-License-Identifier: MIT */
/*
 * Kernel printf (kprint.c): a launch of a kernel whose binary prints gets
 * a printf area in device memory, and the launch call prints the blocks'
 * records once the kernel has run, as the vendor's 910B <<<>>> stub does
 * (dump workspace, launch, Adx::AdumpPrintWorkSpace). A launch a model
 * records prints at each run of the model, from a host step.
 */
#ifndef LIBACL_KPRINT_H
#define LIBACL_KPRINT_H

#include <stdint.h>

struct acl_kfunc;
struct acl_stream;

/* A launch's printf area: @size bytes per block from @va, or none (@va 0). */
struct acl_kprint {
	uint64_t va;
	uint32_t size;
	uint32_t blocks;
};

/*
 * The printf area of a launch of @f over @blocks blocks on @s, if @f's
 * binary prints (none from a callback thread, which must not wait for
 * its stream): 0 or the allocation's error.
 */
int acl_kprint_prepare(struct acl_kfunc *f, struct acl_stream *s, uint32_t blocks, struct acl_kprint *p);

/*
 * After the launch's submission, whose result was @ret (0: seqno @seq of
 * kernel stream @id): wait for the kernel, print its records (printf text
 * on stdout, trap reasons on stderr, block by block) and free the area.
 * Returns @ret: a task error of the kernel stays for the stream's next
 * synchronize.
 */
int acl_kprint_finish(struct acl_kfunc *f, struct acl_stream *s, struct acl_kprint *p, int ret, uint32_t id,
		      uint64_t seq);

/*
 * A launch of @f that @s records (a model's) has the printf area @p, the
 * recording's: record the host step that prints its records at each run
 * of the model, after the kernel.
 */
int acl_kprint_record(struct acl_kfunc *f, struct acl_stream *s, const struct acl_kprint *p);

#endif /* LIBACL_KPRINT_H */
