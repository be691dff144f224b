import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Loaded } from '../../lib/ui';

const RevisionsQuery = graphql(`
  query SpaceRevisions($id: ID!, $from: ID!, $latest: Boolean!) {
    space(id: $id) {
      id
      content @include(if: $latest) { ...RevisionChain }
      revisionById(id: $from) @skip(if: $latest) { ...RevisionChain }
    }
  }
  fragment RevisionEntry on Revision { id createdAt parents mergedFrom { number subject } }
  fragment RevisionChain on Revision {
    ...RevisionEntry
    parentRevisions { ...RevisionEntry parentRevisions { ...RevisionEntry parentRevisions { ...RevisionEntry parentRevisions { ...RevisionEntry parentRevisions { ...RevisionEntry parentRevisions { ...RevisionEntry parentRevisions { ...RevisionEntry parentRevisions { ...RevisionEntry parentRevisions { ...RevisionEntry } } } } } } } } }
  }
`);

interface Entry {
  id: string;
  createdAt: string;
  parents: string[];
  mergedFrom?: { number: number; subject: string } | null;
  parentRevisions?: Entry[];
}

/** The first-parent chain from a revision down, as far as one answer reaches (ten revisions). */
function chainOf(start: Entry | null | undefined): Entry[] {
  const out: Entry[] = [];
  for (let r: Entry | undefined | null = start; r; r = r.parentRevisions?.[0]) out.push(r);
  return out;
}

/** The space's history: main's revisions, newest first, ten at a time, each with the change request it merged. */
export function RevisionList({ spaceId }: { spaceId: string }) {
  const [from, setFrom] = useState<string | null>(null);
  const [{ data, error }] = useQuery({ query: RevisionsQuery, variables: { id: spaceId, from: from ?? '', latest: !from } });
  return (
    <section>
      <h1>History</h1>
      <Loaded data={data} error={error}>
        {({ space }) => {
          const chain = chainOf((space.content ?? space.revisionById) as Entry | undefined);
          const older = chain.at(-1)?.parents[0];
          return (
            <>
              <ol className="revision-list">
                {chain.map((r) => (
                  <li key={r.id}>
                    <Link to={`/s/${spaceId}/~/revisions/${r.id}`}>{formatDate(r.createdAt)}</Link>
                    {r.mergedFrom && (
                      <span>
                        {' '}
                        — merged change request #{r.mergedFrom.number}: {r.mergedFrom.subject}
                      </span>
                    )}
                  </li>
                ))}
              </ol>
              {older && chain.length >= 10 && (
                <button type="button" onClick={() => setFrom(older)}>
                  Older revisions
                </button>
              )}
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
