# Front door. `make` builds build/bin/infer8; `make test` runs every test; `make demo` runs the
# main job on an embedded default. test and demo install the Debian packages first (idempotent).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure test demo install clean test-asan

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

test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DINFER8_SANITIZE=ON -DINFER8_CUDA=OFF
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) build-asan
