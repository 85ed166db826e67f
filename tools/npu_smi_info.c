// SPDX-License-Identifier: GPL-2.0
/*
 * tools/npu_smi_info.c - `npu-smi info`: the vendor tool's layouts, line
 * for line, so that scripts written for the real npu-smi parse ours:
 *
 *   info [-i N]                the summary: the boxed device table, then
 *                              the process table
 *   info -l, info -m           the device list, the id mapping
 *   info -t TYPE -i N          `key : value` pages: board, common, memory,
 *                              usages, health, proc-mem; phyid-remap -p N
 *   info watch [-i N] [-d S] [-s pt...]   samples every S seconds
 *   info proc [-i N] [-d S]    the processes, sampled
 *   info [-i N] --json         npu's own: one JSON document, exact bytes
 *
 * The layouts are the vendor's Ascend 950 form (its npu-smi source and
 * docs/en/Ascend_950_npu-smi in github hicann/driver). The overall NPU
 * utilisation is the DMA engine's busy time over a window (npu_nl_util*()):
 * the summary and the common and usages pages measure over
 * NPU_NL_UTIL_WINDOW_MS, info watch between its samples. What the
 * simulated chip does not have (power, temperature, clocks, AI-core,
 * vector and bandwidth utilisation) is "NA", as the vendor's tool shows a
 * value a chip cannot report; no number is made up. A device has one
 * chip, its NPU ID is the N of /dev/npuN.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npu_smi.h"

#define NA		"NA"
/* The vendor's summary shows at most 8 processes of a chip. */
#define SUMMARY_PROCS	8

static const char *const box_top =
	"+-------------------------------------------------------------------------------------------------+\n";
static const char *const box_dev =
	"+--------+------------------+---------------+-----------------------------------------------------+\n";
static const char *const box_dev_end =
	"+========+==================+===============+=====================================================+\n";
static const char *const box_proc =
	"+---------------------------+---------------+-----------------------------------------------------+\n";
static const char *const box_proc_end =
	"+===========================+===============+=====================================================+\n";

static void kv_str(const char *key, const char *val)
{
	printf("\t%-30s : %s\n", key, val);
}

static void kv_u(const char *key, unsigned long long val)
{
	printf("\t%-30s : %llu\n", key, val);
}

/* A utilisation: its figure, or NA when it was not measured. */
static const char *util_str(const struct npu_nl_dev *d, char *buf, size_t len)
{
	if (d->util < 0)
		return NA;
	snprintf(buf, len, "%d", d->util);
	return buf;
}

