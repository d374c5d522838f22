import { randomBytes } from "node:crypto";
import { signatureHeaders } from "../../../src/protocol/signing";
import {
  describeChannelContract,
  type MessageSpec,
  type PlatformRequest,
} from "./channel-contract";

const secret = randomBytes(24).toString("hex");
const body = (m: MessageSpec) => JSON.stringify({ id: m.id, conversation: m.chat, text: m.text });
const signed = (raw: string, at: number, key = secret): PlatformRequest => ({
  method: "POST",
  headers: { "content-type": "application/json", ...signatureHeaders(key, raw, at) },
  body: raw,
});

describeChannelContract({
  name: "generic",
  setup: async () => ({ config: {}, env: { CLAWRUN_WEBHOOK_SECRET: secret } }),
  message: (m) => signed(body(m), m.now),
  stored: (m) => ({ id: m.id, conversation: m.chat, text: m.text }),
  forge: (req) => signed(req.body, Date.now(), "another-secret-of-enough-length"),
  unsign: (req) => ({ ...req, headers: { "content-type": "application/json" } }),
  stale: (m, ageMs) => signed(body(m), m.now - ageMs),
  retry: (m) => signed(body(m), m.now),
  handshakes: [],
  ignorable: [],
  malformed: (now) => signed("{not json", now),
  queuedStatus: 202,
  maxBodyBytes: 1024 * 1024,
});
