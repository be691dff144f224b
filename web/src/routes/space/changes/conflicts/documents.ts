import { graphql } from '../../../../gql';

/** The conflicts of a change request with main (a Lectern addition), and the update from main that resolves them. */
export const ConflictsQuery = graphql(`
  query ChangeRequestConflicts($spaceId: ID!, $changeRequest: String!) {
    space(id: $spaceId) {
      id
      changeRequest(id: $changeRequest) {
        id
        outdated
        conflicts { page title reasons resolvable base main change }
      }
    }
  }
`);

export const UpdateFromMain = graphql(`
  mutation UpdateChangeRequestFromMainInApp($spaceId: ID!, $changeRequestId: String!, $resolutions: [ConflictResolutionInput!]) {
    updateChangeRequestFromMain(spaceId: $spaceId, changeRequestId: $changeRequestId, resolutions: $resolutions) { revision result }
  }
`);
