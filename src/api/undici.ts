// The one module that imports undici, loaded lazily by the code that sends a request (its import
// costs ~0.1 s). Static named imports, because the bundled build (scripts/bundle.mjs) turns a
// dynamic `import('undici')` of this CommonJS package into a namespace with only `default`.
export { Agent, EnvHttpProxyAgent, fetch, FormData, Pool, request } from 'undici';
