/**
 * A small file that reads as an MP4 (`ftyp`, then `moov` with `mvhd` and one video track's `tkhd`) of
 * `seconds` and `width` x `height`, padded to `size` bytes: enough for a simulator that reads the duration
 * and dimensions from the boxes, without ffmpeg.
 */
export function fakeMp4(opts: { seconds: number; width: number; height: number; size?: number }): Buffer {
  const box = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, body]);
  };
  const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'));
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(Math.round(opts.seconds * 1000), 16);
  const tkhd = Buffer.alloc(84);
  tkhd.writeUInt32BE(3, 0);
  tkhd.writeUInt32BE(opts.width * 65536, 76);
  tkhd.writeUInt32BE(opts.height * 65536, 80);
  const moov = box('moov', Buffer.concat([box('mvhd', mvhd), box('trak', box('tkhd', tkhd))]));
  const head = Buffer.concat([ftyp, moov]);
  const size = Math.max(opts.size ?? head.length + 64, head.length);
  return Buffer.concat([head, Buffer.alloc(size - head.length, 9)]);
}
