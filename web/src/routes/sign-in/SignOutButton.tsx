export function SignOutButton() {
  return null;
}
