import { invalid } from '../../../errors.js';
import { forbiddenKeyPath, jsonDepthExceeds, MAX_JSON_DEPTH } from '../../../lib/json-guards.js';
import { isPlatform, PLATFORMS } from '../../../platforms/catalogue.js';
import type { Directory } from './directory.js';
import { parseTime } from '../schedule.js';
import type { MediaItemInput, PostInput, TargetInput } from '../types.js';

/*
 * The columns of a bulk upload CSV, and how one row becomes the body of POST /v1/posts. Column names
 * are matched without case, spaces, `_` or `-` (`schedule_time`, `Schedule Time` and `scheduleTime` are
 * one column). Each row's body then goes through exactly what POST /v1/posts does (bulk-upload.ts).
 */

const POST_COLUMNS = {
  post_content: ['postcontent', 'content', 'text'],
  title: ['title'],
  media_urls: ['mediaurls', 'mediaurl', 'media', 'mediaitems'],
  platforms: ['platforms', 'platform'],
  profiles: ['profiles', 'profile', 'profileid', 'profileids'],
  accounts: ['accounts', 'account', 'accountid', 'accountids'],
  schedule_time: ['scheduletime', 'scheduledfor', 'scheduledat'],
  tz: ['tz', 'timezone'],
  publish_now: ['publishnow'],
  use_queue: ['usequeue'],
  queue_id: ['queueid'],
  is_draft: ['isdraft', 'draft'],
  tags: ['tags'],
  hashtags: ['hashtags'],
  mentions: ['mentions'],
  visibility: ['visibility'],
} as const;
type PostColumn = keyof typeof POST_COLUMNS;

/** Columns that apply to one platform's targets: `<prefix>_<platform>`, e.g. `custom_content_twitter`. */
const PLATFORM_COLUMNS = {
  schedule_time: ['scheduletime', 'scheduledfor'],
  custom_content: ['customcontent'],
  custom_media: ['custommedia'],
  platform_specific_data: ['platformspecificdata', 'platformoptions'],
} as const;
type PlatformColumn = keyof typeof PLATFORM_COLUMNS;

const ALIASES = new Map<string, PostColumn>(
  Object.entries(POST_COLUMNS).flatMap(([name, keys]) => keys.map((k) => [k, name as PostColumn])),
);
const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export interface Columns {
  width: number;
  post: Map<PostColumn, number>;
  /** Keyed `<column>:<platform>`. */
  platform: Map<string, number>;
}

function platformColumn(key: string): [PlatformColumn, string] | null {
  for (const [name, prefixes] of Object.entries(PLATFORM_COLUMNS)) {
    for (const prefix of prefixes) {
      if (key.startsWith(prefix) && isPlatform(key.slice(prefix.length)))
        return [name as PlatformColumn, key.slice(prefix.length)];
    }
  }
  return null;
}

/** The header line: every column must be known and named once (a misspelt column would be ignored silently otherwise). */
export function readHeader(header: string[]): Columns {
  const cols: Columns = { width: header.length, post: new Map(), platform: new Map() };
  const unknown: string[] = [];
  const repeated: string[] = [];
  header.forEach((raw, i) => {
    const key = squash(raw);
    const post = ALIASES.get(key);
    const perPlatform = post ? null : platformColumn(key);
    if (post) {
      if (cols.post.has(post)) repeated.push(raw);
      cols.post.set(post, i);
    } else if (perPlatform) {
      const k = perPlatform.join(':');
      if (cols.platform.has(k)) repeated.push(raw);
      cols.platform.set(k, i);
    } else unknown.push(raw);
  });
  if (unknown.length) {
    throw invalid(
      'csv_unknown_column',
      `Unknown column${unknown.length > 1 ? 's' : ''}: ${unknown.map((c) => JSON.stringify(c)).join(', ')}`,
      { columns: unknown },
    );
  }
  if (repeated.length)
    throw invalid('csv_duplicate_column', `Column named twice: ${repeated.map((c) => JSON.stringify(c)).join(', ')}`, {
      columns: repeated,
    });
  if (!cols.post.has('accounts') && !(cols.post.has('platforms') && cols.post.has('profiles'))) {
    throw invalid('csv_missing_column', 'The file needs the columns platforms and profiles, or accounts', {
      columns: ['platforms', 'profiles', 'accounts'],
    });
  }
  return cols;
}

