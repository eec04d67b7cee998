# SPDX-License-Identifier: GPL-2.0
# agentmmd and agentmmctl (their tests: tests/unit/agentmmd.mk,
# tests/progs/build.mk). The BPF skeleton
# comes from bpf/build.mk; the plain-C policy from policy/.

AMMD_DIR := $(TOP)/agentmmd
# bpf/build.mk (included after this file) builds the skeleton here.
BPF_OUT := $(BUILD)/bpf
# The daemon's sources, listed once: agentmmd is main.c over them and
# agentmmctl is agentmmctl.c over them, each linking what it calls from one
# static library; the unit tests and fuzz targets link the same library,
# built per flavour (the flags differ, the list does not).
AMMD_LIB_SRCS := $(addprefix $(AMMD_DIR)/,usage.c log.c action.c journal.c \
	loader.c journalfmt.c sbtable.c sandbox.c runtime.c tools.c cgtools.c events.c \
	identity.c actuate.c tick.c status.c statusfile.c config.c cgroup.c \
	usergov.c thpknob.c thpfile.c govparse.c escape.c history.c metrics.c \
	control.c exempt.c reclaim.c sdnotify.c cfgwatch.c modver.c statedir.c \
	httpmetrics.c knob.c knobkind.c podid.c hostkind.c hostknob.c \
	unitbus.c modgov.c handed.c handover.c) \
	$(addprefix $(TOP)/policy/,pressure.c hotmap.c governor.c contig.c parse.c)
AMM_HDRS := $(wildcard $(AMMD_DIR)/*.h) $(TOP)/bpf/agentmm.h \
	$(TOP)/policy/pressure.h $(TOP)/policy/amm_types.h \
	$(TOP)/policy/governor.h $(TOP)/policy/govtunables.h \
	$(TOP)/policy/contig.h $(TOP)/policy/parse.h \
	$(TOP)/policy/hotmap.h
# Paths are bounded when sandboxes are found (longer ones are skipped), so
# gcc's worst-case snprintf truncation analysis only produces noise here.
AMM_USER_CFLAGS := $(USER_CFLAGS) -Wno-format-truncation -I$(BPF_OUT) \
	-I$(AMMD_DIR) -I$(TOP)/bpf -I$(TOP)/policy

# $(call ammd_objs,FLAVOUR): the library's objects of one flavour
ammd_objs = $(patsubst $(TOP)/%.c,$(BUILD)/obj/$(1)/%.o,$(AMMD_LIB_SRCS))
AMMD_LIB := $(BUILD)/obj/prod/libagentmmd.a
AMMD_LIB_SAN := $(BUILD)/obj/san/libagentmmd.a
AMMD_LIB_FUZZ := $(BUILD)/obj/fuzz/libagentmmd.a
# libevent (libevent-dev): the HTTP metrics endpoint (httpmetrics.c); no
# TLS, so no libevent_openssl. Order matters for the static links.
AMMD_LIBS := -lbpf -lelf -lz -levent_extra -levent_pthreads -levent_core -pthread
# libsystemd (libsystemd-dev): sd-bus, for the cgroups of systemd's units
# (unitbus.c). Debian ships no static libsystemd, so the static programs
# (the QEMU guest's, and everything built with SAN_FLAGS=-static: the cross
# builds) link unitbus.c built with AMM_NO_SDBUS instead, which finds no
# unit: systemd is not PID 1 where they run.
ifneq ($(filter -static,$(SAN_FLAGS)),)
AMMD_SDBUS_LIBS :=
AMMD_SAN_SDBUS := -DAMM_NO_SDBUS
else
AMMD_SDBUS_LIBS := $(or $(shell pkg-config --libs libsystemd 2>/dev/null),-lsystemd)
AMMD_SAN_SDBUS :=
endif
AMMD_LIBS += $(AMMD_SDBUS_LIBS)
# the objects static links put before the library, so that its unitbus.o
# (which needs libsystemd) is never pulled in
AMMD_NOSD_OBJ := $(BUILD)/obj/nosd/agentmmd/unitbus.o

# Every object waits for the BPF skeleton (loader.c and metrics.c include
# it); the headers are coarse dependencies of all.
$(BUILD)/obj/prod/%.o: $(TOP)/%.c $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h
	@mkdir -p $(@D)
	$(CC) $(AMM_USER_CFLAGS) -c -o $@ $<

# -Wno-restrict: gcc 12 with the sanitizers misreads usergov.c's snprintf
# from one member of a struct into another as an overlap.
$(BUILD)/obj/san/%.o: $(TOP)/%.c $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h
	@mkdir -p $(@D)
	$(CC) $(AMM_USER_CFLAGS) $(SAN_FLAGS) -Wno-restrict $(if $(filter %/unitbus.o,$@),$(AMMD_SAN_SDBUS)) -c -o $@ $<

$(AMMD_NOSD_OBJ): $(AMMD_DIR)/unitbus.c $(AMM_HDRS)
	@mkdir -p $(@D)
	$(CC) $(AMM_USER_CFLAGS) -DAMM_NO_SDBUS -c -o $@ $<

$(BUILD)/obj/fuzz/%.o: $(TOP)/%.c $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DAMM_VERSION='"fuzz"' \
		-I$(BPF_OUT) -I$(AMMD_DIR) -I$(TOP)/bpf -I$(TOP)/policy -c -o $@ $<

$(AMMD_LIB): $(call ammd_objs,prod)
$(AMMD_LIB_SAN): $(call ammd_objs,san)
$(AMMD_LIB_FUZZ): $(call ammd_objs,fuzz)
$(AMMD_LIB) $(AMMD_LIB_SAN) $(AMMD_LIB_FUZZ):
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/tools/agentmmd: $(BUILD)/obj/prod/agentmmd/main.o $(AMMD_LIB) | $(BUILD)/tools
	$(CC) -o $@ $^ $(AMMD_LIBS)

$(BUILD)/guest/bin/agentmmd: $(BUILD)/obj/prod/agentmmd/main.o $(AMMD_NOSD_OBJ) \
		$(AMMD_LIB) | $(BUILD)/guest/bin
	$(CC) $(STATIC_LDFLAGS) -o $@ $^ $(filter-out $(AMMD_SDBUS_LIBS),$(AMMD_LIBS)) -lzstd

$(BUILD)/tools/agentmmctl: $(BUILD)/obj/prod/agentmmd/agentmmctl.o $(AMMD_LIB) \
		| $(BUILD)/tools
	$(CC) -o $@ $^ $(AMMD_SDBUS_LIBS)

$(BUILD)/guest/bin/agentmmctl: $(BUILD)/obj/prod/agentmmd/agentmmctl.o $(AMMD_NOSD_OBJ) \
		$(AMMD_LIB) | $(BUILD)/guest/bin
	$(CC) $(STATIC_LDFLAGS) -o $@ $^

TOOLS += $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
GUEST_BINS += $(BUILD)/guest/bin/agentmmd $(BUILD)/guest/bin/agentmmctl
