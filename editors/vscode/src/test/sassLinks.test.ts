// Unit tests of the SASS view's links to PTX lines.

import { strict as assert } from "assert";
import { test } from "node:test";

import { ptxLineOf, viewLinesOf, viewName } from "../sassLinks";

const answer = {
  text: "// k\n/*0000*/  LDC R1, c[0x0][0x28] ;\n/*0010*/  S2R R5, SR_TID.X ;\n.L_x_1:\n/*0020*/  EXIT ;\n",
  lines: [null, 5, 10, null, 10],
};

test("a view line leads to its PTX line", () => {
  assert.equal(ptxLineOf(answer, 1), 4);
  assert.equal(ptxLineOf(answer, 0), undefined);
  assert.equal(ptxLineOf(answer, 3), undefined);
  assert.equal(ptxLineOf(answer, 99), undefined);
});

test("a PTX line leads to every instruction made from it", () => {
  assert.deepEqual(viewLinesOf(answer, 9), [2, 4]);
  assert.deepEqual(viewLinesOf(answer, 0), []);
});

test("view names", () => {
  assert.equal(viewName("/a/b/k.ptx", "_Z3fooPf"), "_Z3fooPf.sass");
  assert.equal(viewName("/a/b/k.ptx", undefined), "k.ptx.sass");
  assert.equal(viewName("C:\\x\\k.ptx", "a<b>"), "a_b_.sass");
});
