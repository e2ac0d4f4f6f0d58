import assert from "node:assert/strict";
import { effect } from "@preact/signals";
import { cell, setCell } from "./live_store.ts";

Deno.test("a cell is one signal per field and id, takes a row's new value, and the same value notifies nobody", () => {
  const s = cell("activity", "id-1", "Idle");
  assert.equal(cell("activity", "id-1", "Idle"), s, "the same signal comes back");
  let runs = 0;
  const stop = effect(() => {
    s.value;
    runs++;
  });
  assert.equal(setCell("activity", "id-1", "Idle"), false);
  assert.equal(runs, 1);
  assert.equal(setCell("activity", "id-1", "Working"), true);
  assert.equal(runs, 2);
  assert.equal(s.value, "Working");
  assert.notEqual(cell("status", "id-1", "LIVE"), s);
  // a row rendered again brings its current value: the cell takes it
  assert.equal(cell("activity", "id-1", "Idle").value, "Idle");
  assert.equal(runs, 3);
  stop();
});
