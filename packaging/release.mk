# Release artifacts (included by the Makefile): the CLI for five platforms, libhookexec.so for
# two Linux ABIs built with zig cc, wheels and an sdist, archives with checksums, .deb and
# .rpm packages (nfpm), a Homebrew formula and the npm packages, all into dist/.
# A Makefile and nfpm rather than GoReleaser: the library is cgo built with zig for an old
# glibc and for arm64, then packed into wheels and npm packages, steps GoReleaser would only
# call out to; the module proxy does serve nfpm, which builds both package formats in Go.
.PHONY: tools wheels sdist release-snapshot test-release

DIST := dist
TOOLS := $(BUILD)/tools
TOOLS_PY := $(CURDIR)/$(TOOLS)/venv/bin/python
NFPM := $(CURDIR)/$(TOOLS)/bin/nfpm
NFPM_VERSION := v2.41.3
ZIG := $(TOOLS_PY) -m ziglang
CROSS := $(BUILD)/cross

$(TOOLS)/venv/.installed: packaging/requirements.txt
	rm -rf $(TOOLS)/venv
	$(HOST_PYTHON) -m venv $(TOOLS)/venv
	$(TOOLS)/venv/bin/python -m pip install --quiet --disable-pip-version-check -r packaging/requirements.txt
	touch $@

$(NFPM):
	GOBIN=$(CURDIR)/$(TOOLS)/bin $(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)

tools: $(TOOLS)/venv/.installed $(NFPM) ## the release tools: zig (PyPI ziglang), auditwheel, build, nfpm, in build/tools

# libhookexec.so per Linux ABI: <name> → GOARCH, zig target; and the wheel platform tag of each.
# No musllinux: zig builds one (x86_64-linux-musl), but a Go c-shared library crashes at load
# under musl (docs/install.md says what was tried), and an untested wheel is not shipped.
LIB_ABIS := linux-amd64-gnu linux-arm64-gnu
ABI_linux-amd64-gnu := amd64 x86_64-linux-gnu.2.17
ABI_linux-arm64-gnu := arm64 aarch64-linux-gnu.2.17
WHEEL_TAGS := linux-amd64-gnu:manylinux_2_17_x86_64.manylinux2014_x86_64 linux-arm64-gnu:manylinux_2_17_aarch64.manylinux2014_aarch64

$(CROSS)/%/libhookexec.so: $(GO_SOURCES) $(C_SOURCES) capi/exports.map VERSION | $(TOOLS)/venv/.installed
	@mkdir -p $(@D)
	ZIG="$(ZIG)" ZIG_TARGET=$(word 2,$(ABI_$*)) CC=$(CURDIR)/packaging/zigcc CGO_ENABLED=1 GOOS=linux GOARCH=$(word 1,$(ABI_$*)) \
		$(GO) build -trimpath -buildmode=c-shared \
		-ldflags='-s -w -extldflags=-Wl,--version-script=$(CURDIR)/capi/exports.map,-soname,$(SONAME)' -o $@ ./capi
	@rm -f $(@D)/libhookexec.h

# The command: pure Go, so plain cross-compilation (the Windows one is named .exe when packed).
CLI_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
$(CROSS)/cli/%/hookexec: $(GO_SOURCES)
	@mkdir -p $(@D)
	CGO_ENABLED=0 GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) \
		$(GO) build -trimpath -ldflags='-s -w' -o $@ ./cmd/hookexec

CLI_BINS := $(foreach p,$(CLI_PLATFORMS),$(CROSS)/cli/$(subst /,-,$(p))/hookexec)
CROSS_LIBS := $(foreach a,$(LIB_ABIS),$(CROSS)/$(a)/libhookexec.so)

wheels: $(CROSS_LIBS) $(PYVERSION) | $(TOOLS)/venv/.installed ## manylinux2014 (glibc 2.17) x86_64 and aarch64 wheels (zig cc), checked with auditwheel, into dist/python
	@rm -rf $(DIST)/python/*.whl; mkdir -p $(DIST)/python
	@set -e; for pair in $(WHEEL_TAGS); do \
		abi=$${pair%%:*}; tag=$${pair#*:}; echo "== wheel $$tag"; rm -rf pybind/build; \
		HOOKEXEC_PREBUILT_LIBRARY=$(CURDIR)/$(CROSS)/$$abi/libhookexec.so HOOKEXEC_PLATFORM_TAG=$$tag \
			$(TOOLS_PY) -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir $(DIST)/python ./pybind; \
	done
	rm -rf pybind/build
	packaging/check-wheels.sh $(TOOLS_PY) $(DIST)/python

sdist: $(PYVERSION) | $(TOOLS)/venv/.installed ## the Python sdist: the package plus the Go sources (modules vendored) it builds from, into dist/python
	packaging/sdist.sh $(TOOLS_PY) $(DIST)/python

release-snapshot: $(CLI_BINS) $(CROSS_LIBS) $(NFPM) npm wheels sdist ## everything a release publishes, into dist/: archives, checksums, .deb/.rpm, Homebrew formula, npm packages, wheels, sdist
	packaging/release.sh $(DIST) $(CROSS) $(NFPM)

test-release: release-snapshot ## smoke-test dist/: wheels (x86_64 venv, aarch64 under qemu), sdist, .deb in a clean root, arm64 CLI under qemu, npm packages (docs/install.md: what could not be run here)
	tests/release/run.sh $(DIST)
