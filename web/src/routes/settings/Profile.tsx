import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { Loaded, Outcome } from '../../lib/ui';

const ProfileQuery = graphql(`
  query Profile { viewer { id displayName email } }
`);
const UpdateProfile = graphql(`
  mutation UpdateProfile($id: ID!, $displayName: String!) { updateUser(id: $id, input: { displayName: $displayName }) { id displayName } }
`);

export function Profile() {
  const [{ data, error }] = useQuery({ query: ProfileQuery });
  const [result, update] = useMutation(UpdateProfile);
  const [name, setName] = useState('');
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => {
    if (data) setName(data.viewer.displayName);
  }, [data]);
  return (
    <section aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      <Loaded data={data} error={error}>
        {({ viewer }) => (
          <form
            className="stack"
            onSubmit={async (e: FormEvent) => {
              e.preventDefault();
              const r = await update({ id: viewer.id, displayName: name });
              if (!r.error) setDone('Profile saved');
            }}
          >
            <p>Email: {viewer.email}</p>
            <div className="field">
              <label htmlFor="display-name">Name</label>
              <input id="display-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={64} />
            </div>
            <button type="submit">Save profile</button>
            <Outcome error={result.error} done={done} />
          </form>
        )}
      </Loaded>
    </section>
  );
}
