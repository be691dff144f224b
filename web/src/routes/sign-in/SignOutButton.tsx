import { useMutation } from 'urql';
import { graphql } from '../../gql';

const SignOutMutation = graphql(`
  mutation SignOut { signOut }
`);

/** Ends this session (the server revokes it and clears the cookie); the app starts afresh at sign-in. */
export function SignOutButton() {
  const [result, signOut] = useMutation(SignOutMutation);
  return (
    <button
      type="button"
      disabled={result.fetching}
      onClick={async () => {
        await signOut({});
        location.assign('/app/sign-in');
      }}
    >
      Sign out
    </button>
  );
}
