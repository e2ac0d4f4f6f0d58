import assert from "node:assert/strict";
import { ANTHROPIC_CACHE_CREATION_TOKENS, ANTHROPIC_CACHE_READ_TOKENS } from "./anthropic.ts";
import { type FakeServer, MOCK_SHELL_COMMAND, parseSse, startFake } from "./mod.ts";

const TOOLS = [{ name: "Bash" }, { name: "Read" }];

function post(fake: FakeServer, path: string, body: unknown): Promise<Response> {
  return fetch(fake.url + path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "sk-test-dummy",
      "anthropic-version": "2023-06-01",
    },
    body: JSON.stringify(body),
  });
}

/** Reassembles a streamed message the way a client does: event names, text, tool input, stop reason. */
async function readStream(res: Response) {
  const events = parseSse(await res.text()).map((e) => ({ name: e.event, data: JSON.parse(e.data) }));
  const text = events.filter((e) => e.data.delta?.type === "text_delta").map((e) => e.data.delta.text).join(
    "",
  );
  const toolJson = events.filter((e) => e.data.delta?.type === "input_json_delta").map((e) =>
    e.data.delta.partial_json
  )
    .join("");
  const toolBlock = events.find((e) => e.data.content_block?.type === "tool_use")?.data.content_block;
  const stop = events.find((e) => e.name === "message_delta")?.data.delta.stop_reason;
  const usage = events[0].data.message.usage;
  return {
    names: events.map((e) => e.name),
    text,
    toolBlock,
    toolInput: toolJson ? JSON.parse(toolJson) : null,
    stop,
    usage,
  };
}

Deno.test("a streamed message parses into the real event sequence and the mock text", async () => {
  const fake = await startFake("anthropic");
  try {
    const res = await post(fake, "/v1/messages?beta=true", {
      model: "claude-opus-5-5",
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "hello there" }] }],
      tools: TOOLS,
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const got = await readStream(res);
    assert.deepEqual(got.names, [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    assert.equal(got.text, "Mock reply #1: hello there");
    assert.equal(got.stop, "end_turn");
    assert.equal(got.usage.cache_creation_input_tokens, ANTHROPIC_CACHE_CREATION_TOKENS);
    assert.equal(got.usage.cache_read_input_tokens, ANTHROPIC_CACHE_READ_TOKENS);
    assert.ok(got.usage.input_tokens > 0);
  } finally {
    await fake.close();
  }
});

Deno.test("a non-streamed request gets one message with usage of every kind", async () => {
  const fake = await startFake("anthropic");
  try {
    const res = await post(fake, "/v1/messages", { messages: [{ role: "user", content: "plain string" }] });
    const message = await res.json();
    assert.equal(message.type, "message");
    assert.deepEqual(message.content, [{ type: "text", text: "Mock reply #1: plain string" }]);
    assert.deepEqual(Object.keys(message.usage).sort(), [
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
      "input_tokens",
      "output_tokens",
    ]);
  } finally {
    await fake.close();
  }
});

Deno.test("USE_TOOL asks for Bash once, then answers the tool result with text", async () => {
  const fake = await startFake("anthropic");
  try {
    const ask = { role: "user", content: [{ type: "text", text: "please USE_TOOL" }] };
    const first = await readStream(
      await post(fake, "/v1/messages", { stream: true, messages: [ask], tools: TOOLS }),
    );
    assert.equal(first.stop, "tool_use");
    assert.equal(first.toolBlock.name, "Bash");
    assert.equal(first.toolInput.command, MOCK_SHELL_COMMAND);

    const second = await readStream(
      await post(fake, "/v1/messages", {
        stream: true,
        tools: TOOLS,
        messages: [
          ask,
          {
            role: "assistant",
            content: [{ type: "tool_use", id: first.toolBlock.id, name: "Bash", input: {} }],
          },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: first.toolBlock.id, content: "mock-tool-ran" }],
          },
        ],
      }),
    );
    assert.equal(second.stop, "end_turn");
    assert.equal(second.text, "Mock saw tool output: mock-tool-ran");
  } finally {
    await fake.close();
  }
});

Deno.test("the last user message counts, past mid-conversation system messages and reminders", async () => {
  const fake = await startFake("anthropic");
  try {
    const res = await post(fake, "/v1/messages", {
      messages: [
        { role: "user", content: "first prompt" },
        { role: "assistant", content: "ok" },
        {
          role: "user",
          content: [{ type: "text", text: "<system-reminder>context</system-reminder>" }, {
            type: "text",
            text: "second prompt",
          }],
        },
        { role: "system", content: "a note Claude Code appends" },
      ],
    });
    assert.equal((await res.json()).content[0].text, "Mock reply #1: second prompt");
    assert.deepEqual(fake.userTexts(), ["first prompt", "second prompt"]);
  } finally {
    await fake.close();
  }
});

Deno.test("FAIL_HTTP answers in Anthropic's error shape and asks the client not to retry", async () => {
  const fake = await startFake("anthropic");
  try {
    const res = await post(fake, "/v1/messages", {
      stream: true,
      messages: [{ role: "user", content: "FAIL_HTTP:529" }],
    });
    assert.equal(res.status, 529);
    assert.equal(res.headers.get("x-should-retry"), "false");
    assert.deepEqual(await res.json(), {
      type: "error",
      error: { type: "overloaded_error", message: "mock failure 529" },
    });
  } finally {
    await fake.close();
  }
});

Deno.test("a script rule wins over the built-in triggers", async () => {
  const fake = await startFake("anthropic", { script: [{ match: "USE_TOOL", reply: { text: "scripted" } }] });
  try {
    const res = await post(fake, "/v1/messages", {
      messages: [{ role: "user", content: "USE_TOOL" }],
      tools: TOOLS,
    });
    assert.equal((await res.json()).content[0].text, "scripted");
  } finally {
    await fake.close();
  }
});

Deno.test("count_tokens answers a count and unknown paths a 404 error", async () => {
  const fake = await startFake("anthropic");
  try {
    const count = await post(fake, "/v1/messages/count_tokens", {
      messages: [{ role: "user", content: "hi" }],
    });
    assert.ok((await count.json()).input_tokens > 0);
    const missing = await fetch(fake.url + "/v1/nothing");
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.type, "not_found_error");
  } finally {
    await fake.close();
  }
});

Deno.test("DRIP streams the reply slowly, one word a delta, and stops when the agent drops the call", async () => {
  const fake = await startFake("anthropic");
  try {
    const ask = { role: "user", content: [{ type: "text", text: "tell me slowly DRIP:20" }] };
    const whole = await readStream(await post(fake, "/v1/messages", { stream: true, messages: [ask] }));
    assert.match(whole.text, /^Mock reply #1: .* drip0 drip1 .* drip59$/);
    assert.equal(whole.stop, "end_turn");
    // the agent's interrupt drops the connection mid-stream: what came is a prefix, and nothing is left running
    const res = await post(fake, "/v1/messages", { stream: true, messages: [ask] });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let got = "";
    while (!got.includes("drip3")) got += (await reader.read()).value ?? "";
    await reader.cancel();
    assert.doesNotMatch(got, /drip59/);
  } finally {
    await fake.close();
  }
});
