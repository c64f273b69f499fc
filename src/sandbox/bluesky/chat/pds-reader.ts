/** What the services read from the PDS and its PLC directory: signing keys, handles, posts. */
interface StrongRef {
  uri: string;
  cid: string;
}

/**
 * A record's value as the services read it, whatever its collection (post, like, repost, follow): the
 * fields they look at, the rest passed on as it is.
 */
interface RecordValue {
  text?: string;
  createdAt?: string;
  reply?: { root: StrongRef; parent: StrongRef };
  embed?: {
    images?: unknown[];
    media?: unknown;
    /** A quote: a strong ref, or a record with media around one. */
    record?: { uri?: string; record?: { uri?: string } };
  };
  facets?: { features?: { $type?: string; did?: string }[] }[];
  /** A like's or repost's post (a strong ref); a follow's account (a DID). */
  subject?: StrongRef | string;
  [field: string]: unknown;
}

export interface PostRecord {
  uri: string;
  cid: string;
  value: RecordValue;
}

/** The parts of the PDS's and PLC directory's answers read here. */
interface PlcData {
  verificationMethods?: Record<string, unknown>;
}
interface RepoList {
  repos?: { did: string; active?: boolean }[];
  cursor?: string;
}
interface RecordList {
  records?: PostRecord[];
  cursor?: string;
}

export class PdsReader {
  private pdsUrl: string | null = null;
  private plcUrl: string | null = null;
  private readonly handles = new Map<string, string>();

  attach(pdsUrl: string, plcUrl: string): void {
    this.pdsUrl = pdsUrl.replace(/\/+$/, '');
    this.plcUrl = plcUrl.replace(/\/+$/, '');
  }

  /** One JSON answer of the test PDS or PLC directory, read as `T` (the shape its lexicon gives). */
  private async get<T>(base: string | null, path: string): Promise<T> {
    if (!base) throw new Error('the Bluesky services are not attached to a PDS yet');
    const res = await fetch(`${base}${path}`);
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  }

  /** The account's atproto signing key (a did:key), as the PLC directory holds it. */
  async signingKey(did: string): Promise<string> {
    const data = await this.get<PlcData | null>(this.plcUrl, `/${encodeURIComponent(did)}/data`);
    const key = data?.verificationMethods?.atproto;
    if (typeof key !== 'string') throw new Error(`no atproto signing key for ${did}`);
    return key;
  }

  async handle(did: string): Promise<string> {
    let handle = this.handles.get(did);
    if (!handle) {
      const repo = await this.get<{ handle: string }>(
        this.pdsUrl,
        `/xrpc/com.atproto.repo.describeRepo?repo=${encodeURIComponent(did)}`,
      );
      handle = String(repo.handle);
      this.handles.set(did, handle);
    }
    return handle;
  }

  async repos(): Promise<string[]> {
    const out: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await this.get<RepoList>(
        this.pdsUrl,
        `/xrpc/com.atproto.sync.listRepos?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      out.push(...(page.repos ?? []).filter((r) => r.active !== false).map((r) => String(r.did)));
      if (!page.cursor || !page.repos?.length) return out;
      cursor = page.cursor;
    }
  }

  async posts(did: string): Promise<PostRecord[]> {
    return this.records(did, 'app.bsky.feed.post');
  }

  /** Every record of one collection of a repo (posts, likes, reposts, follows). */
  async records(did: string, collection: string): Promise<PostRecord[]> {
    const out: PostRecord[] = [];
    let cursor = '';
    for (;;) {
      const page = await this.get<RecordList>(
        this.pdsUrl,
        `/xrpc/com.atproto.repo.listRecords?repo=${encodeURIComponent(did)}&collection=${collection}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      out.push(...(page.records ?? []));
      if (!page.cursor || !page.records?.length) return out;
      cursor = page.cursor;
    }
  }
}
