import assert from "node:assert/strict";
import { progressLine, progressOf } from "./progress.ts";

const MB = 1 << 20;

Deno.test("progress says files, MB, the rate so far and the time left", () => {
  const p = progressOf({
    phase: "read",
    files_total: 5000,
    files_done: 120,
    bytes_total: 1024 * MB,
    bytes_done: 256 * MB,
  }, 2000);
  assert.equal(p.rate_mb_s, 128);
  assert.equal(p.eta_s, 6);
  assert.equal(progressLine(p), "import: 120/5000 files, 256.0/1024.0 MB, 128.0 MB/s, ETA 6 s");
});

Deno.test("before any byte is read the rate and the time left are unknown, not zero", () => {
  const p = progressOf({ phase: "read", files_total: 3, files_done: 0, bytes_total: 10, bytes_done: 0 }, 0);
  assert.equal(p.rate_mb_s, null);
  assert.equal(p.eta_s, null);
  assert.match(progressLine(p), /-- MB\/s, ETA --/);
  const done = progressOf(
    { phase: "done", files_total: 3, files_done: 3, bytes_total: 10, bytes_done: 10 },
    1500,
  );
  assert.match(progressLine(done), /done in 1\.5 s$/);
});

Deno.test("phase one says how many transcripts it listed of how many", () => {
  const p = progressOf(
    { phase: "list", files_total: 5000, files_done: 1250, bytes_total: 0, bytes_done: 0 },
    300,
  );
  assert.equal(progressLine(p), "import: listing 1250/5000 transcripts from their two ends");
});
