/** qrcode-terminal@0.12.0 ships no types; this is the part the CLI uses. */
declare module 'qrcode-terminal' {
  interface Options {
    /** Half-height blocks: a QR code a quarter the size, still scannable from a terminal. */
    small?: boolean;
  }
  const qrcode: {
    generate(text: string, options: Options, callback: (qr: string) => void): void;
    setErrorLevel(level: 'L' | 'M' | 'Q' | 'H'): void;
  };
  export default qrcode;
}
