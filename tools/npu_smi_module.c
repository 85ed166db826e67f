// SPDX-License-Identifier: GPL-2.0
/*
 * tools/npu_smi_module.c - `npu-smi module load|unload|status` through
 * libkmod.
 *
 *   load [--path FILE] [--devices N] [--mem-size SIZE] [--param K=V]...
 *        loads npu.ko: by name (kmod_module_new_from_lookup("npu"), the
 *        module installed under /lib/modules/$(uname -r), with the options
 *        of /etc/modprobe.d/ plus these) or from FILE
 *        (kmod_module_new_from_path, the options of modprobe.d for "npu"
 *        plus these). Parameter names are checked against the module's
 *        modinfo before loading; values are the kernel's to judge.
 *   unload
 *        removes npu.ko (kmod_module_remove_module), refusing while its
 *        reference count is not zero or other modules hold it: a process
 *        with /dev/npuN open (named when /proc lets us see it).
 *   status
 *        the init state, reference count, holders, the processes with a
 *        device open, the device nodes and /sys/module/npu/parameters/.
 *
 * Exit codes (NPU_SMI_EXIT_*, documented in man/npu-smi.1): 0 success,
 * 1 other error, 2 usage, 3 not permitted (EPERM: not root), 4 module in
 * use (EBUSY, EAGAIN), 5 bad parameter (EINVAL: the kernel's message is
 * printed when /dev/kmsg is readable, else "see dmesg"), 6 not found (no
 * module file, or not loaded for unload/status), 7 already loaded (EEXIST).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <libkmod.h>

#include "npu_smi.h"

#define MOD_NAME	"npu"
#define MOD_SYSFS	"/sys/module/" MOD_NAME
#define OPTIONS_MAX	4096

static bool verbose;

static void __attribute__((format(printf, 2, 3)))
err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "npu-smi: module %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fputs("usage: npu-smi module load [--path FILE] [--devices N] [--mem-size SIZE]\n"
	      "                           [--param NAME=VALUE]... [-v]\n"
	      "       npu-smi module unload [-v]\n"
	      "       npu-smi module status [-v]\n"
	      "\n"
	      "  load     load npu.ko (by name from /lib/modules/$(uname -r), or --path FILE)\n"
	      "           --devices N      num_devices=N (1-8)\n"
	      "           --mem-size SIZE  mem_size=SIZE (e.g. 4G, or 1G,2G per device)\n"
	      "           --param K=V      any npu.ko parameter (repeatable)\n"
	      "  unload   remove npu.ko; refused while a process holds /dev/npuN\n"
	      "  status   init state, refcount, holders, users, devices, parameters\n"
	      "  -v       show libkmod's log messages\n"
	      "\n"
	      "exit codes: 0 ok, 1 error, 2 usage, 3 not permitted (not root),\n"
	      "            4 in use, 5 bad parameter, 6 not found / not loaded,\n"
	      "            7 already loaded\n", f);
}

static void log_fn(void *data, int priority, const char *file, int line,
		   const char *fn, const char *format, va_list args)
{
	(void)data; (void)priority; (void)file; (void)line; (void)fn;
	if (!verbose)
		return;
	fputs("npu-smi: libkmod: ", stderr);
	vfprintf(stderr, format, args);
}

static struct kmod_ctx *ctx_new(const char *cmd)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);

	if (!ctx) {
		err(cmd, "kmod_new failed");
		return NULL;
	}
	/* Printed with -v only (log_fn), which is parsed after this. */
	kmod_set_log_fn(ctx, log_fn, NULL);
	kmod_set_log_priority(ctx, 6);	/* LOG_INFO */
	return ctx;
}

/* ------------------------------------------------------------------ */
/* Who holds the module                                                */
/* ------------------------------------------------------------------ */

/*
 * Print the processes that have a /dev/npuN open, one per line with
 * @prefix; returns how many were found. Processes whose fd directory is
 * not readable (other users', for a non-root caller) are not seen.
 */