static void print_summary(const struct smi_snap *s)
{
	char ver[16] = NA;
	int i, j;

	if (s->ndevs)
		npu_nl_version_str(s->devs[0].version, ver, sizeof(ver));
	fputs(box_top, stdout);
	printf("| npu-smi %-40s Version: %-37s |\n", NPU_SMI_VERSION, ver);
	fputs(box_dev, stdout);
	printf("| NPU ID | Name             | Health        | Power(W)    Temp(C)           Hugepages-Usage(page) |\n");
	printf("|        |                  | Bus-Id        | NPU Util(%%) Memory-Usage(MB)  HBM-Usage(MB)         |\n");
	fputs(box_dev_end, stdout);
	for (i = 0; i < s->ndevs; i++) {
		const struct npu_nl_dev *d = &s->devs[i];
		struct npu_nl_pci pci;
		char util[16];

		/* no DDR, so no huge pages and no DDR memory: 0 as the vendor's HBM chips */
		printf("| %-7u| %-17s| %-13s | %-11s %-17s %-6u/ %-13u |\n", d->index, d->soc,
		       npu_nl_health_name(npu_nl_health(d)), NA, NA, 0, 0);
		printf("|%-8s|%-18s| ", "", "");
		if (!npu_nl_pci(d, &pci))
			printf("%04X:%02X:%02X.%-2X | ", pci.domain, pci.bus, pci.dev, pci.fn);
		else
			printf("%-11s   | ", NA);
		printf("%-11s %-5d/ %-10d %-6llu/ %-13llu |\n", util_str(d, util, sizeof(util)),
		       0, 0, npu_nl_mib(d->used), npu_nl_mib(d->total));
		fputs(box_dev_end, stdout);
	}
	fputs(box_proc, stdout);
	printf("| NPU ID                    | Process id    | Process name             | Process memory(MB)       |\n");
	fputs(box_proc_end, stdout);
	for (i = 0; i < s->ndevs; i++) {
		int shown = 0;

		for (j = 0; j < s->nprocs && shown < SUMMARY_PROCS; j++) {
			const struct npu_nl_proc *p = &s->procs[j];

			if (p->dev != s->devs[i].index)
				continue;
			printf("| %-26u | %-13u | %-24s | %-23llu |\n", p->dev, p->pid,
			       p->comm, npu_nl_mib(p->mem));
			shown++;
		}
		if (!shown)
			printf("| No running processes found in NPU %-7u%55s|\n",
			       s->devs[i].index, "");
		fputs(box_proc_end, stdout);
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* npu's own: every figure the family has, bytes exact, one context a row. */
static void print_json(const struct smi_snap *s)
{
	int i;

	printf("{\n  \"devices\": [");
	for (i = 0; i < s->ndevs; i++) {
		const struct npu_nl_dev *d = &s->devs[i];
		const char *sep = "";
		char ver[16];
		int b;

		npu_nl_version_str(d->version, ver, sizeof(ver));
		printf("%s\n    {\"index\": %" PRIu32 ", \"name\": ", i ? "," : "", d->index);
		json_str(d->name);
		printf(", \"carrier\": ");
		json_str(d->carrier);
		printf(", \"iommu\": ");
		json_str(d->iommu);
		printf(", \"soc_name\": ");
		json_str(d->soc);
		printf(", \"driver_version\": \"%s\"", ver);
		printf(", \"health\": \"%s\"", npu_nl_health_name(npu_nl_health(d)));
		printf(", \"memory_total\": %" PRIu64 ", \"memory_used\": %" PRIu64
		       ", \"memory_peak\": %" PRIu64, d->total, d->used, d->peak);
		printf(", \"contexts\": %" PRIu32 ", \"page_sizes\": [", d->contexts);
		for (b = 0; b < 64; b++) {
			if (d->page_sizes & (1ULL << b)) {
				printf("%s%llu", sep, 1ULL << b);
				sep = ", ";
			}
		}
		printf("], \"dma_faults\": %" PRIu64 ", \"busy_ns\": %" PRIu64
		       ", \"unplugged\": %s}", d->faults, d->busy_ns,
		       d->unplugged ? "true" : "false");
	}
	printf("\n  ],\n  \"processes\": [");
	for (i = 0; i < s->nprocs; i++) {
		const struct npu_nl_proc *p = &s->procs[i];

		printf("%s\n    {\"pid\": %" PRIu32 ", \"comm\": ", i ? "," : "", p->pid);
		json_str(p->comm);
		printf(", \"uid\": %" PRIu32 ", \"device\": %" PRIu32
		       ", \"context_id\": %" PRIu64, p->uid, p->dev, p->ctx_id);
		printf(", \"device_memory\": %" PRIu64 ", \"host_pinned\": %" PRIu64
		       ", \"host_memlock\": %" PRIu64, p->mem, p->pinned, p->memlock);
		printf(", \"mappings\": %" PRIu32 ", \"reservations\": %" PRIu32
		       ", \"streams\": %" PRIu32 ", \"exported\": %" PRIu32
		       ", \"imported\": %" PRIu32 ", \"dma_faults\": %" PRIu64 "}",
		       p->mappings, p->reservations, p->streams, p->exported,
		       p->imported, p->faults);
	}
	printf("\n  ]\n}\n");
}

/* info -l: no electronic label, so no product name or serial number. */
static void print_list(const struct smi_snap *s)
{
	int i;

	printf("\t%-30s : %d\n\n", "Total Count", s->ndevs);
	for (i = 0; i < s->ndevs; i++) {
		printf("\t%-30s : %u\n", "NPU ID", s->devs[i].index);
		kv_str("Product Name", NA);
		kv_str("Serial Number", NA);
		printf("\n");
	}
}

/* The carrier's PCI slot (the device number of its address), as Slot ID. */
static void slot_str(const struct npu_nl_dev *d, char *buf, size_t len)
{
	struct npu_nl_pci pci;

	if (npu_nl_pci(d, &pci))
		snprintf(buf, len, NA);
	else
		snprintf(buf, len, "%u", pci.dev);
}

/* info -m: one chip per device; its physical id is the N of /dev/npuN. */
static void print_mapping(const struct smi_snap *s)
{
	int i;

	printf("\t%-30s %-30s %-30s %-30s %-30s\n", "NPU ID", "Slot ID", "Chip ID",
	       "Chip Phy-ID", "Chip Name");
	for (i = 0; i < s->ndevs; i++) {
		char slot[16];

		slot_str(&s->devs[i], slot, sizeof(slot));
		printf("\t%-30u %-30s %-30d %-30u %s\n", s->devs[i].index, slot, 0,
		       s->devs[i].index, s->devs[i].soc);
	}
}

static void page_board(const struct npu_nl_dev *d)
{
	struct npu_nl_pci pci;
	char ver[16], buf[32];
	bool pci_ok = !npu_nl_pci(d, &pci);

	npu_nl_version_str(d->version, ver, sizeof(ver));
	printf("\t%-30s : %u\n", "NPU ID", d->index);
	kv_str("Product Name", NA);
	kv_str("NPU Name", d->name);
	kv_str("Chip Name", d->soc);
	kv_str("Chip Version", NA);
	kv_str("Model", NA);
	kv_str("Manufacturer", NA);
	kv_str("Serial Number", NA);
	kv_str("Software Version", ver);
	kv_str("Firmware Version", NA);
	kv_str("Compatibility", "NOT SUPPORT");
	kv_str("Board ID", NA);
	kv_str("Main Board ID", NA);
	kv_str("PCB ID", NA);
	kv_str("BOM ID", NA);
	snprintf(buf, sizeof(buf), "%04X:%02X:%02X.%X", pci.domain, pci.bus, pci.dev, pci.fn);
	kv_str("PCIe Bus Info", pci_ok ? buf : NA);
	slot_str(d, buf, sizeof(buf));
	kv_str("Slot ID", buf);
	kv_str("Class ID", NA);
	pci_ok = pci_ok && pci.ids;
	snprintf(buf, sizeof(buf), "0x%04X", pci.vendor);
	kv_str("PCI Vendor ID", pci_ok ? buf : NA);
	snprintf(buf, sizeof(buf), "0x%04X", pci.device);
	kv_str("PCI Device ID", pci_ok ? buf : NA);
	snprintf(buf, sizeof(buf), "0x%04X", pci.subvendor);
	kv_str("Subsystem Vendor ID", pci_ok ? buf : NA);
	snprintf(buf, sizeof(buf), "0x%04X", pci.subdevice);
	kv_str("Subsystem Device ID", pci_ok ? buf : NA);
	kv_u("Chip Count", 1);
	kv_str("DDie ID", NA);
	kv_u("Chip Position ID", 0);
}

/*
 * "Aicore Usage Rate(%)" is the summary's NPU Util(%): the vendor's source
 * prints the chip's overall utilisation there on its 950 (npu_usage, from
 * dcmiv2_get_device_multi_utilization_rate's npu_util), not the AI cores'.
 */
static void page_common(const struct npu_nl_dev *d)
{
	unsigned int cube, vector;
	char util[16];

	printf("\t%-30s : %u\n", "NPU ID", d->index);
	kv_u("Memory Usage Rate(%)", 0);
	kv_u("HBM Usage Rate(%)", npu_nl_hbm_rate(d));
	kv_str("Aicore Usage Rate(%)", util_str(d, util, sizeof(util)));
	kv_str("Aicore Freq(MHZ)", NA);
	kv_str("Aicore curFreq(MHZ)", NA);
	if (!npu_nl_cores(&cube, &vector))
		kv_u("Aicore Count", cube);
	else
		kv_str("Aicore Count", NA);
	kv_str("Temperature(C)", NA);
	kv_str("NPU Real-time Power(W)", NA);
}

static void page_usages(const struct npu_nl_dev *d)
{
	char util[16];

	printf("\t%-30s : %u\n", "NPU ID", d->index);
	kv_u("DDR Capacity(MB)", 0);
	kv_u("DDR Usage Rate(%)", 0);
	kv_u("DDR Hugepages Total(page)", 0);
	kv_u("DDR Hugepages Usage Rate(%)", 0);
	kv_u("HBM Capacity(MB)", npu_nl_mib(d->total));
	kv_u("HBM Usage Rate(%)", npu_nl_hbm_rate(d));
	kv_str("Aicore Usage Rate(%)", NA);
	kv_str("Aivector Usage Rate(%)", NA);
	kv_str("Aicpu Usage Rate(%)", NA);
	kv_str("Ctrlcpu Usage Rate(%)", NA);
	kv_u("DDR Bandwidth Usage Rate(%)", 0);
	kv_str("HBM Bandwidth Usage Rate(%)", NA);
	kv_str("NPU Utilization(%)", util_str(d, util, sizeof(util)));
	kv_str("Aicube Usage Rate(%)", NA);
}

static void page_memory(const struct npu_nl_dev *d)
{
	printf("\t%-30s : %u\n", "NPU ID", d->index);
	kv_u("DDR Capacity(MB)", 0);
	kv_u("DDR Clock Speed(MHz)", 0);
	kv_u("HBM Capacity(MB)", npu_nl_mib(d->total));
	kv_str("HBM Clock Speed(MHz)", NA);
	kv_str("HBM Temperature(C)", NA);
	kv_str("HBM Manufacturer ID", NA);
}

static void page_health(const struct npu_nl_dev *d)
{
	unsigned int codes[NPU_NL_MAX_ERRCODES];
	int i, n = npu_nl_errcodes(d, codes);

	printf("\t%-30s : %u\n", "NPU ID", d->index);
	kv_str("Health", npu_nl_health_name(npu_nl_health(d)));
	if (!n) {
		kv_str("Error Code", NA);
		kv_str("Error Information", NA);
		return;
	}
	printf("\t%-30s :", "Error Code");
	for (i = 0; i < n; i++)
		printf(" %04X", codes[i]);
	printf("\n\t%-30s : %s\n", "Error Information", npu_nl_errcode_text(codes[0]));
	for (i = 1; i < n; i++)
		printf("\t%-30s : %s\n", " ", npu_nl_errcode_text(codes[i]));
}

static void page_proc_mem(const struct smi_snap *s, const struct npu_nl_dev *d)
{
	int i, shown = 0;

	printf("\t%-30s : %u\n", "NPU ID", d->index);
	for (i = 0; i < s->nprocs; i++) {
		if (s->procs[i].dev != d->index)
			continue;
		printf("\tProcess id:%-7u Process name:%-17s Process memory(MB):%llu\n",
		       s->procs[i].pid, s->procs[i].comm, npu_nl_mib(s->procs[i].mem));
		shown++;
	}
	if (!shown)
		printf("\tNo process in device.\n");
}

/* The vendor's -t types; those npu answers have a page. */
static const struct {
	const char *name;
	void (*page)(const struct npu_nl_dev *d);
} types[] = {
	{ "board", page_board }, { "common", page_common }, { "flash", NULL },
	{ "memory", page_memory }, { "usages", page_usages }, { "temp", NULL },
	{ "power", NULL }, { "volt", NULL }, { "health", page_health },
	{ "current-fault-event", NULL }, { "ecc", NULL }, { "ecc-enable", NULL }, { "sensors", NULL },
	{ "sys-time", NULL }, { "key-manage", NULL }, { "proc-mem", NULL }, { "phyid-remap", NULL },
	{ "topo", NULL }, { "spod-info", NULL }, { "sio-info", NULL }, { "sys-log-info", NULL },
	{ "tls-csr-get", NULL }, { "tls-cert", NULL }, { "tls-cert-period", NULL },
};

static void info_usage(FILE *f)
{
	fprintf(f, "Usage: npu-smi info <watch|proc|-h|-m|-l|-t type> [Options...]\n\n"
		"Commands:\n"
		"       watch          Show all device's status in scrolling format\n"
		"       proc           Show device's matrix process status in scrolling format\n"
		"       -h, --help     Show this help text and exit\n"
		"       -m             Show all device's mapping information\n"
		"       -l             Show all device's topology information\n"
		"       -t type        Show information for type\n"
		"                      type: board, common, flash, memory, usages, temp, power, volt, health,\n"
		"                            current-fault-event, ecc, ecc-enable, sensors, sys-time, key-manage,\n"
		"                            proc-mem, phyid-remap, topo, spod-info, sio-info, sys-log-info,\n"
		"                            tls-csr-get, tls-cert, tls-cert-period.\n\n"
		"Options:\n"
		"       -i %%d          NPU ID\n"
		"       -p %%d          Chip Physical ID\n"
		"       -c %%d          Chip ID (always 0: a device has one chip)\n"
		"       --json         One JSON document of devices and processes, exact bytes (npu)\n\n"
		"The simulated device answers board, common, memory, usages, health, proc-mem and\n"
		"phyid-remap; for the others it has nothing to report (exit 8).\n");
}

/* info -t TYPE: one page, or "not supported" for a type npu has nothing for. */
static int info_type(const char *type, long dev, long phy)
{
	struct smi_snap s = { 0 };
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i].name))
			break;
	if (i == sizeof(types) / sizeof(types[0])) {
		fprintf(stderr, "npu-smi: info -t %s: no such type (npu-smi info -h)\n", type);
		return NPU_SMI_EXIT_USAGE;
	}
	if (!strcmp(type, "phyid-remap")) {
		if (phy < 0) {
			fprintf(stderr, "npu-smi: info -t phyid-remap: -p %%d is required\n");
			return NPU_SMI_EXIT_USAGE;
		}
		ret = smi_snapshot(&s, phy, false);
		if (!ret) {
			char slot[16];

			slot_str(&s.devs[0], slot, sizeof(slot));
			printf("\t%-30s:%ld\n", "Chip Phy-ID", phy);
			printf("\t%-30s:%u\n", "NPU ID", s.devs[0].index);
			printf("\t%-30s:%s\n", "Slot ID", slot);
			printf("\t%-30s:%d\n", "Chip ID", 0);
		}
		smi_snapshot_close(&s);
		return ret;
	}
	if (dev < 0) {
		fprintf(stderr, "npu-smi: info -t %s: -i %%d is required\n", type);
		return NPU_SMI_EXIT_USAGE;
	}
	ret = smi_snapshot(&s, dev, !strcmp(type, "proc-mem"));
	if (!ret && (types[i].page == page_common || types[i].page == page_usages))
		ret = smi_snapshot_util(&s, dev);
	if (!ret) {
		if (!strcmp(type, "proc-mem")) {
			s.nprocs = npu_nl_procs_by_pid(s.procs, s.nprocs);
			page_proc_mem(&s, &s.devs[0]);
		} else if (types[i].page) {
			types[i].page(&s.devs[0]);
		} else {
			printf("This device does not support querying %s.\n", type);
			ret = NPU_SMI_EXIT_NOTSUP;
		}
	}
	smi_snapshot_close(&s);
	return ret;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The metrics of info watch -s, in the vendor's column order. */
