# SPDX-License-Identifier: GPL-2.0
# tools/install.mk - what `make install` / `make uninstall` add to libacl's
# part (lib/lib.mk), included by the top-level Makefile:
#
#   smi-install       build/tools/npu-smi into BINDIR, if it is built
#   dcmi-install      libdcmi, dcmi.pc, dcmi_interface_api.h (tools/dcmi/dcmi.mk)
#   udev-install      udev/60-npu.rules into UDEVRULESDIR
#   modprobe-install  etc/modprobe.d/npu.conf.example into MODPROBEDIR
#   man-install       man/npu-smi.1, man/npu.4 into MANDIR/man1, man4
# and the <part>-uninstall of each, which removes exactly those files.
#
# Directories: BINDIR ($(PREFIX)/bin) and MANDIR ($(DATADIR)/man) follow
# PREFIX. UDEVRULESDIR (/lib/udev/rules.d) and MODPROBEDIR
# (/etc/modprobe.d) do not: udev and modprobe read only their system
# directories (a rule under /usr/local/lib/udev would never apply), so
# these go there whatever PREFIX is, under DESTDIR when it is set. The
# modprobe file is an example (modprobe reads only *.conf): copy it to
# npu.conf to use it. A PREFIX of one's own without root needs
# UDEVRULESDIR= and MODPROBEDIR= under it too.

BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(DATADIR)/man
UDEVRULESDIR	?= /lib/udev/rules.d
MODPROBEDIR	?= /etc/modprobe.d
NPU_SMI_BIN	?= $(BUILD)/tools/npu-smi
INSTALL		?= install

.PHONY: smi-install smi-uninstall udev-install udev-uninstall \
	modprobe-install modprobe-uninstall man-install man-uninstall

# npu-smi is tools/npu_smi.c's; without it this part installs nothing.
smi-install: tools
	@if [ -x $(NPU_SMI_BIN) ]; then \
		echo "$(INSTALL) -D -m 755 $(NPU_SMI_BIN) $(DESTDIR)$(BINDIR)/npu-smi"; \
		$(INSTALL) -D -m 755 $(NPU_SMI_BIN) $(DESTDIR)$(BINDIR)/npu-smi; \
	else echo "smi-install: $(NPU_SMI_BIN) is not built: npu-smi not installed"; fi

smi-uninstall:
	rm -f $(DESTDIR)$(BINDIR)/npu-smi

udev-install:
	$(INSTALL) -D -m 644 udev/60-npu.rules $(DESTDIR)$(UDEVRULESDIR)/60-npu.rules

udev-uninstall:
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-npu.rules

modprobe-install:
	$(INSTALL) -D -m 644 etc/modprobe.d/npu.conf.example $(DESTDIR)$(MODPROBEDIR)/npu.conf.example

modprobe-uninstall:
	rm -f $(DESTDIR)$(MODPROBEDIR)/npu.conf.example

man-install:
	$(INSTALL) -D -m 644 man/npu-smi.1 $(DESTDIR)$(MANDIR)/man1/npu-smi.1
	$(INSTALL) -D -m 644 man/npu.4 $(DESTDIR)$(MANDIR)/man4/npu.4

man-uninstall:
	rm -f $(DESTDIR)$(MANDIR)/man1/npu-smi.1 $(DESTDIR)$(MANDIR)/man4/npu.4

# The install test (tests/install-check, also part of make lib-check).
.PHONY: install-check
install-check: lib-check-install
