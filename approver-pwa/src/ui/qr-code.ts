const SVG = 'http://www.w3.org/2000/svg';

/** The light margin around a QR code, in modules (ISO/IEC 18004 §5.3.8 asks for 4). */
const QUIET_ZONE = 4;

/**
 * Draws a QR code the server encoded (rows of `0`/`1` modules) as an SVG image: dark modules on
 * white, with the quiet zone, in both colour schemes (cameras need the contrast), crisp at any size.
 *
 * @param label - what the image is, for screen readers ("QR code of the link").
 */
export function qrCodeSvg(qr: { size: number; rows: string[] }, label: string): SVGSVGElement {
  const extent = qr.size + 2 * QUIET_ZONE;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${extent} ${extent}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('class', 'qr-code');
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(extent));
  background.setAttribute('height', String(extent));
  background.setAttribute('fill', '#ffffff');
  const modules = document.createElementNS(SVG, 'path');
  let d = '';
  qr.rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === '1') d += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`;
  });
  modules.setAttribute('d', d);
  modules.setAttribute('fill', '#000000');
  svg.append(background, modules);
  return svg;
}
