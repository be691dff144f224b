import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { Loaded, Outcome } from '../../lib/ui';
import { OrgScreen } from './OrgScreen';

const TeamsQuery = graphql(`
  query Teams($id: ID!) {
    organization(id: $id) { id teams(limit: 200) { items { id title members spaces createdAt } } }
  }
`);
const CreateTeam = graphql(`
  mutation CreateTeam($organizationId: ID!, $title: String!) { createTeam(organizationId: $organizationId, input: { title: $title }) { id title } }
`);
const DeleteTeam = graphql(`
  mutation DeleteTeam($organizationId: ID!, $teamId: ID!) { deleteTeam(organizationId: $organizationId, teamId: $teamId) }
`);

/** Teams: create, list with their sizes, delete. */
export function Teams() {
  return <OrgScreen title="Teams">{(orgId) => <TeamList orgId={orgId} />}</OrgScreen>;
}

function TeamList({ orgId }: { orgId: string }) {
  const [{ data, error }, refetch] = useQuery({ query: TeamsQuery, variables: { id: orgId } });
  const [created, create] = useMutation(CreateTeam);
  const [deleted, remove] = useMutation(DeleteTeam);
  const [title, setTitle] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await create({ organizationId: orgId, title });
    if (!r.error) {
      setDone(`Team ${title} created`);
      setTitle('');
      reload();
    }
  };
  return (
    <>
      <form className="inline" onSubmit={submit}>
        <div className="field">
          <label htmlFor="team-title">Team name</label>
          <input id="team-title" value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={64} />
        </div>
        <button type="submit" className="primary">
          Create team
        </button>
      </form>
      <Outcome error={created.error ?? deleted.error} done={done} />
      <Loaded data={data} error={error}>
        {({ organization }) =>
          organization.teams.items.length ? (
            <ul>
              {organization.teams.items.map((t) => (
                <li key={t.id}>
                  {t.title}{' '}
                  <span className="muted">
                    — {t.members} members, {t.spaces} spaces
                  </span>{' '}
                  <button
                    type="button"
                    className="danger"
                    onClick={async () => {
                      if (!confirm(`Delete the team ${t.title}?`)) return;
                      const r = await remove({ organizationId: orgId, teamId: t.id });
                      if (!r.error) {
                        setDone(`Team ${t.title} deleted`);
                        reload();
                      }
                    }}
                  >
                    Delete {t.title}
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No teams yet.</p>
          )
        }
      </Loaded>
    </>
  );
}
