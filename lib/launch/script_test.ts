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

/** Runs a rendered script whose exec prints its argv and two variables, one per NUL-terminated field. */
async function runScript(text: string): Promise<string[]> {
  const dir = Deno.makeTempDirSync({ prefix: "asm-script-test-" });
  try {
    const path = join(dir, "s.sh");
    Deno.writeTextFileSync(path, text);
    const out = await new Deno.Command("/bin/sh", {
      args: [path],
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

Deno.test("a launcher script is pure ASCII whatever its values hold", () => {
  const text = renderLauncher({
    token: "asmlt_abc",
    folder: "/tmp/Ελληνικά 🎉",
    env: NASTY.map((v, i) => [`V${i}`, v] as const),
    exec: NASTY,
  });
  assert.equal(isPureAscii(text), true);
  assert.match(text, /^ASM_LAUNCH_TOKEN='asmlt_abc'; export ASM_LAUNCH_TOKEN$/m);
});

Deno.test("sh reads every value back byte for byte: arguments, variables and the folder", async () => {
  const folder = Deno.makeTempDirSync({ prefix: "asm-script-Ελληνικά 🎉-" });
  try {
    const text = renderLauncher({
      token: "asmlt_abc",
      folder,
      env: NASTY.map((v, i) => [`V${i}`, v] as const),
      // printf '%s\0' prints each argument NUL-terminated; then the token, a variable and the cwd
      exec: [
        "/bin/sh",
        "-c",
        'printf "%s\\0" "$@" "$ASM_LAUNCH_TOKEN" "$V5" "$V2" "$(pwd)"',
        "sh",
        ...NASTY,
      ],
    });
    assert.equal(isPureAscii(text), true);
    const fields = await runScript(text);
    assert.deepEqual(fields, [...NASTY, "asmlt_abc", NASTY[5], NASTY[2], folder]);
  } finally {
    Deno.removeSync(folder, { recursive: true });
  }
});

Deno.test("a variable name sh cannot assign is refused", () => {
  assert.throws(
    () => renderLauncher({ token: "asmlt_a", folder: "/", env: [["A B", "x"]], exec: ["true"] }),
    /cannot be an environment variable name/,
  );
});
