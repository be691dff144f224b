// oidc-provider ships no type declarations; the tests use it as a real OpenID provider on loopback.
declare module 'oidc-provider';
