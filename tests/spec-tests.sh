#!/usr/bin/env bash
# Runs the tests that compare the project with a copy of the PTX ISA 9.1 document:
#   PTX_ISA_DIR=/path/to/ptx-isa-9.1 bash tests/spec-tests.sh
# where the folder holds the document's markdown export (INDEX.md, one .md file per section).
# The project keeps none of the document's text, so `cargo test` and tests/run-all.sh leave
# these test files out (`test = false` in their crates' Cargo.toml); they fail here without
# the copy rather than pass unchecked. They check that:
#   ptx-isa    spec_drift     the knowledge base's generated data equals what isa-gen makes of
#                             the document, and every instruction heading of 9.7 has forms;
#   ptx-isa    spec_sets      a second, independent reading of every Syntax-block set and of
#                             the Target/PTX ISA notes, diffed with the loaded knowledge base
#                             (every difference explained in tests/fixtures/spec-differences.txt);
#   ptx-syntax spec_examples  every complete example of chapter 9 parses (or is a listed typo);
#   ptx-docs   spec_import    `docs import` of the whole document: coverage and structure;
#   ptx-ide    spec_prose     no built-in description shares 12 words in a row with it.
# With `clippy` as argument it lints these test files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
tests=(
  "ptx-isa spec_drift"
  "ptx-isa spec_sets"
  "ptx-syntax spec_examples"
  "ptx-docs spec_import"
  "ptx-ide spec_prose"
)
args=()
for t in "${tests[@]}"; do
  read -r package test <<<"$t"
  args+=(-p "$package" --test "$test")
done
if [ "${1:-}" = clippy ]; then
  exec cargo clippy "${args[@]}" -- -D warnings
fi
: "${PTX_ISA_DIR:?set PTX_ISA_DIR to the folder of the PTX ISA 9.1 markdown export}"
[ -f "$PTX_ISA_DIR/INDEX.md" ] || { echo "PTX_ISA_DIR=$PTX_ISA_DIR has no INDEX.md" >&2; exit 2; }
export PTX_ISA_DIR
cargo test "${args[@]}"
