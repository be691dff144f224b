// The openapi module's face: what other modules (and the entry points) may import from it.
// The one outbound guard (user-given URLs: public addresses, size and time limits) serves others too.
export { fetchBytes, guardedFetch, isPrivateAddress } from './fetch.js';
// Pages a space computes from a spec (content's `builtin:openapi` computed pages).
export { computedSpec, computedSpecVersions, type ComputedPage, type ComputedSpec } from './computed.js';
