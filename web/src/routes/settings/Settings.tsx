export function Settings() {
  return <section className="screen"><h1>Settings</h1></section>;
}
