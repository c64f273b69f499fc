import { CATALOGUE } from '../../platforms/catalogue.js';
import type { PlatformDescriptor } from '../../platforms/descriptor.js';

/**
 * A platform of the catalogue as GET /v1/platforms shows it: what the dashboard needs to draw it (label,
 * mark, previews) and to connect it (the connect kind and the form's texts), read from its descriptor.
 */
function presentPlatform(d: PlatformDescriptor) {
  const { crop, card = false, thread = false } = d.preview;
  return {
    id: d.id,
    name: d.name,
    label: d.display.label,
    glyph: d.display.glyph,
    colour: d.display.colour,
    connect: d.capabilities.connect,
    connectForm: d.connectForm ? { ...d.connectForm } : undefined,
    preview: { crop: crop ? { narrowest: crop[0], widest: crop[1] } : undefined, card, thread },
  };
}

/** Every platform Herald knows, in the catalogue's order. */
export function presentPlatforms() {
  return (CATALOGUE as readonly PlatformDescriptor[]).map(presentPlatform);
}
