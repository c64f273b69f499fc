import type { SandboxServer } from '../../src/sandbox/server.js';
import type { TestEnv } from './context.js';
import { sandboxCall } from './sandbox-env.js';

/**
 * What the chat's administrator does before a direct connect (POST /v1/connect/telegram): asks Herald
 * for an access code and posts it in the chat, here through the simulator's `_updates`.
 */
export async function proveTelegramChat(
  env: TestEnv,
  sandbox: SandboxServer,
  apiKey: string,
  profileId: string,
  chatId: string,
): Promise<void> {
  const res = await env.request(apiKey, 'GET', `/v1/connect/telegram?profileId=${profileId}`);
  if (res.status !== 200) throw new Error(`no access code: ${res.status} ${JSON.stringify(res.body)}`);
  await sandboxCall(sandbox, 'POST', '/sandbox/telegram/_updates', { chatId, text: `connect ${res.body.code}` });
}
