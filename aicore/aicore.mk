# SPDX-License-Identifier: MIT
# aicore/aicore.mk - npu-aicore, the AI-core executor libacl starts
# (build/lib/npu/npu-aicore; installed beside libacl as <libdir>/npu/npu-aicore).

AICORE		:= $(LIB_OUT)/npu/npu-aicore
AICORE_SRCS	:= $(wildcard aicore/*.c)
AICORE_CFLAGS	:= -std=gnu11 -O2 -g $(LIB_WARN) -pthread -D_GNU_SOURCE -Iinclude -Ilib -Iaicore

$(AICORE): $(AICORE_SRCS) $(wildcard aicore/*.h) lib/aicore_proto.h include/ascendc/npu_block.h aicore/aicore.mk
	@mkdir -p $(@D)
	$(CC) $(AICORE_CFLAGS) -o $@ $(AICORE_SRCS) -rdynamic -ldl

lib: $(AICORE)

.PHONY: aicore-install aicore-uninstall
lib-install: aicore-install
lib-uninstall: aicore-uninstall

aicore-install: $(AICORE)
	$(INSTALL) -D -m 755 $(AICORE) $(DESTDIR)$(LIBDIR)/npu/npu-aicore

aicore-uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/npu/npu-aicore
	if [ -d $(DESTDIR)$(LIBDIR)/npu ]; then rmdir --ignore-fail-on-non-empty $(DESTDIR)$(LIBDIR)/npu; fi
