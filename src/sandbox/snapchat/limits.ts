import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { enforceLimits, type LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { snapError } from './store.js';

/*
 * Snap's Marketing API limits (the Public Profile API is part of it),
 * https://developers.snap.com/api/marketing-api/Ads-API/rate-limits: "the App is able to support an overall
 * average volume of 20 requests/second, individual Access tokens issued by the App can make requests at
 * an average of 10 requests/second". Beyond, "HTTP 429 Too Many Requests"; Snap sends no wait hint.
 * NOTE: an average allows bursts (an upload sends its parts back to back); the page does not say over
 * how long it is taken, so the simulator averages over a sliding minute: 600 calls per token, 1,200 per app.
 */

const PER_APP: LimitRule = { name: 'app-minute', limit: 20 * 60, windowMs: 60_000, kind: 'sliding' };
const PER_TOKEN: LimitRule = { name: 'token-minute', limit: 10 * 60, windowMs: 60_000, kind: 'sliding' };

export function registerSnapchatLimits(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim): void {
  enforceLimits(app, state, {
    charges(request) {
      const client = oauth.clientFor(request.headers.authorization);
      if (!client) return [];
      return [
        [PER_TOKEN, request.headers.authorization!],
        [PER_APP, client],
      ];
    },
    refuse: (reply) => void snapError(reply, 429, 'E1302', 'Too many requests: rate limit exceeded'),
  });
}
