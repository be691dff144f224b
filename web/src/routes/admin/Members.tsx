export function Members() {
  return <section className="screen"><h1>Members</h1></section>;
}
