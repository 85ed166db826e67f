/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: models - lists of commands the device keeps and runs as a unit.
 */
#ifndef __NPU_MODEL_H__
#define __NPU_MODEL_H__

#include <linux/types.h>

#include <uapi/npu.h>

struct npu_context;
struct npu_job;
struct npu_model;
struct npu_model_run;
struct npu_stream;

/**
 * struct npu_model_create_args - MODEL_CREATE as the ioctl table holds it
 * @uapi: the user's struct
 * @model: the new model, its id reserved: npu_model_create_finish()
 *	publishes it once @uapi is copied out
 */
struct npu_model_create_args {
	struct npu_model_create uapi;
	struct npu_model *model;
};

int npu_model_create_ioctl(struct npu_context *ctx, void *arg);
void npu_model_create_finish(struct npu_context *ctx, void *arg, int ret);
int npu_model_destroy_ioctl(struct npu_context *ctx, void *arg);
void npu_models_release(struct npu_context *ctx);

int npu_model_check(struct npu_context *ctx, struct npu_stream *stream,
		    struct npu_job *job);
int npu_model_run(struct npu_stream *stream, struct npu_job *job, u64 *budget);
void npu_model_run_free(struct npu_model_run *run);
u32 npu_model_run_step(const struct npu_model_run *run);

#endif /* __NPU_MODEL_H__ */
