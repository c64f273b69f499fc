import type { SimulatorState } from '../types.js';
import { liStore, nextLiId, settleAsset, type LiStore } from './store.js';

const VISIBILITY = ['PUBLIC', 'CONNECTIONS', 'LOGGED_IN', 'CONTAINER'];
const FEED = ['MAIN_FEED', 'NONE'];
const LIFECYCLE = ['PUBLISHED', 'DRAFT'];
const MENTION = /@\[(?:\\.|[^\]\\])+\]\(urn:li:(?:person|organization):[A-Za-z0-9_-]+\)/g;
/** Little-text markup characters that must be escaped outside mentions; LinkedIn would cut the text there. */
const UNESCAPED = /(^|[^\\])((?:\\\\)*)[|{}@[\]()<>#*_~]/;

function err(path: string, reason: string): string {
  return `ERROR :: ${path} :: ${reason}`;
}

/**
 * A Posts API create body as the client sent it: the fields read, typed as validatePost requires them
 * (it refuses a body that is not so before anything else uses it).
 */
export interface LiPostBody {
  author: string;
  commentary: string;
  visibility: string;
  lifecycleState: string;
  distribution: { feedDistribution: string; targetEntities?: unknown; thirdPartyDistributionChannels?: unknown };
  isReshareDisabledByAuthor?: unknown;
  content?: {
    media?: { id: string; title?: string; altText?: string };
    multiImage?: { images: { id: string; altText?: string }[] };
    article?: { source?: unknown; title?: unknown; [key: string]: unknown };
  };
  [key: string]: unknown;
}

/**
 * Checks a `POST /rest/posts` body the way the Posts API does: required fields, enums, the content
 * union, that referenced assets were uploaded and are usable. Unescaped little-text characters are
 * refused here (the real API silently truncates the text at them, which is worse to debug).
 * Returns the 422 message, or null when the body is valid.
 */
export function validatePost(input: unknown, store: LiStore, nowMs: number): string | null {
  const body = input as LiPostBody | null;
  if (!body || typeof body !== 'object') return err('/', 'a JSON body is required');
  for (const field of ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState']) {
    if (body[field] === undefined || body[field] === null)
      return err(`/${field}`, 'field is required but not found and has no default value');
  }
  if (typeof body.author !== 'string' || !/^urn:li:(person|organization):[A-Za-z0-9_-]+$/.test(body.author)) {
    return err('/author', `"${body.author}" is not a person or organization URN`);
  }
  if (typeof body.commentary !== 'string') return err('/commentary', 'must be a string');
  // The limit is on the text as shown (escapes removed), in UTF-16 units (LinkedIn's API runs on Java strings).
  if (body.commentary.replace(/\\(.)/g, '$1').length > 3000)
    return err('/commentary', 'length exceeds 3000 characters');
  if (UNESCAPED.test(body.commentary.replace(MENTION, '')))
    return err('/commentary', 'reserved little-text character is not escaped');
  if (!VISIBILITY.includes(body.visibility))
    return err('/visibility', `"${body.visibility}" is not one of ${VISIBILITY.join(', ')}`);
  const d = body.distribution;
  if (typeof d !== 'object' || !FEED.includes(d.feedDistribution))
    return err('/distribution/feedDistribution', `must be one of ${FEED.join(', ')}`);
  if (d.targetEntities !== undefined && !Array.isArray(d.targetEntities))
    return err('/distribution/targetEntities', 'must be an array');
  if (d.thirdPartyDistributionChannels !== undefined && !Array.isArray(d.thirdPartyDistributionChannels)) {
    return err('/distribution/thirdPartyDistributionChannels', 'must be an array');
  }
  if (!LIFECYCLE.includes(body.lifecycleState)) return err('/lifecycleState', `must be one of ${LIFECYCLE.join(', ')}`);
  if (body.isReshareDisabledByAuthor !== undefined && typeof body.isReshareDisabledByAuthor !== 'boolean') {
    return err('/isReshareDisabledByAuthor', 'must be a boolean');
  }
  if (body.content === undefined) return null;
  const content = body.content;
  const kinds = Object.keys(content ?? {});
  if (kinds.length !== 1 || !['media', 'multiImage', 'article'].includes(kinds[0])) {
    return err('/content', 'must hold exactly one of media, multiImage, article');
  }
  const asset = (id: unknown, path: string, allowed: string[]): string | null => {
    const a = typeof id === 'string' ? store.assets.get(id) : undefined;
    if (a) settleAsset(a, nowMs);
    if (!a) return err(path, `${String(id)} does not exist`);
    if (!allowed.includes(a.kind)) return err(path, `${a.urn} cannot be used here`);
    if (a.status !== 'AVAILABLE') return err(path, `${a.urn} is ${a.status}`);
    if (a.owner !== body.author) return err(path, `${a.urn} is owned by ${a.owner}, not ${body.author}`);
    return null;
  };
  if (content.media) {
    const problem = asset(content.media.id, '/content/media/id', ['image', 'video', 'document']);
    if (problem) return problem;
    if (store.assets.get(content.media.id)!.kind === 'document' && !content.media.title)
      return err('/content/media/title', 'a document needs a title');
  }
  if (content.multiImage) {
    const images = content.multiImage.images;
    if (!Array.isArray(images) || images.length < 2 || images.length > 20)
      return err('/content/multiImage/images', 'must hold 2 to 20 images');
    for (const [i, img] of images.entries()) {
      const problem = asset(img?.id, `/content/multiImage/images/${i}/id`, ['image']);
      if (problem) return problem;
    }
  }
  if (content.article) {
    if (typeof content.article.source !== 'string' || !/^https?:\/\//.test(content.article.source))
      return err('/content/article/source', 'must be a URL');
    if (typeof content.article.title !== 'string' || !content.article.title)
      return err('/content/article/title', 'field is required');
  }
  return null;
}

/**
 * A text post `author` (a person or organization URN) made on LinkedIn itself at `at` (ms), outside
 * Herald: tests of external posts seed it this way. Answers its URN.
 */
export function externalLinkedInPost(state: SimulatorState, author: string, commentary: string, at: number): string {
  const store = liStore(state);
  const urn = `urn:li:share:${nextLiId(store)}`;
  const body = {
    author,
    commentary,
    visibility: 'PUBLIC',
    distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
    lifecycleState: 'PUBLISHED',
    isReshareDisabledByAuthor: false,
  };
  store.posts.set(urn, { urn, author, commentary, createdAt: at, body, deleted: false });
  const organization = author.startsWith('urn:li:organization:') ? author : null;
  state.posts.push({
    id: urn,
    text: commentary,
    media: [],
    replyTo: null,
    author,
    destination: organization,
    createdAt: new Date(at).toISOString(),
    extra: { commentary, external: true },
  });
  return urn;
}
