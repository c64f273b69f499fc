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

export function isId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{24}$/.test(value);
}

/**
 * The lowest id `newId` can make during the second `at` falls in: every id made before that second sorts
 * below it. Lets a time-ordered table be cut by its primary key, with no index on its time column.
 */
export function idFloor(at: Date): string {
  return (Math.floor(at.getTime() / 1000) >>> 0).toString(16).padStart(8, '0') + '0'.repeat(16);
}
