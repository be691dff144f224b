import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { Loaded } from '../../lib/ui';
import { useCurrentOrg } from '../Layout';
import { AdminNav } from './AdminNav';

const OrgHeaderQuery = graphql(`
  query OrgHeader($id: ID!) {
    organization(id: $id) { id title permissions { admin } }
  }
`);

/** The frame of an organization's admin screen: its title, the organization's tabs, the screen. */
export function OrgScreen({ title, children }: { title: string; children: (orgId: string) => ReactNode }) {
  const { orgId = '' } = useParams();
  useCurrentOrg(orgId);
  const [{ data, error }] = useQuery({ query: OrgHeaderQuery, variables: { id: orgId } });
  return (
    <section className="screen">
      <Loaded data={data} error={error}>
        {({ organization }) => (
          <>
            <p className="muted">{organization.title}</p>
            <h1>{title}</h1>
            <AdminNav orgId={organization.id} admin={organization.permissions.admin} />
            {children(organization.id)}
          </>
        )}
      </Loaded>
    </section>
  );
}

export const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
