// Prints the Simulate script of fixtures/speed.yaml (JSON, which YAML reads too):
// `turns` replies each for Ping and Pong, each taking `delay` ms — with the store's
// write per step, about 1,000 events a second from the run (measured with
// `crewgraph run fixtures/speed.yaml --script … --json`, debug build).
const turns = Number(process.argv[2] ?? 600);
const delay = Number(process.argv[3] ?? 2);
const reply = (who, i, signal) => ({ content: `${who} ${i} ${signal}`, delay_ms: delay });
const ping = Array.from({ length: turns }, (_, i) => reply("Ping", i, i + 1 === turns ? "[END]" : "[NEXT]"));
const pong = Array.from({ length: turns }, (_, i) => reply("Pong", i, "[NEXT]"));
process.stdout.write(JSON.stringify({ replies: { ping, pong } }));
