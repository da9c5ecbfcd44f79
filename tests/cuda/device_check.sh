#!/usr/bin/env bash
# The GPU check: everything in dlarray that needs an NVIDIA GPU, in one
# command, on a machine with no network and no nox (tests/cuda/README.md).
#
#   bash tests/cuda/device_check.sh [OUTDIR]      (default OUTDIR: ./device-check)
#
# 1. Is a GPU visible?  Asked of the driver (libcuda) through ctypes, before
#    anything is built: without one the script prints "no NVIDIA GPU visible"
#    and exits 3 within seconds.
# 2. Wheels carried with the tree in .whl/ (array-api-compat: the GPU image
#    lacks it) are installed into a temporary folder put on PYTHONPATH.
# 3. The C core is built in place (setup.py build_ext --inplace).
# 4. What the GPU is: nvidia-smi, and what dlarray, CuPy, PyTorch and JAX see.
# 5. The whole test suite with pytest-xdist: tests/cuda (memory, managed and
#    pinned memory, copies, streams, the namespace on CUDA through CuPy, the
#    exchange table with PyTorch on CUDA), tests/interop (CuPy, PyTorch and
#    JAX on CUDA among them), and everything else, which must pass there too.
# 6. The CUDA benchmark (benchmarks/bench_cuda.py --quick).
# 7. One report, OUTDIR/report.md (also printed): the GPU, the versions,
#    pass/fail/skip counts, each failure with its traceback, the benchmark.
#
# Exit status: 0 all passed, 1 a test failed, the benchmark broke or no
# test of tests/cuda passed (the GPU went unused),
# 2 the build failed, 3 no NVIDIA GPU visible.
#
# Environment: DLARRAY_PYTHON (default python3); DLARRAY_CHECK_WORKERS
# (pytest-xdist workers, default 8); DLARRAY_CHECK_TESTS (what pytest runs,
# default "tests"); DLARRAY_CHECK_ASSUME_GPU=1 skips step 1 (to try the rest
# of the script on a machine without a GPU, where the GPU tests skip).
set -uo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/device-check}"
python="${DLARRAY_PYTHON:-python3}"
workers="${DLARRAY_CHECK_WORKERS:-8}"
started=$(date +%s)

# ---- 1. a GPU, asked of the driver itself (no build, no CUDA package) ----
if [ "${DLARRAY_CHECK_ASSUME_GPU:-0}" != 1 ]; then
    if ! timeout 45 "$python" - <<'EOF'
import ctypes, sys
try:
    cuda = ctypes.CDLL("libcuda.so.1")
except OSError:
    sys.exit(1)  # no driver
count = ctypes.c_int(0)
if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
    sys.exit(1)  # a driver, but no usable device
sys.exit(0 if count.value > 0 else 1)
EOF
    then
        echo "no NVIDIA GPU visible (no CUDA driver, or it reports no device): nothing to check"
        exit 3
    fi
fi

mkdir -p "$out"
log="$out/log.txt"
: >"$log"
say() { echo "device_check: $*" | tee -a "$log"; }
cd "$root" || exit 2

