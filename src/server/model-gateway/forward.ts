import type { OpenDelivery, UsageSettlement, UsageStore } from "../store/types";
import { attributedDelivery, conversationKey } from "./attribution";
import type { CapNotice } from "./cap-notice";
import { type Budget, type CapPeriod, capLimits, capMessage, decideCap, WARN_AT } from "./caps";
import {
  costMicros,
  formatUsd,
  maxOutputTokensOf,
  reservationMicros,
  totalTokens,
  type Usage,
} from "./cost";
import { credentialHolder, holderIsCurrent, presentedCredential } from "./credential";
import { utcDay, utcMonth } from "./periods";
import { type PriceOverrides, priceFor } from "./prices";
import { type ApiShape, type RefusalKind, refusal } from "./refusal";
import type { SettlementBacklog } from "./settlement-backlog";
import { speaks, type Upstream, upstreamRequest } from "./upstream";
import type { UpstreamFetch } from "./upstream-client";
import { SseUsageReader, usageFromBody } from "./usage-parse";

export interface GatewayEvent {
  type: "model.budget_warning" | "model.budget_reached";
  period: CapPeriod;
  message: string;
}

export interface GatewayDeps {
  upstream: Upstream;
  budget: Budget | undefined;
  prices: PriceOverrides;
  /** Operator's choice: forward calls to models missing from the price table, billed $0. */
  allowUnpriced: boolean;
  usage: UsageStore;
  /** This server's settlements the store did not take; while any is left, calls are refused. */
  backlog: SettlementBacklog;
  masterSecret: string;
  clock(): number;
  /** Sends the request to the upstream (keep-alive connections in the server). */
  fetchUpstream: UpstreamFetch;
  /** How long the upstream may take to start answering. */
  timeoutMs: number;
  notify(event: GatewayEvent): Promise<void>;
  /**
   * Runs work that must not hold up the agent's answer (a settlement) once the response is
   * sent; what it returns is awaited by the handler. On the server: Next's after(), resolved
   * at once. Elsewhere (tests, scripts): the work itself, so it is done when the call is.
   */
  afterResponse(work: () => Promise<void>): Promise<void>;
  /** Tells the conversation a call was refused for the cap, once per conversation and period. */
  tellConversation(delivery: OpenDelivery, notice: CapNotice): Promise<void>;
  logError(message: string, details: Record<string, unknown>): void;
}

/** Request bodies above this are refused before anything is forwarded. */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** Upstream response headers an agent's client uses to pace itself. */
const PASSED_BACK =
  /^(content-type|retry-after|retry-after-ms|x-request-id|request-id|x-ratelimit-.*|anthropic-ratelimit-.*|openai-processing-ms)$/i;

/**
 * On every answer: `next start` would otherwise gzip each response, a 300-byte JSON answer and
 * every SSE chunk included (a zlib stream per call, flushed per chunk, then inflated by the
 * agent): CPU on both ends for next to no bytes. The compression middleware skips
 * `no-transform`; on Vercel the platform compresses instead of Next.
 */
const NO_TRANSFORM = { "cache-control": "no-store, no-transform" } as const;

function refuse(
  shape: ApiShape,
  kind: RefusalKind,
  message: string,
  retryAfterS?: number,
): Response {
  const r = refusal(shape, kind, message, retryAfterS);
  return new Response(JSON.stringify(r.body), { status: r.status, headers: r.headers });
}

/**
 * One model call: authenticate the sandbox's credential, reserve against the caps, forward
 * with the real key, stream the answer through, settle what the upstream says it used.
 * Every refusal happens before anything is forwarded or held.
 */
