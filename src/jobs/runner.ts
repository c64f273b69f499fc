import type { Logger } from 'pino';
import { randomHex } from '../lib/crypto.js';
import type { Clock } from '../lib/clock.js';
import type { Db } from '../store/db.js';
import { claimDueJobs, completeJob, extendLease, failJob, rescheduleJob, type JobRow } from '../store/jobs.js';
import { backoffMs } from '../lib/backoff.js';
import { type PayloadOf, readPayload } from './payloads.js';

/** What a task receives besides its job row: its payload, checked against `JOB_PAYLOADS` when listed. */
export interface TaskRun<P = unknown> {
  job: JobRow;
  payload: P;
  workerId: string;
  /** The runner keeps the lease while the task runs; a task may check it before an irreversible step. */
  signal: AbortSignal;
}

/**
 * A task's return tells the runner what to do with the job row:
 * - undefined / 'done': delete it;
 * - 'handled': the task already deleted or rescheduled it in its own transaction.
 */
type TaskOutcome = void | 'done' | 'handled';

export type TaskHandler<P = unknown> = (run: TaskRun<P>) => Promise<TaskOutcome>;

/** Thrown by a task to be run again at a given time without counting as a crash. */
export class RetryLater extends Error {
  constructor(
    public readonly at: Date,
    message: string,
    public readonly resetAttempts = false,
  ) {
    super(message);
    this.name = 'RetryLater';
  }
}

export interface PeriodicTask {
  task: string;
  everyMs: number;
}

export interface RunnerOptions {
  workerId?: string;
  /** Idle poll interval in ms. */
  pollMs: number;
  /**
   * Jobs due within this many ms are claimed by the poll and each started at its own due time (default
   * 0: only jobs already due). With the poll interval here, a job due between two polls starts on time
   * instead of up to one interval late, and jobs paced a few ms apart (engine/pace.ts) go out that far
   * apart, not in one burst per poll. Needs a clock that moves with timers.
   */
  lookaheadMs?: number;
  /** Jobs run at the same time by this process. */
  concurrency: number;
  /**
   * Most jobs claimed by one statement (default 32). When jobs finish, the loop claims again only once
   * this many slots are free (at most half of `concurrency`), so a burst is claimed in batches rather
   * than one statement per finished job; the regular poll still fills any free slot.
   */
  batchSize?: number;
  /** How long a claim lasts before another worker may take the job over. Renewed while the task runs. */
  leaseMs?: number;
  /** Only these tasks (default: every registered task). */
  tasks?: string[];
  /**
   * Tasks that run in a lane of their own, with their own slots beside `concurrency`: however many of
   * them are due, they never take a slot the other tasks need (inbox polling never holds a publishing
   * worker), and they never run more than the lane's `concurrency` at once.
   */
  lanes?: Array<{ tasks: string[]; concurrency: number }>;
  /** Called on start and every `everyMs` while running (`beat`), and once on stop (`end`). Errors are logged. */
  heartbeat?: { everyMs: number; beat(workerId: string): Promise<unknown>; end(workerId: string): Promise<unknown> };
}

/** A set of tasks and the slots they share. The main lane runs every task no other lane names. */
interface Lane {
  readonly tasks: string[] | null;
  readonly concurrency: number;
  readonly inFlight: Set<Promise<void>>;
  readonly refillAt: number;
}

export class JobRunner {
  readonly workerId: string;
  private readonly handlers = new Map<string, TaskHandler>();
  private readonly periodic: PeriodicTask[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly lanes: Lane[];
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** A nudge arrived while the loop was claiming: its next sleep may return at once. */
  private nudged = false;
  private timer: NodeJS.Timeout | null = null;
  private beating: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: RunnerOptions,
  ) {
    this.workerId = options.workerId ?? `w-${process.pid}-${randomHex(4)}`;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.batchSize = Math.max(1, options.batchSize ?? 32);
    const lane = (tasks: string[] | null, concurrency: number): Lane => ({
      tasks,
      concurrency,
      inFlight: new Set(),
      // Free slots that make a finished job wake the loop for a new claim.
      refillAt: Math.max(1, Math.min(this.batchSize, Math.ceil(concurrency / 2))),
    });
    this.lanes = [
      lane(null, options.concurrency),
      ...(options.lanes ?? []).map((l) => lane(l.tasks, Math.max(1, l.concurrency))),
    ];
  }

