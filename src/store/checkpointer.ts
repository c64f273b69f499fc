import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints a SQLite database in WAL mode from a thread of its own.
 *
 * SQLite copies the write-ahead log back into the database file (a checkpoint) inside whichever COMMIT
 * takes the log past `wal_autocheckpoint` pages: on the server's one thread, with two fsyncs, while every
 * request waits. This thread runs PASSIVE checkpoints
 * on its own connection instead, on the machine's other core: PASSIVE never waits for the writer or
 * blocks it, and copies only what every reader has finished with. The writer starts the log over only
 * when a write begins with everything copied, which a steady stream of commits never allows, so the
 * server's connection keeps a higher `wal_autocheckpoint` (10,000 pages instead of 1,000): that
 * checkpoint finds almost everything copied already and lets the log start over. It is also the safety
 * net if this thread dies. In the POST /v1/posts bench this raised throughput by about 15%; the price is
 * that one commit in a few hundred (the one that restarts the log) takes about twice as long.
 *
 * Several processes on one file may each run one: SQLite lets one checkpoint run at a time and the
 * others answer "busy" at once.
 */
export interface Checkpointer {
  /** Resolves once the thread has opened the database (tests use it to wait for a first pass). */
  readonly ready: Promise<void>;
  /**
   * Runs one checkpoint now and resolves with the frames then in the log and those copied (both -1 when
   * another connection was checkpointing or the thread has ended).
   */
  checkpoint(): Promise<{ logFrames: number; checkpointedFrames: number }>;
  close(): Promise<void>;
}

export interface CheckpointerOptions {
  /** Pause between passes while the log keeps growing. */
  busyIntervalMs?: number;
  /** Pause between passes when the last one found nothing to copy. */
  idleIntervalMs?: number;
}

// The worker's code is a string so that it runs the same from the TypeScript sources (tests) and the
// build, with no file of its own to locate. It gets better-sqlite3's resolved path from the parent.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
// Never checkpoints on its own: it writes nothing, and its passes are explicit.
db.pragma('wal_autocheckpoint = 0');
let timer = null;
let closed = false;
let lastLogFrames = 0;
function pass() {
  try {
    const row = db.pragma('wal_checkpoint(PASSIVE)')[0];
    return { logFrames: row.log, checkpointedFrames: row.checkpointed };
  } catch (error) {
    // SQLITE_BUSY: another connection is checkpointing; try again next time.
    return { logFrames: -1, checkpointedFrames: -1 };
  }
}
// Soon again while the log grows (or another connection was busy checkpointing), else at the idle pace.
function loop() {
  if (closed) return;
  const r = pass();
  const growing = r.logFrames < 0 || r.logFrames !== lastLogFrames;
  lastLogFrames = r.logFrames;
  timer = setTimeout(loop, growing ? workerData.busyIntervalMs : workerData.idleIntervalMs);
}
parentPort.on('message', (msg) => {
  if (msg.type === 'checkpoint') parentPort.postMessage({ type: 'checkpointed', id: msg.id, ...pass() });
  if (msg.type === 'close') {
    closed = true;
    clearTimeout(timer);
    db.close();
    parentPort.postMessage({ type: 'closed' });
  }
});
parentPort.postMessage({ type: 'ready' });
timer = setTimeout(loop, workerData.idleIntervalMs);
`;

export function startCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      file,
      driver,
      busyIntervalMs: options.busyIntervalMs ?? 20,
      idleIntervalMs: options.idleIntervalMs ?? 250,
    },
  });
  // The thread must never keep the process alive on its own or take it down: if it fails, SQLite's
  // own autocheckpoint on the server's connection still copies the log back.
  worker.unref();
  let failed: Error | null = null;
  worker.on('error', (error) => {
    failed = error;
  });
  let nextId = 0;
  const pending = new Map<number, (r: { logFrames: number; checkpointedFrames: number }) => void>();
  let onClosed: (() => void) | null = null;
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  worker.on('message', (msg: { type: string; id?: number; logFrames?: number; checkpointedFrames?: number }) => {
    if (msg.type === 'ready') markReady();
    if (msg.type === 'checkpointed') {
      pending.get(msg.id!)?.({ logFrames: msg.logFrames!, checkpointedFrames: msg.checkpointedFrames! });
      pending.delete(msg.id!);
    }
    if (msg.type === 'closed') onClosed?.();
  });
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      // A checkpoint asked of a thread that is gone is answered as one that copied nothing.
      for (const resolvePass of pending.values()) resolvePass({ logFrames: -1, checkpointedFrames: -1 });
      pending.clear();
      resolve();
    }),
  );
  return {
    ready,
    checkpoint() {
      if (failed) return Promise.reject(failed);
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        worker.postMessage({ type: 'checkpoint', id });
      });
    },
    async close() {
      if (!failed) {
        await Promise.race([
          new Promise<void>((resolve) => {
            onClosed = resolve;
            worker.postMessage({ type: 'close' });
          }),
          exited,
        ]);
      }
      await worker.terminate();
    },
  };
}
