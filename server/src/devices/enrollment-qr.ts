import QRCode from 'qrcode-terminal/vendor/QRCode/index.js';
import QRErrorCorrectLevel from 'qrcode-terminal/vendor/QRCode/QRErrorCorrectLevel.js';

/**
 * A QR code of `text` as rows of `0` (light) and `1` (dark) modules, without the quiet zone, for
 * the PWA to draw (it has no QR encoder of its own and takes no dependency for one). Byte mode,
 * error correction level M (15 %: a code photographed off a screen survives glare), the smallest
 * version that holds the text. The encoder is the one the operator CLI's terminal QR code uses.
 *
 * @param text - ASCII (an enrollment link).
 * @see ISO/IEC 18004:2015
 */
export function qrMatrix(text: string): { size: number; rows: string[] } {
  const code = new QRCode(-1, QRErrorCorrectLevel.M);
  code.addData(text);
  code.make();
  const size = code.getModuleCount();
  const rows = Array.from({ length: size }, (_, row) => Array.from({ length: size }, (_, col) => (code.isDark(row, col) ? '1' : '0')).join(''));
  return { size, rows };
}
