import assert from "node:assert/strict";
import { errorText, isRecord } from "./mod.ts";

Deno.test("a record is a plain object: not null, not an array, not a primitive", () => {
  const rows: [unknown, boolean][] = [
    [{}, true],
    [{ a: 1 }, true],
    [JSON.parse('{"v":1}'), true],
    [Object.create(null), true],
    [null, false],
    [undefined, false],
    [[], false],
    [[1, 2], false],
    ["{}", false],
    [0, false],
    [true, false],
  ];
  for (const [value, expected] of rows) assert.equal(isRecord(value), expected, JSON.stringify(value));
});

Deno.test("a caught value reads as its message: an Error's message, anything else as String writes it", () => {
  assert.equal(errorText(new Error("disk full")), "disk full");
  assert.equal(errorText(new TypeError("not a function")), "not a function");
  assert.equal(errorText("a thrown string"), "a thrown string");
  assert.equal(errorText(42), "42");
  assert.equal(errorText(undefined), "undefined");
  assert.equal(errorText(null), "null");
});