  /** The tasks a lane claims: its own, or (main lane) every task this runner runs that no other lane names. */
  private laneTasks(lane: Lane): string[] {
    if (lane.tasks) return this.options.tasks ? lane.tasks.filter((t) => this.options.tasks!.includes(t)) : lane.tasks;
    const elsewhere = new Set(this.lanes.flatMap((l) => l.tasks ?? []));
    return (this.options.tasks ?? [...this.handlers.keys()]).filter((t) => !elsewhere.has(t));
  }

  register<T extends string>(task: T, handler: TaskHandler<PayloadOf<T>>): this {
    // The payload is checked against the task's schema before the handler runs (execute), so the
    // handler's narrower payload type holds.
    this.handlers.set(task, handler as TaskHandler);
    return this;
  }

  /** A task that runs every `everyMs`; its single job row is created on start if missing. */
  registerPeriodic(task: string, everyMs: number, handler: TaskHandler): this {
    this.periodic.push({ task, everyMs });
    return this.register(task, async (run) => {
      await handler(run);
      await rescheduleJob(
        this.db.kysely,
        run.job.job_id,
        this.workerId,
        new Date(this.clock.now().getTime() + everyMs),
        null,
        {
          resetAttempts: true,
        },
      );
      return 'handled';
    });
  }

  get periodicTasks(): readonly PeriodicTask[] {
    return this.periodic;
  }

  /** One pass: claims what is due (up to free capacity) and waits for those jobs. Tests call this. */
  async tick(): Promise<number> {
    const started: Promise<void>[] = [];
    for (const lane of this.lanes) {
      const free = lane.concurrency - lane.inFlight.size;
      const tasks = this.laneTasks(lane);
      if (free <= 0 || tasks.length === 0) continue;
      const now = this.clock.now();
      const jobs = await claimDueJobs(this.db, {
        workerId: this.workerId,
        now,
        leaseUntil: new Date(now.getTime() + this.leaseMs),
        limit: free,
        tasks,
      });
      started.push(...jobs.map((job) => this.track(lane, this.execute(job))));
    }
    await Promise.all(started);
    return started.length;
  }

