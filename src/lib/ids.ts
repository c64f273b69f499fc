import { randomBytes } from 'node:crypto';

// 24 lowercase hex characters: 4 bytes of seconds since the epoch, 5 random bytes fixed per process,
// 3 bytes of a counter. The shape clients of this API already expect (Mongo ObjectId), sortable by time.
const processRandom = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export function newId(now: Date = new Date()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(now.getTime() / 1000) >>> 0;
  return seconds.toString(16).padStart(8, '0') + processRandom + counter.toString(16).padStart(6, '0');
}

export const ID_PATTERN = '^[0-9a-f]{24}$';

export function isId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{24}$/.test(value);
}
