/** What the services read from the PDS and its PLC directory: signing keys, handles, posts. */
export interface PostRecord {
  uri: string;
  cid: string;
  value: {
    text?: string;
    createdAt?: string;
    reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } };
    embed?: any;
    facets?: any[];
  };
}

export class PdsReader {
  private pdsUrl: string | null = null;
  private plcUrl: string | null = null;
  private readonly handles = new Map<string, string>();

  attach(pdsUrl: string, plcUrl: string): void {
    this.pdsUrl = pdsUrl.replace(/\/+$/, '');
    this.plcUrl = plcUrl.replace(/\/+$/, '');
  }

  private async get(base: string | null, path: string): Promise<any> {
    if (!base) throw new Error('the Bluesky services are not attached to a PDS yet');
    const res = await fetch(`${base}${path}`);
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return res.json();
  }

  /** The account's atproto signing key (a did:key), as the PLC directory holds it. */
  async signingKey(did: string): Promise<string> {
    const data = await this.get(this.plcUrl, `/${encodeURIComponent(did)}/data`);
    const key = data?.verificationMethods?.atproto;
    if (typeof key !== 'string') throw new Error(`no atproto signing key for ${did}`);
    return key;
  }

  async handle(did: string): Promise<string> {
    let handle = this.handles.get(did);
    if (!handle) {
      const repo = await this.get(this.pdsUrl, `/xrpc/com.atproto.repo.describeRepo?repo=${encodeURIComponent(did)}`);
      handle = String(repo.handle);
      this.handles.set(did, handle);
    }
    return handle;
  }

  async repos(): Promise<string[]> {
    const out: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await this.get(
        this.pdsUrl,
        `/xrpc/com.atproto.sync.listRepos?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      out.push(...(page.repos ?? []).filter((r: any) => r.active !== false).map((r: any) => String(r.did)));
      if (!page.cursor || !page.repos?.length) return out;
      cursor = page.cursor;
    }
  }

  async posts(did: string): Promise<PostRecord[]> {
    return this.records(did, 'app.bsky.feed.post') as Promise<PostRecord[]>;
  }

  /** Every record of one collection of a repo (posts, likes, reposts, follows). */
  async records(did: string, collection: string): Promise<Array<{ uri: string; cid: string; value: any }>> {
    const out: Array<{ uri: string; cid: string; value: any }> = [];
    let cursor = '';
    for (;;) {
      const page = await this.get(
        this.pdsUrl,
        `/xrpc/com.atproto.repo.listRecords?repo=${encodeURIComponent(did)}&collection=${collection}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      out.push(...(page.records ?? []));
      if (!page.cursor || !page.records?.length) return out;
      cursor = page.cursor;
    }
  }
}
