/* SPDX-License-Identifier: GPL-2.0 */
/* tests/ascendc/npucc_stub.h - what npucc_stub.c recorded (see there). */
#ifndef NPUCC_STUB_H
#define NPUCC_STUB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct npucc_stub_state {
	int loads, lookups, launches;
	const void *last_data;	/* the device binary of the last load */
	size_t last_len;
	char name[128];		/* the last launch's */
	uint32_t blocks;
	void *stream;
	size_t args_size;
	int extra;		/* cfg or placeholders were passed */
	unsigned char args[256];
	char printed[4096];	/* its printf records, "[block] text" */
	char trap_msg[256];
};

extern struct npucc_stub_state npucc_stub;

const void *npucc_stub_section(const void *data, size_t len, const char *name, size_t *size);

#ifdef __cplusplus
}
#endif

#endif /* NPUCC_STUB_H */
