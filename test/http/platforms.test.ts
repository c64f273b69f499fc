import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/platforms/catalogue.js';
import type { PlatformDescriptor } from '../../src/platforms/descriptor.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

/** WCAG relative luminance of `#rrggbb`. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe('GET /v1/platforms', () => {
  it('lists every platform of the catalogue, in its order, with what its descriptor says', async () => {
    const { apiKey } = await env.createUser();
    const res = await env.request(apiKey, 'GET', '/v1/platforms');
    expect(res.status).toBe(200);
    const list = res.body.platforms as any[];
    expect(list.map((p) => p.id)).toEqual(CATALOGUE.map((d) => d.id));
    for (const d of CATALOGUE as readonly PlatformDescriptor[]) {
      const p = list.find((x) => x.id === d.id);
      expect(p).toMatchObject({
        name: d.name,
        label: d.display.label,
        glyph: d.display.glyph,
        colour: d.display.colour,
        connect: d.capabilities.connect,
        preview: { card: d.preview.card ?? false, thread: d.preview.thread ?? false },
      });
      expect(p.label.length).toBeGreaterThan(0);
      expect(p.glyph.length).toBeGreaterThan(0);
      expect(p.colour).toMatch(/^#[0-9a-f]{6}$/);
      // The glyph is drawn in white on the colour: at least WCAG AA's 4.5:1.
      expect(1.05 / (luminance(p.colour) + 0.05)).toBeGreaterThanOrEqual(4.5);
      if (d.preview.crop) {
        expect(p.preview.crop).toEqual({ narrowest: d.preview.crop[0], widest: d.preview.crop[1] });
        expect(p.preview.crop.narrowest).toBeLessThanOrEqual(p.preview.crop.widest);
      } else expect(p.preview).not.toHaveProperty('crop');
      // A platform connected by a form says what its form asks for; an OAuth one has no form.
      if (d.capabilities.connect === 'oauth2') expect(p).not.toHaveProperty('connectForm');
      else expect(p.connectForm).toEqual(d.connectForm);
    }
    // Nothing beyond the schema reaches the wire (no scopes, no limits, no adapter).
    expect(Object.keys(list[0]).sort()).toEqual(
      [
        'colour',
        'connect',
        'glyph',
        'id',
        'label',
        'name',
        'preview',
        ...('connectForm' in list[0] ? ['connectForm'] : []),
      ].sort(),
    );
  });

  it('answers a read-only key, and refuses a request without one', async () => {
    const { apiKey } = await env.createUser();
    const read = (await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey;
    const ro = await env.request(read.key, 'GET', '/v1/platforms');
    expect(ro.status).toBe(200);
    expect(ro.body.platforms).toHaveLength(CATALOGUE.length);
    const none = await env.request(null, 'GET', '/v1/platforms');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthorized');
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await env.request(null, 'GET', '/v1/openapi.json')).body;
    const op = doc.paths['/v1/platforms']?.get;
    expect(op).toBeDefined();
    const schema = op.responses['200'].content['application/json'].schema;
    expect(JSON.stringify(schema)).toContain('narrowest');
  });
});
