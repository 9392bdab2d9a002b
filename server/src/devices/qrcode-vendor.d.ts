/**
 * The QR encoder qrcode-terminal@0.12.0 vendors (Kazuhiko Arase's "QRCode for JavaScript", MIT),
 * which ships no types; this is the part `enrollment-qr.ts` uses.
 */
declare module 'qrcode-terminal/vendor/QRCode/index.js' {
  class QRCode {
    /** `typeNumber` -1: the smallest version that holds the data. */
    constructor(typeNumber: number, errorCorrectLevel: number);
    addData(data: string): void;
    make(): void;
    getModuleCount(): number;
    isDark(row: number, col: number): boolean;
  }
  export default QRCode;
}

declare module 'qrcode-terminal/vendor/QRCode/QRErrorCorrectLevel.js' {
  const levels: { L: number; M: number; Q: number; H: number };
  export default levels;
}
