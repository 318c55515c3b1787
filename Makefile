# xdpleaf: BPF objects, skeletons, the `xdpleaf` command and its tests.
# Outputs go to build/. `make help` lists the targets.

BUILD    ?= build
CLANG    ?= clang
BPFTOOL  ?= bpftool
CC       ?= gcc
ARCH     := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

CFLAGS   ?= -O2 -g
CFLAGS   += -Wall -Wextra -Werror -std=gnu11 -Iinclude -Iuser -I$(BUILD) $(SANITIZE)
LDLIBS   := -lbpf -lelf -lz -linih -ljson-c -lmnl -lmicrohttpd -lncurses
BPF_CFLAGS := -target bpf -mcpu=v3 -O2 -g -Wall -Werror -D__TARGET_ARCH_$(ARCH) \
	      -Iinclude -Ibpf -I$(BUILD)

# `xdpleaf --version`: the release and the commit built from, as `git
# describe --always --dirty` would print it ("unknown" outside a git
# checkout, e.g. from a tarball). Not `describe --dirty` itself: it takes
# .git/index.lock to refresh the index, which races commits made beside a
# build; `status` with optional locks off only reads. safe.directory: a
# root build (sudo make test) in a user's clone still reads its commit.
XL_VERSION := 0.1.0
XL_GIT := git -c safe.directory=$(CURDIR)
XL_GIT_COMMIT := $(shell [ -e .git ] && c=$$($(XL_GIT) describe --always 2>/dev/null) || c=unknown; \
	[ "$$c" = unknown ] || [ -z "$$(GIT_OPTIONAL_LOCKS=0 $(XL_GIT) status --porcelain --untracked-files=no 2>/dev/null)" ] || \
	c=$$c-dirty; echo $$c)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
# The minimal forwarders `make bench` measures the leaf against.
BASE_SRCS := $(wildcard bench/baselines/*.bpf.c)
BASE_SKELS := $(patsubst bench/baselines/%.bpf.c,$(BUILD)/bench/baselines/%.skel.h,$(BASE_SRCS))
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKELS    := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
BPF_HDRS := $(wildcard bpf/*.h) $(wildcard include/*.h)
USER_HDRS := $(wildcard user/*.h user/*/*.h) $(wildcard include/*.h)
USER_SRCS := $(wildcard user/*.c user/*/*.c)
USER_OBJS := $(patsubst user/%.c,$(BUILD)/user/%.o,$(USER_SRCS))
# Everything but main() is linkable into unit tests.
LIB_OBJS := $(filter-out $(BUILD)/user/main.o,$(USER_OBJS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))
BPFT_SRCS := $(wildcard tests/bpf/test_*.c)
BPFT_BINS := $(patsubst tests/bpf/%.c,$(BUILD)/tests/bpf/%,$(BPFT_SRCS))

.PHONY: sim-fabric all deps test test-asan unit-tests demo clean help bench fuzz fuzz-config fuzz-sim lab lab-down lint analyze format-check format FORCE
.SECONDARY:
all: $(BUILD)/xdpleaf $(BASE_SKELS)

