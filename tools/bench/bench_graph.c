// SPDX-License-Identifier: GPL-2.0
/*
 * bench_graph - a captured graph's replay against launching its tasks
 * (issue 23, model runtime instances):
 *
 *  a) host time: aclmdlRIExecuteAsync of a graph of -t small tasks
 *     (256-byte device-to-device aclrtMemcpyAsync, each to its own place),
 *     captured once, against launching the same tasks one by one with
 *     aclrtMemcpyAsync on a stream that is not capturing. Each sample
 *     times the launch calls only; the stream is synchronised after each,
 *     untimed. The medians of -s samples of each kind, interleaved, are
 *     compared. Target: <= 0.05 (graph_replay_1000_vs_launches).
 *  b) device time per task: events recorded on the stream around the
 *     replay (and around the one-by-one launches), their elapsed time over
 *     the task count. Reported, no target: a replay runs its commands in
 *     the driver's model (DOC: npu models) without a SUBMIT each.
 *
 * usage: bench_graph [-t TASKS] [-s SAMPLES]
 */
#include "bench.h"

#define TASK_BYTES	256

static int tasks = 1000;
static int samples = 31;

/* The tasks: task i copies 256 bytes from src + i * 256 to dst + i * 256. */
static void launch_tasks(void *dst, void *src, aclrtStream st)
{
	int i;

	for (i = 0; i < tasks; i++)
		ACL_CHECK(aclrtMemcpyAsync((char *)dst + (size_t)i * TASK_BYTES, TASK_BYTES,
					   (char *)src + (size_t)i * TASK_BYTES, TASK_BYTES,
					   ACL_MEMCPY_DEVICE_TO_DEVICE, st));
}

/* The device's time between two events around work on @st, in seconds. */
static double device_time(aclrtEvent a, aclrtEvent b)
{
	float ms;

	ACL_CHECK(aclrtEventElapsedTime(&ms, a, b));
	return ms / 1e3;
}

int main(int argc, char **argv)
{
	double *host_launch, *host_replay, *dev_launch, *dev_replay, t0, r;
	void *src, *dst, *check;
	size_t bytes;
	aclrtEvent a, b;
	aclrtStream st;
	aclmdlRI graph;
	int opt, i;

	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		if (opt == 't')
			tasks = atoi(optarg);
		else if (opt == 's')
			samples = atoi(optarg);
		else
			bench_die("usage: bench_graph [-t TASKS] [-s SAMPLES]");
	}
	if (bench_smoke()) {
		tasks = 20;
		samples = 3;
	}
	if (tasks < 1 || samples < 1)
		bench_die("-t and -s must be positive");
	bench_start("bench_graph");
	bytes = (size_t)tasks * TASK_BYTES;
	host_launch = calloc(samples, sizeof(double));
	host_replay = calloc(samples, sizeof(double));
	dev_launch = calloc(samples, sizeof(double));
	dev_replay = calloc(samples, sizeof(double));
	check = malloc(bytes);
	if (!host_launch || !host_replay || !dev_launch || !dev_replay || !check)
		bench_die("out of memory");
	ACL_CHECK(aclrtMalloc(&src, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMalloc(&dst, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMemset(src, bytes, 0x5c, bytes));
	ACL_CHECK(aclrtCreateStream(&st));
	ACL_CHECK(aclrtCreateEvent(&a));
	ACL_CHECK(aclrtCreateEvent(&b));

	ACL_CHECK(aclmdlRICaptureBegin(st, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	launch_tasks(dst, src, st);
	ACL_CHECK(aclmdlRICaptureEnd(st, &graph));

	for (i = 0; i < samples; i++) {
		ACL_CHECK(aclrtRecordEvent(a, st));
		t0 = now_s();
		launch_tasks(dst, src, st);
		host_launch[i] = now_s() - t0;
		ACL_CHECK(aclrtRecordEvent(b, st));
		ACL_CHECK(aclrtSynchronizeStream(st));
		dev_launch[i] = device_time(a, b);

		ACL_CHECK(aclrtMemset(dst, bytes, 0, bytes));
		ACL_CHECK(aclrtRecordEvent(a, st));
		t0 = now_s();
		ACL_CHECK(aclmdlRIExecuteAsync(graph, st));
		host_replay[i] = now_s() - t0;
		ACL_CHECK(aclrtRecordEvent(b, st));
		ACL_CHECK(aclrtSynchronizeStream(st));
		dev_replay[i] = device_time(a, b);
	}
	/* the replay did the work */
	ACL_CHECK(aclrtMemcpy(check, bytes, dst, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < (int)bytes; i++)
		if (((unsigned char *)check)[i] != 0x5c)
			bench_die("byte %d of the replay's output is %#x", i, ((unsigned char *)check)[i]);

	printf("note %d tasks of %d bytes, %d samples\n", tasks, TASK_BYTES, samples);
	report_us("a.launches_host", median(host_launch, samples));
	report_us("a.replay_host", median(host_replay, samples));
	r = median(host_replay, samples) / median(host_launch, samples);
	report_ratio("graph_replay_1000_vs_launches", r, "<=", 0.05);
	report_us("b.launches_device_per_task", median(dev_launch, samples) / tasks);
	report_us("b.replay_device_per_task", median(dev_replay, samples) / tasks);
	report_info("b.replay_vs_launches_device",
		    median(dev_replay, samples) / median(dev_launch, samples),
		    "device time of a replayed task over a launched one");

	ACL_CHECK(aclmdlRIDestroy(graph));
	ACL_CHECK(aclrtDestroyEvent(a));
	ACL_CHECK(aclrtDestroyEvent(b));
	ACL_CHECK(aclrtDestroyStream(st));
	ACL_CHECK(aclrtFree(src));
	ACL_CHECK(aclrtFree(dst));
	free(check);
	free(host_launch);
	free(host_replay);
	free(dev_launch);
	free(dev_replay);
	bench_end();
	return 0;
}
