import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../gql';
import { Outcome } from '../../lib/ui';

const ChangePasswordMutation = graphql(`
  mutation ChangePassword($currentPassword: String, $newPassword: String!) { changePassword(currentPassword: $currentPassword, newPassword: $newPassword) }
`);

/** A new password (the current one asked when there is one); the server signs out the person's other sessions. */
export function ChangePassword() {
  const [result, change] = useMutation(ChangePasswordMutation);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await change({ currentPassword: current || null, newPassword: next });
    if (!r.error) {
      setDone('Password changed; your other sessions were signed out');
      setCurrent('');
      setNext('');
    }
  };
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form className="stack" onSubmit={submit}>
        <div className="field">
          <label htmlFor="current-password">Current password</label>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="changed-password">New password</label>
          <input
            id="changed-password"
            type="password"
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            required
          />
        </div>
        <button type="submit">Change password</button>
        <Outcome error={result.error} done={done} />
      </form>
    </section>
  );
}
