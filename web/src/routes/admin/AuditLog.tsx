export function AuditLog() {
  return <section className="screen"><h1>AuditLog</h1></section>;
}
