/**
 * A readable name for this device from its user agent string, e.g. `Chrome on Android`, at most
 * 64 characters (the server's limit). The person can change it before enrolling.
 */
export function defaultDeviceName(userAgent: string): string {
  const browser = /Edg(A|iOS)?\//.test(userAgent) ? 'Edge' : /SamsungBrowser\//.test(userAgent) ? 'Samsung Internet' : /OPR\/|Opera/.test(userAgent) ? 'Opera' : /Firefox\/|FxiOS\//.test(userAgent) ? 'Firefox' : /Chrome\/|CriOS\/|Chromium\//.test(userAgent) ? 'Chrome' : /Safari\//.test(userAgent) ? 'Safari' : 'Browser';
  const os = /Android/.test(userAgent) ? 'Android' : /iPhone/.test(userAgent) ? 'iPhone' : /iPad/.test(userAgent) ? 'iPad' : /CrOS/.test(userAgent) ? 'ChromeOS' : /Windows/.test(userAgent) ? 'Windows' : /Macintosh|Mac OS X/.test(userAgent) ? 'Mac' : /Linux/.test(userAgent) ? 'Linux' : '';
  return (os ? `${browser} on ${os}` : browser).slice(0, 64);
}
