import { describe, expect, it } from "vitest";
import { type SetupFacts, setupChecklist, setupComplete } from "./checklist";
import { type AgentUsageConfig, hobbyFit } from "./hobby-fit";

const OK = { ok: true, detail: "ok in 3 ms" };
const green: SetupFacts = {
  onVercel: true,
  envProblems: [],
  missingSecrets: [],
  store: { description: "upstash kv.upstash.io", check: OK },
  provider: { name: "vercel", check: OK, missingEnv: [] },
  publicUrl: { url: "https://claw.vercel.app", reachable: OK },
  cron: { jobs: 0, scheduler: "daily-cron" },
  channels: [{ name: "generic", missingEnv: [], webhookRegistered: null, detail: "" }],
  freePlan: null,
};

const open = (facts: SetupFacts) =>
  setupChecklist(facts)
    .filter((i) => !i.ok)
    .map((i) => ({ id: i.id, fix: i.fix }));

describe("setupChecklist", () => {
  it("is all green for a complete deployment", () => {
    const items = setupChecklist(green);
    expect(items.every((i) => i.ok)).toBe(true);
    expect(setupComplete(items)).toBe(true);
  });

  it("names the exact variables of a fresh deploy", () => {
    const fresh: SetupFacts = {
      ...green,
      envProblems: ["environment: no store is connected: on Vercel, attach Upstash Redis …"],
      missingSecrets: ["ADMIN_SECRET", "CRON_SECRET"],
      store: null,
      provider: {
        name: "vercel",
        check: { ok: false, detail: "environment: VERCEL_TEAM_ID is not set" },
        missingEnv: ["VERCEL_TEAM_ID"],
      },
      publicUrl: { url: null, reachable: null },
    };
    expect(open(fresh)).toEqual([
      { id: "store", fix: expect.stringContaining("KV_REST_API_URL and KV_REST_API_TOKEN") },
      { id: "provider", fix: "set VERCEL_TEAM_ID" },
      { id: "secret:ADMIN_SECRET", fix: expect.stringMatching(/^set ADMIN_SECRET to/) },
      { id: "secret:CRON_SECRET", fix: expect.stringMatching(/^set CRON_SECRET to/) },
      { id: "public-url", fix: expect.stringContaining("CLAWRUN_PUBLIC_URL") },
    ]);
    expect(setupComplete(setupChecklist(fresh))).toBe(false);
  });

  it("passes on the provider's own rule when it names no single variable", () => {
    const rule =
      "the vercel provider needs VERCEL_OIDC_TOKEN (set on Vercel) or all of VERCEL_TOKEN, VERCEL_TEAM_ID and VERCEL_PROJECT_ID";
    const facts = {
      ...green,
      provider: {
        name: "vercel",
        check: { ok: false, detail: `environment: ${rule} (the vercel provider needs it)` },
        missingEnv: [],
      },
    };
    expect(open(facts)).toEqual([{ id: "provider", fix: rule }]);
  });

  it("says plainly that cron jobs fire at most daily without a scheduler (recommended, not required)", () => {
    const daily = { ...green, cron: { jobs: 2, scheduler: "daily-cron" as const } };
    const item = setupChecklist(daily).find((i) => i.id === "cron");
    expect(item).toMatchObject({ ok: false, need: "recommended" });
    expect(item?.detail).toContain("cron jobs fire at most daily on this plan");
    expect(item?.fix).toContain("QSTASH_TOKEN");
    expect(setupComplete(setupChecklist(daily))).toBe(true);
    const qstash = { ...green, cron: { jobs: 2, scheduler: "qstash" as const } };
    expect(setupChecklist(qstash).find((i) => i.id === "cron")?.ok).toBe(true);
  });

  it("lists each channel's missing secrets and unregistered webhook", () => {
    const telegram = {
      ...green,
      channels: [
        {
          name: "telegram",
          missingEnv: ["TELEGRAM_BOT_TOKEN"],
          webhookRegistered: null,
          detail: "not checked yet",
        },
        { name: "slack", missingEnv: [], webhookRegistered: false, detail: "points elsewhere" },
      ],
    };
    expect(open(telegram)).toEqual([
      { id: "channel:telegram:env", fix: "set TELEGRAM_BOT_TOKEN" },
      {
        id: "channel:telegram:webhook",
        fix: "run: npx clawrun channels register telegram (pointed at this deployment: CLAWRUN_URL, ADMIN_SECRET) or the Register webhook button; the platform's answer is kept 60 s, so a registration shows here up to 60 s later",
      },
      {
        id: "channel:slack:webhook",
        fix: expect.stringContaining("npx clawrun channels register slack"),
      },
    ]);
  });
});

