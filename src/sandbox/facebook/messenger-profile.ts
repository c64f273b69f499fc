import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError, invalidParam } from '../graph/errors.js';
import type { SimulatorState } from '../types.js';
import { pageTokenRefused } from './store.js';

/*
 * The Messenger Profile API (https://developers.facebook.com/docs/messenger-platform/reference/messenger-profile-api):
 * `GET|POST|DELETE /{page-id}/messenger_profile` with the Page token. The persistent menu is refused as
 * Meta refuses it: more than 3 top-level items or 5 nested ones, an item without its title, payload or url.
 */

function profiles(state: SimulatorState): Map<string, Record<string, unknown>> {
  let m = state.data.get('messenger-profile') as Map<string, Record<string, unknown>> | undefined;
  if (!m) {
    m = new Map();
    state.data.set('messenger-profile', m);
  }
  return m;
}

/** The Page's messenger profile (what GET answers), for assertions. */
export const messengerProfileOf = (state: SimulatorState, pageId: string) => profiles(state).get(pageId) ?? {};

function menuProblem(menu: unknown): string | null {
  const menus = typeof menu === 'string' ? (JSON.parse(menu) as unknown) : menu;
  if (!Array.isArray(menus)) return '(#100) persistent_menu must be an array';
  if (!menus.some((m) => (m?.locale ?? 'default') === 'default'))
    return '(#100) persistent_menu must include a menu with locale default';
  const check = (actions: unknown, max: number, nested: boolean): string | null => {
    if (!Array.isArray(actions) || !actions.length) return '(#100) call_to_actions must be a non-empty array';
    if (actions.length > max) return `(#100) call_to_actions must have at most ${max} items`;
    for (const a of actions as Record<string, unknown>[]) {
      if (typeof a.title !== 'string' || !a.title) return '(#100) call_to_actions[].title is required';
      if (a.type === 'postback' && !a.payload) return '(#100) payload is required for postback buttons';
      if (a.type === 'web_url' && !a.url) return '(#100) url is required for web_url buttons';
      if (a.type === 'nested') {
        if (nested) return '(#100) nested menus can only be one level deep';
        const p = check(a.call_to_actions, 5, true);
        if (p) return p;
      } else if (a.type !== 'postback' && a.type !== 'web_url')
        return `(#100) Invalid call_to_actions type ${String(a.type)}`;
    }
    return null;
  };
  for (const m of menus as Record<string, unknown>[]) {
    const p = check(m.call_to_actions, 3, false);
    if (p) return p;
  }
  return null;
}

const fieldsOf = (v: unknown): string[] => {
  const parsed = typeof v === 'string' && v.trim().startsWith('[') ? (JSON.parse(v) as unknown) : v;
  return (Array.isArray(parsed) ? parsed : String(parsed ?? '').split(','))
    .map((f) => String(f).trim().toLowerCase())
    .filter(Boolean);
};

const read: GraphHandler = (call: GraphCall) => {
  const refused = pageTokenRefused(call);
  if (refused) return refused;
  const profile = messengerProfileOf(call.state, call.node.id);
  const wanted = fieldsOf(call.params.fields);
  const shown = Object.fromEntries(Object.entries(profile).filter(([k]) => !wanted.length || wanted.includes(k)));
  return { data: Object.keys(shown).length ? [shown] : [] };
};

const write: GraphHandler = (call) => {
  const refused = pageTokenRefused(call);
  if (refused) return refused;
  const p = call.params;
  const set: Record<string, unknown> = {};
  for (const key of [
    'persistent_menu',
    'ice_breakers',
    'get_started',
    'whitelisted_domains',
    'commands',
    'description',
    'account_linking_url',
  ]) {
    if (p[key] === undefined) continue;
    try {
      set[key] =
        typeof p[key] === 'string' && /^[[{]/.test(String(p[key]).trim()) ? JSON.parse(String(p[key])) : p[key];
    } catch {
      return invalidParam(call.reply, `(#100) Param ${key} must be JSON`);
    }
  }
  if (!Object.keys(set).length)
    return invalidParam(
      call.reply,
      '(#100) Requires one of the params: persistent_menu, ice_breakers, get_started, ...',
    );
  if (set.persistent_menu !== undefined) {
    const problem = menuProblem(set.persistent_menu);
    if (problem) return invalidParam(call.reply, problem);
    // https://developers.facebook.com/docs/messenger-platform/send-messages/persistent-menu: a menu needs the Get Started button.
    const current = profiles(call.state).get(call.node.id) ?? {};
    if (!set.get_started && !current.get_started) set.get_started = { payload: 'GET_STARTED' };
  }
  profiles(call.state).set(call.node.id, { ...(profiles(call.state).get(call.node.id) ?? {}), ...set });
  return { result: 'success' };
};

const remove: GraphHandler = (call) => {
  const refused = pageTokenRefused(call);
  if (refused) return refused;
  const fields = fieldsOf(call.params.fields);
  if (!fields.length)
    return graphError(call.reply, 400, { message: '(#100) The parameter fields is required', code: 100 });
  const profile = { ...(profiles(call.state).get(call.node.id) ?? {}) };
  for (const f of fields) delete profile[f];
  profiles(call.state).set(call.node.id, profile);
  return { result: 'success' };
};

export const MESSENGER_PROFILE_HANDLERS: Record<string, GraphHandler> = {
  'GET Page messenger_profile': read,
  'POST Page messenger_profile': write,
  'DELETE Page messenger_profile': remove,
};
