// The content module's face: what other modules (and the entry points) may import from it.

export { applyChanges, type ChangeOutcome, type ContentChange, fetchFileSources, OPERATIONS } from './changes.js';
export { type LinkEnv, type LinkStatus, resolveHref } from './link-targets.js';
export { type MergeConflict, mergeContents } from './merge.js';
export { FileType, FormatEnum, RevisionType } from './revision.js';
export { findPage, pageIndex, pageInTree, type PageRef, PageType, spacePageByPath } from './page-type.js';
export { PAGE_REST_FIELDS, restPage, type RestPageFields, restTree } from './page-rest.js';
export { type ContentRead, contentOptions, contentReadRoutes } from './routes.js';
export { documentById, spaceRevision } from './revision-reads.js';
export { changesLimit, semanticChanges, type SemanticChanges } from './semantic-changes.js';
export { copySearchIndex, dropSearchIndexStatement, INTRO_SECTION, rebuildSearchIndex, reindexSpace } from './search-index.js';
export {
  bodiesOf,
  type ContentView,
  fileJson,
  loadContent,
  pageJson,
  type PageTree,
  pageTree,
  requireRevision,
  spaceContent,
  viewOf,
} from './service.js';
export {
  canonicalJson,
  Content,
  ContentWriter,
  emptyManifest,
  type FileEntry,
  getBodies,
  type PageEntry,
  pageEntrySql,
  putBody,
} from './store.js';
export { buildTree, flatten, type PageNode, uniqueSlug } from './tree.js';
export { repairSpaces, repairTree, type TreeRepair } from './repair.js';
export { CONTENT_REF_SELECTION, ContentRefUnion, type ContentRefJson } from './content-refs.js';
export { checkComputedSource } from './computed-pages.js';
export { ComputedContentSourceInput, ComputedContentSourceType } from './computed-source-types.js';
