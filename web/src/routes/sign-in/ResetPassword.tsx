import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useMutation } from 'urql';
import { graphql } from '../../gql';
import { Outcome } from '../../lib/ui';

const ResetPasswordMutation = graphql(`
  mutation ResetPassword($token: String!, $password: String!) { resetPassword(token: $token, password: $password) { id } }
`);

/** A one-time link's screen (a reset, or "set your password" for an invited person): choose a password, then signed in. */
export function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [result, reset] = useMutation(ResetPasswordMutation);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const mismatch = repeat !== '' && password !== repeat;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mismatch) return;
    const r = await reset({ token, password });
    if (r.data) location.assign('/app');
  };
  return (
    <main id="main" className="sign-in">
      <h1>Choose your password</h1>
      {!token ? (
        <p role="alert">This link has no token: ask your administrator for a new one.</p>
      ) : (
        <form className="stack" onSubmit={submit}>
          <div className="field">
            <label htmlFor="new-password">New password</label>
            <input
              id="new-password"
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
            />
          </div>
          <div className="field">
            <label htmlFor="repeat-password">Repeat the password</label>
            <input
              id="repeat-password"
              type="password"
              autoComplete="new-password"
              value={repeat}
              onChange={(e) => setRepeat(e.target.value)}
              required
              aria-invalid={mismatch}
            />
          </div>
          {mismatch && (
            <p role="alert" className="error">
              The two passwords differ.
            </p>
          )}
          <button type="submit" className="primary" disabled={result.fetching}>
            Set password
          </button>
          <Outcome error={result.error} />
        </form>
      )}
    </main>
  );
}
