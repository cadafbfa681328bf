# Front door. `make` builds build/bin/infer8; `make test` runs every test; `make demo` runs the
# main job on an embedded default. test and demo install the Debian packages first (idempotent).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure test demo install clean test-asan fuzz fuzz-deps

all: configure
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/install-deps.sh

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

test: deps all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: deps all
	@scripts/demo.sh $(BUILD)/bin/infer8

install: all
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX),)

# The whole suite under ASan + UBSan (CUDA off). It reuses the plain build's synth snapshots
# (deterministic bytes; synth under ASan is slow) and INFER8_TEST_QUICK=1 picks smaller inputs
# in the heaviest tests (docs/reliability.md).
test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINFER8_SANITIZE=ON -DINFER8_CUDA=OFF
	cmake --build build-asan -j $(JOBS)
	cd build-asan && INFER8_SNAPSHOTS=$(abspath $(BUILD))/testwork/snapshots INFER8_TEST_QUICK=1 \
	  ctest --output-on-failure -j $(JOBS) -E '$(ASAN_SKIP)'

# Left out under the sanitizers to keep CI within 90 minutes on 2 cores (the plain `make test`
# runs them): oneDNN's JIT kernels are not instrumented anyway, the bundle round trip builds and
# runs inception_resnet_v2 twice (the bundle reader is covered by unit/test_bundle and the fuzz
# regressions), test_synth re-synthesizes three models, and valgrind cannot run beside ASan.
ASAN_SKIP ?= unit/test_onednn_backend|cli/test_bundle_roundtrip|cli/test_synth|cli/test_valgrind

# libFuzzer targets (fuzz/*.c) with ASan+UBSan, each run FUZZ_SECONDS (default 60) on seeds the
# project writes (fuzz/make-seeds.sh) plus the regression inputs. Optional deps: clang.
FUZZ_SECONDS ?= 60
fuzz-deps:
	@scripts/install-fuzz-deps.sh

fuzz: deps fuzz-deps all
	fuzz/build.sh build-fuzz
	fuzz/make-seeds.sh $(BUILD) build-fuzz/seeds
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh build-fuzz build-fuzz/seeds

clean:
	rm -rf $(BUILD) build-asan build-fuzz
