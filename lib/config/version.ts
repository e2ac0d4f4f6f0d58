/**
 * asm's version, as `/api/health` reports it to a caller without the token (and later `asm --version`).
 * @module
 */

/** The version of this checkout. */
export const ASM_VERSION = "0.5.0";
