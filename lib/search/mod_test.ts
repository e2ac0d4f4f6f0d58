import assert from "node:assert/strict";
import { importWorld } from "../history/_test_utils.ts";
import { RefusedQuery, search } from "./mod.ts";
import { placeSearchFixtures, searchWorld } from "./_test_utils.ts";

Deno.test("a search run in its Worker answers what the same search answers on this thread", async () => {
  await using w = importWorld();
  placeSearchFixtures(w);
  await w.run();
  const place = { ledgerPath: w.ledger.path, asmHome: w.asmHome, env: w.env };
  for (
    const request of [{ query: "mock", deep: true, all: true }, { query: "proj", deep: false, all: false }]
  ) {
    const { took_ms: _a, ...inWorker } = await search(request, place);
    const { took_ms: _b, ...here } = searchWorld(w, request);
    assert.ok(here.matches > 0);
    assert.deepEqual(inWorker, here);
  }
});

Deno.test("a one-character query is refused before any Worker starts", async () => {
  await assert.rejects(
    search({ query: "x", deep: true, all: true }, {
      ledgerPath: "/nonexistent",
      asmHome: "/nonexistent",
      env: {},
    }),
    RefusedQuery,
  );
});

Deno.test("a search over a ledger that is not there fails with a sentence", async () => {
  await assert.rejects(
    search({ query: "xy", deep: true, all: true }, {
      ledgerPath: "/nonexistent/ledger.sqlite",
      asmHome: "/nonexistent",
      env: {},
    }),
    /cannot be opened for search/,
  );
});