  /** Runs ticks until the queue is empty (tests; bounded to avoid a runaway loop). */
  async drain(maxTicks = 1000): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxTicks; i++) {
      const n = await this.tick();
      total += n;
      if (n === 0) return total;
    }
    throw new Error(`jobs still due after ${maxTicks} ticks`);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const hb = this.options.heartbeat;
    if (hb) {
      const beat = () =>
        void hb.beat(this.workerId).catch((err) => this.log.error({ err }, 'job runner: heartbeat failed'));
      beat();
      this.beating = setInterval(beat, hb.everyMs);
      this.beating.unref();
    }
    this.loop = this.run();
  }

  /** Wakes the poll loop now (after enqueuing due work in this process). */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /** Stops claiming, then waits for the jobs in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    if (this.beating) {
      clearInterval(this.beating);
      this.beating = null;
      await this.options.heartbeat
        ?.end(this.workerId)
        .catch((err) => this.log.error({ err }, 'job runner: heartbeat end failed'));
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let again = false;
      // Whatever nudged before this claim is answered by it.
      this.nudged = false;
      try {
        again = await this.claimAndStart();
      } catch (error) {
        // NOTE: the one catch-and-continue of the codebase: a database hiccup must not stop the worker.
        this.log.error({ err: error }, 'job runner: claim failed');
      }
      if (!this.running) break;
      if (!again) await this.sleep(this.options.pollMs);
    }
  }

  /** Claims up to one batch per lane; true when more may be due and enough slots are still free to claim again now. */
  private async claimAndStart(): Promise<boolean> {
    let again = false;
    for (const lane of this.lanes) {
      const free = lane.concurrency - lane.inFlight.size;
      const tasks = this.laneTasks(lane);
      if (free <= 0 || tasks.length === 0) continue;
      const limit = Math.min(free, this.batchSize);
      const now = this.clock.now();
      const jobs = await claimDueJobs(this.db, {
        workerId: this.workerId,
        now,
        dueBy: new Date(now.getTime() + (this.options.lookaheadMs ?? 0)),
        leaseUntil: new Date(now.getTime() + this.leaseMs),
        limit,
        tasks,
      });
      for (const job of jobs)
        void this.track(
          lane,
          this.atDueTime(job).then(() => this.execute(job)),
        ).then(() => this.finished(lane));
      if (jobs.length === limit && lane.concurrency - lane.inFlight.size >= lane.refillAt) again = true;
    }
    return again;
  }

  /** A job ended: wake the loop once a batch worth of its lane's slots is free (else the next poll claims). */
  private finished(lane: Lane): void {
    if (this.roomIn(lane)) this.nudge();
  }

  private roomIn(lane: Lane): boolean {
    return lane.concurrency - lane.inFlight.size >= lane.refillAt;
  }

  /** Resolves when `job` is due (at once for a job already due: every job without a lookahead). */
  private async atDueTime(job: JobRow): Promise<void> {
    const due = Date.parse(job.run_at);
    // A timer may fire a millisecond early: wait again until the clock has passed the due time.
    for (let wait = due - this.clock.now().getTime(); wait > 0; wait = due - this.clock.now().getTime())
      await new Promise((resolve) => setTimeout(resolve, wait));
  }

  private track(lane: Lane, p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    lane.inFlight.add(p);
    return p.finally(() => {
      this.inFlight.delete(p);
      lane.inFlight.delete(p);
    });
  }

  private sleep(ms: number): Promise<void> {
    // A nudge that came while claiming counts only if a batch worth of slots is still free; otherwise the
    // next job to finish (or the poll) wakes the loop.
    const nudged = this.nudged;
    this.nudged = false;
    if (nudged && this.lanes.some((l) => this.roomIn(l))) return Promise.resolve();
    return new Promise((resolve) => {
      this.timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        if (this.timer) clearTimeout(this.timer);
        this.wake = null;
        this.nudged = false;
        resolve();
      };
    });
  }

  private async execute(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.task);
    const controller = new AbortController();
    const renew = setInterval(
      () => {
        const until = new Date(this.clock.now().getTime() + this.leaseMs);
        extendLease(this.db.kysely, job.job_id, this.workerId, until)
          .then((held) => {
            if (!held) controller.abort();
          })
          .catch(() => {});
      },
      Math.max(1000, this.leaseMs / 3),
    );
    renew.unref();
    try {
      if (!handler) throw new Error(`no handler for task ${job.task}`);
      const read = readPayload(job.task, job.payload);
      if (!read.ok) {
        // NOTE: a retry cannot mend a payload, so the job fails at once, loudly, and keeps the reason.
        this.log.error({ jobId: job.job_id, task: job.task }, `job runner: ${read.reason}`);
        await failJob(this.db.kysely, job.job_id, this.workerId, read.reason, this.clock.now());
        return;
      }
      const outcome = await handler({ job, payload: read.payload, workerId: this.workerId, signal: controller.signal });
      if (outcome !== 'handled') await completeJob(this.db.kysely, job.job_id, this.workerId);
    } catch (error) {
      await this.onFailure(job, error).catch((e) =>
        this.log.error({ err: e, jobId: job.job_id }, 'job runner: could not record failure'),
      );
    } finally {
      clearInterval(renew);
    }
  }

  private async onFailure(job: JobRow, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof RetryLater) {
      await rescheduleJob(this.db.kysely, job.job_id, this.workerId, error.at, message, {
        resetAttempts: error.resetAttempts,
      });
      return;
    }
    this.log.warn({ err: error, jobId: job.job_id, task: job.task, attempt: job.attempts }, 'job failed');
    const now = this.clock.now();
    if (job.attempts >= job.max_attempts) {
      await failJob(this.db.kysely, job.job_id, this.workerId, message, now);
      return;
    }
    await rescheduleJob(
      this.db.kysely,
      job.job_id,
      this.workerId,
      new Date(now.getTime() + backoffMs(job.attempts)),
      message,
    );
  }
}
