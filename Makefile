# hookexec — `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
# The Python that creates build/venv; the tests run in that venv (tests/requirements.txt).
HOST_PYTHON ?= python3
VENV := build/venv
PYTHON ?= $(CURDIR)/$(VENV)/bin/python
CC ?= cc
CXX ?= c++
BUILD := build
CLI := $(BUILD)/hookexec
# The one version (VERSION); `make version` copies it into the header and core/version.
VERSION := $(shell cat VERSION)
MAJOR := $(word 1,$(subst ., ,$(VERSION)))
SONAME := libhookexec.so.$(MAJOR)
LIB_REAL := $(BUILD)/libhookexec.so.$(VERSION)
LIB := $(BUILD)/libhookexec.so
ARCHIVE := $(BUILD)/libhookexec.a
# The Python package's version module, written from VERSION (the wheel build writes its own).
PYVERSION := pybind/hookexec/_version.py
# Python run from the source tree: the package on PYTHONPATH, the library named explicitly
# (only an installed package has one inside).
PY := HOOKEXEC_LIBRARY=$(CURDIR)/$(LIB) PYTHONPATH=$(CURDIR)/pybind
GO_SOURCES := $(shell find core capi cmd -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod go.sum
C_SOURCES := $(wildcard capi/*.c capi/*.h) include/hookexec.h
# Go build tags of the library and the command: GOTAGS=hookexec_norego leaves Rego (OPA) out,
# about 15 MB of a stripped library (docs/architecture.md); `make clean` when changing it.
GOTAGS ?=

.DEFAULT_GOAL := help
.PHONY: help all install uninstall wheel venv npm test ci test-live test-go test-cross test-claude-dispatch test-claude-telemetry test-dispatch test-install test-wheel test-ci test-c test-cpp test-python test-node test-npm test-docs docs test-claude test-gemini test-codex test-qwen test-cline test-droid test-auggie test-copilot test-opencode test-kilo test-latest demo demo-cli-agent bench bench-go stress fuzz clean libhookexec.so hookexec version

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_./-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-22s %s\n", $$1, $$2}'

$(LIB_REAL): $(GO_SOURCES) $(C_SOURCES) capi/exports.map VERSION
	@mkdir -p $(BUILD)
	CGO_ENABLED=1 $(GO) build -tags '$(GOTAGS)' -buildmode=c-shared -ldflags='-extldflags=-Wl,--version-script=$(CURDIR)/capi/exports.map,-soname,$(SONAME)' -o $@ ./capi
	@rm -f $(BUILD)/libhookexec*.h  # cgo's generated header; include/hookexec.h is the public one

$(LIB): $(LIB_REAL) ## the C shared library (Go core + C layer), with its SONAME link
	ln -sf $(notdir $(LIB_REAL)) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(ARCHIVE): $(GO_SOURCES) $(C_SOURCES) ## the static library, for hosts that want one file (link with -pthread)
	@mkdir -p $(BUILD)
	CGO_ENABLED=1 $(GO) build -tags '$(GOTAGS)' -buildmode=c-archive -o $@ ./capi
	@rm -f $(BUILD)/libhookexec*.h

libhookexec.so: $(LIB) ## alias for build/libhookexec.so

$(CLI): $(GO_SOURCES) ## the hookexec command
	@mkdir -p $(BUILD)
	$(GO) build -tags '$(GOTAGS)' -o $@ ./cmd/hookexec

hookexec: $(CLI) ## alias for build/hookexec

# Linked statically where the C library allows it (glibc's libc.a; the client uses no NSS):
# the dynamic loader's work is a fifth of a dynamic program's start (docs/performance.md).
# Without a static libc (macOS, a distribution without libc.a) it is linked dynamically.
HOOK_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror -DHOOKEXEC_VERSION='"$(VERSION)"'
$(BUILD)/hookexec-hook: capi/hook/hookexec-hook.c capi/hook/nomatch.c VERSION ## the dispatcher's fast path in C (beside build/hookexec; install registers it)
	@mkdir -p $(BUILD)
	$(CC) $(HOOK_CFLAGS) -static -o $@ $< 2>/dev/null || $(CC) $(HOOK_CFLAGS) -o $@ $<

all: $(LIB) $(CLI) $(BUILD)/hookexec-hook $(PYVERSION) ## the library, the command, its fast dispatcher and the Python package's version module (what a source-tree host needs)

$(BUILD)/test_capi: tests/c/test_capi.c tests/c/trust.c include/hookexec.h $(LIB) ## the C test program
	$(CC) -std=c11 -Wall -Wextra -Werror -pthread -Iinclude -o $@ $< -L$(BUILD) -lhookexec -Wl,-rpath,'$$ORIGIN'

$(BUILD)/test_hookexec_hpp: tests/cpp/test_hookexec_hpp.cpp include/hookexec.hpp include/hookexec.h $(LIB) ## the C++ wrapper's tests
	$(CXX) -std=c++17 -Wall -Wextra -Werror -pthread -Iinclude -o $@ $< -L$(BUILD) -lhookexec -Wl,-rpath,'$$ORIGIN'

$(BUILD)/cpp_host: examples/cpp_host/main.cpp include/hookexec.hpp include/hookexec.h $(LIB) ## the example C++ host
	$(CXX) -std=c++17 -Wall -Wextra -Werror -pthread -Iinclude -o $@ $< -L$(BUILD) -lhookexec -Wl,-rpath,'$$ORIGIN'

# The live suites make test runs, LIVE_JOBS at a time (test-live). CI runs CI_LIVE instead.
LIVE ?= test-claude test-gemini test-codex test-qwen test-cline test-droid test-auggie test-copilot
LIVE_JOBS ?= 1
test: test-go test-cross test-c test-cpp test-python test-node test-npm test-install test-wheel test-ci test-docs test-frameworks test-live ## everything: Go (race), cross-compiles, C and C++ against the public headers, Python against the real .so, Node and the npm package, install, wheel, .ci/run's installs, the docs site, the agent frameworks, the live agents

# The live suites CI runs (.ci/run runs make ci): the one place to add a suite to CI (the
# suites of agents install supports in dispatch mode, test-dispatch-<agent>: the same checks
# as test-<agent>, and each vector through hookexec install as well; Claude Code's dispatch
# run is test-claude-telemetry). Longest first: with CI_LIVE_JOBS at a time, a suite that
# starts last should be a short one. Times and the reasons: docs/live-testing.md#in-ci.
CI_LIVE := test-dispatch-qwen test-claude-telemetry test-dispatch-gemini test-cline test-dispatch-codex test-auggie test-copilot test-droid
CI_LIVE_JOBS := 2
ci: ## what CI runs (.ci/run): make test with the live suites of CI_LIVE, CI_LIVE_JOBS at a time
	$(MAKE) test LIVE="$(CI_LIVE)" LIVE_JOBS=$(CI_LIVE_JOBS)

# The suites of LIVE, LIVE_JOBS at a time: an agent run mostly waits (on the fake API, on
# its hooks, on its own start), so two suites side by side use cores one leaves idle. With
# more than one at a time each suite's output is held until it ends (--output-sync) and
# the others go on when one fails (-k); make still fails.
test-live: $(if $(filter test-dispatch% test-claude-telemetry,$(LIVE)),$(CLI) $(BUILD)/hookexec-hook $(OTELCOL)) ## the live suites of LIVE (default: every plain suite), LIVE_JOBS at a time
	$(if $(strip $(LIVE)),$(MAKE) --no-print-directory $(if $(filter-out 1,$(LIVE_JOBS)),-k -j$(LIVE_JOBS) --output-sync=target) $(LIVE))

# The test dependencies live in a venv the build creates, so a fresh machine needs only the
# toolchains (Go, a C compiler, Python 3, Node): no hand-run pip install.
$(VENV)/.installed: tests/requirements.txt
	rm -rf $(VENV)
	$(HOST_PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
	touch $@

venv: $(VENV)/.installed ## build/venv with the Python test and docs dependencies (tests/requirements.txt)

# The OpenTelemetry Collector the telemetry tests export to: its own module (tests/otelcol, what
# the official builder generates), so its dependencies stay out of go.mod; only rebuilt when its
# sources change. test-go runs with it and fails rather than skips without it.
OTELCOL := $(BUILD)/otelcol
$(OTELCOL): $(wildcard tests/otelcol/*.go) tests/otelcol/go.mod tests/otelcol/go.sum
	@mkdir -p $(BUILD)
	cd tests/otelcol && CGO_ENABLED=0 $(GO) build -mod=readonly -trimpath -ldflags='-s -w' -o $(CURDIR)/$@ .

.PHONY: otelcol
otelcol: $(OTELCOL) ## build/otelcol, the OpenTelemetry Collector for the tests (OTLP receiver, file exporter; tests/otelcoltest runs it)

test-go: $(OTELCOL) ## Go unit and integration tests with the race detector
	$(GO) vet ./...
	HOOKEXEC_OTELCOL=$(CURDIR)/$(OTELCOL) HOOKEXEC_REQUIRE_COLLECTOR=1 $(GO) test -race -count=1 ./...
	$(GO) test -count=1 -tags hookexec_norego -run '^TestRegoBuilt$$' ./core/engine  # the build without Rego

# The pure-Go packages (the core, the CLI) must build for the hosts agents run on; vet also
# type-checks their tests.
CROSS_PKGS := ./core/... $(if $(wildcard cmd),./cmd/...)
test-cross: ## cross-compile the pure-Go packages (and vet their tests) for macOS and Windows
	for target in darwin/arm64 windows/amd64; do \
		CGO_ENABLED=0 GOOS=$${target%/*} GOARCH=$${target#*/} $(GO) build -o /dev/null $(CROSS_PKGS) && \
		CGO_ENABLED=0 GOOS=$${target%/*} GOARCH=$${target#*/} $(GO) vet $(CROSS_PKGS) || exit 1; \
	done

test-node: $(CLI) ## the Node host example (examples/node_host) with Node's built-in test runner
	@command -v node >/dev/null || { echo "test-node: node is needed (Node >= 18; Debian: apt-get install nodejs npm)" >&2; exit 1; }
	HOOKEXEC_BIN=$(CURDIR)/$(CLI) node --test examples/node_host/test/node_host.test.js

# The npm package @hookexec/node (npm/node): TypeScript compiled to CommonJS (esm/ re-exports
# it for import), its dev dependencies from the committed lockfile, the examples compiled too.
NPM_DIR := npm/node
NPM_SOURCES := $(wildcard $(NPM_DIR)/src/*.ts $(NPM_DIR)/src/integrations/*.ts $(NPM_DIR)/examples/*.mts $(NPM_DIR)/test/*.cts) $(NPM_DIR)/package.json $(NPM_DIR)/tsconfig.json $(NPM_DIR)/tsconfig.examples.json

$(NPM_DIR)/node_modules/.package-lock.json: $(NPM_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "npm is needed for the npm package (install Node >= 18)" >&2; exit 1; }
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error

$(NPM_DIR)/dist/cjs/index.js: $(NPM_SOURCES) $(NPM_DIR)/node_modules/.package-lock.json
	cd $(NPM_DIR) && rm -rf dist build && node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/tsc -p tsconfig.examples.json
	touch $@

npm: $(NPM_DIR)/dist/cjs/index.js ## the npm package @hookexec/node: npm/node/dist (tsc --strict), its examples in npm/node/build

test-npm: npm $(CLI) $(OTELCOL) ## the npm package's node --test suite (telemetry to the real collector), its TypeScript consumer (tsc --strict) and the AutoAgent/autohand/mycode examples, against the real binary; then npm pack from a clean copy, installed into a fresh project
	cd $(NPM_DIR) && HOOKEXEC_BIN=$(CURDIR)/$(CLI) HOOKEXEC_OTELCOL=$(CURDIR)/$(OTELCOL) HOOKEXEC_REQUIRE_COLLECTOR=1 node --test test/
	HOOKEXEC_BIN=$(CURDIR)/$(CLI) tests/npm/pack.sh

docs: $(VENV)/.installed ## the documentation site (MkDocs Material) into build/site; --strict: a broken link or anchor fails
	$(VENV)/bin/mkdocs build --strict --quiet --site-dir $(CURDIR)/$(BUILD)/site

test-docs: docs $(CLI) $(LIB) $(PYVERSION) ## the docs site builds strictly, and every code example in docs/ is run, names its test or says why not
	$(PYTHON) tests/docs/examples.py

# The fake model API (Anthropic Messages, Chat Completions, Responses, Gemini) the framework
# tests and examples run against (tests/live/fakeapi).
$(BUILD)/fakeapi: $(shell find tests/live/fakeapi -name "*.go" -not -name "*_test.go")
	$(GO) build -o $@ ./tests/live/fakeapi/cmd/fakeapi

# Every framework adapter (pybind/hookexec/integrations, npm/node/src/integrations) against the
# real framework at its pinned version, cached (examples/frameworks/env.sh), and its example.
FRAMEWORKS ?=
test-frameworks: $(LIB) $(CLI) $(BUILD)/fakeapi npm ## the agent framework adapters against the real frameworks (pinned, cached venvs / node_modules) and a fake model on 127.0.0.1; FRAMEWORKS="langchain ..." picks some
	FRAMEWORKS="$(FRAMEWORKS)" tests/frameworks/run.sh

# The live suite runs from its directory (its vectors are relative); the test binary is run
# directly so its report (one line per vector, then the totals) is printed even when it passes.
test-claude: ## Claude Code live conformance: the pinned binary (tests/live/versions.json, cached) vs hookexec on every vector
	$(GO) test -c -o $(BUILD)/live-claude.test ./tests/live/claude
	cd tests/live/claude && HOOKEXEC_LIVE_CLAUDE=1 $(CURDIR)/$(BUILD)/live-claude.test -test.count=1 $(if $(V),-test.v)

test-claude-dispatch: $(CLI) $(BUILD)/hookexec-hook ## test-dispatch for Claude Code only
	$(MAKE) test-dispatch DISPATCH_AGENTS=claude

# One agent's dispatch run as a target of its own, which make -j can run beside another
# suite (CI_LIVE); its prerequisites are built before, so two never build them at once.
test-dispatch-%: $(CLI) $(BUILD)/hookexec-hook $(OTELCOL) ## test-dispatch for one agent: test-dispatch-gemini
	$(MAKE) --no-print-directory test-dispatch DISPATCH_AGENTS=$*

# Dispatch mode of the live suites (tests/live/suite/dispatch.go): each vector through the real
# agent natively (checked against the engine, as make test-<agent> does) and with hookexec
# installed (the C client, the dispatcher and one daemon for the run); the two must agree.
# With DISPATCH_TELEMETRY=1 (the default; empty turns it off) the dispatched runs export to one
# real collector and every fire the dispatcher served must have arrived as its span
# (tests/live/suite/telemetry.go): the daemon's telemetry for every agent it serves.
DISPATCH_AGENTS ?= claude gemini codex qwen auggie copilot cline droid
DISPATCH_TELEMETRY ?= 1
test-dispatch: $(CLI) $(BUILD)/hookexec-hook $(OTELCOL) ## every live suite natively and through hookexec install (Claude Code, Gemini CLI, Codex, Qwen Code, auggie, Copilot CLI, Cline, Factory Droid), telemetry on: the agent must do the same, every served fire its span
	@status=0; for a in $(DISPATCH_AGENTS); do \
		gate=$$(echo $$a | tr a-z A-Z); \
		$(GO) test -c -o $(BUILD)/live-$$a.test ./tests/live/$$a || { status=1; continue; }; \
		( cd tests/live/$$a && env HOOKEXEC_LIVE_$$gate=1 HOOKEXEC_LIVE_DISPATCH=1 HOOKEXEC_BIN=$(CURDIR)/$(CLI) \
			HOOKEXEC_LIVE_TELEMETRY=$(DISPATCH_TELEMETRY) HOOKEXEC_OTELCOL=$(CURDIR)/$(OTELCOL) HOOKEXEC_REQUIRE_COLLECTOR=1 \
			$(CURDIR)/$(BUILD)/live-$$a.test -test.count=1 $(if $(V),-test.v) ) || status=1; \
	done; exit $$status

# Telemetry mode (tests/live/suite/telemetry.go): the Claude Code suite through the dispatcher
# (as test-dispatch runs it) with telemetry on to one real collector for the run and Claude
# Code's own tracing on: every fire the dispatcher served (its audit log) must be one the
# agent fired on an event install gave a dispatcher entry, and must reach the collector as its
# span, a child of the span Claude Code exported. CI runs it in place of Claude Code's plain
# dispatch run. TELEMETRY_VECTORS (a regexp of vector names) narrows it; TELEMETRY_TRACE=FILE
# keeps the traces file as the collector's file exporter wrote it.
TELEMETRY_VECTORS ?=
test-claude-telemetry: $(CLI) $(BUILD)/hookexec-hook $(OTELCOL) ## Claude Code through the dispatcher with telemetry on to a real collector, every fire's span checked (TELEMETRY_VECTORS="regexp" narrows it)
	$(GO) test -c -o $(BUILD)/live-claude.test ./tests/live/claude
	cd tests/live/claude && env HOOKEXEC_LIVE_CLAUDE=1 HOOKEXEC_LIVE_DISPATCH=1 HOOKEXEC_LIVE_TELEMETRY=agent \
		HOOKEXEC_LIVE_TELEMETRY_TRACE=$(if $(TELEMETRY_TRACE),$(abspath $(TELEMETRY_TRACE))) HOOKEXEC_BIN=$(CURDIR)/$(CLI) \
		HOOKEXEC_OTELCOL=$(CURDIR)/$(OTELCOL) HOOKEXEC_REQUIRE_COLLECTOR=1 \
		$(CURDIR)/$(BUILD)/live-claude.test -test.count=1 $(if $(TELEMETRY_VECTORS),-test.run 'TestClaudeLive/^($(TELEMETRY_VECTORS))$$') $(if $(V),-test.v)

# Gemini CLI, Codex and Qwen Code: the same shape as test-claude (tests/live/suite).
live = $(GO) test -c -o $(BUILD)/live-$(1).test ./tests/live/$(1) && \
	cd tests/live/$(1) && HOOKEXEC_LIVE_$(2)=1 $(CURDIR)/$(BUILD)/live-$(1).test -test.count=1 $(if $(V),-test.v)

test-gemini: ## Gemini CLI live conformance: the pinned gemini (tests/live/versions.json, cached) vs hookexec on every vector
	$(call live,gemini,GEMINI)

test-codex: ## Codex live conformance: the pinned codex exec vs hookexec on every vector
	$(call live,codex,CODEX)

test-qwen: ## Qwen Code live conformance: the pinned qwen vs hookexec on every vector
	$(call live,qwen,QWEN)

# Drift: every live suite against its agent's newest npm release instead of its pin, and a
# report of what changed (tests/live/latest.sh; build/live-latest/report.md). Not in make test:
# it follows the registry, so its result changes without a commit.
test-latest: ## every live suite against each agent's newest release on npm (not the pin), and a drift report (vectors, payload fields, events added or removed) in build/live-latest/report.md; LATEST_AGENTS="claude codex" picks some, LATEST_FORCE=1 reruns one whose latest is its pin
	GO=$(GO) tests/live/latest.sh
test-cline: ## Cline CLI live conformance: the pinned cline vs hookexec on every vector (3½ min quiet, 17 min at load 8+)
	$(call live,cline,CLINE)
test-droid: ## Factory Droid live conformance: the pinned droid exec (@factory/cli-linux-x64) vs hookexec on every vector
	$(call live,droid,DROID)
test-auggie: ## Augment auggie live conformance: the pinned auggie --print against a fake of Augment's backend vs hookexec on every vector
	$(call live,auggie,AUGGIE)
test-copilot: ## GitHub Copilot CLI live conformance: the pinned copilot -p (offline, BYOK) vs hookexec on every vector
	$(call live,copilot,COPILOT)
test-opencode: ## opencode live conformance: the pinned opencode run, hookexec reached through the plugin install writes, vs hookexec's engine on every vector
	$(call live,opencode,OPENCODE)

test-kilo: ## Kilo Code live conformance: opencode's suite and vectors (tests/live/opencode) against the pinned @kilocode/cli, through the plugin `install --agent kilo` writes
	$(GO) test -c -o $(BUILD)/live-opencode.test ./tests/live/opencode && \
	cd tests/live/opencode && HOOKEXEC_LIVE_KILO=1 $(CURDIR)/$(BUILD)/live-opencode.test -test.count=1 $(if $(V),-test.v)

test-ci: ## .ci/run on a PATH with only the toolchains: it apt-get installs what make test needs and runs it with HOOKEXEC_REQUIRE_SHELLS=1 (apt-get and make recorded)
	tests/ci/run.sh

test-install: ## install into a temporary prefix, build a C and a C++ host with pkg-config only, uninstall
	tests/install/run.sh

test-c: $(BUILD)/test_capi ## the C test program
	cd tests/c && ../../$(BUILD)/test_capi

test-cpp: $(BUILD)/test_hookexec_hpp $(BUILD)/cpp_host ## the C++ RAII wrapper's tests and the example C++ host
	$(BUILD)/test_hookexec_hpp
	$(BUILD)/cpp_host

test-python: $(LIB) $(CLI) $(PYVERSION) $(VENV)/.installed $(OTELCOL) ## the pytest suite driving the real library (telemetry to the real collector), and mypy --strict on the package
	HOOKEXEC_OTELCOL=$(CURDIR)/$(OTELCOL) HOOKEXEC_REQUIRE_COLLECTOR=1 $(PY) $(PYTHON) -m pytest -q tests/python
	$(PYTHON) -m mypy --strict pybind/hookexec

$(PYVERSION): VERSION
	printf '%s\n\n__version__ = "%s"\n' '"""Written from the repository'"'"'s VERSION file by the build."""' '$(VERSION)' > $@

# Built by build/venv's Python with the setuptools tests/requirements.txt pins (no build
# isolation, so no download; never the host's setuptools, which may be too old for pyproject.toml).
wheel: $(LIB) $(VENV)/.installed ## the Python wheel, libhookexec.so inside, in build/wheel/ (pip install ./pybind's build, with build/venv's pinned setuptools)
	rm -rf $(BUILD)/wheel
	$(PYTHON) -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation --wheel-dir $(BUILD)/wheel ./pybind

test-wheel: wheel ## install the wheel, and pip install ./pybind (an isolated build), each into a fresh venv, and fire from outside the repository
	PYTHON=$(PYTHON) tests/wheel/run.sh

demo: $(LIB) $(PYVERSION) $(VENV)/.installed ## a small Python agent firing real tool events through hookexec, then the cli-agent walkthrough
	$(PY) $(PYTHON) examples/python_agent/agent.py
	@echo
	$(PY) $(PYTHON) examples/cli_agent/walkthrough.py

demo-cli-agent: $(LIB) $(PYVERSION) $(VENV)/.installed ## the cli-agent drop-in walkthrough
	$(PY) $(PYTHON) examples/cli_agent/walkthrough.py

# agentjail's source tree (github.com/LuD1161/agentjail; not on the Go module proxy): when set
# and present, the agent table gains its row (its hook and OPA daemon, the same rm -rf rule).
AGENTJAIL ?=
bench: $(LIB) $(CLI) $(BUILD)/hookexec-hook $(BUILD)/fakeapi npm $(PYVERSION) $(VENV)/.installed ## C spawn floor, Go, Python, fire_async, cli-agent 1.2.6, persistent; how cost grows; then the dispatcher as an agent runs it, a guard's cost per tool call inside the real Claude Code, and a tool call through each framework adapter
	$(PY) $(PYTHON) tests/bench/bench_fire.py
	HOOKEXEC_BIN=$(CURDIR)/$(CLI) $(PYTHON) tests/bench/bench_dispatch.py
	$(GO) run ./tests/bench/agentbench -hookexec $(CLI) -python $(PYTHON) $(if $(wildcard $(AGENTJAIL)/go.mod),-agentjail $(AGENTJAIL))
	FRAMEWORKS="$(FRAMEWORKS)" tests/frameworks/bench.sh

bench-go: ## the Go micro-benchmarks of core/ (go test -bench)
	$(GO) test -run '^$$' -bench . -benchmem ./core/...

FUZZTIME ?= 30s
# package:target pairs `make fuzz` runs; `go test` runs their committed seed corpora.
FUZZ_TARGETS := core/template:FuzzEscapeProperty core/template:FuzzCompile core/template:FuzzShellDiff core/match:FuzzCompile core/match:FuzzRule core/match:FuzzIfRuleShell \
	core/config:FuzzLoad core/decide:FuzzRead core/trust:FuzzAnalyse core/dialect:FuzzAgentDialects \
	core/decide:FuzzReadGemini core/decide:FuzzReadCodex core/decide:FuzzReadQwen \
	core/dialect:FuzzGeminiSettings core/dialect:FuzzCodexHooks core/dialect:FuzzQwenSettings \
	core/convert:FuzzConvert core/adapt:FuzzPayload core/adapt:FuzzRead core/engine:FuzzTemplatedAnswer core/audit:FuzzVerify \
	core/policy/rego:FuzzEval core/policy/rego:FuzzParseInput \
	core/policy:FuzzCELEval core/match:FuzzCommandWordsShell core/stats:FuzzRead
STRESS_FIRES ?= 100000

stress: $(LIB) $(PYVERSION) $(VENV)/.installed ## the long forms: fault catalogue 20x with overshoot figures, then a soak of $(STRESS_FIRES) fires from 8 threads through the .so
	cd tests/faults && $(GO) test -count=1 -run TestFaults -faults.rounds=20  # directory mode prints the figures
	HOOKEXEC_LIBRARY=$(CURDIR)/$(LIB) $(PYTHON) tests/stress/soak.py --fires $(STRESS_FIRES) --threads 8

# Lines of the if-rule grammar the long form runs under bash (TestIfRuleShell, seeded).
IFRULE_LINES ?= 3000

fuzz: ## each fuzz target for FUZZTIME (default 30s), then $(IFRULE_LINES) if-rule lines under bash; new failing inputs land in testdata/fuzz
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $${t%%:*} $${t##*:} for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) ./$${t%%:*}; \
	done
	@echo "== the payload through the installed dispatcher (4 agents, with and without a daemon) and adapt (7 targets), long form"
	@set -o pipefail; $(GO) test -count=1 -v -run '^(TestInstalledDispatcherFuzz|TestAdaptPayloadFuzz)$$' ./cmd/hookexec -payloadfuzz.long | grep -E 'payloads|findings|^(--- FAIL|FAIL|ok)'
	@echo "== core/match TestIfRuleShell long form ($(IFRULE_LINES) generated lines under bash)"
	$(GO) test -count=1 -v -run '^TestIfRuleShell$$' ./core/match -ifrule.lines=$(IFRULE_LINES) -ifrule.seed=$$(date +%s)
	@echo "== core/template TestShellDiff long form (every value, generating) for $(FUZZTIME)"
	$(GO) test -count=1 -timeout 0 -run '^TestShellDiff$$' -v ./core/template -shelldiff.time=$(FUZZTIME)

# make install PREFIX=/usr/local DESTDIR=: the shared library (SONAME libhookexec.so.MAJOR and
# its links), the static library, both headers and a pkg-config file.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALLED := $(LIBDIR)/libhookexec.so.$(VERSION) $(LIBDIR)/$(SONAME) $(LIBDIR)/libhookexec.so $(LIBDIR)/libhookexec.a \
	$(INCLUDEDIR)/hookexec.h $(INCLUDEDIR)/hookexec.hpp $(PKGCONFIGDIR)/hookexec.pc

install: $(LIB) $(ARCHIVE) ## install the C library, headers and hookexec.pc (PREFIX=/usr/local, DESTDIR)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(LIB_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf libhookexec.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libhookexec.so
	install -m 644 $(ARCHIVE) $(DESTDIR)$(LIBDIR)/
	install -m 644 include/hookexec.h include/hookexec.hpp $(DESTDIR)$(INCLUDEDIR)/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
		'Name: hookexec' 'Description: Hook engine for AI agents: runs the hooks users attach to lifecycle events' \
		'URL: https://github.com/hookexec/hookexec' 'Version: $(VERSION)' \
		'Libs: -L$${libdir} -lhookexec' 'Libs.private: -pthread' 'Cflags: -I$${includedir}' \
		> $(DESTDIR)$(PKGCONFIGDIR)/hookexec.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/hookexec.pc

uninstall: ## remove exactly what make install put there (same PREFIX, DESTDIR)
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(PKGCONFIGDIR) 2>/dev/null

version: ## copy VERSION into include/hookexec.h, core/version and npm/node/package.json (tests check that they agree)
	@IFS=. read -r ma mi pa <<<"$(VERSION)"; \
	sed -i -e "s/^#define HOOKEXEC_VERSION_MAJOR .*/#define HOOKEXEC_VERSION_MAJOR $$ma/" \
	       -e "s/^#define HOOKEXEC_VERSION_MINOR .*/#define HOOKEXEC_VERSION_MINOR $$mi/" \
	       -e "s/^#define HOOKEXEC_VERSION_PATCH .*/#define HOOKEXEC_VERSION_PATCH $$pa/" \
	       -e "s/^#define HOOKEXEC_VERSION \".*/#define HOOKEXEC_VERSION \"$(VERSION)\"/" \
	       -e "s/^#define HOOKEXEC_VERSION_NUMBER .*/#define HOOKEXEC_VERSION_NUMBER $$((ma * 1000000 + mi * 1000 + pa))/" include/hookexec.h; \
	sed -i -e 's/^const Version = .*/const Version = "$(VERSION)"/' core/version/version.go
	sed -i -e '0,/"version": ".*"/s//"version": "$(VERSION)"/' $(NPM_DIR)/package.json
	$(MAKE) -s $(PYVERSION)

clean: ## remove build outputs
	rm -rf $(BUILD) pybind/build pybind/hookexec.egg-info $(PYVERSION) $(NPM_DIR)/dist $(NPM_DIR)/build $(NPM_DIR)/LICENSE dist site
include packaging/release.mk
