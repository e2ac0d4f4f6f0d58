/**
 * `./asm bench board`: the requests the board makes to its outliner, against the loopback fake Workflowy (the
 * one backend whose traffic someone else pays for), with the server's own cadence (`BoardRuntime`: the dry run,
 * the 20 s timer, wakes, the outliner's 60 s memo) on a virtual clock, so ten idle minutes take a second:
 *
 * - idle: requests per minute over `minutes` simulated minutes with nothing changing (target <= 3);
 * - a button (DONE on a card of the plan): the requests the press makes (its fresh read, the refusal's read,
 *   the card's check and the move), and those of the one follow-up pass its wake earns;
 * - the baseline, measured the same way in the same run: a pass every 20 s that reads the whole board fresh
 *   (three lists and every card's prompt), as a backend with no memo and no prompt reuse would.
 *
 * One JSON line. The target is reported, never asserted.
 * @module
 */
import { join } from "node:path";
import { startFakeWorkflowy } from "../verify/fakes/workflowy.ts";
import { WorkflowyApi, workflowyOutliner } from "../lib/board/mod.ts";
import { DEFAULT_SETTINGS } from "../lib/config/mod.ts";
import { Ledger } from "../lib/ledger/mod.ts";
import { loadAgents } from "../lib/agents/mod.ts";
import { BoardRuntime, doneCard, ManualTimers } from "../lib/reconcile/mod.ts";
import type { TerminalHost } from "../lib/launch/mod.ts";
import { ratio, round } from "./figures.ts";

/** The figures. */
export interface BoardBench {
  /** cards on the board (with a two-line prompt each) */
  cards: number;
  simulated_minutes: number;
  /** the dry run's read at the start: the three lists and every prompt */
  first_read_requests: number;
  idle_requests_per_min: number;
  /** a pass every 20 s reading everything fresh */
  naive_requests_per_min: number;
  ratio_idle_vs_naive: number;
  /** DONE's own requests (its fresh read, the card's check, the move) */
  button_requests: number;
  /** the one pass the button's wake earns */
  follow_up_pass_requests: number;
  target_idle_per_min: number;
}

/** Options of {@link benchBoard}. */
export interface BoardBenchOptions {
  /** Simulated idle minutes (default 10). */
  minutes?: number;
  /** Cards in SPRINT PLAN and COMPLETE (default 12). */
  cards?: number;
}

/** Runs the bench. */
export async function benchBoard(options: BoardBenchOptions = {}): Promise<BoardBench> {
  const minutes = options.minutes ?? 10;
  const cards = options.cards ?? 12;
  const clock = new ManualTimers(Date.parse("2026-12-01T09:00:00Z"));
  await using fake = await startFakeWorkflowy({ now: clock.now });
  const dir = Deno.makeTempDirSync({ prefix: "asm-bench-board-" });
  const ledger = Ledger.open(join(dir, "ledger.sqlite"));
  try {
    const keyFile = join(dir, "workflowy.key");
    Deno.writeTextFileSync(keyFile, fake.key, { mode: 0o600 });
    const lists = {
      plan: fake.addList("SPRINT PLAN"),
      process: fake.addList("IN PROCESS"),
      complete: fake.addList("COMPLETE"),
    };
    const planned: string[] = [];
    for (let i = 0; i < cards; i++) {
      const list = i % 3 === 2 ? lists.complete : lists.plan;
      const id = fake.typeByHand(list, `Card ${i} <b>with</b> a title #webapp`, {
        children: ["first line", "second"],
      });
      if (list === lists.plan) planned.push(id);
    }
    const outliner = (memoMs?: number) =>
      workflowyOutliner({
        lists,
        clock: clock.now,
        memoMs,
        api: new WorkflowyApi({ url: fake.url, keyFile, clock: clock.now, spacingMs: 0 }),
      });
    const agents = loadAgents({ asmHome: dir, env: { HOME: dir } });
    const board = new BoardRuntime({
      asmHome: dir,
      mode: "testing",
      board: { ...DEFAULT_SETTINGS.board, backend: "workflowy", lists },
      ledger,
      log: () => {},
      agents,
      outliner: outliner(),
      timers: clock.timers,
      watch: false,
    });
    const busy = () => board.cadence().running;
    await board.dryRun();
    const firstRead = fake.count();

    fake.reset();
    const idleEnd = clock.now() + minutes * 60_000;
    await clock.runUntil(idleEnd, busy);
    const idle = fake.count() / minutes;

    // the button: DONE on a card of the plan, then the one pass its wake earns (1 s settle)
    fake.reset();
    const refuse = () => Promise.reject(new Error("the bench opens no window"));
    const host: TerminalHost = {
      name: "none",
      open: refuse,
      panes: () => Promise.resolve([]),
      windowCount: () => Promise.resolve(0),
      type: refuse,
      focus: refuse,
      attach: refuse,
      attachCommand: () => "",
    };
    await doneCard(board.buttons({ ledger, asmHome: dir, env: { HOME: dir }, host, agents })!, planned[0]);
    const button = fake.count();
    fake.reset();
    // within the settle window and the minimum gap after the last pass (3 s), before the next timer (20 s)
    await clock.runUntil(clock.now() + 5_000, busy);
    const followUp = fake.count();
    await board.close();

    // the baseline: the whole board read fresh every 20 s, no memo, no prompt reused
    fake.reset();
    for (let pass = 0; pass < minutes * 3; pass++) await outliner(0).read({ fresh: true });
    const naive = fake.count() / minutes;
    return {
      cards,
      simulated_minutes: minutes,
      first_read_requests: firstRead,
      idle_requests_per_min: round(idle),
      naive_requests_per_min: round(naive),
      ratio_idle_vs_naive: ratio(idle, naive),
      button_requests: button,
      follow_up_pass_requests: followUp,
      target_idle_per_min: 3,
    };
  } finally {
    ledger.close();
    Deno.removeSync(dir, { recursive: true });
  }
}
