import assert from "node:assert/strict";
import { plainLine, plainText } from "./terminal.ts";

Deno.test("escape sequences and control characters from outside never reach a terminal as themselves", () => {
  const hostile = "fix \u001b[31mred\u001b[0m\u0007 bell\rover\nnext\ttab \u009b2J";
  assert.equal(plainText(hostile), "fix \ufffd[31mred\ufffd[0m\ufffd bell\ufffdover\nnext\ttab \ufffd2J");
  assert.equal(plainLine(hostile), "fix \ufffd[31mred\ufffd[0m\ufffd bell over next tab \ufffd2J");
  assert.equal(plainLine("plain words, é ü 日本"), "plain words, é ü 日本");
});
