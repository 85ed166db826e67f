/* SPDX-License-Identifier: MIT */
/*
 * Stream state callbacks (aclrtRegStreamStateCallback): the application's
 * functions told of every stream of a context as it is made and before it
 * is destroyed.
 */
#ifndef LIBACL_STREAMSTATE_H
#define LIBACL_STREAMSTATE_H

#include <acl/acl_rt.h>

struct acl_stream;

/*
 * Tell the registered callbacks, in the order of their names, that @s
 * reached @state. Called with no lock of the library held: they may call
 * the API (on @s too: it is live during the call).
 */
void acl_stream_state_notify(struct acl_stream *s, aclrtStreamState state);

/* After fork: the registry's lock may have been held by another thread. */
void acl_stream_state_forget(void);

#endif /* LIBACL_STREAMSTATE_H */
