// Unit tests of the document selector: PTX always, CUDA/C++/C behind a setting.

import { strict as assert } from "assert";
import { test } from "node:test";

import { documentSelector } from "../documents";

test("PTX, CUDA, C++ and C files with inline asm enabled", () => {
  assert.deepEqual(documentSelector(true), [
    { language: "ptx" },
    { language: "cuda-cpp" },
    { language: "cpp" },
    { language: "c" },
  ]);
});

test("only PTX files with inline asm disabled", () => {
  assert.deepEqual(documentSelector(false), [{ language: "ptx" }]);
});
