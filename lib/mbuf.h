/* SPDX-License-Identifier: MIT */
/*
 * Shared buffers (mbuf.c), for the top of the library.
 */
#ifndef LIBACL_MBUF_H
#define LIBACL_MBUF_H

/* After fork, in the child: the parent's buffers are forgotten with the handles; the lock is free. */
void acl_mbuf_forget(void);

#endif /* LIBACL_MBUF_H */