help:
	@echo "make          build $(BUILD)/xdpleaf (BPF objects, skeletons, CLI)"
	@echo "make deps     install missing build/test dependencies (apt)"
	@echo "make test     deps + build + every test suite; ends 'N passed, N failed'"
	@echo "make demo     deps + build + lab up + fast path, hash vs flowlet, ECN, DCQCN (measured) + lab down"
	@echo "make bench    ns/packet per path and feature, scaling, lab Mpps, as ratios to baselines (docs/performance.md)"
	@echo "make fuzz     the leaf program under 10^6 random and mutated frames per seed (XL_FUZZ_SEEDS)"
	@echo "make fuzz-config  libFuzzer (ASan, UBSan) over the config parser, FUZZ_SECONDS (60)"
	@echo "make fuzz-sim     the same over sim's trace readers (dcqcn, queue, flowlet --trace)"
	@echo "make test-asan    the unit tests built with ASan and UBSan (make test runs them too)"
	@echo "make lint     shellcheck on every shell file, gcc -fanalyzer on user/ (make test runs it)"
	@echo "make format-check  clang-format on every C file not in .clang-format-ignore (make test runs it)"
	@echo "make format   clang-format -i those files; make compile_commands.json for clangd, clang-tidy"
	@echo "make lab      bring the lab up (lab/lab.sh up; make lab-down removes it)"
	@echo "make bench-balance  load-balancing modes vs kernel ECMP (docs/load-balancing-bench.md)"
	@echo "make bench-dcqcn    DCQCN closed loop, off and on (docs/dcqcn.md)"
	@echo "make bench-jct      MPI collectives' and RoCE steps' times per fabric (docs/jct-bench.md)"
	@echo "make bench-mixed    request latency beside a running all-reduce (docs/inference-bench.md)"
	@echo "make sim-fabric     the ns-3 fabric simulator, $(BUILD)/sim-fabric/xdpleaf-fabric (docs/fabric-sim.md)"
	@echo "make install  the command, its unit, man pages, completion and docs (PREFIX, DESTDIR; make uninstall)"
	@echo "make deb      the Debian package, into $(BUILD)/deb/ (debian/)"
	@echo "make clean    remove $(BUILD)/"

deps:
	@scripts/deps.sh

$(BUILD)/vmlinux.h:
	@mkdir -p $(BUILD)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) $(BUILD)/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

$(BUILD)/bench/baselines/%.bpf.o: bench/baselines/%.bpf.c bench/baselines/forwarder.h $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/baselines/%.skel.h: $(BUILD)/bench/baselines/%.bpf.o
	$(BPFTOOL) gen skeleton $< name base_$* > $@.tmp && mv $@.tmp $@

$(BUILD)/user/%.o: user/%.c $(USER_HDRS) $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# Rewritten only when the strings change, so that a build of the same
# commit recompiles and relinks nothing.
$(BUILD)/build_version.h: FORCE
	@mkdir -p $(@D)
	@printf '#define XL_VERSION "%s"\n#define XL_GIT_COMMIT "%s"\n' \
		'$(XL_VERSION)' '$(XL_GIT_COMMIT)' >$@.$$$$ && \
	if cmp -s $@.$$$$ $@; then rm $@.$$$$; else mv $@.$$$$ $@; fi
$(BUILD)/user/base/version.o: $(BUILD)/build_version.h

