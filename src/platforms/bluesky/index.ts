import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import {
  PlatformError,
  type AccountCredentials,
  type CredentialsConnect,
  type MediaRef,
  type PlatformAdapter,
  type PlatformIO,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { postReplies } from '../thread.js';
import { parseAtUri, xrpc } from './api.js';
import { textError } from '../rules/text.js';
import { buildFacets, firstLink } from './facets.js';
import { blueskyAnalytics } from './analytics.js';
import { blueskyInbox, type BlueskyAccountAccess } from './inbox.js';
import { linkCard } from './link-card.js';
import { checkMedia, mediaEmbed, uploadBytes } from './media.js';
import { langsProblem, TEXT } from './rules.js';
import { APP_PASSWORD_RE, createSession, refreshSession, type BlueskySession, type PdsPolicy } from './session.js';

const POST = 'app.bsky.feed.post';
/** Bluesky's own chat service, as the app names it in `atproto-proxy`. */
const CHAT_SERVICE = 'did:web:api.bsky.chat#bsky_chat';

export interface BlueskyOptions {
  /** Where sessions are created: BLUESKY_SERVICE_URL, default https://bsky.social (an entryway). */
  serviceUrl: string;
  /** Which PDS a login may name besides the service (session.ts `pdsOf`); default public https only. */
  pds?: PdsPolicy;
  /** The chat service direct messages go to (BLUESKY_CHAT_SERVICE, default did:web:api.bsky.chat#bsky_chat). */
  chatService?: string;
}

export interface BlueskyAdapter extends PlatformAdapter<PublishResult> {
  readonly serviceUrl: string;
  /** Logs in with a handle (or email, or DID) and an app password; the account's PDS comes with it. */
  createSession(identifier: string, appPassword: string, io: PlatformIO): Promise<BlueskySession>;
  readonly connect: CredentialsConnect;
}

/** BLUESKY_SERVICE_URL (default https://bsky.social); with SANDBOX_URL, the Bluesky simulator. */
function blueskyOptions(config: Config): BlueskyOptions {
  return {
    serviceUrl: platformBaseUrl(config, 'bluesky', 'https://bsky.social', 'SERVICE'),
    pds: { allowPrivate: config.outboundAllowPrivate },
    chatService: platformSetting(config, 'bluesky', 'CHAT_SERVICE', CHAT_SERVICE) ?? CHAT_SERVICE,
  };
}

export function blueskyAdapterFromConfig(config: Config): BlueskyAdapter {
  return createBlueskyAdapter(blueskyOptions(config));
}

/** An app.bsky.feed.post record as listRecords answers it: the fields findPublished and unpublish read. */
interface PostRecordValue {
  text?: string;
  createdAt?: string;
  reply?: { root?: { uri?: string } };
}

interface StrongRef {
  uri: string;
  cid: string;
}

interface Part {
  text: string;
  media: MediaRef[];
}

/** The account's PDS (stored at connect time), else the configured service. */
function pds(account: AccountCredentials, fallback: string): string {
  const url = account.metadata.pdsUrl;
  return typeof url === 'string' && url ? url : fallback;
}

function did(account: AccountCredentials): string {
  const value = account.metadata.did ?? account.platformUserId;
  return String(value);
}

function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the Bluesky account has no session');
  return account.accessToken;
}

/** https://bsky.app/profile/<handle>/post/<rkey> */
function postUrl(account: AccountCredentials, uri: string): string {
  const rkey = parseAtUri(uri)?.rkey ?? '';
  return `https://bsky.app/profile/${account.username || did(account)}/post/${rkey}`;
}

/** Validates every part before the first call, so a thread is never half-sent because of its content. */
/**
 * The post's languages: its own `platformSpecificData.langs`, else the account's default
 * (`defaultLangs`, set with PATCH /v1/accounts/{id}/bluesky-settings), else none (no `langs` field).
 */
function postLangs(req: Pick<PublishRequest, 'platformSpecificData' | 'account'>): string[] | null {
  const own = req.platformSpecificData.langs;
  if (own !== undefined && own !== null) return langsProblem(own) === null ? (own as string[]) : null;
  const fallback = req.account.metadata.defaultLangs;
  return fallback !== undefined && fallback !== null && langsProblem(fallback) === null ? (fallback as string[]) : null;
}

