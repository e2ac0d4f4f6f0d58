import assert from "node:assert/strict";
import { encodeSse, parseSse, sseResponse } from "./sse.ts";

Deno.test("events encoded with and without names parse back to the same data", () => {
  const body = encodeSse({ a: 1 }, { event: "first" }) + encodeSse({ b: "two\nlines" }, { crlf: true });
  assert.deepEqual(parseSse(body), [
    { event: "first", data: '{"a":1}' },
    { event: null, data: '{"b":"two\\nlines"}' },
  ]);
});

Deno.test("Gemini-style events end their lines with CRLF", () => {
  assert.equal(encodeSse({ x: 1 }, { crlf: true }), 'data: {"x":1}\r\n\r\n');
});

Deno.test("an SSE response is a 200 event stream carrying the extra headers", async () => {
  const res = sseResponse([encodeSse(1)], { "x-extra": "yes" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(res.headers.get("x-extra"), "yes");
  assert.deepEqual(parseSse(await res.text()), [{ event: null, data: "1" }]);
});