static int print_users(FILE *f, const char *prefix)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;
	int found = 0;

	if (!proc)
		return 0;
	while ((p = readdir(proc))) {
		char path[288], comm[64] = "?", nodes[256] = "";
		size_t used = 0;
		DIR *fds;
		struct dirent *d;
		FILE *cf;

		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((d = readdir(fds))) {
			char link[600], target[64];
			ssize_t n;

			if (d->d_name[0] == '.')
				continue;
			snprintf(link, sizeof(link), "/proc/%s/fd/%s", p->d_name, d->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = 0;
			if (strncmp(target, "/dev/npu", 8) || !isdigit((unsigned char)target[8]))
				continue;
			if (strstr(nodes, target))
				continue;
			used += snprintf(nodes + used, sizeof(nodes) - used, "%s%s",
					 used ? " " : "", target);
			if (used >= sizeof(nodes))
				used = sizeof(nodes) - 1;
		}
		closedir(fds);
		if (!used)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", p->d_name);
		cf = fopen(path, "r");
		if (cf) {
			if (fgets(comm, sizeof(comm), cf))
				comm[strcspn(comm, "\n")] = 0;
			fclose(cf);
		}
		fprintf(f, "%spid %s (%s): %s\n", prefix, p->d_name, comm, nodes);
		found++;
	}
	closedir(proc);
	return found;
}

/* The holders' names, space-separated, into @buf ("" if none). */
static void holders_string(struct kmod_module *mod, char *buf, size_t len)
{
	struct kmod_list *holders = kmod_module_get_holders(mod), *l;
	size_t used = 0;

	buf[0] = 0;
	kmod_list_foreach(l, holders) {
		struct kmod_module *h = kmod_module_get_module(l);

		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s", used ? " " : "",
					 kmod_module_get_name(h));
		kmod_module_unref(h);
	}
	kmod_module_unref_list(holders);
}

/* ------------------------------------------------------------------ */
/* Kernel log                                                          */
/* ------------------------------------------------------------------ */

