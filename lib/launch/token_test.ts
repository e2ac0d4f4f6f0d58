import assert from "node:assert/strict";
import { isToken, mintToken, TOKEN_PATTERN } from "./token.ts";

Deno.test("a minted token has the shape the hook looks for in command lines", () => {
  const token = mintToken();
  assert.match(token, TOKEN_PATTERN);
  // the hook's own pattern, unanchored, must find the whole token inside a command line
  assert.equal(`sh /x/launches/${token}.sh ${token}`.match(/asmlt_[0-9a-z]+/)?.[0], token);
});

Deno.test("two minted tokens differ", () => {
  assert.notEqual(mintToken(), mintToken());
});

Deno.test("the same random bytes give the same token, and zero bytes still give a token", () => {
  const fixed = (b: Uint8Array) => b.fill(7);
  assert.equal(mintToken(fixed), mintToken(fixed));
  assert.equal(mintToken((b) => b.fill(0)), "asmlt_0");
});

Deno.test("isToken accepts tokens only", () => {
  assert.equal(isToken("asmlt_abc123"), true);
  for (const bad of ["asmlt_", "asmlt_ABC", "asmlt_a-b", "xasmlt_a", "asmlt_a ", 7, null]) {
    assert.equal(isToken(bad), false, String(bad));
  }
});
