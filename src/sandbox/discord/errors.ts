import type { FastifyReply } from 'fastify';
import type { FaultOp } from '../faults.js';
import type { SimulatorState } from '../types.js';

/** Discord's error answers (https://discord.com/developers/docs/reference#error-messages) and the armed faults. */

export function discordError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  errors?: Record<string, unknown>,
) {
  return reply.status(status).send({ code, message, ...(errors ? { errors } : {}) });
}

/** Answers the armed fault of `op`, if any, as Discord would; `ambiguous` is left to the caller (record, then hang up). */
export function sendFault(state: SimulatorState, op: FaultOp, reply: FastifyReply): 'ambiguous' | 'sent' | null {
  const kind = state.faults.take(op);
  if (!kind) return null;
  if (kind === 'ambiguous') return 'ambiguous';
  if (kind === 'rate_limited') {
    reply.header('retry-after', '2').header('x-ratelimit-scope', 'user');
    reply.status(429).send({ code: 0, message: 'You are being rate limited.', retry_after: 1.5, global: false });
  } else if (kind === 'unavailable') discordError(reply, 502, 0, '502: Bad Gateway');
  else if (kind === 'auth') discordError(reply, 401, 0, '401: Unauthorized');
  else discordError(reply, 403, 50013, 'Missing Permissions');
  return 'sent';
}