/* /dev/kmsg positioned at its end, or -1 (not permitted: dmesg_restrict). */
static int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Print the records about npu written since kmsg_open_end(); how many. */
static int kmsg_print_new(int fd)
{
	char rec[2048];
	int n = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t len = read(fd, rec, sizeof(rec) - 1);
		char *msg;

		if (len < 0 && errno == EPIPE)
			continue;	/* records overwritten meanwhile */
		if (len <= 0)
			break;
		rec[len] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = 0;
		if (!strstr(msg, MOD_NAME))
			continue;
		fprintf(stderr, "npu-smi: kernel: %s\n", msg);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* load                                                                */
/* ------------------------------------------------------------------ */

/* Whether the module file declares parameter @name (unknown: true). */
static bool has_param(struct kmod_module *mod, const char *name, size_t len)
{
	struct kmod_list *info = NULL, *l;
	bool any = false, found = false;

	if (kmod_module_get_info(mod, &info) < 0)
		return true;
	kmod_list_foreach(l, info) {
		const char *key = kmod_module_info_get_key(l);
		const char *val = kmod_module_info_get_value(l);

		if (strcmp(key, "parm") && strcmp(key, "parmtype"))
			continue;
		any = true;
		if (val && !strncmp(val, name, len) && val[len] == ':')
			found = true;
	}
	kmod_module_info_free_list(info);
	return found || !any;
}

static int append_option(char *opts, size_t *used, const char *key, size_t klen,
			 const char *val)
{
	bool quote = strpbrk(val, " \t") != NULL;
	int n = snprintf(opts + *used, OPTIONS_MAX - *used, "%s%.*s=%s%s%s",
			 *used ? " " : "", (int)klen, key, quote ? "\"" : "", val,
			 quote ? "\"" : "");

	if (n < 0 || (size_t)n >= OPTIONS_MAX - *used)
		return -1;
	*used += n;
	return 0;
}

static int exit_for(int ret)
{
	switch (-ret) {
	case EPERM:
	case EACCES:
		return NPU_SMI_EXIT_PERM;
	case EBUSY:
	case EAGAIN:
		return NPU_SMI_EXIT_BUSY;
	case EINVAL:
		return NPU_SMI_EXIT_BADPARAM;
	case ENOENT:
		return NPU_SMI_EXIT_NOENT;
	case EEXIST:
		return NPU_SMI_EXIT_EXIST;
	default:
		return NPU_SMI_EXIT_ERROR;
	}
}

/* The one "npu" module a lookup finds, or NULL. */
static struct kmod_module *lookup_module(struct kmod_ctx *ctx)
{
	struct kmod_list *list = NULL, *l;
	struct kmod_module *mod = NULL;

	if (kmod_module_new_from_lookup(ctx, MOD_NAME, &list) < 0)
		return NULL;
	kmod_list_foreach(l, list) {
		struct kmod_module *m = kmod_module_get_module(l);

		if (!mod && !strcmp(kmod_module_get_name(m), MOD_NAME) &&
		    kmod_module_get_path(m))
			mod = m;
		else
			kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
	return mod;
}

static int cmd_load(struct kmod_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "devices", required_argument, NULL, 'd' },
		{ "mem-size", required_argument, NULL, 'm' },
		{ "param", required_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *path = NULL, *devices = NULL, *mem_size = NULL;
	char **params = calloc(argc, sizeof(*params));
	char opts[OPTIONS_MAX] = "", *end;
	size_t used = 0;
	int nparams = 0, c, ret, rc, kmsg;
	struct kmod_module *mod = NULL;
	const char *conf;

	if (!params)
		return NPU_SMI_EXIT_ERROR;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:d:m:P:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': path = optarg; break;
		case 'd': devices = optarg; break;
		case 'm': mem_size = optarg; break;
		case 'P': params[nparams++] = optarg; break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); free(params); return NPU_SMI_EXIT_OK;
		default: usage(stderr); free(params); return NPU_SMI_EXIT_USAGE;
		}
	}
	rc = NPU_SMI_EXIT_USAGE;
	if (optind < argc) {
		err("load", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (devices && (!isdigit((unsigned char)devices[0]) ||
			(strtoul(devices, &end, 10), *end))) {
		err("load", "--devices needs a number, not '%s'", devices);
		goto out;
	}
	if (mem_size && !*mem_size) {
		err("load", "--mem-size needs a size");
		goto out;
	}
	for (int i = 0; i < nparams; i++) {
		const char *eq = strchr(params[i], '=');

		if (!eq || eq == params[i]) {
			err("load", "--param needs NAME=VALUE, not '%s'", params[i]);
			goto out;
		}
	}

	if (path) {
		if (access(path, F_OK)) {
			err("load", "%s: %s", path, strerror(errno));
			rc = NPU_SMI_EXIT_NOENT;
			goto out;
		}
		ret = kmod_module_new_from_path(ctx, path, &mod);
		if (ret < 0) {
			err("load", "%s: %s", path, strerror(-ret));
			rc = exit_for(ret);
			goto out;
		}
	} else {
		struct utsname u;

		mod = lookup_module(ctx);
		if (!mod) {
			uname(&u);
			err("load", "module %s not found in /lib/modules/%s (install it: "
			    "dkms install, or make install of the module; or use --path FILE)",
			    MOD_NAME, u.release);
			rc = NPU_SMI_EXIT_NOENT;
			goto out;
		}
	}

	/* Every --param names a parameter the module has. */
	rc = NPU_SMI_EXIT_BADPARAM;
	for (int i = 0; i < nparams; i++) {
		size_t klen = strchr(params[i], '=') - params[i];

		if (!has_param(mod, params[i], klen)) {
			err("load", "npu.ko has no parameter '%.*s' (modinfo -p %s)",
			    (int)klen, params[i], kmod_module_get_path(mod));
			goto out;
		}
	}

	rc = NPU_SMI_EXIT_ERROR;
	/* modprobe.d options first: ours come later and win. */
	conf = path ? kmod_module_get_options(mod) : NULL;
	if (conf && *conf)
		used = snprintf(opts, sizeof(opts), "%s", conf);
	if ((devices && append_option(opts, &used, "num_devices", 11, devices)) ||
	    (mem_size && append_option(opts, &used, "mem_size", 8, mem_size))) {
		err("load", "options too long");
		goto out;
	}
	for (int i = 0; i < nparams; i++) {
		const char *eq = strchr(params[i], '=');

		if (append_option(opts, &used, params[i], eq - params[i], eq + 1)) {
			err("load", "options too long");
			goto out;
		}
	}

	if (kmod_module_get_initstate(mod) >= 0) {
		err("load", "%s is already loaded (npu-smi module unload first)", MOD_NAME);
		rc = NPU_SMI_EXIT_EXIST;
		goto out;
	}

	kmsg = kmsg_open_end();
	if (path)
		ret = kmod_module_insert_module(mod, 0, opts);
	else
		ret = kmod_module_probe_insert_module(mod, KMOD_PROBE_FAIL_ON_LOADED,
						      opts, NULL, NULL, NULL);
	if (ret > 0) {
		/* Only with KMOD_PROBE_APPLY_BLACKLIST*, which we do not pass. */
		err("load", "%s is blacklisted", MOD_NAME);
		ret = -EPERM;
	}
	if (ret < 0) {
		rc = exit_for(ret);
		switch (rc) {
		case NPU_SMI_EXIT_PERM:
			err("load", "not permitted: loading a module needs root (CAP_SYS_MODULE)");
			break;
		case NPU_SMI_EXIT_EXIST:
			err("load", "%s is already loaded", MOD_NAME);
			break;
		case NPU_SMI_EXIT_BADPARAM:
			err("load", "the kernel refused the parameters '%s': %s", opts,
			    strerror(-ret));
			break;
		default:
			err("load", "%s: %s", kmod_module_get_path(mod), strerror(-ret));
			break;
		}
		if (rc != NPU_SMI_EXIT_PERM && rc != NPU_SMI_EXIT_EXIST &&
		    !kmsg_print_new(kmsg))
			fprintf(stderr, "npu-smi: the kernel log says why (see dmesg)\n");
		if (kmsg >= 0)
			close(kmsg);
		goto out;
	}
	if (kmsg >= 0)
		close(kmsg);
	printf("npu: loaded%s%s\n", *opts ? " with " : "", opts);
	rc = NPU_SMI_EXIT_OK;
out:
	if (mod)
		kmod_module_unref(mod);
	free(params);
	return rc;
}

/* ------------------------------------------------------------------ */
/* unload, status                                                      */
/* ------------------------------------------------------------------ */

static int simple_opts(const char *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return NPU_SMI_EXIT_OK;
		default: usage(stderr); return NPU_SMI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		err(cmd, "unexpected argument '%s'", argv[optind]);
		return NPU_SMI_EXIT_USAGE;
	}
	return -1;
}

