#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer's coverage instrumentation and runs each one for a
# while: `fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]` (default 30 s, every target).
#
# Stable Rust is enough: the targets link libFuzzer through the libfuzzer-sys crate and are
# instrumented with LLVM's sanitizer-coverage pass, which stable rustc exposes through -C
# flags. (Without a nightly toolchain there is no AddressSanitizer; the code under test is
# safe Rust plus tree-sitter, and what is looked for is panics, aborts, stack overflows,
# hangs and runaway memory.) Inputs found interesting are kept in fuzz/corpus/TARGET;
# a crash is written to fuzz/artifacts/TARGET/ and the script exits non-zero. Every crash
# found becomes a regression test (tests/lsp_hostile.rs, or the crate's own tests).
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(analyses embed run docs_import lsp_messages)
fi
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$PWD/target}"
# An explicit --target keeps the instrumentation out of build scripts and proc-macros.
host=$(rustc -vV | sed -n 's/^host: //p')
cargo build --release --bins --target "$host"
bin="$CARGO_TARGET_DIR/$host/release"
seeds() {
  case "$1" in
    analyses | run) echo ../tests/corpus/triton ../tests/corpus/gen ;;
    embed) echo ../tests/corpus/cuda ../server/embed/tests ;;
    docs_import) echo ../server/docs/tests/fixtures ;;
    *) ;;
  esac
}
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target" "artifacts/$target"
  # shellcheck disable=SC2046
  "$bin/$target" -max_total_time="$seconds" -max_len=8192 -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="artifacts/$target/" \
    "corpus/$target" $(seeds "$target") 2>&1 | grep -E "^(#[0-9]+ *DONE|stat::|INFO: Running|==[0-9]+==|SUMMARY|Done [0-9]+ runs)|panicked|ERROR" || true
  if [ -n "$(ls -A "artifacts/$target")" ]; then
    echo "fuzz/$target: crash inputs in fuzz/artifacts/$target" >&2
    exit 1
  fi
done
