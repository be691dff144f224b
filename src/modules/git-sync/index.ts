// The git-sync module's face: what other modules (and the entry points) may import from it.
//
// Served: getSpaceGitInfo, importGitRepository, exportToGitRepository (official 0.202.0 shapes), a
// connection being "a remote and a credential" (the URL's user:token@, or for an ssh:// or git@host:path
// remote a deploy key Lectern generates or is given, sealed with the server key; credentials.ts says how).
// Not served: the GitHub/GitLab App installation operations (installations, repositories and
// branches listed through a provider's App): a self-hosted server has no App registered with
// GitHub or GitLab; any HTTPS remote with a token or SSH remote with a deploy key (GitHub, GitLab,
// Gitea, a bare server) works instead.
export { afterMainMoved } from './requests.js';
export { readLayout, writeLayout } from './read.js';
export { SyncBusy, withSpaceSyncLock } from './lock.js';
export { layoutPageFields, type LayoutFile, type LayoutPage, type RepoFile, type SpaceLayout } from './repository-layout.js';
export type { ReadResult } from './tasks.js';
export { layoutOfContent } from './content-layout.js';