/** A list cell: ids or names separated by commas, semicolons, `|` or spaces. */
const splitList = (cell: string) => cell.split(/[\s,;|]+/).filter(Boolean);
/** Tags may hold spaces: separated by commas, semicolons or `|` only. */
const splitTags = (cell: string) =>
  cell
    .split(/[,;|]/)
    .map((s) => s.trim())
    .filter(Boolean);
/** Media URLs: one per line, or separated by `|` or spaces; a comma or semicolon only where a new http(s) URL starts (URLs may hold commas). */
const splitUrls = (cell: string): MediaItemInput[] =>
  cell
    .split(/[\s|]+|[,;](?=\s*https?:\/\/)/i)
    .filter(Boolean)
    .map((url) => ({ url }));

function flag(cell: string, column: string): boolean {
  const v = cell.trim().toLowerCase();
  if (v === '' || v === 'false' || v === 'no' || v === '0') return false;
  if (v === 'true' || v === 'yes' || v === '1') return true;
  throw invalid('invalid_flag', `${column} must be true or false, not ${JSON.stringify(cell.trim())}`);
}

function jsonObject(cell: string, column: string): Record<string, unknown> {
  if (jsonDepthExceeds(cell, MAX_JSON_DEPTH))
    throw invalid('json_too_deep', `${column} nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(cell);
  } catch {
    throw invalid('invalid_json', `${column} is not valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid('invalid_json', `${column} must be a JSON object`);
  const forbidden = forbiddenKeyPath(value);
  if (forbidden) throw invalid('forbidden_json_key', `${column} has the key "${forbidden}", which is refused`);
  return value as Record<string, unknown>;
}

/** The targets of a row: its `accounts`, and each active account of its `profiles` on each of its `platforms`. */
function rowTargets(
  platforms: string[],
  profileRefs: string[],
  accountIds: string[],
  dir: Directory,
): Array<TargetInput & { profileId: string | null }> {
  for (const p of platforms)
    if (!isPlatform(p))
      throw invalid('unknown_platform', `Unknown platform ${JSON.stringify(p)}; one of: ${PLATFORMS.join(', ')}`);
  if (platforms.length > 0 && profileRefs.length === 0 && accountIds.length === 0) {
    throw invalid(
      'profiles_required',
      'platforms needs profiles (the profiles whose accounts to post to), or give accounts',
    );
  }
  const targets: Array<TargetInput & { profileId: string | null }> = [];
  for (const ref of profileRefs) {
    const profile = dir.profile(ref);
    for (const platform of platforms) {
      const accounts = dir.activeAccounts(profile.profile_id, platform);
      if (accounts.length === 0)
        throw invalid(
          'no_account_for_platform',
          `Profile ${JSON.stringify(profile.name)} has no active ${platform} account`,
        );
      for (const a of accounts) targets.push({ platform, accountId: a.account_id, profileId: profile.profile_id });
    }
  }
  for (const id of accountIds) {
    const account = dir.account(id);
    // An unknown account still becomes a target: POST /v1/posts then refuses it with its own 400.
    const platform = account?.platform ?? platforms[0] ?? PLATFORMS[0];
    if (account && platforms.length > 0 && profileRefs.length === 0 && !platforms.includes(platform)) {
      throw invalid(
        'platform_mismatch',
        `Account ${id} is a ${platform} account, not one of platforms (${platforms.join(', ')})`,
      );
    }
    targets.push({ platform, accountId: id, profileId: account?.profile_id ?? null });
  }
  const seen = new Set<string>();
  return targets.filter((t) => !seen.has(t.accountId) && seen.add(t.accountId));
}

/**
 * One data row as the body of POST /v1/posts. Throws a 400 AppError for what only the CSV can get
 * wrong (cell count, flags, JSON cells, a profile or platform that names nothing, no time given);
 * everything else is left to the create path.
 */
export function rowInput(cols: Columns, cells: string[], dir: Directory): PostInput {
  if (cells.length !== cols.width) {
    throw invalid(
      'csv_row_width',
      `The row has ${cells.length} cells; the header has ${cols.width} columns (an unquoted separator or line break?)`,
    );
  }
  const cell = (c: PostColumn) => (cols.post.has(c) ? cells[cols.post.get(c)!] : '');
  const text = (c: PostColumn) => cell(c).trim() || undefined;
  const ofPlatform = (c: PlatformColumn, platform: string) => {
    const i = cols.platform.get(`${c}:${platform}`);
    return i === undefined ? undefined : cells[i].trim() || undefined;
  };
  const platforms = splitList(cell('platforms').toLowerCase());
  // Profile names may hold spaces: only commas, semicolons and `|` separate them.
  const profileRefs = splitTags(cell('profiles'));
  const targets = rowTargets(platforms, profileRefs, splitList(cell('accounts')), dir);
  const timezone = text('tz');
  const platformData = new Map<string, Record<string, unknown>>();
  const body: TargetInput[] = targets.map(({ profileId: _, ...t }) => {
    const target: TargetInput = { ...t };
    const customContent = ofPlatform('custom_content', t.platform);
    const customMedia = ofPlatform('custom_media', t.platform);
    const time = ofPlatform('schedule_time', t.platform);
    const psd = ofPlatform('platform_specific_data', t.platform);
    if (customContent !== undefined) target.customContent = cells[cols.platform.get(`custom_content:${t.platform}`)!];
    if (customMedia !== undefined) target.customMedia = splitUrls(customMedia);
    if (time !== undefined) target.scheduledFor = time;
    if (psd !== undefined) {
      if (!platformData.has(t.platform))
        platformData.set(t.platform, jsonObject(psd, `platform_specific_data_${t.platform}`));
      target.platformSpecificData = platformData.get(t.platform);
    }
    return target;
  });

  const isDraft = flag(cell('is_draft'), 'is_draft');
  const publishNow = flag(cell('publish_now'), 'publish_now');
  const useQueue = flag(cell('use_queue'), 'use_queue');
  let scheduledFor = text('schedule_time');
  const ownTimes = body.map((t) => t.scheduledFor);
  if (!isDraft && !publishNow && !useQueue && !scheduledFor) {
    if (body.length === 0 || ownTimes.some((t) => t === undefined)) {
      throw invalid(
        'schedule_time_missing',
        'The row needs schedule_time (or schedule_time_<platform> for each of its platforms), publish_now, use_queue or is_draft',
      );
    }
    // Only per-platform times: the post is scheduled for the earliest of them (each target keeps its own).
    scheduledFor = ownTimes.reduce((a, b) =>
      parseTime(b!, timezone, 'schedule_time') < parseTime(a!, timezone, 'schedule_time') ? b : a,
    );
  }
  const input: PostInput = { platforms: body };
  const content = cell('post_content');
  if (content.trim()) input.content = content;
  if (text('title')) input.title = text('title');
  if (text('media_urls')) input.mediaItems = splitUrls(text('media_urls')!);
  if (scheduledFor) input.scheduledFor = scheduledFor;
  if (timezone) input.timezone = timezone;
  if (isDraft) input.isDraft = true;
  if (publishNow) input.publishNow = true;
  if (useQueue) {
    const profiles = [...new Set(targets.map((t) => t.profileId))];
    if (profiles.length !== 1 || profiles[0] === null) {
      throw invalid(
        'queue_profile_ambiguous',
        'use_queue needs the row to post to the accounts of exactly one profile (its queue takes the post)',
      );
    }
    input.queuedFromProfile = profiles[0];
    if (text('queue_id')) input.queueId = text('queue_id');
  }
  for (const c of ['tags', 'hashtags', 'mentions'] as const) if (text(c)) input[c] = splitTags(text(c)!);
  if (text('visibility')) input.visibility = text('visibility') as PostInput['visibility'];
  return input;
}
