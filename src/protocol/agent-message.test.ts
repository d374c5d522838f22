import { describe, expect, it } from "vitest";
import { parseAgentCronReport, parseAgentMessage, parseAgentReply } from "./agent-message";

describe("agent message payloads (hand-checked: the echo daemon carries no schema library)", () => {
  it("accepts a message and refuses extra keys, empty ids and oversized fields", () => {
    const ok = { id: "m1", conversation: "c", text: "" };
    expect(parseAgentMessage(ok)).toEqual({ ok: true, value: ok });
    expect(parseAgentMessage({ ...ok, extra: 1 })).toEqual({
      ok: false,
      error: '(root): unknown key "extra"',
    });
    expect(parseAgentMessage({ ...ok, id: "" })).toMatchObject({ ok: false, error: /^id:/ });
    expect(parseAgentMessage({ ...ok, conversation: "x".repeat(257) })).toMatchObject({
      ok: false,
      error: /^conversation:/,
    });
    expect(parseAgentMessage({ ...ok, text: "x".repeat(1024 * 1024 + 1) })).toMatchObject({
      ok: false,
      error: /^text:/,
    });
    expect(parseAgentMessage({ id: "m1", conversation: "c" })).toMatchObject({
      ok: false,
      error: "text: expected string, got undefined",
    });
    expect(parseAgentMessage("nope")).toMatchObject({ ok: false });
  });

  it("reads a reply, keeping the other fields as details", () => {
    expect(parseAgentReply({ reply: "hi", count: 2 })).toEqual({
      ok: true,
      value: { reply: "hi", details: { count: 2 } },
    });
    expect(parseAgentReply({ text: "hi" })).toMatchObject({ ok: false, error: /^reply:/ });
    expect(parseAgentReply([])).toMatchObject({ ok: false });
  });

  it("reads a cron report: other top-level keys ignored, job fields strict, at most 100 jobs", () => {
    const job = { name: "standup", schedule: "0 9 * * 1-5", message: "standup time" };
    expect(parseAgentCronReport({ jobs: [job], note: "x" })).toEqual({
      ok: true,
      value: { jobs: [job] },
    });
    expect(parseAgentCronReport({ jobs: [{ ...job, at: 1 }] })).toMatchObject({
      ok: false,
      error: 'jobs[0]: unknown key "at"',
    });
    expect(parseAgentCronReport({ jobs: [{ ...job, name: "" }] })).toMatchObject({
      ok: false,
      error: /^jobs\[0\]\.name:/,
    });
    expect(parseAgentCronReport({ jobs: Array(101).fill(job) })).toMatchObject({ ok: false });
    expect(parseAgentCronReport({})).toMatchObject({ ok: false, error: /^jobs:/ });
  });
});
