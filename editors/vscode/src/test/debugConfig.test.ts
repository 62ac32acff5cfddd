// Unit tests of the debug configurations: from a lens, and completed for F5.

import { strict as assert } from "assert";
import { test } from "node:test";

import { completeLaunch, lensLaunch } from "../debugConfig";

test("a kernel lens becomes a launch of that kernel", () => {
  const launch = lensLaunch(
    {
      textDocument: { uri: "file:///w/k.ptx" },
      entry: "k",
      grid: [2, 1, 1],
      block: [64, 1, 1],
      args: ["zeros:256", "u32:64"],
      hintThread: 3,
    },
    "/w/k.ptx",
  );
  assert.deepEqual(launch, {
    type: "ptx",
    request: "launch",
    name: "Debug k",
    program: "/w/k.ptx",
    entry: "k",
    grid: [2, 1, 1],
    block: [64, 1, 1],
    args: ["zeros:256", "u32:64"],
  });
});

test("a @run region lens keeps its range and start values", () => {
  const range = { start: { line: 3, character: 0 }, end: { line: 9, character: 0 } };
  const launch = lensLaunch(
    { textDocument: { uri: "file:///w/s.ptx" }, threads: 32, set: [["%r1", "5"]], range },
    "/w/s.ptx",
  );
  assert.equal(launch.name, "Debug @run region");
  assert.deepEqual(launch.range, range);
  assert.equal(launch.threads, 32);
  assert.deepEqual(launch.set, [["%r1", "5"]]);
  assert.equal(launch.entry, undefined);
});

test("F5 without launch.json debugs the active file from its first line", () => {
  assert.deepEqual(completeLaunch({}, "/w/s.ptx"), {
    type: "ptx",
    request: "launch",
    name: "Debug PTX file",
    program: "/w/s.ptx",
    stopOnEntry: true,
  });
  assert.equal(completeLaunch({}, undefined), undefined);
});

test("a configuration without program takes the active file; one with it is kept", () => {
  const partial = { type: "ptx", request: "launch", name: "k", entry: "k" };
  assert.equal(completeLaunch(partial, "/w/k.ptx")?.program, "/w/k.ptx");
  const full = { ...partial, program: "/w/other.ptx" };
  assert.equal(completeLaunch(full, "/w/k.ptx")?.program, "/w/other.ptx");
  assert.equal(completeLaunch(partial, undefined), undefined);
});
