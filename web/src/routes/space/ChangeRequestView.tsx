import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { formatDate, Loaded } from '../../lib/ui';
import { SemanticChanges } from './SemanticChanges';

const ChangeRequestQuery = graphql(`
  query SpaceChangeRequest($id: ID!, $changeRequest: String!) {
    space(id: $id) {
      id
      changeRequest(id: $changeRequest) {
        id
        number
        subject
        status
        createdAt
        updatedAt
        outdated
        createdBy { id displayName }
        semanticChanges(limit: 200) { changes { ... on RevisionSemanticChangePage { type page { title } } ... on RevisionSemanticChangePageEdited { type page { title } } ... on RevisionSemanticChangePageMoved { type page { title } } ... on RevisionSemanticChangeFile { type file { name } } ... on RevisionSemanticChangeFileEdited { type file { name } } ... on RevisionSemanticChangeReusableContent { type } ... on RevisionSemanticChangeReusableContentEdited { type } ... on RevisionSemanticChangeVariablesEdited { type } } more }
      }
    }
  }
`);

/** A change request (read only here): subject, status, author and what it changes. */
export function ChangeRequestView({ spaceId, number }: { spaceId: string; number: string }) {
  const [{ data, error }] = useQuery({ query: ChangeRequestQuery, variables: { id: spaceId, changeRequest: number } });
  return (
    <Loaded data={data} error={error}>
      {({ space: { changeRequest: cr } }) => (
        <section>
          <h1>
            #{cr.number} {cr.subject || 'Untitled change request'}
          </h1>
          <p>
            <span className="badge">{cr.status}</span> {cr.outdated && <span className="badge">Outdated</span>} by{' '}
            {cr.createdBy.displayName}, opened {formatDate(cr.createdAt)}, updated {formatDate(cr.updatedAt)}
          </p>
          <h2>Changes</h2>
          <SemanticChanges changes={cr.semanticChanges.changes} more={cr.semanticChanges.more} />
        </section>
      )}
    </Loaded>
  );
}
