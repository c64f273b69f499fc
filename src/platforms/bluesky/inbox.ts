import {
  PlatformError,
  type AccountCredentials,
  type CommentRef,
  type InboundComment,
  type InboundMention,
  type InboundMessage,
  type InboxBatch,
  type InboxCapability,
  type PlatformIO,
} from '../types.js';
import { parseAtUri, xrpc, type XrpcCall } from './api.js';

const POST = 'app.bsky.feed.post';
const LIKE = 'app.bsky.feed.like';

/** What the inbox needs from the adapter: where the account's PDS is and its session. */
export interface BlueskyAccountAccess {
  service(account: AccountCredentials): string;
  did(account: AccountCredentials): string;
  token(account: AccountCredentials): string;
  postUrl(account: AccountCredentials, uri: string): string;
  /** The chat service the PDS forwards `chat.bsky.*` to (`atproto-proxy`), e.g. did:web:api.bsky.chat#bsky_chat. */
  chatService: string;
}

interface StrongRef {
  uri: string;
  cid: string;
}

interface Author {
  did: string;
  handle: string;
  displayName?: string;
  avatar?: string;
}

interface Notification {
  uri: string;
  cid: string;
  author: Author;
  reason: string;
  reasonSubject?: string;
  record: {
    text?: string;
    createdAt?: string;
    reply?: { root: StrongRef; parent: StrongRef };
    // A quote: app.bsky.embed.record's strong ref, or recordWithMedia's, one level down (uri absent above).
    embed?: { record?: StrongRef & { record?: StrongRef } };
  };
  indexedAt: string;
}

interface MessageView {
  $type?: string;
  id: string;
  rev: string;
  text?: string;
  sender: { did: string };
  sentAt: string;
}

interface ConvoView {
  id: string;
  rev: string;
  members: Author[];
}

/** The reasons that bring a comment on one of the account's posts (app.bsky.notification.listNotifications). */
const COMMENT_REASONS = ['reply', 'quote', 'mention'];
/** How far back the first poll looks. */
const FIRST_POLL_MS = 7 * 86_400_000;
const PAGES = 5;

/**
 * Bluesky's inbox, all through the account's PDS:
 * - comments: `app.bsky.notification.listNotifications` (the PDS forwards it to the app view) for replies,
 *   quotes and mentions under the account's own posts; a `mention` elsewhere is a mention of the account,
 *   answered with a reply under the mentioning post; a reply is an app.bsky.feed.post with `reply`
 *   {root, parent} strong refs; like/unlike are app.bsky.feed.like records (the like needs the comment's
 *   cid, the unlike the like's URI). Bluesky has no hiding of replies through the API and no private reply.
 * - direct messages: `chat.bsky.convo.*`, forwarded by the PDS to the chat service named in the
 *   `atproto-proxy` header. The PDS forwards chat only for a session from a privileged app password
 *   (otherwise 400 "Bad token method"): that answer becomes a clear `rejected` error, never a session
 *   failure (the session is fine for everything else). Text only; no archive.
 */
