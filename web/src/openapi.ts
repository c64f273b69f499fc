/**
 * What the dashboard learns from Herald's own OpenAPI document (`GET /v1/openapi.json`, public), read once
 * when a page first needs it: the connect selection listing of a platform, and each platform's
 * `platformSpecificData` fields. Nothing here names a platform.
 */
let doc: Promise<any> | null = null;

function openapi(): Promise<any> {
  if (!doc) {
    doc = fetch('/v1/openapi.json', { credentials: 'omit' }).then((r) => {
      if (!r.ok) throw new Error(`The API description could not be read (HTTP ${r.status})`);
      return r.json();
    });
    doc.catch(() => (doc = null));
  }
  return doc;
}

const deref = (d: any, s: any): any =>
  s && typeof s.$ref === 'string'
    ? deref(
        d,
        s.$ref
          .replace('#/', '')
          .split('/')
          .reduce((o: any, k: string) => o?.[k], d),
      )
    : s;

/**
 * The listing of a pending connection's destinations for a platform: the GET under
 * `/v1/connect/{platform}/` that takes a `tempToken`, and the key of the array it answers.
 */
export async function selectionListing(platform: string): Promise<{ path: string; key: string } | null> {
  const d = await openapi();
  for (const [path, ops] of Object.entries<any>(d.paths ?? {})) {
    if (!path.startsWith(`/v1/connect/${platform}/`) || !ops.get) continue;
    const params: any[] = (ops.get.parameters ?? []).map((p: any) => deref(d, p));
    if (!params.some((p) => p.in === 'query' && p.name === 'tempToken')) continue;
    const schema = deref(d, ops.get.responses?.['200']?.content?.['application/json']?.schema);
    const key = Object.entries<any>(schema?.properties ?? {}).find(([, s]) => deref(d, s)?.type === 'array')?.[0];
    if (key) return { path: path.slice('/v1'.length), key };
  }
  return null;
}

/** A platform's platformSpecificData schema (`components.schemas`, the one whose `x-platform` is it). */
export async function platformDataSchema(platform: string): Promise<JsonSchema | null> {
  const d = await openapi();
  const found = Object.values<any>(d.components?.schemas ?? {}).find((s) => s?.['x-platform'] === platform);
  return found ?? null;
}

export interface JsonSchema {
  type?: string;
  enum?: string[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}
