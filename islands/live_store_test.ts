import assert from "node:assert/strict";
import { effect } from "@preact/signals";
import { cell, cellValue, drawnAlone, setCell } from "./live_store.ts";

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

Deno.test("a server-side draw has cells of its own: it neither sees nor leaves any", () => {
  cell("no-pane", "id-2", "hidden");
  const inside = drawnAlone(() => {
    assert.equal(cellValue("no-pane", "id-2"), undefined, "an earlier draw's cell is not seen");
    return cell("no-pane", "id-3", "").value;
  });
  assert.equal(inside, "");
  assert.equal(cellValue("no-pane", "id-3"), undefined, "the draw's cell is gone after it");
  assert.equal(cellValue("no-pane", "id-2"), "hidden", "the cells outside are kept");
});
