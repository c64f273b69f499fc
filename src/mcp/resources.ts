import { ErrorCode, McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Dispatch } from './tools.js';

/*
 * Resources an assistant can read into its context without a tool call: the accounts it may post to and
 * the calendar of the coming week. Both are the caller's view (the same routes, the same scope).
 */

const WEEK_MS = 7 * 24 * 3600 * 1000;

interface ResourceDef {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
  request(now: Date): { method: string; url: string };
}

export const RESOURCES: readonly ResourceDef[] = [
  {
    uri: 'herald://accounts',
    name: 'Connected accounts',
    description: 'The social accounts this key can post to, with platform, username and profile',
    mimeType: 'application/json',
    request: () => ({ method: 'GET', url: '/v1/accounts' }),
  },
  {
    uri: 'herald://calendar/next-7-days',
    name: 'Calendar of the coming week',
    description: 'Posts scheduled, published or failed from now until seven days from now, in time order',
    mimeType: 'application/json',
    request: (now) => ({
      method: 'GET',
      url: `/v1/posts/calendar?dateFrom=${encodeURIComponent(now.toISOString())}&dateTo=${encodeURIComponent(new Date(now.getTime() + WEEK_MS).toISOString())}`,
    }),
  },
];

export async function readResource(dispatch: Dispatch, uri: string, now = new Date()): Promise<ReadResourceResult> {
  const def = RESOURCES.find((r) => r.uri === uri);
  if (!def)
    throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri.slice(0, 200)}`, {
      code: 'resource_not_found',
    });
  const answer = await dispatch(def.request(now));
  if (answer.status >= 400) {
    const envelope = answer.body as { error?: string; code?: string };
    throw new McpError(ErrorCode.InvalidRequest, envelope?.error ?? `The API answered ${answer.status}`, answer.body);
  }
  return { contents: [{ uri, mimeType: def.mimeType, text: JSON.stringify(answer.body) }] };
}
