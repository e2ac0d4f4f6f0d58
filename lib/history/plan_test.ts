import assert from "node:assert/strict";
import type { TranscriptFile } from "../derive/mod.ts";
import { isoAt, type KnownFile } from "../ledger/mod.ts";
import { planReads } from "./plan.ts";

function file(path: string, size: number, mtimeMs: number, ino: number | null = 1): TranscriptFile {
  return {
    agent: "claude",
    path,
    sessionHint: "s",
    role: "main",
    parentSessionId: null,
    cwd: null,
    rel: path,
    size,
    mtimeMs,
    ino,
  };
}

function known(
  path: string,
  size: number,
  mtimeMs: number,
  offset: number,
  ino: number | null = 1,
  listed = false,
): KnownFile {
  return {
    path,
    agent: "claude",
    size,
    mtime: isoAt(mtimeMs),
    ino,
    asm_id: null,
    read_offset: offset,
    tail: null,
    listed,
  };
}

Deno.test("the plan skips what is unchanged, reads on what grew, and reads whole what is new, shrunk or replaced", () => {
  const k = new Map<string, KnownFile>([
    ["/same", known("/same", 100, 1000, 100)],
    ["/grew", known("/grew", 100, 1000, 90)],
    ["/shrunk", known("/shrunk", 100, 1000, 100)],
    ["/replaced", known("/replaced", 100, 1000, 100, 1)],
    ["/touched", known("/touched", 100, 1000, 100)],
  ]);
  const plan = planReads([
    file("/same", 100, 1000),
    file("/grew", 150, 2000),
    file("/new", 10, 1000),
    file("/shrunk", 50, 2000),
    file("/replaced", 200, 2000, 2),
    file("/touched", 100, 3000),
  ], k);
  assert.equal(plan.unchanged, 1);
  // newest first (by mtime), then by path
  assert.deepEqual(plan.reads.map((r) => [r.file.path, r.mode, r.from]), [
    ["/touched", "resume", 100],
    ["/grew", "resume", 90],
    ["/replaced", "full", 0],
    ["/shrunk", "full", 0],
    ["/new", "full", 0],
  ]);
  // only the new file waits for phase one
  assert.deepEqual(plan.reads.filter((r) => r.unlisted).map((r) => r.file.path), ["/new"]);
});

Deno.test("a file phase one listed is read whole by the full pass, unchanged or not; listed again only when it changed", () => {
  const k = new Map<string, KnownFile>([
    ["/listed", known("/listed", 100, 1000, 0, 1, true)],
    ["/listed-grew", known("/listed-grew", 100, 1000, 0, 1, true)],
  ]);
  const plan = planReads([file("/listed", 100, 1000), file("/listed-grew", 150, 2000)], k);
  assert.equal(plan.unchanged, 0);
  assert.deepEqual(plan.reads.map((r) => [r.file.path, r.mode, r.from, r.unlisted]), [
    ["/listed-grew", "full", 0, true],
    ["/listed", "full", 0, false],
  ]);
});

Deno.test("a file that is one JSON document rewritten whole is read from the start even when it only grew", () => {
  const k = new Map<string, KnownFile>([["/chat.json", known("/chat.json", 100, 1000, 100)]]);
  const plan = planReads([{ ...file("/chat.json", 150, 2000), whole: true }], k);
  assert.deepEqual(plan.reads.map((r) => [r.file.path, r.mode, r.from]), [["/chat.json", "full", 0]]);
});