function checkParts(parts: Part[]): void {
  parts.forEach((p, i) => {
    const where = i === 0 ? 'the post' : `thread item ${i}`;
    const tooLong = textError(TEXT, p.text, where);
    if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'text_too_long' });
    if (!p.text.trim() && !p.media.length)
      throw new PlatformError('rejected', `${where} has neither text nor media`, { platformCode: 'empty_post' });
    checkMedia(p.media, where);
  });
}

export function createBlueskyAdapter(opts: BlueskyOptions): BlueskyAdapter {
  const serviceUrl = opts.serviceUrl.replace(/\/+$/, '');
  const pdsPolicy: PdsPolicy = opts.pds ?? { allowPrivate: false };
  /** Where each account's PDS is and its session: what the inbox and analytics read with. */
  const access: BlueskyAccountAccess = {
    service: (account) => pds(account, serviceUrl),
    did,
    token,
    postUrl,
    chatService: opts.chatService ?? CHAT_SERVICE,
  };

  /** @handle -> DID through the PDS (com.atproto.identity.resolveHandle); unknown handles stay plain text. */
  const resolver = (io: PlatformIO, service: string) => async (handle: string) => {
    try {
      const res = await xrpc<{ did: string }>(io, {
        service,
        nsid: 'com.atproto.identity.resolveHandle',
        method: 'GET',
        params: { handle },
      });
      return typeof res?.did === 'string' ? res.did : null;
    } catch (error) {
      // 400 "Unable to resolve handle": not a person. Anything else (PDS down, throttled) stops the publish.
      if (error instanceof PlatformError && error.kind === 'rejected') return null;
      throw error;
    }
  };

  async function buildRecord(
    io: PlatformIO,
    account: AccountCredentials,
    part: Part,
    reply: { root: StrongRef; parent: StrongRef } | null,
    now: Date,
    langs: string[] | null,
  ) {
    const service = pds(account, serviceUrl);
    const facets = await buildFacets(part.text, resolver(io, service));
    let embed: object | null = await mediaEmbed(io, service, token(account), part.media);
    const link = embed ? null : firstLink(part.text);
    if (link) {
      embed = await linkCard(io, link, {
        uploadThumb: (bytes, type) => uploadBytes(io, service, token(account), bytes, type),
      });
    }
    return {
      $type: POST,
      text: part.text,
      createdAt: now.toISOString(),
      ...(facets.length ? { facets } : {}),
      ...(embed ? { embed } : {}),
      ...(reply ? { reply } : {}),
      ...(langs ? { langs } : {}),
    };
  }

  async function createPost(
    io: PlatformIO,
    account: AccountCredentials,
    record: Record<string, unknown>,
  ): Promise<StrongRef> {
    // NOTE: the abort signal means the job lost its lease; another worker may be checking this target.
    if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before sending (lease lost)');
    const res = await xrpc<StrongRef>(io, {
      service: pds(account, serviceUrl),
      nsid: 'com.atproto.repo.createRecord',
      method: 'POST',
      token: token(account),
      json: { repo: did(account), collection: POST, record },
      creates: true,
    });
    return { uri: res.uri, cid: res.cid };
  }

  return {
    platform: 'bluesky',
    serviceUrl,
    createSession: (identifier, appPassword, io) => createSession(io, serviceUrl, identifier, appPassword, pdsPolicy),
    connect: {
      kind: 'credentials',
      serviceUrl,
      login: (identifier, appPassword, io) => createSession(io, serviceUrl, identifier, appPassword, pdsPolicy),
      note: 'Direct messages in the inbox need a privileged app password ("Allow access to your direct messages" when creating it); with an ordinary one, conversation calls are refused.',
      // Only app passwords: a main password is refused before it is sent anywhere.
      checkSecret: (secret) =>
        APP_PASSWORD_RE.test(secret)
          ? null
          : {
              message:
                'appPassword must be a Bluesky app password (xxxx-xxxx-xxxx-xxxx, from Settings > Privacy and security > App passwords), not the main password',
              field: 'must match xxxx-xxxx-xxxx-xxxx (an app password, never the main password)',
            },
    },

    /**
     * The root, then each thread item as a reply with root and parent strong refs (`postReplies`). Once
     * the root is out, a failing reply throws ThreadIncompleteError with what went out (re-sending would post the root
     * again); the next attempt gets it as `req.resume` and continues after the last reply.
     */
    async publish(req: PublishRequest, io: PlatformIO): Promise<PublishResult> {
      const parts: Part[] = [
        { text: req.content, media: req.media },
        ...req.threadItems.map((t) => ({ text: t.content, media: t.media })),
      ];
      checkParts(parts);
      const account = req.account;
      const resume = req.resume ?? null;
      const rootCid = typeof resume?.state?.cid === 'string' ? resume.state.cid : null;
      if (resume && !rootCid)
        throw new PlatformError('rejected', "cannot continue this thread: the root post's cid was not kept");
      const root: StrongRef = resume
        ? { uri: resume.platformPostId, cid: rootCid! }
        : await createPost(io, account, await buildRecord(io, account, parts[0], null, io.now(), postLangs(req)));
      const replies: StrongRef[] = (resume?.replies ?? []).map((r) => ({ uri: r.id, cid: String(r.cid ?? '') }));
      const progress = () => ({
        platformPostId: root.uri,
        platformPostUrl: postUrl(account, root.uri),
        replies: replies.map((r) => ({ id: r.uri, cid: r.cid, url: postUrl(account, r.uri) })),
        state: { cid: root.cid },
      });
      await postReplies(req, io, { root, replies, progress }, async (item, parent) =>
        createPost(
          io,
          account,
          await buildRecord(
            io,
            account,
            { text: item.content, media: item.media },
            { root, parent },
            io.now(),
            postLangs(req),
          ),
        ),
      );
      return {
        platformPostId: root.uri,
        platformPostUrl: postUrl(account, root.uri),
        extra: { cid: root.cid, ...(replies.length ? { replies: replies.map((r) => r.uri) } : {}) },
      };
    },

    /** After an ambiguous outcome: the account's recent posts (listRecords, newest first) with the same text. */
    async findPublished(req: PublishRequest, since: Date, io: PlatformIO): Promise<PublishResult | null> {
      const account = req.account;
      let cursor: string | undefined;
      for (let page = 0; page < 4; page++) {
        const res = await xrpc<{ records: { uri: string; cid: string; value?: PostRecordValue }[]; cursor?: string }>(
          io,
          {
            service: pds(account, serviceUrl),
            nsid: 'com.atproto.repo.listRecords',
            method: 'GET',
            params: { repo: did(account), collection: POST, limit: 50, cursor },
          },
        );
        for (const r of res.records ?? []) {
          const created = Date.parse(r.value?.createdAt ?? '');
          if (r.value?.reply) continue;
          if (r.value?.text === req.content && Number.isFinite(created) && created >= since.getTime()) {
            return { platformPostId: r.uri, platformPostUrl: postUrl(account, r.uri), extra: { cid: r.cid } };
          }
        }
        const oldest = res.records?.at(-1);
        if (!res.cursor || !oldest || Date.parse(oldest.value?.createdAt ?? '') < since.getTime()) return null;
        cursor = res.cursor;
      }
      return null;
    },

    /** Deletes the post and, for a thread, the account's own replies under it (found with listRecords). */
    async unpublish(account: AccountCredentials, platformPostId: string, io: PlatformIO): Promise<void> {
      const parsed = parseAtUri(platformPostId);
      if (!parsed) throw new PlatformError('rejected', `not a Bluesky post uri: ${platformPostId}`);
      const service = pds(account, serviceUrl);
      const replies: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 4; page++) {
        const res = await xrpc<{ records: { uri: string; value?: PostRecordValue }[]; cursor?: string }>(io, {
          service,
          nsid: 'com.atproto.repo.listRecords',
          method: 'GET',
          params: { repo: parsed.repo, collection: POST, limit: 100, cursor },
        });
        for (const r of res.records ?? []) if (r.value?.reply?.root?.uri === platformPostId) replies.push(r.uri);
        if (!res.cursor || !res.records?.length) break;
        cursor = res.cursor;
      }
      for (const uri of [...replies, platformPostId]) {
        const p = parseAtUri(uri)!;
        await xrpc(io, {
          service,
          nsid: 'com.atproto.repo.deleteRecord',
          method: 'POST',
          token: token(account),
          json: { repo: p.repo, collection: p.collection, rkey: p.rkey },
        });
      }
    },

    inbox: blueskyInbox(access),
    analytics: blueskyAnalytics(access),

    refreshTokens: (account, io) => refreshSession(io, pds(account, serviceUrl), account.refreshToken),
  };
}