# ---- 2. carried wheels ----
if compgen -G ".whl/*.whl" >/dev/null; then
    site="$(mktemp -d)/site"
    say "installing the carried wheels: $(cd .whl && echo *.whl)"
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        --upgrade --target "$site" .whl/*.whl >>"$log" 2>&1 || say "warning: a carried wheel failed to install"
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"  # the in-place build
export PYTHONUNBUFFERED=1
# JAX takes 75% of the GPU when it first touches it, in every process (each
# pytest-xdist worker, the benchmark): it allocates as it goes instead.
export XLA_PYTHON_CLIENT_PREALLOCATE=false

# ---- 3. build in place ----
say "building the C core in place"
if ! "$python" setup.py -q build_ext --inplace >>"$log" 2>&1; then
    say "the build failed; its output is in $log"
    tail -n 40 "$log"
    exit 2
fi

# ---- 4. what the GPU is ----
{
    echo "## The machine"
    echo
    echo '```'
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1
    else
        echo "nvidia-smi: not on PATH"
    fi
    "$python" - <<'EOF' 2>&1
import importlib, platform
import dlarray
from dlarray._cuda.runtime import runtime
print("python", platform.python_version(), "| dlarray", dlarray.__version__)
try:
    rt = runtime()
    print("dlarray sees", rt.device_count(), "GPU(s):", dlarray.__array_namespace_info__().devices())
except Exception as exc:  # the report says why, the tests fail on it
    print("dlarray cannot reach the GPU:", type(exc).__name__, exc)
for name, probe in (("numpy", None), ("cupy", "cupy.cuda.runtime.getDeviceCount()"),
                    ("torch", "torch.cuda.is_available()"), ("jax", "jax.devices()"),
                    ("array_api_compat", None), ("cuda.bindings", None), ("ml_dtypes", None)):
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        print(f"{name}: not importable ({type(exc).__name__}: {exc})")
        continue
    seen = ""
    if probe:
        try:
            seen = f" | sees: {eval(probe, {name.split('.')[0]: module})}"
        except Exception as exc:
            seen = f" | GPU probe failed: {type(exc).__name__}: {exc}"
    print(f"{name} {getattr(module, '__version__', '?')}{seen}")
EOF
    echo '```'
} >"$out/machine.md"
cat "$out/machine.md" | tee -a "$log"

# ---- 5. the suite ----
tests="${DLARRAY_CHECK_TESTS:-tests}"
xdist=()
if "$python" -c "import xdist" 2>/dev/null && [ "$workers" != 0 ]; then
    xdist=(-n "$workers")
fi
say "running pytest on $tests (${xdist[*]:-serial})"
# shellcheck disable=SC2086  # $tests may name several paths
"$python" -m pytest $tests "${xdist[@]}" -p no:cacheprovider -p no:benchmark --rootdir "$root" \
    -q -rfE --tb=short --junitxml="$out/junit.xml" >"$out/pytest.txt" 2>&1
pytest_status=$?
tail -n 60 "$out/pytest.txt" | tee -a "$log" >/dev/null

# ---- 6. the CUDA benchmark ----
say "running benchmarks/bench_cuda.py --quick"
timeout 180 "$python" benchmarks/bench_cuda.py --quick >"$out/bench.txt" 2>&1
bench_status=$?

# ---- 7. the report ----
"$python" - "$out" "$pytest_status" "$bench_status" "$(( $(date +%s) - started ))" <<'EOF'
import pathlib, sys, xml.etree.ElementTree as ET
out, pytest_status, bench_status, seconds = pathlib.Path(sys.argv[1]), *map(int, sys.argv[2:])
lines = ["# dlarray GPU check", "", (out / "machine.md").read_text(), ""]
counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
failures = []
skip_reasons: dict[str, int] = {}
gpu_passed = 0  # tests of tests/cuda that ran and passed
junit = out / "junit.xml"
if junit.exists():
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed" if child.tag == "failure" else "error"
                failures.append((name, (child.text or child.get("message") or "").strip()))
            elif child.tag == "skipped":
                outcome = "skipped"
                reason = (child.get("message") or "").strip()
                skip_reasons[reason] = skip_reasons.get(reason, 0) + 1
        counts[outcome] += 1
        if outcome == "passed" and "cuda" in (case.get("classname") or "").split("."):
            gpu_passed += 1
lines += ["## Tests", "", f"pytest exit status {pytest_status}; " + ", ".join(
    f"{n} {k}" for k, n in counts.items()), ""]
if not junit.exists():
    lines += ["pytest wrote no results; its output ends:", "", "```",
              *(out / "pytest.txt").read_text().splitlines()[-40:], "```", ""]
if skip_reasons:  # on a GPU machine, each names something missing there
    lines += ["Skipped, by reason:", "", "```"]
    lines += [f"{n:5d}  {r[:200]}" for r, n in sorted(skip_reasons.items(), key=lambda i: -i[1])]
    lines += ["```", ""]
for name, text in failures:
    lines += [f"### {name}", "", "```", *text.splitlines()[-40:], "```", ""]
lines += ["## CUDA benchmark", "", f"exit status {bench_status}", "", "```",
          (out / "bench.txt").read_text().rstrip(), "```", "",
          f"The check took {seconds} s."]
if junit.exists() and gpu_passed == 0:
    lines += ["", "**No test of tests/cuda passed: the GPU was not used** (see the skip reasons)."]
(out / "report.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(4 if junit.exists() and gpu_passed == 0 else 0)
EOF
report_status=$?
if [ "$pytest_status" -ne 0 ] || [ "$bench_status" -ne 0 ] || [ "$report_status" -ne 0 ]; then
    exit 1
fi
exit 0
