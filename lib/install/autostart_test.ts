import assert from "node:assert/strict";
import { parseUnit, renderUnit } from "./autostart.ts";

Deno.test("a unit asm wrote reads back as written, whatever the folder names hold", () => {
  const file = `/home/a b/"q"/100%/$HOME\\x/asm`;
  const path = `/opt/a b/bin:/home/u/100%/bin:/x"y\\z`;
  const home = `/data/it's %n $x`;
  const text = renderUnit({
    execStart: [file, "serve"],
    path,
    asmHome: home,
    environmentFile: `${home}/agents.env`,
  });
  const read = parseUnit(text);
  assert.deepEqual(read.execStart, [file, "serve"]);
  assert.deepEqual(read.environment, { PATH: path, ASM_HOME: home });
  assert.equal(read.environmentFile, `${home}/agents.env`);
});

Deno.test("a unit file without the lines reads as nothing said", () => {
  assert.deepEqual(parseUnit("# hand-written\n[Service]\nType=simple\n"), {
    execStart: null,
    environment: {},
    environmentFile: null,
  });
  assert.deepEqual(parseUnit("ExecStart=/usr/bin/asm serve --port 8000\n").execStart, [
    "/usr/bin/asm",
    "serve",
    "--port",
    "8000",
  ]);
});