static const char watch_keys[] = "ptaicmbnu";
static const char *const watch_heads[] = {
	"Pwr(W)", "Temp(C)", "AI Core(%)", "AI Cpu(%)", "Ctrl Cpu(%)",
	"Memory(%)", "Memory BW(%)", "NPU Util(%)", "AI Cube(%)",
};

static void watch_row(const struct npu_nl_dev *d, const bool *on)
{
	unsigned int k;

	printf("%-12u", d->index);
	for (k = 0; k < sizeof(watch_keys) - 1; k++) {
		char val[16] = NA;

		if (!on[k])
			continue;
		/* on-chip memory and the DMA engine: what the family can answer */
		if (watch_keys[k] == 'm')
			snprintf(val, sizeof(val), "%u", npu_nl_hbm_rate(d));
		else if (watch_keys[k] == 'n' && d->util >= 0)
			snprintf(val, sizeof(val), "%d", d->util);
		/* the vendor puts a space before the columns after Memory BW(%) */
		printf(k > 6 ? " %-12s" : "%-12s", val);
	}
	printf("\n");
}

static void proc_row(const struct npu_nl_proc *p)
{
	printf("%-12u%-12u%-18s%-20llu%-12llu%llu\n", p->dev, p->pid, p->comm,
	       npu_nl_mib(p->mem), npu_nl_mib(p->pinned), npu_nl_mib(p->memlock));
}

