import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError, invalidParam } from '../graph/errors.js';
import { world } from '../graph/world.js';
import type { SimulatorState } from '../types.js';
import { parse, refused, send, threadFor, WINDOW_MS, type Thread } from './inbox.js';
import { threadOwners } from './message-events.js';

/*
 * The Send API's sender actions and Messenger's handover protocol on the simulated Graph API, and a
 * Page liking a post:
 * - `POST /{page}/messages` with `sender_action` (https://developers.facebook.com/documentation/business-messaging/messenger-platform/send-messages/sender-actions):
 *   `typing_on`, `typing_off`, `mark_seen`, and `react` / `unreact` with `payload` {message_id, reaction}
 *   (Graph's spec types `payload` as a string: JSON text). Like any message they need the person to have
 *   written within 24 hours (code 10, subcode 2018278), and a reaction needs a message of that thread;
 * - `POST /{page}/take_thread_control`, `release_thread_control` and `pass_thread_control` (target_app_id)
 *   (https://developers.facebook.com/docs/messenger-platform/handover-protocol);
 * - `POST|DELETE /{post}/likes`: the Page likes a post (https://developers.facebook.com/docs/graph-api/reference/object/likes).
 * What each did is readable with `messageReactions`, `senderActions`, `threadOwners` and the post's
 * `likes` (tests).
 */

/** The Page's reaction to each message, by message id. */
export function messageReactions(state: SimulatorState): Map<string, string> {
  let m = state.data.get('fb-message-reactions') as Map<string, string> | undefined;
  if (!m) {
    m = new Map();
    state.data.set('fb-message-reactions', m);
  }
  return m;
}

/** The last sender action other than a reaction the Page showed each person (`typing_on`, `mark_seen`...), by PSID. */
export function senderActions(state: SimulatorState): Map<string, string> {
  let m = state.data.get('fb-sender-actions') as Map<string, string> | undefined;
  if (!m) {
    m = new Map();
    state.data.set('fb-sender-actions', m);
  }
  return m;
}

/** The thread of `recipient.id`, or the reply already sent (Graph's "No matching user found"). */
function recipientThread(call: GraphCall): Thread | null {
  const recipient = parse(call.params.recipient) as { id?: string } | undefined;
  if (!recipient?.id) {
    invalidParam(call.reply, '(#100) Param recipient must include id');
    return null;
  }
  const found = threadFor(call.state, call.node.id, String(recipient.id));
  if (!found) {
    graphError(call.reply, 400, { message: '(#100) No matching user found', code: 100, subcode: 2018001 });
    return null;
  }
  return found.data as unknown as Thread;
}

const outsideWindow = (call: GraphCall, t: Thread) =>
  (t.lastUserAt === null || call.now - t.lastUserAt >= WINDOW_MS) &&
  graphError(call.reply, 400, {
    message: '(#10) This message is sent outside of allowed window.',
    code: 10,
    subcode: 2018278,
  });

const senderAction: GraphHandler = (call) => {
  if (refused(call, call.node.id, 'pages_messaging')) return call.reply;
  const action = String(call.params.sender_action).toLowerCase();
  if (call.params.message !== undefined)
    return invalidParam(call.reply, '(#100) sender_action cannot be sent with message');
  const t = recipientThread(call);
  if (!t) return call.reply;
  if (outsideWindow(call, t)) return call.reply;
  if (action === 'react' || action === 'unreact') {
    const payload = parse(call.params.payload) as { message_id?: string; reaction?: string } | undefined;
    if (!payload?.message_id) return invalidParam(call.reply, '(#100) Param payload[message_id] is required');
    if (!t.messages.some((m) => m.id === payload.message_id))
      return invalidParam(call.reply, '(#100) No matching message for payload[message_id]');
    if (action === 'react') {
      if (typeof payload.reaction !== 'string' || !payload.reaction)
        return invalidParam(call.reply, '(#100) Param payload[reaction] is required to react');
      messageReactions(call.state).set(payload.message_id, payload.reaction);
    } else messageReactions(call.state).delete(payload.message_id);
  } else senderActions(call.state).set(t.psid, action);
  return { recipient_id: t.psid };
};

/** Sender actions and messages share the edge: a call with `sender_action` is an action. */
const messages: GraphHandler = (call) => (call.params.sender_action !== undefined ? senderAction(call) : send(call));

const control =
  (action: 'take' | 'release' | 'pass'): GraphHandler =>
  (call) => {
    if (refused(call, call.node.id, 'pages_messaging')) return call.reply;
    const t = recipientThread(call);
    if (!t) return call.reply;
    const key = `${call.node.id}:${t.psid}`;
    const owners = threadOwners(call.state);
    if (action === 'pass') {
      const target = call.params.target_app_id;
      if (typeof target !== 'string' || !/^\d+$/.test(target))
        return invalidParam(call.reply, '(#100) Param target_app_id must be an app id');
      owners.set(key, target);
    } else if (action === 'take') owners.set(key, 'app');
    else {
      if ((owners.get(key) ?? 'app') !== 'app')
        return graphError(call.reply, 400, { message: '(#10) The app does not have thread control', code: 10 });
      owners.set(key, 'released');
    }
    return { success: true };
  };

const likePost =
  (on: boolean): GraphHandler =>
  (call) => {
    const o = call.node.object!;
    if (call.token.kind !== 'page' || !call.token.scopes.includes('pages_manage_engagement'))
      return graphError(call.reply, 400, {
        message: '(#200) Requires pages_manage_engagement permission to manage the object',
        code: 200,
      });
    const likes = new Set((o.data.likes as string[] | undefined) ?? []);
    if (on) likes.add(call.token.pageId!);
    else likes.delete(call.token.pageId!);
    o.data.likes = [...likes];
    return { success: true };
  };

export const SENDER_ACTION_HANDLERS: Record<string, GraphHandler> = {
  'POST Page messages': messages,
  'POST Page take_thread_control': control('take'),
  'POST Page release_thread_control': control('release'),
  'POST Page pass_thread_control': control('pass'),
  'POST PagePost likes': likePost(true),
  'DELETE PagePost likes': likePost(false),
};

/** Which pages like the post (the simulator's record). */
export const postLikes = (state: SimulatorState, postId: string): string[] =>
  (world(state).objects.get(postId)?.data.likes as string[] | undefined) ?? [];
