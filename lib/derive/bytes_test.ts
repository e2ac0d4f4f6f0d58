import assert from "node:assert/strict";
import {
  absolutePaths,
  clip,
  headOf,
  headValue,
  isoOf,
  parseLine,
  parseObject,
  textOf,
  utcDay,
} from "./bytes.ts";

const enc = new TextEncoder();

Deno.test("a line's head is its first bytes, and a cut through a character does not throw", () => {
  const buf = enc.encode('xx{"type":"café"}yy');
  assert.equal(headOf(buf, 2, buf.length - 2, 9), '{"type":"');
  assert.equal(headOf(buf, 2, buf.length - 2, 13).startsWith('{"type":"caf'), true);
  assert.equal(textOf(buf, 2, buf.length - 2), '{"type":"café"}');
});

Deno.test("parsing gives an object or nothing, never a throw", () => {
  assert.deepEqual(parseObject('{"a":1}'), { a: 1 });
  for (const bad of ["", "nope", "[1]", "42", "null", '{"a":']) {
    assert.equal(parseObject(bad), undefined, bad);
  }
  const buf = enc.encode('  {"b":2}  ');
  assert.deepEqual(parseLine(buf, 2, 9), { b: 2 });
});

Deno.test("a head's string value is read up to its closing quote", () => {
  assert.equal(headValue('{"type":"custom-title","x":1', "type"), "custom-title");
  assert.equal(headValue('{"type":"cut', "type"), null);
  assert.equal(headValue('{"other":"x"}', "type"), null);
});

Deno.test("timestamps come out in the ledger's form, or null", () => {
  assert.equal(isoOf("2026-11-29T22:13:07.621Z"), "2026-11-29T22:13:07.621Z");
  assert.equal(isoOf("2026-11-29T22:13:07Z"), "2026-11-29T22:13:07.000Z");
  assert.equal(isoOf(1795990558905), "2026-11-29T22:15:58.905Z");
  assert.equal(isoOf(1795990558), "2026-11-29T22:15:58.000Z", "epoch seconds");
  for (const bad of ["", "yesterday", null, undefined, {}, NaN]) assert.equal(isoOf(bad), null);
  assert.equal(utcDay("2026-11-29T23:59:59.999Z"), "2026-11-29");
});

Deno.test("absolute paths are found in a shell command, relative ones are not", () => {
  assert.deepEqual(absolutePaths("cd /home/me/app && ls src; cat '/etc/x y' ./rel"), [
    "/home/me/app",
    "/etc/x",
  ]);
  assert.deepEqual(absolutePaths("echo a", 5), []);
  assert.equal(absolutePaths("/a /b /c /d", 2).length, 2);
  assert.equal(clip("abcdef", 3), "abc");
});