export async function handleModelCall(
  request: Request,
  deps: GatewayDeps,
  shape: ApiShape,
  path: string,
): Promise<Response> {
  const credential = presentedCredential(request.headers);
  const holder = credential ? credentialHolder(deps.masterSecret, credential) : null;
  const unauthorized = () =>
    refuse(
      shape,
      "unauthorized",
      "invalid model credential: use the key ClawRun gave this sandbox",
    );
  // A forged credential stops here; whether its sandbox is the running one is read with the
  // reservation below (one store round trip per call instead of two).
  if (!holder) return unauthorized();
  // A cost this server could not record blocks new spending here until it is recorded.
  if (!(await deps.backlog.flush(deps.usage))) {
    return refuse(
      shape,
      "usage_unrecorded",
      `ClawRun could not record the cost of ${deps.backlog.size} earlier model call(s): its store is unreachable. Model calls resume once it is recorded.`,
      5,
    );
  }
  if (!speaks(deps.upstream.kind, shape)) {
    return refuse(
      shape,
      "bad_request",
      `this agent's model provider (${deps.upstream.kind}) does not serve ${path}`,
    );
  }
  const raw = Buffer.from(await request.arrayBuffer());
  const bytes = raw.length;
  if (bytes > MAX_REQUEST_BYTES)
    return refuse(shape, "bad_request", `request body over ${MAX_REQUEST_BYTES} bytes`);
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw.toString("utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error();
    body = parsed as Record<string, unknown>;
  } catch {
    return refuse(shape, "bad_request", "expected a JSON object as the request body");
  }
  const model = body.model;
  if (typeof model !== "string" || model === "") {
    return refuse(shape, "bad_request", "expected a model id in the body's `model` field");
  }
  const price =
    priceFor(model, deps.prices) ?? (deps.allowUnpriced ? { input: 0, output: 0 } : null);
  if (!price) {
    return refuse(
      shape,
      "unpriced_model",
      `model ${model} has no price in ClawRun's table: add it under modelGateway.prices in clawrun.json (or allow unpriced calls)`,
    );
  }
  const streamed = body.stream === true;
  // The agent's bytes go on as they came (re-serialising a large context costs milliseconds),
  // unless the body must change.
  let forwarded: Buffer | string = raw;
  // Ask OpenAI-shaped streams for their usage chunk: without it a stream could not be billed.
  if (streamed && shape === "openai" && path === "/chat/completions") {
    const opts =
      typeof body.stream_options === "object" && body.stream_options !== null
        ? (body.stream_options as Record<string, unknown>)
        : {};
    if (opts.include_usage !== true) {
      body.stream_options = { ...opts, include_usage: true };
      forwarded = JSON.stringify(body);
    }
  }

  const now = deps.clock();
  const day = utcDay(now);
  const month = utcMonth(now);
  const amount = reservationMicros(bytes, maxOutputTokensOf(body), price);
  const base = capLimits(deps.budget);
  const hold = await deps.usage.reserve({
    now,
    day,
    month,
    amount,
    dayLimit: base.daily,
    monthLimit: base.monthly,
  });
  if (!holderIsCurrent(hold.state?.value ?? null, holder)) {
    // Not the running sandbox (stopped, replaced, another one's): give the hold back at once.
    if (hold.held) {
      const release: UsageSettlement = {
        day,
        month,
        reserved: amount,
        cost: 0,
        model: null,
        conversation: "",
        tokens: { input: 0, output: 0, cachedInput: 0 },
        warnDayAt: null,
        warnMonthAt: null,
      };
      await settleWithRetries(deps.usage, release).catch(() => deps.backlog.add(release));
    }
    return unauthorized();
  }
  const limits = capLimits(deps.budget, hold.raiseMicros);
  const delivery = attributedDelivery(hold.open);
  if (!hold.held) {
    const decision = decideCap(hold, amount, limits, now);
    const message = decision.allow
      ? `this call (up to ${formatUsd(amount)}) would exceed the agent's budget`
      : capMessage(decision);
    if (!decision.allow) {
      // Once per period and cap value: the store marked it with the refusal (hold.reached).
      if (hold.reached) {
        await deps
          .notify({ type: "model.budget_reached", period: hold.reached, message })
          .catch(() => {});
      }
      if (delivery) {
        const notice = { period: decision.period, text: message, now, resetsAt: decision.resetsAt };
        await deps.tellConversation(delivery, notice).catch((err: unknown) => {
          deps.logError("could not tell the conversation about the budget", {
            err: String(err),
            conversation: conversationKey(delivery),
          });
        });
      }
    }
    const retryS = decision.allow ? 60 : (decision.resetsAt - now) / 1000;
    return refuse(shape, "budget_exceeded", message, retryS);
  }

  const settle = async (usage: Usage | null, answeredModel: string | null) => {
    const billable = usage !== null && totalTokens(usage) > 0;
    const cost = billable ? costMicros(usage, price) : 0;
    const settlement: UsageSettlement = {
      day,
      month,
      reserved: amount,
      cost,
      model: billable ? (answeredModel ?? model) : null,
      conversation: delivery ? conversationKey(delivery) : "",
      tokens: {
        input: usage?.input ?? 0,
        output: usage?.output ?? 0,
        cachedInput: usage?.cachedInput ?? 0,
      },
      warnDayAt: limits.daily === null ? null : Math.ceil(limits.daily * WARN_AT),
      warnMonthAt: limits.monthly === null ? null : Math.ceil(limits.monthly * WARN_AT),
    };
    // Retried: a blip must not lose a bill. The answer is the agent's either way; a bill that
    // still cannot be written waits in this server's backlog, which refuses the next calls
    // and raises the warning when it is recorded.
    const warned = await settleWithRetries(deps.usage, settlement).catch((err: unknown) => {
      deps.backlog.add(settlement, warn);
      deps.logError("model usage could not be recorded; refusing model calls until it is", {
        err: String(err),
        settlement,
      });
      return [];
    });
    await warn(warned);
  };
  const warn = async (warned: CapPeriod[]) => {
    for (const period of warned) {
      const limit = period === "daily" ? limits.daily : limits.monthly;
      await deps
        .notify({
          type: "model.budget_warning",
          period,
          message: `This agent has used 80 % of its ${period} model budget of ${formatUsd(limit ?? 0)}.`,
        })
        .catch(() => {});
    }
  };

  const target = upstreamRequest(deps.upstream, shape, path, request.headers);
  const host = new URL(target.url).host;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), deps.timeoutMs);
  // The agent hanging up stops the upstream call too (and so its spending).
  request.signal?.addEventListener("abort", () => abort.abort(), { once: true });
  let upstream: Response;
  try {
    upstream = await deps.fetchUpstream(target.url, {
      headers: target.headers,
      body: forwarded,
      signal: abort.signal,
    });
  } catch (err) {
    clearTimeout(timer);
    await settle(null, null);
    return abort.signal.aborted
      ? refuse(
          shape,
          "upstream_timeout",
          `the model server ${host} did not answer within ${deps.timeoutMs} ms`,
          1,
        )
      : refuse(
          shape,
          "upstream_unreachable",
          `the model server ${host} could not be reached: ${(err as Error).message}`,
          1,
        );
  }
  clearTimeout(timer);

  const headers = new Headers(NO_TRANSFORM);
  upstream.headers.forEach((value, name) => {
    if (PASSED_BACK.test(name)) headers.set(name, value);
  });
  if (!upstream.ok || !upstream.body) {
    // An upstream error produced no tokens: release the hold, pass status and retry hints on.
    const text = await upstream.text();
    await settle(null, null);
    return new Response(text, { status: upstream.status, headers });
  }

  if (!(upstream.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const text = await upstream.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {}
    const answered = (parsed as { model?: unknown } | null)?.model;
    // The answer goes out first; its bill is written right after (a store round trip less
    // on the agent's wait). The hold counts against the caps until then.
    await deps.afterResponse(() =>
      settle(usageFromBody(shape, parsed), typeof answered === "string" ? answered : null),
    );
    return new Response(text, { status: upstream.status, headers });
  }

  // Streamed: pass every chunk on as it comes, reading usage on the way; settle at the end.
  const reader = new SseUsageReader(shape);
  const decoder = new TextDecoder();
  let settled = false;
  const finish = async () => {
    if (settled) return;
    settled = true;
    reader.push(decoder.decode());
    await settle(reader.result(), reader.model);
  };
  const source = upstream.body.getReader();
  const out = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await source.read();
        if (done) {
          controller.close();
          await finish();
          return;
        }
        controller.enqueue(value);
        reader.push(decoder.decode(value, { stream: true }));
      } catch (err) {
        await finish();
        controller.error(err);
      }
    },
    // The agent hung up mid-stream: bill what the upstream had reported so far.
    async cancel(reason) {
      await source.cancel(reason).catch(() => {});
      await finish();
    },
  });
  return new Response(out, { status: upstream.status, headers });
}

/** Waits between settlement attempts: a store blip is usually over within a fraction of a second. */
const SETTLE_RETRY_MS = [100, 400];

async function settleWithRetries(
  usage: UsageStore,
  settlement: UsageSettlement,
): Promise<CapPeriod[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await usage.settle(settlement)).warned;
    } catch (err) {
      const wait = SETTLE_RETRY_MS[attempt];
      if (wait === undefined) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
