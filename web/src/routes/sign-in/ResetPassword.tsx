export function ResetPassword() {
  return <section className="screen"><h1>ResetPassword</h1></section>;
}
