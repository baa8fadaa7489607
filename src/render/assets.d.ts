// Module types of the binary files the render module bundles (see the [[rules]] in wrangler.toml).
declare module '*.woff' {
  const data: ArrayBuffer;
  export default data;
}

declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
