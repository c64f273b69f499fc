import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FaultKind } from '../faults.js';
import { hangUp } from '../types.js';

/**
 * Graph's error shape: `{"error": {"message", "type", "code", "error_subcode", "is_transient",
 * "fbtrace_id"}}` (https://developers.facebook.com/docs/graph-api/guides/error-handling). An expired or
 * revoked token is HTTP 400 with code 190, not a 401.
 */
export interface GraphErrorFields {
  message: string;
  type?: string;
  code: number;
  subcode?: number;
  isTransient?: boolean;
  userTitle?: string;
  userMessage?: string;
}

function graphErrorBody(e: GraphErrorFields): Record<string, unknown> {
  return {
    error: {
      message: e.message,
      type: e.type ?? 'OAuthException',
      code: e.code,
      ...(e.subcode !== undefined ? { error_subcode: e.subcode } : {}),
      ...(e.isTransient !== undefined ? { is_transient: e.isTransient } : {}),
      ...(e.userTitle ? { error_user_title: e.userTitle, error_user_msg: e.userMessage ?? '' } : {}),
      fbtrace_id: randomBytes(8).toString('base64url'),
    },
  };
}

export function graphError(reply: FastifyReply, status: number, e: GraphErrorFields): FastifyReply {
  return reply.status(status).send(graphErrorBody(e));
}

/** `(#100)` with Graph's invalid-parameter code. */
export const invalidParam = (reply: FastifyReply, message: string, subcode?: number) =>
  graphError(reply, 400, { message, code: 100, subcode });

export const expiredToken = (reply: FastifyReply) =>
  graphError(reply, 400, {
    message:
      'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
    code: 190,
    subcode: 460,
  });

/**
 * An armed fault (POST /_faults) answered as Graph does. `ambiguous` is not answered here: the caller
 * records the item, then hangs up (`settleAmbiguous`).
 */
export function sendGraphFault(reply: FastifyReply, fault: FaultKind | null): boolean {
  switch (fault) {
    case 'rate_limited':
      // Page-level throttling (code 32) with the usage header Graph sends beside it.
      reply.header(
        'x-business-use-case-usage',
        JSON.stringify({
          sandbox: [
            { type: 'pages', call_count: 100, total_cputime: 20, total_time: 30, estimated_time_to_regain_access: 1 },
          ],
        }),
      );
      graphError(reply, 400, { message: '(#32) Page request limit reached', code: 32, isTransient: true });
      return true;
    case 'unavailable':
      graphError(reply, 500, {
        message: 'An unexpected error has occurred. Please retry your request later.',
        code: 2,
        isTransient: true,
      });
      return true;
    case 'rejected':
      graphError(reply, 400, {
        message: '(#368) The action attempted has been deemed abusive or is otherwise disallowed',
        code: 368,
      });
      return true;
    case 'auth':
      graphError(reply, 400, {
        message: 'Error validating access token: Session has expired.',
        code: 190,
        subcode: 463,
      });
      return true;
    default:
      return false;
  }
}

export function settleAmbiguous(reply: FastifyReply, fault: FaultKind | null, answer: unknown): unknown {
  if (fault === 'ambiguous') {
    hangUp(reply);
    return reply;
  }
  return answer;
}