describe("the public-URL item (a timeout is unknown; locally the URL is not required)", () => {
  const TIMED_OUT = { ok: false, unknown: true as const, detail: "no answer in time" };
  const REFUSED = { ok: false, detail: "fetch failed: ECONNREFUSED" };
  const local = {
    ...green,
    onVercel: false,
    publicUrl: { url: "http://127.0.0.1:3000", reachable: OK },
  };
  const cases: {
    name: string;
    facts: SetupFacts;
    want: { ok: boolean; unknown?: true; need: string; fix: RegExp | null };
    complete: boolean;
  }[] = [
    {
      name: "local, timed out: unknown, no fix, still complete (no 503)",
      facts: { ...local, publicUrl: { url: local.publicUrl.url, reachable: TIMED_OUT } },
      want: { ok: false, unknown: true, need: "recommended", fix: null },
      complete: true,
    },
    {
      name: "Vercel, timed out: unknown, no fix, still complete",
      facts: { ...green, publicUrl: { url: green.publicUrl.url, reachable: TIMED_OUT } },
      want: { ok: false, unknown: true, need: "required", fix: null },
      complete: true,
    },
    {
      name: "local, refused: recommended, the fix says when it matters",
      facts: { ...local, publicUrl: { url: local.publicUrl.url, reachable: REFUSED } },
      want: { ok: false, need: "recommended", fix: /only needed when/ },
      complete: true,
    },
    {
      name: "Vercel, refused: required, set CLAWRUN_PUBLIC_URL",
      facts: { ...green, publicUrl: { url: green.publicUrl.url, reachable: REFUSED } },
      want: { ok: false, need: "required", fix: /^set CLAWRUN_PUBLIC_URL/ },
      complete: false,
    },
    {
      name: "local, reachable: done",
      facts: local,
      want: { ok: true, need: "recommended", fix: null },
      complete: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const items = setupChecklist(c.facts);
      const item = items.find((i) => i.id === "public-url");
      expect(item).toMatchObject({ ok: c.want.ok, need: c.want.need });
      expect(item?.unknown).toBe(c.want.unknown);
      if (c.want.fix === null) expect(item?.fix).toBeNull();
      else expect(item?.fix).toMatch(c.want.fix);
      expect(setupComplete(items)).toBe(c.complete);
    });
  }

  it("warns (recommended, not required) when the agents' estimate exceeds a free limit, naming it and by how much", () => {
    const agent = (name: string): AgentUsageConfig => ({
      name,
      activeDurationS: 300,
      cronWakeLeadTimeS: 60,
      vcpus: 2,
      cron: [],
    });
    const one = setupChecklist({ ...green, freePlan: hobbyFit([agent("a")]) });
    expect(one.find((i) => i.id === "free-plan")).toMatchObject({ ok: true, fix: null });
    const ten = hobbyFit(Array.from({ length: 10 }, (_, i) => agent(`a${i}`)));
    const items = setupChecklist({ ...green, freePlan: ten });
    const item = items.find((i) => i.id === "free-plan");
    expect(item).toMatchObject({
      ok: false,
      need: "recommended",
      label: expect.stringMatching(/^10 agents/),
    });
    const cpu = ten.over.find((l) => l.id === "sandboxCpuHours");
    expect(cpu).toBeDefined();
    // The detail names the limit and how far over it is.
    expect(item?.detail).toContain("Vercel Sandbox Active CPU (Hobby)");
    expect(item?.detail).toContain(`the ${cpu?.limit} included`);
    expect(item?.fix).toContain("paid plan");
    expect(setupComplete(items)).toBe(true);
    // Not on Vercel: no item at all.
    expect(setupChecklist(green).some((i) => i.id === "free-plan")).toBe(false);
  });
});
