# TracedIR: the two commands are `make demo` and `make check`.
# Every target first installs the Debian packages it needs (apt-get when run
# as root, otherwise it prints the command to run).

LLVM_DIR   ?= /usr/lib/llvm-22
BUILD_DIR  ?= build
PYTHON     ?= /usr/bin/python3
JOBS       ?= $(shell nproc)
# pytest's workers in `make check` (pytest-xdist): the suite is CPU-bound
# and each test runs alone in a worker; 1 runs it in one process.
TEST_JOBS  ?= $(JOBS)

BUILD_PACKAGES := cmake ninja-build llvm-22-dev libmlir-22-dev mlir-22-tools libomp-22-dev \
                  llvm-22-tools clang-22 lld-22 python3 python3-dev pybind11-dev \
                  python3-numpy python3-pytest python3-pytest-xdist python3-torch python3-torchvision \
                  libopenblas0-pthread libopenblas-dev libclang-rt-22-dev graphviz \
                  chromium python3-onnx libonnx-testdata \
                  python3-pip python3-venv python3-setuptools python3-wheel

.PHONY: all deps build check check-large demo docs aten clean screenshots check-onnx-models check-onnx-ort \
        build-asan check-asan check-asan-lit fuzz-smoke fuzz-long \
        wheel check-wheel

all: build

deps:
	@missing=""; \
	for p in $(BUILD_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing:$$missing"; \
	    apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "Missing Debian packages. Run:"; \
	    echo "  sudo apt-get install -y --no-install-recommends$$missing"; \
	    exit 1; \
	  fi; \
	fi

$(BUILD_DIR)/build.ninja: CMakeLists.txt Makefile | deps
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=$(LLVM_DIR)/bin/clang \
	  -DCMAKE_CXX_COMPILER=$(LLVM_DIR)/bin/clang++ \
	  -DLLVM_USE_LINKER=lld \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DTRACED_PYTHON_EXECUTABLE=$(PYTHON)

build: deps $(BUILD_DIR)/build.ninja
	ninja -C $(BUILD_DIR) -j $(JOBS)

# The sanitizer build (docs/reliability.md): AddressSanitizer and
# UndefinedBehaviorSanitizer through LLVM's own CMake switches, plus
# libFuzzer's coverage instrumentation, so that the one folder serves
# `check-asan` and the fuzz targets (tools/fuzz).
ASAN_DIR   ?= build-asan
ASAN_RT    := $(LLVM_DIR)/lib/clang/22/lib/linux/libclang_rt.asan-x86_64.so
# libMLIR.so and torch are not instrumented. LLVM's headers poison and
# unpoison BumpPtrAllocator slabs in instrumented code only, so an
# attribute libMLIR.so allocates in such a slab would read as poisoned:
# user poisoning is off (ASan still checks every heap, stack and global
# access). Leaks are checked in the lit half (the C++ tools); Python runs
# with the ASan runtime preloaded, as a sanitized extension module needs.
UBSAN_ENV  := UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ASAN_ENV   := ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0 $(UBSAN_ENV)
FUZZERS    := parse bytecode json npy interpret diff
# The bytecode target reads each input through the sandbox the loaders use
# (docs/reliability.md, "Untrusted input"): MLIR 22's reader crashes and
# hangs on corrupt files within a few hundred executions, in the child.
SMOKE_FUZZERS := parse bytecode json npy interpret diff onnx

$(ASAN_DIR)/build.ninja: CMakeLists.txt Makefile | deps
	cmake -G Ninja -S . -B $(ASAN_DIR) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=$(LLVM_DIR)/bin/clang \
	  -DCMAKE_CXX_COMPILER=$(LLVM_DIR)/bin/clang++ \
	  -DLLVM_USE_LINKER=lld \
	  -DLLVM_USE_SANITIZER="Address;Undefined" \
	  -DLLVM_USE_SANITIZE_COVERAGE=ON \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DTRACED_PYTHON_EXECUTABLE=$(PYTHON)

build-asan: deps $(ASAN_DIR)/build.ninja
	ninja -C $(ASAN_DIR) -j $(JOBS)

# The lit suite under ASan and UBSan (part of `make check`), then the pytest
# suite on $(TEST_JOBS) workers (`make check-asan`; docs/reliability.md has
# its times).
check-asan-lit: build-asan
	$(call STAMP,sanitizer lit)
	ASAN_OPTIONS=allow_user_poisoning=0 $(UBSAN_ENV) ninja -C $(ASAN_DIR) check-traced

check-asan: check-asan-lit
	$(ASAN_ENV) LD_PRELOAD=$(ASAN_RT) PYTHONPATH=$(ASAN_DIR)/python \
	  $(PYTHON) -m pytest -q -n $(TEST_JOBS) -p no:cacheprovider python/tests

# Each fuzz target for a fixed number of executions (about 20 s each;
# seed 1, seeds made from test/; diff: 1,000 fixed random choice streams,
# repeatable where the mutating run was not), part of `make check`;
# `make fuzz-long FUZZ_RUNS=1000000` for the long runs (docs/reliability.md).
fuzz-smoke: build-asan
	$(PYTHON) tools/fuzz/run.py --build $(ASAN_DIR) --smoke $(SMOKE_FUZZERS)

FUZZ_RUNS ?= 1000000
fuzz-long: build-asan
	$(PYTHON) tools/fuzz/run.py --build $(ASAN_DIR) --runs $(FUZZ_RUNS) --seconds 3600 $(FUZZERS)

# Each step of `make check` prints the time it starts (CI's log then shows
# where the time goes; docs/reliability.md).
STAMP = @echo "== make check, $$(date +%T): $(1)"

check: build
	$(call STAMP,lit)
	ninja -C $(BUILD_DIR) check-traced
	$(call STAMP,pytest)
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) -m pytest -q -n $(TEST_JOBS) --durations=30 python/tests
	$(call STAMP,layering and function sizes; generated files up to date)
	$(PYTHON) tools/check_layers.py
	$(PYTHON) tools/check_function_size.py
	ninja -C $(BUILD_DIR) traced-doc
	@PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) lib/OpLibrary/gen_aten_overloads.py \
	  | cmp -s - lib/OpLibrary/AtenOverloads.inc \
	  || { echo "lib/OpLibrary/AtenOverloads.inc is stale: run 'make aten'"; exit 1; }
	@for f in TracedDialect TracedPasses TracedConversionPasses; do \
	  cmp -s $(BUILD_DIR)/docs/Traced/$$f.md docs/reference/$$f.md \
	    || { echo "docs/reference/$$f.md is stale: run 'make docs'"; exit 1; }; \
	done
	$(call STAMP,sanitizer build)
	$(MAKE) check-asan-lit
	$(call STAMP,fuzz smoke)
	$(MAKE) fuzz-smoke
	$(call STAMP,done)

