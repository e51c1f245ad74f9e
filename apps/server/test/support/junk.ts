/** Seeded junk for fuzz tests: the same seed gives the same inputs, so a failure can be replayed. */

export type Rng = () => number;

/** mulberry32: a tiny, well-mixed 32-bit generator, uniform in [0, 1). */
export function mulberry32(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(rng() * items.length)] as T;
}

export function integer(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

/** Strings that have broken parsers, routers, SQL and templates before. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  "'",
  '"',
  ';',
  '`',
  '\\',
  "'; DROP TABLE x; --",
  "' OR '1'='1",
  '1; CREATE ROLE fuzz SUPERUSER LOGIN; --',
  '$1',
  "'); CREATE TABLE fuzz(); --",
  '../',
  '../../../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f',
  '%00',
  '\u0000',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '\u202e',
  '\ufeff',
  '\ud800',
  '𝕏𝕐',
  '🙂',
  'ß',
  'é',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'test',
  'TEST',
  'test ',
  ' test',
  'test\n',
  'test/../test',
  'embedded',
  '-',
  '--',
  '0',
  '-1',
  '1.5',
  '1e309',
  '0x10',
  '0b1',
  'NaN',
  'Infinity',
  '-Infinity',
  '9007199254740993',
  '2147483648',
  '2147483647',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '{"targetId":"test"}',
  'a'.repeat(64),
  'a'.repeat(65),
  '\r\n',
  '\t',
  '*',
  '?',
  '#',
  '&',
  '=',
  '+',
  '/',
  '//',
];

const NASTY_NUMBERS: readonly number[] = [
  NaN,
  Infinity,
  -Infinity,
  -0,
  0,
  1,
  -1,
  1.5,
  1e-300,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  2 ** 31,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 63,
];

const ALPHABETS: readonly string[] = [
  'abcdefghijklmnopqrstuvwxyz0123456789-',
  ' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  'ÀÉÎÕÜßæøåñ中文日本語한국어',
  '\u0000\u0001\u0007\u001b\u007f\u0085\u2028\u2029',
  '🙂💥𝕏🏳️‍🌈',
];

export function junkString(rng: Rng): string {
  const roll = rng();
  if (roll < 0.4) return pick(rng, NASTY_STRINGS);
  if (roll < 0.5) return pick(rng, NASTY_STRINGS).repeat(integer(rng, 2, 20));
  if (roll < 0.55) return pick(rng, ['x', "'", '🙂', '%00', '../']).repeat(10_240 / 2); // ~10 kB and more
  const alphabet = [...pick(rng, ALPHABETS)];
  let text = '';
  const length = integer(rng, 1, 64);
  for (let i = 0; i < length; i++) text += pick(rng, alphabet);
  return text;
}

export function junkNumber(rng: Rng): number {
  if (rng() < 0.6) return pick(rng, NASTY_NUMBERS);
  return Math.floor((rng() - 0.5) * 2 ** integer(rng, 1, 60));
}

/** Any JSON-ish value: strings, numbers, booleans, null, undefined, arrays, objects, deep nesting. */
export function junkValue(rng: Rng, depth = 0): unknown {
  const roll = rng();
  if (depth > 3 || roll < 0.35) return junkString(rng);
  if (roll < 0.5) return junkNumber(rng);
  if (roll < 0.55) return pick(rng, [true, false, null, undefined]);
  if (roll < 0.7) return Array.from({ length: integer(rng, 0, 5) }, () => junkValue(rng, depth + 1));
  if (roll < 0.75) {
    // Deep nesting, as an attacker would send it.
    let nested: unknown = junkString(rng);
    for (let i = 0; i < integer(rng, 20, 200); i++) nested = rng() < 0.5 ? [nested] : { a: nested };
    return nested;
  }
  if (roll < 0.85) {
    // Looks like a join request, but is not quite one.
    return pick(rng, [
      { targetId: junkValue(rng, depth + 1) },
      { targetId: 'test', extra: junkValue(rng, depth + 1) },
      { targetId: ['test'] },
      { targetid: 'test' },
      JSON.parse('{"__proto__": {"polluted": true}, "targetId": "test"}') as unknown,
      { constructor: { prototype: { polluted: true } }, targetId: 'test' },
    ]);
  }
  const object: Record<string, unknown> = {};
  for (let i = 0; i < integer(rng, 0, 5); i++) object[junkString(rng)] = junkValue(rng, depth + 1);
  return object;
}

/** Lone surrogates become U+FFFD, as String.prototype.toWellFormed (ES2024) does. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** encodeURIComponent that cannot throw on lone surrogates. */
export function encodeSafely(text: string): string {
  return encodeURIComponent(wellFormed(text));
}

/**
 * A string as it could travel in a URL: either properly encoded, or raw with only the characters
 * that cannot be on the wire (controls, spaces, non-ASCII) percent-encoded, so '../', '%00', '%zz'
 * and '?' reach the router as they are.
 */
export function inUrl(rng: Rng, text: string): string {
  if (rng() < 0.5) return encodeSafely(text);
  return [...wellFormed(text)].map((char) => (/^[\x21-\x7e]$/.test(char) ? char : encodeURIComponent(char))).join('');
}

/** Printable ASCII only: a header value that an HTTP client could send. */
export function headerSafe(text: string): string {
  return [...text]
    .filter((char) => /^[\x20-\x7e]$/.test(char))
    .join('')
    .slice(0, 8_000);
}
