import assert from "node:assert/strict";
import { join } from "node:path";
import { isPureAscii, renderLauncher } from "./script.ts";

const NASTY = [
  "plain",
  'it\'s "quoted"',
  "new\nline\n",
  "tab\tand `backticks` and $(echo no) and $HOME",
  "; && | * \\ -leading",
  "Ελληνικά 🎉 ü",
  "",
];

/** Runs a rendered script (from `cwd`, default its own folder) whose exec prints NUL-terminated fields. */
async function runScript(text: string, cwd?: string): Promise<string[]> {
  const dir = Deno.makeTempDirSync({ prefix: "asm-script-test-" });
  try {
    const path = join(dir, "s.sh");
    Deno.writeTextFileSync(path, text);
    const out = await new Deno.Command("/bin/sh", {
      args: [path],
      cwd: cwd ?? dir,
      env: { PATH: "/usr/bin:/bin" },
      clearEnv: true,
    })
      .output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const fields = new TextDecoder().decode(out.stdout).split("\0");
    fields.pop();
    return fields;
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("a launcher script is pure ASCII whatever its values hold, and holds no variable but the token", () => {
  const text = renderLauncher({ token: "asmlt_abc", folder: "/tmp/Ελληνικά 🎉", exec: NASTY });
  assert.equal(isPureAscii(text), true);
  assert.match(text, /^ASM_LAUNCH_TOKEN='asmlt_abc'; export ASM_LAUNCH_TOKEN$/m);
  assert.deepEqual(text.match(/export/g), ["export"], "the token is the only variable it exports");
});

Deno.test("sh reads every value back byte for byte: arguments, the token and the folder", async () => {
  const folder = Deno.makeTempDirSync({ prefix: "asm-script-Ελληνικά 🎉-" });
  try {
    const text = renderLauncher({
      token: "asmlt_abc",
      folder,
      // printf '%s\0' prints each argument NUL-terminated; then the token and the cwd
      exec: ["/bin/sh", "-c", 'printf "%s\\0" "$@" "$ASM_LAUNCH_TOKEN" "$(pwd)"', "sh", ...NASTY],
    });
    assert.equal(isPureAscii(text), true);
    const fields = await runScript(text);
    assert.deepEqual(fields, [...NASTY, "asmlt_abc", folder]);
  } finally {
    Deno.removeSync(folder, { recursive: true });
  }
});

Deno.test("a folder named like shell and tmux syntax is only ever a folder to sh", async () => {
  const root = Deno.makeTempDirSync({ prefix: "asm-script-test-" });
  try {
    const names = [
      "a#(touch MARK)",
      "b#{pane_id}#{?pane_id,x,y}",
      "c$(touch MARK)",
      "d`touch MARK`",
      "e; touch MARK;",
      `f'; touch MARK; '`,
      `g"; touch MARK; "`,
      "h\\ ${HOME} * ~",
    ];
    for (const name of names) {
      const folder = `${root}/${name}`;
      Deno.mkdirSync(folder);
      const fields = await runScript(
        renderLauncher({ token: "asmlt_abc", folder, exec: ["/bin/sh", "-c", 'printf "%s\\0" "$(pwd)"'] }),
        root,
      );
      assert.deepEqual(fields, [folder], name);
    }
    assert.deepEqual([...Deno.readDirSync(root)].filter((e) => e.name === "MARK"), [], "nothing ran");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a token that is not a launch token is refused", () => {
  assert.throws(
    () => renderLauncher({ token: "asmlt_a'; rm -rf ~; '", folder: "/", exec: ["true"] }),
    /not a launch token/,
  );
});
