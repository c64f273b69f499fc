/** An XRPC error answer: `{error, message}` with an HTTP status. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) =>
  new SimError(400, 'InvalidRequest', `Invalid app.bsky.feed.post record: ${message}`);

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemes = (text: string) => [...segmenter.segment(text)].length;

const FACET_TYPES = ['app.bsky.richtext.facet#link', 'app.bsky.richtext.facet#mention', 'app.bsky.richtext.facet#tag'];
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];

/** A blob ref as a client sent it: every field is checked before use. */
interface BlobInput {
  $type?: unknown;
  ref?: { $link?: unknown };
}

/** A post record as a client sent it: the fields read here, each checked before use. */
interface PostRecordInput {
  $type?: unknown;
  text: string;
  createdAt: string;
  langs?: unknown;
  facets?: { index?: { byteStart: number; byteEnd: number }; features?: { $type: string }[] }[];
  embed?: {
    $type?: string;
    images?: { alt?: unknown; image?: BlobInput }[];
    video?: BlobInput;
    external?: { uri?: unknown; title?: unknown; description?: unknown };
  };
  reply?: Record<'root' | 'parent', { uri?: unknown; cid?: unknown } | undefined>;
}

function checkBlob(
  blob: BlobInput | undefined,
  blobs: Map<string, { mimeType: string; size: number }>,
  where: string,
  maxSize: number,
  accept: (m: string) => boolean,
) {
  if (blob?.$type !== 'blob' || typeof blob?.ref?.$link !== 'string') throw invalid(`${where} must be a blob ref`);
  const known = blobs.get(blob.ref.$link);
  if (!known) throw new SimError(400, 'InvalidRequest', `Could not find blob: ${blob.ref.$link}`);
  if (known.size > maxSize) throw new SimError(400, 'BlobTooLarge', `${where} is too big: ${known.size} > ${maxSize}`);
  if (!accept(known.mimeType)) throw invalid(`${where} has the wrong MIME type ${known.mimeType}`);
}

/**
 * Validates a post record the way the PDS and the lexicons do: app.bsky.feed.post (text <= 300
 * graphemes and 3,000 bytes), facets (UTF-8 byte ranges inside the text), embeds (images <= 4 of
 * <= 1,000,000 bytes, one MP4 video <= 50 MB, an external card) and reply strong refs to existing posts.
 */
export function checkPostRecord(
  input: unknown,
  blobs: Map<string, { mimeType: string; size: number }>,
  findRecord: (uri: string) => { cid: string } | undefined,
): void {
  if (!input || typeof input !== 'object')
    throw new SimError(400, 'InvalidRequest', 'Input must have the property "record"');
  const record = input as PostRecordInput;
  if (record.$type !== 'app.bsky.feed.post') throw invalid('$type must be app.bsky.feed.post');
  if (typeof record.text !== 'string') throw invalid('Record must have the property "text"');
  if (graphemes(record.text) > 300 || Buffer.byteLength(record.text) > 3000)
    throw invalid('Record/text must not be longer than 300 graphemes');
  if (typeof record.createdAt !== 'string' || Number.isNaN(Date.parse(record.createdAt)))
    throw invalid('Record/createdAt must be a valid datetime');
  // app.bsky.feed.post `langs`: at most 3 items of format `language` (BCP-47).
  if (record.langs !== undefined) {
    if (!Array.isArray(record.langs) || record.langs.length > 3)
      throw invalid('Record/langs must not have more than 3 elements');
    record.langs.forEach((l: unknown, i: number) => {
      if (typeof l !== 'string' || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(l))
        throw invalid(`Record/langs/${i} must be a well-formed BCP-47 language tag`);
    });
  }
  const bytes = Buffer.byteLength(record.text, 'utf8');
  for (const [i, f] of (record.facets ?? []).entries()) {
    const { byteStart, byteEnd } = (f?.index ?? {}) as { byteStart: number; byteEnd: number };
    if (
      !Number.isInteger(byteStart) ||
      !Number.isInteger(byteEnd) ||
      byteStart < 0 ||
      byteEnd <= byteStart ||
      byteEnd > bytes
    ) {
      throw invalid(`Record/facets/${i}/index is outside the text`);
    }
    if (!Array.isArray(f.features) || !f.features.length || !f.features.every((x) => FACET_TYPES.includes(x?.$type))) {
      throw invalid(`Record/facets/${i}/features must be links, mentions or tags`);
    }
  }
  const embed = record.embed;
  if (embed) {
    if (embed.$type === 'app.bsky.embed.images') {
      if (!Array.isArray(embed.images) || embed.images.length < 1 || embed.images.length > 4)
        throw invalid('Record/embed/images must have 1 to 4 items');
      embed.images.forEach((img, i) => {
        if (typeof img?.alt !== 'string') throw invalid(`Record/embed/images/${i} must have the property "alt"`);
        checkBlob(img.image, blobs, `Record/embed/images/${i}/image`, 1_000_000, (m) => IMAGE_TYPES.includes(m));
      });
    } else if (embed.$type === 'app.bsky.embed.video') {
      checkBlob(embed.video, blobs, 'Record/embed/video', 50 * 1024 * 1024, (m) => m === 'video/mp4');
    } else if (embed.$type === 'app.bsky.embed.external') {
      const ext = embed.external;
      if (typeof ext?.uri !== 'string' || typeof ext?.title !== 'string' || typeof ext?.description !== 'string') {
        throw invalid('Record/embed/external must have uri, title and description');
      }
    } else {
      throw invalid(`the sandbox does not know embed ${embed.$type}`);
    }
  }
  if (record.reply) {
    for (const key of ['root', 'parent'] as const) {
      const ref = record.reply[key];
      const found = typeof ref?.uri === 'string' ? findRecord(ref.uri) : undefined;
      if (!found || found.cid !== ref?.cid)
        throw invalid(`Record/reply/${key} must reference an existing post (uri and cid)`);
    }
  }
}
