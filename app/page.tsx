export default function Home() {
  return (
    <main style={{ maxWidth: 720, margin: "4rem auto", padding: "0 1rem" }}>
      <h1>ClawRun</h1>
      <p>
        The dashboard arrives with the lifecycle. Health: <a href="/api/health">/api/health</a>
      </p>
    </main>
  );
}
