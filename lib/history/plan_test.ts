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
  assert.deepEqual(plan.reads.map((r) => [r.file.path, r.mode, r.from]), [
    ["/grew", "resume", 90],
    ["/new", "full", 0],
    ["/replaced", "full", 0],
    ["/shrunk", "full", 0],
    ["/touched", "resume", 100],
  ]);
});

Deno.test("a file that is one JSON document rewritten whole is read from the start even when it only grew", () => {
  const k = new Map<string, KnownFile>([["/chat.json", known("/chat.json", 100, 1000, 100)]]);
  const plan = planReads([{ ...file("/chat.json", 150, 2000), whole: true }], k);
  assert.deepEqual(plan.reads.map((r) => [r.file.path, r.mode, r.from]), [["/chat.json", "full", 0]]);
});
