import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ReplyJournal } from "./reply-journal";

const answer = (body: string) => ({ status: 200, contentType: "application/json", body });

function tempPath(): string {
  return join(mkdtempSync(join(tmpdir(), "journal-")), "state", "replies.json");
}

describe("ReplyJournal", () => {
  it("answers a recorded id after a restart (the file is the journal)", () => {
    const path = tempPath();
    new ReplyJournal({ path }).put("m1", answer('{"reply":"hi"}'));
    const again = new ReplyJournal({ path });
    expect(again.get("m1")).toMatchObject(answer('{"reply":"hi"}'));
    expect(again.get("m2")).toBeUndefined();
    // Written atomically: no temp file is left beside it.
    expect(readdirSync(join(path, ".."))).toEqual(["replies.json"]);
  });

  it("keeps the newest maxEntries ids", () => {
    const journal = new ReplyJournal({ path: tempPath(), maxEntries: 2 });
    journal.put("a", answer("1"));
    journal.put("b", answer("2"));
    journal.put("c", answer("3"));
    expect(journal.size).toBe(2);
    expect(journal.get("a")).toBeUndefined();
    expect(journal.get("c")?.body).toBe("3");
  });

  it("forgets answers older than maxAgeMs", () => {
    let t = 0;
    const path = tempPath();
    const journal = new ReplyJournal({ path, maxAgeMs: 1_000, now: () => t });
    journal.put("old", answer("1"));
    t = 1_500;
    expect(journal.get("old")).toBeUndefined();
    journal.put("new", answer("2"));
    expect(JSON.parse(readFileSync(path, "utf8")).entries.map((e: [string]) => e[0])).toEqual([
      "new",
    ]);
  });

  it("does not keep an answer over maxBodyBytes", () => {
    const journal = new ReplyJournal({ path: tempPath(), maxBodyBytes: 4 });
    expect(journal.put("big", answer("12345"))).toBe(false);
    expect(journal.get("big")).toBeUndefined();
  });

  it("starts empty from a damaged file instead of failing", () => {
    const path = tempPath();
    new ReplyJournal({ path }).put("x", answer("1"));
    writeFileSync(path, "{not json");
    expect(new ReplyJournal({ path }).size).toBe(0);
  });
});
