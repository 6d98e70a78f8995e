/** A person's name for a user agent: "Firefox on Windows", "Safari on iOS", "curl". Best effort, never a throw. */
export function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const browser =
    [
      [/Edg(e|A|iOS)?\//, 'Edge'],
      [/OPR\/|Opera/, 'Opera'],
      [/SamsungBrowser\//, 'Samsung Internet'],
      [/Firefox\/|FxiOS\//, 'Firefox'],
      [/HeadlessChrome\//, 'Headless Chrome'],
      [/Chrome\/|CriOS\//, 'Chrome'],
      [/Version\/[\d.]+.*Safari\//, 'Safari'],
    ].find(([pattern]) => (pattern as RegExp).test(userAgent))?.[1] ?? null;
  const system =
    [
      [/iPhone|iPad|iPod/, 'iOS'],
      [/Android/, 'Android'],
      [/CrOS/, 'ChromeOS'],
      [/Windows/, 'Windows'],
      [/Mac OS X|Macintosh/, 'macOS'],
      [/Linux/, 'Linux'],
    ].find(([pattern]) => (pattern as RegExp).test(userAgent))?.[1] ?? null;
  if (browser && system) return `${browser} on ${system}`;
  if (browser) return browser as string;
  // Not a browser (curl, a script): the product's own name, as it gives it.
  const product = /^[A-Za-z][\w.-]*/.exec(userAgent)?.[0];
  return (product ?? 'Unknown browser').slice(0, 60);
}