$(BUILD)/xdpleaf: $(USER_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/unit/test_%: tests/unit/test_%.c $(LIB_OBJS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS) -lcmocka -lm

# test_lb_group drives the ns-3 leaf's C shim too (sim/fabric/leaf_shim.c).
$(BUILD)/tests/unit/test_lb_group: tests/unit/test_lb_group.c $(LIB_OBJS) $(USER_HDRS) \
		$(BUILD)/sim-fabric/leaf_shim.o sim/fabric/leaf_shim.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isim/fabric $< $(LIB_OBJS) $(BUILD)/sim-fabric/leaf_shim.o -o $@ $(LDLIBS) -lcmocka -lm

$(BUILD)/tests/bpf/test_%: tests/bpf/test_%.c tests/bpf/*.h $(LIB_OBJS) $(SKELS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/bpf $< $(LIB_OBJS) -o $@ $(LDLIBS) -lcmocka


# `make bench`'s measuring program (bench/perf/): links the loader, as
# the tests do, to fill the leaf's maps from a configuration.
# Two programs: paths (every path and feature) and scale (the same with
# many flows, uplinks and routes in the tables).
$(BUILD)/bench/%: bench/perf/%.c bench/perf/setup.c bench/perf/perf.h tests/bpf/*.h $(LIB_OBJS) $(SKELS) $(BASE_SKELS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/bpf -Ibench/perf $< bench/perf/setup.c $(LIB_OBJS) -o $@ $(LDLIBS)

# The stateful baseline attached at XDP to real ports, for the lab's
# forwarding-rate benchmark (bench/perf/lab_rate.sh).
$(BUILD)/bench/base_attach: bench/perf/base_attach.c $(BUILD)/bench/baselines/stateful.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ -lbpf -lelf -lz

# The MPI program of the job-completion-time benchmark (docs/jct-bench.md),
# built twice: with Open MPI's compiler wrapper and with MPICH's (make deps
# installs both; each named, as `mpicc` is whichever the alternatives say).
MPICC ?= mpicc.openmpi
MPICC_MPICH ?= mpicc.mpich
COLLECTIVES := $(BUILD)/bench/collective $(BUILD)/bench/collective-mpich
$(BUILD)/bench/collective: bench/jct/collective.c
	@mkdir -p $(@D)
	$(MPICC) -O2 -g -Wall -Wextra -Werror -std=gnu11 $< -o $@
$(BUILD)/bench/collective-mpich: bench/jct/collective.c
	@mkdir -p $(@D)
	$(MPICC_MPICH) -O2 -g -Wall -Wextra -Werror -std=gnu11 $< -o $@

# The ns-3 fabric simulator (sim/fabric/, docs/fabric-sim.md): ns-3 from
# Debian's libns3-dev through pkg-config; the leaf's algorithms compiled as
# C (leaf_shim.c over user/sim/lb_group.c and include/, dcqcn_shim.c over
# include/dcqcn.h and the configuration's [dcqcn] defaults) and linked in.
NS3_MODULES := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control
CXX ?= g++
FABRIC_CXXFLAGS := -O2 -g -std=c++17 -Wall -Wextra -Werror
# Debian 12's ns3 .pc files carry a stray "-I/usr\;": left out
NS3_CFLAGS = $(filter-out %;,$(shell pkg-config --cflags $(NS3_MODULES) 2>/dev/null))
FABRIC_C_OBJS := $(BUILD)/sim-fabric/leaf_shim.o $(BUILD)/sim-fabric/dcqcn_shim.o \
		 $(BUILD)/user/sim/lb_group.o $(BUILD)/user/config/config_keys.o \
		 $(BUILD)/user/config/config_check.o $(BUILD)/user/config/config_parse.o \
		 $(BUILD)/user/base/names.o \
		 $(BUILD)/user/base/units.o $(BUILD)/user/base/log.o
sim-fabric: $(BUILD)/sim-fabric/xdpleaf-fabric
$(BUILD)/sim-fabric/leaf_shim.o: sim/fabric/leaf_shim.c sim/fabric/leaf_shim.h $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
$(BUILD)/sim-fabric/dcqcn_shim.o: sim/fabric/dcqcn_shim.c sim/fabric/dcqcn_shim.h $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
$(BUILD)/sim-fabric/fabric.o: sim/fabric/fabric.cc sim/fabric/leaf_shim.h sim/fabric/dcqcn_shim.h
	@mkdir -p $(@D)
	$(CXX) $(FABRIC_CXXFLAGS) $(NS3_CFLAGS) -c $< -o $@
$(BUILD)/sim-fabric/xdpleaf-fabric: $(BUILD)/sim-fabric/fabric.o $(FABRIC_C_OBJS)
	$(CXX) $^ -o $@ $$(pkg-config --libs $(NS3_MODULES)) -ljson-c

# The leaf program under 10^6 random and mutated frames per seed (the
# test suite runs 20000 of seed 1): XL_FUZZ_SEEDS="1 2 3" to choose.
XL_FUZZ_SEEDS ?= 1 2 3
fuzz: all $(BUILD)/tests/bpf/test_leaf
	@for s in $(XL_FUZZ_SEEDS); do \
		XL_FUZZ_ONLY=1 XL_FUZZ_PACKETS=1000000 XL_FUZZ_SEED=$$s \
			$(BUILD)/tests/bpf/test_leaf || exit 1; \
	done

# libFuzzer over the configuration parser, with AddressSanitizer and
# UndefinedBehaviorSanitizer (tests/fuzz/fuzz_config.c); seeds are
# tests/configs. FUZZ_SECONDS (default 60) of it; make test runs 10.
FUZZ_CONFIG_SRCS := tests/fuzz/fuzz_config.c $(wildcard user/config/*.c) \
		    user/base/units.c user/base/names.c user/base/log.c
$(BUILD)/fuzz/fuzz_config: $(FUZZ_CONFIG_SRCS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-Iinclude -Iuser -I$(BUILD) $(FUZZ_CONFIG_SRCS) -o $@ -linih -ljson-c
FUZZ_SECONDS ?= 60
fuzz-config: $(BUILD)/fuzz/fuzz_config
	@tests/fuzz/run_libfuzzer.sh $(BUILD)/fuzz/fuzz_config $(FUZZ_SECONDS) tests/configs/good tests/configs/bad

# The same for the trace readers of `xdpleaf sim` (tests/fuzz/fuzz_sim.c);
# seeds in tests/fuzz/sim_seeds.
FUZZ_SIM_SRCS := tests/fuzz/fuzz_sim.c $(wildcard user/sim/*.c) user/base/cli.c user/base/output.c \
		 user/config/config_keys.c user/base/units.c user/base/names.c user/base/log.c
$(BUILD)/fuzz/fuzz_sim: $(FUZZ_SIM_SRCS) $(USER_HDRS)
	@mkdir -p $(@D)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-Iinclude -Iuser -I$(BUILD) $(FUZZ_SIM_SRCS) -o $@ -lm -ljson-c -lbpf
fuzz-sim: $(BUILD)/fuzz/fuzz_sim
	@tests/fuzz/run_libfuzzer.sh $(BUILD)/fuzz/fuzz_sim $(FUZZ_SECONDS) tests/fuzz/sim_seeds

# make lint: shellcheck on every shell file and GCC's -fanalyzer on user/,
# both at zero findings; make format-check: clang-format on every C file
# not in .clang-format-ignore (HACKING.md, "Checks"). make test runs all
# three as its "lint" suite (tests/lint.sh).
lint: analyze
	@tests/lint.sh shellcheck
format-check:
	@tests/lint.sh format
format:
	@tests/lint.sh --fix format

# -fanalyzer over user/, one stamp per file so that only what changed is
# analysed again; its warnings are errors (CFLAGS has -Werror).
ANALYZE_STAMPS := $(patsubst user/%.c,$(BUILD)/analyze/%.ok,$(USER_SRCS))
analyze: $(ANALYZE_STAMPS)
$(BUILD)/analyze/%.ok: user/%.c $(USER_HDRS) $(SKELS)
	@mkdir -p $(@D)
	@echo "  ANALYZE user/$*.c"
	@$(CC) $(CPPFLAGS) $(CFLAGS) -fanalyzer $(ANALYZE_EXTRA) -c $< -o /dev/null && touch $@
# Known false positives of GCC 12's analyzer, one checker off for one file:
# special_key's route exists whenever a route key is read ([route] made
# it); build_template's memset of c->frame cannot reach c's pointers.
$(BUILD)/analyze/config/config.ok: ANALYZE_EXTRA := -Wno-analyzer-null-dereference
$(BUILD)/analyze/traffic/gen_pkt.ok: ANALYZE_EXTRA := -Wno-analyzer-malloc-leak

# compile_commands.json for clangd and clang-tidy: every C file of the
# tree with the compiler and flags its rule above uses, written from this
# Makefile's variables rather than traced from a build, so it needs no build
# and lists every file (the skeletons and vmlinux.h the files include come
# from `make`). Remade on every call: it is cheap, and the file list follows
# the tree.
CCDB_MPI := $(shell $(MPICC) --showme:compile 2>/dev/null)
CCDB_FUZZ := -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Iuser -I$(BUILD)
compile_commands.json: FORCE
	@{ \
	$(foreach f,$(USER_SRCS) $(UNIT_SRCS) bench/perf/base_attach.c,\
		printf '%s\t%s\n' '$(f)' '$(CC) $(CPPFLAGS) $(CFLAGS) -c $(f)';) \
	$(foreach f,$(BPFT_SRCS) $(wildcard bench/perf/paths.c bench/perf/scale.c bench/perf/setup.c),\
		printf '%s\t%s\n' '$(f)' '$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/bpf -Ibench/perf -c $(f)';) \
	$(foreach f,$(BPF_SRCS) $(BASE_SRCS),\
		printf '%s\t%s\n' '$(f)' '$(CLANG) $(BPF_CFLAGS) -c $(f)';) \
	$(foreach f,$(wildcard tests/fuzz/*.c),\
		printf '%s\t%s\n' '$(f)' '$(CLANG) $(CCDB_FUZZ) -c $(f)';) \
	printf '%s\t%s\n' sim/fabric/leaf_shim.c '$(CC) $(CPPFLAGS) $(CFLAGS) -c sim/fabric/leaf_shim.c'; \
	printf '%s\t%s\n' sim/fabric/dcqcn_shim.c '$(CC) $(CPPFLAGS) $(CFLAGS) -c sim/fabric/dcqcn_shim.c'; \
	printf '%s\t%s\n' sim/fabric/fabric.cc \
		'$(CXX) $(FABRIC_CXXFLAGS) $(NS3_CFLAGS) -c sim/fabric/fabric.cc'; \
	printf '%s\t%s\n' bench/jct/collective.c \
		'$(CC) $(CCDB_MPI) -O2 -g -Wall -Wextra -Werror -std=gnu11 -c bench/jct/collective.c'; \
	} | scripts/compile_commands.sh '$(CURDIR)' >$@.tmp && mv $@.tmp $@
	@echo "compile_commands.json: $$(grep -c '"file"' $@) files"

bench: deps all $(BUILD)/bench/paths $(BUILD)/bench/scale $(BUILD)/bench/base_attach
	@bench/perf/run.sh $(BENCH_ARGS)

lab: deps all
	@lab/lab.sh up

lab-down:
	@lab/lab.sh down

# The user-space unit tests once more, built with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-asan/ (make test runs them too).
ASAN := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
unit-tests: $(UNIT_BINS)
test-asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan SANITIZE="$(ASAN)" unit-tests
	@ASAN_DIRS=build-asan tests/run.sh --only-asan

test: deps all $(UNIT_BINS) $(BPFT_BINS) $(COLLECTIVES) $(BUILD)/fuzz/fuzz_config $(BUILD)/fuzz/fuzz_sim \
	$(BUILD)/sim-fabric/xdpleaf-fabric
	@$(MAKE) --no-print-directory BUILD=build-asan SANITIZE="$(ASAN)" unit-tests
	@ASAN_DIRS=build-asan tests/run.sh

demo: deps all
	@lab/demo.sh

bench-balance: deps all
	@bench/balance/run.sh

# DCQCN closed loop, on and off (docs/dcqcn.md); options via
# BENCH_DCQCN_ARGS, e.g. "--runs off,paper --seconds 5"
.PHONY: bench-dcqcn
bench-dcqcn: deps all
	@bench/dcqcn/run.sh $(BENCH_DCQCN_ARGS)

# MPI collectives and RoCEv2 steps through each fabric (docs/jct-bench.md); options via
# BENCH_JCT_ARGS, e.g. "--fabrics ref,kernel,flowlet --sizes 4M --steps 5"
.PHONY: bench-jct
bench-jct: deps all $(COLLECTIVES)
	@bench/jct/run.sh $(BENCH_JCT_ARGS)

# Request/response latency idle and beside a running MPI all-reduce, and
# the all-reduce's steps with and without the requests
# (docs/inference-bench.md); options via BENCH_MIXED_ARGS, e.g.
# "--fabrics kernel,latency --switches single --duration 10"
.PHONY: bench-mixed
bench-mixed: deps all $(BUILD)/bench/collective
	@bench/mixed/run.sh $(BENCH_MIXED_ARGS)

clean:
	rm -rf $(BUILD)

# make install, uninstall, deb, man, completion
include scripts/install.mk
