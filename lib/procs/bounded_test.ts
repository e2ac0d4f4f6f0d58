import assert from "node:assert/strict";
import { runBounded } from "./bounded.ts";

const ENV = { PATH: "/usr/bin:/bin" };

Deno.test("a bounded run gives the exit code and the output of a command that ends", async () => {
  const r = await runBounded("/bin/sh", {
    args: ["-c", "echo 1.2.3; echo warn >&2; exit 3"],
    env: ENV,
    timeoutMs: 5000,
  });
  assert.deepEqual(r, { code: 3, stdout: "1.2.3\n", stderr: "warn\n", timedOut: false });
});

Deno.test("a child that hangs, or leaves a grandchild holding its pipe, costs the deadline, not more", async () => {
  const started = performance.now();
  const r = await runBounded("/bin/sh", {
    args: ["-c", "sleep 29.4817 & echo started; wait"],
    env: ENV,
    timeoutMs: 500,
  });
  const took = performance.now() - started;
  console.log(
    `returned after ${Math.round(took)} ms (asserted: under 10 s, the grandchild sleeps 29 s): ${
      JSON.stringify(r)
    }`,
  );
  assert.equal(r.timedOut, true);
  assert.equal(r.code, null);
  assert.equal(r.stdout, "started\n");
  assert.ok(took < 10_000, `it returned after ${Math.round(took)} ms, not after the sleep`);
  // the grandchild went with its group
  const left = await runBounded("/bin/sh", {
    args: ["-c", "pgrep -x -f 'sleep 29.4817' || true"],
    env: ENV,
    timeoutMs: 5000,
  });
  assert.equal(left.stdout.trim(), "", "no sleep 29.4817 left running");
});

Deno.test("output past the cap is read and dropped, never kept", async () => {
  const r = await runBounded("/bin/sh", {
    args: ["-c", "head -c 5000000 /dev/zero | tr '\\0' x; echo"],
    env: ENV,
    timeoutMs: 10_000,
    maxBytes: 1000,
  });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, "x".repeat(1000));
});