/*
 * info watch and info proc: a header, then every @delay seconds a row per
 * device (or process) until SIGINT, SIGTERM or @count samples (npu's
 * --count, for scripts and tests).
 */
static int info_sample(int argc, char **argv, bool procs)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct smi_snap s = { 0 };
	struct npu_nl_dev *prev;
	bool on[sizeof(watch_keys) - 1];
	long dev = -1, delay = 1, count = 0, n;
	const char *metrics = watch_keys;
	unsigned int k;
	int c, i, j, ret, nprev;

	while ((c = getopt_long(argc, argv, procs ? "i:c:d:h" : "i:c:d:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			dev = smi_parse_uint(optarg);
			if (dev < 0) {
				fprintf(stderr, "npu-smi: -i %s: not an NPU ID\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		case 'c':
			if (smi_parse_uint(optarg) != 0) {
				fprintf(stderr, "npu-smi: -c %s: a device has one chip, 0\n", optarg);
				return NPU_SMI_EXIT_NOENT;
			}
			break;
		case 'd':
			delay = smi_parse_uint(optarg);
			if (delay < 1 || delay > 100) {
				fprintf(stderr, "npu-smi: -d %s: the delay is 1..100 seconds\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		case 's':
			metrics = optarg;
			if (!*metrics || strspn(metrics, watch_keys) != strlen(metrics)) {
				fprintf(stderr, "npu-smi: -s %s: metrics are some of %s\n", optarg, watch_keys);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		case 'n':
			count = smi_parse_uint(optarg);
			if (count <= 0) {
				fprintf(stderr, "npu-smi: --count %s: not a positive number\n", optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			break;
		case 'h':
			printf("Usage: npu-smi info %s [Options...]\n\nOptions:\n"
			       "       -i %%d          NPU ID\n"
			       "       -d %%d          Collection delay in seconds [1~100, default is 1 second]\n",
			       procs ? "proc" : "watch");
			if (!procs)
				printf("       -s             One or more metrics [eg. info watch -s ptaicmb]\n"
				       "                      Can be any of the following:\n"
				       "                          p - Power Usage\n"
				       "                          t - Temperature\n"
				       "                          a - AI Core Usage\n"
				       "                          i - AI Cpu Usage\n"
				       "                          c - Control Cpu Usage\n"
				       "                          m - Memory Usage\n"
				       "                          b - Memory Bandwidth Usage\n"
				       "                          n - NPU Utilization\n"
				       "                          u - AI Cube Usage\n");
			printf("       --count %%d     Stop after that many samples (npu)\n");
			return NPU_SMI_EXIT_OK;
		default:
			info_usage(stderr);
			return NPU_SMI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "npu-smi: info: unexpected argument '%s'\n", argv[optind]);
		return NPU_SMI_EXIT_USAGE;
	}
	for (k = 0; k < sizeof(on); k++)
		on[k] = strchr(metrics, watch_keys[k]);
	/* the device must exist before the header goes out */
	ret = smi_snapshot(&s, dev, procs);
	if (ret)
		goto out;
	if (procs) {
		printf("%-12s%-12s%-18s%-20s%-12s%s\n", "NpuID(Idx)", "Process id",
		       "Process name", "Process memory(MB)", "Pinned(MB)", "Memlock(MB)");
	} else {
		printf("%-12s", "NpuID(Idx)");
		for (k = 0; k < sizeof(on); k++)
			if (on[k])
				printf(k > 6 ? " %-12s" : "%-12s", watch_heads[k]);
		printf("\n");
	}
	/* the first row's utilisation over a window, the others' since the last row */
	if (!procs && strchr(metrics, 'n')) {
		ret = smi_snapshot_util(&s, dev);
		if (ret)
			goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (n = 0; !stop; ) {
		if (procs)
			s.nprocs = npu_nl_procs_by_pid(s.procs, s.nprocs);
		for (i = 0; i < s.ndevs; i++) {
			bool any = false;

			if (!procs) {
				watch_row(&s.devs[i], on);
				continue;
			}
			for (j = 0; j < s.nprocs; j++) {
				if (s.procs[j].dev == s.devs[i].index) {
					proc_row(&s.procs[j]);
					any = true;
				}
			}
			if (!any)
				printf("%-12uNo running processes found in NPU %u\n",
				       s.devs[i].index, s.devs[i].index);
		}
		/* a reader behind a pipe or file sees each sample as it comes */
		fflush(stdout);
		if (count && ++n >= count)
			break;
		sleep(delay);
		if (stop)
			break;
		prev = s.devs;
		nprev = s.ndevs;
		s.devs = NULL;
		ret = smi_snapshot(&s, dev, procs);
		if (!ret)
			npu_nl_util(s.devs, s.ndevs, prev, nprev);
		free(prev);
		if (ret)
			goto out;
	}
out:
	smi_snapshot_close(&s);
	return ret;
}

int smi_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "id", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct smi_snap s = { 0 };
	const char *type = NULL;
	bool json = false, list = false, map = false;
	long dev = -1, phy = -1;
	int c, ret;

	if (argc > 1 && !strcmp(argv[1], "watch"))
		return info_sample(argc - 1, argv + 1, false);
	if (argc > 1 && !strcmp(argv[1], "proc"))
		return info_sample(argc - 1, argv + 1, true);
	while ((c = getopt_long(argc, argv, "hlmt:i:p:c:", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			list = true;
			break;
		case 'm':
			map = true;
			break;
		case 't':
			type = optarg;
			break;
		case 'i':
		case 'p':
			if (smi_parse_uint(optarg) < 0) {
				fprintf(stderr, "npu-smi: -%c %s: not an id\n", c, optarg);
				return NPU_SMI_EXIT_USAGE;
			}
			*(c == 'i' ? &dev : &phy) = smi_parse_uint(optarg);
			break;
		case 'c':
			if (smi_parse_uint(optarg) != 0) {
				fprintf(stderr, "npu-smi: -c %s: a device has one chip, 0\n", optarg);
				return NPU_SMI_EXIT_NOENT;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			info_usage(stdout);
			return NPU_SMI_EXIT_OK;
		default:
			info_usage(stderr);
			return NPU_SMI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "npu-smi: info: unexpected argument '%s'\n", argv[optind]);
		return NPU_SMI_EXIT_USAGE;
	}
	if ((list || map || type) && (json || list + map + !!type > 1)) {
		fprintf(stderr, "npu-smi: info: -l, -m, -t and --json exclude each other\n");
		return NPU_SMI_EXIT_USAGE;
	}
	if (type)
		return info_type(type, dev, phy);
	ret = smi_snapshot(&s, list || map ? -1 : dev, !(list || map));
	if (!ret) {
		if (list)
			print_list(&s);
		else if (map)
			print_mapping(&s);
		else if (json)
			print_json(&s);
		else {
			s.nprocs = npu_nl_procs_by_pid(s.procs, s.nprocs);
			ret = smi_snapshot_util(&s, dev);
			if (!ret)
				print_summary(&s);
		}
	}
	smi_snapshot_close(&s);
	return ret;
}
