import type SqliteDatabase from 'better-sqlite3';

/**
 * SQLite's writer lock, taken without blocking the event loop and without starving another process.
 *
 * SQLite lets one connection write at a time. Its own wait (busy_timeout) sleeps inside the call, so the
 * whole process stops: no timer fires, no request is answered, no platform call progresses. And it wakes
 * at intervals that grow to 100 ms: against a process that commits and begins again within a turn of its
 * event loop (group commit under a burst: an inbox ingest), it almost never finds the lock free. The
 * inbox bench measured this as scheduled posts published 1.7 s late in the worker process, and a writer
 * looping on setImmediate starved another connection's BEGIN IMMEDIATE until busy_timeout failed it.
 *
 * Here a BEGIN IMMEDIATE that finds the lock taken is tried again every millisecond or so on a timer,
 * so the event loop goes on meanwhile and a short gap in the other writer's stream is enough; after
 * `timeoutMs` the busy error is thrown as busy_timeout would. And a connection that has held the lock
 * with no gap for `streakMs` steps aside for `yieldMs` before taking it again, so the other process gets
 * a turn: the cost to a process alone is at most yieldMs in streakMs of continuous writing.
 */
export interface WriterLockOptions {
  timeoutMs?: number;
  streakMs?: number;
  yieldMs?: number;
}

export class WriterLock {
  private readonly begin: SqliteDatabase.Statement;
  private readonly timeoutMs: number;
  private readonly streakMs: number;
  private readonly yieldMs: number;
  /** When the current run of back-to-back holds began, and when the lock was last released. */
  private streakStart = 0;
  private releasedAt = -Infinity;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    options: WriterLockOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.streakMs = options.streakMs ?? 50;
    this.yieldMs = options.yieldMs ?? 2;
    this.begin = sqlite.prepare('BEGIN IMMEDIATE');
  }

  /** BEGIN IMMEDIATE: resolves with the lock held (a transaction open on the connection). */
  async acquire(): Promise<void> {
    let now = performance.now();
    if (now - this.releasedAt > 1) {
      this.streakStart = now;
    } else if (now - this.streakStart >= this.streakMs) {
      await sleep(this.yieldMs);
      now = performance.now();
      this.streakStart = now;
    }
    const deadline = now + this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      // busy_timeout is off for this one statement. (A PRAGMA acts when it is compiled, so it cannot be
      // a prepared statement run again.)
      this.sqlite.exec('PRAGMA busy_timeout = 0');
      try {
        this.begin.run();
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw error;
      } finally {
        this.sqlite.exec(`PRAGMA busy_timeout = ${this.timeoutMs}`);
      }
      // About a millisecond, a little more after many tries, with jitter so that two waiting processes
      // do not wake in step.
      await sleep(Math.min(1 + attempt / 50, 4) * (0.75 + Math.random() / 2));
    }
  }

  /** Call once the transaction has ended (COMMIT or ROLLBACK), whether or not that succeeded. */
  released(): void {
    this.releasedAt = performance.now();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
