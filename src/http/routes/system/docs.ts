import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';

const escape = (s: unknown) =>
  String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

type Op = { summary?: string; tags?: string[]; parameters?: any[]; requestBody?: any; responses?: Record<string, any> };

function schemaBlock(schema: unknown): string {
  return schema ? `<pre>${escape(JSON.stringify(schema, null, 2))}</pre>` : '';
}

/** Renders the OpenAPI document as one readable HTML page (works offline: no CDN assets). */
export function renderDocs(doc: any): string {
  const groups = new Map<string, string[]>();
  for (const [path, methods] of Object.entries<Record<string, Op>>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? 'Other';
      const params = (op.parameters ?? [])
        .map((p) => `<li><code>${escape(p.name)}</code> <em>${escape(p.in)}</em>${p.required ? ' (required)' : ''}</li>`)
        .join('');
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses ?? {})
        .map(([status, r]) => `<details><summary>${escape(status)}</summary>${schemaBlock(r?.content?.['application/json']?.schema)}</details>`)
        .join('');
      const id = `${method}-${path}`.replace(/[^a-zA-Z0-9]+/g, '-');
      const html = `<section id="${id}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary)}</p>${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}
${body ? `<h4>Body</h4>${schemaBlock(body)}` : ''}<h4>Responses</h4>${responses}</section>`;
      groups.set(tag, [...(groups.get(tag) ?? []), html]);
    }
  }
  const nav = [...groups.keys()].map((t) => `<li><a href="#tag-${escape(t)}">${escape(t)}</a></li>`).join('');
  const sections = [...groups.entries()]
    .map(([tag, ops]) => `<h2 id="tag-${escape(tag)}">${escape(tag)}</h2>${ops.join('')}`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info?.title)} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f5;padding:.6rem;overflow:auto;font-size:12px}
section{border-top:1px solid #ddd;padding:.5rem 0}.m{display:inline-block;min-width:4.5em;font-size:12px;padding:2px 6px;border-radius:3px;color:#fff;background:#555}
.get{background:#2b7bb9}.post{background:#2f9e44}.put{background:#e67700}.patch{background:#ae3ec9}.delete{background:#c92a2a}</style></head>
<body><h1>${escape(doc.info?.title)} <small>${escape(doc.info?.version)}</small></h1><p>${escape(doc.info?.description)}</p>
<p>Authenticate with <code>Authorization: Bearer sk_...</code>. Machine-readable document: <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
<ul>${nav}</ul>${sections}</body></html>`;
}

/**
 * The page is static HTML with one inline style sheet: no script, no framing, nothing loaded from
 * elsewhere (the same stance as the connect pages and the dashboard).
 */
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

export default function docsRoute(app: App, _ctx: AppContext) {
  let cached: string | null = null;
  app.get('/docs', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    cached ??= renderDocs(app.swagger());
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', POLICY)
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(cached);
  });
}
