// Writes the PWA icons in public/icons once: a white check-and-underline glyph (a countersignature)
// on the brand blue, as real PNGs built with zlib only. Run by hand when the icon changes:
//   node approver-pwa/scripts/make-icons.mjs
// The PNGs are committed; the build does not run this.
import { deflateSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const OUT = fileURLToPath(new URL('../public/icons/', import.meta.url));
const BRAND = [0x1d, 0x4e, 0xd8]; // #1d4ed8, the theme colour
const WHITE = [0xff, 0xff, 0xff];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** RGBA pixels → PNG (colour type 6, 8 bits, filter 0 on every row). */
function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

function distToSegment(px, py, [ax, ay], [bx, by]) {
  const dx = bx - ax,
    dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/**
 * One icon. Coordinates are in a unit square. `glyphScale` shrinks the glyph around the centre
 * (maskable icons keep it inside the 80 % safe circle); `corner` rounds the background (0 = full bleed).
 */
function icon(size, { glyphScale, corner }) {
  const check = [
    [0.27, 0.47],
    [0.43, 0.62],
    [0.73, 0.31],
  ];
  const line = [
    [0.27, 0.76],
    [0.73, 0.76],
  ];
  const stroke = 0.075;
  const rgba = Buffer.alloc(size * size * 4);
  const SS = 4; // 4×4 supersampling for smooth edges
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let bg = 0,
        fg = 0;
      for (let sy = 0; sy < SS; sy++) {
        for (let sx = 0; sx < SS; sx++) {
          const u = (x + (sx + 0.5) / SS) / size,
            v = (y + (sy + 0.5) / SS) / size;
          // rounded-square background
          const cx = Math.min(Math.max(u, corner), 1 - corner),
            cy = Math.min(Math.max(v, corner), 1 - corner);
          if (corner === 0 || Math.hypot(u - cx, v - cy) <= corner) bg++;
          // glyph, scaled about the centre
          const gu = 0.5 + (u - 0.5) / glyphScale,
            gv = 0.5 + (v - 0.5) / glyphScale;
          const d = Math.min(distToSegment(gu, gv, check[0], check[1]), distToSegment(gu, gv, check[1], check[2]), distToSegment(gu, gv, line[0], line[1]));
          if (d <= stroke / 2) fg++;
        }
      }
      const n = SS * SS,
        a = bg / n,
        f = fg / n;
      const i = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) rgba[i + c] = Math.round(BRAND[c] * (1 - f) + WHITE[c] * f);
      rgba[i + 3] = Math.round(255 * Math.max(a, f * a));
    }
  }
  return png(size, rgba);
}

const files = {
  'icon-192.png': icon(192, { glyphScale: 1, corner: 0.18 }),
  'icon-512.png': icon(512, { glyphScale: 1, corner: 0.18 }),
  'icon-maskable-512.png': icon(512, { glyphScale: 0.72, corner: 0 }),
  'apple-touch-icon.png': icon(180, { glyphScale: 0.85, corner: 0 }),
};
for (const [name, bytes] of Object.entries(files)) {
  writeFileSync(OUT + name, bytes);
  console.log(name, bytes.length, 'bytes');
}
