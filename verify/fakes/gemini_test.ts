import assert from "node:assert/strict";
import { ROUTER_REPLY } from "./gemini.ts";
import { type FakeServer, MOCK_SHELL_COMMAND, parseSse, startFake } from "./mod.ts";

const TOOLS = [{ functionDeclarations: [{ name: "run_shell_command" }, { name: "read_file" }] }];
const SESSION_CONTEXT = { text: "<session_context>\nThis is the Gemini CLI.\n</session_context>" };
const STREAM = "/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse";

function post(fake: FakeServer, path: string, body: unknown): Promise<Response> {
  return fetch(fake.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "dummy" },
    body: JSON.stringify(body),
  });
}

async function readStream(res: Response) {
  const chunks = parseSse(await res.text()).map((e) => JSON.parse(e.data));
  const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
  return {
    chunks,
    text: parts.map((p) => p.text ?? "").join(""),
    call: parts.find((p) => p.functionCall)?.functionCall,
    finish: chunks.at(-1).candidates[0].finishReason,
  };
}

Deno.test("a streamed turn parses into text chunks with usage, ignoring the session context", async () => {
  const fake = await startFake("gemini");
  try {
    const res = await post(fake, STREAM, {
      contents: [{ role: "user", parts: [SESSION_CONTEXT, { text: "hello there" }] }],
      tools: TOOLS,
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const got = await readStream(res);
    assert.equal(got.chunks.length, 2);
    assert.equal(got.text, "Mock reply #1: hello there");
    assert.equal(got.finish, "STOP");
    assert.ok(got.chunks.at(-1).usageMetadata.totalTokenCount > 0);
    assert.deepEqual(fake.userTexts(), ["hello there"]);
  } finally {
    await fake.close();
  }
});

Deno.test("JSON mode (the model router) gets parseable JSON and uses no reply number", async () => {
  const fake = await startFake("gemini");
  try {
    const res = await post(fake, "/v1beta/models/gemini-3.5-flash-lite:generateContent", {
      contents: [{ role: "user", parts: [{ text: "route FAIL_HTTP:500 me" }] }],
      generationConfig: { responseMimeType: "application/json", responseJsonSchema: {} },
    });
    assert.equal(res.status, 200, "triggers do not apply to side requests");
    const body = await res.json();
    assert.deepEqual(JSON.parse(body.candidates[0].content.parts[0].text), ROUTER_REPLY);

    const plain = await post(fake, "/v1beta/models/gemini-3.5-flash-lite:generateContent", {
      contents: [{ role: "user", parts: [{ text: "Summarize this" }] }],
    });
    assert.equal((await plain.json()).candidates[0].content.parts[0].text, "Mock reply #1: Summarize this");
  } finally {
    await fake.close();
  }
});

Deno.test("USE_TOOL calls run_shell_command once, then answers the function response with text", async () => {
  const fake = await startFake("gemini");
  try {
    const ask = { role: "user", parts: [{ text: "please USE_TOOL" }] };
    const first = await readStream(await post(fake, STREAM, { contents: [ask], tools: TOOLS }));
    assert.equal(first.call.name, "run_shell_command");
    assert.equal(first.call.args.command, MOCK_SHELL_COMMAND);

    const second = await readStream(
      await post(fake, STREAM, {
        tools: TOOLS,
        contents: [ask, { role: "model", parts: [{ functionCall: first.call }] }, {
          role: "user",
          parts: [{
            functionResponse: {
              name: "run_shell_command",
              response: { output: "<untrusted_context>\nOutput: mock-tool-ran\n</untrusted_context>" },
            },
          }],
        }],
      }),
    );
    assert.equal(second.call, undefined);
    assert.equal(second.text, "Mock saw tool output: Output: mock-tool-ran");
  } finally {
    await fake.close();
  }
});

Deno.test("without run_shell_command on offer (headless without --yolo), USE_TOOL gets text", async () => {
  const fake = await startFake("gemini");
  try {
    const got = await readStream(
      await post(fake, STREAM, { contents: [{ role: "user", parts: [{ text: "USE_TOOL" }] }] }),
    );
    assert.equal(got.call, undefined);
    assert.equal(got.text, "Mock reply #1: USE_TOOL");
  } finally {
    await fake.close();
  }
});

Deno.test("FAIL_HTTP returns that status in Google's error shape; a script rule wins", async () => {
  const fake = await startFake("gemini", {
    script: [{ match: "scripted", reply: { text: "from the script" } }],
  });
  try {
    const res = await post(fake, STREAM, {
      contents: [{ role: "user", parts: [{ text: "FAIL_HTTP:429" }] }],
    });
    assert.equal(res.status, 429);
    assert.deepEqual(await res.json(), {
      error: { code: 429, message: "mock failure 429", status: "RESOURCE_EXHAUSTED" },
    });
    const ruled = await post(fake, STREAM, { contents: [{ role: "user", parts: [{ text: "scripted" }] }] });
    assert.equal((await readStream(ruled)).text, "from the script");
  } finally {
    await fake.close();
  }
});

Deno.test("countTokens answers a count and unknown paths a 404 error", async () => {
  const fake = await startFake("gemini");
  try {
    const count = await post(fake, "/v1beta/models/gemini-3.8-flash:countTokens", { contents: [] });
    assert.ok((await count.json()).totalTokens > 0);
    const missing = await fetch(fake.url + "/v1beta/other");
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.status, "NOT_FOUND");
  } finally {
    await fake.close();
  }
});
