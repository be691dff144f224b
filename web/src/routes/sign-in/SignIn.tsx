export function SignIn() {
  return <section className="screen"><h1>SignIn</h1></section>;
}
