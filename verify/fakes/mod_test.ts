import assert from "node:assert/strict";
import { type FakeKind, startFake } from "./mod.ts";

Deno.test("each kind starts on 127.0.0.1, records its requests and frees its port on close", async () => {
  for (const kind of ["anthropic", "openai", "gemini"] as FakeKind[]) {
    const fake = await startFake(kind, { delayMs: 1 });
    assert.equal(fake.kind, kind);
    assert.equal(fake.url, `http://127.0.0.1:${fake.port}`);
    await (await fetch(fake.url + "/unknown", { method: "POST", body: "{}" })).body?.cancel();
    assert.equal(fake.requests().length, 1);
    await fake.close();
    await fake.close(); // twice is harmless
    Deno.listen({ hostname: "127.0.0.1", port: fake.port }).close();
  }
});

Deno.test("an unknown kind or a malformed rule is refused with a sentence", async () => {
  await assert.rejects(startFake("mistral" as FakeKind), { message: /unknown fake kind "mistral"/ });
  await assert.rejects(startFake("openai", { script: [{ match: "[", reply: { text: "x" } }] }), {
    message: /script rule 1/,
  });
});

Deno.test("the command line prints the url and appends each request to the log", async () => {
  const logPath = await Deno.makeTempFile({ prefix: "fake-cli-", suffix: ".jsonl" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./mod.ts", import.meta.url).pathname, "gemini", "--log", logPath],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const { value } = await reader.read();
    const url = (value ?? "").trim();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/v1beta/models/m:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": "dummy" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "from the cli test" }] }] }),
    });
    assert.match(
      (await res.json()).candidates[0].content.parts[0].text,
      /^Mock reply #1: from the cli test$/,
    );
    const [line] = (await Deno.readTextFile(logPath)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(line.path, "/v1beta/models/m:generateContent");
    assert.equal(line.headers["x-goog-api-key"], undefined);
  } finally {
    child.kill("SIGTERM");
    await reader.cancel();
    assert.equal((await child.status).code, 0, "SIGTERM closes the server and exits 0");
    await Deno.remove(logPath);
  }
});