/* The loaded npu module, or NULL with the exit code in *rc. */
static struct kmod_module *loaded_module(struct kmod_ctx *ctx, const char *cmd, int *rc)
{
	struct kmod_module *mod;
	int ret = kmod_module_new_from_name(ctx, MOD_NAME, &mod);

	if (ret < 0) {
		err(cmd, "%s", strerror(-ret));
		*rc = NPU_SMI_EXIT_ERROR;
		return NULL;
	}
	if (kmod_module_get_initstate(mod) < 0) {
		if (strcmp(cmd, "status"))
			err(cmd, "%s is not loaded", MOD_NAME);
		kmod_module_unref(mod);
		*rc = NPU_SMI_EXIT_NOENT;
		return NULL;
	}
	return mod;
}

static int cmd_unload(struct kmod_ctx *ctx, int argc, char **argv)
{
	struct kmod_module *mod;
	char holders[256];
	int rc = simple_opts("unload", argc, argv), refcnt, ret;

	if (rc >= 0)
		return rc;
	mod = loaded_module(ctx, "unload", &rc);
	if (!mod)
		return rc;
	refcnt = kmod_module_get_refcnt(mod);
	holders_string(mod, holders, sizeof(holders));
	if (refcnt > 0 || holders[0]) {
		err("unload", "%s is in use (refcount %d%s%s): close the devices first",
		    MOD_NAME, refcnt, holders[0] ? ", held by " : "", holders);
		if (!print_users(stderr, "npu-smi:   "))
			fprintf(stderr, "npu-smi:   (no process with /dev/npuN open is visible to this user)\n");
		rc = NPU_SMI_EXIT_BUSY;
		goto out;
	}
	ret = kmod_module_remove_module(mod, 0);
	if (ret < 0) {
		rc = exit_for(ret);
		if (rc == NPU_SMI_EXIT_PERM)
			err("unload", "not permitted: removing a module needs root (CAP_SYS_MODULE)");
		else if (rc == NPU_SMI_EXIT_BUSY)
			err("unload", "%s is in use: close the devices first", MOD_NAME);
		else if (rc == NPU_SMI_EXIT_NOENT)
			err("unload", "%s is not loaded", MOD_NAME);
		else
			err("unload", "%s", strerror(-ret));
		goto out;
	}
	printf("npu: unloaded\n");
	rc = NPU_SMI_EXIT_OK;
out:
	kmod_module_unref(mod);
	return rc;
}

