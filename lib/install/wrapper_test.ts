import assert from "node:assert/strict";
import { renderWrapper, shellWord } from "./wrapper.ts";

async function shEcho(word: string): Promise<string> {
  const out = await new Deno.Command("/bin/sh", { args: ["-c", `printf '%s' ${word}`] }).output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("shell words are ASCII and give back the exact path, quotes and non-ASCII included", async () => {
  for (const path of ["/home/ana/.asm", "/home/o'neil/.asm", "/home/josé/.asm", "/tmp/100%/ü ber"]) {
    const word = shellWord(path);
    assert.match(word, /^[\x20-\x7e]+$/, word);
    assert.equal(await shEcho(word), path);
  }
});

Deno.test("the wrapper is the runbook's script with the paths baked in", () => {
  const text = renderWrapper({
    asmHome: "/h/.asm",
    denoPath: "/opt/deno",
    hookScript: "/repo/hooks/hook.ts",
  });
  assert.equal(
    text,
    [
      "#!/bin/sh",
      "# asm hook wrapper, written by `asm install`: asm-hook <agent> [event-hint] [json-arg]",
      "# everything the hook writes (events, its log, Deno's cache) is the user's alone; the hook starts nothing",
      "umask 077",
      "ASM_HOME='/h/.asm'; export ASM_HOME",
      "DENO_DIR='/h/.asm/cache/deno'; export DENO_DIR",
      "# who ran the hook: a hook whose parent is another by the time it looks was orphaned (its agent is gone)",
      "ASM_HOOK_PARENT=$PPID; export ASM_HOOK_PARENT",
      `exec '/opt/deno' run -A --no-config --no-lock --no-prompt '/repo/hooks/hook.ts' "$@"`,
      "",
    ].join("\n"),
  );
});
