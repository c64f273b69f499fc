import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, uploadFile } from '../api';
import { ProfilePicker, ZonePicker } from '../components';
import {
  BROWSER_ZONE,
  loadAccounts,
  loadProfiles,
  platformLabel,
  profileIdOf,
  useChosenProfile,
  type Account,
} from '../data';
import { MediaPicker } from '../media-picker';
import { navigate } from '../router';
import { toLocalInput } from '../time';
import { PlatformFields, usePlatformSchema, type Data } from '../platform-fields';
import { Preview, thumbnailOf, useCuts, useLengths, type Length, type PreviewMedia } from '../preview';
import { cannotWrite, Empty, ErrorBox, FieldErrors, Loading, Page, useLoad, useSession } from '../ui';

interface Media {
  id: number;
  name: string;
  kind: PreviewMedia['kind'];
  url?: string;
  progress: number;
  error?: unknown;
  /** The thumbnail (the image, or a frame of the video) and the natural shape. */
  thumb?: string;
  ratio?: number;
}

interface TargetOptions {
  customContent: string;
  firstComment: string;
  /** platformSpecificData, from the platform's form. */
  data: Data;
}

const NO_OPTIONS: TargetOptions = { customContent: '', firstComment: '', data: {} };

/** A field path as dotted keys: `platforms[0].x` and `/platforms/0/x` are `platforms.0.x`. */
const normalize = (k: string) =>
  k
    .replace(/^\/|^body\.?/, '')
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/\//g, '.');

let mediaSeq = 0;

type When = 'now' | 'at' | 'queue' | 'draft';

const mediaType = (mime: string) =>
  mime.startsWith('video/') ? 'video' : mime === 'image/gif' ? 'gif' : mime.startsWith('image/') ? 'image' : 'document';

/** Messages for one field name out of the API's details.fields (also `platforms[0].x`, `platforms.0.x`). */
function fieldMessages(fields: Record<string, string[]>, match: (name: string) => boolean): string[] {
  return Object.entries(fields)
    .filter(([k]) => match(normalize(k)))
    .flatMap(([, v]) => v);
}

