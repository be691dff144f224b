// The outbound guard's face: what modules use to reach a user-given address.
export {
  allowPrivateNetwork,
  checkedAddresses,
  checkedLookup,
  hostOf,
  isPrivateAddress,
  isPrivateHost,
  OutboundRefused,
  PRIVATE_HINT,
  urlProblem,
} from './guard.js';
export {
  FetchFailure,
  fetchBytes,
  type GetOptions,
  type Got,
  getFollowingRedirects,
  guardedFetch,
  MAX_REDIRECTS,
  type OutboundPolicy,
  outboundPolicy,
} from './http.js';
