import { Link } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { Diff } from '../../../editor/Diff';
import { graphql } from '../../../gql';
import { errorMessage } from '../../../lib/client';
import { Loaded } from '../../../lib/ui';
import { ChangeRequestView } from '../ChangeRequestView';
import { ConflictsPanel } from './conflicts/ConflictsPanel';
import { useMergeBlock } from './reviewData';
import { ReviewPanel } from './ReviewPanel';

const ChangedPagesQuery = graphql(`
  query ChangeRequestPages($spaceId: ID!, $changeRequest: String!) {
    space(id: $spaceId) {
      id
      permissions { edit merge }
      content { id pageList { id title path type } }
      changeRequest(id: $changeRequest) {
        id
        number
        status
        content { id pageList { id title path type } }
      }
    }
  }
`);

const PageVersions = graphql(`
  query ChangeRequestPageVersions($spaceId: ID!, $changeRequest: String!, $page: ID!) {
    space(id: $spaceId) {
      id
      content { id typedPage(id: $page) { id markdown } }
      changeRequest(id: $changeRequest) { id content { id typedPage(id: $page) { id markdown } } }
    }
  }
`);

const MergeChangeRequest = graphql(`
  mutation MergeChangeRequestFromApp($spaceId: ID!, $changeRequestId: String!) {
    mergeChangeRequest(spaceId: $spaceId, changeRequestId: $changeRequestId) { result revision }
  }
`);

type PageItem = { id: string; title: string; path: string; type: string };

/**
 * A change request: what ChangeRequestView shows (subject, status, its semantic changes), then each
 * document page whose text differs from main's with its diff, and the merge.
 */
export function ChangeRequestScreen({ spaceId, number }: { spaceId: string; number: string }) {
  const [{ data, error }, refetch] = useQuery({ query: ChangedPagesQuery, variables: { spaceId, changeRequest: number } });
  const mergeBlock = useMergeBlock(spaceId, number);
  return (
    <>
      {/* Keyed by whether it is merged: a merge here reads the change request again. */}
      <ChangeRequestView key={data?.space.changeRequest.status === 'merged' ? 'merged' : 'unmerged'} spaceId={spaceId} number={number} />
      <Loaded data={data} error={error}>
        {({ space }) => {
          const cr = space.changeRequest;
          const pages = documentPages(space.content.pageList, cr.content.pageList);
          return (
            <>
              <section aria-labelledby="changed-pages">
                <h2 id="changed-pages">Changed pages</h2>
                {pages.map((page) => (
                  // Keyed by both revisions: a save or a merge reads the page's versions again.
                  <PageDiff key={`${page.id}@${space.content.id}/${cr.content.id}`} spaceId={spaceId} number={number} page={page} />
                ))}
              </section>
              {(cr.status === 'draft' || cr.status === 'open') && (
                // Keyed by main's revision: when the screen reads main again and it moved, the conflicts are read again.
                <ConflictsPanel
                  key={space.content.id}
                  spaceId={spaceId}
                  number={number}
                  canEdit={space.permissions.edit}
                  onUpdated={() => refetch({ requestPolicy: 'network-only' })}
                />
              )}
              <ReviewPanel spaceId={spaceId} number={number} />
              {(cr.status === 'draft' || cr.status === 'open') && space.permissions.merge && (
                <MergePanel
                  spaceId={spaceId}
                  changeRequestId={cr.id}
                  blocked={mergeBlock}
                  onMerged={() => refetch({ requestPolicy: 'network-only' })}
                />
              )}
              {cr.status === 'merged' && (
                <p role="status" className="done">
                  This change request is merged into main.
                </p>
              )}
            </>
          );
        }}
      </Loaded>
    </>
  );
}

/** The document pages of main and of the change request (those added, kept or deleted), each once. */
function documentPages(main: PageItem[], change: PageItem[]): PageItem[] {
  const seen = new Map<string, PageItem>();
  for (const page of [...change, ...main]) if (page.type === 'document' && !seen.has(page.id)) seen.set(page.id, page);
  return [...seen.values()];
}

/** One page's diff from main to the change request; nothing when its text is the same. */
function PageDiff({ spaceId, number, page }: { spaceId: string; number: string; page: PageItem }) {
  const [{ data, error }] = useQuery({ query: PageVersions, variables: { spaceId, changeRequest: number, page: page.id } });
  if (error)
    return (
      <p role="alert" className="error">
        {errorMessage(error)}
      </p>
    );
  if (!data) return null;
  const before = data.space.content.typedPage?.markdown ?? '';
  const after = data.space.changeRequest.content.typedPage?.markdown ?? '';
  if (before === after) return null;
  const state = !data.space.content.typedPage ? ' (added)' : !data.space.changeRequest.content.typedPage ? ' (deleted)' : '';
  return (
    <article className="changed-page">
      <h3>
        {page.title}
        {state}
      </h3>
      {data.space.changeRequest.content.typedPage && (
        <Link to={`/s/${spaceId}/~/changes/${number}/edit/${page.path}`}>Edit {page.title} in this change request</Link>
      )}
      <Diff before={before} after={after} label={`Changes to ${page.title}`} />
    </article>
  );
}

/**
 * The merge button, and why a merge was refused (a conflict, merge rules not met); a merge shows as
 * the change request's status. `blocked`: the merge rules the app knows are not met (the button waits).
 */
function MergePanel({
  spaceId,
  changeRequestId,
  blocked,
  onMerged,
}: {
  spaceId: string;
  changeRequestId: string;
  blocked: string | null;
  onMerged: () => void;
}) {
  const [merged, merge] = useMutation(MergeChangeRequest);
  const run = async () => {
    const result = await merge({ spaceId, changeRequestId });
    // A refusal reads the screen again too: main may have moved, and the conflicts panel then shows it.
    if (result.data || result.error) onMerged();
  };
  return (
    <section aria-labelledby="merge-heading">
      <h2 id="merge-heading">Merge</h2>
      <button
        type="button"
        onClick={run}
        disabled={merged.fetching || !!blocked}
        aria-busy={merged.fetching}
        aria-describedby={blocked ? 'merge-blocked' : undefined}
      >
        Merge
      </button>
      {blocked && (
        <p id="merge-blocked" className="muted">
          Merge is blocked: {blocked}
        </p>
      )}
      {merged.error && (
        <p role="alert" className="error">
          Not merged: {errorMessage(merged.error)}
        </p>
      )}
    </section>
  );
}
