import { useEffect, useState } from 'preact/hooks';
import { platformDataSchema, type JsonSchema } from './openapi';
import { FieldErrors } from './ui';

/*
 * A target's platformSpecificData as a form, drawn from the platform's schema in Herald's OpenAPI
 * document: a choice for an enum, yes/no/default for a boolean, a number, a URL, a text, a list of
 * words, a group for an object, the thread editor for a list of {content} items, and JSON for what the
 * schema does not describe. Nothing here names a platform or a field.
 */

export type Data = Record<string, unknown>;

/** "firstComment" → "First comment". */
const humanize = (key: string) => {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** Whether a schema is a thread: a list of items carrying their own `content`. */
const isThread = (s: JsonSchema | undefined) =>
  s?.type === 'array' && s.items?.type === 'object' && Boolean(s.items.properties?.content);

export function usePlatformSchema(platform: string): JsonSchema | null | undefined {
  const [schema, setSchema] = useState<JsonSchema | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    platformDataSchema(platform).then(
      (s) => live && setSchema(s),
      () => live && setSchema(null),
    );
    return () => void (live = false);
  }, [platform]);
  return schema;
}

interface Props {
  /** Prefix of the ids of this target's controls. */
  id: string;
  schema: JsonSchema;
  value: Data;
  onChange: (next: Data) => void;
  /** Messages for a field key (its path under platformSpecificData, dotted). */
  errorsFor: (key: string) => string[];
  /** Keys drawn elsewhere. */
  skip?: string[];
}

/**
 * A developer's field: one that takes another object's id (`...Id`, `...Ids`, `...Urn`), which a person
 * scheduling posts does not have at hand. Those go in an "Advanced" section, closed unless in use.
 */
const isDeveloperField = (key: string) => /(Id|Ids|Urn|Urns)$/.test(key);

export function PlatformFields({ id, schema, value, onChange, errorsFor, skip = [] }: Props) {
  const entries = Object.entries(schema.properties ?? {}).filter(([k]) => !skip.includes(k));
  if (!entries.length) return null;
  const set = (key: string, v: unknown) => {
    const next = { ...value };
    if (v === undefined) delete next[key];
    else next[key] = v;
    onChange(next);
  };
  const field = ([key, s]: [string, JsonSchema]) => (
    <Field
      id={`${id}-${key}`}
      name={key}
      schema={s}
      value={value[key]}
      onChange={(v) => set(key, v)}
      errors={errorsFor(key)}
      errorsFor={(sub) => errorsFor(`${key}.${sub}`)}
    />
  );
  const advanced = entries.filter(([k]) => isDeveloperField(k));
  const inUse = advanced.some(([k]) => value[k] !== undefined || errorsFor(k).length > 0);
  return (
    <div class="platform-fields">
      {entries.filter(([k]) => !isDeveloperField(k)).map(field)}
      {advanced.length > 0 && (
        <details class="advanced" open={inUse}>
          <summary>Advanced: ids for developers</summary>
          {advanced.map(field)}
        </details>
      )}
    </div>
  );
}

