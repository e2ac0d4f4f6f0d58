import assert from "node:assert/strict";
import { join } from "node:path";
import type { ListIds } from "./protocol.ts";
import { markdownOutliner } from "./markdown.ts";
import { watchBoard } from "./watch.ts";

const IDS: ListIds = { plan: "asm-plan", process: "asm-process", complete: "asm-complete" };
const SETTLE = 60;

/** Waits until `done()` or `ms` pass, looking every 10 ms. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

Deno.test("a hand edit wakes the reconciler once; asm's own write wakes nothing", async () => {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "asm-board-watch-" }));
  const path = join(dir, "board.md");
  const board = markdownOutliner(path, { lists: IDS });
  let { stamp } = await board.read(); // makes the default board
  let wakes = 0;
  const watch = watchBoard(board, () => wakes++, { settleMs: SETTLE });
  try {
    // asm's own writes: a burst of events (temp file, rename), then nothing
    ({ stamp } = await board.create("plan", { name: "Mine", children: ["prompt"] }, "top", stamp));
    await board.identify(stamp);
    await new Promise((r) => setTimeout(r, SETTLE * 5));
    assert.equal(wakes, 0, "asm's own write wakes nothing");
    // a memoised read now: only the wake below can make the next one see the file again
    assert.equal((await board.read()).lists.plan[0].name, "Mine");

    // another hand: an editor saving by rename, in a burst of its own
    const text = Deno.readTextFileSync(path).replace("Mine", "Mine, retitled by hand");
    Deno.writeTextFileSync(join(dir, ".board.md.swp"), text);
    Deno.renameSync(join(dir, ".board.md.swp"), path);
    Deno.writeTextFileSync(join(dir, "other-note.md"), "not the board\n");
    await until(() => wakes > 0, 3_000);
    await new Promise((r) => setTimeout(r, SETTLE * 3));
    assert.equal(wakes, 1, "one hand edit wakes once");
    assert.equal(
      (await board.read()).lists.plan[0].name,
      "Mine, retitled by hand",
      "the wake dropped the memo",
    );

    // the same bytes saved again is no change
    Deno.writeTextFileSync(path, text);
    await new Promise((r) => setTimeout(r, SETTLE * 5));
    assert.equal(wakes, 1);

    // closed: an edit wakes nothing, and a second close is harmless
    await watch.close();
    Deno.writeTextFileSync(path, `${text}more by hand\n`);
    await new Promise((r) => setTimeout(r, SETTLE * 3));
    assert.equal(wakes, 1);
  } finally {
    await watch.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
