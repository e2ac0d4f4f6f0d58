import assert from "node:assert/strict";
import { memoryOutliner } from "./memory.ts";
import { BoardBusy, withFreshBoard } from "./retry.ts";

const card = (id: string) => ({ id, name: `Card ${id}`, children: [] });

Deno.test("a pass whose write is refused plans again from a fresh read, and then writes", async () => {
  const board = memoryOutliner({ process: [card("a")] });
  let tries = 0;
  const result = await withFreshBoard(board, async (read) => {
    tries++;
    if (tries < 3) board.edit((lists) => lists.plan.push(card(`hand-${tries}`))); // the editor saved meanwhile
    return await board.move("a", "plan", "bottom", read.stamp);
  }, { tries: 3 });
  assert.equal(tries, 3);
  assert.ok(result.stamp);
  assert.deepEqual(board.lists.plan.map((c) => c.id), ["hand-1", "hand-2", "a"]);
  const reads = board.calls.filter((c) => c.op === "read");
  assert.deepEqual(reads, [{ op: "read", fresh: true }, { op: "read", fresh: true }, {
    op: "read",
    fresh: true,
  }]);
});

Deno.test("an editor saving under every try makes the pass give up with one sentence", async () => {
  const board = memoryOutliner({ process: [card("a")] }, { location: "/home/me/vault/board.md" });
  let tries = 0;
  await assert.rejects(
    withFreshBoard(board, (read) => {
      tries++;
      board.edit(() => {});
      return board.rename("a", "asm's title", read.stamp);
    }, { tries: 4 }),
    (err: Error) =>
      err instanceof BoardBusy &&
      err.message ===
        "the board at /home/me/vault/board.md changed 4 times in a row while asm was writing to it (someone " +
          "editing it by hand, or an editor saving it every few seconds?); asm stopped where it was, and the next " +
          "pass tries again",
  );
  assert.equal(tries, 4);
  assert.equal(board.lists.process[0].name, "Card a", "nothing was written");
});

Deno.test("any other error ends the pass at once", async () => {
  const board = memoryOutliner();
  let tries = 0;
  await assert.rejects(
    withFreshBoard(board, () => {
      tries++;
      throw new Error("the ledger is read-only");
    }),
    /the ledger is read-only/,
  );
  assert.equal(tries, 1);
});
