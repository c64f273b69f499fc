import type { FastifyRequest } from 'fastify';
import type { SimWorkspace } from './store.js';

/** A Web API method call as the simulator's handlers see it, and the refusal each of them may throw. */
export class SlackError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

export interface MethodCall {
  args: Record<string, string>;
  /** The workspace of the token (null for oauth.v2.access). */
  team: string | null;
  ws: SimWorkspace | null;
  request: FastifyRequest;
}
