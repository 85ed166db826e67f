/* SPDX-License-Identifier: MIT */
/* Model runtime instances and stream capture (model.c), for the rest of the library. */
#ifndef LIBACL_MODEL_H
#define LIBACL_MODEL_H

struct acl_stream;

/*
 * The capture modes' rule (CANN's IsCaptureModeSupport) for a call they
 * restrict - aclrtMemcpy, aclrtMemset, aclrtMemcpy2d: @err (ACLI_ECAPMODE)
 * with the reason if a capture of the current context forbids it to the
 * calling thread now, else 0.
 */
int acl_capture_mode_check(int err);

/*
 * The synchronous step of an asynchronous call on @s that runs on the
 * host or its copy streams here (pageable host memory, another device's
 * memory, host to host): waits for @s's earlier work. Refused on a
 * capturing stream (CANN's 107000 for a pageable copy in capture) and
 * while a capture mode forbids synchronous copies to the calling thread
 * (107041, CANN's answer for an asynchronous copy it makes synchronous).
 */
int acl_capture_sync_step(struct acl_stream *s);

#endif /* LIBACL_MODEL_H */
