import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, uploadFile } from '../api';
import { ProfilePicker, ZonePicker } from '../components';
import { BROWSER_ZONE, loadAccounts, loadProfiles, platformLabel, profileIdOf, useChosenProfile, type Account } from '../data';
import { navigate } from '../router';
import { cannotWrite, Empty, ErrorBox, FieldErrors, Loading, Page, useLoad, useSession } from '../ui';

interface Media {
  id: number;
  name: string;
  type: string;
  url?: string;
  progress: number;
  error?: unknown;
}

interface TargetOptions {
  customContent: string;
  firstComment: string;
  /** platformSpecificData as JSON text, checked before sending. */
  extra: string;
}

let mediaSeq = 0;

type When = 'now' | 'at' | 'queue' | 'draft';

const mediaType = (mime: string) => (mime.startsWith('video/') ? 'video' : mime === 'image/gif' ? 'gif' : mime.startsWith('image/') ? 'image' : 'document');

/** Messages for one field name out of the API's details.fields (also `platforms[0].x`, `platforms.0.x`). */
function fieldMessages(fields: Record<string, string[]>, match: (name: string) => boolean): string[] {
  return Object.entries(fields)
    .filter(([k]) => match(k.replace(/^\/|^body\.?/, '').replace(/\[(\d+)\]/g, '.$1').replace(/\//g, '.')))
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
  const [at, setAt] = useState(() => toLocalInput(query.get('at') ?? new Date(Date.now() + 3600_000).toISOString(), BROWSER_ZONE));
  const [zone, setZone] = useState(BROWSER_ZONE);
  const [counts, setCounts] = useState<Record<string, { count: number; limit: number; valid: boolean }>>({});
  const [check, setCheck] = useState<{ errors: any[]; warnings: any[] }>({ errors: [], warnings: [] });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<any>(null);

  const targets = useMemo(() => (accounts.data ?? []).filter((a) => selected.includes(a._id)), [accounts.data, selected]);
  const platforms = [...new Set(targets.map((t) => t.platform))];
  const fields = error instanceof ApiError ? error.fields : {};

  const body = () => {
    const items = media.filter((m) => m.url).map((m) => ({ type: mediaType(m.type) as any, url: m.url! }));
    return {
      content,
      mediaItems: items,
      platforms: targets.map((a) => {
        const o = options[a._id];
        let extra: Record<string, unknown> | undefined;
        if (o?.extra.trim()) extra = JSON.parse(o.extra);
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
        const len = await api('POST', '/tools/validate/post-length', { body: { text: content }, signal: ctrl.signal });
        setCounts(len.platforms);
        if (targets.length) {
          let b;
          try {
            b = body();
          } catch {
            return; // options JSON being typed
          }
          const v = await api('POST', '/tools/validate/post', { body: b, signal: ctrl.signal });
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
      setMedia((m) => [...m, { id, name: file.name, type: file.type, progress: 0 }]);
      const update = (patch: Partial<Media>) => setMedia((m) => m.map((x) => (x.id === id ? { ...x, ...patch } : x)));
      try {
        const p = await api('POST', '/media/presign', { body: { filename: file.name, contentType: file.type || 'application/octet-stream', size: file.size } });
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
    let b;
    try {
      b = body();
    } catch {
      setError(new ApiError('Platform options must be a JSON object', 400, 'validation_error', null, { platformSpecificData: ['not valid JSON'] }));
      return;
    }
    setBusy(true);
    try {
      const schedule: Record<string, unknown> =
        when === 'now'
          ? { publishNow: true }
          : when === 'draft'
            ? { isDraft: true }
            : when === 'queue'
              ? { scheduledFor: (await api('GET', '/queue/next-slot', { query: { profileId } })).nextSlot, queuedFromProfile: profileId }
              : { scheduledFor: at, timezone: zone };
      const res = await api('POST', '/posts', { body: { ...b, ...schedule } });
      setDone(res.post);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (done) {
    return (
      <Page title="Compose">
        <div class="notice" role="status">
          Post saved ({done.status}).{' '}
          <a
            href={`/app/calendar?post=${done._id}`}
            onClick={(e) => {
              e.preventDefault();
              navigate(`calendar?post=${done._id}${done.scheduledFor ? `&date=${done.scheduledFor.slice(0, 10)}` : ''}`);
            }}
          >
            Open it in the calendar
          </a>
        </div>
        <button onClick={() => (setDone(null), setContent(''), setMedia([]))}>Write another</button>
      </Page>
    );
  }

  if (profiles.loading && !profiles.data) return <Loading what="Loading profiles" />;
  if (profiles.error) return <ErrorBox error={profiles.error} />;
  if (!profiles.data?.length)
    return (
      <Page title="Compose">
        <Empty>
          No profile yet. <a href="/app/accounts" onClick={(e) => (e.preventDefault(), navigate('accounts'))}>Create one and connect an account</a> first.
        </Empty>
      </Page>
    );

  const issuesFor = (platform: string) => check.errors.filter((x) => x.platform === platform);
  const uploading = media.some((m) => !m.url && !m.error);

  return (
    <Page title="Compose">
      {readOnly && <p class="notice">{readOnly}: you can look but not post.</p>}
      <form class="composer" onSubmit={submit} aria-describedby={error ? 'compose-error' : undefined}>
        <fieldset disabled={Boolean(readOnly)}>
          <ProfilePicker profiles={profiles.data} value={profileId} onChange={(id) => (setProfileId(id), setSelected([]))} id="compose-profile" />

          <fieldset class="accounts-pick">
            <legend>Post to</legend>
            {accounts.loading ? (
              <Loading what="Loading accounts" />
            ) : !accounts.data?.length ? (
              <Empty>
                No account in this profile. <a href="/app/accounts" onClick={(e) => (e.preventDefault(), navigate('accounts'))}>Connect one</a>.
              </Empty>
            ) : (
              accounts.data.map((a) => (
                <label class="check">
                  <input
                    type="checkbox"
                    checked={selected.includes(a._id)}
                    onChange={(e) => setSelected((s) => ((e.target as HTMLInputElement).checked ? [...s, a._id] : s.filter((x) => x !== a._id)))}
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
          <input id="media" type="file" multiple accept="image/*,video/*,application/pdf" onChange={(e) => addFiles((e.target as HTMLInputElement).files)} />
          <ul class="media-list">
            {media.map((m) => (
              <li>
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

          {targets.map((a, i) => {
            const o = options[a._id] ?? { customContent: '', firstComment: '', extra: '' };
            const set = (patch: Partial<TargetOptions>) => setOptions((all) => ({ ...all, [a._id]: { ...o, ...patch } }));
            const serverErrors = fieldMessages(fields, (k) => k.startsWith(`platforms.${i}`));
            const local = issuesFor(a.platform);
            return (
              <details class="target-options" open={local.length > 0 || serverErrors.length > 0}>
                <summary>
                  {platformLabel(a.platform)} options ({a.username}) {local.length ? `· ${local.length} problem${local.length > 1 ? 's' : ''}` : ''}
                </summary>
                <ul class="field-errors">
                  {local.map((x) => (
                    <li>
                      {x.field}: {x.error}
                    </li>
                  ))}
                  {serverErrors.map((m) => (
                    <li>{m}</li>
                  ))}
                </ul>
                {check.warnings
                  .filter((w) => w.platform === a.platform)
                  .map((w) => (
                    <p class="warning">{w.warning}</p>
                  ))}
                <label for={`cc-${a._id}`}>Text for {platformLabel(a.platform)} only</label>
                <textarea id={`cc-${a._id}`} rows={3} value={o.customContent} onInput={(e) => set({ customContent: (e.target as HTMLTextAreaElement).value })} />
                <label for={`fc-${a._id}`}>First comment</label>
                <input id={`fc-${a._id}`} value={o.firstComment} onInput={(e) => set({ firstComment: (e.target as HTMLInputElement).value })} />
                <label for={`psd-${a._id}`}>Platform options (platformSpecificData, JSON)</label>
                <textarea
                  id={`psd-${a._id}`}
                  rows={3}
                  class="mono"
                  placeholder='{"privacyStatus": "public"}'
                  value={o.extra}
                  onInput={(e) => set({ extra: (e.target as HTMLTextAreaElement).value })}
                />
              </details>
            );
          })}

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
                <input id="at" type="datetime-local" value={at} required onInput={(e) => setAt((e.target as HTMLInputElement).value)} aria-describedby="err-when" />
                <ZonePicker value={zone} onChange={setZone} id="at-zone" />
              </div>
            )}
            <FieldErrors id="err-when" messages={fieldMessages(fields, (k) => k === 'scheduledFor' || k === 'timezone')} />
          </fieldset>

          <div id="compose-error">
            <ErrorBox error={error} />
          </div>
          <button type="submit" disabled={busy || uploading || !targets.length} title={!targets.length ? 'Choose at least one account' : undefined}>
            {busy ? 'Saving…' : when === 'now' ? 'Publish now' : when === 'draft' ? 'Save draft' : 'Schedule'}
          </button>
        </fieldset>
      </form>
    </Page>
  );
}

/** An instant as the value of a datetime-local input in `zone`. */
function toLocalInput(iso: string, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}`;
}
