import { Link } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Loaded } from '../../lib/ui';
import { SemanticChanges } from './SemanticChanges';

const RevisionQuery = graphql(`
  query SpaceRevision($id: ID!, $revision: ID!) {
    space(id: $id) {
      id
      revisionById(id: $revision) { id createdAt parents }
      revisionSemanticChanges(revision: $revision, limit: 200) { changes { ... on RevisionSemanticChangePage { type page { title } } ... on RevisionSemanticChangePageEdited { type page { title } } ... on RevisionSemanticChangePageMoved { type page { title } } ... on RevisionSemanticChangeFile { type file { name } } ... on RevisionSemanticChangeFileEdited { type file { name } } ... on RevisionSemanticChangeReusableContent { type } ... on RevisionSemanticChangeReusableContentEdited { type } ... on RevisionSemanticChangeVariablesEdited { type } } more mergedFrom { number subject urls { app } } }
    }
  }
`);

/** One revision: when it was made, what merged it, and its semantic changes. */
export function RevisionView({ spaceId, revisionId }: { spaceId: string; revisionId: string }) {
  const [{ data, error }] = useQuery({ query: RevisionQuery, variables: { id: spaceId, revision: revisionId } });
  return (
    <Loaded data={data} error={error}>
      {({ space }) => (
        <section>
          <p>
            <Link to={`/s/${spaceId}/~/revisions`}>History</Link>
          </p>
          <h1>Revision of {formatDate(space.revisionById.createdAt)}</h1>
          {space.revisionSemanticChanges.mergedFrom && (
            <p>
              Merged from{' '}
              <Link to={`/s/${spaceId}/~/changes/${space.revisionSemanticChanges.mergedFrom.number}`}>
                change request #{space.revisionSemanticChanges.mergedFrom.number}: {space.revisionSemanticChanges.mergedFrom.subject}
              </Link>
            </p>
          )}
          <h2>Changes</h2>
          <SemanticChanges changes={space.revisionSemanticChanges.changes} more={space.revisionSemanticChanges.more} />
          {space.revisionById.parents[0] && (
            <p>
              <Link to={`/s/${spaceId}/~/revisions/${space.revisionById.parents[0]}`}>Previous revision</Link>
            </p>
          )}
        </section>
      )}
    </Loaded>
  );
}