export function ComposerPage() {
  const session = useSession();
  const readOnly = cannotWrite(session);
  const query = new URLSearchParams(location.search);
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const accounts = useLoad(() => (profileId ? loadAccounts(profileId) : Promise.resolve([] as Account[])), [profileId]);
  const [content, setContent] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [options, setOptions] = useState<Record<string, TargetOptions>>({});
  const [media, setMedia] = useState<Media[]>([]);
  const [when, setWhen] = useState<When>(query.get('at') ? 'at' : 'at');
  const [at, setAt] = useState(() =>
    toLocalInput(query.get('at') ?? new Date(Date.now() + 3600_000).toISOString(), BROWSER_ZONE),
  );
  const [zone, setZone] = useState(BROWSER_ZONE);
  const [check, setCheck] = useState<{ errors: any[]; warnings: any[] }>({ errors: [], warnings: [] });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<any>(null);

  // Editing: the post's own accounts stay choosable even when they are not all in the chosen profile, so
  // that saving never drops a target the form did not show.
  const [postAccounts, setPostAccounts] = useState<Account[]>([]);
  const choosable = useMemo(
    () => [
      ...(accounts.data ?? []),
      ...postAccounts.filter((a) => !(accounts.data ?? []).some((b) => b._id === a._id)),
    ],
    [accounts.data, postAccounts],
  );
  const targets = useMemo(() => choosable.filter((a) => selected.includes(a._id)), [choosable, selected]);
  const platforms = [...new Set(targets.map((t) => t.platform))];
  const fields = error instanceof ApiError ? error.fields : {};

  const editing = query.get('edit');
  const [loaded, setLoaded] = useState<{ post?: any; error?: unknown } | null>(editing ? null : {});
  // Editing: the post's text, media, accounts, options and time fill the form (PUT /v1/posts/{id} on save).
  useEffect(() => {
    if (!editing) return;
    let live = true;
    (async () => {
      const post = (await api('GET', `/posts/${editing}`)).post;
      const all = await loadAccounts();
      if (!live) return;
      const ids: string[] = post.platforms.map((t: any) => t.accountId?._id ?? t.accountId);
      const profile = all.find((a) => ids.includes(a._id));
      if (profile) setProfileId(profileIdOf(profile));
      setPostAccounts(all.filter((a) => ids.includes(a._id)));
      setContent(post.content ?? '');
      setSelected(ids);
      setOptions(
        Object.fromEntries(
          post.platforms.map((t: any, i: number) => [
            ids[i],
            { customContent: t.customContent ?? '', firstComment: '', data: { ...(t.platformSpecificData ?? {}) } },
          ]),
        ),
      );
      const items: Media[] = (post.mediaItems ?? []).map((m: any) => ({
        id: ++mediaSeq,
        name: decodeURIComponent(String(m.url).split('/').pop() || 'media'),
        kind: m.type === 'video' || m.type === 'gif' || m.type === 'document' ? m.type : 'image',
        url: m.url,
        progress: 1,
      }));
      setMedia(items);
      for (const m of items) thumbnailOf(m.kind, m.url!).then((t) => updateMedia(m.id, t));
      if (post.timezone) setZone(post.timezone);
      if (post.scheduledFor) setAt(toLocalInput(post.scheduledFor, post.timezone || BROWSER_ZONE));
      setWhen(post.status === 'draft' && !post.scheduledFor ? 'draft' : 'at');
      setLoaded({ post });
    })().catch((error) => live && setLoaded({ error }));
    return () => void (live = false);
  }, [editing]);
  const updateMedia = (id: number, patch: Partial<Media>) =>
    setMedia((m) => m.map((x) => (x.id === id ? { ...x, ...patch } : x)));

  // The API's count of the post's text and of each account's own text, on every platform.
  const texts = [content, ...targets.map((a) => options[a._id]?.customContent).filter((t): t is string => Boolean(t))];
  const lengths = useLengths(texts, !readOnly);
  const counts = lengths.get(content) ?? {};

  const body = () => {
    const items = media.filter((m) => m.url).map((m) => ({ type: m.kind as any, url: m.url! }));
    return {
      content,
      mediaItems: items,
      platforms: targets.map((a) => {
        const o = options[a._id];
        // A first comment typed in its own box replaces the one the post had.
        const data = o?.firstComment
          ? Object.fromEntries(Object.entries(o.data).filter(([k]) => k !== 'firstComment'))
          : o?.data;
        const extra = data && Object.keys(data).length ? data : undefined;
        return {
          platform: a.platform,
          accountId: a._id,
          ...(o?.customContent ? { customContent: o.customContent } : {}),
          ...(o?.firstComment ? { firstComment: o.firstComment } : {}),
          ...(extra ? { platformSpecificData: extra } : {}),
        };
      }),
    };
  };

  // Live per-platform counts and checks, with the very rules post creation applies.
  useEffect(() => {
    if (readOnly) return;
    const ctrl = new AbortController();
    const t = setTimeout(async () => {
      try {
        if (targets.length) {
          const v = await api('POST', '/tools/validate/post', { body: body(), signal: ctrl.signal });
          setCheck({ errors: v.errors, warnings: v.warnings });
        } else setCheck({ errors: [], warnings: [] });
      } catch (e) {
        if ((e as Error).name !== 'AbortError') setCheck({ errors: [], warnings: [] });
      }
    }, 300);
    return () => {
      clearTimeout(t);
      ctrl.abort();
    };
  }, [content, selected.join(), JSON.stringify(options), media.map((m) => m.url).join()]);

  const addFiles = async (files: FileList | null) => {
    for (const file of Array.from(files ?? [])) {
      const id = ++mediaSeq;
      const kind = mediaType(file.type) as Media['kind'];
      setMedia((m) => [...m, { id, name: file.name, kind, progress: 0 }]);
      const update = (patch: Partial<Media>) => updateMedia(id, patch);
      thumbnailOf(kind, file).then(update);
      try {
        const p = await api('POST', '/media/presign', {
          body: { filename: file.name, contentType: file.type || 'application/octet-stream', size: file.size },
        });
        await uploadFile(p.uploadUrl, file, (f) => update({ progress: f }));
        update({ url: p.publicUrl, progress: 1 });
      } catch (e) {
        update({ error: e });
      }
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const b = body();
    setBusy(true);
    try {
      const schedule: Record<string, unknown> =
        when === 'now'
          ? { publishNow: true }
          : when === 'draft'
            ? { isDraft: true }
            : when === 'queue'
              ? {
                  scheduledFor: (await api('GET', '/queue/next-slot', { query: { profileId } })).nextSlot,
                  queuedFromProfile: profileId,
                }
              : { scheduledFor: at, timezone: zone };
      const res = editing
        ? await api('PUT', `/posts/${editing}`, { body: { ...b, ...schedule } })
        : await api('POST', '/posts', { body: { ...b, ...schedule } });
      setDone(res.post);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const title = editing ? 'Edit post' : 'Compose';
  if (done) {
    return (
      <Page title={title}>
        <div class="notice" role="status">
          Post saved ({done.status}).{' '}
          <a
            href={`/app/calendar?post=${done._id}`}
            onClick={(e) => {
              e.preventDefault();
              navigate(
                `calendar?post=${done._id}${done.scheduledFor ? `&date=${done.scheduledFor.slice(0, 10)}` : ''}`,
              );
            }}
          >
            Open it in the calendar
          </a>
        </div>
        <button
          onClick={() => (editing ? navigate('compose') : undefined, setDone(null), setContent(''), setMedia([]))}
        >
          Write another
        </button>
      </Page>
    );
  }

  if (editing && loaded?.error) return <ErrorBox error={loaded.error} />;
  if (editing && !loaded) return <Loading what="Loading the post" />;
  if (profiles.loading && !profiles.data) return <Loading what="Loading profiles" />;
  if (profiles.error) return <ErrorBox error={profiles.error} />;
  if (!profiles.data?.length)
    return (
      <Page title="Compose">
        <Empty>
          No profile yet.{' '}
          <a href="/app/accounts" onClick={(e) => (e.preventDefault(), navigate('accounts'))}>
            Create one and connect an account
          </a>{' '}
          first.
        </Empty>
      </Page>
    );

  const uploading = media.some((m) => !m.url && !m.error);

  return (
    <Page title={title}>
      {editing && loaded?.post && (
        <p class="notice">
          Editing a {loaded.post.status} post: saving sends the same <code>PUT /v1/posts/{'{id}'}</code> as the API,
          with its rules.
        </p>
      )}
      {readOnly && <p class="notice">{readOnly}: you can look but not post.</p>}
      <form class="composer" onSubmit={submit} aria-describedby={error ? 'compose-error' : undefined}>
        <fieldset disabled={Boolean(readOnly)}>
          <ProfilePicker
            profiles={profiles.data}
            value={profileId}
            onChange={(id) => (setProfileId(id), setSelected([]))}
            id="compose-profile"
          />

          <fieldset class="accounts-pick">
            <legend>Post to</legend>
            {accounts.loading ? (
              <Loading what="Loading accounts" />
            ) : !choosable.length ? (
              <Empty>
                No account in this profile.{' '}
                <a href="/app/accounts" onClick={(e) => (e.preventDefault(), navigate('accounts'))}>
                  Connect one
                </a>
                .
              </Empty>
            ) : (
              choosable.map((a) => (
                <label class="check">
                  <input
                    type="checkbox"
                    checked={selected.includes(a._id)}
                    onChange={(e) =>
                      setSelected((s) =>
                        (e.target as HTMLInputElement).checked ? [...s, a._id] : s.filter((x) => x !== a._id),
                      )
                    }
                  />
                  {platformLabel(a.platform)} · {a.username}
                </label>
              ))
            )}
            <FieldErrors id="err-platforms" messages={fieldMessages(fields, (k) => k === 'platforms')} />
          </fieldset>

          <label for="content">Text</label>
          <textarea
            id="content"
            rows={6}
            value={content}
            onInput={(e) => setContent((e.target as HTMLTextAreaElement).value)}
            aria-describedby="counts err-content"
            aria-invalid={fieldMessages(fields, (k) => k === 'content').length > 0}
          />
          <FieldErrors id="err-content" messages={fieldMessages(fields, (k) => k === 'content')} />
          <ul class="counts" id="counts" aria-live="polite" aria-label="Characters per platform">
            {(platforms.length ? platforms : []).map((p) => {
              const c = counts[p];
              return (
                <li class={c && !c.valid ? 'over' : ''} data-platform={p}>
                  {platformLabel(p)}: {c ? `${c.count} / ${c.limit}` : '…'}
                </li>
              );
            })}
          </ul>

          <label for="media">Media</label>
          <input
            id="media"
            type="file"
            multiple
            accept="image/*,video/*,application/pdf"
            onChange={(e) => addFiles((e.target as HTMLInputElement).files)}
          />
          <MediaPicker
            onPick={(m) => {
              const id = ++mediaSeq;
              const kind = mediaType(m.contentType) as Media['kind'];
              setMedia((all) => [...all, { id, name: m.filename, kind, url: m.url, progress: 1 }]);
              thumbnailOf(kind, m.url).then((t) => updateMedia(id, t));
            }}
          />
          <ul class="media-list">
            {media.map((m) => (
              <li>
                {m.thumb ? (
                  <img class="thumb" src={m.thumb} alt={`Thumbnail of ${m.name}`} />
                ) : (
                  <span class="thumb" aria-hidden="true" />
                )}{' '}
                {m.name}{' '}
                {m.error ? (
                  <ErrorBox error={m.error} />
                ) : (
                  <progress max={1} value={m.progress} aria-label={`Upload of ${m.name}`}>
                    {Math.round(m.progress * 100)}%
                  </progress>
                )}{' '}
                {m.url ? 'uploaded' : ''}
                <button type="button" class="link" onClick={() => setMedia((all) => all.filter((x) => x.id !== m.id))}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
          <FieldErrors id="err-media" messages={fieldMessages(fields, (k) => k.startsWith('mediaItems'))} />

          {targets.length > 0 && (
            <section class="previews" aria-labelledby="previews-title">
              <h2 id="previews-title">Previews</h2>
              <div class="preview-grid">
                {targets.map((a) => (
                  <TargetPreview
                    account={a}
                    text={options[a._id]?.customContent || content}
                    thread={options[a._id]?.data.threadItems}
                    media={media}
                    lengths={lengths}
                  />
                ))}
              </div>
            </section>
          )}

          {targets.map((a, i) => (
            <TargetPanel
              account={a}
              options={options[a._id] ?? NO_OPTIONS}
              onChange={(o) => setOptions((all) => ({ ...all, [a._id]: o }))}
              issues={check.errors.filter((x) =>
                typeof x.index === 'number' ? x.index === i : x.platform === a.platform,
              )}
              warnings={check.warnings.filter((w) => w.platform === a.platform).map((w) => w.warning)}
              fields={fields}
              index={i}
            />
          ))}

          <fieldset class="when">
            <legend>When</legend>
            {(
              [
                ['now', 'Publish now'],
                ['at', 'At a time'],
                ['queue', 'Next queue slot'],
                ['draft', 'Save as draft'],
              ] as [When, string][]
            ).map(([v, label]) => (
              <label class="check">
                <input type="radio" name="when" value={v} checked={when === v} onChange={() => setWhen(v)} /> {label}
              </label>
            ))}
            {when === 'at' && (
              <div class="row">
                <label for="at">Date and time</label>
                <input
                  id="at"
                  type="datetime-local"
                  value={at}
                  required
                  onInput={(e) => setAt((e.target as HTMLInputElement).value)}
                  aria-describedby="err-when"
                />
                <ZonePicker value={zone} onChange={setZone} id="at-zone" />
              </div>
            )}
            <FieldErrors
              id="err-when"
              messages={fieldMessages(fields, (k) => k === 'scheduledFor' || k === 'timezone')}
            />
          </fieldset>

          <div id="compose-error">
            <ErrorBox error={error} />
          </div>
          <button
            type="submit"
            disabled={busy || uploading || !targets.length}
            title={!targets.length ? 'Choose at least one account' : undefined}
          >
            {busy
              ? 'Saving…'
              : editing
                ? 'Save changes'
                : when === 'now'
                  ? 'Publish now'
                  : when === 'draft'
                    ? 'Save draft'
                    : 'Schedule'}
          </button>
        </fieldset>
      </form>
    </Page>
  );
}

/** One account's preview: the API's count for its text, the cut where the text stops fitting. */
function TargetPreview({
  account: a,
  text,
  thread,
  media,
  lengths,
}: {
  account: Account;
  text: string;
  thread: unknown;
  media: Media[];
  lengths: Map<string, Record<string, Length>>;
}) {
  const length = lengths.get(text)?.[a.platform];
  const cuts = useCuts(text, length && !length.valid ? { [a.platform]: length } : {});
  const items = Array.isArray(thread) ? thread.map((t) => String((t as { content?: unknown })?.content ?? '')) : [];
  return (
    <Preview
      platform={a.platform}
      username={a.username}
      text={text}
      thread={items}
      media={media.filter((m) => !m.error)}
      length={length}
      cut={cuts[a.platform]}
    />
  );
}

/**
 * One target's options: its own text, and its platformSpecificData drawn from the platform's schema;
 * each problem (the live check's, or the API's refusal) shown at its field, the rest above.
 */
function TargetPanel({
  account: a,
  options: o,
  onChange,
  issues,
  warnings,
  fields,
  index,
}: {
  account: Account;
  options: TargetOptions;
  onChange: (o: TargetOptions) => void;
  issues: any[];
  warnings: string[];
  fields: Record<string, string[]>;
  index: number;
}) {
  const schema = usePlatformSchema(a.platform);
  const set = (patch: Partial<TargetOptions>) => onChange({ ...o, ...patch });
  const prefix = `platforms.${index}.`;
  const PSD = 'platformSpecificData.';
  const server = Object.entries(fields)
    .map(([k, v]) => [normalize(k), v] as const)
    .filter(([k]) => k.startsWith(prefix))
    .map(([k, v]) => [k.slice(prefix.length), v] as const);
  const strip = (k: string) => (k.startsWith(prefix) ? k.slice(prefix.length) : k);
  const local = issues.map((x) => [strip(normalize(String(x.field ?? ''))), [String(x.error)]] as const);
  const all = [...local, ...server];
  const drawn = (k: string) =>
    schema?.properties && k.startsWith(PSD) && Object.hasOwn(schema.properties, k.slice(PSD.length).split('.')[0]);
  const errorsFor = (key: string) => all.filter(([k]) => k === PSD + key).flatMap(([, v]) => v);
  const elsewhere = all.filter(([k]) => !drawn(k) && k !== 'customContent');
  const hasFirstComment = Boolean(schema?.properties?.firstComment);
  return (
    <details class="target-options" open={all.length > 0}>
      <summary>
        {platformLabel(a.platform)} options ({a.username}){' '}
        {all.length ? `· ${all.length} problem${all.length > 1 ? 's' : ''}` : ''}
      </summary>
      <ul class="field-errors">
        {elsewhere.map(([k, v]) => (
          <li>
            {k ? `${k}: ` : ''}
            {v.join('; ')}
          </li>
        ))}
      </ul>
      {warnings.map((w) => (
        <p class="warning">{w}</p>
      ))}
      <label for={`cc-${a._id}`}>Text for {platformLabel(a.platform)} only</label>
      <textarea
        id={`cc-${a._id}`}
        rows={3}
        value={o.customContent}
        onInput={(e) => set({ customContent: (e.target as HTMLTextAreaElement).value })}
      />
      <FieldErrors id={`err-cc-${a._id}`} messages={all.filter(([k]) => k === 'customContent').flatMap(([, v]) => v)} />
      {!hasFirstComment && (
        <>
          <label for={`fc-${a._id}`}>First comment</label>
          <input
            id={`fc-${a._id}`}
            value={o.firstComment || String(o.data.firstComment ?? '')}
            onInput={(e) => {
              const { firstComment: _, ...data } = o.data;
              set({ firstComment: (e.target as HTMLInputElement).value, data });
            }}
          />
        </>
      )}
      {schema === undefined ? (
        <Loading what="Loading the platform's options" />
      ) : schema ? (
        <PlatformFields
          id={`psd-${a._id}`}
          schema={schema}
          value={o.data}
          onChange={(data) => set({ data })}
          errorsFor={errorsFor}
        />
      ) : null}
    </details>
  );
}
