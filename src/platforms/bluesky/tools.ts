import { Type } from '@sinclair/typebox';
import { platformTool } from '../tools.js';
import { MAX_LANGS } from './rules.js';

/*
 * Bluesky's own routes (platforms/tools.ts) with the hosted API's wire (@zernio/node 0.2.881:
 * getBlueskySettings, updateBlueskySettings). The settings are Herald's, kept in the account's metadata:
 * `defaultLangs` is written as the post record's `langs` whenever a post names none
 * (platformSpecificData.langs wins; index.ts postLangs). Bluesky has no post editing, so a change applies
 * to posts published after it.
 */

const Langs = Type.Union([
  Type.Array(Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' }), {
    minItems: 1,
    maxItems: MAX_LANGS,
  }),
  Type.Null(),
]);
const Settings = Type.Object({ defaultLangs: Langs });

const langsOf = (metadata: Record<string, unknown>): string[] | null =>
  Array.isArray(metadata.defaultLangs) ? metadata.defaultLangs.map(String) : null;

const getSettings = platformTool()({
  method: 'GET',
  path: 'bluesky-settings',
  tags: ['Bluesky'],
  summary: 'Get Bluesky account settings',
  description:
    "The account's default post languages (defaultLangs), applied at publish when a post's platformSpecificData.langs is absent; null when none is set.",
  response: Settings,
  async handler({ account }) {
    return { body: { defaultLangs: langsOf(account!.metadata) } };
  },
});

const updateSettings = platformTool()({
  method: 'PATCH',
  path: 'bluesky-settings',
  tags: ['Bluesky'],
  summary: 'Update Bluesky account settings',
  description: `Sets (1-${MAX_LANGS} BCP-47 codes such as "pt" or "en-US") or clears (null) the default post languages. Applies to posts published afterwards.`,
  body: Settings,
  response: Settings,
  async handler({ body }) {
    return { body: { defaultLangs: body.defaultLangs }, accountMetadata: { defaultLangs: body.defaultLangs } };
  },
});

export const BLUESKY_TOOLS = [getSettings, updateSettings];
