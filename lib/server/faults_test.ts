import assert from "node:assert/strict";
import { join } from "node:path";
import { faultCause, ServerFaults } from "./faults.ts";
import { serverLogger } from "./app.ts";

Deno.test("a fault's cause is named in plain words for the errors a person can act on", () => {
  const full = Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
  assert.match(faultCause(full), /^the disk is full \(No space left on device/);
  assert.match(faultCause(new Error("Too many open files (os error 24)")), /^asm is out of file descriptors/);
  assert.match(faultCause(new Error("Disk quota exceeded (os error 122)")), /^the disk quota is used up/);
  assert.equal(faultCause(new Error("Permission denied (os error 13)")), "Permission denied (os error 13)");
});

Deno.test("a fault is one spell from its first failure until the operation works again", () => {
  const faults = new ServerFaults();
  assert.equal(faults.failed("log", new Error("No space left on device (os error 28)"), 100), true, "starts");
  assert.equal(faults.failed("log", new Error("No space left on device (os error 28)"), 200), false);
  assert.deepEqual(faults.current("log"), {
    error: "the disk is full (No space left on device (os error 28))",
    since: 100,
    count: 2,
  });
  assert.equal(faults.current("accept"), null, "each operation on its own");
  assert.equal(faults.recovered("log")?.count, 2);
  assert.equal(faults.current("log"), null);
  assert.equal(faults.recovered("log"), null, "nothing to end twice");
});

Deno.test("the server's log never throws: lines it cannot write are counted, and the first line written says so", () => {
  const home = Deno.makeTempDirSync({ prefix: "asm-log-fault-" });
  try {
    const faults = new ServerFaults();
    const log = serverLogger(home, faults);
    // a folder where the log file goes: every append fails, as on a full disk
    Deno.mkdirSync(join(home, "server.log"));
    log({ what: "first" });
    log({ what: "second", big: 2n ** 62n });
    assert.equal(faults.current("log")?.count, 2);
    Deno.removeSync(join(home, "server.log"));
    log({ what: "third", big: 2n ** 62n });
    assert.equal(faults.current("log"), null, "the fault ended with the first line written");
    const lines = Deno.readTextFileSync(join(home, "server.log")).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.equal(lines.length, 2);
    assert.equal(lines[0].what, "server log lines lost");
    assert.equal(lines[0].lines, 2);
    assert.match(lines[0].error, /Is a directory|os error 21/);
    assert.deepEqual(
      [lines[1].what, lines[1].big],
      ["third", "4611686018427387904"],
      "a bigint as its digits",
    );
  } finally {
    Deno.removeSync(home, { recursive: true });
  }
});

Deno.test("a serving process outlives an error nothing caught, and logs each one once", async () => {
  const app = new URL("./lifecycle.ts", import.meta.url).href;
  const source = `import { keepServingThroughUncaught } from ${JSON.stringify(app)};
const lines = [];
keepServingThroughUncaught((l) => lines.push(l));
Promise.reject(new Error("a rejection nobody handled"));
Promise.reject(new Error("a rejection nobody handled"));
setTimeout(() => { throw new Error("a throw in a timer"); }, 10);
setTimeout(() => { console.log(JSON.stringify(lines)); }, 300);
`;
  const out = await new Deno.Command(Deno.execPath(), {
    // evaluated in the checkout, as ./asm runs main.ts: its deno.json and node_modules resolve the imports
    args: ["eval", "--quiet", "--node-modules-dir=manual", "--frozen", "--ext=ts", source],
    cwd: new URL("../../", import.meta.url).pathname,
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const lines = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(lines.map((l: { what: string; error: string }) => [l.what, l.error]), [
    ["uncaught rejection kept the server up", "a rejection nobody handled"],
    ["uncaught error kept the server up", "a throw in a timer"],
  ], "the process lived to print its log, one line per distinct error");
});
