import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with Node's scrypt. Stored form: `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>`, so
 * the cost can be raised later and older hashes still verify with the parameters they were made with.
 */
const N = 16_384;
const R = 8;
const P = 1;
const KEY_LEN = 32;
/** scrypt needs 128 * N * r bytes; the default limit (32 MiB) leaves no room above N = 2^15. */
const MAX_MEM = 64 * 1024 * 1024;

/** Passwords shorter than this are refused; longer than MAX are refused as well (hashing cost). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, keyLen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLen, { ...opts, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, KEY_LEN, { N, r: R, p: P });
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  if (![n, r, p].every((v) => Number.isInteger(v) && v > 0) || expected.length === 0) return false;
  const key = await derive(password, salt, expected.length, { N: n, r, p });
  return timingSafeEqual(key, expected);
}

/** A hash to compare against when the email is unknown, so that case takes as long as a wrong password. */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