function Field({
  id,
  name,
  schema: s,
  value,
  onChange,
  errors,
  errorsFor,
}: {
  id: string;
  name: string;
  schema: JsonSchema;
  value: unknown;
  onChange: (v: unknown) => void;
  errors: string[];
  errorsFor: (key: string) => string[];
}) {
  const label = humanize(name);
  const errId = `err-${id}`;
  const a11y = { id, 'aria-describedby': errors.length ? errId : undefined, 'aria-invalid': errors.length > 0 };
  const errs = <FieldErrors id={errId} messages={errors} />;
  const text = (v: string) => onChange(v === '' ? undefined : v);

  if (isThread(s))
    return (
      <ThreadEditor
        id={id}
        label={label}
        value={Array.isArray(value) ? value : []}
        onChange={onChange}
        errors={errors}
        errorsFor={errorsFor}
      />
    );
  if (s.type === 'object' && s.properties) {
    return (
      <fieldset class="field-group">
        <legend>{label}</legend>
        <PlatformFields
          id={id}
          schema={s}
          value={(value as Data) ?? {}}
          onChange={(v) => onChange(Object.keys(v).length ? v : undefined)}
          errorsFor={errorsFor}
        />
        {errs}
      </fieldset>
    );
  }
  let control;
  if (s.type === 'boolean') {
    control = (
      <select
        {...a11y}
        value={value === true ? 'yes' : value === false ? 'no' : ''}
        onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          onChange(v === 'yes' ? true : v === 'no' ? false : undefined);
        }}
      >
        <option value="">(platform default)</option>
        <option value="yes">Yes</option>
        <option value="no">No</option>
      </select>
    );
  } else if (s.type === 'string' && s.enum) {
    control = (
      <select
        {...a11y}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => text((e.target as HTMLSelectElement).value)}
      >
        <option value="">(platform default)</option>
        {s.enum.map((v) => (
          <option value={v}>{v}</option>
        ))}
      </select>
    );
  } else if (s.type === 'integer' || s.type === 'number') {
    control = (
      <input
        {...a11y}
        type="number"
        min={s.minimum}
        max={s.maximum}
        step={s.type === 'integer' ? 1 : 'any'}
        value={typeof value === 'number' ? String(value) : ''}
        onInput={(e) => {
          const v = (e.target as HTMLInputElement).value;
          onChange(v === '' ? undefined : Number(v));
        }}
      />
    );
  } else if (s.type === 'string' && (s.maxLength ?? 0) > 500) {
    control = (
      <textarea
        {...a11y}
        rows={2}
        maxLength={s.maxLength}
        value={typeof value === 'string' ? value : ''}
        onInput={(e) => text((e.target as HTMLTextAreaElement).value)}
      />
    );
  } else if (s.type === 'string') {
    control = (
      <input
        {...a11y}
        type={s.format === 'uri' ? 'url' : 'text'}
        maxLength={s.maxLength}
        pattern={s.pattern}
        placeholder={s.format === 'date-time' ? '2030-01-31T09:00:00Z' : undefined}
        value={typeof value === 'string' ? value : ''}
        onInput={(e) => text((e.target as HTMLInputElement).value)}
      />
    );
  } else if (s.type === 'array' && s.items?.type === 'string') {
    control = (
      <input
        {...a11y}
        placeholder="comma, separated"
        value={Array.isArray(value) ? value.join(', ') : ''}
        onInput={(e) => {
          const list = (e.target as HTMLInputElement).value
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean);
          onChange(list.length ? list : undefined);
        }}
      />
    );
  } else {
    return <JsonField id={id} label={label} value={value} onChange={onChange} errors={errors} />;
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control}
      {errs}
    </div>
  );
}

/** A field the schema does not describe: JSON, parsed as it is typed. */
function JsonField({
  id,
  label,
  value,
  onChange,
  errors,
}: {
  id: string;
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
  errors: string[];
}) {
  const [textValue, setText] = useState(value === undefined ? '' : JSON.stringify(value));
  const [bad, setBad] = useState(false);
  const messages = bad ? ['not valid JSON', ...errors] : errors;
  return (
    <div class="field">
      <label for={id}>{label} (JSON)</label>
      <input
        id={id}
        class="mono"
        value={textValue}
        aria-invalid={messages.length > 0}
        aria-describedby={messages.length ? `err-${id}` : undefined}
        onInput={(e) => {
          const t = (e.target as HTMLInputElement).value;
          setText(t);
          if (!t.trim()) return (setBad(false), onChange(undefined));
          try {
            onChange(JSON.parse(t));
            setBad(false);
          } catch {
            setBad(true);
          }
        }}
      />
      <FieldErrors id={`err-${id}`} messages={messages} />
    </div>
  );
}

/** The items after the first post of a thread, each its own text: added, edited, removed, moved. */
function ThreadEditor({
  id,
  label,
  value,
  onChange,
  errors,
  errorsFor,
}: {
  id: string;
  label: string;
  value: any[];
  onChange: (v: unknown) => void;
  errors: string[];
  errorsFor: (key: string) => string[];
}) {
  const set = (items: any[]) => onChange(items.length ? items : undefined);
  return (
    <fieldset class="thread">
      <legend>{label}: the replies after the first post</legend>
      <ol>
        {value.map((item, i) => {
          const itemErrors = [...errorsFor(`${i}`), ...errorsFor(`${i}.content`)];
          return (
            <li>
              <label for={`${id}-${i}`}>Reply {i + 1}</label>
              <textarea
                id={`${id}-${i}`}
                rows={2}
                value={item?.content ?? ''}
                aria-invalid={itemErrors.length > 0}
                aria-describedby={itemErrors.length ? `err-${id}-${i}` : undefined}
                onInput={(e) =>
                  set(value.map((x, j) => (j === i ? { ...x, content: (e.target as HTMLTextAreaElement).value } : x)))
                }
              />
              <FieldErrors id={`err-${id}-${i}`} messages={itemErrors} />
              <div class="row">
                <button
                  type="button"
                  class="small"
                  disabled={i === 0}
                  onClick={() => set(value.map((x, j) => (j === i - 1 ? value[i] : j === i ? value[i - 1] : x)))}
                  aria-label={`Move reply ${i + 1} up`}
                >
                  ↑
                </button>
                <button type="button" class="small link" onClick={() => set(value.filter((_, j) => j !== i))}>
                  Remove reply {i + 1}
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      <button type="button" class="small" onClick={() => onChange([...value, { content: '' }])}>
        Add a reply
      </button>
      <FieldErrors id={`err-${id}`} messages={errors} />
    </fieldset>
  );
}
