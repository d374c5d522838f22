/**
 * Small programs the provider contract suite runs inside sandboxes. Plain CommonJS with
 * Node built-ins only, since they run wherever the provider puts them.
 */

/** An HTTP server on the host port the provider mapped `declared` to; writes its pid to argv[2]. */
export function echoServer(host: string, declared = 3000): string {
  return `const http = require("node:http");
const fs = require("node:fs");
const raw = process.env.CLAWRUN_PORT_${declared};
const port = raw ? Number(raw) : ${declared};
http.createServer((req, res) => res.end(process.env.REPLY || "pong")).listen(port, ${JSON.stringify(host)}, () => {
  fs.writeFileSync(process.argv[2], String(process.pid));
});
`;
}

/** parent.sh → child.sh → server.js: three generations, each recording its pid under pids/. */
export function processTree(node: string, host: string) {
  return [
    { path: "server.js", content: echoServer(host) },
    { path: "parent.sh", content: "mkdir -p pids\nsh child.sh &\necho $$ > pids/parent\nwait\n" },
    {
      path: "child.sh",
      content: `${JSON.stringify(node)} server.js pids/grandchild &\necho $$ > pids/child\nwait\n`,
    },
  ];
}

/**
 * Rewrites files without pause in two patterns a torn capture breaks:
 * - 16 slots of 512 KiB, each rewritten in place: delete slot.sum, rewrite slot.dat in many write()
 *   calls, then commit slot.sum with its checksum (temp file + rename). On disk a .sum always matches its .dat;
 *   a capture that reads .dat mid-rewrite and .sum later (or the reverse) does not.
 * - log.txt, one whole record per write(); a record holds its own checksum.
 * `progress` (written atomically) tells how far it got.
 */
export const continuousWriter = `const fs = require("node:fs");
const crypto = require("node:crypto");
const sha = (b) => crypto.createHash("sha256").update(b).digest("hex");
fs.mkdirSync("data", { recursive: true });
const log = fs.openSync("log.txt", "a");
for (let n = 0; ; n++) {
  const slot = "data/slot" + (n % 16);
  fs.rmSync(slot + ".sum", { force: true });
  const fd = fs.openSync(slot + ".dat", "w");
  const hash = crypto.createHash("sha256");
  for (let i = 0; i < 64; i++) {
    const chunk = crypto.randomBytes(8192);
    hash.update(chunk);
    fs.writeSync(fd, chunk);
  }
  fs.closeSync(fd);
  fs.writeFileSync(slot + ".sum.tmp", hash.digest("hex"));
  fs.renameSync(slot + ".sum.tmp", slot + ".sum");
  const payload = crypto.randomBytes(512).toString("hex");
  fs.writeSync(log, n + " " + sha(payload) + " " + payload + "\\n");
  fs.writeFileSync("progress.tmp", String(n));
  fs.renameSync("progress.tmp", "progress");
}
`;

/** Checks the invariants continuousWriter keeps; prints { pairs, records, bad }. */
export const consistencyVerifier = `const fs = require("node:fs");
const crypto = require("node:crypto");
const sha = (b) => crypto.createHash("sha256").update(b).digest("hex");
const bad = [];
let pairs = 0;
for (const name of fs.readdirSync("data")) {
  if (!name.endsWith(".sum")) continue;
  const dat = "data/" + name.replace(/\\.sum$/, ".dat");
  const expected = fs.readFileSync("data/" + name, "utf8");
  if (!fs.existsSync(dat)) bad.push(name + ": .dat missing");
  else if (sha(fs.readFileSync(dat)) !== expected) bad.push(dat + ": torn (" + fs.statSync(dat).size + " bytes)");
  else pairs++;
}
const text = fs.readFileSync("log.txt", "utf8");
if (text.length > 0 && !text.endsWith("\\n")) bad.push("log.txt: last record cut short");
const lines = text.split("\\n").filter(Boolean);
lines.forEach((line, i) => {
  const [n, sum, payload] = line.split(" ");
  if (Number(n) !== i || sha(payload || "") !== sum) bad.push("log.txt record " + i + " is torn");
});
process.stdout.write(JSON.stringify({ pairs, records: lines.length, bad: bad.slice(0, 20) }));
`;
