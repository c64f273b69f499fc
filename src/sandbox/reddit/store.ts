import { randomBytes } from 'node:crypto';
import type { SimulatorState } from '../types.js';

/** A subreddit of the simulated Reddit. Flair templates as `GET /r/{sr}/api/link_flair_v2` lists them. */
export interface RdSubreddit {
  /** base36 id (the `t5_` fullname without its prefix). */
  id: string;
  name: string;
  title: string;
  description: string;
  subscribers: number;
  over18: boolean;
  type: 'public' | 'private' | 'restricted';
  /** `any`, `link` or `self`: which kinds of posts it takes. */
  submissionType: 'any' | 'link' | 'self';
  allowImages: boolean;
  allowVideos: boolean;
  allowGalleries: boolean;
  flairRequired: boolean;
  flairs: {
    id: string;
    text: string;
    text_color: 'dark' | 'light';
    background_color: string;
    text_editable: boolean;
  }[];
}

/** A media asset leased by `POST /api/media/asset.json`, then uploaded to the S3 form action. */
export interface RdAsset {
  id: string;
  owner: string;
  filepath: string;
  mimetype: string;
  uploaded: { size: number; contentType: string } | null;
}

/** A submission (a `t3` thing). */
export interface RdPost {
  id: string;
  author: string;
  authorId: string;
  subreddit: RdSubreddit;
  kind: 'self' | 'link' | 'image' | 'video' | 'videogif' | 'gallery';
  title: string;
  selftext: string;
  url: string;
  flairId: string | null;
  flairText: string | null;
  nsfw: boolean;
  spoiler: boolean;
  assets: { asset: RdAsset; caption?: string; outboundUrl?: string }[];
  /** Epoch ms; a video is listed only from `readyAt` (Reddit shows it once transcoded). */
  createdAt: number;
  readyAt: number;
  deleted: boolean;
}

/** A comment (a `t1` thing) under a submission. */
export interface RdComment {
  id: string;
  postId: string;
  /** What it answers: `t3_<post>` or `t1_<comment>`. */
  parentId: string;
  author: string;
  authorId: string;
  body: string;
  createdAt: number;
  deleted: boolean;
  /** When the author last edited it (epoch ms). */
  editedAt?: number;
}

/** A private message (a `t4` thing); a reply carries the thread's first message. */
export interface RdMessage {
  id: string;
  author: string;
  authorId: string;
  dest: string;
  subject: string;
  body: string;
  createdAt: number;
  /** The first message of the thread (null for the first itself). */
  firstMessage: string | null;
  parentId: string | null;
}

export interface RdStore {
  subreddits: Map<string, RdSubreddit>;
  assets: Map<string, RdAsset>;
  posts: Map<string, RdPost>;
  comments: Map<string, RdComment>;
  messages: Map<string, RdMessage>;
  /** Votes by `<user id>:<fullname>`: 1 or -1 (0 removes the entry). */
  votes: Map<string, number>;
  /** Inbox items (fullnames) each user has read. */
  read: Map<string, Set<string>>;
  nextId: number;
}

function subreddit(name: string, over: Partial<RdSubreddit>): RdSubreddit {
  return {
    id: over.id ?? name.length.toString(36) + randomBytes(2).toString('hex'),
    name,
    title: name,
    description: `r/${name} on the Herald sandbox`,
    subscribers: 7,
    over18: false,
    type: 'public',
    submissionType: 'any',
    allowImages: true,
    allowVideos: true,
    allowGalleries: true,
    flairRequired: false,
    flairs: [],
    ...over,
  };
}

/**
 * The subreddits every consenting user subscribes to (docs/sandbox.md): `test` takes anything, `flairrequired`
 * refuses a post without one of its flair templates.
 */
export const SANDBOX_FLAIRS = [
  {
    id: '6f1e3c1a-5b0e-11e7-9d4b-0e6b4a1d2c3f',
    text: 'Discussion',
    text_color: 'dark' as const,
    background_color: '#edeff1',
    text_editable: false,
  },
  {
    id: '7a2b4d2c-5b0e-11e7-8f3a-0e6b4a1d2c40',
    text: 'News',
    text_color: 'light' as const,
    background_color: '#ff4500',
    text_editable: false,
  },
];

export function rdStore(state: SimulatorState): RdStore {
  let store = state.data.get('reddit') as RdStore | undefined;
  if (!store) {
    store = {
      subreddits: new Map([
        ['test', subreddit('test', { id: '2qh23', title: 'Testing' })],
        [
          'flairrequired',
          subreddit('flairrequired', {
            id: '3b9k1',
            title: 'Flair required',
            flairRequired: true,
            flairs: SANDBOX_FLAIRS,
          }),
        ],
      ]),
      assets: new Map(),
      posts: new Map(),
      comments: new Map(),
      messages: new Map(),
      votes: new Map(),
      read: new Map(),
      nextId: 1_000_000_000,
    };
    state.data.set('reddit', store);
  }
  return store;
}

/** A new base36 id, the way Reddit spells thing ids (`16xb01r`). */
export function nextRdId(store: RdStore): string {
  store.nextId += 1 + Math.floor(Math.random() * 50);
  return store.nextId.toString(36);
}

/** A leased asset id: 13 lowercase base36 characters, like `8xjguc40cnrb1`. */
export function assetId(): string {
  let id = '';
  const bytes = randomBytes(13);
  for (const b of bytes) id += (b % 36).toString(36);
  return id;
}

/** Subreddit name as Reddit matches it (case-insensitively, `r/` prefix allowed). */
export function findSubreddit(store: RdStore, name: string | undefined): RdSubreddit | null {
  if (!name) return null;
  return store.subreddits.get(name.replace(/^\/?r\//i, '').toLowerCase()) ?? null;
}

function slug(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 50) || '_'
  );
}

export function permalink(post: RdPost): string {
  return `/r/${post.subreddit.name}/comments/${post.id}/${slug(post.title)}/`;
}
