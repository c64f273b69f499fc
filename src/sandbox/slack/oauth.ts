import type { FastifyInstance } from 'fastify';
import type { SimulatorState } from '../types.js';
import { SlackError, type MethodCall } from './call.js';
import { randomToken, slackStore, workspaceOf } from './store.js';

/*
 * Slack's OAuth v2 install (https://api.slack.com/authentication/oauth-v2): the consent page
 * (`/oauth/v2/authorize`) approves at once and redirects with a code, installing the app in the
 * workspace `team` names (default the first; the consenting user owns both); oauth.v2.access trades
 * the code for a bot token. With `_config {tokenRotation: true}` tokens expire after 12 hours and come
 * with a refresh token (https://api.slack.com/authentication/rotation).
 *
 * Test controls: `POST /_oauth/revoke` `{team?}` revokes every token (of that workspace), as an
 * uninstall; `POST /_oauth/faults` `{kind: 'unavailable' | 'invalid_grant', count}` fails the next
 * token calls.
 */

const ROTATION_TTL_SEC = 12 * 3600;

export function exchangeToken(state: SimulatorState, now: () => Date, call: MethodCall): Record<string, unknown> {
  const store = slackStore(state);
  if (store.oauthFault.count > 0) {
    store.oauthFault.count--;
    throw new SlackError(store.oauthFault.kind === 'unavailable' ? 'service_unavailable' : 'invalid_code');
  }
  const { args, request } = call;
  const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  const [basicId, basicSecret] = basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(':') : [];
  const clientId = args.client_id ?? basicId;
  const clientSecret = args.client_secret ?? basicSecret;
  if (!clientId) throw new SlackError('invalid_client_id');
  if (!clientSecret) throw new SlackError('bad_client_secret');
  let team: string;
  let scope: string;
  if (args.grant_type === 'refresh_token') {
    const grant = store.refreshTokens.get(args.refresh_token ?? '');
    if (!grant || grant.revoked) throw new SlackError('invalid_refresh_token');
    grant.revoked = true;
    ({ team, scope } = grant);
  } else {
    const code = store.codes.get(args.code ?? '');
    if (!code) throw new SlackError('invalid_code');
    if (code.used) throw new SlackError('code_already_used');
    if (args.redirect_uri !== undefined && args.redirect_uri !== code.redirectUri)
      throw new SlackError('bad_redirect_uri');
    code.used = true;
    ({ team, scope } = code);
  }
  const ws = workspaceOf(store, team);
  const rotating = store.settings.tokenRotation;
  const accessToken = randomToken(`xoxb-${ws.id}-`);
  store.tokens.set(accessToken, {
    team,
    scope,
    revoked: false,
    expiresAt: rotating ? now().getTime() + ROTATION_TTL_SEC * 1000 : null,
  });
  const refresh = rotating ? randomToken('xoxe-1-') : null;
  if (refresh) store.refreshTokens.set(refresh, { team, scope, revoked: false, expiresAt: null });
  return {
    app_id: 'A0HERALDAPP',
    authed_user: { id: ws.users[0].id },
    scope,
    token_type: 'bot',
    access_token: accessToken,
    bot_user_id: ws.botUserId,
    team: { id: ws.id, name: ws.name },
    enterprise: null,
    is_enterprise_install: false,
    ...(refresh ? { refresh_token: refresh, expires_in: ROTATION_TTL_SEC } : {}),
  };
}

export function registerSlackOAuth(app: FastifyInstance, state: SimulatorState, _now: () => Date): void {
  app.get('/oauth/v2/authorize', async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    const missing = ['client_id', 'redirect_uri', 'state'].filter((k) => !q[k]);
    if (missing.length)
      return reply
        .status(400)
        .type('text/plain')
        .send(`Slack could not install the app: missing ${missing.join(', ')}`);
    if (!q.scope && !q.user_scope)
      return reply.status(400).type('text/plain').send('Slack could not install the app: invalid_scope');
    const store = slackStore(state);
    const ws = store.workspaces.find((w) => w.id === q.team) ?? store.workspaces[0];
    const code = randomToken(`${ws.id}.code.`);
    store.codes.set(code, { team: ws.id, redirectUri: q.redirect_uri!, scope: q.scope ?? '', used: false });
    const target = new URL(q.redirect_uri!);
    target.searchParams.set('code', code);
    target.searchParams.set('state', q.state!);
    return reply.redirect(target.toString(), 302);
  });
  app.post('/_oauth/revoke', async (request) => {
    const { team } = (request.body ?? {}) as { team?: string };
    const store = slackStore(state);
    for (const g of [...store.tokens.values(), ...store.refreshTokens.values()])
      if (!team || g.team === team) g.revoked = true;
    return { ok: true };
  });
  app.post('/_oauth/faults', async (request, reply) => {
    const { kind, count } = (request.body ?? {}) as { kind?: string; count?: number };
    if ((kind !== 'unavailable' && kind !== 'invalid_grant') || !Number.isInteger(count) || (count as number) < 0) {
      return reply.status(400).send({ error: 'kind must be unavailable or invalid_grant and count an integer >= 0' });
    }
    slackStore(state).oauthFault = { kind, count: count as number };
    return { ok: true };
  });
}
