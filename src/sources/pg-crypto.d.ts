// pg's SCRAM helpers (CommonJS, untyped): the one export src/sources/scram-keys.ts replaces.
declare module 'pg/lib/crypto/utils.js' {
  const utils: {
    deriveKey: (password: string, salt: Uint8Array, iterations: number) => Promise<ArrayBuffer>;
  };
  export default utils;
}