static void print_params(void)
{
	DIR *d = opendir(MOD_SYSFS "/parameters");
	struct dirent *e;
	char names[64][256];
	int n = 0;

	printf("parameters:\n");
	if (!d)
		return;
	while ((e = readdir(d)) && n < 64)
		if (e->d_name[0] != '.')
			snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < n; i++) {
		char path[512], val[512] = "?";
		FILE *f;

		snprintf(path, sizeof(path), MOD_SYSFS "/parameters/%.255s", names[i]);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(val, sizeof(val), f))
				val[0] = 0;
			val[strcspn(val, "\n")] = 0;
			fclose(f);
		}
		printf("  %s=%s\n", names[i], val);
	}
}

static int cmd_status(struct kmod_ctx *ctx, int argc, char **argv)
{
	struct kmod_module *mod;
	char holders[256], nodes[256] = "";
	size_t used = 0;
	int rc = simple_opts("status", argc, argv), state;

	if (rc >= 0)
		return rc;
	mod = loaded_module(ctx, "status", &rc);
	if (!mod) {
		printf("module: %s\nstate: not loaded\n", MOD_NAME);
		return rc;
	}
	state = kmod_module_get_initstate(mod);
	holders_string(mod, holders, sizeof(holders));
	printf("module: %s\n", MOD_NAME);
	printf("state: %s\n", state >= 0 ? kmod_module_initstate_str(state) : "unknown");
	printf("refcount: %d\n", kmod_module_get_refcnt(mod));
	printf("holders: %s\n", holders[0] ? holders : "none");
	/* In index order: /dev/npu0 /dev/npu1 ... */
	for (int i = 0; i < 64 && used < sizeof(nodes); i++) {
		char node[32];

		snprintf(node, sizeof(node), "/dev/npu%d", i);
		if (!access(node, F_OK))
			used += snprintf(nodes + used, sizeof(nodes) - used, "%s%s",
					 used ? " " : "", node);
	}
	printf("devices: %s\n", nodes[0] ? nodes : "none");
	printf("users:\n");
	print_users(stdout, "  ");
	print_params();
	kmod_module_unref(mod);
	return NPU_SMI_EXIT_OK;
}

int npu_smi_module(int argc, char **argv)
{
	struct kmod_ctx *ctx;
	const char *sub = argc > 1 ? argv[1] : NULL;
	int rc;

	if (!sub) {
		usage(stderr);
		return NPU_SMI_EXIT_USAGE;
	}
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help") || !strcmp(sub, "help")) {
		usage(stdout);
		return NPU_SMI_EXIT_OK;
	}
	if (strcmp(sub, "load") && strcmp(sub, "unload") && strcmp(sub, "status")) {
		fprintf(stderr, "npu-smi: module: unknown command '%s'\n", sub);
		usage(stderr);
		return NPU_SMI_EXIT_USAGE;
	}
	ctx = ctx_new(sub);
	if (!ctx)
		return NPU_SMI_EXIT_ERROR;
	if (!strcmp(sub, "load"))
		rc = cmd_load(ctx, argc - 1, argv + 1);
	else if (!strcmp(sub, "unload"))
		rc = cmd_unload(ctx, argc - 1, argv + 1);
	else
		rc = cmd_status(ctx, argc - 1, argv + 1);
	kmod_unref(ctx);
	fflush(stdout);
	return rc;
}