export function blueskyInbox(access: BlueskyAccountAccess): InboxCapability {
  const call = <T>(io: PlatformIO, account: AccountCredentials, c: Omit<XrpcCall, 'service' | 'token'>) =>
    xrpc<T>(io, { service: access.service(account), token: access.token(account), ...c });

  const chat = async <T>(
    io: PlatformIO,
    account: AccountCredentials,
    c: Omit<XrpcCall, 'service' | 'token' | 'headers'>,
  ): Promise<T> => {
    try {
      return await call<T>(io, account, { ...c, headers: { 'atproto-proxy': access.chatService } });
    } catch (error) {
      if (error instanceof PlatformError && /bad token method/i.test(error.message)) {
        throw new PlatformError(
          'rejected',
          'direct messages need a privileged app password (Settings > Privacy and security > App passwords > "Allow access to your direct messages"); reconnect the account with one',
          { status: error.status, platformCode: 'app_password_not_privileged', endpoint: error.endpoint, cause: error },
        );
      }
      throw error;
    }
  };

  const person = (a: Author) => ({
    id: a.did,
    name: a.displayName || a.handle,
    username: a.handle,
    picture: a.avatar ?? null,
  });

  /** The account's post a notification is about, or null when it is not under one of its posts. */
  function commentOf(account: AccountCredentials, n: Notification): InboundComment | null {
    const me = access.did(account);
    const mine = (uri: string | undefined) => (uri ? parseAtUri(uri)?.repo === me : false);
    const reply = n.record.reply;
    const quoted: StrongRef | undefined = n.record.embed?.record?.uri
      ? n.record.embed.record
      : n.record.embed?.record?.record;
    let root: StrongRef | null = null;
    if (reply && mine(reply.root.uri)) root = reply.root;
    else if (reply && mine(reply.parent.uri)) root = reply.parent;
    else if (quoted && mine(quoted.uri)) root = quoted;
    if (!root) return null;
    const parentUri = reply && reply.parent.uri !== root.uri ? reply.parent.uri : null;
    const createdAt = new Date(n.record.createdAt ?? n.indexedAt);
    return {
      postId: root.uri,
      commentId: n.uri,
      parentId: parentUri,
      direction: 'incoming',
      author: person(n.author),
      text: n.record.text ?? '',
      createdAt: Number.isFinite(createdAt.getTime()) ? createdAt : new Date(n.indexedAt),
      url: `https://bsky.app/profile/${n.author.handle}/post/${parseAtUri(n.uri)?.rkey ?? ''}`,
      post: { permalink: access.postUrl(account, root.uri), extra: { uri: root.uri, cid: root.cid } },
      extra: {
        cid: n.cid,
        rootUri: root.uri,
        rootCid: root.cid,
        ...(reply ? { parentUri: reply.parent.uri, parentCid: reply.parent.cid } : {}),
      },
    };
  }

  /**
   * A post that mentions the account outside its threads: answered with a reply under that post, in
   * the post's own thread (its root, or the post itself when it is one).
   */
  function mentionOf(n: Notification): InboundMention {
    const createdAt = new Date(n.record.createdAt ?? n.indexedAt);
    const root = n.record.reply?.root ?? { uri: n.uri, cid: n.cid };
    return {
      mentionId: n.uri,
      mediaId: n.uri,
      author: person(n.author),
      text: n.record.text ?? '',
      createdAt: Number.isFinite(createdAt.getTime()) ? createdAt : new Date(n.indexedAt),
      url: `https://bsky.app/profile/${n.author.handle}/post/${parseAtUri(n.uri)?.rkey ?? ''}`,
      extra: { cid: n.cid, rootUri: root.uri, rootCid: root.cid },
    };
  }

  /** Notifications newer than `since`, newest first, a few pages at most. */
  async function syncComments(
    account: AccountCredentials,
    since: string,
    io: PlatformIO,
  ): Promise<{ comments: InboundComment[]; mentions: InboundMention[]; newest: string | null }> {
    const comments: InboundComment[] = [];
    const mentions: InboundMention[] = [];
    let newest: string | null = null;
    let cursor: string | undefined;
    for (let page = 0; page < PAGES; page++) {
      const res = await call<{ notifications: Notification[]; cursor?: string }>(io, account, {
        nsid: 'app.bsky.notification.listNotifications',
        method: 'GET',
        params: { limit: 50, cursor },
      });
      let older = false;
      for (const n of res.notifications ?? []) {
        if (n.indexedAt <= since) {
          older = true;
          continue;
        }
        if (!newest || n.indexedAt > newest) newest = n.indexedAt;
        if (!COMMENT_REASONS.includes(n.reason)) continue;
        const c = commentOf(account, n);
        if (c) comments.push(c);
        else if (n.reason === 'mention') mentions.push(mentionOf(n));
      }
      if (older || !res.cursor || !res.notifications?.length) break;
      cursor = res.cursor;
    }
    return { comments, mentions, newest };
  }

  /** Messages in conversations whose rev moved past the stored one (revs only grow). */
  async function syncMessages(
    account: AccountCredentials,
    revs: Record<string, string>,
    io: PlatformIO,
  ): Promise<{ messages: InboundMessage[]; revs: Record<string, string> }> {
    const me = access.did(account);
    const messages: InboundMessage[] = [];
    const next = { ...revs };
    let cursor: string | undefined;
    for (let page = 0; page < PAGES; page++) {
      const res = await chat<{ convos: ConvoView[]; cursor?: string }>(io, account, {
        nsid: 'chat.bsky.convo.listConvos',
        method: 'GET',
        params: { limit: 50, cursor },
      });
      let unchanged = false;
      for (const convo of res.convos ?? []) {
        const seen = revs[convo.id];
        if (seen && convo.rev <= seen) {
          unchanged = true;
          continue;
        }
        const other = convo.members.find((m) => m.did !== me) ?? convo.members[0];
        let mcursor: string | undefined;
        for (let mpage = 0; mpage < PAGES; mpage++) {
          const got = await chat<{ messages: MessageView[]; cursor?: string }>(io, account, {
            nsid: 'chat.bsky.convo.getMessages',
            method: 'GET',
            params: { convoId: convo.id, limit: 100, cursor: mcursor },
          });
          let done = false;
          for (const m of got.messages ?? []) {
            if (seen && m.rev <= seen) {
              done = true;
              break;
            }
            if (m.$type && m.$type !== 'chat.bsky.convo.defs#messageView') continue;
            const incoming = m.sender.did !== me;
            const sender = convo.members.find((x) => x.did === m.sender.did);
            messages.push({
              conversationId: convo.id,
              messageId: m.id,
              direction: incoming ? 'incoming' : 'outgoing',
              sender: sender ? person(sender) : { id: m.sender.did },
              participant: other ? person(other) : null,
              text: m.text ?? null,
              sentAt: new Date(m.sentAt),
              conversationUrl: `https://bsky.app/messages/${convo.id}`,
              extra: { rev: m.rev },
            });
          }
          if (done || !got.cursor || !got.messages?.length) break;
          mcursor = got.cursor;
        }
        next[convo.id] = convo.rev;
      }
      // Conversations come newest activity first: once one has not moved, the rest have not either.
      if (unchanged || !res.cursor || !res.convos?.length) break;
      cursor = res.cursor;
    }
    return { messages, revs: next };
  }

  const rkeyOfLike = (ref: CommentRef) => {
    const parsed = parseAtUri(String(ref.extra.likeUri ?? ''));
    if (!parsed || parsed.collection !== LIKE)
      throw new PlatformError('rejected', `likeUri is not a Bluesky like record (at://<did>/${LIKE}/<rkey>)`, {
        platformCode: 'invalid_like_uri',
      });
    return parsed;
  };

  return {
    mentions: true,
    conversations: {
      // Text only: an attachment, buttons or templates are PLATFORM_LIMITATION before Bluesky is called.
      features: {},
      async send(account, m, io) {
        const sent = await chat<MessageView>(io, account, {
          nsid: 'chat.bsky.convo.sendMessage',
          method: 'POST',
          json: { convoId: m.conversationId, message: { text: m.text ?? '' } },
          creates: true,
        });
        return { messageId: sent.id, sentAt: new Date(sent.sentAt), extra: { rev: sent.rev } };
      },
    },
    comments: {
      requires: { like: ['cid'], unlike: ['likeUri'] },
      /**
       * A reply under the mentioning post (or comment), in its thread: the strong refs need the cids
       * Herald stored when it listed the mention, so only a listed mention can be answered.
       */
      async replyToMention(account, req, io) {
        const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
        const cid = str(req.extra.cid);
        if (!cid)
          throw new PlatformError(
            'rejected',
            'this mention is not one Herald listed (GET /v1/inbox/mentions): its cid is unknown',
            { platformCode: 'missing_parent_cid' },
          );
        const parent: StrongRef = { uri: req.commentId ?? req.mediaId, cid };
        const rootUri = str(req.extra.rootUri);
        const rootCid = str(req.extra.rootCid);
        const root: StrongRef = rootUri && rootCid ? { uri: rootUri, cid: rootCid } : parent;
        const res = await call<StrongRef>(io, account, {
          nsid: 'com.atproto.repo.createRecord',
          method: 'POST',
          json: {
            repo: access.did(account),
            collection: POST,
            record: { $type: POST, text: req.text, createdAt: io.now().toISOString(), reply: { root, parent } },
          },
          creates: true,
        });
        return { id: res.uri };
      },
      async reply(account, req, io) {
        const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
        // The thread's root: what Herald stored with the comment, else the post row (or the caller's rootUri/rootCid).
        const rootCid = str(req.extra.rootCid) ?? str(req.post.cid);
        if (!rootCid)
          throw new PlatformError('rejected', "the post's cid is unknown: pass rootCid (and rootUri)", {
            platformCode: 'missing_root_cid',
          });
        const root: StrongRef = { uri: str(req.extra.rootUri) ?? str(req.post.uri) ?? req.postId, cid: rootCid };
        let parent: StrongRef = root;
        if (req.commentId) {
          const cid = typeof req.extra.cid === 'string' ? req.extra.cid : null;
          if (!cid)
            throw new PlatformError('rejected', "the comment's cid is unknown: pass parentCid", {
              platformCode: 'missing_parent_cid',
            });
          parent = { uri: req.commentId, cid };
        }
        const res = await call<StrongRef>(io, account, {
          nsid: 'com.atproto.repo.createRecord',
          method: 'POST',
          json: {
            repo: access.did(account),
            collection: POST,
            record: { $type: POST, text: req.text, createdAt: io.now().toISOString(), reply: { root, parent } },
          },
          creates: true,
        });
        return { commentId: res.uri, extra: { cid: res.cid, rootUri: root.uri, rootCid: root.cid } };
      },
      async delete(account, ref, io) {
        const parsed = parseAtUri(ref.commentId);
        if (!parsed || parsed.collection !== POST)
          throw new PlatformError('rejected', `not a Bluesky post uri: ${ref.commentId}`, {
            platformCode: 'invalid_uri',
          });
        if (parsed.repo !== access.did(account))
          throw new PlatformError(
            'rejected',
            "Bluesky only lets an account delete its own replies; someone else's reply cannot be removed",
            { platformCode: 'not_own_record' },
          );
        await call(io, account, {
          nsid: 'com.atproto.repo.deleteRecord',
          method: 'POST',
          json: { repo: parsed.repo, collection: POST, rkey: parsed.rkey },
        });
      },
      async like(account, ref, io) {
        const res = await call<StrongRef>(io, account, {
          nsid: 'com.atproto.repo.createRecord',
          method: 'POST',
          json: {
            repo: access.did(account),
            collection: LIKE,
            record: {
              $type: LIKE,
              subject: { uri: ref.commentId, cid: String(ref.extra.cid) },
              createdAt: io.now().toISOString(),
            },
          },
        });
        return { likeUri: res.uri };
      },
      async unlike(account, ref, io) {
        const like = rkeyOfLike(ref);
        if (like.repo !== access.did(account))
          throw new PlatformError('rejected', 'likeUri is not a like of this account', {
            platformCode: 'not_own_record',
          });
        await call(io, account, {
          nsid: 'com.atproto.repo.deleteRecord',
          method: 'POST',
          json: { repo: like.repo, collection: LIKE, rkey: like.rkey },
        });
      },
    },
    /**
     * One poll: notifications since the newest seen (`seenAt` stays the app's: Herald never marks them
     * read), and conversations whose rev moved. A session without chat access (ordinary app password)
     * still syncs comments.
     */
    async sync(account, cursor, io): Promise<InboxBatch> {
      const since =
        typeof cursor?.since === 'string' ? cursor.since : new Date(io.now().getTime() - FIRST_POLL_MS).toISOString();
      const revs = (cursor?.revs ?? {}) as Record<string, string>;
      const { comments, mentions, newest } = await syncComments(account, since, io);
      let messages: InboundMessage[] = [];
      let nextRevs = revs;
      let chatAccess = true;
      try {
        ({ messages, revs: nextRevs } = await syncMessages(account, revs, io));
      } catch (error) {
        if (!(error instanceof PlatformError && error.platformCode === 'app_password_not_privileged')) throw error;
        chatAccess = false;
      }
      return { comments, messages, mentions, cursor: { since: newest ?? since, revs: nextRevs, chatAccess } };
    },
  };
}
