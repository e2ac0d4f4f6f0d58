import assert from "node:assert/strict";
import { join } from "node:path";
import { RefusedFile } from "../files/mod.ts";
import { REAL_DRAIN_IO } from "./io.ts";
import { makeFifo, makeNonUtf8Name, namesIn } from "./_test_utils.ts";

function scratch(): string {
  return Deno.makeTempDirSync({ prefix: "asm-drain-io-" });
}

Deno.test("the listing says what each entry is without following a link", () => {
  const dir = scratch();
  Deno.writeTextFileSync(join(dir, "a.json"), "{}");
  Deno.symlinkSync(join(dir, "a.json"), join(dir, "link.json"));
  Deno.mkdirSync(join(dir, "folder.json"));
  makeFifo(join(dir, "fifo.json"));
  const unnameable = makeNonUtf8Name(dir);
  const kinds = Object.fromEntries(REAL_DRAIN_IO.list(dir).map((e) => [e.name, e.kind]));
  assert.deepEqual(kinds, {
    "a.json": "file",
    "link.json": "link",
    "folder.json": "folder",
    "fifo.json": "fifo",
    [unnameable]: "unnameable",
  });
  assert.deepEqual(REAL_DRAIN_IO.list(join(dir, "missing")), []);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a real FIFO is refused at once by the read, which never waits for a writer", () => {
  const dir = scratch();
  makeFifo(join(dir, "x.json"));
  const started = performance.now();
  assert.throws(() => REAL_DRAIN_IO.read(join(dir, "x.json"), 100), RefusedFile);
  assert.ok(performance.now() - started < 1000, "the open did not block");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a link is refused by the read, a missing file is NotFound", () => {
  const dir = scratch();
  Deno.writeTextFileSync(join(dir, "secret"), "secret");
  Deno.symlinkSync(join(dir, "secret"), join(dir, "x.json"));
  assert.throws(() => REAL_DRAIN_IO.read(join(dir, "x.json"), 100), RefusedFile);
  assert.throws(() => REAL_DRAIN_IO.read(join(dir, "none.json"), 100), Deno.errors.NotFound);
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("the read returns at most its limit, however large the file", () => {
  const dir = scratch();
  Deno.writeTextFileSync(join(dir, "small.json"), "{}");
  assert.equal(new TextDecoder().decode(REAL_DRAIN_IO.read(join(dir, "small.json"), 100)), "{}");
  const sparse = join(dir, "sparse.json");
  Deno.writeFileSync(sparse, new Uint8Array(0));
  Deno.truncateSync(sparse, 600 * 1024 * 1024);
  const started = performance.now();
  assert.equal(REAL_DRAIN_IO.read(sparse, 4097).length, 4097);
  assert.ok(performance.now() - started < 500, "a bounded read, not 600 MB");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("a move takes the entry itself and never replaces what is already there", () => {
  const dir = scratch();
  const to = join(dir, "rejected");
  Deno.writeTextFileSync(join(dir, "target"), "kept");
  Deno.symlinkSync(join(dir, "target"), join(dir, "x.json"));
  assert.equal(REAL_DRAIN_IO.move(join(dir, "x.json"), to, "x.json"), "x.json");
  Deno.mkdirSync(join(dir, "x.json"));
  assert.equal(REAL_DRAIN_IO.move(join(dir, "x.json"), to, "x.json"), "x.json.1");
  assert.equal(Deno.lstatSync(join(to, "x.json")).isSymlink, true);
  assert.equal(Deno.lstatSync(join(to, "x.json.1")).isDirectory, true);
  assert.equal(Deno.readTextFileSync(join(dir, "target")), "kept");
  assert.equal((Deno.statSync(to).mode ?? 0) & 0o777, 0o700);
  assert.deepEqual(namesIn(dir), ["rejected", "target"]);
  Deno.removeSync(dir, { recursive: true });
});