# Tests too big for `make check` (a model with 256 MiB of weights, compiled
# by the JIT and into a shared library): ~2 GiB of memory, about a minute.
check-large: build
	TRACED_LARGE_TESTS=1 PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) -m pytest -q \
	  python/tests/test_compile_crashes.py

demo: build
	@echo "== seed 000's SimpleModule, parsed and verified by traced-opt =="
	$(BUILD_DIR)/bin/traced-opt docs/examples/simple_module.mlir
	@echo
	@echo "== the same module printed like TracedModule's InternalGraph =="
	$(BUILD_DIR)/bin/traced-translate --traced-to-graph-text docs/examples/simple_module.mlir
	@echo
	@echo "== seed 000's SimpleModule compiled for this CPU and run (traced-translate --run) =="
	$(PYTHON) -c "import numpy as np; np.save('$(BUILD_DIR)/demo_x.npy', np.arange(12, dtype=np.float32).reshape(3, 4) / 4)"
	$(BUILD_DIR)/bin/traced-translate --run docs/examples/simple_module.mlir --run-input=$(BUILD_DIR)/demo_x.npy --run-output=$(BUILD_DIR)/demo_out
	@echo
	@echo "== torchvision resnet18: trace, surgery, compile, run, compare =="
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) bench/demo.py

