import assert from "node:assert/strict";
import { codexRateLimitHeaders } from "./openai.ts";
import { type FakeServer, MOCK_SHELL_COMMAND, parseSse, startFake } from "./mod.ts";

const TOOLS = [{ type: "function", name: "exec_command" }, { type: "function", name: "write_stdin" }];
const CONTEXT = {
  type: "message",
  role: "user",
  content: [{
    type: "input_text",
    text: "<environment_context>\n  <cwd>/tmp/x</cwd>\n</environment_context>",
  }],
};

function userMessage(text: string) {
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

function post(fake: FakeServer, body: unknown): Promise<Response> {
  return fetch(fake.url + "/v1/responses", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-mock-not-real" },
    body: JSON.stringify({ model: "mock-model", stream: true, tools: TOOLS, ...body as object }),
  });
}

async function readStream(res: Response) {
  const events = parseSse(await res.text()).map((e) => ({ name: e.event, data: JSON.parse(e.data) }));
  const text = events.filter((e) => e.name === "response.output_text.delta").map((e) => e.data.delta).join(
    "",
  );
  const done = events.find((e) => e.name === "response.output_item.done")?.data.item;
  const completed = events.at(-1)?.data.response;
  return { names: [...new Set(events.map((e) => e.name))], text, done, completed };
}

Deno.test("a streamed response parses into Codex's event order and the mock text", async () => {
  const fake = await startFake("openai");
  try {
    const got = await readStream(await post(fake, { input: [CONTEXT, userMessage("hello there")] }));
    assert.deepEqual(got.names, [
      "response.created",
      "response.output_item.added",
      "response.output_text.delta",
      "response.output_item.done",
      "response.completed",
    ]);
    assert.equal(got.text, "Mock reply #1: hello there");
    assert.equal(got.done.content[0].text, got.text);
    assert.ok(
      got.completed.usage.input_tokens > 0 && got.completed.usage.input_tokens_details.cached_tokens > 0,
    );
    assert.deepEqual(fake.userTexts(), ["hello there"], "injected environment context is not a user text");
  } finally {
    await fake.close();
  }
});

Deno.test("every streamed response carries sane x-codex rate-limit headers", async () => {
  const fake = await startFake("openai");
  try {
    const res = await post(fake, { input: [userMessage("hi")] });
    await res.body?.cancel();
    const now = Date.now() / 1000;
    for (const window of ["primary", "secondary"]) {
      const used = Number(res.headers.get(`x-codex-${window}-used-percent`));
      const minutes = Number(res.headers.get(`x-codex-${window}-window-minutes`));
      const resetAt = Number(res.headers.get(`x-codex-${window}-reset-at`));
      assert.ok(used >= 0 && used <= 100, `${window} used percent ${used}`);
      assert.ok(Number.isInteger(minutes) && minutes > 0, `${window} window ${minutes}`);
      assert.ok(resetAt > now && resetAt < now + minutes * 60 + 1, `${window} resets within its window`);
    }
  } finally {
    await fake.close();
  }
});

Deno.test("the rate-limit headers are absolute epoch seconds after the given time", () => {
  const headers = codexRateLimitHeaders(new Date("2026-01-01T00:00:00Z"));
  assert.equal(headers["x-codex-primary-reset-at"], String(Date.UTC(2026, 0, 1) / 1000 + 3600));
});

Deno.test("USE_TOOL calls exec_command once, then answers the tool output with text", async () => {
  const fake = await startFake("openai");
  try {
    const ask = userMessage("please USE_TOOL");
    const first = await readStream(await post(fake, { input: [CONTEXT, ask] }));
    assert.equal(first.done.type, "function_call");
    assert.equal(first.done.name, "exec_command");
    assert.equal(JSON.parse(first.done.arguments).cmd, MOCK_SHELL_COMMAND);

    const second = await readStream(
      await post(fake, {
        input: [CONTEXT, ask, { ...first.done }, {
          type: "function_call_output",
          call_id: first.done.call_id,
          output: "Process exited with code 0\nOutput:\nmock-tool-ran\n",
        }],
      }),
    );
    assert.equal(second.done.type, "message");
    assert.match(second.text, /^Mock saw tool output: .*mock-tool-ran$/);
  } finally {
    await fake.close();
  }
});

Deno.test("FAIL_HTTP returns that status, still with the rate-limit headers", async () => {
  const fake = await startFake("openai");
  try {
    const res = await post(fake, { input: [userMessage("FAIL_HTTP:429")] });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("x-codex-primary-window-minutes"), "300");
    assert.equal((await res.json()).error.message, "mock failure 429");
  } finally {
    await fake.close();
  }
});

Deno.test("a script rule wins, and GET /v1/models lists the mock model", async () => {
  const fake = await startFake("openai", { script: [{ match: "hello", reply: { text: "scripted hi" } }] });
  try {
    assert.equal((await readStream(await post(fake, { input: [userMessage("hello")] }))).text, "scripted hi");
    const models = await (await fetch(fake.url + "/v1/models?client_version=0.169.0")).json();
    assert.equal(models.data[0].id, "mock-model");
  } finally {
    await fake.close();
  }
});

Deno.test("USE_SKILL reads the skill's SKILL.md with the shell tool; the <skill> body Codex loads is not a user text", async () => {
  const fake = await startFake("openai");
  try {
    const skill = userMessage("<skill>\n<name>wrapup</name>\n</skill>");
    const got = await readStream(
      await post(fake, { input: [CONTEXT, userMessage("USE_SKILL wrapup"), skill] }),
    );
    assert.equal(got.done.name, "exec_command");
    assert.deepEqual(JSON.parse(got.done.arguments), {
      cmd: 'cat "${CODEX_HOME:-$HOME/.codex}/skills/wrapup/SKILL.md"',
      yield_time_ms: 2000,
    });
    assert.deepEqual(fake.userTexts(), ["USE_SKILL wrapup"]);
  } finally {
    await fake.close();
  }
});

Deno.test("STREAM_SLOW holds a streamed reply after its first event: the 200 comes at once, the end later", async () => {
  const fake = await startFake("openai");
  try {
    const t0 = Date.now();
    const res = await post(fake, { input: [CONTEXT, userMessage("hello STREAM_SLOW:600")] });
    const headersMs = Date.now() - t0;
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^event: response\.created/, "the first event arrives before the hold");
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      rest += new TextDecoder().decode(r.value);
    }
    const totalMs = Date.now() - t0;
    assert.ok(headersMs < 400, `the answer began at once (${headersMs} ms)`);
    assert.ok(totalMs >= 600, `and ended after the hold (${totalMs} ms)`);
    assert.match(rest, /response\.completed/);
    assert.match(rest, /Mock reply #1: hello STREAM_SLOW:600/, "SLOW inside STREAM_SLOW delays nothing else");
  } finally {
    await fake.close();
  }
});
