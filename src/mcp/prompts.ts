import { ErrorCode, McpError, type GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { descriptorOf } from '../platforms/catalogue.js';
import type { Dispatch } from './tools.js';

/*
 * "Draft a post for these accounts": the prompt gives the assistant each chosen account's platform with
 * the text limits Herald validates by (the same descriptors POST /v1/posts checks), and, for a draft
 * text, its length on each platform counted by those rules, so the variants it writes fit before
 * validate_post is ever called.
 */

export const DRAFT_POST_PROMPT = {
  name: 'draft_post',
  title: 'Draft a post for these accounts',
  description: 'Per-platform variants of a post for the chosen accounts, each within its platform limits',
  arguments: [
    { name: 'accountIds', description: 'Comma-separated account ids (list_accounts)', required: true },
    { name: 'brief', description: 'What the post is about, or a draft text to adapt', required: true },
  ],
};

interface AccountRow {
  _id: string;
  platform: string;
  username?: string;
}

export async function draftPostPrompt(
  dispatch: Dispatch,
  name: string,
  args: Record<string, string>,
): Promise<GetPromptResult> {
  if (name !== DRAFT_POST_PROMPT.name)
    throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${name.slice(0, 100)}`);
  const ids = String(args.accountIds ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const brief = String(args.brief ?? '').trim();
  if (!ids.length || !brief)
    throw new McpError(ErrorCode.InvalidParams, 'accountIds and brief are required', { code: 'validation_error' });
  const answer = await dispatch({ method: 'GET', url: '/v1/accounts' });
  if (answer.status >= 400) throw new McpError(ErrorCode.InvalidRequest, 'Could not read the accounts', answer.body);
  const accounts = ((answer.body as { accounts?: AccountRow[] }).accounts ?? []).filter((a) => ids.includes(a._id));
  const unknown = ids.filter((id) => !accounts.some((a) => a._id === id));
  // An id outside the caller's scope reads exactly like one that does not exist.
  if (unknown.length)
    throw new McpError(ErrorCode.InvalidParams, `Unknown account id(s): ${unknown.join(', ').slice(0, 500)}`, {
      code: 'account_not_found',
    });
  const lines = accounts.map((a) => {
    const d = descriptorOf(a.platform);
    const rules = (d?.text ?? []).map((r) => {
      const used = r.count(brief);
      return `at most ${r.limit} ${r.unit} (the brief as written counts ${used}${used > r.limit ? ', too long' : ''})`;
    });
    return `- ${a._id}: ${d?.name ?? a.platform}${a.username ? ` @${a.username}` : ''}: ${rules.join('; ') || 'no text limit'}`;
  });
  const text = [
    'Draft one variant of a social post for each account below, adapted to its platform and within its limits.',
    `Brief: ${brief}`,
    '',
    'Accounts and the limits Herald validates by:',
    ...lines,
    '',
    'Then call validate_post with the variants as platforms[].customContent, fix what it reports, and only then create_post ' +
      '(it is a dry run until you pass confirm: true; show the person the dry run first, since publishing is public).',
  ].join('\n');
  return { description: DRAFT_POST_PROMPT.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}
