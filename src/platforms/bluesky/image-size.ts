/**
 * Width and height from an image's header (PNG, JPEG, GIF, WebP), for `aspectRatio` in
 * app.bsky.embed.images: without it the Bluesky app shows every image in a square frame.
 * Returns null when the header is not understood (the embed then goes without aspectRatio).
 */
export function imageSize(bytes: Buffer): { width: number; height: number } | null {
  try {
    if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('ascii', 12, 16) === 'IHDR') {
      return positive(bytes.readUInt32BE(16), bytes.readUInt32BE(20));
    }
    if (bytes.length >= 10 && bytes.toString('ascii', 0, 3) === 'GIF') {
      return positive(bytes.readUInt16LE(6), bytes.readUInt16LE(8));
    }
    if (bytes.length >= 30 && bytes.toString('ascii', 0, 4) === 'RIFF' && bytes.toString('ascii', 8, 12) === 'WEBP') {
      return webpSize(bytes);
    }
    if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  } catch {
    return null;
  }
  return null;
}

function positive(width: number, height: number) {
  return width > 0 && height > 0 ? { width, height } : null;
}

function webpSize(b: Buffer) {
  const chunk = b.toString('ascii', 12, 16);
  if (chunk === 'VP8X') return positive(1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3));
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return positive(1 + (bits & 0x3fff), 1 + ((bits >> 14) & 0x3fff));
  }
  if (chunk === 'VP8 ') return positive(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  return null;
}

/** Walks the JPEG segments to the first start-of-frame marker (SOF0..SOF15 except DHT/JPG/DAC). */
function jpegSize(b: Buffer) {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    const length = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return positive(b.readUInt16BE(i + 7), b.readUInt16BE(i + 5));
    }
    i += 2 + length;
  }
  return null;
}
