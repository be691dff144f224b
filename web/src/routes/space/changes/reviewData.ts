import { useQuery } from 'urql';
import { graphql } from '../../../gql';

/**
 * What the review parts of the change request screen read, in one document: the panel and the
 * merge button share it (urql answers both from one request), and each write reads it again.
 */
export const ReviewPanelQuery = graphql(`
  query ChangeRequestReviewPanel($spaceId: ID!, $changeRequest: String!) {
    viewer { id }
    space(id: $spaceId) {
      id
      organization
      permissions { edit review }
      changeRequest(id: $changeRequest) {
        id
        number
        status
        subject
        description
        createdBy { id }
        requestedReviewerList(limit: 100) { items { createdAt user { id displayName } requestedBy { id displayName } } }
        reviewList(limit: 100) {
          items { id status outdated updatedAt reviewer { id displayName } comment { id body { markdown } } }
        }
        mergeability { met bypass rules { rule met reason } }
      }
    }
  }
`);

export const OrganizationMembersQuery = graphql(`
  query ReviewOrganizationMembers($organizationId: ID!) {
    organization(id: $organizationId) { id members(limit: 200) { items { id role user { id displayName } } } }
  }
`);

export function useReviewPanel(spaceId: string, number: string) {
  return useQuery({ query: ReviewPanelQuery, variables: { spaceId, changeRequest: number } });
}

/** The organization's members by user id (display names for ids a merge rule's reason names); empty for a guest. */
export function useMemberNames(organizationId: string | undefined) {
  const [{ data }] = useQuery({
    query: OrganizationMembersQuery,
    variables: { organizationId: organizationId ?? '' },
    pause: !organizationId,
  });
  const names = new Map<string, string>();
  for (const m of data?.organization.members.items ?? []) names.set(m.user.id, m.user.displayName);
  return { names, members: data?.organization.members.items ?? [] };
}

/** A server reason with the user ids it names replaced by their display names. */
export function withNames(reason: string, names: Map<string, string>): string {
  let out = reason;
  for (const [id, name] of names) out = out.split(id).join(name);
  return out;
}

/**
 * Why a merge by the viewer would be refused now, as the server checks the merge rules (null: it
 * would pass them). The merge checks again and answers its own refusal, shown by the merge button.
 */
export function useMergeBlock(spaceId: string, number: string): string | null {
  const [{ data }] = useReviewPanel(spaceId, number);
  const { names } = useMemberNames(data?.space.organization);
  const mergeability = data?.space.changeRequest.mergeability;
  if (!mergeability || mergeability.met) return null;
  const failed = mergeability.rules.find((r) => !r.met);
  return failed?.reason ? withNames(failed.reason, names).replace(/^Merge rules: /, '') : 'The merge rules are not met';
}
