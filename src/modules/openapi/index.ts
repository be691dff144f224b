// The openapi module's face: what other modules (and the entry points) may import from it.
// Pages a space computes from a spec (content's `builtin:openapi` computed pages).
export { computedSpec, computedSpecVersions, type ComputedPage, type ComputedSpec } from './computed.js';
