import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { InvalidRequestError, type Params, type Server } from '@atproto/xrpc-server';
import type { PdsReader } from './pds-reader.js';

type Auth = (lxm: string) => (ctx: { req: http.IncomingMessage }) => Promise<{ credentials: { did: string } }>;

export interface ChatMessage {
  id: string;
  rev: string;
  text: string;
  sender: string;
  sentAt: string;
}

export interface Convo {
  id: string;
  rev: string;
  members: string[];
  /** Oldest first. */
  messages: ChatMessage[];
  /** Per member: the rev up to which it has read. */
  read: Map<string, string>;
}

/** The query parameters the chat methods read (each method its own, as its lexicon declares them). */
interface ChatParams extends Params {
  convoId: string;
  members: string[];
  cursor?: string;
  limit?: number;
}

/** The JSON input of the chat procedures (sendMessage, updateRead). */
interface ChatInput {
  convoId: string;
  messageId?: string;
  message: { text: string; embed?: unknown };
}

/** The chat service's conversations (one store per service). Revs are one growing counter, like TIDs. */
export class ChatState {
  readonly convos = new Map<string, Convo>();
  private lastRev = 0;

  nextRev(): string {
    this.lastRev += 1;
    return String(this.lastRev).padStart(16, '0');
  }

  /** The one-to-one (or group) conversation of exactly these members, created on first use. */
  convoFor(members: string[]): Convo {
    const set = [...new Set(members)].sort();
    for (const c of this.convos.values())
      if (c.members.length === set.length && c.members.every((m, i) => m === set[i])) return c;
    const convo: Convo = {
      id: randomBytes(8).toString('hex'),
      rev: this.nextRev(),
      members: set,
      messages: [],
      read: new Map(),
    };
    this.convos.set(convo.id, convo);
    return convo;
  }

  send(convo: Convo, sender: string, text: string): ChatMessage {
    const message: ChatMessage = {
      id: randomBytes(8).toString('hex'),
      rev: this.nextRev(),
      text,
      sender,
      sentAt: new Date().toISOString(),
    };
    convo.messages.push(message);
    convo.rev = message.rev;
    convo.read.set(sender, message.rev);
    return message;
  }

  /** `_inbound`: `from` writes to `to` in their conversation. */
  inbound(from: string, to: string, text: string): { convo: Convo; message: ChatMessage } {
    const convo = this.convoFor([from, to]);
    return { convo, message: this.send(convo, from, text) };
  }
}

const messageView = (m: ChatMessage) => ({
  $type: 'chat.bsky.convo.defs#messageView',
  id: m.id,
  rev: m.rev,
  text: m.text,
  sender: { did: m.sender },
  sentAt: m.sentAt,
});

/**
 * chat.bsky.convo.*: listConvos, getConvo, getConvoForMembers, getMessages, sendMessage, updateRead.
 * Only members see a conversation (others get the service's "Convo not found"). Text only: an embed in
 * messageInput is refused.
 */
export function registerChat(server: Server, chat: ChatState, auth: Auth, reader: PdsReader): void {
  const convoView = async (c: Convo, viewer: string) => {
    const members = [];
    for (const did of c.members) members.push({ did, handle: await reader.handle(did) });
    const readRev = c.read.get(viewer) ?? '';
    const last = c.messages.at(-1);
    return {
      id: c.id,
      rev: c.rev,
      members,
      ...(last ? { lastMessage: messageView(last) } : {}),
      muted: false,
      status: 'accepted',
      unreadCount: c.messages.filter((m) => m.sender !== viewer && m.rev > readRev).length,
    };
  };

  const member = (convoId: string, did: string): Convo => {
    const c = chat.convos.get(convoId);
    if (!c || !c.members.includes(did)) throw new InvalidRequestError('Convo not found');
    return c;
  };

  // xrpc-server checks params and input against each method's lexicon before the handler runs.
  const method = (nsid: string, handler: (did: string, params: ChatParams, input: ChatInput) => Promise<unknown>) =>
    server.method(nsid, {
      auth: auth(nsid),
      handler: async (ctx) => ({
        encoding: 'application/json',
        body: await handler(ctx.auth.credentials.did, ctx.params as ChatParams, ctx.input?.body as ChatInput),
      }),
    });

  method('chat.bsky.convo.listConvos', async (did, params) => {
    const mine = [...chat.convos.values()]
      .filter((c) => c.members.includes(did) && c.messages.length)
      .sort((a, b) => (a.rev < b.rev ? 1 : -1));
    const { cursor } = params;
    const after = cursor ? mine.filter((c) => c.rev < cursor) : mine;
    const page = after.slice(0, params.limit ?? 50);
    const convos = [];
    for (const c of page) convos.push(await convoView(c, did));
    return { convos, ...(page.length < after.length ? { cursor: page.at(-1)!.rev } : {}) };
  });

  method('chat.bsky.convo.getConvo', async (did, params) => ({
    convo: await convoView(member(params.convoId, did), did),
  }));

  method('chat.bsky.convo.getConvoForMembers', async (did, params) => ({
    convo: await convoView(chat.convoFor([did, ...params.members]), did),
  }));

  method('chat.bsky.convo.getMessages', async (did, params) => {
    const c = member(params.convoId, did);
    const newestFirst = [...c.messages].reverse();
    const { cursor } = params;
    const after = cursor ? newestFirst.filter((m) => m.rev < cursor) : newestFirst;
    const page = after.slice(0, params.limit ?? 50);
    return { messages: page.map(messageView), ...(page.length < after.length ? { cursor: page.at(-1)!.rev } : {}) };
  });

  method('chat.bsky.convo.sendMessage', async (did, _params, input) => {
    const c = member(input.convoId, did);
    if (input.message.embed) throw new InvalidRequestError('Only text messages are supported by this chat service');
    return messageView(chat.send(c, did, input.message.text));
  });

  method('chat.bsky.convo.updateRead', async (did, _params, input) => {
    const c = member(input.convoId, did);
    const upTo = input.messageId ? c.messages.find((m) => m.id === input.messageId)?.rev : c.rev;
    if (!upTo) throw new InvalidRequestError('Message not found');
    c.read.set(did, upTo);
    return { convo: await convoView(c, did) };
  });
}