# `pip install .`'s wheel (docs/python.md, "pip install"): setup.py builds
# the extension and the tools with this CMake build in build-pip/ (never
# $(BUILD_DIR)), offline with Debian's setuptools and wheel; the wheel goes
# to $(WHEEL_DIR). `check-wheel` installs it into a fresh venv (with the
# system's torch) and traces, compiles and runs resnet18 from outside the
# source tree (tools/check_wheel.py). Not part of `make check`: a second
# full build when build-pip/ is cold.
WHEEL_DIR  ?= dist

wheel: deps
	@start=$$(date +%s); rm -f $(WHEEL_DIR)/traced-*.whl; \
	TRACED_PIP_JOBS=$(JOBS) $(PYTHON) -m pip wheel --no-cache-dir --no-build-isolation --no-deps \
	  -w $(WHEEL_DIR) . \
	  && echo "== make wheel: $$(ls $(WHEEL_DIR)/traced-*.whl) in $$(( $$(date +%s) - start )) s"

check-wheel: wheel
	@start=$$(date +%s); tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON) -m venv --system-site-packages "$$tmp/venv" \
	  && "$$tmp/venv/bin/pip" install -q --no-build-isolation --no-index $(WHEEL_DIR)/traced-*.whl \
	  && (cd "$$tmp" && "$$tmp/venv/bin/python" $(CURDIR)/tools/check_wheel.py \
	        $(CURDIR)/docs/examples/simple_module.mlir) \
	  && echo "== make check-wheel: installed and checked in $$(( $$(date +%s) - start )) s"

# Regenerates the ATen overloads of the op library from torch's schema
# registry (then rebuild, and `make docs`).
aten: build
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) lib/OpLibrary/gen_aten_overloads.py > lib/OpLibrary/AtenOverloads.inc.new
	mv lib/OpLibrary/AtenOverloads.inc.new lib/OpLibrary/AtenOverloads.inc
	ninja -C $(BUILD_DIR) -j $(JOBS)

# Regenerates the references in docs/reference/ from ODS and the op library.
docs: build
	ninja -C $(BUILD_DIR) traced-doc
	mkdir -p docs/reference
	cp $(BUILD_DIR)/docs/Traced/TracedDialect.md docs/reference/TracedDialect.md
	cp $(BUILD_DIR)/docs/OpLibrary.md docs/reference/OpLibrary.md
	cp $(BUILD_DIR)/docs/Traced/TracedPasses.md docs/reference/TracedPasses.md
	cp $(BUILD_DIR)/docs/Traced/TracedConversionPasses.md docs/reference/TracedConversionPasses.md
	PYTHONPATH=$(BUILD_DIR)/python:python/tests $(PYTHON) -W ignore python/tests/op_db.py --table > docs/reference/op_db.md
	$(BUILD_DIR)/bin/traced-translate --traced-onnx-doc /dev/null > docs/reference/onnx_ops.md
	PYTHONPATH=$(BUILD_DIR)/python:python/tests $(PYTHON) -W ignore python/tests/onnx_node.py --table > docs/reference/onnx_node.md

# Every torchvision classification model through ONNX both ways, at
# 224x224 (docs/onnx.md, "Conformance"; about an hour on a 2-core machine).
check-onnx-models: build
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) -W ignore tools/onnx_round_trip.py

# ONNX Runtime (npm's onnxruntime-node, installed into build/ort; needs
# nodejs and npm and the npm registry) runs the models to_onnx exports,
# against torch (docs/onnx.md, "Conformance"). Optional: not in `make check`.
ORT_VERSION ?= 1.17.0
check-onnx-ort: build
	@command -v npm >/dev/null || { echo "check-onnx-ort needs nodejs and npm (apt-get install nodejs npm)"; exit 1; }
	mkdir -p $(BUILD_DIR)/ort
	test -d $(BUILD_DIR)/ort/node_modules/onnxruntime-node || \
	  (cd $(BUILD_DIR)/ort && npm install --no-audit --no-fund onnxruntime-node@$(ORT_VERSION))
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) -W ignore tools/onnx_ort_check.py --ort $(BUILD_DIR)/ort

# Regenerates the graph explorer's screenshots in docs/images (headless
# Chromium; python/tests/test_view.py checks the page in `make check`).
screenshots: build
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) tools/view_screenshots.py --out docs/images

clean:
	rm -rf $(BUILD_DIR)
