import assert from "node:assert/strict";
import { vmMemory } from "./serve_child.ts";

const STATUS = [
  "Name:\tdeno",
  "VmPeak:\t 4398164 kB",
  "VmHWM:\t  157696 kB",
  "VmRSS:\t  105472 kB",
  "RssAnon:\t   61440 kB",
  "",
].join("\n");

Deno.test("resident memory is read from VmRSS and its high-water mark from VmHWM, in MB", () => {
  assert.deepEqual(vmMemory(STATUS), { rss_mb: 103, hwm_mb: 154 });
});

Deno.test("a status text without the lines is refused, not read as zero", () => {
  assert.throws(() => vmMemory("Name:\tdeno\n"), /no VmRSS line/);
});
