import assert from "node:assert/strict";
import { importBarView, type ImportStatusFacts } from "./import_bar.ts";

const MB = 1 << 20;

function status(
  over: Partial<ImportStatusFacts> = {},
  progress: Partial<ImportStatusFacts["progress"]> = {},
) {
  return {
    running: true,
    kind: "full",
    progress: {
      phase: "read",
      files_total: 64,
      files_done: 12,
      bytes_total: 12 * MB,
      bytes_done: 3 * MB,
      eta_s: 40,
      ...progress,
    },
    ...over,
  } as ImportStatusFacts;
}

Deno.test("the bar shows only while a full import lists or derives, never for a refresh or an import at rest", () => {
  const cases: [string, ImportStatusFacts | null, boolean][] = [
    ["no answer", null, false],
    ["nothing running", status({ running: false, kind: null }), false],
    ["a refresh reading grown files", status({ kind: "refresh" }), false],
    ["a full import still walking", status({}, { phase: "walk" }), false],
    [
      "a full import with nothing to read",
      status({}, { files_total: 0, bytes_total: 0, files_done: 0 }),
      false,
    ],
    ["a full import done, runner not yet free", status({}, { phase: "done" }), false],
    ["no progress yet", status({ progress: null }), false],
    ["listing", status({}, { phase: "list", files_done: 0, bytes_done: 0, eta_s: null }), true],
    ["deriving", status(), true],
  ];
  for (const [what, s, shown] of cases) assert.equal(importBarView(s) !== null, shown, what);
});

Deno.test("the bar says files and MB done of the total and the time left; -- when the rate is not known yet", () => {
  assert.deepEqual(importBarView(status()), {
    share: 0.25,
    text: "Reading transcripts whole: 12/64 files, 3.0/12.0 MB, time left 40 s",
  });
  // phase one, as the import reports it: files only (no bytes, no rate)
  assert.deepEqual(
    importBarView(status({}, { phase: "list", files_done: 16, bytes_total: 0, bytes_done: 0, eta_s: null })),
    { share: 0.25, text: "Listing sessions from their transcripts' ends: 16/64 files" },
  );
  // empty files: the share goes by files, and never past the end
  assert.equal(importBarView(status({}, { bytes_total: 0, bytes_done: 0, files_done: 16 }))?.share, 0.25);
  assert.equal(importBarView(status({}, { bytes_done: 20 * MB }))?.share, 1);
});
