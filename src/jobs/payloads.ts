import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * The payload of each job task that takes one, by task name. The runner checks a claimed job's payload
 * against its schema before the task sees it: a payload that does not match fails the job at once, with
 * the reason logged as an error and kept on the row (never a silent default such as an empty id).
 * Periodic tasks take no payload and are not listed.
 */
const JOB_PAYLOADS = {
  'post.publish': Type.Object({
    targetId: Type.String({ minLength: 1 }),
    /** Processing checks already made for this target. */
    checks: Type.Optional(Type.Integer({ minimum: 0 })),
    /** When pacing deferred this run: the epoch ms it was paced to. */
    paced: Type.Optional(Type.Number()),
  }),
  'post.check-processing': Type.Object({
    targetId: Type.String({ minLength: 1 }),
    checks: Type.Optional(Type.Integer({ minimum: 0 })),
    errors: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  'post.resolve-url': Type.Object({
    targetId: Type.String({ minLength: 1 }),
    standIn: Type.String({ minLength: 1 }),
    handle: Type.Record(Type.String(), Type.Unknown()),
    since: Type.String({ minLength: 1 }),
    checks: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  'post.recycle': Type.Object({ postId: Type.String({ minLength: 1 }) }),
  'webhook.deliver': Type.Object({ eventId: Type.String({ minLength: 1 }), webhookId: Type.String({ minLength: 1 }) }),
  'account.refresh': Type.Object({ accountId: Type.String({ minLength: 1 }) }),
  'analytics.collect': Type.Object({ accountId: Type.String({ minLength: 1 }) }),
  'inbox.sync': Type.Object({ accountId: Type.String({ minLength: 1 }) }),
  'inbox.automation': Type.Object({
    logId: Type.String({ minLength: 1 }),
    step: Type.Union([Type.Literal('dm'), Type.Literal('reply')]),
  }),
} satisfies Record<string, TSchema>;

type JobTask = keyof typeof JOB_PAYLOADS;

/** The payload a task's handler receives: typed for a listed task, `unknown` for any other. */
export type PayloadOf<T extends string> = T extends JobTask ? Static<(typeof JOB_PAYLOADS)[T]> : unknown;

/**
 * The parsed payload of a claimed job, or the reason it cannot be run. A task not listed gets whatever
 * JSON its row holds.
 */
export function readPayload(task: string, raw: string): { ok: true; payload: unknown } | { ok: false; reason: string } {
  let payload: unknown;
  try {
    payload = JSON.parse(raw);
  } catch {
    return { ok: false, reason: `the payload of ${task} is not JSON` };
  }
  const schema: TSchema | undefined = Object.hasOwn(JOB_PAYLOADS, task) ? JOB_PAYLOADS[task as JobTask] : undefined;
  if (!schema || Value.Check(schema, payload)) return { ok: true, payload };
  const first = Value.Errors(schema, payload).First();
  return {
    ok: false,
    reason: `malformed payload for ${task}: ${first ? `${first.path || '/'} ${first.message}` : 'does not match its schema'}`,
  };
}
