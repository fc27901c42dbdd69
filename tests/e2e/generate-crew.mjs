// Prints a generated crew of N agents, each with three signal edges to agents near
// it in crew order ([NEXT] to the next one, [SKIP] to the one after, [DOWN] twelve
// on — the card below it when the editor lays a big crew out twelve to a row); the
// last agent finishes the run. The editor's large-crew fixture
// (`node generate-crew.mjs 1000 > big.yaml`): 1,000 agents, 3,000 edges.
const agents = Number(process.argv[2] ?? 1000);
const lines = ['version: "1.0"', `name: Generated ${agents}`, "entry_point: agent_0", "max_handoffs: 50", "agents:"];
for (let i = 0; i < agents; i++) {
  lines.push(`  - id: agent_${i}`, `    name: Agent ${i}`, "    role: Works on one part of the job", `    tags: [bench, part${i % 10}]`);
}
lines.push("routing:", "  signals:");
for (let i = 0; i < agents; i++) {
  lines.push(
    `    agent_${i}:`,
    `      - { signal: "[NEXT]", target: agent_${(i + 1) % agents} }`,
    `      - { signal: "[SKIP]", target: agent_${(i + 2) % agents} }`,
    i === agents - 1 ? `      - { signal: "[DONE]", target: "" }` : `      - { signal: "[DOWN]", target: agent_${(i + 12) % agents} }`,
  );
}
console.log(lines.join("\n"));
