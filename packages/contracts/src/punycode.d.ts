/** The parts of the `punycode` package Herald uses (it ships no type declarations). */
declare module 'punycode/punycode.js' {
  const punycode: {
    encode(input: string): string;
    decode(input: string): string;
    toASCII(domain: string): string;
    toUnicode(domain: string): string;
  };
  export default punycode;
}
